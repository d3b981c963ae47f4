"""Dune: Imperium conflicts: kernel and engine throughput (target: 5 M 4-player conflicts/s on 2 cores)."""

from common import CORES, engine_rate, kernel_rate, line

FOUR_FIXED = {"troops": "3,2,2,1", "revealed": 3}
FOUR_MIXED = {"troops": "1-3,deploy:1+3:uniform,2,0:1/4|2:3/4", "revealed": 3, "conflict": "skirmish"}


def main() -> None:
    line(
        "imperium kernel, 4 players, fixed troops (1 core)",
        kernel_rate("imperium", None, FOUR_FIXED),
        "trials/s",
        "3,000,000",
    )
    line(
        "imperium kernel, 4 players, random troops + card (1 core)",
        kernel_rate("imperium", None, FOUR_MIXED),
        "trials/s",
    )
    line(
        "imperium kernel, 4 players, tiebreak_by_troops (1 core)",
        kernel_rate("imperium", None, FOUR_MIXED, variants=("tiebreak_by_troops",)),
        "trials/s",
    )
    line("imperium kernel, 2 players (1 core)", kernel_rate("imperium", None, {"troops": "2,2"}), "trials/s")
    line(
        f"imperium engine, 4 players, fixed troops ({CORES} workers)",
        engine_rate("imperium", None, FOUR_FIXED, trials=20_000_000),
        "trials/s",
        "5,000,000 on 2 cores",
    )
    line(
        f"imperium engine, 4 players, random troops + card ({CORES} workers)",
        engine_rate("imperium", None, FOUR_MIXED, trials=20_000_000),
        "trials/s",
    )


if __name__ == "__main__":
    main()
