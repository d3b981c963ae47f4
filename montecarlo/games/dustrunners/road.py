"""A Dustrunners road: rounds of 6 turns on an exploration deck, with the round ends and the raider.

The rulebook's *Turn Sequence* and *End a Round* (``docs/rules/dustrunners.md``, "The road"):
each turn draws 2 exploration cards from a deck drawn without replacement; the first is revealed
and either resolved, or discarded for the second (an enemy fought as the second card is harder;
a dust worm "must always be resolved when revealed"). A card is an enemy (a combat on the
resolution deck, as in :mod:`.combat`) or an event. After 6 turns the round ends: the exploration
deck is shuffled anew, 1 fuel is spent (out of fuel, the raider advances 2 spaces), and a d6 is
rolled against the radiation cards held: each card with the rolled face is resolved and
discarded. The game is lost when your health reaches 0 or the raider catches you (its steps reach
the gap, ``raider_gap``, between it and you; your own progress on the road is not modelled).

The exploration and radiation cards are not published: the shipped deck
(``data/illustrative-exploration.toml``) is ILLUSTRATIVE and named in every output.

>>> setup = parse_road({"vehicle": "scout", "rounds": 1})
>>> setup.exploration_deck.size, setup.fuel, setup.raider_gap
(18, 4, 10)
"""

from __future__ import annotations

import functools
import pathlib
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from montecarlo.errors import InputError, unusable_path
from montecarlo.games.base import Metric, Question
from montecarlo.games.dustrunners import campaign as cp
from montecarlo.games.dustrunners import combat as cb
from montecarlo.games.dustrunners.deck import DATA, LOOTS, Deck, Enemy, _int, _read_toml, _str
from montecarlo.games.dustrunners.deck import enemy as named_enemy
from montecarlo.games.dustrunners.rules import Rules
from montecarlo.validate import check_known, whole

TURNS = 6  # "each round consists of 6 turns"
CARDS_PER_TURN = 2
MAX_ROUNDS = 6
SHIPPED_EXPLORATION = {"illustrative": "illustrative-exploration.toml"}
_CARD_KEYS = ("enemy", "event", "count", "health", "ammo", "fuel", "raider", "radiation", "must_resolve")
_FILE_KEYS = ("name", "illustrative", "description", "card", "radiation")
EFFECTS = ("health", "ammo", "fuel", "raider", "radiation")


@dataclass(frozen=True, slots=True)
class Exploration:
    """One kind of exploration card: an enemy, or an event with its effects."""

    name: str
    enemy: Enemy | None = None
    health: int = 0
    ammo: int = 0
    fuel: int = 0
    raider: int = 0
    radiation: int = 0
    must_resolve: bool = False


@dataclass(frozen=True, slots=True)
class ExplorationDeck:
    """The exploration deck (kinds and copies) and the radiation deck (one card per face)."""

    name: str
    file: str
    cards: tuple[Exploration, ...]
    counts: tuple[int, ...]
    faces: tuple[int, ...]
    radiation_health: int
    illustrative: bool = False

    @property
    def size(self) -> int:
        return sum(self.counts)

    def label(self) -> str:
        tag = " [ILLUSTRATIVE: not the published cards]" if self.illustrative else ""
        return f"{self.name} ({self.size} cards, {len(self.faces)} radiation cards, file {self.file}){tag}"


def _exploration_card(raw: Any, file: str, number: int) -> tuple[Exploration, int]:
    if not isinstance(raw, dict):
        raise InputError(f"{file}: card {number}: expected a table, got {raw!r}")
    at = f"{file}: card {number}"
    unknown = sorted(set(raw) - set(_CARD_KEYS))
    if unknown:
        raise InputError(f"{at}: unknown key(s) {', '.join(unknown)}; known: {', '.join(_CARD_KEYS)}")
    if ("enemy" in raw) == ("event" in raw):
        raise InputError(f"{at}: give either enemy (an enemy's name) or event (an event's name)")
    count = _int(at, "count", raw.get("count", 1), 0, 200)
    if "enemy" in raw:
        extra = sorted(set(raw) - {"enemy", "count"})
        if extra:
            raise InputError(f"{at}: an enemy card takes no effects ({', '.join(extra)})")
        try:
            foe = named_enemy(raw["enemy"])
        except InputError as exc:
            raise InputError(f"{at}: {exc}") from None
        return Exploration(foe.name, foe), count
    effects = {k: _int(at, k, raw.get(k, 0), -20, 20) for k in EFFECTS}
    for k in ("raider", "radiation"):
        _int(at, k, effects[k], 0, 20)
    must = raw.get("must_resolve", False)
    if not isinstance(must, bool):
        raise InputError(f"{at}: must_resolve must be true or false, got {must!r}")
    return Exploration(_str(at, "event", raw["event"]), None, **effects, must_resolve=must), count


def parse_exploration(data: Mapping[str, Any], file: str, illustrative_default: bool = False
                      ) -> ExplorationDeck:
    """A validated exploration deck from the parsed TOML of ``file``; one-line errors."""
    unknown = sorted(set(data) - set(_FILE_KEYS))
    if unknown:
        raise InputError(f"{file}: unknown key(s) {', '.join(unknown)}; known: {', '.join(_FILE_KEYS)}")
    raw_cards = data.get("card", [])
    if not isinstance(raw_cards, list):
        raise InputError(f"{file}: card must be an array of tables ([[card]]), got {raw_cards!r}")
    cards, counts = [], []
    for number, raw in enumerate(raw_cards, 1):
        card, count = _exploration_card(raw, file, number)
        if count:
            cards.append(card)
            counts.append(count)
    if sum(counts) < TURNS * CARDS_PER_TURN:
        raise InputError(
            f"{file}: the exploration deck has {sum(counts)} cards; a round of {TURNS} turns draws "
            f"{TURNS * CARDS_PER_TURN}"
        )
    radiation = data.get("radiation", {"faces": [1, 2, 3, 4, 5, 6], "health": -1})
    if not isinstance(radiation, dict) or not isinstance(radiation.get("faces"), list):
        raise InputError(f"{file}: radiation must be a table with faces = [die faces of its cards]")
    faces = tuple(_int(f"{file}: radiation", "faces", f, 1, 6) for f in radiation["faces"])
    health = _int(f"{file}: radiation", "health", radiation.get("health", -1), -20, 0)
    illustrative = data.get("illustrative", illustrative_default)
    if not isinstance(illustrative, bool):
        raise InputError(f"{file}: illustrative must be true or false, got {illustrative!r}")
    name = _str(file, "name", data.get("name", pathlib.Path(file).stem))
    return ExplorationDeck(name, file, tuple(cards), tuple(counts), faces, health, illustrative)


@functools.lru_cache(maxsize=32)
def _load_path(path: str, mtime: float) -> ExplorationDeck:
    return parse_exploration(_read_toml(pathlib.Path(path), "exploration deck"), path)


def load_exploration(name: str | None = None) -> ExplorationDeck:
    """The shipped illustrative exploration deck (``illustrative``) or an exploration file by path."""
    name = "illustrative" if name is None else name
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"exploration_deck: expected a file path or illustrative, got {name!r}")
    if name.strip() in SHIPPED_EXPLORATION:
        path = DATA / SHIPPED_EXPLORATION[name.strip()]
        # shown absolute, as the shipped resolution decks: from the user's folder a path relative to
        # the source tree names nothing
        return parse_exploration(_read_toml(path, "exploration deck"), str(path.resolve()), True)
    path = pathlib.Path(name.strip()).expanduser()
    with unusable_path(f"exploration_deck {name}", "give another deck file"):  # a name too long, say
        if not path.exists():
            # "exploration_deck", not "exploration deck": the CLI names its flag, not --exploration's
            raise InputError(
                f"exploration_deck file not found: {name} (or use the shipped one: illustrative)"
            )
        modified = path.stat().st_mtime
    return _load_path(str(path), modified)


# ---------------------------------------------------------------------------------------- setup

@dataclass(frozen=True, slots=True)
class RoadSetup:
    """A vehicle on the road for ``rounds`` rounds of 6 turns.

    Attributes:
        deck: the resolution deck (carried over the whole road).
        exploration_deck: the exploration and radiation decks.
        health, ammo, fuel, damage_bonus, vp: starting values (a shipped vehicle's by default;
            VP = its stars).
        max_health, max_ammo, max_fuel: the caps of the loot and events (by default the starting
            values).
        rounds: rounds to drive (1..6).
        raider_gap: spaces between the raider and you at the start: it catches you when its
            steps reach this.
        policy, redraw: as in a combat.
        exploration: which exploration card to fight, ``first`` or ``safer`` (as in a campaign).
        vehicle: the shipped vehicle whose values these are, if any (its name in the results).
    """

    deck: Deck
    exploration_deck: ExplorationDeck
    health: int
    ammo: int = 0
    fuel: int = 0
    damage_bonus: int = 0
    vp: int = 0
    max_health: int = 0
    max_ammo: int = 0
    max_fuel: int = 0
    rounds: int = 2
    raider_gap: int = 10
    policy: str = "all_in"
    redraw: str = "never"
    exploration: str = "first"
    vehicle: str | None = None

    def __post_init__(self) -> None:
        cp.check_vehicle(self, ("ammo", "fuel"))
        whole("rounds", self.rounds, 1, MAX_ROUNDS)
        whole("raider_gap", self.raider_gap, 1, 999)
        cp.check_policies(self)


_KEYS = ("deck", "card_counts", "exploration_deck", "vehicle", "health", "ammo", "fuel", "damage_bonus", "vp",
         "max_health", "max_ammo", "max_fuel", "rounds", "raider_gap", "policy", "redraw", "exploration")


def parse_road(values: Mapping[str, Any]) -> RoadSetup:
    """A validated :class:`RoadSetup` from plain values (CLI options or TOML)."""
    check_known(values, _KEYS, "road setup")
    deck = cb.resolve_deck(values)
    merged, car = cb.vehicle_values(values, ("health", "ammo", "fuel", "damage_bonus", "vp"))
    health, ammo, fuel = merged["health"], merged.get("ammo", 0), merged.get("fuel", 0)
    return RoadSetup(
        deck=deck, exploration_deck=load_exploration(values.get("exploration_deck")), health=health,
        ammo=ammo, fuel=fuel, damage_bonus=merged.get("damage_bonus", 0), vp=merged.get("vp", 0),
        max_health=values.get("max_health", health), max_ammo=values.get("max_ammo", ammo),
        max_fuel=values.get("max_fuel", fuel), rounds=values.get("rounds", 2),
        raider_gap=values.get("raider_gap", 10), policy=values.get("policy", "all_in"),
        redraw=values.get("redraw", "never"), exploration=values.get("exploration", "first"), vehicle=car,
    )


def first_resolved(rules: Rules, setup: RoadSetup) -> tuple[bool, ...]:
    """For each kind of exploration card as the first card: does the policy resolve it?

    ``first``: always. ``safer``: a card that must be resolved (a dust worm) always; an event
    unless it only harms (loses health, ammo or fuel, moves the raider or gives radiation, and
    gains nothing); an enemy unless its win chance as a first card is below the average, over
    the deck's enemy cards, of the win chance as a second card (judged as in the campaign: fresh
    deck, starting values). A card not resolved is discarded for the second, taken unseen.
    """
    cards = setup.exploration_deck.cards
    if setup.exploration == "first":
        return (True,) * len(cards)
    events = tuple(c.must_resolve or not harmful(c) for c in cards)
    args = (setup.health, setup.ammo, setup.damage_bonus, setup.vp, setup.policy, setup.redraw)
    foes = [(c.enemy, k) for c, k in zip(cards, setup.exploration_deck.counts) if c.enemy is not None]
    if not foes:
        return events
    bar = sum(k * cp.win_chance(rules, setup.deck, e, True, *args) for e, k in foes) / sum(k for _, k in foes)
    return tuple(ok if c.enemy is None else c.must_resolve or cp.win_chance(
        rules, setup.deck, c.enemy, False, *args) >= bar for c, ok in zip(cards, events))


def harmful(card: Exploration) -> bool:
    """An event that only harms: some loss (health, ammo, fuel, raider steps, radiation), no gain."""
    loss = card.health < 0 or card.ammo < 0 or card.fuel < 0 or card.raider > 0 or card.radiation > 0
    return card.enemy is None and loss and not (card.health > 0 or card.ammo > 0 or card.fuel > 0)


# ------------------------------------------------------------------------------------ reference

def reference_road(rules: Rules, setup: RoadSetup, rng: np.random.Generator) -> dict[str, Any]:
    """One road in plain Python: real shuffled exploration cards and real resolution piles."""
    setup = cb.with_rules_policy(rules, setup, best=False)
    ex = setup.exploration_deck
    piles = cb.Piles.fresh(setup.deck, rules, rng)
    me = cb.Fighter(setup.health, setup.ammo, setup.vp)
    resolve_first = first_resolved(rules, setup)
    out = {"rounds_survived": 0, "destroyed": False, "caught": False, "fights": 0, "fights_won": 0,
           "events": 0, "raider_steps": 0, "radiation_resolved": 0, "modifications": 0}
    fuel = setup.fuel
    held: list[int] = []  # radiation cards held (indices into ex.faces)
    over = False

    def gain_radiation(count: int) -> None:
        for _ in range(count):
            free = [i for i in range(len(ex.faces)) if i not in held]
            if free:  # the radiation deck is exhausted: no more cards
                held.append(free[int(rng.integers(len(free)))])

    for _ in range(setup.rounds):
        cards = [i for i, k in enumerate(ex.counts) for _ in range(k)]
        cards = [cards[j] for j in rng.permutation(len(cards))]
        for _ in range(TURNS):
            first, second = cards.pop(), cards.pop()  # two cards face down; the first revealed
            chosen, is_second = (first, False) if resolve_first[first] else (second, True)
            card = ex.cards[chosen]
            if card.enemy is not None:
                out["fights"] += 1
                result = cb.reference_fight(rules, setup.deck, card.enemy, is_second, me, setup.damage_bonus,
                                            setup.policy, setup.redraw, piles)
                out["raider_steps"] += result["raider_steps"]
                gain_radiation(result["radiation"])
                if result["player_win"]:
                    out["fights_won"] += 1
                    for loot in [result["loot"]] + ([card.enemy.bonus_loot] if result["bonus_loot"] else []):
                        if loot == "health":
                            me.health = min(me.health + 1, setup.max_health)
                        elif loot == "ammo":
                            me.ammo = min(me.ammo + 1, setup.max_ammo)
                        elif loot == "fuel":
                            fuel = min(fuel + 1, setup.max_fuel)
                        elif loot == "modification":
                            out["modifications"] += 1
            else:
                out["events"] += 1
                me.health = min(me.health + card.health, setup.max_health)
                me.ammo = min(max(me.ammo + card.ammo, 0), setup.max_ammo)
                fuel = min(max(fuel + card.fuel, 0), setup.max_fuel)
                out["raider_steps"] += card.raider
                gain_radiation(card.radiation)
            if me.health <= 0:
                out["destroyed"] = over = True
            elif out["raider_steps"] >= setup.raider_gap:
                out["caught"] = over = True
            if over:
                break
        if over:
            break
        # End a Round: a new exploration deck; 1 fuel, or the raider's 2 spaces; radiation on a d6
        if fuel > 0:
            fuel -= 1
        else:
            out["raider_steps"] += 2
        if out["raider_steps"] >= setup.raider_gap:
            out["caught"] = True
            break
        roll = int(rng.integers(1, 7))
        for i in [i for i in held if ex.faces[i] == roll]:
            held.remove(i)
            out["radiation_resolved"] += 1
            me.health += ex.radiation_health
        if me.health <= 0:
            out["destroyed"] = True
            break
        out["rounds_survived"] += 1
    out.update(survive_all=out["rounds_survived"] == setup.rounds, health_left=max(me.health, 0),
               ammo_left=me.ammo, fuel_left=fuel, vp=me.vp, radiation_cards=len(held))
    return {name: out[name] for name in METRIC_NAMES}


# --------------------------------------------------------------------------------------- kernel

def _draw(pile: np.ndarray, cols: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One card from the exploration pile of each trial in ``cols`` (counts per kind, in place)."""
    sub = pile[:, cols]
    r = rng.random(cols.size) * sub.sum(axis=0)
    kind = (np.cumsum(sub, axis=0) <= r).sum(axis=0)
    pile[kind, cols] -= 1
    return kind


def _gain(held: np.ndarray, cols: np.ndarray, count: np.ndarray, rng: np.random.Generator) -> None:
    """Each trial of ``cols`` gains ``count`` radiation cards, each uniform among those not held."""
    for j in range(int(count.max(initial=0))):
        free = ~held[:, cols]
        want = (count > j) & free.any(axis=0)
        r = rng.random(cols.size) * free.sum(axis=0)
        pick = (np.cumsum(free, axis=0) <= r).sum(axis=0)
        rows = np.minimum(pick, held.shape[0] - 1)
        held[rows[want], cols[want]] = True


def simulate_road(rules: Rules, setup: RoadSetup, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``n`` roads over arrays: exploration piles as counts per kind, combats on :func:`combat.fight`."""
    setup = cb.with_rules_policy(rules, setup, best=False)
    ex = setup.exploration_deck
    t = cb.tables(setup.deck)
    b = cb.fresh_batch(t, n)
    b.ph[:], b.ammo[:], b.vp[:] = setup.health, setup.ammo, setup.vp
    resolve_first = np.array(first_resolved(rules, setup))
    is_enemy = np.array([c.enemy is not None for c in ex.cards])
    full = np.array(ex.counts, dtype=np.int16)
    faces = np.array(ex.faces)
    z = lambda: np.zeros(n, dtype=np.int32)  # noqa: E731
    fuel = np.full(n, setup.fuel, dtype=np.int32)
    steps, fights, won, events, resolved, mods, survived = z(), z(), z(), z(), z(), z(), z()
    destroyed, caught = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    held = np.zeros((len(ex.faces), n), dtype=bool)
    health_code, ammo_code = LOOTS.index("health"), LOOTS.index("ammo")
    fuel_code, mod_code = LOOTS.index("fuel"), LOOTS.index("modification")
    for _ in range(setup.rounds):
        pile = np.repeat(full[:, None], n, axis=1)
        for _ in range(TURNS):
            alive = np.flatnonzero(~destroyed & ~caught)
            if not alive.size:
                break
            first, second = _draw(pile, alive, rng), _draw(pile, alive, rng)
            take_first = resolve_first[first]
            card = np.where(take_first, first, second)
            gained = np.zeros(alive.size, dtype=np.int32)
            fight = is_enemy[card]
            if fight.any():
                idx = alive[fight]
                sub = b.take(idx)
                for i, c in enumerate(ex.cards):
                    sel = np.flatnonzero(card[fight] == i)
                    if sel.size and c.enemy is not None:
                        cb.set_enemy(t, sub, c.enemy, ~take_first[fight][sel], sel)
                out = cb.fight(rules, t, sub, rng, setup.policy, setup.redraw, setup.damage_bonus)
                steps[idx] += sub.steps
                gained[fight] += sub.rad
                fights[idx] += 1
                won[idx] += out["player_win"]
                bonus = np.array([LOOTS.index(c.enemy.bonus_loot) if c.enemy else -1 for c in ex.cards])
                for loot in (out["loot"], np.where(out["bonus_loot"], bonus[card[fight]], -1)):
                    sub.ph += (loot == health_code) & (sub.ph < setup.max_health)
                    sub.ammo += (loot == ammo_code) & (sub.ammo < setup.max_ammo)
                    fuel[idx] += (loot == fuel_code) & (fuel[idx] < setup.max_fuel)
                    mods[idx] += loot == mod_code
                b.put(idx, sub)
            for i, c in enumerate(ex.cards):
                if c.enemy is not None:
                    continue
                sel = card == i
                if not sel.any():
                    continue
                idx = alive[sel]
                events[idx] += 1
                b.ph[idx] = np.minimum(b.ph[idx] + c.health, setup.max_health)
                b.ammo[idx] = np.clip(b.ammo[idx] + c.ammo, 0, setup.max_ammo)
                fuel[idx] = np.clip(fuel[idx] + c.fuel, 0, setup.max_fuel)
                steps[idx] += c.raider
                gained[sel] += c.radiation
            _gain(held, alive, gained, rng)
            destroyed[alive] |= b.ph[alive] <= 0
            caught[alive] |= ~destroyed[alive] & (steps[alive] >= setup.raider_gap)
        alive = ~destroyed & ~caught
        spend = alive & (fuel > 0)
        fuel -= spend
        steps += 2 * (alive & ~spend)
        caught |= alive & (steps >= setup.raider_gap)
        alive &= ~caught
        roll = rng.integers(1, 7, size=n)
        hit = held & (faces[:, None] == roll[None, :]) & alive[None, :]
        resolved += hit.sum(axis=0)
        b.ph += (ex.radiation_health * hit.sum(axis=0)).astype(b.ph.dtype)
        held &= ~hit
        destroyed |= alive & (b.ph <= 0)
        survived += alive & (b.ph > 0)
    f = lambda a: a.astype(np.float64)  # noqa: E731
    return {
        "rounds_survived": survived.astype(np.int64), "survive_all": survived == setup.rounds,
        "destroyed": destroyed, "caught": caught, "fights": f(fights), "fights_won": f(won),
        "events": f(events),
        "health_left": f(np.maximum(b.ph, 0)), "ammo_left": f(b.ammo), "fuel_left": f(fuel), "vp": f(b.vp),
        "raider_steps": f(steps), "radiation_cards": f(held.sum(axis=0)), "radiation_resolved": f(resolved),
        "modifications": f(mods),
    }


# ------------------------------------------------------------------------------------- question

METRICS = (
    Metric("rounds_survived", "distribution", "rounds completed before the game was lost",
           tuple(range(MAX_ROUNDS + 1))),
    Metric("survive_all", "probability", "every round is completed (neither destroyed nor caught)"),
    Metric("destroyed", "probability", "your health reached 0 (a fight, an event or radiation)"),
    Metric("caught", "probability", "the raider's steps reach the gap (caught)"),
    Metric("fights", "mean", "combats fought"),
    Metric("fights_won", "mean", "combats won"),
    Metric("events", "mean", "event cards resolved"),
    Metric("health_left", "mean", "health at the end (0 if destroyed)"),
    Metric("ammo_left", "mean", "ammo at the end"),
    Metric("fuel_left", "mean", "fuel at the end"),
    Metric("vp", "mean", "victory points at the end (start + wins - redraws)"),
    Metric("raider_steps", "mean", "raider steps: combats, events and empty tanks at round ends"),
    Metric("radiation_cards", "mean", "radiation cards held at the end"),
    Metric("radiation_resolved", "mean", "radiation cards resolved at round ends"),
    Metric("modifications", "mean", "modification cards looted"),
)
METRIC_NAMES = tuple(m.name for m in METRICS)

QUESTIONS = {
    "road": Question(
        name="road",
        description=("rounds of 6 turns on an ILLUSTRATIVE exploration deck: combats, events, fuel, "
                     "radiation and the raider at round ends"),
        setup_type=RoadSetup,
        metrics=METRICS,
        simulate=simulate_road,
        parse_setup=parse_road,
        reference=reference_road,
        example={"vehicle": "interceptor", "rounds": 2},
        inputs=cb.CARD_COUNTS_INPUT,
    ),
}
