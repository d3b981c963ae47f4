"""Dune: Imperium (2020): who takes which reward of one conflict, ties, expected points.

``montecarlo imperium conflict`` (also ``montecarlo odds imperium``) asks one conflict.

Shows each seat's chance of the first, second and third reward and of nothing, the chance of
a tie for first and for second, and (with ``--conflict``) each seat's expected victory points,
simulated and exact. Only the setup's seats are shown; the metrics of absent seats, which the
question always carries, are dropped from the table and the JSON.
"""

import dataclasses
from typing import Annotated, Optional

import typer

from montecarlo.analysis import ask
from montecarlo.cli.common import RunOptions, console, emit, run_command
from montecarlo.games.imperium import CONFLICTS, DECKS

_TROOPS_HELP = (
    "Troops in the conflict, one entry per seat, comma-separated: a count (3), an equally likely "
    "range (1-3), a distribution ('0:1/4|2:3/4'), or the deployment rule "
    "'deploy:R+G[:max|recruited|uniform]' "
    "(R recruited this turn + up to two of the G in the garrison)."
)


app = typer.Typer(
    help="Dune: Imperium (2020): rewards of one conflict, ties and expected points.", no_args_is_help=True
)


@app.command("conflict")
@run_command
def conflict_odds(
    run: RunOptions,
    troops: Annotated[str, typer.Option("--troops", "-t", help=_TROOPS_HELP)],
    revealed: Annotated[
        str,
        typer.Option("--revealed", "-r", help="Cards revealed from the deck: one value, or one per seat."),
    ] = "3",
    intrigue: Annotated[
        str,
        typer.Option(
            "--intrigue",
            "-i",
            help="Combat intrigue strength: one value, or one per seat "
            "(counts only with troops in the conflict).",
        ),
    ] = "0",
    deck: Annotated[
        str, typer.Option("--deck", help=f"Deck every seat reveals from: {', '.join(DECKS)}.")
    ] = "starting",
    conflict: Annotated[
        Optional[str],
        typer.Option(
            "--conflict", "-c", help=f"Conflict card, for expected victory points: {', '.join(CONFLICTS)}."
        ),
    ] = None,
) -> None:
    """Reward odds of one conflict (2-4 players), ties, and expected points, with exact values.

    Examples:

      montecarlo odds imperium --troops 3,2,2,1 --revealed 3

      montecarlo imperium conflict -t 2,2 -r 3,5 --conflict skirmish -v tiebreak_by_seat
    """
    setup = {"troops": troops, "revealed": revealed, "intrigue": intrigue, "deck": deck, "conflict": conflict}
    answer = ask(
        "imperium", "conflict", setup, variants=run.variant, settings=run.settings("imperium conflict")
    )
    s = answer.setup
    shown = {name: m for name, m in answer.metrics.items() if _shown(name, s.players, s.conflict)}
    title = f"Conflict: troops {','.join(t.spec for t in s.troops)}; revealed {_per_seat(s.revealed)}"
    if any(s.intrigue):
        title += f"; intrigue {_per_seat(s.intrigue)}"
    emit(dataclasses.replace(answer, metrics=shown), run, title)
    if s.conflict and not run.json:
        card = CONFLICTS[s.conflict]
        places = ", ".join(f"{p} {r}" for p, r in zip(("first", "second", "third"), card.rewards))
        console().print(
            f"{card.title} (level {card.level or '-'}): {places}; source: {card.source}",
            markup=False,
            highlight=False,
        )


ODDS = conflict_odds


def _shown(name: str, players: int, conflict: Optional[str]) -> bool:
    """Is metric ``name`` about a seat the setup has (and, for points, is there a card)?"""
    if not name.startswith("seat"):
        return True
    seat = int(name[4 : name.index("_")])
    return seat <= players and (conflict is not None or not name.endswith("_points"))


def _per_seat(values: tuple[int, ...]) -> str:
    return str(values[0]) if len(set(values)) == 1 else ",".join(map(str, values))
