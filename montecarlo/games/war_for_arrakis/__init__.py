"""Dune: War for Arrakis (CMON, 2023) — ``war-for-arrakis``.

The rules as modelled, with every interpretation: ``docs/rules/war-for-arrakis.md``. Questions:

- ``battle`` (:mod:`.battle`): a whole battle of two legions (units, leaders, Planning cards,
  settlement, surprise attack), exact on the chain engine.
- ``storm``, ``worm``, ``hazards`` (:mod:`.hazards`): a Coriolis storm or a sandworm attack on
  one legion, and one Desert Hazards step for a whole Harkonnen deployment (the wormsign pool's
  split is an assumption, and every output that uses it says so).

Rules, variants, policies, the die and the leaders' table: :mod:`.rules` and ``data/``.
"""

from montecarlo.games.base import Game
from montecarlo.games.war_for_arrakis import battle, hazards
from montecarlo.games.war_for_arrakis.rules import LEADERS, VARIANT_DESCRIPTIONS, VARIANTS, Rules

GAME = Game(
    name="war-for-arrakis",
    title="Dune: War for Arrakis (CMON, 2023)",
    rules_type=Rules,
    variants=VARIANTS,
    questions={**battle.QUESTIONS, **hazards.QUESTIONS},
    default_question="battle",
    variant_descriptions=VARIANT_DESCRIPTIONS,
    examples=(
        # no settlement: continue_always_costs matters; the attacker can fall behind (while_ahead)
        (
            "battle",
            {
                "attacker": "4 regular, 1 elite, Stilgar",
                "defender": "3 regular, 1 sardaukar, Baron Harkonnen",
            },
        ),
        (
            "battle",
            {
                "attacker": "2 regular, 2 sardaukar, bashar",
                "defender": "3 regular",
                "settlement": 1,
                "surprise": True,
            },
        ),
        # a Harkonnen legion of 6 discarding a card (CHOAM and Landsraad Bans) against Gurney Halleck
        (
            "battle",
            {
                "attacker": "5 regular, 1 sardaukar, bashar",
                "defender": "3 regular, 1 fedaykin, Gurney Halleck",
                "settlement": 1,
                "attacker_cards": 1,
            },
        ),
        # best play: two leaders to choose between, free continuation (cycles), a trade objective
        (
            "battle",
            {
                "attacker": "2 regular, 1 sardaukar, Baron Harkonnen, Beast Rabban",
                "defender": "3 regular, Stilgar",
                "objective": "trade:1",
            },
        ),
        ("storm", {"legion": "2 regular, 1 sardaukar", "terrain": "plateau"}),
        ("storm", {"legion": "3 regular, 1 elite", "terrain": "deep_desert", "settlement": True}),
        ("worm", {"legion": "none", "terrain": "deep_desert", "harvester": True}),
        (
            "hazards",
            {
                "areas": [
                    "deep_desert: 4 regular, 2 elite, bashar",
                    "desert: harvester",
                    "minor_erg: 3 regular",
                    "desert: 2 regular, harvester",
                ],
                "wild_maker": True,
            },
        ),
    ),
)

__all__ = ["GAME", "Rules", "VARIANTS", "LEADERS"]
