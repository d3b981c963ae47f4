"""The chain-question builder: caching per context, the too-large fallback, notes and pickling."""

from __future__ import annotations

import pickle
from typing import NamedTuple

import numpy as np
import pytest

from montecarlo.engine.chain import ChainTooLarge
from montecarlo.engine.chain_question import ChainQuestion
from montecarlo.engine.metrics import Metric
from montecarlo.errors import InputError, MonteCarloError


class Walk(NamedTuple):
    """A gambler's walk: ``money`` from 0 to ``goal`` (the setup), fair coin."""

    money: int
    goal: int


def start(rules, setup):
    return Walk(setup[0], setup[1])


def step(rules, s):
    if s.money in (0, s.goal):
        return []
    up, down = s._replace(money=s.money + rules), s._replace(money=s.money - 1)
    return [(0.5, up, ("flip",)), (0.5, down, ("flip",))]


def outcome(rules, s):
    return {"rich": s.money == s.goal}


METRICS = (Metric("rich", "probability", ""), Metric("flips", "mean", ""))
DIRECT_CALLS: list = []


def direct(rules, setup, n, rng):
    DIRECT_CALLS.append(setup)
    return {"rich": np.zeros(n, dtype=bool), "flips": np.zeros(n, dtype=np.uint32)}


def walk(**options) -> ChainQuestion:
    return ChainQuestion(start, step, outcome, METRICS, {"flips": "flip"}, **options)


def test_exact_is_the_gamblers_ruin_closed_form():
    """Fair walk of +1/-1 from m to N: P(reach N) = m / N and E[flips] = m (N - m)."""
    q = walk()
    for m, goal in ((1, 2), (3, 10), (7, 9)):
        e = q.exact(1, (m, goal))
        assert e["rich"] == pytest.approx(m / goal, abs=1e-12)
        assert e["flips"] == pytest.approx(m * (goal - m), abs=1e-9)
        assert q.why_no_exact(1, (m, goal)) is None


def test_one_chain_per_context_in_a_bounded_lru():
    q = walk(cache_size=2)
    one = q.chain(1)
    policy = q.chain(1, "policy")
    assert q.chain(1) is one and policy is not one  # an extra key has its own chain
    q.chain(2)  # evicts the least recently used: (1, "policy")
    assert q.chain(1) is one and q.chain(1, "policy") is not policy
    q.exact(2, (1, 3))  # context 2: already there
    assert len(q._chains) == 2
    q.clear()
    assert not q._chains and q.chain(1) is not one


def test_the_memo_of_chain_sizes_drops_its_oldest_entry_when_full():
    q = walk()
    q._sizes.update({(1, Walk(i, -1)): 7 for i in range(4096)})  # full: 4096 sizes remembered
    assert q.size(1, (2, 5)) == 6  # answered, and remembered in place of the oldest
    assert len(q._sizes) == 4096 and (1, Walk(0, -1)) not in q._sizes and (1, Walk(1, -1)) in q._sizes
    assert q._sizes[(1, Walk(2, 5))] == 6


def test_context_decides_which_chain_a_setup_uses():
    """The context (step, goal) is what the rule reads: one chain per goal, shared by the starts."""
    q = ChainQuestion(
        lambda context, setup: Walk(setup[0], setup[1]),
        lambda context, s: step(context[0], s),
        lambda context, s: outcome(context[0], s),
        METRICS,
        {"flips": "flip"},
        context=lambda rules, setup: (rules, setup[1]),
    )
    assert q.exact(1, (1, 4))["rich"] == pytest.approx(1 / 4, abs=1e-12)
    assert q.exact(1, (2, 4))["rich"] == pytest.approx(2 / 4, abs=1e-12)
    assert q.exact(1, (1, 5))["rich"] == pytest.approx(1 / 5, abs=1e-12)
    assert sorted(key for key, _ in q._chains) == [(1, 4), (1, 5)]


def test_too_large_chain_falls_back_to_the_direct_kernel_and_says_why():
    DIRECT_CALLS.clear()
    q = walk(direct=direct, max_states=5)
    assert q.exact(1, (2, 4)) is not None  # 5 states: at the limit
    assert q.exact(1, (2, 5)) is None
    note = q.why_no_exact(1, (2, 5))
    assert note == (
        "exact value unavailable because the chain has more than 5 states; "
        "the trials are simulated without it"
    )
    q.simulate(1, (2, 5), 10, np.random.default_rng(1))
    q.simulate(1, (2, 4), 10, np.random.default_rng(1))
    assert DIRECT_CALLS == [(2, 5)]


def test_sampler_limit_below_the_exact_limit():
    DIRECT_CALLS.clear()
    q = walk(direct=direct, max_states=100, sampler_max_states=5)
    assert q.exact(1, (2, 8)) is not None and q.why_no_exact(1, (2, 8)) is None
    q.simulate(1, (2, 8), 10, np.random.default_rng(1))
    assert DIRECT_CALLS == [(2, 8)]
    with pytest.raises(ValueError, match="^sampler_max_states needs a direct kernel for the larger chains$"):
        walk(sampler_max_states=5)
    with pytest.raises(ValueError, match="^best_play needs an objective to maximise$"):
        walk(best_play=lambda context: True)


def test_size_bound_decides_without_walking():
    q = walk(direct=direct, size_bound=lambda rules, setup: 10 * setup[1], max_states=40)
    assert q.exact(1, (1, 5)) is None and not q._chains  # never walked
    assert q.exact(1, (1, 4)) is not None
    note = q.why_no_exact(1, (1, 5))
    assert "would have up to 50 states, too large for the exact solver (at most 40)" in note
    assert q.why_no_exact(1, (1, 4)) is None  # a bound of exactly the limit is solved
    assert q.size(1, (1, 5)) is None  # the size too, by the bound of that setup
    assert q.size(1, (1, 4)) == 5


def test_without_a_direct_kernel_too_large_is_no_exact_value_and_an_error_to_simulate():
    q = walk(max_states=5)
    assert q.exact(1, (2, 9)) is None
    assert q.why_no_exact(1, (2, 9)) == "exact value unavailable because the chain has more than 5 states"
    with pytest.raises(ChainTooLarge):
        q.simulate(1, (2, 9), 10, np.random.default_rng(1))


def test_finish_adds_derived_values_to_exact_values_and_samples():
    def finish(rules, setup, values):
        assert (rules, setup) == (1, (1, 4)), "finish is given the question's rules and setup"
        rich = values["rich"]
        values["poor"] = ~rich if isinstance(rich, np.ndarray) else 1 - rich

    q = walk(finish=finish)
    assert q.exact(1, (1, 4))["poor"] == pytest.approx(0.75)
    out = q.simulate(1, (1, 4), 1000, np.random.default_rng(2))
    assert np.array_equal(out["poor"], ~out["rich"])


def test_explain_words_the_engines_errors_about_the_chain():
    def stuck(rules, s):
        return [] if s.money == 0 else [(1.0, s, ("flip",))]

    def explain(exc, context):
        return InputError(f"x.toml, rules {context}: {exc}")

    q = ChainQuestion(start, stuck, outcome, METRICS, {"flips": "flip"}, explain=explain)
    with pytest.raises(InputError, match="x.toml, rules 1: state .* only leads back to itself"):
        q.exact(1, (1, 2))
    with pytest.raises(MonteCarloError, match="only leads back to itself"):
        ChainQuestion(start, stuck, outcome, METRICS, {"flips": "flip"}).exact(1, (1, 2))


HOME = walk(home=(__name__, "HOME"))


def test_pickles_as_its_home_or_as_its_description():
    HOME.exact(1, (1, 3))
    assert pickle.loads(pickle.dumps(HOME.simulate)).__self__ is HOME  # a worker's own copy
    q = walk()
    q.exact(1, (1, 3))
    q.size(1, (1, 3))
    _, (_, sent) = q.__reduce__()  # what a worker receives: the description, not the caches
    assert not {"_chains", "_sizes", "_solutions"} & set(sent) and q._chains and q._sizes
    again = pickle.loads(pickle.dumps(q))
    assert again is not q and not again._chains and not again._sizes  # description only, caches empty
    assert again.exact(1, (1, 3)) == q.exact(1, (1, 3))
    assert again.size(1, (1, 3)) == q.size(1, (1, 3)) > 0
    a = again.simulate(1, (1, 3), 500, np.random.default_rng(4))
    b = q.simulate(1, (1, 3), 500, np.random.default_rng(4))
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_a_rule_that_says_why_its_chain_is_too_large_is_simulated_with_its_reason():
    """A transition may raise ChainTooLarge with a ``why`` of its own (a battle file's round with
    too many results to list): no exact value, the direct kernel simulates, and the note gives
    that reason, not the count of states; a pickle keeps it (workers send errors back). The
    reason is the one of the setup's own chain: its context (here the goal) and its start (here
    moved by the rules)."""

    def listed(context, s):
        if s.money == 3 < s.goal:
            why = f"the walk to {context[1]} would list too many steps at 3"
            raise ChainTooLarge("too many steps at 3", why)
        return step(context[0], s)

    calls = []
    q = ChainQuestion(
        lambda rules, setup: Walk(setup[0] + rules - 1, setup[1]),
        listed,
        lambda context, s: outcome(context[0], s),
        METRICS,
        {"flips": "flip"},
        context=lambda rules, setup: (rules, setup[1]),
        direct=lambda *args: calls.append(args) or direct(*args),
    )
    assert q.exact(1, (1, 3)) is not None  # 3 is final there: its steps are never listed
    assert q.exact(1, (1, 5)) is None and q.size(1, (1, 5)) is None
    assert q.exact(2, (4, 5)) is not None  # starts at 5: final
    said = q.why_no_exact(2, (1, 5))  # starts at 2, walks to 3
    assert said == "exact value unavailable because the walk to 5 would list too many steps at 3; " + (
        "the trials are simulated without it"
    )
    rng = np.random.default_rng(1)
    q.simulate(2, (1, 5), 10, rng)
    assert calls == [(2, (1, 5), 10, rng)]
    again = pickle.loads(pickle.dumps(ChainTooLarge("too many steps at 3", "a reason")))
    assert (str(again), again.why) == ("too many steps at 3", "a reason")


def test_a_chain_whose_table_would_be_too_large_is_simulated_by_the_direct_kernel(monkeypatch):
    """Within the sampler's limit on states, a table of too many rows (each 256 entries) goes to
    the direct kernel too: a counted battle's states have hundreds of steps each."""
    from montecarlo.engine import chain as chain_module

    calls = []
    q = walk(direct=lambda *args: calls.append(args) or direct(*args))
    rows = q.chain(1)._rows_of_table(Walk(2, 8))  # 9 states; even odds split no slice: a row each
    assert rows == 9
    monkeypatch.setattr(chain_module, "TABLE_MOST_ROWS", rows)
    q.simulate(1, (2, 8), 10, np.random.default_rng(1))
    assert calls == []  # at the limit: the table
    monkeypatch.setattr(chain_module, "TABLE_MOST_ROWS", rows - 1)
    q.chain(1)._table_rows.clear()
    q.chain(1)._tables.clear()
    rng = np.random.default_rng(1)
    q.simulate(1, (2, 8), 10, rng)
    assert calls == [(1, (2, 8), 10, rng)]
    assert q.exact(1, (2, 8)) is not None and q.why_no_exact(1, (2, 8)) is None  # exact all the same


def test_the_tables_size_is_checked_in_the_words_of_the_rules(monkeypatch):
    """With a size bound the chain is first walked for its table's rows: an error found there is
    put in the caller's words, naming the rules, like any other walk of the chain."""

    def stuck(rules, s):
        return [] if s.money == 0 else [(1.0, s, ("flip",))]

    q = ChainQuestion(
        start, stuck, outcome, METRICS, {"flips": "flip"}, direct=direct,
        size_bound=lambda rules, setup: rules * setup[1], max_states=30_000,  # the bound reads both
        explain=lambda exc, context: InputError(f"x.toml, rules {context}: {exc}"),
    )
    with pytest.raises(InputError, match="x.toml, rules 1: state .* only leads back to itself"):
        q.simulate(1, (1, 2), 10, np.random.default_rng(1))
    DIRECT_CALLS.clear()
    q.simulate(2, (1, 20_000), 10, np.random.default_rng(1))  # bound 40,000 > 30,000: never walked
    assert DIRECT_CALLS == [(1, 20_000)]
