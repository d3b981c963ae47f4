"""Vectorised dice and deck primitives, plus the exact distributions behind them.

Kernels take the generator they must use and return one value per trial, so a round of a
million fights is a handful of numpy operations.

>>> pmf = highest_die_pmf(2, 6)          # highest of 2d6
>>> round(float(pmf[6]), 4), round(float(pmf[1]), 4)
(0.3056, 0.0278)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Mapping, Sequence

import numpy as np

from montecarlo.errors import InputError


def highest_die_cdf(n_dice: int, faces: int, extra_faces: Sequence[int] = ()) -> np.ndarray:
    """P(highest <= v) for v = 0..max face, for ``n_dice`` d``faces`` plus one die per ``extra_faces``.

    The dice are independent, so the CDF of the maximum is the product of the dice's CDFs.
    With no dice at all the highest is 0 with certainty.
    """
    top = max([faces, *extra_faces]) if (n_dice or extra_faces) else 0
    values = np.arange(top + 1, dtype=np.float64)
    cdf = np.ones(top + 1)
    if n_dice:
        cdf *= np.minimum(values / faces, 1.0) ** n_dice
    for f in extra_faces:
        cdf *= np.minimum(values / f, 1.0)
    return cdf


def highest_die_pmf(n_dice: int, faces: int, extra_faces: Sequence[int] = ()) -> np.ndarray:
    """P(highest == v) for v = 0..max face (index = value)."""
    cdf = highest_die_cdf(n_dice, faces, extra_faces)
    return np.diff(cdf, prepend=0.0)


def compare_highest(pmf_a: np.ndarray, pmf_b: np.ndarray) -> tuple[float, float, float]:
    """(P(a > b), P(b > a), P(a == b)) for two independent highest-die distributions."""
    size = max(len(pmf_a), len(pmf_b))
    a = np.zeros(size)
    b = np.zeros(size)
    a[: len(pmf_a)] = pmf_a
    b[: len(pmf_b)] = pmf_b
    cdf_b_below = np.concatenate(([0.0], np.cumsum(b)[:-1]))  # P(b < v)
    cdf_a_below = np.concatenate(([0.0], np.cumsum(a)[:-1]))
    a_wins = float(np.dot(a, cdf_b_below))
    b_wins = float(np.dot(b, cdf_a_below))
    tie = float(np.dot(a, b))
    return a_wins, b_wins, tie


def roll_highest(
    rng: np.random.Generator, n_dice: np.ndarray | int, faces: int, size: int | None = None
) -> np.ndarray:
    """Highest of ``n_dice`` d``faces`` per trial, drawn directly by inverting its CDF.

    ``P(max <= v) = (v/f)^k``, so ``max = ceil(f * U^(1/k))`` for U uniform on (0, 1].
    Trials with 0 dice get 0.
    """
    k = np.asarray(n_dice)
    if size is None:
        size = k.size if k.ndim else 1
    k = np.broadcast_to(k, (size,))
    u = 1.0 - rng.random(size)  # (0, 1]
    with np.errstate(divide="ignore"):
        out = np.ceil(faces * u ** (1.0 / np.where(k > 0, k, 1))).astype(np.int8)
    out[k <= 0] = 0
    return np.clip(out, 0, faces)


def roll_pool(
    rng: np.random.Generator,
    n_dice: np.ndarray | int,
    face_probabilities: Sequence[float],
    size: int | None = None,
) -> np.ndarray:
    """Counts of each face for a pool of custom dice: array (trials, n_faces).

    ``face_probabilities`` is one die's distribution over its kinds of face (e.g. Hit, Shield,
    Special = 3/6, 2/6, 1/6); each trial rolls its own number of dice.
    """
    p = np.asarray(face_probabilities, dtype=np.float64)
    if p.ndim != 1 or len(p) == 0 or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise InputError(f"face probabilities must be non-negative and sum to 1, got {list(p)}")
    k = np.asarray(n_dice, dtype=np.int64)
    if size is None:
        size = k.size if k.ndim else 1
    k = np.broadcast_to(k, (size,))
    if np.any(k < 0):
        raise InputError("a dice pool cannot have a negative number of dice")
    return rng.multinomial(k, p)


def shuffled_decks(rng: np.random.Generator, trials: int, deck_size: int) -> np.ndarray:
    """One independent random order of ``deck_size`` cards per trial: array (trials, deck_size).

    Row i is a uniformly random permutation of 0..deck_size-1 (argsort of i.i.d. keys), so
    drawing the first k columns draws k cards without replacement.
    """
    if deck_size <= 0:
        raise InputError("the deck is empty")
    keys = rng.random((trials, deck_size))
    return np.argsort(keys, axis=1).astype(np.int16 if deck_size < 32768 else np.int32)


def count_drawn(
    rng: np.random.Generator, trials: int, marked: int, deck_size: int, draws: np.ndarray | int
) -> np.ndarray:
    """How many of ``marked`` special cards are among ``draws`` cards drawn without replacement.

    Hypergeometric per trial; ``draws`` may differ between trials.
    """
    if not 0 <= marked <= deck_size:
        raise InputError(f"a deck of {deck_size} cards cannot hold {marked} marked cards")
    d = np.broadcast_to(np.asarray(draws, dtype=np.int64), (trials,))
    if np.any(d < 0) or np.any(d > deck_size):
        raise InputError(f"cannot draw more than the {deck_size} cards of the deck")
    return (
        rng.hypergeometric(marked, deck_size - marked, np.maximum(d, 0)) * (d > 0)
        if marked
        else np.zeros(trials, dtype=np.int64)
    )


def deal_marked(
    rng: np.random.Generator, values: Sequence[int], deck_size: int, hand: int, trials: int
) -> np.ndarray | int:
    """Total value of the marked cards in a hand of ``hand`` cards dealt from a shuffled deck.

    The deck holds ``deck_size`` cards, of which the marked ones carry ``values`` (one entry per
    marked card, e.g. the swords of each sword card); the others count 0. The draw follows each
    marked card through the shuffle: the j-th marked card lands uniformly on one of the
    ``deck_size - j`` positions the earlier marked cards left free, and is in the hand if that
    position is one of the hand slots still free. So the cost is one small integer draw per
    marked card and trial, whatever the deck size, and the draws are without replacement.

    Returns one total per trial, or a plain int when nothing is random (an empty hand, no
    marked card, or the whole deck dealt), without drawing.

    >>> deal_marked(np.random.default_rng(1), [1, 1], 10, 10, trials=3)   # the whole deck
    2
    >>> totals = deal_marked(np.random.default_rng(1), [1, 1], 10, 3, trials=100_000)
    >>> round(float(totals.mean()), 2)    # 3 cards of 10, 2 marked: 0.6 on average
    0.6
    """
    if not 0 <= hand <= deck_size or len(values) > deck_size:
        raise InputError(f"cannot deal {hand} cards with {len(values)} marked from a deck of {deck_size}")
    if hand == 0 or not values:
        return 0
    if hand == deck_size:
        return sum(values)
    small = np.int8 if deck_size < 128 else np.int16
    free_slots = np.full(trials, hand, dtype=small)
    total = np.zeros(trials, dtype=np.int16)
    for j, value in enumerate(values):
        in_hand = rng.integers(0, deck_size - j, size=trials, dtype=small) < free_slots
        free_slots -= in_hand
        total += in_hand if value == 1 else value * in_hand
    return total


def hand_total_pmf(copies: Mapping[int, int], hand: int) -> dict[int, Fraction]:
    """Exact distribution of the total value of ``hand`` cards drawn without replacement.

    ``copies`` maps a card value to how many cards of the deck carry it (0 for plain cards), so
    the deck holds ``sum(copies.values())`` cards. Counts hands: choosing k_v cards of each
    value v has prod C(n_v, k_v) ways out of C(deck size, hand).

    >>> sorted(hand_total_pmf({0: 8, 1: 2}, 3).items())   # 3 cards of 10, two of them worth 1
    [(0, Fraction(7, 15)), (1, Fraction(7, 15)), (2, Fraction(1, 15))]
    """
    size = sum(copies.values())
    if not 0 <= hand <= size:
        raise InputError(f"cannot draw {hand} cards from a deck of {size}")
    ways = {(0, 0): 1}  # (cards drawn, total value) -> number of hands
    for value, count in copies.items():
        nxt: dict[tuple[int, int], int] = {}
        for (drawn, total), w in ways.items():
            for k in range(min(count, hand - drawn) + 1):
                key = (drawn + k, total + k * value)
                nxt[key] = nxt.get(key, 0) + w * math.comb(count, k)
        ways = nxt
    hands = math.comb(size, hand)
    return {total: Fraction(w, hands) for (drawn, total), w in ways.items() if drawn == hand}
