"""The one progress bar of a run's trials, and the spinner of a long solve (montecarlo.progress)."""

import contextlib
import io
import re
import time

from rich.console import Console

from montecarlo.progress import trial_bar, working


def test_the_bar_draws_on_its_stream_with_the_trials_the_time_taken_and_left_and_vanishes():
    stream = io.StringIO()
    bar = trial_bar(stream)
    try:
        assert bar.live.transient and bar.live.is_started
        task = bar.add_task("a grid", total=0)  # a total of 0 formats (None would not)
        bar.update(task, completed=250, total=1_000)
        shown = Console(width=100, file=io.StringIO(), color_system=None)
        shown.print(bar.get_renderable())
        assert re.fullmatch(r"a grid ━+ +250/1,000 trials 0:00:0\d -:--:--\n", shown.file.getvalue())
    finally:
        bar.stop()
    assert not bar.live.is_started
    assert bar.console.file is stream



def test_a_long_solve_shows_its_spinner_and_a_short_one_nothing():
    long, short = io.StringIO(), io.StringIO()
    with working(long, "solving best play exactly", after=0.05):
        time.sleep(0.4)
    with working(short, "solving best play exactly", after=0.3):
        pass
    time.sleep(0.4)  # past its delay: a spinner that had not been called off would show now
    assert "solving best play exactly" in long.getvalue() and short.getvalue() == ""


def test_a_spinner_leaves_what_the_command_prints_where_it_goes(capsys):
    spinner = io.StringIO()
    with working(spinner, "solving", after=0.0):
        time.sleep(0.2)
        print("the advice")
    assert capsys.readouterr().out == "the advice\n" and "the advice" not in spinner.getvalue()


def test_the_cli_spins_only_where_stderr_is_a_terminal(monkeypatch):
    from montecarlo.cli import common

    shown: list = []
    monkeypatch.setattr(common, "working", lambda _, said: shown.append(said) or contextlib.nullcontext())
    with common.solving():
        pass
    assert shown == []
    monkeypatch.setattr(common, "_is_terminal", lambda stream: True)
    with common.solving():
        pass
    assert shown == ["solving best play exactly (Ctrl-C stops it)"]
