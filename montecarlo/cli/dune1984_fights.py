"""Strength fights of Dune (1984): ``dune1984 duel`` (= ``odds dune1984``), ``dune1984 fight`` and
``table dune1984``.

Thin commands over :func:`montecarlo.analysis.ask`: options become a setup (names, Strengths,
comma-separated equipment), the answer is printed with its exact values beside the estimates.
:mod:`montecarlo.cli.dune1984` registers them.
"""

import dataclasses
import json
from typing import Annotated, Optional

import typer

from montecarlo.api import answer_of
from montecarlo.cli.common import (
    asks,
    note_variants_outside,
    RunOptions,
    not_blank,
    console,
    emit,
    fits_whole,
    interval_note,
    unknown_metric,
    fmt_chance,
    fmt_prob,
    print_explanations,
    run_command,
    say,
)
from montecarlo.errors import InputError
from montecarlo.games.base import to_plain
from montecarlo.games.dune1984.fights import STRENGTHS, check_best_alone
from montecarlo.games.dune1984.rules import CHARACTERS

TABLE_TRIALS = 50_000  # trials per cell of ``table dune1984`` unless --trials is given

Kit = Annotated[Optional[str], typer.Option(help="Comma-separated equipment: sword, gom-jabbar, poison.")]
Guile = Annotated[
    Optional[int], typer.Option(help="Guile for Poison checks (default: the character's, or 3).")
]
Guiles = Annotated[
    Optional[str], typer.Option(help="Comma-separated Guile per character (default: their own, or 3).")
]
Policy = Annotated[
    Optional[str],
    typer.Option(
        "--policy",
        help="Who takes the damage: weakest_first (default), strongest_first, best (the attacker chooses, "
        "solved exactly for --objective; the defender weakest_first) or defender:best (the reverse).",
    ),
]
ObjectiveOption = Annotated[
    Optional[str],
    typer.Option(
        "--objective",
        help="Report the metric objective: win (the deciding side's chance to win; the attacker's unless "
        "defender:best). The default under --policy best.",
    ),
]
POLICIES = {"weakest_first": "weakest_first", "strongest_first": "strongest_first", "best": "best",
            "attacker:best": "best", "defender:best": "defender_best"}
_ONE = "Strength 1..6 or a character name, e.g. Paul, 'Duke Leto' (montecarlo dune1984 characters)."
_MANY = "1..3 comma-separated Strengths or character names, e.g. 4,3 or Paul,Chani."


def _fighters(incomplete: str) -> list[str]:
    """Shell completion of a Strength or character name (the last of a comma-separated list)."""
    head, comma, last = incomplete.rpartition(",")
    names = [str(s) for s in STRENGTHS] + [c.name for c in CHARACTERS.values()]
    return [head + comma + n for n in names if n.lower().startswith(last.strip().lower())]


Attacker, Defender = (
    Annotated[str, typer.Option(f"--{side}", f"-{side[0]}", help=_ONE, autocompletion=_fighters)]
    for side in ("attacker", "defender")
)
Attackers, Defenders = (
    Annotated[str, typer.Option(f"--{side}", f"-{side[0]}", help=_MANY, autocompletion=_fighters)]
    for side in ("attacker", "defender")
)


def _kit(names: tuple[str, ...]) -> str:
    return " with " + ", ".join(n.replace("_", " ").title() for n in names) if names else ""


def _as_tuple(value) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def _who(labels, guiles, kit: tuple[str, ...]) -> str:
    """'Strength 4', 'Paul Atreides (Strength 4, Guile 3)', 'Strengths 4 + 3', plus the equipment."""
    labels, guiles = _as_tuple(labels), _as_tuple(guiles)
    names = [
        f"Strength {v}"
        if isinstance(v, int)
        else f"{v} (Strength {CHARACTERS[v.lower()].strength}, Guile {g})"
        for v, g in zip(labels, guiles)
    ]
    if len(labels) > 1 and all(isinstance(v, int) for v in labels):
        names = ["Strengths " + " + ".join(str(v) for v in labels)]
    return " + ".join(names) + _kit(kit)


def _title(kind: str, setup) -> str:
    return (
        f"Dune (1984) {kind}: {_who(setup.attacker, setup.attacker_guile, setup.attacker_equipment)} "
        f"(attacker) vs {_who(setup.defender, setup.defender_guile, setup.defender_equipment)} (defender)"
    )


def named_characters(setup) -> dict:
    """The JSON ``characters`` of a setup: each named character's printed Strength and Guile."""
    found = {}
    for side in ("attacker", "defender"):
        for label in _as_tuple(getattr(setup, side)):
            if isinstance(label, str):
                c = CHARACTERS[label.lower()]
                found[c.name] = {"strength": c.strength, "guile": c.guile, "house_colour": c.colour}
    return {"characters": found} if found else {}


def _ask(question: str, run: RunOptions, settings=None, overrides=None, **values):
    from montecarlo.registry import get_game

    game = get_game("dune1984")
    setup = game.question(question).setup(values)  # checked (and warned by answer_of) before the run
    check_best_alone(game.rules(run.variant, overrides, overrides_from="--policy"), setup)
    settings = settings or run.settings(f"dune1984 {question}", warn=False)
    run.warn_once()  # after the setup and the checkpoint were found right: a mistake comes alone
    return answer_of("dune1984", question, setup, variants=run.variant, rules=overrides, settings=settings)


def _designation(policy: Optional[str]) -> dict[str, str]:
    """``--policy`` as a rule override of ``designation`` (none when not given)."""
    if policy is None:
        return {}
    key = "".join(policy.lower().replace("-", "_").split())
    if key not in POLICIES:
        raise InputError(
            f"unknown policy {policy!r}; known: weakest_first, strongest_first, best (attacker:best), "
            "defender:best"
        )
    return {"designation": POLICIES[key]}


def _notes(answer, run: RunOptions) -> None:
    """The interpretations a reader must know about, under the table."""
    if run.json:
        return
    s = answer.setup
    guile = lambda g: ", ".join(map(str, g)) if isinstance(g, tuple) else str(g)  # noqa: E731
    if "poison" in s.attacker_equipment + s.defender_equipment:
        say(
            f"Poison (an interpretation): after the holder's first point of damage the damaged character "
            f"makes a Guile check ({answer.rules.guile_roll}) or is eliminated; Guile "
            f"{guile(s.attacker_guile)} (attacker), {guile(s.defender_guile)} (defender)."
        )


@asks("duel")
@run_command
def duel(
    run: RunOptions,
    attacker: Attacker,
    defender: Defender,
    attacker_equipment: Kit = None,
    defender_equipment: Kit = None,
    attacker_guile: Guile = None,
    defender_guile: Guile = None,
) -> None:
    """Odds of one Dune (1984) duel: who wins, in how many rolls, with what Strength left.

    Examples:

      montecarlo odds dune1984 --attacker 4 --defender 5

      montecarlo dune1984 duel -a Paul -d Feyd-Rautha --attacker-equipment sword
    """
    answer = _ask(
        "duel",
        run,
        attacker=attacker,
        defender=defender,
        attacker_equipment=attacker_equipment,
        defender_equipment=defender_equipment,
        attacker_guile=attacker_guile,
        defender_guile=defender_guile,
    )
    emit(answer, run, _title("duel", answer.setup), setup_extra=named_characters(answer.setup))
    _notes(answer, run)


@asks("fight")
@run_command
def fight(
    run: RunOptions,
    attacker: Attackers,
    defender: Defenders,
    attacker_equipment: Kit = None,
    defender_equipment: Kit = None,
    attacker_guile: Guiles = None,
    defender_guile: Guiles = None,
    policy: Policy = None,
    objective: ObjectiveOption = None,
) -> None:
    """Odds of a fight with several characters a side (summed Strength, one designated to take damage).

    With --policy best the attacker chooses which of its characters takes the damage (under
    fight_to_last, the next one each time it falls), exactly for its chance to win; every metric is
    then that of best play, and the metric objective is the optimum. The defender keeps its policy
    (weakest_first): a best response, not an equilibrium. --policy defender:best: the reverse.

    Examples:

      montecarlo dune1984 fight --attacker 4,3 --defender 5

      montecarlo dune1984 fight -a Paul,Chani -d Rabban,Feyd -v fight_to_last

      montecarlo dune1984 fight -a 3,1 -d 2,2 --policy best
    """
    from montecarlo.registry import get_game

    overrides = _designation(policy)
    rules = get_game("dune1984").rules(run.variant, overrides, overrides_from="--policy")
    not_blank("objective", objective, "win")
    if objective is None and rules.designation in ("best", "defender_best"):  # --policy or -v best_play
        objective = "win"
    answer = _ask(
        "fight",
        run,
        None,
        overrides,
        objective=objective,
        attacker=attacker,
        defender=defender,
        attacker_equipment=attacker_equipment,
        defender_equipment=defender_equipment,
        attacker_guile=attacker_guile,
        defender_guile=defender_guile,
    )
    rules = answer.rules
    if not answer.setup.objective:  # the metric objective only where it is asked for
        asked = {k: m for k, m in answer.metrics.items() if k != "objective"}
        answer = dataclasses.replace(answer, metrics=asked)
    emit(
        answer,
        run,
        _title("fight", answer.setup)
        + f"; {_designation_text(rules.designation)}"
        + (", fight to the last" if rules.fight_to_last else "")
        + _dice_reading(answer.setup, rules),
        setup_extra=named_characters(answer.setup),
    )
    _notes(answer, run)


def _designation_text(designation: str) -> str:
    if designation == "best":
        return "attacker designates by best play (for win, solved exactly), defender weakest first"
    if designation == "defender_best":
        return "defender designates by best play (for win, solved exactly), attacker weakest first"
    return designation.replace("_", " ")


def _dice_reading(setup, rules) -> str:
    """The run line's name of the dice reading in force, when it matters (a side above 6 Strength)."""
    def above_cap(side: str) -> bool:
        gom = "gom_jabbar" in getattr(setup, f"{side}_equipment") and rules.gom_counts_toward_cap
        return sum(_strength(v) for v in getattr(setup, side)) > rules.max_dice - gom

    if not (above_cap("attacker") or above_cap("defender")):
        return ""  # both readings roll one die per point of Strength
    if rules.set_aside_die:
        return "; a lost round sets aside 1 die (set_aside_die)"
    return "; dice = min(6, total Strength) every round (interpretation)"


def _strength(label) -> int:
    return label if isinstance(label, int) else CHARACTERS[label.lower()].strength


@asks("duel")
@run_command(trials=TABLE_TRIALS)
def duel_table(
    run: RunOptions,
    attacker_equipment: Kit = None,
    defender_equipment: Kit = None,
    metric: Annotated[
        str, typer.Option("--metric", "-m", help="e.g. attacker_win, rounds, winner_strength=3.")
    ] = "attacker_win",
) -> None:
    """The 6 x 6 table of a duel metric: rows = attacker Strength, columns = defender Strength.

    Each cell is the estimate over the exact value; --trials counts per cell. Every cell is a
    duel, one character a side: the best-play variants (nothing to choose) are refused.

    Examples:

      montecarlo table dune1984

      montecarlo table dune1984 --metric rounds --attacker-equipment sword -n 20000
    """
    from montecarlo.registry import get_game

    game = get_game("dune1984")
    question = game.question("duel")
    if metric not in question.reported_names():
        raise unknown_metric(metric, question.reported_names(), "the duel")
    pairs = [(a, d) for a in STRENGTHS for d in STRENGTHS]
    kit = {"attacker_equipment": attacker_equipment, "defender_equipment": defender_equipment}
    setups = [{"attacker": a, "defender": d, **kit} for a, d in pairs]
    # every cell is a duel: best play (-v best_play) has nothing to choose, as odds dune1984 says
    check_best_alone(game.rules(run.variant), question.setup(setups[0]))
    answers = run.ask_many("dune1984", "duel", setups, "dune1984 duel table")  # one pool
    note_variants_outside(game, "duel", run.variant)
    cells = [(a, d, answer.metrics[metric]) for (a, d), answer in zip(pairs, answers)]
    answer = answers[-1]
    if run.json:
        typer.echo(
            json.dumps(
                {
                    "game": "dune1984",
                    "question": "duel",
                    "metric": metric,
                    "trials": answer.trials,
                    "seed": answer.seed,
                    "variants": list(run.variant),
                    "rules": to_plain(answer.rules),
                    "setup": {
                        "attacker_equipment": list(answer.setup.attacker_equipment),
                        "defender_equipment": list(answer.setup.defender_equipment),
                    },
                    "cells": [{"attacker": a, "defender": d, **m.to_json()} for a, d, m in cells],
                    "version": answer.version,
                }
            )
        )
        return
    digits = 3 if metric.startswith(("attacker_win", "poisoned", "winner_strength")) else 2
    rules = ", ".join(run.variant) or "official rules"
    from rich import box as rich_box
    from rich.table import Table

    out = console()
    setup = answer.setup
    kits = f"attacker{_kit(setup.attacker_equipment)} vs defender{_kit(setup.defender_equipment)}"
    caption = (
        f"rows: attacker, columns: defender Strength; {answer.trials:,} trials per cell, "
        f"seed {answer.seed}, {rules}{interval_note([m for _, _, m in cells])}"
    )

    def matrix(shown: str, text, sections: bool = False, narrow: bool = False, last: bool = True):
        table = Table(
            title=f"Dune (1984) duel, {metric}: {shown}; {kits}",
            caption=caption if last else None,
            box=rich_box.SIMPLE if narrow else rich_box.HEAVY_HEAD,  # SIMPLE: no column rules
            padding=(0, 0, 0, 1) if narrow else (0, 1),
        )
        table.add_column("A \\ D", justify="right")
        for d in STRENGTHS:
            table.add_column(str(d), justify="right")
        for a in STRENGTHS:
            row = [m for x, _, m in cells if x == a]
            table.add_row(str(a), *(text(m) for m in row), end_section=sections and a != STRENGTHS[-1])
        return table

    # one line per cell where the terminal is wide enough, else the exact value under the estimate,
    # else (a narrow terminal would cut the numbers) the estimates and the exact values apart
    def shown(m, value, compact: bool = False) -> str:  # a chance never printed as 0 or 1 when it is neither
        return fmt_prob(value, digits) if m.kind == "mean" else fmt_chance(value, digits, compact=compact)

    estimate, exact = (lambda m: shown(m, m.estimate)), (lambda m: shown(m, m.exact))
    tables = [matrix("estimate (exact)", lambda m: f"{estimate(m)} ({exact(m)})")]
    if not fits_whole(out, tables[0]):
        tables = [matrix("estimate over (exact)", lambda m: f"{estimate(m)}\n({exact(m)})", sections=True)]
    if not fits_whole(out, tables[0]):  # narrow: 5 characters a number (4e-4, >.999)
        tables = [
            matrix("estimates", lambda m: shown(m, m.estimate, True), narrow=True, last=False),
            matrix("exact values", lambda m: shown(m, m.exact, True), narrow=True),
        ]
    for table in tables:
        out.print(table)
    description = question.metric(metric.partition("=")[0]).description
    print_explanations(out, [(metric, description)])
