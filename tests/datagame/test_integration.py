"""Definition files through the CLI command, the registry, scenarios and worker processes."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from montecarlo import registry
from montecarlo.analysis import kernel_for
from montecarlo.cli.datagame import command_for, odds_command
from montecarlo.datagame.compile import compile_text
from montecarlo.scenarios import find_scenarios, load_scenario, parse_scenario, run_scenario

cloudpickle = pytest.importorskip("cloudpickle")  # what joblib's loky workers use

ROOT = Path(__file__).resolve().parents[2]
RISK = ROOT / "scenarios" / "games" / "risk.toml"


def cli():
    """A throw-away app with the command registered as ``odds`` (the root routes ``odds X.toml``)."""
    app = typer.Typer()
    app.command("odds")(odds_command)

    @app.command("other")
    def other() -> None:  # a second command keeps ``odds`` a sub-command
        """Nothing."""

    return app


def invoke(*args: str):
    return CliRunner().invoke(cli(), ["odds", *args])


def test_odds_json_has_the_common_shape_with_exact_values():
    result = invoke(
        str(RISK), "--set", "attackers=5", "--set", "defenders=3", "--json", "-n", "30000", "-s", "4"
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["game"], data["question"], data["trials"], data["seed"]) == ("risk", "battle", 30000, 4)
    assert data["setup"] == {"attackers": 5, "defenders": 3} and data["rules"]["ties"] == "defender"
    win = data["metrics"]["attacker_win"]
    assert set(win) >= {"estimate", "ci_low", "ci_high", "se", "exact"}
    assert abs(win["estimate"] - win["exact"]) <= 4.5 * win["se"]
    assert "extra" not in data


def test_odds_with_a_variant_and_a_table():
    result = invoke(
        str(RISK), "--set", "attackers=2", "--set", "defenders=2", "-v", "ties_to_attacker", "-n", "5000"
    )
    assert result.exit_code == 0, result.output
    assert "attacker_win" in result.stdout and "ties_to_attacker" in result.stdout


def test_odds_says_when_there_are_no_exact_values(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text(
        RISK.read_text().replace('question = "battle"', 'question = "battle"\nexact_max_states = 20')
    )
    result = invoke(str(path), "--set", "attackers=30", "--set", "defenders=30", "--json", "-n", "2000")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["metrics"]["attacker_win"]["exact"] is None
    assert "more than 20 states" in data["extra"]["exact_note"]
    table = invoke(str(path), "--set", "attackers=30", "--set", "defenders=30", "-n", "2000")
    assert "note: exact value unavailable because" in table.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["--set", "attackers=5", "--set", "defenders=0"], "defenders must be an integer 1..100"),
        (["--set", "attackers5"], "--set 'attackers5': give FIELD=VALUE, e.g. --set attackers=5"),
        (["--set", "attackers=5", "--set", "defenders=3", "-v", "nope"], "unknown variant 'nope'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = invoke(str(RISK), *args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.output


def test_a_bad_definition_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(RISK.read_text().replace('compare = "pairs"', 'compare = "sum"'))
    result = invoke(str(path), "--set", "attackers=5", "--set", "defenders=3")
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: {path}: round.compare: 'sum' is not a comparison; use one of: " "highest, pairs, count"
    )
    assert invoke(str(tmp_path / "missing.toml"), "--set", "a=1").exit_code == 2


def test_a_battle_that_cannot_end_names_the_file_or_the_rules_that_make_it(tmp_path):
    """Rules that roll no dice leave every state where it is: the file's own rules are the
    file's mistake (check round.update and end); a variant's or house rule's name those rules."""
    path = tmp_path / "stuck.toml"
    text = RISK.read_text() + '\n[variants.no_attack]\ndescription = "x"\noverrides = { attack_dice = 0 }\n'
    path.write_text(text)
    setup = ["--set", "attackers=3", "--set", "defenders=2", "-n", "1000"]
    result = invoke(str(path), *setup, "-v", "no_attack")
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: {path}: under the rules attack_dice=0 ([rules] has 3) a battle cannot end (state "
        "(attackers=3, defenders=2) only leads back to itself: the process never ends); "
        "the values of a variant, --rule or rules= must let every battle end"
    )
    path.write_text(text.replace("attack_dice = 3 ", "attack_dice = 0 "))
    result = invoke(str(path), *setup)
    assert result.exit_code == 2
    line = result.output.strip()
    assert line.startswith(f"error: {path}: round.update: state"), line
    assert "check round.update and end" in line, line


def test_get_game_accepts_a_path_and_caches_it_per_modification_time(tmp_path):
    path = tmp_path / "risk.toml"
    path.write_text(RISK.read_text())
    first = registry.get_game(str(path))
    assert registry.get_game(str(path)) is first
    path.write_text(
        RISK.read_text().replace('title = "Risk: one battle fought to the end"', 'title = "Changed"')
    )
    import os

    os.utime(path, ns=(1, 1))
    assert registry.get_game(str(path)).title == "Changed"


def test_kernels_pickle_as_the_file_text():
    game = registry.get_game(str(RISK))
    q = game.question()
    kernel = kernel_for(q, game.rules(["both_house_rules"]), q.setup({"attackers": 4, "defenders": 4}))
    for dumps in (pickle.dumps, cloudpickle.dumps):
        again = pickle.loads(dumps(kernel))
        a = kernel(1000, np.random.default_rng(3))
        b = again(1000, np.random.default_rng(3))
        assert all(np.array_equal(a[k], b[k]) for k in a)
    assert pickle.loads(pickle.dumps(game.rules(["ties_to_attacker"]))).ties == "attacker"
    # the chain builder pickles as its compiled game's: a worker reuses its copy and its solved chains
    compiled = compile_text(RISK.read_text(), str(RISK))
    assert pickle.loads(pickle.dumps(compiled.chains)) is compiled.chains


def test_the_shipped_scenario_loads_and_definitions_are_not_scenarios():
    found = find_scenarios(ROOT / "scenarios")
    assert RISK not in found and ROOT / "scenarios" / "risk" / "house-rules.toml" in found
    sc = load_scenario(ROOT / "scenarios" / "risk" / "house-rules.toml")
    assert sc.game.name == "risk" and len(sc.points) == 100
    assert [v.name for v in sc.variants] == ["official", "ties_to_attacker", "defender_three_dice", "both"]


def test_a_small_scenario_runs_on_two_workers_with_exact_differences(tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "risk.toml").write_text(RISK.read_text())
    scenario = tmp_path / "mine" / "s.toml"
    scenario.parent.mkdir()
    scenario.write_text(
        'game = "../games/risk.toml"\nseed = 1\ntrials = 3000\nmetrics = ["attacker_win"]\n'
        "[grid]\nattackers = [2, 5]\ndefenders = [3]\n"
        '[variants.official]\n[variants.ties]\noverrides = { ties = "attacker" }\n'
    )
    result = run_scenario(load_scenario(scenario), jobs=2)
    for c in result.comparisons:
        diff = c.differences[0]["attacker_win"]
        assert diff.exact is not None and diff.exact > 0
        assert abs(diff.estimate - diff.exact) <= 4.5 * diff.se + 1e-9


def test_a_scenario_naming_a_bad_definition_fails_in_one_line(tmp_path):
    (tmp_path / "g.toml").write_text('format = "dice-battle/1"\n')
    with pytest.raises(ValueError) as info:
        parse_scenario({"game": str(tmp_path / "g.toml"), "seed": 1}, source="s.toml")
    assert str(info.value).startswith("s.toml: game: ") and "setup: missing" in str(info.value)


def test_a_group_of_games_routes_a_toml_name_to_the_file_command():
    """What the root's odds group does: a sub-command name ending in .toml is a definition file."""

    class Odds(typer.core.TyperGroup):
        def get_command(self, ctx, name):
            if name.endswith(".toml"):
                return command_for(name)
            return super().get_command(ctx, name)

    app = typer.Typer(cls=Odds)

    @app.command("dune1984")
    def dune() -> None:  # games' odds commands beside it
        """Nothing."""

    @app.command("imperium")
    def imperium() -> None:
        """Nothing."""

    args = [str(RISK), "--set", "attackers=3", "--set", "defenders=2", "--json", "-n", "20000", "-s", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    win = data["metrics"]["attacker_win"]
    assert data["game"] == "risk" and abs(win["estimate"] - win["exact"]) <= 4.5 * win["se"]
    assert json.loads(invoke(*args).stdout) == data  # the same answer as the path-argument command
    bad = CliRunner().invoke(app, [str(RISK), "--set", "attackers=0", "--set", "defenders=2"])
    assert bad.exit_code == 2 and bad.output.startswith("error: attackers must be an integer 1..100")


def test_the_compiled_games_memo_is_per_file_not_per_modification_time(tmp_path):
    """Two definitions written in the same instant are two games, and a file read again is the
    same compiled game (the memo) until it changes."""
    import os
    import shutil

    from montecarlo.datagame import load_compiled

    risk, duel = tmp_path / "risk.toml", tmp_path / "duel.toml"
    shutil.copy(ROOT / "scenarios" / "games" / "risk.toml", risk)
    shutil.copy(ROOT / "scenarios" / "games" / "dune1984-duel.toml", duel)
    for path in (risk, duel):
        os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    first, second = load_compiled(risk), load_compiled(duel)
    assert first.game.name != second.game.name
    assert load_compiled(risk) is first and load_compiled(duel) is second
