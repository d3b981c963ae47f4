"""Dustrunners commands: ``montecarlo dustrunners combat|campaign`` and ``montecarlo odds dustrunners``.

``combat`` (also ``ODDS``): one combat from a freshly shuffled resolution deck, with the exact
value beside each estimate when the deck is small enough for the exact solver (and a line saying
so when it is not). ``campaign``: fights in a row with the deck, health, ammo and VP carried over.
Every output names the deck file (the shipped deck is illustrative, and says so).
"""

import dataclasses
from typing import Annotated, Optional

import typer

from montecarlo.analysis import ask
from montecarlo.cli.common import RunOptions, emit, parse_name_list, run_command

app = typer.Typer(help="Dustrunners (solo card game): combats and campaigns on a resolution deck.",
                  no_args_is_help=True)

_DECK = "Resolution deck: a deck TOML file, or a shipped deck (illustrative, illustrative-12). Default: illustrative."
_COUNTS = "Override card counts of the deck by card name: 'double tap=0, critical hit=4'."
_POLICY = "Ammo per attack: all_in, fixed:N or just_enough."
_REDRAW = "VP redraw policy: never, or when_losing (redraw the worst card of a lethal raider attack)."

Deck = Annotated[str, typer.Option("--deck", "-d", help=_DECK, rich_help_panel="Deck")]
Counts = Annotated[Optional[str], typer.Option("--card-counts", help=_COUNTS, rich_help_panel="Deck")]
Vehicle = Annotated[Optional[str], typer.Option("--vehicle", help="Shipped vehicle (scout, interceptor, hauler): health, ammo, damage bonus, VP.", rich_help_panel="You")]
Health = Annotated[Optional[int], typer.Option("--health", help="Your health (overrides --vehicle).", rich_help_panel="You")]
Ammo = Annotated[Optional[int], typer.Option("--ammo", help="Your ammo (overrides --vehicle).", rich_help_panel="You")]
Bonus = Annotated[Optional[int], typer.Option("--damage-bonus", help="Your vehicle's damage bonus (overrides --vehicle).", rich_help_panel="You")]
Vp = Annotated[Optional[int], typer.Option("--vp", help="Victory points at the start (for redraws).", rich_help_panel="You")]
Policy = Annotated[str, typer.Option("--policy", help=_POLICY, rich_help_panel="Policies")]
Redraw = Annotated[str, typer.Option("--redraw", help=_REDRAW, rich_help_panel="Policies")]


def _drop_none(values: dict) -> dict:
    return {k: v for k, v in values.items() if v is not None}


def _exact_note(deck, exact_found: bool) -> str:
    from montecarlo.games.dustrunners.combat import MAX_EXACT_CARDS

    if exact_found:
        return f"exact values: computed (deck of {deck.size} cards)"
    if deck.size > MAX_EXACT_CARDS:
        return (f"exact values: not computed — the deck has {deck.size} cards; "
                f"the exact solver handles decks of up to {MAX_EXACT_CARDS}")
    return "exact values: not computed — too many states for the exact solver"


@app.command("combat")
@run_command
def combat(
    run: RunOptions,
    deck: Deck = "illustrative",
    card_counts: Counts = None,
    enemy: Annotated[Optional[str], typer.Option("--enemy", help="Shipped enemy by name (scavenger-buggy, road-raiders, war-rig, spybot, mutant-pack).", rich_help_panel="Enemy")] = None,
    second_card: Annotated[bool, typer.Option("--second-card", help="The enemy is the second exploration card: right die value, bonus loot always.", rich_help_panel="Enemy")] = False,
    enemy_die: Annotated[Optional[int], typer.Option("--enemy-die", help="The enemy card's die value (instead of --enemy).", rich_help_panel="Enemy")] = None,
    enemy_stars: Annotated[Optional[int], typer.Option("--enemy-stars", help="Cards the enemy draws per attack (instead of --enemy).", rich_help_panel="Enemy")] = None,
    enemy_kind: Annotated[Optional[str], typer.Option("--enemy-kind", help="raiders, spybot or mutant (instead of --enemy).", rich_help_panel="Enemy")] = None,
    enemy_radiation: Annotated[Optional[int], typer.Option("--enemy-radiation", help="A mutant's radiation skulls, 1 or 2.", rich_help_panel="Enemy")] = None,
    enemy_moon: Annotated[Optional[str], typer.Option("--enemy-moon", help="The enemy's moon (bonus loot when the loot card matches).", rich_help_panel="Enemy")] = None,
    vehicle: Vehicle = None,
    health: Health = None,
    ammo: Ammo = None,
    damage_bonus: Bonus = None,
    vp: Vp = None,
    policy: Policy = "all_in",
    redraw: Redraw = "never",
) -> None:
    """One combat: win odds, health lost, ammo spent, raider steps, VP gained, stalemates."""
    setup = _drop_none({
        "deck": deck, "card_counts": card_counts, "enemy": enemy, "second_card": second_card or None,
        "enemy_die": enemy_die, "enemy_stars": enemy_stars, "enemy_kind": enemy_kind,
        "enemy_radiation": enemy_radiation, "enemy_moon": enemy_moon, "vehicle": vehicle, "health": health,
        "ammo": ammo, "damage_bonus": damage_bonus, "vp": vp, "policy": policy, "redraw": redraw,
    })
    answer = ask("dustrunners", "combat", setup, variants=run.variant, settings=run.settings())
    s = answer.setup
    e = s.enemy
    foe = f"{e.name} ({'second' if s.second_card else 'first'} card: die {s.enemy_die}, "
    foe += f"{e.radiation} radiation)" if e.kind == "mutant" else f"{e.stars} stars{', spybot' if e.kind == 'spybot' else ''})"
    you = f"{s.vehicle + ': ' if s.vehicle else ''}health {s.health}, ammo {s.ammo}, damage bonus {s.damage_bonus}"
    title = f"Dustrunners combat: {foe} vs {you}; policy {s.policy}, redraw {s.redraw}; deck {s.deck.short_label()}"
    found = any(m.exact is not None for m in answer.metrics.values())
    note = _exact_note(s.deck, found)
    emit(answer, run, title, extra={"deck": s.deck.label(), "deck_file": s.deck.file,
                                    "deck_illustrative": s.deck.illustrative, "exact": note})
    if not run.json:
        typer.echo(f"deck: {s.deck.label()}")
        typer.echo(note)


@app.command("campaign")
@run_command
def campaign(
    run: RunOptions,
    deck: Deck = "illustrative",
    card_counts: Counts = None,
    enemies: Annotated[Optional[str], typer.Option("--enemies", help="Exploration pool: comma-separated shipped enemy names (default: all).", rich_help_panel="Enemy")] = None,
    fights: Annotated[int, typer.Option("--fights", help="Combats in the campaign (1..12).", rich_help_panel="Campaign")] = 5,
    vehicle: Vehicle = None,
    health: Health = None,
    ammo: Ammo = None,
    damage_bonus: Bonus = None,
    vp: Vp = None,
    max_health: Annotated[Optional[int], typer.Option("--max-health", help="Health cap for loot (default: starting health).", rich_help_panel="You")] = None,
    max_ammo: Annotated[Optional[int], typer.Option("--max-ammo", help="Ammo cap for loot (default: starting ammo).", rich_help_panel="You")] = None,
    policy: Policy = "all_in",
    redraw: Redraw = "never",
    exploration: Annotated[str, typer.Option("--exploration", help="Which exploration card to fight: first, or safer.", rich_help_panel="Policies")] = "first",
) -> None:
    """A campaign: how many fights a vehicle survives, with the deck carried over."""
    setup = _drop_none({
        "deck": deck, "card_counts": card_counts, "enemies": parse_name_list(enemies) or None, "fights": fights,
        "vehicle": vehicle, "health": health, "ammo": ammo, "damage_bonus": damage_bonus, "vp": vp,
        "max_health": max_health, "max_ammo": max_ammo, "policy": policy, "redraw": redraw,
        "exploration": exploration,
    })
    answer = ask("dustrunners", "campaign", setup, variants=run.variant, settings=run.settings())
    s = answer.setup
    shown = {k: m for k, m in answer.metrics.items()
             if not k.startswith("survived=") or int(k.split("=")[1]) <= s.fights}
    you = f"{s.vehicle + ': ' if s.vehicle else ''}health {s.health}, ammo {s.ammo}, damage bonus {s.damage_bonus}"
    title = (f"Dustrunners campaign: {s.fights} fights vs {', '.join(e.name for e in s.enemies)}; {you}; "
             f"policy {s.policy}, redraw {s.redraw}, exploration {s.exploration}; deck {s.deck.short_label()}")
    emit(dataclasses.replace(answer, metrics=shown), run, title,
         extra={"deck": s.deck.label(), "deck_file": s.deck.file, "deck_illustrative": s.deck.illustrative})
    if not run.json:
        typer.echo(f"deck: {s.deck.label()}")


ODDS = combat
