"""``make bench``: run every ``benchmarks/bench_*.py`` script's ``main()`` in turn, then write
every figure to ``benchmarks/results.json`` (figure, value, unit, target, and the machine's facts)
so that a later run can be compared with ``benchmarks/compare.py OLD NEW``.

``python benchmarks/run.py grid startup`` runs only the scripts whose names contain a word;
``--out FILE`` writes the figures elsewhere.
"""

from __future__ import annotations

import datetime
import importlib
import json
import os
import pathlib
import platform
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def machine() -> dict:
    """What the figures depend on: cores, CPU, load, Python and numpy, the commit measured."""
    import numpy

    cpu = platform.processor()
    try:
        for text in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if text.startswith("model name"):
                cpu = text.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = None
    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "commit": commit,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
    }


def main() -> None:
    args = sys.argv[1:]
    out = HERE / "results.json"
    if "--out" in args:
        at = args.index("--out")
        out = pathlib.Path(args[at + 1])
        del args[at : at + 2]
    started = machine()
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem
        if args and not any(o in name for o in args):
            continue
        print(f"== {name}", flush=True)
        importlib.import_module(name).main()
    from common import FIGURES

    facts = {**started, "load_average_after": machine()["load_average"]}
    out.write_text(json.dumps({"machine": facts, "figures": FIGURES}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({len(FIGURES)} figures)", flush=True)


if __name__ == "__main__":
    main()
