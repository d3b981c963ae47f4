"""Dustrunners commands through their own ``app`` and the ``ODDS`` command on a throw-away app:
JSON shape, exact values on small decks (and the note when the deck is too large), the deck file
named in every output, and one-line errors with exit code 2 for bad input."""

import json
import math
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from montecarlo.cli import dustrunners as cli

runner = CliRunner()
DECKS = Path(cli.__file__).parents[1] / "games" / "dustrunners" / "data"
METRICS = ["player_win", "player_lost", "stalemate", "health_lost", "ammo_spent", "raider_steps",
           "vp_gained", "radiation", "attacks", "bonus_loot"]


def odds_app() -> typer.Typer:
    app = typer.Typer()
    app.command("dustrunners")(cli.ODDS)

    @app.command("other")
    def other() -> None:  # a second command, so that typer keeps the command name
        pass

    return app


def odds(*args):
    return runner.invoke(odds_app(), ["dustrunners", *args])


def as_json(result):
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_odds_json_on_a_small_deck_has_exact_values_within_their_errors():
    data = as_json(odds("--deck", "illustrative-12", "--enemy-die", "2", "--enemy-stars", "2",
                        "--health", "6", "--ammo", "4", "--damage-bonus", "1", "--policy", "all_in",
                        "-n", "20000", "--seed", "3", "--json", "-q"))
    assert list(data["metrics"]) == METRICS and data["game"] == "dustrunners" and data["question"] == "combat"
    assert data["extra"]["deck_file"].endswith("illustrative-deck-12.toml")
    assert data["extra"]["deck_illustrative"]
    assert "exact values: computed" in data["extra"]["exact"]
    for name, m in data["metrics"].items():
        assert m["exact"] is not None, name
        assert abs(m["estimate"] - m["exact"]) <= 4.5 * m["se"] + 1e-9, name
    assert data["setup"]["deck"]["file"].endswith("illustrative-deck-12.toml")


def test_named_enemy_and_vehicle_on_the_shipped_deck_say_exact_is_not_computed():
    result = odds("--enemy", "War Rig", "--second-card", "--vehicle", "hauler", "-n", "5000", "-q")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "illustrative-deck.toml" in out and "ILLUSTRATIVE" in out
    assert "not computed" in out and "up to 16" in out
    data = as_json(odds("--enemy", "War Rig", "--second-card", "--vehicle", "hauler", "-n", "5000", "-q",
                        "--json", "--policy", "just_enough", "--redraw", "when_losing"))
    assert all(m["exact"] is None for m in data["metrics"].values())
    assert data["setup"]["enemy"]["name"] == "War Rig" and data["setup"]["second_card"] is True
    assert data["setup"]["health"] == 8 and data["setup"]["policy"] == "just_enough"


def test_user_deck_file_and_variant(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('name = "mine"\n[[card]]\ncount = 4\ndie = 3\ndriver = "raiders"\n'
                    'skulls = 1\nloot = "ammo"\n')
    data = as_json(odds("--deck", str(path), "--enemy", "spybot", "--health", "3", "--ammo", "2",
                        "--variant", "short_turn_limit", "-n", "2000", "-q", "--json"))
    assert data["extra"]["deck_file"] == str(path) and not data["extra"]["deck_illustrative"]
    assert data["variants"] == ["short_turn_limit"]
    # A spybot cannot hurt you, and 2 ammo x 1 skull never kills 2 + 3 health: a stalemate.
    assert data["metrics"]["stalemate"]["exact"] == 1.0 and data["metrics"]["attacks"]["exact"] == 20


def test_campaign_command():
    result = runner.invoke(cli.app, ["campaign", "--vehicle", "interceptor", "--fights", "3", "--enemies",
                                     "scavenger buggy, road raiders", "--exploration", "safer", "-n", "4000",
                                     "-q", "--json"])
    data = as_json(result)
    names = list(data["metrics"])
    assert names[:4] == ["survived=0", "survived=1", "survived=2", "survived=3"] and "survived=4" not in names
    assert math.isclose(sum(data["metrics"][f"survived={k}"]["estimate"] for k in range(4)), 1.0)
    assert data["setup"]["exploration"] == "safer"
    assert data["extra"]["deck_file"].endswith("illustrative-deck.toml")
    table = runner.invoke(cli.app, ["campaign", "--health", "6", "--ammo", "3", "-n", "2000", "-q"])
    assert table.exit_code == 0 and "illustrative-deck.toml" in table.stdout and "survive_all" in table.stdout


@pytest.mark.parametrize("args", [
    ["--enemy", "spybot", "--health", "-1"],
    ["--enemy", "spybot", "--health", "3", "--ammo", "-2"],
    ["--enemy", "zorg", "--health", "3"],
    ["--enemy", "spybot", "--vehicle", "tank"],
    ["--health", "3"],
    ["--enemy", "spybot", "--health", "3", "--deck", "/nonexistent/deck.toml"],
    ["--enemy", "spybot", "--health", "3", "--policy", "everything"],
    ["--enemy", "spybot", "--health", "3", "--card-counts", "nope=1"],
    ["--enemy", "spybot", "--health", "3", "--variant", "no_such_rule"],
    ["--enemy-die", "9", "--enemy-stars", "1", "--health", "3", "--enemy-kind", "dragon"],
])
def test_bad_input_is_one_line_and_exit_2(args):
    result = odds(*args, "-n", "1000", "-q")
    assert result.exit_code == 2, (args, result.stdout)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), (args, result.stderr)


def test_empty_deck_file_is_one_line(tmp_path):
    path = tmp_path / "empty.toml"
    path.write_text("")
    result = odds("--deck", str(path), "--enemy", "spybot", "--health", "3", "-q")
    assert result.exit_code == 2 and str(path) in result.stderr and "no cards" in result.stderr
    bad = runner.invoke(cli.app, ["campaign", "--health", "3", "--fights", "40", "-q"])
    assert bad.exit_code == 2 and "fights" in bad.stderr


def test_road_names_both_illustrative_decks_and_the_starting_vp():
    result = runner.invoke(cli.app, ["road", "--vehicle", "interceptor", "--rounds", "1", "-n", "2000", "-q"])
    assert result.exit_code == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "exploration deck: illustrative exploration deck" in out and "ILLUSTRATIVE" in out
    assert "starting VP 2: the stars on the Interceptor's vehicle cards" in out
    data = as_json(runner.invoke(cli.app, ["road", "--vehicle", "scout", "--json", "-n", "2000", "-q"]))
    assert data["extra"]["exploration_illustrative"] is True
    assert data["extra"]["exploration_deck_file"].endswith("illustrative-exploration.toml")
    bad = runner.invoke(cli.app, ["road", "--health", "4", "--redraw", "loot"])
    assert bad.exit_code == 2 and "starting VP" in bad.stderr


WIN_PAYS = "(loot and steps may spend the 2 VP of a win)"


@pytest.mark.parametrize("args,said", [
    (["--vp", "0", "--redraw", "when_losing"],
     "starting VP 0: given (--vp); a redraw costs 2 VP, so none is made\n"),
    (["--vp", "1", "--redraw", "all"],
     f"starting VP 1: given (--vp); a redraw costs 2 VP, so initiative, finish, when_losing make none "
     f"{WIN_PAYS}"),
    (["--vp", "0", "--redraw", "finish,loot"],
     f"starting VP 0: given (--vp); a redraw costs 2 VP, so finish makes none {WIN_PAYS}"),
    (["--vp", "0", "--redraw", "loot,steps"], "starting VP 0: given (--vp)\n"),
    (["--vp", "2", "--redraw", "all"], "starting VP 2: given (--vp)\n"),
    (["--vp", "1", "--redraw", "loot", "-v", "redraw_cost_3"], "starting VP 1: given (--vp)\n"),
    (["--vp", "0", "--redraw", "loot", "-v", "redraw_cost_3"], "a redraw costs 3 VP, so none is made\n"),
    (["--vp", "0"], "starting VP 0: given (--vp)\n"),
    ([], "starting VP 0: no vehicle and no --vp (nothing spends VP under redraw never)\n"),
    (["--vehicle", "scout", "--redraw", "finish"],
     "starting VP 1: the stars on the Scout's vehicle cards; a redraw costs 2 VP, so none is made\n"),
])
def test_a_combat_says_when_its_vp_pay_for_no_redraw(args, said):
    """A combat wins VP only at its end, where the loot and steps redraws may spend them: a redraw
    policy with fewer VP than its redraws cost changes nothing, which the run once left the user
    to find out from identical numbers."""
    combat = ("--enemy", "war-rig", "--health", "5", "--ammo", "3", *args, "-n", "1000", "-q")
    result = odds(*combat)
    assert result.exit_code == 0, result.stderr
    assert said in result.stdout
    data = as_json(odds(*combat, "--json"))
    shown = data["extra"]["starting_vp"]
    assert said.strip() in shown and shown + "\n" in result.stdout
    if "none is made" in said:  # and indeed no trial spent a VP: each gained the win's 2 or none
        gained, won = (data["metrics"][k]["estimate"] for k in ("vp_gained", "player_win"))
        assert gained == pytest.approx(2 * won, abs=1e-12)


SMALL = ("--deck", "illustrative-12", "--enemy", "war-rig", "--vehicle", "interceptor")


def test_best_play_reports_every_metric_and_the_objective_with_its_optimum():
    from montecarlo.games.dustrunners.combat import exact_combat, parse_combat
    from montecarlo.games.dustrunners.rules import Rules

    data = as_json(odds(*SMALL, "--policy", "best", "--objective", "keep:10", "-n", "20000", "--json"))
    assert data["setup"]["policy"] == "best" and data["setup"]["objective"] == "keep:10"
    objective = data["metrics"]["objective"]
    values = {"deck": "illustrative-12", "enemy": "war rig", "vehicle": "interceptor", "objective": "keep:10"}
    optimum = exact_combat(Rules(), parse_combat({**values, "policy": "best"}))["objective"]
    assert objective["exact"] == pytest.approx(optimum)
    assert abs(objective["estimate"] - objective["exact"]) <= 4.5 * objective["se"]
    fixed = as_json(odds(*SMALL, "--objective", "keep:10", "-n", "2000", "--json"))["metrics"]["objective"]
    assert fixed["exact"] <= optimum + 1e-12
    assert "objective" not in as_json(odds(*SMALL, "-n", "2000", "--json"))["metrics"]
    assert as_json(odds(*SMALL, "--policy", "best", "-n", "2000", "--json"))["setup"]["objective"] == "win"


def test_a_fixed_ammo_over_the_rules_limit_is_noted_and_plays_as_the_limit():
    """fixed:9 was echoed as "policy fixed:9" and played as fixed:4, the per-attack limit."""
    nine = odds(*SMALL, "--policy", "fixed:9", "-n", "2000", "--json")
    assert nine.exit_code == 0, nine.output
    assert nine.stderr == (
        "note: --policy fixed:9: an attack spends at most 4 ammo (the rules' limit), so it plays as fixed:4\n"
    )
    four = odds(*SMALL, "--policy", "fixed:4", "-n", "2000", "--json")
    assert four.stderr == "" and json.loads(four.stdout)["metrics"] == json.loads(nine.stdout)["metrics"]
    for command in (["campaign"], ["road"]):
        said = runner.invoke(cli.app, [*command, "--vehicle", "scout", "--policy", "fixed:5", "-n", "200"])
        assert said.exit_code == 0 and "plays as fixed:4" in said.stderr, said.output


def test_an_objective_to_win_is_shown_as_the_chance_to_win_beside_it():
    """Under --objective win the objective is a chance: it read 0.397 under player_win's 0.3975."""
    def row(name, *args):
        table = odds(*SMALL, "--policy", "best", "-n", "2000", *args)
        assert table.exit_code == 0, table.output
        return next(line for line in table.stdout.splitlines() if line.startswith(f"│ {name} "))

    win, objective = row("player_win"), row("objective")
    assert objective.split("│")[2] == win.split("│")[2] and re.search(r"0\.\d{4} ", objective), objective
    assert re.search(r" \d+\.\d{3} ", row("objective", "--objective", "keep:10"))  # a mean: 3 decimals


@pytest.mark.parametrize("args, message", [
    (("--objective", "keep:x"), "objective must be win or keep:W"),
    (("--objective", "keep:-1"), "objective must be win or keep:W"),
    (("--policy", "best", "--objective", "trade:2"), "objective must be win or keep:W"),
    (("--policy", "best", "--ammo", "0"), "no choice of ammo"),
    # an initiative redraw it cannot pay for is no choice either (best play ran as a fixed policy)
    (("--policy", "best", "--ammo", "0", "--redraw", "initiative", "--vp", "1"),
     "best play: with no ammo and 1 VP, short of the 2 VP an initiative redraw costs, there is no choice"),
    (("--policy", "best", "--ammo", "0", "--redraw", "initiative", "--vp", "2", "-v", "redraw_cost_3"),
     "short of the 3 VP an initiative redraw costs"),
])
def test_bad_best_play_input_is_one_line_and_exit_2(args, message):
    result = odds(*SMALL, *args)
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_best_play_with_no_ammo_decides_the_initiative_redraw():
    """No ammo, but an initiative redraw to decide: best play is offered, and it redraws only
    where that pays (here better than the fixed rule, which redraws every raiders' card)."""
    from montecarlo.games.dustrunners.combat import exact_combat, parse_combat
    from montecarlo.games.dustrunners.rules import Rules

    args = ("--deck", "illustrative-12", "--enemy", "scavenger-buggy", "--vehicle", "interceptor",
            "--ammo", "0", "--redraw", "initiative", "--vp", "4", "--objective", "keep:4", "-n", "2000",
            "--json")
    data = as_json(odds(*args, "--policy", "best"))
    values = {"deck": "illustrative-12", "enemy": "scavenger buggy", "vehicle": "interceptor", "ammo": 0,
              "redraw": "initiative", "vp": 4, "objective": "keep:4"}
    optimum = exact_combat(Rules(), parse_combat({**values, "policy": "best"}))["objective"]
    assert data["metrics"]["objective"]["exact"] == pytest.approx(optimum)
    assert optimum > exact_combat(Rules(), parse_combat(values))["objective"] + 0.1


def test_best_play_on_a_large_deck_is_refused_in_one_line():
    """The default deck is the large one: the refusal names the small shipped deck best play takes."""
    result = odds("--enemy", "war-rig", "--vehicle", "interceptor", "--policy", "best")
    assert result.exit_code == 2 and (
        "best play: the illustrative deck (the default) has 30 cards and the exact solver takes up to 16; "
        "give --deck illustrative-12 (the small shipped deck), or a deck file"
    ) in " ".join(result.output.split())


def test_advice_without_an_enemy_is_refused_rather_than_given_against_an_unseen_default():
    """advise with only --enemy-health advised against raiders drawing one card an attack, shown
    nowhere ('custom enemy'); combat refuses the same input."""
    from montecarlo.cli.dustrunners import app

    result = CliRunner().invoke(app, ["advise", "--vehicle", "scout", "--enemy-health", "4"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --enemy: give a shipped enemy (--enemy), or how it attacks (--enemy-stars, --enemy-kind)"
    )


@pytest.mark.parametrize("args,flag", [
    (["--enemy-health", "0"], "--enemy-health must be"),
    (["--enemy-health", "3", "--objective", "keep:x"], "--objective must be win or keep:W"),
])
def test_advise_errors_name_the_flag(args, flag):
    result = runner.invoke(cli.app, ["advise", "--deck", "illustrative-12", "--enemy", "war-rig", "--vehicle",
                                     "interceptor", *args])
    assert result.exit_code == 2 and result.output.startswith(f"error: {flag}")
    assert len(result.output.strip().splitlines()) == 1


def test_advise_in_words_and_json():
    args = ["advise", "--enemy", "war-rig", "--vehicle", "interceptor", "--enemy-health", "2",
            "--seen", "double tap, double-tap, head-on crash"]
    text = runner.invoke(cli.app, args)
    assert text.exit_code == 0, text.output
    pile = "draw pile: empty road x2, dust cloud x2, glancing hit x2, side swipe x2, head-on crash x1"
    assert pile in text.output
    assert "Spend " in text.output and " ammo: win " in text.output
    data = as_json(runner.invoke(cli.app, [*args, "--json"]))
    values = [o["value"] for o in data["options"]]
    assert values == sorted(values, reverse=True) and data["best_ammo"] == data["options"][0]["ammo"]
    assert {o["ammo"] for o in data["options"]} == {0, 1, 2, 3, 4}
    # as the other games' advice: the setup, the rules and the best choice's value
    assert data["best_value"] == data["options"][0]["value"] == max(values)
    assert data["rules"]["redraw_cost"] == 2 and data["rules"]["max_ammo_per_attack"] == 4
    assert data["setup"]["vehicle"] == "Interceptor" and data["setup"]["enemy"]["name"] == "War Rig"
    assert "policy" not in data["setup"] and data["setup"]["health"] == data["health"]
    three = as_json(runner.invoke(cli.app, [*args, "--json", "-v", "redraw_cost_3"]))
    assert three["rules"]["redraw_cost"] == 3 and three["variants"] == ["redraw_cost_3"]
    bad = runner.invoke(cli.app, [*args[:-1], "sandworm"])
    assert bad.exit_code == 2 and "no card named 'sandworm'" in bad.output
    # its default deck is not combat's: said when it is the one used
    assert "(advise's default deck: it is solved exactly, on decks of up to 16 cards; combat defaults" \
        in text.output
    other = runner.invoke(cli.app, [*args, "--deck", str(DECKS / "illustrative-deck-12.toml")])
    assert other.exit_code == 0 and "default deck" not in other.output


def test_advise_refuses_a_variant_named_twice_and_names_the_rules_in_force():
    """advise, not a run_command, once took -v x -v x that every other command refuses, and never
    said which rules its numbers are under."""
    args = ["advise", "--enemy-health", "4", "--enemy", "war-rig", "--vehicle", "scout"]
    twice = runner.invoke(cli.app, [*args, "-v", "redraw_cost_3", "-v", "redraw_cost_3"])
    assert twice.exit_code == 2
    assert twice.output == "error: --variant 'redraw_cost_3' is given twice; name each house rule once\n"
    official = runner.invoke(cli.app, args)
    assert official.exit_code == 0 and official.output.rstrip().endswith("; official rules")
    house = runner.invoke(cli.app, [*args, "-v", "redraw_cost_3"])
    assert house.exit_code == 0 and house.output.rstrip().endswith("; redraw_cost_3")
    assert as_json(runner.invoke(cli.app, [*args, "-v", "redraw_cost_3", "--json"]))["variants"] == [
        "redraw_cost_3"
    ]


@pytest.mark.parametrize("command", [["combat"], ["advise", "--enemy-health", "3"]])
def test_a_shipped_enemy_with_enemy_values_names_the_flags(command):
    """Once "give either enemy (a shipped enemy) or enemy_die": the setup's fields, not the flags."""
    result = runner.invoke(cli.app, [*command, "--enemy", "war-rig", "--enemy-die", "3", "--health", "3"])
    assert result.exit_code == 2
    assert result.output == (
        "error: give either a shipped enemy (--enemy) or an enemy's own values (--enemy-die), not both\n"
    )
    both = odds("--enemy", "war-rig", "--enemy-die", "3", "--enemy-moon", "full", "--health", "3", "-q")
    assert "(--enemy-die), (--enemy-moon), not both" in both.output


def test_a_missing_exploration_deck_names_its_own_flag():
    """Once "--exploration deck file not found": read as the separate --exploration option."""
    result = runner.invoke(cli.app, ["road", "--vehicle", "scout", "-n", "2000", "-q",
                                     "--exploration-deck", "nope.toml"])
    assert result.exit_code == 2
    assert result.output == (
        "error: --exploration-deck file not found: nope.toml (or use the shipped one: illustrative)\n"
    )


def test_a_card_count_given_twice_is_refused():
    """The later count silently replaced the earlier."""
    result = odds("--enemy", "war-rig", "--vehicle", "scout", "--card-counts", "double tap=0, double tap=1",
                  "-n", "1000", "-q")
    assert result.exit_code == 2
    assert result.output == "error: --card-counts: 'double tap' is given twice; give each card's count once\n"


@pytest.mark.parametrize("enemies", ["", " , "])
def test_an_empty_enemies_list_is_refused_not_read_as_every_enemy(enemies):
    result = runner.invoke(cli.app, ["campaign", "--vehicle", "scout", "--enemies", enemies, "-n", "1000",
                                     "-q"])
    assert result.exit_code == 2
    assert result.output == (
        "error: --enemies: no enemy named; give shipped enemy names (scavenger-buggy, road-raiders, war-rig, "
        "spybot, mutant-pack), or leave it out for all of them\n"
    )


@pytest.mark.parametrize("command", [["combat", "--enemy", "war-rig"], ["campaign"]])
def test_a_negative_fixed_ammo_says_n_is_at_least_0(command):
    """fixed:-1 was told the list of policies, as if its name were unknown; fixed:0 is a policy."""
    args = [*command, "--vehicle", "scout", "--policy", "fixed:-1", "-n", "100", "-q"]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 2
    assert result.output == (
        "error: --policy fixed:-1: fixed:N needs N >= 0 ammo per attack (0: the damage bonus alone)\n"
    )


def test_an_enemy_of_one_star_is_one_star():
    for stars, said in ((1, "die 2, 1 star)"), (2, "die 2, 2 stars)")):
        result = odds("--enemy-die", "2", "--enemy-stars", str(stars), "--health", "3", "-n", "200", "-q")
        assert result.exit_code == 0, result.output
        assert said in " ".join(result.stdout.split()), result.stdout
