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
import gc
import logging
import math
import os
import re
import signal
import threading
import time
import warnings
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterator, Sequence

import numpy as np

from montecarlo.engine import memory, stats
from montecarlo.engine.chain import first_chunk, one_arm
from montecarlo.engine.checkpoint import Checkpoint
from montecarlo.engine.rng import chunk_generator
from montecarlo.errors import Caution, InputError, MonteCarloError, outside_level
from montecarlo.engine.metrics import Metric

DEFAULT_CHUNK_SIZE = 1 << 17
DEFAULT_MAX_TRIALS = 10_000_000  # a precision run's cap without max_trials (its first batch if larger)
# With ``auto``, a run starts worker processes only once its chunks so far project more than this
# many seconds of work left in one process. Two loky workers (and loky's resource tracker) take
# about 0.4 s and 0.6 CPU seconds to start on 2 cores (December 2026); measured there, a run of
# 1 s gained nothing from them (36 duels of 1,000,000 trials: 1.1-1.2 s in one process, 1.0-1.3 s
# with 2 workers started for it), and 2,000,000 trials of one duel (0.04 s of work) took 0.9 s
# instead of 0.4 s.
AUTO_PARALLEL_SECONDS = 1.5
# ... judged on at least this many seconds of chunks (or the whole run, if shorter): a process's
# first chunks also pay one-off costs (numpy's first calls, a chain's compilation, the exact
# values), and the first duel of a table alone projected 2.7 s for 36 duels of 1.1 s in all.
AUTO_MEASURE_SECONDS = 0.1
BACKENDS = ("loky", "threading", "dask")
_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
_HOST_PORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]@]+):(\d{1,5})")

ArmKernel = Callable[[int, np.random.Generator], dict[str, np.ndarray]]

# A loky worker whose memory has grown by 300 MB since it started (a long grid's memos of chains
# and tables) ends itself after its task, and loky starts another and hands it the work left, with
# a UserWarning "A worker stopped while some jobs were given to the executor ... memory leak" on
# stderr. Nothing is lost (the numbers are those of an uninterrupted run: a War for Arrakis grid of
# 3,600 setups x 3 variants showed it, December 2026), so a command does not alarm its user with it.
warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given to the executor")


class ChunkTooLarge(InputError):
    """A chunk of the run's size cannot fit in memory: refused before any trial runs."""


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


# A distribution's values are counted one comparison a value up to this many values, else by
# one bincount of the values inside the support (131,072 trials: 8 us a value, 450 us in all).
FEW_VALUES = 32


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
        elif len(m.support) <= FEW_VALUES:
            for v in m.support:  # one comparison a value: 47 us for six, against 450 masked
                count = float(np.count_nonzero(values == v))
                sums.append(count)
                squares.append(count)
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
    # a strided view (a field of a chain's end records) is 7 times slower to count than a copy
    return np.ascontiguousarray(values)


def run_chunk(
    arms: Sequence[ArmKernel], metrics: Sequence[Metric], size: int, seed: int, index: int
) -> np.ndarray:
    """Tallies of one chunk: array (n_arms + n_arms - 1, 2, n_columns).

    Rows 0..k-1 are each arm's (sums, squares); rows k.. are the paired differences of arms
    1..k-1 from arm 0. Every arm draws from the same chunk seed (common random numbers), and
    its chains walk or compile as arm 0's did (:func:`~montecarlo.engine.chain.one_arm`).
    """
    per_arm = []
    raw = []
    choices: list[bool] = []  # the first arm's walk-or-table choices, followed by the others
    for kernel in arms:
        with one_arm(choices):
            outcome = kernel(size, chunk_generator(seed, index))
        per_arm.append(np.stack(tally(metrics, outcome, size)))
        if len(arms) > 1:
            raw.append(per_trial_columns(metrics, outcome, size))
    diffs = []
    for other in raw[1:]:
        d = other - raw[0]
        diffs.append(np.stack([d.sum(axis=1), np.einsum("ij,ij->i", d, d)]))
    return np.stack(per_arm + diffs)


def run_task(
    arms: Sequence[ArmKernel], metrics: Sequence[Metric], size: int, seed: int, index: int,
    companion: Callable[[], Any] | None = None,
) -> tuple[np.ndarray, Any]:
    """One chunk's tallies (:func:`run_chunk`), and then ``companion()`` if given (else None)."""
    _set_up_process()  # once per process, workers included: every chunk comes here
    with first_chunk(index == 0):  # only a point's first chunk may walk its chains
        tallies = run_chunk(arms, metrics, size, seed, index)
    return tallies, None if companion is None else companion()


def run_bundle(tasks: Sequence[tuple]) -> list[tuple[np.ndarray, Any]]:
    """:func:`run_task` of each task (its arguments), in order: one worker's bundle of chunks."""
    return [run_task(*task) for task in tasks]


_process_set_up = False


def _set_up_process() -> None:
    """Before a process's first chunk: the allocator setting (``memory.reuse_freed_memory``),
    and in a worker process Ctrl-C left to the parent, which stops the run and the pool.

    The workers :func:`start_workers` starts inherit an ignored SIGINT; one that loky starts
    again mid-run (after a worker died) does not, and printed a traceback of its own on Ctrl-C.
    """
    global _process_set_up
    if _process_set_up:
        return
    _process_set_up = True
    memory.reuse_freed_memory()
    import multiprocessing  # here: the commands that never simulate do not load it

    in_worker = multiprocessing.parent_process() is not None  # None in the command's own process
    if in_worker and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


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
    companion: Any = None  # the value of the point's companion (see Point), if this run made it

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
        return widest_half_width(self.totals, self.columns, self.n_arms, self.trials)


def widest_half_width(totals: np.ndarray, columns: Sequence[Column], n_arms: int, trials: int) -> float:
    """The widest 95% half-width among the probability columns of the first ``n_arms`` rows of
    ``totals`` (see :class:`RunResult`): what a precision target is measured against."""
    widths = [
        stats.proportion(totals[arm, 0, j], trials).half_width
        for arm in range(n_arms)
        for j, col in enumerate(columns)
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


@dataclass(frozen=True)
class Point:
    """One point of a grid: its arms (sharing common random numbers) and what they report.

    ``companion``: optional work that belongs with the point, such as its exact values, as a
    picklable ``companion()``. It runs once, in the process that runs the point's chunk 0, right
    after that chunk, so that it reuses what the chunk built there (a chain and its memos)
    instead of the parent building it all again after the run. Its value is the result's
    ``companion`` (None when chunk 0 was run by an earlier, checkpointed run: the caller then
    computes it).
    """

    arms: tuple[ArmKernel, ...]
    metrics: tuple[Metric, ...]
    companion: Callable[[], Any] | None = None
    # Points of equal ``affinity`` (any hashable value; None: none) reuse each other's work when
    # one process runs them (a game's chain of the same context, and its memos): the workers
    # get them as bundles (see :func:`_bundles`). Only where a point runs, never its numbers.
    affinity: Hashable | None = None


class _PointState:
    """How far one point has come: the tallies of its first ``next_chunk`` chunks, folded in
    chunk order (so that the sums are bit-identical whatever ran where), and its target."""

    __slots__ = ("totals", "done", "next_chunk", "target", "finished")

    def __init__(self, totals: np.ndarray, done: int, next_chunk: int, target: int, finished: bool) -> None:
        self.totals, self.done, self.next_chunk = totals, done, next_chunk
        self.target, self.finished = target, finished


def run(
    arms: ArmKernel | Sequence[ArmKernel],
    metrics: Sequence[Metric],
    trials: int,
    seed: int,
    **options,
) -> RunResult:
    """Run ``trials`` trials of every arm (or, with ``precision``, as many as it takes).

    A grid of one point: the options are those of :func:`run_grid`.
    """
    arm_list = (arms,) if callable(arms) else tuple(arms)
    if not arm_list:
        raise InputError("nothing to run: no arms")
    return run_grid([Point(arm_list, tuple(metrics))], trials, seed, **options)[0]


def run_grid(
    points: Sequence[Point],
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
    checkpoint: Checkpoint | None = None,
    auto: bool = False,
) -> list[RunResult]:
    """Run every point of a grid: its (point x chunk) tasks form one pool over the workers.

    Small points fill every core: a grid of 144 one-chunk points keeps two workers busy, where
    running point after point left one idle. Each point's chunk ``i`` draws from
    ``(seed, i)`` and its tallies are added in chunk order, so every point's numbers are
    bit-identical to a run of that point alone, with any workers or backend.

    With ``precision=H`` a point adds chunks until every probability's 95% half-width is at
    most H or ``max_trials`` is reached; ``trials`` is then the first batch. The plan of a point
    is a function of its tallies so far, which are deterministic, so its final count is too.
    Points that need more trials run together in the next round.

    ``progress(done, total)``, if given, counts the trials of the whole grid: it is called
    before the first chunk and after each one. ``checkpoint`` saves the tallies of the finished
    chunks as the run goes and resumes from them (:class:`montecarlo.engine.checkpoint.Checkpoint`).

    ``auto``: ``jobs`` is the most workers to use, and local workers are started only when
    the run is worth them: its chunks run here, timed, until the trials left project more than
    ``AUTO_PARALLEL_SECONDS`` of work in one process (a run that ends sooner never starts any).
    A pool this process started before is used as it is.

    The arguments are trusted: :class:`montecarlo.analysis.RunSettings` checks trials, seed,
    jobs, precision, max_trials, backend and chunk size once for every caller.
    """
    if not points or any(not p.arms for p in points):
        raise InputError("nothing to run: no arms")
    report = progress if progress is not None else _no_progress  # RunSettings checked it is callable
    shapes = [(2 * len(p.arms) - 1, 2, len(columns_of(p.metrics))) for p in points]
    if precision is None:
        cap = first = trials
    else:
        cap = max_trials or max(trials, DEFAULT_MAX_TRIALS)
        first = min(trials, cap)
    states = [_PointState(np.zeros(shape), 0, 0, first, False) for shape in shapes]
    companions: list[Any] = [None] * len(points)
    if checkpoint is not None:
        states = checkpoint.resume(states, _checkpoint_facts(trials, seed, chunk_size, precision, max_trials))
        # more trials than this run would ever plan; without a precision, exactly its trials
        if any(s.target > cap or (precision is None and s.target != first) for s in states):
            raise checkpoint.damaged()
    started = time.perf_counter()
    done, total = sum(s.done for s in states), sum(s.target for s in states)
    report(done, total)
    # Only a dask run needs joblib set up around it (its cluster's client): a local pool is made
    # with its backend named (start_workers, _execute), and a run in this process, with one job
    # or an auto run that stays short, imports no joblib at all.
    local = backend != "dask"
    try:
        with _existing_objects_left_alone(), contextlib.nullcontext() if local else dask_cluster(scheduler):
            idle = 0  # rounds in a row that ran no trial
            while True:
                pending = [i for i, s in enumerate(states) if not s.finished]
                if not pending:
                    break
                # Chunks from ``done`` to ``target`` of every pending point, point by point: every
                # chunk but the last of a point is full, and chunk i always draws from (seed, i).
                tasks = [
                    (i, states[i].next_chunk, ChunkPlan(states[i].target - states[i].done, chunk_size))
                    for i in pending
                ]
                before = done
                for i, (chunk_totals, companion), size in _execute(points, tasks, seed, jobs, backend, auto):
                    if companion is not None:
                        companions[i] = companion
                    state = states[i]
                    # one store: a checkpoint's final save after Ctrl-C sees the point before this
                    # chunk or after it, never its tallies a chunk ahead of its count
                    states[i] = _PointState(state.totals + chunk_totals, state.done + size,
                                            state.next_chunk + 1, state.target, state.finished)
                    done += size
                    report(done, total)
                    if checkpoint is not None:
                        checkpoint.save(states, final=False)
                idle = 0 if done > before else idle + 1
                if idle > 1:  # a resumed run's first round may have nothing left to run, never two
                    raise RuntimeError("internal error: the run's planning stopped giving its points trials")
                grew = False
                for i in pending:
                    grew |= _plan_more(states[i], points[i], chunk_size, precision, cap)
                if grew:
                    total = sum(s.target for s in states)
                    report(done, total)
    finally:
        if checkpoint is not None:
            checkpoint.save(states, final=True)
    seconds = time.perf_counter() - started
    return [
        RunResult(s.done, seed, chunk_size, columns_of(p.metrics), len(p.arms), s.totals, seconds, c)
        for p, s, c in zip(points, states, companions)
    ]


@contextmanager
def _existing_objects_left_alone() -> Iterator[None]:
    """Inside, the garbage collector does not walk the objects that existed before (``gc.freeze``).

    A command has imported its report modules (matplotlib, pandas: about 100,000 objects) before
    it simulates, and the run's own short-lived objects (joblib's per-task bookkeeping, the
    chains' memos) trigger full collections that walk them all again. Measured on the War for
    Arrakis battle matrix at 20,000 trials (2 cores, December 2026, medians of 6): 2 jobs 0.73 s
    -> 0.59 s, 1 job 1.02 s -> 1.04 s. The objects are given back to the collector afterwards
    (``gc.unfreeze``); a process that froze its own heap before (a fork server) keeps it frozen.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _no_progress(done: int, total: int) -> None:
    """The progress report of a run that has none."""


def _plan_more(state: _PointState, point: Point, chunk_size: int, precision, cap: int) -> bool:
    """After a point's chunks up to its target: finish it, or raise its target (True)."""
    if precision is None:
        state.finished = True
        return False
    widest = widest_half_width(state.totals, columns_of(point.metrics), len(point.arms), state.done)
    if widest <= precision or state.done >= cap:
        state.finished = True
        return False
    # widest > precision, so at least 1.1 x the trials done: always at least one trial more; a
    # precision so fine that the trials it needs overflow a float (1e-200) plans the cap
    ratio = widest / precision
    needed = state.done * ratio * ratio * 1.1
    target = cap if not needed < cap else math.ceil(needed)
    # Whole chunks only, so that chunk i always has the same size and seed.
    state.target = min(cap, math.ceil(target / chunk_size) * chunk_size)
    return True


def _checkpoint_facts(trials, seed, chunk_size, precision, max_trials) -> dict:
    """What fixes a run's numbers, beside the caller's description of the work."""
    return {
        "trials": int(trials), "seed": int(seed), "chunk_size": int(chunk_size),
        "precision": precision, "max_trials": max_trials,
    }


# Bytes a chunk holds per trial and reported column (float64 tallies, paired differences,
# the kernel's own arrays): a floor, so that a refusal is never a false alarm.
CHUNK_BYTES_PER_VALUE = 8


def _execute(points, tasks, seed, jobs, backend, auto) -> Iterator[tuple[int, tuple[np.ndarray, Any], int]]:
    """Yield (point, (tallies, companion value), size) per chunk, each point's chunks in order
    (the points in :func:`_spread` order, grouped by affinity when the workers get bundles: see
    :func:`_bundling`); the companion (see :class:`Point`) goes with chunk 0 only.

    ``tasks`` lists (point, first chunk index, chunk plan); the chunks are generated lazily, as
    the workers ask for them. Refuses (InputError, with an estimate) chunks that cannot fit in
    memory, before any runs; a worker process that dies (killed, out of memory, a kernel
    calling ``os._exit``) ends the run with one MonteCarloError line instead of joblib's
    traceback. ``auto``: see :func:`run_grid`.
    """
    count = sum(len(plan) for _, _, plan in tasks)
    if not count:
        return
    tasks = _spread(tasks)
    serial = count == 1 or (jobs == 1 and backend != "dask")
    at_once = 1 if serial else min(count, (os.cpu_count() or 1) if jobs < 0 or backend == "dask" else jobs)
    largest, per_trial = 0, 0
    for i, _, plan in tasks:
        if len(plan):
            point = points[i]
            largest = max(largest, plan[0])
            arms = len(point.arms)
            values = len(columns_of(point.metrics)) * (2 * arms if arms > 1 else 1)
            per_trial = max(per_trial, CHUNK_BYTES_PER_VALUE * values)
    memory.check_fits(
        largest * per_trial * at_once, f"a chunk of {largest:,} trials", hint="use a smaller chunk size",
        error=ChunkTooLarge,
    )
    # (a dask cluster's size is not known here: its chunks go one a task)
    bundled = not serial and backend != "dask" and _bundling(points, tasks, at_once)
    if bundled:  # the chunks of one affinity next to each other, then in the spread order
        first_seen: dict[Hashable, int] = {}
        for i, _, _ in tasks:
            first_seen.setdefault(points[i].affinity, len(first_seen))
        tasks = sorted(tasks, key=lambda t: first_seen[points[t[0]].affinity])
    chunks = (
        (i, first + offset, size) for i, first, plan in tasks for offset, size in enumerate(plan)
    )

    def task(i: int, index: int, size: int) -> tuple:
        point = points[i]
        return point.arms, point.metrics, size, seed, index, point.companion if index == 0 else None

    if serial:
        for i, index, size in chunks:
            yield i, run_task(*task(i, index, size)), size
        return
    left = sum(plan.trials for _, _, plan in tasks)  # the trials not run yet
    if auto and backend == "loky" and not pool_started():
        # No pool yet: run here, timed, until what is left would pay for starting one.
        began, done = time.perf_counter(), 0
        for i, index, size in chunks:
            yield i, run_task(*task(i, index, size)), size
            done, left = done + size, left - size
            spent = time.perf_counter() - began
            if spent >= AUTO_MEASURE_SECONDS and left * spent > AUTO_PARALLEL_SECONDS * done:
                break
        else:
            return
    # While the workers start (start_workers: here, unless the command began it), the first
    # chunks run here: the start-up overlaps useful work, and chunk order (so every number) is
    # unchanged.
    start_workers(jobs, backend, _kernel_modules(points))
    while backend == "loky" and starting():
        chunk = next(chunks, None)
        if chunk is None:
            return
        i, index, size = chunk
        yield i, run_task(*task(i, index, size)), size
        left -= size
    from joblib import Parallel, delayed
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    wait_for_workers()
    if backend == "dask":  # the cluster's client lives in dask_cluster (and it gets no bundles)
        parallel = Parallel(n_jobs=-1, return_as="generator")
    else:
        # a bundle is a batch already: joblib's automatic batching would join bundles of the end
        batching: dict[str, Any] = {"batch_size": 1} if bundled else {}
        parallel = Parallel(n_jobs=jobs, backend=backend, return_as="generator", **batching)
    order: deque[list[tuple[int, int]]] = deque()  # (point, size) of each task's chunks, in order

    def delayed_tasks():
        if bundled:
            cap = _bundle_cap(left, at_once, max(plan.chunk_size for _, _, plan in tasks))
            for bundle in _bundles(chunks, lambda i: points[i].affinity, cap):
                order.append([(i, size) for i, _, size in bundle])
                yield delayed(run_bundle)([task(*chunk) for chunk in bundle])
            return
        for i, index, size in chunks:
            order.append([(i, size)])
            yield delayed(run_task)(*task(i, index, size))

    try:
        for finished in parallel(delayed_tasks()):
            handed = order.popleft()
            for (i, size), result in zip(handed, finished if bundled else [finished]):
                yield i, result, size
    except TerminatedWorkerError as exc:
        codes = re.search(r"exit codes of the workers are (\{[^}]*\})", str(exc))
        raise MonteCarloError(
            "a worker process died during the run (killed, or out of memory?)"
            + (f"; exit codes {codes.group(1)}" if codes else "")
        ) from None


def _spread(tasks: list) -> list:
    """The points' tasks in an order that covers the whole grid early: the k-th in the grid's
    order goes by k's bits read backwards (0, 1/2, 1/4, 3/4, 1/8, ... of the way through), so
    that the first tasks of any number sample the grid evenly. Every number stays the same:
    a point's chunks keep their seeds and their order.

    Why: the projection of the time left, and an auto run's choice to start workers, read the
    pace of the first chunks, and a grid's axes often grow, its setups with them. A Risk grid of
    100 x 100 setups at 200 trials a setup (a run of 56-58 s, 1 job): in the grid's order the
    whole run was projected at 14 s after one second and 37 s half way through; spread, at 114 s
    after one second (its first setups fill the chains' memos) and 57 s after 16 s.

    >>> [i for i, _, _ in _spread([(i, 0, None) for i in range(6)])]
    [0, 4, 2, 1, 5, 3]
    """
    width = max(1, (len(tasks) - 1).bit_length())
    order = sorted(range(len(tasks)), key=lambda k: int(format(k, f"0{width}b")[::-1], 2))
    return [tasks[k] for k in order]


# A bundle holds at most this many full chunks' trials: its results come back together, so
# the progress, a checkpoint's saves and a precision run's rounds move by bundles.
BUNDLE_MAX_CHUNKS = 16


def _bundling(points: Sequence[Point], tasks, at_once: int) -> bool:
    """Whether the workers get bundles of points of one affinity instead of single chunks: every
    point has an affinity, there are at least two of them per worker (each worker then builds
    the memos of its own bundles, and the bundles can share out the work) and fewer than points
    (else a bundle is a point).

    Measured on the War for Arrakis battle matrix (144 setups, one chunk each, 4 contexts: one a
    settlement rank), 2 workers started: 0.44-0.46 s as one task a chunk, 0.35-0.41 s as four
    bundles of one rank, against 0.66-0.70 s in one process; one task a chunk, each worker built
    the chains' memos of every rank again, 10-20% more work than one process did.
    """
    if any(points[i].affinity is None for i, _, _ in tasks):
        return False
    groups = len({points[i].affinity for i, _, _ in tasks})
    return 2 * at_once <= groups < len(tasks)


def _bundle_cap(left: int, at_once: int, chunk_size: int) -> int:
    """The most trials a bundle holds: at most BUNDLE_MAX_CHUNKS full chunks, and at most a
    (2 x workers)th of the ``left`` trials to hand out, so that each worker gets two bundles or
    more. An affinity with more trials is cut into several bundles.

    The cap is fixed for the run, not shrunk as it ends: each affinity of the battle matrix
    runs its battles from the smallest to the largest, which reuse the smaller ones' memos, and
    bundles cut smaller at the end (a share of what is left each time) put its largest battles
    on a worker without those memos. Measured there (2 workers started, medians of 10, 1 job
    0.843 s): whole affinities 0.451 s, shrinking bundles 0.508 s, one task a chunk 0.502 s.
    The price: an affinity whose trials cost far more than the others' (a 30-fold cost was
    tried) runs on one worker while the other has finished.
    """
    return max(1, min(BUNDLE_MAX_CHUNKS * chunk_size, -(-left // (2 * at_once))))


def _bundles(chunks: Iterator[tuple[int, int, int]], affinity_of: Callable[[int], Hashable],
             cap: int) -> Iterator[list[tuple[int, int, int]]]:
    """Consecutive chunks ``(point, index, size)`` of one affinity, up to ``cap`` trials a
    bundle (a chunk larger than the cap is a bundle of its own), lazily.

    >>> chunks = [(0, 0, 5), (1, 0, 5), (2, 0, 5), (2, 1, 5), (3, 0, 5), (3, 1, 5)]  # 2, 3: 2 chunks
    >>> [[c[:2] for c in b] for b in _bundles(iter(chunks), lambda point: point // 2, cap=15)]
    [[(0, 0), (1, 0)], [(2, 0), (2, 1), (3, 0)], [(3, 1)]]
    """
    bundle: list[tuple[int, int, int]] = []
    key: Hashable = None
    trials = 0
    for chunk in chunks:
        affinity = affinity_of(chunk[0])
        if bundle and (affinity != key or trials + chunk[2] > cap):
            yield bundle
            bundle, trials = [], 0
        bundle.append(chunk)
        key, trials = affinity, trials + chunk[2]
    if bundle:
        yield bundle


_starting: threading.Thread | None = None  # the workers being started (start_workers)


def start_workers(jobs: int, backend: str = "loky", modules: Sequence[str] = ()) -> None:
    """Start the local worker processes in the background, so that their start-up (a Python
    each and its imports: about 0.6 s on the 2-core machine) overlaps what a command does before
    it simulates (reading and checking a scenario, building its setups) instead of adding to
    the run; each worker imports ``modules`` (the games the run needs) meanwhile. The run then
    finds them ready: joblib keeps one pool of workers per process. Only for the default backend
    with more than one job; later calls do nothing; a failure is left for the run to report."""
    global _starting
    if jobs <= 1 or backend != "loky" or _starting is not None:
        return
    import tempfile  # here: most commands never start workers

    register = None
    try:
        from joblib import Parallel, delayed

        # The processes are spawned here, in a few milliseconds, with Ctrl-C ignored meanwhile:
        # they inherit the ignored SIGINT, so a Ctrl-C (which a terminal sends to every process
        # of the command) while they import prints no traceback of theirs; this process takes
        # it and stops them. The background thread only waits for their imports.
        _remove_stale_registers(tempfile.gettempdir())
        register = tempfile.mkdtemp(prefix=f"{REGISTER_PREFIX}{os.getpid()}-")  # where workers sign in
        with _sigint_ignored():
            ready = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered")(
                delayed(_ready)(tuple(modules), register, jobs) for _ in range(jobs)
            )
    except Exception:  # the run that follows starts the pool itself and reports the cause
        if register is not None:
            _remove(register)
        return
    import atexit

    atexit.register(_remove, register)  # a command stopped while they start leaves no folder
    _starting = threading.Thread(
        target=_drain, args=(ready, register), name="montecarlo-start-workers", daemon=True
    )
    _starting.start()


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored inside (in the main thread only: elsewhere signals cannot be set).

    A Ctrl-C in these few milliseconds is lost (the command goes on; another one stops it).
    Blocking SIGINT meanwhile would hold it only in a process of one thread: numpy's OpenBLAS
    threads take a process's signal when the main thread blocks it, and drop it as ignored.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _drain(ready: Iterator[None], register: str) -> None:
    try:
        for _ in ready:
            pass
    except Exception:  # pragma: no cover - the run that follows reports the cause
        pass
    finally:
        _remove(register)


REGISTER_PREFIX = "montecarlo-workers-"  # + the starting process's id + "-": the sign-in folders


def _remove_stale_registers(folder: str) -> None:
    """Remove the sign-in folders left by commands killed while their workers started (SIGKILL
    runs no exit handler): those named after a process of this user that no longer runs."""
    import glob
    import shutil

    for path in glob.glob(os.path.join(glob.escape(folder), f"{REGISTER_PREFIX}*-*")):
        try:
            pid = int(os.path.basename(path)[len(REGISTER_PREFIX):].split("-", 1)[0])
        except ValueError:  # not ours
            continue
        if not process_runs(pid):
            shutil.rmtree(path, ignore_errors=True)


def process_runs(pid: int) -> bool:
    """Whether process ``pid`` runs (a process of another user counts as running; on Windows,
    where ``os.kill`` would end it, every process does): a folder a process of this host marked
    as its own is left where it may still be at work."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def _remove(register: str) -> None:
    """The workers' sign-in folder removed (see :func:`_ready`)."""
    import shutil

    shutil.rmtree(register, ignore_errors=True)


READY_WAIT_SECONDS = 5.0  # how long a started worker waits for the others to sign in


def _ready(modules: tuple[str, ...], register: str | None = None, workers: int = 0) -> None:
    """In a worker: import what the run's first chunks would, then sign in to ``register`` (a
    folder) and wait until ``workers`` have, or READY_WAIT_SECONDS have passed.

    The wait makes each worker take one of these tasks: a worker that has finished its own
    holds it, so the next goes to another. Without it, the first worker up often took every
    task, and another then imported the game during its first chunk, with the grid waiting
    (War for Arrakis: 30-50 ms; seen in 1 start of 3).
    """
    import importlib

    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:  # pragma: no cover - the run imports what it needs itself
            pass
    if register is None:
        return
    deadline = time.monotonic() + READY_WAIT_SECONDS
    try:
        with open(os.path.join(register, str(os.getpid())), "w"):
            pass
        while len(os.listdir(register)) < workers and time.monotonic() < deadline:
            time.sleep(0.002)
    except OSError:  # the register is gone (the start is over): nothing to wait for
        pass


def _kernel_modules(points: Sequence[Point]) -> list[str]:
    """The modules a worker imports to run the points' kernels: those that define the kernels
    and the classes of their bound arguments (a game's rules and setups, whose modules the
    first chunk would otherwise import while it is unpickled: 51 ms for War for Arrakis)."""
    found: dict[str, None] = {}
    for point in points:
        for arm in point.arms:
            bound = [*getattr(arm, "args", ()), *getattr(arm, "keywords", {}).values()]
            for name in [getattr(getattr(arm, "func", arm), "__module__", None),
                         *(type(value).__module__ for value in bound)]:
                if isinstance(name, str) and name not in ("__main__", "builtins"):
                    found[name] = None
    return list(found)


def pool_started() -> bool:
    """Whether this process has started its local workers (they may still be starting)."""
    return _starting is not None


def starting() -> bool:
    """Whether workers are being started in the background right now."""
    return _starting is not None and _starting.is_alive()


def wait_for_workers() -> None:
    """Before a run uses the pool: let a start under way finish (one pool, never two at once)."""
    if _starting is not None:
        _starting.join()


def scheduler_address(address: object) -> str | None:
    """``address`` without its surrounding spaces if it reads as a Dask scheduler's address
    (``tcp://HOST:PORT``, ``HOST:PORT``, ``inproc://...``), else None.

    Checked before any work, so that a typo is one line rather than a traceback from the cluster
    client; the spaces of a pasted address go, as dask would read ``"  tcp"`` as the scheme.

    >>> scheduler_address(" tcp://10.0.0.1:8786 ")
    'tcp://10.0.0.1:8786'
    >>> scheduler_address("inproc://10.0.0.1/4242/1://x")  # after inproc:// anything goes: dask reads it
    'inproc://10.0.0.1/4242/1://x'
    >>> scheduler_address("tcp://x:1:2") is None and scheduler_address(8786) is None
    True
    """
    if not isinstance(address, str):
        return None
    text = address.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme == "inproc":
        return text if rest else None
    found = _HOST_PORT.fullmatch(rest) if scheme in _SCHEMES else None
    return text if found and 0 < int(found[2]) < 65536 else None


PROBE_SECONDS = 5.0  # for a scheduler's address to answer as a scheduler does
WORKERS_WAIT_SECONDS = 10.0  # for a scheduler to have a worker (at the start, and again during a run)
WATCH_SECONDS = 1.0  # between two counts of a cluster's workers during a run


def _probe_scheduler(scheduler: str) -> None:
    """One line at once where a ``tcp`` address cannot be a scheduler: nothing listens there
    (dask's client retried for its whole timeout), or something else answers, such as the
    dashboard's web server (dask's client waited for ever). A scheduler writes its handshake as
    soon as a connection opens, led by the 8-byte length of a short header; a web server writes
    nothing until it is asked."""
    import socket  # here: only a cluster run needs it

    scheme, sep, rest = scheduler.partition("://")
    found = _HOST_PORT.fullmatch(rest if sep else scheduler)
    if (sep and scheme != "tcp") or not found:
        return
    host, port = found[1].strip("[]"), int(found[2])
    try:
        conn = socket.create_connection((host, port), timeout=PROBE_SECONDS)
    except OSError as exc:
        why = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise InputError(f"cannot reach the dask scheduler {scheduler!r}: {why}") from None
    first, ended = b"", "quiet"
    with conn:
        conn.settimeout(PROBE_SECONDS)
        try:
            while len(first) < 8:
                got = conn.recv(8 - len(first))
                if not got:
                    ended = "closed"
                    break
                first += got
        except TimeoutError:  # nothing within PROBE_SECONDS
            pass
        except OSError:  # the connection reset
            ended = "closed"
    if len(first) < 8 or int.from_bytes(first, "little") > 65536:
        raise _not_a_scheduler(scheduler, "answered" if first else ended)


def _not_a_scheduler(scheduler: str, how: str = "answered") -> InputError:
    """Something other than a scheduler at ``scheduler``: it ``answered`` otherwise (seen by the
    probe, or by dask reading another service's first bytes as a frame's length), ``closed`` the
    connection at once, or stayed ``quiet`` (a web server waiting for a request, or a network
    that accepts for a host that never answers), where a scheduler speaks as soon as a
    connection opens."""
    what = {
        "answered": "something else answered there",
        "closed": "it closed the connection without a word, where a scheduler speaks first",
        "quiet": f"nothing came within {PROBE_SECONDS:g} s of connecting, where a scheduler speaks first",
    }[how]
    return InputError(
        f"{scheduler!r} is not a dask scheduler: {what} "
        "(a scheduler listens on port 8786 by default; 8787 is its dashboard)"
    )


@contextmanager
def dask_cluster(scheduler: str | None):
    """Make joblib use dask, connected to ``scheduler`` or to a local cluster started here (a
    local pool needs nothing around it: it is made with its backend named)."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise InputError(
            "the dask backend needs dask.distributed: pip install 'montecarlo[cluster]'"
        ) from None
    from joblib import parallel_config

    if scheduler:
        _probe_scheduler(scheduler)
    try:
        client = (
            Client(scheduler, timeout=10) if scheduler else Client(processes=False, dashboard_address=None)
        )
    except (OSError, ValueError, TypeError) as exc:  # unreachable, or not an address at all
        raise InputError(f"cannot reach the dask scheduler {scheduler!r}: {exc}") from None
    except MemoryError:  # another service answered: dask read its first bytes as a frame's length
        if scheduler is None:  # a local cluster: a real lack of memory
            raise
        raise _not_a_scheduler(scheduler) from None
    if scheduler:
        try:  # joblib's own wait ends in three lines of advice for Python code
            client.wait_for_workers(1, timeout=WORKERS_WAIT_SECONDS)
        except (TimeoutError, OSError):
            client.close()
            raise InputError(
                f"the dask scheduler {scheduler!r} has no workers (after {WORKERS_WAIT_SECONDS:g} s): "
                f"start some with: dask worker {scheduler}"
            ) from None
    threads = sum(client.ncores().values()) if scheduler else 0
    if threads == 1:
        warnings.warn(Caution(
            f"the dask cluster at {scheduler} has 1 worker thread: joblib then runs the work in this "
            "process, not on the cluster (start a worker with --nthreads 2, or more workers)"
        ), stacklevel=outside_level())
    watch = _WorkersWatch(client) if threads > 1 else None  # with one thread the work is here
    from concurrent.futures import CancelledError

    from distributed.comm.core import CommClosedError

    levels = {name: logging.getLogger(name).level for name in _dask_loggers()}
    try:
        with parallel_config(backend="dask"):
            yield
    except (CancelledError, CommClosedError):  # the scheduler went away, or the watch closed the client:
        _quiet_dask()
        if watch is not None and watch.lost.is_set():
            raise MonteCarloError(
                f"the dask cluster at {scheduler} has had no worker for {WORKERS_WAIT_SECONDS:g} s during "
                "the run (killed or stopped?); restart its workers and run the command again (with "
                "--checkpoint it resumes)"
            ) from None
        raise MonteCarloError(
            f"lost the dask scheduler at {scheduler or 'the local cluster'} during the run (stopped or "
            "killed?); start it again and run the command again (with --checkpoint it resumes)"
        ) from None
    except KeyboardInterrupt:  # Ctrl-C: the cancelled tasks' warnings tell the user nothing
        _quiet_dask()
        raise
    finally:
        if watch is not None:
            watch.stop.set()
        client.close()
        for name, level in levels.items():  # the process's loggers as they were (a library's caller)
            logging.getLogger(name).setLevel(level)


def _dask_loggers() -> list[str]:
    """distributed's loggers (some have a level of their own)."""
    known = logging.root.manager.loggerDict
    return ["distributed", *(name for name in known if name.startswith("distributed."))]


def _quiet_dask() -> None:
    """No more of dask's own log lines in this run (the cancelled tasks' warnings, the client's
    failed reconnection): the command says in one line what happened. Restored after the run."""
    for name in _dask_loggers():
        logging.getLogger(name).setLevel(logging.CRITICAL)


class _WorkersWatch:
    """Watches a cluster's workers during a run: when it has had none for WORKERS_WAIT_SECONDS
    (every worker killed), the run would wait for ever for its tasks, so the client is closed:
    its tasks are cancelled, the run stops where it is (a checkpoint keeps the chunks done) and
    :func:`dask_cluster` says why. No signal and no other thread is touched: the run may be a
    library call in any thread of the caller's."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.stop, self.lost = threading.Event(), threading.Event()
        threading.Thread(target=self._run, name="montecarlo-dask-workers", daemon=True).start()

    def _workers(self) -> int:
        try:
            return len(self.client.scheduler_info()["workers"])
        except Exception:  # the scheduler gone, or the client closing: no worker to count on
            return 0

    def _run(self) -> None:
        since = None
        while not self.stop.wait(WATCH_SECONDS):
            if self._workers():
                since = None
                continue
            since = time.monotonic() if since is None else since
            if time.monotonic() - since >= WORKERS_WAIT_SECONDS and not self.stop.is_set():
                self.lost.set()
                try:
                    self.client.close()
                except Exception:  # closing already, or the loop gone: the run ends either way
                    pass
                return
