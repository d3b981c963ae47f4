"""The chain's step-by-step walk (``Chain._walk``): a chunk of a few trials walks the memoised
steps instead of compiling a table of every reachable state.

It is checked against exact answers (the fundamental matrix of random chains, with cycles and
self-loops; weighted counters), within Z standard errors at fixed seeds. Its choice against the
table is made before any random number is drawn, from the chain, the start and the number of
trials alone (never from the trials, which would bias them, nor from what the process compiled
before); two arms on one seed meet the same numbers trial by trial.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from montecarlo.engine import chain as chain_module
from montecarlo.engine.chain import Chain, ChainTooLarge
from montecarlo.engine.metrics import Metric
from montecarlo.errors import MonteCarloError
from tests.engine.test_chain import Duel, countdown, many_tag_sets, random_case, walk

Z = 4.5


def always_walk(monkeypatch) -> None:
    """Every chunk within the budget of steps is walked, however few states its start reaches."""
    monkeypatch.setattr(chain_module, "WALK_STEPS_A_STATE", math.inf)


@pytest.fixture
def no_table(monkeypatch):
    """Chunks are walked, and compiling a table fails the test."""

    def refused(self, start):
        raise AssertionError("compiled a table")

    monkeypatch.setattr(Chain, "_compile", refused)
    always_walk(monkeypatch)


def compiles_spied(monkeypatch) -> list:
    """The starts whose tables are compiled from now on, in order."""
    compiled: list = []
    compile_table = Chain._compile

    def spied(self, start):
        compiled.append(start)
        return compile_table(self, start)

    monkeypatch.setattr(Chain, "_compile", spied)
    return compiled


def table_only(monkeypatch) -> None:
    monkeypatch.setattr(chain_module, "WALK_MOST_TRIALS", 0)


def chunks(chain: Chain, start, count: int, size: int, seed: int) -> dict[str, np.ndarray]:
    """``count`` chunks of ``size`` trials from one generator, joined."""
    rng = np.random.default_rng(seed)
    parts = [chain.sample(start, size, rng) for _ in range(count)]
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("cyclic", [False, True])
def test_the_walk_matches_the_fundamental_matrix(no_table, seed, cyclic):
    """Every final state's probability, the mean steps and self-loops, from two starts: 30 chunks
    of 1,000 trials (all walked)."""
    chain, _, absorbed, steps, loops = random_case(seed, cyclic)
    n = 30_000
    for start in (0, 2):
        out = chunks(chain, start, 30, 1_000, seed)
        for k, end in enumerate((6, 7, 8)):
            p = absorbed[start, k]
            assert abs(np.mean(out["end"] == end) - p) <= Z * math.sqrt(p * (1 - p) / n) + 1e-9
        for name, expected in (("steps", steps[start]), ("loops", loops[start])):
            values = out[name].astype(float)
            assert abs(values.mean() - expected) <= Z * values.std(ddof=1) / math.sqrt(n) + 1e-12


def test_the_walk_counts_ties_and_decisive_rounds(no_table):
    chain = countdown(0.35, 0.3)
    exact = chain.exact(Duel(3, 4))
    out = chunks(chain, Duel(3, 4), 20, 1_000, 5)
    n = 20_000
    assert out["a_wins"].dtype == bool
    p = exact["a_wins"]
    assert abs(out["a_wins"].mean() - p) <= Z * math.sqrt(p * (1 - p) / n)
    for name in chain.counters:
        values = out[name].astype(float)
        assert abs(values.mean() - exact[name]) <= Z * values.std(ddof=1) / math.sqrt(n)


@pytest.mark.parametrize("bonus", [100.0, None])
def test_a_walked_weighted_counter_is_the_outcome_plus_its_weighted_counts(no_table, bonus):
    """Trial by trial: the outcome's value (0 where it gives none) plus the weights times the
    plain counts; on average, the exact value."""
    base = countdown(0.35, 0.3)
    weights = {"decisive": 2.0, "tie": -0.5}
    metrics = base.metrics + (Metric("score", "mean", ""), Metric("n_decisive", "mean", ""),
                              Metric("n_tie", "mean", ""))
    counters = {**base.counters, "score": weights, "n_decisive": "decisive", "n_tie": "tie"}
    given = {} if bonus is None else {"score": bonus}
    chain = Chain(base.transitions, lambda s: {**base.outcome(s), **(given if s.b == 0 else {})},
                  metrics, counters)
    out = chunks(chain, Duel(3, 4), 20, 1_000, 3)
    by_hand = (bonus or 0.0) * out["a_wins"] + 2.0 * out["n_decisive"] - 0.5 * out["n_tie"]
    assert out["score"].dtype == np.float64 and np.array_equal(out["score"], by_hand)
    exact = chain.exact(Duel(3, 4))
    assert abs(out["score"].mean() - exact["score"]) <= Z * out["score"].std(ddof=1) / math.sqrt(20_000)


def test_the_walk_counts_any_number_of_tag_sets(no_table):
    """The table counts at most 255 tag sets step by step; a walk has no such bound."""
    out = many_tag_sets(256).sample("start", 1_000, np.random.default_rng(6))
    share = 256 / 257
    assert abs(out["c"].mean() - share) <= Z * math.sqrt(share * (1 - share) / 1_000)


def test_the_most_trials_walked(monkeypatch):
    """WALK_MOST_TRIALS trials are walked; one more compile a table."""
    always_walk(monkeypatch)
    compiled = compiles_spied(monkeypatch)
    chain = walk(5)
    chain.sample(0, chain_module.WALK_MOST_TRIALS, np.random.default_rng(1))
    assert compiled == []
    chain.sample(0, chain_module.WALK_MOST_TRIALS + 1, np.random.default_rng(1))
    assert compiled == [0]


def test_a_start_of_many_states_is_walked_and_one_of_few_keeps_its_table(monkeypatch):
    """40 duels from 100 against 100 points take about 40 x 240 steps, against 10,000 states to
    compile: walked. 1,000 duels from 3 against 3 take about 1,000 x 7 steps, 109 states' worth
    against the start's 16: its table is compiled (once, and reused by every later chunk, such
    as a precision run's)."""
    compiled = compiles_spied(monkeypatch)
    chain = countdown(0.35, 0.3)
    assert 40 * chain._mean_steps(Duel(100, 100)) < 65_536 / 6
    chain.sample(Duel(100, 100), 40, np.random.default_rng(1))
    assert compiled == []
    assert 1_000 * chain._mean_steps(Duel(3, 3)) > 64 * 16
    chain.sample(Duel(3, 3), 1_000, np.random.default_rng(1))
    assert compiled == [Duel(3, 3)]


@pytest.mark.parametrize("n,walked", [(127, True), (128, False)])
def test_a_walk_must_cost_less_than_the_states_its_table_would_compile(monkeypatch, n, walked):
    """straight(1) takes 1 step and reaches 2 states: 127 trials are 1.98 states' worth of
    steps (64 a state), fewer than 2: walked; 128 are 2, not fewer: the table."""
    compiled = compiles_spied(monkeypatch)
    straight(1).sample(0, n, np.random.default_rng(1))
    assert compiled == ([] if walked else [0])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("cyclic", [False, True])
def test_the_expected_steps_the_choice_reads_are_the_fundamental_matrixs(seed, cyclic):
    """From every live state, in any order of asking (the memo of one start serves the next)."""
    chain, live, _, steps, _ = random_case(seed, cyclic)
    for start in (3, 0, 5, 1, 2, 4):
        assert chain._mean_steps(start) == pytest.approx(steps[start], rel=1e-12)
    assert chain._mean_steps(live) == 0.0  # a final state
    def looping(s):
        return [(0.2, s, ("a",)), (0.3, s, ("b",)), (0.5, "end", ())] if s == "start" else []

    two_loops = Chain(looping, lambda s: {"end": True}, (Metric("end", "probability", ""),))
    assert two_loops._mean_steps("start") == pytest.approx(2.0, rel=1e-12)  # both self-loops stay
    deep = walk(5_000)  # deeper than Python's recursion: worked out by a sparse solve
    assert deep._mean_steps(0) == pytest.approx(5_000 / 0.75, rel=1e-9)
    assert deep._mean_steps(4_000) == pytest.approx(1_000 / 0.75, rel=1e-9)


@pytest.mark.parametrize("length,walked", [(100, True), (101, False)])
def test_the_choice_is_made_before_any_number_is_drawn(monkeypatch, length, walked):
    """A straight walk takes exactly its length in steps: at a budget of 100, one trial of 100
    steps is walked, one of 101 runs through the table from the generator as it was given (the
    trials and the generator after are those of a table-only run). A walk that gave up part way
    would leave only the short trials to the walk, and bias them."""
    monkeypatch.setattr(chain_module, "WALK_MOST_STEPS", 100)
    compiled = compiles_spied(monkeypatch)
    rng = np.random.default_rng(9)
    got = straight(length).sample(0, 1, rng)
    assert got["steps"].tolist() == [length] and compiled == ([] if walked else [0])
    assert got["steps"].dtype.kind == "u"  # a count, as the table's counts
    if not walked:
        after = rng.random()
        table_only(monkeypatch)
        rng = np.random.default_rng(9)
        expected = straight(length).sample(0, 1, rng)
        assert all(np.array_equal(got[k], expected[k]) for k in expected) and rng.random() == after


def test_the_walk_does_not_depend_on_what_the_chain_did_before(monkeypatch):
    """The same trials from a new chain, and from one that has compiled this start's table and
    filled its memo up to the limit with other starts (the choice forgets and works again)."""
    always_walk(monkeypatch)
    expected = walk(30).sample(0, 50, np.random.default_rng(4))
    used = walk(30)
    used.sample(0, 5_000, np.random.default_rng(1))  # a compiled table for start 0
    got = used.sample(0, 50, np.random.default_rng(4))
    assert all(np.array_equal(got[k], expected[k]) for k in expected)

    def step_from(s: int):
        return [] if s in (30, 1_030) else [(0.75, s + 1, ("step",)), (0.25, s, ("step", "loop"))]

    def fresh() -> Chain:
        return Chain(step_from, lambda s: {"end": True}, (Metric("end", "probability", ""),
                                                          Metric("steps", "mean", "")), {"steps": "step"},
                     max_states=40)

    compiled = compiles_spied(monkeypatch)
    expected = fresh().sample(0, 50, np.random.default_rng(4))
    full = fresh()
    full.exact(1_000)  # 31 states of another walk: start 0's 31 do not fit beside them
    with pytest.raises(ChainTooLarge):
        full.states(0)  # the memo is full
    got = full.sample(0, 50, np.random.default_rng(4))
    assert all(np.array_equal(got[k], expected[k]) for k in expected) and compiled == []


def test_two_arms_on_one_seed_meet_the_same_numbers_trial_by_trial(no_table):
    """Two chains that differ only in where the first step's slice [0.69, 0.70) goes (a walk of
    1 more step, or the end; else a walk of 1 to 20 more steps, or the end): each trial takes the
    i-th number of every step, so the arms part only where the first number falls in that slice,
    however long the walks of the trials before it."""

    def arm(slice_to) -> Chain:
        def transitions(s):
            if s == "start":
                walks = [(0.69 / 20, k, ("step",)) for k in range(1, 21)]
                return walks + [(0.01, slice_to, ("step",)), (0.30, "end", ("step",))]
            if s == "end":
                return []
            return [(1.0, s - 1 if s > 1 else "end", ("step",))]

        return Chain(transitions, lambda s: {"end": True}, (Metric("end", "probability", ""),
                                                             Metric("steps", "mean", "")), {"steps": "step"})

    first = np.random.default_rng(5).random(1_000)
    a, b = (arm(to).sample("start", 1_000, np.random.default_rng(5))["steps"] for to in (1, "end"))
    apart = a != b
    assert np.array_equal(apart, (first >= 0.69) & (first < 0.70)) and 0 < apart.sum() < 30


def coin() -> Chain:
    """One step from the start: heads with probability 0.3."""
    return Chain(lambda s: [(0.3, "heads", ()), (0.7, "tails", ())] if s == "start" else [],
                 lambda s: {"heads": s == "heads"}, (Metric("heads", "probability", ""),))


def test_a_walk_takes_one_uniform_number_a_step_in_order(no_table):
    """Step i is taken when the number falls in its share of [0, 1): heads below 0.3."""
    got = coin().sample("start", 1_000, np.random.default_rng(2))["heads"]
    assert np.array_equal(got, np.random.default_rng(2).random(1_000) < 0.3)
    one = coin().sample("start", 1, np.random.default_rng(2))["heads"]  # a single trial is walked too
    assert one.tolist() == [np.random.default_rng(2).random() < 0.3]


def test_no_trial_is_no_walk():
    """Zero trials: the table's empty columns, in their types."""
    out = coin().sample("start", 0, np.random.default_rng(2))
    assert out["heads"].dtype == bool and out["heads"].shape == (0,)


def straight(length: int) -> Chain:
    return Chain(lambda s: [] if s == length else [(1.0, s + 1, ("step",))], lambda s: {"end": True},
                 (Metric("end", "probability", ""), Metric("steps", "mean", "")), {"steps": "step"})


def test_only_a_points_first_chunk_walks(monkeypatch):
    """A later chunk of the same start uses the table (compiled once for all of them), and the
    runner says which chunk is first: a precision run of small chunks walked every one of them,
    four times slower than one table. Outside a run every call counts as a first chunk."""
    compiled = compiles_spied(monkeypatch)
    chain = countdown(0.35, 0.3)
    with chain_module.first_chunk(False):
        chain.sample(Duel(70, 70), 40, np.random.default_rng(1))
    assert compiled == [Duel(70, 70)]
    with chain_module.first_chunk(True):
        chain.sample(Duel(65, 65), 40, np.random.default_rng(1))
    chain.sample(Duel(60, 60), 40, np.random.default_rng(1))
    assert compiled == [Duel(70, 70)]


def test_a_run_walks_each_points_first_chunk_and_tables_the_rest(monkeypatch):
    """Through the runner, one job: 3 chunks of 40 trials of one large start compile one table
    (for chunks 1 and 2), and the tallies are those of the same run again."""
    from montecarlo.engine import runner
    from montecarlo.engine.runner import Point

    compiled = compiles_spied(monkeypatch)
    events: list = []
    walk_trials = Chain._walk
    monkeypatch.setattr(Chain, "_walk", lambda self, *args: events.append("walk") or walk_trials(self, *args))
    chain = countdown(0.35, 0.3)
    arm = lambda n, rng: events.append("chunk") or chain.sample(Duel(70, 70), n, rng)  # noqa: E731
    first = runner.run_grid([Point((arm,), chain.metrics)], 120, 5, chunk_size=40)
    assert compiled == [Duel(70, 70)] and events == ["chunk", "walk", "chunk", "chunk"]
    again = runner.run_grid([Point((arm,), chain.metrics)], 120, 5, chunk_size=40)
    assert np.array_equal(first[0].totals, again[0].totals)


def test_a_walk_from_a_final_state_takes_no_step(no_table):
    out = straight(0).sample(0, 3, np.random.default_rng(1))
    assert out["steps"].tolist() == [0, 0, 0] and out["end"].all()


@pytest.mark.parametrize("seed", range(6))
def test_the_tables_rows_are_counted_without_building_them(seed):
    """``_rows_of_table`` counts the rows ``_compile`` makes, final states' included (it decides which
    starts compile): random chains, a duel, and a state of 900 steps."""
    chain = random_case(seed, cyclic=seed % 2 == 1)[0]
    for start in range(3):
        assert chain._rows_of_table(start) == len(chain._compile(start).table) // 256
    duel = countdown(0.35, 0.3)
    assert duel._rows_of_table(Duel(4, 3)) == len(duel._compile(Duel(4, 3)).table) // 256
    odds = np.random.default_rng(seed).dirichlet(np.ones(900))
    wide = Chain(lambda s: [] if s else [(p, i + 1, ()) for i, p in enumerate(odds)], lambda s: {},
                 (Metric("end", "mean", ""),), {"end": "x"})
    assert wide._rows_of_table(0) == len(wide._compile(0).table) // 256 > 900


def test_a_start_whose_table_would_be_too_large_is_walked(monkeypatch):
    """Beyond TABLE_MOST_ROWS rows the trials are walked, whatever their number and chunk:
    compiling a counted battle's table of 86,000 rows took 8 s and 1.1 GB."""
    compiled = compiles_spied(monkeypatch)
    chain = countdown(0.35, 0.3)
    rows = chain._rows_of_table(Duel(6, 5))
    monkeypatch.setattr(chain_module, "TABLE_MOST_ROWS", rows - 1)
    with chain_module.first_chunk(False):
        got = chain.sample(Duel(6, 5), 3000, np.random.default_rng(4))
    assert compiled == []
    walked = chain._walk(Duel(6, 5), 3000, np.random.default_rng(4))
    assert all(np.array_equal(got[name], walked[name]) for name in walked)
    monkeypatch.setattr(chain_module, "TABLE_MOST_ROWS", rows)
    chain.forget()
    with chain_module.first_chunk(False):
        chain.sample(Duel(6, 5), 3000, np.random.default_rng(4))
    assert compiled == [Duel(6, 5)]


def test_the_tables_size_is_worked_out_again_when_the_memo_of_other_starts_is_full():
    """Counting a start's rows walks its states; a memo full of another start's states is
    dropped and the count made again, as the sampler and the exact values do."""

    def step_from(s: int):
        return [] if s in (30, 1_030) else [(0.75, s + 1, ("step",)), (0.25, s, ("step",))]

    full = Chain(step_from, lambda s: {"end": True}, (Metric("end", "probability", ""),), max_states=40)
    full.exact(1_000)  # 31 states of another walk: start 0's 31 do not fit beside them
    with pytest.raises(ChainTooLarge):
        full.states(0)
    assert full.table_fits(0) and full._table_rows == {0: 31}  # 3/4 splits no slice: a row a state


def slow_coin() -> Chain:
    """Two states, a hundred steps a trial on average: a few trials cost less with its table."""
    return Chain(lambda s: [] if s else [(0.01, 1, ("step",)), (0.99, 0, ("step",))], lambda s: {},
                 (Metric("steps", "mean", ""),), {"steps": "step"})


@pytest.mark.parametrize("walking_first", [True, False])
def test_every_arm_of_a_chunk_walks_or_compiles_as_its_first_arm_did(monkeypatch, walking_first):
    """Arm 0's choice holds for every arm of the chunk, so their numbers stay paired: alone, the
    large duel walks 40 trials and the slow coin compiles its table."""
    from montecarlo.engine import runner

    compiled = compiles_spied(monkeypatch)
    walked: list = []
    walk_trials = Chain._walk
    monkeypatch.setattr(Chain, "_walk", lambda self, s, *a: walked.append(s) or walk_trials(self, s, *a))
    duel, coin = countdown(0.35, 0.3), slow_coin()
    assert duel._walk_pays(Duel(60, 60), 40) and not coin._walk_pays(0, 40)
    duel_arm = lambda n, rng: {"steps": duel.sample(Duel(60, 60), n, rng)["rounds"]}  # noqa: E731
    coin_arm = lambda n, rng: {"steps": coin.sample(0, n, rng)["steps"]}  # noqa: E731
    arms = (duel_arm, coin_arm) if walking_first else (coin_arm, duel_arm)
    runner.run_chunk(arms, (Metric("steps", "mean", ""),), 40, 7, 0)
    if walking_first:
        assert walked == [Duel(60, 60), 0] and compiled == []
    else:
        assert walked == [] and compiled == [0, Duel(60, 60)]
    walked.clear()
    coin_arm(40, np.random.default_rng(1))  # outside a chunk of arms: its own choice again
    assert walked == []


def test_each_call_of_a_later_arm_follows_the_first_arms_call_of_the_same_rank(monkeypatch):
    """Arm 0 samples a duel (walked), the slow coin (compiled) and a smaller duel (walked); arm 1
    samples them in another order, and walks or compiles as arm 0 did at each rank."""
    from montecarlo.engine import runner

    compiled = compiles_spied(monkeypatch)
    walked: list = []
    walk_trials = Chain._walk
    monkeypatch.setattr(Chain, "_walk", lambda self, s, *a: walked.append(s) or walk_trials(self, s, *a))
    duel, coin = countdown(0.35, 0.3), slow_coin()

    def steps(*samples):
        return lambda n, rng: {"steps": sum(chain.sample(at, n, rng)[name] for chain, at, name in samples)}

    first = steps((duel, Duel(60, 60), "rounds"), (coin, 0, "steps"), (duel, Duel(50, 50), "rounds"))
    second = steps((coin, 0, "steps"), (duel, Duel(60, 60), "rounds"), (coin, 0, "steps"))
    runner.run_chunk((first, second), (Metric("steps", "mean", ""),), 40, 7, 0)
    assert walked == [Duel(60, 60), Duel(50, 50), 0, 0] and compiled == [0, Duel(60, 60)]


def loops_for_ever() -> Chain:
    """Half the trials reach a two-state loop that never ends: no walk may start."""

    def step(s):
        return {"start": [(0.5, "A", ("step",)), (0.5, "end", ("step",))], "A": [(1.0, "B", ("step",))],
                "B": [(1.0, "A", ("step",))]}.get(s, [])

    return Chain(step, lambda s: {}, (Metric("steps", "mean", ""),), {"steps": "step"})


@pytest.fixture
def give_up_after_20_s():
    """A walk that never ends fails the test instead of hanging it."""
    import signal

    def stop(*_):
        raise TimeoutError("the walk did not end")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_a_later_arm_told_to_walk_still_refuses_a_chain_that_cannot_end(give_up_after_20_s):
    """Arm 0 walked, so arm 1 walks without choosing: it still checks that its chain can end (a
    review found `report` walking for ever under a variant whose battles cannot end)."""
    with chain_module.first_chunk(True), chain_module.one_arm([True]):
        with pytest.raises(MonteCarloError, match="has no way to a final state"):
            loops_for_ever().sample("start", 5, np.random.default_rng(1))


def test_a_start_whose_table_is_too_large_still_refuses_a_chain_that_cannot_end(
    monkeypatch, give_up_after_20_s
):
    monkeypatch.setattr(chain_module, "TABLE_MOST_ROWS", 0)
    with chain_module.first_chunk(False), pytest.raises(MonteCarloError, match="has no way to a final state"):
        loops_for_ever().sample("start", 5, np.random.default_rng(1))


def test_a_later_arm_told_to_walk_forgets_a_memo_full_of_other_starts():
    """Its walk must not fill the memo: the states of a start sized before leave room for 6 of
    its own 19, which a walk would meet one by one (found by review)."""
    chain = countdown(0.6, 0.0)
    chain.max_states = 30
    chain.size(Duel(4, 4))  # 24 states memoised
    with chain_module.first_chunk(True), chain_module.one_arm([True]):
        out = chain.sample(Duel(1, 9), 100, np.random.default_rng(1))
    assert out["a_wins"].size == 100
