"""Dune (Parker Brothers, 1984) — ``dune1984``.

The rules as modelled, the rulebook section each comes from, every interpretation and every
variant: ``docs/rules/dune1984.md``. Questions:

- ``duel`` / ``fight`` (:mod:`.fights`): strength duels with d6/d8 dice and equipment, and
  fights with several characters per side.
- ``guile`` (:mod:`.checks`): Guile checks against Sand Storm, Worm and Poison.
- ``reach`` / ``invest`` (:mod:`.movement`): movement reach and investment returns on 2d6.

Interpretations (named in reports): Poison is a Guile check of the target; the Guile check roll
(1d6 <= Guile by default) is not in the rulebook. Rules and variants: :mod:`.rules`.
"""

from montecarlo.games.base import Game
from montecarlo.games.dune1984 import checks, fights, movement
from montecarlo.games.dune1984.rules import CHARACTERS, VARIANT_DESCRIPTIONS, VARIANTS, Rules

GAME = Game(
    name="dune1984",
    title="Dune (Parker Brothers, 1984)",
    rules_type=Rules,
    variants=VARIANTS,
    questions={**fights.QUESTIONS, **checks.QUESTIONS, **movement.QUESTIONS},
    default_question="duel",
    variant_descriptions=VARIANT_DESCRIPTIONS,
    examples=(
        ("duel", {"attacker": 6, "defender": 5, "attacker_equipment": "gom_jabbar, poison",
                  "defender_equipment": "sword"}),  # Gom Jabbar cap, Poison, Strength-6 winners
        ("fight", {"attacker": [3, 1], "defender": [2, 2], "attacker_equipment": "poison"}),  # designation
        ("guile", {"guile": 4, "spice": 0}),
    ),
)

__all__ = ["GAME", "Rules", "VARIANTS", "CHARACTERS"]
