"""The Python API (``import montecarlo as mc``): numbers against exact solvers, frames, errors."""

import dataclasses
import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import montecarlo as mc
from montecarlo.api import Result
from montecarlo.errors import InputError, MonteCarloError, ScenarioError

ROOT = Path(__file__).resolve().parent.parent
LONG = ["variant", "metric", "estimate", "ci_low", "ci_high", "se", "exact", "trials"]


def test_import_montecarlo_loads_no_numeric_library():
    """``import montecarlo`` stays cheap: the API and its libraries load on first use."""
    code = (
        "import sys, montecarlo as mc; heavy = ('numpy', 'pandas', 'scipy', 'polars', 'matplotlib');"
        "print(sorted(m for m in heavy if m in sys.modules)); mc.odds; print('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split("\n")[:2] == ["[]", "True"]


def test_dune1984_duel_exact_to_six_places_and_estimate_within_its_error():
    duel = mc.odds("dune1984", attacker=4, defender=5, trials=50_000, seed=7)
    assert round(duel.exact["attacker_win"], 6) == 0.259712
    for name, exact in duel.exact.items():
        if exact is not None:
            assert abs(duel.estimate[name] - exact) <= 4.5 * duel.se[name] + 1e-9, name
    low, high = duel.ci["attacker_win"]
    assert low <= duel.estimate["attacker_win"] <= high


def test_odds_long_form_in_pandas_and_polars():
    duel = mc.odds("dune1984", attacker="Paul", defender=5, attacker_equipment=["sword"], trials=2_000)
    pdf, pldf = duel.to_pandas(), duel.to_polars()
    assert list(pdf.columns) == list(pldf.columns) == ["attacker", "defender", "attacker_equipment", *LONG]
    assert set(pdf["variant"]) == {"official"} and set(pdf["attacker_equipment"]) == {"sword"}
    assert pdf.shape[0] == len(duel) == len(duel.exact)
    row = pldf.filter(pldf["metric"] == "attacker_win").row(0, named=True)
    assert row["exact"] == duel.exact["attacker_win"] and row["trials"] == 2_000


def test_same_seed_same_numbers():
    a, b = (mc.odds("war-for-arrakis", attacker="3 regular", defender="2 regular", trials=3_000, seed=5)
            for _ in range(2))
    assert a.estimate == b.estimate


def test_war_for_arrakis_setup_in_the_cli_terms_matches_the_chain():
    battle = mc.odds("war-for-arrakis", attacker="4 regular, bashar", defender="3 regular", settlement=1,
                     trials=20_000, rules={"attack": "while_ahead"})
    assert battle.facts["rules"]["attack"] == "while_ahead"
    win = battle.estimate["attacker_win"]
    assert abs(win - battle.exact["attacker_win"]) <= 4.5 * battle.se["attacker_win"]


def test_a_battle_file_is_a_game():
    risk = mc.odds(ROOT / "scenarios/games/risk.toml", attackers=3, defenders=2, trials=5_000)
    assert battle_agrees(risk)
    assert risk.facts["game"] == "risk"


def battle_agrees(result: Result) -> bool:
    checked = [n for n, e in result.exact.items() if e is not None]
    assert checked
    return all(abs(result.estimate[n] - result.exact[n]) <= 4.5 * result.se[n] + 1e-9 for n in checked)


def test_table_sweeps_a_grid_and_pivots_to_the_cli_matrix():
    t = mc.table("dune1984", grid={"attacker": range(1, 4), "defender": [2, 5]}, trials=4_000,
                 metrics=["attacker_win"], attacker_equipment="sword")
    assert list(t.to_pandas().columns) == ["attacker", "defender", *LONG]
    cells = {(a, d, "official", "attacker_win") for a in (1, 2, 3) for d in (2, 5)}
    assert len(t) == 6 and set(t.exact) == cells
    wide = t.pivot("attacker_win", values="exact")
    assert list(wide.index) == [1, 2, 3] and list(wide.columns) == [2, 5]
    assert wide.loc[3, 5] == t.exact[(3, 5, "official", "attacker_win")]
    assert battle_agrees(t)
    with pytest.raises(InputError, match="pivot: unknown metric 'rounds'"):
        t.pivot("rounds")
    with pytest.raises(InputError, match=r"^table: give grid=, the swept setup fields and their values"):
        mc.table("dune1984", trials=1_000)  # a bare TypeError before


def test_compare_house_rule_differences_against_exact_differences():
    house = mc.compare("war-for-arrakis", variants="continue_always_costs", attacker="4 regular, bashar",
                       defender="3 regular", metrics="attacker_win", trials=20_000)
    assert house.facts["variants"] == ["official", "continue_always_costs"]
    diff = house.differences
    assert diff is not None and list(diff.to_pandas().columns)[:3] == ["variant", "baseline", "metric"]
    d = diff.to_polars().row(0, named=True)
    assert d["exact_difference"] == pytest.approx(house.exact[("continue_always_costs", "attacker_win")]
                                                  - house.exact[("official", "attacker_win")])
    assert abs(d["difference"] - d["exact_difference"]) <= 4.5 * d["se"]
    assert d["significant"] is True


def test_compare_runs_a_scenario_file_with_fewer_trials():
    result = mc.compare(ROOT / "scenarios/imperium/tie-variants.toml", trials=500, metrics="tie_first")
    assert set(result.to_pandas()["metric"]) == {"tie_first"}
    assert result.facts["trials"] == 500 and result.differences is not None
    with pytest.raises(InputError, match="belong in the scenario file"):
        mc.compare(ROOT / "scenarios/imperium/tie-variants.toml", players=3)


def test_a_scheduler_alone_selects_dask_and_a_bad_one_is_refused_before_any_run(tmp_path, monkeypatch):
    import montecarlo.scenarios as scenarios

    seen = {}

    def fake_run(sc, **kwargs):
        seen.update(kwargs)
        raise InputError("stopped before running")

    monkeypatch.setattr(scenarios, "run_scenario", fake_run)
    file = ROOT / "scenarios/imperium/tie-variants.toml"
    for call in (mc.compare, lambda f, **kw: mc.report(f, out=tmp_path / "r", **kw)):
        for backend, scheduler, chosen in ((None, "tcp://10.0.0.1:8786", "dask"), (None, None, "loky"),
                                          ("threading", None, "threading")):
            with pytest.raises(InputError, match="stopped before running"):
                call(file, backend=backend, scheduler=scheduler)
            assert (seen["backend"], seen["scheduler"]) == (chosen, scheduler)
    monkeypatch.undo()
    with pytest.raises(InputError, match="^scheduler must be a Dask scheduler address .* got 'tcp://x:1:2'$"):
        mc.compare(file, scheduler="tcp://x:1:2")
    with pytest.raises(InputError, match="^backend must be dask with a scheduler .* got 'loky'$"):
        mc.report(file, out=tmp_path / "r", backend="loky", scheduler="tcp://10.0.0.1:8786")
    assert not (tmp_path / "r").exists()


def test_report_writes_a_folder_and_never_overwrites_a_users_one(tmp_path):
    scenario = {
        "name": "api-report", "game": "dune1984", "seed": 1, "trials": 1_000, "metrics": ["attacker_win"],
        "grid": {"attacker": [2, 3], "defender": [3]},
    }
    result = mc.report(scenario, out=tmp_path / "out")
    assert (tmp_path / "out" / "index.html").is_file() and result.path == tmp_path / "out"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(InputError, match="^out: "):
        mc.report(scenario, out=mine)
    assert (mine / "notes.txt").read_text() == "keep me"


def test_report_takes_trials_and_seed_as_the_cli_does(tmp_path):
    """mc.report(FILE, trials=...) was a TypeError where `montecarlo report FILE -n` works."""
    path = ROOT / "scenarios" / "dune1984" / "duel-matrix.toml"
    got = mc.report(path, out=tmp_path / "few", trials=2_000, seed=7)
    facts = json.loads((tmp_path / "few" / "report.json").read_text())
    assert (facts["trials"], facts["seed"]) == (2_000, 7) and got.facts["seed"] == 7
    ties = ROOT / "scenarios" / "imperium" / "tie-variants.toml"  # variants to compare: one trial is refused
    with pytest.raises(InputError, match=r"^trials=1 for .*tie-variants\.toml: comparing variants needs"):
        mc.report(ties, out=tmp_path / "one", trials=1)
    with pytest.raises(InputError, match="^trials must be a positive integer, got -5$"):
        mc.report(path, out=tmp_path / "neg", trials=-5)
    assert not (tmp_path / "one").exists() and not (tmp_path / "neg").exists()


def test_report_default_folder_never_replaces_another_games_report(tmp_path, monkeypatch):
    """reports/<name> is shared by every game: mc.report refuses it as montecarlo report does."""
    monkeypatch.chdir(tmp_path)
    theirs = tmp_path / "reports" / "shared-name"
    theirs.mkdir(parents=True)
    (theirs / "report.json").write_text('{"game": "imperium", "file": "x.toml"}')
    scenario = {"name": "shared-name", "game": "dune1984", "seed": 1, "trials": 100,
                "setup": {"attacker": 3, "defender": 3}, "metrics": ["attacker_win"]}
    with pytest.raises(InputError, match="^scenario: name: reports/shared-name holds the imperium report of "
                                         "x.toml.* or give out$"):
        mc.report(scenario)
    assert (theirs / "report.json").read_text() == '{"game": "imperium", "file": "x.toml"}'
    (theirs / "report.json").write_text('{"game": "imperium", "file": null}')  # data, as mc.report writes it
    with pytest.raises(InputError, match="holds the imperium report of a scenario without a file "):
        mc.report(scenario)


def test_display_forms():
    duel = mc.odds("dune1984", attacker=4, defender=5, trials=1_000)
    text = repr(duel)
    assert text.startswith("dune1984 duel: attacker=4, defender=5")
    assert "attacker_win" in text and "1,000 trials, seed" in text
    page = duel._repr_html_()
    assert page.startswith("<div><table>") and "<td>attacker_win</td>" in page


def test_games_is_the_package_and_the_catalogue():
    from montecarlo import games

    assert games is mc.games and callable(mc.games)
    catalogue = mc.games()
    battle = catalogue["war-for-arrakis"].questions["battle"]
    fields = {f.name: f for f in battle.setup}
    assert fields["attacker"].required and "legion" in fields["attacker"].help
    assert fields["settlement"].default == 0
    assert "continue_always_costs" in catalogue["war-for-arrakis"].variants
    risk = str(ROOT / "scenarios/games/risk.toml")
    assert mc.games(risk)[risk].name == "risk"
    assert "question duel (default)" in repr(catalogue)


def test_games_says_which_questions_each_variant_changes():
    """A question lists the variants that can change it; a variant's line names its questions
    where it leaves some unchanged (a Guile-roll rule changes duels and fights through Poison)."""
    catalogue = mc.games()
    dune = catalogue["dune1984"]
    assert dune.questions["reach"].variants == ()
    assert dune.questions["guile"].variants == ("guile_check_d8", "guile_check_2d6")
    assert "best_play" in dune.questions["fight"].variants
    assert "best_play" not in dune.questions["duel"].variants
    assert dune.changed_by("guile_check_d8") == ("duel", "fight", "guile")
    assert dune.variant_line("fight_to_last").endswith("(changes: fight)")
    imperium = catalogue["imperium"]  # one question: every variant changes it, said by no list
    assert "changes:" not in imperium.variant_line("no_third_reward")
    assert "variant fight_to_last: multi-character" in repr(catalogue)
    for name in ("nosuch", "choam_ban"):  # made up, or another game's
        with pytest.raises(mc.InputError, match=f"^unknown variant '{name}' for dune1984; known: gom_counts"):
            dune.changed_by(name)
        with pytest.raises(mc.InputError, match=f"^unknown variant '{name}' for dune1984"):
            dune.variant_line(name)


def test_games_lists_exactly_the_values_each_question_accepts():
    """Every value a setup's parser reads is listed (card counts, an enemy's die, Imperium's
    players), and nothing it refuses (the character a guile check fills in itself); the parser's
    own 'known:' list is the independent side."""
    from montecarlo.registry import get_game, list_games

    catalogue = mc.games()
    for name in list_games():
        for question_name, question in get_game(name).questions.items():
            with pytest.raises(mc.InputError) as refused:
                question.setup({**question.example, "no_such_value": 1})
            known = set(str(refused.value).split("known: ")[1].split(", "))
            listed = {f.name for f in catalogue[name].questions[question_name].setup}
            assert listed == known, (name, question_name)
    combat = {f.name: f for f in catalogue["dustrunners"].questions["combat"].setup}
    assert "die value" in combat["enemy_die"].help and not combat["card_counts"].required
    players = {f.name: f for f in catalogue["imperium"].questions["conflict"].setup}["players"]
    assert "2-4" in players.help
    three = mc.odds("imperium", troops="2", players=3, trials=200)
    assert three.raw.setup.players == 3 and three.estimate["seat3_first"] > 0


def test_games_says_which_fields_a_setup_needs_and_what_each_means(tmp_path):
    """Imperium's revealed and intrigue were listed as required (3 and 0 by default), so were a
    Dustrunners deck (the 12-card one by default) and health (a vehicle's); Imperium's fields
    had no help, two Dustrunners fields each other's, some read ":class:`DuelSetup`", and a
    battle file's fields said "<class 'int'>" and nothing."""
    catalogue = mc.games(ROOT / "scenarios" / "games" / "risk.toml")
    conflict = {f.name: f for f in catalogue["imperium"].questions["conflict"].setup}
    assert [n for n, f in conflict.items() if f.required] == ["troops"]
    assert "one entry per seat" in conflict["troops"].help and "default 3" in conflict["revealed"].help
    combat = {f.name: f for f in catalogue["dustrunners"].questions["combat"].setup}
    assert not combat["deck"].required and not combat["health"].required and combat["enemy"].required
    campaign = {f.name: f for f in catalogue["dustrunners"].questions["campaign"].setup}
    assert campaign["policy"].help == "as in a single combat." and "first" in campaign["exploration"].help
    # its default is the starting health, which the parser fills: no "default 0" beside that help
    assert campaign["max_health"].default is None and "starting health" in campaign["max_health"].help
    assert campaign["policy"].default == "all_in" and campaign["fights"].default == 5
    duel = {f.name: f for f in catalogue["dune1984"].questions["duel"].setup}
    assert duel["attacker"].required and duel["defender"].required
    assert not duel["attacker_equipment"].required
    every = [(g, q, f) for g, game in catalogue.items() for q, info in game.questions.items()
             for f in info.setup]
    assert not [f.name for _, _, f in every if ":class:" in f.help or ":attr:" in f.help]
    assert not [f.name for _, _, f in every if "<class" in f.type]
    assert not [(g, q, f.name) for g, q, f in every if not f.help]
    battle = catalogue[str(ROOT / "scenarios" / "games" / "risk.toml")].questions["battle"]
    risk = {f.name: f for f in battle.setup}
    assert risk["defenders"].type == "int"
    assert risk["defenders"].help == "armies defending the territory (1..100)"
    assert risk["attackers"].required and risk["defenders"].required
    assert catalogue["risk"] is catalogue[str(ROOT / "scenarios" / "games" / "risk.toml")]  # by its name too
    assert "risk" in catalogue and catalogue.get("risk") is catalogue["risk"] and "nope" not in catalogue
    assert catalogue.get("nope") is None and catalogue.get("nope", 1) == 1
    with pytest.raises(KeyError, match="'nope': no such game in this catalogue; it holds dune1984, "):
        catalogue["nope"]
    listing = repr(catalogue)
    assert "    revealed (optional): cards revealed" in listing and "    troops (required): " in listing


def test_odds_shows_only_the_metrics_that_apply():
    """A 3-player conflict has no seat 4 and, without a conflict card, no points; a combat with
    no objective has no objective metric: the CLI leaves them out, and so does the API (it showed
    seat 4 at 0.0000 with an interval, as if a fourth player never placed)."""
    three = mc.odds("imperium", troops="2,2,2", trials=200)
    metrics = {row["metric"] for row in three.rows}
    assert "seat3_first" in metrics
    assert not any(m.startswith("seat4") or m.endswith("_points") for m in metrics)
    assert "seat4_first" in three.raw.metrics  # the answer itself keeps every tally
    combat = mc.odds("dustrunners", enemy="war-rig", vehicle="scout", trials=200)
    assert "player_win" in combat.estimate and "objective" not in combat.estimate
    kept = mc.odds("dustrunners", enemy="war-rig", vehicle="scout", objective="keep:2", trials=200)
    assert "objective" in kept.estimate


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mc.odds("chess"), "unknown game 'chess'; known: "),
        (lambda: mc.odds("dune1984", attacker=4, defender=5, trials=0), "trials must be a positive integer"),
        (lambda: mc.odds("dune1984", attacker=4, defender=5, variants=["nope"]), "unknown variant 'nope'"),
        (lambda: mc.odds("dune1984", "nope"), "unknown question 'nope' for dune1984"),
        (lambda: mc.table("dune1984", grid={"attacker": [1, 9]}, defender=2), "grid point attacker=9"),
        (lambda: mc.compare("dune1984", attacker=3, defender=2), "give variants="),
        (lambda: mc.report("dune1984"), "expected a scenario file"),
        # a misspelt field is named, not the field it was meant to be reported missing
        (lambda: mc.odds("dune1984", atacker=4, defender=5), "unknown field(s) atacker"),
        (lambda: mc.odds("war-for-arrakis", "storm", legion="2 regular", terain="desert"), "terain"),
        (lambda: mc.odds("dune1984", defender=5), "attacker is required (a Strength 1..6"),
    ],
)
def test_errors_are_one_line_input_errors(call, message):
    with pytest.raises(InputError) as err:
        call()
    assert message in str(err.value) and "\n" not in str(err.value)
    assert isinstance(err.value, MonteCarloError)


def test_a_display_leaves_out_the_values_a_setup_cannot_reach_and_names_them():
    """A storm on 3 units listed hits=5..12 and survivors=4..6 as rows of 0.0000, pushing real rows
    off the display; the frames keep every row."""
    storm = mc.odds("war-for-arrakis", "storm", legion="2 regular, 1 sardaukar", terrain="deep_desert",
                    trials=2_000)
    text = repr(storm)
    assert "hits=5 " not in text and "hits=4 " in text and "survivors=3 " in text
    said = "left out, as this setup cannot reach them (exact 0, none drawn): hits=5–12, survivors=4–6"
    assert said in text
    assert "hits=12" in set(storm.to_pandas().metric)
    assert "<p>left out, as this setup cannot reach them" in storm._repr_html_()
    legions = {"legion": ["1 regular", "4 regular"]}
    grid = mc.table("war-for-arrakis", "storm", grid=legions, terrain="deep_desert", trials=1_000)
    said = "left out, where a setup cannot reach them (exact 0, none drawn): hits=5–12, survivors=2–6"
    assert said in repr(grid) and "4 regular  survivors=2 " in repr(grid)
    duel = mc.odds("dune1984", attacker=4, defender=5, trials=1_000)
    assert repr(duel).splitlines()[-2].endswith(": winner_strength=6, winner_strength_after=1")
    assert "left out" not in repr(mc.odds("imperium", troops="2,1", trials=1_000))  # no distribution
    both = mc.compare("war-for-arrakis", "storm", variants="rulebook_storm_dice", legion="2 regular",
                      terrain="deep_desert", trials=1_000)
    said = repr(both.differences)
    neither = "left out, as neither arm drew them and their exact difference is 0: hits=5–12, survivors=3–6"
    assert neither in said
    assert "hits=4 " in said and "hits=5 " not in said and len(both.differences.to_pandas()) > 20


def test_the_errors_are_the_packages_own_under_mc():
    """docs/api.md names ScenarioError beside InputError, and mc had only the two others."""
    assert mc.InputError is InputError and mc.MonteCarloError is MonteCarloError
    assert mc.ScenarioError is ScenarioError
    assert {"InputError", "MonteCarloError", "ScenarioError"} <= set(dir(mc))


@pytest.mark.parametrize("kwargs, message", [
    (dict(game="dune1984", attacker=1, defender=1, variants=["best_play"]),
     "best play: the attacker fights with one character, so there is no choice of who takes the damage"),
    (dict(game="dune1984", question="fight", attacker=[2, 2], defender=[4], variants=["defender_best_play"]),
     "best play: the defender fights with one character, so there is no choice of who takes the damage"),
    (dict(game="war-for-arrakis", attacker="3 regular", defender="", settlement=1, rules={"attack": "best"}),
     "best play: an undefended settlement falls without a roll, so there is no decision to make"),
    # one regular each in a settlement: the attacker loses its only unit or wins in the first round,
    # or pays it for the next; no leader either (best play ran, as the fixed policy's odds)
    (dict(game="war-for-arrakis", attacker="1 regular", defender="1 regular", settlement=1,
          rules={"attack": "best"}),
     "best play: every battle ends in its first round or cannot go on, and which leaders turn the "
     "Specials is never a choice, so there is no decision to make"),
    (dict(game="war-for-arrakis", attacker="1 regular", defender="1 regular", settlement=1,
          rules={"retreat": "best"}),
     "best play: every battle ends in its first round or cannot go on, and which leaders turn the "
     "Specials is never a choice, so there is no decision to make"),
])
def test_best_play_with_nothing_to_choose_is_refused_for_one_setup_as_the_cli_refuses_it(kwargs, message):
    """``odds`` of one setup under best play where the deciding side has no choice: the CLI's line,
    before any run; a setup with a choice is answered, and a grid keeps such cells (the fixed
    policy's odds)."""
    with pytest.raises(InputError) as err:
        mc.odds(trials=100, **kwargs)
    assert str(err.value) == message
    variants = kwargs.pop("variants", ["official"])
    with pytest.raises(InputError) as err:  # a comparison of one setup checks each arm the same
        mc.compare(kwargs.pop("game"), trials=100, variants=variants, **kwargs)
    assert str(err.value).startswith("compare: variants.") and str(err.value).endswith(f": {message}")
    fight = mc.odds("dune1984", "fight", attacker=[3, 2], defender=[4], variants=["best_play"], trials=100)
    assert fight.facts["variants"] == ["best_play"]
    for small in ("2 regular", "1 regular, Shaddam IV, Thufir"):  # a second round, or a choice of leaders
        battle = mc.odds("war-for-arrakis", attacker=small, defender="1 regular", settlement=1,
                         rules={"attack": "best"}, trials=100)
        assert 0 < battle.exact["attacker_win"] < 1
    with pytest.warns(mc.Caution, match="^variant 'best_play' changes nothing in duel"):  # nobody to choose
        table = mc.table("dune1984", grid={"attacker": [1, 2]}, defender=1, variants=["best_play"],
                         trials=100)
    assert {row["attacker"] for row in table.rows} == {1, 2}


def test_an_invalid_scenario_is_a_scenario_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "dune1984"\nseed = 1\n[grid]\nattacker = 3\n')
    with pytest.raises(ScenarioError, match="grid.attacker: expected a list"):
        mc.compare(bad)


def test_the_api_error_is_the_cli_error():
    """Same mistake, same line: the CLI prints ``error: <the exception's message>``, naming the flag
    the user typed (``--attacker``) where the API names the keyword (``attacker``)."""
    cli = subprocess.run(
        [sys.executable, "-m", "montecarlo", "odds", "dune1984", "-a", "9", "-d", "5"],
        capture_output=True, text=True, cwd=ROOT,
    )
    with pytest.raises(InputError) as err:
        mc.odds("dune1984", attacker=9, defender=5)
    assert str(err.value).startswith("attacker must be")
    assert cli.returncode == 2 and cli.stderr.strip() == f"error: --{err.value}"


def test_policy_is_a_setup_keyword_where_the_setup_has_one():
    """Dustrunners' ammo policy is a setup field (War for Arrakis policies are rules: ``rules=``)."""
    fixed = mc.odds("dustrunners", enemy="war-rig", health=6, ammo=3, policy="fixed:1", trials=2_000)
    assert fixed.facts["setup"]["policy"] == "fixed:1"
    with pytest.raises(InputError, match="unknown field\\(s\\) policy"):
        mc.odds("war-for-arrakis", attacker="3 regular", defender="2 regular", policy="while_ahead")


def test_precision_adds_trials_until_every_interval_is_narrow_enough():
    duel = mc.odds("dune1984", attacker=3, defender=3, trials=2_000, precision=0.01)
    widest = max((high - low) / 2 for name, (low, high) in duel.ci.items()
                 if duel.raw.metrics[name].kind != "mean")
    assert widest <= 0.01 and duel.raw.trials > 2_000 and duel.facts["trials"] == 2_000  # the first batch
    answer = duel.raw
    assert answer.precision_reached() is True
    at_it = dataclasses.replace(answer, precision=answer.widest_half_width())  # exactly as wide as asked
    assert at_it.precision_reached() is True
    assert dataclasses.replace(answer, precision=answer.widest_half_width() / 2).precision_reached() is False
    assert dataclasses.replace(answer, precision=None).precision_reached() is None
    assert duel.facts["precision_reached"] is True and "NOT reached" not in repr(duel)


def test_a_precision_the_trial_cap_stopped_is_said_as_in_the_cli():
    duel = mc.odds("dune1984", attacker=4, defender=5, precision=0.01, trials=100, max_trials=200)
    assert duel.facts["precision_reached"] is False
    assert "(precision ±0.01 NOT reached: raise max_trials)" in repr(duel).splitlines()[-1]
    variants = {"official": {}, "flat": "no_strength_gain"}
    compared = mc.compare("dune1984", "duel", grid={"attacker": [2]}, defender=3, variants=variants,
                          precision=0.005, trials=500, max_trials=1_000)
    assert compared.facts["precision_reached"] is False and "NOT reached" in repr(compared)


def test_a_precision_run_says_the_trials_that_ran_not_its_first_batch():
    variants = {"official": {}, "flat": "no_strength_gain"}
    compared = mc.compare("dune1984", "duel", grid={"attacker": [2]}, defender=3, variants=variants,
                          precision=0.02, trials=500, max_trials=4_000)
    ran = {row["trials"] for row in compared.rows}
    assert min(ran) > 500 and f"{min(ran):,}" in compared._caption()


# --- wrong types and values: an InputError before any work (found by an audit of the API) -------


def _no_work(monkeypatch):
    from montecarlo.engine import runner

    def never(*args, **kwargs):
        raise AssertionError("simulated before refusing")

    monkeypatch.setattr(runner, "run_grid", never)


GUILE = str(ROOT / "scenarios" / "dune1984" / "guile-survival.toml")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mc.odds("dune1984", attacker=4, defender=5, variants=["ties_favour_defender"] * 2),
         "variants: 'ties_favour_defender' is given twice; name each house rule once"),
        (lambda: mc.table("dune1984", grid={"attacker": [3, 4]}, defender=5,
                          variants=["ties_favour_defender", "ties_favour_defender"]),
         "variants: 'ties_favour_defender' is given twice"),
        (lambda: mc.compare("dune1984", grid={"attacker": [3, 4]}, defender=5,
                            variants={"a": {}, 5: "ties_favour_defender"}),
         "variants: a variant's name must be a non-empty text, got 5"),
        (lambda: mc.compare("dune1984", grid={"attacker": [3, 4]}, defender=5,
                            variants={"a": {}, " ": "ties_favour_defender"}),
         "variants: a variant's name must be a non-empty text, got ' '"),
        (lambda: mc.odds("dune1984", attacker=4, defender=5, rules={1: 2}),
         "unknown rule field(s) 1"),
        (lambda: mc.odds("dune1984", ["duel"], attacker=4, defender=5),
         "question must be a question's name (or None for 'duel'), got ['duel']"),
        (lambda: mc.odds("dune1984", "", attacker=4, defender=5),
         "question must be a question's name (or None for 'duel'), got ''"),
        (lambda: mc.report(GUILE, out=5), "out must be a folder's path (a str or pathlib.Path), got 5"),
        (lambda: mc.report(GUILE, out=b"here"), "out must be a folder's path"),
        (lambda: mc.report(GUILE, out="unused-out", command=5), "report: command must be the text"),
        (lambda: mc.report(GUILE, out="unused-out", checkpoint=5), "checkpoint must be a path"),
        (lambda: mc.compare(GUILE, checkpoint=5), "checkpoint must be a file's path"),
        (lambda: mc.compare(GUILE, progress=5), "progress must be True (a bar), False or a function"),
        (lambda: mc.games(5), "games: a battle file must be a path"),
        (lambda: mc.compare(GUILE, progress=lambda: None),
         "progress must be a function progress(done, total)"),
        (lambda: mc.odds("dustrunners", enemy="spybot", vehicle="scout", deck="d" * 300 + ".toml"),
         "cannot be used (File name too long); give another deck file"),
        (lambda: mc.odds("dustrunners", "road", vehicle="scout", exploration_deck="e" * 300 + ".toml"),
         "cannot be used (File name too long); give another deck file"),
        (lambda: mc.report(GUILE, out="unused-out", baseline="nope"),
         "baseline: unknown variant 'nope'; known:"),
    ],
)
def test_wrong_types_are_one_line_input_errors_before_any_work(monkeypatch, tmp_path, call, message):
    monkeypatch.chdir(tmp_path)
    _no_work(monkeypatch)
    with pytest.raises(InputError) as err:
        call()
    assert message in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_pivot_of_an_unknown_kind_of_value_is_an_input_error():
    result = mc.table("dune1984", grid={"attacker": [3, 4], "defender": [4, 5]}, trials=500)
    with pytest.raises(InputError, match=r"pivot: unknown metric \['attacker_win'\]"):
        result.pivot(["attacker_win"])


def test_numpy_numbers_in_scenario_data_and_jobs_are_python_numbers_to_the_report(tmp_path):
    """Both ran the whole scenario and then failed: a TypeError writing report.json (an int64 of
    the grid) and one in the report's header ("s" * (jobs != 1) with jobs an int64)."""
    import numpy as np

    data = dict(name="np", game="dune1984", question="duel", seed=np.int64(3), trials=np.int64(300),
                setup={"defender": np.int64(5)}, grid={"attacker": np.array([3, 4])},
                variants={"official": {}, "t": {"builtin": ["ties_favour_defender"]}})
    written = mc.report(data, out=tmp_path / "r", jobs=np.int64(1))
    assert written.facts["seed"] == 3 and (tmp_path / "r" / "report.json").is_file()
    assert sorted({r["attacker"] for r in written.rows}) == [3, 4]


# ---------------------------------------------------------------- advice


def test_advise_gives_each_games_own_advice_in_rows():
    """mc.advise is the games' advice as rows: the same values, best play's option marked."""
    from montecarlo.games.dune1984.advice import advise as fight_advice
    from montecarlo.games.dune1984.fights import FightSetup
    from montecarlo.games.dune1984.rules import Rules as DuneRules

    readings = ["fight_to_last", "set_aside_die"]
    fight = mc.advise("dune1984", attacker="4,3,2", defender=[5, 4], variants=readings)
    own = fight_advice(DuneRules(fight_to_last=True, set_aside_die=True), FightSetup([4, 3, 2], [5, 4]))
    assert fight.value == own.value and fight.fixed == {"weakest_first": own.weakest_first,
                                                       "strongest_first": own.strongest_first}
    assert len(fight) == sum(len(d.values) for d in own.decisions)
    values = sorted(v for d in own.decisions for v in d.values.values())
    assert sorted(r["value"] for r in fight.rows) == values
    assert fight.best["at the start"] == "character 3 (Strength 2)"
    assert list(fight.to_pandas().columns) == ["situation", "option", "value", "best"]
    assert fight.notes == (f"{own.alike} choices where every character left is as good left out",)
    defender = mc.advise("dune1984", attacker=3, defender="Paul,Duke Leto", side="defender",
                         attacker_equipment="poison")
    assert defender.objective == "P(defender wins)" and defender.facts["inputs"] == {"side": "defender"}


def test_advise_war_for_arrakis_and_dustrunners():
    from montecarlo.games.dustrunners.combat import advise as ammo_advice
    from montecarlo.games.war_for_arrakis.battle import BattleSetup, advise as battle_advice, exact_battle
    from montecarlo.games.war_for_arrakis.rules import Rules as WfaRules

    legions = {"attacker": "3 regular, Baron Harkonnen, Beast Rabban", "defender": "2 regular, Stilgar"}
    battle = mc.advise("war-for-arrakis", **legions, settlement=1, objective="trade:2")
    setup = BattleSetup(legions["attacker"], legions["defender"], 1, objective="trade:2")
    own = battle_advice(WfaRules(), setup)
    assert battle.value == pytest.approx(exact_battle(WfaRules(attack="best"), setup)["objective"], abs=1e-12)
    assert battle.fixed == {"until_destroyed": own.fixed} and battle.objective == "expected trade:2"
    shown = [d for d in own.continue_or_retreat] + [d for d in own.specials]
    assert len(battle) == sum(len(d.values) for d in shown)
    assert sum(r["best"] for r in battle.rows) == len(shown)
    assert any(r["situation"].startswith("Specials") for r in battle.rows) == bool(own.specials)

    combat = mc.advise("dustrunners", enemy="road-raiders", enemy_health=4, vehicle="interceptor", ammo=3,
                       seen="double tap")
    game = mc.games()["dustrunners"].questions["combat"]
    assert game.gives_advice and set(game.advise_inputs) == {"enemy_health", "seen"}
    values = {"enemy": "road-raiders", "vehicle": "interceptor", "ammo": 3, "deck": "illustrative-12"}
    setup = mc.api.checked_setups("dustrunners", "combat", [values])[0]
    from montecarlo.games.dustrunners.rules import Rules as DustRules

    own_ammo = ammo_advice(DustRules(), setup, 4, "double tap")
    assert [(r["option"], r["value"]) for r in combat.rows] == [(f"{k} ammo", v) for k, v in own_ammo.options]
    assert combat.best == {combat.rows[0]["situation"]: f"{own_ammo.best} ammo"}


@pytest.mark.parametrize(
    "call, message",
    [
        ({"game": "imperium"}, "imperium gives no advice"),
        ({"game": "dune1984", "question": "duel", "attacker": 4, "defender": 3}, "duel gives no advice"),
        ({"game": "dune1984", "attacker": 4, "defender": "3,1"}, "the attacker fights with one character"),
        ({"game": "dune1984", "attacker": "4,1", "defender": 3, "side": "both"}, "side must be attacker or"),
        ({"game": "dune1984", "attacker": "4,1", "defender": 3, "variants": "best_play"}, "designation best"),
        ({"game": "dune1984", "attacker": "4,1", "defender": 3, "colour": "red"}, "unknown field"),
        ({"game": "war-for-arrakis", "attacker": "3 regular", "defender": "2 regular",
          "rules": {"retreat": "best"}}, "retreat best"),
        ({"game": "war-for-arrakis", "attacker": "3 regular", "defender": "2 regular",
          "variants": "while_ahead"}, "attack while_ahead"),
        ({"game": "dustrunners", "enemy": "road-raiders", "vehicle": "interceptor"}, "needs enemy_health"),
        ({"game": "dustrunners", "enemy": "war-rig", "vehicle": "scout", "enemy_health": 4,
          "policy": "all_in"}, "ammo policy all_in"),
        ({"game": "dustrunners", "enemy": "war-rig", "vehicle": "scout", "enemy_health": 4,
          "rules": {"ammo_policy": "fixed:1"}}, "ammo policy fixed:1"),
        ({"game": "dustrunners", "enemy": "war-rig", "vehicle": "scout", "enemy_health": 4, "seen": 3},
         "seen: give card names"),
        ({"game": "dune1984", "attacker": "4,1", "defender": 3, "trials": 1000}, "advice is exact"),
    ],
)
def test_advise_refuses_with_one_line(call, message):
    with pytest.raises(InputError, match=message):
        mc.advise(**call)


def test_advice_marks_options_as_good_as_best_plays_and_says_when_nothing_matters():
    tie = mc.advise("dune1984", attacker="Duke Leto,3,1", defender=4)  # Guile matters only against Poison
    lines = repr(tie).splitlines()
    assert lines[3].startswith("  * Duke Leto Atreides (Strength 3)")
    assert lines[4].startswith("    character 2 (Strength 3)") and lines[4].endswith("(as good)")
    assert not lines[5].endswith("(as good)") and "<td>as good</td>" in tie._repr_html_()
    nothing = mc.advise("dune1984", attacker="2,1,3", defender="2,2", variants="fight_to_last")
    assert len(nothing) == 0 and "no choice matters" in repr(nothing)
    assert "no choice matters" in nothing._repr_html_()


def test_a_notebooks_arrays_and_series_are_setup_lists_in_every_game():
    import numpy as np
    import pandas as pd

    plain = mc.odds("imperium", troops=[3, 2, 2, 1], trials=500)
    for given in (np.array([3, 2, 2, 1]), pd.Series([3, 2, 2, 1])):
        assert mc.odds("imperium", troops=given, trials=500).rows == plain.rows


def test_characters_of_one_house_on_opposite_sides_are_a_python_warning_as_on_the_command_line():
    """The CLI warns on stderr that one player owns both; the API said nothing."""
    with pytest.warns(UserWarning, match="Paul Atreides and Duke Leto Atreides are both Red characters"):
        mc.odds("dune1984", attacker="Paul", defender="Leto", trials=100)
    with pytest.warns(UserWarning, match="one player's"):
        mc.advise("dune1984", attacker=["Paul", "Chani"], defender=["Leto"], side="attacker")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mc.odds("dune1984", attacker="Paul", defender="Feyd", trials=100)


def test_a_variant_that_sets_no_rule_of_the_question_is_a_python_warning_as_the_clis_note():
    """variants="fight_to_last" on a duel (nobody next): its numbers are the official rules', which
    the CLI says in a note and the API said nowhere; a variant the duel uses warns of nothing."""
    import warnings

    with pytest.warns(mc.Caution, match="^variant 'fight_to_last' changes nothing in duel: it sets no rule"):
        outside = mc.odds("dune1984", attacker=4, defender=5, variants=["fight_to_last"], trials=100)
    # and table, compare and advise, as the CLI's table, compare GAME and advise say it
    with pytest.warns(mc.Caution, match="^variant 'fight_to_last' changes nothing in duel"):
        mc.table("dune1984", grid={"attacker": [3, 4]}, defender=3, variants=["fight_to_last"], trials=100)
    with pytest.warns(mc.Caution, match="^variant 'fight_to_last' changes nothing in duel"):
        mc.compare("dune1984", variants="fight_to_last", attacker=4, defender=5, trials=100)
    with pytest.warns(mc.Caution, match="^variant 'rulebook_storm_dice' changes nothing in battle"):
        mc.advise("war-for-arrakis", attacker="3 regular", defender="2 regular",
                  variants=["rulebook_storm_dice"])
    assert outside.estimate == mc.odds("dune1984", attacker=4, defender=5, trials=100).estimate
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mc.odds("dune1984", attacker=4, defender=5, variants=["no_strength_gain"], trials=100)
        risk = str(ROOT / "scenarios/games/risk.toml")
        mc.odds(risk, attackers=3, defenders=3, variants=["defender_three_dice"], trials=100)


def test_variants_none_is_no_variant_as_when_left_out():
    """`variants=None` (a notebook's default passed on) was refused as not a name or list."""
    assert mc.odds("dune1984", attacker=4, defender=5, variants=None, trials=100).facts["variants"] == []
    assert mc.table("dune1984", grid={"attacker": [1, 2]}, defender=3, variants=None,
                    trials=100).facts["variants"] == ["official"]


def test_a_precision_run_grows_in_steps_of_its_first_batch():
    """trials is the first batch: a run of -n 1,000 stopped after 131,072 trials (one whole chunk
    of the default size), 6.5 times what -n 20,000 needed for the same precision."""
    small = mc.odds("dune1984", attacker=4, defender=5, trials=1_000, precision=0.02, seed=3)
    ran = small.raw.trials
    assert ran % 1_000 == 0 and 1_000 < ran < 10_000 and small.facts["precision_reached"]


def test_facts_rerun_a_precision_run_to_the_same_numbers():
    """facts hold what was asked (the first batch, the cap), not what ran: passed back, they give
    the same numbers; before, trials was what ran and max_trials was missing (900,000 trials)."""
    first = mc.odds("dune1984", attacker=4, defender=5, trials=2_000, precision=0.002, max_trials=20_000)
    f = first.facts
    again = mc.odds("dune1984", attacker=4, defender=5, trials=f["trials"], seed=f["seed"],
                    precision=f["precision"], max_trials=f["max_trials"])
    assert (f["trials"], f["max_trials"], first.raw.trials) == (2_000, 20_000, 20_000)
    assert again.estimate == first.estimate and again.raw.trials == first.raw.trials


def test_rule_overrides_are_named_in_the_variant_column_and_the_caption():
    plain = mc.odds("dune1984", attacker=4, defender=5, trials=1_000)
    house = mc.odds("dune1984", attacker=4, defender=5, trials=1_000,
                    rules={"max_dice": 2, "ties": "defender"})
    assert set(plain.to_pandas().variant) == {"official"} and plain.facts["overrides"] == {}
    assert set(house.to_pandas().variant) == {"official with max_dice=2, ties=defender"}
    assert "official rules with max_dice=2, ties=defender;" in repr(house).splitlines()[-1]
    assert house.facts["overrides"] == {"max_dice": 2, "ties": "defender"}
    grid = mc.table("dune1984", grid={"attacker": [3, 4]}, defender=5, trials=1_000, metrics="attacker_win",
                    variants="no_strength_gain", rules={"ties": "defender"})
    assert set(grid.to_pandas().variant) == {"no_strength_gain with ties=defender"}
    advice = mc.advise("dune1984", attacker=[5, 1, 1], defender=4, rules={"ties": "defender"})
    assert "; official rules with ties=defender;" in repr(advice).splitlines()[1]


def test_a_scenario_runs_facts_say_whether_its_precision_was_reached():
    compared = mc.compare("dune1984", variants="ties_favour_defender", attacker=4, defender=5, trials=1_000)
    assert compared.facts["precision_reached"] is None and compared.facts["max_trials"] is None


def test_an_odds_result_says_what_to_read_beside_its_numbers():
    """The notes the CLI prints: a made-up deck, why there is no exact value, rule readings."""
    road = mc.odds("dustrunners", enemy="war-rig", vehicle="scout", trials=1_000)
    assert [n.split(":")[0] for n in road.notes] == ["deck", "exact values"]
    assert "[ILLUSTRATIVE: not the published card list]" in road.notes[0]
    assert "the deck has 30 cards" in road.notes[1] and f"note: {road.notes[1]}" in repr(road)
    assert f"<p>note: {road.notes[0]}</p>" in road._repr_html_()
    battle = mc.odds("war-for-arrakis", attacker="4 regular", defender="3 regular", trials=1_000)
    assert battle.notes and all("exact" not in n for n in battle.notes)
    assert mc.odds("dune1984", attacker=4, defender=5, trials=1_000).notes == ()


def test_compare_checks_a_scenarios_metrics_as_metrics():
    """metrics= was checked by the variants' checker: 'name each house rule once', 'variants must
    be ...', and an empty list ran the whole scenario for an empty Result."""
    scenario = ROOT / "scenarios" / "imperium" / "tie-variants.toml"
    twice = "metrics: 'tie_first' is given twice; name each metric once"
    for metrics, said in ((["tie_first", "tie_first"], twice),
                          (5, "metrics must be a metric name or a list of names, got 5"),
                          ([], "metrics must be a metric name or a list of names, got []")):
        with pytest.raises(InputError) as err:
            mc.compare(scenario, metrics=metrics)
        assert str(err.value) == said


def test_seed_and_trials_complete_scenario_data_that_leaves_them_out():
    data = {"name": "tiny", "game": "dune1984", "setup": {"defender": 4}, "grid": {"attacker": [3, 4]},
            "variants": {"official": {}, "ties": {"builtin": ["ties_favour_defender"]}}}
    got = mc.compare(data, seed=3, trials=1_000, metrics="attacker_win")
    assert (got.facts["seed"], got.facts["trials"]) == (3, 1_000)
    with pytest.raises(InputError, match="^seed must be a non-negative integer, got -3$"):
        mc.compare({**data, "trials": 1_000}, seed=-3)
    with pytest.raises(ScenarioError, match=r"^scenario: seed: missing; add seed = <an integer>"):
        mc.compare(data, trials=1_000)  # data is named as such


def test_best_play_with_nothing_to_choose_is_refused_for_one_dustrunners_combat():
    with pytest.raises(InputError, match="^best play: with no ammo there is no choice of ammo to make"):
        mc.odds("dustrunners", enemy="war-rig", vehicle="scout", deck="illustrative-12", ammo=0,
                policy="best", trials=1_000)
    with pytest.raises(InputError, match="^best play unavailable because the deck has 30 cards"):
        mc.odds("dustrunners", enemy="war-rig", vehicle="scout", ammo=2, policy="best", trials=1_000)
    with pytest.raises(InputError, match="^best play: with no ammo and 1 VP, short of the 2 VP an initiati"):
        mc.odds("dustrunners", enemy="war-rig", vehicle="scout", deck="illustrative-12", ammo=0,
                redraw="initiative", vp=1, policy="best", trials=1_000)
    # one ammo to spend or not, or just the VP for one redraw: something to decide
    for more in (dict(ammo=1), dict(ammo=0, redraw="initiative", vp=2)):
        mc.odds("dustrunners", enemy="war-rig", vehicle="scout", deck="illustrative-12", policy="best",
                trials=1_000, **more)


def test_advise_names_its_own_default_question_when_the_question_is_no_name():
    said = r"^question must be a question's name \(or None for 'fight'\), got 5; advice: fight$"
    with pytest.raises(InputError, match=said):
        mc.advise("dune1984", 5, attacker=[5, 1], defender=4)


def test_a_grid_field_that_is_no_name_is_refused_in_words():
    """Before: 'grid point 1=1: sequence item 0: expected str instance, int found'."""
    with pytest.raises(InputError, match=r"^grid: a swept field is named by its name \(text\), got 1$"):
        mc.table("dune1984", grid={1: [1, 2]}, defender=5)


def test_numpy_numbers_serve_as_run_settings():
    """A notebook's np.float32 precision was refused ('must be a positive number'), np.float64 not."""
    got = mc.odds("dune1984", attacker=4, defender=5, trials=np.int32(1_000), precision=np.float32(0.05))
    assert type(got.facts["trials"]) is int and type(got.facts["precision"]) is float


def test_odds_says_where_metrics_belong_and_compare_names_an_unknown_game_first():
    with pytest.raises(InputError, match="^odds gives every metric of its setup; metrics= chooses those"):
        mc.odds("dune1984", attacker=4, defender=5, metrics="attacker_win")
    with pytest.raises(InputError, match="^unknown game '/path/nope'; known: dune1984"):
        mc.compare("/path/nope")  # before: "compare: give variants=", as if it were a game


def test_a_battle_files_setup_field_called_metrics_is_a_setup_field(tmp_path):
    battle = tmp_path / "m.toml"
    risk = (ROOT / "scenarios" / "games" / "risk.toml").read_text()
    battle.write_text(risk.replace("defenders", "metrics"))
    assert mc.odds(battle, attackers=3, metrics=2, trials=1_000).estimate["attacker_win"] > 0


@pytest.mark.parametrize("call, said", [
    (lambda **k: mc.odds("dune1984", attacker=4, defender=5, trials=10**13, **k),
     r"odds dune1984: about [\d.]+ (days|h) for 10,000,000,000,000 trials at this pace; "
     r"precision=0\.001 stops"),
    (lambda **k: mc.table("dune1984", grid={"attacker": [3, 4]}, defender=5, trials=10**12, **k),
     r"table dune1984: about [\d.]+ (days|h) for 2,000,000,000,000 trials at this pace"),
    (lambda **k: mc.compare("dune1984", variants="ties_favour_defender", attacker=4, defender=5,
                            trials=10**12, **k),
     r"compare dune1984: about [\d.]+ (days|h) for 1,000,000,000,000 trials at this pace"),
])
def test_a_run_of_days_warns_within_a_second_as_the_cli_estimates_it(call, said):
    """A trial count mistyped by a few zeros ran for days in a notebook with no word: the CLI's
    up-front estimate is now a Caution (turned into an error here, which stops the run)."""
    from montecarlo.errors import Caution

    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("error", Caution)
        with pytest.raises(Caution, match=said):
            call(jobs=1)
    assert time.perf_counter() - started < 30  # half a second of trials, then the projection
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", Caution)
        with pytest.raises(Enough):  # a function of one's own gets the numbers, and no warning
            call(jobs=1, progress=lambda done, total: seen.append(done) or (len(seen) > 3 and enough()))
    assert len(seen) == 4


def test_a_long_precision_run_warns_with_what_ends_it_sooner():
    from montecarlo.errors import Caution

    with warnings.catch_warnings():
        warnings.simplefilter("error", Caution)
        with pytest.raises(Caution, match=r"at this pace; a coarser precision or a lower max_trials ends"):
            mc.odds("dune1984", attacker=4, defender=5, trials=200_000, precision=0.00002, max_trials=10**11,
                    jobs=1)


class Enough(Exception):
    """What a progress function of the test's raises to stop a long run."""


def enough():
    raise Enough


def test_progress_is_checked_before_any_trial():
    with pytest.raises(InputError, match=r"^progress must be True \(a bar\), False or a function"):
        mc.odds("dune1984", attacker=4, defender=5, progress="yes")
    for game in (123, None, ["dune1984"]):  # the progress label once read the game first: a TypeError
        with pytest.raises(InputError, match=r"^game must be a game name or a \.toml battle file, got "):
            mc.odds(game, attacker=4, defender=5)
    assert mc.odds("dune1984", attacker=4, defender=5, trials=1_000, progress=None).facts["trials"] == 1_000


def test_compare_with_rules_says_in_its_title_that_every_arm_plays_them():
    got = mc.compare("dune1984", variants="ties_favour_defender", rules={"max_dice": 4}, attacker=4,
                     defender=5, trials=1_000, metrics="attacker_win")
    assert got.title.endswith("ties_favour_defender against official (every arm with max_dice=4)")


def test_compare_names_the_baseline_it_was_given_in_its_title():
    """The title said "... against official" while the differences were taken against
    no_strength_gain (the baseline given)."""
    two = ["ties_favour_defender", "no_strength_gain"]
    got = mc.compare("dune1984", variants=two, baseline="no_strength_gain", attacker=4, defender=5,
                     trials=1_000, metrics="attacker_win")
    assert got.title.endswith(": official, ties_favour_defender against no_strength_gain")
    assert got.facts["baseline"] == "no_strength_gain"
    usual = mc.compare("dune1984", variants=two, attacker=4, defender=5, trials=1_000, metrics="attacker_win")
    assert usual.title.endswith(": ties_favour_defender, no_strength_gain against official")


def test_two_variants_and_rules_are_named_together():
    got = mc.odds("dune1984", attacker=4, defender=5, trials=1_000,
                  variants=["ties_favour_defender", "no_strength_gain"], rules={"max_dice": 2})
    assert set(got.to_pandas().variant) == {"ties_favour_defender+no_strength_gain with max_dice=2"}
    assert "ties_favour_defender, no_strength_gain with max_dice=2;" in repr(got).splitlines()[-1]


def test_notes_are_those_of_the_question_asked_and_only_made_up_data_is_named(tmp_path):
    storm = mc.odds("war-for-arrakis", "storm", legion="2 regular, 1 sardaukar", terrain="deep_desert",
                    settlement=True, trials=500)
    assert len(storm.notes) == 1 and "storm" in storm.notes[0]  # the storm question's reading
    deck = (ROOT / "montecarlo" / "games" / "dustrunners" / "data" / "illustrative-deck-12.toml").read_text()
    mine = tmp_path / "mine.toml"
    mine.write_text(deck.replace("illustrative = true", "illustrative = false"))
    own = mc.odds("dustrunners", enemy="war-rig", vehicle="scout", deck=str(mine), trials=500)
    assert own.notes == ()  # a deck of one's own is no made-up data, and it is small enough to solve
    road = mc.odds("dustrunners", "road", vehicle="scout", trials=300)  # no exact solver, no reason asked
    assert [n.split(":")[0] for n in road.notes] == ["deck", "exploration_deck"]


def test_a_caution_points_at_the_callers_line_whichever_function_gave_it():
    """`mc.table` and `mc.compare` check their setups deeper in the package than `mc.odds`: their
    Caution named a line of montecarlo/api.py, where the user looks for their own."""
    import warnings

    from montecarlo.errors import Caution

    same_house = {"attacker": "Paul Atreides", "defender": "Duke Leto Atreides"}
    calls = {
        "odds": lambda: mc.odds("dune1984", trials=500, **same_house),
        "table": lambda: mc.table("dune1984", grid={"attacker": [same_house["attacker"]]},
                                  defender=same_house["defender"], trials=500),
        "compare": lambda: mc.compare("dune1984", variants="ties_favour_defender", trials=500, **same_house),
    }
    for name, call in calls.items():
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            call()
        cautions = [(w.filename, w.lineno, str(w.message))
                    for w in seen if issubclass(w.category, Caution)]
        said = "Paul Atreides and Duke Leto Atreides are both Red characters (one player's) on opposite sides"
        assert cautions == [(__file__, call.__code__.co_firstlineno, said)], name


@pytest.mark.parametrize("ask", [
    lambda **kw: mc.odds("dune1984", attacker=4, defender=5, **kw),
    lambda **kw: mc.table("dune1984", grid={"attacker": [3, 4]}, defender=5, **kw),
])
def test_odds_and_table_resume_from_a_checkpoint_to_the_numbers_of_an_uninterrupted_run(tmp_path, ask):
    """As ``montecarlo odds --checkpoint`` and ``table --checkpoint``: a run stopped after its first
    chunk, called again with the same file, ends with the numbers of a run never stopped."""
    file = tmp_path / "run.checkpoint"
    run = dict(trials=300_000, jobs=1, backend="threading")  # three chunks a setup
    whole = ask(**run)

    def stop(done: int, total: int) -> None:
        if 0 < done < total:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ask(**run, checkpoint=file, progress=stop)
    assert file.is_file()
    seen = []
    resumed = ask(**run, checkpoint=file, progress=lambda done, total: seen.append(done))
    assert resumed.estimate == whole.estimate and resumed.se == whole.se
    assert seen[0] > 0  # the finished chunks came from the file, not run again


@pytest.mark.parametrize("kwargs, message", [
    (dict(backend="x"), "^backend must be one of loky, threading, dask, got 'x'$"),
    (dict(scheduler="tcp://x:1:2"), "^scheduler must be a Dask scheduler address"),
    (dict(backend="threading", scheduler="tcp://10.0.0.1:8786"), "^backend must be dask with a scheduler"),
    (dict(checkpoint=3), r"^checkpoint must be a path \(a str or pathlib.Path\), got 3$"),
    (dict(checkpoint="missing-folder/run.checkpoint"), "^checkpoint missing-folder/run.checkpoint: "
                                                       ".*/missing-folder does not exist$"),
    (dict(checkpoint="."), r"^checkpoint \.: is a folder \(an empty path, or the current or parent folder\); "
                           "give a file name$"),
])
@pytest.mark.parametrize("ask", [
    lambda **kw: mc.odds("dune1984", attacker=4, defender=5, **kw),
    lambda **kw: mc.table("dune1984", grid={"attacker": [3, 4]}, defender=5, **kw),
])
def test_odds_and_table_refuse_a_bad_backend_or_checkpoint_before_any_work(
    monkeypatch, tmp_path, ask, kwargs, message
):
    monkeypatch.chdir(tmp_path)
    _no_work(monkeypatch)
    with pytest.raises(InputError, match=message):
        ask(**kwargs)
    assert list(tmp_path.iterdir()) == []


NO_INITIATIVE = ("best play: with no ammo, and no first card of this deck that gives the raiders the "
                 "initiative with another card left to draw, an initiative redraw is never a choice")
ALL_OUT = "glancing hit=0, side swipe=0, double tap=0, head-on crash=0"


@pytest.mark.parametrize("counts, refused", [
    (f"empty road=1, dust cloud=0, {ALL_OUT}", True),  # one card: nothing to draw instead
    (f"dust cloud=1, empty road=0, {ALL_OUT}", True),  # one raiders' card alone
    ("dust cloud=0, side swipe=0, head-on crash=0", True),  # you lead whatever comes first
    (f"dust cloud=1, empty road=1, {ALL_OUT}", False),  # a raiders' card and another: a choice
])
def test_an_initiative_redraw_the_deck_never_offers_is_no_choice(counts, refused):
    ask = dict(enemy="war-rig", vehicle="scout", deck="illustrative-12", ammo=0, redraw="initiative", vp=2,
               policy="best", card_counts=counts, trials=1_000)
    if refused:
        with pytest.raises(InputError) as err:
            mc.odds("dustrunners", **ask)
        assert str(err.value) == NO_INITIATIVE
    else:
        assert 0 <= mc.odds("dustrunners", **ask).exact["player_win"] <= 1
