"""Write a scenario's report folder, safely and atomically, and the index of all reports.

A report folder holds ``index.html`` (self-contained: plots embedded as base64 PNG),
``report.md``, every table as CSV and Parquet, every plot as PNG, ``report.json`` (machine
data: snake_case keys, numbers as numbers) and a copy of the scenario file. Both pages open with
the **findings** (sentences generated from the results); the scenario, rules and run facts
follow, collapsed in HTML.

Nothing a user owns is ever removed: :func:`check_out` accepts as destination only a new
folder, an empty one, or a report folder montecarlo wrote itself (its ``report.json`` says
``"written_by": "montecarlo"`` and lists every file in it); anything else is refused with one
line (:class:`~montecarlo.errors.InputError`) before any simulation. The report is written into
a hidden folder beside the target and moved into place only when complete; the previous report
is removed only after that, so an interrupted run never leaves a half-written report over a good
one, and no hidden folder is left behind. Folders get the permissions of the umask.
"""

from __future__ import annotations

import base64
import glob
import html
import json
import math
import os
import re
import secrets
import shutil
import socket
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence

import polars as pl

from montecarlo.analysis import seconds_said, values_said
from montecarlo.engine.runner import process_runs as _running
from montecarlo.errors import InputError, unusable_path
from montecarlo.games.base import to_plain
from montecarlo.reporting import plots as plotting
from montecarlo.reporting.findings import findings as make_findings
from montecarlo.reporting.findings import headline, metric_words, named_once
from montecarlo.reporting.tables import (
    IDENTICAL,
    NOT_APPLICABLE,
    TESTED,
    all_tables,
    comparison_summary,
    fmt,
    holm_line,
    matrix_index,
    matrix_layout,
    precision_facts,
    summary_line,
    two_figures,
    with_values,
)
from montecarlo.scenarios import Scenario, ScenarioResult, show_value

MAX_ROWS_SHOWN = 60  # longer tables are linked (CSV/Parquet), not printed
WRITTEN_BY = "montecarlo"
INDEX_MARK = '<meta name="generator" content="montecarlo">'
_LEGACY_NAMES = re.compile(
    r"(index\.html|report\.md|report\.json|scenario\.toml|plot-\d\d-[\w.=-]+\.png"
    r"|(results|comparison|(matrix|difference|distribution)-[\w.=-]+)\.(csv|parquet))"
)
_LEGACY_INDEX = '<ul class="index">'  # the index page of an earlier montecarlo
PARTIAL = ".montecarlo-partial"  # in a report folder being written: the writer's host and process id


# ---------------------------------------------------------------- destinations


def check_out(out: str | os.PathLike, option: str = "--out") -> Path:
    """The report folder ``out`` if a report may be written there, else InputError (one line).

    Accepted: a folder that does not exist yet (its parents are created), an empty folder, or a
    report folder written by montecarlo holding only the files it wrote. Refused: an empty path
    or ``.``, a file, a folder with anything else in it, a place under a file or one that cannot
    be written. Call it before simulating; :func:`write_report` calls it again.
    """
    text = os.fspath(out) if isinstance(out, (str, os.PathLike)) else None
    if not isinstance(text, str):
        raise InputError(f"{option} must be a folder's path (a str or pathlib.Path), got {out!r}")
    path = Path(text)
    # pathlib drops a "." part ("new/." is "new"): the text tells "." from the folder before it
    if not text.strip() or path.name in ("", "..") or text.endswith("/."):
        raise InputError(
            f"{option}: {text!r} (an empty path or a current/parent folder) cannot hold a report; "
            "give a new folder, e.g. reports/my-report"
        )
    with unusable_path(f"{option} {path}", "give another folder"):
        _check_name_lengths(path, option, hidden=True)
        if path.is_symlink() or path.exists():
            if path.is_symlink() and not path.exists():  # not "a file": a link to nothing
                raise InputError(f"{option}: {path} is a link to {os.readlink(path)}, which does not exist; "
                                 "give a new folder name")
            if not path.is_dir():
                raise InputError(f"{option}: {path} is a file, not a folder; give a new folder name")
            try:
                entries = sorted(p.name for p in path.iterdir())
            except OSError as exc:
                raise InputError(f"{option}: cannot read {path}: {exc.strerror or exc}") from None
            if entries:
                _check_ours(path, entries, option)
            if not os.access(path, os.W_OK | os.X_OK):  # replaced, a read-only folder would lose its mode
                raise InputError(f"{option}: cannot write in {path} (permission denied); give another folder")
        _check_writable(path.parent, option)
    return path


def check_index_out(out: str | os.PathLike, option: str = "--out") -> Path:
    """The folder of ``report-all``: other files in it are kept; its ``index.html`` is replaced
    only when montecarlo wrote it. InputError (one line) otherwise."""
    text = os.fspath(out)
    path = Path(text)
    if not text.strip():
        raise InputError(f"{option}: an empty path is not a folder; give a folder, e.g. reports")
    with unusable_path(f"{option} {path}", "give another folder"):
        _check_name_lengths(path, option)
        if path.exists() and not path.is_dir():
            raise InputError(f"{option}: {path} is a file, not a folder")
        if (_report_data(path) or {}).get("written_by") == WRITTEN_BY:
            raise InputError(
                f"{option}: {path} holds the report of one scenario, whose page index.html would be "
                "replaced by the index of all reports; give report-all a folder of its own (nothing was "
                "changed)"
            )
        index = path / "index.html"
        if index.exists():
            try:
                head = index.read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                raise InputError(f"{option}: cannot read {index}: {exc.strerror or exc}") from None
            legacy = _LEGACY_INDEX in head and "<title>montecarlo reports</title>" in head
            if INDEX_MARK not in head and not legacy:
                raise InputError(
                    f"{option}: {index} was not written by montecarlo and would be replaced; "
                    "choose another folder (nothing was changed)"
                )
        _check_writable(path if path.exists() else path.parent, option)
    return path


def _report_data(folder: Path) -> dict | None:
    """The folder's ``report.json`` as data, else None (none, unreadable, or not an object)."""
    try:
        data = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _check_ours(path: Path, entries: Sequence[str], option: str) -> None:
    refuse = (
        f"{option}: {path} holds files montecarlo did not write" + " ({}); "
        "choose a new or empty folder (nothing was changed)"
    )
    data = _report_data(path)
    if data is None and _is_index_folder(path):
        raise InputError(
            f"{option}: {path} holds the reports of report-all and their index; a report of one scenario "
            "is written into a folder of its own: choose a new or empty folder (nothing was changed)"
        )
    if data is None:
        raise InputError(refuse.format(_few(entries)))
    if data.get("written_by") == WRITTEN_BY and isinstance(data.get("files"), list):
        known = set(data["files"]) | {"report.json"}
        # a report holds files only: a folder under one of its names is the user's
        foreign = [e for e in entries if e not in known or (path / e).is_dir()]
    elif str(data.get("version", "")).startswith("montecarlo ") and "rerun" in data:
        # a report of an earlier montecarlo (no file list yet): only names a report has, as files
        foreign = [e for e in entries if not _LEGACY_NAMES.fullmatch(e) or (path / e).is_dir()]
    else:
        raise InputError(refuse.format(_few(entries)))
    if foreign:
        raise InputError(refuse.format(_few(foreign)))


def _is_index_folder(path: Path) -> bool:
    """Whether ``path`` holds an index page montecarlo's report-all wrote."""
    try:
        head = (path / "index.html").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    # the index of all reports: its list, under the mark of montecarlo's pages or (an earlier
    # montecarlo's, without the mark) its title, as check_index_out reads it
    return _LEGACY_INDEX in head and (INDEX_MARK in head or "<title>montecarlo reports</title>" in head)


def _check_name_lengths(path: Path, option: str, hidden: bool = False) -> None:
    """Every name along ``path`` fits the file system (255 bytes on Linux). Under a folder that
    does not exist yet, looking at the path says only "no such file": a name too long in the
    middle was found when the report was written, after the whole run. ``hidden``: the report's
    temporary folder beside ``path`` (``.NAME.tmp-1a2b3c4d``) must fit too."""
    here = path
    while not here.exists() and here.parent != here:
        here = here.parent
    try:
        longest = os.pathconf(here, "PC_NAME_MAX")
    except (OSError, ValueError):
        longest = 255
    for part in path.parts:
        if len(os.fsencode(part)) > longest:
            raise InputError(
                f"{option}: a name in {path} is {len(os.fsencode(part)):,} bytes, longer than the "
                f"{longest} this file system takes; give a shorter path"
            )
    room = longest - len(os.fsencode(_HIDDEN.format(name="", kind="tmp", token="0" * 8)))
    size = len(os.fsencode(path.name))
    if hidden and size > room:  # 242-255 bytes: refused after the whole run
        raise InputError(
            f"{option}: the folder name {path.name[:20]}... is {size:,} bytes; a report is written beside it "
            f"under a longer temporary name first, so it takes at most {room}; give a shorter name"
        )


def _check_writable(parent: Path, option: str) -> None:
    """The nearest existing ancestor of ``parent`` must be a folder we may write in."""
    here = parent  # a Path is never empty: Path("") is "."
    while not (here.exists() or here.is_symlink()):
        if here.parent == here:
            break
        here = here.parent
    if here.exists() and not here.is_dir():
        raise InputError(f"{option}: {here} is a file, so no folder can be made under it")
    if not os.access(here, os.W_OK | os.X_OK):
        raise InputError(f"{option}: cannot write in {here} (permission denied)")
    probe = _hidden_folder(here, "montecarlo", "probe", create=False)
    try:  # os.access says yes to root everywhere, /proc included: make and remove a folder
        os.mkdir(probe)
    except OSError as exc:
        raise InputError(f"{option}: cannot write in {here} ({exc.strerror or exc})") from None
    finally:  # also when a kill comes just after the mkdir
        try:
            os.rmdir(probe)
        except OSError:  # never made
            pass


def _few(names: Sequence[str], n: int = 3) -> str:
    """At most ``n`` names, the rest counted.

    >>> _few(["a", "b", "c"]), _few(["a", "b", "c", "d"])
    ('a, b, c', 'a, b, c and 1 more')
    """
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


_HIDDEN = ".{name}.{kind}-{token}"  # a report's temporary folder (tmp) or the one it replaces (old)


def _hidden_folder(parent: Path, name: str, kind: str, create: bool = True) -> Path:
    """A new hidden folder name beside the target (created with the umask's permissions)."""
    for _ in range(100):
        path = parent / _HIDDEN.format(name=name, kind=kind, token=secrets.token_hex(4))
        if path.exists():
            continue
        if create:
            os.mkdir(path)
        return path
    raise InputError(f"cannot find a free temporary name in {parent}")


# ---------------------------------------------------------------- writing


def write_report(
    result: ScenarioResult, out: str | os.PathLike, command: str | None = None, jobs: int = 1
) -> Path:
    """Write the report of ``result`` into folder ``out`` (replacing it only when complete).

    ``jobs`` > 1 draws the plots (most of the work) on that many local worker processes: pass
    the number of workers the run used, so that their pool serves again.

    Raises InputError (one line, nothing changed) when ``out`` may not be written: see
    :func:`check_out`.
    """
    given = out = check_out(out)
    if out.is_symlink():  # a link to an earlier report: the link stays, the report goes where it points
        out = check_out(Path(os.path.realpath(out)))
    tmp = fresh = None
    made = _missing_parents(out)  # the folders this write makes, removed again if it fails
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_partials(out)
        # named before it is made: a kill (or Ctrl-C) just after the mkdir found tmp still None and
        # left the new folder behind; ``fresh`` is removed on failure only while it is still empty
        fresh = _hidden_folder(out.parent, out.name, "tmp", create=False)
        os.mkdir(fresh)
        tmp = fresh
        (tmp / PARTIAL).write_text(f"{socket.gethostname()} {os.getpid()}", encoding="utf-8")
        _write_contents(result, tmp, command or default_command(result), jobs)
        (tmp / PARTIAL).unlink()
        check_out(out)  # still a folder we may replace
        _move_into_place(tmp, out)
    except OSError as exc:
        _undo(tmp, made, fresh)
        raise InputError(f"cannot write the report to {out}: {exc.strerror or exc}") from None
    except BaseException:
        _undo(tmp, made, fresh)
        raise
    return given


def _missing_parents(out: Path) -> list[Path]:
    """The folders above ``out`` that do not exist yet, the deepest first."""
    missing, here = [], out.parent
    while not (here.exists() or here.is_symlink()) and here.parent != here:
        missing.append(here)
        here = here.parent
    return missing


def _undo(tmp: Path | None, made: Sequence[Path], fresh: Path | None = None) -> None:
    """After a failed write: remove its temporary folder and the folders it made above the
    report (only while they are empty: nothing else is ever removed). ``fresh``: the temporary
    folder's name, which may have been made just before the failure came (removed if empty)."""
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)
    elif fresh is not None:
        try:
            fresh.rmdir()
        except OSError:  # never made, or not empty: not ours to remove
            pass
    for folder in made:
        try:
            folder.rmdir()
        except OSError:
            break


def write_index(
    out: str | os.PathLike, entries: Sequence[dict[str, str]], title: str = "montecarlo reports"
) -> Path:
    """``out/index.html`` linking every report: entries of ``href``, ``title``, ``game`` and
    ``headline`` (the report's first finding; ``summary``, if given, is shown below it), under a
    heading per game, the games in the order of their first entry."""
    out = Path(out)
    by_game: dict[str, list[str]] = {}
    for e in entries:
        lead = e.get("headline") or e.get("summary", "")
        extra = (
            f'<br><span class="summary">{html.escape(e["summary"])}</span>'
            if e.get("headline") and e.get("summary")
            else ""
        )
        by_game.setdefault(e["game"], []).append(
            f'<li><a href="{html.escape(e["href"])}">{html.escape(e["title"])}</a><br>'
            f'<span class="headline">{_inline(lead)}</span>{extra}</li>'
        )
    sections = [
        f'<h2>{html.escape(game)}</h2>\n<ul class="index">\n' + "\n".join(items) + "\n</ul>"
        for game, items in by_game.items()
    ]
    page = _page(title, f"<h1>{html.escape(title)}</h1>\n" + "\n".join(sections))
    tmp = out / f".index.html.tmp-{secrets.token_hex(4)}"
    try:
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, out / "index.html")
    except BaseException:  # interrupted: the old index stays, no temporary file is left behind
        tmp.unlink(missing_ok=True)
        raise
    return out / "index.html"


NO_FILE = "none (built on a command line or in Python)"  # the run facts' file of such a scenario


def default_command(result: ScenarioResult) -> str:
    sc = result.scenario
    return f"montecarlo report {sc.path}" if sc.path else "(scenario given in Python; no file to rerun)"


def header_facts(result: ScenarioResult, command: str, long: pl.DataFrame | None = None) -> dict[str, Any]:
    """The facts that make a report reproducible, as display text (the pages' run facts)."""
    sc = result.scenario
    trials = [c.trials for c in result.comparisons]
    spread = f"{min(trials):,}" if min(trials) == max(trials) else f"{min(trials):,}–{max(trials):,}"
    if sc.precision:
        trial_text = (
            f"until every shown probability's 95% half-width is ≤ {sc.precision} (first batch {sc.trials:,}"
            f"{f', cap {sc.max_trials:,}' if sc.max_trials else ''}): {spread} per setup"
        )
        if long is not None:
            p = precision_facts(result, long)
            verdict = "reached" if p["precision_reached"] else "NOT reached (trial cap hit)"
            trial_text += f"; target {verdict}, widest half-width {fmt(p['widest_half_width'], 4)}"
    else:
        trial_text = f"{spread} per setup and variant"
    grid = " × ".join(f"{k} ({len(v)})" for k, v in sc.grid.items()) or "one setup"
    return {
        "scenario": sc.name,
        "file": str(sc.path) if sc.path else NO_FILE,
        "game": f"{sc.game.title} ({sc.game.name})",
        "question": f"{sc.question.name}: {sc.question.description}",
        "seed": sc.seed,
        "seed use": "the same seed for every setup (chunk i of a run draws from stream i of the seed)",
        "trials": trial_text,
        "chunk size": sc.chunk_size,
        "grid": f"{grid} = {len(sc.points)} setup{'s' * (len(sc.points) != 1)}",
        "fixed setup": ", ".join(f"{k} = {_rule_value(v)}" for k, v in sc.setup.items()) or "none",
        "metrics": ", ".join(sc.metrics),
        "variants": ", ".join(v.name for v in result.variants),
        "baseline": result.baseline,
        "common random numbers": "yes" if len(result.variants) > 1 else "n/a (one variant)",
        "version": f"montecarlo {result.version}",
        "date": result.date,
        # a run under 0.05 s read "0.0 s", as if it had taken no time
        "run time": f"{seconds_said(result.seconds)} on {result.jobs} worker{'s' * (result.jobs != 1)}",
        "rerun": command,
    }


def rule_readings(result: ScenarioResult) -> dict[str, list[str]]:
    """Per variant, the rule readings in force over its setups (the question's ``notes``, in the
    order first met); empty when the question has none or no setup depends on one."""
    notes = result.scenario.question.notes
    if notes is None:
        return {}
    out: dict[str, list[str]] = {}
    for v in result.variants:
        lines = dict.fromkeys(line for p in result.scenario.points for line in notes(v.rules, p.setup))
        if lines:
            out[v.name] = list(lines)
    return out


def _readings_display(readings: dict[str, list[str]]) -> list[str]:
    """The readings every variant shares said once, then the others, variants with the same
    ones named together.

    >>> _readings_display({"official": ["a", "b"], "house": ["a", "c"], "other": ["a", "b"]})
    ['every variant: a', 'official, other: b', 'house: c']
    >>> _readings_display({"official": ["a"]})
    ['official: a']
    >>> _readings_display({"official": ["a", "b", "c"], "house": ["a"]})
    ['every variant: a', 'official: b; c']
    >>> _readings_display({"official": ["a", "b"], "house": ["a", "b", "c"]})
    ['every variant: a; b', 'house: c']
    """
    lists = list(readings.values())
    common = [line for line in lists[0] if all(line in other for other in lists[1:])]
    if len(readings) == 1:
        common = []
    groups: dict[tuple[str, ...], list[str]] = {}
    for name, lines in readings.items():
        own = tuple(line for line in lines if line not in common)
        if own:
            groups.setdefault(own, []).append(name)
    out = [f"every variant: {'; '.join(common)}"] if common else []
    return out + [f"{', '.join(names)}: " + "; ".join(own) for own, names in groups.items()]


def report_json(
    result: ScenarioResult,
    tables: dict[str, pl.DataFrame],
    found: Sequence[str],
    command: str,
    files: Sequence[str],
) -> dict[str, Any]:
    """``report.json``: machine data — snake_case keys, numbers as numbers, no display text
    except the findings; ``written_by`` and ``files`` mark the folder as montecarlo's own."""
    sc = result.scenario
    trials = [c.trials for c in result.comparisons]
    data: dict[str, Any] = {
        "written_by": WRITTEN_BY,
        "scenario": sc.name,
        "title": sc.title,
        "description": sc.description,
        "file": str(sc.path) if sc.path else None,
        "game": sc.game.name,
        "game_title": sc.game.title,
        "question": sc.question.name,
        "question_description": sc.question.description,
        "seed": sc.seed,
        "trials": sc.trials,
        "trials_min": min(trials),
        "trials_max": max(trials),
        "precision": sc.precision,
        "max_trials": sc.max_trials,
        **precision_facts(result, tables["results"]),
        "chunk_size": sc.chunk_size,
        "grid": {k: [to_plain(v) for v in values] for k, values in sc.grid.items()},
        "labels": {k: dict(v) for k, v in sc.labels.items()},  # the tables' words for grid values
        "setups": len(sc.points),
        "fixed_setup": to_plain(dict(sc.setup)),
        "metrics": [
            {"name": m, "kind": sc.question.metric(m).kind, "description": sc.question.metric(m).description}
            for m in sc.metrics
        ],
        "variants": [
            {
                "name": v.name,
                "builtin": list(v.builtin),
                "overrides": to_plain(dict(v.overrides)),
                "description": v.description,
            }
            for v in result.variants
        ],
        "baseline": result.baseline,
        "common_random_numbers": len(result.variants) > 1,
        "rules": {v.name: to_plain(v.rules) for v in result.variants},
        "readings": rule_readings(result),
    }
    if "comparison" in tables:
        status = tables["comparison"]["status"]
        data.update(
            {
                "correction": "holm",
                "alpha": 0.05,
                "tests": int((status == TESTED).sum()),
                "significant": int(tables["comparison"]["significant"].fill_null(False).sum()),
                "identical": int((status == IDENTICAL).sum()),
                "not_applicable": int((status == NOT_APPLICABLE).sum()),
            }
        )
    data.update(
        {
            "headline": headline(found),
            "findings": list(found),
            "version": result.version,
            "date": result.date,
            "run_seconds": round(result.seconds, 3),
            "jobs": result.jobs,
            "rerun": command,
            "files": sorted(files),
        }
    )
    return data


# ---------------------------------------------------------------- building the report


def _write_table(df: pl.DataFrame, stem: Path) -> None:
    """``stem``.csv and ``stem``.parquet; a failure to write either is an OSError with its errno
    (polars says a full disk as its own ComputeError, which would otherwise end the command in a
    traceback, or as an OSError whose text ends in "(os error 28)")."""
    try:
        df.write_csv(stem.parent / f"{stem.name}.csv")
        df.write_parquet(stem.parent / f"{stem.name}.parquet")
    except (pl.exceptions.PolarsError, OSError) as exc:
        code = re.search(r"os error (\d+)", str(exc))
        if code is None or (isinstance(exc, OSError) and exc.errno is not None):
            raise
        raise OSError(int(code[1]), os.strerror(int(code[1]))) from exc


def _write_contents(result: ScenarioResult, folder: Path, command: str, jobs: int) -> None:
    sc = result.scenario
    tables = all_tables(result)
    for name, df in tables.items():
        _write_table(with_values(df, sc), folder / name)  # a labelled grid field's values, its words beside
    figures = _draw_plots(sc, tables, folder, jobs)
    found = make_findings(result, tables)
    facts = header_facts(result, command, tables["results"])
    if sc.path and Path(sc.path).is_file():
        shutil.copyfile(sc.path, folder / "scenario.toml")
    files = [f"{n}.{ext}" for n in tables for ext in ("csv", "parquet")] + [name for _, name, _ in figures]
    files += ["index.html", "report.md"] + (["scenario.toml"] if (folder / "scenario.toml").exists() else [])
    data = report_json(result, tables, found, command, files)
    (folder / "report.json").write_text(json.dumps(data, indent=2, allow_nan=False), encoding="utf-8")
    blocks = _blocks(result, tables, figures, facts, named_once(result, found))  # (report.json: each whole)
    (folder / "report.md").write_text(_markdown(blocks), encoding="utf-8")
    (folder / "index.html").write_text(_html(sc.title, blocks, folder), encoding="utf-8")


COMPARISON_PLOTS = ("forest", "difference")  # shown under the comparison, after the other plots


def _draw_plots(
    sc: Scenario, tables: dict[str, pl.DataFrame], folder: Path, jobs: int
) -> list[tuple[str, str, str]]:
    """Draw the planned plots into ``folder``: (kind, file name, caption) of each one drawn;
    kind "difference" is a heat map of differences. With ``jobs`` > 1 the plots are drawn by the
    local worker processes (joblib's loky pool: the one a run with as many jobs started), a
    plot a task; the files are the same bytes."""
    kinds = []  # (kind, spec)
    for spec in plotting.plan(sc):
        kinds.append((spec.kind, spec))
        if spec.kind == "heatmap" and "comparison" in tables:
            kinds.append(("difference", spec))
    # numbered in the order the page shows them: the plots, then the comparison's own
    kinds.sort(key=lambda k: k[0] in COMPARISON_PLOTS)  # stable: each group keeps its order
    planned = []  # (kind, file name, spec)
    for i, (kind, spec) in enumerate(kinds):
        name = plotting.file_name(i, spec)
        if kind == "difference":
            name = name.replace("-heatmap-", "-heatmap-difference-")
        planned.append((kind, name, spec))
    args = [(kind, spec, sc, tables["results"], tables.get("comparison"), folder / name)
            for kind, name, spec in planned]
    if jobs > 1 and len(args) > 1:
        from joblib import Parallel, delayed

        # n_jobs as the run's: joblib resizes its one pool of workers to any other number
        captions = Parallel(n_jobs=jobs, backend="loky")(delayed(plotting.draw_file)(*a) for a in args)
    else:
        captions = [plotting.draw_file(*a) for a in args]
    drawn = zip(planned, captions)
    return [(kind, name, caption) for (kind, name, _), caption in drawn if caption is not None]


def _move_into_place(tmp: Path, out: Path) -> None:
    """Rename ``tmp`` to ``out``; an existing ``out`` is set aside first and removed last."""
    if not out.exists() or not any(out.iterdir()):
        os.replace(tmp, out)  # also onto an empty folder
        return
    old = _hidden_folder(out.parent, out.name, "old", create=False)
    try:  # both renames inside: a kill between them put the previous report back, not aside
        os.replace(out, old)
        os.replace(tmp, out)
    except BaseException as exc:
        if not old.exists() or out.exists():  # not set aside, or already replaced: nothing to undo
            raise
        try:
            os.replace(old, out)
        except OSError as back:  # never lose it: say where the whole previous report is
            why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            raise InputError(
                f"cannot write the report to {out}: {why}; "
                f"the previous report could not be put back ({back.strerror or back}) and is kept in {old}"
            ) from None
        raise
    if old.is_symlink():  # --out was a link to a report folder: the link goes, its target stays
        old.unlink()
    else:
        shutil.rmtree(old, ignore_errors=True)
    if old.exists():  # the new report is in place; say where the old one is rather than hide it
        sys.stderr.write(f"warning: the previous report, set aside in {old}, could not be removed; "
                         "remove it yourself\n")


def _remove_stale_partials(out: Path) -> None:
    """Remove the half-written folders of reports to ``out`` killed while writing (hidden, named
    after ``out``, and marked by montecarlo with the id of a process of this host that no longer
    runs: a folder shared with other hosts keeps what their processes are writing)."""
    for folder in sorted(out.parent.glob(_HIDDEN.format(name=glob.escape(out.name), kind="tmp", token="*"))):
        mark = folder / PARTIAL
        if folder.is_symlink() or not mark.is_file():
            continue
        try:
            host, writer = mark.read_text(encoding="utf-8").rsplit(" ", 1)
            pid = int(writer)
        except (OSError, ValueError):
            continue
        if host == socket.gethostname() and not _running(pid):
            shutil.rmtree(folder, ignore_errors=True)


def _blocks(
    result: ScenarioResult,
    tables: dict[str, pl.DataFrame],
    figures,
    facts: dict[str, Any],
    found: Sequence[str],
) -> list[tuple]:
    """The report as a list of blocks both renderers understand: findings first, then plots,
    comparison and tables, then the run facts (collapsed in HTML)."""
    sc = result.scenario
    grid = list(sc.grid)
    b: list[tuple] = [("h1", sc.title)]
    if sc.description:
        b.append(("p", sc.description))
    b += [("h2", "Findings"), ("list", list(found)), ("note", summary_line(result, tables))]
    readings = rule_readings(result)
    if readings:
        b += [
            ("h2", "Rule readings in force"),
            ("p", "Where the game's sources disagree, the numbers follow these readings:"),
            ("list", _readings_display(readings)),
        ]
    plain = [f for f in figures if f[0] not in COMPARISON_PLOTS]
    if plain:
        b.append(("h2", "Plots"))
        b += [("img", name, title) for kind, name, title in plain]
    if "comparison" in tables:
        comp = tables["comparison"]
        b += [
            ("h2", f"Comparison with {result.baseline}"),
            (
                "p",
                f"Differences are variant − {result.baseline}, with 95% intervals. Each variant of a "
                f"setup is played on the same dice, cards and draws as {result.baseline}, trial by "
                "trial (common random numbers), so a difference is measured on paired trials and is "
                "narrower than two separate runs would give. A difference is significant when it "
                "stays so after allowing for how many differences were tested (Holm's correction, at "
                f"5%): {holm_line(comp)}. A row where the two give the same result in every trial "
                'is "identical" and is not tested; a metric that does not apply to a setup is n/a. '
                "The min, mean and max differences are the exact ones where every setup has an exact "
                "value (from: exact), else the trials' (from: trials).",
            ),
            ("table", _summary_display(comp, sc)),
        ]
        b += [("img", name, title) for kind, name, title in figures if kind in COMPARISON_PLOTS]
        columns = _columns_note(result)
        significant = _significant_display(comp, grid, sc)
        b += [
            ("h3", f"Significant differences ({significant.height}), metric by metric, largest first"),
            ("table", significant, "comparison"),
        ]
        for name in tables:
            if name.startswith("difference-") and name.count("-") == 1:
                shown, dropped = _difference_display(tables, name, grid, comp)
                note = (f"{columns}95% paired intervals, each on its own (not adjusted); * significant after "
                        "Holm (adjusted for the family)")
                if dropped:
                    note += f"; not shown: {', '.join(dropped)} (identical to {result.baseline} everywhere)"
                if shown is not None:
                    b += [("h3", _heading(result, name)), ("note", f"{note} ({name}.csv)")]
                    b.append(("table", shown, name))
                if f"{name}-exact" in tables and shown is not None:
                    exact = _exact_display(tables[f"{name}-exact"], grid, True, tables[name])
                    exact = _without(exact, dropped)
                    b += [
                        ("h3", _heading(result, f"{name}-exact")),
                        ("note", f"{name}-exact.csv"),
                        ("table", exact, f"{name}-exact"),
                    ]
    b.append(("h2", "Tables"))
    columns = _columns_note(result)
    for name in tables:
        kind, _, metric = name.partition("-")
        if kind not in ("matrix", "distribution") or name.endswith(("-ci_low", "-ci_high", "-exact")):
            continue
        unreachable = _unreachable(tables, name, grid)  # the files keep them
        if kind == "matrix":
            note = f"{columns}estimate [95% interval]; n/a: does not apply to the setup ({name}.csv)"
            chance = sc.question.metric(metric).kind == "probability"
        else:  # a distribution: a column per value
            but = (f", but {values_said(unreachable)}, which no setup can reach (exact 0, none drawn)"
                   if unreachable else "")
            note = f"probability of each value of `{metric}` (columns){but}: estimate [95% interval]"
            note += f" ({name}.csv)"
            chance = True
        parts = (name, f"{name}-ci_low", f"{name}-ci_high", f"{name}-exact")
        own = {**tables, **{k: tables[k].drop(unreachable) for k in parts if k in tables}}
        shown = _one_variant(_matrix_display(own, name, grid, chance=chance), result)
        b += [("h3", _heading(result, name)), ("note", note), ("table", shown, name)]
        if f"{name}-exact" in tables:
            exact = _exact_display(own[f"{name}-exact"], grid, estimates=own[name], chance=chance)
            b += [
                ("h3", _heading(result, f"{name}-exact")),
                ("note", f"{name}-exact.csv"),
                ("table", _one_variant(exact, result), f"{name}-exact"),
            ]
    b += [("h3", "All estimates (long form)"), ("table", tables["results"], "results")]
    b += _about(result, facts, figures, tables)
    return b


def _unreachable(tables: dict[str, pl.DataFrame], stem: str, grid: Sequence[str]) -> list[str]:
    """A distribution's values that no setup reaches: exact 0 and drawn by no trial wherever the
    metric applies (a storm's 12 hits for a legion of 4 units); none without exact values, and
    none of a matrix (a chance of 0 in every setup of a column is a finding, not a value)."""
    if not stem.startswith("distribution-") or f"{stem}-exact" not in tables:
        return []
    est, exact = tables[stem], tables[f"{stem}-exact"]
    index = matrix_index(est, grid)

    def unreached(value: str) -> bool:
        applies = est[value].is_not_null()  # n/a rows: no estimate, no exact value
        if not applies.any():
            return False
        drawn, known = est[value].filter(applies), exact[value].filter(applies)
        return bool((drawn == 0).all()) and known.null_count() == 0 and bool((known == 0).all())

    return [c for c in est.columns if c not in index and c in exact.columns and unreached(c)]


def _heading(result: ScenarioResult, stem: str) -> str:
    """A table's heading in words (its file name is in the note below it).

    ``matrix-win`` -> "The chance that at least need heads", ``matrix-win-exact`` -> "... : exact
    values", ``difference-win`` -> "...: difference from official", ``distribution-total`` ->
    "Distribution of heads + bonus".
    """
    kind, _, metric = stem.partition("-")
    exact = metric.endswith("-exact")
    metric = metric.removesuffix("-exact")
    what = metric_words(result.scenario, metric, code=False)
    if kind == "distribution":
        return f"Distribution of {what}" + (": exact values" if exact else "")
    text = what[:1].upper() + what[1:]
    if kind == "difference":
        text += f": {'exact ' if exact else ''}difference from {result.baseline}"
    elif exact:
        text += ": exact values"
    return text


def _about(result: ScenarioResult, facts: dict[str, Any], figures, tables) -> list[tuple]:
    sc = result.scenario
    shown = {k: v for k, v in facts.items() if k != "rerun"}
    b: list[tuple] = [
        ("details", "About this run: scenario, rules, reproducibility, files"),
        ("kv", shown),
        ("p", "Rerun with:"),
        ("code", facts["rerun"]),
        ("h3", "Variants"),
    ]
    b.append(
        (
            "table",
            pl.DataFrame(
                {
                    "variant": [v.name for v in result.variants],
                    "built-in": [", ".join(v.builtin) or "—" for v in result.variants],
                    "overrides": [
                        ", ".join(f"{k} = {show_value(x)}" for k, x in {**sc.rules, **v.overrides}.items())
                        or "—"
                        for v in result.variants
                    ],
                    "description": [v.description for v in result.variants],
                }
            ),
        )
    )
    rules = {v.name: to_plain(v.rules) for v in result.variants}
    fields = list(next(iter(rules.values())))
    b += [
        ("p", "Full rules of each variant:"),
        (
            "table",
            pl.DataFrame(
                {
                    "rule": fields,
                    **{name: [_rule_value(r[f]) for f in fields] for name, r in rules.items()},
                }
            ),
        ),
    ]
    b.append(("h3", "Metrics"))
    b.append(
        (
            "table",
            pl.DataFrame(
                {
                    "metric": list(sc.metrics),
                    "kind": [sc.question.metric(m).kind for m in sc.metrics],
                    "description": [sc.question.metric(m).description for m in sc.metrics],
                }
            ),
        )
    )
    b.append(
        (
            "p",
            "Estimates carry 95% intervals (Wilson for probabilities, Student t for means); "
            "exact values come from the game's exact solver where one exists. Probabilities below "
            "0.001 are written in significant figures (4.8e-5).",
        )
    )
    b += [
        ("h3", "Files"),
        (
            "files",
            [f"{n}.{ext}" for n in tables for ext in ("csv", "parquet")]
            + [name for _, name, _ in figures]
            + ["report.json"],
        ),
        ("/details",),
    ]
    return b


# ---------------------------------------------------------------- display tables


def _one_variant(shown: pl.DataFrame, result: ScenarioResult) -> pl.DataFrame:
    """A page's matrix without its variant column when the report has one variant: it repeated
    "official" on every row (the files keep it)."""
    if len(result.variants) == 1 and "variant" in shown.columns:
        return shown.drop("variant")
    return shown


def _matrix_display(
    tables: dict[str, pl.DataFrame],
    stem: str,
    grid: Sequence[str],
    signed: bool = False,
    marks: pl.DataFrame | None = None,
    chance: bool = False,
) -> pl.DataFrame:
    """``estimate [low, high]`` cells from the numeric matrices (``*`` where ``marks`` is true;
    ``chance``: a probability, which never reads as 1 when it is below it)."""
    est, lo, hi = tables[stem], tables[f"{stem}-ci_low"], tables[f"{stem}-ci_high"]
    index = matrix_index(est, grid)
    cols: dict[str, list] = {c: est[c].to_list() for c in index}
    for c in (c for c in est.columns if c not in index):
        cells = []
        for i, e in enumerate(est[c].to_list()):
            low, high = lo[c][i], hi[c][i]
            if e is None:
                cells.append("n/a")
            elif signed and e == 0 and low == 0 and high == 0:
                cells.append("identical")
            else:
                star = "*" if marks is not None and marks[c][i] else ""
                # the interval on a second line in HTML, so that a matrix fits the page
                digits = 4 if signed else 3
                cells.append(
                    f"{fmt(e, digits, signed, chance)}{star}\n[{fmt(low, digits, signed, chance)}, "
                    f"{fmt(high, digits, signed, chance)}]"
                )
        cols[c] = cells
    return _short_headers(pl.DataFrame(cols), index)


def _columns_note(result: ScenarioResult) -> str:
    col = matrix_layout(result)[1]
    return f"columns: `{col}`; " if col else ""


def _short_headers(df: pl.DataFrame, index: Sequence[str]) -> pl.DataFrame:
    """``defender=3`` -> ``3`` when every value column names the same field (the page says which)."""
    values = [c for c in df.columns if c not in index]
    if not all("=" in c for c in values) or len({c.partition("=")[0] for c in values}) != 1:
        return df
    return df.rename({c: c.partition("=")[2] for c in values})


def _exact_display(
    df: pl.DataFrame, grid: Sequence[str], signed: bool = False, estimates: pl.DataFrame | None = None,
    chance: bool = False,
) -> pl.DataFrame:
    """The exact values, 3 or 4 decimals: "n/a" where the metric does not apply to the setup (no
    estimate either, as the estimates' table says), "—" where no exact value is known."""
    index = matrix_index(df, grid)
    digits = 4 if signed else 3
    values = [c for c in df.columns if c not in index]
    def text(v: float) -> str:
        return fmt(v, digits, signed, chance)

    shown = df.with_columns(
        pl.col(c).map_elements(text, return_dtype=pl.String) for c in values
    ).with_columns(pl.col(c).fill_null("—") for c in values)
    if estimates is not None and estimates.columns == df.columns and estimates.height == df.height:
        shown = shown.with_columns(
            pl.Series(c, ["n/a" if e is None else v for e, v in zip(estimates[c], shown[c])], dtype=pl.String)
            for c in values
        )
    return _short_headers(shown, index)


def _difference_display(tables, stem: str, grid: Sequence[str], comp: pl.DataFrame):
    """The difference matrix without the variants identical to the baseline everywhere."""
    metric = stem.removeprefix("difference-")
    rows = comp.filter(pl.col("metric") == metric)
    dropped = [
        v
        for v in rows["variant"].unique(maintain_order=True)
        if rows.filter(pl.col("variant") == v, pl.col("status") == TESTED).height == 0
    ]
    marks = tables[f"{stem}-significant"]
    shown = _without(_matrix_display(tables, stem, grid, signed=True, marks=marks), dropped)
    index = matrix_index(tables[stem], grid)
    if shown.height == 0 or all(c in index for c in shown.columns):  # nothing left but the setups
        return None, dropped
    return shown, dropped


def _without(shown: pl.DataFrame, variants: Sequence[str]) -> pl.DataFrame:
    """A matrix display without ``variants``: their rows, or their columns when variants are columns."""
    if "variant" in shown.columns:
        return shown.filter(~pl.col("variant").is_in(list(variants)))
    return shown.drop([v for v in variants if v in shown.columns])


def _metric_label(sc, name: str) -> str:
    """A reported metric in a table: its description, the code name in parentheses
    ("harvesters lost to worms = 2 (harvesters_lost=2)")."""
    base, _, value = name.partition("=")
    text = metric_words(sc, base, code=False, chance=False) + (f" = {value}" if value else "")
    return f"{text} ({name})"


def _significant_display(comp: pl.DataFrame, grid: Sequence[str], sc) -> pl.DataFrame:
    """The significant rows in display text: metric by metric in the scenario's order (a chance
    and a count of units are not sizes to rank together), the largest |difference| first within
    a metric, and within each value of the field that sets a metric's unit (see ``_unit_order``)."""
    order = {name: i for i, name in enumerate(sc.reported_metrics)}
    sig = comp.filter(pl.col("significant").fill_null(False))
    sig = sig.with_columns(
        pl.col("metric").replace_strict(order).alias("_metric"),  # every reported metric has its place
        pl.Series("_unit", _unit_order(sig, sc, grid)),
        pl.col("difference").abs().alias("_size"),
    ).sort(["_metric", "_unit", "_size"], descending=[False, False, True])
    return pl.DataFrame(
        {
            **{g: sig[g] for g in grid},
            "variant": sig["variant"],
            "metric": [_metric_label(sc, m) for m in sig["metric"]],
            "baseline → variant": [
                f"{fmt(a, 4)} → {fmt(b, 4)}"
                for a, b in zip(sig["baseline_estimate"], sig["variant_estimate"])
            ],
            "difference [95% CI]": [
                f"{fmt(d, 4, True)}\n[{fmt(lo, 4, True)}, {fmt(hi, 4, True)}]"
                for d, lo, hi in zip(sig["difference"], sig["ci_low"], sig["ci_high"])
            ],
            "exact": [fmt(v, 4, True) for v in sig["exact_difference"]],
            "Holm p": [fmt_p(p) for p in sig["p_holm"]],
        }
    )


def _unit_order(rows: pl.DataFrame, sc, grid: Sequence[str]) -> list[int]:
    """Per row, the position of its value of the grid field that sets its metric's unit
    (``Metric.unit_field``: Dustrunners' objective is a win chance or keep:W points); 0 where
    the metric has no such field swept."""
    places = {f: {str(sc.shown(f, v)): i for i, v in enumerate(sc.grid[f])} for f in grid}  # once per field
    out = []
    for row in rows.iter_rows(named=True):
        field = sc.question.metric(row["metric"].partition("=")[0]).unit_field
        if field in grid:
            out.append(places[field][str(row[field])])
        else:
            out.append(0)
    return out


def _rule_value(value: Any) -> str:
    """A rule's or a fixed setup field's value as a scenario file writes it (``true``, not
    ``True``).

    >>> _rule_value(True), _rule_value(False), _rule_value(3), _rule_value("special")
    ('true', 'false', '3', 'special')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(show_value(value))


def fmt_p(p: float | None) -> str:
    """A p-value: two significant figures, ``<1e-12`` below that (about the precision of the
    tails the p-values come from).

    >>> fmt_p(0.0487), fmt_p(4.9e-4), fmt_p(0.0), fmt_p(1e-12), fmt_p(None), fmt_p(float("nan"))
    ('0.049', '0.00049', '<1e-12', '1e-12', '—', '—')
    >>> fmt_p(8.5e-5), fmt_p(3.3e-10)  # the exponent as the rest of the report writes it
    ('8.5e-5', '3.3e-10')
    """
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "—"
    return "<1e-12" if p < 1e-12 else two_figures(p)


def _summary_display(comp: pl.DataFrame, sc) -> pl.DataFrame:
    """Per variant and metric; rows with no real test (identical or n/a everywhere) left out:
    the findings name those variants in one line."""
    s = comparison_summary(comp).filter(pl.col("tests") > 0)
    return pl.DataFrame(
        {
            "variant": s["variant"],
            "metric": [_metric_label(sc, m) for m in s["metric"]],
            "significant": [f"{a} of {b}" for a, b in zip(s["significant"], s["tests"])],
            "identical": s["identical"],
            "n/a": s["not_applicable"],
            **{
                name: [fmt(v, 4, True) for v in s[col]]
                for name, col in (
                    ("min diff", "min_difference"),
                    ("mean diff", "mean_difference"),
                    ("max diff", "max_difference"),
                )
            },
            "from": ["exact" if e else "trials" for e in s["exact"]],
        }
    )


# ---------------------------------------------------------------- renderers


def _markdown(blocks: Iterable[tuple]) -> str:
    out = []
    for kind, *args in blocks:
        if kind in ("h1", "h2", "h3"):
            out.append(f"{'#' * int(kind[1])} {_md_text(args[0])}")
        elif kind in ("p", "note"):
            out.append(_md_inline(args[0]) if kind == "p" else f"_{_md_inline(args[0])}_")
        elif kind == "list":
            out.append("\n".join(f"- {_md_inline(s)}" for s in args[0]))
        elif kind == "details":
            out.append(f"## {_md_text(args[0])}")
        elif kind == "code":
            out.append(f"```\n{args[0]}\n```")
        elif kind == "kv":
            out.append("\n".join(f"- **{_md_text(k)}**: {_md_text(str(v))}" for k, v in args[0].items()))
        elif kind == "table":
            df, link = args[0], (args[1] if len(args) > 1 else None)
            out.append(_md_table(df, link))
        elif kind == "img":
            out.append(f"![{_md_text(args[1], MARKUP_IN_ALT)}]({args[0]})")
        elif kind == "files":
            out.append("\n".join(f"- [{f}]({f})" for f in args[0]))
    return "\n\n".join(out) + "\n"


def _md_table(df: pl.DataFrame, link: str | None) -> str:
    if df.height == 0:
        return "_none_"
    shown = df.head(MAX_ROWS_SHOWN)
    lines = ["| " + " | ".join(map(_md_cell, shown.columns)) + " |", "|" + "---|" * len(shown.columns)]
    lines += ["| " + " | ".join(_md_cell(_cell(v)) for v in row) + " |" for row in shown.iter_rows()]
    if df.height > MAX_ROWS_SHOWN and link:
        lines.append(
            f"\n{df.height - MAX_ROWS_SHOWN} more rows in [{link}.csv]({link}.csv) / "
            f"[{link}.parquet]({link}.parquet)"
        )
    return "\n".join(lines)


def _md_cell(text: str) -> str:
    """A table cell's text on one line, its ``|`` escaped: a scenario's label or variant name
    holding one ("no | equipment") split its row into one cell too many; other markdown too
    (:func:`_md_inline`: a description's `code` stays code)."""
    return _md_inline(text.replace("\n", " ")).replace("|", "\\|")


# what markdown would read as markup in report text: a backslash, code, a tag, a "*" or "_" that
# can open emphasis ("no_*_equipment"; not "sword_d7", "0.12* [" nor " * "), a link's "]("
MARKDOWN_SIGNS = r"\\|`|<(?=[A-Za-z/!?])|\*(?=\S)|(?<![^\W_])_(?=\S)"
MARKUP = re.compile(MARKDOWN_SIGNS + r"|\](?=[(\[:])")
MARKUP_IN_ALT = re.compile(MARKDOWN_SIGNS + r"|[\[\]]")  # any bracket ends an image's text


def _md_text(text: str, markup: re.Pattern[str] = MARKUP) -> str:
    """``text`` as itself in markdown, as the HTML page shows it: a label or variant name such as
    ``no_*_equipment`` read as emphasis, a ``<b>`` as a tag.

    >>> print(_md_text("no_*_equipment [x](y) <b> _z_ sword_d7 * significant +0.12*"))
    no_\\*\\_equipment [x\\](y) \\<b> \\_z_ sword_d7 * significant +0.12*
    """
    return markup.sub(lambda m: "\\" + m.group(), text)


def _md_inline(text: str) -> str:
    """Report text in markdown: its `backticks` stay code (as :func:`_inline` renders them in
    HTML), everything else reads as itself (:func:`_md_text`).

    >>> print(_md_inline("no_*_equipment (`no_*_equipment`) wins"))
    no_\\*\\_equipment (`no_*_equipment`) wins
    """
    parts = re.split(r"(`[^`]+`)", text)
    return "".join(part if i % 2 else _md_text(part) for i, part in enumerate(parts))


def _html(title: str, blocks: Iterable[tuple], folder: Path) -> str:
    out = []
    for kind, *args in blocks:
        if kind in ("h1", "h2", "h3"):
            out.append(f"<{kind}>{html.escape(args[0])}</{kind}>")
        elif kind == "p":
            out.append(f"<p>{_inline(args[0])}</p>")
        elif kind == "note":
            out.append(f'<p class="note">{_inline(args[0])}</p>')
        elif kind == "list":
            out.append('<ul class="findings">' + "".join(f"<li>{_inline(s)}</li>" for s in args[0]) + "</ul>")
        elif kind == "details":
            out.append(f"<details><summary>{html.escape(args[0])}</summary>")
        elif kind == "/details":
            out.append("</details>")
        elif kind == "code":
            out.append(f"<pre><code>{html.escape(args[0])}</code></pre>")
        elif kind == "kv":
            rows = "".join(
                f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
                for k, v in args[0].items()
            )
            out.append(f'<div class="scroll"><table class="facts">{rows}</table></div>')
        elif kind == "table":
            out.append(_html_table(args[0], args[1] if len(args) > 1 else None))
        elif kind == "img":
            data = base64.b64encode((folder / args[0]).read_bytes()).decode("ascii")
            out.append(
                f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(args[1])}" '
                f'data-file="{html.escape(args[0])}"></figure>'
            )
        elif kind == "files":
            out.append(
                "<ul>"
                + "".join(f'<li><a href="{html.escape(f)}">{html.escape(f)}</a></li>' for f in args[0])
                + "</ul>"
            )
    return _page(title, "\n".join(out))


def _html_table(df: pl.DataFrame, link: str | None) -> str:
    if df.height == 0:
        return "<p><em>none</em></p>"
    shown = df.head(MAX_ROWS_SHOWN)
    words = [_words_column(shown[c]) for c in shown.columns]  # text reads from the left
    head = "".join(f"<th{' class=t' * w}>{html.escape(c)}</th>" for c, w in zip(shown.columns, words))
    body = "".join(
        "<tr>"
        + "".join(f"<td{' class=t' * w}>{_html_cell(_cell(v))}</td>" for v, w in zip(row, words))
        + "</tr>"
        for row in shown.iter_rows()
    )
    more = ""
    if df.height > MAX_ROWS_SHOWN and link:
        more = (
            f'<p class="note">{df.height - MAX_ROWS_SHOWN} more rows in '
            f'<a href="{link}.csv">{link}.csv</a> / '
            f'<a href="{link}.parquet">{link}.parquet</a></p>'
        )
    return (
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{more}'
    )


def _words_column(column: pl.Series) -> bool:
    """A column of words (metrics, variants, legions), aligned left; numbers stay right. A word
    is three letters or more, so counts such as "13 of 21" and values such as "1.2e-5" are numbers.

    >>> _words_column(pl.Series(["units lost (attacker_losses)"])), _words_column(pl.Series(["13 of 21"]))
    (True, False)
    >>> _words_column(pl.Series(["1.250", None, "4.8e-5"])), _words_column(pl.Series([None, "WON"]))
    (False, True)
    """
    if column.dtype != pl.String:
        return False
    return any(re.search(r"[A-Za-z_]{3,}", v) for v in column.drop_nulls())


def _html_cell(text: str) -> str:
    """A cell; a second line (an interval) in small print below the first; long text wraps."""
    first, _, second = text.partition("\n")
    if len(first) > 40 and not second:
        return f'<span class="wrap">{html.escape(first)}</span>'
    return html.escape(first) + (f'<br><span class="ci">{html.escape(second)}</span>' if second else "")


def _inline(text: str) -> str:
    """Escape ``text`` for HTML, rendering `backticks` as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _cell(value: Any) -> str:
    """A table's value: numbers with 4 decimals, '—' for a missing one (None or NaN).

    >>> _cell(0.25), _cell(None), _cell(float("nan")), _cell(1200), _cell("official"), _cell(True)
    ('0.2500', '—', '—', '1,200', 'official', 'yes')
    """
    return fmt(value, digits=4)


def _page(title: str, body: str) -> str:
    style = (
        "body{font-family:system-ui,sans-serif;max-width:1240px;margin:2em auto;padding:0 1em;color:#222}"
        "table{border-collapse:collapse;margin:.5em 0;font-size:12px}.ci{color:#555;font-size:10.5px}"
        "th,td{border:1px solid #ccc;padding:2px 4px;text-align:right;white-space:nowrap}.t{text-align:left}"
        "th{background:#f3f3f3}.wrap{display:inline-block;min-width:16em;white-space:normal;text-align:left}"
        "table.facts th,table.facts td{text-align:left;white-space:normal}"
        ".scroll{max-width:100%;overflow-x:auto}figure{margin:1em 0}img{max-width:100%;height:auto}"
        # on a phone a plot shrunk to the screen's width had 4-6 px text: it keeps its own size
        # (its text about 11 px) and scrolls sideways, as the wide tables do
        "@media (max-width:720px){figure{overflow-x:auto}figure img{max-width:none}"
        # ... which the page says above each plot, that part of it is off screen
        'figure::before{content:"\\2194  scroll sideways for the whole plot";display:block;'
        "position:sticky;left:0;font-size:11px;color:#666;margin-bottom:.2em}}"
        "pre{background:#f6f6f6;padding:.6em;white-space:pre-wrap;word-break:break-all}"
        ".summary,.note{color:#555;font-size:90%}ul.index li{margin:.8em 0}"
        "ul.findings li{margin:.4em 0;line-height:1.4}"
        "code{background:#f1f1f1;padding:0 .2em;border-radius:3px}"
        "details{margin:2em 0;border-top:1px solid #ddd}"
        "summary{font-size:1.3em;font-weight:bold;margin:.8em 0;cursor:pointer}"
    )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">{INDEX_MARK}'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{style}</style></head>\n<body>\n{body}\n</body></html>\n"
    )
