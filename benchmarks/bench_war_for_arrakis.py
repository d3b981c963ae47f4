"""Dune: War for Arrakis battles: kernel and engine throughput, exact round and battle timings.

The setup of the issue: 5 regulars + 1 elite + a Bashar attacking 4 regulars + 1 Sardaukar in a
rank-1 settlement. The kernel samples the battle's absorbing chain (one core, no engine); the
engine rate runs 20 million battles on 2 workers. The exact figures are medians with every memo
cleared first: the joint distribution of one round for 6 dice against 6 (the two pools'
multinomial distributions and their combination), the whole battle of the issue's setup, and the
6 x 6 x 4 matrix of regular-only battles (regulars 1..6 a side, settlement rank 0..3).
"""

from __future__ import annotations

import statistics
import time

from common import engine_rate, kernel_rate, line

from montecarlo.games.war_for_arrakis import battle
from montecarlo.games.war_for_arrakis.rules import Rules

SETUP = {"attacker": "5 regular, 1 elite, bashar", "defender": "4 regular, 1 fedaykin", "settlement": 1}


def cold_ms(func, repeats: int = 21) -> float:
    """Median milliseconds of ``func()`` with every War for Arrakis memo cleared before each call."""
    times = []
    for _ in range(repeats):
        battle.clear_caches()
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def round_6v6() -> None:
    rules = Rules()
    side = (6, 0, rules.die, ())
    battle.round_table(side, side, 0, 0, 12, 12)


def whole_battle() -> None:
    battle.exact_battle(Rules(), battle.BattleSetup(**SETUP))


def matrix() -> None:
    rules = Rules()
    for a in range(1, 7):
        for d in range(1, 7):
            for rank in range(4):
                battle.exact_battle(
                    rules, battle.BattleSetup(f"{a} regular", f"{d} regular", settlement=rank)
                )


def main() -> None:
    line(
        "battle kernel 5r+1e+Bashar vs 4r+1 Sardaukar, rank 1",
        kernel_rate("war-for-arrakis", "battle", SETUP),
        "battles/s",
    )
    line(
        "battle engine, same setup, 2 jobs, 20 M battles",
        engine_rate("war-for-arrakis", "battle", SETUP, 20_000_000, jobs=2),
        "battles/s",
        ">= 2 M/s",
    )
    line("exact round distribution, 6 dice vs 6, memos cold", cold_ms(round_6v6), "ms", "< 1 ms")
    line("exact whole battle of the setup above, memos cold", cold_ms(whole_battle), "ms")
    line("exact 6 x 6 x 4 regulars matrix, memos cold", cold_ms(matrix, repeats=3), "ms")


if __name__ == "__main__":
    main()
