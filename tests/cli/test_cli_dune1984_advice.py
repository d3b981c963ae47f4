"""``montecarlo dune1984 advise``: which character takes the damage, in words and as JSON, each
value the game's advice (itself checked by brute force in tests/games), and one line with exit
code 2 for bad input."""

import json

import pytest
from typer.testing import CliRunner

from montecarlo.cli import app
from montecarlo.games.dune1984.advice import advise
from montecarlo.games.dune1984.fights import FightSetup
from montecarlo.games.dune1984.rules import Rules

runner = CliRunner()


def run(*args):
    return runner.invoke(app, ["dune1984", "advise", *args])


def test_the_advice_in_words():
    result = run("--attacker", "5,1,1", "--defender", "4")
    assert result.exit_code == 0, result.output
    advice = advise(Rules(), FightSetup([5, 1, 1], [4]))
    out = result.stdout
    assert f"P(attacker wins), exact: {advice.value:.4f} with best play; {advice.weakest_first:.4f}" in out
    assert (
        f"At the start, designate character 1 (Strength 5): {advice.value:.4f} against "
        f"{advice.weakest_first:.4f} for character 2 or 3 (Strength 1)." in out
    )  # a twin of character 2 is not another option, and it is named


def test_choices_after_a_fall_name_the_dice_and_tell_close_values_apart():
    result = run("-a", "4,3,2", "-d", "5,4", "-v", "fight_to_last", "-v", "set_aside_die", "--limit", "2")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "At the start, designate character 3 (Strength 2): 0.59631 against 0.59630 for character 2" in out
    assert (
        "With your 4 + 3 left against their 1, rolling 6 Strength dice to 1, designate character 2 "
        "(Strength 3)" in out
    )
    advice = advise(Rules(fight_to_last=True, set_aside_die=True), FightSetup([4, 3, 2], [5, 4]))
    hidden = len(advice.decisions) - 1 - 2
    assert f"... {hidden} more choices (--limit, or --json for all)" in out
    assert f"({advice.alike} other choices: every character left is as good)" in out


def test_nothing_to_choose_is_said():
    result = run("-a", "2,1,3", "-d", "2,2", "-v", "fight_to_last")
    assert result.exit_code == 0, result.output
    assert "No choice matters" in result.stdout and "every point of Strength counts alike" in result.stdout
    twins = run("-a", "6,6,6", "-d", "6,6", "-v", "fight_to_last", "-v", "set_aside_die")
    assert twins.exit_code == 0, twins.output
    assert twins.stdout.rstrip().endswith("every character left is worth the same at every choice.")


def test_the_defenders_advice_with_named_characters_and_poison():
    result = run("-a", "3", "-d", "Paul,Duke Leto", "--side", "defender", "--attacker-equipment", "poison")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Best play for the defender:")
    assert "P(defender wins)" in result.stdout
    assert "(the attacker designates its weakest first)" in result.stdout


def test_json_has_every_choice():
    result = run("-a", "4,3,2", "-d", "5,4", "-v", "fight_to_last", "-v", "set_aside_die", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    advice = advise(Rules(fight_to_last=True, set_aside_die=True), FightSetup([4, 3, 2], [5, 4]))
    assert data["best_value"] == advice.value and data["choices_alike"] == advice.alike
    assert len(data["choices"]) == len(advice.decisions)
    first = data["choices"][0]
    assert first["at_start"] and first["designate"] == 3
    assert first["designate_name"] == "character 3 (Strength 2)"
    assert first["values"]["character 3 (Strength 2)"] == pytest.approx(advice.value, abs=1e-15)
    assert "objective" not in data["setup"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["-a", "4", "-d", "3,1"], "the attacker fights with one character"),
        (["-a", "4,1", "-d", "3", "--side", "both"], "--side must be attacker or defender"),
        (["-a", "4,1", "-d", "3", "-v", "best_play"], "-v best_play: advise plays --side's best"),
        (["-a", "4,1", "-d", "3", "-v", "strongest_first"], "-v strongest_first"),
        (["-a", "4,1", "-d", "3", "-v", "nope"], "unknown variant 'nope'"),
        (["-a", "7,1", "-d", "3"], "--attacker must be a Strength 1..6"),
        (["-a", "4,1", "-d", "3", "--attacker-equipment", "laser"], "unknown equipment 'laser'"),
    ],
)
def test_bad_input_is_one_line_with_exit_2(args, message):
    result = run(*args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("error:"), result.stderr


def test_guile_is_shown_where_it_tells_the_options_apart_and_certainty_is_never_rounded_in():
    guile = run("-a", "3,3,1", "-d", "4,2", "--defender-equipment", "poison", "--attacker-guile", "3,5,3")
    assert guile.exit_code == 0, guile.output
    shown = "designate character 2 (Strength 3, Guile 5): 0.6346 against 0.4953 for character 1 (Strength 3, "
    assert shown in guile.stdout
    sure = run("-a", "4,3", "-d", "3", "--attacker-equipment", "sword,gom-jabbar")
    assert sure.exit_code == 0, sure.output
    advice = advise(Rules(), FightSetup([4, 3], [3], attacker_equipment="sword,gom-jabbar"))
    assert advice.value < 1 and f"exact: {advice.value:.6f} with best play" in sure.stdout
    assert "1.0000" not in sure.stdout
