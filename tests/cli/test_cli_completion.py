"""Shell completion (bash protocol, as the installed script calls it) and -h as help."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def complete(line: str) -> list[str]:
    """What bash completion offers after ``line`` (a trailing space: a new, empty word)."""
    words = line.split()
    cword = len(words) if line.endswith(" ") else len(words) - 1
    env = {**os.environ, "COMP_WORDS": line, "COMP_CWORD": str(cword),
           "_MONTECARLO_COMPLETE": "complete_bash", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "montecarlo"], env=env, capture_output=True, text=True,
                         cwd=ROOT, check=True)
    return out.stdout.splitlines()


@pytest.mark.parametrize(
    "line, offered",
    [
        ("montecarlo od", ["odds"]),
        ("montecarlo odds ", ["dune1984", "dustrunners", "imperium", "war-for-arrakis"]),
        ("montecarlo table ", ["dune1984", "war-for-arrakis"]),
        ("montecarlo schema ", ["scenario", "battle"]),
        ("montecarlo war-for-arrakis ", ["battle", "storm", "worm", "hazards"]),
        ("montecarlo odds dune1984 -v ties", ["ties_favour_defender"]),
        ("montecarlo odds war-for-arrakis --variant one", ["one_round"]),
        ("montecarlo odds dune1984 --attacker Fe", ["Feyd"]),
        ("montecarlo dune1984 fight -a Paul,Ch", ["Paul,Chani"]),
        ("montecarlo war-for-arrakis storm --terrain m", ["minor_erg", "mountain"]),
        ("montecarlo odds war-for-arrakis --policy max", ["max_rounds:"]),
        ("montecarlo odds dustrunners --deck ", ["illustrative", "illustrative-12"]),
        ("montecarlo odds dustrunners --enemy war", ["war-rig"]),
        ("montecarlo odds dustrunners --vehicle h", ["hauler"]),
    ],
)
def test_completes_names(line, offered):
    got = complete(line)
    assert all(name in got for name in offered), got
    if not line.endswith(" "):  # a prefix: nothing that does not start with it
        last = line.split()[-1]
        assert all(g.startswith(last) or "," in last for g in got), got


def test_listing_games_imports_no_game_module():
    """Completing a command name stays fast: the stubs answer, no game module is loaded."""
    code = (
        "import sys, os; from montecarlo.cli import app; import typer;"
        "os.environ.update(COMP_WORDS='montecarlo odds ', COMP_CWORD='2',"
        " _MONTECARLO_COMPLETE='complete_bash');"
        "cmd = typer.main.get_command(app)\n"
        "try: cmd.main(args=[], prog_name='montecarlo', standalone_mode=False)\n"
        "except SystemExit: pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('montecarlo.cli.') or m == 'numpy'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_show_completion_prints_a_script():
    # the shell named, not detected: typer otherwise looks for a shell among the parent processes
    # and finds none when the suite runs detached from a terminal (nohup, a mutation run)
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    out = subprocess.run([sys.executable, "-m", "montecarlo", "--show-completion", "bash"],
                         capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 0 and "_MONTECARLO_COMPLETE" in out.stdout


@pytest.mark.parametrize("args", [["-h"], ["odds", "dune1984", "-h"], ["war-for-arrakis", "storm", "-h"],
                                  ["report", "-h"]])
def test_dash_h_is_help(args):
    out = subprocess.run([sys.executable, "-m", "montecarlo", *args], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.returncode == 0 and "Usage:" in out.stdout, out.stderr
