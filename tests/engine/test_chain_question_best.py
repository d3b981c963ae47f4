"""The chain-question builder under best play and with an objective asked (engine.chain_question).

- A hand-derived question (derivation in the docstring): exact values under best play and under
  the fixed policy, the objective metric of each, the option values.
- Random chains with decisions (tests/engine/test_decisions.py's generator): the builder's exact
  objective equals every deterministic policy's best, valued here with numpy, and its other
  metrics equal those of a Chain built directly on ``decisions.solve``'s policy; its sampler
  agrees with its exact values within 4.5 standard errors.
- Too large to solve: no exact value, one line saying why, and ``simulate`` refuses.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from montecarlo.engine.chain import Chain
from montecarlo.engine.chain_question import ChainQuestion
from montecarlo.engine.decisions import Choice, Objective, evaluate, solve, with_objective
from montecarlo.engine.metrics import Metric
from montecarlo.errors import InputError, MonteCarloError
from tests.engine.test_decisions import KINDS, Random

Z = 4.5


def attempt(cost: float, state: str):
    """Try (pay ``cost``): 1/3 success, 1/3 nothing changes, 1/3 failure; or stop (worth 2).

    ``cost`` < 0 means no choice: the player always tries (a fixed policy).
    """
    if state != "trying":
        return []
    trying = [(1 / 3, "success", ("try",)), (1 / 3, "trying", ("try",)), (1 / 3, "failure", ("try",))]
    if cost < 0:
        return trying
    return Choice({"stop": [(1.0, "stopped", ())], "try": trying})


FINALS = {"stopped": 2.0, "success": 6.0, "failure": 0.0}
METRICS = (Metric("success", "probability", ""), Metric("tries", "mean", ""))


def trying(rules, setup) -> str:
    return "trying"


def succeeded(cost, state) -> dict:
    return {"success": state == "success"}


def tries_cost(cost) -> Objective:
    return Objective(FINALS.__getitem__, {"try": -abs(cost)})


def chooses(cost) -> bool:
    return cost >= 0


def attempts() -> ChainQuestion:
    return ChainQuestion(trying, attempt, succeeded, METRICS, {"tries": "try"}, objective=tries_cost,
                         best_play=chooses)


def test_a_size_bound_of_exactly_the_limit_is_solved():
    """Four states (the chain's size at p = 1/2) under a limit of four: solved, not refused."""
    exact_fit = ChainQuestion(trying, attempt, succeeded, METRICS, {"tries": "try"}, objective=tries_cost,
                              best_play=chooses, max_states=4, size_bound=lambda rules, setup: 4)
    assert exact_fit.solution(0.5, None).value == attempts().solution(0.5, None).value


def test_best_play_without_an_objective_is_an_error_of_the_game_module():
    aimless = ChainQuestion(
        trying, attempt, succeeded, METRICS, {"tries": "try"}, objective=lambda cost: None, best_play=chooses
    )
    message = r"^best play needs an objective: objective\(context\) gave None$"
    with pytest.raises(MonteCarloError, match=message):
        aimless.exact(1.0, None)


def test_a_state_that_returns_to_itself_by_hand():
    """Trying until something happens takes 1 / (2/3) = 3/2 tries on average and succeeds with
    probability (1/3) / (2/3) = 1/2 (worth 6): 3 - 3/2 x cost. At cost 1/2 that is 9/4 > 2
    (stopping): best play tries, success 1/2, 3/2 tries, objective 9/4. At cost 1 it is 3/2 < 2:
    best play stops at once (success 0, 0 tries, objective 2), while the fixed policy "always
    try" (cost -1 here) reports its own objective 3/2. The option "try" is worth trying once and
    then playing best: -1 + 6/3 + 0/3 + 2/3 (back at the choice, best play stops) = 5/3, above
    always trying's 3/2 and below stopping's 2.
    """
    question = attempts()
    tries = question.exact(0.5, None)
    assert tries == pytest.approx({"success": 0.5, "tries": 1.5, "objective": 9 / 4}, rel=1e-13)
    assert question.exact(1.0, None) == pytest.approx({"success": 0.0, "tries": 0.0, "objective": 2.0})
    assert question.exact(-1.0, None) == pytest.approx({"success": 0.5, "tries": 1.5, "objective": 1.5})
    assert question.solution(1.0, None).option_values("trying") == pytest.approx({"stop": 2.0, "try": 5 / 3})
    assert question.solution(0.5, None).policy == {"trying": "try"}
    assert question.why_no_exact(0.5, None) is None
    assert question.size(0.5, None) == 4


def test_a_fixed_policy_asks_no_solution():
    with pytest.raises(InputError, match="^these rules ask for no best play: there is no decision to solve$"):
        attempts().solution(-1.0, None)


def test_the_sampler_under_best_play_and_under_a_fixed_policy():
    question = attempts()
    for cost in (0.5, -1.0):
        exact = question.exact(cost, None)
        got = question.simulate(cost, None, 40_000, np.random.default_rng(7))
        assert set(got) == set(exact)
        for name, expected in exact.items():
            values = got[name].astype(float)
            se = values.std(ddof=1) / np.sqrt(values.size)
            assert abs(values.mean() - expected) <= Z * se + 1e-12, (cost, name)


def random_question(chain: Random) -> ChainQuestion:
    return ChainQuestion(
        lambda rules, setup: 0,
        lambda ctx, s: chain.transitions(s),
        lambda ctx, s: {"ended_high": s == max(chain.finals)},
        (Metric("ended_high", "probability", ""), Metric("steps", "mean", "")),
        {"steps": "a"},
        objective=lambda ctx: chain.objective,
        best_play=lambda ctx: True,
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(6))
def test_the_builder_agrees_with_the_solver_and_with_every_policy(kind, seed):
    chain = Random(seed, **KINDS[kind])
    best = max(chain.worth(policy) for policy in chain.policies())
    if best == -np.inf:
        return  # no policy ends: solve refuses (tested in test_decisions)
    question = random_question(chain)
    exact = question.exact(None, None)
    assert exact["objective"] == pytest.approx(best, rel=1e-9, abs=1e-9)
    solution = solve(chain.transitions, 0, chain.objective)
    direct = Chain(
        solution.transitions,
        *with_objective(chain.objective, lambda s: {"ended_high": s == max(chain.finals)},
                        question.metrics, {"steps": "a"}),
    ).exact(0)
    assert exact == pytest.approx(direct, rel=1e-12, abs=1e-12)
    assert dict(question.solution(None, None).policy) == dict(solution.policy)


@pytest.mark.parametrize("seed", range(4))
def test_the_builder_samples_its_solved_policy(seed):
    chain = Random(seed, loops=True)
    question = random_question(chain)
    exact = question.exact(None, None)
    got = question.simulate(None, None, 30_000, np.random.default_rng(seed))
    for name, expected in exact.items():
        values = got[name].astype(float)
        se = values.std(ddof=1) / np.sqrt(values.size)
        assert abs(values.mean() - expected) <= Z * se + 1e-9, name


def test_a_fixed_policy_with_an_objective_reports_its_value():
    """The same random chains under "always the first option": the objective metric equals
    ``decisions.evaluate`` of that policy, and is never above the optimum."""
    for seed in range(6):
        chain = Random(seed, loops=True)

        def first(s, chain=chain):
            got = chain.transitions(s)
            return got.steps_by_option[0] if isinstance(got, Choice) else got

        fixed = ChainQuestion(
            lambda rules, setup: 0, lambda ctx, s: first(s), lambda ctx, s: {},
            (), objective=lambda ctx, chain=chain: chain.objective,
        )
        value = fixed.exact(None, None)["objective"]
        first_option = evaluate(chain.transitions, 0, chain.objective, lambda s, c: c.names[0])
        assert value == pytest.approx(first_option)
        assert value <= random_question(chain).exact(None, None)["objective"] + 1e-9


def ladder(limit, s):
    if s >= 100:
        return []
    return Choice({"up": [(1.0, s + 1, ())], "off": [(1.0, 100 + s, ())]})


def test_too_large_to_solve_is_said_in_one_line():
    question = ChainQuestion(
        lambda rules, setup: 0, ladder, lambda limit, s: {}, (), objective=lambda c: Objective(float),
        best_play=lambda c: True, max_states=20, name="the ladder",
    )
    assert question.exact(None, None) is None
    why = question.why_no_exact(None, None)
    assert why == (
        "best play unavailable because the ladder has more than 20 states, and best play needs the "
        "exact solve of every decision"
    )
    with pytest.raises(InputError, match="^best play unavailable because the ladder has more than 20"):
        question.simulate(None, None, 10, np.random.default_rng(0))
    with pytest.raises(InputError, match="^best play unavailable because the ladder has more than 20"):
        question.solution(None, None)
    wrong = ChainQuestion(  # a size bound that is wrong (5 for over 20 states): still one line
        lambda rules, setup: 0, ladder, lambda limit, s: {}, (), objective=lambda c: Objective(float),
        best_play=lambda c: True, max_states=20, size_bound=lambda rules, setup: 5,
    )
    with pytest.raises(InputError, match="^best play unavailable$"):
        wrong.solution(None, None)


def test_a_rule_that_says_why_it_cannot_be_solved_is_said_with_its_reason():
    """A transition that raises ChainTooLarge with a ``why`` of its own: best play gives that reason."""
    from montecarlo.engine.chain import ChainTooLarge

    def rung(limit, s):
        if s == 3:
            raise ChainTooLarge("too many steps at 3", "the third rung lists too many steps")
        return ladder(limit, s)

    question = ChainQuestion(
        lambda rules, setup: 0, rung, lambda limit, s: {}, (), objective=lambda c: Objective(float),
        best_play=lambda c: True, max_states=20,
    )
    assert question.exact(None, None) is None
    assert question.why_no_exact(None, None) == (
        "best play unavailable because the third rung lists too many steps, and best play needs the "
        "exact solve of every decision"
    )
    with pytest.raises(InputError, match="^best play unavailable because the third rung lists too many"):
        question.solution(None, None)


def test_too_large_by_the_size_bound_is_never_walked():
    def refuse(limit, s):
        raise AssertionError("walked")

    question = ChainQuestion(
        lambda rules, setup: 0, refuse, lambda limit, s: {}, (), objective=lambda c: Objective(float),
        best_play=lambda c: True, max_states=20, size_bound=lambda rules, setup: rules + setup,
        direct=lambda *args: {},
    )
    assert question.exact(10, 11) is None
    why = "best play unavailable because the chain would have up to 21 states"
    assert question.why_no_exact(10, 11).startswith(why)
    with pytest.raises(InputError):
        question.simulate(10, 11, 10, np.random.default_rng(0))
    with pytest.raises(InputError, match="^" + why):
        question.solution(10, 11)  # the bound of these rules and this setup


def test_a_choice_where_no_best_play_is_asked_is_an_error():
    question = ChainQuestion(lambda rules, setup: 0, ladder, lambda limit, s: {}, ())
    with pytest.raises(MonteCarloError, match="offers a choice at 0 but the question asks for no best play$"):
        question.exact(None, None)


def test_best_play_needs_an_objective():
    with pytest.raises(ValueError, match="objective"):
        ChainQuestion(lambda r, s: 0, ladder, lambda c, s: {}, (), best_play=lambda c: True)


def test_solutions_are_memoised_and_forgotten():
    question = attempts()
    assert question.solution(0.5, None) is question.solution(0.5, None)
    question.clear()
    assert not question._solutions


def test_a_pickled_builder_starts_empty_and_solves_again():
    question = attempts()
    question.exact(0.5, None)
    copy = pickle.loads(pickle.dumps(question))
    assert not copy._solutions and not copy._chains
    assert copy.exact(0.5, None)["objective"] == pytest.approx(9 / 4)
