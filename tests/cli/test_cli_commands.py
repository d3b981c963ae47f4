"""The root discovers each game's CLI module; commands are where a player looks for them.

``montecarlo GAME QUESTION`` for every question, ``odds GAME`` and ``table GAME`` by convention,
lazy imports at start-up, character names, and metric explanations.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import subprocess
import sys
import textwrap
import types

import pytest
import typer
from typer.testing import CliRunner

from montecarlo import registry
from montecarlo.cli import app, game_cli_modules
from montecarlo.cli.common import run_command, emit, RunOptions
from montecarlo.analysis import DEFAULT_SEED, DEFAULT_TRIALS, ask
from montecarlo.games.dune1984.fights import DuelSetup, exact
from montecarlo.games.dune1984.rules import CHARACTERS, Rules, character
from tests.cli.helpers import assert_json_agrees, assert_rows_agree

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def fresh_process(*argv: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run the CLI in a new interpreter; return its result and the modules it imported."""
    code = textwrap.dedent(f"""
        import sys
        sys.argv = ["montecarlo", *{list(argv)!r}]
        from montecarlo.cli import main
        try:
            main()
        except SystemExit as exc:
            code = exc.code
        sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)) + "\\n")
        sys.exit(code)
    """)
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"},
    )
    modules = set(proc.stderr.rsplit("MODULES ", 1)[-1].split())
    return proc, modules


# --- start-up ---------------------------------------------------------------------------------


def test_help_imports_no_game_no_numpy_no_scipy_no_polars():
    proc, modules = fresh_process("--help")
    assert proc.returncode == 0, proc.stderr
    for game in game_cli_modules():
        assert f"montecarlo {game}".split()[1] in proc.stdout  # every game listed by name
    assert "odds" in proc.stdout and "table" in proc.stdout and "report" in proc.stdout
    heavy = {
        "numpy",
        "scipy.stats",
        "polars",
        "matplotlib",
        "joblib",
        "montecarlo.games.dune1984",
        "montecarlo.games.imperium",
        "montecarlo.cli.dune1984",
        "montecarlo.cli.imperium",
        "montecarlo.cli.reports",
        "montecarlo.analysis",
    }
    assert not heavy & modules, heavy & modules


def test_odds_imports_only_its_game():
    proc, modules = fresh_process("odds", "dune1984", "--attacker", "4", "--defender", "5", "-n", "20000")
    assert proc.returncode == 0, proc.stderr
    assert "montecarlo.games.dune1984" in modules and "montecarlo.cli.dune1984" in modules
    heavy = {
        "scipy.stats",
        "polars",
        "matplotlib",
        "joblib",
        "montecarlo.games.imperium",
        "montecarlo.cli.imperium",
        "montecarlo.cli.reports",
        "montecarlo.reporting",
    }
    assert not heavy & modules, heavy & modules
    assert_rows_agree(proc.stdout, at_least=15)


def test_no_module_imports_the_root_back():
    import pathlib

    folder = pathlib.Path(importlib.util.find_spec("montecarlo.cli").origin).parent
    for path in folder.glob("*.py"):
        if path.name == "__init__.py":
            continue
        text = path.read_text()
        assert "from montecarlo.cli import" not in text and "import montecarlo.cli\n" not in text, path.name


def test_bare_montecarlo_prints_help_and_exits_0():
    proc, _ = fresh_process()
    assert proc.returncode == 0
    assert "Usage: montecarlo" in proc.stdout and "error" not in proc.stderr.split("MODULES")[0]
    proc, _ = fresh_process("odds")
    assert proc.returncode == 0 and "dune1984" in proc.stdout


# --- commands where people look for them ------------------------------------------------------


@pytest.mark.parametrize("game", ["dune1984", "imperium"])
def test_every_question_is_a_command_of_its_game(game):
    question_names = list(registry.get_game(game).questions)
    result = run(game, "--help")
    assert result.exit_code == 0
    for name in question_names:
        assert name in result.stdout
        help_of = run(game, name, "--help")
        assert help_of.exit_code == 0, (game, name, help_of.output)


def test_dune_duel_and_imperium_conflict_answer_with_numbers():
    duel = run("dune1984", "duel", "-a", "4", "-d", "5", "-n", "20000", "--json")
    assert duel.exit_code == 0, duel.output
    data = json.loads(duel.stdout)
    assert data["metrics"]["attacker_win"]["exact"] == pytest.approx(
        exact(Rules(), DuelSetup(4, 5))["attacker_win"]
    )
    assert_json_agrees(data)
    conflict = run("imperium", "conflict", "--troops", "3,2,2,1", "-n", "20000", "--json")
    assert conflict.exit_code == 0, conflict.output
    assert_json_agrees(json.loads(conflict.stdout))
    assert run("dune1984", "guile", "--guile", "3", "-n", "2000").exit_code == 0
    table = run("dune1984", "duel", "-a", "4", "-d", "5", "-n", "2000").stdout.splitlines()
    header = next(line for line in table if line.startswith("┃"))
    columns = [cell.strip() for cell in header.strip("┃").split("┃")]
    assert columns == ["metric", "estimate", "95% interval", "exact"]


def test_game_names_accept_underscores_and_case():
    result = run("Dune1984", "reach", "--distance", "4", "-n", "2000", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["metrics"]["reach"]["exact"] == pytest.approx(
        14 / 36
    )  # a die shows 4 (11/36) or the total is 4 (3/36)


def test_table_of_a_game_without_one_names_the_games_that_have_one():
    result = run("table", "imperium")
    assert result.exit_code == 2
    assert "imperium has no table command; games with one: dune1984" in result.output
    battle = run("table", "scenarios/games/risk.toml")  # was "unknown game"
    said = " ".join(battle.output.replace("│", " ").split())  # the usage error's panel wraps it
    assert battle.exit_code == 2 and "risk.toml: a battle file has no table command; sweep its setup" in said
    scenario = run("table", "scenarios/risk/house-rules.toml")
    said = " ".join(scenario.output.replace("│", " ").split())
    assert scenario.exit_code == 2 and "house-rules.toml: a scenario file, which montecarlo report" in said
    missing = run("table", "nope.toml")
    assert missing.exit_code == 2 and "nope.toml: no such file" in " ".join(missing.output.split())
    listing = run("table", "--help")
    assert "dune1984" in listing.stdout and "imperium" not in listing.stdout


def test_unknown_command_suggests_a_close_one():
    result = run("dune1984", "duell")
    assert result.exit_code == 2 and "duel" in result.output
    result = run("imperum")
    assert result.exit_code == 2 and "imperium" in result.output


# --- discovery of a new game ------------------------------------------------------------------


def fake_cli_module() -> types.ModuleType:
    """What a new game's helper writes as montecarlo/cli/<module>.py, with no change to the root."""
    module = types.ModuleType("montecarlo.cli.test_scenarios")
    module.__spec__ = importlib.util.spec_from_loader(module.__name__, loader=None)
    module.__doc__ = "Coin: a fake game for tests."
    module.app = typer.Typer(no_args_is_help=True)

    @module.app.command("flip")
    @run_command
    def flip(run: RunOptions, flips: int = typer.Option(2, "--flips", help="Coins flipped.")) -> None:
        """Flip a coin.

        Examples:

          montecarlo coin flip --flips 3
        """
        answer = ask("coin", "flip", {"flips": flips}, variants=run.variant, settings=run.settings())
        emit(answer, run, f"{flips} flips")

    module.ODDS = flip
    return module


@pytest.fixture
def coin_cli(monkeypatch):
    monkeypatch.setitem(registry.EXTRA, "coin", "tests.test_scenarios")
    monkeypatch.setitem(sys.modules, "montecarlo.cli.test_scenarios", fake_cli_module())


def test_a_new_game_module_is_found_without_touching_the_root(coin_cli):
    assert game_cli_modules()["coin"] == "montecarlo.cli.test_scenarios"
    assert "coin" in run("--help").stdout
    for args in (["coin", "flip"], ["odds", "coin"]):
        result = run(*args, "--flips", "3", "-n", "20000", "--json")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["game"] == "coin" and data["setup"]["flips"] == 3
        assert_json_agrees(data)
    help_text = run("odds", "coin", "--help").stdout
    assert "loaded" in help_text and "bonus" in help_text  # --variant names the game's variants
    assert "no table command" in run("table", "coin").output


def test_a_command_may_set_its_own_default_number_of_trials():
    def count(run: RunOptions) -> None:
        emit(ask("coin", "flip", {}, settings=run.settings()), run, "one flip")

    defaults = {
        name: inspect.signature(command).parameters["trials"].default
        for name, command in (("own", run_command(trials=1_234)(count)), ("shared", run_command(count)))
    }
    assert defaults == {"own": 1_234, "shared": DEFAULT_TRIALS}


def test_the_shared_options_of_a_command_built_now_show_their_placeholders_help_and_defaults():
    """What ``--help`` shows of the options every command shares, for a command built in the test
    (the shipped ones are built at import), and their defaults."""

    def count(run: RunOptions) -> None:
        """Count."""

    command = run_command(trials=1_234)(count)
    defaults = {name: p.default for name, p in inspect.signature(command).parameters.items()}
    assert defaults == {
        "trials": 1_234, "seed": DEFAULT_SEED, "jobs": None, "precision": None, "max_trials": None,
        "variant": None, "json": False, "quiet": False, "backend": None, "scheduler": None,
        "checkpoint": None,
    }
    app = typer.Typer()
    app.command("count")(command)
    app.command("other")(lambda: None)
    shown = CliRunner().invoke(app, ["count", "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"}).stdout
    rows = [" ".join(line.strip("│ ").split()) for line in shown.splitlines()]
    for row in (
        "--jobs -j N Worker processes, at most the cores",
        "--precision H Add trials until every probability's 95% half-width is at most H",
        "--max-trials N Cap on trials with --precision",
        "--backend NAME joblib backend",
        "--scheduler ADDRESS Dask scheduler address",
        "--checkpoint FILE Save finished chunks to FILE",
        "--variant -v NAME Named house rule to apply (repeatable); `montecarlo games` lists them.",
    ):
        assert any(line.startswith(row) for line in rows), (row, shown)


# --- characters -------------------------------------------------------------------------------


def test_characters_lists_strength_and_guile():
    result = run("dune1984", "characters")
    assert result.exit_code == 0
    for c in CHARACTERS.values():
        line = next(line for line in result.stdout.splitlines() if f"│ {c.name} " in line)
        cells = [cell.strip() for cell in line.strip("│").split("│")]
        assert cells[2:4] == [str(c.strength), str(c.guile)], line
    data = json.loads(run("dune1984", "characters", "--json").stdout)
    assert len(data["characters"]) == 12
    assert {"name": "Feyd", "house_colour": "Green", "strength": 4, "guile": 3}.items() <= data["characters"][
        10
    ].items()


@pytest.mark.parametrize(
    "short,printed",
    [
        ("Feyd-Rautha", "Feyd"),
        ("Paul", "Paul Atreides"),
        ("Rabban", "Beast Rabban"),
        ("Kynes", "Dr. Kynes"),
        ("Baron", "Baron Harkonnen"),
        ("Shaddam", "Emperor Shaddam IV"),
        ("leto", "Duke Leto Atreides"),
        ("dr. kynes", "Dr. Kynes"),
    ],
)
def test_short_names_resolve(short, printed):
    assert character(short).name == printed
    result = run("odds", "dune1984", "-a", short, "-d", "4", "-n", "2000", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    c = CHARACTERS[printed.lower()]
    assert data["setup"]["attacker"] == printed
    assert data["setup"]["characters"][printed] == {
        "strength": c.strength,
        "guile": c.guile,
        "house_colour": c.colour,
    }
    assert data["metrics"]["attacker_win"]["exact"] == pytest.approx(
        exact(Rules(), DuelSetup(c.strength, 4))["attacker_win"]
    )


def test_ambiguous_names_list_the_candidates():
    result = run("odds", "dune1984", "-a", "Atreides", "-d", "4")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert (
        len(lines) == 1
        and "ambiguous" in lines[0]
        and "Paul Atreides" in lines[0]
        and "Duke Leto Atreides" in lines[0]
    )


def test_titles_show_a_named_characters_strength_and_guile():
    result = run("odds", "dune1984", "-a", "Paul", "-d", "Rabban", "-n", "2000")
    title = " ".join(result.stdout.split())
    assert (
        "Paul Atreides (Strength 4, Guile 3) (attacker) vs Beast Rabban (Strength 5, Guile 3) (defender)"
        in title
    )
    guile = run("dune1984", "guile", "--guile", "Kynes", "-n", "2000")
    assert "Dr. Kynes (Strength 3, Guile 4)" in " ".join(guile.stdout.split())
    fight = run("dune1984", "fight", "-a", "Paul,Chani", "-d", "5", "-n", "2000", "--json")
    assert set(json.loads(fight.stdout)["setup"]["characters"]) == {"Paul Atreides", "Chani"}


# --- metric explanations ----------------------------------------------------------------------


def test_odds_tables_explain_each_metric_once():
    result = run("odds", "dune1984", "-a", "4", "-d", "5", "-n", "2000")
    lines = result.stdout.splitlines()
    question = registry.get_game("dune1984").question("duel")
    for m in question.metrics:
        label = f"{m.name}=v" if m.kind == "distribution" else m.name
        explained = [line for line in lines if line.startswith(label + " ")]
        assert len(explained) == 1 and m.description.split()[0] in explained[0], (label, explained)
    assert any("before the gain" in line for line in lines if line.startswith("winner_strength=v"))
    assert any("after the gain" in line for line in lines if line.startswith("winner_strength_after=v"))


def test_json_carries_the_descriptions():
    data = json.loads(run("odds", "imperium", "--troops", "2,2", "-n", "2000", "--json").stdout)
    assert data["metrics"]["tie_first"]["description"].startswith("two or more players tie")
    assert all(m["description"] for m in data["metrics"].values())


@pytest.mark.parametrize("group", ["odds", "table"])
def test_unknown_games_are_named_with_the_known_ones(group):
    result = run(group, "monopoly")
    assert result.exit_code == 2
    assert "unknown game 'monopoly'" in result.output and "dune1984" in result.output


def test_a_table_plays_the_variants_it_is_given():
    table = runner.invoke(app, ["table", "dune1984", "-n", "1000", "--json", "-v", "ties_favour_defender"])
    assert table.exit_code == 0, table.output
    data = json.loads(table.stdout)
    assert data["variants"] == ["ties_favour_defender"] and data["rules"]["ties"] == "defender"
    cell = next(c for c in data["cells"] if (c["attacker"], c["defender"]) == (3, 3))
    assert data["version"] == __import__("montecarlo").__version__
    assert cell["exact"] == pytest.approx(exact(Rules(ties="defender"), DuelSetup(3, 3))["attacker_win"])
    assert cell["exact"] != pytest.approx(exact(Rules(), DuelSetup(3, 3))["attacker_win"])
