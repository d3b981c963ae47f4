"""``montecarlo report``, ``report-all`` and ``compare`` through typer's CliRunner (fake coin game)."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from montecarlo import games
from montecarlo.cli import app

runner = CliRunner()

COIN = """
title = "{title}"
game = "coin"
seed = 5
trials = 2000
metrics = ["win", "heads"]

[grid]
flips = [1, 2, 3]

[variants.official]
[variants.same]
overrides = {{ bias = 0.5 }}
[variants.loaded]
builtin = "loaded"
"""


@pytest.fixture(autouse=True)
def coin_game(monkeypatch):
    monkeypatch.setitem(games.EXTRA, "coin", "tests.test_scenarios")


def scenario(folder: Path, name: str = "coin-odds", title: str = "Coin odds", text: str = COIN) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text.format(title=title))
    return path


def one_error_line(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_report_writes_the_folder(tmp_path):
    path = scenario(tmp_path)
    out = tmp_path / "out"
    result = runner.invoke(app, ["report", str(path), "--out", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert {"index.html", "report.md", "results.csv", "results.parquet", "comparison.csv"} <= {p.name for p in out.iterdir()}
    assert f"montecarlo report {path} --out {out}" in (out / "report.md").read_text()
    assert "wrote" in result.stderr and result.stdout == ""


def test_compare_table_json_and_baseline(tmp_path):
    path = scenario(tmp_path)
    text = runner.invoke(app, ["compare", str(path), "--jobs", "1"])
    assert text.exit_code == 0, text.output
    assert "common random numbers: yes" in text.stdout and "Holm correction over all 12 differences" in text.stdout
    assert "loaded" in text.stdout and "not significant not shown" in text.stdout

    data = json.loads(runner.invoke(app, ["compare", str(path), "--json", "-q"]).stdout)
    assert data["common_random_numbers"] is True and data["baseline"] == "official" and data["tests"] == 12
    rows = {(r["variant"], r["metric"], r["setup"]["flips"]): r for r in data["rows"]}
    for flips in (1, 2, 3):
        same = rows["same", "win", flips]
        assert same["difference"] == 0 and not same["significant"]
        loaded = rows["loaded", "win", flips]
        assert loaded["significant"] and loaded["ci_low"] > 0 and loaded["exact_difference"] > 0

    flipped = json.loads(runner.invoke(app, ["compare", str(path), "--json", "--baseline", "loaded", "--metric", "win"]).stdout)
    assert {r["metric"] for r in flipped["rows"]} == {"win"} and flipped["tests"] == 12
    official = [r for r in flipped["rows"] if r["variant"] == "official"]
    assert all(r["difference"] < 0 and r["significant"] for r in official)

    out = tmp_path / "cmp"
    every = runner.invoke(app, ["compare", str(path), "--all", "--out", str(out)])
    assert every.exit_code == 0 and "same" in every.stdout
    assert any(p.name.startswith("plot-") and "forest" in p.name for p in out.iterdir())


def test_bad_input_is_one_line_exit_2(tmp_path):
    bad = scenario(tmp_path, "bad", text='game = "coin"\nseed = 1\ntrials = 0\n')
    one_error_line(runner.invoke(app, ["report", str(bad)]), str(bad), "trials: expected a positive integer")
    one_error_line(runner.invoke(app, ["compare", str(bad)]), "trials")
    single = scenario(tmp_path, "single", text='game = "coin"\nseed = 1\ntrials = 10\n')
    one_error_line(runner.invoke(app, ["compare", str(single)]), "two or more variants")
    good = scenario(tmp_path)
    one_error_line(runner.invoke(app, ["compare", str(good), "--baseline", "nope"]), "--baseline: unknown variant 'nope'")
    one_error_line(runner.invoke(app, ["compare", str(good), "--metric", "total"]), "--metric")
    one_error_line(runner.invoke(app, ["report", str(tmp_path / "missing.toml")]), "no such scenario file")


def test_report_all_writes_every_report_and_an_index(tmp_path):
    root = tmp_path / "scenarios"
    scenario(root / "coin", "first", "First & foremost")
    scenario(root / "coin", "second", "Second")
    out = tmp_path / "reports"
    out.mkdir()
    (out / "README.md").write_text("kept")
    result = runner.invoke(app, ["report-all", str(root), "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    index = (out / "index.html").read_text()
    assert 'href="first/index.html">First &amp; foremost</a>' in index and 'href="second/index.html"' in index
    assert "3 setups × 3 variants" in index
    assert (out / "first" / "report.md").exists() and (out / "README.md").read_text() == "kept"

    scenario(root / "other", "first", "A clash")
    one_error_line(runner.invoke(app, ["report-all", str(root), "--out", str(out)]), "'first' is also the name of")
    one_error_line(runner.invoke(app, ["report-all", str(tmp_path / "nowhere")]), "not a directory")
