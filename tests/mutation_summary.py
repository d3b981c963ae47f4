"""Summarise a mutmut run, and keep the list of equivalent mutants (tests/MUTANTS.md) honest.

``python tests/mutation_summary.py [GLOB ...]``: after ``mutmut run`` (``make mutation``), one line
per area, then ``killed K of N mutants (P%)`` as the last line. Reads the ``mutants/**/*.meta``
files mutmut leaves. A mutant counts as killed when a test failed, timed out or crashed on it; as
not killed when it survived or no test reached it. Mutants never run (outside the chosen globs)
are not counted. The last line is the mutation score: killed over every mutant run except the
survivors listed as equivalent in tests/MUTANTS.md; the raw counts are printed above it.

``--check`` (``make mutation-check``): re-runs exactly the listed mutants with mutmut and reports
(a) listed mutants that are killed now (stale: remove them), (b) listed mutants whose function
changed since they were judged (the hash of its source no longer matches the one stored with the
entry: judge again, then restamp), and entries without a known category or a stamp. Exit 1 if any.
A listed mutant that mypy or ruff rejects is stale too.
``--check --no-run`` does only the source checks (b), in a second; ``--check GLOB ...`` re-runs only
the listed mutants matching the globs.

``--whole [--jobs=J] [GLOB ...]`` (``make mutation``): runs mutmut on every mutant (matching the
globs), and resumes instead when ``mutants/`` holds an unfinished whole run of the same source and
globs (``mutants/whole.json`` records a hash of the package, tests, scenarios and pyproject.toml):
a run of many hours survives an interruption, and the summary of an unfinished run says how many
mutants are left. The mutants listed as equivalent, in entries judged on today's source, are left
out (each would survive, at the cost of all its tests): ``--check`` runs exactly those. So are the
mutants that mypy or ruff rejects (``reject_by_lint``): they count as killed, as CI's ``make lint``
would reject them.

``--sample=N [--seed=S] [--jobs=J] [GLOB ...]`` (``make mutation-sample``): generates every mutant
(mutmut's own generation), picks N of them uniformly at random (seeded: the same N names every
time for the same source), records them in mutants/sample.json and runs mutmut on exactly those.
The summary then counts only the sample and prints, above its last line, the score estimated over
every mutant with its 95% (Wilson) interval: a measured score of the whole package in about an
hour, where a whole run takes days on 2 cores.

``--save-killers``: after a whole run, keeps the tests that killed each function's mutants in
tests/mutant-killers.txt, which a fresh clone's whole run starts from (only the order of a
mutant's tests depends on it).

``--stamp``: stores the current hash of every function an entry names, for entries that have no
stamp yet (to re-judge an entry, delete its stamp and run this again).

``--forget FUNCTION ...`` (``module.x_name`` or ``module.xǁClassǁname``, as ``--check`` prints
them): once every mutant of a changed function has been run again, removes that function's names
from every entry (after an edit its numbers name other mutations), drops the entries left empty
and keeps the other functions' stamps; then list today's survivors and ``--stamp`` them.
"""

from __future__ import annotations

import ast
import bisect
import fnmatch
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from montecarlo.engine import stats

KILLED = {1, 3, 36, 37, -24, 24, 152, 255, -11, -9}  # failed, pytest error, timeouts, type check, crash
TIMED_OUT = {36, -24, 24, 152}  # killed by mutmut's time limits (SIGXCPU), shown apart
TYPE_CHECKED = 37  # rejected by mypy or ruff before any test ran (``reject_by_lint``): never run
LEFT_OUT = 34  # mutmut's "skipped": a listed equivalent that a whole run leaves to --check
AREAS = ("montecarlo.engine", "montecarlo.games.dune1984", "montecarlo.games.imperium",
         "montecarlo.games.war_for_arrakis", "montecarlo.games.dustrunners", "montecarlo.analysis",
         "montecarlo.scenarios", "montecarlo.datagame", "montecarlo.reporting", "montecarlo.cli")
# Why a listed mutant cannot change a result (tests/MUTANTS.md explains each):
CATEGORIES = ("dtype", "cache", "stream-only", "unreachable", "message", "same-value", "negligible")
ROOT = Path(__file__).resolve().parents[1]
LISTED = Path(__file__).with_name("MUTANTS.md")
SAMPLE = Path("mutants") / "sample.json"  # written by --sample: the names drawn, out of how many
WHOLE = Path("mutants") / "whole.json"  # written by --whole: what the run is of, to resume it
# what a whole run's verdicts depend on (not the list of equivalents: judging survivors mid-run keeps it)
WATCHED = ("montecarlo", "tests", "scenarios", "pyproject.toml")
NAME = r"montecarlo\.[\w.ǁ]+__mutmut_(?:\d+|\*)"
ENTRY = re.compile(r"^- \[(?P<category>[\w-]+)\] (?P<text>.*?)(?: <!-- judged: (?P<stamp>[^>]*) -->)?$")


def verdicts(root: Path = Path("mutants")) -> dict[str, int | None]:
    """Exit code of every mutant generated, None for one not run yet, by mutant name (from the
    ``mutants/**/*.meta`` files mutmut keeps)."""
    out: dict[str, int | None] = {}
    for meta in sorted(root.glob("**/*.py.meta")):
        out.update(json.loads(meta.read_text()).get("exit_code_by_key", {}))
    return out


def results(root: Path = Path("mutants")) -> dict[str, int]:
    """Exit code of every mutant that was run, by mutant name."""
    return {name: code for name, code in verdicts(root).items() if code is not None}


def pending(globs: list[str], root: Path = Path("mutants")) -> list[str]:
    """Mutants generated (matching ``globs``) that have no verdict yet."""
    return [name for name, code in verdicts(root).items() if code is None and matches(name, globs)]


def main(globs: list[str]) -> int:
    """Print the summary of the mutants run (matching ``globs``). After ``--sample``, only the
    sample counts, and the line above the last estimates the score of every mutant."""
    drawn = json.loads(SAMPLE.read_text()) if SAMPLE.exists() else None
    runs = {k: v for k, v in results().items() if matches(k, globs)}
    if drawn is not None:
        chosen = set(drawn["names"])
        runs = {k: v for k, v in runs.items() if k in chosen}
    if not runs:
        print("no mutants were run (see mutmut's output above)")
        return 1
    left = pending(globs) if drawn is None and WHOLE.exists() else []
    listed = equivalent()
    not_run = sum(code == LEFT_OUT for code in runs.values())
    if not_run:
        print(f"{not_run:,} mutants listed as equivalent (tests/MUTANTS.md) were left out of this run, each "
              "as it was judged on today's source: make mutation-check runs them")
    for area in AREAS:
        names = [name for name in runs if name.startswith(area + ".")]
        if names:
            print(f"{area}: {_score(names, runs, listed)}")
    killed, spared = _counts(list(runs), runs, listed)
    raw = 100 * killed / len(runs)
    print(f"all areas, every mutant counted: killed {killed} of {len(runs)} ({raw:.1f}%); "
          f"{spared} of the survivors are equivalent (tests/MUTANTS.md)")
    rest = len(runs) - spared
    if drawn is not None:
        score = stats.proportion(killed, rest)  # the Wilson interval the reports use
        print(f"estimated over all {drawn['population']:,} mutants from a uniform sample of {len(runs)} "
              f"(seed {drawn['seed']}): {100 * killed / rest:.1f}% "
              f"(95% interval {100 * score.ci_low:.1f}% to {100 * score.ci_high:.1f}%)")
    unfinished = f"; {len(left):,} more not run yet (make mutation resumes the run)" if left else ""
    print(f"killed {killed} of {rest} mutants ({100 * killed / rest:.1f}%){unfinished}")
    return 0


def matches(name: str, globs: list[str]) -> bool:
    """Whether a mutant name matches one of ``globs`` (any name when there are none)."""
    return not globs or any(fnmatch.fnmatch(name, g) for g in globs)


def pick(names: list[str], n: int, seed: int) -> list[str]:
    """``n`` of ``names`` drawn uniformly without replacement; the same ones for the same seed
    whatever order the names came in (all of them when there are no more than ``n``)."""
    ordered = sorted(set(names))
    if n >= len(ordered):
        return ordered
    return sorted(random.Random(seed).sample(ordered, n))


def generate(jobs: int) -> list[str]:
    """Every mutant's name, from mutmut's own generation into ``mutants/`` (no test is run)."""
    import mutmut.__main__ as mm  # the dev extra; private steps of ``mutmut run`` (mutmut 3)

    mm.set_mutant_under_test("mutant_generation")
    Path("mutants").mkdir(exist_ok=True)
    for step in (mm.copy_src_dir, mm.copy_also_copy_files, mm.setup_source_paths,
                 mm.store_lines_covered_by_tests):
        step()
    mm.create_mutants(jobs)
    return list(verdicts())


KILLERS = ".mutant-killers"  # tests/mutant_order.py's record of the tests that killed each function's mutants
KILLED_BY = ".mutant-killed-by"  # and of the tests that killed each mutant, per function
# The known killers of a whole run, kept in the project (``--save-killers``): a fresh clone's first
# whole run starts from them, as a run in a used tree starts from its last run's (``fresh_tree``).
HINTS = Path(__file__).with_name("mutant-killers.txt")
HINTS_KEPT = 4  # killers kept a function, the first seen (a mutant runs at most 3 alone before the rest)


def _hint_lines(path: Path) -> list[tuple[str, list[str], dict[str, str]]]:
    """The lines of ``path``: per function (its killer file's name), its tests and the test that
    killed each of its mutants (by number). A line is the name and the tests, separated by tabs,
    then optionally a field ``#N:i N:i ...`` (mutant N was killed by the line's test i); lines
    starting with "#" are comments. Empty when unreadable."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    out = []
    for line in lines:
        name, *fields = line.split("\t")
        tests = [field for field in fields if field and not field.startswith("#")]
        if not name or not tests or name.startswith("#"):
            continue
        pairs = " ".join(field[1:] for field in fields if field.startswith("#")).split()
        by_mutant = {}
        for number, _, index in (pair.partition(":") for pair in pairs):
            if index.isdigit() and int(index) < len(tests):
                by_mutant[number] = tests[int(index)]
        out.append((name, tests, by_mutant))
    return out


def read_hints(path: Path = HINTS) -> dict[str, list[str]]:
    """Per function (its killer file's name), the tests kept in ``path`` (:func:`_hint_lines`)."""
    return {name: tests for name, tests, _ in _hint_lines(path)}


def read_mutant_hints(path: Path = HINTS) -> dict[str, dict[str, str]]:
    """Per function (its killer file's name), the test kept in ``path`` for each mutant number."""
    return {name: by_mutant for name, _, by_mutant in _hint_lines(path) if by_mutant}


def _read_lines(path: Path) -> list[str]:
    try:
        return [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    except (OSError, UnicodeDecodeError):
        return []


def known_killers(root: Path = Path("mutants")) -> dict[str, list[str]]:
    """Per function (its killer file's name), the tests that killed its mutants in ``root``, each
    once, in the order first seen."""
    return {path.name: list(dict.fromkeys(_read_lines(path))) for path in sorted((root / KILLERS).glob("*"))}


def known_mutant_killers(root: Path = Path("mutants")) -> dict[str, dict[str, str]]:
    """Per function (its killer file's name), the first test that killed each of its mutants in
    ``root``, by mutant number."""
    known: dict[str, dict[str, str]] = {}
    for path in sorted((root / KILLED_BY).glob("*")):
        for line in _read_lines(path):
            number, tab, test = line.partition("\t")
            if tab and test:
                known.setdefault(path.name, {}).setdefault(number, test)
    return known


def fresh_tree(root: Path = Path("mutants"), hints: Path = HINTS) -> int:
    """Empty mutmut's working copy ``root`` (written by these commands) but for the record of which
    tests killed each function's mutants (``KILLERS``), each test kept once, and which test killed
    each mutant (``KILLED_BY``), and add those the project keeps (``hints``, for a fresh clone): a
    fresh run then tries a mutant's own killer first, then its function's known killers (ordered by
    census seconds per kill; tests/mutant_order.py), from its first mutant on. Which tests a mutant
    must pass never changes. Returns how many functions have known killers."""
    kept = known_killers(root)
    for name, tests in read_hints(hints).items():
        kept[name] = list(dict.fromkeys([*kept.get(name, []), *tests]))
    by_mutant = known_mutant_killers(root)
    for name, tests_by_number in read_mutant_hints(hints).items():
        by_mutant[name] = {**tests_by_number, **by_mutant.get(name, {})}  # the tree's own first
    shutil.rmtree(root, ignore_errors=True)
    (root / KILLERS).mkdir(parents=True)
    (root / KILLED_BY).mkdir()
    for name, tests in kept.items():
        (root / KILLERS / name).write_text("".join(f"{test}\n" for test in tests), encoding="utf-8")
    for name, tests_by_number in by_mutant.items():
        (root / KILLED_BY / name).write_text(
            "".join(f"{number}\t{test}\n" for number, test in tests_by_number.items()), encoding="utf-8")
    return len(kept)


def save_killers(root: Path = Path("mutants"), hints: Path = HINTS) -> int:
    """``--save-killers``: write the known killers of the run in ``root`` to ``hints`` (replaced
    whole, atomically): per function, the first ``HINTS_KEPT`` seen and the first killer of each
    mutant; how many functions. Without a run in ``root`` nothing is written."""
    known, by_mutant = known_killers(root), known_mutant_killers(root)
    if not any(known.values()):  # no run here: the kept ones stay
        return 0
    lines = []
    for name, tests in sorted(known.items()):
        own = by_mutant.get(name, {})
        kept = list(dict.fromkeys([*tests[:HINTS_KEPT], *own.values()]))
        if not kept:
            continue
        index = {test: i for i, test in enumerate(kept)}
        pairs = " ".join(f"{number}:{index[test]}" for number, test in
                         sorted(own.items(), key=lambda item: int(item[0]) if item[0].isdigit() else -1))
        lines.append("\t".join([name, *kept, *([f"#{pairs}"] if pairs else [])]) + "\n")
    header = ("# The tests that killed each function's mutants in a whole mutation run, the first "
              f"{HINTS_KEPT} seen and\n"
              "# each mutant's first killer (a last field #N:i: mutant N was killed by test i of the line)\n"
              "# (tests/mutation_summary.py --save-killers): a fresh clone's `make mutation` tries them\n"
              "# first. Only the order of a mutant's tests depends on them.\n")
    partial = hints.with_name(hints.name + ".partial")
    partial.write_text(header + "".join(lines), encoding="utf-8")
    os.replace(partial, hints)
    return len(lines)


def fingerprint(globs: list[str], root: Path = ROOT) -> str:
    """A hash of what a whole run's verdicts depend on: the globs and every file under ``WATCHED``."""
    digest = hashlib.sha256(json.dumps(sorted(globs)).encode())
    for top in WATCHED:
        base = root / top
        files = [base] if base.is_file() else sorted(
            p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p != LISTED)
        for path in files:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def whole(jobs: int, globs: list[str]) -> int:
    """``--whole``: mutmut on every mutant matching ``globs``; an unfinished run of the same source
    and globs is resumed (mutmut keeps each verdict as it comes), anything else in ``mutants/`` is
    removed first (it is mutmut's working copy, written by these commands) but the known killers
    (:func:`fresh_tree`)."""
    mark = fingerprint(globs)
    earlier = json.loads(WHOLE.read_text()) if WHOLE.exists() and not SAMPLE.exists() else {}
    if earlier.get("fingerprint") == mark:
        if not earlier.get("lint"):  # stopped before the linters' verdicts were in
            reject_by_lint(globs)
            WHOLE.write_text(json.dumps({**earlier, "lint": True}))
        leave_out_listed(globs)  # entries judged while the run went on
        codes = {name: code for name, code in verdicts().items() if matches(name, globs)}
        left = [name for name, code in codes.items() if code is None]
        print(f"resuming the run started {earlier['started']}: {len(codes) - len(left):,} mutants done, "
              f"{len(left):,} to go", flush=True)
        if not left:
            return 0
        # mutmut skips mutants with a verdict unless they are named; with globs, name only the rest
        return run_mutmut(jobs, left if globs else [])
    if earlier:
        print(f"the source or MUTATE changed since the run started {earlier.get('started')}: starting afresh",
              flush=True)
    fresh_tree()
    started = datetime.now().isoformat(timespec="minutes")
    WHOLE.write_text(json.dumps({"fingerprint": mark, "globs": globs, "started": started}))
    generate(jobs)
    print(f"{reject_by_lint(globs):,} mutants are rejected by mypy or ruff (counted as killed, not run)",
          flush=True)
    WHOLE.write_text(json.dumps({"fingerprint": mark, "globs": globs, "started": started, "lint": True}))
    print(f"{leave_out_listed(globs):,} mutants listed as equivalent and judged on today's source are left "
          "out (make mutation-check runs them)", flush=True)
    # mutmut skips the mutants with a verdict unless they are named: with globs, name the others
    return run_mutmut(jobs, pending(globs) if globs else [])


# mypy as ``make lint`` (and so CI) runs it, but for two checks that mutmut's tree trips whatever
# the mutation: an attribute annotated in ``__init__`` is "already defined" in each copy of the
# function, and a "type: ignore" the package needs is "unused" in the copies.
MYPY = ("-m", "mypy", "montecarlo", "--output", "json", "--no-warn-unused-ignores",
        "--disable-error-code", "no-redef")


def mypy_errors(root: Path = Path("mutants")) -> list[dict[str, object]]:
    """mypy's errors over mutmut's tree (``MYPY``, run in ``root``), one dict each."""
    done = subprocess.run([sys.executable, *MYPY], cwd=root, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):  # 2: mypy itself failed (a crash, a bad option)
        raise SystemExit(f"mypy could not check mutmut's tree: {done.stderr.strip()[-500:]}")
    found = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]  # one per error
    return [error for error in found if error.get("severity") == "error"]


def ruff_errors(root: Path = Path("mutants")) -> list[dict[str, object]]:
    """ruff's findings over mutmut's tree, as ``make lint`` runs it (the settings of the
    ``pyproject.toml`` mutmut copies there), in ``mypy_errors``' form. Lines too long are left
    out: mutmut's names lengthen every ``def`` line."""
    command = [sys.executable, "-m", "ruff", "check", "montecarlo", "--output-format", "json", "--no-cache",
               "--exit-zero"]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"ruff could not check mutmut's tree: {done.stderr.strip()[-500:]}")
    here = root.resolve()
    return [{"file": Path(found["filename"]).resolve().relative_to(here).as_posix(),
             "line": found["location"]["row"], "code": found["code"], "message": found["message"],
             "severity": "error"} for found in json.loads(done.stdout or "[]") if found["code"] != "E501"]


def mutant_functions(path: Path) -> list[tuple[int, int, str]]:
    """(first line, last line, name) of every function mutmut wrote into ``path`` (a mutant or an
    original: ``x_f__mutmut_3``, ``xǁClassǁf__mutmut_orig``), at module level or in a class, sorted."""
    spans = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        for inner in node.body if isinstance(node, ast.ClassDef) else [node]:
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) and "__mutmut_" in inner.name:
                spans.append((inner.lineno, inner.end_lineno or inner.lineno, inner.name))
    return sorted(spans)


def rejected(errors: list[dict[str, object]], root: Path = Path("mutants")) -> dict[str, str]:
    """The mutants with a lint error (mypy's, ruff's) that their function's original does not
    have, each with its first such error. An error that the original has too comes from mutmut's
    copy, not from the mutation; an error outside any of mutmut's functions is no mutant's."""
    found: dict[str, list[tuple[object, object]]] = defaultdict(list)
    by_file: dict[str, list[dict[str, object]]] = defaultdict(list)
    for error in errors:
        by_file[str(error["file"])].append(error)
    for file, errs in by_file.items():
        spans = mutant_functions(root / file)
        starts = [start for start, _, _ in spans]
        module = file.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        for error in errs:
            line = int(str(error["line"]))
            at = bisect.bisect_right(starts, line) - 1
            if at >= 0 and line <= spans[at][1]:
                found[f"{module}.{spans[at][2]}"].append((error["code"], error["message"]))
    originals = {function_key(name): set(errs) for name, errs in found.items()
                 if name.endswith("__mutmut_orig")}
    out = {}
    for name, errs in found.items():
        own = [e for e in errs if e not in originals.get(function_key(name), set())]
        if own and not name.endswith("__mutmut_orig"):
            out[name] = f"{own[0][1]} [{own[0][0]}]"
    return out


def reject_by_lint(globs: list[str], names: set[str] | None = None, root: Path = Path("mutants")) -> int:
    """Give mutmut's verdict "caught by type check" (``TYPE_CHECKED``) to every mutant that mypy or
    ruff rejects: not run yet and matching ``globs``, or any of ``names`` whatever its verdict. CI
    runs both (``make lint``), so such a mutant could never land: it counts as killed without a
    process of its own (about one mutant in five; 2 to 3 minutes of mypy for the whole tree, a
    second of ruff). Returns how many."""
    bad = rejected(mypy_errors(root) + ruff_errors(root), root)
    count = 0
    for meta in sorted(root.glob("**/*.py.meta")):
        data = json.loads(meta.read_text())
        codes = data.get("exit_code_by_key", {})
        hit = [k for k, v in codes.items() if k in bad and (
            k in names if names is not None else v is None and matches(k, globs))]
        if hit:
            codes.update(dict.fromkeys(hit, TYPE_CHECKED))
            data.setdefault("type_check_error_by_key", {}).update({k: bad[k] for k in hit})
            meta.write_text(json.dumps(data, indent=4))
            count += len(hit)
    return count


def leave_out_listed(globs: list[str], root: Path = Path("mutants")) -> int:
    """Give every mutant not run yet (matching ``globs``) that tests/MUTANTS.md lists, in an entry
    judged on today's source of its function, mutmut's verdict "skipped" (``LEFT_OUT``): mutmut
    then does not run it. A listed mutant survives by definition, so it costs the whole time of
    its tests (on 3 December 2026, mutmut's census put the 606 listed at 18.6 hours of tests);
    ``make mutation-check`` runs exactly these. A mutant left out whose entry has gone since (or
    was edited) is run after all. Returns how many were left out now."""
    listed = judged_today()
    count = 0
    for meta in sorted(root.glob("**/*.py.meta")):
        data = json.loads(meta.read_text())
        codes = data.get("exit_code_by_key", {})
        out = [k for k, v in codes.items() if v is None and matches(k, globs) and is_listed(k, listed)]
        back = [k for k, v in codes.items() if v == LEFT_OUT and not is_listed(k, listed)]
        if out or back:
            codes.update(dict.fromkeys(out, LEFT_OUT))
            codes.update(dict.fromkeys(back))  # its entry went or was edited since: run it after all
            meta.write_text(json.dumps(data, indent=4))
            count += len(out)
    return count


def judged_today(path: Path = LISTED) -> set[str]:
    """The listed names whose functions have not changed since their entry was judged (stamped)."""
    cache: dict[str, dict[str, str]] = {}
    out = set()
    for entry in entries(path):
        for name in entry.names:
            now = current_hash(function_key(name), cache)
            if now is not None and entry.stamp.get(function_key(name)) == now:
                out.add(name)
    return out


def run_mutmut(jobs: int, names: list[str]) -> int:
    """``mutmut run`` with ``jobs`` children on ``names`` (globs or mutant names; every mutant
    without a verdict when there are none), from this environment, its census and clean run of
    the tests spread over the children (tests/mutmut_shards.py); its exit code."""
    command = [sys.executable, os.fspath(ROOT / "tests" / "mutmut_shards.py"), "run", "--max-children",
               str(jobs), *names]
    return subprocess.run(command, check=False).returncode


def sample(n: int, seed: int, jobs: int, globs: list[str]) -> int:
    """``--sample``: run mutmut on ``n`` mutants picked at random (recorded in mutants/sample.json,
    which the summary reads)."""
    fresh_tree()
    every = [k for k in generate(jobs) if matches(k, globs)]
    if not every:
        print(f"no mutant matches {' '.join(globs)}")
        return 1
    chosen = pick(every, n, seed)
    SAMPLE.write_text(json.dumps({"population": len(every), "seed": seed, "names": chosen}, indent=1))
    print(f"{len(chosen)} of {len(every):,} mutants picked at random (seed {seed})", flush=True)
    # as in a whole run: what mypy or ruff rejects counts as killed, a listed equivalent is left
    # out, neither runs its tests (mutmut runs a mutant it is named, whatever its verdict)
    linted = reject_by_lint(globs, names=set(chosen))
    leave_out_listed(globs)
    codes = verdicts()
    left = [name for name in chosen if codes.get(name) is None]
    print(f"{linted} of them rejected by mypy or ruff (counted as killed, not run), "
          f"{sum(codes.get(name) == LEFT_OUT for name in chosen)} listed as equivalent and left out; "
          f"{len(left)} to run", flush=True)
    return run_mutmut(jobs, left) if left else 0


def _counts(names: list[str], runs: dict[str, int], listed: set[str]) -> tuple[int, int]:
    """(killed, survivors listed as equivalent) among ``names``."""
    killed = sum(runs[name] in KILLED for name in names)
    spared = sum(1 for name in names if runs[name] not in KILLED and is_listed(name, listed))
    return killed, spared


def _score(names: list[str], runs: dict[str, int], listed: set[str]) -> str:
    """One area's line: the mutation score without its equivalent survivors, then the raw counts."""
    killed, spared = _counts(names, runs, listed)
    kinds = Counter("survived" if c == 0 else "no tests" if c in (5, 33) else "timed out" if c in TIMED_OUT
                    else "rejected by lint" if c == TYPE_CHECKED
                    else "listed, left out" if c == LEFT_OUT else "killed" if c in KILLED else f"exit {c}"
                    for c in (runs[name] for name in names))
    left = ", ".join(f"{n} {k}" + (" (counted as killed)" if k in ("timed out", "rejected by lint") else "")
                     for k, n in sorted(kinds.items()) if k != "killed")
    rest = len(names) - spared
    score, raw = 100 * killed / max(rest, 1), 100 * killed / len(names)
    return (f"killed {killed} of {rest} ({score:.1f}%) without {spared} equivalent; "
            f"raw {killed} of {len(names)} ({raw:.1f}%)" + (f"; {left}" if left else ""))


def equivalent(path: Path = LISTED) -> set[str]:
    """Mutant names listed (in backquotes) as equivalent in tests/MUTANTS.md.

    A name may end in ``__mutmut_*`` for every mutant of one function (say, one run only at import).
    """
    if not path.exists():
        return set()
    return {name for entry in entries(path) for name in entry.names}


def is_listed(name: str, listed: set[str]) -> bool:
    return name in listed or name.rsplit("_", 1)[0] + "_*" in listed


# ---------------------------------------------------------------- the list, checkable


@dataclass(frozen=True)
class Entry:
    """One bullet of tests/MUTANTS.md: ``- [category] `name`, ...: reason. <!-- judged: ... -->``."""

    line: int
    category: str
    names: tuple[str, ...]
    stamp: dict[str, str]  # function key -> hash of its source when the entry was judged


def entries(path: Path = LISTED) -> list[Entry]:
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("- ") or "__mutmut_" not in line:
            continue
        m = ENTRY.match(line)
        category = m["category"] if m else "?"
        names = tuple(re.findall(rf"`({NAME})`", line))
        stamp = dict(part.split("=", 1) for part in (m["stamp"] or "").split() if "=" in part) if m else {}
        out.append(Entry(number, category, names, stamp))
    return out


def function_key(name: str) -> str:
    """``montecarlo.engine.chain.xǁChainǁsample__mutmut_5`` -> ``montecarlo.engine.chain.xǁChainǁsample``."""
    return name.rsplit("__mutmut_", 1)[0]


def function_hashes(module: str, root: Path = ROOT) -> dict[str, str]:
    """``x_f`` / ``xǁClassǁmethod`` -> 12 hex digits of the sha256 of the function's AST: the hash
    mutmut itself keeps to tell a changed function (comments and layout do not count)."""
    path = root / (module.replace(".", "/") + ".py")
    if not path.exists():  # a package's own functions live in its __init__.py
        path = root / module.replace(".", "/") / "__init__.py"
    if not path.exists():
        return {}
    hashes: dict[str, str] = {}

    def visit(body: list[ast.stmt], cls: str = "") -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                key = f"xǁ{cls}ǁ{node.name}" if cls else f"x_{node.name}"
                hashes[key] = hashlib.sha256(ast.dump(node, annotate_fields=False).encode()).hexdigest()[:12]
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{cls}.{node.name}" if cls else node.name)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return hashes


def current_hash(key: str, cache: dict[str, dict[str, str]]) -> str | None:
    module, function = key.rsplit(".", 1)
    if module not in cache:
        cache[module] = function_hashes(module)
    return cache[module].get(function)


def source_problems(path: Path = LISTED) -> list[str]:
    """Entries without a known category or stamp, entries whose functions changed or went, and
    names listed twice (a survivor judged again without noticing it was already listed)."""
    problems, cache, first = [], {}, {}
    for entry in entries(path):
        where = f"tests/MUTANTS.md:{entry.line}"
        if entry.category not in CATEGORIES:
            problems.append(f"{where}: no known category (one of {', '.join(CATEGORIES)})")
        for name in entry.names:
            if name in first:
                problems.append(f"{where}: {name} is listed already at line {first[name]}")
            first.setdefault(name, entry.line)
        keys = sorted({function_key(n) for n in entry.names})
        for key in keys:
            now = current_hash(key, cache)
            if now is None:
                problems.append(f"{where}: {key} no longer exists: judge again")
            elif key not in entry.stamp:
                problems.append(f"{where}: {key} has no stamp: run --stamp once judged")
            elif entry.stamp[key] != now:
                problems.append(f"{where}: {key} changed since it was judged: judge again, then restamp")
    return problems


def stamp(path: Path = LISTED) -> int:
    """Add the current hashes to every entry that has no stamp yet; returns how many were stamped."""
    lines, cache, done = path.read_text(encoding="utf-8").splitlines(), {}, 0
    for entry in entries(path):
        if entry.stamp:
            continue
        keys = sorted({function_key(n) for n in entry.names})
        parts = [f"{k}={current_hash(k, cache)}" for k in keys if current_hash(k, cache)]
        lines[entry.line - 1] = f"{lines[entry.line - 1].rstrip()} <!-- judged: {' '.join(parts)} -->"
        done += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return done


def stale_and_missing(listed: list[str], runs: dict[str, int]) -> tuple[list[str], list[str]]:
    """The listed names killed now (stale) and those matching no mutant run (missing). A name
    with ``*`` lists every *surviving* mutant of a function: it is stale only when every mutant
    it matches is killed (its killed ones are simply not equivalent)."""
    stale: list[str] = []
    missing: list[str] = []
    for name in listed:
        matched = {k: v for k, v in runs.items() if fnmatch.fnmatch(k, name)}
        killed = [k for k, v in matched.items() if v in KILLED]
        if not matched:
            missing.append(name)
        elif "*" not in name:
            stale += killed
        elif len(killed) == len(matched):
            stale.append(name)
    return stale, missing


def check(run: bool, jobs: int, globs: list[str]) -> int:
    """``--check``: the source checks, then (with ``run``) mutmut on exactly the listed mutants
    (those matching ``globs``, if given)."""
    problems = source_problems()
    listed = sorted(n for n in equivalent() if matches(n, globs))
    stale: list[str] = []
    missing: list[str] = []
    if run:
        run_mutmut(jobs, listed)
        chosen = set(listed)
        reject_by_lint(globs, names={k for k in verdicts() if is_listed(k, chosen)})  # stale too
        stale, missing = stale_and_missing(listed, results())
    for line in problems:
        print(line)
    for name in missing:
        print(f"listed but not generated (renumbered or gone): {name}")
    for name in stale:
        print(f"stale: killed now, remove it from the list: {name}")
    print(f"{len(listed)} listed names in {len(entries())} entries: {len(stale)} stale, "
          f"{len(missing)} not generated, {len(problems)} source problems"
          + ("" if run else " (mutants not run: --no-run)"))
    return 1 if problems or stale or missing else 0


def forget(functions: set[str], path: Path = LISTED) -> tuple[int, int]:
    """Remove the names of ``functions``' mutants from every entry; (names removed, entries dropped)."""
    lines: list[str | None] = list(path.read_text(encoding="utf-8").splitlines())
    removed = dropped = 0
    for entry in entries(path):
        gone = [n for n in entry.names if function_key(n) in functions]
        if not gone:
            continue
        removed += len(gone)
        if len(gone) == len(entry.names):
            lines[entry.line - 1], dropped = None, dropped + 1
            continue
        line = lines[entry.line - 1] or ""
        for name in gone:
            line = re.sub(r",? ?`" + re.escape(name) + "`", "", line, count=1)
        line = re.sub(r"^(- \[[\w-]+\]), ", r"\1 ", line)
        kept = " ".join(f"{k}={v}" for k, v in sorted(entry.stamp.items()) if k not in functions)
        judged = f" <!-- judged: {kept} -->" if kept else ""
        lines[entry.line - 1] = re.sub(r" <!-- judged: [^>]* -->$", judged, line)
    path.write_text("\n".join(line for line in lines if line is not None) + "\n", encoding="utf-8")
    return removed, dropped


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--forget" in args:
        removed, dropped = forget({a for a in args if not a.startswith("--")})
        print(f"removed {removed} names; {dropped} entries left empty and dropped")
        sys.exit(0)
    if "--stamp" in args:
        print(f"stamped {stamp()} entries")
        sys.exit(0)
    if "--save-killers" in args:
        saved = save_killers()
        print(f"kept the known killers of {saved:,} functions in {HINTS.relative_to(ROOT)}" if saved
              else "no known killers in mutants/: run `make mutation` first; nothing written")
        sys.exit(0 if saved else 1)
    def number(flag: str, default: int | None) -> int | None:
        """The whole number of ``--flag=N`` among the arguments, else ``default``."""
        return next((int(a.split("=", 1)[1]) for a in args if a.startswith(f"--{flag}=")), default)

    jobs = number("jobs", 2)
    globs = [a for a in args if not a.startswith("--")]
    if "--check" in args:
        sys.exit(check("--no-run" not in args, jobs, globs))
    if "--whole" in args:
        sys.exit(whole(jobs, globs))
    size = number("sample", None)
    if size is not None:
        sys.exit(sample(size, number("seed", 1), jobs, globs))
    sys.exit(main(globs))
