"""Dune 1984 fights under best play (designation ``best``: the attacker chooses who takes the
damage; ``defender_best``: the defender) against answers found without the solver.

- Brute force: the decision states of small fights are found by walking the game's own rule,
  every deterministic policy over them is valued here by its own linear system (numpy), and the
  best of them equals the optimum that ``exact`` reports; the solver's policy is worth exactly that.
- The optimum is never below the fixed designations (weakest_first, strongest_first) on every
  example fight, with and without fight_to_last, Poison and the set-aside reading.
- A hand-derived case (derivation in the docstring).
- The sampler and the reference trial under best play agree with the exact values within 4.5
  standard errors.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest

from montecarlo.engine.decisions import Choice, evaluate
from montecarlo.errors import InputError
from montecarlo.games.dune1984 import fights
from montecarlo.games.dune1984.fights import FIGHT, FightSetup, exact, reference_fight, simulate_fight
from montecarlo.games.dune1984.rules import Rules

Z = 4.5
BEST, DEFENDER_BEST = Rules(designation="best"), Rules(designation="defender_best")


def walk(rules: Rules, setup: FightSetup) -> tuple[fights.FightState, dict]:
    """The start and every state reachable from it under any play, with the game's rule there."""
    ctx, start = fights._start(rules, setup)
    seen: dict = {}
    todo = [start]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        got = seen[state] = fights._transitions(ctx, state)
        steps = [s for option in got.steps_by_option for s in option] if isinstance(got, Choice) else got
        todo += [nxt for _, nxt, _ in steps]
    return start, seen


def worth(rules: Rules, setup: FightSetup, start, seen: dict, policy: dict) -> float:
    """The deciding side's chance to win under a deterministic policy, by one linear solve."""
    states = list(seen)
    index = {s: i for i, s in enumerate(states)}
    n = len(states)
    matrix, values = np.eye(n), np.zeros(n)
    defender = rules.designation == "defender_best"
    for s, got in seen.items():
        steps = got.steps(policy[s]) if isinstance(got, Choice) else got
        if not steps:
            won = s.strengths[1][s.designated[1]] == 0
            values[index[s]] = float(won != defender)
        for p, nxt, _ in steps:
            matrix[index[s], index[nxt]] -= p
    return float(np.linalg.solve(matrix, values)[index[start]])


SMALL = [
    (BEST, FightSetup([3, 1], [2, 2], attacker_equipment="poison")),
    (BEST, FightSetup([2, 1, 3], [4])),
    (dataclasses.replace(BEST, fight_to_last=True), FightSetup([2, 1, 2], [2])),
    (dataclasses.replace(BEST, fight_to_last=True, set_aside_die=True), FightSetup([2, 3], [3, 1])),
    (dataclasses.replace(BEST, fight_to_last=True), FightSetup([1, 2], [2], defender_equipment="poison")),
    (dataclasses.replace(DEFENDER_BEST, fight_to_last=True), FightSetup([2], [1, 2, 1])),
    (DEFENDER_BEST, FightSetup([4], [1, 2], defender_equipment="sword")),
]


@pytest.mark.parametrize("case", SMALL, ids=lambda c: f"{c[0].designation}-{c[1].attacker}-{c[1].defender}")
def test_the_optimum_is_the_best_of_every_policy(case):
    rules, setup = case
    start, seen = walk(rules, setup)
    decisions = [s for s, got in seen.items() if isinstance(got, Choice)]
    count = math.prod(len(seen[s].names) for s in decisions)
    assert all(len(seen[s].names) >= 2 for s in decisions)  # a side chooses among 2+ living characters
    assert 2 <= count <= 20_000, count  # a real choice, and few enough policies to value them all
    best = max(
        worth(rules, setup, start, seen, dict(zip(decisions, names)))
        for names in itertools.product(*(seen[s].names for s in decisions))
    )
    assert exact(rules, setup)["objective"] == pytest.approx(best, rel=1e-9, abs=1e-12)
    solution = FIGHT.solution(rules, setup)
    assert solution.value == pytest.approx(best, rel=1e-9, abs=1e-12)
    assert worth(rules, setup, start, seen, dict(solution.policy)) == pytest.approx(best, rel=1e-9, abs=1e-12)


EXAMPLES = [
    FightSetup([3, 1], [2, 2], attacker_equipment="poison"),
    FightSetup([4, 3], [5], defender_equipment="sword"),
    FightSetup(["Paul", "Chani"], ["Rabban", "Feyd"]),
    FightSetup([1, 5, 2], [3, 3], attacker_equipment="gom_jabbar", defender_equipment="poison"),
    FightSetup([2, 2, 2], [6], defender_equipment="sword, poison"),
    FightSetup([6, 1], [4, 4]),
]
READINGS = [
    {}, {"fight_to_last": True}, {"set_aside_die": True}, {"fight_to_last": True, "set_aside_die": True},
    {"ties": "defender"},
]


def fixed_value(rules: Rules, setup: FightSetup, strongest: bool) -> float:
    """The deciding side's chance to win when it designates its strongest (or weakest) living
    character every time, the other side keeping its policy: a fixed policy on the same chain."""
    ctx, start = fights._start(rules, setup)

    def policy(state, choice):  # by Strength (a name ends "(Strength v)"), the first listed on a tie
        sign = -1 if strongest else 1
        return min(enumerate(choice.names), key=lambda o: (sign * int(o[1].rstrip(")").split()[-1]), o[0]))[1]

    return evaluate(lambda s: fights._transitions(ctx, s), start, fights.fight_objective(ctx), policy)


@pytest.mark.parametrize("reading", READINGS, ids=lambda r: ",".join(r) or "official")
def test_best_play_is_never_below_a_fixed_designation(reading):
    for setup in EXAMPLES:
        for deciding in ("best", "defender_best"):
            rules = Rules(designation=deciding, **reading)
            best = exact(rules, setup)["objective"]
            weakest = fixed_value(rules, setup, strongest=False)
            win = exact(Rules(**reading), setup)["attacker_win"]  # both sides weakest_first
            assert weakest == pytest.approx(win if deciding == "best" else 1 - win, abs=1e-12)
            for value in (weakest, fixed_value(rules, setup, strongest=True)):
                assert best >= value - 1e-12, (setup, reading, deciding)


def test_a_choice_computed_by_hand():
    """Strengths 2 + 1 against 1, official rules. A decisive roll of n d6 against 1 d6 is won with
    probability P(A > D) / (P(A > D) + P(D > A)): for n = 3, (95/216) / (95/216 + 25/216) = 19/24;
    for n = 2, (125/216) / (125/216 + 55/216) = 25/36. Designating the Strength-1 character, the
    first lost round ends the fight: win 19/24 (weakest_first). Designating the Strength-2
    character, a lost round leaves 2 dice and a second chance: 19/24 + 5/24 x 25/36 = 809/864
    (best play, = strongest_first here).
    """
    setup = FightSetup([2, 1], [1])
    assert exact(BEST, setup)["objective"] == pytest.approx(809 / 864, rel=1e-12)
    assert exact(BEST, setup)["attacker_win"] == pytest.approx(809 / 864, rel=1e-12)
    assert exact(Rules(), setup)["attacker_win"] == pytest.approx(19 / 24, rel=1e-12)
    solution = FIGHT.solution(BEST, setup)
    assert list(solution.policy.values()) == ["character 1 (Strength 2)"]
    values = solution.option_values(solution.start)
    assert values == pytest.approx({"character 1 (Strength 2)": 809 / 864,
                                    "character 2 (Strength 1)": 19 / 24})


@pytest.mark.parametrize("case", SMALL[:5], ids=lambda c: f"{c[0].designation}-{c[1].attacker}")
def test_the_sampler_under_best_play_agrees_with_exact(case):
    rules, setup = case
    want = exact(rules, setup)
    got = simulate_fight(rules, setup, 40_000, np.random.default_rng(3))
    for name in ("attacker_win", "rounds", "objective", "attacker_strength_after", "poisoned"):
        values = np.asarray(got[name], dtype=float)
        se = max(values.std(ddof=1), 1e-12) / math.sqrt(values.size)
        assert abs(values.mean() - want[name]) <= Z * se + 1e-12, name


@pytest.mark.parametrize("case", SMALL, ids=lambda c: f"{c[0].designation}-{c[1].attacker}-{c[1].defender}")
def test_the_reference_trial_plays_the_solved_policy(case):
    rules, setup = case
    want = exact(rules, setup)
    rng = np.random.default_rng(12)
    trials = [reference_fight(rules, setup, rng) for _ in range(3000)]
    for name in ("attacker_win", "objective", "attacker_strength_after"):
        values = np.array([t[name] for t in trials], dtype=float)
        se = max(values.std(ddof=1), 1e-12) / math.sqrt(values.size)
        assert abs(values.mean() - want[name]) <= Z * se + 1e-12, name


def test_the_objective_is_reported_only_when_asked():
    question = fights.QUESTIONS["fight"]
    assert "objective" not in question.applicable_metrics(FightSetup([3, 1], [2]))
    assert "objective" in question.applicable_metrics(FightSetup([3, 1], [2], objective="win"))
    with pytest.raises(InputError, match="objective must be win"):
        FightSetup([3, 1], [2], objective="keep:1")
    assert fights.parse_objective(" W in ") == "win"  # spaces anywhere do not count
    refused = r"^objective must be win \(the deciding side's chance to win\), got 3$"
    with pytest.raises(InputError, match=refused):
        fights.parse_objective(3)  # not text: the same one line, no traceback


def test_the_chains_objective_is_the_metric_the_fight_question_declares():
    import types

    declared = fights.QUESTIONS["fight"].metric("objective")
    for rules in (Rules(), BEST):
        assert fights.fight_objective(types.SimpleNamespace(rules=rules)).metric() == declared


def test_a_duel_has_nothing_to_decide():
    duel = fights.DuelSetup(4, 5)
    assert exact(BEST, duel) == exact(Rules(), duel)
