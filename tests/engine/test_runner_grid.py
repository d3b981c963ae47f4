"""A grid's (point x chunk) tasks in one pool: every point's tallies are those of its run alone,
bit for bit, whatever the workers; progress counts the whole grid."""

import functools
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from montecarlo.engine import runner
from montecarlo.engine.runner import Point
from tests.engine.fake_kernels import METRICS, coin

PS = (0.1, 0.3, 0.5, 0.7, 0.9)


def grid(paired: bool = True) -> list[Point]:
    """Points of different sizes of work: one arm, or an arm and a house rule on the same stream."""
    points = []
    for p in PS:
        arms = (functools.partial(coin, p),) + ((functools.partial(coin, p + 0.05),) if paired else ())
        points.append(Point(arms, METRICS))
    return points


def alone(point: Point, **options) -> runner.RunResult:
    return runner.run(list(point.arms), point.metrics, 25_000, 7, chunk_size=10_000, **options)


def test_each_point_of_a_grid_has_the_tallies_of_its_run_alone():
    results = runner.run_grid(grid(), 25_000, 7, chunk_size=10_000)
    for point, result in zip(grid(), results):
        single = alone(point)
        assert np.array_equal(result.totals, single.totals)
        assert result.trials == single.trials == 25_000 and result.n_arms == 2
    # the arms stay paired: a house rule that changes nothing differs by exactly zero
    twins = Point((functools.partial(coin, 0.4),) * 2, METRICS)
    same = runner.run_grid([twins], 25_000, 7, chunk_size=10_000)
    assert same[0].differences(1)["hit"].se == 0


def test_precision_points_grow_each_by_its_own_plan():
    points = grid(paired=False)
    results = runner.run_grid(points, 2_000, 3, chunk_size=2_000, precision=0.01)
    trials = [r.trials for r in results]
    assert len(set(trials)) > 1  # p = 0.5 needs more trials than p = 0.1
    for point, result in zip(points, results):
        single = runner.run(list(point.arms), METRICS, 2_000, 3, chunk_size=2_000, precision=0.01)
        assert result.trials == single.trials and np.array_equal(result.totals, single.totals)
        assert result.max_half_width() <= 0.01


def test_progress_counts_the_trials_of_the_whole_grid():
    calls = []
    runner.run_grid(grid(), 25_000, 7, chunk_size=10_000, progress=lambda d, t: calls.append((d, t)))
    assert calls[0] == (0, 125_000) and calls[-1] == (125_000, 125_000)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls) and len(calls) == 1 + 5 * 3


def test_progress_of_a_precision_grid_counts_the_trials_added_to_any_point():
    """The first point needs more trials for its precision and the last does not: the total
    grows with the first, so the trials done never pass the total shown."""
    points = [Point((functools.partial(coin, p),), METRICS) for p in (0.5, 0.1)]
    calls = []
    results = runner.run_grid(points, 1_000, 7, chunk_size=500, precision=0.03,
                              progress=lambda d, t: calls.append((d, t)))
    assert results[0].trials > 1_000 and results[1].trials == 1_000
    assert all(d <= t for d, t in calls) and calls[-1] == (sum(r.trials for r in results),) * 2
    assert calls[0] == (0, 2_000) and [t for _, t in calls] == sorted(t for _, t in calls)


@pytest.mark.processes
def test_a_grid_on_two_workers_gives_the_numbers_of_one():
    one = runner.run_grid(grid(), 25_000, 7, chunk_size=10_000, jobs=1)
    two = runner.run_grid(grid(), 25_000, 7, chunk_size=10_000, jobs=2)
    for a, b in zip(one, two):
        assert np.array_equal(a.totals, b.totals)
    prec = [runner.run_grid(grid(False), 2_000, 3, chunk_size=2_000, precision=0.01, jobs=j) for j in (1, 2)]
    for a, b in zip(*prec):
        assert a.trials == b.trials and np.array_equal(a.totals, b.totals)


@pytest.mark.processes
def test_chunks_run_in_the_parent_while_the_workers_start(monkeypatch):
    """While the workers are being started, the parent runs the first chunks itself; the rest go
    to the pool, and every number is that of a run on one worker."""
    checks = iter([True, True, True])
    monkeypatch.setattr(runner, "starting", lambda: next(checks, False))
    ran_here = []
    real = runner.run_chunk

    def counted(*args):
        ran_here.append(args[-1])
        return real(*args)

    monkeypatch.setattr(runner, "run_chunk", counted)
    started = runner.run_grid(grid(), 25_000, 7, chunk_size=10_000, jobs=2)
    one = runner.run_grid(grid(paired=True), 25_000, 7, chunk_size=10_000, jobs=1)
    assert [np.array_equal(a.totals, b.totals) for a, b in zip(started, one)] == [True] * len(PS)
    assert len(ran_here) >= 3 + 15  # 3 chunks in the parent before the pool, then the 1-job run's 15


def test_starting_workers_is_a_no_op_for_one_job_or_another_backend(monkeypatch):
    monkeypatch.setattr(runner, "_starting", None)  # as in a new process
    runner.start_workers(1)
    runner.start_workers(4, backend="dask")
    assert not runner.starting() and runner._starting is None  # no thread even for a moment


class StandInPool:
    """Stands in for ``joblib.Parallel``: records how it was made and the SIGINT handler in
    force when it was called (the moment the real one spawns its workers), then runs the tasks
    in turn as they are asked for."""

    made: list = []

    def __init__(self, n_jobs, backend=None, return_as="list", **options):
        self.made.append((n_jobs, backend, return_as, *options.items()))

    def __call__(self, tasks):
        self.made.append(signal.getsignal(signal.SIGINT))
        return (function(*args, **kwargs) for function, args, kwargs in tasks)


def test_starting_workers_for_the_default_backend_starts_them_once_in_the_background(monkeypatch):
    """Two jobs on loky (the default, named or not): the pool is asked for the workers here, one
    task each importing the run's modules, and one background thread waits for them; a second
    call does nothing."""
    import joblib

    calls: list = []

    # a start that takes a moment: waiting for the workers waits for it to finish
    def slow_drain(ready, register):
        time.sleep(0.2)
        thread = threading.current_thread()  # a daemon: a start that hangs never holds up the exit
        assert thread.name == "montecarlo-start-workers" and thread.daemon
        calls.append(list(ready))
        assert os.path.isdir(register)
        runner._remove(register)

    monkeypatch.setattr(joblib, "Parallel", StandInPool)
    monkeypatch.setattr(StandInPool, "made", [])
    monkeypatch.setattr(runner, "_drain", slow_drain)
    monkeypatch.setattr(runner, "_ready", lambda modules, register, workers: (modules, workers))
    for backend in ({}, {"backend": "loky"}):
        monkeypatch.setattr(runner, "_starting", None)  # as in a new process
        runner.wait_for_workers()  # nothing started: nothing to wait for
        runner.start_workers(2, modules=["montecarlo.games.dune1984.fights"], **backend)
        first = runner._starting
        runner.start_workers(3)
        assert first is not None and runner._starting is first
        runner.wait_for_workers()
        assert not runner.starting() and len(calls) == (1 if not backend else 2)
    assert calls == [[(("montecarlo.games.dune1984.fights",), 2)] * 2] * 2
    # loky named (a caller's parallel_config for threads must not turn the workers into threads),
    # results as they come: nothing waits here
    assert StandInPool.made[0] == (2, "loky", "generator_unordered")


def test_the_workers_are_spawned_with_ctrl_c_ignored_and_the_handler_is_restored(monkeypatch):
    """A terminal's Ctrl-C reaches every process of the command: workers spawned while SIGINT is
    ignored inherit that, so they print no traceback while importing; this process keeps its own
    handler. From a thread other than the main one (where signals cannot be set), nothing changes."""
    import joblib

    monkeypatch.setattr(joblib, "Parallel", StandInPool)
    monkeypatch.setattr(runner, "_ready", lambda *args: None)
    own = signal.getsignal(signal.SIGINT)
    for where in ("main", "thread"):
        monkeypatch.setattr(StandInPool, "made", [])
        monkeypatch.setattr(runner, "_starting", None)
        if where == "main":
            runner.start_workers(2)
        else:
            thread = threading.Thread(target=runner.start_workers, args=(2,))
            thread.start()
            thread.join()
        runner.wait_for_workers()
        assert StandInPool.made[1] == (signal.SIG_IGN if where == "main" else own), where
        assert signal.getsignal(signal.SIGINT) is own
    monkeypatch.setattr(runner, "_starting", None)
    monkeypatch.setattr(joblib, "Parallel", None)  # a pool that cannot even be made: the run will say so
    runner.start_workers(2)
    runner.wait_for_workers()
    assert signal.getsignal(signal.SIGINT) is own
    assert runner._starting is None and not runner.starting()  # nothing under way: the run starts its own


@pytest.mark.processes
def test_real_workers_ignore_ctrl_c_and_the_parent_does_not():
    """In a new process (this one's pool may already be running): the started workers ignore
    SIGINT, the parent still turns it into KeyboardInterrupt (its handler Python's own first, as in
    a terminal: a command started in the background inherits an ignored SIGINT)."""
    code = (
        "import signal\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from joblib import Parallel, delayed\n"
        "from montecarlo.engine import runner\n"
        "runner.start_workers(2)\n"
        "runner.wait_for_workers()\n"
        "seen = Parallel(n_jobs=2)(delayed(signal.getsignal)(signal.SIGINT) for _ in range(4))\n"
        "own = signal.getsignal(signal.SIGINT) is signal.default_int_handler\n"
        "print(all(h == signal.SIG_IGN for h in seen), own)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True True", out


def test_a_worker_getting_ready_imports_each_module_and_skips_one_it_cannot_find(monkeypatch):
    """What ``start_workers`` has each worker run (here in this process): the run's modules imported
    ahead of its chunks; a module that cannot be imported is left for the run to report."""
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    monkeypatch.delitem(sys.modules, "tests.engine.fake_kernels_missing", raising=False)
    assert runner._ready(("tests.engine.fake_kernels_missing", "colorsys")) is None
    assert "colorsys" in sys.modules and "tests.engine.fake_kernels_missing" not in sys.modules


def test_a_worker_getting_ready_signs_in_and_waits_for_the_others(monkeypatch, tmp_path):
    """Each worker signs in to the register and holds its task until every worker has, so that
    each takes one task (and imports the modules); it stops waiting once the others have signed
    in, after READY_WAIT_SECONDS without them, or when the register is gone."""
    (tmp_path / "12345").touch()  # the other worker, already in
    started = time.monotonic()
    assert runner._ready((), str(tmp_path), 2) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["12345", str(os.getpid())])
    assert time.monotonic() - started < 1
    monkeypatch.setattr(runner, "READY_WAIT_SECONDS", 0.2)
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    started = time.monotonic()
    runner._ready((), str(lonely), 2)  # the other never comes
    assert 0.2 <= time.monotonic() - started < 2
    monkeypatch.setattr(runner, "READY_WAIT_SECONDS", 60)
    other = tmp_path / "other"
    other.mkdir()
    later = threading.Timer(0.1, lambda: (other / "67890").touch())
    started = time.monotonic()  # before the timer starts: a busy machine may delay this thread
    later.start()
    runner._ready((), str(other), 2)  # the other signs in a moment later
    assert 0.1 <= time.monotonic() - started < 5
    started = time.monotonic()
    runner._ready((), str(tmp_path / "gone"), 2)
    assert time.monotonic() - started < 1


@pytest.mark.processes
def test_real_workers_each_get_ready_and_the_register_is_removed():
    """In a new process: the two started workers each ran a getting-ready task (each imported the
    run's module: it is loaded in both before any chunk), and the sign-in folder is gone."""
    code = (
        "import os, sys, tempfile\n"
        "from joblib import Parallel, delayed\n"
        "from montecarlo.engine import runner\n"
        "made, mkdtemp = [], tempfile.mkdtemp\n"
        "tempfile.mkdtemp = lambda **kw: made.append(mkdtemp(**kw)) or made[-1]\n"
        "runner.start_workers(2, modules=['colorsys'])\n"
        "runner.wait_for_workers()\n"
        "left = [os.path.basename(p) for p in made if os.path.exists(p)]\n"
        "def probe(_):\n"
        "    import time; time.sleep(0.2)\n"
        "    return os.getpid(), 'colorsys' in sys.modules\n"
        "seen = dict(Parallel(n_jobs=2)(delayed(probe)(i) for i in range(2)))\n"
        "print(len(seen), all(seen.values()), left)\n"
    )
    for _ in range(3):  # a worker that took every task was seen in 1 start of 3
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert out.stdout.strip() == "2 True []", out


def test_sign_in_folders_of_killed_commands_are_removed_and_no_others(tmp_path):
    """A command killed (SIGKILL) while its workers start leaves its sign-in folder: the next
    start removes those named after a process that no longer runs, and only those."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    names = [f"{runner.REGISTER_PREFIX}{dead}-abc", f"{runner.REGISTER_PREFIX}{os.getpid()}-abc",
             f"{runner.REGISTER_PREFIX}1-abc", f"{runner.REGISTER_PREFIX}x-abc", "montecarlo-other-1-abc"]
    for name in names:
        (tmp_path / name).mkdir()
        (tmp_path / name / "123").write_text("")
    runner._remove_stale_registers(str(tmp_path))
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == sorted(names[1:])  # this process, pid 1 (another user's: running), not ours


def _facts(p: float) -> tuple[float, int]:
    """A point's companion: its probability, and the process that computed it."""
    return p, os.getpid()


def with_companions(calls: list | None = None) -> list[Point]:
    def counted(p):
        calls.append(p)
        return _facts(p)

    companion = _facts if calls is None else counted
    return [Point(point.arms, point.metrics, functools.partial(companion, p)) for point, p in zip(grid(), PS)]


def test_a_points_companion_runs_once_beside_its_first_chunk():
    """Its value comes back with the point's result, computed once; the tallies are unchanged;
    a point without one has None."""
    calls: list = []
    results = runner.run_grid(with_companions(calls), 25_000, 7, chunk_size=10_000)
    assert sorted(calls) == list(PS)  # once per point, though each point runs 3 chunks
    assert [r.companion for r in results] == [(p, os.getpid()) for p in PS]
    plain = runner.run_grid(grid(), 25_000, 7, chunk_size=10_000)
    assert all(np.array_equal(a.totals, b.totals) for a, b in zip(results, plain))
    assert [r.companion for r in plain] == [None] * len(PS)


@pytest.mark.processes
def test_a_points_companion_runs_in_the_worker_that_runs_its_first_chunk(monkeypatch):
    monkeypatch.setattr(runner, "starting", lambda: False)  # every chunk to the pool
    results = runner.run_grid(with_companions(), 25_000, 7, chunk_size=10_000, jobs=2)
    assert [r.companion[0] for r in results] == list(PS)
    assert os.getpid() not in {r.companion[1] for r in results}
    one = runner.run_grid(grid(), 25_000, 7, chunk_size=10_000, jobs=1)
    assert all(np.array_equal(a.totals, b.totals) for a, b in zip(results, one))


def test_a_grid_finished_while_the_workers_start_ran_in_the_parent(monkeypatch):
    """Workers that are never ready in time: the parent runs every chunk, and every companion,
    with the numbers of a one-job run; the pool is never used."""
    monkeypatch.setattr(runner, "start_workers", lambda *args: None)
    monkeypatch.setattr(runner, "starting", lambda: True)
    started = runner.run_grid(with_companions(), 25_000, 7, chunk_size=10_000, jobs=2)
    one = runner.run_grid(with_companions(), 25_000, 7, chunk_size=10_000, jobs=1)
    assert all(np.array_equal(a.totals, b.totals) for a, b in zip(started, one))
    assert [r.companion for r in started] == [(p, os.getpid()) for p in PS]


class StepClock:
    """Stands in for the runner's ``time``: each reading is ``step`` seconds after the last."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


class PoolAsked(Exception):
    """Raised by a stand-in start_workers: the run asked for its workers here."""


def _auto_run(monkeypatch, step: float, chunks: int = 40, size: int = 1_000):
    """An auto run of ``chunks`` chunks of ``size`` trials on a fresh process's state, each clock
    reading ``step`` seconds after the last; the chunks it ran before asking for workers, and
    whether it asked."""
    done: list[int] = []
    monkeypatch.setattr(runner, "_starting", None)  # as in a new process: no pool yet
    monkeypatch.setattr(runner, "time", StepClock(step))

    def asked(*args, **kwargs):
        raise PoolAsked

    monkeypatch.setattr(runner, "start_workers", asked)
    try:
        runner.run_grid(grid(paired=False)[:1], chunks * size, 7, chunk_size=size, jobs=2, auto=True,
                        progress=lambda d, total: done.append(d))
    except PoolAsked:
        return done[-1] // size, True
    return done[-1] // size, False


def test_an_auto_run_that_ends_soon_never_starts_workers(monkeypatch):
    """One clock reading a chunk: at 0.035 s and 0.04 s a chunk, the work left projects at most
    1.30 s and 1.48 s once 0.1 s is measured (after 3 chunks), under the 1.5 s it takes to be
    worth the workers, and less after every chunk: the whole run stays here."""
    assert runner.AUTO_PARALLEL_SECONDS == 1.5 and runner.AUTO_MEASURE_SECONDS == 0.1
    assert _auto_run(monkeypatch, 0.035) == (40, False)
    assert _auto_run(monkeypatch, 0.04) == (40, False)


def test_an_auto_run_starts_its_workers_once_the_work_left_is_worth_them(monkeypatch):
    """At 0.06 s a chunk, 0.1 s is measured after 2 chunks and the 38 left project 2.28 s: the
    pool is asked for right then. At 0.045 s a chunk the first chunk alone projects 1.76 s, but
    the run measures 0.1 s (3 chunks, 1.67 s left) before it asks; at 0.2 s, after 1 chunk."""
    assert _auto_run(monkeypatch, 0.06) == (2, True)
    assert _auto_run(monkeypatch, 0.045) == (3, True)
    assert _auto_run(monkeypatch, 0.2) == (1, True)


def test_the_measure_and_the_projection_are_exact_at_their_bounds(monkeypatch):
    """Readings a power of two apart, so that the arithmetic is exact: 0.125 s measured is enough
    when that is the measure asked for; a projection of exactly 1.5 s left is not more than
    1.5 s; and the projection counts the trials run, from none (chunks of 1 trial: 2 chunks in
    0.11 s project 38 x 0.055 = 2.09 s, which one trial more in the count would bring under)."""
    monkeypatch.setattr(runner, "AUTO_MEASURE_SECONDS", 0.125)
    assert _auto_run(monkeypatch, 0.0625) == (2, True)  # 0.125 s after 2 chunks: enough
    monkeypatch.setattr(runner, "AUTO_MEASURE_SECONDS", 0.1)
    assert _auto_run(monkeypatch, 0.125, chunks=13) == (13, False)  # after 1 chunk 12 x 0.125 = 1.5 s
    assert _auto_run(monkeypatch, 0.055, size=1) == (2, True)


def test_an_auto_run_with_a_pool_already_running_uses_it_and_the_numbers_are_the_same(monkeypatch):
    """A pool this process started before is there to use: no measuring (at no time a chunk,
    a measured run would stay here), the chunks go to the pool; and whatever ran where, the
    tallies are those of one process."""
    import joblib

    monkeypatch.setattr(joblib, "Parallel", StandInPool)
    monkeypatch.setattr(StandInPool, "made", [])
    done = threading.Thread()  # a start this process made before, over
    done.start()
    done.join()
    monkeypatch.setattr(runner, "_starting", done)
    monkeypatch.setattr(runner, "time", StepClock(0.0))
    auto = runner.run_grid(grid(), 25_000, 7, chunk_size=10_000, jobs=2, auto=True)
    assert StandInPool.made[0] == (2, "loky", "generator")  # the backend named: nothing set up around the run
    one = runner.run_grid(grid(), 25_000, 7, chunk_size=10_000, jobs=1)
    assert [np.array_equal(a.totals, b.totals) for a, b in zip(auto, one)] == [True] * len(PS)


# --- bundles of points of one affinity -----------------------------------------------------------


def kinship_grid(kin: int = 4, each: int = 6, make=None) -> list[Point]:
    """``kin`` affinities of ``each`` one-chunk points, interleaved in the grid's order (as a
    settlement rank is in the battle matrix's): point k has affinity k % kin."""
    make = make or (lambda p: functools.partial(coin, p))
    ps = [round(0.05 + 0.9 * k / (kin * each), 6) for k in range(kin * each)]
    return [Point((make(p),), METRICS, affinity=("kin", k % kin)) for k, p in enumerate(ps)]


@pytest.mark.parametrize("kin, each", [(4, 6), (6, 4)])
def test_points_of_one_affinity_go_to_one_worker_as_a_bundle(monkeypatch, kin, each):
    """Two threads, ``kin`` affinities of ``each`` points: each affinity is one bundle (a bundle may
    hold a quarter of the run: 6 points of 24), so all its points ran on one thread; every
    number is that of a one-job run."""
    from tests.engine import fake_kernels

    fake_kernels.RAN_ON.clear()
    bundles: list = []
    real = runner.run_bundle
    monkeypatch.setattr(runner, "run_bundle", lambda tasks: bundles.append(tasks) or real(tasks))
    points = kinship_grid(kin, each, make=lambda p: functools.partial(fake_kernels.coin_noting_thread, p))
    bundled = runner.run_grid(points, 4_000, 5, chunk_size=4_000, jobs=2, backend="threading")
    kin_of = {p.arms[0].args[0]: p.affinity for p in points}
    assert sorted(len(b) for b in bundles) == [each] * kin
    assert all(len({kin_of[task[0][0].args[0]] for task in b}) == 1 for b in bundles)
    for k in range(kin):
        threads = set().union(*(fake_kernels.RAN_ON[p.arms[0].args[0]] for p in points[k::kin]))
        assert len(threads) == 1, k
    one = runner.run_grid(kinship_grid(kin, each), 4_000, 5, chunk_size=4_000, jobs=1)
    assert [np.array_equal(a.totals, b.totals) for a, b in zip(bundled, one)] == [True] * len(points)


@pytest.mark.parametrize("kin, each, jobs, expected", [
    (4, 6, 2, True),     # 2 affinities a worker
    (6, 4, 2, True),
    (3, 6, 2, False),    # fewer: the last bundles could leave a worker idle long
    (1, 6, 2, False),
    (24, 1, 2, False),   # as many as points: a bundle would be a point
    (8, 2, 4, True),
    (7, 2, 4, False),
])
def test_bundles_are_made_only_for_enough_affinities_and_fewer_than_points(kin, each, jobs, expected):
    points = kinship_grid(kin, each)
    tasks = [(i, 0, runner.ChunkPlan(1_000, 1_000)) for i in range(len(points))]
    assert runner._bundling(points, tasks, jobs) is expected
    plain = [Point(p.arms, p.metrics) for p in points[:-1]] + points[-1:]
    assert runner._bundling(plain, tasks, jobs) is False  # a point without an affinity: none


def test_a_bundle_holds_at_most_16_chunks_and_a_share_of_the_run_for_each_worker():
    assert runner._bundle_cap(100 * 1_000 * 10, 2, chunk_size=1_000) == 16 * 1_000  # 1,000 chunks
    assert runner._bundle_cap(40 * 1_000, 2, chunk_size=1_000) == 10 * 1_000  # a quarter: 2 bundles a worker
    assert runner._bundle_cap(3, 2, chunk_size=1_000) == 1
    assert runner._bundle_cap(1_001, 2, chunk_size=1_000) == 251  # rounded up
    chunks = [(0, 0, 600), (0, 1, 600), (0, 2, 600), (1, 0, 2_000), (2, 0, 10)]
    assert [[c[:2] for c in b] for b in runner._bundles(iter(chunks), lambda i: "one", 1_200)] == [
        [(0, 0), (0, 1)], [(0, 2)], [(1, 0)], [(2, 0)]  # a chunk over the cap alone, never split
    ]


def test_the_bundles_share_out_what_the_parent_left_while_the_workers_started(monkeypatch):
    """The parent ran two affinities' 12 points while the workers started: the other 12 go as
    four bundles of 3 (a quarter of what is left each), not two of 6 (a quarter of the grid)."""
    import joblib

    monkeypatch.setattr(joblib, "Parallel", StandInPool)
    monkeypatch.setattr(StandInPool, "made", [])
    monkeypatch.setattr(runner, "start_workers", lambda *args: None)
    starts = iter([True] * 12)
    monkeypatch.setattr(runner, "starting", lambda: next(starts, False))
    monkeypatch.setattr(runner, "wait_for_workers", lambda: None)
    bundles: list = []
    real = runner.run_bundle
    monkeypatch.setattr(runner, "run_bundle", lambda tasks: bundles.append(len(tasks)) or real(tasks))
    results = runner.run_grid(kinship_grid(), 4_000, 5, chunk_size=4_000, jobs=2)
    assert bundles == [3, 3, 3, 3]
    assert StandInPool.made[0] == (2, "loky", "generator", ("batch_size", 1))
    one = runner.run_grid(kinship_grid(), 4_000, 5, chunk_size=4_000, jobs=1)
    assert [np.array_equal(a.totals, b.totals) for a, b in zip(results, one)] == [True] * 24


@pytest.mark.processes
def test_a_bundled_grid_on_two_worker_processes_gives_the_numbers_of_one():
    """Bundles of whole points and of points cut into several bundles (three chunks a point, a
    cap of two), with precision rounds and the progress of the whole grid."""
    for trials, precision in ((3_000, None), (1_000, 0.02)):
        one = runner.run_grid(kinship_grid(), trials, 9, chunk_size=1_000, jobs=1, precision=precision)
        calls: list = []
        two = runner.run_grid(kinship_grid(), trials, 9, chunk_size=1_000, jobs=2, precision=precision,
                              progress=lambda d, t, calls=calls: calls.append((d, t)))
        assert [a.trials == b.trials and np.array_equal(a.totals, b.totals) for a, b in zip(one, two)] == [
            True] * 24
        assert calls[-1] == (sum(r.trials for r in one),) * 2 and all(d <= t for d, t in calls)
        assert [d for d, _ in calls] == sorted(d for d, _ in calls)


# stopped by its progress callback, the run leaves joblib tasks in flight, which joblib may say it
# cancelled (depending on timing): what this test does on purpose
@pytest.mark.filterwarnings("ignore:.*tasks which were still being processed:UserWarning")
def test_a_bundled_run_stopped_between_bundles_resumes_to_the_same_numbers(tmp_path):
    from montecarlo.engine.checkpoint import Checkpoint

    class Stop(Exception):
        pass

    work = {"game": "kin", "setups": 24}
    whole = runner.run_grid(kinship_grid(), 2_000, 3, chunk_size=1_000)

    def stop_halfway(done, total):
        if done >= total // 2:
            raise Stop

    path = tmp_path / "bundled.json"
    with pytest.raises(Stop):
        runner.run_grid(kinship_grid(), 2_000, 3, chunk_size=1_000, jobs=2, backend="threading",
                        checkpoint=Checkpoint(path, work), progress=stop_halfway)
    resumed = runner.run_grid(kinship_grid(), 2_000, 3, chunk_size=1_000, jobs=2, backend="threading",
                              checkpoint=Checkpoint(path, work))
    assert [np.array_equal(a.totals, b.totals) for a, b in zip(whole, resumed)] == [True] * 24


@pytest.mark.parametrize("count", [1, 2, 3, 7, 64, 100, 1_000])
def test_a_grid_runs_its_points_spread_over_it_from_the_start(count):
    """Every task once, the first first; the first m of a grid of 2**k tasks fall one in each
    m-th of it, for every m, so the pace of the first chunks is that of the whole grid."""
    tasks = [(i, 0, None) for i in range(count)]
    order = [i for i, _, _ in runner._spread(tasks)]
    assert sorted(order) == list(range(count)) and order[0] == 0
    if count & (count - 1) == 0:
        for m in (1 << k for k in range(count.bit_length())):
            assert sorted(i * m // count for i in order[:m]) == list(range(m))
    if count == 3:
        assert order == [0, 2, 1]
    if count == 1_000:  # 1,024 slots: the first 500 tasks are every other one, then the rest
        assert order[:4] == [0, 512, 256, 768]
        assert sorted(order[:500]) == list(range(0, 1_000, 2))
