import functools

import numpy as np
import pytest

from montecarlo.engine import runner
from tests.engine.fake_kernels import METRICS, coin

KERNEL = functools.partial(coin, 0.3)


def test_estimates_and_columns():
    result = runner.run(KERNEL, METRICS, 50_000, seed=1, chunk_size=10_000)
    est = result.estimates()
    assert list(est) == ["hit", "value", "bucket=0", "bucket=1", "bucket=2", "bucket=3"]
    assert abs(est["hit"].estimate - 0.3) < 4.5 * est["hit"].se
    assert abs(est["value"].estimate - 0.5) < 4.5 * est["value"].se
    assert sum(est[f"bucket={v}"].estimate for v in range(4)) == pytest.approx(1.0)
    assert result.trials == 50_000


@pytest.mark.processes
def test_same_seed_same_tallies_whatever_the_workers():
    one = runner.run(KERNEL, METRICS, 60_000, seed=9, chunk_size=10_000, jobs=1)
    two = runner.run(KERNEL, METRICS, 60_000, seed=9, chunk_size=10_000, jobs=2)
    threads = runner.run(KERNEL, METRICS, 60_000, seed=9, chunk_size=10_000, jobs=2, backend="threading")
    assert np.array_equal(one.totals, two.totals)
    assert np.array_equal(one.totals, threads.totals)
    other = runner.run(KERNEL, METRICS, 60_000, seed=10, chunk_size=10_000)
    assert not np.array_equal(one.totals, other.totals)


@pytest.mark.processes
def test_dask_backend_gives_the_same_tallies():
    pytest.importorskip("dask.distributed")
    one = runner.run(KERNEL, METRICS, 40_000, seed=4, chunk_size=10_000, jobs=1)
    dask = runner.run(KERNEL, METRICS, 40_000, seed=4, chunk_size=10_000, backend="dask")
    assert np.array_equal(one.totals, dask.totals)


@pytest.mark.processes
def test_a_dask_run_runs_on_dask_whatever_the_jobs():
    """The numbers of a dask run are those of a local one, so only the kernel can tell where it
    ran: a run that quietly fell back on local processes would pass the test above."""
    pytest.importorskip("dask.distributed")
    from tests.engine.fake_kernels import on_dask

    for jobs in (1, 2):
        result = runner.run(on_dask, METRICS, 30_000, seed=4, chunk_size=10_000, jobs=jobs, backend="dask")
        assert result.estimates()["value"].estimate == 1.0, jobs
    local = runner.run(on_dask, METRICS, 30_000, seed=4, chunk_size=10_000, jobs=2)
    assert local.estimates()["value"].estimate == 0


@pytest.mark.processes
def test_precision_target_is_met_and_deterministic():
    a = runner.run(KERNEL, METRICS, 10_000, seed=2, chunk_size=10_000, precision=0.002)
    b = runner.run(KERNEL, METRICS, 10_000, seed=2, chunk_size=10_000, precision=0.002, jobs=2)
    assert a.max_half_width() <= 0.002
    assert a.trials == b.trials and a.trials % 10_000 == 0
    assert np.array_equal(a.totals, b.totals)
    # the first batch is a prefix of the longer run: same chunks, same seeds
    capped = runner.run(KERNEL, METRICS, 10_000, seed=2, chunk_size=10_000, precision=1e-5, max_trials=30_000)
    assert capped.trials == 30_000
    fixed = runner.run(KERNEL, METRICS, 30_000, seed=2, chunk_size=10_000)
    assert np.array_equal(capped.totals, fixed.totals)


def test_paired_arms_share_random_numbers():
    same = runner.run([KERNEL, functools.partial(coin, 0.3)], METRICS, 20_000, seed=3, chunk_size=5_000)
    diff = same.differences(1)["hit"]
    assert diff.estimate == 0 and diff.se == 0 and diff.p_value == 1.0
    more = runner.run([KERNEL, functools.partial(coin, 0.32)], METRICS, 20_000, seed=3, chunk_size=5_000)
    d = more.differences(1)["hit"]
    # with common random numbers the difference is exactly the share of u in [0.30, 0.32)
    assert abs(d.estimate - 0.02) < 4.5 * d.se
    assert d.se < 0.0015  # an independent comparison would have se ~ 0.0046
    assert d.p_value < 1e-6
    assert np.array_equal(more.totals[0], same.totals[0])


def test_kernel_shape_errors_are_caught():
    def bad(n, rng):
        return {"hit": np.zeros(n + 1, bool), "value": np.zeros(n), "bucket": np.zeros(n, int)}

    with pytest.raises(RuntimeError, match="shape"):
        runner.run(bad, METRICS, 10, 1)


def test_precision_stop_waits_for_every_arm():
    """A comparison stops only when every arm's probabilities are within the target, not the
    baseline's alone: here the baseline (p = 0.02) is precise after the first batch, the variant
    (p = 0.5) needs about 10,000 trials for a half-width of 0.01."""
    arms = [functools.partial(coin, 0.02), functools.partial(coin, 0.5)]
    result = runner.run(arms, METRICS[:1], 1_000, seed=4, chunk_size=1_000, precision=0.01)
    widths = [result.estimates(arm)["hit"].half_width for arm in range(2)]
    assert max(widths) <= 0.01 and result.max_half_width() == max(widths)
    assert widths[0] < 0.005 and result.trials >= 9_000  # the wide arm set the length


def test_the_workers_are_told_the_modules_of_the_kernels_once_each_and_never_main():
    """start_workers imports these in each worker while the first chunks run here."""

    def local(n, rng):  # a kernel written in a script: its module is __main__ there
        return coin(0.5, n, rng)

    local.__module__ = "__main__"
    arms = (functools.partial(coin, 0.3), functools.partial(coin, 0.6), local)
    points = [runner.Point(arms, tuple(METRICS)), runner.Point((coin,), tuple(METRICS))]
    assert runner._kernel_modules(points) == ["tests.engine.fake_kernels"]
    # and the modules of the classes of a kernel's bound arguments (a game's rules and setups)
    bound = functools.partial(coin, p=METRICS[0])  # a keyword's class: montecarlo.engine.metrics
    with_setup = [runner.Point((functools.partial(local, runner.Column("x", "mean")), bound), tuple(METRICS))]
    assert runner._kernel_modules(with_setup) == [
        "montecarlo.engine.runner", "tests.engine.fake_kernels", "montecarlo.engine.metrics"
    ]
