"""Report folders: files, documented columns, embedded plots, header facts, atomic writes."""

import base64
import json
import re

import polars as pl
import pytest

from montecarlo import __version__
from montecarlo.reporting import plots, write_index, write_report
from montecarlo.reporting.tables import COMPARISON_COLUMNS, RESULT_COLUMNS
from montecarlo.scenarios import load_scenario, run_scenario
from tests.test_scenarios import GAME

SCENARIO = """
title = "Coin odds"
description = "A fake game for the report tests."
game = "coin"
seed = 21
trials = 2000
metrics = ["win", "heads", "total"]

[grid]
flips = [1, 2, 3]
need = [1, 2]
tags = [[], ["red"]]

[variants.official]
[variants.same]
overrides = { bias = 0.5 }
[variants.loaded]
builtin = "loaded"

[[plots]]
kind = "heatmap"
metric = "win"
x = "need"
y = "flips"
facet = "tags"

[[plots]]
kind = "lines"
metric = "heads"
x = "flips"
hue = "need"
where = { tags = ["red"] }

[[plots]]
kind = "bars"
metric = "total"
hue = "flips"
variant = "loaded"

[[plots]]
kind = "bars"
metric = "win"
x = "tags"

[[plots]]
kind = "forest"
metric = "win"
facet = "tags"
"""


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    from montecarlo import games

    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(games.EXTRA, "coin", "tests.test_scenarios")
        path = tmp_path_factory.mktemp("scenarios") / "coin-odds.toml"
        path.write_text(SCENARIO)
        return run_scenario(load_scenario(path), jobs=1)


@pytest.fixture(scope="module")
def report(result, tmp_path_factory):
    return write_report(result, tmp_path_factory.mktemp("reports") / "coin-odds", command="montecarlo report coin-odds.toml")


def test_files_and_documented_columns(report, result):
    names = {p.name for p in report.iterdir()}
    assert {"index.html", "report.md", "report.json", "scenario.toml"} <= names
    for table in ("results", "comparison", "matrix-win", "matrix-win-exact", "difference-win", "matrix-heads", "distribution-total"):
        assert {f"{table}.csv", f"{table}.parquet"} <= names, table
    pngs = sorted(n for n in names if n.endswith(".png"))
    assert [p.split("-")[2] for p in pngs] == ["heatmap", "lines", "bars", "bars", "forest"]
    long = pl.read_parquet(report / "results.parquet")
    assert long.columns == ["flips", "need", "tags", *RESULT_COLUMNS]
    assert long.equals(pl.read_csv(report / "results.csv").with_columns(pl.col("exact").cast(pl.Float64)))
    assert pl.read_parquet(report / "comparison.parquet").columns == ["flips", "need", "tags", *COMPARISON_COLUMNS]
    assert set(long["tags"]) == {"none", "red"}


def test_html_is_self_contained_and_embeds_every_plot(report):
    page = (report / "index.html").read_text()
    for png in report.glob("*.png"):
        match = re.search(rf'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)" alt="[^"]*" data-file="{re.escape(png.name)}"', page)
        assert match, png.name
        assert base64.b64decode(match.group(1)) == png.read_bytes()
    assert not re.search(r'src="(?!data:)', page) and "<link" not in page


def test_header_records_how_to_rerun(report, result):
    md = (report / "report.md").read_text()
    for fact in ("**seed**: 21", "**trials**: 2,000 per setup and variant", f"montecarlo {__version__}",
                 result.date, "montecarlo report coin-odds.toml", "common random numbers: yes",
                 "| rule | official | same | loaded |", "| bias | 0.5 | 0.5 | 0.7 |", "| bonus | 0 | 0 | 0 |",
                 "Holm correction across all 192 differences"):
        assert fact in md, fact
    facts = json.loads((report / "report.json").read_text())
    assert facts["seed"] == 21 and facts["rules"]["loaded"] == {"bias": 0.7, "bonus": 0}
    assert facts["rerun"] == "montecarlo report coin-odds.toml"
    html_page = (report / "index.html").read_text()
    assert "Coin odds" in html_page and "seed" in html_page and result.date in html_page


def test_interrupted_write_keeps_the_old_report_and_leaves_no_temp_folder(report, result, monkeypatch):
    before = {p.name: p.read_bytes() for p in report.iterdir()}
    calls = []

    def failing_save(fig, path):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C halfway through the plots
        path.write_bytes(b"partial")

    monkeypatch.setattr(plots, "save_png", failing_save)
    with pytest.raises(KeyboardInterrupt):
        write_report(result, report)
    assert {p.name: p.read_bytes() for p in report.iterdir()} == before
    assert [p.name for p in report.parent.iterdir()] == [report.name]

    monkeypatch.setattr(plots, "save_png", lambda fig, path: (_ for _ in ()).throw(RuntimeError("disk full")))
    fresh = report.parent / "fresh"
    with pytest.raises(RuntimeError):
        write_report(result, fresh)
    assert [p.name for p in report.parent.iterdir()] == [report.name]


def test_rewrite_replaces_the_old_report(tmp_path):
    from montecarlo.scenarios import parse_scenario

    small = run_scenario(parse_scenario({"game": GAME, "seed": 3, "trials": 200, "metrics": ["win"]}), jobs=1)
    out = tmp_path / "r"
    write_report(small, out)
    (out / "stale.txt").write_text("from an older run")
    write_report(small, out)
    assert not (out / "stale.txt").exists() and (out / "index.html").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["r"]


def test_default_plots_and_single_variant(tmp_path):
    from montecarlo.scenarios import parse_scenario

    sc = parse_scenario({"game": GAME, "seed": 3, "trials": 500, "grid": {"flips": [1, 2, 3], "tags": [[], ["red"]]}})
    assert [(p.kind, p.metric, p.x, p.hue) for p in plots.plan(sc)] == [
        ("lines", "win", "flips", "tags"), ("lines", "heads", "flips", "tags"), ("bars", "total", None, "tags")]
    out = write_report(run_scenario(sc, jobs=1), tmp_path / "one")
    names = {p.name for p in out.iterdir()}
    assert "comparison.csv" not in names and len([n for n in names if n.endswith(".png")]) == 3
    assert "Comparison with" not in (out / "report.md").read_text()
    many = parse_scenario({"game": GAME, "seed": 3, "trials": 500, "variants": {"a": {}, "b": {"builtin": "bonus"}},
                           "grid": {"flips": [1, 2, 3, 4], "need": [1, 2, 3], "tags": [[], ["red"], ["blue"]]}})
    kinds = [(p.kind, p.x, p.y, p.facet, dict(p.where)) for p in plots.plan(many)]
    assert kinds[0] == ("heatmap", "need", "flips", "tags", {})
    assert kinds[-1] == ("forest", None, None, "tags", {}) and len(kinds) == 4


def test_index_links_every_report(tmp_path):
    page = write_index(tmp_path, [{"href": "a/index.html", "title": "A & B", "game": "coin", "summary": "2 setups"}]).read_text()
    assert '<a href="a/index.html">A &amp; B</a>' in page and "2 setups" in page
