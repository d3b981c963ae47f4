"""One contract test run over every registered game, question and variant (OpenSpiel's habit).

For every question and every setup a game offers (its example and the game's extra examples),
under official rules and under each variant:

- the kernel returns one value per trial for every metric, with the right dtype, and the same
  values for the same seed;
- the kernel agrees with the exact solver, where there is one, within 4.5 standard errors;
- the ``reference`` trial (plain Python, the rules read literally) agrees with the exact solver,
  or with the kernel where there is no exact solver, within 4.5 standard errors;
- every variant changes some result (not merely the rules object) in one of the setups.

A new game is checked here as soon as its package defines ``GAME``: nothing to add.
"""

from __future__ import annotations

import dataclasses
import math
import pickle
import sys

import numpy as np
import pytest

from montecarlo.registry import get_game, list_games

Z = 4.5
KERNEL_TRIALS = 20_000
REFERENCE_TRIALS = 4_000

QUESTIONS = [(g, q) for g in list_games() for q in get_game(g).questions]
CASES = [
    (g, q, variant, i)
    for g, q in QUESTIONS
    for variant in (None, *get_game(g).variants)
    for i in range(len(get_game(g).setups(q)))
]


def _ids(case) -> str:
    g, q, variant, i = case
    return f"{g}-{q}-{variant or 'official'}-{i}"


def columns(question, outcome: dict, n: int) -> dict[str, np.ndarray]:
    """Per reported name, the per-trial values (0/1 for probabilities and distribution values)."""
    out = {}
    for m in question.metrics:
        values = np.asarray(outcome[m.name])
        assert values.shape == (n,), m.name
        if m.kind == "distribution":
            for v in m.support:
                out[f"{m.name}={v}"] = (values == v).astype(float)
        else:
            out[m.name] = values.astype(float)
    return out


def reference_columns(question, rules, setup, n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    trials = [question.reference(rules, setup, rng) for _ in range(n)]
    stacked = {m.name: np.asarray([t[m.name] for t in trials]) for m in question.metrics}
    return columns(question, stacked, n)


def assert_agree(
    sample: dict[str, np.ndarray],
    target: dict[str, float],
    kinds: dict[str, str],
    what: str,
    other: dict[str, np.ndarray] | None = None,
) -> None:
    """Every column's mean within Z standard errors of ``target`` (exact) or of ``other``'s mean."""
    for name, values in sample.items():
        if other is None and name not in target:
            continue
        n = values.size
        if other is None:
            expected = target[name]
            if kinds[name] == "mean":
                se = values.std(ddof=1) / math.sqrt(n)
            else:
                se = math.sqrt(max(expected * (1 - expected), 0.0) / n)
        else:
            expected = other[name].mean()
            se = math.sqrt(values.var(ddof=1) / n + other[name].var(ddof=1) / other[name].size)
        gap = abs(values.mean() - expected)
        assert gap <= Z * se + 1e-9, (
            f"{what}: {name} = {values.mean():.5f}, expected {expected:.5f} (se {se:.2g})"
        )


def _kinds(question) -> dict[str, str]:
    return {n: m.kind for m in question.metrics for n in m.reported_names()}


def _setup(game, question_name, i):
    question = game.question(question_name)
    return question, question.setup(game.setups(question_name)[i])


def test_every_game_has_questions_and_a_default():
    for name in list_games():
        game = get_game(name)
        assert game.name == name
        assert game.questions, name
        assert game.default_question in game.questions
        assert dataclasses.is_dataclass(game.rules_type)
        assert game.rules_type.__dataclass_params__.frozen, f"{name} rules must be frozen"
        for question in game.questions.values():
            assert game.setups(question.name), f"{name} {question.name} has no example setup"
            assert question.reference is not None, f"{name} {question.name} has no reference trial"


@pytest.mark.parametrize("game_name,question_name", QUESTIONS)
def test_question_contract(game_name, question_name):
    game = get_game(game_name)
    question = game.question(question_name)
    for metric in question.metrics:  # the CLI and reports explain every metric in words
        assert isinstance(metric.description, str) and metric.description.strip(), metric.name
    for values in game.setups(question_name):
        setup = question.setup(values)
        assert setup.__dataclass_params__.frozen
        assert pickle.loads(pickle.dumps(setup)) == setup
        hash(setup)
        pickle.loads(pickle.dumps(question.simulate))  # as a worker process receives it
        n = 4000
        first = question.simulate(game.rules(), setup, n, np.random.default_rng(11))
        again = question.simulate(game.rules(), setup, n, np.random.default_rng(11))
        assert set(first) >= {m.name for m in question.metrics}
        for metric in question.metrics:
            values = np.asarray(first[metric.name])
            assert values.shape == (n,), metric.name
            assert np.array_equal(values, np.asarray(again[metric.name])), f"{metric.name} not reproducible"
            if metric.kind == "probability":
                assert values.dtype == bool, metric.name
            elif metric.kind == "distribution":
                assert np.issubdtype(values.dtype, np.integer), metric.name
        if question.exact is not None:
            exact = question.exact(game.rules(), setup) or {}
            assert set(exact) <= set(question.reported_names()), set(exact) - set(question.reported_names())
            for name, value in exact.items():
                assert math.isfinite(value), name
                if _kinds(question)[name] != "mean":
                    assert -1e-12 <= value <= 1 + 1e-12, (name, value)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_kernel_agrees_with_exact(case):
    game_name, question_name, variant, i = case
    game = get_game(game_name)
    question, setup = _setup(game, question_name, i)
    rules = game.rules([variant] if variant else [])
    exact = question.exact(rules, setup) if question.exact else None
    if not exact:
        pytest.skip("no exact solver for this setup")
    outcome = question.simulate(rules, setup, KERNEL_TRIALS, np.random.default_rng(2024 + i))
    assert_agree(columns(question, outcome, KERNEL_TRIALS), exact, _kinds(question), f"kernel {_ids(case)}")


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_reference_agrees_with_exact_or_kernel(case):
    game_name, question_name, variant, i = case
    game = get_game(game_name)
    question, setup = _setup(game, question_name, i)
    rules = game.rules([variant] if variant else [])
    sample = reference_columns(question, rules, setup, REFERENCE_TRIALS, seed=77 + i)
    exact = question.exact(rules, setup) if question.exact else None
    if exact:
        assert_agree(sample, exact, _kinds(question), f"reference {_ids(case)}")
    else:
        outcome = question.simulate(rules, setup, KERNEL_TRIALS, np.random.default_rng(5))
        kernel = columns(question, outcome, KERNEL_TRIALS)
        assert_agree(sample, {}, _kinds(question), f"reference vs kernel {_ids(case)}", other=kernel)


VARIANTS = [(g, v) for g in list_games() for v in get_game(g).variants]


@pytest.mark.parametrize("game_name,variant", VARIANTS)
def test_every_variant_changes_a_result(game_name, variant):
    """A variant must move some number in some example setup, not merely the rules object."""
    game = get_game(game_name)
    official, changed = game.rules(), game.rules([variant])
    for question_name in game.questions:
        question = game.question(question_name)
        for values in game.setups(question_name):
            setup = question.setup(values)
            if question.exact is not None:
                a, b = question.exact(official, setup) or {}, question.exact(changed, setup) or {}
                if any(abs(a[k] - b[k]) > 1e-9 for k in a.keys() & b.keys()):
                    return
            out_a = question.simulate(official, setup, 2000, np.random.default_rng(3))
            out_b = question.simulate(changed, setup, 2000, np.random.default_rng(3))
            if any(not np.array_equal(out_a[m.name], out_b[m.name]) for m in question.metrics):
                return
    pytest.fail(f"variant {variant} of {game_name} changes no result in any example setup")


def _same_answers(question, a, b, setup, seed: int) -> bool:
    """Kernel (same seed), exact values and reference trials (same seed) all equal under rules a and b."""
    out_a = question.simulate(a, setup, 2000, np.random.default_rng(seed))
    out_b = question.simulate(b, setup, 2000, np.random.default_rng(seed))
    if any(not np.array_equal(out_a[m.name], out_b[m.name]) for m in question.metrics):
        return False
    if question.exact is not None and question.exact(a, setup) != question.exact(b, setup):
        return False
    ref_a = reference_columns(question, a, setup, 200, seed)
    ref_b = reference_columns(question, b, setup, 200, seed)
    return all(np.array_equal(ref_a[k], ref_b[k]) for k in ref_a)


IDLE = [  # (game, question, a variant that sets none of the question's rule fields)
    (g, q, v)
    for g, q in QUESTIONS
    for v in get_game(g).variants
    if v not in get_game(g).variants_for(q)
]


@pytest.mark.parametrize("game_name,question_name,variant", IDLE)
def test_a_variant_outside_a_questions_rule_fields_changes_nothing(game_name, question_name, variant):
    """``Question.rule_fields`` hides a variant from the question's help and says it changes nothing:
    on every example setup its answers are the official rules' trial by trial, alone and added to
    each variant that does apply (its field is read nowhere the answers come from)."""
    game = get_game(game_name)
    question = game.question(question_name)
    bases = [[]] + [[v] for v in game.variants_for(question_name)]
    for i, values in enumerate(game.setups(question_name)):
        setup = question.setup(values)
        for base in bases:
            try:
                with_it = game.rules(base + [variant])
            except Exception:  # noqa: BLE001 - two variants setting one field: no such run
                continue
            assert _same_answers(question, game.rules(base), with_it, setup, seed=40 + i), (base, values)


# fields a question's reference trial reads that cannot change its answers: a duel is played by the
# fight's code, which asks who is designated and whether the fight goes on; with one character a
# side there is no choice and nobody next (the test above checks that they change nothing)
READ_BUT_IDLE = {("dune1984", "duel"): {"designation", "fight_to_last"}}


@pytest.mark.parametrize("game_name,question_name", QUESTIONS)
def test_rule_fields_name_every_field_the_reference_reads(game_name, question_name):
    """The plain-Python trial (no memos, every rule read where it applies) reads no rule field that
    ``rule_fields`` leaves out, under the official rules and every variant."""
    game = get_game(game_name)
    question = game.question(question_name)
    if question.rule_fields is None:
        pytest.skip("every rule field can change this question")
    rules_type = game.rules_type
    names = {f.name for f in dataclasses.fields(rules_type)}
    read: set[str] = set()
    original = rules_type.__getattribute__

    def recording(self, name):
        caller = sys._getframe(1).f_code.co_filename
        # not the dataclass's own __hash__ and __eq__ (a memo's key), which read every field
        if name in names and caller != "<string>" and not caller.endswith("dataclasses.py"):
            read.add(name)
        return original(self, name)

    runs = []
    for variant in (None, *game.variants):
        rules = game.rules([variant] if variant else [])
        runs += [(rules, question.setup(values)) for values in game.setups(question_name)]
    rules_type.__getattribute__ = recording
    try:
        for rules, setup in runs:
            rng = np.random.default_rng(5)
            for _ in range(50):
                question.reference(rules, setup, rng)
    finally:
        rules_type.__getattribute__ = original
    allowed = question.rule_fields | READ_BUT_IDLE.get((game_name, question_name), set())
    assert read <= allowed, sorted(read - allowed)
    assert bool(read) == bool(question.rule_fields), "a question with rule fields reads some"


@pytest.mark.parametrize("game_name", ["dune1984", "war-for-arrakis"])
def test_the_rules_pages_variant_table_names_the_questions_each_changes(game_name):
    """The game's page (docs/rules) lists each variant with the questions it can change, as
    ``Game.variants_for`` has them (the commands' help and ``montecarlo games`` read the same)."""
    import re
    from pathlib import Path

    game = get_game(game_name)
    page = (Path(__file__).resolve().parents[2] / "docs" / "rules" / f"{game_name}.md").read_text("utf-8")
    table = page.split("| name | what changes | questions it changes |\n| --- | --- | --- |\n")[1]
    rows = re.findall(r"^\| `([a-z_0-9]+)` \| .* \| ([a-z, ]+) \|$", table.split("\n\n")[0], re.M)
    assert [name for name, _ in rows] == list(game.variants)
    for name, questions in rows:
        assert questions.split(", ") == [q for q in game.questions if name in game.variants_for(q)], name
