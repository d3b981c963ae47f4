"""Template for a new game: copy this folder to ``montecarlo/games/<your_game>/``.

The copy is registered by its folder name alone (``my_game`` is the game ``my-game``); the
shared consistency test (``tests/games/test_consistency.py``) then checks its kernel, reference
and exact solver on every example setup and variant. The steps are in ``docs/adding-a-game.md``.

This template is a working game, a *highest-die duel*: each side rolls one die per point of
Strength and the lower highest die loses a point; ties re-roll. Replace its rules with yours.
"""

from montecarlo.games._template.duel import QUESTIONS
from montecarlo.games._template.rules import VARIANT_DESCRIPTIONS, VARIANTS, Rules
from montecarlo.games.base import Game

GAME = Game(
    name="template",  # the folder name with "_" written "-": the registry checks it
    title="Template game (a highest-die duel)",
    rules_type=Rules,
    variants=VARIANTS,
    questions=QUESTIONS,
    default_question="duel",
    variant_descriptions=VARIANT_DESCRIPTIONS,
    # setups beside each question's example in which every variant changes a result
    examples=(("duel", {"attacker": 2, "defender": 2}),),
)

__all__ = ["GAME", "Rules", "VARIANTS"]
