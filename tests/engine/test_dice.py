import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as sps

from montecarlo.engine import dice
from montecarlo.errors import InputError


def brute_highest_pmf(faces_per_die):
    counts = np.zeros(max(faces_per_die, default=0) + 1)
    for roll in itertools.product(*[range(1, f + 1) for f in faces_per_die]):
        counts[max(roll, default=0)] += 1
    return counts / counts.sum()


@pytest.mark.parametrize(
    "n,faces,extra",
    [(1, 6, ()), (3, 6, ()), (5, 6, ()), (2, 8, ()), (4, 6, (8,)), (0, 6, (8,)), (3, 8, (8,)),
     (2, 8, (6,)), (1, 10, (6, 8)), (0, 6, ())],  # extra dice smaller than the pool's; no dice: 0 surely
)
def test_highest_pmf_matches_enumeration(n, faces, extra):
    expected = brute_highest_pmf([faces] * n + list(extra))
    got = dice.highest_die_pmf(n, faces, extra)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)  # the same length too


def test_compare_highest_matches_enumeration():
    a, b = [6, 6, 6], [8, 8]
    win = lose = tie = 0
    for ra in itertools.product(*[range(1, f + 1) for f in a]):
        for rb in itertools.product(*[range(1, f + 1) for f in b]):
            win += max(ra) > max(rb)
            lose += max(ra) < max(rb)
            tie += max(ra) == max(rb)
    total = win + lose + tie
    got = dice.compare_highest(dice.highest_die_pmf(3, 6), dice.highest_die_pmf(2, 8))
    assert np.allclose(got, (win / total, lose / total, tie / total))


@pytest.mark.parametrize("k,faces", [(1, 6), (4, 6), (6, 6), (3, 8)])
def test_roll_highest_frequencies(k, faces):
    n = 200_000
    rolls = dice.roll_highest(np.random.default_rng(k * 10 + faces), k, faces, n)
    pmf = dice.highest_die_pmf(k, faces)
    freq = np.bincount(rolls, minlength=faces + 1) / n
    se = np.sqrt(pmf * (1 - pmf) / n)
    assert np.all(np.abs(freq - pmf) <= 4.5 * se + 1e-12)


def test_roll_pool_face_counts():
    counts = dice.roll_pool(np.random.default_rng(1), np.array([0, 3, 6] * 50_000), [0.5, 1 / 3, 1 / 6])
    assert counts.shape == (150_000, 3)
    assert counts[0::3].sum() == 0
    assert np.array_equal(counts.sum(axis=1), np.array([0, 3, 6] * 50_000))
    hits = counts[2::3, 0].mean()
    assert abs(hits - 3.0) < 4.5 * math.sqrt(6 * 0.25 / 50_000)
    with pytest.raises(InputError):
        dice.roll_pool(np.random.default_rng(1), 2, [0.5, 0.6])


def test_shuffled_decks_are_uniform_permutations():
    decks = dice.shuffled_decks(np.random.default_rng(2), 60_000, 4)
    assert np.array_equal(np.sort(decks, axis=1), np.tile(np.arange(4), (60_000, 1)))
    first = np.bincount(decks[:, 0], minlength=4) / 60_000
    assert np.all(np.abs(first - 0.25) < 4.5 * math.sqrt(0.25 * 0.75 / 60_000))
    with pytest.raises(InputError):
        dice.shuffled_decks(np.random.default_rng(2), 3, 0)


def test_count_drawn_is_hypergeometric():
    n = 100_000
    drawn = dice.count_drawn(np.random.default_rng(5), n, 2, 10, 5)
    pmf = sps.hypergeom(10, 2, 5).pmf(np.arange(3))
    freq = np.bincount(drawn, minlength=3) / n
    assert np.all(np.abs(freq - pmf) < 4.5 * np.sqrt(pmf * (1 - pmf) / n))
    assert np.all(dice.count_drawn(np.random.default_rng(5), 10, 2, 10, 0) == 0)
    with pytest.raises(InputError):
        dice.count_drawn(np.random.default_rng(5), 10, 2, 10, 11)


@pytest.mark.parametrize(
    "values,size,hand",
    # the last: every card of the deck marked
    [([1, 1], 10, 3), ([1, 1, 2], 11, 5), ([3], 4, 2), ([1] * 5, 130, 40), ([1, 2, 2], 3, 2)],
)
def test_deal_marked_matches_the_exact_hand_distribution(values, size, hand):
    copies = {0: size - len(values)}
    for v in values:
        copies[v] = copies.get(v, 0) + 1
    pmf = dice.hand_total_pmf(copies, hand)
    assert sum(pmf.values()) == 1
    n = 100_000
    totals = dice.deal_marked(np.random.default_rng(hand), values, size, hand, n)
    for total, p in pmf.items():
        se = math.sqrt(float(p) * (1 - float(p)) / n)
        assert abs(np.mean(totals == total) - float(p)) <= 4.5 * se + 1e-12, (total, p)


def test_hand_total_pmf_is_hypergeometric_for_one_kind_of_marked_card():
    for hand in range(11):
        pmf = dice.hand_total_pmf({0: 8, 1: 2}, hand)
        for k in range(3):
            assert float(pmf.get(k, 0)) == pytest.approx(sps.hypergeom(10, 2, hand).pmf(k), abs=1e-12)


def test_deal_marked_without_randomness_draws_nothing():
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    assert dice.deal_marked(rng, [1, 2], 10, 0, 5) == 0
    assert dice.deal_marked(rng, [], 10, 4, 5) == 0
    assert dice.deal_marked(rng, [1, 2], 10, 10, 5) == 3
    assert rng.bit_generator.state == state
    with pytest.raises(InputError) as err:
        dice.deal_marked(rng, [1], 10, 11, 5)
    assert str(err.value) == "cannot deal 11 cards with 1 marked from a deck of 10"
    with pytest.raises(InputError) as err:
        dice.deal_marked(rng, [1, 1, 1], 2, 1, 5)
    assert str(err.value) == "cannot deal 1 cards with 3 marked from a deck of 2"
    with pytest.raises(InputError) as err:
        dice.hand_total_pmf({0: 3}, 4)
    assert str(err.value) == "cannot draw 4 cards from a deck of 3"


def test_hand_total_pmf_lists_only_totals_that_can_happen():
    # one plain card and one worth 1, both drawn: the total is 1, and 0 must not appear at all
    assert dice.hand_total_pmf({0: 1, 1: 1}, 2) == {1: Fraction(1)}
    assert dice.hand_total_pmf({0: 2, 3: 1}, 3) == {3: Fraction(1)}
