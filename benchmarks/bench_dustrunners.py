"""Dustrunners: single combats and campaigns on the shipped (illustrative) 30-card deck, and best
play on the shipped 12-card deck.

Target (issue): at least 1,000,000 single combats per second with both cores, start-up excluded.
The kernel is plain numpy (piles as counts per kind of card, one vectorised draw per card);
no numba, so no per-process compile or import cost.

Best play (issue 19): every shipped enemy x vehicle on the 12-card deck solved in under 10 s in
all, cold (the exact recursion with a max over the ammo at each of your attacks, decided on the
deck merged by skulls); any combat it cannot solve within its budget is counted and timed
apart. Again with every VP redraw (``redraw = "all"``, the vehicles' own VP), where best play
also decides the finish and initiative redraws. Simulation under the solved policy (a lookup of
each trial's state) against the same question's fixed policy, without and with the redraws.
"""

import time

from common import CORES, engine_rate, kernel_rate, line

from montecarlo.games.dustrunners import combat
from montecarlo.games.dustrunners.deck import enemies, vehicles
from montecarlo.games.dustrunners.rules import Rules

SMALL = {"deck": "illustrative-12", "enemy": "road raiders", "vehicle": "interceptor"}


def best_play_all(redraw: str = "never") -> tuple[float, int, float, int]:
    """Cold solves of every shipped enemy x vehicle (first card): (seconds of those solved, how
    many, seconds spent on those refused as too large, how many)."""
    solved = refused = 0
    solved_s = refused_s = 0.0
    for enemy in enemies():
        for vehicle in vehicles():
            setup = combat.parse_combat({"deck": "illustrative-12", "enemy": enemy, "vehicle": vehicle,
                                         "policy": "best", "redraw": redraw})
            combat._solved_best.cache_clear()
            start = time.perf_counter()
            ok = combat._solved_best(Rules(), setup) is not None
            took = time.perf_counter() - start
            if ok:
                solved, solved_s = solved + 1, solved_s + took
            else:
                refused, refused_s = refused + 1, refused_s + took
    return solved_s, solved, refused_s, refused

COMBAT = {"enemy": "road raiders", "vehicle": "interceptor", "policy": "all_in"}
HARD = {"enemy": "war rig", "second_card": True, "vehicle": "hauler", "policy": "just_enough",
        "redraw": "when_losing"}
CAMPAIGN = {"vehicle": "interceptor", "fights": 8}


def main() -> None:
    solved_s, solved, refused_s, refused = best_play_all()
    line(f"dustrunners best play, {solved} enemy x vehicle solved cold (12 cards)", solved_s, "s in all",
         "every one under 10 s in all")
    line(f"dustrunners best play, {refused} refused as too large (their time)", refused_s, "s in all")
    solved_s, solved, refused_s, refused = best_play_all("all")
    line(f"dustrunners best play, redraw all, {solved} solved cold (12 cards)", solved_s, "s in all")
    line(f"dustrunners best play, redraw all, {refused} refused (their time)", refused_s, "s in all")
    line("dustrunners kernel, combat, 12 cards, best play (1 core)",
         kernel_rate("dustrunners", "combat", {**SMALL, "policy": "best"}), "trials/s",
         "half the fixed policy's")
    line("dustrunners kernel, combat, 12 cards, all_in (1 core)",
         kernel_rate("dustrunners", "combat", {**SMALL, "policy": "all_in"}), "trials/s")
    line("dustrunners kernel, combat, 12 cards, best, redraw all (1 core)",
         kernel_rate("dustrunners", "combat", {**SMALL, "policy": "best", "redraw": "all"}), "trials/s",
         "half the fixed policy's")
    line("dustrunners kernel, combat, 12 cards, all_in, redraw all (1 core)",
         kernel_rate("dustrunners", "combat", {**SMALL, "policy": "all_in", "redraw": "all"}), "trials/s")
    line("dustrunners kernel, combat, road raiders, all_in (1 core)",
         kernel_rate("dustrunners", "combat", COMBAT), "trials/s")
    line("dustrunners kernel, combat, war rig 2nd card, redraws (1 core)",
         kernel_rate("dustrunners", "combat", HARD), "trials/s")
    line("dustrunners kernel, campaign of 8 fights (1 core)",
         kernel_rate("dustrunners", "campaign", CAMPAIGN, n=32_768, repeats=3), "trials/s")
    line(f"dustrunners engine, combat, road raiders, all_in ({CORES} workers)",
         engine_rate("dustrunners", "combat", COMBAT, trials=10_000_000), "trials/s", "1,000,000 on 2 cores")


if __name__ == "__main__":
    main()
