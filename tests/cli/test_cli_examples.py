"""Every command shown in README.md and in each command's help runs as shown.

Simulations are shortened (``-n`` at most 2,000; scenario files copied with 2,000 trials, and
one scenario of a folder) so the whole file stays fast; everything else is run as written. A
README command followed by an ``error:`` line must fail with exit code 2 and print that line.
A README command followed by printed lines is also run exactly as written (same trials and seed,
so the same numbers) on a 200-column terminal, and every shown line with a number must be in its
output: a README whose numbers drift from the program's fails.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from montecarlo.cli import app
from montecarlo.cli.common import examples_of

try:
    from typer import _click as click
except ImportError:  # pragma: no cover
    import click

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
QUICK = 2000
runner = CliRunner()


def all_commands():
    """(path, command) of every command reachable from the root, groups included."""
    root = typer.main.get_command(app)
    found = [("montecarlo", root)]
    stack = [(click.Context(root, info_name="montecarlo"), root)]
    while stack:
        ctx, group = stack.pop()
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            path = f"{ctx.command_path} {name}"
            found.append((path, cmd))
            if hasattr(cmd, "list_commands"):
                stack.append((click.Context(cmd, info_name=name, parent=ctx), cmd))
    return found


def leaf_commands():
    return [(path, cmd) for path, cmd in all_commands() if not hasattr(cmd, "list_commands")]


def readme_commands() -> list[tuple[str, str | None]]:
    """(command line, expected error line or None) for each ``montecarlo`` line in README code blocks."""
    found = []
    for block in re.findall(r"```[^\n]*\n(.*?)```", README.read_text(), flags=re.S):
        lines = block.replace("\\\n", " ").splitlines()
        for i, line in enumerate(lines):
            text = line.strip().removeprefix("$ ")
            if not text.startswith("montecarlo "):
                continue
            after = lines[i + 1].strip() if i + 1 < len(lines) else ""
            found.append((text, after if after.startswith("error:") else None))
    return found


def readme_outputs() -> list[tuple[str, list[str]]]:
    """(command line, the printed lines shown under it that hold a number) from README code blocks.

    Box rules, header rows, elided lines (``...``) and JSON sketches are left out.
    """
    found = []
    for block in re.findall(r"```[^\n]*\n(.*?)```", README.read_text(), flags=re.S):
        command, shown = None, []
        for line in block.replace("\\\n", " ").splitlines() + ["$ montecarlo end"]:
            text = line.strip().removeprefix("$ ")
            if text.startswith("montecarlo "):
                if command is not None and shown:
                    found.append((command, shown))
                command, shown = text, []
            elif (
                command is not None
                and re.search(r"\d", text)
                and not text.startswith(("┃", "┏", "┡", "└", "├", "error:"))
                and "..." not in text
                and "{" not in text
            ):
                shown.append(text)
    return found


def _words(text: str) -> str:
    return " ".join(text.split())


def shrink(args: list[str], tmp_path: Path, has_trials: bool) -> list[str]:
    """The same command, smaller: fewer trials, scenario files copied with fewer trials, outputs in tmp."""
    args = list(args)
    for i, arg in enumerate(args):
        if arg in ("-n", "--trials") and i + 1 < len(args):
            args[i + 1] = str(min(int(args[i + 1]), QUICK))
        elif arg in ("-o", "--out") and i + 1 < len(args):
            args[i + 1] = str(tmp_path / "out" / Path(args[i + 1]).name)
        elif (ROOT / arg).is_file() and arg.endswith(".toml"):
            args[i] = str(_small_copy(ROOT / arg, tmp_path / "scenarios" / Path(arg).name))
        elif (ROOT / arg).is_dir() and list((ROOT / arg).glob("*/*.toml")):
            # a folder of scenarios: one of them, shortened, is enough to run the command through
            path = sorted((ROOT / arg).glob("*/*.toml"), key=lambda p: p.stat().st_size)[0]
            _small_copy(path, tmp_path / "all" / path.parent.name / path.name)
            args[i] = str(tmp_path / "all")
    if has_trials and not {"-n", "--trials"} & set(args) and "--precision" not in args:
        args += ["-n", str(QUICK)]
    return args


def _small_copy(source: Path, target: Path) -> Path:
    text = re.sub(r"(?m)^trials\s*=\s*\d+", f"trials = {QUICK}", source.read_text())
    text = re.sub(r"(?m)^precision\s*=\s*[\d.]+", "precision = 0.05", text)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    return target


def _has_trials(args: list[str]) -> bool:
    """Does the command named by ``args`` take --trials?"""
    commands = dict(all_commands())
    words = ["montecarlo"]
    for arg in args:
        if arg.startswith("-") or " ".join([*words, arg]) not in commands:
            break
        words.append(arg)
    cmd = commands[" ".join(words)]
    # a hidden --trials is there to refuse one (an exact table), not to take it
    return any("--trials" in getattr(p, "opts", ()) and not getattr(p, "hidden", False) for p in cmd.params)


def run_line(line: str, tmp_path: Path):
    args = shlex.split(line, comments=True)[1:]
    args = shrink(args, tmp_path, _has_trials(args))
    return runner.invoke(app, args)


def test_the_readme_shows_commands():
    assert len(readme_commands()) >= 8


def plain_id(value) -> str:
    """A test id that pytest finds again when it is passed on the command line (mutmut passes
    each test's id): a command's first 60 characters in ASCII; a printed output is "output" (its
    box-drawing characters would be escaped in the id, and such an id is not found)."""
    if not isinstance(value, str):
        return "output" if isinstance(value, (list, tuple)) else str(value)
    return value[:60].encode("ascii", "ignore").decode()


@pytest.mark.parametrize("line,error", readme_commands(), ids=plain_id)
def test_every_readme_command_runs(line, error, tmp_path):
    result = run_line(line, tmp_path)
    if error is None:
        assert result.exit_code == 0, (line, result.output)
        assert "error:" not in result.stderr
    else:
        assert result.exit_code == 2, (line, result.output)
        assert result.stderr.strip() == error


def test_the_readme_shows_printed_numbers():
    assert sum(len(shown) for _, shown in readme_outputs()) >= 40


@pytest.mark.parametrize("line,shown", readme_outputs(), ids=plain_id)
def test_every_number_the_readme_prints_is_what_the_command_prints(line, shown):
    words = shlex.split(line, comments=True)
    args = [str(ROOT / a) if "/" in a and (ROOT / a).exists() else a for a in words]
    result = runner.invoke(app, args[1:], env={"COLUMNS": "200"})
    assert result.exit_code == 0, (line, result.output)
    printed = _words(result.stdout)
    drifted = [text for text in shown if _words(text) not in printed]
    lines = "\n".join(drifted)
    assert not drifted, f"{line}: README lines not in the output:\n{lines}\n---\n{result.stdout}"


def help_examples() -> list[tuple[str, str]]:
    found = []
    for path, cmd in leaf_commands():
        for line in examples_of(cmd.help) + examples_of(cmd.epilog):
            found.append((path, line))
    return found


def test_every_command_help_ends_with_an_example():
    missing = [path for path, cmd in leaf_commands() if not examples_of(cmd.help) + examples_of(cmd.epilog)]
    assert not missing, f"commands without an example in their help: {missing}"


@pytest.mark.parametrize("path,line", help_examples(), ids=plain_id)
def test_every_help_example_runs(path, line, tmp_path):
    result = run_line(line, tmp_path)
    assert result.exit_code == 0, (path, line, result.output)
