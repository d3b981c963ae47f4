"""The Dustrunners best-play solver's own rules, each checked on a case small enough to work by hand
(or against the fixed rule it must reduce to), where ``test_dustrunners_best.py`` checks the optimum.

- Which options a state values: up to the first that reaches the most the objective can give there
  (a sure win with nothing lost, within the tie tolerance), and no further.
- Budgets: ``finish`` decisions count against the state and work budgets like every other state,
  a decision met twice is valued once, and best play's decisions get ``MAX_BEST_WORK``.
- A ``finish`` redraw that leaves no card to draw ends the attack; a decision is asked only where
  the fixed rule would redraw (the attack still short).
- Playing a given policy (``choose``) without a redraw chooser plays that redraw's fixed rule, and
  ``decide_redraws=False`` keeps the ``initiative`` rule in the reference's question too.
- The kernel under best play spends nothing in a hopeless state, which the solved policy does not hold.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from montecarlo.engine.chain import ChainTooLarge
from montecarlo.engine.decisions import TIE_TOLERANCE
from montecarlo.games.dustrunners import combat
from montecarlo.games.dustrunners.combat import (
    CombatSetup, ExactCombat, SolvedCombat, exact_combat, parse_combat, parse_objective, simulate_combat,
)
from montecarlo.games.dustrunners.deck import Enemy
from montecarlo.games.dustrunners.rules import Rules
from tests.games.test_dustrunners import deck_of
from tests.games.test_dustrunners_best import assert_near_exact


@pytest.mark.parametrize("values", [
    {"enemy": "road raiders", "vehicle": "interceptor", "objective": "keep:3"},
    {"enemy": "road raiders", "vehicle": "interceptor", "objective": "win"},
    # a large worth: a sure win summed to a hair below the most still reaches it (the tolerance
    # is relative, TIE_TOLERANCE x max(1, |worth|))
    {"enemy": "spybot", "vehicle": "interceptor", "objective": "keep:1000"},
], ids=lambda v: f"{v['enemy']}-{v['objective']}")
def test_a_state_values_its_options_up_to_the_first_that_reaches_the_most(values):
    """At each of your attacks best play values the ammo 0, 1, ... in turn and stops at the first
    option worth the most the objective can give there (win: 1; keep:W: W + your health + your
    ammo / 2, a sure win with nothing lost), within the tie tolerance: a later option could only
    tie, and a tie goes to the least ammo. Checked state by state on the merged deck's solve: no
    option before the last one valued reaches that most, and a state that stops before its last
    ammo stops on one that does. (``test_dustrunners_best`` checks that the values and the policy
    are those of valuing every option; this pins how many are valued, which is the solver's work.)"""
    rules = Rules()
    setup = parse_combat({"deck": "illustrative-12", "policy": "best", **values})
    solved = SolvedCombat(rules, setup)
    solved.solve()
    kind, weight = parse_objective(setup.objective)
    stopped = 0
    for state, worths in solved.decisions.option_values.items():
        pile, _eh, ph, ammo, _vp, _attacks, _first = state
        most = weight + ph + ammo / 2 if kind == "keep" else 1.0
        reached = [most <= w + TIE_TOLERANCE * max(1.0, abs(w)) for w in worths]
        assert not any(reached[:-1]), (state, worths)
        if len(worths) < min(rules.max_ammo_per_attack, ammo, sum(pile)) + 1:
            assert reached[-1], (state, worths)
            stopped += 1
    assert stopped > 0  # the case does skip options


def finish_budget_setup():
    """Cards X and Y (no skull, alike but for their moon) and S (1 skull), die 1, you first; enemy
    die 0 (health 1); health 1, ammo 1, no bonus, 4 VP (two ``finish`` redraws); turn limit 1
    (your one attack); win."""
    deck = deck_of((1, 1, "you", 0, 0, "new", "fuel"), (1, 1, "you", 0, 0, "full", "fuel"),
                   (1, 1, "you", 0, 1, "new", "fuel"))
    return Rules(turn_limit=1), CombatSetup(deck, Enemy("e", 0, 0, 1), health=1, ammo=1, vp=4,
                                            redraw="finish", policy="best", objective="win")


def test_finish_decisions_count_against_the_state_and_work_budgets():
    """Best play redraws X and Y until S comes: a sure win, 2 VP spent on average.

    Counts (states stored, hopeless aliases not counted; work = enumerated draws) at each check.
    The first card: work 3 (1 state x 3 kinds). Health card X, pile Y S: checked at (0, 3);
    spending nothing (work 4) is a stalemate, checked at (0, 4); spending 1 draws (7) Y or S (2
    outcomes: 9); Y leaves a finish decision, checked at (1, 9): stopping is hopeless (a passive
    state and its alias), redrawing (12) draws S, a win; the decision and the state are stored (4).
    Health card Y, pile X S: the same, checked at (4, 12), (4, 13), its decision at (5, 18),
    stopping meets the hopeless state of X (pile S, 4 VP) again (7 stored, work 21).
    Health card S, pile X Y: checked at (7, 21), stalemate (7, 22), spending draws (25) X or Y (27).
    After X: decision A checked at (8, 27), hopeless stop (9); the redraw (30) draws Y, the pile is
    rebuilt from S: decision C (pile S, 2 VP) checked at (9, 30), hopeless stop (10), redraw (33)
    S, a win; C and A stored (12). After Y: decision B checked at (12, 33), hopeless stop (13), its
    redraw (36) draws X and meets C again: looked up, not valued again. So 13 states and 33 draws
    are enough, and 12 states or 32 draws are not: both budgets bind at a finish decision."""
    rules, setup = finish_budget_setup()
    solver = ExactCombat(rules, setup, max_states=13, max_work=33)
    got = solver.solve()
    assert (got["player_win"], got["vp_gained"]) == pytest.approx((1.0, 0.0), rel=1e-12, abs=1e-12)
    assert (len(solver.memo), solver.aliases, solver.work) == (19, 4, 36)
    assert all(solver.redraws.values()) and len(solver.redraws) == 5  # Y, X, A, B and C, each once
    with pytest.raises(ChainTooLarge):
        ExactCombat(rules, setup, max_states=12).solve()
    with pytest.raises(ChainTooLarge):
        ExactCombat(rules, setup, max_work=32).solve()
    with pytest.raises(ChainTooLarge, match="^more than 0 enumerated draws$"):  # the first card's draw
        ExactCombat(rules, setup, max_work=0).solve()


# cards of 0, 1 and 2 skulls (one each: the deck merged by skulls is the deck), best play to win
ONE_OF_EACH_SKULL = CombatSetup(
    deck_of((1, 1, "you", 0, 0, "new", "fuel"), (1, 2, "raiders", 0, 1, "new", "fuel"),
            (1, 3, "you", 0, 2, "new", "fuel")),
    Enemy("e", 1, 1, 1), health=3, ammo=2, policy="best", objective="win",
)


def test_best_play_decisions_get_the_larger_work_budget(monkeypatch):
    """Best play values every ammo of every attack, so its decisions get ``MAX_BEST_WORK`` draws
    where a fixed policy's solve gets ``MAX_EXACT_WORK``. Cards of 0, 1 and 2 skulls (one each:
    the deck merged by skulls is the deck): the decisions need more than 100 draws, valuing the
    combat under them fewer; with the budgets at 100 and 200 best play is solved."""
    setup = ONE_OF_EACH_SKULL
    rules = Rules(turn_limit=4)
    with pytest.raises(ChainTooLarge):
        ExactCombat(rules, setup, max_work=100).solve()
    want = ExactCombat(rules, setup, max_work=200).solve()
    monkeypatch.setattr(combat, "MAX_EXACT_WORK", 100)
    monkeypatch.setattr(combat, "MAX_BEST_WORK", 200)
    assert SolvedCombat(rules, setup).solve() == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_best_play_beyond_its_budget_says_which_budget_it_ran_out_of(monkeypatch):
    """The setup above with best play's budget at 150 draws (fewer than its 200): no exact value,
    and the note names best play's budget, not the fixed policy's."""
    setup = ONE_OF_EACH_SKULL
    rules = Rules(turn_limit=5)  # not the rules above: nothing of that test is cached for these
    monkeypatch.setattr(combat, "MAX_EXACT_WORK", 100)
    monkeypatch.setattr(combat, "MAX_BEST_WORK", 150)
    assert combat.why_no_exact(rules, setup) == (
        f"exact value unavailable because the solve needs more than {combat.MAX_EXACT_STATES:,} states "
        "or 150 enumerated draws (a long combat)"
    )
    assert combat.exact_combat(rules, setup) is None  # no value rather than a failure


def test_a_finish_redraw_that_leaves_no_card_ends_the_attack():
    """Two skull-less cards (die 1, you first); enemy die 1 (health 2); health 3, ammo 2, bonus 1,
    4 VP, ``finish``; turn limit 1; keep:1. No win is possible (1 damage at most). Spending 1
    reveals the other card (the pile is rebuilt from the health card): short, so a decision;
    redrawing brings the health card back, and with both cards in the attack nothing is left to
    draw: the attack ends there (no second decision), worth 3 + 1/2 either way, so the VP are
    kept. Spending nothing is worth 3 + 2/2 = 4: best play."""
    deck = deck_of((2, 1, "you", 0, 0, "new", "fuel"))
    setup = CombatSetup(deck, Enemy("e", 1, 1, 1), health=3, ammo=2, damage_bonus=1, vp=4, redraw="finish",
                        policy="best", objective="keep:1")
    solver = ExactCombat(Rules(turn_limit=1), setup)
    got = solver.solve()
    assert (got["objective"], got["ammo_spent"], got["vp_gained"]) == (4.0, 0.0, 0.0)
    # the one decision: (draw pile, discard pile), enemy health left, skull-less cards, VP, ...
    assert solver.redraw_values == {((1,), (0,), 1, 1, 4, 3, 1, 0, True): (3.5, 3.5)}


def test_a_finish_chooser_that_always_redraws_plays_the_fixed_rule():
    """Two skull-less cards B and two S (1 skull), die 1, you first; enemy die 0 (health 1);
    health 3, ammo 2 (both spent), 4 VP, ``finish``; turn limit 1. Health card B (1/2): the pile
    B S S, any two cards hold an S: a win. Health card S (1/2): the pile B B S, B B (1/3) is
    redrawn once: the S, which wins; the other B still counted is not redrawn (the attack is no
    longer short). Win 1, VP spent 1/2 x 1/3 x 2 = 1/3: vp_gained 5/3. A ``finish`` chooser is
    asked only where the rule would redraw, so always answering yes is the fixed rule."""
    deck = deck_of((2, 1, "you", 0, 0, "new", "fuel"), (2, 1, "you", 0, 1, "new", "fuel"))
    setup = CombatSetup(deck, Enemy("e", 0, 0, 1), health=3, ammo=2, vp=4, redraw="finish", policy="best",
                        objective="win")
    rules = Rules(turn_limit=1)
    asked = []

    def always(node):
        asked.append(node)
        return True

    played = ExactCombat(rules, setup, choose=lambda state, cap: cap, choose_finish=always).solve()
    rule = ExactCombat(rules, dataclasses.replace(setup, policy="all_in")).solve()
    assert played == pytest.approx(rule, rel=1e-12, abs=1e-12)
    assert (played["player_win"], played["vp_gained"]) == pytest.approx((1.0, 5 / 3), rel=1e-12)
    assert asked and all(need > 0 for _pile, _disc, need, *_rest in asked)


def test_a_policy_played_without_an_initiative_chooser_redraws_by_the_rule():
    """X (die 1, raiders first, 1 skull) and Y (die 1, you first, 1 skull); enemy die 0 (health
    1), 1 star; health 1, ammo 1, 2 VP, ``initiative``. The ammo played as all_in and no
    ``initiative`` chooser: the fixed rule redraws X, so you always attack first and win (as
    ``test_dustrunners.test_initiative_redraw_by_hand``); keeping X would win 1/2."""
    deck = deck_of((1, 1, "raiders", 0, 1, "new", "fuel"), (1, 1, "you", 0, 1, "new", "fuel"))
    setup = CombatSetup(deck, Enemy("e", 0, 0, 1), health=1, ammo=1, vp=2, redraw="initiative", policy="best",
                        objective="win")
    played = ExactCombat(Rules(), setup, choose=lambda state, cap: cap).solve()
    rule = exact_combat(Rules(), dataclasses.replace(setup, policy="all_in"))
    assert played == pytest.approx(rule, rel=1e-12, abs=1e-12)
    assert (played["player_win"], played["vp_gained"]) == pytest.approx((1.0, 1.0), rel=1e-12)


def test_without_decided_redraws_the_health_card_is_redrawn_by_the_rule():
    """The side swipe / head-on crash case of ``test_an_initiative_redraw_by_hand`` (both give
    the raiders the initiative): best play redraws the side swipe and keeps the head-on crash;
    with ``decide_redraws=False`` the rule redraws both, and that is what the reference trial is
    told (``redraws_health_card``)."""
    counts = "empty road=0, dust cloud=0, glancing hit=0, side swipe=1, double tap=0, head-on crash=1"
    setup = parse_combat({"deck": "illustrative-12", "card_counts": counts, "enemy_die": 0, "enemy_stars": 1,
                          "health": 2, "ammo": 1, "vp": 2, "redraw": "initiative", "objective": "keep:3",
                          "policy": "best"})
    rules = Rules(turn_limit=1)
    decided = SolvedCombat(rules, setup)
    assert decided.solve()["objective"] == pytest.approx(5 / 4, rel=1e-12)
    assert [decided.redraws_health_card(kind) for kind in (0, 1)] == [True, False]
    rule = SolvedCombat(rules, setup, decide_redraws=False)
    assert rule.solve()["objective"] == pytest.approx(1.0, rel=1e-12)
    assert [rule.redraws_health_card(kind) for kind in (0, 1)] == [True, True]


def test_the_kernel_spends_nothing_in_a_hopeless_state():
    """S (1 skull) and two B (no skull), die 1, you first; a spybot (enemy die 0: health 1, 2 stars);
    health 5, ammo 1, no bonus; turn limit 3 (you, the spybot, you); win. Health card B (2/3),
    pile B S: spend now, S wins (1/2); B leaves you without ammo, a hopeless state (no policy
    entry) where you spend nothing: a stalemate. Waiting, the spybot draws B and S and the pile is
    rebuilt from the B: no win. Health card S (1/3), pile B B: wait, the spybot draws both and the
    pile is rebuilt from S, which your ammo then draws: a win. Win 2/3, ammo spent 1."""
    deck = deck_of((1, 1, "you", 0, 1, "new", "fuel"), (2, 1, "you", 0, 0, "new", "fuel"))
    setup = CombatSetup(deck, Enemy("e", 0, 0, 2, kind="spybot"), health=5, ammo=1, policy="best",
                        objective="win")
    rules = Rules(turn_limit=3)
    exact = exact_combat(rules, setup)
    want = (2 / 3, 1 / 3, 1.0)
    assert (exact["player_win"], exact["stalemate"], exact["ammo_spent"]) == pytest.approx(want, rel=1e-12)
    got = simulate_combat(rules, setup, 4_000, np.random.default_rng(3))
    assert_near_exact(got, exact, ("player_win", "stalemate", "ammo_spent"))


def test_a_fixed_policy_beyond_its_budget_says_which_budget_it_ran_out_of(monkeypatch):
    """The setup above under a fixed policy with the budget at 10 draws: no exact value, and the
    note names the fixed policy's budget."""
    rules = Rules(turn_limit=6)  # rules of no other test: nothing cached
    setup = dataclasses.replace(ONE_OF_EACH_SKULL, policy="all_in")
    monkeypatch.setattr(combat, "MAX_EXACT_WORK", 10)
    assert combat.why_no_exact(rules, setup) == (
        f"exact value unavailable because the solve needs more than {combat.MAX_EXACT_STATES:,} states "
        "or 10 enumerated draws (a long combat)"
    )
    assert combat.exact_combat(rules, setup) is None
