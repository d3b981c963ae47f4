"""Compare two ``make bench`` results: ``python benchmarks/compare.py OLD.json NEW.json``.

One line per figure found in both files: old value, new value and the ratio new / old, with
"better" or "worse" read from the unit (a time is better lower, a rate or a speed-up higher).
Figures only in one file are listed after. Machines differ: compare ratios, and mind the load
averages printed at the top.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

LOWER_IS_BETTER = ("s", "ms", "us", "MB", "GB", "x numpy", "x cpu")


def load(path: str) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        sys.exit(f"error: {path}: not a benchmarks/results.json ({exc})")
    if not isinstance(data, dict) or not isinstance(data.get("figures"), list):
        sys.exit(f"error: {path}: not a benchmarks/results.json (no figures)")
    return data


def verdict(unit: str, ratio: float) -> str:
    if ratio == 1:
        return "same"
    lower = unit in LOWER_IS_BETTER or unit.startswith(("s ", "ms "))
    return "better" if (ratio < 1) == lower else "worse"


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        sys.exit("usage: python benchmarks/compare.py OLD.json NEW.json")
    old, new = (load(p) for p in argv)
    for label, data in (("old", old), ("new", new)):
        m = data.get("machine", {})
        print(f"{label}: {m.get('date')} commit {m.get('commit')}, {m.get('cores')} cores, "
              f"load {m.get('load_average')}")
    before = {f["figure"]: f for f in old["figures"]}
    seen = set()
    for f in new["figures"]:
        o = before.get(f["figure"])
        if o is None:
            continue
        seen.add(f["figure"])
        unit = f.get("unit", "")
        ratio = f["value"] / o["value"] if o["value"] else float("inf")
        print(f"{f['figure']:<58} {o['value']:>12,.2f} -> {f['value']:>12,.2f} {unit:<10} "
              f"x{ratio:.2f} {verdict(unit, ratio)}")
    for f in old["figures"]:
        if f["figure"] not in seen:
            print(f"{f['figure']:<58} only in the old run")
    for f in new["figures"]:
        if f["figure"] not in before:
            print(f"{f['figure']:<58} only in the new run")


if __name__ == "__main__":
    main(sys.argv[1:])
