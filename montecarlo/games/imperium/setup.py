"""The setup of one conflict: troops per seat (counts, ranges, distributions, deployment), cards
revealed, intrigue strength, deck and conflict card; parsed from CLI strings or TOML values.

The rules behind each field are in ``docs/rules/imperium.md`` (Troops in the conflict; Swords
revealed). Setup syntax (the same strings work on the command line and in TOML): ``troops`` has
one entry per seat (a list, or one comma-separated string such as ``"3,2,2,1"``); with
``players = N`` a single entry is given to every seat. Each entry is one of:

- ``3``: exactly 3 troops in the conflict;
- ``"1-3"``: 1, 2 or 3 troops, each equally likely;
- ``"0:1/4|2:1/2|3:1/4"`` (or a mapping ``{0 = 0.25, 2 = 0.5, 3 = 0.25}``, or a list of
  ``[value, probability]`` pairs): a distribution over troop counts;
- ``"deploy:R+G"`` or ``"deploy:R+G:POLICY"`` (or a mapping ``{recruited = R, garrison = G,
  policy = "max"}``): the deployment rule "troops recruited this turn plus up to two from the
  garrison", with R recruited and G in the garrison. Policies: ``max`` (default; all recruited
  plus min(2, G)), ``recruited`` (only the recruits), ``uniform`` (all recruited plus 0..min(2, G)
  from the garrison, each equally likely: a model of an opponent whose choice is unknown).

``revealed`` (default 3: a 5-card hand less the two cards that sent agents) and ``intrigue``
(default 0) are one integer for every seat or one per seat. ``deck`` names a built-in deck
(:data:`~montecarlo.games.imperium.rules.DECKS`), ``conflict`` a conflict card
(:data:`~montecarlo.games.imperium.rules.CONFLICTS`) whose victory points give
``seat{i}_points``.

``hagal`` (default none) names the seats (1-based) that stand for House Hagal, the rival of a
solo or two-player game (its cards are on a separate rules sheet the project does not have):
such a seat competes in the conflict with the strength its ``troops`` (2 each) and ``intrigue``
give it (``revealed`` 0: Hagal reveals no cards; one ``revealed`` value for every seat leaves
Hagal's at 0, a value per seat must give 0 for it), takes places like anyone, but is no player:
its rewards count for nobody (its points are not reported) and a setup with Hagal has at most
3 seats (2 players + Hagal, or 1 player + two Hagal rivals), at least one a player's; each Hagal
seat is named once.

>>> setup = parse_conflict({"players": 3, "troops": "deploy:1+3:uniform", "conflict": "Skirmish"})
>>> setup.troops[0].pmf, setup.revealed, setup.conflict
(((1, 0.3333333333333333), (2, 0.3333333333333333), (3, 0.3333333333333333)), (3, 3, 3), 'skirmish')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from montecarlo.errors import InputError
from montecarlo.games.imperium.rules import CONFLICTS, DECKS, MAX_PLAYERS, MIN_PLAYERS
from montecarlo.validate import check_known, is_whole, whole

MAX_TROOPS = 12  # each player has 12 troop cubes (16 cubes, 4 of them on the influence tracks)
MAX_INTRIGUE = 100  # combat intrigue strength per player: a sanity bound, far above any real hand
MAX_HAGAL_SEATS = 3  # House Hagal plays in solo and two-player games: 2 players + Hagal at most

DEPLOY_POLICIES = ("max", "recruited", "uniform")
_DEPLOY = re.compile(r"^deploy:(\d+)\+(\d+)(?::([a-z_]+))?$")


@dataclass(frozen=True, slots=True)
class Troops:
    """One seat's troops in the conflict: a distribution over counts, and how it was written."""

    spec: str
    pmf: tuple[tuple[int, float], ...]  # (troops, probability), increasing troops, no zero probabilities


@dataclass(frozen=True, slots=True)
class ConflictSetup:
    """One conflict: per seat, troops committed, cards revealed and intrigue strength.

    Attributes:
        troops: troops in the conflict, one entry per seat: a count (3), an equally likely range
            (1-3), a distribution ('0:1/4|2:3/4') or the deployment rule 'deploy:R+G[:policy]'.
        revealed: cards revealed from the deck, one value or one per seat (default 3).
        intrigue: combat intrigue strength, one value or one per seat (default 0; counts only
            with troops in the conflict).
        deck: the deck every seat reveals from: starting, starting+sword1 or starting+sword2.
        conflict: the conflict card, for expected victory points (none by default).
        hagal: the seats (from 1) that are House Hagal, the rival of a two-player game, ranked
            but its rewards counted for nobody.
    """

    troops: tuple[Troops, ...]
    revealed: tuple[int, ...]
    intrigue: tuple[int, ...]
    deck: str = "starting"
    conflict: str | None = None
    hagal: tuple[int, ...] = ()  # seats (1-based) that are House Hagal: ranked, rewards not counted

    def __post_init__(self) -> None:
        players = len(self.troops)
        for seat in self.hagal:
            if not is_whole(seat) or not 1 <= seat <= players:
                raise InputError(f"hagal: seat {seat!r} is not a seat of this conflict (1..{players})")
        twice = sorted({s for s in self.hagal if self.hagal.count(s) > 1})
        if twice:
            raise InputError(f"hagal: seat {twice[0]} is given twice; name each House Hagal seat once")
        if self.hagal and players > MAX_HAGAL_SEATS:
            raise InputError(
                "hagal: House Hagal plays only in solo and two-player games: at most "
                f"{MAX_HAGAL_SEATS} seats in all with Hagal's, got {players}"
            )
        if self.hagal and len(self.hagal) >= players:
            raise InputError(
                f"hagal: every seat ({', '.join(map(str, self.hagal))}) is House Hagal; leave at least one "
                "seat for a player"
            )
        object.__setattr__(self, "hagal", tuple(sorted(set(int(s) for s in self.hagal))))
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise InputError(
                f"troops: {players} seat(s) given; a Dune: Imperium conflict has {MIN_PLAYERS} to "
                f"{MAX_PLAYERS} players")
        if self.deck not in DECKS:
            raise InputError(f"deck: unknown deck {self.deck!r}; known: {', '.join(DECKS)}")
        if self.conflict is not None and self.conflict not in CONFLICTS:
            raise InputError(
                f"conflict: unknown conflict card {self.conflict!r}; known: {', '.join(CONFLICTS)}")
        size = DECKS[self.deck].size
        for name in ("revealed", "intrigue"):
            values = getattr(self, name)
            if len(values) != players:
                raise InputError(f"{name}: {len(values)} value(s) for {players} seats")
            for seat, v in enumerate(values, 1):
                whole(f"{name}: seat {seat}", v, 0, MAX_INTRIGUE if name == "intrigue" else None)
        for seat, r in enumerate(self.revealed, 1):
            if r > size:
                raise InputError(
                    f"revealed: seat {seat} reveals {r} cards but the {self.deck} deck holds {size}")

    @property
    def players(self) -> int:
        return len(self.troops)


def parse_conflict(values: Mapping[str, Any]) -> ConflictSetup:
    """A validated :class:`ConflictSetup` from plain values (CLI strings or TOML values).

    See the module doc for the syntax.
    """
    check_known(
        values, ("troops", "revealed", "intrigue", "deck", "conflict", "players", "hagal"), "conflict setup"
    )
    if "troops" not in values:
        raise InputError("troops: required (one entry per seat, e.g. '3,2,2,1')")
    players = values.get("players")
    if players is not None:
        players = whole("players", players, MIN_PLAYERS, MAX_PLAYERS)
    entries = _per_seat(values["troops"], "troops", players)
    # each entry read first: "--troops x" is told what x should be, not only that one seat is too few
    troops = tuple(parse_troops(e, f"troops: seat {i}") for i, e in enumerate(entries, 1))
    if not MIN_PLAYERS <= len(entries) <= MAX_PLAYERS:
        raise InputError(f"troops: {len(entries)} seat(s) given; a Dune: Imperium conflict has "
                         f"{MIN_PLAYERS} to {MAX_PLAYERS} players (one entry per seat, or set players)")
    n = len(troops)
    revealed = _int_per_seat(values.get("revealed", 3), "revealed", n)
    intrigue = _int_per_seat(values.get("intrigue", 0), "intrigue", n)
    deck = values.get("deck", "starting")
    if not isinstance(deck, str):
        raise InputError(f"deck: expected a deck name ({', '.join(DECKS)}), got {deck!r}")
    seats: tuple[int, ...] = ()
    if values.get("hagal") not in (None, "", "none"):
        given = [int(v) if isinstance(v, str) and re.fullmatch(r"\s*\d+\s*", v) else v
                 for v in _per_seat(values["hagal"], "hagal", None)]
        for v in given:
            if not is_whole(v):
                raise InputError(f"hagal: the seats (1-based numbers) that are House Hagal, got {v!r}")
        seats = tuple(int(v) for v in given)
        given_values = len(_per_seat(values.get("revealed", 3), "revealed", None))
        revealed = _hagal_reveals_nothing(revealed, seats, given_values)
    return ConflictSetup(
        troops, revealed, intrigue, deck.strip(), conflict_key(values.get("conflict")), seats
    )


def conflict_key(name: Any) -> str | None:
    """The :data:`CONFLICTS` key for a card name ('Siege of Carthag' -> 'siege_of_carthag')."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise InputError(f"conflict: expected a conflict card name, got {name!r}")
    key = re.sub(r"[\s-]+", "_", name.strip().lower())
    if key in ("", "none"):
        return None
    if key not in CONFLICTS:
        raise InputError(f"conflict: unknown conflict card {name!r}; known: {', '.join(CONFLICTS)}")
    return key


def _hagal_reveals_nothing(
    revealed: tuple[int, ...], hagal: tuple[int, ...], given: int
) -> tuple[int, ...]:
    """``revealed`` with House Hagal's seats at 0: one value given stands for the players' seats
    (Hagal reveals no cards; its seat silently revealed the players' 3), and a value per seat must
    give 0 for Hagal's.

    >>> _hagal_reveals_nothing((3, 3, 3), (3,), 1)
    (3, 3, 0)
    >>> _hagal_reveals_nothing((3, 3, 2), (3,), 3)
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: revealed: seat 3 is House Hagal, which reveals no cards: give 0 for \
it (one value for every seat gives Hagal's seats 0)
    """
    seats = [s for s in hagal if 1 <= s <= len(revealed)]  # other seats are refused by the setup
    if given == 1:
        return tuple(0 if seat in seats else r for seat, r in enumerate(revealed, 1))
    for seat in seats:
        if revealed[seat - 1]:
            raise InputError(f"revealed: seat {seat} is House Hagal, which reveals no cards: give 0 for it "
                             "(one value for every seat gives Hagal's seats 0)")
    return revealed


def _per_seat(value: Any, name: str, players: int | None) -> list[Any]:
    """Per-seat entries from a list, a comma-separated string, or one entry (for every seat)."""
    if isinstance(value, str):
        entries = [part.strip() for part in value.split(",")]
    else:
        entries = list(value) if isinstance(value, (list, tuple)) else [value]
    if players is not None and len(entries) == 1:
        entries *= players
    if players is not None and len(entries) != players:
        raise InputError(f"{name}: {len(entries)} entries for {players} seats (give one, or one per seat)")
    return entries


def _int_per_seat(value: Any, name: str, players: int) -> tuple[int, ...]:
    out = []
    for seat, v in enumerate(_per_seat(value, name, players), 1):
        if isinstance(v, str) and re.fullmatch(r"[+-]?\d+", v):
            v = int(v)
        out.append(whole(f"{name}: seat {seat}", v, 0))
    return tuple(out)


def parse_troops(entry: Any, where: str = "troops") -> Troops:
    """One seat's :class:`Troops` from an int, a spec string, a mapping or a list of pairs."""
    if isinstance(entry, str):
        if re.search(r"\d\s+\d", entry):  # "1 1" was read as 11: a typo, not a number
            raise InputError(
                f"{where}: {entry.strip()!r} has a space inside a number; separate seats by commas")
        text = entry.strip().lower().replace(" ", "")
        if re.fullmatch(r"[+-]?\d+", text):
            return _fixed(int(text), where)
        if m := re.fullmatch(r"(\d+)-(\d+)", text):
            low, high = _count(m[1], where), _count(m[2], where)
            if low > high:
                raise InputError(f"{where}: empty range {entry!r}")
            uniform = [(t, Fraction(1, high - low + 1)) for t in range(low, high + 1)]
            return _distribution(uniform, where, text)
        if text.startswith("deploy"):
            m = _DEPLOY.match(text)
            if not m:
                raise InputError(f"{where}: expected deploy:R+G or deploy:R+G:POLICY, got {entry!r}")
            return _deploy(int(m[1]), int(m[2]), m[3] or "max", where)
        if ":" in text:
            pairs = []
            for part in text.split("|"):
                value, sep, prob = part.partition(":")
                if not sep:
                    raise InputError(
                        f"{where}: expected value:probability pairs joined by '|', got {entry!r}")
                pairs.append((value, prob))
            return _distribution(pairs, where)
        raise InputError(
            f"{where}: expected a troop count, a range 'a-b', 'v:p|v:p' or 'deploy:R+G[:policy]', "
            f"got {entry!r}")
    if isinstance(entry, Mapping):
        if {"recruited", "garrison"} & set(entry):
            check_known(entry, ("recruited", "garrison", "policy"), f"{where}: deploy")
            return _deploy(
                entry.get("recruited", 0), entry.get("garrison", 0), entry.get("policy", "max"), where)
        return _distribution(list(entry.items()), where)
    if isinstance(entry, (list, tuple)):
        if not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in entry):
            raise InputError(
                f"{where}: a distribution is a list of [value, probability] pairs, got {entry!r}")
        return _distribution([tuple(p) for p in entry], where)
    if not is_whole(entry):
        raise InputError(f"{where}: expected a troop count, distribution or deploy spec, got {entry!r}")
    return _fixed(entry, where)


def _count(value: Any, where: str, what: str = "troops") -> int:
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        value = int(value)
    if not is_whole(value):
        raise InputError(f"{where}: {what} must be a whole number, got {value!r}")
    if value < 0:
        raise InputError(f"{where}: {what} cannot be negative, got {value}")
    if value > MAX_TROOPS:
        raise InputError(
            f"{where}: {what} at most {MAX_TROOPS} (a player has {MAX_TROOPS} troop cubes), got {value}")
    return int(value)


def _fixed(n: int, where: str) -> Troops:
    n = _count(n, where)
    return Troops(str(n), ((n, 1.0),))


def _distribution(pairs: Sequence[tuple[Any, Any]], where: str, spec: str | None = None) -> Troops:
    if not pairs:
        raise InputError(f"{where}: an empty distribution")
    pmf: dict[int, Fraction] = {}
    for value, prob in pairs:
        t = _count(value, where)
        try:
            p = Fraction(prob.strip()) if isinstance(prob, str) else Fraction(prob)
        except (TypeError, ValueError, ZeroDivisionError):
            raise InputError(f"{where}: bad probability {prob!r} for {t} troops") from None
        if isinstance(prob, bool) or not 0 <= p <= 1:
            raise InputError(f"{where}: bad probability {prob!r} for {t} troops")
        pmf[t] = pmf.get(t, Fraction(0)) + p
    total = sum(pmf.values())
    if abs(float(total) - 1.0) > 1e-6:
        raise InputError(f"{where}: probabilities sum to {float(total):.6g}, not 1")
    items = sorted((t, p / total) for t, p in pmf.items() if p > 0)
    label = lambda p: str(p) if p.denominator <= 1000 else f"{float(p):.6g}"  # noqa: E731
    if spec is None or len(items) == 1:
        spec = "|".join(f"{t}:{label(p)}" for t, p in items) if len(items) > 1 else str(items[0][0])
    return Troops(spec, tuple((t, float(p)) for t, p in items))


def _deploy(recruited: Any, garrison: Any, policy: Any, where: str) -> Troops:
    r = _count(recruited, where, "recruited")
    g = _count(garrison, where, "garrison")
    if r + g > MAX_TROOPS:  # recruits and garrison are the same player's cubes
        raise InputError(
            f"{where}: recruited + garrison at most {MAX_TROOPS} (a player has {MAX_TROOPS} troop cubes), "
            f"got {r}+{g} = {r + g}")
    if policy not in DEPLOY_POLICIES:
        raise InputError(
            f"{where}: deploy policy must be one of {', '.join(DEPLOY_POLICIES)}, got {policy!r}")
    reach = min(2, g)  # recruits plus up to two from the garrison
    counts = {"max": [r + reach], "recruited": [r], "uniform": [r + k for k in range(reach + 1)]}[policy]
    spec = f"deploy:{r}+{g}" + ("" if policy == "max" else f":{policy}")
    return Troops(spec, tuple((t, 1.0 / len(counts)) for t in counts))
