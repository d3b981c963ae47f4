"""Dustrunners (solo card game): combat driven by a resolution deck — ``dustrunners``.

The resolution deck is drawn without replacement and its state carries through a whole combat
(and across the combats of a campaign). The real card list is not published: the shipped deck,
enemies and vehicles (``data/``) are illustrative, and every output names the deck file used.
Questions:

- ``combat`` (:mod:`.combat`): one combat from a freshly shuffled deck — win odds, health lost,
  ammo spent, raider steps, VP gained, stalemates; exact for small decks.
- ``campaign`` (:mod:`.campaign`): a run of combats with health, ammo, VP and the deck carried
  over — how many fights a vehicle survives.

The rules as modelled, with every interpretation: ``docs/rules/dustrunners.md``. Rules and
variants: :mod:`.rules`; deck files, enemies and vehicles: :mod:`.deck`.
"""

from montecarlo.games.base import Game
from montecarlo.games.dustrunners import campaign, combat, road
from montecarlo.games.dustrunners.rules import VARIANT_DESCRIPTIONS, VARIANTS, Rules

GAME = Game(
    name="dustrunners",
    title="Dustrunners (solo card game)",
    rules_type=Rules,
    variants=VARIANTS,
    questions={**combat.QUESTIONS, **campaign.QUESTIONS, **road.QUESTIONS},
    default_question="combat",
    variant_descriptions=VARIANT_DESCRIPTIONS,
    examples=(  # VP redraws (their cost is a variant) need VP to spend and the when_losing policy
        ("combat", {"enemy": "road raiders", "vehicle": "interceptor", "redraw": "when_losing", "vp": 2}),
        ("combat", {"enemy": "road raiders", "vehicle": "interceptor", "redraw": "when_losing", "vp": 3}),
        ("campaign", {"vehicle": "scout", "fights": 4, "redraw": "when_losing"}),
        # every redraw use on the small deck, exact: the health card, your attack, the loot card
        ("combat", {"deck": "illustrative-12", "enemy": "road raiders", "vehicle": "interceptor",
                    "policy": "fixed:1", "redraw": "all", "vp": 4}),
        # best play: the ammo of every attack chosen exactly, counting cards, for a keep objective
        ("combat", {"deck": "illustrative-12", "enemy": "road raiders", "vehicle": "interceptor",
                    "policy": "best", "objective": "keep:10"}),
        # the road: a Hauler choosing the safer card, spending VP on redraws, a raider close behind
        ("road", {"vehicle": "hauler", "rounds": 3, "exploration": "safer", "redraw": "all",
                  "raider_gap": 6}),
    ),
)

__all__ = ["GAME", "Rules", "VARIANTS"]
