"""The chain engine against answers computed another way.

- Random absorbing chains (with self-loops, and with cycles through several states) against the
  fundamental matrix ``N = (I - Q)^-1`` of textbook absorbing-chain theory: absorption
  probabilities ``N R`` and expected visits, computed here with numpy, independently of
  :mod:`montecarlo.engine.chain`.
- Gambler's ruin against its closed form.
- The sampler against the exact values within 4.5 standard errors, for counters read off the
  final state and counters counted step by step.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from typing import NamedTuple

import numpy as np
import pytest

from montecarlo.engine import chain as chain_module
from montecarlo.engine.chain import Chain, ChainTooLarge
from montecarlo.engine.metrics import Metric
from montecarlo.errors import MonteCarloError

Z = 4.5


def random_chain(seed: int, live: int = 6, ends: int = 3, cyclic: bool = False, loops: bool = True):
    """A random absorbing chain on states 0..live-1 (live) and live..live+ends-1 (final).

    Without ``cyclic`` a live state only moves to higher-numbered states (plus a self-loop), so
    the chain is a DAG with self-loops; with it, it may also move back. Every step is tagged
    "step"; self-loops also "loop". Returns (transitions, matrix P).
    """
    rng = np.random.default_rng(seed)
    n = live + ends
    P = np.zeros((n, n))
    for i in range(live):
        targets = [j for j in range(n) if (cyclic or j > i) and j != i]
        chosen = rng.choice(targets, size=min(3, len(targets)), replace=False)
        weights = rng.random(len(chosen)) + 0.1
        stay = rng.uniform(0.1, 0.5) if loops else 0.0
        P[i, chosen] = (1 - stay) * weights / weights.sum()
        P[i, i] += stay
        if i == live - 1 and not cyclic:  # make sure the last live state can end
            P[i, live:] += 0.0
    for j in range(live, n):
        P[j, j] = 1.0

    def transitions(s: int):
        if s >= live:
            return []
        return [(float(P[s, j]), j, ("step", "loop") if j == s else ("step",)) for j in np.flatnonzero(P[s])]

    return transitions, P, live


def fundamental(P: np.ndarray, live: int):
    """Absorption probabilities and expected steps / self-loops from every live state."""
    Q, R = P[:live, :live], P[:live, live:]
    N = np.linalg.inv(np.eye(live) - Q)
    steps = N.sum(axis=1)  # each visit of a live state is one step
    loops = N @ np.diag(Q)  # a visit of state i is a self-loop with probability Q[i, i]
    return N @ R, steps, loops


METRICS = (
    Metric("end", "distribution", "which final state", (6, 7, 8)),
    Metric("steps", "mean", "steps taken"),
    Metric("loops", "mean", "self-loops taken"),
)
COUNTERS = {"steps": "step", "loops": "loop"}


def random_case(seed: int, cyclic: bool = False):
    """A random chain reporting its final state, steps and self-loops, beside the fundamental
    matrix's answers: (chain, live states, absorption probabilities, steps, self-loops)."""
    transitions, P, live = random_chain(seed, cyclic=cyclic)
    chain = Chain(transitions, lambda s: {"end": s}, METRICS, COUNTERS)
    return (chain, live, *fundamental(P, live))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("cyclic", [False, True])
def test_exact_matches_the_fundamental_matrix(seed, cyclic):
    chain, live, absorbed, steps, loops = random_case(seed, cyclic)
    for start in range(live):
        exact = chain.exact(start)
        for k, end in enumerate((6, 7, 8)):
            assert exact[f"end={end}"] == pytest.approx(absorbed[start, k], abs=1e-12)
        assert exact["steps"] == pytest.approx(steps[start], rel=1e-12)
        assert exact["loops"] == pytest.approx(loops[start], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_absorption_matches_the_fundamental_matrix(seed):
    chain, _, absorbed, _, _ = random_case(seed)
    got = chain.absorption(0)
    for k, end in enumerate((6, 7, 8)):
        assert got.get(end, 0.0) == pytest.approx(absorbed[0, k], abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("cyclic", [False, True])
def test_sampler_matches_exact(seed, cyclic):
    chain = random_case(seed, cyclic)[0]
    n = 40_000
    out = chain.sample(0, n, np.random.default_rng(seed))
    exact = chain.exact(0)
    for end in (6, 7, 8):
        p = exact[f"end={end}"]
        got = np.mean(out["end"] == end)
        assert abs(got - p) <= Z * math.sqrt(p * (1 - p) / n) + 1e-9
    for name in ("steps", "loops"):
        values = out[name].astype(float)
        assert abs(values.mean() - exact[name]) <= Z * values.std(ddof=1) / math.sqrt(n)


class Purse(NamedTuple):
    coins: int


def ruin(p: float, target: int):
    """Gambler's ruin with a draw (stay) of probability 0.2."""
    stay = 0.2

    def transitions(s: Purse):
        if s.coins in (0, target):
            return []
        up, down = (1 - stay) * p, (1 - stay) * (1 - p)
        return [
            (up, Purse(s.coins + 1), ("bet",)),
            (down, Purse(s.coins - 1), ("bet",)),
            (stay, s, ("bet", "draw")),
        ]

    metrics = (Metric("rich", "probability", ""), Metric("bets", "mean", ""), Metric("draws", "mean", ""))
    return Chain(
        transitions, lambda s: {"rich": s.coins == target}, metrics, {"bets": "bet", "draws": "draw"}
    )


@pytest.mark.parametrize("p", [0.3, 0.5, 0.6])
def test_gamblers_ruin_closed_form(p):
    target, k = 7, 3
    chain = ruin(p, target)
    exact = chain.exact(Purse(k))
    if p == 0.5:
        win = k / target
        moves = k * (target - k)
    else:
        r = (1 - p) / p
        win = (1 - r**k) / (1 - r**target)
        moves = k / (1 - 2 * p) - target / (1 - 2 * p) * win
    assert exact["rich"] == pytest.approx(win, rel=1e-12)
    # every move costs 1 / (1 - 0.2) bets on average, 0.2 / 0.8 of them draws
    assert exact["bets"] == pytest.approx(moves / 0.8, rel=1e-10)
    assert exact["draws"] == pytest.approx(moves * 0.25, rel=1e-10)
    out = chain.sample(Purse(k), 30_000, np.random.default_rng(1))
    assert abs(out["rich"].mean() - win) <= Z * math.sqrt(win * (1 - win) / 30_000)


class Duel(NamedTuple):
    a: int
    b: int


def countdown(p: float, tie: float):
    """Two sides lose one point a decisive round; ties re-roll: counters read off the final state."""

    def transitions(s: Duel):
        if 0 in s:
            return []
        return [
            (p, Duel(s.a, s.b - 1), ("roll", "decisive")),
            ((1 - p - tie), Duel(s.a - 1, s.b), ("roll", "decisive")),
            (tie, s, ("roll", "tie")),
        ]

    metrics = (
        Metric("a_wins", "probability", ""),
        Metric("left", "distribution", "", (1, 2, 3, 4)),
        Metric("rounds", "mean", ""),
        Metric("decisive", "mean", ""),
        Metric("ties", "mean", ""),
    )
    return Chain(
        transitions,
        lambda s: {"a_wins": s.b == 0, "left": max(s)},
        metrics,
        {"rounds": "roll", "decisive": "decisive", "ties": "tie"},
    )


def test_countdown_against_the_negative_binomial():
    p, tie = 0.35, 0.3
    q = p / (1 - tie)  # a decisive round goes to a with probability q
    chain = countdown(p, tie)
    exact = chain.exact(Duel(3, 4))
    # a wins when b's 4th loss comes before a's 3rd: sum over a's losses j = 0..2
    win = sum(math.comb(3 + j, j) * q**4 * (1 - q) ** j for j in range(3))
    assert exact["a_wins"] == pytest.approx(win, rel=1e-12)
    assert sum(exact[f"left={v}"] for v in (1, 2, 3, 4)) == pytest.approx(1.0)
    assert exact["ties"] == pytest.approx(exact["decisive"] * tie / (1 - tie), rel=1e-12)
    assert exact["rounds"] == pytest.approx(exact["decisive"] + exact["ties"], rel=1e-12)
    n = 50_000
    out = chain.sample(Duel(3, 4), n, np.random.default_rng(9))
    assert abs(out["a_wins"].mean() - win) <= Z * math.sqrt(win * (1 - win) / n)
    for name in ("rounds", "decisive", "ties"):
        v = out[name].astype(float)
        assert abs(v.mean() - exact[name]) <= Z * v.std(ddof=1) / math.sqrt(n), name
    assert np.array_equal(out["rounds"], out["decisive"] + out["ties"])


def test_same_generator_state_same_trials():
    chain = countdown(0.4, 0.2)
    a = chain.sample(Duel(5, 5), 5000, np.random.default_rng(3))
    b = chain.sample(Duel(5, 5), 5000, np.random.default_rng(3))
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_too_many_states_is_refused():
    chain = Chain(
        lambda s: [(1.0, s + 1, ())] if s < 10_000 else [],
        lambda s: {"x": True},
        (Metric("x", "probability", ""),),
        max_states=500,
    )
    with pytest.raises(ChainTooLarge):
        chain.exact(0)


def test_probabilities_must_sum_to_one():
    chain = Chain(
        lambda s: [(0.5, 1, ())] if s == 0 else [], lambda s: {"x": True}, (Metric("x", "probability", ""),)
    )
    with pytest.raises(ValueError, match="^the steps from 0 have total probability 0.5, not 1$"):
        chain.exact(0)


class Spot(NamedTuple):
    x: int
    label: str


@dataclasses.dataclass(frozen=True)
class Place:
    x: int
    label: str
    memo: int = dataclasses.field(default=0, repr=False)  # not part of what the state is said to be


def test_messages_name_a_state_by_its_fields_not_its_type():
    """A reader of a battle file knows its fields, not the engine's name for the state's type."""
    assert chain_module.state_said(Spot(1, "a")) == "(x=1, label='a')"
    assert chain_module.state_said(Place(2, "b")) == "(x=2, label='b')"
    assert chain_module.state_said((1, 2)) == "(1, 2)" and chain_module.state_said(3) == "3"
    assert chain_module.state_said(Place) == repr(Place)  # the class itself is no state
    stuck = Chain(lambda s: [(1.0, s, ())], lambda s: {"x": True}, (Metric("x", "probability", ""),))
    with pytest.raises(MonteCarloError, match=r"^state \(x=1, label='a'\) only leads back to itself: "):
        stuck.exact(Spot(1, "a"))


def test_a_state_that_only_loops_never_ends():
    chain = Chain(lambda s: [(1.0, s, ())], lambda s: {"x": True}, (Metric("x", "probability", ""),))
    with pytest.raises(MonteCarloError, match="never ends"):
        chain.exact(0)


# --- edges found by mutation testing ------------------------------------------------------------


def walk(length: int, max_states: int = 250_000) -> Chain:
    """A straight walk 0 -> 1 -> ... -> length, with a re-rolled step at every state."""

    def transitions(s: int):
        return [] if s == length else [(0.75, s + 1, ("step",)), (0.25, s, ("step", "loop"))]

    return Chain(transitions, lambda s: {"end": True}, (Metric("end", "probability", ""),
                                                        Metric("steps", "mean", "")), {"steps": "step"},
                 max_states=max_states)


def test_exactly_max_states_is_allowed():
    assert walk(9, max_states=10).size(0) == 10
    with pytest.raises(ChainTooLarge, match="more than 9 states"):
        walk(9, max_states=9).size(0)


def test_a_chain_deeper_than_the_recursion_limit_is_solved_all_the_same():
    """5,000 steps deep: the depth-first fast path gives up and the post-order walk takes over."""
    exact = walk(5_000).exact(0)
    assert exact["end"] == 1.0
    assert exact["steps"] == pytest.approx(5_000 / 0.75, rel=1e-12)


def test_absorption_after_exact_still_sees_every_state():
    transitions, P, live = random_chain(3)
    chain = Chain(transitions, lambda s: {"end": s}, METRICS, COUNTERS)
    absorbed, _, _ = fundamental(P, live)
    chain.exact(2)  # memoises the states below 2 ...
    got = chain.absorption(0)  # ... which absorption from 0 must still walk through
    for k, end in enumerate((6, 7, 8)):
        assert got.get(end, 0.0) == pytest.approx(absorbed[0, k], abs=1e-12)


def test_absorption_refuses_a_chain_with_cycles():
    transitions, _, _ = random_chain(1, cyclic=True)
    chain = Chain(transitions, lambda s: {"end": s}, METRICS, COUNTERS)
    message = "^absorption needs a chain without cycles other than self-loops$"
    with pytest.raises(MonteCarloError, match=message):
        chain.absorption(0)


def test_two_self_loops_of_one_state_add_up():
    """A state may loop back by two different steps (two tag sets): both count as staying."""

    def transitions(s: int):
        if s == 2:
            return []
        return [(0.5, s + 1, ("step",)), (0.3, s, ("step", "tie")), (0.2, s, ("step", "miss"))]

    metrics = (Metric("end", "probability", ""), Metric("steps", "mean", ""), Metric("ties", "mean", ""))
    chain = Chain(transitions, lambda s: {"end": True}, metrics, {"steps": "step", "ties": "tie"})
    exact = chain.exact(0)
    assert exact["steps"] == pytest.approx(2 / 0.5)  # two moves, each 1 / 0.5 steps on average
    assert exact["ties"] == pytest.approx(2 * 0.3 / 0.5)
    out = chain.sample(0, 40_000, np.random.default_rng(4))
    for name in ("steps", "ties"):
        v = out[name].astype(float)
        assert abs(v.mean() - exact[name]) <= Z * v.std(ddof=1) / math.sqrt(v.size), name


def test_an_outcome_without_a_metric_is_named():
    chain = Chain(lambda s: [] if s else [(1.0, 1, ())], lambda s: {}, (Metric("x", "probability", ""),))
    with pytest.raises(KeyError, match="outcome of 1 has no value for metric 'x'"):
        chain.exact(0)


def test_sampled_outcomes_keep_their_values_whatever_their_range():
    """Each final state's outcome comes back exactly: negative, wide and fractional values too."""
    rows = [  # (a: int8 range, b: int16, c: int32, d: int64, share: fractional mean, won)
        (-3, 300, 70_000, 2**40, 0.5, True),
        (-2, -100, -70_000, -(2**40), 1.25, False),
        (0, 0, 0, 0, 2.0, True),
        (1, 127, 32_768, 2**31, -0.75, False),
        (4, 129, -32_769, -(2**31) - 1, 0.0, True),
        (5, 32_767, 2**31 - 1, 2**62, 3.5, False),
    ]
    names = ("a", "b", "c", "d", "share", "won")
    metrics = tuple(Metric(n, "probability" if n == "won" else "mean", "") for n in names)
    chain = Chain(lambda s: [] if s > 0 else [(1 / 6, i + 1, ("pick",)) for i in range(6)],
                  lambda s: dict(zip(names, rows[s - 1])), metrics)
    out = chain.sample(0, 3_000, np.random.default_rng(5))
    assert out["won"].dtype == bool
    seen = set(zip(*(out[n].tolist() for n in names)))
    assert seen == set(rows)
    exact = chain.exact(0)
    assert exact["share"] == pytest.approx(sum(r[4] for r in rows) / 6, rel=1e-12)


def test_a_chain_without_a_final_state_cannot_be_sampled():
    chain = Chain(lambda s: [(1.0, 1 - s, ())], lambda s: {"x": True}, (Metric("x", "probability", ""),))
    with pytest.raises(MonteCarloError) as err:
        chain.sample(0, 2_000, np.random.default_rng(1))
    assert str(err.value) == "the chain has no final state"
    with pytest.raises(MonteCarloError) as err:  # a few trials: refused by the walk's choice
        chain.sample(0, 10, np.random.default_rng(1))
    assert str(err.value) == "state 0 has no way to a final state: the process may never end"


def test_a_cycle_with_no_way_out_is_refused_not_walked_for_ever():
    """Half the walks end at once; the other half reach a <-> b, which never ends."""
    steps = {"start": [(0.5, "a", ()), (0.5, "end", ())], "a": [(0.5, "b", ()), (0.5, "a", ())],
             "b": [(1.0, "a", ())], "end": []}
    message = "state 'a' has no way to a final state: the process may never end"
    chain = Chain(steps.__getitem__, lambda s: {"x": True}, (Metric("x", "probability", ""),))
    with pytest.raises(MonteCarloError) as err:
        chain.sample("start", 100, np.random.default_rng(1))
    assert str(err.value) == message
    with pytest.raises(MonteCarloError) as err:
        chain.exact("start")  # the linear solve would be singular
    assert str(err.value) == message


def never_ending_table(monkeypatch):
    """Compiled tables whose every entry leads back to the start: walks that never finish, as a
    wrong compilation would make them."""
    compile_table = Chain._compile

    def broken(self, start):
        k = compile_table(self, start)
        return dataclasses.replace(k, table=np.zeros_like(k.table))

    monkeypatch.setattr(Chain, "_compile", broken)
    monkeypatch.setattr(chain_module, "WALK_MOST_TRIALS", 0)  # a few trials are walked, not tabled


class Guarded:
    """A generator (as the sampler reads one) whose bits run out after ``draws`` draws: a walk
    that would never end fails the test at once instead of hanging it."""

    def __init__(self, seed: int, draws: int) -> None:
        self.bits, self.left = np.random.PCG64(seed), draws
        self.bit_generator = self

    def random_raw(self, size: int) -> np.ndarray:
        self.left -= 1
        assert self.left >= 0, "the walk went on past the bound"
        return self.bits.random_raw(size)


def first_check_past(chain: Chain, start, bound: int) -> int:
    """Steps taken at the first check (one before each stretch between compactions) past ``bound``."""
    walked = itertools.accumulate(itertools.chain(chain._compile(start).schedule, itertools.repeat(2)))
    return next(w for w in walked if w > bound)


def test_a_compiled_table_whose_walks_never_end_fails_at_the_first_check(monkeypatch):
    """Checked before each stretch of steps between compactions: the error comes at the first
    check past 12,288 steps (the bound of this short chain) and says how many were taken."""
    never_ending_table(monkeypatch)
    chain = countdown(0.4, 0.2)
    with pytest.raises(MonteCarloError) as err:
        chain.sample(Duel(2, 2), 50, Guarded(1, 20_000))
    taken = first_check_past(chain, Duel(2, 2), 12_288)
    assert str(err.value) == (
        f"the sampler's walks from (a=2, b=2) ran {taken:,} steps, past the 12,288 that no walk of "
        "this chain reaches: its compiled table is wrong"
    )


def straight(length: int) -> Chain:
    """0 -> 1 -> ... -> length, one step each: no self-loop, the last live state only ends."""
    return Chain(lambda s: [] if s == length else [(1.0, s + 1, ())], lambda s: {"end": True},
                 (Metric("end", "probability", ""),))


@pytest.mark.parametrize("chain,bound", [(walk(40), 40_960), (straight(40), 30_720)])
def test_the_step_bound_grows_with_the_longest_expected_walk(monkeypatch, chain, bound):
    """walk(40) from 0 takes 40 / 0.75 steps on average, straight(40) 40: the bound is that x 2 x
    64 halvings x 3 table steps a step x 2 for rounding = 40,960 and 30,720 table steps. (The
    straight walk's checks fall on 30,720 itself: the walk goes on to the next one.)"""
    monkeypatch.setattr(chain_module, "FIRST_STEP_CHECK", 1)
    never_ending_table(monkeypatch)
    with pytest.raises(MonteCarloError) as err:
        chain.sample(0, 20, Guarded(1, 50_000))
    taken = first_check_past(chain, 0, bound)
    assert f"ran {taken:,} steps, past the {bound:,} that no walk" in str(err.value)


def test_a_walk_that_reaches_the_bound_is_not_yet_past_it(monkeypatch):
    """straight(40)'s checks fall on even counts: the first one past 30,718 is the bound, 30,720,
    itself, where the walk goes on; it is refused at the next one."""
    monkeypatch.setattr(chain_module, "FIRST_STEP_CHECK", 30_718)
    never_ending_table(monkeypatch)
    chain = straight(40)
    assert first_check_past(chain, 0, 30_718) == 30_720
    with pytest.raises(MonteCarloError, match="ran 30,722 steps, past the 30,720 that no walk"):
        chain.sample(0, 20, Guarded(1, 50_000))


def test_checking_the_step_bound_does_not_change_the_trials(monkeypatch):
    expected = walk(40).sample(0, 3_000, np.random.default_rng(4))
    monkeypatch.setattr(chain_module, "FIRST_STEP_CHECK", 1)  # checked at every compaction
    chain = walk(40)
    got = chain.sample(0, 3_000, np.random.default_rng(4))
    assert all(np.array_equal(got[k], expected[k]) for k in expected)


@pytest.mark.parametrize("length", [255, 256, 300])  # 256, 257 and 301 states: past one byte of codes
def test_sampler_with_hundreds_of_states(length):
    """Steps of the walk: a sum of `length` geometric counts, mean length / 0.75, variance length x 4/9."""
    chain = walk(length)
    n = 2_000
    out = chain.sample(0, n, np.random.default_rng(length))
    assert out["end"].all()
    mean, var = length / 0.75, length * 0.25 / 0.75**2
    assert chain.exact(0)["steps"] == pytest.approx(mean, rel=1e-12)
    assert abs(out["steps"].mean() - mean) <= Z * math.sqrt(var / n)
    assert out["steps"].min() >= length


@pytest.mark.parametrize("n", [1, 3])
def test_a_few_long_trials_are_all_followed_to_their_end(n):
    """Compaction steps in which no trial ends must not stop the walk (small batches hit them)."""
    out = walk(40).sample(0, n, np.random.default_rng(n))
    assert out["end"].all() and (out["steps"] >= 40).all()


def test_the_state_limit_holds_for_exact_values_too():
    assert walk(9, max_states=10).exact(0)["steps"] == pytest.approx(9 / 0.75, rel=1e-12)
    with pytest.raises(ChainTooLarge) as err:
        walk(9, max_states=9).exact(0)
    assert str(err.value) == "more than 9 states"


def two_walks(max_states: int) -> Chain:
    """Two separate walks of 6 states each, from ("a", 0) and from ("b", 0)."""

    def transitions(s):
        return [] if s[1] == 5 else [(1.0, (s[0], s[1] + 1), ("step",))]

    return Chain(transitions, lambda s: {"end": True}, (Metric("end", "probability", ""),
                                                        Metric("steps", "mean", "")), {"steps": "step"},
                 max_states=max_states)


def test_a_memo_full_of_earlier_starts_is_dropped_rather_than_refusing():
    chain = two_walks(max_states=8)
    assert chain.exact(("a", 0))["steps"] == 5
    assert chain.exact(("b", 0))["steps"] == 5  # 6 + 6 states > 8: the memo of ("a", 0) goes
    chain = two_walks(max_states=8)
    chain.sample(("a", 0), 10, np.random.default_rng(1))
    assert (chain.sample(("b", 0), 10, np.random.default_rng(2))["steps"] == 5).all()
    chain = two_walks(max_states=8)
    assert chain.size(("a", 0)) == 6 and chain.size(("b", 0)) == 6  # counted, as alone
    with pytest.raises(ChainTooLarge):
        two_walks(max_states=5).size(("a", 0))  # too large alone: too large after the retry


def test_a_questions_exact_values_do_not_depend_on_the_starts_sized_before():
    """Whether a setup has exact values is a function of its chain alone, not of the setups
    the process (one worker of several, say) sized before: a memo full of another start's
    states is forgotten, and the start counted again."""
    from montecarlo.engine.chain_question import ChainQuestion

    def question():
        return ChainQuestion(
            lambda rules, setup: (setup, 0), lambda rules, s: two_walks(8).transitions(s),
            lambda rules, s: {"end": True}, (Metric("end", "probability", ""),), max_states=8,
            direct=lambda rules, setup, n, rng: {"end": np.ones(n, dtype=bool)},  # sized before solved
        )

    alone, after = question(), question()
    after.exact(None, "a")
    assert after.exact(None, "b") == alone.exact(None, "b") == {"end": 1.0}
    assert after.size(None, "b") == alone.size(None, "b") == 6


def test_one_chain_sampled_from_more_starts_than_its_table_cache_holds():
    """A report runs one chain from every grid point: 81 starts of one countdown, more than the
    64 compiled tables kept, so the oldest are evicted (the 65th start used to be where an
    eviction bug crashed). Every start still gives its exact odds, a start sampled again after
    its table was evicted gives the very same trials, and the cache stays bounded."""
    chain = countdown(0.4, 0.2)
    starts = [Duel(a, b) for a in range(1, 10) for b in range(1, 10)]
    n, zs = 400, []
    first = chain.sample(starts[0], n, np.random.default_rng(0))
    for i, start in enumerate(starts):
        out = chain.sample(start, n, np.random.default_rng(i))
        win = chain.exact(start)["a_wins"]
        zs.append((out["a_wins"].mean() - win) / max(math.sqrt(win * (1 - win) / n), 1 / n))
        assert abs(zs[-1]) <= Z, (start, out["a_wins"].mean(), win)
        assert len(chain._tables) <= 64
    assert abs(sum(zs) / math.sqrt(len(zs))) <= Z
    again = chain.sample(starts[0], n, np.random.default_rng(0))  # compiled afresh
    assert all(np.array_equal(first[k], again[k]) for k in first)


def test_steps_of_probability_zero_are_not_states():
    chain = Chain(lambda s: [] if s else [(1.0, 1, ()), (0.0, 99, ())], lambda s: {"x": s == 1},
                  (Metric("x", "probability", ""),))
    assert chain.states(0) == [0, 1] and chain.exact(0)["x"] == 1.0


def test_metrics_listed_after_a_counter_are_still_reported():
    """A counter first in the metric list must not end the reading of the others."""
    base = walk(3)
    chain = Chain(base.transitions, lambda s: {"end": True, "length": 3},
                  (Metric("steps", "mean", ""), Metric("end", "probability", ""),
                   Metric("length", "mean", "")),
                  {"steps": "step"})
    exact = chain.exact(0)
    assert exact["end"] == 1.0 and exact["length"] == 3.0 and exact["steps"] == pytest.approx(4.0)
    out = chain.sample(0, 200, np.random.default_rng(3))
    assert out["end"].all() and (out["length"] == 3).all()


def test_counters_of_a_chain_without_self_loops():
    chain = countdown(0.5, 0.0)  # no ties: no self-loops at all
    exact = chain.exact(Duel(2, 2))
    assert exact["rounds"] == pytest.approx(2.5, rel=1e-12)  # 2 rounds if one side loses both, else 3
    out = chain.sample(Duel(2, 2), 4_000, np.random.default_rng(4))
    assert set(out["rounds"].tolist()) == {2, 3} and (out["ties"] == 0).all()


def many_tag_sets(kinds: int) -> Chain:
    """Start -> one of `kinds` middle states (each step tagged ("c", its own name)) -> end, and a
    direct step start -> end without "c": the count of "c" at the end depends on the path, so it
    is counted step by step, with one tag id per tag set."""

    def transitions(s):
        if s == "end":
            return []
        if s == "start":
            p = 1 / (kinds + 1)
            return [(p, i, ("c", f"t{i}")) for i in range(kinds)] + [(1 - kinds * p, "end", ())]
        return [(1.0, "end", ())]

    return Chain(transitions, lambda s: {"end": True}, (Metric("end", "probability", ""),
                                                        Metric("c", "mean", "")), {"c": "c"})


def test_at_most_255_tag_sets_are_counted_step_by_step():
    chain = many_tag_sets(255)
    out = chain.sample("start", 2_560, np.random.default_rng(6))
    assert set(out["c"].tolist()) == {0, 1}
    share = 255 / 256
    assert abs(out["c"].mean() - share) <= Z * math.sqrt(share * (1 - share) / 2_560)
    with pytest.raises(MonteCarloError) as err:
        many_tag_sets(256).sample("start", 2_000, np.random.default_rng(6))  # more than are walked
    assert str(err.value) == "too many different tag sets for the sampler (at most 255)"


def test_a_counter_that_never_counts_beside_one_counted_by_self_loops():
    """"never" is 0 on every path, like the potential of "ties" (counted by self-loops alone):
    each must still be read from its own source."""
    base = countdown(0.35, 0.3)
    metrics = base.metrics + (Metric("never", "mean", ""),)
    chain = Chain(base.transitions, base.outcome, metrics, {**base.counters, "never": "no such tag"})
    exact = chain.exact(Duel(3, 4))
    assert exact["never"] == 0.0 and exact["ties"] == pytest.approx(base.exact(Duel(3, 4))["ties"])
    out = chain.sample(Duel(3, 4), 2_000, np.random.default_rng(8))
    assert (out["never"] == 0).all() and out["ties"].max() > 0


@pytest.mark.parametrize("path_dependent", [False, True])
def test_weighted_counter_is_the_outcome_plus_its_weighted_counts(path_dependent):
    """A weighted counter, trial by trial, equals the outcome's value for its name ("base", also
    reported apart) plus the weights times the plain counts of its tags; its exact value is the
    same sum of exact values. Path-dependent: "c" counts differ between paths to one final state
    (counted step by step); otherwise read off the final state and the self-loops taken."""
    if path_dependent:
        base = many_tag_sets(3)
        weights, start, final = {"c": 2.5, "t1": -1.0}, "start", (lambda s: 10.0)
    else:
        base = countdown(0.35, 0.3)
        weights, start, final = {"decisive": 2.0, "tie": -0.5}, Duel(3, 4), (lambda s: float(s.a - s.b))
    names = ("score", "base", *(f"n_{t}" for t in weights))
    metrics = base.metrics + tuple(Metric(name, "mean", "") for name in names)
    counters = {**base.counters, "score": weights, **{f"n_{tag}": tag for tag in weights}}
    chain = Chain(base.transitions, lambda s: {**base.outcome(s), "score": final(s), "base": final(s)},
                  metrics, counters)
    exact = chain.exact(start)
    expected = exact["base"] + sum(w * exact[f"n_{tag}"] for tag, w in weights.items())
    assert exact["score"] == pytest.approx(expected, rel=1e-12)
    n = 20_000
    out = chain.sample(start, n, np.random.default_rng(7))
    by_hand = out["base"] + sum(w * out[f"n_{tag}"].astype(float) for tag, w in weights.items())
    assert out["score"].dtype == np.float64 and np.array_equal(out["score"], by_hand)
    assert len(set(by_hand.tolist())) > 2
    assert abs(out["score"].mean() - exact["score"]) <= Z * out["score"].std(ddof=1) / math.sqrt(n)


@pytest.mark.parametrize("bonus", [100.0, None])
def test_a_weighted_counter_adds_nothing_where_the_outcome_gives_no_value(bonus):
    """A weighted counter's own part is the outcome's value "if any": a final state without one
    adds 0, in the exact value and trial by trial in the sampler (not NaN, not 1), also when no
    final state gives one (the sampler then keeps no column for it)."""
    base = countdown(0.35, 0.3)
    metrics = base.metrics + (Metric("score", "mean", ""), Metric("n_decisive", "mean", ""))
    counters = {**base.counters, "score": {"decisive": 2.0}, "n_decisive": "decisive"}
    given = {} if bonus is None else {"score": bonus}
    chain = Chain(base.transitions, lambda s: {**base.outcome(s), **(given if s.b == 0 else {})},
                  metrics, counters)
    own = bonus or 0.0  # what a win adds of its own: nothing where the outcome gives no value
    exact = chain.exact(Duel(3, 4))
    assert exact["score"] == pytest.approx(own * exact["a_wins"] + 2.0 * exact["n_decisive"], rel=1e-12)
    out = chain.sample(Duel(3, 4), 2_000, np.random.default_rng(3))
    by_hand = own * out["a_wins"] + 2.0 * out["n_decisive"].astype(float)
    assert out["a_wins"].any() and not out["a_wins"].all()
    assert out["score"].dtype == np.float64 and np.array_equal(out["score"], by_hand)


def test_weighted_counters_are_checked():
    with pytest.raises(MonteCarloError, match="^weighted counter 'x' must be a reported mean metric"):
        Chain(walk(2).transitions, lambda s: {}, (Metric("x", "probability", ""),), {"x": {"step": 1.0}})
    mean = (Metric("x", "mean", ""),)
    for tag, weight in ((1, 1.0), ("step", True), ("step", "2")):  # a tag that is no name, a weight no number
        with pytest.raises(MonteCarloError, match=re.escape(
                f"weighted counter 'x': {tag!r}: {weight!r} is not tag: number")):
            Chain(walk(2).transitions, lambda s: {}, mean, {"x": {tag: weight}})
    for kind in ("probability", "distribution"):  # a plain counter too: a count is a mean
        with pytest.raises(MonteCarloError, match="^counter 'x' must be a reported mean metric"):
            Chain(walk(2).transitions, lambda s: {}, (Metric("x", kind, "", (1,)),), {"x": "step"})
    with pytest.raises(MonteCarloError, match="the weight of 'step' is nan"):
        Chain(walk(2).transitions, lambda s: {}, (Metric("x", "mean", ""),), {"x": {"step": math.nan}})


def _odds_of_rows(rows_next, rows_flag, row: int, live: int) -> dict[tuple[int, int], int]:
    """(code, flag) -> its share of a row, in units of 2**-24, by walking its sub-rows: 256 slices
    of 2**16 units, 256 sub-slices of 2**8 units, then slices of one unit."""
    shares: dict[tuple[int, int], int] = {}
    pending = [(row, 1 << 16)]
    while pending:
        at, unit = pending.pop()
        for code, flag in zip(rows_next[at].tolist(), rows_flag[at].tolist()):
            if live <= code:  # a sub-row (flag 0)
                assert flag == 0 and unit > 1
                pending.append((code, unit >> 8))
            else:
                shares[code, flag] = shares.get((code, flag), 0) + unit
    return shares


@pytest.mark.parametrize("seed", range(6))
def test_byte_rows_give_each_step_exactly_its_quantised_odds(seed):
    """Independent of the sampler: walking every slice of a state's row (and its sub-rows) gives each
    step exactly its share of 2**24, whatever the block of rows worked out together."""
    rng = np.random.default_rng(seed)
    cums, targets, flags = [], [], []
    live = 40
    for _ in range(live):
        n = int(rng.integers(1, 9))
        cuts = np.unique(rng.integers(1, 1 << 24, size=n - 1))
        if seed % 2:  # steps of one and of a few hundred units too
            cuts = np.unique(np.concatenate([cuts, cuts[:1] + 1, cuts[:1] + 300])) if n > 1 else cuts
        cuts = cuts[cuts < 1 << 24]
        cum = np.append(cuts, 1 << 24).astype(np.int64)
        cums.append(cum)
        targets.append(rng.integers(-5, live, size=cum.size).tolist())  # final states negative
        flags.append(rng.integers(0, 4, size=cum.size).tolist())
    rows_next, rows_flag = chain_module._byte_rows(cums, targets, flags)
    again = chain_module._byte_rows(cums, targets, flags, block=3)
    assert np.array_equal(rows_next, again[0]) and np.array_equal(rows_flag, again[1])
    assert rows_next.shape == rows_flag.shape and rows_next.shape[1] == 256 and len(rows_next) > live
    assert (rows_next[live:] >= live).any()  # sub-rows of sub-rows: the third level is reached
    for state in range(live):
        expected: dict[tuple[int, int], int] = {}
        for size, code, flag in zip(np.diff(cums[state], prepend=0).tolist(), targets[state], flags[state]):
            if size:
                expected[code, flag] = expected.get((code, flag), 0) + size
        assert _odds_of_rows(rows_next, rows_flag, state, live) == expected


def test_byte_rows_deeper_than_the_scale_or_more_than_the_boundaries_stop_with_an_error(monkeypatch):
    """Slices narrow 256-fold a level, so the third level's are single units and hold no boundary,
    and a level's slices are apart, so no more rows than boundaries: a broken edit (a mutant) that
    keeps finding boundaries fails at once instead of adding rows until memory runs out."""
    cums, targets, flags = [np.array([1, 2, 1 << 24], dtype=np.int64)], [[0, 1, -1]], [[0, 0, 0]]
    rows_next, _ = chain_module._byte_rows(cums, targets, flags)
    assert len(rows_next) == 3  # the state's row, its first slice's row, that one's first slice's
    one = chain_module._byte_rows([np.array([1, 1 << 24], dtype=np.int64)], [[0, -1]], [[0, 0]])[0]
    assert len(one) == 3  # as many rows as there can be: a new row per level for its one boundary
    monkeypatch.setattr(chain_module, "_LEVELS", 2)
    with pytest.raises(RuntimeError, match="^internal error: the sampler's rows go deeper than its scale$"):
        chain_module._byte_rows(cums, targets, flags)
    with pytest.raises(RuntimeError, match="^internal error: the sampler's rows outnumber its steps$"):
        chain_module._byte_rows([np.array([1, 1 << 24], dtype=np.int64)], [[0, -1]], [[0, 0]])  # 1 too many
    monkeypatch.setattr(chain_module, "_LEVELS", 1)  # one level only: no row beyond the state's own
    with pytest.raises(RuntimeError, match="^internal error: the sampler's rows outnumber its steps$"):
        chain_module._byte_rows(cums, targets, flags)


def test_byte_rows_of_no_live_state_are_empty():
    rows_next, rows_flag = chain_module._byte_rows([], [], [])
    assert rows_next.shape == rows_flag.shape == (0, 256)
