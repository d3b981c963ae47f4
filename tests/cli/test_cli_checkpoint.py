"""--checkpoint on odds, tables and scenario runs: interrupted, then the same command again, prints
byte for byte what an uninterrupted run prints; a file of another command is refused."""

import pytest
from typer.testing import CliRunner

import montecarlo
from montecarlo import registry
from montecarlo.analysis import DEFAULT_SEED
from montecarlo.cli import app
from montecarlo.engine import runner as engine
from tests.cli.test_cli_reports import one_error_line, scenario

runner = CliRunner()


@pytest.fixture(autouse=True)
def coin_game(monkeypatch):
    monkeypatch.setitem(registry.EXTRA, "coin", "tests.test_scenarios")


def interrupted(monkeypatch, args: list[str], after: int):
    """Run ``args`` with Ctrl-C arriving as chunk ``after`` starts; the real chunks again after."""
    real = engine.run_chunk
    calls = {"n": 0}

    def chunk(*a, **k):
        calls["n"] += 1
        if calls["n"] > after:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(engine, "run_chunk", chunk)
    result = runner.invoke(app, args)
    monkeypatch.setattr(engine, "run_chunk", real)
    assert result.exit_code != 0 and result.stdout == "", result.output
    return calls["n"]


ODDS = ["odds", "dune1984", "-a", "4", "-d", "5", "-n", "600000", "--json", "-j", "1"]  # 5 chunks


@pytest.mark.parametrize("after", [0, 2, 4])
def test_odds_resumes_and_prints_the_uninterrupted_json(tmp_path, monkeypatch, after):
    whole = runner.invoke(app, ODDS)
    path = tmp_path / "odds.checkpoint"
    interrupted(monkeypatch, [*ODDS, "--checkpoint", str(path)], after)
    resumed = runner.invoke(app, [*ODDS, "--checkpoint", str(path)])
    assert resumed.exit_code == 0 and resumed.stdout == whole.stdout
    again = runner.invoke(app, [*ODDS, "--checkpoint", str(path)])  # finished: the same answer at once
    assert again.stdout == whole.stdout


def test_a_checkpoint_of_another_command_is_refused_with_one_line(tmp_path):
    path = tmp_path / "odds.checkpoint"
    assert runner.invoke(app, [*ODDS, "--checkpoint", str(path)]).exit_code == 0
    before = path.read_bytes()
    one_error_line(runner.invoke(app, [*ODDS, "-s", "3", "--checkpoint", str(path)]), "another run", "seed")
    table = ["table", "dune1984", "-n", "1000", "--json", "--checkpoint", str(path)]
    one_error_line(runner.invoke(app, table), "written by another run")
    mine = tmp_path / "notes.txt"
    mine.write_text("mine")
    one_error_line(runner.invoke(app, [*ODDS, "--checkpoint", str(mine)]), "not a montecarlo checkpoint")
    assert path.read_bytes() == before and mine.read_text() == "mine"


def test_table_resumes_across_its_cells(tmp_path, monkeypatch):
    table = ["table", "dune1984", "-n", "3000", "--json", "-j", "1"]  # in this process, whatever its speed
    whole = runner.invoke(app, table)
    path = tmp_path / "table.checkpoint"
    interrupted(monkeypatch, [*table, "--checkpoint", str(path)], 17)
    assert runner.invoke(app, [*table, "--checkpoint", str(path)]).stdout == whole.stdout


def test_compare_and_report_resume_a_scenario(tmp_path, monkeypatch):
    path = scenario(tmp_path)
    compare = ["compare", str(path), "--json", "--all", "-j", "1"]
    whole = runner.invoke(app, compare)
    checkpoint = tmp_path / "coin.checkpoint"
    interrupted(monkeypatch, [*compare, "--checkpoint", str(checkpoint)], 1)
    assert runner.invoke(app, [*compare, "--checkpoint", str(checkpoint)]).stdout == whole.stdout
    # report-all keeps one file per report in the --checkpoint folder
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    out = tmp_path / "reports"
    every = ["report-all", str(tmp_path), "--out", str(out), "-q", "--checkpoint", str(folder)]
    assert runner.invoke(app, every).exit_code == 0
    assert [p.name for p in folder.iterdir()] == ["coin-odds.checkpoint"]
    one_error_line(runner.invoke(app, [*every[:-1], str(path)]),
                   f"--checkpoint: {path}: is a file, not a folder")
    missing = tmp_path / "new"  # it said "is not a folder" of a folder not made yet
    one_error_line(runner.invoke(app, [*every[:-1], str(missing)]),
                   f"--checkpoint: {missing}: no such folder (create it first)")


def test_the_file_records_the_work_and_the_run_under_fixed_names(tmp_path):
    """A checkpoint outlives the process that wrote it (and a package upgrade within one file
    format): the names it stores the work and the run under are part of that format."""
    import json

    path = tmp_path / "odds.checkpoint"
    assert runner.invoke(app, [*ODDS, "--checkpoint", str(path)]).exit_code == 0
    data = json.loads(path.read_text())
    assert data["run"] == {
        "trials": 600000, "seed": DEFAULT_SEED, "chunk_size": engine.DEFAULT_CHUNK_SIZE,
        "precision": None, "max_trials": None,
    }
    work = data["work"]
    assert list(work) == ["version", "kind", "game", "question", "variants", "rules", "setups"]
    assert (work["kind"], work["game"], work["question"], work["variants"]) == ("ask", "dune1984", "duel", [])
    assert len(work["setups"]) == 1 and work["setups"][0]["attacker"] == 4
    assert work["version"] == montecarlo.__version__
    compared = tmp_path / "compare.checkpoint"
    compare = ["compare", str(scenario(tmp_path)), "--json", "-j", "1", "--checkpoint", str(compared)]
    assert runner.invoke(app, compare).exit_code == 0
    work = json.loads(compared.read_text())["work"]
    assert list(work) == ["version", "kind", "game", "question", "arms", "setups", "metrics"]
    assert (work["kind"], work["game"], len(work["setups"])) == ("compare", "coin", 3)


def test_a_battle_file_edited_since_its_checkpoint_is_refused(tmp_path):
    """The d6 battle's tallies were resumed after the file said d8: the old estimate printed
    beside the new exact value. The work now records a digest of the file's text."""
    from pathlib import Path

    battle = tmp_path / "risk.toml"
    battle.write_text((Path(__file__).parents[2] / "scenarios/games/risk.toml").read_text())
    ask = ["odds", str(battle), "--set", "attackers=3", "--set", "defenders=2", "-n", "300000", "-j", "1",
           "--json", "--checkpoint", str(tmp_path / "risk.checkpoint")]
    assert runner.invoke(app, ask).exit_code == 0
    assert "faces = 6" in battle.read_text()
    battle.write_text(battle.read_text().replace("faces = 6", "faces = 8"))
    one_error_line(runner.invoke(app, ask), "written by another run (not the same battle file: its text "
                   "differs from the one the checkpoint was saved for, if only in a comment)")


def test_a_scenario_whose_metrics_changed_since_its_checkpoint_is_refused(tmp_path):
    """Two other metrics of the same count got the old ones' tallies under their names."""
    path = scenario(tmp_path)
    compare = ["compare", str(path), "--json", "-j", "1", "--checkpoint", str(tmp_path / "c.checkpoint")]
    assert runner.invoke(app, compare).exit_code == 0
    path.write_text(path.read_text().replace('metrics = ["win", "heads"]', 'metrics = ["heads", "win"]'))
    one_error_line(runner.invoke(app, compare), "written by another run (metrics [\"win\", \"heads\"] there")
