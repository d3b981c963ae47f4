"""Resolution decks, enemies and vehicles as data: TOML files, validated with one-line errors.

A deck file lists its cards (format in ``docs/rules/dustrunners.md``)::

    name = "my deck"
    [[card]]
    name = "double skull"  # optional, used by card_counts overrides
    count = 3              # copies of this card, default 1
    die = 2                # 1..6, enemy bonus health
    driver = "you"         # "you" or "raiders": who has initiative
    triangle = 0           # raider steps, default 0
    skulls = 1             # damage, default 0
    moon = "full"          # any moon name, default "none"
    loot = "ammo"          # health, ammo, fuel or modification

``load_deck("illustrative")`` reads the shipped illustrative deck (made up: the real card list is
not published); any other value is a path to a deck file.

>>> deck = load_deck("illustrative")
>>> deck.size, deck.illustrative, deck.file.endswith("illustrative-deck.toml")
(30, True, True)
>>> load_deck("illustrative-12").size
12
"""

from __future__ import annotations

import functools
import pathlib
from dataclasses import dataclass
from typing import Any, Mapping

from montecarlo.errors import InputError, unusable_path
from montecarlo.tomlread import parse_text, read_text
from montecarlo.validate import is_whole

DATA = pathlib.Path(__file__).resolve().parent / "data"
SHIPPED_DECKS = {"illustrative": "illustrative-deck.toml", "illustrative-12": "illustrative-deck-12.toml"}
DEFAULT_DECK = "illustrative"
DRIVERS = ("you", "raiders")
LOOTS = ("health", "ammo", "fuel", "modification")
ENEMY_KINDS = ("raiders", "spybot", "mutant")
_CARD_KEYS = ("name", "count", "die", "driver", "triangle", "skulls", "moon", "loot")
_DECK_KEYS = ("name", "illustrative", "description", "card")
MAX_COPIES = 200


@dataclass(frozen=True, slots=True)
class Card:
    """One kind of resolution card (its copies are counted by the deck)."""

    name: str
    die: int
    driver: str
    triangle: int
    skulls: int
    moon: str
    loot: str


@dataclass(frozen=True, slots=True)
class Deck:
    """A resolution deck: kinds of card and copies of each; ``file`` is where it was read from."""

    name: str
    file: str
    cards: tuple[Card, ...]
    counts: tuple[int, ...]
    illustrative: bool = False
    overrides: tuple[tuple[str, int], ...] = ()

    @property
    def size(self) -> int:
        return sum(self.counts)

    @property
    def total_skulls(self) -> int:
        return sum(c.skulls * k for c, k in zip(self.cards, self.counts))

    def label(self) -> str:
        """How outputs name the deck: its file, the overrides, and 'illustrative' if it is."""
        text = f"{self.name} ({self.size} cards, file {self.file})"
        if self.overrides:
            text += " with " + ", ".join(f"{n} x{k}" for n, k in self.overrides)
        return text + (" [ILLUSTRATIVE: not the published card list]" if self.illustrative else "")

    def short_label(self) -> str:
        """The deck file and size, for titles: a shipped deck by the name --deck takes
        (``illustrative-12``), not by where the package is installed."""
        tag = ", ILLUSTRATIVE" if self.illustrative else ""
        changed = ", ".join(f"{n} x{k}" for n, k in self.overrides)
        mods = f", counts changed: {changed}" if self.overrides else ""
        shipped = {str(DATA / file): name for name, file in SHIPPED_DECKS.items()}
        return f"{shipped.get(self.file, self.file)} ({self.size} cards{tag}{mods})"

    def with_counts(self, counts: Mapping[str, Any]) -> "Deck":
        """The deck with some cards' copy counts replaced (by card name); 0 removes a card."""
        names = [c.name for c in self.cards]
        by_key = {card_key(n): n for n in names}  # "Double-Tap" is the card "double tap"
        new = list(self.counts)
        given: dict[str, int] = {}  # card name as in the deck -> its new count
        for name, k in counts.items():
            card = by_key.get(card_key(str(name)))
            if card is None:
                known = ", ".join(names)
                raise InputError(f"card_counts: no card named {name!r} in the {self.name}; known: {known}")
            if card in given:  # "Double Tap" and "double tap": the later would undo the earlier
                raise InputError(f"card_counts: {card!r} is given twice; give each card's count once")
            if not is_whole(k) or not 0 <= k <= MAX_COPIES:
                raise InputError(f"card_counts: {name}: expected a count 0..{MAX_COPIES}, got {k!r}")
            given[card] = int(k)
            new[names.index(card)] = int(k)
        if sum(new) == 0:
            raise InputError(f"card_counts: the {self.name} would have no cards left")
        keep = [i for i, k in enumerate(new) if k > 0]
        return Deck(self.name, self.file, tuple(self.cards[i] for i in keep), tuple(new[i] for i in keep),
                    self.illustrative, self.overrides + tuple(given.items()))

    def card_list(self) -> list[Card]:
        """One entry per physical card (copies repeated), in file order."""
        return [c for c, k in zip(self.cards, self.counts) for _ in range(k)]


def card_key(name: str) -> str:
    """How --card-counts, --seen and a deck's own check of its names read a card's name:
    regardless of case, hyphens and spaces.

    >>> card_key(" Head-on  Crash "), card_key("head on crash")
    ('head on crash', 'head on crash')
    """
    return " ".join(name.lower().replace("-", " ").split())


def _read_toml(path: pathlib.Path, what: str) -> dict:
    """The file's tables, through the project's one TOML reader (one line naming the file)."""
    return parse_text(read_text(path, what), str(path))


def _int(where: str, key: str, value: Any, low: int, high: int | None = None) -> int:
    if not is_whole(value) or value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise InputError(f"{where}: {key} must be an integer {span}, got {value!r}")
    return int(value)


def _str(where: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: {key} must be a non-empty string, got {value!r}")
    return value.strip()


def parse_card(raw: Any, where: str, number: int) -> tuple[Card, int]:
    """One ``[[card]]`` table -> (Card, copies); InputError naming ``where`` and the card."""
    if not isinstance(raw, dict):
        raise InputError(f"{where}: card {number}: expected a table, got {raw!r}")
    label = f"card {number}" + (f" ({raw['name']!r})" if isinstance(raw.get("name"), str) else "")
    at = f"{where}: {label}"
    unknown = sorted(set(raw) - set(_CARD_KEYS))
    if unknown:
        raise InputError(f"{at}: unknown key(s) {', '.join(unknown)}; known: {', '.join(_CARD_KEYS)}")
    for key in ("die", "driver", "loot"):
        if key not in raw:
            raise InputError(f"{at}: {key} is required")
    name = _str(at, "name", raw.get("name", f"card {number}"))
    count = _int(at, "count", raw.get("count", 1), 0, MAX_COPIES)
    die = _int(at, "die", raw["die"], 1, 6)
    driver = raw["driver"]
    if driver not in DRIVERS:
        raise InputError(f"{at}: driver must be one of {', '.join(DRIVERS)}, got {driver!r}")
    triangle = _int(at, "triangle", raw.get("triangle", 0), 0, 99)
    skulls = _int(at, "skulls", raw.get("skulls", 0), 0, 99)
    moon = _str(at, "moon", raw.get("moon", "none"))
    loot = raw["loot"]
    if loot not in LOOTS:
        raise InputError(f"{at}: loot must be one of {', '.join(LOOTS)}, got {loot!r}")
    return Card(name, die, driver, triangle, skulls, moon, loot), count


def parse_deck(data: Mapping[str, Any], file: str, illustrative_default: bool = False) -> Deck:
    """A validated deck from the parsed TOML of ``file``."""
    unknown = sorted(set(data) - set(_DECK_KEYS))
    if unknown:
        raise InputError(f"{file}: unknown key(s) {', '.join(unknown)}; known: {', '.join(_DECK_KEYS)}")
    raw_cards = data.get("card", [])
    if not isinstance(raw_cards, list):
        raise InputError(f"{file}: card must be an array of tables ([[card]]), got {raw_cards!r}")
    name = _str(file, "name", data.get("name", pathlib.Path(file).stem))
    illustrative = data.get("illustrative", illustrative_default)
    if not isinstance(illustrative, bool):
        raise InputError(f"{file}: illustrative must be true or false, got {illustrative!r}")
    cards, counts = [], []
    names: dict[str, str] = {}  # as --card-counts and --seen find a card: "Double-Tap" is "double tap"
    for number, raw in enumerate(raw_cards, 1):
        card, count = parse_card(raw, file, number)
        key = card_key(card.name)
        if key in names:
            same = "" if names[key] == card.name else (
                f" ({names[key]!r}: names are read regardless of case, hyphens and spaces)"
            )
            raise InputError(f"{file}: card {number}: the name {card.name!r} is used twice{same}")
        names[key] = card.name
        if count:
            cards.append(card)
            counts.append(count)
    if not cards:
        raise InputError(f"{file}: the deck has no cards (add [[card]] tables with count >= 1)")
    return Deck(name, file, tuple(cards), tuple(counts), illustrative)


@functools.lru_cache(maxsize=64)
def _load_path(path: str, mtime: float) -> Deck:
    return parse_deck(_read_toml(pathlib.Path(path), "deck"), path)


def load_deck(deck: str | None = None) -> Deck:
    """A shipped deck by name (``illustrative``, ``illustrative-12``) or a deck file by path."""
    name = DEFAULT_DECK if deck is None else deck
    if not isinstance(name, str) or not name.strip():
        known = ", ".join(SHIPPED_DECKS)
        raise InputError(f"deck: expected a deck file path or one of {known}, got {deck!r}")
    name = name.strip()
    if name in SHIPPED_DECKS:
        path = DATA / SHIPPED_DECKS[name]
        # shown absolute: a path relative to the source tree would not exist from the user's folder
        return parse_deck(_read_toml(path, "deck"), str(path.resolve()), True)
    path = pathlib.Path(name).expanduser()
    with unusable_path(f"deck {name}", "give another deck file"):  # a name too long, say
        if not path.exists():
            shipped = ", ".join(SHIPPED_DECKS)
            raise InputError(f"deck file not found: {name} (or use a shipped deck: {shipped})")
        modified = path.stat().st_mtime
    return _load_path(str(path), modified)


# ----------------------------------------------------------------------------- enemies, vehicles

@dataclass(frozen=True, slots=True)
class Enemy:
    """An enemy card: health die for the first/second exploration card, attack and loot.

    ``kind``: ``raiders`` (stars = cards drawn per attack, damage = skulls), ``spybot`` (draws
    ``stars`` cards and moves the raider by their triangles, no damage) or ``mutant`` (draws one
    card per ``radiation`` skull; each card with a skull gives a radiation card, no damage).
    """

    name: str
    die_first: int
    die_second: int
    stars: int
    moon: str = "none"
    bonus_loot: str = "fuel"
    kind: str = "raiders"
    radiation: int = 0

    def __post_init__(self) -> None:
        at = f"enemy {self.name!r}"
        _int(at, "die_first", self.die_first, 0, 6)
        _int(at, "die_second", self.die_second, 0, 6)
        _int(at, "stars", self.stars, 0, 20)
        _int(at, "radiation", self.radiation, 0, 2)
        if self.kind not in ENEMY_KINDS:
            raise InputError(f"{at}: kind must be one of {', '.join(ENEMY_KINDS)}, got {self.kind!r}")
        if self.bonus_loot not in LOOTS:
            raise InputError(f"{at}: bonus_loot must be one of {', '.join(LOOTS)}, got {self.bonus_loot!r}")
        if self.kind == "mutant" and self.radiation == 0:
            raise InputError(f"{at}: a mutant needs radiation = 1 or 2")
        if self.kind != "mutant" and self.radiation:  # it would be ignored: only a mutant irradiates
            raise InputError(f"{at}: radiation = {self.radiation} is a mutant's (its skulls give radiation "
                             f"cards); a {self.kind} enemy has none")


@dataclass(frozen=True, slots=True)
class Vehicle:
    """A player's vehicle: health, ammo and fuel (start = maximum), damage bonus, VP stars."""

    name: str
    health: int
    ammo: int
    damage_bonus: int
    stars: int = 0
    fuel: int = 0


def _table_of(file: str, kind: str, cls: type, keys: tuple[str, ...]) -> dict[str, Any]:
    path = DATA / file
    data = _read_toml(path, kind)
    out = {}
    for raw in data.get(kind, []):
        unknown = sorted(set(raw) - set(keys))
        if unknown:
            raise InputError(f"{path}: {kind} {raw.get('name')!r}: unknown key(s) {', '.join(unknown)}")
        values = dict(raw)
        if kind == "enemy":
            values["die_first"], values["die_second"] = values.pop("die")
        out[key_of(raw["name"])] = cls(**values)
    return out


def key_of(name: str) -> str:
    """'Road Raiders' -> 'road-raiders' (how enemy and vehicle names are looked up)."""
    return "-".join(str(name).strip().lower().replace("_", " ").split())


@functools.lru_cache(maxsize=1)
def enemies() -> dict[str, Enemy]:
    """The shipped illustrative enemies, by key."""
    return _table_of("enemies.toml", "enemy", Enemy,
                     ("name", "die", "stars", "moon", "bonus_loot", "kind", "radiation"))


@functools.lru_cache(maxsize=1)
def vehicles() -> dict[str, Vehicle]:
    """The shipped illustrative vehicles, by key."""
    keys = ("name", "health", "ammo", "damage_bonus", "stars", "fuel")
    return _table_of("vehicles.toml", "vehicle", Vehicle, keys)


def enemy(name: str) -> Enemy:
    table = enemies()
    if not isinstance(name, str) or key_of(name) not in table:
        raise InputError(f"unknown enemy {name!r}; known: {', '.join(table)}")
    return table[key_of(name)]


def vehicle(name: str) -> Vehicle:
    table = vehicles()
    if not isinstance(name, str) or key_of(name) not in table:
        raise InputError(f"unknown vehicle {name!r}; known: {', '.join(table)}")
    return table[key_of(name)]
