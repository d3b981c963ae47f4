"""``montecarlo odds dune1984``, ``table dune1984`` and ``dune1984 fight``: Strength fights.

Thin commands over :func:`montecarlo.analysis.ask`: options become a setup (names, Strengths,
comma-separated equipment), the answer is printed with its exact values beside the estimates.
"""

import dataclasses
import json
import sys
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from montecarlo.analysis import ask
from montecarlo.cli import odds_app, table_app
from montecarlo.cli.common import RunOptions, emit, fmt_prob, run_command
from montecarlo.cli.dune1984 import dune1984_app
from montecarlo.errors import InputError
from montecarlo.games.base import to_plain
from montecarlo.games.dune1984.fights import STRENGTHS

TABLE_TRIALS = 50_000  # trials per cell of ``table dune1984`` unless --trials is given

Kit = Annotated[Optional[str], typer.Option(help="Comma-separated equipment: sword, gom-jabbar, poison.")]
Guile = Annotated[Optional[int], typer.Option(help="Guile for Poison checks (default: the character's, or 3).")]
Guiles = Annotated[Optional[str], typer.Option(help="Comma-separated Guile per character (default: their own, or 3).")]
_ONE, _MANY = "Strength 1..6 or a character name, e.g. 'Paul Atreides'.", "Comma-separated Strengths or names, 1..3."
Attacker, Defender = (Annotated[str, typer.Option(f"--{side}", f"-{side[0]}", help=_ONE)] for side in ("attacker", "defender"))
Attackers, Defenders = (Annotated[str, typer.Option(f"--{side}", f"-{side[0]}", help=_MANY)] for side in ("attacker", "defender"))


def _kit(names: tuple[str, ...]) -> str:
    return " with " + ", ".join(n.replace("_", " ").title() for n in names) if names else ""


def _who(labels, kit: tuple[str, ...]) -> str:
    """'Strength 4', 'Paul Atreides', 'Strengths 4 + 3', plus the equipment."""
    labels = labels if isinstance(labels, tuple) else (labels,)
    names = [f"Strength {v}" if isinstance(v, int) else v for v in labels]
    if len(labels) > 1 and all(isinstance(v, int) for v in labels):
        names = ["Strengths " + " + ".join(str(v) for v in labels)]
    return " + ".join(names) + _kit(kit)


def _title(kind: str, setup) -> str:
    return (f"Dune (1984) {kind}: {_who(setup.attacker, setup.attacker_equipment)} (attacker) vs "
            f"{_who(setup.defender, setup.defender_equipment)} (defender)")


def _ask(question: str, run: RunOptions, settings=None, **setup):
    return ask("dune1984", question, setup, variants=run.variant, settings=settings or run.settings())


def _notes(answer, run: RunOptions) -> None:
    """The interpretations a reader must know about, under the table."""
    if run.json:
        return
    s = answer.setup
    guile = lambda g: ", ".join(map(str, g)) if isinstance(g, tuple) else str(g)  # noqa: E731
    if "poison" in s.attacker_equipment + s.defender_equipment:
        typer.echo(f"Poison (an interpretation): after the holder's first point of damage the damaged character "
                   f"makes a Guile check ({answer.rules.guile_roll}) or is eliminated; Guile "
                   f"{guile(s.attacker_guile)} (attacker), {guile(s.defender_guile)} (defender).")


@odds_app.command("dune1984")
@run_command
def odds_duel(
    run: RunOptions,
    attacker: Attacker,
    defender: Defender,
    attacker_equipment: Kit = None,
    defender_equipment: Kit = None,
    attacker_guile: Guile = None,
    defender_guile: Guile = None,
) -> None:
    """Odds of one Dune (1984) duel: who wins, in how many rolls, with what Strength left."""
    answer = _ask("duel", run, attacker=attacker, defender=defender, attacker_equipment=attacker_equipment,
                  defender_equipment=defender_equipment, attacker_guile=attacker_guile, defender_guile=defender_guile)
    emit(answer, run, _title("duel", answer.setup))
    _notes(answer, run)


@dune1984_app.command("fight")
@run_command
def fight(
    run: RunOptions,
    attacker: Attackers,
    defender: Defenders,
    attacker_equipment: Kit = None,
    defender_equipment: Kit = None,
    attacker_guile: Guiles = None,
    defender_guile: Guiles = None,
) -> None:
    """Odds of a fight with several characters a side (summed Strength, one designated to take damage)."""
    answer = _ask("fight", run, attacker=attacker, defender=defender, attacker_equipment=attacker_equipment,
                  defender_equipment=defender_equipment, attacker_guile=attacker_guile, defender_guile=defender_guile)
    rules = answer.rules
    emit(answer, run, _title("fight", answer.setup) + f"; {rules.designation.replace('_', ' ')}"
         + (", fight to the last" if rules.fight_to_last else ""))
    _notes(answer, run)


@table_app.command("dune1984")
@run_command
def duel_table(
    ctx: typer.Context,
    run: RunOptions,
    attacker_equipment: Kit = None,
    defender_equipment: Kit = None,
    metric: Annotated[str, typer.Option("--metric", "-m", help="e.g. attacker_win, rounds, winner_strength=3.")] = "attacker_win",
) -> None:
    """The 6 x 6 table of a duel metric: rows = attacker Strength, columns = defender Strength.

    Each cell is 'estimate (exact)'. Default 50,000 trials per cell.
    """
    from montecarlo.games import get_game

    question = get_game("dune1984").question("duel")
    if metric not in question.reported_names():
        raise InputError(f"unknown metric {metric!r} for the duel; known: {', '.join(question.reported_names())}")
    settings = run.settings()
    if ctx.get_parameter_source("trials").name == "DEFAULT":
        settings = dataclasses.replace(settings, trials=TABLE_TRIALS)
    cells = []
    for a in STRENGTHS:
        for d in STRENGTHS:
            answer = _ask("duel", run, settings, attacker=a, defender=d, attacker_equipment=attacker_equipment,
                          defender_equipment=defender_equipment)
            cells.append((a, d, answer.metrics[metric]))
    if run.json:
        typer.echo(json.dumps({
            "game": "dune1984", "question": "duel", "metric": metric, "trials": answer.trials, "seed": answer.seed,
            "variants": list(run.variant), "rules": to_plain(answer.rules),
            "setup": {"attacker_equipment": list(answer.setup.attacker_equipment),
                      "defender_equipment": list(answer.setup.defender_equipment)},
            "cells": [{"attacker": a, "defender": d, **m.to_json()} for a, d, m in cells],
        }))
        return
    digits = 3 if metric.startswith(("attacker_win", "poisoned", "winner_strength")) else 2
    rules = ", ".join(run.variant) or "official rules"
    table = Table(
        title=f"Dune (1984) duel, {metric}: estimate (exact); attacker{_kit(answer.setup.attacker_equipment)} "
              f"vs defender{_kit(answer.setup.defender_equipment)}",
        caption=f"rows: attacker Strength, columns: defender Strength; {answer.trials:,} trials per cell, "
                f"seed {answer.seed}, {rules}",
    )
    table.add_column("A \\ D", justify="right")
    for d in STRENGTHS:
        table.add_column(str(d), justify="right")
    for a in STRENGTHS:
        row = [m for x, _, m in cells if x == a]
        table.add_row(str(a), *(f"{fmt_prob(m.estimate, digits)} ({fmt_prob(m.exact, digits)})" for m in row))
    Console(file=sys.stdout, width=max(120, Console().width)).print(table)
