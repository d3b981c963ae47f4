"""Grids on every core: a grid's (setup x chunk) tasks in one pool of workers (issue 24).

Two grids, each timed with 1 and with 2 jobs, alternating so that a busy moment of the shared
machine falls on both; figures are medians after one warm-up of each (loky's workers started,
memos filled in both), and the ratio is the speed-up of 2 jobs over 1:

- the War for Arrakis battle matrix (144 setups x 2 variants) at 20,000 trials a setup: the
  simulation part of ``montecarlo report`` (``run_scenario``), target >= 1.7x;
- ``montecarlo table dune1984`` (36 duels): its simulation part (``ask_many``) at the default
  50,000 trials a cell, and at 1,000,000, target >= 1.7x.

First, what the machine gives two processes at the moment (2.0 when idle): a speed-up can only
be read against it.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from pathlib import Path

from common import line

from montecarlo.analysis import RunSettings, ask_many
from montecarlo.games.dune1984.fights import STRENGTHS
from montecarlo.scenarios import load_scenario, run_scenario

ROOT = Path(__file__).resolve().parent.parent
BATTLE_MATRIX = ROOT / "scenarios" / "war_for_arrakis" / "battle-matrix.toml"


def paired_medians(run, repeats: int) -> tuple[float, float]:
    """Median seconds of ``run(1)`` and ``run(2)``, alternated, after one warm-up of each."""
    run(1), run(2)
    times: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(repeats):
        for jobs in (1, 2):
            start = time.perf_counter()
            run(jobs)
            times[jobs].append(time.perf_counter() - start)
    return statistics.median(times[1]), statistics.median(times[2])


def battle_matrix(jobs: int) -> None:
    scenario = dataclasses.replace(load_scenario(BATTLE_MATRIX), trials=20_000)
    run_scenario(scenario, jobs=jobs)


def duel_table(trials: int):
    setups = [{"attacker": a, "defender": d} for a in STRENGTHS for d in STRENGTHS]

    def run(jobs: int) -> None:
        ask_many("dune1984", "duel", setups, settings=RunSettings(trials=trials, jobs=jobs))

    return run


def report(label: str, one: float, two: float, target: str = ">= 1.7x") -> None:
    line(f"{label}, 1 job", one, "s")
    line(f"{label}, 2 jobs", two, "s")
    line(f"{label}, speed-up of 2 jobs", one / two, "x", target)


def free_parallelism(repeats: int = 5) -> float:
    """What the shared machine gives two processes now: 2 x (one busy task's time) / (two at once).

    2.0 on an idle 2-core machine; near 1.0 when other work leaves room for one process only, and
    then no pool can show a speed-up. Two loky workers each sum a range (pure CPU, no numpy).
    """
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=2)
    work = 30_000_000
    parallel(delayed(sum)(range(10)) for _ in range(2))
    ratios = []
    for _ in range(repeats):
        start = time.perf_counter()
        parallel([delayed(sum)(range(work))])
        one = time.perf_counter() - start
        start = time.perf_counter()
        parallel(delayed(sum)(range(work)) for _ in range(2))
        ratios.append(2 * one / (time.perf_counter() - start))
    return statistics.median(ratios)


def main() -> None:
    line("free parallelism of the machine now (2 busy processes vs 1)", free_parallelism(), "x")
    report("battle-matrix report 144x2, 20,000 trials", *paired_medians(battle_matrix, 3))
    report("table dune1984, 50,000 trials a cell", *paired_medians(duel_table(50_000), 5), target="")
    report("table dune1984, 1,000,000 trials a cell", *paired_medians(duel_table(1_000_000), 3))


if __name__ == "__main__":
    main()
