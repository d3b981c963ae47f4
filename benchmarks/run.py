"""``make bench``: run every ``benchmarks/bench_*.py`` script's ``main()`` in turn."""

from __future__ import annotations

import importlib
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main() -> None:
    only = sys.argv[1:]
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem
        if only and not any(o in name for o in only):
            continue
        print(f"== {name}", flush=True)
        importlib.import_module(name).main()


if __name__ == "__main__":
    main()
