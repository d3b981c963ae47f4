"""Dune (1984) fights: kernel and engine throughput, the exact 6 x 6 table, memory of a long run.

Figures are medians (the machine is shared). The kernel rates use the engine's chunk size and,
for comparison, a few others; the engine rate uses 2 jobs over 20 million 5-vs-5 duels; the
exact table is attacker_win for all 36 Strength pairs with no equipment, a Sword and a Gom
Jabbar, first with every memo cleared, then with the round-odds memo kept; peak memory is read
with getrusage in a subprocess that runs 100 million duels on 2 workers.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from common import engine_rate, kernel_rate, line

from montecarlo.analysis import kernel_for, resolve
from montecarlo.engine import runner
from montecarlo.games.dune1984 import fights
from montecarlo.games.dune1984.rules import Rules

SETUP = {"attacker": 5, "defender": 5}
KITS = {"plain": (), "sword": ("sword",), "gom jabbar": ("gom_jabbar",)}

MEMORY_RUN = """
import resource
from joblib.externals.loky import get_reusable_executor
from montecarlo.analysis import kernel_for, resolve
from montecarlo.engine import runner
g, q = resolve("dune1984", "duel")
kernel = kernel_for(q, g.rules(), q.setup({"attacker": 5, "defender": 5}))
result = runner.run(kernel, q.metrics, 100_000_000, 1, jobs=2)
get_reusable_executor().shutdown(wait=True)  # reap the workers so RUSAGE_CHILDREN counts them
usage = resource.getrusage
# this process's own peak: VmHWM, not ru_maxrss, which Linux carries over exec from the forking
# process (after other benchmarks, the bench runner's ~600 MB were reported as this run's)
try:
    status = open("/proc/self/status").read().split("VmHWM:")[1]
    own = int(status.split()[0])
except (OSError, IndexError, ValueError):
    own = usage(resource.RUSAGE_SELF).ru_maxrss
print(own, usage(resource.RUSAGE_CHILDREN).ru_maxrss, result.seconds)
"""


def exact_table_ms(keep_round_odds: bool, repeats: int = 31) -> float:
    """Median ms for exact attacker_win over the 6 x 6 grid x 3 equipment cases."""
    rules = Rules()
    setups = [
        fights.DuelSetup(a, d, kit)
        for kit in KITS.values()
        for a in fights.STRENGTHS
        for d in fights.STRENGTHS
    ]
    times = []
    for _ in range(repeats):
        fights.clear_caches()
        if keep_round_odds:
            for kit in KITS.values():
                fights.round_odds(rules, 1, kit, 1, ())
        start = time.perf_counter()
        for setup in setups:
            fights.exact(rules, setup)["attacker_win"]
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def engine_rate_at(chunk_size: int, trials: int = 20_000_000, repeats: int = 3) -> float:
    g, q = resolve("dune1984", "duel")
    kernel = kernel_for(q, g.rules(), q.setup(SETUP))
    runner.run(kernel, q.metrics, 4 * chunk_size, 1, jobs=2, chunk_size=chunk_size)  # warm the workers
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        runner.run(kernel, q.metrics, trials, 1, jobs=2, chunk_size=chunk_size)
        times.append(time.perf_counter() - start)
    return trials / statistics.median(times)


def main() -> None:
    for name, kit in KITS.items():
        rate = kernel_rate("dune1984", "duel", {**SETUP, "attacker_equipment": kit})
        line(
            f"duel kernel 5v5 {name} (chunk {runner.DEFAULT_CHUNK_SIZE:,})",
            rate,
            "duels/s",
            ">= 5.5 M/s per core",
        )
    for size in (1 << 14, 1 << 16, 1 << 18, 1 << 20):
        line(
            f"duel kernel 5v5 plain, chunk {size:,}",
            kernel_rate("dune1984", "duel", SETUP, n=size, repeats=5),
            "duels/s",
        )
    line(
        "duel engine 5v5, 2 jobs, 20 M duels",
        engine_rate("dune1984", "duel", SETUP, 20_000_000, jobs=2),
        "duels/s",
        ">= 10 M/s",
    )
    line(f"duel engine 5v5, 2 jobs, 20 M duels, chunk {1 << 19:,}", engine_rate_at(1 << 19), "duels/s")
    line("exact 6x6 table x 3 equipment, every memo cold", exact_table_ms(False), "ms", "< 5 ms")
    line("exact 6x6 table x 3 equipment, round odds memoised", exact_table_ms(True), "ms", "< 5 ms")
    out = subprocess.run(
        [sys.executable, "-c", MEMORY_RUN], capture_output=True, text=True, check=True
    ).stdout.split()
    own, children, seconds = int(out[0]) / 1024, int(out[1]) / 1024, float(out[2])
    line("100 M duels, 2 jobs: peak RSS of the biggest process", max(own, children), "MB", "< 500 MB")
    line("100 M duels, 2 jobs: peak RSS, parent + largest worker", own + children, "MB")
    line("100 M duels, 2 jobs: wall time", seconds, "s")


if __name__ == "__main__":
    main()
