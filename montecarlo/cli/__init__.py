"""The ``montecarlo`` command: thin typer commands over :mod:`montecarlo.analysis`.

Every mistake of the user's ends as one line on stderr and exit code 2, never a traceback.
"""

import sys

import typer

try:  # recent typer vendors its own copy of click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer on top of click
    from click import exceptions as click_exceptions

from montecarlo import __version__
from montecarlo.errors import MonteCarloError

app = typer.Typer(
    name="montecarlo",
    help="Balance questions about board-game rules, answered by simulation and exact computation.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
odds_app = typer.Typer(help="Odds of one situation: estimate, 95% interval and exact value.", no_args_is_help=True)
table_app = typer.Typer(help="Whole tables of odds (estimate and exact).", no_args_is_help=True)
app.add_typer(odds_app, name="odds")
app.add_typer(table_app, name="table")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"montecarlo {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """Balance questions about board-game rules, answered by simulation and exact computation."""


@app.command("games")
def games() -> None:
    """List the modelled games, their questions and variants."""
    from montecarlo.games import get_game, list_games

    for name in list_games():
        game = get_game(name)
        typer.echo(f"{name}: {game.title}")
        for q in game.questions.values():
            typer.echo(f"  question {q.name}: {q.description}")
        for v in game.variants:
            desc = game.variant_descriptions.get(v, "")
            typer.echo(f"  variant {v}" + (f": {desc}" if desc else ""))


# The modules below add their commands to ``app`` when imported.
from montecarlo.cli import dune1984, imperium, reports  # noqa: E402,F401


def main() -> None:
    """Entry point: run the app, turning usage errors and domain errors into one line + exit 2."""
    command = typer.main.get_command(app)
    try:
        code = command.main(args=sys.argv[1:], prog_name="montecarlo", standalone_mode=False)
    except click_exceptions.UsageError as exc:
        path = exc.ctx.command_path if exc.ctx else "montecarlo"
        typer.echo(f"error: {exc.format_message()} (see: {path} --help)", err=True)
        sys.exit(2)
    except MonteCarloError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("interrupted", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
