"""Dustrunners combat under best play (policy ``best``: the ammo of each attack, counting cards,
and the ``finish`` and ``initiative`` VP redraws) against answers found without the decision
step of the solver.

- Brute force: on a 3-card deck with a short turn limit, every deterministic policy over the
  decision states (each ammo state -> an ammo, each redraw decision -> redraw or not) is valued
  by the exact recursion playing that fixed policy (``choose``, ``choose_finish``,
  ``choose_initiative``), and the best of them equals the optimum; the solver's own policy,
  played as a fixed policy, is worth exactly that. Setups where a redraw is sometimes wrong
  (VP for one redraw, a lethal raiders' attack later) are among them.
- Two shortcuts of the solver change nothing: a hopeless state (no damage left can win) spends
  nothing without its options being valued, and the decisions are solved on the deck merged by
  skulls; both give the values and the policy of the whole solve, state by state.
- The optimum is never below the fixed policies (all_in, just_enough, fixed:1..3) on every
  shipped enemy against the interceptor and the hauler on the 12-card deck (``win``; ``keep:W``
  for two of them) and on the game's example setups on that deck.
- Best play with the redraws decided is never below their fixed rules with the best ammo, nor
  below any fixed ammo policy, on the 12-card deck with every redraw use.
- Hand-derived cases (derivation in the docstring): card counting decides the ammo; a finish
  redraw and an initiative redraw made in some states and not in others.
- The kernel and the reference trial under best play agree with the exact values within 4.5
  standard errors.
- Corners, hand-derived: a state is hopeless only beyond the attacks you have left (both
  parities of the turn count), the state ``advise`` is asked about is valued in full even when
  hopeless, a one-card deck has no initiative redraw; the work and state budgets count a memo
  hit (a raiders' attack, a start state, a hopeless state's alias) once.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest

from montecarlo.engine.chain import ChainTooLarge
from montecarlo.errors import InputError
from montecarlo.games.dustrunners import GAME
from montecarlo.games.dustrunners.campaign import reference_campaign
from montecarlo.games.dustrunners.combat import (
    MAX_BEST_WORK, CombatSetup, ExactCombat, QUESTIONS, SolvedCombat, advise, by_skulls, exact_combat,
    parse_combat, parse_objective, parse_seen, reference_combat, simulate_combat,
)
from montecarlo.games.dustrunners.deck import Enemy
from montecarlo.games.dustrunners.rules import Rules
from tests.games.test_dustrunners import SMALL, deck_of

Z = 4.5
THREE = "empty road=1, dust cloud=1, glancing hit=0, side swipe=0, double tap=0, head-on crash=1"


def assert_near_exact(sample: dict, exact: dict, names=None) -> None:
    """Each metric's mean over the trials within Z standard errors of its exact value (exactly,
    up to 1e-9, where every trial has the same value)."""
    for name in exact if names is None else names:
        v = np.asarray(sample[name], dtype=float)
        se = v.std(ddof=1) / math.sqrt(v.size)
        assert abs(v.mean() - exact[name]) <= Z * se + 1e-9, name


def tiny(health: int, ammo: int, bonus: int, objective: str, redraw: str = "never", vp: int = 0,
         enemy_die: int = 1) -> object:
    return parse_combat({"deck": "illustrative-12", "card_counts": THREE, "enemy_die": enemy_die,
                         "enemy_stars": 1, "health": health, "ammo": ammo, "damage_bonus": bonus,
                         "policy": "best", "objective": objective, "redraw": redraw, "vp": vp})


ONE_REDRAW = "finish,when_losing"  # with vp 2: a finish redraw spends what a lethal attack later needs
BRUTE = [
    (3, tiny(2, 3, 0, "keep:3")),
    (3, tiny(2, 2, 1, "keep:3")),
    (3, tiny(2, 3, 0, "win")),
    (4, tiny(2, 2, 1, "win")),
    (3, tiny(3, 2, 0, "keep:0")),
    (3, tiny(1, 1, 0, "keep:3", ONE_REDRAW, 2, enemy_die=0)),
    (3, tiny(2, 1, 1, "keep:3", ONE_REDRAW, 4, enemy_die=0)),
]


def played_as_fixed(rules, setup, solved: ExactCombat) -> dict:
    """The solver's policy (ammo and redraws), played as a fixed policy by the recursion."""
    return ExactCombat(rules, setup, choose=lambda state, cap: solved.policy[state],
                       choose_finish=lambda node: solved.redraws[node],
                       choose_initiative=lambda kind, keep, again: solved.initiative[kind]).solve()


def case_id(case) -> str:
    limit, setup = case
    return f"limit{limit}-{setup.health}-{setup.objective}-{setup.redraw}"


@pytest.mark.parametrize("case", BRUTE, ids=case_id)
def test_the_optimum_is_the_best_of_every_policy(case):
    limit, setup = case
    rules = Rules(turn_limit=limit)
    solved = ExactCombat(rules, setup, prune=False)  # every option of every state valued
    best = solved.solve()["objective"]
    states = ([("ammo", s, len(o)) for s, o in solved.option_values.items()]
              + [("finish", node, 2) for node in solved.redraw_values]
              + [("initiative", kind, 2) for kind in solved.initiative_values])
    count = math.prod(n for _, _, n in states)
    assert 2 <= count <= 5_000, count  # a real choice, and few enough policies to value them all
    if setup.redraw != "never":  # redrawing is right somewhere and wrong somewhere else
        worths = list(solved.redraw_values.values())
        assert any(again > stop + 1e-9 for stop, again in worths), worths
        assert any(stop > again + 1e-9 for stop, again in worths), worths
    found = -math.inf
    for choice in itertools.product(*(range(n) for _, _, n in states)):
        policy = {(what, s): c for (what, s, _), c in zip(states, choice)}
        value = ExactCombat(
            rules, setup, choose=lambda state, cap, policy=policy: policy["ammo", state],
            choose_finish=lambda node, policy=policy: policy["finish", node] == 1,
            choose_initiative=lambda kind, keep, again, policy=policy: policy["initiative", kind] == 1,
        ).solve()
        found = max(found, value["objective"])
    assert best == pytest.approx(found, rel=1e-12, abs=1e-12)
    assert played_as_fixed(rules, setup, solved) == pytest.approx(solved.solve(), rel=1e-12, abs=1e-12)


class Undecided(Exception):
    """A policy being built meets a decision it does not hold yet."""


def best_of_every_policy(rules, setup) -> tuple[float, int]:
    """The best objective over every deterministic policy (ammo and redraws), and how many policies
    were valued. A policy's value depends on its choices only where it can arrive, so the
    policies are built as a tree: value a partial policy, and where it meets a decision it does
    not hold, branch on each option of that decision (every policy is valued once through the
    choices it reaches)."""
    found, valued, todo = -math.inf, 0, [{}]
    while todo:
        policy = todo.pop()

        def pick(key, options, policy=policy):
            if key not in policy:
                raise Undecided(key, options)
            return policy[key]

        try:
            value = ExactCombat(rules, setup, choose=lambda state, cap: pick(("ammo", state), cap + 1),
                                choose_finish=lambda node: pick(("finish", node), 2) == 1,
                                choose_initiative=lambda kind, keep, again: pick(("initiative", kind), 2) == 1
                                ).solve()
        except Undecided as undecided:
            key, options = undecided.args
            todo.extend({**policy, key: option} for option in range(options))
            continue
        valued += 1
        found = max(found, value["objective"])
    return found, valued


INITIATIVE = "initiative,finish,when_losing"
TREE = [  # the initiative decision too: too many policies for the product over every state
    (3, tiny(1, 1, 0, "keep:3", INITIATIVE, 2, enemy_die=0)),
    (4, tiny(2, 1, 0, "win", INITIATIVE, 2, enemy_die=0)),
    (3, tiny(2, 1, 1, "win", "all", 4)),
]


@pytest.mark.parametrize("case", TREE, ids=case_id)
def test_the_optimum_with_the_initiative_redraw_is_the_best_of_every_policy(case):
    limit, setup = case
    rules = Rules(turn_limit=limit)
    solved = ExactCombat(rules, setup, prune=False)
    best = solved.solve()["objective"]
    assert solved.initiative_values, "no initiative decision"
    found, valued = best_of_every_policy(rules, setup)
    assert 2 <= valued <= 10_000, valued
    assert best == pytest.approx(found, rel=1e-12, abs=1e-12)
    assert played_as_fixed(rules, setup, solved) == pytest.approx(solved.solve(), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("values", [
    {"enemy": "spybot", "vehicle": "interceptor", "objective": "win"},
    {"enemy": "road raiders", "vehicle": "hauler", "objective": "keep:0"},
], ids=lambda v: v["enemy"])
def test_skipping_options_that_could_only_tie_changes_nothing(values):
    """Best play stops valuing a state's options once one reaches the most the objective can give
    there; the values and the policy played are those of valuing them all (with every redraw
    decided too: the scavenger buggy's case of the next test)."""
    setup = parse_combat({"deck": "illustrative-12", "policy": "best", **values})
    budget = 4 * MAX_BEST_WORK  # the whole deck's solve, without the merged deck's shortcut
    pruned, full = ExactCombat(Rules(), setup, max_work=budget), ExactCombat(Rules(), setup, prune=False,
                                                                             max_work=budget)
    assert pruned.solve() == pytest.approx(full.solve(), rel=1e-12, abs=1e-12)
    assert all(full.policy[state] == chosen for state, chosen in pruned.policy.items())
    assert all(full.redraws[node] == chosen for node, chosen in pruned.redraws.items())
    assert pruned.initiative == full.initiative
    assert len(pruned.memo) <= len(full.memo)


SHORTCUTS = [  # (turn limit, setup): hopeless states are common where little damage is dealt
    (14, {"enemy": "spybot", "vehicle": "scout", "objective": "win"}),
    (14, {"enemy": "mutant pack", "vehicle": "scout", "objective": "keep:3"}),
    (12, {"enemy": "road raiders", "vehicle": "scout", "objective": "win", "redraw": "when_losing,finish",
          "vp": 3}),
    (12, {"enemy": "war rig", "vehicle": "hauler", "objective": "keep:2", "second_card": True}),
    (60, {"enemy": "scavenger buggy", "vehicle": "interceptor", "objective": "win", "redraw": "all",
          "vp": 4}),
    (12, {"enemy": "road raiders", "vehicle": "hauler", "objective": "keep:4", "redraw": "initiative,finish",
          "vp": 4}),
]


@pytest.mark.parametrize("case", SHORTCUTS, ids=lambda c: f"{c[1]['enemy']}-{c[1]['objective']}")
def test_the_solver_shortcuts_give_the_whole_solve(case):
    """Valuing every option of every state (``prune=False``), the default solve (hopeless states
    spend nothing, unvalued) and the solve on the deck merged by skulls (:class:`SolvedCombat`)
    give the same values and the same choice in every state the whole solve holds: the ammo, the
    finish redraws and the initiative redraw (decided for the whole deck's health card from the
    merged solve's values)."""
    limit, values = case
    rules = Rules(turn_limit=limit)
    setup = parse_combat({"deck": "illustrative-12", "policy": "best", **values})
    budget = 4 * MAX_BEST_WORK  # the whole deck's solve, without the merged deck's shortcut
    full = ExactCombat(rules, setup, prune=False, max_work=budget)
    want = full.solve()
    default = ExactCombat(rules, setup, max_work=budget)
    assert default.solve() == pytest.approx(want, rel=1e-12, abs=1e-12)
    merged = SolvedCombat(rules, setup)
    assert merged.solve() == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert all(merged.decide(state) == chosen for state, chosen in full.policy.items())
    assert all(merged.decide_finish(node) == chosen for node, chosen in full.redraws.items())
    assert all(default.redraws.get(node, chosen) == chosen for node, chosen in full.redraws.items())
    assert merged.initiative == full.initiative == default.initiative
    if "finish" in setup.redraw:  # the decisions go both ways
        assert any(full.redraws.values()) and not all(full.redraws.values())
    if "initiative" in setup.redraw:
        assert set(full.initiative.values()) == {False, True}, full.initiative
    for kind, worths in full.initiative_values.items():
        assert merged.initiative_values[kind] == pytest.approx(worths, rel=1e-12, abs=1e-12)
    for state, chosen in full.policy.items():  # the default solve skips options that could only tie
        pile, eh, ph, ammo, vp, attacks, first = state
        if state in default.policy:
            assert default.policy[state] == chosen, state
        elif default.hopeless(eh, ammo, attacks, 1):
            assert chosen == 0, state
    assert all(full.policy[state] == chosen for state, chosen in default.policy.items())
    assert all(full.redraws[node] == chosen for node, chosen in default.redraws.items())
    assert len(default.memo) <= len(full.memo)
    assert len(merged.decisions.memo) < len(default.memo)


@pytest.mark.parametrize("limit", [6, 9, 10])
@pytest.mark.parametrize("enemy, objective", [("mutant pack", "keep:3"), ("spybot", "win"),
                                              ("road raiders", "win"), ("war rig", "keep:2")])
def test_the_hopeless_shortcut_gives_the_whole_solve_on_three_cards(enemy, objective, limit):
    """:func:`test_the_solver_shortcuts_give_the_whole_solve` in small (a hundredth of a second):
    on three cards, both parities of the turn limit, the hopeless states (valued once per pile
    where nothing but ammo kept can still count) and the whole solve give the same values and
    the same ammo in every state both hold."""
    setup = parse_combat({"deck": "illustrative-12", "card_counts": THREE, "enemy": enemy,
                          "vehicle": "scout", "policy": "best", "objective": objective})
    rules = Rules(turn_limit=limit)
    full, default = ExactCombat(rules, setup, prune=False), ExactCombat(rules, setup)
    assert default.solve() == pytest.approx(full.solve(), rel=1e-12, abs=1e-12)
    assert any(key[0] == "passive" for key in default.memo) is default.passive
    assert all(full.policy[state] == chosen for state, chosen in default.policy.items())
    for state, chosen in full.policy.items():
        pile, eh, ph, ammo, vp, attacks, first = state
        if state not in default.policy and default.hopeless(eh, ammo, attacks, 1):
            assert chosen == 0, state


def test_a_state_is_hopeless_only_beyond_your_attacks_left():
    """Turn limit 3: your attacks 0 and 2 around the raiders' attack 1 (no stars: no damage). One
    card (1 skull, die 1, you first), reshuffled back for every draw; enemy die 2: health 3;
    ammo 1, damage bonus 1. Your two attacks deal 1 + 1 and the ammo's card 1 more: 3, a sure
    win whichever attack spends the ammo. At attack 0 (two attacks of yours left) and at attack
    2 (one left) the enemy is exactly within reach, so neither state may be taken for hopeless
    (which would spend nothing: a stalemate)."""
    setup = CombatSetup(deck_of((1, 1, "you", 0, 1, "new", "fuel")), Enemy("e", 2, 2, 0), health=1, ammo=1,
                        damage_bonus=1, policy="best", objective="win")
    got = exact_combat(Rules(turn_limit=3), setup)
    assert (got["player_win"], got["stalemate"], got["ammo_spent"], got["attacks"]) == (1.0, 0.0, 1.0, 3.0)


# --- the exact solver's budgets under memo hits (tests/games/test_dustrunners.py has the basics) ------

def test_exact_work_budget_counts_a_raiders_attack_looked_up_once():
    """One card (1 skull, die 1, you first), reshuffled back for every draw; enemy die 2 (health 3),
    2 stars; health 5, no ammo, bonus 1: you deal 1 per attack, the raiders 1 (their second draw
    finds both piles empty: the lone card is in their hand). Work: the first card 1; your attack
    0 (checked at 1) has 1 outcome (2); the raiders' attack 1 (checked at 2) draws twice (4), 1
    outcome (5); your attack 2 (checked at 5) is looked up (6), outcome (7); the raiders' attack
    3 (checked at 7) is looked up, from the same pile though your health is 4 now (8), outcome
    (9); your attack 4 (checked at 9) looked up (10), outcome (11): the win. Largest checked: 9."""
    setup = CombatSetup(deck_of((1, 1, "you", 0, 1, "new", "fuel")), Enemy("e", 2, 2, 2), health=5,
                        damage_bonus=1)
    got = ExactCombat(Rules(), setup, max_work=9).solve()
    assert (got["player_win"], got["health_lost"], got["attacks"]) == (1.0, 2.0, 5.0)
    with pytest.raises(ChainTooLarge):
        ExactCombat(Rules(), setup, max_work=8).solve()


def test_exact_work_budget_counts_a_start_valued_once():
    """Cards A and B (raiders first, die 1, alike but for their moon) and C (you first, die 2), no
    skulls; enemy die 0, no stars; health 1, no ammo, 2 VP for one ``initiative`` redraw; turn
    limit 1. Work: the first card 3 (1 state x 3 kinds; the redraw's draw is not counted).
    Health card A, redrawn: B (pile: C) is checked at 3, the raiders' attack 1 outcome (4), its
    stalemate checked at 4; C (pile: B) checked at 4, your attack (5), stalemate checked at 5.
    Health card B, redrawn: A (pile: C) is the state B gave, looked up; C (pile: A) checked at 5,
    (6), stalemate at 6. Health card C, kept: checked at 6, (7), stalemate at 7. Largest: 7."""
    deck = deck_of((1, 1, "raiders", 0, 0, "new", "fuel"), (1, 1, "raiders", 0, 0, "full", "fuel"),
                   (1, 2, "you", 0, 0, "new", "fuel"))
    setup = CombatSetup(deck, Enemy("e", 0, 0, 0), health=1, vp=2, redraw="initiative")
    rules = Rules(turn_limit=1)
    got = ExactCombat(rules, setup, max_work=7).solve()
    assert got["stalemate"] == 1.0 and got["vp_gained"] == pytest.approx(-2 * 2 / 3, rel=1e-12)
    with pytest.raises(ChainTooLarge):
        ExactCombat(rules, setup, max_work=6).solve()


def test_exact_state_budget_counts_a_hopeless_state_once():
    """Best play stores a hopeless state twice (its value under the passive key, and under the
    state's own key, an alias) and counts it once. Cards X (1 skull), Y and Z (no skull, alike
    but for their moon), die 1, you first; enemy die 0 (health 1), ammo 1, no bonus, turn limit
    1 (your one attack), win. Health card X: its state is checked with nothing stored, spending
    nothing leads to a stalemate (checked at 0), spending reveals Y or Z (2 hopeless states: 4
    entries, 2 aliases): 6 entries, 4 counted. Health card Y: checked at 4, its stalemate at 4;
    spending wins on X, or reveals Z: a hopeless state (2 entries, 1 alias): 10 entries, 3
    aliases. Health card Z: checked at 7, its stalemate at 7 (spending reveals X, or Y: the
    hopeless state met before). Largest count checked: 7, so 8 states are enough and 7 are not."""
    deck = deck_of((1, 1, "you", 0, 1, "new", "fuel"), (1, 1, "you", 0, 0, "new", "fuel"),
                   (1, 1, "you", 0, 0, "full", "fuel"))
    setup = CombatSetup(deck, Enemy("e", 0, 0, 0), health=1, ammo=1, policy="best", objective="win")
    rules = Rules(turn_limit=1)
    solver = ExactCombat(rules, setup, max_states=8)
    assert solver.solve()["player_win"] == pytest.approx(2 / 3 * 1 / 2, rel=1e-12)
    assert (len(solver.memo), solver.aliases) == (12, 3)
    with pytest.raises(ChainTooLarge):
        ExactCombat(rules, setup, max_states=7).solve()


def test_the_draw_budget_holds_where_every_state_is_hopeless():
    """A combat that is hopeless from its start (no ammo, no damage bonus: no attack of yours can
    harm the enemy) is valued by the hopeless states' turns alone: their draws count against the
    budget as a plain state's do, so a budget a few draws short of the solve's own count gives up
    (the last turn's 3 draws come after the last check) instead of valuing them; turns that recur
    for ever, under a broken memo say, stop at the budget. Without the check in these turns, only
    the raiders' card sequences checked it: a budget 30 draws short passed."""
    setup = CombatSetup(SMALL, Enemy("e", 1, 1, 1), health=6, ammo=0, policy="best", objective="win")
    rules = Rules(turn_limit=6)
    solver = ExactCombat(rules, setup)
    solved = solver.solve()
    assert (solved["player_win"], solved["stalemate"], solver.work) == (0.0, pytest.approx(1.0), 226)
    assert ExactCombat(rules, setup, max_work=223).solve() == solved  # the last check sees 223
    with pytest.raises(ChainTooLarge, match=r"^more than 222 enumerated draws$"):
        ExactCombat(rules, setup, max_work=222).solve()


@pytest.mark.parametrize("kind,objective,shared", [
    ("raiders", "win", True), ("raiders", "keep:1", False), ("spybot", "keep:1", True),
    ("mutant", "keep:1", True),
])
def test_hopeless_states_are_valued_once_unless_keeping_ammo_against_damage(kind, objective, shared):
    """A hopeless state is valued once per pile (``passive``) when nothing but ammo kept can still
    count: under win, or under keep:W against an enemy that deals no damage (spybot, mutant); raiders'
    damage makes health left count under keep:W, so there each state is valued in full."""
    deck = deck_of((1, 1, "you", 0, 1, "new", "fuel"), (1, 1, "you", 0, 0, "new", "fuel"))
    enemy = Enemy("e", 1, 1, 1, kind=kind, radiation=1 if kind == "mutant" else 0)
    setup = CombatSetup(deck, enemy, health=2, ammo=1, policy="best", objective=objective)
    assert ExactCombat(Rules(), setup).passive is shared
    assert ExactCombat(Rules(), setup, prune=False).passive is False


def test_cards_merge_by_skulls():
    setup = parse_combat({"deck": "illustrative-12", "enemy": "spybot", "vehicle": "scout"})
    merged, classes = by_skulls(setup.deck)
    assert [c.skulls for c in merged.cards] == [0, 1, 2] and merged.counts == (4, 4, 4)
    assert [merged.cards[k].skulls for k in classes] == [c.skulls for c in setup.deck.cards]


def test_the_scout_against_a_spybot_solves_and_counts_cards():
    """The Scout (no damage bonus) against the Spybot (no damage to you): a long combat, solved
    since hopeless states and merged cards shrink it; waiting for a good pile beats every fixed
    policy by far (all_in and fixed:1 win 0.2333 here)."""
    values = {"deck": "illustrative-12", "enemy": "spybot", "vehicle": "scout"}
    best = exact_combat(Rules(), parse_combat({**values, "policy": "best"}))
    assert best is not None
    for policy in ("all_in", "fixed:1"):
        fixed = exact_combat(Rules(), parse_combat({**values, "policy": policy}))
        assert best["player_win"] >= fixed["player_win"] + 0.3, policy


FIXED = ("all_in", "just_enough", "fixed:1", "fixed:2", "fixed:3")  # fixed:4 is all_in with 4 ammo or less
ENEMIES = ("scavenger buggy", "road raiders", "war rig", "spybot", "mutant pack")
VEHICLES = ("interceptor", "hauler")  # the scout: below, and against a spybot in its own test


@pytest.mark.parametrize(
    "enemy, objective", [(e, "win") for e in ENEMIES] + [("road raiders", "keep:10"), ("war rig", "keep:3")]
)
def test_best_play_is_never_below_a_fixed_policy(enemy, objective):
    for vehicle in VEHICLES:
        values = {"deck": "illustrative-12", "enemy": enemy, "vehicle": vehicle, "objective": objective}
        best = exact_combat(Rules(), parse_combat({**values, "policy": "best"}))["objective"]
        for policy in FIXED:
            fixed = exact_combat(Rules(), parse_combat({**values, "policy": policy}))["objective"]
            assert best >= fixed - 1e-12, (vehicle, policy)


def test_best_play_is_never_below_a_fixed_policy_on_the_example_setups():
    question = QUESTIONS["combat"]
    for values in GAME.setups("combat"):
        setup = question.setup(values)
        if setup.deck.size > 16:
            continue
        for objective in ("keep:4",):
            best = exact_combat(Rules(), dataclasses.replace(setup, policy="best", objective=objective))
            for policy in FIXED:
                fixed = exact_combat(Rules(), dataclasses.replace(setup, policy=policy, objective=objective))
                assert best["objective"] >= fixed["objective"] - 1e-12, (values, objective, policy)


def test_card_counting_by_hand():
    """Turn limit 1 (your one attack), a deck of empty road (0 skulls, die 1), glancing hit (1
    skull, die 3) and double tap (2 skulls, die 3), all "you" first; enemy die 0, so its health
    is the die of the health card; health 5, ammo 2, no bonus. Health card empty road (1/3):
    health 1, the pile holds glancing hit and double tap, one ammo wins for sure. Glancing hit
    (1/3): health 3, the pile holds 0 + 2 skulls, no ammo can win; double tap (1/3): health 3,
    0 + 1 skulls, none can either. So win = 1/3 whatever is spent where it can win. With keep:4
    (4 x win + health left + ammo left / 2) best play spends 1 ammo only when the empty road was
    the health card: 1/3 x (4 + 5 + 1/2) + 2/3 x (5 + 1) = 43/6; all_in spends 2 every time:
    1/3 x (4 + 5) + 2/3 x 5 = 19/3.
    """
    counts = "empty road=1, dust cloud=0, glancing hit=1, side swipe=0, double tap=1, head-on crash=0"
    values = {"deck": "illustrative-12", "card_counts": counts, "enemy_die": 0, "enemy_stars": 1,
              "health": 5, "ammo": 2, "objective": "keep:4"}
    rules = Rules(turn_limit=1)
    best = exact_combat(rules, parse_combat({**values, "policy": "best"}))
    assert best["objective"] == pytest.approx(43 / 6, rel=1e-12)
    assert best["player_win"] == pytest.approx(1 / 3, rel=1e-12)
    assert best["ammo_spent"] == pytest.approx(1 / 3, rel=1e-12)
    all_in = exact_combat(rules, parse_combat({**values, "policy": "all_in"}))
    assert all_in["objective"] == pytest.approx(19 / 3)
    win = exact_combat(rules, parse_combat({**values, "policy": "best", "objective": "win"}))
    assert win["player_win"] == pytest.approx(1 / 3) and win["ammo_spent"] == pytest.approx(1 / 3)


def one_redraw_by_hand(counts: str, enemy_die: int, redraw: str, limit: int):
    """A hand-derived case: health 2, ammo 1, no bonus, 2 VP (one redraw), keep:3, a 1-star enemy:
    (rules, values, setup, its solver)."""
    values = {"deck": "illustrative-12", "card_counts": counts, "enemy_die": enemy_die, "enemy_stars": 1,
              "health": 2, "ammo": 1, "vp": 2, "redraw": redraw, "objective": "keep:3", "policy": "best"}
    rules = Rules(turn_limit=limit)
    setup = parse_combat(values)
    return rules, values, setup, ExactCombat(rules, setup)


def test_a_finish_redraw_by_hand():
    """Turn limit 2 (your attack, then the raiders' 1-star attack), a deck of 2 x empty road (0
    skulls, die 1) and 1 double tap (2 skulls, die 3), all "you" first; enemy die 1, health 2,
    ammo 1, no bonus, 2 VP: one redraw (``finish`` or ``when_losing``); keep:3.

    Health card double tap (1/3): enemy health 4, the pile holds both empty roads. Spending the
    ammo reveals one (0 damage) and the finish rule would redraw: the other empty road, which
    empties the pile, so the double tap is shuffled back on top and the raiders' attack deals 2
    with no VP left: a loss, 0. Stopping keeps the VP and the raiders draw an empty road:
    health 2 left, ammo 0, worth 2. So stop (2 > 0); and best play spends nothing there (the
    raiders' empty road: 2 + 1/2).
    Health card empty road (2/3): enemy health 2, the pile holds an empty road and the double
    tap. Spending the ammo: the double tap (1/2) wins, 3 + 2 = 5; the empty road (1/2) leaves
    a finish decision: redraw (the double tap: a win, 5) or stop (the raiders draw the double
    tap, lethal, redrawn with the 2 VP: an empty road, health 2 kept, 2). So redraw (5 > 2),
    and spending (5) beats keeping the ammo (2 + 1/2: either the raiders' empty road, or their
    double tap redrawn). Best play: 1/3 x 5/2 + 2/3 x 5 = 25/6; without the finish redraw
    (``when_losing`` alone): 1/3 x 5/2 + 2/3 x (5 + 2) / 2 = 19/6.
    """
    counts = "empty road=2, dust cloud=0, glancing hit=0, side swipe=0, double tap=1, head-on crash=0"
    rules, values, setup, solved = one_redraw_by_hand(counts, 1, "finish,when_losing", 2)
    assert solved.solve()["objective"] == pytest.approx(25 / 6, rel=1e-12)
    assert exact_combat(rules, setup)["objective"] == pytest.approx(25 / 6, rel=1e-12)
    # nodes: (draw pile, discard pile as (empty road, double tap)), enemy health left, skull-less
    # cards counted, VP, your health, ammo left, attacks made, you first
    stop_node = ((1, 0), (0, 1), 4, 1, 2, 2, 0, 0, True)
    redraw_node = ((0, 1), (1, 0), 2, 1, 2, 2, 0, 0, True)
    assert solved.redraw_values[stop_node] == pytest.approx((2.0, 0.0)) and not solved.redraws[stop_node]
    assert solved.redraw_values[redraw_node] == pytest.approx((2.0, 5.0)) and solved.redraws[redraw_node]
    no_finish = exact_combat(rules, parse_combat({**values, "redraw": "when_losing"}))
    assert no_finish["objective"] == pytest.approx(19 / 6, rel=1e-12)


def test_an_initiative_redraw_by_hand():
    """Turn limit 1 (the raiders' one attack: both cards give them the initiative), a deck of one
    side swipe (1 skull, die 4) and one head-on crash (2 skulls, die 6); enemy die 0, health 2,
    ammo 1 (never spent: you do not attack), 2 VP for one ``initiative`` redraw; keep:3 (no win
    is possible: health left + 1/2 for the ammo).

    Health card side swipe: kept, the raiders draw the head-on crash, lethal: 0 + 1/2.
    Redrawn: the head-on crash replaces it, both cards are reshuffled for the raiders: 1/2
    lethal, 1/2 one damage (health 1): 1/2 x 1/2 + 1/2 x 3/2 = 1. Redraw (1 > 1/2).
    Health card head-on crash: kept, the raiders draw the side swipe: 3/2. Redrawn: as above,
    1. Keep (3/2 > 1). Best play: (1 + 3/2) / 2 = 5/4; the fixed rule (always redraw) and no
    redraw are both worth 1.
    """
    counts = "empty road=0, dust cloud=0, glancing hit=0, side swipe=1, double tap=0, head-on crash=1"
    rules, values, setup, solved = one_redraw_by_hand(counts, 0, "initiative", 1)
    assert solved.solve()["objective"] == pytest.approx(5 / 4, rel=1e-12)
    assert solved.initiative == {0: True, 1: False}  # the side swipe, the head-on crash
    assert solved.initiative_values == {0: pytest.approx((0.5, 1.0)), 1: pytest.approx((1.5, 1.0))}
    assert exact_combat(rules, setup)["objective"] == pytest.approx(5 / 4, rel=1e-12)
    fixed_rule = ExactCombat(rules, setup, decide_redraws=False).solve()
    assert fixed_rule["objective"] == pytest.approx(1.0, rel=1e-12)
    assert exact_combat(rules, parse_combat({**values, "redraw": "never"}))["objective"] == pytest.approx(1.0)


def test_a_one_card_deck_has_no_initiative_redraw():
    """One card (1 skull, die 1, raiders first), 2 VP for an ``initiative`` redraw: there is no
    other card to redraw, so the card stays. Enemy die 1 (health 2), 1 star; health 3, no ammo,
    bonus 1. Raiders 1 damage (health 2), you 1, raiders 1 (health 1), you 1: a win in 4
    attacks, 2 health lost, no VP spent (the win's 2 gained)."""
    setup = CombatSetup(deck_of((1, 1, "raiders", 0, 1, "new", "fuel")), Enemy("e", 1, 1, 1), health=3,
                        damage_bonus=1, vp=2, redraw="initiative")
    for policy in ("all_in", "best"):
        got = exact_combat(Rules(), dataclasses.replace(setup, policy=policy))
        assert (got["player_win"], got["health_lost"], got["attacks"]) == (1.0, 2.0, 4.0)
        assert got["vp_gained"] == 2.0


REDRAWING = [("road raiders", "scout", 4, "win"), ("war rig", "interceptor", 4, "win"),
             ("scavenger buggy", "scout", 6, "win"), ("road raiders", "hauler", 4, "keep:4"),
             ("war rig", "interceptor", 4, "keep:4")]


@pytest.mark.parametrize("enemy, vehicle, vp, objective", REDRAWING)
def test_deciding_the_redraws_is_never_below_their_fixed_rules(enemy, vehicle, vp, objective):
    """With every redraw use (``all``), best play deciding the finish and initiative redraws is
    worth at least their fixed rules with the best ammo, and every fixed ammo policy."""
    values = {"deck": "illustrative-12", "enemy": enemy, "vehicle": vehicle, "objective": objective,
              "redraw": "all", "vp": vp}
    setup = parse_combat({**values, "policy": "best"})
    best = exact_combat(Rules(), setup)["objective"]
    ammo_only = SolvedCombat(Rules(), setup, decide_redraws=False).solve()["objective"]
    assert best >= ammo_only - 1e-12
    for policy in FIXED:
        fixed = exact_combat(Rules(), parse_combat({**values, "policy": policy}))["objective"]
        assert best >= fixed - 1e-12, policy
    if objective == "win":  # here deciding them is worth something
        assert best > ammo_only + 1e-3
    if (enemy, vehicle, vp, objective) in DOCUMENTED:  # the figures of the rules page
        assert (round(best, 3), round(ammo_only, 3)) == DOCUMENTED[enemy, vehicle, vp, objective]


# docs/rules/dustrunners.md: win with the redraws decided, and with their fixed rules (best ammo)
DOCUMENTED = {("war rig", "interceptor", 4, "win"): (0.806, 0.743),
              ("road raiders", "scout", 4, "win"): (0.575, 0.492)}


SAMPLED = [
    {"enemy": "road raiders", "vehicle": "interceptor", "objective": "keep:10"},
    {"enemy": "war rig", "vehicle": "interceptor", "objective": "win", "redraw": "all", "vp": 4},
    {"enemy": "mutant pack", "vehicle": "hauler", "objective": "keep:2", "second_card": True},
    {"enemy": "road raiders", "vehicle": "hauler", "objective": "keep:4", "redraw": "initiative,finish",
     "vp": 4},
]


@pytest.mark.parametrize("values", SAMPLED, ids=lambda v: f"{v['enemy']}-{v['objective']}")
def test_the_kernel_and_the_reference_under_best_play_agree_with_exact(values):
    setup = parse_combat({"deck": "illustrative-12", "policy": "best", **values})
    exact = exact_combat(Rules(), setup)
    got = simulate_combat(Rules(), setup, 30_000, np.random.default_rng(8))
    rng = np.random.default_rng(9)
    trials = [reference_combat(Rules(), setup, rng) for _ in range(2_000)]
    reference = {name: np.array([t[name] for t in trials]) for name in exact}
    for sample in (got, reference):
        assert_near_exact(sample, exact)
    # trial by trial, the objective is the win's weight plus the health left (none when beaten to 0
    # or below) and half the ammo left
    kind, keep = parse_objective(values["objective"])
    if kind == "keep":
        health_left = np.maximum(setup.health - reference["health_lost"], 0)
        expected = keep * reference["player_win"] + health_left + (setup.ammo - reference["ammo_spent"]) / 2
        assert np.array_equal(reference["objective"], expected)  # losses among them but for keep:2


def test_advise_gives_the_values_of_best_play():
    setup = parse_combat({"deck": "illustrative-12", "enemy": "war rig", "vehicle": "interceptor",
                          "policy": "best"})
    start = exact_combat(Rules(), setup)
    assert start is not None
    advice = advise(Rules(), setup, enemy_health=2, seen="double tap, double tap, head-on crash")
    values = dict(advice.options)
    assert set(values) == {0, 1, 2, 3, 4} and advice.best == advice.options[0][0]
    assert [v for _, v in advice.options] == sorted(values.values(), reverse=True)
    # values to 12 places, so that options equal but for rounding read (and sort) as equal: at
    # health 6, 0 to 3 ammo are worth the same, listed from the least ammo, after 4 ammo
    even = advise(Rules(), setup, enemy_health=6).options
    assert all(v == round(v, 12) for _, v in even) and [k for k, _ in even] == [4, 0, 1, 2, 3]
    assert len({v for _, v in even[1:]}) == 1 and 0.6 < even[0][1] < 0.7
    assert dict(advice.pile)["double tap"] == 0 and dict(advice.pile)["head-on crash"] == 1
    # from Python the cards seen may come as a list, names spelt as loosely as on the command line
    listed = ["Double-Tap", " double tap", "head-on crash"]
    assert advise(Rules(), setup, enemy_health=2, seen=listed) == advice
    assert advise(Rules(), setup, enemy_health=6, seen=None).options == even
    with pytest.raises(InputError, match="more often"):
        advise(Rules(), setup, enemy_health=2, seen="double tap, double tap, double tap")


def test_the_objective_is_reported_only_where_the_setup_asks_for_one():
    from montecarlo.games.dustrunners.combat import applicable_combat

    plain = parse_combat({"enemy": "war rig", "vehicle": "interceptor"})
    asked = dataclasses.replace(plain, objective="keep:2")
    assert "objective" not in applicable_combat(plain) and "player_win" in applicable_combat(plain)
    assert set(applicable_combat(asked)) == set(applicable_combat(plain)) | {"objective"}


def test_cards_seen_skip_empty_items_and_an_unknown_one_is_refused_with_the_deck_listed():
    deck = parse_combat({"deck": "illustrative-12", "enemy": "war rig", "vehicle": "interceptor"}).deck
    at = {c.name: i for i, c in enumerate(deck.cards)}
    counts = parse_seen(deck, "double tap, , Head-On  crash,")  # an empty item is skipped, not an end
    assert sum(counts) == 2 and counts[at["double tap"]] == counts[at["head-on crash"]] == 1
    with pytest.raises(InputError) as err:
        parse_seen(deck, "double tap, sandworm")
    known = "empty road, dust cloud, glancing hit, side swipe, double tap, head-on crash"
    assert str(err.value) == f"seen: no card named 'sandworm' in the deck; known: {known}"
    assert parse_seen(deck, {"Double Tap": 2, "head-on crash": 0}) == parse_seen(deck, ["double tap"] * 2)
    for wrong, message in ((3, "give card names"), ([1], "named by text"), ({"double tap": 1.5}, "copies")):
        with pytest.raises(InputError, match=message):
            parse_seen(deck, wrong)


def test_advise_takes_decks_up_to_the_exact_limit_and_refuses_more_in_one_line(monkeypatch):
    """Advice needs the exact solve: a deck of MAX_EXACT_CARDS (16) cards is advised, one more
    card is refused before any work, and a combat beyond best play's budget of draws (lowered
    here to 1,000) is refused too, each with one line that says why."""
    from montecarlo.games.dustrunners import combat

    assert combat.MAX_EXACT_CARDS == 16
    setup = parse_combat({"enemy": "war rig", "vehicle": "interceptor", "policy": "best"})
    cards = [(2, 2, "raiders", 1, 0, "new", "fuel"), (2, 3, "you", 0, 1, "full", "ammo"),
             (4, 4, "raiders", 2, 2, "half", "health")]
    sixteen = dataclasses.replace(setup, deck=deck_of((8, 1, "you", 0, 0, "new", "fuel"), *cards))
    advice = advise(Rules(), sixteen, enemy_health=3)
    assert len(advice.options) == 5 and 0 < advice.options[0][1] <= 1
    seventeen = dataclasses.replace(setup, deck=deck_of((9, 1, "you", 0, 0, "new", "fuel"), *cards))
    with pytest.raises(InputError) as info:
        advise(Rules(), seventeen, enemy_health=3)
    assert str(info.value) == (
        "advise needs the exact solve: the deck has 17 cards, the exact solver handles decks of up to 16"
    )
    # the note beside an estimate draws the same line, under best play and under a fixed policy
    fixed = dataclasses.replace(sixteen, policy="all_in")
    assert combat.why_no_exact(Rules(), sixteen) is None and combat.why_no_exact(Rules(), fixed) is None
    assert combat.why_no_exact(Rules(), dataclasses.replace(seventeen, policy="all_in")) == (
        "exact value unavailable because the deck has 17 cards; the exact solver handles decks of up to 16"
    )
    with pytest.raises(InputError) as info:  # best play itself, beside the estimate: the same line
        combat.solved_best(Rules(), seventeen)
    assert str(info.value) == (
        "best play unavailable because the deck has 17 cards; the exact solver handles decks of up to 16, "
        "and best play needs the exact solve of every decision"
    )
    monkeypatch.setattr(combat, "MAX_BEST_WORK", 1_000)
    with pytest.raises(InputError) as info:
        advise(Rules(), sixteen, enemy_health=3)
    assert str(info.value) == (
        "advise: this combat is too long for the exact solver (more than 1,000 enumerated draws)"
    )


def test_advise_values_every_ammo_in_a_hopeless_state():
    """An enemy at 99 health is beyond all the interceptor can deal (1 bonus on each of its 30
    attacks + 2 skulls per ammo x 4 ammo): every option is worth 0, and the advice still lists
    them all (the state asked about is valued in full, not skipped as hopeless)."""
    setup = parse_combat({"deck": "illustrative-12", "enemy": "war rig", "vehicle": "interceptor",
                          "policy": "best"})
    advice = advise(Rules(), setup, enemy_health=99)
    assert advice.options == tuple((k, 0.0) for k in range(5)) and advice.best == 0


@pytest.mark.parametrize("text", ["keep:x", "keep:-1", "trade:2", "keep"])
def test_a_malformed_objective_is_refused(text):
    with pytest.raises(InputError, match="objective must be win or keep:W"):
        parse_objective(text)


def test_best_play_on_a_large_deck_is_refused_in_one_line():
    setup = parse_combat({"enemy": "war rig", "vehicle": "interceptor", "policy": "best"})
    assert exact_combat(Rules(), setup) is None
    with pytest.raises(InputError, match="^best play unavailable because the deck has"):
        simulate_combat(Rules(), setup, 10, np.random.default_rng(0))


def test_the_rules_may_impose_the_ammo_policy_for_paired_comparisons():
    setup = parse_combat({"deck": "illustrative-12", "enemy": "war rig", "vehicle": "interceptor",
                          "objective": "keep:10"})
    imposed = exact_combat(Rules(ammo_policy="best"), setup)
    assert imposed == exact_combat(Rules(), dataclasses.replace(setup, policy="best"))
    with pytest.raises(InputError) as info:
        Rules(ammo_policy="most")
    assert str(info.value) == (
        "ammo_policy must be empty (the setup's), all_in, just_enough, fixed:N or best, got 'most'"
    )
    campaign = GAME.question("campaign").setup({"vehicle": "scout", "fights": 2})
    # the rule is named (not the setup's policy, which the user did not give)
    named = r"^the ammo policy best \(rule ammo_policy\) is offered for a single"
    with pytest.raises(InputError, match=named):
        GAME.question("campaign").simulate(Rules(ammo_policy="best"), campaign, 10, np.random.default_rng(0))
    with pytest.raises(InputError, match=named):
        reference_campaign(Rules(ammo_policy="best"), campaign, np.random.default_rng(0))


def test_advise_plays_best_for_a_win_whatever_the_setup_says_and_checks_the_enemy_health():
    """Advice is best play's: a setup with a fixed ammo policy and no objective is advised as
    best play for a win; the enemy's health is a whole number 1..99."""
    values = {"deck": "illustrative-12", "enemy": "war rig", "vehicle": "interceptor"}
    best = advise(Rules(), parse_combat({**values, "policy": "best", "objective": "win"}), enemy_health=1)
    fixed = advise(Rules(), parse_combat({**values, "policy": "fixed:1"}), enemy_health=1)
    assert fixed == best and best.objective == "win" and best.options[0][1] > 0.9
    for health in (0, 100):
        with pytest.raises(InputError, match=f"^enemy_health must be .*got {health}"):
            advise(Rules(), parse_combat(values), enemy_health=health)
