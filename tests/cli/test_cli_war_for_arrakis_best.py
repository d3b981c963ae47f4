"""``montecarlo war-for-arrakis battle --policy best --objective ...`` and ``advise``: the metric
``objective`` beside every other (exact = the optimum under best play, the policy's own value
under a fixed one), the decision map in words, and one line with exit code 2 for bad input."""

import json

import pytest
from typer.testing import CliRunner

from montecarlo.cli.war_for_arrakis import app
from montecarlo.games.war_for_arrakis.battle import BattleSetup, advise, exact_battle
from montecarlo.games.war_for_arrakis.rules import Rules
from tests.cli.helpers import assert_json_agrees, assert_rows_agree

runner = CliRunner()
LEGIONS = ["-a", "3 regular, Baron Harkonnen, Beast Rabban", "-d", "2 regular, Stilgar", "--settlement", "1"]
SETUP = BattleSetup("3 regular, Baron Harkonnen, Beast Rabban", "2 regular, Stilgar", 1, objective="trade:2")


def run(*args):
    return runner.invoke(app, list(args))


def run_json(*args):
    result = run(*args, "--trials", "20000", "--seed", "7", "--json", "--quiet")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_best_play_reports_every_metric_and_the_optimum():
    data = run_json("battle", *LEGIONS, "--policy", "best", "--objective", "trade:2")
    assert_json_agrees(data)
    best = exact_battle(Rules(attack="best"), SETUP)
    assert data["metrics"]["objective"]["exact"] == pytest.approx(best["objective"])
    assert data["metrics"]["attacker_win"]["exact"] == pytest.approx(best["attacker_win"])
    assert data["extra"]["policies"]["attack"] == "best" and data["extra"]["objective"] == "trade:2"


def test_a_fixed_policy_reports_its_own_objective_to_compare():
    fixed = run_json("battle", *LEGIONS, "--objective", "trade:2")
    best = run_json("battle", *LEGIONS, "--objective", "trade:2", "--policy", "best")
    assert fixed["metrics"]["objective"]["exact"] == pytest.approx(exact_battle(Rules(), SETUP)["objective"])
    assert best["metrics"]["objective"]["exact"] > fixed["metrics"]["objective"]["exact"]
    assert "objective" not in run_json("battle", *LEGIONS)["metrics"]  # none asked, none shown


def test_best_play_without_an_objective_maximises_win():
    data = run_json("battle", *LEGIONS, "--policy", "best")
    metrics = data["metrics"]
    assert metrics["objective"]["exact"] == pytest.approx(metrics["attacker_win"]["exact"])
    assert data["setup"]["objective"] == "win"


def test_the_table_shows_the_objective_and_the_policy():
    best = ["--policy", "best", "--objective", "trade:2"]
    result = run("battle", *LEGIONS, *best, "--trials", "20000", "--quiet")
    assert result.exit_code == 0, result.output
    rows = assert_rows_agree(result.stdout, at_least=5)
    assert "objective" in rows
    assert "policies: attacker best (for trade:2, solved exactly)" in result.stdout


def test_the_defender_can_play_best():
    data = run_json("battle", *LEGIONS, "--policy", "defender:best", "--objective", "trade:1")
    assert_json_agrees(data)
    assert data["extra"]["policies"] == {"attack": "until_destroyed", "retreat": "best"}
    metrics = data["metrics"]
    exact = {name: m["exact"] for name, m in metrics.items()}
    defender_trade = exact["defender_win"] + exact["attacker_losses"] - exact["defender_losses"]
    assert metrics["objective"]["exact"] == pytest.approx(defender_trade)


def test_best_play_by_variant_reports_its_objective_as_the_policy_does():
    """-v best_play played best for the win but showed no objective row; --policy best did."""
    rows = {}
    for how in (["-v", "best_play"], ["--policy", "best"]):
        args = ["battle", "-a", "3 regular, Beast Rabban", "-d", "3 regular", "-n", "2000", "--json", *how]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        rows[how[0]] = json.loads(result.stdout)["metrics"]["objective"]["exact"]
    assert rows["-v"] == rows["--policy"]


def test_advise_says_when_continuing_and_retreating_are_as_good():
    """2 regulars cannot take a rank-1 settlement from 2 or 3: retreating and continuing are both
    worth 0 for the win, and the advice says so rather than preferring one silently."""
    result = runner.invoke(app, ["advise", "-a", "2 regular", "-d", "3 regular", "--settlement", "1"])
    assert result.exit_code == 0, result.output
    assert "With 2 regulars against 3 regulars, retreat: 0.0000 against 0.0000 for continuing (as good)." \
        in result.stdout
    worth = "With 2 regulars against 1 regular, continue: 0.0139 against 0.0000 for retreating."
    assert worth in result.stdout


def test_advise_answers_in_words():
    result = run("advise", *LEGIONS, "--objective", "trade:2")
    assert result.exit_code == 0, result.output
    advice = advise(Rules(), SETUP)
    first = advice.continue_or_retreat[0]
    other = "retreat" if first.choice == "continue" else "continue"
    assert (
        f"With 3 regulars against 1 regular, {first.choice}: {first.values[first.choice]:.4f} against "
        f"{first.values[other]:.4f} for {'retreating' if other == 'retreat' else 'continuing'}."
    ) in result.stdout
    assert f"worth {advice.value:.4f} with best play" in result.stdout
    assert "  Use Beast Rabban (2H) where the leaders would leave:\n" in result.stdout
    assert "Specials, both rolls seen" in result.stdout


def test_advise_json_has_every_decision():
    result = run("advise", *LEGIONS, "--objective", "trade:2", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    advice = advise(Rules(), SETUP)
    assert data["best_value"] == pytest.approx(advice.value)
    assert len(data["continue_or_retreat"]) == len(advice.continue_or_retreat)
    assert len(data["specials"]) == len(advice.specials)
    assert all(d["choice"] in ("continue", "retreat") for d in data["continue_or_retreat"])
    short = data["specials_in_short"]
    assert short["situations"] == len(advice.specials)
    rabban = sum("Beast Rabban (2H)" in d.choice for d in advice.specials)
    assert short["leaders"]["Beast Rabban (2H)"] == rabban


def test_advise_limits_each_list_and_says_how_many_are_left_out():
    advice = advise(Rules(), SETUP)
    assert len(advice.continue_or_retreat) > 1 and len(advice.specials) > 1
    result = run("advise", *LEGIONS, "--objective", "trade:2", "--limit", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("  With ") == 1 and result.stdout.count("  Use ") == 1
    for left in (len(advice.continue_or_retreat) - 1, len(advice.specials) - 1):
        assert f"... {left} more situation" in result.stdout


@pytest.mark.parametrize("args,flag", [
    (["--settlement", "9"], "--settlement must be a rank"),
    (["--objective", "trade:-1"], "--objective must be win or trade:W"),
])
def test_advise_errors_name_the_flag(args, flag):
    result = run("advise", "-a", "3 regular", "-d", "2 regular", *args)
    assert result.exit_code == 2 and result.output.startswith(f"error: {flag}")
    assert len(result.output.strip().splitlines()) == 1


BAD_OBJECTIVE = "objective must be win or trade:W"


@pytest.mark.parametrize(
    "args,fix",
    [
        (["battle", *LEGIONS, "--policy", "best", "--objective", "trade:x"], BAD_OBJECTIVE),
        (["battle", *LEGIONS, "--policy", "best", "--objective", "trade:-1"], BAD_OBJECTIVE),
        (["battle", *LEGIONS, "--objective", "loot"], BAD_OBJECTIVE),
        (["battle", *LEGIONS, "--policy", "best", "--policy", "defender:best"], "only one side plays best"),
        (["battle", "-a", "2 regular, bashar", "-d", "none", "--settlement", "1", "--policy", "best"],
         "no decision"),
        (["advise", *LEGIONS, "--policy", "while_ahead"], "advise solves the attacker's play"),
        (["advise", *LEGIONS, "--objective", "trade:"], BAD_OBJECTIVE),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, fix):
    result = run(*args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fix in lines[0], result.stderr


ADVISE_DEFENDER = (
    "advise already plays the attacker's best, and both sides playing best is not solved; the "
    "defender's policy here can only be never (default) or when_outnumbered"
)


@pytest.mark.parametrize(
    "args,message",
    [
        (  # every other command refuses a variant named twice; advise took it (exit 0)
            ["-v", "continue_always_costs", "-v", "continue_always_costs"],
            "--variant 'continue_always_costs' is given twice; name each house rule once",
        ),
        (  # one side only was given: "only one side plays best ... not both" said otherwise
            ["--policy", "defender:best"],
            f"--policy defender:best: {ADVISE_DEFENDER}",
        ),
        (["-v", "defender_best_play"], f"-v defender_best_play: {ADVISE_DEFENDER}"),
        (  # said "advise (attack policy best) or --policy sets attack = 'best'", with no --policy given
            ["-v", "one_round"],
            "-v one_round: sets the attacker's policy (max_rounds:1), and advise chooses the attacker's play "
            "itself; leave the variant out (odds --policy compares a fixed policy)",
        ),
    ],
)
def test_advise_refuses_what_it_cannot_honour_in_its_own_words(args, message):
    result = run("advise", "-a", "4 regular, Rabban", "-d", "3 regular", *args)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {message}\n"


def test_advise_takes_the_defenders_policies():
    """What the message offers is taken: the defender retreating when outnumbered."""
    result = run("advise", "-a", "4 regular, Rabban", "-d", "3 regular", "--policy", "when_outnumbered")
    assert result.exit_code == 0, result.output
    assert "defender retreats when_outnumbered" in result.stdout


def test_policy_help_of_commands_without_objective_names_no_objective():
    """need and table have no --objective (typer says "No such option"): their --policy help said
    best decides "exactly for --objective"; it says now that best plays to win."""
    import inspect

    import typer

    from montecarlo.cli.war_for_arrakis import TABLE, need

    for command in (need, TABLE):
        helps = {
            p.name: meta.help
            for p in inspect.signature(command, eval_str=True).parameters.values()
            for meta in getattr(p.annotation, "__metadata__", ())
            if isinstance(meta, typer.models.OptionInfo)
        }
        assert "objective" not in helps and "--objective" not in " ".join(filter(None, helps.values()))
        assert "best (the attacker decides exactly, to win)" in helps["policy"]
    result = run("need", "-d", "3 regular", "--objective", "win")
    assert result.exit_code == 2 and "No such option: --objective" in result.output


def test_advise_sums_up_the_specials_for_the_table():
    """The line "In short" weighs each situation listed by how often a battle played best meets
    it (the chain's expected visits): the share of those choices where best play gives each
    leader a Special and where it leaves the best leaders first (the first option). It counted
    situations, however rarely met."""
    result = run("advise", *LEGIONS, "--objective", "trade:2")
    assert result.exit_code == 0, result.output
    specials = advise(Rules(), SETUP).specials
    per_battle = sum(d.visits for d in specials)
    assert per_battle > 0 and all(d.visits >= 0 for d in specials)
    line = next(x for x in result.stdout.splitlines() if x.startswith("  In short, "))
    share = {name: sum(d.visits for d in specials if name in d.choice.split(" & ")) / per_battle
             for name in ("Beast Rabban (2H)", "Baron Harkonnen (2S)")}
    most, fewer = sorted(share, key=lambda name: -share[name])
    assert line.startswith(f"  In short, a battle played best meets {per_battle:.2g} Specials choice")
    assert f"({len(specials)} situations listed below): {most} takes a Special in " in line
    data = json.loads(run("advise", *LEGIONS, "--objective", "trade:2", "--json").stdout)["specials_in_short"]
    assert data["per_battle"] == pytest.approx(per_battle)
    assert data["leaders_share"] == pytest.approx(share) and list(data["leaders_share"]) == [most, fewer]
    departs = sum(d.visits for d in specials if d.choice != next(iter(d.values))) / per_battle
    assert data["departs_share"] == pytest.approx(departs)
    assert line.endswith(
        "best play departs from the best leaders first (most Hits + Shields, then most Hits) in "
        f"{round(100 * departs)}%."
    ) or departs < 0.005 or departs > 0.995


def test_advise_takes_harkonnen_as_the_battle_command_does():
    """The CHOAM Ban's error names --harkonnen: advise must take it too (it did not)."""
    asked = run("advise", "-a", "6 regular", "-d", "3 regular", "-v", "choam_ban")
    assert asked.exit_code == 2 and "(--harkonnen)" in asked.stderr
    told = run("advise", "-a", "6 regular", "-d", "3 regular", "-v", "choam_ban", "--harkonnen", "attacker",
               "--json")
    assert told.exit_code == 0, told.output
    data = json.loads(told.stdout)
    five = BattleSetup("5 regular", "3 regular", harkonnen="attacker", objective="win")
    assert data["setup"]["harkonnen"] == "attacker"
    assert data["best_value"] == pytest.approx(advise(Rules(choam_ban=True), five).value, abs=1e-12)


def test_advise_says_what_the_bans_do_to_the_battle():
    """Under the CHOAM Ban every trade:W value counts the removed unit as lost (a retreat at 5
    against 3 is worth -1): the header says so, as the battle command does, and so does --json."""
    note = ("CHOAM Ban: the Harkonnen attacker fights with 5 units (1 removed at once, regulars first; "
            "counted as lost)")
    args = ["advise", "-a", "6 regular, bashar", "-d", "3 regular", "-v", "choam_ban",
            "--objective", "trade:1"]
    shown = run(*args)
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines()[2] == note
    retreat = "With 5 regulars against 3 regulars, continue: 2.4171 against -1.0000 for retreating."
    assert retreat in shown.stdout
    assert json.loads(run(*args, "--json").stdout)["bans"] == [note]
    plain = run("advise", "-a", "5 regular, bashar", "-d", "3 regular", "-v", "choam_ban", "--json")
    assert "bans" not in json.loads(plain.stdout)
    assert "Ban" not in run("advise", "-a", "5 regular, bashar", "-d", "3 regular", "-v", "choam_ban").stdout


@pytest.mark.parametrize("policy", [[], ["--policy", "best"]])
def test_the_tables_objective_is_the_chance_to_win_and_shown_as_one(policy):
    """The table has no --objective: its objective is win, a probability, which it printed with
    2 decimals (0.01 and 0.00 for 0.008 and 1.3e-4) where attacker_win has 3."""
    from montecarlo.cli import app as root

    table = ["table", "war-for-arrakis", "--attacker-with", "Rabban, Baron", "--settlement", "2", *policy]
    cells = {}
    for metric in ("objective", "attacker_win"):
        result = runner.invoke(root, [*table, "-m", metric, "--json"])
        assert result.exit_code == 0, result.output
        cells[metric] = [c["exact"] for c in json.loads(result.stdout)["cells"]]
        shown = runner.invoke(root, [*table, "-m", metric], env={"COLUMNS": "200"})
        rows = [line for line in shown.stdout.splitlines() if "│" in line]
        cells[metric + " shown"] = [row.split("│")[2:-1] for row in rows]
    assert cells["objective"] == pytest.approx(cells["attacker_win"], abs=1e-12)
    assert cells["objective shown"] == cells["attacker_win shown"]


def test_advise_says_that_continuing_can_end_the_battle_against_a_defender_that_retreats():
    """Against when_outnumbered, 'continue: 2.0000' is the win by the defender's retreat, and the
    header said continuing means another round."""
    header = "continuing means another round, or the defender's retreat where the attacker then outnumbers " \
        "it):"
    result = runner.invoke(app, ["advise", "-a", "2 elite, Beast Rabban", "-d", "2 regular", "--objective",
                                 "trade:1", "--policy", "when_outnumbered"])
    assert result.exit_code == 0, result.output
    assert header in result.stdout
    plain = runner.invoke(app, ["advise", "-a", "2 elite, Beast Rabban", "-d", "2 regular"])
    assert "continuing means another round):" in plain.stdout
