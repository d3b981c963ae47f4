"""The small shared pieces of the CLI, at their edges: addresses, backends, lists, numbers, flags."""

from __future__ import annotations

import math
import re
import sys

import pytest

from montecarlo.cli.common import (
    backend_for,
    check_edges,
    check_scheduler,
    field_value,
    flag_of,
    flags_of,
    fmt_prob,
    in_flags,
    named_flags,
    parse_int_list,
    parse_name_list,
    say,
    whole_range,
    wrapped,
)
from montecarlo.errors import InputError

REFUSED = "--scheduler must be a Dask scheduler address such as tcp://HOST:8786, got {!r}"


@pytest.mark.parametrize(
    "address",
    [
        "tcp://h:1",
        "tcp://h:65535",
        "ws://h:1",
        "wss://h:1",
        "tls://h:8786",
        "ucx://h:1",
        "h:8786",
        "inproc://x",
    ],
)
def test_every_dask_scheme_and_the_edges_of_the_port_range_pass(address):
    assert check_scheduler(address) == address


@pytest.mark.parametrize(
    "address",
    ["tcp://h:65536", "h:99999", "tcp://h:0", "http://h:1", "inproc://", "tcp://user@h:1", "tcp://h"],
)
def test_other_schemes_ports_out_of_range_and_missing_parts_are_refused(address):
    with pytest.raises(InputError) as info:
        check_scheduler(address)
    assert str(info.value) == REFUSED.format(address)


def test_the_backend_is_as_given_else_dask_with_a_scheduler_else_loky():
    assert backend_for(None, None) == "loky"
    assert [backend_for(b, None) for b in ("loky", "threading", "dask")] == ["loky", "threading", "dask"]
    assert backend_for(None, "h:1") == backend_for("dask", "h:1") == "dask"
    with pytest.raises(InputError) as info:
        backend_for("threading", "h:1")
    assert str(info.value) == (
        "--scheduler is the address of a Dask scheduler: it needs --backend dask, got --backend threading"
    )
    with pytest.raises(InputError) as info:
        backend_for("nope", None)
    assert str(info.value) == "--backend must be one of loky, threading, dask, got 'nope'"
    with pytest.raises(InputError) as info:  # the address is checked first, whatever the backend
        backend_for("loky", "h:0")
    assert str(info.value) == REFUSED.format("h:0")


def test_lists_of_numbers_and_of_names_skip_empty_items_and_name_the_option():
    assert parse_int_list("3, 2,,1 ,", "--sums") == [3, 2, 1]
    assert parse_int_list("", "--sums") == [] and parse_int_list("-4", "--sums") == [-4]
    with pytest.raises(InputError) as info:
        parse_int_list("3,x", "--sums")
    assert str(info.value) == "--sums expects comma-separated integers, got '3,x'"
    assert parse_name_list(" sword, ,gom-jabbar ") == ["sword", "gom-jabbar"]
    assert parse_name_list(None) == parse_name_list("") == parse_name_list(" , ") == []


@pytest.mark.parametrize("text", ["max-dice=4", " max_dice =  4 ", "max-dice=4 "])
def test_a_field_and_its_value_are_stripped_and_the_fields_dashes_read_as_underscores(text):
    assert field_value(text, "--rule", "--rule max_dice=4") == ("max_dice", "4")
    assert field_value("legion=4 regular, 1 elite", "--set", "") == ("legion", "4 regular, 1 elite")
    assert field_value("a=b=c", "--set", "") == ("a", "b=c")


@pytest.mark.parametrize("text", ["attacker", "=4", " =4", "attacker=", "attacker= "])
def test_a_field_or_value_missing_is_refused_naming_the_option_and_its_example(text):
    with pytest.raises(InputError) as info:
        field_value(text, "--grid", "--grid defender=1..6")
    assert str(info.value) == f"--grid {text!r}: give FIELD=VALUE, e.g. --grid defender=1..6"


def test_a_whole_range_runs_up_and_holds_at_most_its_count():
    assert whole_range("2..2", "--grid a", 1) == [2]
    assert whole_range(" -2 ..1 ", "--grid a", 4) == [-2, -1, 0, 1]
    for text in ("1,2", "1..", "a..b", "1...3", "1..2..3", "1.5..2"):
        assert whole_range(text, "--grid a", 10) is None
    with pytest.raises(InputError) as info:
        whole_range(" 3..1", "--rows a", 10)
    assert str(info.value) == "--rows a=3..1: the range runs down from 3; give 1..3"
    with pytest.raises(InputError) as info:
        whole_range("1..5", "--grid a", 4)
    assert str(info.value) == "--grid a=1..5: 5 values; a range holds at most 4"
    with pytest.raises(InputError, match=r"^--grid a=1\.\.1000: 1,000 values; a range holds at most 999$"):
        whole_range("1..1000", "--grid a", 999)


def test_a_probability_is_shown_to_its_digits_and_a_missing_one_as_a_dash():
    assert fmt_prob(None) == fmt_prob(math.nan) == "—"
    assert (fmt_prob(0.123456), fmt_prob(0.5, 2), fmt_prob(1), fmt_prob(0.0)) == (
        "0.1235",
        "0.50",
        "1.0000",
        "0.0000",
    )


def test_field_names_become_flags_only_as_whole_names():
    flags = {"health": "--health", "health_max": "--health-max"}
    assert (
        in_flags("health_max: x (health) and health_max", flags)
        == "--health-max: x (--health) and health_max"
    )
    assert in_flags("health must be 1..9", flags) == "--health must be 1..9"
    assert in_flags("healthy: x (healthy)", flags) == "healthy: x (healthy)"  # another word: unchanged
    assert in_flags("the health: x", flags) == "the health: x"  # only at the start or in parentheses
    assert flag_of("max_trials") == "--max-trials" and flag_of("seed") == "--seed"


def test_the_run_options_a_command_is_handed_are_not_one_of_its_flags():
    """``run`` is the RunOptions that run_command passes, not an option a user types: a message
    that starts with the word "run" keeps it."""

    def command(attacker_strength: int = 1, run: object = None): ...

    flags = flags_of(command)
    assert flags == {"attacker_strength": "--attacker-strength"}
    assert in_flags("run out of cards (run)", flags) == "run out of cards (run)"


def test_a_command_wrapped_by_named_flags_names_the_flags_of_its_setup_errors():
    """What the ``advise`` commands rely on: a setup-field error leaves the command in the words of
    its flags; other errors and results pass through untouched."""

    def advise(enemy_health: int = 1, vehicle: str = ""):
        if enemy_health < 1:
            raise InputError(f"enemy_health must be at least 1, got {enemy_health} (vehicle {vehicle})")
        if enemy_health > 9:
            raise ValueError("enemy_health too high")
        return enemy_health

    wrapped = named_flags(advise)
    assert wrapped.__name__ == "advise" and wrapped(enemy_health=3) == 3
    with pytest.raises(InputError) as refused:
        wrapped(enemy_health=0, vehicle="scout")
    assert str(refused.value) == "--enemy-health must be at least 1, got 0 (vehicle scout)"
    with pytest.raises(ValueError, match="^enemy_health too high$"):
        wrapped(enemy_health=10)


def test_a_scheduler_address_pasted_with_spaces_reaches_dask_without_them(monkeypatch):
    from typer.testing import CliRunner

    from montecarlo.cli import app, common

    seen, checked = [], common.run_settings

    def settings(*args, **kwargs):
        seen.append(checked(*args, **kwargs).scheduler)
        raise InputError("stopped before running")

    monkeypatch.setattr(common, "run_settings", settings)
    result = CliRunner().invoke(
        app, ["odds", "dune1984", "-a", "4", "-d", "5", "--scheduler", "  tcp://10.0.0.1:8786 "]
    )
    assert result.exit_code == 2 and set(seen) == {"tcp://10.0.0.1:8786"}, (result.output, seen)


def test_run_options_give_a_reporter_that_knows_a_precision_run_unless_quiet():
    from montecarlo.cli.common import ProgressReporter
    from tests.cli.test_cli_surprises import options

    def shown(**given):  # the options of a run printed for people: neither --json nor --quiet
        return options(**{"json": False, "quiet": False, "jobs": 1, **given})

    fixed, precise = shown().settings("duel"), shown(precision=0.01).settings("duel")
    assert isinstance(fixed.progress, ProgressReporter) and fixed.progress.label == "duel"
    assert (fixed.progress.precision, precise.progress.precision) == (False, True)
    assert shown().settings().progress.label == "simulating"  # the bar's default words
    # the workers an estimate of the time names ("on 2 worker(s)")
    assert (fixed.progress.workers, shown(jobs=2).settings().progress.workers) == (1, 2)
    assert shown(quiet=True).settings().progress is None
    # --json: the JSON goes to stdout, the bar and a long run's estimate to stderr as without it
    assert isinstance(shown(json=True).settings().progress, ProgressReporter)


def test_ask_many_asks_its_question_of_every_setup_in_one_pool_under_its_label(monkeypatch):
    """The table's cells go to the API in one call, with the question and the bar's words given."""
    from montecarlo.cli import common
    from tests.cli.test_cli_surprises import options

    seen = {}

    def answers_of(game, question, setups, variants, settings):
        seen.update(game=game, question=question, setups=setups, label=settings.progress.label)
        return ["answer"] * len(setups)

    monkeypatch.setattr(common, "answers_of", answers_of)
    monkeypatch.setattr(common, "checked_setups", lambda game, question, setups, **rules: list(setups))
    run = options(json=False, quiet=False, jobs=1)
    assert run.ask_many("template", "duel", ["a", "b"], label="template table") == ["answer", "answer"]
    assert seen == {"game": "template", "question": "duel", "setups": ["a", "b"], "label": "template table"}


def test_ask_gives_the_bar_its_label_simulating_unless_told(monkeypatch):
    from montecarlo.cli import common
    from tests.cli.test_cli_surprises import options

    labels = []
    def answer_of(*args, settings, **kwargs):
        labels.append(settings.progress.label)

    monkeypatch.setattr(common, "answer_of", answer_of)
    monkeypatch.setattr(common, "checked_setups", lambda game, question, setups, **rules: list(setups))
    run = options(json=False, quiet=False, jobs=1)
    run.ask("template", "duel", "a setup")
    run.ask("template", "duel", "a setup", label="template duel")
    assert labels == ["simulating", "template duel"]


def test_a_console_writes_where_it_is_asked_to():
    import sys

    from montecarlo.cli import common

    assert common.console().file is sys.stdout and common.console(stderr=True).file is sys.stderr


def test_the_first_finished_chunk_starts_the_clock_even_of_one_trial(monkeypatch):
    import io

    from montecarlo.cli import common

    ticks = iter([0.0, 0.6])
    monkeypatch.setattr(common.time, "perf_counter", lambda: next(ticks))
    stream = io.StringIO()
    reporter = common.ProgressReporter("x", 1, precision=False, stream=stream)
    reporter(1, 10**9)  # one trial done at 0 s, two at 0.6 s: about 0.6 s a trial from then on
    reporter(2, 10**9)
    assert stream.getvalue().startswith("estimated time: about ")
    assert stream.getvalue().rstrip().endswith(
        "worker(s) (Ctrl-C stops it); --precision 0.001 stops as soon as every probability is known to "
        "±0.001, or lower --trials"
    )
    ticks = iter([0.0, 0.6])
    precise = common.ProgressReporter("x", 1, precision=True, stream=io.StringIO())  # --precision given
    precise(1, 10**9)
    precise(2, 10**9)
    said = precise.stream.getvalue().rstrip()
    assert said.endswith("worker(s) (Ctrl-C stops it); a coarser --precision or a lower --max-trials ends it "
                         "sooner"), said
    ticks = iter([0.0, 0.6])  # 0.6 s a trial, 1,000 trials: 10 minutes, with no word of Ctrl-C
    short = common.ProgressReporter("x", 1, precision=False, stream=io.StringIO())
    short(1, 1000)
    short(2, 1000)
    assert "about 10 min for 1,000 trials on 1 worker(s); --precision" in short.stream.getvalue()


def test_no_estimate_while_nothing_more_is_done(monkeypatch):
    """A report of no more trials than the first (a grid whose total grows, say), half a second
    later, gives no rate to estimate from: the estimate waits for the next trials done."""
    import io

    from montecarlo.cli import common

    ticks = iter([0.0, 0.6, 1.2])
    monkeypatch.setattr(common.time, "perf_counter", lambda: next(ticks))
    stream = io.StringIO()
    reporter = common.ProgressReporter("x", 1, precision=False, stream=stream)
    reporter(1, 10**9)
    reporter(1, 2 * 10**9)
    assert stream.getvalue() == ""
    reporter(2, 2 * 10**9)  # one trial in 1.2 s
    assert stream.getvalue().startswith("estimated time: about ")


def test_a_grid_whose_first_setups_are_quick_is_estimated_again_once_and_said_once(monkeypatch):
    """A grid often runs its small setups first: a projection under a minute is looked at again
    every ESTIMATE_AGAIN_SECONDS until a quarter is done, and the first one over a minute is said,
    once; after a quarter, nothing more."""
    import io

    from montecarlo.cli import common

    clock = [0.0]
    monkeypatch.setattr(common.time, "perf_counter", lambda: clock[0])
    stream = io.StringIO()
    reporter = common.ProgressReporter("x", 2, precision=False, stream=stream)
    total = 1000

    def at(seconds, done):
        clock[0] = seconds
        reporter(done, total)

    at(0.0, 1)
    at(1.0, 100)  # 9 s left at this pace: nothing said
    at(2.0, 110)  # too soon to look again
    assert stream.getvalue() == ""
    at(4.5, 120)  # 4.5 s for 119: about 33 s left, still under a minute
    at(8.0, 125)  # looked at again: 8 s for 124 trials, about 56 s left
    assert stream.getvalue() == ""
    at(12.0, 126)  # 12 s for 125: about 84 s left: said
    assert stream.getvalue().count("estimated time: about ") == 1
    at(20.0, 127)
    assert stream.getvalue().count("estimated time") == 1  # once
    quick = common.ProgressReporter("y", 2, precision=False, stream=io.StringIO())
    clock[0] = 0.0
    quick(1, total)
    clock[0] = 1.0
    quick(300, total)  # a quarter done, under a minute: never looked at again
    clock[0] = 100.0
    quick(301, total)
    assert quick.stream.getvalue() == "" and quick.projection.estimated


@pytest.mark.parametrize("columns", [120, 50])  # the table, and two lines a metric on a narrow screen
def test_a_colour_terminal_shows_numbers_and_the_footer_without_rich_guessing_colours(monkeypatch, columns):
    """rich colours whatever looks like a number or a path unless told not to: on a colour
    terminal only the title, the headers and the metric names are styled (bold), nothing else."""
    from typer.testing import CliRunner

    from montecarlo.cli import app

    monkeypatch.setenv("FORCE_COLOR", "1")  # rich's own switches: a colour terminal of that width
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.delenv("NO_COLOR", raising=False)
    result = CliRunner().invoke(app, ["odds", "dune1984", "-a", "4", "-d", "5", "-n", "2000", "-j", "1"])
    text = result.stdout
    widths = [len(re.sub("\x1b\\[[0-9;]*m", "", line)) for line in text.splitlines()]
    assert max(widths) <= columns and (max(widths) > 50) == (columns > 50)  # the terminal's width
    assert result.exit_code == 0 and "0.2590" in text, (result.output, text)
    assert set(re.findall("\x1b\\[[0-9;]*m", text)) == {"\x1b[1m", "\x1b[0m"}, text
    assert text.startswith("\x1b[1mDune (1984) duel: Strength 4"), text  # the title is bold too
    assert ("2,000 trials, seed 20261129, official rules; 95% intervals (Wilson for probabilities, Student "
            "t for means)") in " ".join(line.strip() for line in text.splitlines())


def test_an_explanation_wider_than_its_column_is_folded_not_cut():
    """A narrow terminal: a long word of an explanation goes on under its column, whole."""
    import io

    from rich.console import Console

    from montecarlo.cli.common import print_explanations

    word = "montecarlo.games.dustrunners.combat.objective_value"
    buffer = io.StringIO()
    print_explanations(Console(file=buffer, width=30, color_system=None), [("metric", f"see {word}")])
    lines = buffer.getvalue().splitlines()
    assert lines[0].split() == ["metric", "see"]
    assert all(len(line) - len(line.lstrip()) == 8 for line in lines[1:])  # the label's width and 2
    assert "".join(line.strip() for line in lines[1:]) == word
    buffer = io.StringIO()  # on a colour terminal the label is bold, the explanation plain
    print_explanations(Console(file=buffer, width=60, force_terminal=True, color_system="standard"),
                       [("metric", "what it means")])
    assert buffer.getvalue().startswith("\x1b[1mmetric\x1b[0m\x1b[1m  \x1b[0mwhat it means")


def test_a_table_exactly_as_wide_as_the_terminal_fits_it_and_each_metric_is_explained_once():
    import io

    from rich.console import Console
    from rich.table import Table

    from montecarlo.analysis import Answer, MetricValue
    from montecarlo.cli.common import explanations, fits_whole

    grid = Table.grid()
    grid.add_row("x" * 20)
    assert [fits_whole(Console(file=io.StringIO(), width=w), grid) for w in (19, 20)] == [False, True]
    values = {
        name: MetricValue(name, kind, 0.5, 0.4, 0.6, 0.01, None, description)
        for name, kind, description in (
            ("left=1", "distribution", "units left"),
            ("left=2", "distribution", "units left"),
            ("won", "probability", "the attacker wins"),
            ("quiet", "mean", ""),  # nothing to say: no line
            ("rounds", "mean", "rounds"),  # a battle file's metric without a description: its name
        )
    }
    answer = Answer("g", "q", None, (), None, 10, 1, 0.0, values)
    assert explanations(answer) == [("left=v", "units left"), ("won", "the attacker wins")]


@pytest.mark.parametrize(
    ("backend", "scheduler", "message"),
    [
        ("nope", None, "--backend must be one of loky, threading, dask, got 'nope'"),
        ("", None, "--backend must be one of loky, threading, dask, got ''"),  # blank: it ran on loky
        (None, "tcp://", "--scheduler must be a Dask scheduler address such as tcp://HOST:8786, got 'tcp://'"),
        ("loky", "tcp://127.0.0.1:8786", "--scheduler is the address of a Dask scheduler: it needs --backend "
                                          "dask, got --backend loky"),
    ],
)
def test_the_early_checks_refuse_a_bad_backend_or_scheduler(backend, scheduler, message):
    """Made before any game is read or anything runs."""
    with pytest.raises(InputError) as caught:
        check_edges((), None, None, backend, scheduler)
    assert str(caught.value) == message
    check_edges(("a", "b"), 0.01, 100, "dask", "tcp://127.0.0.1:8786")  # all together, all fine


ADVICE = "  With 4 units against 1 unit, continue: 4.9675 against 2.0000 for retreating."


def test_prose_is_wrapped_on_a_terminal_only(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "50")
    say(ADVICE)  # capsys's stdout is no terminal: one line an item, for grep
    assert capsys.readouterr().out == ADVICE + "\n"
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    say(ADVICE)
    assert capsys.readouterr().out == wrapped(ADVICE, 50) + "\n"
    assert wrapped(ADVICE, 50).splitlines() == [
        "  With 4 units against 1 unit, continue: 4.9675",
        "      against 2.0000 for retreating.",
    ]


def test_wrapping_keeps_blank_lines_paths_hyphens_and_commands_whole():
    text = (
        "\nSpecials, both rolls seen:\n"
        "deck: small deck (file /a/very/long/path/to/the/illustrative-deck-of-twelve-cards.toml)\n"
        "  variant set_aside_die: sets aside one of its dice in play, whatever-Strength-it-has-left\n"
        "  question duel: a Strength duel of two characters  [montecarlo dune1984 duel]"
    )
    lines = wrapped(text, 44).splitlines()
    assert lines == [
        "",
        "Specials, both rolls seen:",
        "deck: small deck (file",
        "    /a/very/long/path/to/the/illustrative-deck-of-twelve-cards.toml)",
        "  variant set_aside_die: sets aside one of",
        "      its dice in play,",
        "      whatever-Strength-it-has-left",
        "  question duel: a Strength duel of two",
        "      characters",
        "      [montecarlo dune1984 duel]",
    ]


def test_wrapped_lines_end_one_column_short_of_the_terminal_and_are_never_under_40_columns():
    fifty = "  With 4 units against 1 unit, continue: 4.9675 ag"  # 50 columns, then more words
    assert wrapped(fifty + " against", 51).splitlines()[0] == fifty
    assert wrapped(fifty + " against", 50).splitlines()[0] == fifty[:-3]
    first = "  With 4 units against 1 unit, continued:"  # 41 columns
    text = first + " 4.9675 against"
    assert wrapped(text, 42).splitlines()[0] == first
    assert wrapped(text, 10) == wrapped(text, 41) != wrapped(text, 42)  # 40 columns at least


def test_a_reader_that_leaves_is_no_error(monkeypatch, capsys):
    """`montecarlo table war-for-arrakis | head -2` printed "error: Broken pipe": the reader left,
    nothing is wrong; stdout goes to /dev/null (Python's flush at exit would fail again), exit 1.
    A pipe of a file the command writes is still an error, named."""
    import typer

    from montecarlo.cli import common

    class Gone:
        def fileno(self):
            return 1

    moved = []
    monkeypatch.setattr(common.os, "dup2", lambda fd, to: moved.append(to))
    monkeypatch.setattr(common.sys, "stdout", Gone())

    @common.cli_errors
    def printing():
        raise BrokenPipeError(32, "Broken pipe")

    with pytest.raises(typer.Exit) as stop:
        printing()
    assert stop.value.exit_code == 1 and moved == [1] and capsys.readouterr().err == ""

    @common.cli_errors
    def writing_a_fifo():
        raise BrokenPipeError(32, "Broken pipe", "out.fifo")

    with pytest.raises(typer.Exit) as stop:
        writing_a_fifo()
    assert stop.value.exit_code == 1 and capsys.readouterr().err == "error: out.fifo: Broken pipe\n"
    # outside a command (its help, a listing), main's one line for an OSError says the same
    moved.clear()
    assert common.say_os_error(BrokenPipeError(32, "Broken pipe")) == 1 and moved == [1]
    assert capsys.readouterr().err == ""


def test_a_table_printed_whole_widens_the_console_for_itself_only():
    import io

    from rich.console import Console
    from rich.table import Table

    from montecarlo.cli.common import print_whole

    out = Console(file=io.StringIO(), width=40)
    table = Table()
    table.add_column("variant", overflow="fold")
    table.add_row("tiebreak_by_troops_then_seat_and_spice")
    print_whole(out, table)
    out.print("after " * 10)
    lines = out.file.getvalue().splitlines()
    assert any("tiebreak_by_troops_then_seat_and_spice" in line for line in lines)
    assert out.width == 40 and max(map(len, lines[-2:])) <= 40  # what follows is 40 wide again
