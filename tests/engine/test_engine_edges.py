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
    t = stats.t_value(0.90, 99)
    assert t == pytest.approx(1.6603911, rel=1e-6)  # scipy.stats.t.ppf(0.95, 99)
    assert d90.ci_high - d90.estimate == pytest.approx(t * d90.se, rel=1e-12)


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


@pytest.mark.parametrize(
    "n, text",
    [
        (0, "0 B"),
        (1023, "1023 B"),
        (1024, "1.0 KiB"),
        (1536, "1.5 KiB"),
        (5 * 2**20, "5.0 MiB"),
        (2**40, "1.0 TiB"),
        (2**50, "1.0 PiB"),
        (2**60, "1024.0 PiB"),
    ],
)
def test_fmt_bytes(n, text):
    assert memory.fmt_bytes(n) == text


def test_check_fits(monkeypatch):
    assert memory.available_bytes() > 2**20
    memory.check_fits(100, "x", available=100)  # exactly what is there: fits
    with pytest.raises(InputError, match=r"^x would need about 101 B of memory; 100 B are available: hint$"):
        memory.check_fits(101, "x", available=100, hint="hint")
    monkeypatch.setattr(memory, "available_bytes", lambda: None)
    memory.check_fits(10**30, "unknown memory")  # nothing to compare with: no refusal


def test_columns_and_estimates_keep_their_kinds():
    assert runner.columns_of(METRICS) == (
        runner.Column("hit", "probability"),
        runner.Column("value", "mean"),
        *(runner.Column(f"bucket={v}", "probability") for v in range(4)),
    )
    result = runner.run(functools.partial(coin, 0.3), METRICS, 3_000, seed=2, chunk_size=1_000)
    est = result.estimates()
    sums, squares = result.totals[0]
    assert est["hit"] == stats.proportion(sums[0], 3_000)  # Wilson, not the normal interval
    assert est["bucket=2"] == stats.proportion(sums[4], 3_000)
    assert est["value"] == stats.mean(sums[1], squares[1], 3_000)
    assert result.max_half_width() == max(e.half_width for name, e in est.items() if name != "value")


def _sometimes_outside(n, rng):
    out = coin(0.3, n, rng)
    out["bucket"] = np.where(out["value"] < 0.1, -1, out["bucket"])  # -1: not applicable
    return out


def test_values_outside_a_distribution_count_nowhere():
    result = runner.run(_sometimes_outside, METRICS, 2_000, seed=3, chunk_size=2_000)
    values = _sometimes_outside(2_000, chunk_generator(3, 0))["bucket"]
    counts = [np.count_nonzero(values == v) for v in range(4)]
    assert result.totals[0][0][2:].tolist() == counts and sum(counts) < 2_000


def test_parallel_threads_merge_like_one_worker():
    kernel = functools.partial(coin, 0.4)
    one = runner.run(kernel, METRICS, 5_500, seed=6, chunk_size=1_000)
    threads = runner.run(kernel, METRICS, 5_500, seed=6, chunk_size=1_000, jobs=2, backend="threading")
    minus = runner.run(kernel, METRICS, 5_500, seed=6, chunk_size=1_000, jobs=-1, backend="threading")
    assert np.array_equal(one.totals, threads.totals) and np.array_equal(one.totals, minus.totals)
    assert threads.trials == 5_500


def test_precision_runs_in_one_worker():
    kernel = functools.partial(coin, 0.3)
    result = runner.run(kernel, METRICS, 2_000, seed=2, chunk_size=2_000, precision=0.01)
    assert result.max_half_width() <= 0.01 and result.trials % 2_000 == 0 and result.trials > 2_000
    fixed = runner.run(kernel, METRICS, result.trials, seed=2, chunk_size=2_000)
    assert np.array_equal(result.totals, fixed.totals)
    capped = runner.run(kernel, METRICS, 2_000, seed=2, chunk_size=2_000, precision=0.001, max_trials=6_000)
    assert capped.trials == 6_000
    enough = runner.run(kernel, METRICS, 2_000, seed=2, chunk_size=1_000, precision=0.45)
    assert enough.trials == 2_000  # the first batch already meets the target
    # a target so fine that the trials it asks for overflow a float: planned at the cap, no OverflowError
    for tiny in (1e-200, 5e-324):
        finest = runner.run(kernel, METRICS, 2_000, seed=2, chunk_size=2_000, precision=tiny,
                            max_trials=6_000)
        assert finest.trials == 6_000 and np.array_equal(finest.totals, capped.totals)


def test_a_precision_met_exactly_stops_and_an_unreachable_one_stops_at_the_default_cap():
    """A half-width equal to the target meets it ("at most H"); without ``max_trials`` a target
    no run can reach stops at 10,000,000 trials (the cap the help and docs give), or at the
    first batch if that is larger."""
    kernel = functools.partial(coin, 0.5)
    first = runner.run(kernel, METRICS, 3_000, seed=1, chunk_size=1_000)
    exactly = runner.run(kernel, METRICS, 3_000, seed=1, chunk_size=1_000, precision=first.max_half_width())
    assert exactly.trials == 3_000 and np.array_equal(exactly.totals, first.totals)
    capped = runner.run(kernel, METRICS, 1_000_000, seed=1, chunk_size=1_000_000, precision=1e-4)
    assert capped.trials == runner.DEFAULT_MAX_TRIALS == 10_000_000
    larger_first = runner.run(kernel, METRICS, 10_500_000, seed=1, chunk_size=3_500_000, precision=1e-4)
    assert larger_first.trials == 10_500_000
    # one trial at a time from one: each round plans at least one trial more, never the same count
    grown = runner.run(kernel, METRICS, 1, seed=1, chunk_size=1, precision=0.3)
    assert grown.trials > 1 and grown.max_half_width() <= 0.3


def test_no_arms_is_refused():
    with pytest.raises(InputError, match=r"^nothing to run: no arms$"):
        runner.run([], METRICS, 100, 1)
    one = runner.Point((functools.partial(coin, 0.3),), METRICS)
    for points in ([], [one, runner.Point((), METRICS)]):  # no point, or one point without arms
        with pytest.raises(InputError, match=r"^nothing to run: no arms$"):
            runner.run_grid(points, 100, 1)


def test_one_trial_runs():
    assert runner.run(functools.partial(coin, 0.3), METRICS, 1, seed=1).trials == 1


def test_a_kernel_that_forgets_a_metric():
    with pytest.raises(RuntimeError, match=r"^kernel returned no values for metric 'value'$"):
        runner.run(lambda n, rng: {"hit": np.zeros(n, bool)}, METRICS, 10, 1)


# --- more stats, seeds, memory, and the parallel path ------------------------------------------------


def test_estimates_from_no_trials_are_not_numbers():
    for est in (stats.proportion(0, 0), stats.mean(0.0, 0.0, 0)):
        assert est.trials == 0
        assert all(math.isnan(x) for x in (est.estimate, est.ci_low, est.ci_high, est.se))


def test_proportion_and_mean_standard_errors():
    est = stats.proportion(30, 100)
    assert est.se == pytest.approx(math.sqrt(0.3 * 0.7 / 100), rel=1e-12) and est.trials == 100
    x = np.array([0.0, 1.0])
    two = stats.mean(x.sum(), x @ x, 2)
    assert two.se == pytest.approx(0.5, rel=1e-12) and two.trials == 2  # sd (ddof=1) 0.7071 / sqrt(2)
    t = 12.706204736174707  # scipy.stats.t.ppf(0.975, 1): two trials leave one degree of freedom
    assert (two.ci_low, two.ci_high) == pytest.approx((0.5 - t * 0.5, 0.5 + t * 0.5), rel=1e-12)
    one = stats.mean(3.0, 9.0, 1)
    assert one.estimate == 3.0 and math.isnan(one.se) and one.trials == 1  # one value: spread unknown


def test_seeds():
    from montecarlo.engine.rng import check_seed

    assert check_seed(0) == 0 and check_seed(np.uint32(5)) == 5
    for bad in (-1, 1.0, True, "1"):
        with pytest.raises(InputError, match=r"^seed must be a non-negative integer, got "):
            check_seed(bad)


def test_available_memory_reads_meminfo_then_falls_back(monkeypatch):
    with open("/proc/meminfo", encoding="ascii") as f:
        line = next(line for line in f if line.startswith("MemAvailable:"))
    assert abs(memory.available_bytes() - int(line.split()[1]) * 1024) < 2**30  # it moves a little
    import builtins

    def no_proc(*args, **kwargs):
        raise OSError("no /proc here")

    monkeypatch.setattr(builtins, "open", no_proc)
    import os

    assert memory.available_bytes() == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    monkeypatch.setattr(os, "sysconf", lambda name: (_ for _ in ()).throw(ValueError(name)))
    assert memory.available_bytes() is None


def test_a_refusal_without_a_hint_ends_at_the_figures():
    with pytest.raises(InputError, match=r"^y would need about 2\.0 KiB of memory; 1\.0 KiB are available$"):
        memory.check_fits(2048, "y", available=1024)


class _Ran(Exception):
    pass


def _refuse_to_run(n, rng):
    raise _Ran(n)


@pytest.mark.parametrize("jobs, cores, refused", [(2, 8, False), (3, 8, True), (-1, 8, True), (-1, 2, False)])
def test_the_memory_estimate_counts_the_chunks_held_at_once(monkeypatch, jobs, cores, refused):
    # a chunk of 10,000,000 trials of 6 columns holds 458 MiB; 1 GiB is free
    import os

    monkeypatch.setattr(memory, "available_bytes", lambda: 2**30)
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    run = functools.partial(
        runner.run,
        _refuse_to_run,
        METRICS,
        100_000_000,
        1,
        chunk_size=10_000_000,
        jobs=jobs,
        backend="threading",
    )
    with pytest.raises(InputError if refused else _Ran):
        run()


@pytest.mark.parametrize(
    "joblib_says, we_say",
    [
        (
            "A worker process managed by the executor was unexpectedly terminated. "
            "The exit codes of the workers "
            "are {SIGKILL(-9)}. Detailed tracebacks",
            "; exit codes {SIGKILL(-9)}",
        ),
        ("A worker process was terminated.", ""),
    ],
)
def test_a_dead_worker_message(monkeypatch, joblib_says, we_say):
    import joblib
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    class Dying:
        def __init__(self, **kwargs):
            pass

        def __call__(self, tasks):
            raise TerminatedWorkerError(joblib_says)

    monkeypatch.setattr(joblib, "Parallel", Dying)
    monkeypatch.setattr(runner, "_starting", None)  # as in a new process: the run starts its workers
    with pytest.raises(Exception) as info:
        runner.run(functools.partial(coin, 0.3), METRICS, 4_000, seed=1, chunk_size=1_000, jobs=2)
    assert str(info.value) == "a worker process died during the run (killed, or out of memory?)" + we_say
    assert type(info.value).__name__ == "MonteCarloError"


def test_a_precision_run_in_three_batches_is_the_fixed_run_of_its_length(monkeypatch):
    # seed 57: batches of 1, 2 and 2 chunks (the first estimates were optimistic); the chunks of a
    # later batch continue the numbering, so the run equals a fixed run of 5,000 trials
    batches = []
    execute = runner._execute

    def counted(points, tasks, *args):  # tasks: (point, first chunk, chunk sizes) per point
        batches.append([size for _, _, sizes in tasks for size in sizes])
        return execute(points, tasks, *args)

    monkeypatch.setattr(runner, "_execute", counted)
    kernel = functools.partial(coin, 0.01)
    grown = runner.run(kernel, METRICS[:1], 1_000, seed=57, chunk_size=1_000, precision=0.003)
    assert batches == [[1_000], [1_000] * 2, [1_000] * 2]
    # the plan is part of the result (same command, same numbers): its trial count is pinned
    assert grown.trials == 5_000 and grown.max_half_width() <= 0.003
    assert np.array_equal(
        grown.totals, runner.run(kernel, METRICS[:1], 5_000, seed=57, chunk_size=1_000).totals
    )
    wider = runner.run(
        functools.partial(coin, 0.03), METRICS[:1], 1_000, seed=2, chunk_size=1_000, precision=0.003
    )
    assert wider.trials == 14_000


def test_a_cap_that_is_not_a_whole_number_of_chunks():
    capped = runner.run(
        functools.partial(coin, 0.3),
        METRICS,
        2_000,
        seed=2,
        chunk_size=2_000,
        precision=0.001,
        max_trials=6_500,
    )
    assert capped.trials == 6_500  # the last chunk is cut to the cap


def test_run_result_records_the_run():
    result = runner.run(functools.partial(coin, 0.3), METRICS, 1_500, seed=9, chunk_size=1_000)
    assert (result.trials, result.seed, result.chunk_size, result.n_arms) == (1_500, 9, 1_000, 1)
    assert 0 <= result.seconds < 60
    only_means = runner.run(functools.partial(coin, 0.3), METRICS[1:2], 100, seed=1)
    assert only_means.max_half_width() == 0.0  # no probability to be precise about


def test_available_memory_parses_meminfo(monkeypatch):
    import builtins
    import io

    opened = []

    def fake_open(path, *args, **kwargs):
        opened.append(path)
        return io.StringIO("MemTotal: 9 kB\nMemAvailable:   1000 kB\n")

    monkeypatch.setattr(builtins, "open", fake_open)
    assert memory.available_bytes() == 1_024_000 and opened == ["/proc/meminfo"]


def test_a_refused_chunk_says_what_to_do(monkeypatch):
    monkeypatch.setattr(memory, "available_bytes", lambda: 2**20)
    with pytest.raises(InputError, match=r"of memory; 1\.0 MiB are available: use a smaller chunk size$"):
        runner.run(functools.partial(coin, 0.3), METRICS, 1_000_000, seed=1, chunk_size=1_000_000)
