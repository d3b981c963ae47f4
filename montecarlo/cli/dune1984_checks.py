"""Guile checks, movement reach and investments of Dune (1984): ``dune1984 guile | reach | invest``.

Each command simulates one setup and prints estimate, 95% interval and exact value; in table
mode it adds one exact extra: the Spice ladder (guile), or the break-even payout ratio (invest).
:mod:`montecarlo.cli.dune1984` registers them.
"""

import dataclasses
from typing import Annotated, Optional

import typer

from montecarlo.cli.common import RunOptions, asks, console, emit, fmt_prob, parse_int_list, run_command, say
from montecarlo.games.dune1984.checks import spice_ladder
from montecarlo.games.dune1984.movement import break_even_payout, check_sums
from montecarlo.games.dune1984.rules import CHARACTERS

_ROLL_TEXT = {"d6": "1d6 <= Guile", "d8": "1d8 <= Guile", "2d6": "2d6 <= 2 x Guile"}


@asks("guile")
@run_command
def guile(
    run: RunOptions,
    guile: Annotated[
        str,
        typer.Option("--guile", "-g", help="Printed Guile 0..10, or a character name (e.g. Leto, Kynes)."),
    ],
    spice: Annotated[
        int, typer.Option("--spice", help="Spice paid for this attack (every 3 buy +1 Guile).")
    ] = 0,
    stillsuit: Annotated[
        bool, typer.Option("--stillsuit", help="+1 Guile (Worm or Sand Storm on a desert space).")
    ] = False,
) -> None:
    """Survival of one Guile check (Sand Storm, Worm, Poison), and what more Spice would buy.

    Examples:

      montecarlo dune1984 guile --guile 3 --spice 3

      montecarlo dune1984 guile --guile Kynes --stillsuit -v guile_check_2d6
    """
    answer = run.ask(
        "dune1984", "guile", {"guile": guile, "spice": spice, "stillsuit": stillsuit}, label="dune1984 guile"
    )
    s, rules = answer.setup, answer.rules
    named = CHARACTERS.get(s.character.lower()) if s.character else None
    who = f"{s.character} (Strength {named.strength}, Guile {s.guile})" if named else f"Guile {s.guile}"
    extras = "".join((f" + {s.spice} Spice" if s.spice else "", " + Stillsuit" if s.stillsuit else ""))
    steps = spice_ladder(rules, s.guile, s.stillsuit)
    total = f" = Guile {s.effective_guile(rules)}" if extras else ""  # "Guile 7 = Guile 7" says nothing
    emit(
        answer,
        run,
        f"{who}{extras}{total}; survive if {_ROLL_TEXT[rules.guile_roll]}",
        extra={"spice_ladder": [dataclasses.asdict(step) for step in steps]},
        setup_extra={"strength": named.strength} if named else None,
    )
    if run.json:
        return
    from rich.table import Table

    ladder = Table(title=f"Spice ladder, exact ({rules.spice_per_guile} Spice = +1 Guile)")
    for column in ("Spice", "Guile", "survive", "gain", "Spice per % point"):
        ladder.add_column(column, justify="right")
    for step in steps:
        first = step.spice_per_point is None
        ladder.add_row(
            str(step.spice),
            str(step.guile),
            fmt_prob(step.survive),
            "—" if first else fmt_prob(step.gain),
            "—" if first else f"{step.spice_per_point:.3f}",
        )
    console().print(ladder)


@asks("reach")
@run_command
def reach(
    run: RunOptions,
    distance: Annotated[
        int, typer.Option("--distance", help="Spaces to the target, 1..12 (1..6 in a split roll: one die).")
    ],
    second_distance: Annotated[
        Optional[int],
        typer.Option("--second-distance", "-e", help="A second character's target for a split roll, 1..6."),
    ] = None,
) -> None:
    """Can a 2d6 movement roll land exactly on the target (one character, or a split roll)?

    With --second-distance the roll is split: each character moves by one die, so both
    distances are 1..6.

    Examples:

      montecarlo dune1984 reach --distance 9

      montecarlo dune1984 reach --distance 5 --second-distance 4
    """
    setup = {"distance": distance, "second_distance": second_distance}
    answer = run.ask("dune1984", "reach", setup, label="dune1984 reach")
    second = f" and {second_distance} (split roll)" if second_distance is not None else ""
    emit(answer, run, f"Movement reach: exactly {distance} spaces{second}")


@asks("invest")
@run_command
def invest(
    run: RunOptions,
    sums: Annotated[str, typer.Option("--sums", help="The space's two target sums of 2d6, e.g. 3,11.")],
    payout: Annotated[
        str,
        typer.Option("--payout", "-x", help="Payout ratio: x or x:1 (Spice from the Bank per Spice staked)."),
    ],
    players: Annotated[int, typer.Option("--players", "-p", help="Players (turns per round), 2..4.")] = 4,
    stake: Annotated[int, typer.Option("--stake", help="Spice staked.")] = 1,
) -> None:
    """Does a stake on an investment space pay before it is lost, and what is it worth?

    Examples:

      montecarlo dune1984 invest --sums 3,11 --payout 2 --players 4

      montecarlo dune1984 invest --sums 2,12 --payout 5:1 --stake 3
    """
    targets = parse_int_list(sums, "--sums")
    check_sums(targets, f"--sums {sums.strip() or repr(sums)}")  # named as typed, not as sorted
    answer = run.ask(
        "dune1984",
        "invest",
        {"sums": targets, "payout": payout, "players": players, "stake": stake},
        label="dune1984 invest",
    )
    s = answer.setup
    break_even = break_even_payout(s.sums, s.players)
    emit(
        answer,
        run,
        f"Stake {s.stake} on {s.sums[0]}, {s.sums[1]} at {s.payout:g}:1, {s.players} players",
        extra={"break_even_payout": break_even},
    )
    if not run.json:
        say(f"break-even payout ratio (exact): {break_even:.3f}:1 (1/returns - 1)")
