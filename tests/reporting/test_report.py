"""Report folders: files, documented columns, embedded plots, header facts, atomic writes."""

import base64
import dataclasses
import html
import json
import os
import re
import stat
from pathlib import Path

import polars as pl
import pytest

from montecarlo import __version__
from montecarlo.errors import InputError
from montecarlo.reporting import all_tables, check_index_out, check_out, plots, write_index, write_report
from montecarlo.reporting.report import report_json
from montecarlo.reporting.tables import COMPARISON_COLUMNS, RESULT_COLUMNS
from montecarlo.scenarios import load_scenario, run_scenario
from tests.test_scenarios import GAME
from tests.conftest import per_test_under_mutation

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


@pytest.fixture(scope=per_test_under_mutation)
def result(tmp_path_factory):
    from montecarlo import registry

    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry.EXTRA, "coin", "tests.test_scenarios")
        path = tmp_path_factory.mktemp("scenarios") / "coin-odds.toml"
        path.write_text(SCENARIO)
        return run_scenario(load_scenario(path), jobs=1)


@pytest.fixture(scope=per_test_under_mutation)
def report(result, tmp_path_factory):
    return write_report(
        result, tmp_path_factory.mktemp("reports") / "coin-odds", command="montecarlo report coin-odds.toml"
    )


def test_a_plot_keeps_the_variant_it_names(result):
    assert [p.variant for p in result.scenario.plots] == [None, None, "loaded", None, None]


def test_the_summary_says_where_its_differences_come_from(result):
    """exact where every applicable setup of a variant's metric has an exact difference; the
    trials' where one lacks it (here the exact values of `heads` taken away)."""
    from montecarlo.reporting.report import _summary_display

    comp = all_tables(result)["comparison"]
    shown = _summary_display(comp, result.scenario)
    assert set(shown["from"]) == {"exact"}
    heads = pl.col("metric") == "heads"
    exact = pl.when(heads).then(None).otherwise(pl.col("exact_difference"))
    partly = comp.with_columns(exact.alias("exact_difference"))
    shown = _summary_display(partly, result.scenario)
    for metric, source in zip(shown["metric"], shown["from"]):
        assert source == ("trials" if metric.endswith("(heads)") else "exact"), (metric, source)
    assert "trials" in set(shown["from"])


def test_a_distributions_values_that_no_setup_reaches_are_left_off_the_page():
    """exact 0 and never drawn wherever the metric applies (n/a rows aside); a value drawn, one with
    an exact value above 0 or none known, and every value without exact values, stay."""
    from montecarlo.reporting.report import _unreachable

    est = pl.DataFrame({"size": [1, 2, 3], "x=0": [0.5, 0.2, None], "x=1": [0.5, 0.0, None],
                        "x=2": [0.0, 0.0, None], "x=3": [0.0, 0.0, None], "x=4": [0.0, 0.0, None],
                        "x=5": [None, None, None]})
    exact = est.with_columns(pl.Series("x=1", [0.5, 0.0, None]), pl.Series("x=3", [0.0, 1e-9, None]),
                             pl.Series("x=4", [None, 0.0, None]))
    tables = {"distribution-x": est, "distribution-x-exact": exact}
    assert _unreachable(tables, "distribution-x", ["size"]) == ["x=2"]
    assert _unreachable({"distribution-x": est}, "distribution-x", ["size"]) == []
    matrix = {"matrix-x": est, "matrix-x-exact": exact}
    assert _unreachable(matrix, "matrix-x", ["size"]) == []


def test_a_distribution_whose_every_value_some_setup_reaches_shows_them_all(tmp_path):
    from montecarlo.scenarios import parse_scenario

    spec = {"game": GAME, "seed": 3, "trials": 300, "metrics": ["total"], "grid": {"flips": [1, 3]},
            "variants": {"official": {}, "two": {"overrides": {"bonus": 2}}}, "plots": []}
    out = write_report(run_scenario(parse_scenario(spec), jobs=1), tmp_path / "all")
    text = (out / "report.md").read_text()
    note = "_probability of each value of `total` (columns): estimate [95% interval] (distribution-total.csv)"
    assert note in text
    assert "| 0 | 1 | 2 | 3 | 4 | 5 |" in text  # totals 0..5: 3 flips and a bonus of 2 reach 5


def test_files_and_documented_columns(report, result):
    names = {p.name for p in report.iterdir()}
    assert {"index.html", "report.md", "report.json", "scenario.toml"} <= names
    for table in (
        "results",
        "comparison",
        "matrix-win",
        "matrix-win-ci_low",
        "matrix-win-ci_high",
        "matrix-win-exact",
        "difference-win",
        "difference-win-significant",
        "matrix-heads",
        "distribution-total",
    ):
        assert {f"{table}.csv", f"{table}.parquet"} <= names, table
    # the Files list of both pages links every table in both formats, and only files written
    listed = re.findall(r"^- \[([^\]]+)\]\(\1\)$", (report / "report.md").read_text(), re.MULTILINE)
    assert {"results.csv", "results.parquet", "matrix-win.parquet", "report.json"} <= set(listed)
    assert set(listed) <= names, set(listed) - names
    html_links = re.findall(r'<li><a href="([^"]+)">', (report / "index.html").read_text())
    assert set(listed) <= set(html_links) <= names
    pngs = sorted(n for n in names if n.endswith(".png"))
    # numbered in the page's order: the plots, then the comparison's (the differences' heat map too)
    assert pngs == ["plot-01-heatmap-win.png", "plot-02-lines-heads.png", "plot-03-bars-total.png",
                    "plot-04-bars-win.png", "plot-05-heatmap-difference-win.png", "plot-06-forest-win.png"]
    assert re.findall(r"!\[[^\]]*\]\(([^)]+)\)", (report / "report.md").read_text()) == pngs
    long = pl.read_parquet(report / "results.parquet")
    assert long.columns == ["flips", "need", "tags", *RESULT_COLUMNS]
    assert long.equals(pl.read_csv(report / "results.csv").with_columns(pl.col("exact").cast(pl.Float64)))
    assert pl.read_parquet(report / "comparison.parquet").columns == [
        "flips",
        "need",
        "tags",
        *COMPARISON_COLUMNS,
    ]
    assert set(long["tags"]) == {"none", "red"}
    facts = json.loads((report / "report.json").read_text())
    assert set(facts["files"]) | {"report.json"} == names  # the folder is marked as montecarlo's own


def test_pandas_reads_numbers(report):
    pd = pytest.importorskip("pandas")
    matrix = pd.read_parquet(report / "matrix-win.parquet")
    assert list(matrix.columns) == ["tags", "variant", "flips", "need=1", "need=2"]
    assert all(pd.api.types.is_float_dtype(matrix[c]) for c in ("need=1", "need=2"))
    low, high = pd.read_parquet(report / "matrix-win-ci_low.parquet"), pd.read_parquet(
        report / "matrix-win-ci_high.parquet"
    )
    assert ((low["need=1"] <= matrix["need=1"]) & (matrix["need=1"] <= high["need=1"])).all()
    diff = pd.read_csv(report / "difference-win.csv")
    assert pd.api.types.is_float_dtype(diff["need=1"])
    assert pd.read_parquet(report / "comparison.parquet")["status"].isin(["tested", "identical"]).all()


def test_html_is_self_contained_and_embeds_every_plot(report):
    page = (report / "index.html").read_text()
    for png in report.glob("*.png"):
        match = re.search(
            rf'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)" alt="[^"]*" '
            rf'data-file="{re.escape(png.name)}"',
            page,
        )
        assert match, png.name
        assert base64.b64decode(match.group(1)) == png.read_bytes()
        assert page.count(f'data-file="{png.name}"') == 1, png.name  # each plot once, in its section
    assert not re.search(r'src="(?!data:)', page) and "<link" not in page


def test_findings_first_and_run_facts_below_collapsed(report, result):
    page = (report / "index.html").read_text()
    assert page.index("<h2>Findings</h2>") < page.index("<h2>Plots</h2>") < page.index("<details>")
    assert page.index("<details>") < page.index("seed use") and "<summary>About this run" in page
    # each variant and metric in words the first time it is named (the headline), by its name after
    assert "<code>same</code> leaves every metric identical to <code>official</code> in all 12 setups" in page
    assert page.count("“the official rules” (<code>official</code>)") == 1
    assert page.count("“bias = 0.5” (<code>same</code>)") == 1 and "“Bias = 0.5”" not in page
    assert page.count("the chance that at least need heads (<code>win</code>)") == 1
    md = (report / "report.md").read_text()
    assert md.index("## Findings") < md.index("## About this run")
    assert "-0.000" not in md and "-0.000" not in page


def test_header_records_how_to_rerun(report, result):
    md = (report / "report.md").read_text()
    for fact in (
        "**seed**: 21",
        "**trials**: 2,000 per setup and variant",
        f"montecarlo {__version__}",
        result.date,
        "montecarlo report coin-odds.toml",
        "**common random numbers**: yes",
        "| rule | official | same | loaded |",
        "| bias | 0.5 | 0.5 | 0.7 |",
        "| bonus | 0 | 0 | 0 |",
        "identical in every trial",
    ):
        assert fact in md, fact
    html_page = (report / "index.html").read_text()
    assert "Coin odds" in html_page and "seed" in html_page and result.date in html_page
    holm = r"\(Holm&#x27;s correction, at 5%\): \d+ of \d+ tests"
    assert re.search(holm, html_page)
    assert "report.json" in html_page  # among the files the report lists
    # every cell applies here: each interval shown has both ends (matrices, and signed differences)
    intervals = re.findall(r"\[([^\[\]<>]*?), ([^\[\]<>]*?)\]", html_page)
    assert any(re.fullmatch(r"\d\.\d{3}", a) for a, _ in intervals)
    assert any(re.fullmatch(r"[-+]\d\.\d{4}", b) for _, b in intervals)
    assert not [pair for pair in intervals if "—" in pair]
    # the variants' table: what a variant lacks is a dash, not a blank
    assert "| official | — | — | the official rules |" in md
    assert "| same | — | bias = 0.5 | bias = 0.5 |" in md
    assert "| loaded | loaded | — | heads 70% of the time |" in md


def test_report_json_is_machine_data(report, result):
    facts = json.loads((report / "report.json").read_text())
    assert facts["written_by"] == "montecarlo" and facts["seed"] == 21 and facts["trials"] == 2000
    assert facts["file"] == str(result.scenario.path) and facts["file"].endswith("coin-odds.toml")
    assert facts["fixed_setup"] == {}  # no [setup] table: every field comes from the grid or defaults
    assert facts["rules"]["loaded"] == {"bias": 0.7, "bonus": 0}
    assert facts["rerun"] == "montecarlo report coin-odds.toml" and facts["common_random_numbers"] is True
    assert (
        facts["grid"] == {"flips": [1, 2, 3], "need": [1, 2], "tags": [[], ["red"]]} and facts["setups"] == 12
    )
    assert isinstance(facts["run_seconds"], float) and isinstance(facts["chunk_size"], int)
    assert facts["run_seconds"] == round(result.seconds, 3) != result.seconds  # to the millisecond
    # and whatever the clock gave: a run's own seconds round to 4 places as they do to 3 one time in
    # ten (a mutant that rounded to 4 survived a whole run so), these 5 places never do
    timed = dataclasses.replace(result, seconds=2.71828)
    assert report_json(timed, all_tables(timed), [], "montecarlo report", [])["run_seconds"] == 2.718
    assert facts["jobs"] == result.jobs == 1
    assert [(v["name"], v["builtin"], v["overrides"]) for v in facts["variants"]] == [
        ("official", [], {}), ("same", [], {"bias": 0.5}), ("loaded", ["loaded"], {}),
    ]
    assert (report / "report.json").read_text().startswith('{\n  "')  # indented for people too
    comp = pl.read_parquet(report / "comparison.parquet")
    assert (
        facts["tests"] == int((comp["status"] == "tested").sum())
        and facts["identical"] + facts["tests"] == 192
    )
    # the rows found significant
    assert facts["significant"] == comp.filter(pl.col("significant")).height == facts["tests"]
    assert facts["headline"] == facts["findings"][0]

    def keys(x):
        if isinstance(x, dict):
            for k, v in x.items():
                yield k
                yield from keys(v)
        elif isinstance(x, list):
            for v in x:
                yield from keys(v)

    assert all(
        re.fullmatch(r"[a-z][a-z0-9_]*", k) for k in keys({k: v for k, v in facts.items() if k != "grid"})
    )


@pytest.mark.processes
def test_plots_drawn_by_worker_processes_make_the_same_report(report, result, tmp_path):
    """write_report(jobs=2) draws each plot in a joblib worker: every file, PNGs included, is
    the same bytes as drawn here (a worker that drew otherwise, or missed or reordered a plot,
    would show)."""
    command = "montecarlo report coin-odds.toml"
    parallel = write_report(result, tmp_path / "coin-odds", command=command, jobs=2)
    assert len(list(report.glob("*.png"))) == 6  # five specs and a heat map of differences
    assert _folder(parallel) == _folder(report)


class RecordingParallel:
    """joblib.Parallel's stand-in: records how it is called and runs the tasks here, in order."""

    calls: list = []

    def __init__(self, n_jobs, backend):
        self.calls.append({"n_jobs": n_jobs, "backend": backend})

    def __call__(self, tasks):
        tasks = list(tasks)
        self.calls[-1]["tasks"] = [(f.__name__, args[0], args[-1].name) for f, args, _ in tasks]
        return [f(*args, **kwargs) for f, args, kwargs in tasks]


def test_with_jobs_every_plot_is_a_task_of_the_local_pool(report, result, tmp_path, monkeypatch):
    import joblib

    monkeypatch.setattr(joblib, "Parallel", RecordingParallel)
    monkeypatch.setattr(RecordingParallel, "calls", [])
    command = "montecarlo report coin-odds.toml"
    assert _folder(write_report(result, tmp_path / "two", command=command, jobs=2)) == _folder(report)
    assert _folder(write_report(result, tmp_path / "one", command=command, jobs=1)) == _folder(report)
    (call,) = RecordingParallel.calls  # none with one job
    assert call["n_jobs"] == 2 and call["backend"] == "loky"  # the run's pool, not a cluster's
    kinds = ["heatmap", "lines", "bars", "bars", "difference", "forest"]
    assert [(f, kind) for f, kind, _ in call["tasks"]] == [("draw_file", kind) for kind in kinds]
    assert sorted(name for *_, name in call["tasks"]) == sorted(p.name for p in report.glob("*.png"))


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

    monkeypatch.setattr(
        plots, "save_png", lambda fig, path: (_ for _ in ()).throw(OSError(28, "No space left on device"))
    )
    with pytest.raises(InputError, match=r"^cannot write the report to \S+: No space left on device$"):
        write_report(result, report)
    assert {p.name: p.read_bytes() for p in report.parent.joinpath(report.name).iterdir()} == before
    assert [p.name for p in report.parent.iterdir()] == [report.name]


def test_a_full_disk_under_the_tables_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    """polars says a full disk as its own ComputeError: it ended the command in a traceback."""
    import polars as pl

    def full(self, path, *args, **kwargs):
        raise pl.exceptions.ComputeError(
            "parquet: File out of specification: underlying IO error: No space left on device (os error 28)"
        )

    monkeypatch.setattr(pl.DataFrame, "write_parquet", full)
    with pytest.raises(InputError, match=r"^cannot write the report to \S+: No space left on device$"):
        write_report(small_result(), tmp_path / "report")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(pl.DataFrame, "write_parquet", lambda *a, **k: (_ for _ in ()).throw(
        pl.exceptions.ComputeError("a polars error that is no failure to write")))
    with pytest.raises(pl.exceptions.ComputeError):  # not said as a disk's failure
        write_report(small_result(), tmp_path / "report")


def small_result():
    from montecarlo.scenarios import parse_scenario

    return run_scenario(parse_scenario({"game": GAME, "seed": 3, "trials": 200, "metrics": ["win"]}), jobs=1)


def test_without_a_command_the_report_names_its_file_to_rerun(result, tmp_path):
    """write_report called from Python without ``command``: a scenario read from a file is rerun
    with ``montecarlo report FILE``; one given as data has no file, and says so."""
    def rerun(folder):
        return json.loads((folder / "report.json").read_text())["rerun"]

    assert rerun(write_report(result, tmp_path / "from-file")) == f"montecarlo report {result.scenario.path}"
    assert str(result.scenario.path).endswith("coin-odds.toml")
    no_file = "(scenario given in Python; no file to rerun)"
    assert rerun(write_report(small_result(), tmp_path / "from-data")) == no_file


def test_common_random_numbers_are_recorded_from_two_variants_on(tmp_path):
    """Two variants already share their random numbers (paired differences); one has nothing to pair."""
    from montecarlo.scenarios import parse_scenario

    def paired(folder):
        return json.loads((folder / "report.json").read_text())["common_random_numbers"]

    variants = {"official": {}, "loaded": {"builtin": ["loaded"]}}
    two = {"game": GAME, "seed": 3, "trials": 200, "metrics": ["win"], "variants": variants}
    assert paired(write_report(run_scenario(parse_scenario(two), jobs=1), tmp_path / "two")) is True
    assert paired(write_report(small_result(), tmp_path / "one")) is False


def test_rewrite_replaces_only_its_own_report(tmp_path):
    small = small_result()
    out = tmp_path / "r"
    write_report(small, out)
    first = (out / "report.json").read_text()
    write_report(small, out)  # its own folder: replaced
    assert (out / "index.html").exists() and json.loads(first)["files"] == json.loads(
        (out / "report.json").read_text()
    )["files"]
    assert [p.name for p in tmp_path.iterdir()] == ["r"]

    (out / "notes.txt").write_text("mine")  # a user's file inside a report folder: refused, kept
    with pytest.raises(InputError, match="notes.txt"):
        write_report(small, out)
    assert (out / "notes.txt").read_text() == "mine" and (out / "report.json").read_text()

    mine = tmp_path / "mydocs"
    (mine / "sub").mkdir(parents=True)
    (mine / "notes.txt").write_text("keep me")
    (mine / "sub" / "deep.txt").write_text("me too")
    with pytest.raises(InputError, match="holds files montecarlo did not write"):
        write_report(small, mine)
    assert (mine / "notes.txt").read_text() == "keep me" and (
        mine / "sub" / "deep.txt"
    ).read_text() == "me too"
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "report.json").write_text('{"title": "someone else\'s"}')
    with pytest.raises(InputError):
        write_report(small, fake)
    assert (fake / "report.json").read_text() == '{"title": "someone else\'s"}'
    listed = tmp_path / "listed"  # another tool's report.json with a list of files: not ours either
    listed.mkdir()
    (listed / "report.json").write_text('{"written_by": "another tool", "files": ["notes.txt"]}')
    (listed / "notes.txt").write_text("theirs")
    with pytest.raises(InputError) as caught:
        write_report(small, listed)
    assert str(caught.value) == (
        f"--out: {listed} holds files montecarlo did not write (notes.txt, report.json); "
        "choose a new or empty folder (nothing was changed)"
    )
    assert (listed / "notes.txt").read_text() == "theirs"
    assert not [p for p in tmp_path.rglob(".*")]  # no hidden .x.tmp-* / .x.old-* anywhere

    empty = tmp_path / "empty"
    empty.mkdir()
    write_report(small, empty)  # an empty folder is fine
    assert (empty / "index.html").exists()


@pytest.mark.parametrize(
    "bad,why",
    [
        ("", "'' (an empty path or a current/parent folder) cannot hold a report; "
             "give a new folder, e.g. reports/my-report"),
        (".", "(an empty path or a current/parent folder) cannot hold a report"),
        ("..", "(an empty path or a current/parent folder) cannot hold a report"),
        ("new/.", "'new/.' (an empty path or a current/parent folder) cannot hold a report"),
        ("new/..", "'new/..' (an empty path or a current/parent folder) cannot hold a report"),
        ("a-file", "is a file, not a folder"),
        ("a-file/below", "a-file"),
    ],
)
def test_check_out_refuses_without_touching_anything(tmp_path, monkeypatch, bad, why):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("data")
    with pytest.raises(InputError) as caught:
        check_out(bad)
    assert "\n" not in str(caught.value) and str(caught.value).startswith("--out: ")
    assert why in str(caught.value)
    assert (
        sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]
        and (tmp_path / "a-file").read_text() == "data"
    )


def test_an_index_that_cannot_be_read_is_named_with_the_reason(tmp_path, monkeypatch):
    (tmp_path / "index.html").write_text("<html>mine</html>")

    def unreadable(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_text", unreadable)
    with pytest.raises(InputError) as caught:
        check_index_out(tmp_path)
    assert str(caught.value) == f"--out: cannot read {tmp_path / 'index.html'}: Permission denied"


def test_check_out_refuses_a_folder_it_cannot_write(tmp_path, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access

    def access(path, mode):  # a folder that may be entered, not written in (root may write anywhere)
        return not mode & os.W_OK if Path(path) == locked else real_access(path, mode)

    monkeypatch.setattr(os, "access", access)
    with pytest.raises(InputError, match="cannot write in .*locked"):
        check_out(locked / "report")
    assert list(locked.iterdir()) == []


def test_check_out_names_why_the_folder_it_tried_to_make_failed(tmp_path, monkeypatch):
    """os.access may say yes where making a folder fails (a read-only mount, say, as root): the
    probe's error is named by its reason alone."""

    def read_only(path, *args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(os, "mkdir", read_only)
    with pytest.raises(InputError) as caught:
        check_out(tmp_path / "report")
    assert str(caught.value) == f"--out: cannot write in {tmp_path} (Read-only file system)"


def test_folders_get_the_umask_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        out = write_report(small_result(), tmp_path / "deep" / "er" / "r")  # two new folders above it
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "deep").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "deep" / "er").stat().st_mode) == 0o755
    assert stat.S_IMODE((out / "index.html").stat().st_mode) == 0o644


def test_default_plots_and_single_variant(tmp_path):
    from montecarlo.scenarios import parse_scenario

    sc = parse_scenario(
        {"game": GAME, "seed": 3, "trials": 500, "grid": {"flips": [1, 2, 3], "tags": [[], ["red"]]}}
    )
    assert [(p.kind, p.metric, p.x, p.hue) for p in plots.plan(sc)] == [
        ("lines", "win", "flips", "tags"),
        ("lines", "heads", "flips", "tags"),
        ("bars", "total", None, "tags"),
    ]
    out = write_report(run_scenario(sc, jobs=1), tmp_path / "one")
    names = {p.name for p in out.iterdir()}
    assert "comparison.csv" not in names and len([n for n in names if n.endswith(".png")]) == 3
    assert "Comparison with" not in (out / "report.md").read_text()
    # one variant: the page's matrices have no variant column (it said "official" on every row);
    # the files keep it
    heads = [line for line in (out / "report.md").read_text().splitlines() if line.startswith("| flips |")]
    # (the totals 4 and 5, which no setup reaches, are left out of the page's distribution)
    assert "| flips | none | red |" in heads and "| flips | tags | 0 | 1 | 2 | 3 |" in heads, heads
    assert pl.read_csv(out / "distribution-total.csv").columns[-1] == "total=5"  # the file keeps them
    assert [line for line in heads if "variant" in line] == [  # the long form alone: it is the data
        "| flips | tags | variant | metric | estimate | ci_low | ci_high | se | exact | trials |"]
    assert "variant" in pl.read_csv(out / "matrix-win.csv").columns
    many = parse_scenario(
        {
            "game": GAME,
            "seed": 3,
            "trials": 500,
            "variants": {"a": {}, "b": {"builtin": "bonus"}},
            "grid": {"flips": [1, 2, 3, 4], "need": [1, 2, 3], "tags": [[], ["red"], ["blue"]]},
        }
    )
    kinds = [(p.kind, p.x, p.y, p.facet, dict(p.where)) for p in plots.plan(many)]
    assert kinds[0] == ("heatmap", "need", "flips", "tags", {})
    assert kinds[-1] == ("forest", None, None, "tags", {}) and len(kinds) == 4


def test_index_shows_each_headline(tmp_path):
    entries = [
        {
            "href": "a/index.html",
            "title": "A & B",
            "game": "coin",
            "headline": "`loaded` raises `win`.",
            "summary": "2 setups",
        }
    ]
    entries.append({"href": "b/index.html", "title": "B", "game": "coin", "summary": "no findings yet"})
    page = write_index(tmp_path, entries).read_text()
    assert '<span class="headline">no findings yet</span></li>' in page  # the summary leads without one
    assert (
        '<a href="a/index.html">A &amp; B</a>' in page
        and "<code>loaded</code> raises <code>win</code>." in page
    )
    assert "2 setups" in page and [p.name for p in tmp_path.iterdir()] == ["index.html"]
    assert "<title>montecarlo reports</title>" in page and "<h1>montecarlo reports</h1>" in page
    check_index_out(tmp_path)  # its own index may be replaced
    (tmp_path / "index.html").write_text("<html>my homepage</html>")
    with pytest.raises(InputError, match="not written by montecarlo"):
        check_index_out(tmp_path)


def test_a_single_report_and_report_alls_folder_are_never_taken_for_each_other(report, tmp_path, monkeypatch):
    """report-all into a scenario's report folder replaced that report's page with the index of
    all reports (exit 0); report into report-all's folder was refused as holding files montecarlo
    did not write, which it had written; an empty folder the user may not write in was replaced by
    a new one (its mode lost) where the docs say it is refused."""
    before = sorted(p.name for p in report.iterdir())
    with pytest.raises(InputError, match="holds the report of one scenario, whose page index.html would be"):
        check_index_out(report)
    assert sorted(p.name for p in report.iterdir()) == before
    write_index(tmp_path, [{"href": "a/index.html", "title": "A", "game": "coin", "headline": "x"}])
    (tmp_path / "a").mkdir()
    with pytest.raises(InputError, match="holds the reports of report-all and their index; a report of one"):
        check_out(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    import montecarlo.reporting.report as writer

    real = os.access
    monkeypatch.setattr(writer.os, "access", lambda p, mode: Path(p) != locked and real(p, mode))
    with pytest.raises(InputError, match=f"--out: cannot write in {locked} \\(permission denied\\)"):
        check_out(locked)


def test_a_report_with_metrics_that_do_not_apply(tmp_path):
    """Seats a setup lacks: empty in every file, n/a on the pages, outside Holm and the plots' scale."""
    from montecarlo.scenarios import parse_scenario
    from tests.reporting.test_tables import coin_with_applicable

    sc = parse_scenario(
        {
            "game": coin_with_applicable(),
            "seed": 4,
            "trials": 1000,
            "metrics": ["win", "heads"],
            "grid": {"flips": [1, 2, 3], "need": [1, 2]},
            "variants": {"official": {}, "loaded": {"builtin": "loaded"}},
        }
    )
    out = write_report(run_scenario(sc, jobs=1), tmp_path / "na")
    long = pl.read_parquet(out / "results.parquet")
    assert long.filter(pl.col("metric") == "win", pl.col("flips") == 1)["estimate"].null_count() == 4
    assert pl.read_csv(out / "matrix-win.csv").filter(pl.col("flips") == 1)["need=1"].null_count() == 2
    facts = json.loads((out / "report.json").read_text())  # strict JSON: no NaN anywhere
    assert facts["not_applicable"] == 2 and facts["tests"] + facts["identical"] + 2 == 12
    page = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", (out / "index.html").read_text())
    assert "n/a" in page and not re.search(r"\bnan\b", page, re.IGNORECASE)
    assert not re.search(r"\bnan\b", (out / "report.md").read_text(), re.IGNORECASE)


def test_reports_of_an_earlier_version_may_be_replaced_but_not_user_files(tmp_path):
    """Folders written before the ``written_by`` mark: replaced only if every name is a report's."""
    old = tmp_path / "old"
    old.mkdir()
    (old / "report.json").write_text('{"version": "montecarlo 0.1.0", "rerun": "montecarlo report x.toml"}')
    for name in ("index.html", "report.md", "results.csv", "matrix-win.parquet", "plot-01-heatmap-win.png"):
        (old / name).write_text("old")
    assert check_out(old) == old
    (old / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="notes.txt"):
        check_out(old)
    index = tmp_path / "index.html"
    index.write_text('<html><head><title>montecarlo reports</title></head><ul class="index"></ul></html>')
    check_index_out(tmp_path)


def test_a_link_to_a_report_folder_is_kept_and_written_through(tmp_path):
    small = small_result()
    target = write_report(small, tmp_path / "target")
    (target / "report.md").write_text("the earlier report")
    link = tmp_path / "link"
    link.symlink_to(target, target_is_directory=True)
    assert write_report(small, link) == link
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert (target / "report.md").read_text() != "the earlier report"  # the new report, in the target
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "target"]


def test_a_link_set_aside_by_the_swap_is_unlinked_and_its_target_kept(tmp_path):
    from montecarlo.reporting.report import _move_into_place

    target = tmp_path / "target"
    target.mkdir()
    (target / "report.md").write_text("the earlier report")
    link, new = tmp_path / "link", tmp_path / "new"
    link.symlink_to(target, target_is_directory=True)
    new.mkdir()
    (new / "report.md").write_text("the new report")
    _move_into_place(new, link)
    assert not link.is_symlink() and (link / "report.md").read_text() == "the new report"
    assert (target / "report.md").read_text() == "the earlier report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "target"]  # no hidden folder left


def test_a_folder_that_cannot_be_listed_is_refused_with_the_reason(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()

    def refuse(self):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "iterdir", refuse)
    with pytest.raises(InputError) as info:
        check_out(out, "--out")
    assert str(info.value) == f"--out: cannot read {out}: Permission denied"


def test_a_temporary_name_taken_is_skipped_and_a_hundred_taken_is_an_error(tmp_path, monkeypatch):
    from montecarlo.reporting import report as report_module

    tokens = iter(["aaaa", "aaaa", "bbbb", "cccc"])
    monkeypatch.setattr(report_module.secrets, "token_hex", lambda n: next(tokens))
    (tmp_path / ".out.tmp-aaaa").mkdir()
    made = report_module._hidden_folder(tmp_path, "out", "tmp")
    assert made == tmp_path / ".out.tmp-bbbb" and made.is_dir()
    aside = report_module._hidden_folder(tmp_path, "out", "old", create=False)
    assert aside == tmp_path / ".out.old-cccc" and not aside.exists()  # only a name: nothing created
    monkeypatch.setattr(report_module.secrets, "token_hex", lambda n: "bbbb")
    with pytest.raises(InputError) as info:
        report_module._hidden_folder(tmp_path, "out", "tmp")
    assert str(info.value) == f"cannot find a free temporary name in {tmp_path}"


def test_tables_headed_in_words_and_captions_do_not_repeat_titles(report):
    page = (report / "index.html").read_text()
    headings = re.findall(r"<h3>([^<]*)</h3>", page)
    assert "The chance that at least need heads" in headings
    assert "The chance that at least need heads: exact values" in headings
    assert "Number of heads: difference from official" in headings
    assert not [h for h in headings if re.match(r"(matrix|difference|distribution)-", h)]  # no file names
    assert "(matrix-win.csv)" in page  # the file is named in the note below the heading
    assert "<figcaption>" not in page  # a plot's title is in the picture (and its alt text)


def test_significant_differences_listed_metric_by_metric_largest_first_with_their_holm_p(report):
    page = (report / "index.html").read_text()
    comparison = pl.read_parquet(report / "comparison.parquet")
    count = int(comparison["significant"].fill_null(False).sum())
    heading = f"<h3>Significant differences ({count}), metric by metric, largest first</h3>"
    assert count > 0 and heading in page
    table = page[page.index(heading) :].split("</table>")[0]
    headers = [re.sub(r"<[^>]+>", "", h).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", table, re.S)]
    assert headers[-5:] == ["metric", "baseline → variant", "difference [95% CI]", "exact", "Holm p"]
    assert table.count("<tr") == count + 1  # the header row and one row per significant difference
    from montecarlo.reporting.report import fmt_p

    def text(cell):
        return html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()

    rows = table.split("<tr")[2:]
    cells = [[text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)] for row in rows]
    significant = comparison.filter(pl.col("significant").fill_null(False))
    metrics = list(comparison["metric"].unique(maintain_order=True))  # the scenario's order
    assert len({m for m in significant["metric"]}) > 1  # more than one metric to put in order
    ordered = significant.with_columns(
        pl.col("metric").replace_strict({m: i for i, m in enumerate(metrics)}).alias("_m"),
        pl.col("difference").abs().alias("_size"),
    ).sort(["_m", "_size"], descending=[False, True])
    assert [row[-1] for row in cells] == [fmt_p(p) for p in ordered["p_holm"]]  # each row's own Holm p
    labels = [row[-5] for row in cells]  # a metric's rows together, not mixed by size
    runs = [label for i, label in enumerate(labels) if i == 0 or label != labels[i - 1]]
    assert len(runs) == len(set(runs)) > 1, labels


class _Failing:
    """Stands in for ``os`` or ``shutil`` inside report.py: the ``which``-th call of ``name``
    raises ``error``; every other call goes through."""

    def __init__(self, module, name: str, which: int, error: BaseException) -> None:
        self.module, self.name, self.which, self.error = module, name, which, error
        self.calls = 0

    def __getattr__(self, attr):
        real = getattr(self.module, attr)
        if attr != self.name:
            return real

        def call(*args, **kwargs):
            self.calls += 1
            if self.calls == self.which:
                raise self.error
            return real(*args, **kwargs)

        return call


def _folder(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


SWAP_FAILURES = [
    # (module, call that fails, which call) for the swap's steps: set the old report aside,
    # rename the new one into place (and put the old one back), remove the old one
    ("os", "replace", 1),
    ("os", "replace", 2),
    ("shutil", "rmtree", 1),
]


@pytest.mark.parametrize(
    "error", [OSError(5, "Input/output error"), KeyboardInterrupt()], ids=["oserror", "ctrl-c"]
)
@pytest.mark.parametrize("module,name,which", SWAP_FAILURES)
def test_a_failure_at_any_step_of_the_swap_leaves_one_whole_report(
    tmp_path, monkeypatch, module, name, which, error
):
    """Nothing of the previous report is lost whichever step of the final swap fails: before the
    new report is in place the old one is back under its name (and nothing hidden is left
    behind); after it, the new report is whole."""
    import shutil

    from montecarlo.reporting import report as report_module

    small = small_result()
    out = write_report(small, tmp_path / "r", command="montecarlo report first.toml")
    before = _folder(out)
    fake = _Failing(os if module == "os" else shutil, name, which, error)
    if name == "rmtree":  # only the removal of the set-aside old report fails
        real_rmtree = shutil.rmtree

        class _Shutil:
            def __getattr__(self, attr):
                return getattr(shutil, attr)

            @staticmethod
            def rmtree(path, *args, **kwargs):
                if ".old-" in Path(path).name:
                    return fake.rmtree(path, *args, **kwargs)
                return real_rmtree(path, *args, **kwargs)

        monkeypatch.setattr(report_module, "shutil", _Shutil())
    else:
        monkeypatch.setattr(report_module, "os", fake)
    with pytest.raises(InputError if isinstance(error, OSError) else KeyboardInterrupt):
        write_report(small, out, command="montecarlo report second.toml")
    monkeypatch.undo()
    assert fake.calls >= which  # the failure was reached
    rerun = json.loads((out / "report.json").read_text())["rerun"]
    if name == "replace":  # the new report never got in: the old one is back, byte for byte
        assert _folder(out) == before and rerun == "montecarlo report first.toml"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]
    else:  # the new report is in place, whole; the old one may be left half-removed, hidden
        assert rerun == "montecarlo report second.toml"
        assert sorted(_folder(out)) == sorted(before)


@pytest.mark.parametrize(
    "first,why",
    [(OSError(5, "Input/output error"), "Input/output error"), (KeyboardInterrupt(), "KeyboardInterrupt")],
)
def test_when_the_old_report_cannot_be_put_back_the_error_says_where_it_is(tmp_path, monkeypatch, first, why):
    """The new report's rename fails (an OSError, or Ctrl-C) and so does the old one's way back:
    the old report is whole in its hidden folder, and the one-line error names that folder."""
    from montecarlo.reporting import report as report_module

    small = small_result()
    out = write_report(small, tmp_path / "r", command="montecarlo report first.toml")
    before = _folder(out)
    errors = iter([first, OSError(13, "Permission denied")])

    class _Os:
        calls = 0

        def __getattr__(self, attr):
            return getattr(os, attr)

        def replace(self, *args):
            self.calls += 1
            if self.calls == 1:  # setting the old report aside works
                return os.replace(*args)
            raise next(errors)

    monkeypatch.setattr(report_module, "os", _Os())
    with pytest.raises(InputError) as caught:
        write_report(small, out, command="montecarlo report second.toml")
    monkeypatch.undo()
    (kept,) = [p for p in tmp_path.iterdir() if p.name.startswith(".r.old-")]
    assert _folder(kept) == before and not out.exists()
    assert str(caught.value) == (
        f"cannot write the report to {out}: {why}; the previous report could not be put back "
        f"(Permission denied) and is kept in {kept}"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [kept.name]  # no half-written new report left


def test_rule_readings_in_force_are_printed_where_they_matter(tmp_path):
    """A War for Arrakis storm report names the storm reading each variant follows (the CLI's
    ``reading:`` line); a game whose question has no readings prints no such section."""
    from montecarlo.scenarios import parse_scenario

    sc = parse_scenario(
        {
            "game": "war-for-arrakis",
            "question": "storm",
            "seed": 5,
            "trials": 200,
            "setup": {"legion": "3 regular", "terrain": "desert"},
            "grid": {"settlement": [True]},
            "variants": {"official": {}, "struck": {"builtin": "storms_strike_settlements"}},
        }
    )
    out = write_report(run_scenario(sc, jobs=1), tmp_path / "storm")
    page = (out / "report.md").read_text()
    assert "## Rule readings in force" in page
    # after the title and the findings, before the plots
    assert page.startswith("# ") and page.index("## Findings") < page.index("## Rule readings in force")
    assert page.index("## Rule readings in force") < page.index("## Plots")
    lead = "Where the game's sources disagree, the numbers follow these readings:"
    assert f"## Rule readings in force\n\n{lead}\n\n- " in page
    assert f"<h2>Rule readings in force</h2>\n<p>{html.escape(lead)}</p>" in (out / "index.html").read_text()
    assert "- official: storms spare a legion in an area with a Harkonnen settlement" in page
    assert "- struck: storms strike a legion in an area with a Harkonnen settlement too" in page
    readings = json.loads((out / "report.json").read_text())["readings"]
    assert readings["official"][0].startswith("storms spare")
    assert readings["struck"][0].startswith("storms strike")
    # no settlement: the storm reading does not matter, so nothing is said
    open_sc = parse_scenario(
        {
            "game": "war-for-arrakis",
            "question": "storm",
            "seed": 5,
            "trials": 200,
            "setup": {"legion": "3 regular", "terrain": "desert", "settlement": False},
        }
    )
    plain = write_report(run_scenario(open_sc, jobs=1), tmp_path / "open")
    assert "Rule readings" not in (plain / "report.md").read_text()
    assert json.loads((plain / "report.json").read_text())["readings"] == {}
    # a scenario given in Python has no file to copy: the files listed are the files written
    written = {p.name for p in plain.iterdir()}
    assert "scenario.toml" not in written
    assert set(json.loads((plain / "report.json").read_text())["files"]) | {"report.json"} == written


def test_a_precision_run_states_its_target_the_span_of_trials_and_whether_it_was_reached(tmp_path):
    from montecarlo.reporting.report import header_facts
    from montecarlo.reporting.tables import all_tables
    from montecarlo.scenarios import parse_scenario

    from tests.reporting.test_tables import PRECISION_RUN as target
    result = run_scenario(parse_scenario(target), jobs=1)
    long = all_tables(result)["results"]
    low, high = long["trials"].min(), long["trials"].max()
    assert low < high  # one flip is a fair coin (p = 1/2), the widest interval
    text = header_facts(result, "cmd", long)["trials"]
    start = (
        "until every shown probability's 95% half-width is ≤ 0.005 "
        f"(first batch {result.scenario.trials:,}): {low:,}–{high:,} per setup; "
        "target reached, widest half-width "
    )
    assert text.startswith(start), text
    shown, widest = float(text.removeprefix(start)), ((long["ci_high"] - long["ci_low"]) / 2).max()
    assert 0.004 < shown <= 0.005 and shown == round(widest, 4)
    assert header_facts(result, "cmd")["trials"] == start.split("; target")[0]  # no table, no verdict
    capped = run_scenario(parse_scenario({**target, "trials": 500, "max_trials": 1_000}), jobs=1)
    text = header_facts(capped, "cmd", all_tables(capped)["results"])["trials"]
    assert "(first batch 500, cap 1,000): 1,000 per setup; target NOT reached (trial cap hit), widest" in text
    written = write_report(capped, tmp_path / "capped", command="cmd")  # the pages say it too
    for page in ("report.md", "index.html"):
        assert "target NOT reached (trial cap hit), widest half-width" in (written / page).read_text(), page
    from montecarlo.reporting.report import precision_facts

    means = run_scenario(parse_scenario({**target, "metrics": ["heads"]}), jobs=1)  # no probability shown
    assert precision_facts(means, all_tables(means)["results"]) == {
        "precision_reached": True, "widest_half_width": 0.0
    }
    # a half-width exactly at the target reaches it (the interval 0 to twice the target: exact in binary)
    at_target = long.with_columns(ci_low=pl.lit(0.0), ci_high=pl.lit(2 * result.scenario.precision))
    assert precision_facts(result, at_target) == {
        "precision_reached": True, "widest_half_width": result.scenario.precision
    }
    # only the metrics shown are tallied: no hidden probability keeps the run going past its first batch
    assert {c.trials for c in means.comparisons} == {means.scenario.trials}
    assert set(means.comparisons[0].answers[0].metrics) == {"heads"}


def test_an_index_that_is_not_text_is_someone_elses_and_kept(tmp_path):
    (tmp_path / "index.html").write_bytes(b"\xff\xfe<\x00h\x00t\x00m\x00l\x00>\x00")  # UTF-16, say
    with pytest.raises(InputError) as caught:
        check_index_out(tmp_path)
    assert str(caught.value) == (
        f"--out: {tmp_path / 'index.html'} was not written by montecarlo and would be replaced; "
        "choose another folder (nothing was changed)"
    )
    assert (tmp_path / "index.html").read_bytes().startswith(b"\xff\xfe<\x00")


def test_matrix_columns_are_headed_by_the_value_after_the_fields_name():
    """``defender=3`` -> ``3``; a value holding "=" itself is kept whole (only the first "=" is the
    field's); columns of several fields keep their names."""
    from montecarlo.reporting.report import _short_headers

    df = pl.DataFrame({"attacker": [1], "defender=3": [0.5], "defender=a=b": [0.25]})
    assert _short_headers(df, ["attacker"]).columns == ["attacker", "3", "a=b"]
    mixed = pl.DataFrame({"attacker": [1], "defender=3": [0.5], "seat=1": [0.25]})
    assert _short_headers(mixed, ["attacker"]).columns == ["attacker", "defender=3", "seat=1"]


def test_a_distribution_is_headed_by_its_values_with_intervals_and_says_n_a_where_a_setup_has_none():
    """Each value's chance with its 95% interval, as a matrix's cells (the table showed the
    estimates alone, where every simulated chance carries its interval)."""
    from montecarlo.reporting.report import _matrix_display

    def frame(*cells):
        return pl.DataFrame({"variant": ["official", "loaded"], "total=0": cells[0], "total=10": cells[1]})

    tables = {"distribution-total": frame([0.25, None], [0.75, 1.0]),
              "distribution-total-ci_low": frame([0.2, None], [0.7, 0.99]),
              "distribution-total-ci_high": frame([0.3, None], [0.8, 1.0])}
    shown = _matrix_display(tables, "distribution-total", [])
    assert shown.columns == ["variant", "0", "10"]
    assert shown.rows() == [("official", "0.250\n[0.200, 0.300]", "0.750\n[0.700, 0.800]"),
                            ("loaded", "n/a", "1.000\n[0.990, 1.000]")]


def test_a_missing_value_in_a_table_is_a_dash_on_both_pages():
    from montecarlo.reporting.report import _html_table, _md_table

    df = pl.DataFrame({"metric": ["win", "loss", "draw"], "estimate": [0.25, None, float("nan")]})
    assert _md_table(df, None).splitlines()[2:] == ["| win | 0.2500 |", "| loss | — |", "| draw | — |"]
    assert "<td>—</td>" in _html_table(df, None)


def test_html_tables_empty_long_and_their_cells():
    """An empty table is the word none; past MAX_ROWS_SHOWN rows the page shows that many and a
    note counts the rest with links to its files; a cell's first line of more than 40 characters
    wraps, unless a second line (an interval) sits below it."""
    from montecarlo.reporting.report import MAX_ROWS_SHOWN, _html_cell, _html_table

    assert _html_table(pl.DataFrame({"n": []}), "results") == "<p><em>none</em></p>"
    df = pl.DataFrame({"n": list(range(MAX_ROWS_SHOWN + 7))})
    page = _html_table(df, "results")
    assert page.count("<tr>") == MAX_ROWS_SHOWN + 1  # the head and the rows shown
    assert page.endswith(
        '<p class="note">7 more rows in <a href="results.csv">results.csv</a> / '
        '<a href="results.parquet">results.parquet</a></p>'
    )
    exactly = _html_table(df.head(MAX_ROWS_SHOWN), "results")
    assert exactly.count("<tr>") == MAX_ROWS_SHOWN + 1 and exactly.endswith("</table></div>")
    assert _html_cell("x" * 40) == "x" * 40
    assert _html_cell("x" * 41) == f'<span class="wrap">{"x" * 41}</span>'
    assert _html_cell("x" * 41 + "\n[0.1, 0.2]") == "x" * 41 + '<br><span class="ci">[0.1, 0.2]</span>'


def test_a_set_aside_old_report_that_cannot_be_removed_leaves_the_new_one_in_place(tmp_path, monkeypatch):
    """Writing over an earlier report: when the earlier one, once set aside, cannot be deleted
    (a file in it refused), the command still succeeds with the new report in place; what is left
    of the old one stays in a hidden folder beside it."""
    small = small_result()
    out = write_report(small, tmp_path / "r", command="montecarlo report first.toml")
    real_unlink = os.unlink

    def unlink(path, *args, dir_fd=None, **kwargs):  # shutil.rmtree unlinks files relative to their folder
        if dir_fd is not None:
            raise PermissionError(13, "Permission denied", path)
        return real_unlink(path, *args, dir_fd=dir_fd, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    write_report(small, out, command="montecarlo report second.toml")
    monkeypatch.undo()
    assert json.loads((out / "report.json").read_text())["rerun"] == "montecarlo report second.toml"
    left = [p.name for p in tmp_path.iterdir() if p.name != "r"]
    assert len(left) == 1 and left[0].startswith(".r.old-"), left


def test_matrix_cells_n_a_identical_and_an_interval_that_touches_zero():
    """A setup the metric does not apply to is n/a; a difference is "identical" only when its
    estimate and both ends of its interval are 0, never in a matrix of estimates."""
    from montecarlo.reporting.report import _matrix_display

    def table(values):
        return pl.DataFrame({"flips": [1, 2, 3], "official": values})

    tables = {"m": table([None, 0.0, -0.1]), "m-ci_low": table([None, 0.0, -0.2]),
              "m-ci_high": table([None, 0.0, 0.0])}
    assert _matrix_display(tables, "m", ["flips"]).rows() == [
        (1, "n/a"), (2, "0.000\n[0.000, 0.000]"), (3, "-0.100\n[-0.200, 0.000]")
    ]
    assert _matrix_display(tables, "m", ["flips"], signed=True).rows() == [
        (1, "n/a"), (2, "identical"), (3, "-0.1000\n[-0.2000, 0.0000]")
    ]


def test_the_run_time_counts_its_workers():
    import dataclasses

    from montecarlo.reporting.report import header_facts

    one = dataclasses.replace(small_result(), seconds=1.26)
    assert header_facts(one, "cmd")["run time"] == "1.3 s on 1 worker"
    for jobs in (2, 3):
        many = dataclasses.replace(one, jobs=jobs)
        assert header_facts(many, "cmd")["run time"] == f"1.3 s on {jobs} workers"
    # a run of hundredths read "0.0 s", as if it had taken no time
    for seconds, said in ((0.049, "under 0.1 s"), (0.05, "0.1 s"), (0.0, "under 0.1 s")):
        quick = dataclasses.replace(one, seconds=seconds)
        assert header_facts(quick, "cmd")["run time"] == f"{said} on 1 worker"


def test_a_long_table_in_report_md_says_how_many_rows_its_files_hold_beyond_the_page():
    from montecarlo.reporting.report import MAX_ROWS_SHOWN, _md_table

    df = pl.DataFrame({"n": list(range(MAX_ROWS_SHOWN + 7))})
    lines = _md_table(df, "results").splitlines()
    assert lines[:3] == ["| n |", "|---|", "| 0 |"]
    assert lines[MAX_ROWS_SHOWN + 1] == f"| {MAX_ROWS_SHOWN - 1} |"  # the last row shown
    files = "[results.csv](results.csv) / [results.parquet](results.parquet)"
    assert lines[-2:] == ["", f"7 more rows in {files}"]
    assert _md_table(df.head(MAX_ROWS_SHOWN), "results").splitlines()[-1] == f"| {MAX_ROWS_SHOWN - 1} |"
    assert _md_table(df.head(1), "results").splitlines() == ["| n |", "|---|", "| 0 |"]
    assert _md_table(df.head(0), "results") == "_none_"


def test_report_md_escapes_a_pipe_in_a_cell_or_header_and_a_bracket_in_a_plots_title():
    """A scenario's label or variant name may hold ``|`` ("no | equipment", a variant "a|b"):
    the row keeps its cells; a plot title's ``]`` does not end the image's text early."""
    from montecarlo.reporting.report import _markdown, _md_table

    df = pl.DataFrame({"a|b": ["no | equipment", "x"], "n": ["1", "2"]})
    lines = _md_table(df, None).splitlines()
    assert lines == ["| a\\|b | n |", "|---|---|", "| no \\| equipment | 1 |", "| x | 2 |"]
    assert all(line.replace("\\|", "").count("|") == 3 for line in lines)
    assert _markdown([("img", "p.png", "odds [by attacker]")]) == "![odds \\[by attacker\\]](p.png)\n"


def test_the_run_facts_count_the_setups_of_the_grid_in_words():
    """A grid of two setups and one of none; the scenario has a fixed setup and two variants."""
    from montecarlo.reporting.report import header_facts
    from montecarlo.scenarios import parse_scenario

    from tests.reporting.test_tables import RARE_SWORD

    two = header_facts(run_scenario(parse_scenario(RARE_SWORD), jobs=1), "cmd")
    assert two["grid"] == "attacker (2) = 2 setups"
    assert two["fixed setup"] == "attacker_equipment = sword, defender = 1"  # field by field
    assert two["common random numbers"] == "yes"  # two variants: paired already
    one = {**RARE_SWORD, "grid": {}, "setup": {**RARE_SWORD["setup"], "attacker": 6}}
    assert header_facts(run_scenario(parse_scenario(one), jobs=1), "cmd")["grid"] == "one setup = 1 setup"


def test_the_run_facts_name_the_file_the_fixed_setup_and_how_the_seed_is_used(result):
    """The facts on the pages: the scenario's file (none for one given in Python), the grid's
    fields multiplied out, no fixed setup, the seed's use, the metrics and variants in order, and
    common random numbers from two variants on (a fixed setup and two variants: the test above)."""
    from montecarlo.reporting.report import header_facts

    facts = header_facts(result, "cmd")
    one_variant = header_facts(small_result(), "cmd")
    assert facts["file"] == str(result.scenario.path) and facts["file"].endswith("coin-odds.toml")
    assert one_variant["file"] == "none (built on a command line or in Python)"
    assert facts["grid"] == "flips (3) × need (2) × tags (2) = 12 setups"
    assert facts["fixed setup"] == "none"
    seed_use = "the same seed for every setup (chunk i of a run draws from stream i of the seed)"
    assert facts["seed use"] == seed_use
    assert (facts["metrics"], facts["variants"]) == ("win, heads, total", "official, same, loaded")
    assert facts["common random numbers"] == "yes"
    assert one_variant["common random numbers"] == "n/a (one variant)"


def test_a_difference_matrix_shows_identical_cells_as_identical_beside_their_exact_values(tmp_path):
    """6 against 1 and 2, a d7 Sword and a d8 agree in all 20,000 trials: "identical" in the
    difference matrix, while the exact matrix below it shows the rare difference."""
    from montecarlo.scenarios import parse_scenario

    from tests.reporting.test_tables import RARE_SWORD

    corner = {**RARE_SWORD, "trials": 20_000, "setup": {"attacker_equipment": ["sword"]},
              "grid": {"attacker": [5, 6], "defender": [1, 2]}}
    folder = write_report(run_scenario(parse_scenario(corner), jobs=1), tmp_path / "r")
    text = (folder / "report.md").read_text()
    assert "| sword_d7 | 6 | identical | identical |" in text
    assert "| sword_d7 | 6 | -1.1e-6 | -5.3e-5 |" in text


def test_the_significant_differences_show_metric_by_metric_largest_first_with_their_exact_values():
    from types import SimpleNamespace

    from montecarlo.games.base import Metric
    from montecarlo.reporting.report import _significant_display

    kinds = {"attacker_win": ("probability", "the attacker wins", ""), "rounds": ("mean", "rounds", ""),
             "score": ("mean", "the score", "size")}  # score's unit is set by size

    def metric(name):
        kind, text, unit = kinds[name]
        return Metric(name, kind, text, unit_field=unit)

    labels = {"size": {"2": "two"}}  # the table shows a labelled value in words
    sc = SimpleNamespace(question=SimpleNamespace(metric=metric), grid={"size": (1, 2, 3)},
                         shown=lambda name, value: labels.get(name, {}).get(str(value), value),
                         reported_metrics=("attacker_win", "rounds", "score"))
    comp = pl.DataFrame({
        "size": ["1", "two", "3", "1", "3", "1", "two"], "variant": ["v"] * 7,
        "metric": ["score", "attacker_win", "attacker_win", "attacker_win", "rounds", "score", "score"],
        "significant": [True, True, True, None, True, True, True],
        "difference": [0.5, 0.05, -0.2, 0.3, 5.0, 0.1, 30.0],
        "baseline_estimate": [0.5, 0.5, 0.6, 0.1, 1.0, 0.5, 10.0],
        "variant_estimate": [1.0, 0.55, 0.4, 0.4, 6.0, 0.6, 40.0],
        "ci_low": [0.4, 0.04, -0.21, 0.2, 4.0, 0.05, 20.0],
        "ci_high": [0.6, 0.06, -0.19, 0.4, 6.0, 0.15, 40.0],
        "exact_difference": [None, 0.0512, None, 0.3, None, None, None],
        "p_holm": [1e-3, 1e-5, 1e-20, 0.5, 1e-4, 1e-3, 1e-3],
    })
    shown = _significant_display(comp, ["size"], sc).to_dicts()
    label = "the attacker wins (attacker_win)"
    assert shown[:2] == [
        {"size": "3", "variant": "v", "metric": label, "baseline → variant": "0.6000 → 0.4000",
         "difference [95% CI]": "-0.2000\n[-0.2100, -0.1900]", "exact": "—", "Holm p": "<1e-12"},
        {"size": "two", "variant": "v", "metric": label, "baseline → variant": "0.5000 → 0.5500",
         "difference [95% CI]": "+0.0500\n[+0.0400, +0.0600]", "exact": "+0.0512", "Holm p": "1e-5"},
    ]
    # then rounds (5.0 is not "larger" than a chance's 0.2: another unit), then score by its unit's
    # value (size 1's two rows, largest first, before size 2's 30.0)
    assert [(r["metric"].split(" (")[1][:-1], r["size"]) for r in shown[2:]] == [
        ("rounds", "3"), ("score", "1"), ("score", "1"), ("score", "two")
    ]
    assert [r["difference [95% CI]"][:7] for r in shown[3:5]] == ["+0.5000", "+0.1000"]


def test_a_report_json_counts_as_an_earlier_montecarlo_report_only_with_its_version_and_rerun(tmp_path):
    """Before report.json listed its files, a report was known by both marks; one alone is not ours."""
    for name, data in (("no-rerun", {"version": "montecarlo 0.1.0"}),
                       ("other-tool", {"version": "othertool 0.1.0", "rerun": "othertool run"})):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "report.json").write_text(json.dumps(data))
        with pytest.raises(InputError, match=r"holds files montecarlo did not write \(report.json\)"):
            check_out(folder)
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    earlier = {"version": "montecarlo 0.1.0", "rerun": "montecarlo report a.toml"}
    (legacy / "report.json").write_text(json.dumps(earlier))
    (legacy / "report.md").write_text("# a report")
    assert check_out(legacy) == legacy  # an earlier montecarlo's report may be replaced


def test_the_index_folder_is_checked_in_the_words_of_its_option(tmp_path, monkeypatch):
    with pytest.raises(InputError) as err:
        check_index_out("  ", option="--index")
    assert str(err.value) == "--index: an empty path is not a folder; give a folder, e.g. reports"
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine")
    with pytest.raises(InputError) as err:
        check_index_out(blocker / "reports", option="--index")
    assert str(err.value) == f"--index: {blocker} is a file, so no folder can be made under it"
    folder = tmp_path / "reports"
    folder.mkdir()
    real_access = os.access  # an existing folder is checked itself, not its parent
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != folder and real_access(p, mode))
    with pytest.raises(InputError) as err:
        check_index_out(folder, option="--index")
    assert str(err.value) == f"--index: cannot write in {folder} (permission denied)"
    monkeypatch.undo()
    # a page of one's own titled like ours, without montecarlo's mark, is kept
    (folder / "index.html").write_text("<html><title>montecarlo reports</title>my page</html>")
    with pytest.raises(InputError, match="was not written by montecarlo and would be replaced"):
        check_index_out(folder, option="--index")


def test_report_json_counts_significant_rows_apart_from_those_a_metric_does_not_apply_to():
    """``coin`` does not apply at size 1: its row there has no verdict (null), and is counted as
    not applicable, not as significant."""
    from montecarlo.reporting.report import report_json
    from montecarlo.reporting.tables import all_tables
    from montecarlo.scenarios import parse_scenario
    from tests.reporting.test_findings import coin_only_at_size_two

    game = coin_only_at_size_two({"edge": {"edge": 0.3}})
    spec = {"game": game, "seed": 1, "trials": 200, "grid": {"size": [1, 2]},
            "variants": {"official": {}, "edge": {"builtin": "edge"}}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    facts = report_json(result, all_tables(result), ["found"], "montecarlo report x.toml", [])
    assert (facts["tests"], facts["significant"], facts["identical"], facts["not_applicable"]) == (2, 2, 1, 1)
    assert (facts["correction"], facts["alpha"]) == ("holm", 0.05)


def test_report_json_keeps_the_words_a_scenario_gives_its_grid_values():
    from montecarlo.reporting.report import report_json
    from montecarlo.reporting.tables import all_tables
    from montecarlo.scenarios import parse_scenario
    from tests.reporting.test_findings import coin_only_at_size_two

    spec = {"game": coin_only_at_size_two({}), "seed": 1, "trials": 100, "grid": {"size": [1, 2]},
            "labels": {"size": {"2": "a pair"}}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    facts = report_json(result, all_tables(result), [], "montecarlo report x.toml", [])
    assert facts["labels"] == {"size": {"2": "a pair"}}
    assert json.loads(json.dumps(facts))["labels"] == facts["labels"]  # plain JSON, as written


def test_a_reports_files_hold_a_labelled_fields_values_and_its_page_the_words(tmp_path):
    """results.csv and .parquet hold size 1 and 2 with "a pair" beside in size_label; the page shows
    the words (a designer filters the files on the numbers)."""
    from montecarlo.scenarios import parse_scenario
    from tests.reporting.test_findings import coin_only_at_size_two

    spec = {"game": coin_only_at_size_two({}), "seed": 1, "trials": 100, "grid": {"size": [1, 2]},
            "labels": {"size": {"2": "a pair"}}, "plots": []}
    out = write_report(run_scenario(parse_scenario(spec), jobs=1), tmp_path / "r")
    for table in (pl.read_csv(out / "results.csv"), pl.read_parquet(out / "results.parquet")):
        assert table.columns[:2] == ["size", "size_label"] and table["size"].dtype == pl.Int64
        assert set(zip(table["size"], table["size_label"])) == {(1, "1"), (2, "a pair")}
    assert "a pair" in (out / "index.html").read_text(encoding="utf-8")


def test_every_link_of_report_md_names_a_file_of_the_report(report):
    """The list of files and the tables cut at their first rows link files of the folder (cut
    tables at one row: test_a_difference_table_names_every_variant_it_leaves_out)."""
    md = (report / "report.md").read_text()
    links = re.findall(r"\]\(([^)]+)\)", md)
    assert "comparison.csv" in links and "results.csv" in links
    assert [link for link in links if not (report / link).is_file()] == []


def test_a_difference_table_names_every_variant_it_leaves_out(tmp_path, monkeypatch):
    """Also: with tables cut at one row, each table cut links the file that holds it whole."""
    from montecarlo.reporting import report as report_module
    from montecarlo.scenarios import parse_scenario

    monkeypatch.setattr(report_module, "MAX_ROWS_SHOWN", 1)
    same = {"overrides": {"bias": 0.5}}
    spec = {"game": GAME, "seed": 1, "trials": 200, "metrics": ["win"], "grid": {"flips": [1, 2]},
            "variants": {"official": {}, "zeta": same, "alpha": same, "loaded": {"builtin": "loaded"}}}
    folder = write_report(run_scenario(parse_scenario(spec), jobs=1), tmp_path / "r", command="x")
    md = (folder / "report.md").read_text()
    assert "; not shown: zeta, alpha (identical to official everywhere) (difference-win.csv)_" in md
    cut = re.findall(r"more rows? in \[([^]]+)\]\(([^)]+)\)", md)
    assert ("comparison.csv", "comparison.csv") in cut  # the significant differences
    assert all(text == link and (folder / link).is_file() for text, link in cut), cut


def test_variants_table_joins_builtins_and_overrides_and_a_one_field_grid_has_no_columns_note(tmp_path):
    """A variant of two built-ins and two overrides is one row of the variants table, each list
    joined by ", "; with one grid field the matrices' columns are the variants, so no note names a
    column field."""
    from montecarlo.scenarios import parse_scenario

    both = {"builtin": ["loaded", "bonus"], "overrides": {"bias": 0.6, "bonus": 2}}
    sc = parse_scenario({"game": GAME, "seed": 3, "trials": 200, "metrics": ["win"],
                         "grid": {"flips": [1, 2]}, "variants": {"official": {}, "both": both}})
    md = (write_report(run_scenario(sc, jobs=1), tmp_path / "both") / "report.md").read_text()
    assert "\n| both | loaded, bonus | bias = 0.6, bonus = 2 | " in md  # the variants table's row
    notes = [line for line in md.splitlines() if line.startswith("_") and "interval" in line]
    assert notes == [
        "_95% paired intervals, each on its own (not adjusted); * significant after Holm (adjusted for the "
        "family) (difference-win.csv)_",
        "_estimate [95% interval]; n/a: does not apply to the setup (matrix-win.csv)_",
    ]


def test_a_report_killed_while_writing_is_cleaned_up_by_the_next_one(tmp_path, capsys):
    """kill -9 while writing left .<name>.tmp-* for good: the next report to the folder removes
    the ones montecarlo marked for a process that has ended, and nothing else."""
    import socket
    import subprocess
    import sys

    from montecarlo.reporting.report import PARTIAL

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    dead = int(ended.stdout)
    out = tmp_path / "rep"
    killed = tmp_path / ".rep.tmp-0000dead"
    running = tmp_path / ".rep.tmp-0000live"
    unmarked = tmp_path / ".rep.tmp-0000mine"
    other = tmp_path / ".other.tmp-0000dead"
    elsewhere = tmp_path / ".rep.tmp-0000away"  # a shared folder: another host's process
    here = socket.gethostname()
    for folder, mark in ((killed, f"{here} {dead}"), (running, f"{here} {os.getpid()}"), (unmarked, None),
                         (other, f"{here} {dead}"), (elsewhere, f"not-{here} {dead}")):
        folder.mkdir()
        (folder / "plot-01.png").write_bytes(b"half")
        if mark is not None:
            (folder / PARTIAL).write_text(mark)
    write_report(small_result(), out)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [".other.tmp-0000dead", ".rep.tmp-0000away", ".rep.tmp-0000live", ".rep.tmp-0000mine", "rep"]
    )
    assert PARTIAL not in {p.name for p in out.iterdir()}  # the mark never reaches the report


def test_a_previous_report_that_cannot_be_removed_is_named(tmp_path, monkeypatch, capsys):
    """A read-only previous report stayed, silently, as a hidden .<name>.old-* folder."""
    from montecarlo.reporting import report as module

    out = write_report(small_result(), tmp_path / "rep")
    monkeypatch.setattr(module.shutil, "rmtree", lambda path, ignore_errors=False: None)
    write_report(small_result(), out)
    left = [p for p in tmp_path.iterdir() if p.name.startswith(".rep.old-")]
    assert len(left) == 1
    assert capsys.readouterr().err == (
        f"warning: the previous report, set aside in {left[0]}, could not be removed; remove it yourself\n"
    )


def test_a_folder_under_the_name_of_a_report_file_is_the_users(tmp_path):
    """report.md replaced by a folder of the user's: its files were deleted with the old report."""
    out = write_report(small_result(), tmp_path / "rep")
    (out / "report.md").unlink()
    (out / "report.md").mkdir()
    (out / "report.md" / "mine.txt").write_text("keep")
    with pytest.raises(InputError, match=r"holds files montecarlo did not write \(report\.md\)"):
        write_report(small_result(), out)
    assert (out / "report.md" / "mine.txt").read_text() == "keep"


def test_stale_report_folders_each_judged_by_their_own_mark(tmp_path):
    """An unmarked folder does not end the clean-up of the marked ones after it, and a link
    named like a temporary folder is never followed, whatever its target holds."""
    import socket
    import subprocess
    import sys

    from montecarlo.reporting.report import PARTIAL, _remove_stale_partials

    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True).stdout)
    mark = f"{socket.gethostname()} {dead}"
    (tmp_path / ".rep.tmp-0000aaaa").mkdir()  # unmarked, sorts first
    (tmp_path / ".rep.tmp-0000aaab").mkdir()  # a mark that does not read as host and process
    (tmp_path / ".rep.tmp-0000aaab" / PARTIAL).write_text("garbage")
    (tmp_path / ".rep.tmp-0000bbbb").mkdir()
    (tmp_path / ".rep.tmp-0000bbbb" / PARTIAL).write_text(mark)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / PARTIAL).write_text(mark)
    (mine / "notes.txt").write_text("keep")
    (tmp_path / ".rep.tmp-0000cccc").symlink_to(mine)
    _remove_stale_partials(tmp_path / "rep")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".rep.tmp-0000aaaa", ".rep.tmp-0000aaab", ".rep.tmp-0000cccc", "mine"
    ]
    assert (mine / "notes.txt").read_text() == "keep"


def test_a_stale_folder_that_cannot_be_removed_does_not_stop_the_report(tmp_path, monkeypatch):
    import socket
    import subprocess
    import sys

    from montecarlo.reporting import report as module

    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True).stdout)
    stuck = tmp_path / ".rep.tmp-0000dead"
    stuck.mkdir()
    (stuck / module.PARTIAL).write_text(f"{socket.gethostname()} {dead}")

    def rmtree(path, ignore_errors=False):
        if not ignore_errors:
            raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(module.shutil, "rmtree", rmtree)
    module._remove_stale_partials(tmp_path / "rep")  # no error: the folder stays, the report goes on
    assert stuck.is_dir()


def test_a_process_is_asked_whether_it_runs_with_signal_0_only(monkeypatch):
    from montecarlo.reporting import report as module

    sent = []
    monkeypatch.setattr(module.os, "kill", lambda pid, signal: sent.append((pid, signal)))
    assert module._running(12345) and sent == [(12345, 0)]

    def refused(pid, signal):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(module.os, "kill", refused)
    assert module._running(1)  # another user's process: running, its folder kept

    def gone(pid, signal):
        raise ProcessLookupError(3, "No such process")

    monkeypatch.setattr(module.os, "kill", gone)
    assert not module._running(99999)


def test_a_failed_write_removes_the_folders_it_made_above_the_report(result, tmp_path, monkeypatch):
    """An interrupted --out new/deeper/rep left the empty folders new/deeper behind."""
    def failing_save(fig, path):
        raise KeyboardInterrupt

    monkeypatch.setattr(plots, "save_png", failing_save)
    (tmp_path / "kept").mkdir()
    with pytest.raises(KeyboardInterrupt):
        write_report(result, tmp_path / "kept" / "new" / "deeper" / "rep")
    assert [p.name for p in tmp_path.iterdir()] == ["kept"] and list((tmp_path / "kept").iterdir()) == []


def test_a_write_killed_midway_is_found_and_removed_by_the_next(result, tmp_path, monkeypatch):
    """End to end: a write that dies (its clean-up never runs, its process has ended) leaves a
    folder the next write to the same place recognises by its name and mark, and removes."""
    import subprocess
    import sys

    from montecarlo.reporting import report as module

    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True).stdout)

    def killed(fig, path):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:  # a kill: no clean-up, and the mark of a process now gone
        m.setattr(plots, "save_png", killed)
        m.setattr(module, "_undo", lambda tmp, made, fresh=None: None)
        m.setattr(module.os, "getpid", lambda: dead)
        with pytest.raises(KeyboardInterrupt):
            write_report(result, tmp_path / "rep")
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].startswith(".rep.tmp-")
    write_report(result, tmp_path / "rep")
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]



@pytest.mark.parametrize("kind", ["probe", "tmp"])  # the check that OUT can be written; the report's
def test_a_kill_just_after_a_hidden_folder_is_made_leaves_nothing(result, tmp_path, monkeypatch, kind):
    """Each folder was made inside the call that named it: a kill right after the mkdir found the
    name not yet kept, and the empty hidden folder stayed (a SIGTERM test caught it once)."""
    from montecarlo.reporting import report as module

    real_mkdir = os.mkdir

    def made_then_killed(path, *args, **kwargs):
        real_mkdir(path, *args, **kwargs)
        if f".{kind}-" in Path(path).name:
            raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(module.os, "mkdir", made_then_killed)
        with pytest.raises(KeyboardInterrupt):
            write_report(result, tmp_path / "rep")
    assert list(tmp_path.iterdir()) == []


def test_a_kill_between_the_two_renames_puts_the_previous_report_back(result, tmp_path, monkeypatch):
    """The previous report is set aside, then the new one takes its place: a kill just after the
    first rename left the previous report hidden as .rep.old-* and no rep at all."""
    from montecarlo.reporting import report as module

    write_report(result, tmp_path / "rep")
    before = (tmp_path / "rep" / "report.json").read_text()
    real_replace = os.replace

    def set_aside_then_killed(src, dst):
        real_replace(src, dst)
        if Path(dst).name.startswith(".rep.old-"):
            raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(module.os, "replace", set_aside_then_killed)
        with pytest.raises(KeyboardInterrupt):
            write_report(result, tmp_path / "rep")
    assert [p.name for p in tmp_path.iterdir()] == ["rep"]
    assert (tmp_path / "rep" / "report.json").read_text() == before


def test_report_md_shows_markdown_signs_in_labels_and_variant_names_as_themselves():
    """A label or variant name such as ``no_*_equipment``, ``[x](y)`` or ``<b>`` reads as typed in
    report.md's headings, text, facts, tables and plot titles, as on the HTML page (it was read as
    emphasis, a link, a tag); a finding's `code` stays code."""
    markdown_it = pytest.importorskip("markdown_it")
    from montecarlo.reporting.report import _markdown

    names = ["no_*_equipment*", "_x_ [x](y) <b>", "a`b"]
    blocks = [
        ("h2", f"Comparison with {names[0]}"),
        ("list", [f"{names[1]} with {names[0]} (`{names[0]}`)"]),
        ("note", f"not shown: {names[2]}"),
        ("kv", {"variants": ", ".join(names)}),
        ("table", pl.DataFrame({"variant": names, "n": ["1", "2", "3"]})),
        ("img", "p.png", f"odds ({names[0]}) [by attacker]"),
    ]
    page = markdown_it.MarkdownIt("commonmark").enable("table").render(_markdown(blocks))
    # the note's italics and the fact's bold name only; no link, no tag
    assert [page.count(tag) for tag in ("<em>", "<strong>", "<a", "<b>")] == [1, 1, 0, 0], page
    text = html.unescape(re.sub(r"<(?!img)[^>]+>", "", page))
    assert f"Comparison with {names[0]}" in text
    assert f"{names[1]} with {names[0]} ({names[0]})" in text and f"<code>{names[0]}</code>" in page
    assert f"not shown: {names[2]}" in text and ", ".join(names) in text
    assert all(f"\n{name}\n" in text for name in names), text
    assert f'alt="odds ({names[0]}) [by attacker]"' in html.unescape(page)


def test_a_long_folder_name_needs_room_for_a_reports_temporary_folder_and_not_for_an_index(tmp_path):
    """A report is written beside its folder first (.NAME.tmp-1a2b3c4d); report-all's index is
    written inside its folder, so a name of up to 255 bytes serves it."""
    name = "i" * 245
    assert check_index_out(tmp_path / name) == tmp_path / name
    with pytest.raises(InputError, match="is 245 bytes; a report is written beside it"):
        check_out(tmp_path / name)


def test_a_link_to_nothing_as_the_report_folder_is_called_a_link(tmp_path):
    """It was 'a file, not a folder'; the link stays as it was."""
    link = tmp_path / "out"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(InputError) as caught:
        check_out(link)
    assert str(caught.value) == (
        f"--out: {link} is a link to {tmp_path / 'gone'}, which does not exist; give a new folder name"
    )
    assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["out"]
