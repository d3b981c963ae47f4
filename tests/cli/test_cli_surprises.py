"""No silent surprises: huge runs start at once and say how long they will take, --jobs beyond
the cores warns and uses the cores, negative jobs are refused, --scheduler is never ignored."""

from __future__ import annotations

import io
import re
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from montecarlo.analysis import RunSettings, ask
from montecarlo.cli import app
from montecarlo.cli import common
from montecarlo.engine.pace import ESTIMATE_AGAIN_SECONDS
from montecarlo.cli.common import ProgressReporter, RunOptions
from montecarlo.engine import runner as engine
from montecarlo.errors import InputError
from montecarlo.registry import get_game
from tests.cli.helpers import assert_json_agrees

cli = CliRunner()
CORES = os.cpu_count() or 1


class Stop(Exception):
    pass


# --- lazy chunk plans and the progress callback -----------------------------------------------


def test_chunk_plan_is_lazy_and_exact():
    plan = engine.ChunkPlan(10**12, 1 << 17)
    assert len(plan) == -(-(10**12) // (1 << 17)) and plan[0] == 1 << 17 and plan[-1] == 10**12 % (1 << 17)
    assert list(engine.ChunkPlan(300_001, 100_000)) == [100_000] * 3 + [1]
    assert engine.ChunkPlan(300_001, 100_000)[1:] == [100_000, 100_000, 1]
    assert len(engine.ChunkPlan(0, 10)) == 0


def test_a_trillion_trials_start_at_once():
    q = get_game("dune1984").question("duel")
    def kernel(n, rng):
        return q.simulate(get_game("dune1984").rules(), q.setup({"attacker": 4, "defender": 5}), n, rng)

    calls = []

    def progress(done, total):
        calls.append((time.perf_counter(), done, total))
        if done >= 2 << 17:
            raise Stop

    started = time.perf_counter()
    with pytest.raises(Stop):
        engine.run(kernel, q.metrics, 10**12, 1, jobs=1, progress=progress)
    assert calls[0][1:] == (0, 10**12)
    assert calls[0][0] - started < 0.5 and time.perf_counter() - started < 5


def test_progress_goes_from_zero_to_the_total_and_grows_with_precision():
    g = get_game("dune1984")
    q = g.question("duel")
    seen = []
    settings = RunSettings(
        trials=300_001, seed=3, chunk_size=100_000, progress=lambda d, t: seen.append((d, t))
    )
    answer = ask(g, "duel", {"attacker": 4, "defender": 5}, settings=settings)
    assert seen[0] == (0, 300_001) and seen[-1] == (300_001, 300_001)
    assert [d for d, _ in seen] == [0, 100_000, 200_000, 300_000, 300_001]
    quiet = ask(
        g,
        "duel",
        {"attacker": 4, "defender": 5},
        settings=RunSettings(trials=300_001, seed=3, chunk_size=100_000),
    )
    assert answer.metrics == quiet.metrics  # reporting progress changes no number
    seen.clear()
    ask(
        g,
        "duel",
        {"attacker": 4, "defender": 5},
        settings=RunSettings(
            trials=1000, seed=3, precision=0.01, chunk_size=1000, progress=lambda d, t: seen.append((d, t))
        ),
    )
    totals = [t for _, t in seen]
    assert totals[0] == 1000 and max(totals) > 1000 and seen[-1][0] == seen[-1][1] > 1000
    assert q.metrics  # the question reports through the same callback as any other


@pytest.mark.parametrize("clock", [0.0, 5_000.0])  # perf_counter counts from an arbitrary point
def test_the_reporter_estimates_long_runs_once(monkeypatch, clock):
    ticks = [clock + t for t in (0.0, 0.1, 0.2, 0.8, 0.9, 1.0)]
    monkeypatch.setattr(common.time, "perf_counter", lambda: ticks.pop(0) if len(ticks) > 1 else ticks[0])

    stream = io.StringIO()
    reporter = ProgressReporter("dune1984 duel", 1, precision=False, stream=stream)
    for done in (0, 100_000, 200_000, 300_000, 400_000, 500_000):
        reporter(done, 10**9)
        assert stream.getvalue() == "" or done >= 300_000  # not before half a second after the first chunk
    text = stream.getvalue()
    assert text.count("estimated time") == 1 and "--precision" in text
    # 200,000 trials in the 0.7 s after the first chunk: the 999,700,000 left take about 3,500 s
    assert text.startswith("estimated time: about 58 min for 1,000,000,000 trials on 1 worker(s)")


def test_a_run_that_starts_its_workers_is_timed_from_its_first_chunk_after_they_have_started(monkeypatch):
    """While workers start, the chunks run here alone (and share the cores with the start): a
    rate taken then would say twice the time of the run on its workers."""
    ticks = [0.0, 0.1, 0.6, 1.1]
    monkeypatch.setattr(common.time, "perf_counter", lambda: ticks.pop(0))
    starting = [True, False]  # asked at each report after the first chunk's
    monkeypatch.setattr(common.runner, "starting", lambda: starting.pop(0))
    stream = io.StringIO()
    reporter = ProgressReporter("dune1984 duel", 2, precision=False, stream=stream)
    reporter(0, 10**9)
    reporter(100_000, 10**9)  # 0.1 s: the first chunk, while the workers start
    reporter(150_000, 10**9)  # 0.6 s: half a second later, still starting: the clock starts again
    assert stream.getvalue() == ""
    reporter(1_150_000, 10**9)  # 1.1 s, the workers running: 1,000,000 trials in 0.5 s
    # 998,850,000 trials left at 2,000,000 a second: 499 s (from the first chunk: 951 s)
    assert stream.getvalue().startswith("estimated time: about 8 min for 1,000,000,000 trials on 2 worker(s)")
    assert not starting


@pytest.mark.parametrize(("total", "said"), [(12_200_000, False), (12_200_001, True)])
def test_the_estimate_comes_half_a_second_after_the_first_chunk_for_runs_over_a_minute(
    monkeypatch, total, said
):
    """Half a second exactly after the first chunk (100,000 trials a half second): 12,000,000
    trials left take 60 s, not more than a minute; one trial more does."""
    ticks = [0.0, 0.25, 0.75]
    monkeypatch.setattr(common.time, "perf_counter", lambda: ticks.pop(0))
    stream = io.StringIO()
    reporter = ProgressReporter("dune1984 duel", 1, precision=False, stream=stream)
    for done in (0, 100_000, 200_000):
        reporter(done, total)
    # the estimate was made at exactly 0.5 s; a minute or less is looked at again a little later
    assert reporter.projection.estimated == said
    assert reporter.projection.next_look == 0.75 + ESTIMATE_AGAIN_SECONDS
    assert stream.getvalue().startswith("estimated time: about 60 s for 12,200,001 trials") == said
    assert said or stream.getvalue() == ""


class Terminal(io.StringIO):
    """A stream that says it is a terminal: the progress bar draws on it."""

    def isatty(self):
        return True


def test_the_bar_follows_the_run_on_a_terminal_and_vanishes_at_its_end(capsys):
    stream = Terminal()
    reporter = ProgressReporter("dune1984 duel", 1, precision=False, stream=stream)
    assert reporter.bar_enabled
    reporter(0, 1_000_000)
    reporter(400_000, 1_000_000)
    assert reporter.progress.tasks[0].completed == 400_000 and reporter.progress.tasks[0].total == 1_000_000
    from rich.progress import TimeRemainingColumn

    assert isinstance(reporter.progress.columns[-1], TimeRemainingColumn)  # the time left, last
    reporter(1_000_000, 1_000_000)
    assert reporter.progress is None  # closed with the run
    # without a stream it writes on stderr, never on stdout where the answer goes
    default = ProgressReporter("x", 1, precision=False)
    assert default.stream is sys.stderr
    default._say("a message")
    assert capsys.readouterr() == ("", "a message\n")


def test_a_message_during_the_bar_goes_through_it_and_a_precision_run_keeps_its_bar(capsys):
    stream = Terminal()
    reporter = ProgressReporter("x", 1, precision=True, stream=stream)
    reporter(10, 100)
    reporter._say("estimated time: [bold]about 2 h[/bold]")
    assert reporter.messages == ["estimated time: [bold]about 2 h[/bold]"]
    assert "estimated time: [bold]about 2 h[/bold]" in stream.getvalue()  # printed as written
    reporter(100, 100)
    assert reporter.progress is not None  # a precision run may add trials: the bar stays
    reporter.close()
    assert reporter.progress is None
    assert capsys.readouterr() == ("", "")


def test_the_bar_shows_the_label_the_trials_done_of_the_total_the_time_taken_and_left_and_is_erased():
    stream = Terminal()
    reporter = ProgressReporter("dune1984 duel", 1, precision=True, stream=stream)
    reporter(0, 1_000_000)
    reporter(400_000, 1_000_000)
    from rich.console import Console

    shown = Console(width=100, file=io.StringIO(), color_system=None)
    shown.print(reporter.progress.get_renderable())
    # the label, the bar, the trials, the time taken and the time left
    drawn = r"dune1984 duel ━+ +400,000/1,000,000 trials 0:00:0\d -:--:--\n"
    assert re.fullmatch(drawn, shown.file.getvalue())
    reporter(1_500_000, 2_000_000)  # a precision run that adds trials: the bar's total follows
    assert reporter.progress.tasks[0].total == 2_000_000
    reporter.close()
    assert stream.getvalue().endswith("\x1b[1A\x1b[2K")  # the bar's line erased: nothing left of it


def test_a_run_already_done_at_its_first_report_draws_no_bar():
    for precision in (False, True):
        stream = Terminal()
        reporter = ProgressReporter("x", 1, precision=precision, stream=stream)
        reporter(100, 100)
        assert reporter.progress is None and stream.getvalue() == ""


def test_a_message_is_flushed_at_once_on_a_buffered_stream():
    class Buffered(io.StringIO):
        flushes = 0

        def flush(self):
            self.flushes += 1

    stream = Buffered()
    ProgressReporter("x", 1, precision=False, stream=stream)._say("estimated time: about 2 h")
    assert stream.getvalue() == "estimated time: about 2 h\n" and stream.flushes >= 1


def test_a_stream_without_isatty_or_closed_has_no_bar():
    closed = io.StringIO()
    closed.close()
    assert not ProgressReporter("x", 1, precision=False, stream=closed).bar_enabled
    assert not ProgressReporter("x", 1, precision=False, stream=object()).bar_enabled


def test_short_runs_print_no_estimate():
    stream = io.StringIO()
    reporter = ProgressReporter("x", 1, precision=False, stream=stream)
    for done in range(0, 1_000_001, 100_000):
        reporter(done, 1_000_000)
    assert stream.getvalue() == ""


@pytest.mark.parametrize("output", [[], ["--json"]])
def test_cli_prints_an_estimate_within_seconds_for_a_trillion_trials(output):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "montecarlo",
            "odds",
            "dune1984",
            "-a",
            "4",
            "-d",
            "5",
            "-n",
            "1000000000000",
            "-j",
            "1",
            *output,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    started = time.perf_counter()
    try:
        line = proc.stderr.readline()
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
    assert line.startswith("estimated time: about"), line
    assert "--precision" in line and time.perf_counter() - started < 30


# --- jobs and backends ------------------------------------------------------------------------


@pytest.mark.processes
def test_jobs_above_the_cores_warn_and_use_the_cores():
    assert RunSettings(jobs=CORES + 50).resolved_jobs() == CORES
    assert RunSettings(jobs=-1).resolved_jobs() == CORES
    args = ["odds", "dune1984", "-a", "3", "-d", "2", "-n", "300000", "--json"]
    many = cli.invoke(app, [*args, "-j", str(CORES + 98)])
    one = cli.invoke(app, [*args, "-j", "1"])
    assert many.exit_code == 0, many.output
    assert many.stderr.strip() == (
        f"warning: --jobs {CORES + 98} is more than the {CORES} cores of this machine; "
        f"running {CORES} workers"
    )
    assert json.loads(many.stdout)["metrics"] == json.loads(one.stdout)["metrics"]
    assert_json_agrees(json.loads(one.stdout))


def test_the_warning_of_a_command_with_its_setups_checked_comes_once(capsys, tmp_path):
    """warn_once, called when a command's setups were found right: one warning however often,
    none for jobs that fit, and a checkpoint that cannot serve refused before it."""
    run = options(jobs=CORES + 98)
    run.warn_once()
    run.warn_once()
    assert capsys.readouterr().err.strip().splitlines() == [
        f"warning: --jobs {CORES + 98} is more than the {CORES} cores of this machine; "
        f"running {CORES} workers"
    ]
    options(jobs=1).warn_once()
    assert capsys.readouterr().err == ""
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not a montecarlo checkpoint"):
        options(jobs=CORES + 98, checkpoint=tmp_path / "notes.txt").warn_once()
    assert capsys.readouterr().err == ""


def test_the_excess_jobs_warning_is_given_once_per_command(capsys):
    """Options asked for their settings more than once (a command with several runs) warn once."""
    run = options(jobs=CORES + 98)
    run.settings()
    run.settings()
    warned = capsys.readouterr().err.strip().splitlines()
    assert warned == [f"warning: --jobs {CORES + 98} is more than the {CORES} cores of this machine; "
                      f"running {CORES} workers"]
    fitting = options(jobs=1)
    fitting.settings()
    assert capsys.readouterr().err == ""
    # a Dask cluster's workers are the cluster's, whatever the cores here
    options(jobs=CORES + 98, scheduler="tcp://127.0.0.1:8786").settings()
    options(jobs=CORES + 98, backend="dask").settings()
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("args", [
    ["odds", "imperium", "--troops", "3"],  # one seat
    ["odds", "dune1984", "-a", "3", "-d", "2", "-v", "nope"],
    ["table", "dune1984", "--attacker-equipment", "laser"],
    ["table", "dune1984", "-v", "nope"],
    ["odds", "war-for-arrakis", "-a", "3 regular", "-d", "2 regular", "-v", "nope"],
    ["war-for-arrakis", "storm", "--legion", "2 regular", "--terrain", "desert", "-v", "nope"],
    ["odds", "imperium", "--troops", "3,2", "-v", "nope"],
])
def test_a_mistake_comes_alone_not_after_the_jobs_warning(args):
    """Bad input is one line: the --jobs warning came first, and the error as a second line."""
    result = cli.invoke(app, [*args, "-n", "200", "--jobs", str(CORES + 98)])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("error: ")


@pytest.mark.parametrize("jobs", ["0", "-2", "-100"])
@pytest.mark.parametrize("command", [
    ["odds", "dune1984", "-a", "3", "-d", "2", "-n", "1000"],
    ["compare", "scenarios/imperium/tie-variants.toml"],  # these said "jobs must be", not "--jobs"
    ["report", "scenarios/imperium/tie-variants.toml"],
    ["report-all", "scenarios"],
])
def test_zero_and_negative_jobs_other_than_minus_one_are_refused(jobs, command, monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    result = cli.invoke(app, [*command, "--jobs", jobs])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [f"error: --jobs must be a positive number of workers, or -1 for all cores, got {jobs}"]
    with pytest.raises(InputError):
        RunSettings(jobs=int(jobs)).resolved_jobs()


def test_minus_one_means_all_cores():
    result = cli.invoke(app, ["odds", "dune1984", "-a", "3", "-d", "2", "-n", "20000", "-j", "-1", "--json"])
    assert result.exit_code == 0 and result.stderr == ""
    assert_json_agrees(json.loads(result.stdout))


def options(**given) -> RunOptions:
    base = dict(
        trials=1000,
        seed=1,
        jobs=None,
        precision=None,
        max_trials=None,
        variant=(),
        json=True,
        quiet=True,
        backend=None,
        scheduler=None,
    )
    return RunOptions(**{**base, **given})


def test_scheduler_selects_dask_or_is_refused():
    assert options().backend_name() == "loky"
    assert options(backend="threading").backend_name() == options(backend="threading").settings().backend == (
        "threading"
    )
    assert options(scheduler="tcp://10.0.0.1:8786").backend_name() == "dask"
    assert options(scheduler="tcp://10.0.0.1:8786").settings().backend == "dask"
    assert options(backend="dask", scheduler="tcp://10.0.0.1:8786").backend_name() == "dask"
    result = cli.invoke(
        app, ["odds", "dune1984", "-a", "3", "-d", "2", "--scheduler", "tcp://x:1", "--backend", "loky"]
    )
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --scheduler is the address of a Dask scheduler: it needs --backend dask, got --backend loky"
    )
    bad = cli.invoke(app, ["odds", "dune1984", "-a", "3", "-d", "2", "--backend", "spark"])
    assert bad.exit_code == 2 and "--backend must be one of loky, threading, dask" in bad.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (["--precision", "0.7"], "--precision must be a half-width between 0 and 0.5"),
        (["--precision", "0.01", "--max-trials", "0"], "--max-trials must be a positive integer"),
    ],
)
def test_run_options_are_checked_before_any_work(args, message):
    result = cli.invoke(app, ["odds", "dune1984", "-a", "3", "-d", "2", *args])
    assert result.exit_code == 2 and message in result.stderr


@pytest.mark.parametrize(
    "seconds,text",
    [
        (0.4, "0 s"), (89.4, "89 s"), (90, "2 min"), (5399, "90 min"), (5400, "1.5 h"),
        (2 * 86400 - 1, "48.0 h"), (2 * 86400, "2.0 days"), (10**7, "115.7 days"), (10**9, "11,574.1 days"),
    ],
)
def test_estimated_durations_change_unit_at_their_bounds(seconds, text):
    """Seconds below 90, minutes below 90 min, hours below 2 days, then days."""
    from montecarlo.cli.common import _duration

    assert _duration(seconds) == text
