"""Best play (montecarlo.engine.decisions) against answers found another way.

- Small random chains with decisions (acyclic, with self-loops, with cycles through several
  states; with tied options and options that never end): every deterministic policy is valued
  here with numpy, by its own linear system ``(I - Q) v = r + R f`` over the states it reaches
  (minus infinity when one of them cannot reach an end), independently of the solver. The
  solver's optimum equals the best of them, its policy is worth exactly that, and no policy is
  worth more.
- Hand-derived cases, the derivation in each docstring.
- The sampler of the chain under best play against the exact values, within 4.5 standard errors.
"""

from __future__ import annotations

import itertools
import math
import re
import subprocess
import sys

import numpy as np
import pytest

from montecarlo.engine import decisions
from montecarlo.engine.chain import Chain, ChainTooLarge
from montecarlo.engine.decisions import (
    TIE_TOLERANCE,
    Choice,
    Objective,
    evaluate,
    follow,
    solve,
    with_objective,
)
from montecarlo.engine.metrics import Metric
from montecarlo.errors import InputError, MonteCarloError

Z = 4.5
CLOSE = dict(rel=1e-12, abs=1e-12)


# --- random chains, every policy enumerated ------------------------------------------------------


class Random:
    """A random chain with decisions on live states 0..live-1 and final states live..live+ends-1.

    Every live state has 1 option (chance) or 2-3 (decision), each a random spread over up to 3
    targets: higher-numbered states only (acyclic) or any (``cyclic``), plus a self-loop of
    probability 1/4 on some options (``loops``). ``ties`` copies an option under a second name;
    ``traps`` lists first, at some decision states, an option that only comes back for ever.
    Steps are tagged "a" or "b"; rewards are random where no cycle runs through several states,
    and {"a": -0.25, "b": 0} otherwise (no positive reward in a cycle: "b" cycles earn nothing).
    """

    def __init__(self, seed: int, cyclic: bool = False, loops: bool = False, ties: bool = False,
                 traps: bool = False, live: int = 5, ends: int = 3):
        rng = np.random.default_rng(seed)
        self.live, n = live, live + ends
        self.finals = {live + k: float(v) for k, v in enumerate(rng.integers(-3, 4, ends))}
        if cyclic:
            self.rewards = {"a": -0.25, "b": 0.0}
        else:
            self.rewards = {"a": float(rng.normal()), "b": float(rng.normal())}
        self.options: list[list[list[tuple[float, int, tuple[str, ...]]]]] = []
        for i in range(live):
            targets = [j for j in range(n) if (cyclic or j > i) and j != i]
            options = []
            for _ in range(1 if rng.random() < 0.3 else int(rng.integers(2, 4))):
                size = int(rng.integers(1, min(3, len(targets)) + 1))
                chosen = rng.choice(targets, size=size, replace=False)
                stay = 0.25 if loops and rng.random() < 0.5 else 0.0
                weights = rng.random(len(chosen)) + 0.1
                steps = [(float(p), int(j), (str(rng.choice(["a", "b"])),))
                         for p, j in zip((1 - stay) * weights / weights.sum(), chosen)]
                if stay:
                    steps.append((stay, i, ("a", "loop")))
                options.append(steps)
            if len(options) > 1 and ties and rng.random() < 0.6:
                options.insert(int(rng.integers(0, len(options) + 1)), list(options[0]))
            if len(options) > 1 and traps and rng.random() < 0.4:
                options.insert(0, [(1.0, i, ("b",))])
            self.options.append(options)
        self.objective = Objective(lambda s: self.finals[s], self.rewards)

    def transitions(self, s: int):
        if s >= self.live:
            return []
        options = self.options[s]
        if len(options) == 1:
            return options[0]
        return Choice({f"o{k}": steps for k, steps in enumerate(options)})

    def policies(self):
        """Every deterministic policy: a tuple of option numbers, one per live state."""
        return itertools.product(*(range(len(o)) for o in self.options))

    def worth(self, policy, start: int = 0) -> float:
        """The expected objective from ``start`` under ``policy``, by numpy: -inf if it may not end."""
        n = self.live + len(self.finals)
        P, r = np.zeros((n, n)), np.zeros(n)
        for i in range(self.live):
            for p, j, tags in self.options[i][policy[i]]:
                P[i, j] += p
                r[i] += p * sum(w for tag, w in self.rewards.items() if tag in tags)
        if start >= self.live:
            return self.finals[start]
        reached, todo = {start}, [start]
        while todo:
            for j in np.flatnonzero(P[todo.pop()]):
                if int(j) not in reached:
                    reached.add(int(j))
                    todo.append(int(j))
        ending = set(self.finals)
        grown = True
        while grown:
            grown = False
            for i in range(self.live):
                if i not in ending and any(int(j) in ending for j in np.flatnonzero(P[i])):
                    ending.add(i)
                    grown = True
        if not reached <= ending:
            return -math.inf
        states = sorted(s for s in reached if s < self.live)
        ends = sorted(self.finals)
        A = np.eye(len(states)) - P[np.ix_(states, states)]
        b = r[states] + P[np.ix_(states, ends)] @ np.array([self.finals[e] for e in ends])
        return float(np.linalg.solve(A, b)[states.index(start)])

    def index(self, policy_by_name) -> tuple[int, ...]:
        return tuple(int(policy_by_name[i][1:]) if i in policy_by_name else 0 for i in range(self.live))


KINDS = {
    "acyclic": dict(),
    "self-loops": dict(loops=True),
    "ties": dict(loops=True, ties=True),
    "traps": dict(loops=True, traps=True),
    "cycles": dict(cyclic=True),
    "cycles-ties-traps": dict(cyclic=True, loops=True, ties=True, traps=True),
}


@pytest.mark.parametrize("dense_limit", [decisions._DENSE_LIMIT, 0], ids=["dense", "sparse"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(12))
def test_the_optimum_is_the_best_of_every_policy(monkeypatch, kind, seed, dense_limit):
    """With the sparse solve too: cycles through more than ``_DENSE_LIMIT`` states are solved with
    sparse matrices (and the states a policy traps found by a search over them); with the limit at
    0 every cycle of the random chains takes that path."""
    monkeypatch.setattr(decisions, "_DENSE_LIMIT", dense_limit)
    chain = Random(seed, **KINDS[kind])
    worths = [chain.worth(policy) for policy in chain.policies()]
    best = max(worths)
    if best == -math.inf:
        with pytest.raises(MonteCarloError, match="may never end"):
            solve(chain.transitions, 0, chain.objective)
        return
    solution = solve(chain.transitions, 0, chain.objective)
    assert solution.value == pytest.approx(best, **CLOSE)
    played = chain.index(solution.policy)
    assert chain.worth(played) == pytest.approx(solution.value, **CLOSE)  # it plays what it reports
    assert all(solution.value >= w - 1e-12 for w in worths)  # never below a fixed policy
    assert evaluate(chain.transitions, 0, chain.objective, solution.policy) == pytest.approx(best, **CLOSE)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(12))
def test_an_option_is_worth_taking_it_once_and_playing_best_after(kind, seed):
    """Every option of every decision state against its value found here: its steps' rewards and
    the optimum from where each leads (best over every policy, from that state), a step that
    stays put worth the optimum of the state itself; minus infinity for an option that can only
    stay put or leads where no play ends. Best play's own option is worth its value."""
    chain = Random(seed, **KINDS[kind])
    policies = list(chain.policies())
    optimum = {x: max(chain.worth(p, x) for p in policies) for x in range(chain.live + len(chain.finals))}
    if optimum[0] == -math.inf:
        return
    solution = solve(chain.transitions, 0, chain.objective)
    for state, chosen in solution.policy.items():
        got = solution.option_values(state)
        for k, steps in enumerate(chain.options[state]):
            if all(j == state for _, j, _ in steps):
                want = -math.inf
            else:
                want = sum(
                    p * (sum(w for tag, w in chain.rewards.items() if tag in tags) + optimum[j])
                    for p, j, tags in steps
                )
            assert got[f"o{k}"] == pytest.approx(want, **CLOSE), (state, k)
        assert got[chosen] == pytest.approx(optimum[state], **CLOSE)


def has_cycle(chain: Random) -> bool:
    """Whether some steps run in a cycle through several states (Kahn's topological sort fails)."""
    edges = {(i, j) for i, options in enumerate(chain.options) for o in options for _, j, _ in o if j != i}
    into = {j: sum(1 for _, k in edges if k == j) for j in range(chain.live + len(chain.finals))}
    free = [j for j, n in into.items() if n == 0]
    for i in free:
        for a, j in edges:
            if a == i:
                into[j] -= 1
                if into[j] == 0:
                    free.append(j)
    return len(free) < len(into)


def test_the_random_chains_cover_what_they_should():
    """Guards the generator: above are ties, options that only come back, cycles through several
    states, and policies that may never end, among thousands of policies."""
    seen = dict.fromkeys(["ties", "traps", "cycles", "may never end", "policies"], 0)
    for kind, seed in itertools.product(KINDS, range(12)):
        chain = Random(seed, **KINDS[kind])
        worths = [chain.worth(p) for p in chain.policies()]
        seen["policies"] += len(worths)
        seen["may never end"] += min(worths) == -math.inf
        seen["ties"] += sum(any(o.count(x) > 1 for x in o) for o in chain.options)
        seen["traps"] += sum(o[0] == [(1.0, i, ("b",))] for i, o in enumerate(chain.options))
        seen["cycles"] += has_cycle(chain)
    assert min(seen.values()) >= 10 and seen["policies"] > 2_000, seen


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("kind", ["ties", "traps"])
def test_ties_go_to_the_first_option_listed(kind, seed):
    """On chains without cycles through several states: the option chosen is the first whose
    value is within the tolerance of the best, and a copy listed later is never chosen."""
    chain = Random(seed, **KINDS[kind])
    try:
        solution = solve(chain.transitions, 0, chain.objective)
    except MonteCarloError:
        return
    for state, name in solution.policy.items():
        values = list(solution.option_values(state).values())
        top = max(values)
        first = next(k for k, v in enumerate(values) if v >= top - TIE_TOLERANCE * max(1, abs(top)))
        assert name == f"o{first}"
        options = chain.options[state]
        assert options.index(options[first]) == first  # never a later copy of an earlier option


@pytest.mark.parametrize("seed", range(6))
def test_the_chain_under_best_play_gives_the_optimum_as_a_metric(seed):
    chain = Random(seed, **KINDS["self-loops"])
    try:
        solution = solve(chain.transitions, 0, chain.objective)
    except MonteCarloError:
        return
    metrics = (Metric("end", "distribution", "", tuple(chain.finals)), Metric("steps", "mean", ""))
    played = Chain(solution.transitions, *with_objective(chain.objective, lambda s: {"end": s}, metrics,
                                                         {"steps": "a"}))
    exact = played.exact(0)
    assert exact["objective"] == pytest.approx(solution.value, **CLOSE)
    assert sum(exact[f"end={e}"] for e in chain.finals) == pytest.approx(1.0, **CLOSE)


@pytest.mark.parametrize("kind", ["acyclic", "self-loops", "cycles"])
@pytest.mark.parametrize("seed", range(5))
def test_visits_under_best_play_are_the_chains_own_counts(kind, seed):
    """Solution.visits (one sparse solve) against the Chain's exact expectations, an independent
    computation: each state's visits are the expected number of steps into it (plus one for the
    start), and a final state's is the chance of ending there."""
    chain = Random(seed, **KINDS[kind])
    try:
        solution = solve(chain.transitions, 0, chain.objective)
    except MonteCarloError:
        return
    visits = solution.visits()

    def marked(state):  # each step tagged with the state it goes to
        return tuple((p, nxt, (*tags, f"to{nxt}")) for p, nxt, tags in solution.transitions(state))

    states = sorted(visits)
    metrics = (Metric("end", "distribution", "", tuple(chain.finals)),
               *(Metric(f"to{s}", "mean", "") for s in states))
    played = Chain(marked, lambda s: {"end": s}, metrics, {f"to{s}": f"to{s}" for s in states})
    exact = played.exact(0)
    for state in states:
        assert visits[state] == pytest.approx(exact[f"to{state}"] + (state == 0), **CLOSE), state
    for final in chain.finals:
        assert visits.get(final, 0.0) == pytest.approx(exact[f"end={final}"], **CLOSE)


# --- hand-derived cases ---------------------------------------------------------------------------


def test_a_one_round_choice_by_hand():
    """Safe: one die, win on 4+ (1/2). Bold: win on 3+ (2/3), but a wound costs 1/4 for sure.

    Objective: 1 for a win, minus 1/4 per wound. Safe is worth 1/2, bold 2/3 - 1/4 = 5/12:
    play safe, worth 1/2. Were the wound to cost 1/8, bold would be 2/3 - 1/8 = 13/24 > 1/2.
    """

    def fight(s):
        if s != "start":
            return []
        return Choice({
            "safe": [(1 / 2, "win", ("roll",)), (1 / 2, "lose", ("roll",))],
            "bold": [(2 / 3, "win", ("roll", "wound")), (1 / 3, "lose", ("roll", "wound"))],
        })

    for cost, expected, choice in ((0.25, 1 / 2, "safe"), (0.125, 13 / 24, "bold")):
        solution = solve(fight, "start", Objective(lambda s: s == "win", {"wound": -cost}))
        assert solution.value == pytest.approx(expected, rel=1e-15)
        assert solution.policy == {"start": choice}
        assert solution.option_values("start") == pytest.approx({"safe": 1 / 2, "bold": 2 / 3 - cost})


def test_try_again_or_stop_a_state_that_returns_to_itself():
    """Try: 1/3 success (worth 6), 1/3 nothing changes (try again), 1/3 failure (worth 0); each
    try costs 1/2. Stop: worth 2.

    Trying until something happens takes a geometric number of tries, mean 1 / (2/3) = 3/2, so
    it costs 3/4; it succeeds with probability (1/3) / (2/3) = 1/2, worth 3: trying is worth
    3 - 3/4 = 9/4 > 2. At a cost of 1 per try it would be worth 3 - 3/2 = 3/2 < 2: stop.
    """

    def attempt(s):
        if s != "trying":
            return []
        return Choice({
            "stop": [(1.0, "stopped", ())],
            "try": [(1 / 3, "success", ("try",)), (1 / 3, "trying", ("try",)), (1 / 3, "failure", ("try",))],
        })

    finals = {"stopped": 2.0, "success": 6.0, "failure": 0.0}
    for cost, expected, choice in ((0.5, 9 / 4, "try"), (1.0, 2.0, "stop")):
        objective = Objective(finals.__getitem__, {"try": -cost})
        solution = solve(attempt, "trying", objective)
        assert solution.value == pytest.approx(expected, rel=1e-14)
        assert solution.policy["trying"] == choice
        assert evaluate(attempt, "trying", objective, {"trying": "try"}) == pytest.approx(3 - 1.5 * cost)
    metrics = (Metric("tries", "mean", ""),)
    chain = Chain(solve(attempt, "trying", Objective(finals.__getitem__, {"try": -0.5})).transitions,
                  lambda s: {}, metrics, {"tries": "try"})
    assert chain.exact("trying")["tries"] == pytest.approx(1.5, rel=1e-14)


def reroll(face):
    """A die: keep the face, or pay 1 to roll again (the module docstring's example)."""
    if face == "start":
        return [(1 / 6, f, ("roll",)) for f in range(1, 7)]
    if isinstance(face, tuple):
        return []
    return Choice({"keep": [(1.0, ("kept", face), ())],
                   "reroll": [(1 / 6, f, ("roll", "paid")) for f in range(1, 7)]})


REROLL = Objective(lambda end: end[1], {"paid": -1.0})


def test_reroll_by_hand_and_its_tie():
    """Keeping 3 or more: a fresh roll is worth V = (3+4+5+6)/6 + (2/6)(V - 1), so V = 4; a 3 then
    ties: keep 3, or pay 1 for a roll worth 4. Keeping 4 or more gives V = 15/6 + (3/6)(V - 1) =
    4 too. The tie goes to "keep", listed first; listed second, "reroll" wins it."""
    solution = solve(reroll, "start", REROLL)
    assert solution.value == pytest.approx(4.0, rel=1e-14)
    assert [solution.policy[f] for f in range(1, 7)] == ["reroll"] * 2 + ["keep"] * 4
    assert solution.option_values(3) == pytest.approx({"keep": 3.0, "reroll": 3.0}, rel=1e-14)

    def reroll_first(face):
        got = reroll(face)
        return Choice(reversed(got.options)) if isinstance(got, Choice) else got

    swapped = solve(reroll_first, "start", REROLL)
    assert [swapped.policy[f] for f in range(1, 7)] == ["reroll"] * 3 + ["keep"] * 3
    assert swapped.value == pytest.approx(4.0, rel=1e-14)


def test_a_difference_beyond_the_tolerance_is_not_a_tie():
    def two(s):
        if s != 0:
            return []
        return Choice({"first": [(1.0, 1, ())], "second": [(1.0, 2, ())]})

    near = {1: 0.5, 2: 0.5 + 0.5 * TIE_TOLERANCE}
    assert solve(two, 0, Objective(near.__getitem__)).policy[0] == "first"
    far = {1: 0.5, 2: 0.5 + 10 * TIE_TOLERANCE}
    assert solve(two, 0, Objective(far.__getitem__)).policy[0] == "second"


def test_a_cycle_that_changes_nothing_is_not_chosen_on_a_tie():
    """"wait" (listed first) goes to a state that comes straight back: worth as much as "stop"
    while nothing is paid, but it would never end, so "stop" is played."""

    def table(s):
        if s == "decide":
            return Choice({"wait": [(1.0, "waiting", ())], "stop": [(1.0, "stopped", ())]})
        return [(1.0, "decide", ())] if s == "waiting" else []

    solution = solve(table, "decide", Objective(lambda s: 1.0))
    assert solution.policy == {"decide": "stop"} and solution.value == 1.0


def tied_cycle(s, stepping_in=False):
    """Every option worth 1 (nothing is paid); "go" is listed first at "a" and "b", which only lead
    to each other; "c", on the same cycle, steps into "a" or ends. With ``stepping_in``, "c" may
    also lead to "d", whose first option "go" steps back into "c"."""
    if s == "a":
        return Choice({"go": [(1.0, "b", ())], "stop": [(1.0, "end", ())]})
    if s == "b":
        return Choice({"go": [(1.0, "a", ())], "back": [(1.0, "c", ())], "stop": [(1.0, "end", ())]})
    if s == "d" and stepping_in:
        return Choice({"go": [(1.0, "c", ())], "stop": [(1.0, "end", ())]})
    if s == "c":
        if stepping_in:
            return [(1 / 3, "a", ()), (1 / 3, "d", ()), (1 / 3, "end", ())]
        return [(0.5, "a", ()), (0.5, "end", ())]
    return []


@pytest.mark.parametrize("stepping_in", [False, True], ids=["alone", "stepped-into"])
@pytest.mark.parametrize("dense_limit", [decisions._DENSE_LIMIT, 0], ids=["dense", "sparse"])
def test_a_tied_cycle_entered_from_a_state_that_leaves_is_not_chosen(monkeypatch, dense_limit, stepping_in):
    """Playing "go" at both "a" and "b" (:func:`tied_cycle`) would never end: the solver makes them
    lead out ("a" stops, "b" goes back through "c"), with the dense matrices and with the sparse
    ones (the trapped states are those that cannot reach a way out, whatever steps into them), and
    also while another state ("d", stepped into) steps into one that leaves."""
    monkeypatch.setattr(decisions, "_DENSE_LIMIT", dense_limit)

    def table(s):
        return tied_cycle(s, stepping_in)

    solution = solve(table, "a", Objective(lambda s: 1.0))
    expected = {"a": "stop", "b": "back", **({"d": "go"} if stepping_in else {})}
    assert solution.policy == expected and solution.value == pytest.approx(1.0)
    assert evaluate(table, "a", Objective(lambda s: 1.0), solution.policy) == pytest.approx(1.0)


@pytest.mark.parametrize("dense_limit", [decisions._DENSE_LIMIT, 0], ids=["dense", "sparse"])
def test_steps_back_to_the_same_state_listed_apart_add_up_on_a_cycle(monkeypatch, dense_limit):
    """At "a" (on a cycle with "b"), "roll" comes back to "a" on a 1 and on a 2 (two steps of 1/6),
    goes to "b" on 3-4 and wins on 5-6; "b" goes back to "a" or loses, evenly. So v_b = v_a / 2 and
    v_a = (1/3) v_a + (1/3) v_b + 1/3, v_a = 2/3, the same as with one step of 1/3 back to "a"."""
    monkeypatch.setattr(decisions, "_DENSE_LIMIT", dense_limit)

    def table(s, merged=False):
        if s == "a":
            back = [(1 / 3, "a", ())] if merged else [(1 / 6, "a", ()), (1 / 6, "a", ())]
            roll = [*back, (1 / 3, "b", ()), (1 / 3, "win", ())]
            return Choice({"roll": roll, "quit": [(1.0, "lose", ())]})
        return [(0.5, "a", ()), (0.5, "lose", ())] if s == "b" else []

    objective = Objective(lambda s: float(s == "win"))
    solution = solve(table, "a", objective)
    assert solution.value == pytest.approx(2 / 3, rel=1e-14) and solution.policy == {"a": "roll"}
    assert solve(lambda s: table(s, merged=True), "a", objective).value == pytest.approx(2 / 3, rel=1e-14)


@pytest.mark.parametrize("rewarded", [False, True])
def test_steps_back_to_the_same_state_listed_apart_add_up_off_a_cycle(rewarded):
    """At "a", "roll" comes back to "a" on a 1 and on a 2 (two steps of 1/6) and wins otherwise:
    taken until it leaves, it wins for sure (1, or 1 + the reward of a win); "quit" loses."""
    def table(s):
        if s == "a":
            roll = [(1 / 6, "a", ()), (1 / 6, "a", ()), (2 / 3, "win", ("won",))]
            return Choice({"quit": [(1.0, "lose", ())], "roll": roll})
        return []

    objective = Objective(lambda s: float(s == "win"), {"won": 0.5} if rewarded else {})
    solution = solve(table, "a", objective)
    assert solution.value == pytest.approx(1.5 if rewarded else 1.0, rel=1e-14)
    assert solution.policy == {"a": "roll"}


def test_a_step_of_probability_zero_is_never_followed():
    """Steps of probability 0 (of a chance state or of an option) lead nowhere: their states are
    never asked for (here asking raises) nor counted."""
    def table(s):
        assert s != "never", "a state reached with probability 0 was walked"
        if s == "start":
            return [(0.0, "never", ()), (1.0, "choose", ())]
        if s == "choose":
            return Choice({"go": [(0.0, "never", ()), (1.0, "win", ())], "stop": [(1.0, "lose", ())]})
        return []

    solution = solve(table, "start", Objective(lambda s: float(s == "win")))
    assert solution.value == 1.0 and solution.policy == {"choose": "go"}
    assert Choice({"go": [(0.0, "never", ()), (1.0, "win", ())]}).steps("go") == ((1.0, "win", ()),)


@pytest.mark.parametrize("dense_limit", [decisions._DENSE_LIMIT, 0], ids=["dense", "sparse"])
def test_options_that_may_never_end_are_never_chosen_as_the_only_links_of_a_cycle(monkeypatch, dense_limit):
    """"a" and "b" form a cycle only through "link", which half the time falls into "doom", a state
    that never ends: no step the solver may take stays on the cycle, and each state stops."""
    monkeypatch.setattr(decisions, "_DENSE_LIMIT", dense_limit)

    def table(s):
        if s in ("a", "b"):
            other = "b" if s == "a" else "a"
            return Choice({"link": [(0.5, other, ()), (0.5, "doom", ())], "stop": [(1.0, f"end {s}", ())]})
        return [(1.0, "doom", ())] if s == "doom" else []

    solution = solve(table, "a", Objective(lambda s: 2.0 if s == "end b" else 1.0))
    assert solution.policy == {"a": "stop", "b": "stop"} and solution.value == 1.0
    assert solution.option_values("a") == {"link": -math.inf, "stop": 1.0}
    assert solution.option_values("b") == {"link": -math.inf, "stop": 2.0}


@pytest.mark.parametrize("dense_limit", [decisions._DENSE_LIMIT, 0], ids=["dense", "sparse"])
def test_on_a_cycle_the_tie_tolerance_is_relative_above_one_and_absolute_below(monkeypatch, dense_limit):
    """At "a" (on a cycle with "b", which comes straight back), both options go to "b" or end, evenly,
    at "first" or "second": each is worth (v_a + its end) / 2. Ends worth 10 and 10 + 1e-11 make
    the options differ by 5e-12, within the tolerance at 10 (10 x TIE_TOLERANCE): a tie, the first
    listed. Ends worth 0.5 and 0.5 + 3e-12 make them differ by 1.5e-12, more than the tolerance
    below 1 (TIE_TOLERANCE itself): the second is better."""
    monkeypatch.setattr(decisions, "_DENSE_LIMIT", dense_limit)
    assert TIE_TOLERANCE == 1e-12  # the figures above

    def table(s):
        if s == "a":
            return Choice({"first": [(0.5, "b", ()), (0.5, "first", ())],
                           "second": [(0.5, "b", ()), (0.5, "second", ())]})
        return [(1.0, "a", ())] if s == "b" else []

    for low, gap, chosen in ((10.0, 1e-11, "first"), (0.5, 3e-12, "second")):
        ends = {"first": low, "second": low + gap}
        assert solve(table, "a", Objective(ends.__getitem__)).policy == {"a": chosen}, (low, gap)


def test_cycles_up_to_the_dense_limit_are_solved_without_scipy():
    """A random walk on 1..N that ends at 0 or N + 1 is one cycle of N states: up to
    ``_DENSE_LIMIT`` of them it is solved with numpy alone (scipy's sparse modules, a cost at the
    start of a command, stay unimported), beyond it with scipy's sparse solve; a fresh process
    tells. Both give the gambler's ruin odds i / (N + 1) of ending at N + 1."""
    code = (
        "import sys\n"
        "from montecarlo.engine.decisions import _DENSE_LIMIT, Objective, solve\n"
        "for n in (_DENSE_LIMIT, _DENSE_LIMIT + 1):\n"
        "    walk = lambda i: [(0.5, i - 1, ()), (0.5, i + 1, ())] if 0 < i <= n else []\n"
        "    value = solve(walk, 1, Objective(lambda i: float(i > 0))).value\n"
        "    print(n, 'scipy.sparse' in sys.modules, abs(value - 1 / (n + 1)) < 1e-12)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    limit = decisions._DENSE_LIMIT
    assert out.stdout.split("\n")[:2] == [f"{limit} False True", f"{limit + 1} True True"]


def test_a_cycle_of_exactly_the_dense_limit_is_solved_dense_and_one_more_sparse(monkeypatch):
    """The walk above, in this process (mutmut's census credits a function only with the tests
    that call it in-process, so the fresh-process test never runs against its mutants): every
    cycle solved records its size and whether its matrices are dense."""
    seen = []
    build = decisions._Cycle.__init__

    def recording(self, *args, **kwargs):
        build(self, *args, **kwargs)
        seen.append((self.n, self.dense))

    monkeypatch.setattr(decisions._Cycle, "__init__", recording)
    limit = decisions._DENSE_LIMIT
    for n in (limit, limit + 1):
        def walk(i, n=n):
            return [(0.5, i - 1, ()), (0.5, i + 1, ())] if 0 < i <= n else []

        assert solve(walk, 1, Objective(lambda i: float(i > 0))).value == pytest.approx(1 / (n + 1))
    assert seen == [(limit, True), (limit + 1, False)]


def test_an_option_that_only_comes_back_is_never_chosen():
    def table(s):
        if s != 0:
            return []
        return Choice({"dither": [(1.0, 0, ("gain",))], "end": [(1.0, 1, ())]})

    solution = solve(table, 0, Objective(lambda s: 0.0, {"gain": 1.0}))
    assert solution.policy[0] == "end" and solution.option_values(0)["dither"] == -math.inf
    with pytest.raises(MonteCarloError, match="^from 0 the play may never end, whatever the choices$"):
        solve(lambda s: Choice({"dither": [(1.0, 0, ())]}), 0, Objective(lambda s: 0.0))
    with pytest.raises(MonteCarloError, match="^from 0 the play may never end, whatever the choices$"):
        solve(lambda s: Choice({"a": [(1.0, 1 - s, ())], "b": [(0.5, s, ()), (0.5, 1 - s, ())]}), 0,
              Objective(lambda s: 0.0))  # two states that only lead to each other


def test_a_dead_end_cycle_is_avoided():
    """From 0: "enter" a pair of states that only lead to each other (listed first, worth -inf),
    or "leave" (worth 1): leave."""

    def table(s):
        if s == 0:
            return Choice({"enter": [(1.0, "a", ())], "leave": [(1.0, "end", ())]})
        if s in ("a", "b"):
            return Choice({"swap": [(1.0, "b" if s == "a" else "a", ())], "stay": [(1.0, s, ())]})
        return []

    solution = solve(table, 0, Objective(lambda s: 1.0))
    assert solution.policy[0] == "leave" and solution.value == 1.0
    assert solution.option_values(0) == {"enter": -math.inf, "leave": 1.0}
    assert solution.value_at("a") == -math.inf
    # where no play ends, every option is worth -inf: the first listed is the one named
    assert solution.policy["a"] == solution.policy["b"] == "swap"
    assert solution.option_values("a") == {"swap": -math.inf, "stay": -math.inf}


def test_the_way_out_of_a_cycle_takes_the_first_option_of_the_nearest_layer():
    """``_Solver.reaching``, the options a policy starts from where its preferred ones never leave
    a cycle: b leaves at once; d too, by the step after its self-loop; a can go to c (option 0,
    farther) or to b (options 1 and 2, one step from the way out): option 1, the first of the
    nearest layer; c comes back through a."""
    from types import SimpleNamespace

    def to(state):
        return [(1.0, state, ())]

    options = {"a": [to("c"), to("b"), to("b")], "b": [to("out")], "c": [to("a")],
               "d": [[(0.5, "d", ()), (0.5, "out", ())]]}
    solver = SimpleNamespace(options=options)
    allowed = {"a": [0, 1, 2], "b": [0], "c": [0], "d": [0]}
    got = decisions._Solver.reaching(solver, list("abcd"), allowed, dict.fromkeys("abcd"))
    assert got == {"b": 0, "d": 0, "a": 1, "c": 0}
    # a state left out of the allowed options is not reached through them
    narrower = {**allowed, "a": [0]}
    got = decisions._Solver.reaching(solver, list("abcd"), narrower, dict.fromkeys("abcd"))
    assert got == {"b": 0, "d": 0}


def test_a_state_of_a_cycle_whose_every_option_risks_a_play_without_end_names_its_first():
    """x and y form a cycle and y can leave, but each option of x risks z, a state that never
    ends: x is worth -inf whatever it does and names its first option, as a state where no play
    ends does; y leaves."""

    def table(s):
        if s == "x":
            return Choice({"left": [(0.5, "y", ()), (0.5, "z", ())],
                           "right": [(0.25, "y", ()), (0.75, "z", ())]})
        if s == "y":
            return Choice({"back": [(1.0, "x", ())], "leave": [(1.0, "end", ())]})
        if s == "z":
            return [(1.0, "z", ())]
        return []

    solution = solve(table, "y", Objective(lambda s: 1.0))
    assert solution.policy["y"] == "leave" and solution.value == 1.0
    assert solution.policy["x"] == "left" and solution.value_at("x") == -math.inf
    assert solution.option_values("x") == {"left": -math.inf, "right": -math.inf}


def test_an_option_that_only_comes_back_inside_a_cycle_is_worth_minus_infinity():
    """In a cycle of two states ("swap" goes to the other or ends), "stay" only loops on itself:
    it is never chosen and its value is -inf (as the same option outside a cycle), not missing."""

    def table(s):
        if s in ("a", "b"):
            other = "b" if s == "a" else "a"
            return Choice({"stay": [(1.0, s, ())], "swap": [(0.5, other, ()), (0.5, "end", ())]})
        return []

    solution = solve(table, "a", Objective(lambda s: 1.0))
    assert solution.policy == {"a": "swap", "b": "swap"} and solution.value == pytest.approx(1.0)
    assert solution.option_values("a") == {"stay": -math.inf, "swap": pytest.approx(1.0)}
    assert solution.option_values("b")["stay"] == -math.inf


def test_a_positive_reward_inside_a_decided_cycle_is_refused():
    def table(s):
        if s == "end":
            return []
        other = "b" if s == "a" else "a"
        return Choice({"go": [(1.0, other, ("gain",))], "end": [(1.0, "end", ())]})

    with pytest.raises(MonteCarloError) as info:
        solve(table, "a", Objective(lambda s: 0.0, {"gain": 1.0}))
    assert re.fullmatch(
        r"the step from '([ab])' to '(?!\1)[ab]' earns 1\.0 inside a cycle where a player decides: best "
        r"play could collect it for ever \(rewards in such a cycle must not be positive\)", str(info.value)
    ), str(info.value)
    assert solve(table, "a", Objective(lambda s: 1.0, {"gain": -1.0})).policy == {"a": "end", "b": "end"}


def test_a_fixed_policy_is_valued_and_played():
    """Always re-roll a 1, keep the rest: V = (2+...+6)/6 + (1/6)(V - 1), so V = 19/5 < 4."""
    objective = REROLL

    def keep_above_one(face, choice):
        return "reroll" if face == 1 else "keep"

    assert evaluate(reroll, "start", objective, keep_above_one) == pytest.approx(19 / 5, rel=1e-14)
    chain = Chain(follow(reroll, keep_above_one), *with_objective(objective, lambda s: {}, ()))
    assert chain.exact("start")["objective"] == pytest.approx(19 / 5, rel=1e-14)
    with pytest.raises(MonteCarloError, match="the policy has no option for decision state 1"):
        evaluate(reroll, "start", objective, {2: "keep"})


# --- the sampler under best play ------------------------------------------------------------------


def within(sample: np.ndarray, expected: float) -> bool:
    return abs(sample.mean() - expected) <= Z * sample.std(ddof=1) / math.sqrt(sample.size) + 1e-12


def test_sampled_objective_under_best_play_matches_the_exact_value():
    """Per trial the objective is the face kept minus the rolls paid for: checked trial by trial,
    and its mean against the exact 4. Its standard deviation is below 6 (faces 1..6 minus a few
    paid rolls): 200,000 trials give a standard error under 0.014."""
    solution = solve(reroll, "start", REROLL)
    metrics = (Metric("face", "mean", "face kept"), Metric("rolls", "mean", "dice rolled"))
    chain = Chain(solution.transitions, *with_objective(REROLL, lambda end: {"face": end[1]}, metrics,
                                                        {"rolls": "roll"}))
    out = chain.sample("start", 200_000, np.random.default_rng(19))
    assert np.array_equal(out["objective"], out["face"] - (out["rolls"].astype(float) - 1))
    exact = chain.exact("start")
    assert exact["objective"] == pytest.approx(solution.value, rel=1e-14)
    for name in ("objective", "face", "rolls"):
        assert within(out[name].astype(float), exact[name]), name


@pytest.mark.parametrize("seed", range(4))
def test_sampler_under_best_play_on_random_chains(seed):
    chain = Random(seed + 40, **KINDS["self-loops"])
    solution = solve(chain.transitions, 0, chain.objective)
    ends = tuple(chain.finals)
    metrics = (Metric("end", "distribution", "", ends),)
    played = Chain(solution.transitions, *with_objective(chain.objective, lambda s: {"end": s}, metrics))
    n = 40_000
    out = played.sample(0, n, np.random.default_rng(seed))
    exact = played.exact(0)
    assert exact["objective"] == pytest.approx(solution.value, **CLOSE)
    assert within(out["objective"], exact["objective"])
    for e in ends:
        p = exact[f"end={e}"]
        assert abs(np.mean(out["end"] == e) - p) <= Z * math.sqrt(p * (1 - p) / n) + 1e-12


# --- limits and bad input -------------------------------------------------------------------------


def ladder(s: int):
    """A ladder of 5,000 rungs: at rung s, climb (on with 0.9, a fall ends it with 0 with 0.1) or
    stop (ends it with s). The final state of a stop at s is -1 - s; of a fall, -1; the top, 5000."""
    if s < 0 or s >= 5_000:
        return []
    return Choice({"climb": [(0.9, s + 1, ("rung",)), (0.1, -1, ("rung",))], "stop": [(1.0, -1 - s, ())]})


LADDER = Objective(lambda s: float(-1 - s) if s < 0 else float(s))


def test_too_many_states_is_refused_in_one_line():
    with pytest.raises(ChainTooLarge) as err:
        solve(ladder, 0, LADDER, max_states=100)
    assert str(err.value) == "more than 100 states"
    # from 4998: 4998, 4999, 5000 and the ends -1, -4999, -5000: six states
    assert solve(ladder, 4_998, LADDER, max_states=6).value == 4998.0
    with pytest.raises(ChainTooLarge, match="^more than 5 states$"):
        solve(ladder, 4_998, LADDER, max_states=5)
    # a fixed policy's value keeps to the same limit
    with pytest.raises(ChainTooLarge, match="^more than 100 states$"):
        evaluate(ladder, 0, LADDER, lambda state, choice: choice.names[0], max_states=100)


def test_a_chain_deeper_than_the_recursion_limit_is_solved():
    """Stopping at rung s is worth s; climbing, 0.9 x the next rung's value. From 10 on, stop:
    0.9 (s + 1) < s. At 9 they tie (0.9 x 10 = 9): "climb", listed first. At 8, climb: 8.1 > 8."""
    solution = solve(ladder, 0, LADDER)
    assert solution.size() == 5_001 + 5_000  # rungs 0..5000, ends -1..-5000
    assert [solution.policy[s] for s in (8, 9, 10, 4_999)] == ["climb", "climb", "stop", "stop"]
    assert solution.value == pytest.approx(9 * 0.9**9, rel=1e-14)


@pytest.mark.parametrize("weight", ["x", float("nan"), float("inf"), True, None])
def test_bad_objective_weights_are_refused(weight):
    with pytest.raises(InputError, match="^objective reward of tag 'kill' must be a finite number, not "):
        Objective(lambda s: 0.0, {"kill": weight})


def test_bad_objective_values_and_names_are_refused():
    with pytest.raises(InputError, match="non-empty words"):
        Objective(lambda s: 0.0, {"": 1.0})
    with pytest.raises(InputError, match="^the objective needs a name$"):
        Objective(lambda s: 0.0, name="")
    with pytest.raises(MonteCarloError, match="^the objective of final state 'stopped' is nan, not a finite"):
        solve(lambda s: [] if s == "stopped" else [(1.0, "stopped", ())], "go", Objective(lambda s: math.nan))
    with pytest.raises(MonteCarloError, match="already named 'face'"):
        with_objective(Objective(lambda s: 0.0, name="face"), lambda s: {}, (Metric("face", "mean", ""),))


def test_an_objective_keeps_a_read_only_copy_of_its_rewards_in_floats():
    """The caller's dict may change later (or hold ints): the objective solved is the one given."""
    given = {"kill": 2}
    objective = Objective(lambda s: 0.0, given)
    given["kill"] = 5
    assert dict(objective.rewards) == {"kill": 2.0} and type(objective.rewards["kill"]) is float
    with pytest.raises(TypeError):
        objective.rewards["kill"] = 3.0  # type: ignore[index]


def test_bad_choices_are_refused():
    with pytest.raises(MonteCarloError, match="^a Choice needs at least one option$"):
        Choice({})
    with pytest.raises(MonteCarloError, match="distinct non-empty names"):
        Choice([("a", [(1.0, 1, ())]), ("a", [(1.0, 2, ())])])
    for name in ("", 3):  # a name is a non-empty string
        with pytest.raises(MonteCarloError, match=re.escape(f"names, not ['a', {name!r}]")):
            Choice([("a", [(1.0, 1, ())]), (name, [(1.0, 2, ())])])
    with pytest.raises(MonteCarloError, match="^option 'half' of 0 have total probability 0.5, not 1$"):
        solve(lambda s: Choice({"half": [(0.5, 1, ())]}) if s == 0 else [], 0, Objective(float))
    # on a cycle (checked before the cycle is solved): the option, or the steps, and their state
    looping = {"loop": [(0.3, 0, ()), (0.3, 1, ())], "stop": [(1.0, 1, ())]}
    with pytest.raises(MonteCarloError, match="^option 'loop' of 0 have total probability 0.6, not 1$"):
        solve(lambda s: Choice(looping) if s == 0 else [], 0, Objective(float))
    back = {0: Choice({"go": [(1.0, 1, ())], "stop": [(1.0, 2, ())]}), 1: [(0.5, 0, ()), (0.4, 2, ())], 2: []}
    with pytest.raises(MonteCarloError, match="^the steps from 1 have total probability 0.9, not 1$"):
        solve(back.__getitem__, 0, Objective(float))
    short = {0: Choice({"go": [(0.5, 1, ()), (0.4, 2, ())], "stop": [(1.0, 2, ())]}),
             1: [(1.0, 0, ())], 2: []}
    with pytest.raises(MonteCarloError, match="^option 'go' of 0 have total probability 0.9, not 1$"):
        solve(short.__getitem__, 0, Objective(float))  # a decision state on a cycle of two


def test_a_solution_answers_only_for_states_it_has_seen():
    solution = solve(reroll, "start", REROLL)
    with pytest.raises(MonteCarloError, match="^7 cannot be reached from the solved start 'start'$"):
        solution.transitions(7)
    with pytest.raises(MonteCarloError, match="^'start' is not a decision state$"):
        solution.option_values("start")
    assert solution.value_at(6) == 6.0 and solution.value_at("start") == solution.value


def test_a_large_cycle_satisfies_the_optimality_equations():
    """A gambler on 0..120 (one cycle of ~120 states: the sparse solve) bets 1, 2 or 3 on a coin
    of 0.6 at a cost of 0.05 a bet, or stops with sqrt(purse); 0 and 120 end the play. Checked
    without the solver's arithmetic: its policy valued by numpy's dense solve equals its value,
    and no option beats that by more than rounding (the optimality equations: a proper policy
    that satisfies them is the best of all proper policies)."""
    top, p = 120, 0.6

    def gamble(s):
        if isinstance(s, str) or s in (0, top):
            return []
        bets = {f"bet {b}": [(p, min(s + b, top), ("bet",)), (1 - p, max(s - b, 0), ("bet",))]
                for b in (1, 2, 3)}
        return Choice({"stop": [(1.0, f"kept {s}", ())], **bets})

    def final(s):
        return math.sqrt(int(s.split()[1]) if isinstance(s, str) else s)

    objective = Objective(final, {"bet": -0.05})
    solution = solve(gamble, 60, objective)
    live = list(range(1, top))
    where = {s: i for i, s in enumerate(live)}
    A, b = np.eye(len(live)), np.zeros(len(live))
    for s in live:
        for q, nxt, tags in gamble(s).steps(solution.policy[s]):
            b[where[s]] += q * objective.reward(tags)
            if nxt in where:
                A[where[s], where[nxt]] -= q
            else:
                b[where[s]] += q * final(nxt)
    v = np.linalg.solve(A, b)
    value = {s: v[where[s]] for s in live} | {0: 0.0, top: final(top)}
    value.update({f"kept {s}": final(s) for s in live})
    assert solution.value == pytest.approx(value[60], **CLOSE)
    assert {"stop", "bet 1", "bet 2", "bet 3"} == set(solution.policy.values())  # stops and cycles
    for s in live:
        assert solution.value_at(s) == pytest.approx(value[s], **CLOSE)
        for name in gamble(s).names:
            q_value = sum(q * (objective.reward(tags) + value[nxt]) for q, nxt, tags in gamble(s).steps(name))
            assert q_value <= value[s] + 1e-12


def test_asking_a_choice_for_an_option_it_lacks_names_the_ones_it_has():
    choice = Choice({"retreat": [(1.0, 0, ())], "continue": [(0.5, 1, ()), (0.5, 2, ())]})
    assert choice.steps("retreat") == ((1.0, 0, ()),)
    with pytest.raises(MonteCarloError) as missing:
        choice.steps("surrender")
    assert str(missing.value) == "no option 'surrender'; the options are retreat, continue"


def test_options_tie_within_the_tolerance_relative_to_the_best_value():
    """TIE_TOLERANCE x max(1, |best|): 1e-12 around values up to 1, 1.5e-12 around 1.5."""
    tol = decisions.TIE_TOLERANCE
    assert decisions._first_best([1.5, 1.5 + 1.2 * tol]) == 0  # within 1.5e-12 of 1.5: a tie
    assert decisions._first_best([1.0, 1.0 + 1.5 * tol]) == 1  # beyond 1e-12 of 1: better
    assert decisions._first_best([0.2, 0.2 + 1.5 * tol]) == 1
    never = decisions.NEVER_ENDS
    assert decisions._first_best([never, never]) == 0  # every option may never end: the first
