"""Dustrunners (solo card game): combat odds against a resolution deck, campaigns, the road.

``montecarlo dustrunners combat|campaign|road|advise`` (``combat`` also as ``montecarlo odds dustrunners``).

``combat`` (also ``ODDS``): one combat from a freshly shuffled resolution deck, with the exact
value beside each estimate when the deck is small enough for the exact solver (and a line saying
so when it is not). ``campaign``: fights in a row with the deck, health, ammo and VP carried over.
Every output names the deck file (the shipped deck is illustrative, and says so).
"""

import dataclasses
from typing import Annotated, Any, Optional

import typer

from montecarlo.cli.common import (
    asks,
    solving,
    RunOptions, check_edges, cli_errors, decimals_apart, emit, named_flags, not_blank, run_command, say
)
from montecarlo.errors import InputError

app = typer.Typer(help=(__doc__ or "").split("\n")[0], no_args_is_help=True)  # as montecarlo --help



def _opt(name: str, help: str, panel: str, kind: Any = Optional[int], names: Any = None) -> Any:
    """An option type: ``kind`` annotated with a typer option ``name`` in help panel ``panel``.

    ``kind`` is a type form (``str``, ``Optional[int]``), not always a class: hence ``Any``.
    ``names()`` lists the shipped names the shell completes (the last of a comma-separated list).
    """
    complete = None
    if names is not None:
        def complete(incomplete: str) -> list[str]:
            head, comma, last = incomplete.rpartition(",")
            return [head + comma + n for n in names() if n.startswith(last.strip())]
    return Annotated[kind, typer.Option(name, help=help, rich_help_panel=panel, autocompletion=complete)]


def _decks() -> list[str]:
    from montecarlo.games.dustrunners.deck import SHIPPED_DECKS

    return list(SHIPPED_DECKS)


def _vehicles() -> list[str]:
    from montecarlo.games.dustrunners.deck import vehicles

    return list(vehicles())


def _enemies() -> list[str]:
    from montecarlo.games.dustrunners.deck import enemies

    return list(enemies())


ADVISE_DECK = "illustrative-12"  # advice is solved exactly, on decks of up to 16 cards
Deck = _opt("--deck", "Resolution deck: a deck TOML file, or a shipped deck (illustrative, "
            "illustrative-12).", "Deck", str, _decks)
Counts = _opt("--card-counts", "Override card counts of the deck by card name: "
              "'double tap=0, critical hit=4'.", "Deck", Optional[str])
Vehicle = _opt("--vehicle", "Shipped vehicle (scout, interceptor, hauler): health, ammo, damage bonus, VP.",
               "You", Optional[str], _vehicles)
Health = _opt("--health", "Your health (overrides --vehicle).", "You")
Ammo = _opt("--ammo", "Your ammo (overrides --vehicle).", "You")
Bonus = _opt("--damage-bonus", "Your vehicle's damage bonus (overrides --vehicle).", "You")
Vp = _opt("--vp", "Victory points at the start, for redraws (default: the --vehicle's stars; "
          "required with a redraw policy and no --vehicle).", "You")
Policy = _opt("--policy", "Ammo per attack: all_in, fixed:N, just_enough, or best (combat only: 0..min(ammo, "
              "4) chosen at every attack for --objective, counting the cards seen; solved exactly, decks of "
              "up to 16 cards).", "Policies", str)
Objective = _opt("--objective", "What the play is judged by, reported as the metric objective: win (P(you "
                 "win); the default of best play) or keep:W (W x win + health left + ammo left / 2).",
                 "Policies", Optional[str])
_REDRAW_USES = ("never, all, or uses joined by commas: initiative (the enemy's health card when it gives "
                "the raiders the initiative), finish (a skull-less card of your attack while it falls "
                "short), when_losing (the worst card of a lethal raider attack), loot (a loot card without "
                "bonus loot), steps (a loot card that moves the raider).")
Redraw = _opt("--redraw", f"VP redraw policy: {_REDRAW_USES} Under --policy best, initiative and finish are "
              "decided: made only where they pay.", "Policies", str)
AdviseRedraw = _opt("--redraw", f"The redraws you allow yourself: {_REDRAW_USES} Initiative and finish are "
                    "decided (made only where they pay), the others made whenever they apply.",
                    "Policies", str)
EnemyName = _opt("--enemy", "Shipped enemy by name (scavenger-buggy, road-raiders, war-rig, spybot, "
                 "mutant-pack).", "Enemy", Optional[str], _enemies)
SecondCard = _opt("--second-card", "The enemy is the second exploration card: right die value, bonus "
                  "loot always.", "Enemy", bool)
EnemyDie = _opt("--enemy-die", "The enemy card's die value, 0..6 (0: its health is the resolution card's die "
                "alone; instead of --enemy).", "Enemy")
EnemyStars = _opt("--enemy-stars", "Cards the enemy draws per attack (instead of --enemy).", "Enemy")
EnemyKind = _opt("--enemy-kind", "raiders, spybot or mutant (instead of --enemy).", "Enemy", Optional[str])
EnemyRadiation = _opt("--enemy-radiation", "A mutant's radiation skulls, 1 or 2 (default 1).", "Enemy")
EnemyMoon = _opt("--enemy-moon", "The enemy's moon (bonus loot when the loot card's moon matches).", "Enemy",
                 Optional[str])
Enemies = _opt("--enemies", "Exploration pool: comma-separated shipped enemy names (default, when not "
               "given: all).", "Enemy",
               Optional[str], _enemies)
Fights = _opt("--fights", "Combats in the campaign (1..12).", "Campaign", int)
MaxHealth = _opt("--max-health", "Health cap for loot (default: starting health).", "You")
MaxAmmo = _opt("--max-ammo", "Ammo cap for loot (default: starting ammo).", "You")
Exploration = _opt("--exploration", "Which exploration card to fight: first, or safer.", "Policies", str)


def _checked_combat(values: dict, variants: Any) -> Any:
    """The combat setup, checked; under --policy best solved before any simulation (one line and
    exit 2 when there is nothing to decide or the combat is too large to solve)."""
    from montecarlo.games.dustrunners.combat import check_something_to_choose, solved_best
    from montecarlo.registry import get_game

    game = get_game("dustrunners")
    setup = game.question("combat").setup(values)
    if setup.policy == "best":
        check_something_to_choose(game.rules(variants), setup)
        from montecarlo.games.dustrunners.combat import MAX_EXACT_CARDS

        shipped_large = str(values.get("deck", "illustrative")).lower() == "illustrative"
        if setup.deck.size > MAX_EXACT_CARDS and shipped_large:
            raise InputError(  # the default deck is the large one: say which shipped deck best play takes
                f"best play: the illustrative deck (the default) has {setup.deck.size} cards and the exact "
                f"solver takes up to {MAX_EXACT_CARDS}; give --deck illustrative-12 (the small shipped "
                "deck), or a deck file"
            )
        solved_best(game.rules(variants), setup)
    return setup


# options whose blank value the data layer reads as "none": typed on a command line, a blank is a
# slip (an unset shell variable), not a choice, so it is refused with what to give
_NOT_BLANK = {
    "redraw": "never, all, or uses such as loot,when_losing",
    "objective": "win or keep:W (e.g. keep:10)",
}


def _drop_none(values: dict) -> dict:
    """The options given (None: not given); a blank --redraw or --objective is refused."""
    for name, example in _NOT_BLANK.items():
        not_blank(name, values.get(name), example)
    return {k: v for k, v in values.items() if v is not None}


def _you(s) -> str:
    car = f"{s.vehicle}: " if s.vehicle else ""
    return f"{car}health {s.health}, ammo {s.ammo}, damage bonus {s.damage_bonus}, VP {s.vp}"


def vp_source(s, given: Optional[int], rules=None) -> str:
    """Where the starting VP came from (the rulebook: the stars on your vehicle cards); with a
    combat's ``rules``, which redraw uses they cannot pay for (a combat wins VP only at its end,
    where the loot and steps uses may spend them)."""
    if given is not None:
        said = f"starting VP {s.vp}: given (--vp)"
    elif s.vehicle:
        said = f"starting VP {s.vp}: the stars on the {s.vehicle}'s vehicle cards"
    else:
        said = "starting VP 0: no vehicle and no --vp"
        if s.redraw == "never":
            return said + " (nothing spends VP under redraw never)"
    if rules is None or s.redraw == "never":
        return said
    uses = s.redraw.split(",")
    cost = rules.redraw_cost
    unpaid = [u for u in uses if s.vp + (rules.win_vp if u in ("loot", "steps") else 0) < cost]
    if unpaid == uses:
        return said + f"; a redraw costs {cost} VP, so none is made"
    if unpaid:
        verb = "makes" if len(unpaid) == 1 else "make"
        return said + (f"; a redraw costs {cost} VP, so {', '.join(unpaid)} {verb} none "
                       f"(loot and steps may spend the {rules.win_vp} VP of a win)")
    return said


def _exact_note(answer) -> str:
    from montecarlo.games.dustrunners.combat import QUESTIONS

    s = answer.setup
    if any(m.exact is not None for m in answer.metrics.values()):
        return f"exact values: computed (deck of {s.deck.size} cards)"
    why_no_exact = QUESTIONS["combat"].why_no_exact
    why = why_no_exact(answer.rules, s) if why_no_exact is not None else None
    return f"exact values: not computed — {why or 'no exact solver for this setup'}"


@app.command("combat")
@asks("combat")
@run_command
def combat(
    run: RunOptions,
    deck: Deck = "illustrative",
    card_counts: Counts = None,
    enemy: EnemyName = None,
    second_card: SecondCard = False,
    enemy_die: EnemyDie = None,
    enemy_stars: EnemyStars = None,
    enemy_kind: EnemyKind = None,
    enemy_radiation: EnemyRadiation = None,
    enemy_moon: EnemyMoon = None,
    vehicle: Vehicle = None,
    health: Health = None,
    ammo: Ammo = None,
    damage_bonus: Bonus = None,
    vp: Vp = None,
    policy: Policy = "all_in",
    redraw: Redraw = "never",
    objective: Objective = None,
) -> None:
    """One combat: win odds, health lost, ammo spent, raider steps, VP gained, stalemates.

    With --policy best you choose the ammo of every attack (0 deals the damage bonus alone)
    knowing which cards are left in the draw pile, exactly for --objective (default win): every
    metric is then that of best play and the metric objective is the optimum. Of the --redraw
    uses, best play decides initiative and finish too (a redraw only where it is worth more than
    keeping the VP); the others keep their rules. With a fixed policy --objective reports that
    policy's objective.

    Examples:
    montecarlo odds dustrunners --enemy road-raiders --vehicle interceptor
    montecarlo odds dustrunners --enemy war-rig --second-card --vehicle hauler --policy just_enough
    montecarlo odds dustrunners --deck illustrative-12 --enemy-die 3 --enemy-stars 2 --health 6 --ammo 4
    montecarlo odds dustrunners --deck illustrative-12 --enemy war-rig --vehicle interceptor --policy best
    montecarlo odds dustrunners --card-counts "critical hit=0" --enemy spybot --health 5 --ammo 3
    """
    if objective is None and policy == "best":
        objective = "win"
    setup = _drop_none({
        "deck": deck, "card_counts": card_counts, "enemy": enemy, "second_card": second_card or None,
        "enemy_die": enemy_die, "enemy_stars": enemy_stars, "enemy_kind": enemy_kind,
        "enemy_radiation": enemy_radiation, "enemy_moon": enemy_moon, "vehicle": vehicle, "health": health,
        "ammo": ammo, "damage_bonus": damage_bonus, "vp": vp, "policy": policy, "redraw": redraw,
        "objective": objective,
    })
    checked = _checked_combat(setup, run.variant)
    answer = run.ask("dustrunners", "combat", checked)
    if not checked.objective:  # the metric objective only where it is asked for
        asked = {k: m for k, m in answer.metrics.items() if k != "objective"}
        answer = dataclasses.replace(answer, metrics=asked)
    s = answer.setup
    _note_over_the_limit(s.policy, answer.rules.max_ammo_per_attack)
    e = s.enemy
    foe = f"{e.name} ({'second' if s.second_card else 'first'} card: die {s.enemy_die}, "
    spy = ", spybot" if e.kind == "spybot" else ""
    stars = f"{e.stars} star{'s' * (e.stars != 1)}"
    foe += f"{e.radiation} radiation)" if e.kind == "mutant" else f"{stars}{spy})"
    shown = f"best (for {s.objective}, solved exactly)" if s.policy == "best" else s.policy
    title = (f"Dustrunners combat: {foe} vs {_you(s)}; policy {shown}, redraw {s.redraw}; "
             f"deck {s.deck.short_label()}")
    note = _exact_note(answer)
    emit(answer, run, title, extra={"deck": s.deck.label(), "deck_file": s.deck.file,
                                    "deck_illustrative": s.deck.illustrative, "exact": note,
                                    "starting_vp": vp_source(s, vp, answer.rules)})
    if not run.json:
        say(f"deck: {s.deck.label()}")
        say(vp_source(s, vp, answer.rules))
        say(note)


def _note_over_the_limit(policy: str, limit: int) -> None:
    """fixed:9 ran as fixed:4 and was echoed as fixed:9: say so (on stderr; the JSON keeps it)."""
    from montecarlo.games.dustrunners.combat import fixed_ammo

    wanted = fixed_ammo(policy)
    if wanted is not None and wanted > limit:
        typer.echo(f"note: --policy {policy}: an attack spends at most {limit} ammo (the rules' limit), "
                   f"so it plays as fixed:{limit}", err=True)


@app.command("campaign")
@asks("campaign")
@run_command
def campaign(
    run: RunOptions,
    deck: Deck = "illustrative",
    card_counts: Counts = None,
    enemies: Enemies = None,
    fights: Fights = 5,
    vehicle: Vehicle = None,
    health: Health = None,
    ammo: Ammo = None,
    damage_bonus: Bonus = None,
    vp: Vp = None,
    max_health: MaxHealth = None,
    max_ammo: MaxAmmo = None,
    policy: Policy = "all_in",
    redraw: Redraw = "never",
    exploration: Exploration = "first",
) -> None:
    """A campaign: how many fights a vehicle survives, with the deck carried over.

    Examples:
    montecarlo dustrunners campaign --vehicle interceptor --fights 8
    montecarlo dustrunners campaign --vehicle hauler --exploration safer --redraw when_losing
    montecarlo dustrunners campaign --health 7 --ammo 3 --enemies "road raiders, war rig" --fights 4
    """
    setup = _drop_none({
        "deck": deck, "card_counts": card_counts, "enemies": enemies, "fights": fights,
        "vehicle": vehicle, "health": health, "ammo": ammo, "damage_bonus": damage_bonus, "vp": vp,
        "max_health": max_health, "max_ammo": max_ammo, "policy": policy, "redraw": redraw,
        "exploration": exploration,
    })
    answer = run.ask("dustrunners", "campaign", setup)
    s = answer.setup
    _note_over_the_limit(s.policy, answer.rules.max_ammo_per_attack)
    shown = {k: m for k, m in answer.metrics.items()
             if not k.startswith("survived=") or int(k.split("=")[1]) <= s.fights}
    title = (f"Dustrunners campaign: {s.fights} fights vs {', '.join(e.name for e in s.enemies)}; {_you(s)}; "
             f"policy {s.policy}, redraw {s.redraw}, exploration {s.exploration}; "
             f"deck {s.deck.short_label()}")
    emit(dataclasses.replace(answer, metrics=shown), run, title,
         extra={"deck": s.deck.label(), "deck_file": s.deck.file, "deck_illustrative": s.deck.illustrative,
                "starting_vp": vp_source(s, vp)})
    if not run.json:
        say(f"deck: {s.deck.label()}")
        say(vp_source(s, vp))


ExplorationDeck = _opt("--exploration-deck", "Exploration deck file (default: the shipped ILLUSTRATIVE "
                       "one, 'illustrative').", "Deck", Optional[str])
Rounds = _opt("--rounds", "Rounds of 6 turns to drive (1..6).", "Road", int)
RaiderGap = _opt("--raider-gap", "Spaces between the raider and you at the start: it catches you when "
                 "its steps reach this.", "Road", int)
Fuel = _opt("--fuel", "Your fuel (overrides --vehicle); 1 is spent at each round end.", "You")


@app.command("road")
@asks("road")
@run_command
def road(
    run: RunOptions,
    deck: Deck = "illustrative",
    card_counts: Counts = None,
    exploration_deck: ExplorationDeck = None,
    rounds: Rounds = 2,
    raider_gap: RaiderGap = 10,
    vehicle: Vehicle = None,
    health: Health = None,
    ammo: Ammo = None,
    fuel: Fuel = None,
    damage_bonus: Bonus = None,
    vp: Vp = None,
    policy: Policy = "all_in",
    redraw: Redraw = "never",
    exploration: Exploration = "first",
) -> None:
    """Rounds on the road: exploration cards (combats and events), round ends, the raider.

    Each turn draws 2 exploration cards and resolves one; each round of 6 turns ends with 1 fuel
    spent (out of fuel: the raider advances 2) and a d6 against your radiation cards. You lose
    when destroyed or caught. The exploration and radiation cards are ILLUSTRATIVE.

    Examples:
    montecarlo dustrunners road --vehicle interceptor --rounds 2
    montecarlo dustrunners road --vehicle hauler --rounds 3 --exploration safer --redraw all
    """
    setup = _drop_none({
        "deck": deck, "card_counts": card_counts, "exploration_deck": exploration_deck, "rounds": rounds,
        "raider_gap": raider_gap, "vehicle": vehicle, "health": health, "ammo": ammo, "fuel": fuel,
        "damage_bonus": damage_bonus, "vp": vp, "policy": policy, "redraw": redraw,
        "exploration": exploration,
    })
    answer = run.ask("dustrunners", "road", setup)
    s = answer.setup
    _note_over_the_limit(s.policy, answer.rules.max_ammo_per_attack)
    shown = {k: m for k, m in answer.metrics.items()
             if not k.startswith("rounds_survived=") or int(k.split("=")[1]) <= s.rounds}
    title = (f"Dustrunners road: {s.rounds} rounds, raider {s.raider_gap} spaces behind; {_you(s)}, fuel "
             f"{s.fuel}; policy {s.policy}, redraw {s.redraw}, exploration {s.exploration}")
    ex = s.exploration_deck
    emit(dataclasses.replace(answer, metrics=shown), run, title,
         extra={"deck": s.deck.label(), "deck_file": s.deck.file, "exploration_deck": ex.label(),
                "exploration_deck_file": ex.file, "exploration_illustrative": ex.illustrative,
                "starting_vp": vp_source(s, vp)})
    if not run.json:
        say(f"deck: {s.deck.label()}")
        say(f"exploration deck: {ex.label()}")
        say(vp_source(s, vp))


ODDS = combat
ODDS_SUMMARY = (  # odds --help's line for the game
    "Dustrunners: one combat against a resolution deck (campaigns, the "
    "road: montecarlo dustrunners)."
)


EnemyHealth = _opt("--enemy-health", "The enemy's health now.", "Enemy", int)
Seen = _opt("--seen", "Cards seen since the last shuffle, comma-separated card names (repeat a name for "
            "each copy seen): they are out of the draw pile.", "Deck", Optional[str])


@app.command("advise")
@asks("combat")
@cli_errors
@named_flags
def advise(
    enemy_health: EnemyHealth,
    deck: Deck = ADVISE_DECK,
    card_counts: Counts = None,
    seen: Seen = None,
    enemy: EnemyName = None,
    second_card: SecondCard = False,
    enemy_die: EnemyDie = None,
    enemy_stars: EnemyStars = None,
    enemy_kind: EnemyKind = None,
    enemy_radiation: EnemyRadiation = None,
    enemy_moon: EnemyMoon = None,
    vehicle: Vehicle = None,
    health: Health = None,
    ammo: Ammo = None,
    damage_bonus: Bonus = None,
    vp: Vp = None,
    redraw: AdviseRedraw = "never",
    objective: Objective = None,
    variant: Annotated[
        Optional[list[str]],
        typer.Option("--variant", "-v", metavar="NAME", help="Rule variant (repeatable).",
                     rich_help_panel="Rules"),
    ] = None,
    json_out: Annotated[
        bool,
        typer.Option("--json", help="Print one JSON object on stdout instead of the words and tables.",
                     rich_help_panel="Output"),
    ] = False,
) -> None:
    """How much ammo to spend on your attack now: the value of each choice, best first, exactly.

    The choices are 0 to min(ammo, 4): an attack spends at most 4 ammo, and 0 deals the damage
    bonus alone. The draw pile is the deck less the --seen cards (the others are in the discard
    pile); best play follows whatever you choose now, for --objective (default win), and the
    combat's turn limit counts from this attack. The enemy attacks with the rules of the combat
    command (a shipped --enemy, or --enemy-die/--enemy-stars for its attacks; --enemy-health is
    its health now).

    Examples:
    montecarlo dustrunners advise --enemy war-rig --health 3 --ammo 3 --enemy-health 5 --seen "double tap"
    montecarlo dustrunners advise --enemy-health 4 --enemy war-rig --vehicle scout
    """
    import json

    from montecarlo.engine.decisions import as_good
    from montecarlo.games.dustrunners.combat import MAX_EXACT_CARDS
    from montecarlo.games.dustrunners.combat import advise as solve_advice
    from montecarlo.registry import get_game

    variants = tuple(variant or ())
    check_edges(variants, None, None, None, None)  # a variant named twice is refused, as by every command
    if enemy is None and enemy_stars is None and enemy_kind is None:  # its attacks were a default
        raise InputError(
            "--enemy: give a shipped enemy (--enemy), or how it attacks (--enemy-stars, --enemy-kind)"
        )
    if enemy is None and enemy_die is None:
        enemy_die = 0  # the die of the enemy card only sets its starting health, given here
    values = _drop_none({
        "deck": deck, "card_counts": card_counts, "enemy": enemy, "second_card": second_card or None,
        "enemy_die": enemy_die, "enemy_stars": enemy_stars, "enemy_kind": enemy_kind,
        "enemy_radiation": enemy_radiation, "enemy_moon": enemy_moon, "vehicle": vehicle, "health": health,
        "ammo": ammo, "damage_bonus": damage_bonus, "vp": vp, "policy": "best", "redraw": redraw,
        "objective": "win" if objective is None else objective,
    })
    game = get_game("dustrunners")
    setup = game.question("combat").setup(values)
    rules = game.rules(variants)
    with solving():
        advice = solve_advice(rules, setup, enemy_health, seen or "")
    what = "win" if advice.objective == "win" else f"expected {advice.objective}"
    if json_out:
        from montecarlo.games.base import to_plain

        best_value = dict(advice.options)[advice.best]
        typer.echo(json.dumps({
            "game": "dustrunners", "question": "advise", "variants": list(variants),
            # setup, rules and best_value as the other games' advice has them; the flat keys after
            "setup": {k: v for k, v in to_plain(setup).items() if k not in ("policy", "objective")},
            "rules": to_plain(rules), "objective": advice.objective, "best_value": best_value,
            "deck_file": setup.deck.file, "enemy": setup.enemy.name, "enemy_health": enemy_health,
            "health": setup.health, "ammo": setup.ammo, "damage_bonus": setup.damage_bonus, "vp": setup.vp,
            "redraw": setup.redraw, "draw_pile": dict(advice.pile), "best_ammo": advice.best,
            "options": [{"ammo": k, "value": v} for k, v in advice.options],
        }))
        return
    left = ", ".join(f"{n} x{c}" for n, c in advice.pile if c) or "empty (the discard pile is shuffled)"
    say(f"Your attack against {setup.enemy.name} (health {enemy_health} now) with {_you(setup)}; "
        f"deck {setup.deck.short_label()}")
    if deck == ADVISE_DECK:  # combat's default is the larger deck: say why this one differs
        say(f"(advise's default deck: it is solved exactly, on decks of up to {MAX_EXACT_CARDS} cards; "
            "combat defaults to the larger illustrative deck)")
    say(f"draw pile: {left}")
    first, *rest = advice.options
    places = decimals_apart([v for _, v in advice.options])
    words = f"Spend {first[0]} ammo: {what} {first[1]:.{places}f}"
    words += "".join(f"; {k} ammo: {v:.{places}f}" for k, v in rest)
    say(words + ".")
    tie = [k for k, v in advice.options if as_good(v, first[1]) and k != first[0]]
    if tie:
        say(f"(as good: {', '.join(map(str, tie))} ammo; the least ammo is advised)")
    judged = "P(you win)" if advice.objective == "win" else what
    rules_named = ", ".join(variants) or "official rules"
    say(f"exact, with best play after this attack ({judged}; redraws: {setup.redraw}); {rules_named}")
