"""Chunks -> joblib (local processes or a dask cluster) -> merged tallies.

A run splits its trials into chunks of ``chunk_size`` (the last one may be shorter). Chunk ``i``
always draws from :func:`montecarlo.engine.rng.chunk_generator` ``(seed, i)``, so the result is
bit-identical whatever the number of workers or the backend. Each chunk is reduced to tallies
(sums and sums of squares of every reported column) before it leaves the worker, so memory is
bounded by the chunk size, not by the number of trials.

Several *arms* (e.g. a baseline and house-rule variants) can run in one job: every arm of a
chunk uses the same seed (common random numbers), and the runner also tallies the per-trial
difference of each arm from arm 0, which gives paired intervals for the differences.

The engine knows nothing about games: an arm is any picklable callable ``kernel(n, rng)``
returning ``{metric_name: per-trial array}``, described by a list of ``Metric``.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from montecarlo.engine import memory, stats
from montecarlo.engine.rng import chunk_generator
from montecarlo.errors import InputError, MonteCarloError
from montecarlo.engine.metrics import Metric

DEFAULT_CHUNK_SIZE = 1 << 17
BACKENDS = ("loky", "threading", "dask")

ArmKernel = Callable[[int, np.random.Generator], dict[str, np.ndarray]]


@dataclass(frozen=True, slots=True)
class Column:
    """One reported number: a probability (from 0/1 values) or a mean."""

    name: str
    kind: str  # "probability" or "mean"


def columns_of(metrics: Sequence[Metric]) -> tuple[Column, ...]:
    """The flat list of reported columns of ``metrics`` (distributions expand per value)."""
    cols: list[Column] = []
    for m in metrics:
        kind = "mean" if m.kind == "mean" else "probability"
        cols.extend(Column(name, kind) for name in m.reported_names())
    return tuple(cols)


def per_trial_columns(metrics: Sequence[Metric], outcome: dict[str, np.ndarray], n: int) -> np.ndarray:
    """Stack a kernel's outcome into an (n_columns, n) float array (only used for paired arms)."""
    rows = []
    for m in metrics:
        values = _checked(outcome, m, n)
        if m.kind == "distribution":
            rows.extend((values == v) for v in m.support)
        else:
            rows.append(values)
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), n)


def tally(metrics: Sequence[Metric], outcome: dict[str, np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Sums and sums of squares of every reported column of one chunk."""
    sums: list[float] = []
    squares: list[float] = []
    for m in metrics:
        values = _checked(outcome, m, n)
        if m.kind == "probability":
            count = float(np.count_nonzero(values))
            sums.append(count)
            squares.append(count)
        elif m.kind == "mean":
            v = values.astype(np.float64, copy=False)
            sums.append(float(v.sum()))
            squares.append(float(np.einsum("i,i->", v, v)))
        else:
            lo, hi = min(m.support), max(m.support)
            inside = values[(values >= lo) & (values <= hi)].astype(np.int64) - lo
            counts = np.bincount(inside, minlength=hi - lo + 1).astype(np.float64)
            for v in m.support:
                sums.append(counts[v - lo])
                squares.append(counts[v - lo])
    return np.asarray(sums), np.asarray(squares)


def _checked(outcome: dict[str, np.ndarray], metric: Metric, n: int) -> np.ndarray:
    if metric.name not in outcome:
        raise RuntimeError(f"kernel returned no values for metric {metric.name!r}")
    values = np.asarray(outcome[metric.name])
    if values.shape != (n,):
        raise RuntimeError(
            f"kernel returned shape {values.shape} for metric {metric.name!r}, expected ({n},)"
        )
    return values


def run_chunk(
    arms: Sequence[ArmKernel], metrics: Sequence[Metric], size: int, seed: int, index: int
) -> np.ndarray:
    """Tallies of one chunk: array (n_arms + n_arms - 1, 2, n_columns).

    Rows 0..k-1 are each arm's (sums, squares); rows k.. are the paired differences of arms
    1..k-1 from arm 0. Every arm draws from the same chunk seed (common random numbers).
    """
    per_arm = []
    raw = []
    for kernel in arms:
        outcome = kernel(size, chunk_generator(seed, index))
        per_arm.append(np.stack(tally(metrics, outcome, size)))
        if len(arms) > 1:
            raw.append(per_trial_columns(metrics, outcome, size))
    diffs = []
    for other in raw[1:]:
        d = other - raw[0]
        diffs.append(np.stack([d.sum(axis=1), np.einsum("ij,ij->i", d, d)]))
    return np.stack(per_arm + diffs)


@dataclass(frozen=True)
class RunResult:
    """Merged tallies of a run, with estimates and paired differences on demand."""

    trials: int
    seed: int
    chunk_size: int
    columns: tuple[Column, ...]
    n_arms: int
    totals: np.ndarray  # (2 * n_arms - 1, 2, n_columns)
    seconds: float

    def estimates(self, arm: int = 0) -> dict[str, stats.Estimate]:
        """Estimate with a 95% interval for every reported column of ``arm``."""
        out = {}
        sums, squares = self.totals[arm]
        for col, s, sq in zip(self.columns, sums, squares):
            if col.kind == "probability":
                out[col.name] = stats.proportion(s, self.trials)
            else:
                out[col.name] = stats.mean(s, sq, self.trials)
        return out

    def differences(self, arm: int) -> dict[str, stats.Difference]:
        """Paired difference (arm minus arm 0) for every reported column."""
        if not 1 <= arm < self.n_arms:
            raise ValueError(f"arm must be in 1..{self.n_arms - 1}")
        sums, squares = self.totals[self.n_arms + arm - 1]
        return {
            col.name: stats.paired_difference(s, sq, self.trials)
            for col, s, sq in zip(self.columns, sums, squares)
        }

    def max_half_width(self) -> float:
        """The widest 95% half-width among the probability columns of every arm."""
        widths = [
            est.half_width
            for arm in range(self.n_arms)
            for col, est in zip(self.columns, self.estimates(arm).values())
            if col.kind == "probability"
        ]
        return max(widths, default=0.0)


MAX_TRIALS = 10**15  # a sanity bound (chunks are planned as the run goes): about a year per arm at 30 M/s


Progress = Callable[[int, int], None]
"""``progress(done, total)``: called once before the first chunk (done=0) and after each chunk;
``total`` grows when a precision run decides it needs more trials. The caller (the CLI) draws
the bar: the engine prints nothing."""


class ChunkPlan(Sequence[int]):
    """The sizes of the chunks that cover ``trials`` trials, computed on demand.

    A plan of 10**12 trials has about 7.6 million chunks; building that list first took half a
    minute before anything ran, so the sizes are generated as workers ask for them.

    >>> list(ChunkPlan(300_000, 131_072))
    [131072, 131072, 37856]
    """

    def __init__(self, trials: int, chunk_size: int) -> None:
        self.trials = trials
        self.chunk_size = chunk_size
        self._len = -(-trials // chunk_size) if trials > 0 else 0

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        position = index + self._len if index < 0 else index
        if not 0 <= position < self._len:
            raise IndexError(index)
        return min(self.chunk_size, self.trials - position * self.chunk_size)

    def __iter__(self) -> Iterator[int]:
        full, rest = divmod(self.trials, self.chunk_size)
        for _ in range(full):
            yield self.chunk_size
        if rest:
            yield rest


def run(
    arms: ArmKernel | Sequence[ArmKernel],
    metrics: Sequence[Metric],
    trials: int,
    seed: int,
    *,
    jobs: int = 1,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    precision: float | None = None,
    max_trials: int | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Run ``trials`` trials of every arm (or, with ``precision``, as many as it takes).

    With ``precision=H`` the run adds chunks until every probability's 95% half-width is at
    most H or ``max_trials`` is reached; ``trials`` is then the first batch. The chunk plan is a
    function of the tallies so far, which are deterministic, so the final count is too.

    ``progress(done, total)``, if given, is called before the first chunk and after each one.

    The arguments are trusted: :class:`montecarlo.analysis.RunSettings` checks trials, seed,
    jobs, precision, max_trials, backend and chunk size once for every caller.
    """
    arm_list = [arms] if callable(arms) else list(arms)
    if not arm_list:
        raise InputError("nothing to run: no arms")
    report = progress if callable(progress) else (lambda done, total: None)
    columns = columns_of(metrics)
    n_arms = len(arm_list)
    totals = np.zeros((2 * n_arms - 1, 2, len(columns)))
    done = 0
    next_chunk = 0
    started = time.perf_counter()
    if precision is None:
        target = trials
    else:
        cap = max_trials or max(trials, 10_000_000)
        target = min(trials, cap)
    report(0, target)
    # One worker on the default backend runs in-process: no need to import joblib at all.
    in_process = jobs == 1 and backend != "dask"
    with contextlib.nullcontext() if in_process else backend_context(backend, scheduler):
        while True:
            # Chunks from ``done`` to ``target``: every chunk but the last of the run is full,
            # and chunk i always draws from (seed, i), so planning lazily changes no number.
            sizes = ChunkPlan(target - done, chunk_size)
            if len(sizes):
                for chunk_totals, size in _execute(arm_list, metrics, sizes, seed, next_chunk, jobs, backend):
                    totals += chunk_totals
                    done += size
                    report(done, target)
                next_chunk += len(sizes)
            if precision is None:
                break
            result = RunResult(done, seed, chunk_size, columns, n_arms, totals.copy(), 0.0)
            widest = result.max_half_width()
            if widest <= precision or done >= cap:
                break
            needed = math.ceil(done * (widest / precision) ** 2 * 1.1)
            target = min(cap, max(needed, done + 1))
            # Whole chunks only, so that chunk i always has the same size and seed.
            target = min(cap, math.ceil(target / chunk_size) * chunk_size)
            report(done, target)
    return RunResult(done, seed, chunk_size, columns, n_arms, totals, time.perf_counter() - started)


# Bytes a chunk holds per trial and reported column (float64 tallies, paired differences,
# the kernel's own arrays): a floor, so that a refusal is never a false alarm.
CHUNK_BYTES_PER_VALUE = 8


def _execute(arms, metrics, sizes, seed, first_index, jobs, backend) -> Iterator[tuple[np.ndarray, int]]:
    """Yield (tallies, size) per chunk, in chunk order.

    Refuses (InputError, with an estimate) chunks that cannot fit in memory, before any runs;
    a worker process that dies (killed, out of memory, a kernel calling ``os._exit``) ends the
    run with one MonteCarloError line instead of joblib's traceback.
    """
    serial = len(sizes) == 1 or (jobs == 1 and backend != "dask")
    at_once = (
        1 if serial else min(len(sizes), (os.cpu_count() or 1) if jobs < 0 or backend == "dask" else jobs)
    )
    per_trial = CHUNK_BYTES_PER_VALUE * len(columns_of(metrics)) * (2 * len(arms) if len(arms) > 1 else 1)
    memory.check_fits(
        max(sizes) * per_trial * at_once, f"a chunk of {max(sizes):,} trials", hint="use a smaller chunk size"
    )
    if serial:
        for offset, size in enumerate(sizes):
            yield run_chunk(arms, metrics, size, seed, first_index + offset), size
        return
    from joblib import Parallel, delayed
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    n_jobs = -1 if backend == "dask" else jobs
    parallel = Parallel(n_jobs=n_jobs, return_as="generator")
    tasks = (
        delayed(run_chunk)(arms, metrics, size, seed, first_index + offset)
        for offset, size in enumerate(sizes)
    )
    try:
        yield from zip(parallel(tasks), sizes)
    except TerminatedWorkerError as exc:
        codes = re.search(r"exit codes of the workers are (\{[^}]*\})", str(exc))
        raise MonteCarloError(
            "a worker process died during the run (killed, or out of memory?)"
            + (f"; exit codes {codes.group(1)}" if codes else "")
        ) from None


@contextmanager
def backend_context(backend: str, scheduler: str | None):
    """Make joblib use ``backend``; for dask, connect to ``scheduler`` or start a local cluster."""
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    if backend != "dask":
        from joblib import parallel_config

        with parallel_config(backend=backend):
            yield
        return
    try:
        from dask.distributed import Client
    except ImportError:
        raise InputError(
            "the dask backend needs dask.distributed: pip install 'montecarlo[cluster]'"
        ) from None
    from joblib import parallel_config

    try:
        client = (
            Client(scheduler, timeout=10) if scheduler else Client(processes=False, dashboard_address=None)
        )
    except (OSError, ValueError, TypeError) as exc:  # unreachable, or not an address at all
        raise InputError(f"cannot reach the dask scheduler {scheduler!r}: {exc}") from None
    try:
        with parallel_config(backend="dask"):
            yield
    except KeyboardInterrupt:  # Ctrl-C: the cancelled tasks' warnings tell the user nothing
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
        raise
    finally:
        client.close()
