"""Exact distributions of one round's dice, enumerated once per pool and cached.

A *pool* is a tuple of ``(faces, count)`` groups: ``faces`` lists one entry per face of the die
(numbers, or names for counted faces), ``count`` is how many such dice are rolled. Dice of one
group are exchangeable, so a counted group is enumerated as sorted multisets with multinomial
weights (:func:`multisets` outcomes instead of ``f ** n``), and a group's highest dice are worked
out value by value without listing the rest (:func:`top_of_one_kind`); groups are then combined.

>>> d6 = ((tuple(range(1, 7)), 1),)
>>> sides = ("attacker", "defender")
>>> [(round(p * 36), a, d, t) for p, a, d, t in pair_outcomes(d6, d6, 1, "defender", sides)]
[(15, 0, 1, 0), (21, 1, 0, 0)]
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
from collections import Counter
from typing import Sequence

import numpy as np

from montecarlo.errors import MonteCarloError

EMPTY = -(2**62)  # the "value" of a pool without dice: below every face
MAX_OUTCOMES = 2_000_000  # multisets enumerated for one group, beyond which exact gives up

Pool = tuple[tuple[tuple, int], ...]


class PoolTooLarge(MonteCarloError):
    """A pool whose exact distribution would take too many outcomes to enumerate.

    ``args``: the message, then the die's number of distinct faces.
    """

    def __str__(self) -> str:
        return str(self.args[0])


def multisets(values: int, dice: int) -> int:
    """C(values + dice - 1, dice): the sorted results of ``dice`` dice that show ``values``
    distinct values (how many :func:`_multisets` lists, and how many tuples of the ``dice``
    highest of more dice there are)."""
    return math.comb(values + dice - 1, dice)


def _multisets(faces: tuple, count: int):
    """``(sorted multiset of faces, probability)`` for ``count`` dice showing ``faces`` uniformly."""
    freq = Counter(faces)
    values = sorted(freq)  # a die's faces are all numbers or all names
    if multisets(len(values), count) > MAX_OUTCOMES:
        raise PoolTooLarge(
            f"{count} dice of {len(values)} faces are too many to enumerate exactly", len(values)
        )
    total = len(faces)
    for combo in itertools.combinations_with_replacement(values, count):
        ways = math.factorial(count)
        prob = 1.0
        for v, k in Counter(combo).items():
            ways //= math.factorial(k)
            prob *= (freq[v] / total) ** k
        yield combo, ways * prob


def top_of_one_kind(faces: tuple, count: int, keep: int) -> dict[tuple[int, ...], float]:
    """``{the keep highest dice, highest first: probability}`` for ``count`` dice showing the
    numbers ``faces`` uniformly (all of them if ``keep >= count``).

    The values are taken from the highest down. An open result holds fewer than ``keep`` dice,
    all those at the values so far, with its probability (the ``r`` dice left all below them);
    given that they are at or below the next value, c of them show it with the binomial chance
    C(r, c) p^c q^(r - c) (p and q: a die's chance of that value and of a lower one, given at or
    below it), and once ``keep`` are known, the other dice are anywhere at or below it (the
    binomial tail, summed itself or as what it is not, whichever has fewer terms). Every weight is
    a probability, so 1,000 dice do not overflow. The work grows with the results,
    C(f + keep - 1, keep), not with the multisets of all the dice: the 3 highest of 44 d6 are 56
    results, against 1,906,884 multisets to enumerate.
    """
    keep = min(keep, count)
    freq = Counter(faces)
    done: dict[tuple[int, ...], float] = {}
    open_: dict[tuple[int, ...], float] = {(): 1.0}
    at_most = len(faces)  # faces at or below the value
    for value in sorted(freq, reverse=True):
        p, q = freq[value] / at_most, (at_most - freq[value]) / at_most  # given at or below value
        at_most -= freq[value]
        lowest = not at_most
        tails = {}  # by dice known: P(at least need of the r others at value | all at or below it)
        for known in {len(prefix) for prefix in open_}:
            r, need = count - known, keep - known
            if need <= r - need + 1:  # the fewer terms: what the tail is not, or the tail itself
                tails[known] = max(1.0 - sum(_term(r, c, p, q) for c in range(need)), 0.0)
            else:
                tails[known] = sum(_term(r, c, p, q) for c in range(need, r + 1))
        opened: dict[tuple[int, ...], float] = {}
        for prefix, weight in open_.items():
            known = len(prefix)
            r, need = count - known, keep - known
            for c in range(0 if lowest else need):  # (below the lowest value, no die is left)
                opened[prefix + (value,) * c] = weight * _term(r, c, p, q)  # (each key once)
            done[prefix + (value,) * need] = weight * tails[known]
        open_ = opened
    return done


def _term(r: int, c: int, p: float, q: float) -> float:
    """C(r, c) p^c q^(r - c): c of r dice at a value of probability p, the others at q (p + q = 1:
    at most C(1000, 500) < 2.8e299 times at most 1, no overflow)."""
    return math.comb(r, c) * (p**c * q ** (r - c))


@functools.lru_cache(maxsize=4096)
def top_values(pool: Pool, keep: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Distribution of the ``keep`` highest dice of a numeric pool, highest first."""
    dist: dict[tuple[int, ...], float] = {(): 1.0}
    for faces, count in pool:
        if count == 0:
            continue
        group = top_of_one_kind(faces, count, keep)
        merged: dict[tuple[int, ...], float] = {}
        for a, pa in dist.items():
            for b, pb in group.items():
                key = tuple(sorted(a + b, reverse=True)[:keep])
                merged[key] = merged.get(key, 0.0) + pa * pb
        dist = merged
    return tuple(dist.items())


def top_bound(pool: Pool, keep: int) -> int:
    """An upper bound on the results :func:`top_values` lists for ``pool`` and ``keep``, without
    enumerating: the results of each kind of die multiplied, and at most the multisets of ``keep``
    of the pool's distinct values (exact for one kind of die)."""
    groups = [(len(set(faces)), count) for faces, count in pool if count > 0]
    keep = min(keep, sum(count for _, count in groups))
    values = len({v for faces, count in pool if count > 0 for v in faces})
    kinds = math.prod(multisets(f, min(keep, n)) for f, n in groups)
    return min(kinds, multisets(max(values, 1), keep))


def top_work(pool: Pool, keep: int) -> int:
    """An upper bound on the steps :func:`top_values` takes to combine the pool's kinds of dice:
    each kind's results times those of the kinds before it (one kind of die: none)."""
    kinds, dice, values = [], 0, set()
    for faces, count in pool:
        if count:
            dice, values = dice + count, values | set(faces)
            cap = multisets(len(values), min(keep, dice))  # the results of the kinds so far, at most
            kinds.append((multisets(len(set(faces)), min(keep, count)), cap))
    return _combining_steps(kinds)


def _combining_steps(kinds: Sequence[tuple[int, int]]) -> int:
    """The steps of combining kinds of dice one after another, each kind's results times those of
    the kinds before it; ``kinds``: each kind's results, and a cap on the results of the kinds
    combined up to it (bounds, for :func:`top_work` and :func:`count_work`)."""
    work, before = 0, 0  # before: a bound on the results so far
    for kind, cap in kinds:
        if before:
            work += before * kind
            before = min(before * kind, cap)
        else:
            before = kind
    return work


@functools.lru_cache(maxsize=4096)
def highest(pool: Pool) -> tuple[tuple[int, float], ...]:
    """Distribution of the highest die of a numeric pool (``EMPTY`` when it has no dice).

    The CDF of a maximum is the product of the dice's CDFs, so no enumeration is needed.
    """
    groups = [(sorted(faces), count) for faces, count in pool if count > 0]
    if not groups:
        return ((EMPTY, 1.0),)
    values = sorted({v for faces, _ in groups for v in faces})
    out, below = [], 0.0
    for v in values:
        cdf = 1.0
        for faces, count in groups:
            cdf *= (bisect.bisect_right(faces, v) / len(faces)) ** count
        if cdf > below:
            out.append((v, cdf - below))
        below = cdf
    return tuple(out)


def _lose(tie: str, sides: tuple[str, str]) -> tuple[int, int, int]:
    """(attacker loses, defender loses, tied) for a tied comparison under ``tie``."""
    if tie == sides[0]:
        return 0, 1, 0  # the first side wins ties
    if tie == sides[1]:
        return 1, 0, 0
    return 0, 0, 1


@functools.lru_cache(maxsize=4096)
def highest_outcomes(pool_a: Pool, pool_d: Pool, tie: str, sides: tuple[str, str]):
    """``((p, a_lost, d_lost, tied), ...)`` when the highest dice are compared."""
    da, dd = highest(pool_a), highest(pool_d)
    d_values = [vd for vd, _ in dd]  # ascending, as highest() gives them
    d_below = list(itertools.accumulate((pd for _, pd in dd), initial=0.0))  # P(d < d_values[i])
    win_a = win_d = tied = 0.0
    for va, pa in da:  # two look-ups per attacker value: a die of 10,000 faces stays quick
        i, j = bisect.bisect_left(d_values, va), bisect.bisect_right(d_values, va)
        win_a += pa * d_below[i]
        tied += pa * (d_below[j] - d_below[i])
        win_d += pa * (d_below[-1] - d_below[j])
    out: dict[tuple[int, int, int], float] = {}
    for p, key in ((win_a, (0, 1, 0)), (win_d, (1, 0, 0)), (tied, _lose(tie, sides))):
        out[key] = out.get(key, 0.0) + p
    return tuple((p, *key) for key, p in out.items() if p > 0)


@functools.lru_cache(maxsize=4096)
def pair_outcomes(pool_a: Pool, pool_d: Pool, pairs: int, tie: str, sides: tuple[str, str]):
    """``((p, a_lost, d_lost, tied), ...)`` when the ``pairs`` highest dice are compared in order."""
    if pairs <= 0:
        return ((1.0, 0, 0, 0),)
    tied_loss = _lose(tie, sides)
    (tops_a, p_a), (tops_d, p_d) = _tops(pool_a, pairs), _tops(pool_d, pairs)
    k = min(tops_a.shape[1], tops_d.shape[1])  # the pairs compared (a pool of fewer dice: as many)
    higher = np.zeros((len(p_a), len(p_d)), dtype=np.int64)  # pairs the attacker's die wins
    lower = np.zeros_like(higher)
    for j in range(k):  # every joint result at once, a pair at a time (memory: one joint array)
        higher += tops_a[:, j, None] > tops_d[None, :, j]
        lower += tops_a[:, j, None] < tops_d[None, :, j]
    even = k - higher - lower
    a_lost, d_lost, tied = lower + even * tied_loss[0], higher + even * tied_loss[1], even * tied_loss[2]
    key = ((a_lost * (k + 1) + d_lost) * (k + 1) + tied).ravel()  # sorts as (a_lost, d_lost, tied)
    found, where = np.unique(key, return_inverse=True)
    sums = np.bincount(where.ravel(), weights=np.outer(p_a, p_d).ravel(), minlength=len(found))
    return tuple(
        (float(p), int(c // (k + 1) ** 2), int(c // (k + 1) % (k + 1)), int(c % (k + 1)))
        for c, p in zip(found.tolist(), sums.tolist())
    )


def _tops(pool: Pool, keep: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`top_values` as arrays: the highest dice, one row a result, and their probabilities."""
    listed = top_values(pool, keep)
    tops = np.array([top for top, _ in listed], dtype=np.int64).reshape(len(listed), -1)
    return tops, np.array([p for _, p in listed], dtype=np.float64)


def symbol_counts(pool: Pool, symbols: tuple[str, ...]) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Distribution of how many dice of a pool show each of ``symbols``."""
    index = {s: i for i, s in enumerate(symbols)}
    dist: dict[tuple[int, ...], float] = {(0,) * len(symbols): 1.0}
    for faces, count in pool:
        if count == 0:
            continue
        group: dict[tuple[int, ...], float] = {}
        for combo, p in _multisets(faces, count):
            vec = [0] * len(symbols)
            for s in combo:
                vec[index[s]] += 1
            group[tuple(vec)] = group.get(tuple(vec), 0.0) + p
        merged: dict[tuple[int, ...], float] = {}
        for a, pa in dist.items():
            for b, pb in group.items():
                key = tuple(x + y for x, y in zip(a, b))
                merged[key] = merged.get(key, 0.0) + pa * pb
        dist = merged
    return tuple(dist.items())


def count_bound(pool: Pool, symbols: tuple[str, ...]) -> int:
    """An upper bound on the results :func:`count_table` lists for ``pool``, without enumerating:
    the multisets of each kind of die multiplied, and at most the multisets of all its dice over
    ``symbols`` (exact for one kind of die, or dice that show the same names)."""
    kinds, dice = 1, 0
    for faces, count in pool:
        kinds *= multisets(len(set(faces)), count)
        dice += count
    return min(kinds, multisets(max(len(symbols), 1), dice))


def count_work(pool: Pool, symbols: tuple[str, ...]) -> int:
    """An upper bound on the steps :func:`symbol_counts` takes to combine the pool's kinds of dice:
    each kind's results times those of the kinds before it (one kind of die: none)."""
    kinds, dice = [], 0
    for faces, count in pool:
        if count:
            dice += count
            kinds.append((multisets(len(set(faces)), count), multisets(max(len(symbols), 1), dice)))
    return _combining_steps(kinds)


@functools.lru_cache(maxsize=256)
def count_table(pool: Pool, symbols: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`symbol_counts` as arrays, in its order: ``(counts, p)``, one row of ``counts`` (a
    column per symbol) and one ``p`` per result; read-only, as they are cached."""
    dist = symbol_counts(pool, symbols)
    counts = np.array([vec for vec, _ in dist], dtype=np.int64).reshape(len(dist), len(symbols))
    p = np.array([q for _, q in dist], dtype=np.float64)
    counts.flags.writeable = p.flags.writeable = False
    return counts, p


def clear_caches() -> None:
    """Forget every cached distribution (for cold timings)."""
    for cached in (top_values, highest, highest_outcomes, pair_outcomes, count_table):
        cached.cache_clear()
