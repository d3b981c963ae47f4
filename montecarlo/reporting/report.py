"""Write a scenario's report folder, atomically, and the index of all reports.

A report folder holds ``index.html`` (self-contained: plots embedded as base64 PNG),
``report.md``, every table as CSV and Parquet, every plot as PNG, ``report.json`` (the header
facts) and a copy of the scenario file. It is written into a temporary folder beside the
target and moved into place only when complete; the previous report is removed only after
that, so an interrupted run never leaves a half-written report over a good one.

The header records what anyone needs to get the same numbers again: seed, trials, every
variant's full rules, the package version, the date and the exact command.
"""

from __future__ import annotations

import base64
import html
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable, Sequence

import polars as pl

from montecarlo.games.base import to_plain
from montecarlo.reporting import plots as plotting
from montecarlo.reporting.tables import all_tables, comparison_summary, fmt, summary_line
from montecarlo.scenarios import ScenarioResult, show_value

MAX_ROWS_SHOWN = 60  # longer tables are linked (CSV/Parquet), not printed
CRN_NOTE = ("common random numbers: yes — every variant of a setup runs on the same random numbers "
            "(same seed per chunk) and differences are paired per trial")


def write_report(result: ScenarioResult, out: str | os.PathLike, command: str | None = None) -> Path:
    """Write the report of ``result`` into folder ``out`` (replacing it only when complete)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        _write_contents(result, tmp, command or default_command(result))
        _move_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def write_index(out: str | os.PathLike, entries: Sequence[dict[str, str]], title: str = "montecarlo reports") -> Path:
    """``out/index.html`` linking every report: entries of ``href``, ``title``, ``game``, ``summary``."""
    out = Path(out)
    items = "\n".join(
        f'<li><a href="{html.escape(e["href"])}">{html.escape(e["title"])}</a> '
        f'<span class="game">{html.escape(e["game"])}</span><br><span class="summary">{html.escape(e["summary"])}</span></li>'
        for e in entries
    )
    page = _page(title, f"<h1>{html.escape(title)}</h1>\n<ul class=\"index\">\n{items}\n</ul>")
    tmp = out / ".index.html.tmp"
    try:
        tmp.write_text(page, encoding="utf-8")
        os.replace(tmp, out / "index.html")
    except BaseException:  # interrupted: the old index stays, no temporary file is left behind
        tmp.unlink(missing_ok=True)
        raise
    return out / "index.html"


def default_command(result: ScenarioResult) -> str:
    sc = result.scenario
    return f"montecarlo report {sc.path}" if sc.path else "(scenario given in Python; no file to rerun)"


def header_facts(result: ScenarioResult, command: str) -> dict[str, Any]:
    """The facts that make a report reproducible, as plain data (also ``report.json``)."""
    sc = result.scenario
    trials = [c.trials for c in result.comparisons]
    spread = f"{min(trials):,}" if min(trials) == max(trials) else f"{min(trials):,}–{max(trials):,}"
    if sc.precision:
        trial_text = (f"until every probability's 95% half-width is ≤ {sc.precision} (first batch {sc.trials:,}"
                      f"{f', cap {sc.max_trials:,}' if sc.max_trials else ''}): {spread} per setup")
    else:
        trial_text = f"{spread} per setup and variant"
    grid = " × ".join(f"{k} ({len(v)})" for k, v in sc.grid.items()) or "one setup"
    return {
        "scenario": sc.name,
        "file": str(sc.path) if sc.path else None,
        "game": f"{sc.game.title} ({sc.game.name})",
        "question": f"{sc.question.name}: {sc.question.description}",
        "seed": sc.seed,
        "seed use": "the same seed for every setup (chunk i of a run draws from stream i of the seed)",
        "trials": trial_text,
        "chunk size": sc.chunk_size,
        "grid": f"{grid} = {len(sc.points)} setup{'s' * (len(sc.points) != 1)}",
        "fixed setup": ", ".join(f"{k} = {show_value(v)}" for k, v in sc.setup.items()) or "none",
        "metrics": ", ".join(sc.metrics),
        "variants": ", ".join(v.name for v in result.variants),
        "baseline": result.baseline,
        "common random numbers": "yes" if len(result.variants) > 1 else "n/a (one variant)",
        "version": f"montecarlo {result.version}",
        "date": result.date,
        "run time": f"{result.seconds:.1f} s on {result.jobs} worker{'s' * (result.jobs != 1)}",
        "rerun": command,
    }


# ---------------------------------------------------------------- building the report


def _write_contents(result: ScenarioResult, folder: Path, command: str) -> None:
    sc = result.scenario
    tables = all_tables(result)
    for name, df in tables.items():
        df.write_csv(folder / f"{name}.csv")
        df.write_parquet(folder / f"{name}.parquet")
    figures = []
    for i, spec in enumerate(plotting.plan(sc)):
        fig = plotting.draw(spec, sc, tables["results"], tables.get("comparison"))
        name = plotting.file_name(i, spec)
        plotting.save_png(fig, folder / name)
        figures.append((spec, name, fig.get_suptitle().replace("\n", " ")))
    facts = header_facts(result, command)
    facts["rules"] = {v.name: to_plain(v.rules) for v in result.variants}
    facts["summary"] = summary_line(result, tables)
    (folder / "report.json").write_text(json.dumps(facts, indent=2, default=str), encoding="utf-8")
    if sc.path and Path(sc.path).is_file():
        shutil.copyfile(sc.path, folder / "scenario.toml")
    blocks = _blocks(result, tables, figures, facts)
    (folder / "report.md").write_text(_markdown(blocks), encoding="utf-8")
    (folder / "index.html").write_text(_html(sc.title, blocks, folder), encoding="utf-8")


def _move_into_place(tmp: Path, out: Path) -> None:
    """Rename ``tmp`` to ``out``; an existing ``out`` is set aside first and removed last."""
    if not out.exists():
        os.replace(tmp, out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.replace(out, old)
    try:
        os.replace(tmp, out)
    except BaseException:
        os.replace(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _blocks(result: ScenarioResult, tables: dict[str, pl.DataFrame], figures, facts: dict[str, Any]) -> list[tuple]:
    """The report as a list of blocks both renderers understand."""
    sc = result.scenario
    facts_shown = {k: v for k, v in facts.items() if k not in ("rules", "summary", "rerun")}
    b: list[tuple] = [("h1", sc.title)]
    if sc.description:
        b.append(("p", sc.description))
    b += [("p", facts["summary"]), ("kv", facts_shown), ("p", "Rerun with:"), ("code", facts["rerun"])]
    b.append(("h2", "Variants"))
    b.append(("table", pl.DataFrame({
        "variant": [v.name for v in result.variants],
        "built-in": [", ".join(v.builtin) or "—" for v in result.variants],
        "overrides": [", ".join(f"{k} = {show_value(x)}" for k, x in {**sc.rules, **v.overrides}.items()) or "—" for v in result.variants],
        "description": [v.description for v in result.variants],
    })))
    rules = facts["rules"]
    fields = list(next(iter(rules.values())))
    b += [("p", "Full rules of each variant:"), ("table", pl.DataFrame(
        {"rule": fields, **{name: [str(show_value(r[f])) for f in fields] for name, r in rules.items()}}
    ))]
    b.append(("h2", "Metrics"))
    b.append(("table", pl.DataFrame({
        "metric": list(sc.metrics), "kind": [sc.question.metric(m).kind for m in sc.metrics],
        "description": [sc.question.metric(m).description for m in sc.metrics],
    })))
    b.append(("p", "Estimates carry 95% intervals (Wilson for probabilities, normal for means); "
                   "exact values come from the game's exact solver where one exists."))
    if figures:
        b.append(("h2", "Plots"))
        b += [("img", name, title) for spec, name, title in figures if spec.kind != "forest"]
    if "comparison" in tables:
        comp = tables["comparison"]
        b += [("h2", f"Comparison with {result.baseline}"), ("p", CRN_NOTE + "."), ("p",
               f"Differences are variant − {result.baseline}, with 95% paired intervals; significance is "
               f"tested with a Holm correction across all {comp.height} differences of the table at 5%: "
               f"{int(comp['significant'].sum())} significant. Exact differences are shown where both arms "
               "have an exact value."), ("table", comparison_summary(comp))]
        b += [("img", name, title) for spec, name, title in figures if spec.kind == "forest"]
        for name, df in tables.items():
            if name.startswith("difference-"):
                note = "exact differences" if name.endswith("-exact") else "* significant after Holm"
                b += [("h3", f"{name} ({note})"), ("table", df, name)]
        significant = comp.filter(pl.col("significant")).drop("baseline")
        b += [("h3", "Significant differences"), ("table", significant, "comparison")]
    b.append(("h2", "Tables"))
    for name, df in tables.items():
        if name.startswith(("matrix-", "distribution-")):
            b += [("h3", name), ("table", df, name)]
    b += [("h3", "All estimates (long form)"), ("table", tables["results"], "results")]
    b += [("h2", "Files"), ("files", [f"{n}.{ext}" for n in tables for ext in ("csv", "parquet")]
                                     + [name for _, name, _ in figures] + ["report.json"])]
    return b


# ---------------------------------------------------------------- renderers


def _markdown(blocks: Iterable[tuple]) -> str:
    out = []
    for kind, *args in blocks:
        if kind in ("h1", "h2", "h3"):
            out.append(f"{'#' * int(kind[1])} {args[0]}")
        elif kind == "p":
            out.append(args[0])
        elif kind == "code":
            out.append(f"```\n{args[0]}\n```")
        elif kind == "kv":
            out.append("\n".join(f"- **{k}**: {v}" for k, v in args[0].items()))
        elif kind == "table":
            df, link = args[0], (args[1] if len(args) > 1 else None)
            out.append(_md_table(df, link))
        elif kind == "img":
            out.append(f"![{args[1]}]({args[0]})")
        elif kind == "files":
            out.append("\n".join(f"- [{f}]({f})" for f in args[0]))
    return "\n\n".join(out) + "\n"


def _md_table(df: pl.DataFrame, link: str | None) -> str:
    if df.height == 0:
        return "_none_"
    shown = df.head(MAX_ROWS_SHOWN)
    lines = ["| " + " | ".join(shown.columns) + " |", "|" + "---|" * len(shown.columns)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in shown.iter_rows()]
    if df.height > MAX_ROWS_SHOWN and link:
        lines.append(f"\n{df.height - MAX_ROWS_SHOWN} more rows in [{link}.csv]({link}.csv) / [{link}.parquet]({link}.parquet)")
    return "\n".join(lines)


def _html(title: str, blocks: Iterable[tuple], folder: Path) -> str:
    out = []
    for kind, *args in blocks:
        if kind in ("h1", "h2", "h3"):
            out.append(f"<{kind}>{html.escape(args[0])}</{kind}>")
        elif kind == "p":
            out.append(f"<p>{html.escape(args[0])}</p>")
        elif kind == "code":
            out.append(f"<pre><code>{html.escape(args[0])}</code></pre>")
        elif kind == "kv":
            rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>" for k, v in args[0].items())
            out.append(f'<table class="facts">{rows}</table>')
        elif kind == "table":
            out.append(_html_table(args[0], args[1] if len(args) > 1 else None))
        elif kind == "img":
            data = base64.b64encode((folder / args[0]).read_bytes()).decode("ascii")
            out.append(f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(args[1])}" '
                       f'data-file="{html.escape(args[0])}"><figcaption>{html.escape(args[1])}</figcaption></figure>')
        elif kind == "files":
            out.append("<ul>" + "".join(f'<li><a href="{html.escape(f)}">{html.escape(f)}</a></li>' for f in args[0]) + "</ul>")
    return _page(title, "\n".join(out))


def _html_table(df: pl.DataFrame, link: str | None) -> str:
    if df.height == 0:
        return "<p><em>none</em></p>"
    shown = df.head(MAX_ROWS_SHOWN)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>" for row in shown.iter_rows())
    more = ""
    if df.height > MAX_ROWS_SHOWN and link:
        more = (f'<p>{df.height - MAX_ROWS_SHOWN} more rows in <a href="{link}.csv">{link}.csv</a> / '
                f'<a href="{link}.parquet">{link}.parquet</a></p>')
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


def _cell(value: Any) -> str:
    return fmt(value, digits=4) if isinstance(value, float) else fmt(value)


def _page(title: str, body: str) -> str:
    style = (
        "body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
        "table{border-collapse:collapse;margin:1em 0;font-size:13px}th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}"
        "th{background:#f3f3f3}table.facts th,table.facts td{text-align:left}figure{margin:1em 0}"
        "img{max-width:100%}pre{background:#f6f6f6;padding:.6em}.game{color:#666;font-size:90%}"
        ".summary{color:#444;font-size:90%}ul.index li{margin:.6em 0}"
    )
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head>\n<body>\n{body}\n</body></html>\n")
