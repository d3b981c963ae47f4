"""Dustrunners: single combats and campaigns on the shipped (illustrative) 30-card deck.

Target (issue): at least 1,000,000 single combats per second with both cores, start-up excluded.
The kernel is plain numpy (piles as counts per kind of card, one vectorised draw per card);
no numba, so no per-process compile or import cost.
"""

from common import CORES, engine_rate, kernel_rate, line

COMBAT = {"enemy": "road raiders", "vehicle": "interceptor", "policy": "all_in"}
HARD = {"enemy": "war rig", "second_card": True, "vehicle": "hauler", "policy": "just_enough",
        "redraw": "when_losing"}
CAMPAIGN = {"vehicle": "interceptor", "fights": 8}


def main() -> None:
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
