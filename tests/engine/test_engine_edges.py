"""Edges of the engine's primitives that the statistical tests do not reach (found by mutation).

Each test pins a boundary or a contract that a plausible slip would break: zero dice, a one-card
deck, a draw of the whole deck, a p-value exactly at Holm's threshold, the dtype a caller
indexes with, the exact text of an error.
"""

import functools
import math

import numpy as np
import pytest

from montecarlo.engine import dice, memory, runner, stats
from montecarlo.engine.rng import chunk_generator
from montecarlo.errors import InputError
from montecarlo.games.base import Metric
from tests.engine.fake_kernels import METRICS, coin

RNG = functools.partial(np.random.default_rng, 7)


# --- dice ---------------------------------------------------------------------------------------

def test_no_dice_means_a_highest_of_zero():
    assert dice.highest_die_cdf(0, 6).tolist() == [1.0]
    assert dice.highest_die_pmf(0, 6).tolist() == [1.0]
    # zero dice against one d6: the d6 always wins
    assert dice.compare_highest(dice.highest_die_pmf(0, 6), dice.highest_die_pmf(1, 6)) == (0.0, 1.0, 0.0)
    assert dice.compare_highest(dice.highest_die_pmf(1, 6), dice.highest_die_pmf(0, 6)) == (1.0, 0.0, 0.0)


def test_an_extra_die_smaller_than_the_others():
    # 2d8 and a d6: P(highest <= v) = (v/8)^2 * min(v/6, 1)
    cdf = dice.highest_die_cdf(2, 8, (6,))
    want = [(v / 8) ** 2 * min(v / 6, 1) for v in range(9)]
    assert np.allclose(cdf, want, atol=1e-15)


def test_roll_highest_shapes_and_zero_dice():
    k = np.array([0, 1, 3, 0, 2] * 2_000)
    out = dice.roll_highest(RNG(), k, 6)
    assert out.shape == (10_000,)
    assert np.all(out[k == 0] == 0) and np.all((out[k > 0] >= 1) & (out[k > 0] <= 6))
    assert dice.roll_highest(RNG(), 3, 6).shape == (1,)
    assert dice.roll_highest(RNG(), 0, 6, size=5).tolist() == [0] * 5


def test_roll_pool_edges():
    assert dice.roll_pool(RNG(), 3, [1.0]).tolist() == [[3]]  # a one-face die
    counts = dice.roll_pool(RNG(), np.array([4, 0, 2]), [0.5, 0.5, 0.0])  # a face that never shows
    assert counts.shape == (3, 3) and counts[:, 2].sum() == 0 and counts.sum(axis=1).tolist() == [4, 0, 2]
    assert dice.roll_pool(RNG(), 2, [0.5, 0.5]).shape == (1, 2)
    for bad in ([1.5, -0.5], [[0.5, 0.5]], [], [0.5, 0.6]):
        with pytest.raises(InputError, match=r"^face probabilities must be non-negative and sum to 1, got"):
            dice.roll_pool(RNG(), 2, bad)
    with pytest.raises(InputError, match=r"^a dice pool cannot have a negative number of dice$"):
        dice.roll_pool(RNG(), np.array([1, -1]), [0.5, 0.5])


def test_shuffled_decks_edges():
    assert dice.shuffled_decks(RNG(), 3, 1).tolist() == [[0], [0], [0]]
    assert dice.shuffled_decks(RNG(), 2, 4).dtype == np.int16
    assert dice.shuffled_decks(RNG(), 1, 40_000).dtype == np.int32
    with pytest.raises(InputError, match=r"^the deck is empty$"):
        dice.shuffled_decks(RNG(), 3, 0)


def test_count_drawn_edges():
    assert dice.count_drawn(RNG(), 5, 0, 10, 5).tolist() == [0] * 5  # nothing marked
    assert dice.count_drawn(RNG(), 5, 0, 10, 5).dtype.kind == "i"
    assert dice.count_drawn(RNG(), 5, 10, 10, 4).tolist() == [4] * 5  # every card marked
    assert dice.count_drawn(RNG(), 5, 3, 10, 10).tolist() == [3] * 5  # the whole deck drawn
    assert dice.count_drawn(RNG(), 4, 10, 10, np.array([0, 1, 2, 3])).tolist() == [0, 1, 2, 3]
    with pytest.raises(InputError, match=r"^a deck of 10 cards cannot hold 11 marked cards$"):
        dice.count_drawn(RNG(), 5, 11, 10, 1)
    for draws in (-1, 11):
        with pytest.raises(InputError, match=r"^cannot draw more than the 10 cards of the deck$"):
            dice.count_drawn(RNG(), 5, 2, 10, draws)


# --- stats ----------------------------------------------------------------------------------------

def test_paired_difference_uses_its_confidence():
    d90 = stats.paired_difference(30.0, 100.0, 100, confidence=0.90)
    z = stats.z_value(0.90)
    assert z == pytest.approx(1.6448536, rel=1e-6)
    assert d90.ci_high - d90.estimate == pytest.approx(z * d90.se, rel=1e-12)


def test_independent_difference():
    a, b = stats.proportion(300, 1000), stats.proportion(350, 1000)
    d = stats.independent_difference(a, b)
    assert d.estimate == pytest.approx(0.05) and d.se == pytest.approx(math.hypot(a.se, b.se))
    assert d.ci_low == pytest.approx(0.05 - 1.959964 * d.se, rel=1e-6)
    assert d.p_value == pytest.approx(math.erfc(0.05 / d.se / math.sqrt(2)), rel=1e-9)


def test_holm_boundaries_and_types():
    # a p-value exactly at alpha / (m - rank) is rejected (<=)
    assert stats.holm([0.025, 0.05], alpha=0.05).tolist() == [True, True]
    assert stats.holm([0.5], alpha=0.05).dtype == bool
    adjusted = stats.holm_adjusted([0.6, 0.7, float("nan")])
    assert adjusted.dtype == float and adjusted[:2].tolist() == [1.0, 1.0] and math.isnan(adjusted[2])


# --- runner ---------------------------------------------------------------------------------------

def _shifted(n, rng):
    out = coin(0.3, n, rng)
    out["bucket"] = (out["bucket"] + 1) % 4
    return out


def test_paired_distribution_columns_are_exact():
    metrics = (METRICS[0], METRICS[2])  # no mean metric: every per-trial column is boolean
    arms = [functools.partial(coin, 0.3), _shifted]
    result = runner.run(arms, metrics, 2_500, seed=4, chunk_size=1_000)
    sizes = [1_000, 1_000, 500]
    base = [coin(0.3, s, chunk_generator(4, i)) for i, s in enumerate(sizes)]
    diffs = result.differences(1)
    for v in range(4):
        d = np.concatenate([((b["bucket"] + 1) % 4 == v).astype(float) - (b["bucket"] == v) for b in base])
        assert diffs[f"bucket={v}"].estimate == pytest.approx(d.mean(), abs=1e-15)
        assert diffs[f"bucket={v}"].se == pytest.approx(d.std(ddof=1) / math.sqrt(d.size), rel=1e-9)
    for arm in (0, 2):
        with pytest.raises(ValueError, match=r"^arm must be in 1\.\.1$"):
            result.differences(arm)


def test_mixed_metric_kinds_are_columns_of_floats():
    metrics = (Metric("hit", "probability", ""), Metric("bucket", "distribution", "", (0, 1)))
    rows = runner.per_trial_columns(metrics, {"hit": np.array([True, False]), "bucket": np.array([1, 0])}, 2)
    assert rows.dtype == np.float64 and rows.tolist() == [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]


# --- memory ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, text", [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
                                     (5 * 2**20, "5.0 MiB"), (2**40, "1.0 TiB"), (2**50, "1.0 PiB"),
                                     (2**60, "1024.0 PiB")])
def test_fmt_bytes(n, text):
    assert memory.fmt_bytes(n) == text


def test_check_fits(monkeypatch):
    assert memory.available_bytes() > 2**20
    memory.check_fits(100, "x", available=100)  # exactly what is there: fits
    with pytest.raises(InputError, match=r"^x would need about 101 B of memory; 100 B are available: hint$"):
        memory.check_fits(101, "x", available=100, hint="hint")
    monkeypatch.setattr(memory, "available_bytes", lambda: None)
    memory.check_fits(10**30, "unknown memory")  # nothing to compare with: no refusal
