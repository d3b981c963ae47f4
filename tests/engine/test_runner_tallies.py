"""Merged tallies are exact: every chunk counted once, the last partial chunk included.

A kernel whose per-trial values are known in advance makes the merged sums a closed form, so a
runner that drops (or double-counts) the tallies of any chunk, or sizes the last chunk wrongly,
fails here even though its estimate would still look plausible.
"""

import functools

import numpy as np
import pytest

from montecarlo.engine import runner
from montecarlo.engine.rng import chunk_generator
from montecarlo.engine.stats import paired_difference
from montecarlo.games.base import Metric
from tests.engine.fake_kernels import METRICS, coin

STEADY_METRICS = (
    Metric("even", "probability", "the trial's position in its chunk is even"),
    Metric("value", "mean", "3 for every trial"),
    Metric("bucket", "distribution", "position in the chunk modulo 4", (0, 1, 2, 3)),
)


def steady(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Values fixed by the position of the trial inside its chunk; the generator is ignored."""
    i = np.arange(n)
    return {"even": i % 2 == 0, "value": np.full(n, 3.0), "bucket": i % 4}


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=pytest.mark.processes)])
def test_last_partial_chunk_is_tallied_once(jobs):
    # chunks of 1000, 1000, 1000 and 500 trials: evens 500 + 500 + 500 + 250
    result = runner.run(steady, STEADY_METRICS, 3_500, seed=5, chunk_size=1_000, jobs=jobs)
    assert result.trials == 3_500
    sums, squares = result.totals[0]
    assert sums.tolist() == [1_750, 3 * 3_500, 875, 875, 875, 875]
    assert squares.tolist() == [1_750, 9 * 3_500, 875, 875, 875, 875]
    est = result.estimates()
    assert est["even"].estimate == 0.5
    assert est["value"].estimate == 3.0 and est["value"].se == 0.0
    assert [est[f"bucket={v}"].estimate for v in range(4)] == [0.25] * 4


@pytest.mark.parametrize("trials, chunk_size", [(3_500, 1_000), (2_001, 500), (999, 1_000)])
def test_merged_tallies_equal_the_chunks_run_by_hand(trials, chunk_size):
    kernel = functools.partial(coin, 0.3)
    result = runner.run(kernel, METRICS, trials, seed=11, chunk_size=chunk_size)
    sizes = [chunk_size] * (trials // chunk_size) + ([trials % chunk_size] if trials % chunk_size else [])
    by_hand = sum(
        np.stack(runner.tally(METRICS, kernel(size, chunk_generator(11, i)), size))
        for i, size in enumerate(sizes)
    )
    assert result.trials == trials
    np.testing.assert_allclose(result.totals[0], by_hand, rtol=1e-12)
    assert result.estimates()["hit"].estimate == by_hand[0][0] / trials


def test_paired_difference_through_the_runner_uses_the_centred_variance():
    # arm 1 hits where arm 0 does, and also on u in [0.3, 0.5): d = 1 on 20% of trials, mean 0.2
    arms = [functools.partial(coin, 0.3), functools.partial(coin, 0.5)]
    result = runner.run(arms, METRICS, 3_500, seed=8, chunk_size=1_000)
    d = np.concatenate(
        [
            coin(0.5, size, chunk_generator(8, i))["hit"].astype(float)
            - coin(0.3, size, chunk_generator(8, i))["hit"]
            for i, size in enumerate([1_000, 1_000, 1_000, 500])
        ]
    )
    diff = result.differences(1)["hit"]
    assert diff.estimate == pytest.approx(d.mean(), rel=1e-12)
    assert diff.se == pytest.approx(np.std(d, ddof=1) / np.sqrt(d.size), rel=1e-9)
    assert diff == paired_difference(d.sum(), (d * d).sum(), d.size)


@pytest.mark.parametrize(
    "support",
    [
        pytest.param((-2, 0, 3, 5), id="few values, by one comparison each"),
        pytest.param(tuple(range(-5, 40)), id="many values, by one count of the support's span"),
        pytest.param(tuple(range(-5, 40, 2)) + (41, 44), id="many values with gaps"),
    ],
)
@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8])
@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("top_drawn", [False, True])
def test_a_distribution_counts_each_value_of_its_support_and_nothing_else(support, dtype, strided, top_drawn):
    # values on both sides of the support, some of its values never drawn (its top one too, or
    # not), and, for the strided case, a field of a record array as the chain sampler returns
    rng = np.random.default_rng(3)
    high = max(support) + (1 if top_drawn else 0)  # integers() excludes ``high``
    values = rng.integers(-8 if np.dtype(dtype).kind == "i" else 0, high, 5_000).astype(dtype)
    values[::7] = 120  # above every support
    if strided:
        record = np.zeros(values.size, dtype=[("other", np.uint16), ("value", dtype)])
        record["value"] = values
        values = record["value"]
    metric = Metric("v", "distribution", "a value", support)
    sums, squares = runner.tally([metric], {"v": values}, values.size)
    listed = np.asarray(values).tolist()
    expected = [float(listed.count(v)) for v in support]
    assert sums.tolist() == expected
    assert squares.tolist() == expected
    assert sum(expected) > 0 and (expected[-1] > 0) == top_drawn
