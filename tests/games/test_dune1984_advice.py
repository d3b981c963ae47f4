"""The advice of a Dune 1984 fight (``advice.advise``) against values found without the solver.

- Every option it lists is worth what brute force finds: the best, over every deterministic
  policy of the fight (found by walking the game's rule, each valued by its own linear system),
  of those that take that option there, counted from that choice on.
- The choices it leaves out are exactly those where brute force finds every option alike.
- Its fixed-policy values are the fights' own exact values (weakest first on both sides) and a
  policy valued here (the strongest first).
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from montecarlo.engine.decisions import Choice
from montecarlo.errors import InputError
from montecarlo.games.dune1984 import advice as advice_module
from montecarlo.games.dune1984.advice import advise
from montecarlo.games.dune1984.fights import FightSetup, exact, option_index
from montecarlo.games.dune1984.rules import Rules
from tests.games.test_dune1984_best import fixed_value, walk

CASES = [
    (Rules(), FightSetup([3, 1], [2, 2], attacker_equipment="poison"), "attacker"),
    (Rules(), FightSetup([2, 1, 3], [4]), "attacker"),
    (Rules(), FightSetup([5, 1, 1], [4]), "attacker"),
    (Rules(fight_to_last=True), FightSetup([1, 2], [2], defender_equipment="poison"), "attacker"),
    (Rules(fight_to_last=True, set_aside_die=True), FightSetup([2, 3, 2], [3]), "attacker"),
    (Rules(fight_to_last=True, set_aside_die=True), FightSetup([4, 3], [5, 2]), "attacker"),
    (Rules(fight_to_last=True), FightSetup([2], [1, 2, 1], attacker_equipment="poison"), "defender"),
    (
        Rules(fight_to_last=True),
        FightSetup([2], [1, 1, 2], attacker_equipment="poison", defender_guile=[3, 2, 4]),
        "defender",
    ),
    (Rules(), FightSetup([4], [1, 2], defender_equipment="sword"), "defender"),
    (Rules(ties="defender"), FightSetup([2, 2], [3, 1], attacker_equipment="poison"), "defender"),
]
DESIGNATION = {"attacker": "best", "defender": "defender_best"}


def brute_force(rules: Rules, setup: FightSetup, side: str, start=None) -> dict:
    """Decision state -> {option: the best value over every deterministic policy taking it there,
    counted from that state}; from the fight's start, or from ``start`` (a state of the fight)."""
    rules = dataclasses.replace(rules, designation=DESIGNATION[side])
    first, seen = walk(rules, setup)
    if start is not None:  # only the states reachable from there
        seen = reachable(seen, start)
    decisions = [s for s, got in seen.items() if isinstance(got, Choice)]
    count = len(list(itertools.product(*(seen[s].names for s in decisions))))
    assert 2 <= count <= 5_000, count  # a real choice, and few enough policies to value them all
    found: dict = {s: {} for s in decisions}
    for names in itertools.product(*(seen[s].names for s in decisions)):
        policy = dict(zip(decisions, names))
        values = every_value(rules, seen, policy)
        for s in decisions:
            option = option_index(policy[s])
            found[s][option] = max(found[s].get(option, -1.0), values[s])
    return found


def every_value(rules: Rules, seen: dict, policy: dict) -> dict:
    """The deciding side's chance to win from every state under a deterministic policy (one
    linear solve, as ``worth`` does for the start)."""
    states = list(seen)
    index = {s: i for i, s in enumerate(states)}
    matrix, ends = np.eye(len(states)), np.zeros(len(states))
    defender = rules.designation == "defender_best"
    for s, got in seen.items():
        steps = got.steps(policy[s]) if isinstance(got, Choice) else got
        if not steps:
            ends[index[s]] = float((s.strengths[1][s.designated[1]] == 0) != defender)
        for p, nxt, _ in steps:
            matrix[index[s], index[nxt]] -= p
    solved = np.linalg.solve(matrix, ends)
    return {s: float(solved[index[s]]) for s in states}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[2]}-{c[1].attacker}-{c[1].defender}")
def test_every_listed_value_is_the_brute_force_best_of_its_option(case):
    rules, setup, side = case
    advice = advise(rules, setup, side)
    found = brute_force(rules, setup, side)
    own = 0 if side == "attacker" else 1
    listed = {(d.own, d.other, d.dice): d for d in advice.decisions}
    start = walk(dataclasses.replace(rules, designation=DESIGNATION[side]), setup)[0]
    for state, options in found.items():
        key = (state.strengths[own], state.strengths[1 - own], (state.dice[own], state.dice[1 - own]))
        if key in listed:
            d = listed[key]
            for option, value in d.values.items():
                assert value == pytest.approx(options[option], abs=1e-12), (state, option)
            assert d.values[d.choice] == pytest.approx(max(options.values()), abs=1e-12)
            assert d.at_start == (state == start)
        else:  # left out: every option as good there
            assert max(options.values()) - min(options.values()) < 1e-12, (state, options)
    assert listed  # every case has a real choice
    best = dataclasses.replace(rules, designation=DESIGNATION[side])
    assert advice.value == pytest.approx(exact(best, setup)["objective"], abs=1e-12)


def reachable(seen: dict, start) -> dict:
    out, todo = {}, [start]
    while todo:
        state = todo.pop()
        if state not in out:
            got = out[state] = seen[state]
            steps = [s for option in got.steps_by_option for s in option] if isinstance(got, Choice) else got
            todo += [nxt for _, nxt, _ in steps]
    return out


def test_choices_after_a_fall_against_brute_force_from_there():
    """A fight large enough for choices after a fall (the set-aside reading: the dice in play
    differ by who fell), each checked by brute force over the policies of what follows it."""
    rules, setup = Rules(fight_to_last=True, set_aside_die=True), FightSetup([4, 3, 2], [5, 4])
    advice = advise(rules, setup)
    later = {(d.own, d.other, d.dice): d for d in advice.decisions if not d.at_start}
    assert len(later) >= 5
    best = dataclasses.replace(rules, designation="best")
    _, seen = walk(best, setup)
    checked = 0
    for state, got in seen.items():
        key = (state.strengths[0], state.strengths[1], state.dice)
        if not isinstance(got, Choice) or key not in later or len(reachable(seen, state)) > 400:
            continue
        options = brute_force(rules, setup, "attacker", start=state)[state]
        for option, value in later[key].values.items():
            assert value == pytest.approx(options[option], abs=1e-12)
        checked += 1
    assert checked >= 5, checked


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[2]}-{c[1].attacker}-{c[1].defender}")
def test_the_fixed_policies_are_valued_as_the_fights_are(case):
    rules, setup, side = case
    advice = advise(rules, setup, side)
    win = exact(rules, setup)["attacker_win"]  # both sides weakest first
    assert advice.weakest_first == pytest.approx(win if side == "attacker" else 1 - win, abs=1e-12)
    best = dataclasses.replace(rules, designation=DESIGNATION[side])
    assert advice.strongest_first == pytest.approx(fixed_value(best, setup, strongest=True), abs=1e-12)
    assert advice.value >= max(advice.weakest_first, advice.strongest_first) - 1e-12


def test_the_strongest_takes_the_damage_against_a_strong_defender():
    advice = advise(Rules(), FightSetup([5, 1, 1], [4]))
    (start,) = advice.decisions
    assert start.at_start and start.choice == 0
    assert set(start.values) == {0, 1}  # the two Strength-1 characters are one option
    assert start.values[0] == pytest.approx(advice.strongest_first, abs=1e-15)
    assert start.values[1] == pytest.approx(advice.weakest_first, abs=1e-15)


def test_twins_and_fights_to_the_last_leave_nothing_to_choose():
    twins = advise(Rules(), FightSetup([2, 2], [3]))
    assert twins.decisions == () and twins.alike == 1
    to_the_last = advise(Rules(fight_to_last=True), FightSetup([2, 1, 3], [2, 2]))
    assert to_the_last.decisions == () and to_the_last.alike > 0  # every point of Strength counts alike
    assert to_the_last.value == pytest.approx(to_the_last.weakest_first, abs=1e-15)


def test_named_characters_of_one_strength_stay_apart_plain_ones_do_not():
    named = FightSetup(["Paul", "Chani"], [5])
    plain = FightSetup([4, 4], [5])
    other_guile = FightSetup([4, 4], [5], attacker_guile=[3, 4])

    def first_of_kind(setup, i, strengths):  # the option a character stands for is itself
        return advice_module._alike(setup, "attacker", i, strengths)[0] == i

    assert first_of_kind(named, 1, (4, 4))
    assert not first_of_kind(plain, 1, (4, 4))
    assert first_of_kind(other_guile, 1, (4, 4))  # Guile matters against Poison
    assert first_of_kind(plain, 1, (3, 4))
    assert advice_module._alike(plain, "attacker", 1, (4, 4)) == [0, 1]


def test_refusals():
    with pytest.raises(InputError, match="one character"):
        advise(Rules(), FightSetup([4], [3, 1]))
    with pytest.raises(InputError, match="side must be attacker or defender"):
        advise(Rules(), FightSetup([4, 1], [3]), "both")
