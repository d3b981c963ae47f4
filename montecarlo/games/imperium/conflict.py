"""The ``conflict`` question: kernel, exact solver, reference trial and metrics.

Rules as modelled: ``docs/rules/imperium.md``. Three independent answers to the same question:

- :func:`simulate_conflict`, the vectorised kernel: troops by inverting each seat's CDF, swords
  by :func:`montecarlo.engine.dice.deal_marked`, places by the vectorised
  :func:`~montecarlo.games.imperium.rewards.allocate`;
- :func:`exact_conflict`, enumeration of the seats' joint strength states with the exact sword
  distribution and the scalar :func:`~montecarlo.games.imperium.rewards.reference_places`;
- :func:`reference_conflict`, one conflict in plain Python: troops drawn, a real list of cards
  shuffled and the revealed ones counted, and the reward rule read sentence by sentence
  (:func:`literal_places`), written apart from both.

>>> from montecarlo.games.imperium.setup import parse_conflict
>>> setup = parse_conflict({"troops": "3,2,2,1", "revealed": 3})
>>> exact = exact_conflict(Rules(), setup)
>>> round(exact["seat1_first"], 4), round(exact["tie_first"], 4)
(0.9399, 0.0601)
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from montecarlo.engine.dice import deal_marked, hand_total_pmf
from montecarlo.games.base import Metric, Question
from montecarlo.games.imperium.rewards import PLACES, allocate, reference_places
from montecarlo.games.imperium.rules import CONFLICTS, DECKS, MAX_PLAYERS, Deck, Rules
from montecarlo.games.imperium.setup import ConflictSetup, Troops, parse_conflict

MAX_EXACT_STATES = 250_000  # joint strength states the exact solver enumerates at most


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


def simulate_conflict(
    rules: Rules, setup: ConflictSetup, n: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """``n`` conflicts: every seat's troops and revealed swords drawn, then rewards allocated."""
    players = setup.players
    deck = DECKS[setup.deck]
    strength = np.zeros((players, n), dtype=np.int16)  # seat-major: each seat's row is contiguous
    troops = np.zeros((players, n), dtype=np.int16) if rules.by_troops else None
    for seat in range(players):
        t = _draw_troops(rng, setup.troops[seat], n)
        if np.isscalar(t) and t == 0:
            continue  # no troop: strength 0 whatever the swords
        s = deal_marked(rng, deck.sword_cards(), deck.size, setup.revealed[seat], n)
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


# ---------------------------------------------------------------------------------- reference

def reference_conflict(rules: Rules, setup: ConflictSetup, rng: np.random.Generator) -> dict[str, Any]:
    """ONE conflict in plain Python, the rules read literally (apart from the kernel and solver).

    Each seat draws its troop count from its distribution, shuffles a real list of its deck's
    cards and counts the swords on the first ``revealed`` of them; its strength is 2 per troop
    + 1 per sword + intrigue, or 0 without a troop. :func:`literal_places` then hands out the
    rewards. Seats the setup does not have report all-false places and 0 points, like the kernel.
    """
    deck = DECKS[setup.deck]
    strengths, troop_counts = [], []
    for seat in range(setup.players):
        counts = [t for t, _ in setup.troops[seat].pmf]
        troops = counts[rng.choice(len(counts), p=[p for _, p in setup.troops[seat].pmf])]
        cards = [card for card in deck.cards for _ in range(card.copies)]
        rng.shuffle(cards)
        swords = sum(card.swords for card in cards[: setup.revealed[seat]])
        strength = 0  # no troop in the conflict: strength 0 whatever the swords or intrigue
        if troops > 0:
            strength = rules.troop_strength * troops + rules.sword_strength * swords + setup.intrigue[seat]
        strengths.append(strength)
        troop_counts.append(troops)
    places, tie_first, tie_second = literal_places(strengths, troop_counts, rules)
    card = CONFLICTS[setup.conflict] if setup.conflict else None
    out: dict[str, Any] = {}
    for seat in SEATS:
        present = seat <= setup.players
        place = places[seat - 1] if present else 0
        for number, name in enumerate(PLACES):
            out[f"seat{seat}_{name}"] = present and place == number
        out[f"seat{seat}_points"] = float(card.rewards[place - 1].vp) if card and place else 0.0
    out["tie_first"], out["tie_second"] = tie_first, tie_second
    return out


def literal_places(
    strengths: Sequence[int], troops: Sequence[int], rules: Rules
) -> tuple[list[int], bool, bool]:
    """The reward rule sentence by sentence: (place per seat with 0 = nothing, tie for first, for second).

    >>> literal_places([6, 4, 4, 2], [3, 2, 2, 1], Rules())   # a tie for second takes the third
    ([1, 3, 3, 0], False, True)
    """
    players = len(strengths)
    third_given = rules.rewarded_places(players) == 3  # four players, and no variant removing it
    split = rules.ties == "split_up"
    places = [0] * players

    def standing(seat: int) -> tuple[int, int, int]:
        """Higher is better: strength, then troops and seat if those break ties."""
        return (strengths[seat], troops[seat] if rules.by_troops else 0, -seat if rules.by_seat else 0)

    def highest(seats: list[int]) -> list[int]:
        best = max(standing(s) for s in seats)
        return [s for s in seats if standing(s) == best]

    def give(seats: list[int], place: int) -> None:
        if place < 3 or third_given:
            for s in seats:
                places[s] = place

    # A player with 0 strength gets nothing: only the others compete.
    rest = [seat for seat in range(players) if strengths[seat] > 0]
    if not rest:
        return places, False, False
    first = highest(rest)
    rest = [s for s in rest if s not in first]
    if len(first) > 1:
        # Tie for first: nobody wins; each tied player takes the second reward (split up: the
        # first). The next highest compete for the third reward; if they tie, that is a tie for
        # third: nothing (split up: the third each).
        give(first, 1 if split else 2)
        if rest:
            nxt = highest(rest)
            if len(nxt) == 1 or split:
                give(nxt, 3)
        return places, True, False
    give(first, 1)  # the highest strength takes the first reward
    if not rest:
        return places, False, False
    second = highest(rest)
    rest = [s for s in rest if s not in second]
    if len(second) > 1:
        # A tie for second takes the third reward (split up: the second each); nobody is left to
        # take the third.
        give(second, 2 if split else 3)
        return places, False, True
    give(second, 2)  # the second highest takes the second reward
    if rest:
        third = highest(rest)  # the third highest takes the third; a tie for third: nothing
        if len(third) == 1 or split:
            give(third, 3)
    return places, False, False


# -------------------------------------------------------------------------------------- exact

def sword_pmf(deck: Deck, revealed: int) -> dict[int, Fraction]:
    """Exact distribution of the swords among ``revealed`` cards drawn without replacement.

    >>> sword_pmf(DECKS["starting"], 5)[2]    # both Daggers among 5 cards of 10
    Fraction(2, 9)
    """
    kinds: dict[int, int] = {}
    for card in deck.cards:
        kinds[card.swords] = kinds.get(card.swords, 0) + card.copies
    return hand_total_pmf(kinds, revealed)


def _seat_states(rules: Rules, setup: ConflictSetup, seat: int) -> dict[tuple[int, int], float]:
    """(strength, troops or 0) -> probability for one seat; troops kept only when they break ties."""
    swords = sword_pmf(DECKS[setup.deck], setup.revealed[seat])
    states: dict[tuple[int, int], float] = {}
    for t, pt in setup.troops[seat].pmf:
        for s, ps in swords.items():
            strength = 0  # no troop: strength 0
            if t > 0:
                strength = rules.troop_strength * t + rules.sword_strength * s + setup.intrigue[seat]
            key = (strength, t if rules.by_troops else 0)
            states[key] = states.get(key, 0.0) + pt * float(ps)
    return states


def exact_conflict(rules: Rules, setup: ConflictSetup) -> dict[str, float] | None:
    """Every metric exactly, by enumerating the seats' joint strength states (None if too many).

    Uses the scalar :func:`~montecarlo.games.imperium.rewards.reference_places`, not the
    kernel's vectorised allocator.
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

def applicable_conflict(setup: ConflictSetup) -> tuple[str, ...]:
    """The metrics that mean something for ``setup``: its own seats, points only with a
    conflict card, and a tie for second only with 3 or 4 players.

    >>> names = applicable_conflict(parse_conflict({"troops": "2,2"}))
    >>> names[-3:], "seat3_first" in names, "seat1_points" in names
    (('seat2_third', 'seat2_nothing', 'tie_first'), False, False)
    """
    names = []
    for seat in range(1, setup.players + 1):
        names += [f"seat{seat}_{place}" for place in ("first", "second", "third", "nothing")]
        if setup.conflict is not None and seat not in setup.hagal:  # Hagal's rewards count for nobody
            names.append(f"seat{seat}_points")
    names.append("tie_first")
    if setup.players > 2:
        names.append("tie_second")
    return tuple(names)


def _metrics() -> tuple[Metric, ...]:
    places = tuple(
        Metric(f"seat{seat}_{name}", "probability",
               # a seat the setup does not have is n/a (``applicable_conflict``), said as such in every
               # table: "(all false for a seat …)" read oddly under a 4-player conflict
               f"seat {seat} takes {'no reward' if name == 'nothing' else f'the {name} reward'}")
        for seat in SEATS for name in ("first", "second", "third", "nothing")
    )
    ties = (
        Metric("tie_first", "probability",
               "two or more players tie for the highest strength (after any tie-breaker)"),
        Metric("tie_second", "probability",
               "one player is alone on top and two or more tie for second (after any tie-breaker)"),
    )
    points = tuple(
        Metric(f"seat{seat}_points", "mean",
               f"seat {seat}'s victory points from the conflict card (0 without one)")
        for seat in SEATS
    )
    return places + ties + points


QUESTIONS = {
    "conflict": Question(
        name="conflict",
        description="who takes which conflict reward, and how often conflicts tie (2-4 players)",
        setup_type=ConflictSetup,
        metrics=_metrics(),
        simulate=simulate_conflict,
        exact=exact_conflict,
        parse_setup=parse_conflict,
        reference=reference_conflict,
        applicable=applicable_conflict,
        stand_ins=lambda setup: setup.hagal,
        example={"troops": "3,2,2,1", "revealed": 3, "conflict": "skirmish"},
        inputs={"players": "seats in the conflict (2-4): one troops, revealed or intrigue entry then stands "
                "for every seat"},
    ),
}
