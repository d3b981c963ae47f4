"""Scenario commands: ``report``, ``report-all`` and ``compare``.

``report`` runs a scenario file and writes its report folder; ``report-all`` runs every shipped
scenario and writes an index linking them; ``compare`` prints each variant's difference from
the baseline (paired, common random numbers, Holm-corrected) as a table or one JSON object.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated, Optional

import polars as pl
import typer

from montecarlo.cli.common import cli_errors
from montecarlo.errors import InputError, ScenarioError

# The root (montecarlo.cli) loads these commands from this app when one of them is run.
app = typer.Typer()

DEFAULT_OUT = Path("reports")
MAX_ROWS = 40

Jobs = Annotated[Optional[int], typer.Option("--jobs", "-j", help="Worker processes (-1 = all cores). Default: all cores for large scenarios.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
Backend = Annotated[str, typer.Option("--backend", help="joblib backend: loky (processes), threading, or dask.")]
Scheduler = Annotated[Optional[str], typer.Option("--scheduler", help="Dask scheduler address for --backend dask (default: a local cluster).")]


@app.command("report", epilog="Examples: montecarlo report scenarios/dune1984/guile-survival.toml --out reports/guile")
@cli_errors
def report(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (TOML), see docs/scenarios.md.")],
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Report folder (default: reports/<scenario name>).")] = None,
    jobs: Jobs = None,
    quiet: Quiet = False,
    backend: Backend = "loky",
    scheduler: Scheduler = None,
) -> None:
    """Run a scenario and write its report: index.html, report.md, tables (CSV, Parquet), plots."""
    from montecarlo.reporting import write_report
    from montecarlo.scenarios import load_scenario, run_scenario

    sc = load_scenario(scenario)
    folder = out or DEFAULT_OUT / sc.name
    result = run_scenario(sc, jobs=jobs, progress=not quiet, backend=backend, scheduler=scheduler)
    write_report(result, folder, command=_command(scenario, out))
    if not quiet:
        typer.echo(f"wrote {folder}/index.html ({len(sc.points)} setups, {result.seconds:.1f} s)", err=True)


@app.command("report-all", epilog="Example: montecarlo report-all scenarios --out reports")
@cli_errors
def report_all(
    directory: Annotated[Path, typer.Argument(help="Folder of scenarios: <game>/*.toml (e.g. scenarios).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the reports and their index.html.")] = DEFAULT_OUT,
    jobs: Jobs = None,
    quiet: Quiet = False,
    backend: Backend = "loky",
    scheduler: Scheduler = None,
) -> None:
    """Run every scenario under DIRECTORY and write OUT/<name>/ for each plus OUT/index.html."""
    import time

    from montecarlo.reporting import all_tables, write_index, write_report
    from montecarlo.reporting.tables import summary_line
    from montecarlo.scenarios import find_scenarios, load_scenario, run_scenario

    paths = find_scenarios(directory)
    if not paths:
        raise ScenarioError(f"{directory}: no scenario files (*.toml or <game>/*.toml)")
    scenarios, errors = [], []
    for path in paths:  # validate everything before running anything
        try:
            scenarios.append(load_scenario(path))
        except ScenarioError as exc:
            errors.append(str(exc))
    seen: dict[str, Path] = {}
    for sc in scenarios:
        if sc.name in seen:
            errors.append(f"{sc.path}: name: {sc.name!r} is also the name of {seen[sc.name]}; names must be unique")
        seen[sc.name] = sc.path
    if errors:
        for line in errors[:-1]:
            typer.echo(f"error: {line}", err=True)
        raise ScenarioError(errors[-1] + (f" ({len(errors)} invalid scenario files)" if len(errors) > 1 else ""))
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    started = time.perf_counter()
    for sc in scenarios:
        result = run_scenario(sc, jobs=jobs, progress=not quiet, backend=backend, scheduler=scheduler)
        folder = write_report(result, out / sc.name, command=_command(sc.path, out / sc.name))
        entries.append({"href": f"{sc.name}/index.html", "title": sc.title, "game": sc.game.title,
                        "summary": summary_line(result, all_tables(result))})
        if not quiet:
            typer.echo(f"wrote {folder}/index.html ({result.seconds:.1f} s)", err=True)
    write_index(out, entries)
    if not quiet:
        typer.echo(f"wrote {out}/index.html: {len(entries)} reports in {time.perf_counter() - started:.0f} s", err=True)


@app.command("compare", epilog="Example: montecarlo compare scenarios/imperium/tie-variants.toml --metric tie_first")
@cli_errors
def compare(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (TOML) with two or more variants.")],
    baseline: Annotated[Optional[str], typer.Option("--baseline", "-b", help="Variant to compare against (default: the scenario's baseline).")] = None,
    metric: Annotated[Optional[list[str]], typer.Option("--metric", "-m", help="Show only this metric (repeatable; a distribution shows all its values).")] = None,
    show_all: Annotated[bool, typer.Option("--all", help="Show every difference, not only the significant ones.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout instead of tables.")] = False,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Also write the full report (with forest plot) to this folder.")] = None,
    jobs: Jobs = None,
    quiet: Quiet = False,
    backend: Backend = "loky",
    scheduler: Scheduler = None,
) -> None:
    """Compare every variant with the baseline: paired differences, 95% intervals, Holm correction."""
    from montecarlo.reporting import comparison_table, write_report
    from montecarlo.scenarios import load_scenario, run_scenario

    sc = load_scenario(scenario)
    if len(sc.variants) < 2:
        raise ScenarioError(f"{scenario}: variants: expected two or more variants to compare, got {len(sc.variants)}")
    if baseline is not None and baseline not in {v.name for v in sc.variants}:
        raise InputError(f"--baseline: unknown variant {baseline!r}; known: {', '.join(v.name for v in sc.variants)}")
    for m in metric or ():
        if m not in sc.metrics:
            raise InputError(f"--metric: {m!r} is not among the scenario's metrics ({', '.join(sc.metrics)})")
    result = run_scenario(sc, jobs=jobs, baseline=baseline, progress=not (quiet or as_json),
                          backend=backend, scheduler=scheduler)
    table = comparison_table(result)
    if out is not None:
        write_report(result, out, command=_command(scenario, out))
    shown = table
    if metric:
        names = [n for m in metric for n in sc.question.metric(m).reported_names()]
        shown = table.filter(pl.col("metric").is_in(names))
    if as_json:
        typer.echo(json.dumps(_json(result, table, shown), default=str))
    else:
        _print(result, table, shown, show_all)


def _json(result, table: pl.DataFrame, shown: pl.DataFrame) -> dict:
    sc = result.scenario
    from montecarlo.games.base import to_plain

    grid = list(sc.grid)
    rows = [{"setup": {k: row.pop(k) for k in grid}, **row} for row in shown.to_dicts()]
    return {
        "scenario": sc.name, "game": sc.game.name, "question": sc.question.name, "seed": sc.seed,
        "baseline": result.baseline, "variants": [v.name for v in result.variants],
        "rules": {v.name: to_plain(v.rules) for v in result.variants},
        "common_random_numbers": True, "correction": "holm", "alpha": 0.05,
        "tests": table.height, "significant": int(table["significant"].sum()),
        "version": result.version, "rows": rows,
    }


def _print(result, table: pl.DataFrame, shown: pl.DataFrame, show_all: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    from montecarlo.reporting.tables import comparison_summary, fmt

    sc = result.scenario
    console = Console(file=sys.stdout, width=max(120, Console().width))
    trials = table["trials"]
    span = f"{trials.min():,}" if trials.min() == trials.max() else f"{trials.min():,}–{trials.max():,}"
    caption = (f"{span} trials per setup, seed {sc.seed}; common random numbers: yes (paired per trial); "
               f"Holm correction over all {table.height} differences at 5%")
    summary = Table(title=f"{sc.title}: variants − {result.baseline}", caption=caption)
    for col in ("variant", "metric", "significant", "min diff", "mean diff", "max diff"):
        summary.add_column(col, justify="left" if col in ("variant", "metric") else "right")
    for row in comparison_summary(shown).iter_rows(named=True):
        summary.add_row(row["variant"], row["metric"], f"{row['significant']} of {row['tests']}",
                        *(fmt(row[k], 4, signed=True) for k in ("min_difference", "mean_difference", "max_difference")))
    console.print(summary)
    rows = shown if show_all else shown.filter(pl.col("significant"))
    rest = shown.height - rows.height
    if rows.height == 0:
        console.print(f"No significant differences among the {shown.height} shown (use --all to list them).")
        return
    detail = Table(title="Differences" + ("" if show_all else " significant after Holm"))
    grid = list(sc.grid)
    for col in (*grid, "variant", "metric", result.baseline, "variant value", "difference [95% CI]", "exact diff", "Holm p", "sig."):
        detail.add_column(col, justify="left" if col in (*grid, "variant", "metric") else "right")
    for row in rows.head(MAX_ROWS if not show_all else rows.height).iter_rows(named=True):
        detail.add_row(
            *(str(row[g]) for g in grid), row["variant"], row["metric"], fmt(row["baseline_estimate"], 4),
            fmt(row["variant_estimate"], 4),
            f"{fmt(row['difference'], 4, True)} [{fmt(row['ci_low'], 4, True)}, {fmt(row['ci_high'], 4, True)}]",
            fmt(row["exact_difference"], 4, True), _p(row["p_holm"]), "yes" if row["significant"] else "no",
        )
    console.print(detail)
    notes = []
    if rows.height > MAX_ROWS and not show_all:
        notes.append(f"{rows.height - MAX_ROWS} more significant rows not shown")
    if rest and not show_all:
        notes.append(f"{rest} not significant not shown")
    if notes:
        console.print("; ".join(notes) + " (use --all, or --json / --out for everything).")


def _p(p) -> str:
    if p is None:
        return "—"
    return "<1e-6" if p < 1e-6 else f"{p:.2g}"


def _command(scenario: Path, out: Optional[Path]) -> str:
    parts = ["montecarlo", "report", str(scenario)]
    if out is not None:
        parts += ["--out", str(out)]
    return shlex.join(parts)
