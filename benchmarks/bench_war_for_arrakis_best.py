"""War for Arrakis best play (policy ``best``): solved cold, ``advise`` from the shell, sampling.

- Best play solved with every memo cleared (dice pools, round tables, chains, solutions), for
  legions of up to 6 units with leaders on both sides and a settlement: the exact values of every
  metric under best play (the solve plus the exact pass over the solved chain), median of 7, with
  the same battle under the fixed policy until_destroyed beside it; then the largest legions
  without a settlement, where free continuations make cycles (no target).
- ``montecarlo war-for-arrakis advise`` in a fresh process, start-up included (median of 5),
  beside ``python -c "import numpy"`` in the same run.
- The battle kernel under the solved policy against the same question's fixed policy: battles
  per second on one core, and their ratio (target at least 0.5).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from common import kernel_rate, line

from montecarlo.games.war_for_arrakis import battle
from montecarlo.games.war_for_arrakis.rules import Rules

CASES = [  # (attacker, defender, settlement rank, objective)
    ("6 regular, Baron Harkonnen, Beast Rabban", "4 regular, 2 fedaykin, Stilgar", 3, "trade:2"),
    ("5 regular, 1 elite, Feyd-Rautha, Shaddam IV", "4 regular, 2 fedaykin, Stilgar, naib", 2, "trade:2"),
    ("4 regular, 2 sardaukar, Baron Harkonnen, Beast Rabban", "6 regular, naib", 1, "win"),
    ("4 regular, 2 sardaukar, Baron Harkonnen, Beast Rabban, Thufir Hawat",
     "3 regular, 3 fedaykin, Stilgar, naib", 3, "win"),
]
FREE = [  # free continuation: a round that changes nothing can come back through a Specials choice
    ("6 elite, Baron Harkonnen, Shaddam IV, Thufir Hawat, Feyd-Rautha",
     "6 fedaykin, Stilgar, naib, Chani", 0, "trade:1"),
]
ADVISE = [
    sys.executable, "-m", "montecarlo", "war-for-arrakis", "advise",
    "-a", "4 regular, 1 elite, Baron Harkonnen, Beast Rabban", "-d", "4 regular, 1 fedaykin, Stilgar",
    "--settlement", "2", "--objective", "trade:2",
]
SAMPLED = {
    "attacker": "4 regular, 1 sardaukar, Baron Harkonnen, Beast Rabban",
    "defender": "4 regular, 1 fedaykin, Stilgar",
    "settlement": 1,
    "objective": "trade:2",
}


def cold_ms(rules: Rules, setup: battle.BattleSetup, repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        battle.clear_caches()
        start = time.perf_counter()
        battle.exact_battle(rules, setup)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def shell_seconds(command: list[str], repeats: int = 5) -> float:
    env = {**os.environ, "COLUMNS": "100"}
    run = lambda: subprocess.run(  # noqa: E731
        command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    run()  # warm the file cache
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    best, fixed = Rules(attack="best"), Rules()
    battle.exact_battle(best, battle.BattleSetup("1 regular", "1 regular"))  # imports, not timed
    worst = 0.0
    for attacker, defender, rank, objective in CASES:
        setup = battle.BattleSetup(attacker, defender, rank, objective=objective)
        ms = cold_ms(best, setup)
        worst = max(worst, ms)
        states = battle.BATTLE.solution(best, setup).size()
        print(f"{attacker} vs {defender}, rank {rank}, {objective}: {states} states under best play")
        line("  best play, cold", ms, "ms", "< 100 ms")
        line("  the same battle under until_destroyed, cold", cold_ms(fixed, setup), "ms")
    line("best play cold: the slowest of the legions above", worst, "ms", "< 100 ms")
    for attacker, defender, rank, objective in FREE:
        setup = battle.BattleSetup(attacker, defender, rank, objective=objective)
        states = battle.BATTLE.solution(best, setup).size()
        print(f"{attacker} vs {defender}, no settlement, {objective}: {states} states under best play")
        line("  best play, cold (no target: the issue's is with a settlement)", cold_ms(best, setup), "ms")
        line("  the same battle under until_destroyed, cold", cold_ms(fixed, setup), "ms")
    numpy = shell_seconds([sys.executable, "-c", "import numpy"])
    advise = shell_seconds(ADVISE)
    line("advise 4r+1e+Baron+Rabban vs 4r+1f+Stilgar, rank 2 (a shell)", advise, "s", "< 1 s")
    line("  python -c 'import numpy' in the same run", numpy, "s")
    rate_best = kernel_rate("war-for-arrakis", "battle", SAMPLED, variants=("best_play",))
    rate_fixed = kernel_rate("war-for-arrakis", "battle", SAMPLED)
    line("battle kernel under the solved policy (trade:2)", rate_best, "battles/s")
    line("battle kernel, same question, until_destroyed", rate_fixed, "battles/s")
    line("  solved policy / fixed policy", rate_best / rate_fixed, "x", ">= 0.5")


if __name__ == "__main__":
    main()
