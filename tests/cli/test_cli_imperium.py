"""``montecarlo odds imperium``: JSON and table output, only the setup's seats shown, points with a
conflict card, variants and troop syntaxes; every bad input is one line on stderr and exit 2."""

import json
import math
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from montecarlo.cli import app
from tests.cli.helpers import assert_json_agrees, assert_rows_agree

runner = CliRunner()
PLACES = ("first", "second", "third", "nothing")


def odds(*args):
    return runner.invoke(app, ["odds", "imperium", *args])


def odds_json(*args, trials=20_000):
    result = odds(*args, "--trials", str(trials), "--seed", "7", "--json", "--quiet")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_four_players_json_estimates_beside_exact_values():
    data = odds_json("--troops", "3,2,2,1", "--revealed", "3")
    metrics = data["metrics"]
    expected = [f"seat{s}_{p}" for s in range(1, 5) for p in PLACES] + ["tie_first", "tie_second"]
    assert list(metrics) == expected  # no points without a conflict card
    assert data["game"] == "imperium" and data["trials"] == 20_000
    for name, m in metrics.items():
        se = math.sqrt(m["exact"] * (1 - m["exact"]) / data["trials"])
        assert abs(m["estimate"] - m["exact"]) <= 4.5 * se + 1e-9, name
    for seat in range(1, 5):
        assert sum(metrics[f"seat{seat}_{p}"]["exact"] for p in PLACES) == pytest.approx(1.0)


def test_two_players_show_only_their_seats_and_points_with_a_card():
    data = odds_json("--troops", "2,2", "--revealed", "3,5", "--conflict", "Skirmish")
    assert {name.split("_")[0] for name in data["metrics"]} == {"seat1", "seat2", "tie"}
    assert data["setup"]["conflict"] == "skirmish"
    # Skirmish gives 1 VP to the first reward only, so points are the chance of the first reward.
    for seat in (1, 2):
        assert data["metrics"][f"seat{seat}_points"]["exact"] == pytest.approx(
            data["metrics"][f"seat{seat}_first"]["exact"]
        )
    assert_json_agrees(data)


def test_variant_and_intrigue():
    data = odds_json("--troops", "2,2,2", "--intrigue", "1,0,0", "--variant", "tiebreak_by_seat")
    assert data["variants"] == ["tiebreak_by_seat"]
    assert data["metrics"]["tie_first"]["exact"] == 0.0 and data["metrics"]["tie_first"]["estimate"] == 0.0
    assert data["setup"]["intrigue"] == [1, 0, 0]
    assert_json_agrees(data)


def test_distribution_range_and_deploy_troops():
    data = odds_json(
        "--troops", "deploy:1+3:uniform,0:1/4|2:3/4,1-3", "--revealed", "2,3,4", "--deck", "starting+sword2"
    )
    assert [t["spec"] for t in data["setup"]["troops"]] == ["deploy:1+3:uniform", "0:1/4|2:3/4", "1-3"]
    assert data["setup"]["deck"] == "starting+sword2"
    assert_json_agrees(data)


def test_table_output_names_the_card_and_its_source():
    result = odds("--troops", "3,1", "--conflict", "points_3_2_1", "--trials", "5000", "--quiet")
    assert result.exit_code == 0, result.stderr
    assert "seat1_first" in result.stdout and "seat3_first" not in result.stdout
    assert "3/2/1 VP yardstick" in result.stdout and "illustrative" in result.stdout
    rows = assert_rows_agree(result.stdout, at_least=10)
    assert rows["seat1_first"][0] > 0.5 > rows["seat2_first"][0]
    assert rows["seat1_points"][3] == pytest.approx(
        3 * rows["seat1_first"][3] + 2 * rows["seat1_second"][3], abs=2e-3
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--troops", "3,2,2,1,1"],
        ["--troops", "3"],
        ["--troops", "-1,2"],
        ["--troops", "2,x"],
        ["--troops", "0:1/2|2:1/3,1"],
        ["--troops", "2,2", "--revealed", "11"],
        ["--troops", "2,2", "--revealed", "3,3,3"],
        ["--troops", "2,2", "--intrigue", "-1"],
        ["--troops", "2,2", "--deck", "imperium_row"],
        ["--troops", "2,2", "--conflict", "battle_of_corrin"],
        ["--troops", "2,2", "--variant", "ties_favour_defender"],
        ["--troops", "2,2,2", "--hagal", "x"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(args):
    result = odds(*args, "--trials", "1000", "--quiet")
    assert result.exit_code == 2, (args, result.stdout)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), (args, result.stderr)


def test_the_conflict_is_also_a_command_of_the_game():
    result = runner.invoke(app, ["imperium", "conflict", "--troops", "3,2", "-n", "20000", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["question"] == "conflict" and len(data["setup"]["troops"]) == 2
    assert_json_agrees(data)


def test_missing_troops_is_a_one_line_usage_error():
    proc = subprocess.run(
        [sys.executable, "-m", "montecarlo", "odds", "imperium"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--troops" in lines[0] and "Traceback" not in proc.stderr


def test_a_hagal_seat_that_is_not_a_number_says_what_hagal_takes():
    result = odds("--troops", "2,2,2", "--hagal", "x", "--quiet")
    assert result.exit_code == 2
    assert "the seats (1-based numbers) that are House Hagal, got 'x'" in result.stderr


def test_two_seats_name_house_hagal_and_a_hagal_seat_counts_for_nobody():
    two = odds("--troops", "2,2", "-n", "2000", "--quiet")
    assert two.exit_code == 0, two.output
    assert "a real two-player game also has House Hagal's strength" in " ".join(two.stdout.split())
    assert "House Hagal" not in odds("--troops", "2,2,1", "-n", "2000", "--quiet").stdout
    hagal = ("--troops", "1,0,1", "--revealed", "3,0,0", "--hagal", "3", "-c", "skirmish")
    data = odds_json(*hagal, trials=2000)
    assert data["setup"]["hagal"] == [3]
    assert "seat3_points" not in data["metrics"] and "seat3_second" in data["metrics"]
    assert data["metrics"]["seat1_first"]["exact"] == pytest.approx(8 / 15)
    assert "its rewards count for nobody" in data["extra"]["house_hagal"]
    bad = odds("--troops", "1,1,1,1", "--hagal", "4")
    assert bad.exit_code == 2 and "House Hagal plays only in solo and two-player games" in bad.stderr


def test_players_repeats_one_entry_for_every_seat():
    """--players 3 with one --troops entry is three seats of it, the same numbers as the entry
    given three times; a list of another length is refused."""
    repeated = odds_json("--troops", "0-3", "--players", "3", "--revealed", "4", trials=2_000)
    listed = odds_json("--troops", "0-3,0-3,0-3", "--revealed", "4,4,4", trials=2_000)
    assert repeated["metrics"] == listed["metrics"] and len(repeated["setup"]["troops"]) == 3
    result = odds("--troops", "1,2", "--players", "3")
    message = "error: --troops: 2 entries for 3 seats (give one, or one per seat)"
    assert result.exit_code == 2 and result.stderr.strip() == message
    result = odds("--troops", "1", "--players", "5")
    message = "error: --players must be an integer 2..4, got 5"
    assert result.exit_code == 2 and result.stderr.strip() == message


@pytest.mark.parametrize(
    "troops,hagal,message",
    [
        # once "at most 3 seats in all with Hagal's, and at least one player": the seats were not too many
        ("2,2", "1,2", "--hagal: every seat (1, 2) is House Hagal; leave at least one seat for a player"),
        # once accepted: seat 1 counted once
        ("2,2,2", "1,1", "--hagal: seat 1 is given twice; name each House Hagal seat once"),
        ("2,2,2,2", "1", "--hagal: House Hagal plays only in solo and two-player games: at most 3 seats "
                         "in all with Hagal's, got 4"),
    ],
)
def test_hagal_seats_say_what_is_wrong(troops, hagal, message):
    result = odds("--troops", troops, "--hagal", hagal, "--trials", "1000", "--quiet")
    assert result.exit_code == 2 and result.stderr == f"error: {message}\n"
