"""Dune (Parker Brothers, 1984): duels and fights, Guile checks, movement reach, investments.

The game's CLI module: ``app`` holds one command per question (``montecarlo dune1984 duel``,
``fight``, ``guile``, ``reach``, ``invest``) plus ``advise`` and ``characters``; ``ODDS`` is the duel
(``montecarlo odds dune1984``) and ``TABLE`` its 6 x 6 table (``montecarlo table dune1984``).
The commands themselves live in :mod:`.dune1984_fights` and :mod:`.dune1984_checks`.
"""

import json
from typing import TYPE_CHECKING, Annotated

import typer

from montecarlo.cli.common import console
from montecarlo.cli.dune1984_advice import advise
from montecarlo.cli.dune1984_checks import guile, invest, reach
from montecarlo.cli.dune1984_fights import duel, duel_table, fight
from montecarlo.games.dune1984.rules import CHARACTERS, short_names

if TYPE_CHECKING:  # rich is imported lazily, for a fast start
    from rich.console import JustifyMethod

app = typer.Typer(
    help=(__doc__ or "").split("\n")[0],  # the words `montecarlo --help` shows for the game too
    no_args_is_help=True,
)
app.command("duel")(duel)
app.command("fight")(fight)
app.command("guile")(guile)
app.command("reach")(reach)
app.command("invest")(invest)
app.command("advise")(advise)

ODDS = duel
ODDS_SUMMARY = (  # odds --help's line for the game
    "Dune (1984): one duel of two characters (fights, Guile, reach and "
    "investments: montecarlo dune1984)."
)
TABLE_SUMMARY = (  # table --help's line
    "Dune (1984): duel odds for every pair of Strengths, estimates beside "
    "exact values."
)
TABLE = duel_table


@app.command("characters")
def characters(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object on stdout instead of a table.")
    ] = False,
) -> None:
    """Every character with house colour, Strength and Guile, and the short names that find them.

    Any option that takes a character accepts its printed name, a word of it that fits only one
    character (Paul, Kynes, Shaddam, Baron), or a common name (Feyd-Rautha, Rabban).

    Examples:

      montecarlo dune1984 characters
    """
    short = {c.name: short_names(c.name) for c in CHARACTERS.values()}
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "characters": [
                        {
                            "name": c.name,
                            "house_colour": c.colour,
                            "strength": c.strength,
                            "guile": c.guile,
                            "also": short.get(c.name, []),
                        }
                        for c in CHARACTERS.values()
                    ]
                }
            )
        )
        return
    from rich.table import Table

    table = Table(title="Dune (1984) characters")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("name", "left"),
        ("colour", "left"),
        ("Strength", "right"),
        ("Guile", "right"),
        ("also found as", "left"),
    )
    for column, justify in columns:
        table.add_column(column, justify=justify)
    for c in CHARACTERS.values():
        table.add_row(c.name, c.colour, str(c.strength), str(c.guile), ", ".join(short.get(c.name, [])))
    console().print(table)
