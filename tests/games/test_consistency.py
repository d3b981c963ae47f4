"""One contract test run over every registered game and question (OpenSpiel's habit).

Each question must: build its example setup; return one value per trial for every metric with
the right dtype; give the same trials for the same seed; keep exact values within the reported
names and agree with its own simulation; accept every variant of its game.
"""

import dataclasses
import math
import pickle

import numpy as np
import pytest

from montecarlo.analysis import RunSettings, ask
from montecarlo.games import get_game, list_games

QUESTIONS = [(g, q) for g in list_games() for q in get_game(g).questions]


def test_every_game_has_questions_and_a_default():
    for name in list_games():
        game = get_game(name)
        assert game.questions, name
        assert game.default_question in game.questions
        assert dataclasses.is_dataclass(game.rules_type)
        params = game.rules_type.__dataclass_params__
        assert params.frozen, f"{name} rules must be frozen"
        for variant in game.variants:
            assert game.rules([variant]) != game.rules(), f"variant {variant} changes nothing"


@pytest.mark.parametrize("game_name,question_name", QUESTIONS)
def test_question_contract(game_name, question_name):
    game = get_game(game_name)
    question = game.question(question_name)
    if not question.example:
        pytest.skip("question has no example setup")
    setup = question.setup(question.example)
    assert setup.__dataclass_params__.frozen
    assert pickle.loads(pickle.dumps(setup)) == setup
    hash(setup)
    rules = game.rules()
    n = 4000
    first = question.simulate(rules, setup, n, np.random.default_rng(11))
    again = question.simulate(rules, setup, n, np.random.default_rng(11))
    assert set(first) >= {m.name for m in question.metrics}
    for metric in question.metrics:
        values = np.asarray(first[metric.name])
        assert values.shape == (n,), metric.name
        assert np.array_equal(values, np.asarray(again[metric.name])), f"{metric.name} not reproducible"
        if metric.kind == "probability":
            assert values.dtype == bool, metric.name
        elif metric.kind == "distribution":
            assert np.issubdtype(values.dtype, np.integer), metric.name
    for variant in game.variants:
        out = question.simulate(game.rules([variant]), setup, 100, np.random.default_rng(1))
        assert all(np.asarray(out[m.name]).shape == (100,) for m in question.metrics)


@pytest.mark.parametrize("game_name,question_name", QUESTIONS)
def test_exact_agrees_with_simulation_on_the_example(game_name, question_name):
    game = get_game(game_name)
    question = game.question(question_name)
    if not question.example or question.exact is None:
        pytest.skip("no example or no exact solver")
    answer = ask(game, question_name, question.example, settings=RunSettings(trials=40_000, seed=5, jobs=1))
    names = set(question.reported_names())
    exact = question.exact(game.rules(), question.setup(question.example)) or {}
    assert set(exact) <= names, f"exact names not reported: {set(exact) - names}"
    for name, value in answer.metrics.items():
        if value.exact is None:
            continue
        assert math.isfinite(value.exact)
        if value.kind == "probability":
            assert -1e-12 <= value.exact <= 1 + 1e-12
        tolerance = 4.5 * value.se + 1e-9
        assert abs(value.estimate - value.exact) <= tolerance, (name, value)
