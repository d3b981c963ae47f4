"""``montecarlo odds PATH.toml --set NAME=VALUE ...``: odds of a battle defined in a data file.

The file is a game definition (``docs/rules-as-data.md``); ``--set`` gives its setup fields and
``--variant`` names its variants. The answer has the common JSON shape, exact values beside the
estimates; when the battle's chain is too large for the exact solver the battle is simulated
round by round and the output says so (``extra.exact_note`` in JSON).

:func:`odds_file` does the work. Two ways for the root CLI to route ``odds X.toml`` here:
:func:`odds_command` is a typer command whose first argument is the file, and
:func:`command_for` gives the click command for one file when the file's path has already been
read as the sub-command's name (``montecarlo odds X.toml --set ...`` in a group of games): the
odds group's ``get_command(ctx, name)`` returns ``command_for(name)`` when ``name`` ends in
``.toml``.
"""

from pathlib import Path
from typing import Annotated, Optional, Sequence

import typer

from montecarlo.cli.common import RunOptions, emit, field_value, run_command, say, solving
from montecarlo.errors import InputError
from montecarlo.registry import check_battle_name, names_a_file


def parse_set(values: Sequence[str]) -> dict[str, str]:
    """``["attackers=5", "defenders=3"]`` -> ``{"attackers": "5", "defenders": "3"}``.

    >>> parse_set(["attackers=5", " defenders = 3"])
    {'attackers': '5', 'defenders': '3'}
    """
    out: dict[str, str] = {}
    for item in values:
        name, value = field_value(str(item), "--set", "--set attackers=5")
        if name in out:
            raise InputError(f"--set {name} is given twice; give each setup field once")
        out[name] = value
    return out


def odds_file(path: str | Path, set_values: Sequence[str], run: RunOptions) -> None:
    """Simulate the battle a definition file describes and print estimates beside exact values."""
    from montecarlo.datagame import load_compiled

    if not names_a_file(path):
        raise InputError(f"{path}: a game definition is a .toml file (see docs/rules-as-data.md)")
    compiled = load_compiled(path)
    game = compiled.game
    check_battle_name(game, str(path))  # as the registry refuses it: a name a game montecarlo has
    question = game.question()
    # a field not set takes the file's example value; the title shows every value used
    values = {**{name: str(v) for name, v in question.example.items()}, **parse_set(set_values)}
    setup = question.setup(values)  # every input checked before any trial
    rules = game.rules(run.variant)
    limit = compiled.d.exact_max_states
    slow = (f"working out the exact chain of {path} (up to {limit:,} states; a lower exact_max_states in "
            "the file gives up sooner)")
    with solving(slow):  # a battle far above the limit walked its chain for minutes with no word
        note = question.why_no_exact(rules, setup) if question.why_no_exact is not None else None
    answer = run.ask(game, None, setup)
    shown = ", ".join(f"{k} {v}" for k, v in vars_of(setup).items())
    emit(answer, run, f"{game.title}: {shown}", extra={"exact_note": note} if note else None, game=game)
    if note and not run.json:
        say(f"note: {note}")


def vars_of(setup) -> dict:
    import dataclasses

    return {f.name: getattr(setup, f.name) for f in dataclasses.fields(setup)}


@run_command
def odds_command(
    run: RunOptions,
    path: Annotated[
        Path, typer.Argument(metavar="FILE", help="Game definition file (.toml), see docs/rules-as-data.md.")
    ],
    set_values: Annotated[
        Optional[list[str]],
        typer.Option("--set", help="A setup field as NAME=VALUE (repeatable), e.g. --set attackers=5."),
    ] = None,
) -> None:
    """Odds of a battle defined in a data file: estimate, 95% interval and exact value."""
    odds_file(path, set_values or [], run)


def _file_variants(path: str) -> tuple[str, ...] | None:
    """The house rules a definition file names (None for a file that does not load: its error
    comes when the command runs)."""
    try:
        from montecarlo.datagame import load_compiled

        return tuple(load_compiled(path).d.variants)
    except Exception:
        return None


def setup_fields_help(path: str) -> str:
    """The --set help of a definition file: each setup field, its range, default and meaning."""
    generic = "A setup field as NAME=VALUE (repeatable), e.g. --set attackers=5."
    try:
        from montecarlo.datagame import load_compiled

        fields = load_compiled(path).d.setup
    except Exception:  # a file that does not load: its error comes when the command runs
        return generic
    listed = "; ".join(  # a description that only repeats the name (none given) is left out
        f"{f.name} ({f.low}..{f.high}, default {f.example})"
        + (f": {f.description}" if f.description.strip() != f.name else "")
        for f in fields
    )
    return f"A setup field as NAME=VALUE (repeatable). Fields: {listed}."


def command_for(path: str):
    """The click command that ``montecarlo odds PATH.toml`` runs once PATH named the sub-command."""

    @run_command(variants=_file_variants(path))  # `montecarlo games` lists only the built-in games'
    def odds_toml(
        run: RunOptions,
        set_values: Annotated[
            Optional[list[str]],
            typer.Option("--set", metavar="NAME=VALUE", help=setup_fields_help(path)),
        ] = None,
    ) -> None:
        odds_file(path, set_values or [], run)

    odds_toml.__doc__ = (
        f"Odds of the battle defined in {path}: estimate, 95% interval and exact value. A setup "
        "field not given with --set takes the file's example value."
    )
    holder = typer.Typer()
    holder.command(path)(odds_toml)
    return typer.main.get_group(holder).commands[path]
