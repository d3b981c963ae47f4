"""Dune: Imperium (2020): who takes which reward of one conflict, ties, expected points.

``montecarlo imperium conflict`` (also ``montecarlo odds imperium``) asks one conflict.

Shows each seat's chance of the first, second and third reward and of nothing, the chance of
a tie for first and for second, and (with ``--conflict``) each seat's expected victory points,
simulated and exact. Only the setup's seats are shown; the metrics of absent seats, which the
question always carries, are dropped from the table and the JSON.
"""

from typing import Annotated, Optional

import typer

from montecarlo.cli.common import RunOptions, asks, console, emit, run_command
from montecarlo.games.imperium import CONFLICTS, DECKS

_TROOPS_HELP = (
    "Troops in the conflict, one entry per seat, comma-separated: a count (3), an equally likely "
    "range (1-3), a distribution ('0:1/4|2:3/4'), or the deployment rule "
    "'deploy:R+G[:max|recruited|uniform]' "
    "(R recruited this turn + up to two of the G in the garrison)."
)


app = typer.Typer(
    help=(__doc__ or "").split("\n")[0], no_args_is_help=True  # as `montecarlo --help` says it
)


@app.command("conflict")
@asks("conflict")
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
    players: Annotated[
        Optional[int],
        typer.Option(
            "--players",
            help="Seats in the conflict (2-4): one --troops, --revealed or --intrigue entry then stands "
            "for every seat.",
        ),
    ] = None,
    hagal: Annotated[
        Optional[str],
        typer.Option(
            "--hagal",
            help="Seat(s) that are House Hagal, the rival of a two-player game: give its strength "
            "as that seat's troops (2 each) and intrigue, revealed 0; its rewards count for nobody.",
        ),
    ] = None,
) -> None:
    """Reward odds of one conflict (2-4 players), ties, and expected points, with exact values.

    Examples:

      montecarlo odds imperium --troops 3,2,2,1 --revealed 3

      montecarlo imperium conflict -t 2,2 -r 3,5 --conflict skirmish -v tiebreak_by_seat

      montecarlo imperium conflict -t 2,2,2 -r 3,3,0 --hagal 3 --conflict skirmish

      montecarlo imperium conflict -t 0-3 --players 4
    """
    setup = {
        "troops": troops,
        "revealed": revealed,
        "intrigue": intrigue,
        "deck": deck,
        "conflict": conflict,
        "hagal": hagal,
        **({} if players is None else {"players": players}),
    }
    answer = run.ask("imperium", "conflict", setup, label="imperium conflict")
    s = answer.setup
    title = f"Conflict: troops {','.join(t.spec for t in s.troops)}; revealed {_per_seat(s.revealed)}"
    if any(s.intrigue):
        title += f"; intrigue {_per_seat(s.intrigue)}"
    if s.hagal:
        title += f"; House Hagal: seat {', '.join(map(str, s.hagal))}"
    note = hagal_note(s)
    # emit leaves out what does not apply: seats the conflict lacks, points without a card
    emit(answer, run, title, {"house_hagal": note} if note else None)
    if note and not run.json:
        console().print(note, markup=False, highlight=False)
    if s.conflict and not run.json:
        card = CONFLICTS[s.conflict]
        places = ", ".join(f"{p} {r}" for p, r in zip(("first", "second", "third"), card.rewards))
        console().print(
            f"{card.title} (level {card.level or '-'}): {places}; source: {card.source}",
            markup=False,
            highlight=False,
        )


ODDS = conflict_odds
ODDS_SUMMARY = (  # odds --help's line for the game
    "Dune: Imperium: who takes which reward of one conflict, ties, "
    "expected points."
)


def hagal_note(setup) -> str:
    """What a reader of a two-seat conflict (or one with House Hagal) must know; "" otherwise."""
    if setup.hagal:
        seats = ", ".join(map(str, setup.hagal))
        return (
            f"House Hagal (seat {seats}): its strength is as given; it takes places like a player, but "
            "its rewards count for nobody (no points shown). The House Hagal rules sheet is not "
            "modelled: its cards decide its strength in a real game."
        )
    if setup.players == 2:
        return (
            "House Hagal: a real two-player game also has House Hagal's strength in the conflict "
            "(its cards are on a separate rules sheet, not modelled); to include it, add a seat with "
            "its strength as troops (2 each) and intrigue, revealed 0, and name it with --hagal 3."
        )
    return ""


def _per_seat(values: tuple[int, ...]) -> str:
    return str(values[0]) if len(set(values)) == 1 else ",".join(map(str, values))
