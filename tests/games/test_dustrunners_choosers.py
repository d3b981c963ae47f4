"""Dustrunners best play in the kernel: the solved policy turned into per-trial decisions
(``chooser``, ``finish_chooser``, ``kernel_best``), through :func:`simulate_combat` on tiny
hand-derived decks (two cards, a short turn limit), against the exact values.

- A combat with nothing to decide (the raiders take the only attack; a ``finish`` redraw
  named without the VP to pay for it) has an empty policy, and the kernel still plays it.
- A hopeless state (the enemy beyond all the damage you have left) under the ``win``
  objective has no policy entry: the kernel spends nothing there, also where one more attack
  of yours would have made it reachable (the damage bonus counted on your attacks left only).
- Under ``keep:W`` against raiders a hopeless state is decided like any other: best play may
  spend ammo there (to reshuffle the raiders' big card away) and the kernel does so.
"""

from __future__ import annotations

import numpy as np
import pytest

from montecarlo.games.dustrunners.combat import CombatSetup, exact_combat, simulate_combat, solved_best
from montecarlo.games.dustrunners.deck import Enemy
from montecarlo.games.dustrunners.rules import Rules
from tests.games.test_dustrunners import deck_of
from tests.games.test_dustrunners_best import assert_near_exact

N = 400  # trials: every case below has one random draw that matters (the health card, 1/2 each)


def _kernel_matches_exact(rules: Rules, setup: CombatSetup) -> dict[str, np.ndarray]:
    """simulate_combat's trials, checked against exact_combat (each metric's mean within 4.5
    standard errors; exactly where every trial has the same value)."""
    exact = exact_combat(rules, setup)
    assert exact is not None
    got = simulate_combat(rules, setup, N, np.random.default_rng(4))
    assert_near_exact(got, exact)
    return got


# S: 1 skull, die 1; B: no skull, die 2 (each one copy, each driver as given)
def _two_cards(driver: str):
    return deck_of((1, 1, driver, 0, 1, "new", "fuel"), (1, 2, driver, 0, 0, "new", "fuel"))


@pytest.mark.parametrize("objective", ["win", "keep:3"])
def test_a_combat_where_you_never_attack_has_an_empty_policy_and_still_runs(objective):
    """Turn limit 1 and both cards give the raiders the initiative: their one attack (1 star:
    the other card) ends the combat, so best play has no ammo and no ``finish`` redraw to
    decide (the policy and the redraw decisions are empty; ``finish`` is still decided)."""
    rules = Rules(turn_limit=1)
    setup = CombatSetup(_two_cards("raiders"), Enemy("e", 1, 1, 1), health=5, ammo=1, vp=4, redraw="finish",
                        policy="best", objective=objective)
    solved = solved_best(rules, setup)
    assert solved.decisions.policy == {} and solved.decisions.redraws == {}
    assert "finish" in solved.decisions.decided
    got = _kernel_matches_exact(rules, setup)
    assert (got["attacks"] == 1).all() and (got["ammo_spent"] == 0).all()


def test_a_finish_redraw_without_the_vp_to_pay_has_no_decision_and_still_runs():
    """``finish`` named but 0 VP: no redraw decision is ever reached (the redraw decisions are
    empty) while the ammo is decided as usual."""
    rules = Rules(turn_limit=2)
    setup = CombatSetup(_two_cards("you"), Enemy("e", 1, 1, 1), health=5, ammo=2, vp=0, redraw="finish",
                        policy="best", objective="win")
    solved = solved_best(rules, setup)
    assert solved.decisions.policy and solved.decisions.redraws == {}
    _kernel_matches_exact(rules, setup)


def test_a_hopeless_state_spends_nothing_also_one_attack_short_of_reachable():
    """Win objective, damage bonus 1, 1 ammo, turn limit 2 (you attack once, first: both cards
    give you the initiative). Enemy die 1: the health card S sets 2, not hopeless (bonus 1 + the
    most skulls of a card, 1, per ammo: 2), so the state has a policy entry; B sets 3: hopeless,
    since only 1 attack of yours is left (1 + 1 < 3), but it would not be with 2 (2 + 1 = 3).
    Best play spends nothing there without an entry; the kernel must not look it up."""
    rules = Rules(turn_limit=2)
    setup = CombatSetup(_two_cards("you"), Enemy("e", 1, 1, 1), health=5, ammo=1, damage_bonus=1,
                        policy="best", objective="win")
    solved = solved_best(rules, setup)
    assert solved.passive and len(solved.decisions.policy) == 1  # the hopeless start has none
    got = _kernel_matches_exact(rules, setup)
    assert (got["ammo_spent"] == 0).all()


def test_best_play_under_keep_spends_ammo_in_a_hopeless_state_when_it_pays():
    """keep:1 against raiders (1 star): a hopeless state is valued in full, not skipped.
    Two cards, both giving you the initiative: S3 (3 skulls) and B (none), die 1; enemy die 6
    (health 7, beyond 3 skulls x 1 ammo); health 5, turn limit 2 (your attack, theirs).
    - Health card B: the pile is S3 alone. Spend 1: you draw S3, the pile is rebuilt from B and
      the raiders draw B: no damage (objective 5). Keep it: they draw S3 (2 + 1/2). Spend.
    - Health card S3: the pile is B alone. Keep it: they draw B (5 + 1/2); spending would
      bring S3 back for them. Keep.
    So no trial loses health and half of them spend their ammo."""
    deck = deck_of((1, 1, "you", 0, 3, "new", "fuel"), (1, 1, "you", 0, 0, "new", "fuel"))
    rules = Rules(turn_limit=2)
    setup = CombatSetup(deck, Enemy("e", 6, 6, 1), health=5, ammo=1, policy="best", objective="keep:1")
    assert not solved_best(rules, setup).passive
    exact = exact_combat(rules, setup)
    assert exact is not None
    assert (exact["ammo_spent"], exact["health_lost"], exact["objective"]) == (0.5, 0.0, 5.25)
    got = _kernel_matches_exact(rules, setup)
    assert (got["health_lost"] == 0).all()
    assert 0 < got["ammo_spent"].mean() < 1
