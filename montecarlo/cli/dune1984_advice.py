"""``montecarlo dune1984 advise``: which character should take the damage in a fight, exactly.

Thin over :func:`montecarlo.games.dune1984.advice.advise`: the options of ``dune1984 fight``
become a setup, and the choices of best play are printed in words, with the chance to win of
each option. :mod:`montecarlo.cli.dune1984` registers it.
"""

import dataclasses
import json
from typing import Annotated, Optional

import typer

from montecarlo.cli.common import asks, check_edges, cli_errors, decimals_apart, named_flags, say, solving
from montecarlo.cli.dune1984_fights import Attackers, Defenders, Guiles, Kit, _title
from montecarlo.errors import InputError

SHOWN = 12  # choices after a fall printed without --limit

Side = Annotated[
    str,
    typer.Option(
        "--side",
        help="Whose choice to advise: attacker (default) or defender. The other side designates its "
        "weakest character first, as under --policy best.",
    ),
]


@asks("fight", takes=lambda overrides: "designation" not in overrides)  # it plays --side's best
@cli_errors
@named_flags
def advise(
    attacker: Attackers,
    defender: Defenders,
    attacker_equipment: Kit = None,
    defender_equipment: Kit = None,
    attacker_guile: Guiles = None,
    defender_guile: Guiles = None,
    side: Side = "attacker",
    variant: Annotated[
        Optional[list[str]],
        typer.Option("--variant", "-v", metavar="NAME", help="Named house rule (repeatable).",
                     rich_help_panel="Rules"),
    ] = None,
    limit: Annotated[
        Optional[int],
        typer.Option("--limit", min=0, metavar="N",
                     help=f"Choices after a fall shown at most (default {SHOWN}; --json has them all).",
                     rich_help_panel="Output"),
    ] = None,
    json_out: Annotated[
        bool,
        typer.Option("--json", help="Print one JSON object on stdout instead of the words and tables.",
                     rich_help_panel="Output"),
    ] = False,
) -> None:
    """Which character should take the damage in a fight: each choice with its chance to win, exactly.

    The deciding side (--side) designates one of its characters to take every point of damage
    ("each player must choose only one"); under -v fight_to_last it chooses again each time that
    character falls. Each choice where the characters left are not all worth the same is listed
    with the chance to win of designating each of them and playing best afterwards. The other
    side designates its weakest first, so the variants that set who takes the damage
    (strongest_first, best_play, defender_best_play) are refused here.

    Examples:

      montecarlo dune1984 advise --attacker 5,1,1 --defender 4

      montecarlo dune1984 advise -a 4,3,2 -d 5,4 -v fight_to_last -v set_aside_die

      montecarlo dune1984 advise -a Rabban -d Paul,Stilgar --side defender --attacker-equipment poison
    """
    from montecarlo.errors import caution_about
    from montecarlo.games.dune1984.advice import advise as solve_advice, option_label, situation
    from montecarlo.games.dune1984.fights import same_house
    from montecarlo.registry import get_game

    variants = tuple(variant or ())
    check_edges(variants, None, None, None, None)  # a variant named twice
    game = get_game("dune1984")
    for name in variants:
        if name in game.variants and "designation" in game.variants[name]:
            raise InputError(
                f"-v {name}: advise plays --side's best and the other side designates its weakest first; "
                "leave out the variants that set who takes the damage"
            )
    rules = game.rules(variants)
    setup = game.question("fight").setup(
        {
            "attacker": attacker,
            "defender": defender,
            "attacker_equipment": attacker_equipment,
            "defender_equipment": defender_equipment,
            "attacker_guile": attacker_guile,
            "defender_guile": defender_guile,
        }
    )
    caution_about(same_house(setup))  # as montecarlo.advise: a warning line before the solve
    with solving():
        advice = solve_advice(rules, setup, side)
    key = advice.side
    if json_out:
        typer.echo(
            json.dumps(
                {
                    "game": "dune1984",
                    "question": "advise",
                    "side": key,
                    "variants": list(variants),
                    "setup": {k: v for k, v in dataclasses.asdict(setup).items() if k != "objective"},
                    "rules": dataclasses.asdict(rules),
                    "objective": "win",
                    "best_value": advice.value,
                    "weakest_first_value": advice.weakest_first,
                    "strongest_first_value": advice.strongest_first,
                    "choices": [
                        {
                            "at_start": d.at_start,
                            "strengths": list(d.own),
                            "other_strengths": list(d.other),
                            "dice": list(d.dice),
                            "poison_unused": list(d.poison_unused),
                            "designate": d.choice + 1,
                            "designate_name": option_label(setup, key, d.choice, d.own),
                            "values": {option_label(setup, key, i, d.own): v for i, v in d.values.items()},
                        }
                        for d in advice.decisions
                    ],
                    "choices_alike": advice.alike,
                }
            )
        )
        return
    other = "defender" if key == "attacker" else "attacker"
    more = ", fight to the last" if rules.fight_to_last else ""
    more += "; a lost round sets aside 1 die" if rules.set_aside_die else ""
    say(f"Best play for the {key}: {_title('fight', setup).removeprefix('Dune (1984) fight: ')}{more}")
    digits = decimals_apart([advice.value, advice.weakest_first, advice.strongest_first])
    say(
        f"P({key} wins), exact: {advice.value:.{digits}f} with best play; {advice.weakest_first:.{digits}f} "
        f"designating its weakest first, {advice.strongest_first:.{digits}f} its strongest first "
        f"(the {other} designates its weakest first)"
    )
    if not advice.decisions:
        why = _why(rules, setup, key)
        say(f"\nNo choice matters: every character left is worth the same at every choice{why}.")
        return
    first, later = advice.decisions[0], advice.decisions[1:]
    if first.at_start:
        say(f"\nAt the start, designate {_option(setup, key, first)}.")
    else:
        later = advice.decisions
        say("\nAt the start, every character is worth the same.")
    if later:
        say(f"\nEach time the designated character falls (P({key} wins) from there):")
        shown = SHOWN if limit is None else limit
        for d in later[:shown]:
            where = situation(setup, key, d, rules.set_aside_die)
            say(f"  With {where}, designate {_option(setup, key, d)}.")
        if len(later) > shown:
            left = len(later) - shown
            say(f"  ... {left} more choice{'s' if left > 1 else ''} (--limit, or --json for all)")
    if advice.alike:
        plural = "s" if advice.alike > 1 else ""
        say(f"({advice.alike} other choice{plural}: every character left is as good)")


def _why(rules, setup, side: str) -> str:
    """Why no choice matters, where the rules say it: fighting to the last with dice recounted
    every round, the Strength lost costs the same dice whoever loses it (unless the other side's
    Poison can take a whole character)."""
    other = "defender" if side == "attacker" else "attacker"
    poisoned = "poison" in getattr(setup, f"{other}_equipment")
    if rules.fight_to_last and not rules.set_aside_die and not poisoned:
        return " (fighting to the last, every point of Strength counts alike)"
    return ""


def _option(setup, side: str, d) -> str:
    """'character 1 (Strength 5): 0.9362 against 0.3590 for character 2 or 3 (Strength 1)', ties
    marked."""
    from montecarlo.engine.decisions import as_good
    from montecarlo.games.dune1984.advice import option_label

    best = d.values[d.choice]
    others = [(i, v) for i, v in sorted(d.values.items(), key=lambda iv: -iv[1]) if i != d.choice]
    digits = decimals_apart([best] + [v for _, v in others])
    text = ", ".join(
        f"{v:.{digits}f} for {option_label(setup, side, i, d.own)}{' (as good)' if as_good(v, best) else ''}"
        for i, v in others
    )
    return f"{option_label(setup, side, d.choice, d.own)}: {best:.{digits}f} against {text}"
