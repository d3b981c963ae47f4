"""Start-up of the command line, as ratios to ``python -c "import numpy"`` timed in the same run.

Each command runs in a fresh process (as a user types it); the figure is the median wall time
of several runs after one warm-up. Targets (issue 11): ``montecarlo --help`` at most 3x, a
default ``montecarlo odds dune1984 --attacker 4 --defender 5`` at most 6x; ``import montecarlo``
(the Python API, loaded lazily; issue 22) at most 3x.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from common import FIGURES

PYTHON = sys.executable
COMMANDS = {
    "python -c 'import numpy'": [PYTHON, "-c", "import numpy"],
    "python -c 'import montecarlo'": [PYTHON, "-c", "import montecarlo"],
    "montecarlo --help": [PYTHON, "-m", "montecarlo", "--help"],
    "montecarlo odds dune1984 --attacker 4 --defender 5": [
        PYTHON,
        "-m",
        "montecarlo",
        "odds",
        "dune1984",
        "--attacker",
        "4",
        "--defender",
        "5",
    ],
    "montecarlo odds imperium --troops 3,2,2,1": [
        PYTHON,
        "-m",
        "montecarlo",
        "odds",
        "imperium",
        "--troops",
        "3,2,2,1",
    ],
}
TARGETS = {
    "python -c 'import montecarlo'": 3.0,
    "montecarlo --help": 3.0,
    "montecarlo odds dune1984 --attacker 4 --defender 5": 6.0,
}


def seconds(command: list[str]) -> float:
    env = {**os.environ, "COLUMNS": "80"}
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def measure(repeats: int = 7) -> dict[str, float]:
    """Median seconds per command; the commands are interleaved so that noise hits all alike."""
    for command in COMMANDS.values():  # warm the file cache
        seconds(command)
    times: dict[str, list[float]] = {label: [] for label in COMMANDS}
    for _ in range(repeats):
        for label, command in COMMANDS.items():
            times[label].append(seconds(command))
    return {label: statistics.median(values) for label, values in times.items()}


def main() -> None:
    medians = measure()
    base = medians["python -c 'import numpy'"]
    for label, value in medians.items():
        ratio = value / base
        target = TARGETS.get(label)
        verdict = (
            "" if target is None else f"   (target <= {target:g}x: {'met' if ratio <= target else 'MISSED'})"
        )
        print(f"{label:<58} {value:6.3f} s  {ratio:5.2f}x numpy{verdict}", flush=True)
        FIGURES.append({"figure": label, "value": value, "unit": "s", "target": None})
        FIGURES.append(
            {"figure": f"{label} / numpy", "value": ratio, "unit": "x numpy",
             "target": None if target is None else f"<= {target:g}x"}
        )


if __name__ == "__main__":
    main()
