"""A game with no cli/<game>.py still has `odds`, `table` and one command per question, generated
from its setup fields: the template game and the fake game ``coin`` (tests/test_scenarios.py)."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from montecarlo import __version__, registry
from montecarlo.cli import app, main
from montecarlo.cli.common import examples_of
from montecarlo.cli.generated import field_docs, setup_options
from tests.cli.helpers import assert_json_agrees, assert_rows_agree
from tests.test_scenarios import CoinSetup

runner = CliRunner()


@pytest.fixture(autouse=True)
def games(monkeypatch):
    monkeypatch.setitem(registry.EXTRA, "template", "montecarlo.games._template")
    monkeypatch.setitem(registry.EXTRA, "coin", "tests.test_scenarios")


def one_error_line(args: list[str], capsys, monkeypatch) -> str:
    """What ``montecarlo ARGS`` prints on stderr through the real entry point (exit code 2)."""
    monkeypatch.setattr(sys, "argv", ["montecarlo", *args])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def test_the_setup_fields_become_typed_options_with_their_docs():
    options = {o.name: o for o in setup_options(CoinSetup)}
    assert [(o.flag, o.kind, o.default) for o in options.values()] == [
        ("--flips", "int", 1),
        ("--need", "int", 1),
        ("--tags", "list", ()),
    ]
    assert options["need"].help == "heads needed to win."
    assert field_docs(CoinSetup)["tags"] == (
        "labels with no effect (red, blue); a list-valued field like Dune's equipment."
    )


def test_odds_help_lists_the_setup_flags_with_their_help():
    result = runner.invoke(app, ["odds", "coin", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    for flag, doc in [
        ("--flips", "how many times the coin is flipped, 1..4."),
        ("--need", "heads needed to win."),
        ("--tags", "labels with no effect (red, blue)"),
    ]:
        assert flag in text and doc in text, (flag, text)
    assert "montecarlo odds coin --flips 2" in text  # the example, from the question's example
    template = runner.invoke(app, ["odds", "template", "--help"], env={"COLUMNS": "200"})
    assert "--attacker" in template.stdout and "--defender" in template.stdout


def test_the_template_answers_through_montecarlo_odds():
    result = runner.invoke(app, ["odds", "template", "-a", "3", "-d", "2", "-n", "20000", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["game"] == "template" and data["setup"] == {"attacker": 3, "defender": 2}
    assert data["metrics"]["attacker_win"]["exact"] is not None
    assert_json_agrees(data)
    text = runner.invoke(app, ["template", "duel", "--attacker", "2", "--defender", "3", "-n", "20000"])
    assert text.exit_code == 0, text.output
    assert_rows_agree(text.stdout, at_least=3)


def test_list_fields_take_comma_separated_values():
    result = runner.invoke(
        app, ["coin", "flip", "--flips", "3", "--need", "2", "--tags", "red,blue", "-n", "5000", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["setup"] == {"flips": 3, "need": 2, "tags": ["red", "blue"]}
    assert_json_agrees(data)


def test_the_generated_table_sweeps_two_fields():
    args = ["table", "template", "--rows", "attacker=1..2", "--cols", "defender=1,3", "-n", "4000", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(c["attacker"], c["defender"]) for c in data["cells"]] == [(1, 1), (1, 3), (2, 1), (2, 3)]
    assert data["trials"] == 4000 and data["metric"] == "attacker_win" and data["version"] == __version__
    for cell in data["cells"]:
        se = (cell["ci_high"] - cell["ci_low"]) / (2 * 1.959963984540054)
        assert abs(cell["estimate"] - cell["exact"]) <= 4.5 * se


def test_the_generated_table_plays_the_variants_it_is_given():
    args = ["table", "coin", "--rows", "flips=1..2", "--cols", "need=1", "-n", "2000", "--json"]
    args += ["-v", "loaded"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["variants"] == ["loaded"]
    # a coin loaded to 70% heads: at least one head in 1 and in 2 flips
    assert [c["exact"] for c in data["cells"]] == pytest.approx([0.7, 1 - 0.3**2])


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["odds", "template", "-a", "3"],
            "error: Missing option '--defender' / '-d'. (see: montecarlo odds template --help)",
        ),
        (["odds", "template", "-a", "9", "-d", "2"], "error: --attacker must be an integer 1..6, got 9"),
        (
            ["odds", "coin", "--tags", "green"],
            "error: --tags must be among red, blue, got ['green']",
        ),
        (
            ["table", "template", "--rows", "atk=1..3", "--cols", "defender=1..3"],
            "error: --rows 'atk=1..3': atk is not a setup field (attacker, defender)",
        ),
        (
            ["table", "template", "--rows", "attacker", "--cols", "defender=1..3"],
            "error: --rows 'attacker': give FIELD=VALUE, e.g. --rows attacker=1..6",
        ),
        (
            ["table", "template", "--rows", "attacker=3..1", "--cols", "defender=1..3"],
            "error: --rows attacker=3..1: the range runs down from 3; give 1..3",
        ),
        (
            ["table", "template", "--rows", "attacker=1..100", "--cols", "defender=-99..1"],
            "error: --cols defender=-99..1: 101 values; a range holds at most 100",
        ),
        (
            ["table", "template", "--rows", "attacker=,", "--cols", "defender=1..3"],
            "error: --rows expects values after '=', e.g. attacker=1..6, got 'attacker=,'",
        ),
        (
            ["table", "template", "--rows", "attacker=1..3", "--cols", "attacker=1..3"],
            "error: --rows and --cols sweep the same field 'attacker'; choose two fields",
        ),
        (
            ["table", "template", "--rows", "attacker=1..9", "--cols", "defender=1..3"],
            "error: --attacker must be an integer 1..6, got 7",
        ),
        (
            ["table", "template", "--rows", "attacker=1..2", "--cols", "defender=1..2", "-m", "nope"],
            "error: unknown metric 'nope' for template duel; known: attacker_win, winner_strength=1, "
            "winner_strength=2, winner_strength=3, winner_strength=4, winner_strength=5, "
            "winner_strength=6, rounds",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, capsys, monkeypatch):
    assert one_error_line(args, capsys, monkeypatch) == message


def test_the_generated_commands_pass_the_checks_every_command_passes():
    """What test_cli_help and test_cli_examples check of every command, on the template's."""
    from tests.cli.test_cli_examples import leaf_commands
    from tests.cli.test_cli_help import help_of

    paths = []
    for path, cmd in leaf_commands():
        if "template" not in path.split():
            continue
        paths.append(path)
        lines = [line.strip() for line in help_of(path).splitlines() if line.strip()]
        assert "montecarlo " in lines[-1] and "<bool>" not in " ".join(lines), (path, lines[-1])
        for example in examples_of(cmd.epilog or ""):
            args = example.split()[1:]
            result = runner.invoke(app, args if "-n" in args else [*args, "-n", "2000"])
            assert result.exit_code == 0, (example, result.output)
    assert sorted(paths) == [
        "montecarlo odds template",
        "montecarlo table template",
        "montecarlo template duel",
    ]

