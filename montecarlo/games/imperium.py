"""Dune: Imperium (Dire Wolf, 2020): conflict strength and who takes which reward — ``imperium``.

Source: ``shared/seeds/dune-imperium-round.txt`` as resolved by RULES.md section 4. One question,
``conflict``: 2 to 4 players commit troops and reveal cards; strength is 2 per troop + 1 per
revealed sword + combat intrigue strength, and 0 for a player with no troop in the conflict
whatever the swords or intrigue (intrigue cards are played only by players with troops there).
Rewards follow RULES.md 4.2 (:func:`reference_places` reads like the rule text).

>>> setup = GAME.question().setup({"troops": "3,2,2,1", "revealed": 3})
>>> exact = exact_conflict(Rules(), setup)
>>> round(exact["seat1_first"], 4), round(exact["tie_first"], 4)
(0.9399, 0.0601)

Setup syntax (the same strings work on the command line and in TOML). ``troops`` has one entry
per seat (a list, or one comma-separated string such as ``"3,2,2,1"``); with ``players = N`` a
single entry is given to every seat. Each entry is one of:

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
(:data:`DECKS`), ``conflict`` a conflict card (:data:`CONFLICTS`) whose victory points give
``seat{i}_points``.

Interpretations (the seeds are silent; named in reports):

- Swords are drawn from a freshly shuffled deck: ``revealed`` cards at random, without
  replacement (the cards that sent agents are treated as random too).
- Metrics exist for seats 1..4 whatever the player count (a question's metrics are fixed); the
  seats a setup does not have report all-false places and 0 points, exactly. The CLI shows only
  the setup's seats.
- ``tie_first`` / ``tie_second`` count ties the rules in force still treat as ties, i.e. after
  any tie-breaker: a tie for second means one player alone on top and two or more sharing the
  next-highest positive strength. A player at 0 strength is never part of a tie.
- ``ties_split_up`` keeps the official order of play after a tie (a tied group uses up its place
  and the next, so after a tie for first the next player still competes for the third reward);
  only what the tied players take changes.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np

from montecarlo.errors import InputError
from montecarlo.games.base import Game, Metric, Question

MIN_PLAYERS, MAX_PLAYERS = 2, 4
MAX_TROOPS = 12  # each player has 12 troop cubes (seed: 16 cubes, 4 on the influence tracks)
MAX_INTRIGUE = 100  # combat intrigue strength per player: a sanity bound, far above any real hand
MAX_EXACT_STATES = 250_000  # joint strength states the exact solver enumerates at most
PLACES = ("nothing", "first", "second", "third")  # index = place number (0 = no reward)


# --------------------------------------------------------------------------------------- data

@dataclass(frozen=True, slots=True)
class Card:
    """A card of a deck: how many copies, and how many swords it reveals."""

    name: str
    copies: int
    swords: int = 0


@dataclass(frozen=True, slots=True)
class Deck:
    """A deck players reveal from; ``source`` says where its contents come from."""

    title: str
    cards: tuple[Card, ...]
    source: str

    @property
    def size(self) -> int:
        return sum(c.copies for c in self.cards)

    def sword_cards(self) -> tuple[int, ...]:
        """The sword value of every card that reveals swords (one entry per copy)."""
        return tuple(c.swords for c in self.cards for _ in range(c.copies) if c.swords)


_STARTING = (
    Card("Convincing Argument", 2), Card("Dagger", 2, swords=1), Card("Diplomacy", 1),
    Card("Dune, the Desert Planet", 2), Card("Reconnaissance", 1), Card("Seek Allies", 1),
    Card("Signet Ring", 1),
)

DECKS: dict[str, Deck] = {
    "starting": Deck("the 10-card starting deck", _STARTING, "ext: rulebook, via RULES.md 4.1"),
    "starting+sword1": Deck(
        "starting deck + one acquired card revealing 1 sword", _STARTING + (Card("a 1-sword card", 1, 1),),
        "illustrative: the acquired card is generic"),
    "starting+sword2": Deck(
        "starting deck + one acquired card revealing 2 swords", _STARTING + (Card("a 2-sword card", 1, 2),),
        "illustrative: the acquired card is generic"),
}


@dataclass(frozen=True, slots=True)
class Reward:
    """One place's reward on a conflict card: victory points and everything else, as text."""

    vp: int
    other: str = ""

    def __str__(self) -> str:
        return " + ".join(p for p in (f"{self.vp} VP" if self.vp else "", self.other) if p) or "nothing"


@dataclass(frozen=True, slots=True)
class ConflictCard:
    """A conflict card's rewards by place; ``source`` marks values that are illustrative."""

    title: str
    level: int  # I, II or III (0: not a real card)
    rewards: tuple[Reward, Reward, Reward]  # first, second, third (the third only in 4-player games)
    source: str

    def vp_by_place(self) -> tuple[int, int, int, int]:
        """Victory points indexed by place number (0 = nothing)."""
        return (0, *(r.vp for r in self.rewards))


CONFLICTS: dict[str, ConflictCard] = {
    "skirmish": ConflictCard(
        "Skirmish", 1, (Reward(1), Reward(0, "1 intrigue card + 2 Solari"), Reward(0, "2 Solari")),
        "ext: Dire Wolf, Dune: Imperium Designer Diary 3 (2020)"),
    "siege_of_carthag": ConflictCard(
        "Siege of Carthag", 2,
        (Reward(1, "control of Carthag"), Reward(0, "1 intrigue card + 2 Solari"), Reward(0, "2 Solari")),
        "illustrative: the designer diary says only that it is Skirmish-like plus control of Carthag"),
    "battle_for_arrakeen": ConflictCard(
        "Battle for Arrakeen", 3,
        (Reward(2, "control of Arrakeen"), Reward(0, "1 intrigue card + 3 spice"), Reward(0, "3 Solari")),
        "illustrative: reward values are not from the seeds"),
    "points_3_2_1": ConflictCard(
        "3/2/1 VP yardstick", 0, (Reward(3), Reward(2), Reward(1)),
        "illustrative yardstick, not a real card"),
}


# -------------------------------------------------------------------------------------- rules

TIE_RULES = ("official", "split_up")
TIEBREAKS = ("none", "troops", "seat", "troops_then_seat")


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule parameter of the conflict (RULES.md 4.1-4.2), official values as defaults.

    The four variants of RULES.md 4.2 (:data:`VARIANTS`) each set one field, so they combine:
    a tie-breaker (``tiebreak_by_troops``, ``tiebreak_by_seat``) first refines the ranking, and
    the tie rule (official, or ``ties_split_up``) then settles only the ties left; after
    ``tiebreak_by_seat`` none are left. The two tie-breakers set the same field, so the later
    one wins (``tiebreak = "troops_then_seat"`` applies both). ``no_third_reward`` only changes
    how many places 4-player games reward, whatever the tie rule.
    """

    troop_strength: int = 2  # strength per troop in the conflict (4.1)
    sword_strength: int = 1  # strength per revealed sword (4.1)
    ties: str = "official"  # tied group takes the next place's reward ("official") or its own ("split_up")
    tiebreak: str = "none"  # before the tie rule: "none", more "troops", lower "seat", or "troops_then_seat"
    third_reward: bool = True  # 4-player games award the third reward (4.2)

    def __post_init__(self) -> None:
        if self.ties not in TIE_RULES:
            raise InputError(f"ties must be one of {', '.join(TIE_RULES)}, got {self.ties!r}")
        if self.tiebreak not in TIEBREAKS:
            raise InputError(f"tiebreak must be one of {', '.join(TIEBREAKS)}, got {self.tiebreak!r}")
        if not isinstance(self.third_reward, bool):
            raise InputError(f"third_reward must be true or false, got {self.third_reward!r}")
        for name in ("troop_strength", "sword_strength"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100:
                raise InputError(f"{name} must be an integer from 1 to 100, got {value!r}")

    @property
    def by_troops(self) -> bool:
        """Equal strengths are ranked by troops first."""
        return self.tiebreak in ("troops", "troops_then_seat")

    @property
    def by_seat(self) -> bool:
        """Equal strengths (and troops, if those count) are ranked by seat: no tie is left."""
        return self.tiebreak in ("seat", "troops_then_seat")

    def rewarded_places(self, players: int) -> int:
        """How many places take a reward: 3 in a 4-player game (unless no third reward), else 2."""
        return 3 if players == 4 and self.third_reward else 2


VARIANTS: dict[str, dict] = {
    "ties_split_up": {"ties": "split_up"},
    "tiebreak_by_troops": {"tiebreak": "troops"},
    "tiebreak_by_seat": {"tiebreak": "seat"},
    "no_third_reward": {"third_reward": False},
}

VARIANT_DESCRIPTIONS: dict[str, str] = {
    "ties_split_up": (
        "tied players all take the reward of the place they tied for (tie for third: third "
        "reward each); who competes for what afterwards is as official; with a tie-breaker it "
        "applies only to ties left after it"),
    "tiebreak_by_troops": (
        "equal strength: more troops ranks higher; still tied: the tie rule in force "
        "(official, or ties_split_up if also chosen)"),
    "tiebreak_by_seat": (
        "equal strength: the lower seat number ranks higher, so no tie is left and the tie "
        "rules (and ties_split_up) never apply; it and tiebreak_by_troops set the same field, so "
        "the later one wins (override tiebreak = \"troops_then_seat\" for both)"),
    "no_third_reward": (
        "no third reward even with 4 players: a tie for second then gets nothing, and after a "
        "tie for first nobody else gets anything; 2- and 3-player games are unchanged"),
}


# -------------------------------------------------------------------------------------- setup

DEPLOY_POLICIES = ("max", "recruited", "uniform")
_DEPLOY = re.compile(r"^deploy:(\d+)\+(\d+)(?::([a-z_]+))?$")


@dataclass(frozen=True, slots=True)
class Troops:
    """One seat's troops in the conflict: a distribution over counts, and how it was written."""

    spec: str
    pmf: tuple[tuple[int, float], ...]  # (troops, probability), increasing troops, no zero probabilities


@dataclass(frozen=True, slots=True)
class Setup:
    """One conflict: per seat, troops committed, cards revealed and intrigue strength."""

    troops: tuple[Troops, ...]
    revealed: tuple[int, ...]
    intrigue: tuple[int, ...]
    deck: str = "starting"
    conflict: str | None = None

    def __post_init__(self) -> None:
        players = len(self.troops)
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise InputError(
                f"troops: {players} seat(s) given; a Dune: Imperium conflict has {MIN_PLAYERS} to {MAX_PLAYERS} players")
        if self.deck not in DECKS:
            raise InputError(f"deck: unknown deck {self.deck!r}; known: {', '.join(DECKS)}")
        if self.conflict is not None and self.conflict not in CONFLICTS:
            raise InputError(f"conflict: unknown conflict card {self.conflict!r}; known: {', '.join(CONFLICTS)}")
        size = DECKS[self.deck].size
        for name in ("revealed", "intrigue"):
            values = getattr(self, name)
            if len(values) != players:
                raise InputError(f"{name}: {len(values)} value(s) for {players} seats")
            for seat, v in enumerate(values, 1):
                if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                    raise InputError(f"{name}: seat {seat}: expected a non-negative integer, got {v!r}")
        for seat, v in enumerate(self.intrigue, 1):
            if v > MAX_INTRIGUE:
                raise InputError(f"intrigue: seat {seat}: at most {MAX_INTRIGUE}, got {v}")
        for seat, r in enumerate(self.revealed, 1):
            if r > size:
                raise InputError(f"revealed: seat {seat} reveals {r} cards but the {self.deck} deck holds {size}")

    @property
    def players(self) -> int:
        return len(self.troops)


def parse_setup(values: Mapping[str, Any]) -> Setup:
    """A validated :class:`Setup` from plain values (CLI strings or TOML values); see the module doc."""
    known = ("troops", "revealed", "intrigue", "deck", "conflict", "players")
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise InputError(f"conflict setup: unknown field(s) {', '.join(unknown)}; known: {', '.join(known)}")
    if "troops" not in values:
        raise InputError("troops: required (one entry per seat, e.g. '3,2,2,1')")
    players = values.get("players")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int)
                                or not MIN_PLAYERS <= players <= MAX_PLAYERS):
        raise InputError(f"players: expected {MIN_PLAYERS} to {MAX_PLAYERS}, got {players!r}")
    entries = _per_seat(values["troops"], "troops", players)
    if not MIN_PLAYERS <= len(entries) <= MAX_PLAYERS:
        raise InputError(f"troops: {len(entries)} seat(s) given; a Dune: Imperium conflict has "
                         f"{MIN_PLAYERS} to {MAX_PLAYERS} players (one entry per seat, or set players)")
    troops = tuple(parse_troops(e, f"troops: seat {i}") for i, e in enumerate(entries, 1))
    n = len(troops)
    revealed = _int_per_seat(values.get("revealed", 3), "revealed", n)
    intrigue = _int_per_seat(values.get("intrigue", 0), "intrigue", n)
    deck = values.get("deck", "starting")
    if not isinstance(deck, str):
        raise InputError(f"deck: expected a deck name ({', '.join(DECKS)}), got {deck!r}")
    return Setup(troops, revealed, intrigue, deck.strip(), conflict_key(values.get("conflict")))


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
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise InputError(f"{name}: seat {seat}: expected a non-negative integer, got {v!r}")
        out.append(v)
    return tuple(out)


def parse_troops(entry: Any, where: str = "troops") -> Troops:
    """One seat's :class:`Troops` from an int, a spec string, a mapping or a list of pairs."""
    if isinstance(entry, str):
        text = entry.strip().lower().replace(" ", "")
        if re.fullmatch(r"[+-]?\d+", text):
            return _fixed(int(text), where)
        if m := re.fullmatch(r"(\d+)-(\d+)", text):
            low, high = _count(m[1], where), _count(m[2], where)
            if low > high:
                raise InputError(f"{where}: empty range {entry!r}")
            return _distribution([(t, Fraction(1, high - low + 1)) for t in range(low, high + 1)], where, text)
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
                    raise InputError(f"{where}: expected value:probability pairs joined by '|', got {entry!r}")
                pairs.append((value, prob))
            return _distribution(pairs, where)
        raise InputError(
            f"{where}: expected a troop count, a range 'a-b', 'v:p|v:p' or 'deploy:R+G[:policy]', got {entry!r}")
    if isinstance(entry, Mapping):
        if {"recruited", "garrison"} & set(entry):
            extra = sorted(set(entry) - {"recruited", "garrison", "policy"})
            if extra:
                raise InputError(f"{where}: unknown deploy key(s) {', '.join(extra)}")
            return _deploy(entry.get("recruited", 0), entry.get("garrison", 0), entry.get("policy", "max"), where)
        return _distribution(list(entry.items()), where)
    if isinstance(entry, (list, tuple)):
        if not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in entry):
            raise InputError(f"{where}: a distribution is a list of [value, probability] pairs, got {entry!r}")
        return _distribution([tuple(p) for p in entry], where)
    if isinstance(entry, bool) or not isinstance(entry, int):
        raise InputError(f"{where}: expected a troop count, distribution or deploy spec, got {entry!r}")
    return _fixed(entry, where)


def _count(value: Any, where: str, what: str = "troops") -> int:
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: {what} must be a whole number, got {value!r}")
    if value < 0:
        raise InputError(f"{where}: {what} cannot be negative, got {value}")
    if value > MAX_TROOPS:
        raise InputError(f"{where}: {what} at most {MAX_TROOPS} (a player has {MAX_TROOPS} troop cubes), got {value}")
    return value


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
    if policy not in DEPLOY_POLICIES:
        raise InputError(f"{where}: deploy policy must be one of {', '.join(DEPLOY_POLICIES)}, got {policy!r}")
    reach = min(2, g)  # recruits plus up to two from the garrison
    counts = {"max": [r + reach], "recruited": [r], "uniform": [r + k for k in range(reach + 1)]}[policy]
    spec = f"deploy:{r}+{g}" + ("" if policy == "max" else f":{policy}")
    return Troops(spec, tuple((t, 1.0 / len(counts)) for t in counts))


# --------------------------------------------------------------------------------- allocation

class Allocation(NamedTuple):
    """Places of many conflicts: ``places`` (trials, seats) with 0 = nothing, 1..3 = reward."""

    places: np.ndarray
    tie_first: np.ndarray
    tie_second: np.ndarray


def _rank_keys(strengths: np.ndarray, rules: Rules, troops: np.ndarray | None) -> np.ndarray:
    """Seat-major (seats, trials) keys ranking players as the rules do: equal keys are ties.

    Tie-breakers refine the strength: x (max troops + 1) + troops, then x seats + (seats - 1 -
    seat) so that an earlier seat ranks higher. Every key at 0 strength stays below every key
    at positive strength, so players at 0 never rank above a contender.
    """
    s = np.ascontiguousarray(strengths.T)
    if not (rules.by_troops or rules.by_seat):
        return s
    key = s.astype(np.int32)  # at most ~1,700 strength x 13 troops x 4 seats
    if rules.by_troops:
        t = np.ascontiguousarray(np.asarray(troops).T, dtype=np.int32)
        key = key * (int(t.max(initial=0)) + 1) + t
    if rules.by_seat:
        key = key * s.shape[0] + np.arange(s.shape[0] - 1, -1, -1)[:, None]
    return key


def allocate(strengths: np.ndarray, rules: Rules, troops: np.ndarray | None = None) -> Allocation:
    """Places for a whole (trials, seats) array of strengths at once (RULES.md 4.2).

    Pairwise comparisons of seats, no sort and no loop over trials. For each player,
    ``consumed`` is the number of places the groups ranked above it used up: a lone player uses
    one place, a tied group two (its own and the one its members take), counted once per group
    at the group's lowest seat. The player's group then competes for place ``1 + consumed``: a
    lone player takes it, a tied group the next place (official) or that place (split up), if
    the game awards it. ``troops`` (same shape) is needed only when troops break ties. Arrays in
    seat-major memory order (``a.T`` of a (seats, trials) array) are fastest.
    """
    s = np.asarray(strengths)
    if s.ndim != 2 or not np.issubdtype(s.dtype, np.integer):
        raise ValueError("strengths must be a (trials, seats) integer array")
    if s.size and s.min() < 0:
        raise ValueError("strengths cannot be negative")
    if rules.by_troops and troops is None:
        raise ValueError("a tie-break by troops needs the troops array")
    players = s.shape[1]
    key = _rank_keys(s, rules, troops)
    active = s.T > 0
    seats = range(players)
    eq = {(i, j): key[i] == key[j] for i in seats for j in seats if i < j}
    eq.update({(j, i): v for (i, j), v in eq.items()})
    tied = [functools.reduce(np.logical_or, (eq[(j, k)] for k in seats if k != j)) for j in seats]
    # A tied group's cost (two places) is counted once, at its lowest seat.
    nobody = np.zeros(s.shape[0], dtype=bool)
    lowest = [~functools.reduce(np.logical_or, (eq[(k, j)] for k in range(j)), nobody) for j in seats]
    cost = [lowest[j].view(np.int8) * (tied[j].view(np.int8) + np.int8(1)) for j in seats]
    rewards = rules.rewarded_places(players)
    places = np.empty((players, s.shape[0]), dtype=np.int8)
    tie_first = np.zeros(s.shape[0], dtype=bool)
    tie_second = np.zeros(s.shape[0], dtype=bool)
    for i in seats:
        consumed = sum(((key[j] > key[i]).view(np.int8) * cost[j] for j in seats if j != i), np.int8(0))
        target = consumed + (np.int8(1) + tied[i].view(np.int8) if rules.ties == "official" else np.int8(1))
        np.multiply(target, active[i] & (target <= rewards), out=places[i])  # 0: no reward
        contested = active[i] & tied[i]
        tie_first |= contested & (consumed == 0)
        tie_second |= contested & (consumed == 1)
    return Allocation(places.T, tie_first, tie_second)


def reference_places(strengths: Sequence[int], rules: Rules, troops: Sequence[int] | None = None) -> tuple[list[int], bool, bool]:
    """One conflict, in plain Python, following RULES.md 4.2 line by line (for tests and ``exact``).

    Returns (place per seat with 0 = nothing, tie for first, tie for second).
    """
    players = len(strengths)
    rewards = rules.rewarded_places(players)

    def rank(seat: int) -> tuple:
        by_troops = (troops[seat],) if rules.by_troops else ()
        by_seat = (-seat,) if rules.by_seat else ()  # earlier seat first
        return (strengths[seat], *by_troops, *by_seat)

    ranks = {seat: rank(seat) for seat in range(players) if strengths[seat] > 0}  # 0 strength gets nothing
    groups = [[s for s, r in ranks.items() if r == top] for top in sorted(set(ranks.values()), reverse=True)]
    places = [0] * players
    tie_first = tie_second = False
    place = 1  # the place the next group competes for
    for group in groups:
        if len(group) == 1:
            if place <= rewards:
                places[group[0]] = place
            place += 1
            continue
        tie_first |= place == 1
        tie_second |= place == 2
        # Official: a tie for first takes the second reward, a tie for second the third (if
        # the game has one), a tie for third nothing. Split up: each takes the tied place.
        won = place if rules.ties == "split_up" else place + 1
        if won <= rewards:
            for seat in group:
                places[seat] = won
        place += 2  # after a tie for first, the next highest compete for the third reward
    return places, tie_first, tie_second


# ------------------------------------------------------------------------------------- kernel

SEATS = tuple(range(1, MAX_PLAYERS + 1))


def _draw_troops(rng: np.random.Generator, troops: Troops, n: int) -> np.ndarray | int:
    """Troops per trial by inverting the CDF: the lowest count whose CDF exceeds a uniform."""
    if len(troops.pmf) == 1:
        return troops.pmf[0][0]
    u = rng.random(n)
    out = np.full(n, troops.pmf[0][0], dtype=np.int16)
    below = 0.0
    for (prev, p), (t, _) in zip(troops.pmf, troops.pmf[1:]):
        below += p
        out += (u >= below) * np.int16(t - prev)
    return out


def _draw_swords(rng: np.random.Generator, deck: Deck, revealed: int, n: int) -> np.ndarray | int:
    """Swords among ``revealed`` cards dealt from a shuffled ``deck``, one count per trial.

    Follows each sword card through the shuffle: the j-th sword card lands uniformly on one of
    the ``size - j`` positions the earlier sword cards left free, and is in the hand if that
    position is one of the hand slots still free.
    """
    swords = deck.sword_cards()
    if revealed == 0 or not swords:
        return 0
    if revealed == deck.size:
        return sum(swords)
    small = np.int8 if deck.size < 128 else np.int16
    free_slots = np.full(n, revealed, dtype=small)
    total = np.zeros(n, dtype=np.int16)
    for j, value in enumerate(swords):
        in_hand = rng.integers(0, deck.size - j, size=n, dtype=small) < free_slots
        free_slots -= in_hand
        total += in_hand if value == 1 else value * in_hand
    return total


def simulate_conflict(rules: Rules, setup: Setup, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``n`` conflicts: every seat's troops and revealed swords drawn, then rewards allocated."""
    players = setup.players
    deck = DECKS[setup.deck]
    strength = np.zeros((players, n), dtype=np.int16)  # seat-major: each seat's row is contiguous
    troops = np.zeros((players, n), dtype=np.int16) if rules.by_troops else None
    for seat in range(players):
        t = _draw_troops(rng, setup.troops[seat], n)
        if np.isscalar(t) and t == 0:
            continue  # no troop: strength 0 whatever the swords
        s = _draw_swords(rng, deck, setup.revealed[seat], n)
        value = rules.troop_strength * t + rules.sword_strength * s + setup.intrigue[seat]
        strength[seat] = value if np.isscalar(t) else value * (t > 0)
        if troops is not None:
            troops[seat] = t
    alloc = allocate(strength.T, rules, None if troops is None else troops.T)
    places = alloc.places.T  # seat-major again
    vp = CONFLICTS[setup.conflict].vp_by_place() if setup.conflict else (0, 0, 0, 0)
    absent, zero = np.zeros(n, dtype=bool), np.zeros(n)
    out: dict[str, np.ndarray] = {}
    for seat in SEATS:
        took = [places[seat - 1] == number if seat <= players else absent for number in range(len(PLACES))]
        for name, hit in zip(PLACES, took):
            out[f"seat{seat}_{name}"] = hit
        points = [v * hit for v, hit in zip(vp, took) if v]
        out[f"seat{seat}_points"] = sum(points[1:], points[0]).astype(np.float64) if points else zero
    out["tie_first"] = alloc.tie_first
    out["tie_second"] = alloc.tie_second
    return out


# -------------------------------------------------------------------------------------- exact

def sword_pmf(deck: Deck, revealed: int) -> dict[int, Fraction]:
    """Exact distribution of the swords among ``revealed`` cards drawn without replacement.

    Counts hands: choosing k_c cards of each kind of card c (by sword value) has prod C(n_c, k_c)
    ways out of C(size, revealed).
    """
    kinds: dict[int, int] = {}
    for card in deck.cards:
        kinds[card.swords] = kinds.get(card.swords, 0) + card.copies
    ways = {(0, 0): 1}  # (cards drawn, swords) -> number of hands
    for swords, copies in kinds.items():
        nxt: dict[tuple[int, int], int] = {}
        for (drawn, total), w in ways.items():
            for k in range(min(copies, revealed - drawn) + 1):
                key = (drawn + k, total + k * swords)
                nxt[key] = nxt.get(key, 0) + w * math.comb(copies, k)
        ways = nxt
    hands = math.comb(deck.size, revealed)
    return {total: Fraction(w, hands) for (drawn, total), w in ways.items() if drawn == revealed}


def _seat_states(rules: Rules, setup: Setup, seat: int) -> dict[tuple[int, int], float]:
    """(strength, troops or 0) -> probability for one seat; troops kept only when they break ties."""
    swords = sword_pmf(DECKS[setup.deck], setup.revealed[seat])
    states: dict[tuple[int, int], float] = {}
    for t, pt in setup.troops[seat].pmf:
        for s, ps in swords.items():
            strength = rules.troop_strength * t + rules.sword_strength * s + setup.intrigue[seat] if t > 0 else 0
            key = (strength, t if rules.by_troops else 0)
            states[key] = states.get(key, 0.0) + pt * float(ps)
    return states


def exact_conflict(rules: Rules, setup: Setup) -> dict[str, float] | None:
    """Every metric exactly, by enumerating the seats' joint strength states (None if too many).

    Uses the scalar :func:`reference_places`, not the kernel's vectorised allocator.
    """
    players = setup.players
    per_seat = [list(_seat_states(rules, setup, seat).items()) for seat in range(players)]
    if math.prod(len(s) for s in per_seat) > MAX_EXACT_STATES:
        return None
    vp = CONFLICTS[setup.conflict].vp_by_place() if setup.conflict else (0, 0, 0, 0)
    place_prob = [[0.0] * len(PLACES) for _ in range(players)]
    ties = [0.0, 0.0]
    for combo in itertools.product(*per_seat):
        prob = math.prod(p for _, p in combo)
        strengths = [state[0] for state, _ in combo]
        troops = [state[1] for state, _ in combo]
        places, tie_first, tie_second = reference_places(strengths, rules, troops)
        for seat, place in enumerate(places):
            place_prob[seat][place] += prob
        ties[0] += prob * tie_first
        ties[1] += prob * tie_second
    out: dict[str, float] = {}
    for seat in SEATS:
        row = place_prob[seat - 1] if seat <= players else [0.0] * len(PLACES)
        for number, name in enumerate(PLACES):
            out[f"seat{seat}_{name}"] = row[number]
        out[f"seat{seat}_points"] = sum(p * v for p, v in zip(row, vp))
    out["tie_first"], out["tie_second"] = ties
    return out


# -------------------------------------------------------------------------------------- game

def _metrics() -> tuple[Metric, ...]:
    places = tuple(
        Metric(f"seat{seat}_{name}", "probability",
               f"seat {seat} takes {'no reward' if name == 'nothing' else f'the {name} reward'}"
               + (" (all false for a seat the setup does not have)" if seat > MIN_PLAYERS else ""))
        for seat in SEATS for name in ("first", "second", "third", "nothing")
    )
    ties = (
        Metric("tie_first", "probability", "two or more players tie for the highest strength (after any tie-breaker)"),
        Metric("tie_second", "probability", "one player alone on top, two or more tied for second"),
    )
    points = tuple(
        Metric(f"seat{seat}_points", "mean", f"seat {seat}'s victory points from the conflict card (0 without one)")
        for seat in SEATS
    )
    return places + ties + points


CONFLICT = Question(
    name="conflict",
    description="who takes which conflict reward, and how often conflicts tie (2-4 players)",
    setup_type=Setup,
    metrics=_metrics(),
    simulate=simulate_conflict,
    exact=exact_conflict,
    parse_setup=parse_setup,
    example={"troops": "3,2,2,1", "revealed": 3, "conflict": "skirmish"},
)

GAME = Game(
    name="imperium",
    title="Dune: Imperium (Dire Wolf, 2020)",
    rules_type=Rules,
    variants=VARIANTS,
    questions={"conflict": CONFLICT},
    default_question="conflict",
    variant_descriptions=VARIANT_DESCRIPTIONS,
)
