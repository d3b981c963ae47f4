"""Dune: Imperium (Dire Wolf, 2020): conflict strength and who takes which reward — ``imperium``.

The rules as modelled, the rulebook sections they come from, every interpretation and every
variant: ``docs/rules/imperium.md``. One question, ``conflict``: 2 to 4 players commit troops and
reveal cards; strength is 2 per troop + 1 per revealed sword + combat intrigue strength, and 0
for a player with no troop in the conflict whatever the swords or intrigue. The package:

- :mod:`.rules`: :class:`Rules`, :data:`VARIANTS`, the decks and conflict cards as data;
- :mod:`.setup`: :class:`ConflictSetup` and :func:`parse_conflict` (the setup syntax);
- :mod:`.rewards`: who takes which reward, vectorised and scalar;
- :mod:`.conflict`: the kernel, the exact solver, the reference trial and the question.

>>> setup = GAME.question().setup({"troops": "3,2,2,1", "revealed": 3})
>>> exact = exact_conflict(Rules(), setup)
>>> round(exact["seat1_first"], 4), round(exact["tie_first"], 4)
(0.9399, 0.0601)

Interpretations (the rulebook is silent; named in reports, and argued in the rules doc):

- Swords are drawn from a freshly shuffled deck: ``revealed`` cards at random, without
  replacement (the cards that sent agents are treated as random too).
- Metrics exist for seats 1..4 whatever the player count (a question's metrics are fixed); the
  seats a setup does not have report all-false places and 0 points, exactly, and
  :func:`applicable_conflict` marks them (and points without a card, and a tie for second with
  2 players) as not applying.
- ``tie_first`` / ``tie_second`` count ties the rules in force still treat as ties, i.e. after
  any tie-breaker: a tie for second means one player alone on top and two or more sharing the
  next-highest positive strength. A player at 0 strength is never part of a tie.
- ``ties_split_up`` keeps the official order of play after a tie (a tied group uses up its place
  and the next, so after a tie for first the next player still competes for the third reward);
  only what the tied players take changes.
"""

from montecarlo.games.base import Game
from montecarlo.games.imperium.conflict import (
    QUESTIONS, MAX_EXACT_STATES, SEATS, applicable_conflict, exact_conflict, literal_places,
    reference_conflict, simulate_conflict, sword_pmf,
)
from montecarlo.games.imperium.rewards import PLACES, Allocation, allocate, reference_places
from montecarlo.games.imperium.rules import (
    CONFLICTS, DECKS, MAX_PLAYERS, MIN_PLAYERS, TIE_RULES, TIEBREAKS, VARIANT_DESCRIPTIONS, VARIANTS,
    Card, ConflictCard, Deck, Reward, Rules,
)
from montecarlo.games.imperium.setup import (
    DEPLOY_POLICIES, MAX_INTRIGUE, MAX_TROOPS, ConflictSetup, Troops, conflict_key, parse_conflict,
    parse_troops,
)

GAME = Game(
    name="imperium",
    title="Dune: Imperium (Dire Wolf, 2020)",
    rules_type=Rules,
    variants=VARIANTS,
    questions=QUESTIONS,
    default_question="conflict",
    variant_descriptions=VARIANT_DESCRIPTIONS,
    examples=(  # beside the 4-player example: 2 players with frequent ties; 3 with random troops
        ("conflict", {"troops": "1,1", "revealed": 3, "conflict": "points_3_2_1"}),
        ("conflict", {"troops": "deploy:0+2:uniform,1:1/2|2:1/2,2", "intrigue": "0,1,0",
                      "revealed": "3,2,5", "deck": "starting+sword2", "conflict": "battle_for_arrakeen"}),
        # two players and House Hagal (seat 3, its strength as 1-3 troops): Hagal's points not counted
        ("conflict", {"troops": "deploy:1+2:uniform,2,1-3", "revealed": "3,3,0", "hagal": 3,
                      "conflict": "skirmish"}),
    ),
)

__all__ = [
    "GAME", "QUESTIONS",
    # rules and data
    "Rules", "VARIANTS", "VARIANT_DESCRIPTIONS", "TIE_RULES", "TIEBREAKS", "MIN_PLAYERS", "MAX_PLAYERS",
    "Card", "Deck", "DECKS", "Reward", "ConflictCard", "CONFLICTS",
    # setup
    "ConflictSetup", "parse_conflict", "Troops", "parse_troops", "conflict_key", "DEPLOY_POLICIES",
    "MAX_TROOPS", "MAX_INTRIGUE",
    # rewards
    "PLACES", "Allocation", "allocate", "reference_places", "literal_places",
    # the question
    "SEATS", "MAX_EXACT_STATES", "simulate_conflict", "exact_conflict", "reference_conflict",
    "applicable_conflict", "sword_pmf",
]
