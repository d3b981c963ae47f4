"""``montecarlo war-for-arrakis ...`` and ``montecarlo odds war-for-arrakis``: JSON with exact values
beside estimates, policies, the too-large note, storms, worms, hazards with the wormsign
assumption, ``need``; every bad input is one line on stderr and exit code 2."""

import json
import math

import pytest
import typer
from typer.testing import CliRunner

from montecarlo.cli.war_for_arrakis import ODDS, TABLE, app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def run_json(*args, trials=20_000):
    result = run(*args, "--trials", str(trials), "--seed", "7", "--json", "--quiet")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def odds_app() -> typer.Typer:
    throwaway = typer.Typer()
    throwaway.command("war-for-arrakis")(ODDS)
    throwaway.command("other")(lambda: None)  # a second command keeps the subcommand name
    return throwaway


def test_exact_table():
    throwaway = typer.Typer()
    throwaway.command("war-for-arrakis")(TABLE)
    throwaway.command("other")(lambda: None)
    result = runner.invoke(throwaway, ["war-for-arrakis", "--json"])
    assert result.exit_code == 0, result.output
    cells = {(c["attacker"], c["defender"]): c["exact"] for c in json.loads(result.stdout)["cells"]}
    assert cells[1, 1] == pytest.approx(1 / 5) and len(cells) == 36
    result = runner.invoke(
        throwaway,
        ["war-for-arrakis", "--settlement", "2", "--attacker-with", "1 elite, bashar", "-m", "rounds"],
    )
    assert result.exit_code == 0, result.output
    assert "rounds (exact)" in result.stdout and "rank-2 settlement" in result.stdout
    # 1 elite more: the row of 6 would be 7 units, left out with a dash that the note explains
    last = next(line for line in result.stdout.splitlines() if line.startswith("│     6 │"))
    assert last.count("—") == 6 and "—: more than 6 units once the added" in result.stdout
    result = runner.invoke(throwaway, ["war-for-arrakis", "--attacker-with", "bashar", "--json"])
    assert result.exit_code == 0, result.output
    assert all(c["exact"] is not None for c in json.loads(result.stdout)["cells"])
    result = runner.invoke(throwaway, ["war-for-arrakis", "-m", "nope"])
    assert result.exit_code == 2 and "unknown metric 'nope'" in result.stderr


def test_odds_command_from_the_issue():
    args = [
        "war-for-arrakis",
        "--attacker",
        "4 regular, 1 elite, bashar",
        "--defender",
        "3 regular, 1 fedaykin, naib",
        "--settlement",
        "2",
        "--attacker-cards",
        "1",
        "--surprise",
        "--trials",
        "20000",
        "--json",
        "--quiet",
    ]
    result = runner.invoke(odds_app(), args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    metrics = data["metrics"]
    for name in (
        "attacker_win",
        "defender_win",
        "both_destroyed",
        "rounds",
        "attacker_losses",
        "defender_losses",
        "attacker_survivors=0",
        "attacker_survivors=5",
    ):
        assert metrics[name]["exact"] is not None, name
    assert sum(
        metrics[k]["exact"] for k in ("attacker_win", "defender_win", "both_destroyed")
    ) == pytest.approx(1)
    for name in ("attacker_win", "defender_win"):
        m = metrics[name]
        assert (
            abs(m["estimate"] - m["exact"]) <= 4.5 * math.sqrt(m["exact"] * (1 - m["exact"]) / 20_000) + 1e-9
        )
    assert data["setup"]["attacker"] == "4 regular, 1 elite, Bashar" and data["setup"]["surprise"] is True
    assert data["extra"]["exact"] == "chain"


def test_table_output_policies_and_variants():
    result = run(
        "battle",
        "-a",
        "3 regular",
        "-d",
        "3 regular",
        "--policy",
        "while_ahead",
        "--policy",
        "when_outnumbered",
        "-v",
        "continue_always_costs",
        "-n",
        "5000",
        "-q",
    )
    assert result.exit_code == 0, result.output
    assert "attacker_win" in result.stdout and "exact" in result.stdout
    assert "policies: attacker while_ahead, defender retreats when_outnumbered" in result.stdout
    # the default's name hid that a last unit is never paid to go on: said beside it
    plain = runner.invoke(app, ["battle", "-a", "3 regular", "-d", "2 regular",
                                "--settlement", "1", "-n", "500", "-q"])
    assert "policies: attacker until_destroyed (fights on while paying to continue leaves it a unit)" \
        in " ".join(plain.stdout.split())
    data = run_json("battle", "-a", "3 regular", "-d", "3 regular", "--policy", "max_rounds:2")
    assert data["rules"]["attack"] == "max_rounds:2" and data["metrics"]["rounds"]["exact"] <= 2


def test_too_large_for_the_exact_solver_is_said():
    result = run(
        "battle", "-a", "6 elite", "-d", "6 elite", "--policy", "max_rounds:5000", "-n", "2000", "-q"
    )
    assert result.exit_code == 0, result.output
    assert "too large for the exact solver" in result.stdout
    data = run_json("battle", "-a", "6 elite", "-d", "6 elite", "--policy", "max_rounds:5000", trials=2000)
    assert data["metrics"]["attacker_win"]["exact"] is None and "too large" in data["extra"]["exact"]


def test_storm_worm_and_hazards():
    data = run_json("storm", "--legion", "2 regular", "--terrain", "Deep Desert")
    assert data["metrics"]["destroyed"]["exact"] == pytest.approx(5 / 9)
    data = run_json("worm", "--legion", "none", "--terrain", "desert", "--harvester")
    assert data["metrics"]["harvester_lost"]["exact"] == 1.0
    result = run(
        "hazards",
        "--area",
        "deep desert: 3 regular, harvester",
        "--area",
        "desert: harvester",
        "-n",
        "5000",
        "-q",
    )
    assert result.exit_code == 0, result.output
    assert "ASSUMPTION" in result.stdout
    data = run_json("hazards", "--area", "deep desert: 3 regular, harvester", "--wild-maker")
    assert "ASSUMPTION" in data["extra"]["wormsign_pool"]
    assert data["setup"]["areas"] == ["deep_desert: 3 regular, harvester"]


def test_need_shows_the_strongest_legion_short_of_a_target_of_one_with_the_decimals_that_show_it():
    """6 elite win 0.99999999986 against 3 regulars: "wins 1.0000" beside "no legion reaches"."""
    result = run("need", "--defender", "3 regular", "--target", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith("the strongest tried: 6 elite wins >0.99999999")
    result = run("need", "--defender", "3 regular", "--target", "0.99999")  # both legions short of 1
    assert "1.0000" not in result.stdout and "attacker_win 0.99999\n" in result.stdout, result.stdout


def test_need_shows_the_next_smaller_legion():
    result = run("need", "--defender", "2 regular", "--target", "0.8", "--leaders", "bashar")
    assert result.exit_code == 0, result.output
    assert "smallest legion:" in result.stdout and "tried before it:" in result.stdout
    result = run(
        "need",
        "--defender",
        "3 regular, 1 fedaykin, naib",
        "--settlement",
        "2",
        "--target",
        "0.3",
        "--leaders",
        "bashar",
        "--json",
    )
    data = json.loads(result.stdout)
    assert data["found"]["attacker_win"] >= 0.3 > data["next_smaller"]["attacker_win"]
    assert data["found"]["legion"] == "1 regular, 5 elite, Bashar"
    result = run("need", "--defender", "6 elite", "--settlement", "3", "--target", "0.999")
    assert result.exit_code == 0 and "no legion of up to 6 units" in result.stdout


@pytest.mark.parametrize(
    "args,fix",
    [
        (["battle", "-a", "7 regular", "-d", "2 regular"], "at most 6"),
        (["battle", "-a", "bashar", "-d", "2 regular"], "leaders cannot stand alone"),
        (["battle", "-a", "2 regular, Kynes", "-d", "2 regular"], "unknown unit kind or leader 'Kynes'"),
        (["battle", "-a", "2 knights", "-d", "2 regular"], "unknown unit kind or leader 'knights'"),
        (
            ["battle", "-a", "2 regular", "-d", "2 regular", "--settlement", "-1"],
            "settlement must be a rank 0..3",
        ),
        (["battle", "-a", "2 regular", "-d", "2 regular", "--surprise"], "needs a leader"),
        (["battle", "-a", "2 regular", "-d", "2 regular", "--policy", "charge"], "unknown policy 'charge'"),
        (["battle", "-a", "2 regular", "-d", "2 regular", "-v", "nope"],
         "--variant: unknown variant 'nope'"),
        (["storm", "--legion", "2 regular", "--terrain", "swamp"], "unknown terrain 'swamp'"),
        (["worm", "--legion", "2 regular", "--terrain", "mountain"], "Mountain"),
        (["hazards", "--area", "plateau: harvester"], "desert areas"),
        (["need", "--defender", "2 regular", "--target", "1.5"], "--target must be a probability"),
        (["need", "--defender", "2 regular", "--elite", "knight"], "elite kind"),
        (["need", "--defender", "9 regular"], "at most 6"),
        (["need", "--defender", "2 regular", "--leaders", "2 regular"], "leaders only"),  # units: searched
        (["storm", "--legion", "2 fedaykin", "--terrain", "desert"], "Fedaykin (Atreides)"),
        (["worm", "--legion", "1 regular, 1 fedaykin", "--terrain", "desert"], "Fedaykin (Atreides)"),
        (["battle", "-a", "3 regular", "-d", "2 regular", "-v", "one_round", "--policy", "while_ahead"],
         "--policy sets attack = 'while_ahead', but variant 'one_round' sets it to 'max_rounds:1'"),
        (["advise", "-a", "3 regular, bashar", "-d", "2 regular", "-v", "one_round"],
         "-v one_round: sets the attacker's policy (max_rounds:1)"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, fix):
    result = run(*args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fix in lines[0], result.stderr


def test_readings_in_force_are_named():
    """The three places where the default follows the Korean page say which reading is in force."""
    out = run("battle", "-a", "3 regular, bashar", "-d", "2 regular", "--surprise", "-n", "2000", "--quiet")
    assert out.exit_code == 0, out.output
    assert "reading: continuing costs 1 hit only against a settlement (Korean page" in out.stdout
    assert "reading: a surprise attack adds 1 Special to round 1 (Korean page" in out.stdout
    english = run_json(
        "battle", "-a", "3 regular, bashar", "-d", "2 regular", "--surprise",
        "-v", "continue_always_costs", "-v", "surprise_adds_die", trials=2000,
    )
    assert [r.split(" (")[1] for r in english["extra"]["readings"]] == [
        "English overview: continue_always_costs)", "English overview: surprise_adds_die)"
    ]
    storm = run("storm", "-l", "2 regular", "--terrain", "desert", "--settlement", "-n", "2000", "--quiet")
    assert "(settlement: no storm)" in storm.stdout and "reading: storms spare a legion" in storm.stdout
    struck = run_json(
        "storm", "-l", "2 regular", "--terrain", "deep_desert", "--settlement",
        "-v", "storms_strike_settlements",
    )
    assert struck["metrics"]["destroyed"]["exact"] == pytest.approx(5 / 9)
    assert "storms strike a legion" in struck["extra"]["readings"][0]
    plain = run("storm", "-l", "2 regular", "--terrain", "desert", "-n", "2000", "--quiet")
    assert "reading:" not in plain.stdout  # no settlement: nothing depends on the reading
    hazards = run("hazards", "--area", "deep desert: 2 regular", "--wild-maker", "-n", "2000", "--quiet")
    assert "reading: wormsigns resolve by type" in hazards.stdout


def test_bans_from_the_cli():
    banned = run_json(
        "battle", "-a", "6 regular", "-d", "3 regular", "--harkonnen", "attacker", "--attacker-cards", "1",
        "-v", "choam_ban", "-v", "landsraad_ban", trials=2000,
    )
    assert banned["setup"]["harkonnen"] == "attacker"
    assert [b.split(":")[0] for b in banned["extra"]["bans"]] == ["CHOAM Ban", "Landsraad Ban"]
    assert banned["metrics"]["attacker_survivors=6"]["exact"] == 0
    unknown = run("battle", "-a", "6 regular", "-d", "3 regular", "-v", "choam_ban")
    assert unknown.exit_code == 2 and "harkonnen = 'attacker' or 'defender'" in unknown.output
    assert len(unknown.output.strip().splitlines()) == 1


def table_app() -> typer.Typer:
    throwaway = typer.Typer()
    throwaway.command("war-for-arrakis")(TABLE)
    throwaway.command("other")(lambda: None)
    return throwaway


TWO_HARKONNEN = (
    "Harkonnen (Bashar), like the attacker (Bashar); a battle is the Atreides against the Harkonnen: "
    "give one side Atreides figures (fedaykin, naib, an Atreides leader) or only generic units "
    "(regular, elite, special)"
)
SURPRISE = (
    "--surprise: a surprise attack is a Leadership action and needs a leader in the attacking legion; "
    "add one, e.g. 'bashar' or 'naib'"
)


@pytest.mark.parametrize(
    "args,message",
    [
        # the setup's field names leaked where the user typed flags
        (["hazards", *[a for _ in range(30) for a in ("--area", "desert: 1 regular")]],
         "--area: give 1..10 areas, got 30"),
        (["need", "-d", "6 regular, 6 elite"],
         "--defender: 12 units, but an area holds at most 6; remove 6 unit(s) (leaders do not count)"),
        (["need", "-d", "3 regular", "--settlement", "9"],
         "--settlement must be a rank 0..3 (0 = no settlement), got 9"),
        (["need", "-d", "3 regular", "--surprise"], SURPRISE),
        (["need", "-d", "3 regular", "--attacker-cards", "9"],
         "--attacker-cards must be an integer 0..6, got 9"),
        (["need", "-d", "3 regular", "--harkonnen", "foo"],
         "--harkonnen must be attacker or defender (the Harkonnen side), got 'foo'"),
        (["need", "-d", "3 regular", "--leaders", "Stilgar, stilgar"],  # need's attacker: its --leaders
         "--leaders: a named leader is listed twice ('Stilgar', 'stilgar'); write the name once"),
        (["need", "-d", "3 regular", "--elite", "fedaykin", "--leaders", "bashar"],
         "--elite: 'fedaykin' are Atreides units but the leaders 'bashar' are Harkonnen; a legion "
         "belongs to one faction"),
        # a harvester named twice counted once; a blank --area was dropped unsaid
        (["hazards", "--area", "desert: 3 regular, harvester, harvester"],
         "--area 1: 'harvester' is given twice; an area holds at most one harvester"),
        (["hazards", "--area", "desert: 3 regular", "--area", "deep desert: Settlement, 1 elite, settlement"],
         "--area 2: 'settlement' is given twice; an area holds at most one settlement"),
        (["hazards", "--area", "desert: harvester, carryall, Carryall"],
         "--area 1: 'Carryall' is given twice; one carryall saves the area's one harvester; give it once"),
        (["hazards", "--area", "desert: 3 regular", "--area", " "],
         "--area: blank; give 'terrain: legion items', e.g. 'desert: 3 regular, harvester'"),
        # two forms of one person, and two legions of one faction, cannot be at the table
        (["battle", "-a", "3 regular, jessica, Reverend Mother Jessica", "-d", "3 regular"],
         "--attacker: 'jessica' and 'Reverend Mother Jessica' are one person: Lady Jessica becomes "
         "Reverend Mother Jessica during the game, and only one of the two is in play; give one of them"),
        (["battle", "-a", "3 regular", "-d", "Paul Atreides, Paul-Muad'Dib, 2 regular"],
         "--defender: 'Paul Atreides' and \"Paul-Muad'Dib\" are one person: Paul Atreides becomes "
         "Paul-Muad'Dib during the game, and only one of the two is in play; give one of them"),
        (["battle", "-a", "3 regular, bashar", "-d", "2 regular, bashar"], f"--defender: {TWO_HARKONNEN}"),
        (["advise", "-a", "3 regular, bashar", "-d", "2 regular, bashar"], f"--defender: {TWO_HARKONNEN}"),
        (["need", "-d", "2 regular, bashar", "--leaders", "bashar"], f"--defender: {TWO_HARKONNEN}"),
    ],
)
def test_errors_name_the_flags_typed_whole(args, message):
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {message}\n"


@pytest.mark.parametrize(
    "args,message",
    [
        (["--settlement", "9"], "--settlement must be a rank 0..3 (0 = no settlement), got 9"),
        (["--surprise"], SURPRISE),
        (["--harkonnen", "foo"], "--harkonnen must be attacker or defender (the Harkonnen side), got 'foo'"),
        (["--attacker-with", "bashar", "--defender-with", "bashar"], f"--defender-with: {TWO_HARKONNEN}"),
    ],
)
def test_table_errors_name_the_flags_typed_whole(args, message):
    result = runner.invoke(table_app(), ["war-for-arrakis", *args])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {message}\n"


def test_hazards_takes_one_flag_of_each_kind_per_area():
    """The refusals above leave one harvester, carryall and settlement per area (and plurals) alone."""
    areas = ["desert: 2 regular, harvester, carryall", "desert: 1 regular, settlement"]
    data = run_json(
        "hazards", "--area", "desert: 2 regular, Harvesters, carryall", "--area", areas[1], trials=2000
    )
    assert data["setup"]["areas"] == areas


def test_a_worm_at_a_harvester_alone_shows_only_the_harvesters_loss():
    """It showed the dice's hits, units lost and survivors, as if the worm had rolled at a legion."""
    result = run("worm", "-l", "none", "--terrain", "desert", "--harvester", "-n", "1000", "--json")
    assert result.exit_code == 0, result.output
    assert list(json.loads(result.stdout)["metrics"]) == ["harvester_lost"]


@pytest.mark.parametrize("flag", [["-n", "2000"], ["--seed", "3"]])
def test_the_exact_table_refuses_trials_and_a_seed_saying_why(flag):
    """table dune1984 takes -n and --seed; this table is exact, and said only 'No such option'."""
    from montecarlo.cli import app as montecarlo

    result = runner.invoke(montecarlo, ["table", "war-for-arrakis", *flag])
    assert result.exit_code == 2 and "runs no trials: every cell is the battle's exact value" in result.output


def test_need_and_advise_say_that_a_hazard_rule_changes_nothing_in_a_battle():
    """-v rulebook_worm_dice sets the worms' dice, which no battle rolls: need and advise say so."""
    cli = CliRunner()
    need = cli.invoke(app, ["need", "--defender", "2 regular", "-v", "rulebook_worm_dice"])
    assert need.exit_code == 0, need.output
    assert need.stderr.startswith("note: -v rulebook_worm_dice changes nothing in battle: it sets no rule "
                                  "that battle uses"), need.stderr
    advise = cli.invoke(app, ["advise", "-a", "3 regular", "-d", "2 regular", "-v", "rulebook_worm_dice"])
    assert advise.exit_code == 0, advise.output
    assert advise.stderr.startswith("note: -v rulebook_worm_dice changes nothing in battle"), advise.stderr


def test_a_variant_that_changes_nothing_is_noted_only_once_the_inputs_are_good():
    """The note on a variant outside the battle came before the error of a bad input (need's
    --target 1.5): now an error comes alone; table dune1984 and compare GAME say it too."""
    from montecarlo.cli import app as root

    cli = CliRunner()
    bad_inputs = (
        ["need", "-d", "3 regular, naib", "--target", "1.5"],
        ["advise", "-a", "3 regular", "-d", "x"],
    )
    for args in bad_inputs:
        bad = cli.invoke(app, [*args, "-v", "rulebook_storm_dice"])
        assert bad.exit_code == 2 and bad.stderr.startswith("error:"), bad.stderr
        assert "note:" not in bad.stderr, bad.stderr
    table = cli.invoke(root, ["table", "dune1984", "-v", "fight_to_last", "-n", "200", "-q"])
    assert table.stderr.startswith("note: -v fight_to_last changes nothing in duel"), table.stderr
    compare = cli.invoke(root, ["compare", "dune1984", "-v", "fight_to_last", "--set", "attacker=4",
                                "--set", "defender=5", "-n", "200", "-q"])
    assert compare.exit_code == 0, compare.output
    assert compare.stderr.startswith("note: -v fight_to_last changes nothing in duel"), compare.stderr


def test_the_choam_ban_in_need_and_compare_is_said_in_their_own_words():
    """need under the Ban stops at 5 units for a Harkonnen attacker and says why; compare GAME, which
    has no --harkonnen, names its --set where a Ban needs the Harkonnen side."""
    from montecarlo.cli import app as root

    cli = CliRunner()
    need = cli.invoke(app, ["need", "-d", "3 regular, naib", "--settlement", "1", "--target", "0.9",
                            "-v", "choam_ban", "--harkonnen", "attacker"])
    assert need.exit_code == 0, need.output
    assert ("no legion of up to 5 units (a Harkonnen legion holds no more under the CHOAM Ban) reaches the "
            "target; the strongest tried: 5 elite wins") in " ".join(need.stdout.split())
    compare = cli.invoke(root, ["compare", "war-for-arrakis", "-v", "choam_ban", "--set",
                                "attacker=6 regular", "--set", "defender=3 regular", "-n", "200", "-q"])
    assert compare.exit_code == 2, compare.output
    assert "(--set harkonnen=attacker or defender)" in compare.stderr, compare.stderr
