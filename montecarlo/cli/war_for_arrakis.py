"""Dune: War for Arrakis: battles, Coriolis storms, sandworms, Desert Hazards, the legion you need.

Thin commands over the API's path to the engine (``run.ask``, :func:`montecarlo.api.answer_of`):
options become a setup, the answer is printed with its exact values beside the estimates (battles
are exact unless ``max_rounds:N`` is enormous, and the command says so then). ``need`` uses the
exact solver alone. Every output that uses the wormsign pool says that its split is an
assumption. The rules as modelled: ``docs/rules/war-for-arrakis.md``.
"""

import dataclasses
import json
from typing import Annotated, Any, Mapping, Optional

import typer

from montecarlo import __version__

from montecarlo.cli.common import (
    asks,
    note_variants_outside,
    solving,
    unknown_metric,
    RunOptions,
    not_blank,
    check_edges,
    cli_errors,
    console,
    decimals_apart,
    fmt_chance,
    emit,
    in_flags,
    named_flags,
    run_command,
    say,
)
from montecarlo.errors import InputError

GAME = "war-for-arrakis"
app = typer.Typer(
    name=GAME, help=(__doc__ or "").split("\n")[0], no_args_is_help=True  # as montecarlo --help
)

_LEGION = "A legion: comma-separated 'N kind' items and leader names, e.g. '4 regular, 1 elite, bashar'."
Attacker = Annotated[str, typer.Option("--attacker", "-a", help=_LEGION)]
Defender = Annotated[
    str, typer.Option("--defender", "-d", help=_LEGION + " 'none' for an undefended settlement.")
]
Settlement = Annotated[
    int, typer.Option("--settlement", help="Rank 1..3 of the defender's settlement; 0 = none.")
]
Cards = Annotated[
    int, typer.Option(help="Planning cards discarded every round (+1 die each, 6 dice at most).")
]
Surprise = Annotated[bool, typer.Option("--surprise", help="Surprise attack (the attacker needs a leader).")]
Harkonnen = Annotated[
    str,
    typer.Option(
        "--harkonnen",
        help="Which side is Harkonnen (attacker or defender), for the CHOAM and Landsraad Bans; "
        "default: told by the figures (sardaukar, bashar, Harkonnen leaders).",
    ),
]


def _terrains(incomplete: str) -> list[str]:
    from montecarlo.games.war_for_arrakis.rules import TERRAINS

    return [t for t in TERRAINS if t.startswith(incomplete)]


def _policy_names(incomplete: str) -> list[str]:
    from montecarlo.games.war_for_arrakis.rules import ATTACK_POLICIES, RETREAT_POLICIES

    names = [p.replace(":N", ":") for p in (*ATTACK_POLICIES, *RETREAT_POLICIES)]
    return [p for p in names if p.startswith(incomplete)]


Policy = Annotated[
    Optional[list[str]],
    typer.Option(
        "--policy",
        metavar="NAME",
        help="Policy by name (repeatable): until_destroyed, while_ahead, max_rounds:N, best (the attacker "
        "decides exactly for --objective); never, when_outnumbered, defender:best (the defender decides).",
        autocompletion=_policy_names,
    ),
]
WinPolicy = Annotated[  # --policy of the commands without --objective: best play plays to win
    Optional[list[str]],
    typer.Option(
        "--policy",
        metavar="NAME",
        help="Policy by name (repeatable): until_destroyed, while_ahead, max_rounds:N, best (the attacker "
        "decides exactly, to win); never, when_outnumbered, defender:best (the defender decides exactly, "
        "to win).",
        autocompletion=_policy_names,
    ),
]
Objective = Annotated[
    Optional[str],
    typer.Option(
        "--objective",
        help="What the deciding side's play is judged by (the attacker's, or the defender's under "
        "defender:best), reported as the metric objective: win (P(it wins); the default of best play) or "
        "trade:W (W x win + opposing units destroyed - own units destroyed).",
    ),
]
AdviseObjective = Annotated[
    Optional[str],
    typer.Option(
        "--objective",
        help="What the attacker's play is judged by: win (P(the attacker wins); the default) or trade:W "
        "(W x win + defending units destroyed - attacking units destroyed).",
    ),
]
Legion = Annotated[
    str, typer.Option("--legion", "-l", help="The Harkonnen legion, e.g. '3 regular, 1 elite, bashar'.")
]
Terrain = Annotated[
    str,
    typer.Option(
        "--terrain", help="deep_desert, desert, minor_erg, plateau or mountain.", autocompletion=_terrains
    ),
]
ExactVariants = Annotated[
    Optional[list[str]],
    typer.Option("--variant", "-v", metavar="NAME", help="Named house rule (repeatable).",
                 rich_help_panel="Rules"),
]
JsonOut = Annotated[
    bool,
    typer.Option("--json", help="Print one JSON object on stdout instead of the words and tables.",
                 rich_help_panel="Output"),
]


def _shown(answer):
    """The answer without the rows of impossible values (exactly 0 and never drawn), for tables."""
    keep = {
        name: m
        for name, m in answer.metrics.items()
        if "=" not in name or m.estimate > 0 or m.exact is None or m.exact > 0
    }
    return dataclasses.replace(answer, metrics=keep)


def _emit(answer, run: RunOptions, title: str, extra=None) -> None:
    """emit, the impossible values' rows left out of the tables (emit leaves out the objective
    a setup does not ask for)."""
    emit(answer if run.json else _shown(answer), run, title, extra)


def _policies(policy: Optional[list[str]]) -> dict[str, str]:
    from montecarlo.games.war_for_arrakis.rules import policy_overrides

    return policy_overrides(",".join(policy or ()))


def _policy_line(rules, objective: str = "") -> str:
    best = f"best (for {objective or 'win'}, solved exactly)"
    attack = best if rules.attack == "best" else rules.attack
    if attack == "until_destroyed":  # its name hid the cost of going on: a last unit is never paid
        attack += " (fights on while paying to continue leaves it a unit)"
    retreat = f"plays {best}" if rules.retreat == "best" else f"retreats {rules.retreat}"
    return f"policies: attacker {attack}, defender {retreat}"


def _objective(objective: Optional[str], overrides: dict[str, str]) -> str:
    """The setup's objective: as given, else ``win`` under best play (``overrides``: the policies
    in force, or those of --policy), else none. A blank one
    (an unset shell variable) is refused rather than read as none, as Dustrunners' is."""
    if objective is not None:
        from montecarlo.games.war_for_arrakis.battle import objective_text, parse_objective

        not_blank("objective", objective, "win or trade:W (e.g. trade:2)")
        return objective_text(parse_objective(objective))
    return "win" if "best" in (overrides.get("attack"), overrides.get("retreat")) else ""


def _readings(rules, **which: bool) -> list[str]:
    """The readings in force where the English overview and the Korean page disagree."""
    from montecarlo.games.war_for_arrakis.rules import readings

    return readings(rules, **which)


def _notes(question: str, rules, setup) -> list[str]:
    """The readings in force for this answer: the question's own ``notes`` (what reports print)."""
    from montecarlo.registry import get_game

    notes = get_game(GAME).question(question).notes
    return list(notes(rules, setup)) if notes is not None else []


def _echo_readings(lines: list[str]) -> None:
    for line in lines:
        say(f"reading: {line}")


@app.command("battle")
@asks("battle")
@run_command
def battle(
    run: RunOptions,
    attacker: Attacker,
    defender: Defender,
    settlement: Settlement = 0,
    attacker_cards: Cards = 0,
    defender_cards: Cards = 0,
    surprise: Surprise = False,
    policy: Policy = None,
    harkonnen: Harkonnen = "",
    objective: Objective = None,
) -> None:
    """Odds of a whole battle: who wins, in how many rounds, with what losses (exact where possible).

    With --policy best the attacker decides after every round to continue or retreat, and which
    leaders turn its Specials, exactly for --objective (default win): every metric is then that of
    best play, and the metric objective is the optimum. With a fixed policy, --objective reports
    the objective of that policy, to compare.

    Examples:
        montecarlo odds war-for-arrakis -a "4 regular, bashar" -d "3 regular, naib" --settlement 2 --surprise
        montecarlo war-for-arrakis battle -a "3 regular" -d "3 regular" --policy while_ahead
        montecarlo war-for-arrakis battle -a "6 regular" -d "3 regular" --harkonnen attacker -v choam_ban
        montecarlo war-for-arrakis battle -a "4 regular, Rabban, Baron" -d "4 regular" --policy best
    """
    from montecarlo.games.war_for_arrakis.battle import QUESTIONS, ban_notes, check_best_alone
    from montecarlo.registry import get_game

    overrides = _policies(policy)
    game = get_game(GAME)
    rules = game.rules(run.variant, overrides, overrides_from="--policy")
    # best play by -v best_play as by --policy best: the objective it plays for is reported
    played = {"attack": rules.attack, "retreat": rules.retreat}
    setup = {
        "attacker": attacker,
        "defender": defender,
        "settlement": settlement,
        "attacker_cards": attacker_cards,
        "defender_cards": defender_cards,
        "surprise": surprise,
        "harkonnen": harkonnen,
        "objective": _objective(objective, played),
    }
    checked = game.question("battle").setup(setup)
    check_best_alone(rules, checked)
    answer = run.ask(GAME, "battle", checked, overrides)
    s = answer.setup
    why = QUESTIONS["battle"].why_no_exact
    note = why(answer.rules, s) if why is not None else None
    readings = _notes("battle", answer.rules, s)
    bans = ban_notes(answer.rules, s)
    extra = {
        "policies": {"attack": answer.rules.attack, "retreat": answer.rules.retreat},
        "objective": s.objective or None,
        "exact": note or "chain",
        "readings": readings,
        **({"bans": bans} if bans else {}),
    }
    where = f" in a rank-{s.settlement} settlement" if s.settlement else ""
    title = f"War for Arrakis battle: {s.attacker} (attacker) vs {s.defender} (defender){where}"
    if s.attacker_cards or s.defender_cards:
        title += f"; Planning cards per round {s.attacker_cards}/{s.defender_cards}"
    if s.surprise:
        title += "; surprise attack"
    _emit(answer, run, title, extra)
    if not run.json:
        say(_policy_line(answer.rules, s.objective))
        _echo_readings(readings)
        for line in bans:
            say(line)
        if note:
            say(f"exact: {note}; the estimates above are simulated")


ODDS = battle
ODDS_SUMMARY = (  # odds --help's line for the game
    "Dune: War for Arrakis: one battle of two legions (storms, worms, "
    "hazards: montecarlo war-for-arrakis)."
)
TABLE_SUMMARY = (  # table --help's line
    "Dune: War for Arrakis: exact battle odds for every pair of legion "
    "sizes."
)


@app.command("storm")
@asks("storm")
@run_command
def storm(
    run: RunOptions,
    legion: Legion,
    terrain: Terrain,
    settlement: Annotated[
        bool,
        typer.Option(
            "--settlement",
            help="The area holds a Harkonnen settlement (no storm, unless -v storms_strike_settlements).",
        ),
    ] = False,
) -> None:
    """Damage of one Coriolis storm on a Harkonnen legion.

    Examples:
        montecarlo war-for-arrakis storm --legion "3 regular, 1 elite, bashar" --terrain deep_desert
    """
    answer = run.ask(GAME, "storm", {"legion": legion, "terrain": terrain, "settlement": settlement})
    s = answer.setup
    readings = _notes("storm", answer.rules, s)
    sheltered = s.settlement and not answer.rules.storms_strike_settlements
    _emit(
        answer,
        run,
        f"Coriolis storm on {s.legion} in {s.terrain}"
        + (" (settlement: no storm)" if sheltered else " (settlement)" if s.settlement else ""),
        {"readings": readings} if readings else None,
    )
    if not run.json:
        _echo_readings(readings)


@app.command("worm")
@asks("worm")
@run_command
def worm(
    run: RunOptions,
    legion: Legion,
    terrain: Terrain,
    wild_maker: Annotated[
        bool, typer.Option("--wild-maker", help="The Wild Maker attacks (more dice).")
    ] = False,
    harvester: Annotated[bool, typer.Option("--harvester", help="A harvester stands in the area.")] = False,
    carryall: Annotated[bool, typer.Option("--carryall", help="A carryall can save the harvester.")] = False,
) -> None:
    """Damage of one sandworm (or Wild Maker) attack on an area.

    Examples:
        montecarlo war-for-arrakis worm --legion "3 regular, 1 sardaukar" --terrain desert --harvester
    """
    setup = {
        "legion": legion,
        "terrain": terrain,
        "wild_maker": wild_maker,
        "harvester": harvester,
        "carryall": carryall,
    }
    answer = run.ask(GAME, "worm", setup)
    s = answer.setup
    who = "Wild Maker" if s.wild_maker else "Sandworm"
    _emit(answer, run, f"{who} attack on {s.legion}{' + harvester' if s.harvester else ''} in {s.terrain}")


@app.command("hazards")
@asks("hazards")
@run_command
def hazards(
    run: RunOptions,
    area: Annotated[
        list[str],
        typer.Option(
            "--area",
            metavar="AREA",
            help="One area (repeatable, 1 to 10): 'terrain: legion items, harvester, carryall, settlement' "
            "(each of the three at most once).",
        ),
    ],
    wild_maker: Annotated[bool, typer.Option("--wild-maker", help="The Wild Maker is in play.")] = False,
) -> None:
    """One Desert Hazards step for a Harkonnen deployment: worms, storms, losses, spice.

    The wormsign pool's split (8 Sand / 4 Sandworm / 4 Burrowing) is an assumption: no source
    publishes it. Change it with the rule fields wormsign_sand, wormsign_sandworm, wormsign_burrowing.

    Examples:
        montecarlo war-for-arrakis hazards --area "deep desert: 3 regular, harvester" --wild-maker
    """
    from montecarlo.games.war_for_arrakis.hazards import pool_note

    for text in area:  # a blank --area (an unset shell variable) would be dropped unsaid
        not_blank("area", text, "'terrain: legion items', e.g. 'desert: 3 regular, harvester'")
    try:
        answer = run.ask(GAME, "hazards", {"areas": list(area), "wild_maker": wild_maker})
    except InputError as exc:  # the setup's field areas is the repeated --area
        exc.args = (in_flags(str(exc), {"areas": "--area"}),)
        raise
    note = pool_note(answer.rules)
    readings = _notes("hazards", answer.rules, answer.setup)
    extra = {"wormsign_pool": note, **({"readings": readings} if readings else {})}
    _emit(answer, run, "Desert Hazards: " + "; ".join(answer.setup.areas), extra)
    if not run.json:
        say(note)
        _echo_readings(readings)


@app.command("need")
@asks("battle")
@cli_errors
@named_flags
def need(
    defender: Defender,
    target: Annotated[float, typer.Option("--target", help="Attacker's win probability to reach.")] = 0.8,
    settlement: Settlement = 0,
    leaders: Annotated[
        str, typer.Option("--leaders", help="Leaders going with every legion tried, e.g. 'bashar'.")
    ] = "",
    elite: Annotated[
        str, typer.Option("--elite", help="Kind of the upgraded units: elite, sardaukar, fedaykin.")
    ] = "elite",
    attacker_cards: Cards = 0,
    defender_cards: Cards = 0,
    surprise: Surprise = False,
    policy: WinPolicy = None,
    variant: ExactVariants = None,
    json_out: JsonOut = False,
    harkonnen: Harkonnen = "",
) -> None:
    """The smallest attacking legion that takes a defence with at least --target probability (exact).

    Legions are tried by size, and within a size with as few elites as possible (1 regular, 1 elite,
    2 regular, 1 regular + 1 elite, ...); the legion tried just before the answer is shown beside it.

    Examples:
        montecarlo war-for-arrakis need -d "3 regular, naib" --settlement 1 --target 0.8 --leaders bashar
    """
    from montecarlo.registry import get_game
    from montecarlo.games.war_for_arrakis.battle import MAX_UNITS, parse_legion
    from montecarlo.games.war_for_arrakis.battle import need as search

    check_edges(tuple(variant or ()), None, None, None, None)  # a -v named twice
    game = get_game(GAME)
    rules = game.rules(tuple(variant or ()), _policies(policy), overrides_from="--policy")
    try:
        defence = game.question("battle").setup(
            {
                "attacker": "1 regular" + (f", {leaders}" if leaders else ""),
                "defender": defender,
                "settlement": settlement,
                "attacker_cards": attacker_cards,
                "defender_cards": defender_cards,
                "surprise": surprise,
                "harkonnen": harkonnen,
            }
        )  # checks every option before the search
        found, before, tried = search(
            rules,
            defence.defender,
            target,
            leaders=leaders,
            elite=elite,
            settlement=settlement,
            attacker_cards=attacker_cards,
            defender_cards=defender_cards,
            surprise=surprise,
            harkonnen=defence.harkonnen,
        )
    except InputError as exc:  # the attacking legion here is the units searched with --leaders
        exc.args = (in_flags(str(exc), {"attacker": "--leaders"}),)
        raise
    note_variants_outside(game, "battle", tuple(variant or ()))
    row = lambda r: None if r is None else {"legion": r.legion, "attacker_win": r.attacker_win}  # noqa: E731
    if json_out:
        typer.echo(
            json.dumps(
                {
                    "game": GAME,
                    "question": "need",
                    "defender": defence.defender,
                    "settlement": settlement,
                    "target": target,
                    "rules": dataclasses.asdict(rules),
                    "readings": _readings(rules, continuation=True, surprise=surprise),
                    "found": row(found),
                    "next_smaller" if found else "strongest_tried": row(before),
                    "legions_solved": tried,
                }
            )
        )
        return
    where = f" in a rank-{settlement} settlement" if settlement else ""
    say(
        f"Defence: {defence.defender}{where}; target attacker_win >= {target:g} (exact, "
        f"{_policy_line(rules)})"
    )
    _echo_readings(_readings(rules, continuation=True, surprise=surprise))
    def shown(chance: float) -> str:  # the decimals that keep a chance short of 1 ("1.0000" reached it)
        return fmt_chance(chance, near_one="decimals")

    if found is None:
        best = f"{before.legion} wins {shown(before.attacker_win)}" if before else "nothing tried"
        units = parse_legion(before.legion, "legion").units if before else MAX_UNITS
        ban = " (a Harkonnen legion holds no more under the CHOAM Ban)" if units < MAX_UNITS else ""
        say(f"no legion of up to {units} units{ban} reaches the target; the strongest tried: {best}")
        return
    # "next smaller" read wrong beside a legion of as many units: the order is said instead
    say(f"smallest legion: {found.legion}: attacker_win {shown(found.attacker_win)}")
    if before is not None:
        say(f"tried before it: {before.legion}: attacker_win {shown(before.attacker_win)} (legions are tried "
            "by size, then with as few elites as possible)")
    else:
        say("tried before it: none (the first legion tried already reaches the target)")


@app.command("advise")
@asks("battle", takes=lambda overrides: _advise_takes(overrides))
@cli_errors
@named_flags
def advise(
    attacker: Attacker,
    defender: Defender,
    settlement: Settlement = 0,
    attacker_cards: Cards = 0,
    defender_cards: Cards = 0,
    surprise: Surprise = False,
    harkonnen: Harkonnen = "",
    objective: AdviseObjective = None,
    policy: Annotated[
        Optional[list[str]],
        typer.Option("--policy", metavar="NAME",
                     help="The defender's policy: never (default) or when_outnumbered (the attacker's is "
                     "best play, which advise solves; best or attacker:best says so)."),
    ] = None,
    variant: ExactVariants = None,
    limit: Annotated[
        Optional[int],
        typer.Option("--limit", min=0, metavar="N",
                     help="Lines shown at most in each list, the decision map and the Specials situations "
                     "(default: the whole map and 12 situations; --json has them all).",
                     rich_help_panel="Output"),
    ] = None,
    json_out: JsonOut = False,
) -> None:
    """Best play for the attacker, exactly: continue or retreat after a round, which leaders use Specials.

    The decision map gives, for the units left after a round, whether to continue (paying the
    continuation cost where the rules charge it) or retreat (the defender holds), with the
    expected --objective of each (counted from the start of the battle); then, for each roll
    where the choice of leaders matters (what each choice would leave), which leaders to use.
    The defender keeps its policy (--policy never or when_outnumbered); the variants that set
    another policy (while_ahead, one_round, defender_best_play) are refused here.

    Examples:
        montecarlo war-for-arrakis advise -a "4 regular, Rabban, Baron" -d "3 regular" --objective trade:2
        montecarlo war-for-arrakis advise -a "2 regular, Rabban, Baron" -d "2 regular"
    """
    from montecarlo.engine.decisions import as_good
    from montecarlo.games.war_for_arrakis.battle import (
        advise as solve_advice, ban_notes, check_best_alone, objective_words,
    )
    from montecarlo.registry import get_game

    check_edges(tuple(variant or ()), None, None, None, None)  # a -v named twice
    overrides = _policies(policy)
    if overrides.get("attack", "best") != "best":
        raise InputError(
            "advise solves the attacker's play: --policy sets only the defender's (never, when_outnumbered)"
        )
    game = get_game(GAME)
    _defender_not_best(game, overrides, tuple(variant or ()))
    overrides["attack"] = "best"
    who = "advise (attack policy best) or --policy"
    rules = game.rules(tuple(variant or ()), overrides, overrides_from=who)
    setup = game.question("battle").setup(
        {
            "attacker": attacker,
            "defender": defender,
            "settlement": settlement,
            "attacker_cards": attacker_cards,
            "defender_cards": defender_cards,
            "surprise": surprise,
            "harkonnen": harkonnen,
            "objective": _objective(objective, overrides),
        }
    )
    check_best_alone(rules, setup)
    with solving():
        advice = solve_advice(rules, setup)
    bans = ban_notes(rules, setup)  # the CHOAM Ban's removed units are in every trade:W value
    note_variants_outside(game, "battle", tuple(variant or ()))
    if json_out:
        decision = lambda d: {k: v for k, v in d._asdict().items() if k != "leaves" or v}  # noqa: E731
        typer.echo(
            json.dumps(
                {
                    "game": GAME,
                    "question": "advise",
                    "setup": dataclasses.asdict(setup),
                    "rules": dataclasses.asdict(rules),
                    "objective": advice.objective,
                    "best_value": advice.value,
                    "until_destroyed_value": advice.fixed,
                    **({"bans": bans} if bans else {}),
                    "continue_or_retreat": [decision(d) for d in advice.continue_or_retreat],
                    "specials": [decision(d) for d in advice.specials],
                    "specials_in_short": _specials_counts(advice.specials),
                }
            )
        )
        return
    what = objective_words(advice.objective)
    where = f" in a rank-{setup.settlement} settlement" if setup.settlement else ""
    say(f"Best play for {_units(setup.attacker)} attacking {_units(setup.defender)}{where} (exact, {what})")
    places = decimals_apart([advice.value, advice.fixed])
    say(
        f"worth {advice.value:.{places}f} with best play, {advice.fixed:.{places}f} always continuing with "
        f"the best leaders first (until_destroyed); defender retreats {rules.retreat}"
    )
    for note in bans:
        say(note)
    cost = "paying 1 Hit, " if setup.settlement or rules.continue_always_costs else ""
    counted = "" if advice.objective == "win" else " counted from the start of the battle"
    then = "another round"
    if rules.retreat == "when_outnumbered":  # continuing can end the battle at once
        then += ", or the defender's retreat where the attacker then outnumbers it"
    say(f"\nAfter a round ({what} of each choice{counted}; continuing means {cost}{then}):")
    if not advice.continue_or_retreat:
        say("  no decision: every battle ends in the first round or cannot go on")
    shown = len(advice.continue_or_retreat) if limit is None else limit
    for d in advice.continue_or_retreat[:shown]:
        other = "retreat" if d.choice == "continue" else "continue"
        word = "retreating" if other == "retreat" else "continuing"
        tie = " (as good)" if as_good(d.values[d.choice], d.values[other]) else ""
        places = decimals_apart([d.values[d.choice], d.values[other]])
        say(
            f"  With {_units(d.attacker)} against {_units(d.defender)}, {d.choice}: "
            f"{d.values[d.choice]:.{places}f} against {d.values[other]:.{places}f} for {word}{tie}."
        )
    _more(len(advice.continue_or_retreat), shown)
    if advice.specials:
        say("\nSpecials, both rolls seen (where the choice of leaders matters):")
        say(f"  In short, {_specials_in_short(advice.specials)}.")
        limit = SPECIALS_SHOWN if limit is None else limit
        for d in advice.specials[:limit]:
            say(_specials_situation(d))
        _more(len(advice.specials), limit)
    else:
        say("\nSpecials: no choice of leaders ever matters (the best leaders first is best play).")


def _specials_situation(d) -> str:
    """One Specials situation as a player reads it at the table: the choice, then each option
    on its own line, what it would leave and its value, best play's first, then by value.

    >>> from montecarlo.games.war_for_arrakis.battle import Decision
    >>> feyd, thufir = "Feyd-Rautha (2H+1S)", "Thufir Hawat (1H+2S)"
    >>> d = Decision("", "", 0, 0, thufir, {feyd: 1.0, thufir: 1.5682},
    ...              {feyd: ("3 regular", "2 regular"), thufir: ("3 regular", "3 regular")})
    >>> print(_specials_situation(d))
      Use Thufir Hawat (1H+2S) where the leaders would leave:
        Thufir Hawat (1H+2S)  3 regulars against 3 regulars  1.5682  best
        Feyd-Rautha (2H+1S)   3 regulars against 2 regulars  1.0000
    """
    from montecarlo.engine.decisions import as_good

    places = decimals_apart(list(d.values.values()))
    best = d.values[d.choice]
    names = sorted(d.values, key=lambda name: (name != d.choice, -d.values[name]))
    left = {name: f"{_units(d.leaves[name][0])} against {_units(d.leaves[name][1])}" for name in names}
    wide_name, wide_left = max(map(len, names)), max(map(len, left.values()))
    lines = [f"  Use {d.choice} where the leaders would leave:"]
    for name in names:
        mark = "best" if name == d.choice else "as good" if as_good(d.values[name], best) else ""
        value = f"{d.values[name]:.{places}f}"
        lines.append(f"    {name:<{wide_name}}  {left[name]:<{wide_left}}  {value}  {mark}".rstrip())
    return "\n".join(lines)


def _specials_counts(specials) -> dict:
    """Over the Specials situations where the choice matters: how many, how often best play gives
    each leader a Special (most first), uses no leader, and departs from the best leaders first;
    then the same as shares of the choices a battle played best meets (each situation weighed by
    how often it is met: ``per_battle`` of them a battle on average)."""
    from collections import Counter

    used, weighed = Counter(), Counter()
    for d in specials:
        for name in d.choice.split(" & ") if d.choice != "no leader" else ():
            used[name] += 1
            weighed[name] += d.visits
    per_battle = sum(d.visits for d in specials)

    def share(n: float) -> float:
        return n / per_battle if per_battle > 0 else 0.0

    return {
        "situations": len(specials),
        "leaders": dict(sorted(used.items(), key=lambda nc: (-nc[1], nc[0]))),
        "no_leader": sum(d.choice == "no leader" for d in specials),
        "departs_from_best_leaders_first": sum(d.choice != next(iter(d.values)) for d in specials),
        "per_battle": per_battle,
        "leaders_share": {name: share(weighed[name])
                          for name in sorted(used, key=lambda name: (-weighed[name], -used[name], name))},
        "no_leader_share": share(sum(d.visits for d in specials if d.choice == "no leader")),
        "departs_share": share(sum(d.visits for d in specials if d.choice != next(iter(d.values)))),
    }


def _percent(share: float) -> str:
    """``96%``; a share above 0 is never "0%", nor one below 1 "100%"."""
    if 0 < share < 0.005:
        return "<1%"
    if 0.995 <= share < 1:
        return ">99%"
    return f"{100 * share:.0f}%"


def _specials_in_short(specials) -> str:
    """:func:`_specials_counts` in words: a rule of thumb for the table, by how often each
    situation is met in a battle played best (by situations where best play never meets one)."""
    counts = _specials_counts(specials)
    count, per_battle = counts["situations"], counts["per_battle"]
    listed = f"{count} situation{'s' if count > 1 else ''}"
    if per_battle <= 0:  # every listed choice lies off best play's own path
        ranked = list(counts["leaders"].items())
        text = f"over the {listed} where the choice matters: " + ", ".join(
            f"{name} in {n}" if i else f"{name} takes a Special in {n}" for i, (name, n) in enumerate(ranked)
        )
        text += f"; no leader in {counts['no_leader']}" if counts["no_leader"] else ""
        return text + (f"; best play departs from the best leaders first (most Hits + Shields, then most "
                       f"Hits) in {counts['departs_from_best_leaders_first']}")
    ranked = list(counts["leaders_share"].items())
    text = (f"a battle played best meets {per_battle:.2g} Specials choice{'s' if per_battle != 1 else ''} "
            f"that matter on average ({listed} listed below): " + ", ".join(
                f"{name} in {_percent(v)}" if i else f"{name} takes a Special in {_percent(v)} of them"
                for i, (name, v) in enumerate(ranked)))
    text += f"; no leader in {_percent(counts['no_leader_share'])}" if counts["no_leader"] else ""
    return text + (f"; best play departs from the best leaders first (most Hits + Shields, then most "
                   f"Hits) in {_percent(counts['departs_share'])}")


def _advise_takes(overrides: Mapping[str, Any]) -> bool:
    """Whether advise takes a variant of these overrides: not one that sets the attacker's policy
    (advise solves it) or the defender's best play (both sides best is not solved), as
    :func:`_defender_not_best` refuses them; its --variant help lists only the others."""
    return overrides.get("attack", "best") == "best" and overrides.get("retreat") != "best"


def _defender_not_best(game, overrides: dict[str, str], variants: tuple[str, ...]) -> None:
    """advise plays the attacker's best: refuse the defender's best play (--policy defender:best or a
    variant such as defender_best_play), which would make both sides play best (not solved)."""
    asked = ["--policy defender:best"] if overrides.get("retreat") == "best" else []
    asked += [f"-v {name}" for name in variants if game.variants.get(name, {}).get("retreat") == "best"]
    if asked:
        raise InputError(
            f"{asked[0]}: advise already plays the attacker's best, and both sides playing best is not "
            "solved; the defender's policy here can only be never (default) or when_outnumbered"
        )
    fixed = [name for name in variants if game.variants.get(name, {}).get("attack", "best") != "best"]
    if fixed:  # a fixed attack policy (while_ahead, one_round): advise chooses the attacker's play
        policy = game.variants[fixed[0]]["attack"]
        raise InputError(
            f"-v {fixed[0]}: sets the attacker's policy ({policy}), and advise chooses the attacker's "
            "play itself; leave the variant out (odds --policy compares a fixed policy)"
        )


def _units(text: str) -> str:
    """A legion's units as a player says them, each kind in the plural but one (the legion
    options take either spelling).

    >>> _units("3 regular"), _units("2 regular, 1 elite"), _units("1 regular, 2 elite, Beast Rabban")
    ('3 regulars', '2 regulars, 1 elite', '1 regular, 2 elites, Beast Rabban')
    """
    def said(part: str) -> str:
        count, _, kind = part.partition(" ")
        plural = count.isdigit() and count != "1" and kind in ("regular", "elite")
        return part + "s" if plural else part

    return ", ".join(said(part) for part in text.split(", "))


@asks("battle")
@cli_errors
@named_flags
def table(
    metric: Annotated[
        str, typer.Option("--metric", "-m", help="e.g. attacker_win, rounds, attacker_survivors=2.")
    ] = ("attacker_win"),
    settlement: Settlement = 0,
    attacker_with: Annotated[
        str,
        typer.Option("--attacker-with", help="Added to every attacking legion, e.g. 'bashar' or '1 elite'."),
    ] = "",
    defender_with: Annotated[
        str, typer.Option("--defender-with", help="Added to every defending legion, e.g. 'naib'.")
    ] = "",
    attacker_cards: Cards = 0,
    defender_cards: Cards = 0,
    surprise: Surprise = False,
    policy: WinPolicy = None,
    variant: ExactVariants = None,
    json_out: JsonOut = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q",
                           help="Accepted, as by the commands that simulate: an exact table has no bar.",
                           rich_help_panel="Output")
    ] = False,
    harkonnen: Harkonnen = "",
    trials: Annotated[Optional[str], typer.Option("--trials", "-n", hidden=True)] = None,
    seed: Annotated[Optional[str], typer.Option("--seed", "-s", hidden=True)] = None,
) -> None:
    """The exact 6 x 6 table of a battle metric: rows = attacking regulars, columns = defending regulars.

    Every cell is exact (the battle's Markov chain); --attacker-with and --defender-with add the
    same leaders or units to every legion of a row or column (cells over 6 units are left empty).

    Examples:
        montecarlo table war-for-arrakis --settlement 1 --attacker-with bashar
    """
    from montecarlo.registry import get_game
    from montecarlo.games.war_for_arrakis.battle import MAX_UNITS, exact_battle, parse_legion

    check_edges(tuple(variant or ()), None, None, None, None)  # a -v named twice
    if trials is not None or seed is not None:  # as table dune1984 takes them: say why not here
        flag = "--trials" if trials is not None else "--seed"
        raise InputError(f"{flag}: table war-for-arrakis runs no trials: every cell is the battle's exact "
                         "value; leave it out (montecarlo odds war-for-arrakis simulates one battle)")
    game = get_game(GAME)
    question = game.question("battle")
    if metric not in question.reported_names():
        raise unknown_metric(metric, question.reported_names(), "the battle")
    rules = game.rules(tuple(variant or ()), _policies(policy), overrides_from="--policy")
    extra = [  # units each side's additions bring (a leader alone is checked beside one regular)
        parse_legion(f"1 regular, {text}", what).units - 1 if text else 0
        for text, what in ((attacker_with, "--attacker-with"), (defender_with, "--defender-with"))
    ]
    counts = range(1, MAX_UNITS + 1)
    cells: dict[tuple[int, int], float | None] = {}
    for a in counts:
        for d in counts:
            if a + extra[0] > MAX_UNITS or d + extra[1] > MAX_UNITS:
                cells[a, d] = None
                continue
            try:
                setup = question.setup(
                    {
                        "attacker": ", ".join(p for p in (f"{a} regular", attacker_with) if p),
                        "defender": ", ".join(p for p in (f"{d} regular", defender_with) if p),
                        "settlement": settlement,
                        "attacker_cards": attacker_cards,
                        "defender_cards": defender_cards,
                        "surprise": surprise,
                        "harkonnen": harkonnen,
                    }
                )
            except InputError as exc:  # a legion of the table is N regulars with --attacker-with
                exc.args = (in_flags(str(exc), WITH_FLAGS),)
                raise
            values = exact_battle(rules, setup)
            if values is None:
                raise InputError("these battles are too large for the exact solver (lower max_rounds)")
            cells[a, d] = values[metric]
    note_variants_outside(game, "battle", tuple(variant or ()))  # once every input is known good
    if json_out:
        typer.echo(
            json.dumps(
                {
                    "game": GAME,
                    "question": "battle",
                    "metric": metric,
                    "exact": True,
                    "settlement": settlement,
                    "attacker_with": attacker_with,
                    "defender_with": defender_with,
                    "attacker_cards": attacker_cards,
                    "defender_cards": defender_cards,
                    "surprise": surprise,
                    "variants": list(variant or ()),
                    "rules": dataclasses.asdict(rules),
                    "readings": _readings(rules, continuation=True, surprise=surprise),
                    "cells": [{"attacker": a, "defender": d, "exact": v} for (a, d), v in cells.items()],
                    "version": __version__,
                }
            )
        )
        return
    from rich.table import Table

    where = f"rank-{settlement} settlement" if settlement else "no settlement"
    shown = Table(
        title=f"War for Arrakis battle, {metric} (exact): N regulars{_plus(attacker_with)} "
        f"vs M regulars{_plus(defender_with)}, {where}",
        caption=f"rows: attacking regulars, columns: defending regulars; {_policy_line(rules)}; "
        f"{', '.join(variant or ()) or 'official rules'}",
    )
    shown.add_column("A \\ D", justify="right")
    for d in counts:
        shown.add_column(str(d), justify="right")
    # a probability, or one value's; the objective too, as the table has no --objective: it is win
    chance = metric == "objective" or question.metric(metric.partition("=")[0]).kind != "mean"
    digits = 3 if chance else 2

    def cell(v: Optional[float]) -> str:  # a chance never printed as 0 or 1 when it is neither
        return "—" if v is None else fmt_chance(v, digits) if chance else f"{v:.{digits}f}"

    for a in counts:
        shown.add_row(str(a), *(cell(cells[a, d]) for d in counts))
    console(piped_width=100).print(shown)
    if None in cells.values():
        say(f"—: more than {MAX_UNITS} units once the added units join (a legion holds at most {MAX_UNITS})")
    _echo_readings(_readings(rules, continuation=True, surprise=surprise))


WITH_FLAGS = {"attacker": "--attacker-with", "defender": "--defender-with"}  # the table's legions


def _plus(extra: str) -> str:
    return f" + {extra}" if extra else ""


TABLE = table


SPECIALS_SHOWN = 12  # Specials situations advise prints without --limit


def _more(count: int, limit: int) -> None:
    """Say how many lines of a list --limit left out."""
    if count > limit:
        more = count - limit
        say(f"  ... {more} more situation{'s' if more > 1 else ''} (--limit, or --json for all)")
