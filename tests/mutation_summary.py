"""Summarise a mutmut run: one line per area, then ``killed K of N mutants (P%)`` as the last line.

Run by ``make mutation`` after ``mutmut run``; reads the ``mutants/**/*.meta`` files mutmut leaves.
A mutant counts as killed when a test failed, timed out or crashed on it; as not killed when it
survived or no test reached it. Mutants never run (outside the chosen globs) are not counted. The
last line is the mutation score: killed over every mutant run except the survivors listed as
equivalent in tests/MUTANTS.md (they cannot change a result); the raw counts are printed above it.
Usage: ``python tests/mutation_summary.py [GLOB ...]`` (mutant-name globs, as given to mutmut).
"""

from __future__ import annotations

import fnmatch
import json
import re
import sys
from collections import Counter
from pathlib import Path

KILLED = {1, 3, 36, 37, -24, 24, 152, 255, -11, -9}  # failed, pytest error, timeouts, type check, crash
AREAS = ("montecarlo.engine", "montecarlo.games.dune1984", "montecarlo.games.imperium",
         "montecarlo.games.war_for_arrakis", "montecarlo.games.dustrunners")


def results(root: Path = Path("mutants")) -> dict[str, int]:
    """Exit code of every mutant that was run, by mutant name."""
    out: dict[str, int] = {}
    for meta in sorted(root.glob("**/*.py.meta")):
        codes = json.loads(meta.read_text()).get("exit_code_by_key", {})
        out.update({name: code for name, code in codes.items() if code is not None})
    return out


def main(globs: list[str]) -> int:
    runs = {k: v for k, v in results().items() if not globs or any(fnmatch.fnmatch(k, g) for g in globs)}
    if not runs:
        print("no mutants were run (see mutmut's output above)")
        return 1
    listed = equivalent()
    for area in AREAS:
        names = [name for name in runs if name.startswith(area + ".")]
        if names:
            print(f"{area}: {_score(names, runs, listed)}")
    killed, spared = _counts(list(runs), runs, listed)
    raw = 100 * killed / len(runs)
    print(f"all areas, every mutant counted: killed {killed} of {len(runs)} ({raw:.1f}%); "
          f"{spared} of the survivors are equivalent (tests/MUTANTS.md)")
    rest = len(runs) - spared
    print(f"killed {killed} of {rest} mutants ({100 * killed / rest:.1f}%)")
    return 0


def _counts(names: list[str], runs: dict[str, int], listed: set[str]) -> tuple[int, int]:
    """(killed, survivors listed as equivalent) among ``names``."""
    killed = sum(runs[name] in KILLED for name in names)
    spared = sum(1 for name in names if runs[name] not in KILLED and is_listed(name, listed))
    return killed, spared


def _score(names: list[str], runs: dict[str, int], listed: set[str]) -> str:
    """One area's line: the mutation score without its equivalent survivors, then the raw counts."""
    killed, spared = _counts(names, runs, listed)
    kinds = Counter("survived" if c == 0 else "no tests" if c in (5, 33) else "killed" if c in KILLED
                    else f"exit {c}" for c in (runs[name] for name in names))
    left = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()) if k != "killed")
    rest = len(names) - spared
    score, raw = 100 * killed / max(rest, 1), 100 * killed / len(names)
    return (f"killed {killed} of {rest} ({score:.1f}%) without {spared} equivalent; "
            f"raw {killed} of {len(names)} ({raw:.1f}%)" + (f"; {left}" if left else ""))


LISTED = Path(__file__).with_name("MUTANTS.md")


def equivalent(path: Path = LISTED) -> set[str]:
    """Mutant names listed (in backquotes) as equivalent in tests/MUTANTS.md.

    A name may end in ``__mutmut_*`` for every mutant of one function (say, one run only at import).
    """
    if not path.exists():
        return set()
    return set(re.findall(r"`(montecarlo\.[\w.ǁ]+__mutmut_(?:\d+|\*))`", path.read_text(encoding="utf-8")))


def is_listed(name: str, listed: set[str]) -> bool:
    return name in listed or name.rsplit("_", 1)[0] + "_*" in listed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
