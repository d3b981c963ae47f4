"""``montecarlo odds dune1984``, ``table dune1984`` and ``dune1984 fight`` through typer's CliRunner."""

import json
import re

import pytest
from typer.testing import CliRunner

import montecarlo as mc
from montecarlo.cli import app
from montecarlo.games.dune1984.fights import DuelSetup, FightSetup, exact
from montecarlo.games.dune1984.rules import Rules
from tests.cli.helpers import assert_json_agrees, assert_rows_agree, table_rows

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def odds_json(*args: str) -> dict:
    result = run("odds", "dune1984", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_odds_json_has_the_documented_shape_and_exact_values():
    data = odds_json("--attacker", "4", "--defender", "5", "-n", "40000", "--seed", "9")
    assert (data["game"], data["question"], data["trials"], data["seed"]) == ("dune1984", "duel", 40000, 9)
    assert (
        data["rules"]["ties"] == "reroll"
        and data["setup"]["attacker"] == 4
        and data["setup"]["defender_guile"] == 3
    )
    win = data["metrics"]["attacker_win"]
    assert set(win) >= {"estimate", "ci_low", "ci_high", "exact"}
    assert win["exact"] == pytest.approx(exact(Rules(), DuelSetup(4, 5))["attacker_win"])
    assert win["ci_low"] <= win["estimate"] <= win["ci_high"]
    assert abs(win["estimate"] - win["exact"]) <= 4.5 * win["se"]
    assert_json_agrees(data)


THREE_CHUNKS = ("--attacker", "3", "--defender", "2", "-n", "300000", "--seed", "5")


def test_same_seed_same_json():
    assert odds_json(*THREE_CHUNKS, "--jobs", "1") == odds_json(*THREE_CHUNKS, "--jobs", "1")


@pytest.mark.processes
def test_jobs_do_not_matter():
    one, two = odds_json(*THREE_CHUNKS, "--jobs", "1"), odds_json(*THREE_CHUNKS, "--jobs", "2")
    assert one["metrics"] == two["metrics"]


def test_names_equipment_and_variants():
    paul = odds_json("--attacker", "Paul Atreides", "--defender", "Feyd", "-n", "20000")
    assert paul["setup"]["attacker"] == "Paul Atreides" and paul["metrics"]["attacker_win"][
        "exact"
    ] == pytest.approx(0.5)
    assert_json_agrees(paul)
    kit = odds_json(
        "--attacker", "2", "--defender", "5", "--attacker-equipment", "sword,gom-jabbar", "-n", "20000"
    )
    assert kit["setup"]["attacker_equipment"] == ["gom_jabbar", "sword"]
    assert_json_agrees(kit)
    want = exact(Rules(), DuelSetup(2, 5, ("sword", "gom_jabbar")))["attacker_win"]
    assert kit["metrics"]["attacker_win"]["exact"] == pytest.approx(want)
    ties = odds_json("--attacker", "3", "--defender", "3", "--variant", "ties_favour_defender", "-n", "20000")
    assert ties["variants"] == ["ties_favour_defender"] and ties["metrics"]["attacker_win"]["exact"] < 0.4
    assert ties["metrics"]["tied_rounds"]["estimate"] == 0
    assert_json_agrees(ties)
    poison = run(
        "odds",
        "dune1984",
        "-a",
        "3",
        "-d",
        "3",
        "--defender-equipment",
        "poison",
        "--defender-guile",
        "5",
        "-n",
        "20000",
    )
    assert poison.exit_code == 0 and "Poison (an interpretation)" in poison.stdout
    rows = assert_rows_agree(poison.stdout, at_least=10)
    want = exact(Rules(), DuelSetup(3, 3, (), ("poison",), None, 5))
    assert rows["poisoned"][3] == round(want["poisoned"], 4) and rows["poisoned"][0] > 0


def test_readable_table_has_title_and_exact_column():
    result = run("odds", "dune1984", "--attacker", "4", "--defender", "5", "-n", "20000")
    assert result.exit_code == 0
    assert "Dune (1984) duel: Strength 4 (attacker) vs Strength 5 (defender)" in result.stdout
    assert "exact" in result.stdout and "0.2597" in result.stdout  # the exact attacker_win, 4 decimals
    rows = assert_rows_agree(result.stdout, at_least=15)
    assert rows["attacker_win"][3] == 0.2597 and rows["rounds"][3] == round(
        exact(Rules(), DuelSetup(4, 5))["rounds"], 3
    )


@pytest.mark.parametrize(
    "args,message",
    [
        (["--attacker", "0", "--defender", "5"], "attacker must be a Strength 1..6"),
        (["--attacker", "7", "--defender", "5"], "attacker must be a Strength 1..6"),
        (["--attacker", "Bob", "--defender", "5"], "unknown character 'Bob'"),
        (["--attacker", "4", "--defender", "5", "--variant", "nosuch"],
         "--variant: unknown variant 'nosuch'"),
        (["--attacker", "4", "--defender", "5", "--trials", "0"], "--trials must be a positive integer"),
        (
            ["--attacker", "4", "--defender", "5", "--attacker-equipment", "lasgun"],
            "unknown equipment 'lasgun'",
        ),
        (["--attacker", "3.5", "--defender", "5"], "attacker must be a Strength 1..6"),  # not a name
        (
            ["--attacker", "4", "--defender", "5", "-v", "guile_check_d8", "-v", "guile_check_2d6"],
            "variant 'guile_check_2d6' sets guile_roll = '2d6', but variant 'guile_check_d8' sets it to 'd8'",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = run("odds", "dune1984", *args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], result.stderr
    assert "Traceback" not in result.output


def test_table_prints_the_6x6_matrix_with_exact_values():
    result = run("table", "dune1984", "-n", "5000", "--seed", "3")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.strip().startswith("│")]
    cells = [[c.strip(" ()") for c in line.strip().strip("│").split("│")][1:] for line in lines]
    estimates, exacts = cells[0::2], cells[1::2]
    assert len(estimates) == len(exacts) == 6 and all(len(row) == 6 for row in estimates + exacts)
    assert exacts[0][0] == "0.500" and "5,000 trials per cell" in " ".join(result.stdout.split())
    for a in range(6):
        for d in range(6):
            p = exact(Rules(), DuelSetup(a + 1, d + 1))["attacker_win"]
            # 3 decimals, unless that reads as 0 or 1: 1 against 6 is 4.8e-5, 6 against 1 above 0.999
            shown = exacts[a][d]
            if round(p, 3) == 0:
                mantissa, exponent = f"{p:.1e}".split("e")
                assert shown == f"{mantissa}e{int(exponent)}", (shown, p)
            elif round(p, 3) == 1:
                assert shown == ">0.999" and p < 1
            else:
                assert shown == f"{p:.3f}"
            estimate = float(estimates[a][d].lstrip(">"))
            assert abs(estimate - p) <= 4.5 * (p * (1 - p) / 5000) ** 0.5 + 1e-3, (a + 1, d + 1)
    data = json.loads(
        run("table", "dune1984", "-n", "5000", "--attacker-equipment", "sword", "--json").stdout
    )
    assert data["metric"] == "attacker_win" and len(data["cells"]) == 36 and data["version"] == mc.__version__
    cell = next(c for c in data["cells"] if (c["attacker"], c["defender"]) == (2, 4))
    assert cell["exact"] == pytest.approx(exact(Rules(), DuelSetup(2, 4, ("sword",)))["attacker_win"])
    assert cell["ci_low"] <= cell["estimate"] <= cell["ci_high"]
    bad = run("table", "dune1984", "--metric", "nosuch")
    assert bad.exit_code == 2 and "unknown metric 'nosuch'" in bad.stderr


def test_the_table_keeps_every_number_whole_at_every_width():
    """One line a cell on a wide terminal, the exact value under the estimate at 80 columns, and
    below that the estimates and the exact values as two tables: never a number cut short."""
    args = ["table", "dune1984", "-n", "2000", "--seed", "3"]
    layouts = {}
    for columns in (120, 80, 50):
        text = runner.invoke(app, args, env={"COLUMNS": str(columns)}).output
        assert "…" not in text, (columns, text)
        cells = text.split("rows: attacker")[0]  # the caption's numbers are no cells
        layouts[columns] = re.findall(r">?0?\.\d{3}|\d\.\d+e-\d+|\de-\d+|\d\.\d{3}", cells)
    wide = runner.invoke(app, args, env={"COLUMNS": "120"}).output
    assert "estimate (exact)" in wide and "every 95% interval within ±0.022 of its estimate" in wide
    assert len(layouts[120]) == len(layouts[80]) == len(layouts[50]) == 72
    one_line = (layouts[120][0::2], layouts[120][1::2])  # estimate (exact) in each cell
    rows = [layouts[80][i : i + 6] for i in range(0, 72, 6)]  # a row of estimates, then of exacts
    two_lines = (sum(rows[0::2], []), sum(rows[1::2], []))
    # the estimates' table, then the exact values': 5 characters a number (4.8e-5 is 5e-5, >0.999
    # is >.999), the same numbers
    two_tables = (layouts[50][:36], layouts[50][36:])
    assert one_line == two_lines
    for wide, narrow in zip(sum(one_line, []), sum(two_tables, [])):
        assert len(narrow) <= 5 and (narrow == wide.replace(">0.", ">.")
                                     or float(narrow) == float(f"{float(wide):.0e}")), (wide, narrow)
    assert two_tables[1][0] == "0.500"  # 1 against 1: even


def test_table_defaults_to_50000_trials_per_cell():
    data = json.loads(run("table", "dune1984", "--metric", "rounds", "--json").stdout)
    assert data["trials"] == 50_000 and data["metric"] == "rounds"


def test_multi_character_fight():
    result = run("dune1984", "fight", "--attacker", "4,3", "--defender", "5", "-n", "20000", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["question"] == "fight" and data["setup"]["attacker"] == [4, 3]
    want = exact(Rules(), FightSetup((4, 3), (5,)))["attacker_win"]
    assert data["metrics"]["attacker_win"]["exact"] == pytest.approx(want)
    assert_json_agrees(data)
    text = run(
        "dune1984", "fight", "-a", "Paul Atreides,Chani", "-d", "5,2", "-v", "fight_to_last", "-n", "20000"
    )
    assert (
        text.exit_code == 0
        and "fight to the last" in " ".join(text.stdout.split())  # the title may wrap at 80 columns
        and "attacker_survivors=2" in text.stdout
    )
    rows = assert_rows_agree(text.stdout, at_least=10)
    want = exact(Rules(fight_to_last=True), FightSetup(("Paul Atreides", "Chani"), (5, 2)))
    assert rows["attacker_win"][3] == round(want["attacker_win"], 4)
    bad = run("dune1984", "fight", "--attacker", "4,3,2,1", "--defender", "5")
    assert bad.exit_code == 2 and "attacker must list 1..3 characters" in bad.stderr


def test_fight_run_line_names_the_dice_reading_above_six_strength():
    """'Subtract 1 Strength point ... and Set aside 1 die': the two readings differ only above 6."""
    default = run("dune1984", "fight", "-a", "4,3", "-d", "5", "-n", "2000", "-q")
    assert default.exit_code == 0, default.output
    assert "dice = min(6, total Strength) every round (interpretation)" in " ".join(default.stdout.split())
    literal = run("dune1984", "fight", "-a", "4,3", "-d", "5", "-v", "set_aside_die", "-n", "2000", "-q")
    assert "a lost round sets aside 1 die (set_aside_die)" in " ".join(literal.stdout.split())
    small = run("dune1984", "fight", "-a", "3,2", "-d", "5", "-n", "2000", "-q")
    assert "set aside" not in small.stdout and "min(6" not in small.stdout


def fight_json(*args: str) -> dict:
    result = run("dune1984", "fight", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_fight_under_best_play_reports_the_objective_and_its_exact_optimum():
    data = fight_json("-a", "3,1", "-d", "2,2", "--policy", "best", "-n", "20000", "--seed", "4")
    best = exact(Rules(designation="best"), FightSetup([3, 1], [2, 2]))
    assert data["rules"]["designation"] == "best" and data["setup"]["objective"] == "win"
    assert data["metrics"]["objective"]["exact"] == pytest.approx(best["objective"])
    assert data["metrics"]["objective"]["exact"] > exact(Rules(), FightSetup([3, 1], [2, 2]))["attacker_win"]
    assert_json_agrees(data)


def test_a_fixed_designation_with_an_objective_reports_it_too():
    data = fight_json("-a", "3,1", "-d", "2,2", "--objective", "win", "-n", "5000")
    assert data["metrics"]["objective"]["exact"] == pytest.approx(data["metrics"]["attacker_win"]["exact"])
    assert "objective" not in fight_json("-a", "3,1", "-d", "2,2", "-n", "2000")["metrics"]


def test_the_defender_may_play_best():
    data = fight_json("-a", "3", "-d", "2,2,1", "--policy", "defender:best", "-n", "5000")
    win = data["metrics"]["attacker_win"]["exact"]
    assert data["metrics"]["objective"]["exact"] == pytest.approx(1 - win)


@pytest.mark.parametrize(
    "args, message",
    [
        (("--policy", "best", "--objective", "keep:1"), "objective must be win"),
        (("--objective", "trade:x"), "objective must be win"),
        (("--policy", "bestest"), "unknown policy"),
        # two settings of who takes the damage: the later once undid the earlier, still named
        (("-v", "best_play", "--policy", "weakest_first"), "--policy sets designation = 'weakest_first'"),
        (("-v", "best_play", "-v", "strongest_first"), "variant 'strongest_first' sets designation"),
    ],
)
def test_bad_best_play_input_is_one_line_and_exit_2(args, message):
    result = run("dune1984", "fight", "-a", "3,1", "-d", "2,2", *args)
    assert result.exit_code == 2 and message in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("best", [("--policy", "best"), ("-v", "best_play")])
def test_best_play_with_one_character_has_nothing_to_decide(best):
    result = run("dune1984", "fight", "-a", "4", "-d", "2,2", *best)
    assert result.exit_code == 2 and "no choice of who takes the damage" in result.output


def test_the_variant_best_play_is_the_policy_best():
    """-v best_play reports the objective as --policy best does (it once left it out)."""
    by_variant = fight_json("-a", "3,1", "-d", "2,2", "-v", "best_play", "-n", "2000")
    by_policy = fight_json("-a", "3,1", "-d", "2,2", "--policy", "best", "-n", "2000")
    assert by_variant["metrics"]["objective"] == by_policy["metrics"]["objective"]


def test_the_readable_answer_says_trials_seed_rules_and_precision_under_its_table():
    def odds(*args: str) -> str:  # as on a terminal wide enough for one line each
        return runner.invoke(app, ["odds", "dune1984", "-a", "4", "-d", "5", "--seed", "3", *args],
                             env={"COLUMNS": "240"}).output

    plain = odds("-n", "2000")
    lines = plain.splitlines()
    assert lines[0] == "Dune (1984) duel: Strength 4 (attacker) vs Strength 5 (defender)"
    footer = (
        "2,000 trials, seed 3, official rules; 95% intervals (Wilson for probabilities, Student t for means)"
    )
    assert footer in lines
    varied = odds("-n", "2000", "--variant", "ties_favour_defender", "--variant", "no_strength_gain")
    assert footer.replace("official rules", "ties_favour_defender, no_strength_gain") in varied.splitlines()
    rows = assert_rows_agree(plain, at_least=15)
    assert "┃ metric                  ┃ estimate ┃    95% interval ┃  exact ┃" in lines
    mean = next(line for line in lines if line.startswith("│ rounds "))
    assert re.search(r"│\s+\d+\.\d{3} │\s+\d+\.\d{3} – \d+\.\d{3} │\s+\d+\.\d{3} │$", mean)  # means: 3 places
    assert rows["attacker_win"][3] == pytest.approx(exact(Rules(), DuelSetup(4, 5))["attacker_win"], abs=5e-5)
    # a Strength 5 at most wins with 5 (6 after the gain): the values no duel of 4 and 5 reaches
    unseen = ("left out, as this setup cannot reach them (exact 0, none drawn): "
              "winner_strength=6, winner_strength_after=1")
    assert lines[lines.index(footer) + 1] == unseen and "winner_strength=6" not in rows
    explained = [line.split()[0] for line in lines[lines.index(footer) + 2 :]]
    assert explained == [  # one line per metric, a distribution once as name=v
        "attacker_win", "rounds", "decisive_rounds", "tied_rounds", "winner_strength=v",
        "winner_strength_after=v", "poisoned",
    ]
    capped = odds("-n", "1000", "--precision", "0.01", "--max-trials", "3000", "-v", "ties_favour_defender")
    assert re.search(
        r"^precision ±0\.01 NOT reached \(trial cap hit; about [\d,]+ trials would reach it: raise "
        r"--max-trials\) after 3,000 trials \(widest "
        r"half-width 0\.0\d+\), seed 3, ties_favour_defender; 95% intervals",
        capped,
        re.M,
    ), capped
    met = odds("-n", "500", "--precision", "0.05")
    assert re.search(
        r"^precision ±0\.05 reached after [\d,]+ trials \(widest half-width 0\.0[1-4]\d*\), seed 3, "
        r"official rules;",
        met,
        re.M,
    ), met


def test_on_a_narrow_terminal_each_metric_takes_two_lines_with_every_number_whole():
    args = ["odds", "dune1984", "-a", "4", "-d", "5", "-n", "2000", "--seed", "3"]
    wide = runner.invoke(app, args, env={"COLUMNS": "240"}).output
    narrow = runner.invoke(app, args, env={"COLUMNS": "40"}).output
    assert "┃" not in narrow and "…" not in narrow  # no table, nothing cut
    listed = re.findall(r"^(\S+)\n  (\S+) \((\S+) – (\S+)\), exact (\S+)$", narrow, re.M)
    assert {name: tuple(map(float, numbers)) for name, *numbers in listed} == table_rows(wide)
    assert len(listed) == 15


@pytest.mark.parametrize("variant,side", [("best_play", "attacker"), ("defender_best_play", "defender")])
def test_the_duel_table_refuses_best_play_as_the_duel_does(variant, side):
    """Every cell is a duel, one character a side: table dune1984 -v best_play ran where odds refused."""
    message = (
        f"error: best play: the {side} fights with one character, so there is no choice of who takes the "
        "damage\n"
    )
    duel = run("odds", "dune1984", "-a", "4", "-d", "5", "-v", variant, "-q")
    table = run("table", "dune1984", "-v", variant, "-n", "100", "-q")
    assert duel.exit_code == table.exit_code == 2
    assert duel.output == table.output == message


def test_a_table_of_a_distribution_by_its_name_points_to_one_of_its_values():
    result = runner.invoke(app, ["table", "dune1984", "--metric", "winner_strength", "-n", "2000"])
    assert result.exit_code == 2 and "a table shows one value of a distribution, e.g. winner_strength=1" in (
        result.output)
