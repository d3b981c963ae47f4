"""Who takes which reward of a conflict: the rule of ``docs/rules/imperium.md`` (Rewards and ties).

Two readings of the same rule: :func:`allocate`, vectorised over a whole array of conflicts for
the kernel, and :func:`reference_places`, one conflict in plain Python, group by group, for the
exact solver and the tests (which check that the two agree on every case and on random
strengths).

>>> from montecarlo.games.imperium.rules import Rules
>>> reference_places([4, 4, 3, 2], Rules())   # tie for first: second reward each, next one third
([2, 2, 3, 0], True, False)
>>> allocate(np.array([[4, 4, 3, 2]]), Rules()).places.tolist()
[[2, 2, 3, 0]]
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Sequence

import numpy as np

from montecarlo.games.imperium.rules import Rules

PLACES = ("nothing", "first", "second", "third")  # index = place number (0 = no reward)


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
    """Places for a whole (trials, seats) array of strengths at once.

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


def reference_places(
    strengths: Sequence[int], rules: Rules, troops: Sequence[int] | None = None
) -> tuple[list[int], bool, bool]:
    """One conflict in plain Python, group by group down the ranking (for the exact solver and tests).

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
