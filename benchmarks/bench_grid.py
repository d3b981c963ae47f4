"""Grids on every core: a grid's (setup x chunk) tasks in one pool of workers (issue 24).

Each figure is what a user meets: a fresh process (cold memos) runs the simulation part of a
command with 1 job and with 2, alternately so that a busy moment of the shared machine falls on
both; medians of the wall seconds of that part, and the ratio is the speed-up of 2 jobs over 1.
As in the commands, the workers are started in the background as soon as the settings are known
(``start_workers``), and the first chunks run in the parent while they start:

- the War for Arrakis battle matrix (144 setups x 2 variants) at 20,000 trials a setup: the
  simulation part of ``montecarlo report`` (``run_scenario``), the workers started before the
  command loads its report modules, as it does; target >= 1.7x; 5 pairs (with 3, the 1-job
  medians of its two rows, the same run, came out at 0.70 s and 0.92 s in one ``make bench``);
- ``montecarlo table dune1984`` (36 duels): its simulation part (``ask_many``) at the default
  50,000 trials a cell, and at 1,000,000, target >= 1.7x.

And the writing of a report (most of it plots), with its plots drawn one after another (1 job)
or by the run's two workers (2 jobs): ``write_report`` of the largest shipped report.

"workers started": the same with the workers' start-up over before the timed part (a Python
session's second call, report-all's later reports): the grid's scheduling alone.

Why the fresh table stays below its "workers started" figure: its whole run is about 1.6 s of
work, and two worker processes take 0.28-0.33 s to start (Python, numpy, the game's module) on an
idle machine, 0.5 s while the parent computes its first chunks beside them. Tried and measured
(December 2026, 1,000,000 trials a cell): the parent as one of the workers, with a pool one
worker smaller (1.25-1.39 s against 1.22-1.29 s today); forked workers (joblib's multiprocessing
backend, no start-up to speak of: 1.15-1.30 s, the joblib dispatch of 288 chunks then costs as
much); one chunk per task instead of joblib's automatic batches (+0.2 s). Measured again on
1 December 2026 (a faster host: 1 job 1.19 s): the two loky workers and their resource tracker
cost 0.38-0.45 CPU seconds to start, against 1.19 s of work, and once running each takes 4.6 ms
a chunk against 4.1 ms alone (the two cores share caches and memory bandwidth), so 2 jobs cannot
beat about (1.19 + 0.4) / 2 x 1.12 = 0.89 s (1.34x); they take 0.95-1.0 s. Starting the workers
at the very entry of ``montecarlo`` (before typer and the game are imported) shortens this timed
part to 0.73-0.79 s but slows the imports before it by as much (0.18 s to 0.39 s): the whole
command took 1.19 s either way, so the command does not do it.

Why the battle matrix stays below 1.7x (measured 2 December 2026, 1 job 1.3-1.6 s, 2 jobs with
workers started 0.79-1.04 s): not the work, nor the cores. About 75% of its simulation part is
compiling each setup's chain into a sampling table, and the work does not grow when split: the
grid run as two halves in two processes calls the same functions as often as one process (46,028
table rows either way; 7.6% more profiled time, from memos such as the round transitions that
each half builds again), and the two halves run side by side take 1.05 s against 1.01 s alone
(medians of 5: the cores barely slow each other). The loss is in the grid's first half, its small
battles of 1-3 ms a chunk: by the time half of the chunks are back, 2 jobs have taken 0.27-0.34 s
and 1 job 0.29-0.42 s, while the second half, larger battles, runs 2.1x faster with 2 jobs. There
each worker builds again the memos of the small battles that every later battle reuses (the 7.6%
above, all of it early), and joblib's first batches hold one chunk each; fixed batches of 2, 4 or
8 chunks instead measured no better (0.93-1.28 s against 0.95-1.10 s), so the memos are the
likelier cost.

One cost that did grow when split, found later (2 December 2026, evening): the exact values.
The command worked them out after the run, in the parent, alone; with 1 job it found each
setup's chain still in its cache (0.01-0.05 s for the 144 setups), with 2 jobs the chains had been
built in the workers, so it built all 288 again (0.13-0.15 s, serial, after the grid). Each
setup's exact values are now the companion of its first chunk (``Point.companion``), worked out
by the worker that has just built that chain; the parent's part after the grid fell to
0.05-0.075 s. Same session, medians of 5, before -> after: fresh 1.46x -> 1.67x, workers started
1.55x -> 1.67x (CPU of 2 jobs over 1: 1.62 -> 1.44 and 1.54 -> 1.45); the machine's free
parallelism was 1.95-2.03 meanwhile.

Tried later that night and left out: the garbage collector. A process with only the workers'
imports runs the whole grid without one full collection (``gc.get_stats``), so freezing the
workers' module objects (``gc.freeze`` after their imports) has nothing to save; the parent, which
has loaded the report modules (matplotlib, pandas) before it simulates, spends about 0.05 of its
0.12-0.14 CPU seconds of a 2-job run in collections (0.075 s with the collector off), too little to
move the ratio beyond the machine's noise: same-session medians of 6, workers freezing against
not, 1.74x against 1.65x fresh but 1.55x against 1.64x with workers started (1 job 1.42-1.48 s
throughout, free parallelism 1.66-1.99). A whole ``make bench`` that night, the machine's free
parallelism at 1.69: 1.53x fresh, 1.44x with workers started. Another on 3 December 2026 (free
parallelism 1.88 before, 1.71 after; 1 job 2.22 s): 1.72x fresh, 1.82x with workers started; the
table at 1,000,000 a cell 1.22x fresh, 1.87x with workers started. The target is met in some runs,
not in all.

Forked workers, measured again on 3 December 2026 (a slower host: 1 job 2.47-3.00 s at
1,000,000 a cell; two loky workers take 0.78-0.81 s of wall time to start on the idle machine,
each importing numpy and joblib, about 0.35 CPU seconds): 2 jobs took 2.18-2.29 s as shipped
(1.1-1.4x, each against the 1-job run beside it); with loky's start method set to "fork" (no
imports in the workers) 1.58-1.87 s, and with joblib's multiprocessing backend (a forked pool)
1.73-1.93 s: 1.4-1.7x. Neither is used: loky refuses "fork" for its reusable executor
(``get_reusable_executor(context="fork")`` raises: forking a process whose executor threads hold
locks is unsafe; the global default only goes round that check), and the multiprocessing backend
cannot return results as they finish (``return_as="generator"`` is refused), which the progress
bar, precision stops and checkpoints need. Even forked, this host stays short of 1.7x on a run
this short.

A faster compiler, 5 December 2026 (two whole ``make bench`` runs on an idle machine, free
parallelism 1.90-2.04): the chains' sampling tables worked out level by level for all states at
once (``Chain._byte_rows``) instead of one numpy call per table row cut the battle matrix's
simulation part from 1.27 to 1.03 s with 1 job and from 0.76 to 0.62 s with 2 (fresh); the speed-up
stayed at 1.69x -> 1.68x fresh and fell from 1.65x to 1.54x with the workers started: each task
does less work while the pool's own costs stay. The table at 1,000,000 a cell: 1.28x and 1.24x
fresh, 1.80x and 1.84x with the workers started; at the default 50,000 a cell (0.13-0.14 s of
work) 2 jobs take 0.34-0.46 s, which is why a table that small runs in one process by default.

Threads instead of processes for the fresh table, 5 December 2026 (idle machine, 1,000,000 a cell,
simulation part, medians of 4, the same fresh-process measure with ``backend="threading"``): 1 job
1.22 s, 2 threads 0.96 s (1.27x), 2 loky processes 1.05 s (1.17x). Threads have nothing to start,
but the duel kernel holds the GIL for much of a chunk, so they stay far from 1.7x; making them the
default would also make every kernel's thread safety a requirement. Left out.

Cheaper chunks, 5 December 2026, afternoon. Threads run the table's chunks 1.7x faster than one
thread once everything is warm, so the kernels do release the GIL; what a fresh process lost was
elsewhere: glibc mapped and zeroed every megabyte-sized array afresh (a sixth of a chunk's time,
``memory.reuse_freed_memory``), and the tallies compared and counted the strided fields of the
chains' end records (7 times slower than a contiguous copy) and counted a distribution with a
masked bincount (450 us a chunk against 47 us for one comparison a value). Two whole ``make
bench`` runs, before -> after (the second host about 8% slower on the kernels alone): the table
at 1,000,000 a cell 1.20 -> 0.87 s with 1 job, 0.90 -> 0.76 s with 2 fresh, 0.69 -> 0.50 s with
the workers started; the battle matrix 0.77 -> 0.68 s with 1 job, 0.49 -> 0.48 s with 2. The
speed-ups fell (table 1.34x -> 1.14x fresh, 1.81x -> 1.74x started; matrix 1.58x -> 1.43x):
the work shrank and the workers' start-up (0.2 CPU seconds each: Python, numpy and joblib, which
the loky worker imports whole) did not.

The package's bytecode, 6 December 2026. This machine runs every process with
PYTHONDONTWRITEBYTECODE set, as many containers do, and an editable install writes no bytecode of
its own: each command and each worker compiled the whole package from source at every start (45
ms of a War for Arrakis worker's 80-115 ms of imports). ``make install`` now compiles it once.
Two ``bench_grid`` runs each way, alternated (free parallelism 1.77-2.06): the battle matrix fresh
1.51x and 1.48x with the bytecode against 1.31x and 1.32x without, the CPU of 2 jobs over 1 job
1.76 and 1.70 against 2.09 and 2.06; the table at 1,000,000 a cell fresh stayed at 0.9-1.1x
either way (its two workers and loky's resource tracker start while the parent has about a
second of work to share); ``montecarlo odds dune1984 --attacker 4 --defender 5`` 0.53 s -> 0.40 s.
A whole ``make bench`` after it (free parallelism 1.90 before, 2.04 after): the battle matrix 1.43x
fresh and 1.37x with the workers started; the table at 1,000,000 a cell 1.13x fresh and 1.73x with
the workers started. What the fresh table's two workers still import before their first chunk,
bytecode or not: numpy (57 ms), the rest of joblib, which loky's worker imports whole (about 95
ms more: its memory module alone brings asyncio), and the game (22 ms).

Three changes of 6 December 2026, afternoon. (1) The garbage collector: a command has loaded
matplotlib and pandas (about 100,000 objects) before it simulates, and the short-lived objects
of a run (joblib's bookkeeping of each task, the chains' memos) set off full collections that
walked them all, 0.05-0.14 s of the parent's time in a run of 0.5-0.7 s; a run now freezes the
heap it starts with (``gc.freeze``) and gives it back after. Two A/B runs of 6 pairs, battle
matrix fresh: 2 jobs 0.73 -> 0.59 s and 0.65 -> 0.57 s. (2) A scenario's workers import the game
while they start: a chain question's kernel is the engine's (``ChainQuestion.simulate``), so they
were told only ``montecarlo.engine.chain_question`` and each imported War for Arrakis (51 ms)
while unpickling its first chunk, with the grid waiting; 6 pairs: 2 jobs 0.515 -> 0.493 s, 1.54x ->
1.67x. (3) The default ``--jobs``: a run started its workers whenever it had over a million trials
a setup, and a million trials is 0.02 s of a duel; a default run now starts them once it has
measured 0.1 s of its chunks and they project more than 1.5 s of work left (``montecarlo odds
dune1984 -n 2000000``: 0.85-0.97 s by default against 0.39-0.45 s with ``--jobs 1`` before, 0.45-0.53 s
after). The two whole-command rows below measure it. A whole ``make bench`` after the three (free
parallelism 1.82 before, 2.02 after): the battle matrix 1.60x fresh and 1.46x with the workers
started, whose 1-job medians, the same run measured twice, were 0.70 s and 0.92 s (the noise of
three samples on this host); the table at 1,000,000 a cell 1.03x fresh, 1.41x started; the default
``--jobs`` 1.02x on the 2,000,000-trial odds and 1.35x on the 3,000,000-a-cell table.

Why the fresh table at 1,000,000 a cell cannot reach 1.7x on 2 cores: 2 jobs cost the CPU of the
work (1.05-1.25 s) plus the start-up of two loky workers and loky's resource tracker, each a
Python that imports joblib whole and so numpy (0.2-0.3 CPU seconds each, 0.5-0.8 in all, measured
from /proc), and two cores cannot do that in less than (1.1 + 0.6) / 2 = 0.85 s: 1.3x at best.
At 3,000,000 a cell (3 s of work) the default run starts its workers and the whole command
takes 2.2 s against 3.2 s in one process. Tried on the way and left out: loky on
multiprocessing's fork server (one process imports, the workers are forked from it: the start-up
CPU falls only to 0.5-0.6 s, as the resource tracker stays, and every worker then imports the
command's main script again, which the default loky start does not do); one OpenBLAS thread in
the tracker (its numpy import spins a second thread for 0.1 CPU seconds: no change measured).

Each worker its own start, 6 December 2026, evening. The two tasks that start the workers and
import the game went, in 1 start of 3, both to the first worker up; the other then imported War
for Arrakis during its first chunk, 30-50 ms with the grid waiting (per-task timestamps: its first
chunk began 38-52 ms into the run, against 10-12 ms for the first worker). Each worker now signs
in and holds its task until the other has (``runner._ready``): both begin at 10-14 ms in every
run since. The rest of what 2 jobs lose here, measured the same evening with the workers
started (one worker's sum of chunk times against the 1-job run's, and a profile of each): the
chunks take 5-11% longer in all, as each worker works out again the values and tables of the
smaller battles inside the larger ones that the other has built (``_transitions`` and the
backward values called 817 times against 434); about 0.3 ms of joblib's round trip a chunk; 11
ms before the first chunk and 13-20 ms after the last (the comparisons, in the parent, as with
1 job). Medians of 6 pairs after it (free parallelism 1.97-1.99): 1.62x fresh, 1.60x with the
workers started. A whole ``make bench`` later that evening (free parallelism 2.04 before, 1.98
after): the battle matrix 1.69x fresh and 1.55x with the workers started; the table at
1,000,000 a cell 1.10x fresh and 1.61x started.

Bundles of one affinity, 7 December 2026. One task a chunk, each worker built again the chains
and memos of every settlement rank that the other had built too. A question may now name the
affinity of a setup (a chain question's context: here the settlement rank, with each variant's
rules) and the runner gives the workers bundles of one affinity (``runner._bundles``): the
battle matrix's 144 points go as four bundles, one a rank. Per-task timestamps in the workers,
workers started, 12 alternated runs on one host (1 job 1.19 s): the two workers' busy time
1.25 s in all with one task a chunk against 1.15 s bundled, the run 0.709 s against 0.665 s
(1.68x -> 1.80x); the two workers' loads then differ by 0.06 s (the ranks' battles differ in
length). The same measure with the first ``bench_grid`` rows: 1.80x fresh, 1.52x with the
workers started, whose 1-job medians (the same measure) were 1.17 s and 0.95 s: on this host
the 1-job run alone varies from 0.83 to 1.19 s between runs. Later that day (1 job 0.843 s,
medians of 10): whole ranks 0.451 s (1.87x), one task a chunk 0.502 s (1.68x), and bundles that
shrink as the run ends (each a quarter of what is left) 0.508 s: cut smaller, a rank's largest
battles ran on a worker without its smaller battles' memos. Bundles are made only with at least
two affinities a worker (4 ranks on 4 workers would leave workers idle at the end), and never on
a dask cluster, whose size the runner does not know. The whole ``make bench`` after it (free
parallelism 1.87 before, 2.04 after): 1.30x fresh (1 job 0.83 s, 2 jobs 0.63 s) and 1.79x with
the workers started (0.89 s, 0.50 s). Right after, 8 alternated runs of each (1 job 1.075 s
fresh, 1.021 s started): fresh, bundles 0.589 s (1.82x), whole ranks 0.623 s, a chunk a task
0.618 s; started, 0.620 s, 0.629 s and 0.598 s. The wall times of 2 jobs differ by less than the
runs' noise; the workers' busy time above is the steadier measure of what bundles save.

First, what the machine gives two processes at the moment (2.0 when idle): a speed-up can only
be read against it. Beside each speed-up, the CPU seconds of the 2-job run (parent and workers)
over those of the 1-job run: near 1 when the pool adds little work of its own (the workers'
start-up, imports and memos are that work).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_startup import seconds
from common import line

ROOT = Path(__file__).resolve().parent.parent

PREAMBLE = """
import json, resource, time
def cpu(who):
    u = resource.getrusage(who)
    return u.ru_utime + u.ru_stime
"""
RUN = """
def finish(started, cpu_started):
    seconds = time.perf_counter() - started
    try:
        from joblib.externals.loky import get_reusable_executor
        get_reusable_executor().shutdown(wait=True)  # reap the workers so that RUSAGE_CHILDREN counts them
    except ImportError:
        pass
    used = cpu(resource.RUSAGE_SELF) - cpu_started + cpu(resource.RUSAGE_CHILDREN)
    print(json.dumps({"seconds": seconds, "cpu": used}))
"""
BATTLE_MATRIX = """
import dataclasses
from montecarlo.scenarios import load_scenario, run_scenario, start_scenario_workers
from montecarlo.engine import runner
sc = dataclasses.replace(load_scenario("scenarios/war_for_arrakis/battle-matrix.toml"), trials=20_000)
start_scenario_workers(sc, JOBS)  # as `montecarlo report` does once the scenario is read
import montecarlo.reporting  # what the command loads before it simulates (matplotlib: about 0.6 s)
if WARM:
    runner.wait_for_workers()
started, cpu_started = time.perf_counter(), cpu(resource.RUSAGE_SELF)
run_scenario(sc, jobs=JOBS)
finish(started, cpu_started)
"""
DUEL_TABLE = """
from montecarlo.analysis import RunSettings, ask_many
from montecarlo.engine import runner
from montecarlo.games.dune1984.fights import STRENGTHS
settings = RunSettings(trials=TRIALS, jobs=JOBS)
settings.start_workers(["montecarlo.games.dune1984.fights"])  # as the command does once its options are read
setups = [{"attacker": a, "defender": d} for a in STRENGTHS for d in STRENGTHS]
if WARM:
    runner.wait_for_workers()
started, cpu_started = time.perf_counter(), cpu(resource.RUSAGE_SELF)
ask_many("dune1984", "duel", setups, settings=settings)
finish(started, cpu_started)
"""
REPORT_WRITING = """
import tempfile
from pathlib import Path
from montecarlo.reporting import write_report
from montecarlo.scenarios import load_scenario, run_scenario
result = run_scenario(load_scenario("scenarios/dune1984/equipment-variants.toml"), jobs=JOBS)
with tempfile.TemporaryDirectory() as tmp:
    started, cpu_started = time.perf_counter(), cpu(resource.RUSAGE_SELF)
    write_report(result, Path(tmp) / "report", jobs=JOBS)
    finish(started, cpu_started)
"""
BUSY = """
from joblib import Parallel, delayed
parallel = Parallel(n_jobs=2)
parallel(delayed(sum)(range(10)) for _ in range(2))
ratios = []
for _ in range(5):
    start = time.perf_counter()
    parallel([delayed(sum)(range(30_000_000))])
    one = time.perf_counter() - start
    start = time.perf_counter()
    parallel(delayed(sum)(range(30_000_000)) for _ in range(2))
    ratios.append(2 * one / (time.perf_counter() - start))
print(json.dumps({"ratio": sorted(ratios)[2]}))
"""


def fresh(code: str, **values) -> dict:
    """Run ``code`` in a fresh Python with ``values`` substituted; its JSON line."""
    for name, value in values.items():
        code = code.replace(name.upper(), repr(value))
    script = PREAMBLE + RUN + code
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def paired(code: str, repeats: int, **values) -> tuple[float, float, float]:
    """Median seconds with 1 job and with 2 (alternated), and the ratio of their median CPU."""
    seconds: dict[int, list[float]] = {1: [], 2: []}
    cpu: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(repeats):
        for jobs in (1, 2):
            got = fresh(code, jobs=jobs, **values)
            seconds[jobs].append(got["seconds"])
            cpu[jobs].append(got["cpu"])
    median = statistics.median
    return median(seconds[1]), median(seconds[2]), median(cpu[2]) / median(cpu[1])


def report(label: str, one: float, two: float, cpu_ratio: float, target: str = ">= 1.7x") -> None:
    line(f"{label}, 1 job", one, "s")
    line(f"{label}, 2 jobs", two, "s")
    line(f"{label}, speed-up of 2 jobs", one / two, "x", target)
    line(f"{label}, CPU of 2 jobs / CPU of 1", cpu_ratio, "x cpu", "near 1")


def default_jobs(label: str, args: list[str], repeats: int, target: str) -> None:
    """A whole command with the default --jobs (workers started once the run shows more than
    1.5 s of work left) against --jobs 1, alternated, each in a fresh process as a user types
    it (bench_startup's timing): medians and the ratio."""
    command = [sys.executable, "-m", "montecarlo", *args, "--json"]
    one, auto = [], []
    for _ in range(repeats):
        one.append(seconds([*command, "--jobs", "1"]))
        auto.append(seconds(command))
    median = statistics.median
    line(f"{label}, --jobs 1", median(one), "s")
    line(f"{label}, default --jobs", median(auto), "s")
    line(f"{label}, speed-up of the default", median(one) / median(auto), "x", target)


def main() -> None:
    started = time.perf_counter()
    free = "free parallelism of the machine (2 busy processes vs 1)"
    line(f"{free}, before", fresh(BUSY)["ratio"], "x", "2 if idle")
    report("battle-matrix report 144x2, 20,000 trials", *paired(BATTLE_MATRIX, 5, warm=False))
    report("battle-matrix report 144x2, 20,000 trials, workers started", *paired(BATTLE_MATRIX, 5, warm=True))
    report("table dune1984, 50,000 trials a cell", *paired(DUEL_TABLE, 3, trials=50_000, warm=False),
           target="")
    report("table dune1984, 1,000,000 trials a cell", *paired(DUEL_TABLE, 3, trials=1_000_000, warm=False))
    report("table dune1984, 1,000,000 trials a cell, workers started",
           *paired(DUEL_TABLE, 3, trials=1_000_000, warm=True))
    default_jobs("odds dune1984 4 vs 5, 2,000,000 trials (0.04 s of work), whole command",
                 ["odds", "dune1984", "--attacker", "4", "--defender", "5", "-n", "2000000"], 5, ">= 0.9x")
    default_jobs("table dune1984, 3,000,000 trials a cell (3 s of work), whole command",
                 ["table", "dune1984", "-n", "3000000"], 3, "> 1x")
    one, two, _ = paired(REPORT_WRITING, 3)  # the CPU ratio would count the run's workers too
    label = "writing the equipment-variants report (5 plots), plots on the run's workers"
    line(f"{label}, 1 job", one, "s")
    line(f"{label}, 2 jobs", two, "s")
    line(f"{label}, speed-up of 2 jobs", one / two, "x")
    line(f"{free}, after", fresh(BUSY)["ratio"], "x", "2 if idle")
    print(f"(bench_grid took {time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
