"""``montecarlo dune1984 guile | reach | invest``: the common JSON shape, the exact extras in table
mode, and one line + exit 2 for every kind of bad input."""

import json

import pytest
from typer.testing import CliRunner

from montecarlo.cli import app
from tests.cli.helpers import assert_json_agrees, assert_rows_agree

runner = CliRunner()
QUICK = ["--trials", "20000", "--seed", "7"]


def run_json(*args):
    result = runner.invoke(app, ["dune1984", *args, *QUICK, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    "args,question,exact",
    [
        (["guile", "--guile", "3", "--spice", "3"], "guile", {"survive": 4 / 6, "next_step_saves": 1 / 6}),
        (
            ["guile", "--guile", "Chani", "--stillsuit", "-v", "guile_check_2d6"],
            "guile",
            {"survive": 26 / 36},
        ),
        (["reach", "--distance", "9"], "reach", {"reach": 4 / 36, "split_reach": 0.0}),
        (
            ["reach", "--distance", "5", "--second-distance", "3"],
            "reach",
            {"reach": 15 / 36, "split_reach": 2 / 36},
        ),
        (
            ["invest", "--sums", "3,11", "--payout", "4:1", "--players", "3"],
            "invest",
            {"returns": 1 - (8 / 9) ** 3, "spice_back": 5 * (1 - (8 / 9) ** 3)},
        ),
    ],
)
def test_json_has_the_common_shape(args, question, exact):
    out = run_json(*args)
    assert {"game", "question", "trials", "seed", "rules", "setup", "metrics"} <= set(out)
    assert (out["game"], out["question"], out["trials"], out["seed"]) == ("dune1984", question, 20000, 7)
    for metric in out["metrics"].values():
        assert {"estimate", "ci_low", "ci_high", "exact", "description"} <= set(metric)
        assert metric["ci_low"] <= metric["estimate"] <= metric["ci_high"] and metric["description"]
    assert_json_agrees(out)
    for name, value in exact.items():
        m = out["metrics"][name]
        assert m["exact"] == pytest.approx(value)
        assert abs(m["estimate"] - value) <= 4.5 * m["se"] + 1e-12


def test_the_header_adds_up_the_guile_only_when_something_is_added():
    """"Guile 7 = Guile 7" said nothing: the sum is shown where Spice or a Stillsuit adds to it."""
    def header(*args):
        result = runner.invoke(app, ["dune1984", "guile", *args, "-n", "100"])
        assert result.exit_code == 0, result.output
        return result.stdout.splitlines()[0]

    assert header("--guile", "7") == "Guile 7; survive if 1d6 <= Guile"
    assert header("--guile", "3", "--spice", "3") == "Guile 3 + 3 Spice = Guile 4; survive if 1d6 <= Guile"
    kynes = header("--guile", "Kynes", "--stillsuit")
    assert kynes.endswith("+ Stillsuit = Guile 5; survive if 1d6 <= Guile")


def test_json_records_the_setup_and_rules():
    out = run_json("guile", "--guile", "duke leto atreides", "--spice", "5", "-v", "guile_check_d8")
    assert out["setup"] == {
        "guile": 4,
        "spice": 5,
        "stillsuit": False,
        "character": "Duke Leto Atreides",
        "strength": 3,
    }
    assert run_json("guile", "--guile", "Leto")["setup"]["character"] == "Duke Leto Atreides"
    assert out["rules"]["guile_roll"] == "d8" and out["variants"] == ["guile_check_d8"]
    assert run_json("invest", "--sums", "11,3", "--payout", "2")["setup"]["sums"] == [3, 11]


def test_tables_show_the_exact_extras():
    result = runner.invoke(app, ["dune1984", "guile", "--guile", "3", *QUICK])
    assert result.exit_code == 0, result.output
    assert "Spice ladder" in result.stdout and "0.180" in result.stdout
    rows = assert_rows_agree(result.stdout, at_least=2)
    assert rows["survive"][3] == 0.5  # Guile 3 survives 1d6 <= 3
    result = runner.invoke(app, ["dune1984", "invest", "--sums", "3,11", "--payout", "4", *QUICK])
    assert result.exit_code == 0, result.output
    assert "break-even payout ratio (exact): 1.662:1" in result.stdout
    assert assert_rows_agree(result.stdout, at_least=3)["returns"][3] == round(1 - (8 / 9) ** 4, 4)
    result = runner.invoke(app, ["dune1984", "reach", "--distance", "7", *QUICK])
    assert result.exit_code == 0 and "split_either" in result.stdout
    assert assert_rows_agree(result.stdout, at_least=3)["reach"][3] == round(6 / 36 + 0, 4)


@pytest.mark.parametrize(
    "args,word",
    [
        (["guile", "--guile", "-1"], "guile"),
        (["guile", "--guile", "Nobody"], "character"),
        (["guile", "--guile", "3", "--spice", "-3"], "spice"),
        (["guile", "--guile", "3", "--variant", "guile_check_d20"], "variant"),
        (["guile", "--guile", "3", "--trials", "0"], "trials"),
        (["reach", "--distance", "0"], "distance"),
        (["reach", "--distance", "13"], "distance"),
        (["reach", "--distance", "3", "--second-distance", "7"], "--second-distance"),  # the flag typed
        (["reach", "--distance", "3", "--trials", "-5"], "trials"),
        (["invest", "--sums", "1,11", "--payout", "4"], "sums"),
        (["invest", "--sums", "3,13", "--payout", "4"], "sums"),
        (["invest", "--sums", "3,x", "--payout", "4"], "sums"),
        (["invest", "--sums", "3,11", "--payout", "4", "--players", "1"], "players"),
        (["invest", "--sums", "3,11", "--payout", "-2"], "payout"),
        (["invest", "--sums", "3,11", "--payout", "4", "--stake", "0"], "stake"),
        (["invest", "--sums", "3,11", "--payout", "4", "-v", "nope"], "variant"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, word):
    result = runner.invoke(app, ["dune1984", *args])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and word in lines[0], result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    "sums,message",
    [
        # once "got (3,)", "got (3, 5, 11)" (sorted, not as typed) and "got [3, 3]"
        ("3", "--sums 3: a space has two target sums (e.g. 3,11), got 1"),
        ("3,11,5", "--sums 3,11,5: a space has two target sums (e.g. 3,11), got 3"),
        ("3, 11, 5", "--sums 3, 11, 5: a space has two target sums (e.g. 3,11), got 3"),
        ("3,3", "--sums 3,3: the two target sums must differ (two chances to earn a return)"),
    ],
)
def test_bad_sums_are_named_as_typed(sums, message):
    result = runner.invoke(app, ["dune1984", "invest", "--sums", sums, "--payout", "2", "-q"])
    assert result.exit_code == 2 and result.output == f"error: {message}\n"


@pytest.mark.parametrize(
    "payout,message",
    [
        # once "must be a number or a ratio like 4:1", though 2:0 is a ratio
        ("2:0", "--payout 2:0: divides by zero; give a ratio x:y with y above 0, e.g. 4:1"),
        ("0", "--payout 0: must be positive (x Spice from the Bank per Spice staked, x or x:1)"),
        ("2:-1", "--payout 2:-1: must be positive (x Spice from the Bank per Spice staked, x or x:1)"),
    ],
)
def test_a_payout_that_is_a_ratio_says_what_is_wrong_with_it(payout, message):
    result = runner.invoke(app, ["dune1984", "invest", "--sums", "3,11", "--payout", payout, "-q"])
    assert result.exit_code == 2 and result.output == f"error: {message}\n"


def test_a_split_roll_to_a_target_above_6_is_refused_with_why():
    """A split roll moves each character by one die: --distance 12 with --second-distance answered 0."""
    result = runner.invoke(app, ["dune1984", "reach", "--distance", "12", "--second-distance", "6", "-q"])
    assert result.exit_code == 2
    assert result.output == (
        "error: --distance must be 1..6 in a split roll (--second-distance), where each character moves by "
        "one die; got 12 (up to 12 is one character's move, without a second target)\n"
    )
    alone = run_json("reach", "--distance", "12")  # one character: the total of the dice
    assert alone["metrics"]["reach"]["exact"] == pytest.approx(1 / 36)
