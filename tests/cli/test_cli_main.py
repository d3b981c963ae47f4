import subprocess
from pathlib import Path
import sys

from typer.testing import CliRunner

from montecarlo import __version__
from montecarlo.cli import app

runner = CliRunner()


def test_version_and_games():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output
    result = runner.invoke(app, ["games"])
    assert result.exit_code == 0 and "dune1984" in result.output


def test_games_lists_a_battle_files_question_and_variants_as_its_odds_help_says():
    """`odds FILE --help` names the file's house rules, and `games FILE` lists them too (the plain
    catalogue has the built-in games only)."""
    risk = "scenarios/games/risk.toml"
    result = runner.invoke(app, ["games", risk])
    assert result.exit_code == 0, result.output
    assert f"[montecarlo odds {risk}]" in result.output and "variant ties_to_attacker" in result.output
    helped = runner.invoke(app, ["odds", risk, "--help"], env={"COLUMNS": "200"}).output
    named = "house rule to apply (repeatable): ties_to_attacker, defender_three_dice, both_house_rules"
    assert named in helped
    missing = runner.invoke(app, ["games", "nope.toml"])
    assert missing.exit_code == 2 and "nope.toml: no such game definition file" in missing.output


def test_games_on_a_terminal_wraps_each_entry_under_its_name(monkeypatch, capsys):
    """Piped, one line an entry (for grep); on a terminal each entry wrapped to its width with a
    hanging indent, and the command that asks a question never split."""
    from montecarlo.cli import games

    piped = runner.invoke(app, ["games"]).output.splitlines()
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # capsys's stdout
    games()
    shown = capsys.readouterr().out.splitlines()
    assert max(map(len, shown)) <= 59 < max(map(len, piped))
    entries = [line for line in shown if not line.startswith("      ")]
    assert [line.split(":")[0] for line in entries] == [line.split(":")[0] for line in piped]
    assert " ".join(" ".join(shown).split()) == " ".join(" ".join(piped).split())  # the same words
    assert all(line.count("[") == line.count("]") for line in shown)


def run_main(*args):
    return subprocess.run(
        [sys.executable, "-m", "montecarlo", *args], capture_output=True, text=True, timeout=120
    )


def test_usage_errors_are_one_line_with_exit_2():
    for args in (["odds", "nosuchgame"], ["frobnicate"], ["odds", "dune1984", "--trials", "many"]):
        proc = run_main(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_help_exits_zero():
    proc = run_main("--help")
    assert proc.returncode == 0 and "odds" in proc.stdout


def test_precision_runs_say_how_many_trials_they_took():
    import json

    result = runner.invoke(
        app, ["odds", "dune1984", "-a", "4", "-d", "5", "--precision", "0.01", "-n", "1000", "-q"]
    )
    assert result.exit_code == 0, result.output
    assert "precision ±0.01 reached after" in " ".join(result.output.split())
    data = json.loads(
        runner.invoke(
            app, ["odds", "dune1984", "-a", "4", "-d", "5", "--precision", "0.01", "-n", "1000", "--json"]
        ).output
    )
    assert data["precision"] == 0.01
    widest = (
        max(m["ci_high"] - m["ci_low"] for name, m in data["metrics"].items() if "rounds" not in name) / 2
    )
    assert widest <= 0.01 and data["trials"] > 1000


def test_the_variant_help_says_where_the_house_rules_are_listed(tmp_path):
    """A battle file's command names its own house rules, or says it has none."""
    def variant_help(*command):
        text = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"}).output
        shown = (line.strip("│ ") for line in text.splitlines() if "house rule" in line)
        return " ".join(" ".join(shown).split())

    broken = tmp_path / "broken.toml"  # its variants unknown until it loads: its error comes when run
    broken.write_text('format = "dice-battle/1"\n')
    assert "Named house rule to apply (repeatable); `montecarlo games` lists them." in variant_help(
        "odds", str(broken)
    )
    plain = tmp_path / "plain.toml"
    text = (Path(__file__).parents[2] / "scenarios/games/risk.toml").read_text()
    plain.write_text(text[: text.index("[variants")] + text[text.index("[dice"):])
    assert "Named house rule to apply (repeatable): none here." in variant_help("odds", str(plain))


def test_the_run_options_show_what_they_take_and_their_flags_are_off_by_default():
    """The help names what each run option takes (N, H, NAME, ADDRESS, FILE: not <int> or <text>),
    and --json and --quiet are off unless given."""
    text = runner.invoke(app, ["odds", "dune1984", "--help"], env={"COLUMNS": "200"}).output
    rows = {line.split()[1]: line.split()[2:4] for line in text.splitlines() if line.startswith("│ --")}
    takes = {"--jobs": "N", "--precision": "H", "--max-trials": "N", "--backend": "NAME",
             "--scheduler": "ADDRESS", "--checkpoint": "FILE"}
    for flag, metavar in takes.items():
        assert metavar in rows[flag][:2], (flag, rows[flag])
    assert rows["--variant"][:2] == ["-v", "NAME"]
    table = runner.invoke(app, ["odds", "dune1984", "-a", "4", "-d", "5", "-n", "1000"])
    assert table.exit_code == 0 and not table.stdout.lstrip().startswith("{")  # a table, not JSON


def test_odds_help_tells_of_battle_files():
    """The README's `odds FILE.toml` form worked, but `odds --help` listed only the four games."""
    shown = CliRunner().invoke(app, ["odds", "--help"], env={"COLUMNS": "200"}).stdout
    assert "montecarlo odds FILE.toml --set FIELD=VALUE" in " ".join(shown.split())


def test_games_with_a_game_name_lists_that_game_alone_with_its_own_commands():
    """`games dune1984` listed every game, and dune1984's questions under `odds dune1984` (which
    asks the duel), as if the name were a battle file."""
    shown = CliRunner().invoke(app, ["games", "dune1984"], env={"COLUMNS": "200"}).stdout
    titles = [line for line in shown.splitlines() if not line.startswith(" ")]
    assert titles == ["dune1984: Dune (Parker Brothers, 1984)"]
    assert "[montecarlo dune1984 guile]" in shown and "[montecarlo odds dune1984]" not in shown


def test_games_lists_a_games_commands_beside_its_questions_so_the_advice_is_found():
    """The advice commands were listed nowhere but in the game's own --help (best-play audit)."""
    shown = CliRunner().invoke(app, ["games", "war-for-arrakis"], env={"COLUMNS": "200"}).stdout
    assert ("  command advise: Best play for the attacker, exactly: continue or retreat after a round, "
            "which leaders use Specials.  [montecarlo war-for-arrakis advise]") in shown
    assert "command battle" not in shown  # a question's command is listed as the question
    every = CliRunner().invoke(app, ["games"], env={"COLUMNS": "200"}).stdout
    assert "[montecarlo dustrunners advise]" in every


def test_a_path_where_a_game_goes_is_told_that_battle_files_end_in_toml():
    proc = run_main("odds", "/tmp")  # a folder (of battle files, say) was an 'unknown game'
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        "error: '/tmp' is a folder, not a game; known: dune1984, dustrunners, imperium, war-for-arrakis "
        "(or a battle file, FILE.toml)"
    )
    proc = run_main("odds", "./nope")
    assert proc.stderr.startswith("error: unknown game './nope'; known: dune1984, dustrunners, imperium, "
                                  "war-for-arrakis (or a battle file, FILE.toml)")
    proc = run_main("table", "/tmp")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: '/tmp' is a folder, not a game; games with one: dune1984")
