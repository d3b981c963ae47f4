"""``montecarlo report``, ``report-all`` and ``compare`` through typer's CliRunner (fake coin game)."""

import html
import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from montecarlo import registry
from montecarlo.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]

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
    monkeypatch.setitem(registry.EXTRA, "coin", "tests.test_scenarios")


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
    assert {"index.html", "report.md", "results.csv", "results.parquet", "comparison.csv"} <= {
        p.name for p in out.iterdir()
    }
    assert f"montecarlo report {path} --out {out}" in (out / "report.md").read_text()
    assert "wrote" in result.stderr and result.stdout == ""


def test_compare_starts_workers_up_front_only_when_told_to_or_for_a_reports_plots(tmp_path, monkeypatch):
    """By default compare leaves its workers to the run (started once it proves long enough:
    a short comparison stays in one process); -j N, or --out (the workers also draw the plots),
    starts them as soon as the scenario is read."""
    from montecarlo import scenarios

    started = []
    monkeypatch.setattr(scenarios, "start_scenario_workers", lambda sc, jobs, backend: started.append(jobs))
    path = scenario(tmp_path)
    for extra in ([], ["-j", "2"], ["--out", str(tmp_path / "out")]):
        assert runner.invoke(app, ["compare", str(path), "--json", *extra]).exit_code == 0
    # none for the first; -j 2 by the command, then by run_scenario (a no-op there); --out by the command
    assert started == [2, 2, None]


def test_compare_table_json_and_baseline(tmp_path):
    path = scenario(tmp_path)
    text = runner.invoke(app, ["compare", str(path), "--jobs", "1"])
    assert text.exit_code == 0, text.output
    words = " ".join(text.stdout.split())
    assert "the same dice as the baseline, trial by trial (common random numbers)" in words
    assert "6 of 6 tests significant (Holm)" in words
    assert "6 identical in every trial" in words
    assert "loaded" in text.stdout and "not significant, identical or n/a not shown" in text.stdout

    data = json.loads(runner.invoke(app, ["compare", str(path), "--json", "-q"]).stdout)
    assert data["common_random_numbers"] is True and data["baseline"] == "official"
    assert data["tests"] == 6 and data["identical"] == 6 and data["not_applicable"] == 0
    rows = {(r["variant"], r["metric"], r["setup"]["flips"]): r for r in data["rows"]}
    for flips in (1, 2, 3):
        same = rows["same", "win", flips]
        assert same["difference"] == 0 and not same["significant"] and same["status"] == "identical"
        assert same["p_value"] is None
        loaded = rows["loaded", "win", flips]
        assert loaded["significant"] and loaded["ci_low"] > 0 and loaded["exact_difference"] > 0

    flipped = json.loads(
        runner.invoke(app, ["compare", str(path), "--json", "--baseline", "loaded", "--metric", "win"]).stdout
    )
    assert {r["metric"] for r in flipped["rows"]} == {"win"} and flipped["tests"] == 12
    official = [r for r in flipped["rows"] if r["variant"] == "official"]
    assert all(r["difference"] < 0 and r["significant"] for r in official)

    out = tmp_path / "cmp"
    every = runner.invoke(app, ["compare", str(path), "--all", "--out", str(out)])
    assert every.exit_code == 0 and "same" in every.stdout
    assert any(p.name.startswith("plot-") and "forest" in p.name for p in out.iterdir())


def test_bad_input_is_one_line_exit_2(tmp_path):
    bad = scenario(tmp_path, "bad", text='game = "coin"\nseed = 1\ntrials = 0\n')
    one_error_line(
        runner.invoke(app, ["report", str(bad)]), f"error: {bad}: trials: expected a positive integer, got 0"
    )
    one_error_line(runner.invoke(app, ["compare", str(bad)]), "trials")
    single = scenario(tmp_path, "single", text='game = "coin"\nseed = 1\ntrials = 10\n')
    one_error_line(runner.invoke(app, ["compare", str(single)]), "two or more variants")
    good = scenario(tmp_path)
    one_error_line(
        runner.invoke(app, ["compare", str(good), "--baseline", "nope"]), "--baseline: unknown variant 'nope'"
    )
    one_error_line(runner.invoke(app, ["compare", str(good), "--metric", "total"]), "--metric")
    missing = tmp_path / "missing.toml"
    one_error_line(
        runner.invoke(app, ["report", str(missing)]),
        f"error: {missing}: no such scenario file; check the path",
    )


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
    assert "3 setups × 3 variants" in index and "(<code>loaded</code>) raises the chance that" in index
    assert (out / "first" / "report.md").exists() and (out / "README.md").read_text() == "kept"

    scenario(root / "other", "first", "A clash")
    one_error_line(
        runner.invoke(app, ["report-all", str(root), "--out", str(out)]),
        f"error: {root}/other/first.toml: name: 'first' is already the name of {root}/coin/first.toml "
        "(reports/<name>/ is shared by every game); set name = \"coin-first\" or rename the file",
    )
    one_error_line(runner.invoke(app, ["report-all", str(tmp_path / "nowhere")]), "not a directory")


# ---------------------------------------------------------------- never lose a user's files


def test_report_never_replaces_another_games_report_of_the_same_name(tmp_path, monkeypatch):
    """Two games may both have a duel-matrix.toml: the second is refused before any run."""
    monkeypatch.chdir(tmp_path)
    path = scenario(tmp_path / "scenarios" / "coin", "duel-matrix")
    theirs = tmp_path / "reports" / "duel-matrix"
    theirs.mkdir(parents=True)
    (theirs / "report.json").write_text('{"game": "dune1984", "file": "scenarios/dune1984/duel-matrix.toml"}')
    one_error_line(
        runner.invoke(app, ["report", str(path)]),
        f"error: {path}: name: reports/duel-matrix holds the dune1984 report of "
        "scenarios/dune1984/duel-matrix.toml (scenario names are shared by every game); "
        'set name = "coin-duel-matrix" or give --out',
    )
    assert sorted(p.name for p in theirs.iterdir()) == ["report.json"]


@pytest.fixture
def no_simulation(monkeypatch):
    """Fail loudly if a command starts simulating: destinations are checked before."""
    import montecarlo.scenarios

    def refuse(*args, **kwargs):
        raise AssertionError("simulated before checking --out")

    monkeypatch.setattr(montecarlo.scenarios, "run_scenario", refuse)


def user_files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def no_hidden_folders(root: Path) -> None:
    assert not [p for p in root.rglob(".*")], [str(p) for p in root.rglob(".*")]


def test_report_refuses_a_folder_of_user_files(tmp_path, no_simulation):
    path = scenario(tmp_path / "sc")
    docs = tmp_path / "mydocs"
    (docs / "sub").mkdir(parents=True)
    (docs / "notes.txt").write_text("my notes")
    (docs / "sub" / "deep.txt").write_text("more")
    before = user_files(tmp_path)
    for command in ("report", "compare"):
        result = runner.invoke(app, [command, str(path), "--out", str(docs)])
        one_error_line(
            result, f"error: --out: {docs} holds files montecarlo did not write (notes.txt, sub); "
            "choose a new or empty folder (nothing was changed)"
        )
        assert user_files(tmp_path) == before
    no_hidden_folders(tmp_path)


@pytest.mark.parametrize("where", ["file", "under-file", "empty", "dot"])
def test_bad_out_is_one_line_before_simulating(tmp_path, monkeypatch, no_simulation, where):
    path = scenario(tmp_path / "sc")
    (tmp_path / "a.txt").write_text("keep")
    monkeypatch.chdir(tmp_path)
    out = {"file": "a.txt", "under-file": "a.txt/report", "empty": "", "dot": "."}[where]
    before = user_files(tmp_path)
    for command in ("report", "compare"):
        one_error_line(runner.invoke(app, [command, str(path), "--out", out]), "--out")
    assert user_files(tmp_path) == before
    no_hidden_folders(tmp_path)


def test_read_only_parent_is_one_line_before_simulating(tmp_path, monkeypatch, no_simulation):
    path = scenario(tmp_path / "sc")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "kept.txt").write_text("keep")
    if os.geteuid() == 0:  # root ignores permissions: simulate a read-only folder
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == locked else real(p, mode))
    else:
        locked.chmod(0o555)
    try:
        one_error_line(
            runner.invoke(app, ["report", str(path), "--out", str(locked / "r")]), "cannot write in", "locked"
        )
    finally:
        locked.chmod(0o755)
    assert user_files(locked) == {"kept.txt": "keep"}
    no_hidden_folders(tmp_path)


def test_report_replaces_its_own_folder_and_report_all_keeps_other_files(tmp_path):
    path = scenario(tmp_path / "sc")
    out = tmp_path / "out"
    assert runner.invoke(app, ["report", str(path), "--out", str(out), "-q"]).exit_code == 0
    assert runner.invoke(app, ["report", str(path), "--out", str(out), "-q"]).exit_code == 0
    assert json.loads((out / "report.json").read_text())["written_by"] == "montecarlo"
    no_hidden_folders(tmp_path)

    root, reports = tmp_path / "scenarios", tmp_path / "reports"
    scenario(root / "coin", "first", "First")
    reports.mkdir()
    (reports / "index.html").write_text("<html>my own page</html>")
    one_error_line(
        runner.invoke(app, ["report-all", str(root), "--out", str(reports)]), "not written by montecarlo"
    )
    assert (reports / "index.html").read_text() == "<html>my own page</html>" and user_files(
        reports
    ).keys() == {"index.html"}
    (reports / "index.html").unlink()
    (reports / "first").mkdir()
    (reports / "first" / "draft.md").write_text("mine")
    one_error_line(runner.invoke(app, ["report-all", str(root), "--out", str(reports)]), "first", "draft.md")
    assert user_files(reports) == {"first/draft.md": "mine"}


@pytest.mark.parametrize("command", ["compare", "report"])
def test_a_game_name_where_a_scenario_file_goes_says_what_the_command_reads(command, tmp_path, monkeypatch):
    """`compare imperium -v ties_split_up` said only "no such scenario file"; compare now takes a
    game, with its variants named."""
    monkeypatch.chdir(tmp_path)
    named = ["-v", "official"] if command == "report" else []
    result = runner.invoke(app, [command, "War_For_Arrakis", *named])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: War_For_Arrakis: a game, not a scenario file: {command} reads a scenario file that "
        "names the setups and variants (see scenarios/war_for_arrakis/ and docs/scenarios.md); "
        "`montecarlo games war-for-arrakis` lists the game's built-in variants"
    ) if command == "report" else result.stderr.strip() == (
        "error: compare war-for-arrakis: name the house rules to compare with the official rules with -v "
        "VARIANT (montecarlo games war-for-arrakis lists them) or set rules of your own with --rule "
        "FIELD=VALUE, or give a scenario file"
    )
    (tmp_path / "imperium").write_text('game = "imperium"\n')  # a file of that name is read as one
    assert "a game, not a scenario file" not in runner.invoke(app, [command, "imperium"]).stderr
    assert "no such scenario file" in runner.invoke(app, [command, "nonesuch"]).stderr


@pytest.mark.parametrize("command", ["compare", "report"])
def test_a_folder_where_a_scenario_file_goes_points_to_report_all(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    result = runner.invoke(app, [command, "mine"])
    assert result.exit_code == 2 and result.stderr.strip() == (
        f"error: mine: is a folder; {command} reads one .toml scenario file "
        "(`montecarlo report-all mine` reports every scenario under the folder)"
    )


def test_compare_prints_every_variants_significant_rows_each_within_its_share(tmp_path, monkeypatch):
    """The rows printed were one budget for all variants: the first used it up and the others
    got no table (the README's tie-variants example showed two of its four). Each variant now
    has its share, and the note counts what each one keeps back."""
    from montecarlo.cli import reports

    monkeypatch.setattr(reports, "MAX_ROWS", 4)
    monkeypatch.setattr(reports, "MIN_ROWS_PER_VARIANT", 1)
    path = scenario(tmp_path)
    text = runner.invoke(app, ["compare", str(path), "--baseline", "loaded", "--metric", "win", "-q"])
    assert text.exit_code == 0, text.output
    assert "official − loaded: significant after Holm" in text.stdout
    assert "same − loaded: significant after Holm" in text.stdout  # the second variant too
    words = " ".join(text.stdout.split())
    assert "2 more significant rows not shown (1 of official, 1 of same)" in words


def test_compare_prints_its_summary_even_when_the_report_cannot_be_written(tmp_path, monkeypatch):
    from montecarlo.reporting import plots

    def full_disk(fig, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(plots, "save_png", full_disk)
    path = scenario(tmp_path / "sc")
    result = runner.invoke(app, ["compare", str(path), "--out", str(tmp_path / "cmp")])
    assert result.exit_code == 2 and "Coin odds: variants − official" in result.stdout
    assert result.stderr.strip().splitlines()[-1].startswith("error: cannot write the report to")
    assert "No space left on device" in result.stderr and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sc"]
    no_hidden_folders(tmp_path)


def test_a_piped_compare_summary_is_as_wide_as_its_names_and_cuts_none(tmp_path):
    text = (
        COIN.replace("[variants.loaded]", "[variants.tiebreak_by_troops_then_seat]")
        + '[variants.tiebreak_by_troops_then_spice]\nbuiltin = "loaded"\n'
    )
    path = scenario(tmp_path, text=text)
    out = runner.invoke(app, ["compare", str(path), "--all"]).stdout
    assert "…" not in out and out.splitlines()[1].startswith("┏")
    assert max(map(len, out.splitlines())) > 100  # wider than 100 columns: the names need it
    rows = out.splitlines()
    assert any("tiebreak_by_troops_then_seat" in line for line in rows)  # whole, on one line
    assert any("tiebreak_by_troops_then_spice" in line for line in rows)


def test_compare_on_an_80_column_terminal_keeps_within_it(tmp_path):
    """On a terminal every line fits it, since a longer line would wrap and break a table's frame:
    a summary too wide for it becomes one row a line; piped, it is as wide as its names (test above)."""
    import re

    text = (
        COIN.replace("[variants.loaded]", "[variants.tiebreak_by_troops_then_seat]")
        + '[variants.tiebreak_by_troops_then_spice]\nbuiltin = "loaded"\n'
    )
    path = scenario(tmp_path, text=text)
    terminal = {"COLUMNS": "80", "TTY_COMPATIBLE": "1"}
    result = runner.invoke(app, ["compare", str(path), "--all", "-q"], env=terminal)
    assert result.exit_code == 0, result.output
    lines = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout).splitlines()
    assert max(map(len, lines)) <= 80 and "…" not in result.stdout
    rows = [line for line in lines if " significant, " in line]
    assert len(rows) == 6 and all(line.startswith("  ") for line in rows)  # 3 variants x 2 metrics
    assert sum(row.startswith("  tiebreak_by_troops_then_") for row in rows) == 4  # names whole
    assert " ".join(" ".join(lines).split()).count(", mean ") == 6
    frames = [line.rstrip() for line in lines if line[:1] in "┏┃┡│└"]
    assert frames and all(line[-1] in "┓┃┩│┘" for line in frames)  # the details' tables, whole


def test_precision_runs_say_whether_the_target_was_reached(tmp_path):
    text = COIN.replace("trials = 2000", "trials = 500\nprecision = 0.03\nmax_trials = 4000")
    path = scenario(tmp_path, text=text)
    out = tmp_path / "p"
    assert runner.invoke(app, ["report", str(path), "--out", str(out), "-q"]).exit_code == 0
    facts = json.loads((out / "report.json").read_text())
    assert facts["precision"] == 0.03 and facts["precision_reached"] is True
    assert 0 < facts["widest_half_width"] <= 0.03
    data = json.loads(runner.invoke(app, ["compare", str(path), "--json", "-q"]).stdout)
    assert data["precision_reached"] is True and data["widest_half_width"] == facts["widest_half_width"]


def test_answer_json_of_a_precision_run():
    from montecarlo.analysis import RunSettings, ask
    from tests.test_scenarios import GAME

    settings = RunSettings(trials=500, seed=3, jobs=1, precision=0.02, max_trials=1000, chunk_size=500)
    capped = ask(GAME, None, {"flips": 2}, settings=settings).to_json()
    assert capped["precision"] == 0.02 and capped["precision_reached"] is False  # 1,000 trials: about ±0.03
    assert 0.02 < capped["widest_half_width"] < 0.04 and capped["trials"] == 1000
    reached = ask(
        GAME, None, {"flips": 2}, settings=RunSettings(trials=500, seed=3, jobs=1, precision=0.05)
    ).to_json()
    assert reached["precision_reached"] is True and reached["widest_half_width"] <= 0.05
    assert (
        "precision_reached"
        not in ask(GAME, None, {"flips": 2}, settings=RunSettings(trials=100, jobs=1)).to_json()
    )


def test_report_all_refuses_a_file_as_out(tmp_path, no_simulation):
    root = tmp_path / "scenarios"
    scenario(root / "coin", "first", "First")
    (tmp_path / "a.txt").write_text("keep")
    one_error_line(
        runner.invoke(app, ["report-all", str(root), "--out", str(tmp_path / "a.txt")]), "is a file"
    )
    assert (tmp_path / "a.txt").read_text() == "keep"


def test_scenario_commands_check_jobs_like_odds(tmp_path, monkeypatch):
    """--jobs -3 is refused in one line; more jobs than cores warns and runs on the cores (here
    one, as on a one-core machine: no worker process is started)."""
    path = scenario(tmp_path)
    for command in (["report", str(path), "--out", str(tmp_path / "r")], ["compare", str(path)]):
        one_error_line(runner.invoke(app, [*command, "--jobs", "-3"]), "jobs", "-1")
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    result = runner.invoke(app, ["report", str(path), "--out", str(tmp_path / "r"), "--jobs", "64"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == (
        "warning: --jobs 64 is more than the 1 core of this machine; running 1 worker"
    )
    assert json.loads((tmp_path / "r" / "report.json").read_text())["jobs"] == 1


# --- report-all writes one report while the next scenario runs ------------------------------------


def three_scenarios(tmp_path: Path) -> Path:
    root = tmp_path / "scenarios"
    for name in ("first", "second", "third"):
        scenario(root / "coin", name, name.title())
    return root


def test_report_all_draws_each_reports_plots_on_the_workers_of_its_run(tmp_path, monkeypatch):
    import os

    from montecarlo import reporting, scenarios

    real_run, real_write = scenarios.run_scenario, reporting.write_report
    drawn_on = []

    def run(sc, **kwargs):  # three tiny runs, here: what is checked is what the writing is given
        return real_run(sc, **{**kwargs, "jobs": 1})

    def write(result, out, command=None, jobs=1):
        drawn_on.append((result.scenario.name, jobs))
        return real_write(result, out, command=command)

    monkeypatch.setattr(scenarios, "start_scenario_workers", lambda *args, **kwargs: None)
    monkeypatch.setattr(scenarios, "run_scenario", run)
    monkeypatch.setattr(reporting, "write_report", write)
    out = tmp_path / "reports"
    result = runner.invoke(app, ["report-all", str(three_scenarios(tmp_path)), "--out", str(out), "-j", "2"])
    assert result.exit_code == 0, result.output
    workers = min(2, os.cpu_count() or 1)
    assert drawn_on == [("first", workers), ("second", workers), ("third", workers)]
    assert [line.split("/")[-2] for line in result.stderr.splitlines()[:3]] == ["first", "second", "third"]
    index = (out / "index.html").read_text()
    assert index.index('href="first/') < index.index('href="second/') < index.index('href="third/')


def test_report_all_stops_at_a_report_that_cannot_be_written(tmp_path, monkeypatch):
    from montecarlo.reporting import plots

    real_save = plots.save_png

    def full_disk_in_second(fig, path):
        if Path(path).parent.name.startswith(".second.tmp-"):
            raise OSError(28, "No space left on device")
        real_save(fig, path)

    monkeypatch.setattr(plots, "save_png", full_disk_in_second)
    out = tmp_path / "reports"
    one_error_line(
        runner.invoke(app, ["report-all", str(three_scenarios(tmp_path)), "--out", str(out), "-q"]),
        f"cannot write the report to {out}/second: No space left on device",
    )
    assert (out / "first" / "report.md").exists()
    assert not any((out / name).exists() for name in ("second", "third", "index.html"))
    no_hidden_folders(tmp_path)


def test_report_all_interrupted_keeps_the_reports_written_before(tmp_path, monkeypatch):
    from montecarlo import scenarios

    real_run = scenarios.run_scenario

    def run(sc, **kwargs):  # Ctrl-C while the second scenario runs
        if sc.name == "second":
            raise KeyboardInterrupt
        return real_run(sc, **kwargs)

    monkeypatch.setattr(scenarios, "run_scenario", run)
    out = tmp_path / "reports"
    result = runner.invoke(app, ["report-all", str(three_scenarios(tmp_path)), "--out", str(out), "-q"])
    assert result.exit_code != 0
    facts = json.loads((out / "first" / "report.json").read_text())
    assert {p.name for p in (out / "first").iterdir()} == {*facts["files"], "report.json"}
    assert not (out / "second").exists() and not (out / "index.html").exists()
    no_hidden_folders(tmp_path)
    # Ctrl-C in the first report: OUT, made for it, goes with it (an empty folder was left)
    def stopped(sc, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(scenarios, "run_scenario", stopped)
    fresh = tmp_path / "fresh" / "reports"
    result = runner.invoke(app, ["report-all", str(three_scenarios(tmp_path)), "--out", str(fresh), "-q"])
    assert result.exit_code != 0 and not (tmp_path / "fresh").exists()


def test_report_all_refuses_one_trial_before_writing_any_report(tmp_path, no_simulation):
    """-n 1 with a scenario of variants is refused before the first report is written (it was
    refused at that scenario, after the single-variant reports before it, and left no index)."""
    root = tmp_path / "scenarios"
    scenario(root / "coin", "a-single", text='game = "coin"\nseed = 1\ntrials = 10\n')
    scenario(root / "coin", "b-variants", "Variants")
    out = tmp_path / "reports"
    one_error_line(
        runner.invoke(app, ["report-all", str(root), "--out", str(out), "-n", "1"]),
        f"error: --trials 1 for {root}/coin/b-variants.toml: comparing variants needs at least 2 trials",
    )
    assert not out.exists()
    # two such files: each named, as report-all names every invalid file (it stopped at the first)
    scenario(root / "coin", "c-variants", "Variants")
    result = runner.invoke(app, ["report-all", str(root), "--out", str(out), "-n", "1"])
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr.splitlines() == [
        f"error: --trials 1 for {root}/coin/{name}-variants.toml: comparing variants needs at least 2 "
        "trials a setup (one trial has no spread to test a difference against)" + end
        for name, end in (("b", ""), ("c", " (2 invalid scenario files)"))
    ]


def test_a_checkpoint_inside_the_report_folder_is_refused_before_any_work(tmp_path, no_simulation):
    """--out rep --checkpoint rep/run.ck simulated the whole run, then the report refused its own
    folder for holding run.ck, and every rerun was refused."""
    path = scenario(tmp_path)
    out = tmp_path / "rep"
    one_error_line(
        runner.invoke(app, ["report", str(path), "--out", str(out), "--checkpoint", str(out / "run.ck")]),
        f"error: checkpoint {out / 'run.ck'}: inside the report folder {out}, which the report replaces",
    )


def test_report_all_checks_every_checkpoint_before_the_first_report(tmp_path, no_simulation):
    root = tmp_path / "scenarios"
    scenario(root / "coin", "a-first", "First")
    scenario(root / "coin", "b-second", "Second")
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    (folder / "b-second.checkpoint").write_text("my notes")
    out = tmp_path / "reports"
    one_error_line(
        runner.invoke(app, ["report-all", str(root), "--out", str(out), "--checkpoint", str(folder)]),
        f"checkpoint {folder / 'b-second.checkpoint'}: not a montecarlo checkpoint",
    )
    assert not out.exists() and (folder / "b-second.checkpoint").read_text() == "my notes"


def test_compare_a_game_inline_gives_the_apis_numbers_and_a_report_that_reruns(tmp_path, monkeypatch):
    """`compare GAME -v VARIANT --set ... --grid ...`: the same comparison as mc.compare with those
    arguments (same seed, same numbers), and a report whose rerun line is the command."""
    import montecarlo as mc

    monkeypatch.chdir(tmp_path)
    args = ["compare", "dune1984", "-v", "ties_favour_defender", "--grid", "attacker=2..4",
            "--set", "defender=3", "--trials", "4000", "--metric", "attacker_win", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    api = mc.compare("dune1984", variants="ties_favour_defender", grid={"attacker": [2, 3, 4]}, defender=3,
                     trials=4000, metrics="attacker_win")
    rows = [row for row in data["rows"] if row["metric"] == "attacker_win"]
    by_setup = {row["setup"]["attacker"]: row["difference"] for row in rows}
    expected = {key[0]: value for key, value in api.differences.estimate.items()}
    assert by_setup == pytest.approx(expected, abs=1e-15) and len(by_setup) == 3
    out = tmp_path / "house"
    written = runner.invoke(app, [*args[:-3], "--out", str(out), "-q"])
    assert written.exit_code == 0, written.output
    page = (out / "index.html").read_text()
    assert "ties_favour_defender against official" in page
    rerun = f"montecarlo compare dune1984 --set defender=3 --grid attacker=2..4 --out {out}"
    assert rerun in html.unescape(page)


def test_compare_a_game_with_rules_of_ones_own_as_the_variant_house(tmp_path):
    """`--rule FIELD=VALUE`: a house rule the game has no variant for, as mc.compare takes it (the
    same numbers at the same seed), beside the -v variants; the rerun line repeats it."""
    import montecarlo as mc

    args = ["compare", "dune1984", "--rule", "max_dice=4", "-v", "ties_favour_defender",
            "--set", "attacker=5", "--set", "defender=6", "-n", "4000", "--metric", "attacker_win", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = {row["variant"]: row["difference"] for row in json.loads(result.stdout)["rows"]}
    api = mc.compare("dune1984", variants={"official": {}, "ties_favour_defender": "ties_favour_defender",
                                           "house": {"max_dice": 4}},
                     attacker=5, defender=6, trials=4000, metrics="attacker_win")
    expected = {key[0]: value for key, value in api.differences.estimate.items()}
    assert rows == pytest.approx(expected, abs=1e-15) and set(rows) == {"house", "ties_favour_defender"}
    out = tmp_path / "house"
    written = runner.invoke(app, [*args[:-3], "--out", str(out), "-q"])
    assert written.exit_code == 0, written.output
    rerun = ("montecarlo compare dune1984 --set attacker=5 --set defender=6 --rule max_dice=4 "
             f"--out {out} --trials 4000 --variant ties_favour_defender")
    assert rerun in html.unescape((out / "index.html").read_text())


def test_a_rule_the_official_rules_already_have_is_noted():
    """`--rule max_dice=6` is the official rule: the user is told that house is the official
    rules (every difference 0), or which of several rules changes nothing; a real change, none."""
    base = ["compare", "dune1984", "--set", "attacker=4", "--set", "defender=5", "-n", "200", "-q"]
    same = runner.invoke(app, [*base, "--rule", "max_dice=6"])
    assert same.exit_code == 0, same.output
    assert ("note: --rule max_dice=6: the official rules already say so; house is the official rules "
            "and every difference will be 0") in same.stderr
    part = runner.invoke(app, [*base, "--rule", "max_dice=6", "--rule", "die_faces=8"])
    assert "note: --rule max_dice=6: the official rules already say so (the other rules make house)" \
        in part.stderr
    real = runner.invoke(app, [*base, "--rule", "max_dice=5", "-v", "ties_favour_defender"])
    assert real.exit_code == 0 and "note:" not in real.stderr
    assert "note:" not in runner.invoke(app, [*base, "-v", "ties_favour_defender"]).stderr


TIES = ["dune1984", "-v", "ties_favour_defender"]


@pytest.mark.parametrize(
    "args, message",
    [
        ([*TIES, "--set", "attacker"], "--set 'attacker': give FIELD=VALUE"),
        ([*TIES, "--set", "attacker=4"], "--set: duel setup: defender is required"),
        (["dune1984", "-v", "nope", "--set", "attacker=4", "--set", "defender=3"], "-v nope: unknown"),
        ([*TIES, "--set", "attacker=4", "--grid", "defender=6..1"], "the range runs down from 6; give 1..6"),
        ([*TIES, "--set", "attacker=4", "--grid", "defender=1,9"], "--grid defender=9: defender must be"),
        ([*TIES, "--set", "attacker=4", "--grid", "attacker=1,2"], "--set and --grid both give attacker"),
        (["scenarios/imperium/tie-variants.toml", "--set", "troops=3"], "--set, --grid, --question and"),
        ([*TIES, "--set", "attacker=4", "--set", "defender=5", "--baseline", "official"], "--baseline"),
        ([*TIES, "--set", "attacker=4", "--set", "attacker=5"], "--set attacker is given twice"),
        (["nosuchgame", "-v", "x", "--set", "a=1"], "nosuchgame: no such game or scenario file; games:"),
        (["dune1984", "-v", "", "--set", "attacker=4", "--set", "defender=5"], "-v : unknown variant ''"),
        ([*TIES, "--set", "attacker=4", "--grid", "defender=1..3000000"], "3,000,000 values; a range holds"),
        ([*TIES, "--set", "attacker=4", "--grid", "defender=1,1"], "--grid defender: expected distinct"),
        # as odds refuses it: best play with one character to designate is the fixed policy's odds
        (["dune1984", "-v", "best_play", "--set", "attacker=4", "--set", "defender=5"],
         "best play: the attacker fights with one character"),
        # two Strengths are a fight, which the first question (a duel) cannot take: say so
        (["dune1984", "--rule", "nope=1", "--set", "attacker=4", "--set", "defender=5"],
         "--rule: unknown rule field(s) nope; known: designation"),
        (["dune1984", "--rule", "max_dice=x", "--set", "attacker=4", "--set", "defender=5"],
         "--rule: max_dice must be an integer 1..20, got 'x'"),
        (["dune1984", "--rule", "max_dice", "--set", "attacker=4"], "--rule 'max_dice': give FIELD=VALUE"),
        (["dune1984", "--rule", "max_dice=4", "--rule", "max_dice=5", "--set", "attacker=4"],
         "--rule max_dice is given twice"),
        (["dune1984", "--rule", "max_dice=4", "-v", "house", "--set", "attacker=4"], "-v house: the name of"),
        # rules a battle file cannot play at one point, before any trial (it said "-v house, grid point")
        (["scenarios/games/risk.toml", "--rule", "attack_dice=-1", "--grid", "attackers=2..60", "--set",
          "defenders=1"], "--rule at --grid attackers=2: "),  # the file: as a run first read its path
        (["dune1984", "--rule", "designation=best", "--set", "attacker=4", "--set", "defender=4"],
         "--rule: best play: the attacker fights with one character"),
        # the note on a grid split at its commas waits for the scenario: an error comes alone
        (["war-for-arrakis", "-v", "one_round", "--grid", "attacker=4 regular, bashar",
          "--set", "defender=x"], "defender: unknown unit kind or leader 'x'"),
        (["scenarios/imperium/tie-variants.toml", "--rule", "ties=x"], "--grid, --question and --rule"),
        (["dune1984", "--set", "attacker=4"], "-v VARIANT (montecarlo games dune1984 lists them) or set"),
        (["dune1984", "-v", "fight_to_last", "--set", "attacker=4,2", "--set", "defender=5"],
         "got [4, 2] (for the question duel; --question fight takes this setup)"),
        # a fight refuses a Strength of 7 too: no hint (each grid value is tried)
        ([*TIES, "--set", "defender=4", "--grid", "attacker=1..9"], "or a character name, got 7\n"),
    ],
)
def test_compare_a_game_inline_refuses_in_the_options_words(args, message):
    result = runner.invoke(app, ["compare", *args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_compare_grid_notes_legions_split_at_their_commas():
    """`--grid "attacker=4 regular, 1 elite"` sweeps two legions, as documented; a user who meant
    one legion of two kinds is told, and how to write it; with ; there is no note."""
    base = ["compare", "war-for-arrakis", "-v", "one_round", "--set", "defender=1 regular", "-n", "500",
            "--json"]
    split = runner.invoke(app, [*base, "--grid", "attacker=2 regular, 1 elite"])
    assert split.exit_code == 0, split.output
    assert "note: --grid attacker sweeps 2 values, '2 regular', '1 elite'; " in split.stderr
    assert len({json.dumps(row["setup"]) for row in json.loads(split.stdout)["rows"]}) == 2
    kept = runner.invoke(app, [*base, "--grid", "attacker=2 regular, 1 elite; 3 regular"])
    assert kept.exit_code == 0 and "note" not in kept.stderr, kept.output
    names = runner.invoke(app, ["compare", "dune1984", "-v", "ties_favour_defender", "--grid",
                                "attacker=paul,duke leto", "--set", "defender=chani", "-n", "500", "-q"])
    assert names.exit_code == 0 and "note" not in names.stderr, names.output  # two names, as meant


def test_compare_leaves_out_of_its_summary_a_metric_that_applies_to_no_setup():
    """A War for Arrakis battle reports its objective only where the setup asks for one: with
    none asked, the summary has no row of it (it read "objective ... n/a 1"), and no count of it
    (the caption said "1 not applicable" of a row no table showed): the metric is left out."""
    args = ["compare", "war-for-arrakis", "-v", "best_play", "--set", "attacker=2 regular",
            "--set", "defender=1 regular", "-n", "2000", "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "attacker_win" in result.stdout and "objective" not in result.stdout
    words = " ".join(result.stdout.split())
    tests = int(re.search(r"0 of (\d+) tests significant", words).group(1))
    assert "not applicable" not in words
    # the line under it counts the tests, not the identical and n/a rows among them
    assert re.search(rf"No significant differences in the {tests} tests of the \d+ rows shown", words), words
    asked = runner.invoke(app, [*args, "--set", "objective=trade:1"])
    assert asked.exit_code == 0, asked.output
    assert "│ objective" in asked.stdout


def test_compare_inline_takes_battle_files_list_values_and_a_game_beside_its_folder(tmp_path, monkeypatch):
    """A battle file is a game too; "3,11" is a list (an investment's sums); a folder named like
    the game (scenarios/imperium) does not hide it."""
    risk = str(ROOT / "scenarios" / "games" / "risk.toml")
    for args in (
        [risk, "-v", "ties_to_attacker", "--set", "attackers=3", "--set", "defenders=3"],
        ["dune1984", "--question", "invest", "-v", "guile_check_d8", "--set", "sums=3,11",
         "--set", "payout=3"],
    ):
        result = runner.invoke(app, ["compare", *args, "-n", "2000", "--json"])
        assert result.exit_code == 0, (args, result.output)
        assert json.loads(result.stdout)["rows"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "imperium").mkdir()
    args = ["compare", "imperium", "-v", "ties_split_up", "--set", "troops=2,2", "-n", "2000", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["fixed_setup"] == {"troops": [2, 2]}


def test_compare_a_battle_file_takes_its_example_for_a_field_not_given_as_odds_does():
    """`odds risk.toml` plays the file's example battle (5 attackers, 3 defenders); `compare`
    refused the same file without --set, field by field."""
    risk = str(ROOT / "scenarios" / "games" / "risk.toml")
    for given, fixed in (
        ([], {"attackers": 5, "defenders": 3}),
        (["--set", "defenders=2"], {"attackers": 5, "defenders": 2}),
        (["--grid", "attackers=1..2"], {"defenders": 3}),
    ):
        args = ["compare", risk, "-v", "ties_to_attacker", *given, "-n", "1000", "--json"]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (given, result.output)
        assert json.loads(result.stdout)["fixed_setup"] == fixed
        taken = {k: v for k, v in {"attackers": 5, "defenders": 3}.items() if f"{k}=" not in " ".join(given)}
        said = ", ".join(f"{k}={v}" for k, v in taken.items())
        assert result.stderr == f"note: {said}: the example of {risk} (--set FIELD=VALUE to change)\n"
    wrong = runner.invoke(app, ["compare", risk, "--question", "nope", "-v", "ties_to_attacker"])
    said = "error: --question: unknown question 'nope' for risk; known: battle\n"
    assert (wrong.exit_code, wrong.stderr) == (2, said)


def test_compare_and_scenarios_warn_of_one_house_on_both_sides_as_odds_does():
    """`compare dune1984 --set attacker=Paul --set defender=Leto` said nothing (odds warns): a
    scenario's setups give the game's cautions, once each, which the CLI prints as its warnings."""
    args = ["compare", "dune1984", "-v", "ties_favour_defender", "--grid", "attacker=Paul,Gurney",
            "--set", "defender=Leto", "-n", "500", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if "one player's" in line]
    assert len(said) == 2 and all(line.startswith("warning: ") for line in said), result.stderr
    import warnings

    import montecarlo as mc

    with pytest.warns(UserWarning, match="Gurney Halleck and Duke Leto Atreides are both Red"):
        mc.table("dune1984", grid={"attacker": ["Gurney", 3]}, defender="Leto", trials=200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mc.table("dune1984", grid={"attacker": ["Feyd", 3]}, defender="Leto", trials=200)


def test_a_compare_summary_written_to_a_pipe_keeps_every_name_whole():
    """Piped (a file, grep), the tables are as wide as their names: a variant or metric cut over
    two lines ('ties_favour_d' / 'efender') left grep with neither."""
    args = ["compare", "dune1984", "-v", "ties_favour_defender", "--set", "attacker=4", "--set", "defender=5",
            "-m", "winner_strength", "-n", "2000", "--all"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if "winner_strength=" in line]
    assert len(rows) == 2 * 6 and all("ties_favour_defender" in line for line in rows[:6])  # summary, detail


def test_a_comparison_asked_for_one_value_of_a_distribution_names_the_distribution():
    args = ["compare", "dune1984", "-v", "ties_favour_defender", "--set", "attacker=4", "--set", "defender=5",
            "-m", "winner_strength=3", "-n", "2000"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "give 'winner_strength': a comparison shows every value of a distribution" in result.output
