"""Best play on an absorbing chain: the policy that maximises an objective, solved exactly.

A chain with decisions is described like any chain (:mod:`montecarlo.engine.chain`), except
that at a state where a player decides, ``transitions(state)`` returns a :class:`Choice`:
named options in a fixed order, each a list of steps ``(p, next_state, tags)``. Only one side
decides; every other step keeps the probabilities the rules (and the other side's stated
policy) give it, so the answer is a best response, not a two-player equilibrium.

An :class:`Objective` values each finished trial (``final(state) -> float``) and may reward
steps by their tags (``{"kill": 1.0}``, summed along the path). :func:`solve` finds the policy
with the largest expected objective from the start, and :class:`Solution` holds its value, the
policy, the value of every option at every decision state, and the chain under that policy as a
plain rule, so that :class:`~montecarlo.engine.chain.Chain` gives the exact values and the
sampler of every metric under best play.

Roll a die; keep the face or pay 1 to roll again, as often as you like:

>>> from montecarlo.engine.chain import Chain
>>> from montecarlo.engine.metrics import Metric
>>> def reroll(face):
...     if face in ("start", "stop"):
...         return [] if face == "stop" else [(1 / 6, f, ("roll",)) for f in range(1, 7)]
...     if isinstance(face, tuple):
...         return []
...     return Choice({"keep": [(1.0, ("kept", face), ())],
...                    "reroll": [(1 / 6, f, ("roll", "paid")) for f in range(1, 7)]})
>>> objective = Objective(lambda end: end[1], {"paid": -1.0})
>>> best = solve(reroll, "start", objective)
>>> round(best.value, 12)
4.0
>>> [best.policy[face] for face in range(1, 7)]
['reroll', 'reroll', 'keep', 'keep', 'keep', 'keep']
>>> {name: round(v, 12) for name, v in best.option_values(3).items()}  # a tie: the first listed
{'keep': 3.0, 'reroll': 3.0}
>>> metrics = (Metric("rolls", "mean", "dice rolled"),)
>>> chain = Chain(best.transitions, *with_objective(objective, lambda end: {}, metrics, {"rolls": "roll"}))
>>> {name: round(v, 12) for name, v in chain.exact("start").items()}
{'rolls': 1.5, 'objective': 4.0}

How it is solved: the states are walked from the start and split into strongly connected
components, each solved after every component it leads to. A state on no cycle (the usual case:
a round that changes something) is solved by backward recursion: each option's value is
``(r + sum p v(next)) / (1 - q)``, with ``r`` the expected reward of its steps and ``q`` the
probability that it stays put (a round that changes nothing, folded in exactly), and the state
takes the best option. Where a cycle runs through several states, policy iteration solves it:
each policy's values by one exact sparse linear solve, the policy improved where an option beats
the current one by more than the tie tolerance, until none does. A policy under which the
process may never end is never chosen: an option that can only come back for ever, or lead to a
state from which no play ends, is worth minus infinity.

Ties: an option is chosen only when no option is worth more by more than ``TIE_TOLERANCE`` x
max(1, |value|); among options within that tolerance of the best, the first listed wins (within
a cycle that changes nothing, the first listed that does not keep the play in it for ever). The
value reported is always the exact expected objective of the policy played.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Generic, Hashable, Iterable, Mapping, NoReturn, Sequence, TypeVar

import numpy as np

from montecarlo.engine.chain import DEFAULT_MAX_STATES, ChainTooLarge, Step, state_said
from montecarlo.engine.metrics import Metric
from montecarlo.errors import InputError, MonteCarloError

S = TypeVar("S", bound=Hashable)
TIE_TOLERANCE = 1e-12  # options within this (x max(1, |value|)) of the best tie; the first listed wins
MAX_POLICY_ROUNDS = 10_000  # policy iteration ends far sooner; this only guards against a bug
_DENSE_LIMIT = 64  # cycles through up to this many states are solved with a dense matrix
NEVER_ENDS = -math.inf  # the value of a state or option from which the play may go on for ever


@dataclass(frozen=True, init=False)
class Choice(Generic[S]):
    """The options of a decision state, in tie-break order (first listed wins a tie).

    Args:
        options: ``{name: [(p, next_state, tags), ...]}`` or ``[(name, steps), ...]``; a
            deterministic option is one step ``[(1.0, next_state, tags)]``.

    >>> Choice({"stop": [(1.0, "end", ())], "go": [(0.5, "win", ()), (0.5, "lose", ())]}).names
    ('stop', 'go')
    """

    options: tuple[tuple[str, tuple[Step[S], ...]], ...]
    names: tuple[str, ...]  # the option names, in order
    steps_by_option: tuple[tuple[Step[S], ...], ...]  # each option's steps, in the same order

    def __init__(self, options: Mapping[str, Sequence[Step[S]]] | Iterable[tuple[str, Sequence[Step[S]]]]):
        items = list(options.items() if isinstance(options, Mapping) else options)
        if not items:
            raise MonteCarloError("a Choice needs at least one option")
        names = [name for name, _ in items]
        if len(set(names)) != len(names) or not all(isinstance(n, str) and n for n in names):
            raise MonteCarloError(f"the options of a Choice need distinct non-empty names, not {names}")
        cleaned = tuple((name, tuple(step for step in steps if step[0] > 0)) for name, steps in items)
        object.__setattr__(self, "options", cleaned)
        object.__setattr__(self, "names", tuple(names))
        object.__setattr__(self, "steps_by_option", tuple(steps for _, steps in cleaned))

    def steps(self, name: str) -> tuple[Step[S], ...]:
        """The steps of one option."""
        for option, steps in self.options:
            if option == name:
                return steps
        raise MonteCarloError(f"no option {name!r}; the options are {', '.join(self.names)}")


@dataclass(frozen=True, eq=False)
class Objective(Generic[S]):
    """What best play maximises: ``E[final(final_state) + sum of the rewards of the steps]``.

    Args:
        final: the value of a finished trial, from its final state.
        rewards: ``{tag: weight}``: a step earns the sum of the weights of the tags it holds.
        name: the name of the metric that reports the objective (:func:`with_objective`).
        description: that metric's description.

    >>> Objective(lambda s: 0.0, {"kill": 1.0, "loss": -1.0}).reward(("roll", "kill"))
    1.0
    >>> Objective(lambda s: 0.0, {"kill": float("nan")})
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: objective reward of tag 'kill' must be a finite number, not nan
    """

    final: Callable[[S], float]
    rewards: Mapping[str, float] = field(default_factory=dict)
    name: str = "objective"
    description: str = "expected objective"

    def __post_init__(self) -> None:
        rewards = dict(self.rewards)
        for tag, weight in rewards.items():
            if not isinstance(tag, str) or not tag:
                raise InputError(f"objective reward tags must be non-empty words, not {tag!r}")
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight):
                raise InputError(f"objective reward of tag {tag!r} must be a finite number, not {weight!r}")
        object.__setattr__(self, "rewards", MappingProxyType({t: float(w) for t, w in rewards.items()}))
        if not self.name:
            raise InputError("the objective needs a name")

    def reward(self, tags: tuple[str, ...]) -> float:
        """The reward of one step with these tags."""
        return float(sum(w for tag, w in self.rewards.items() if tag in tags))

    def value(self, state: Any) -> float:
        """The value of a finished trial, checked to be a finite number."""
        got = self.final(state)
        if isinstance(got, (bool, np.bool_)):
            got = float(got)
        if not isinstance(got, (int, float, np.integer, np.floating)) or not math.isfinite(got):
            raise MonteCarloError(
                f"the objective of final state {state_said(state)} is {got!r}, not a finite number"
            )
        return float(got)

    def metric(self) -> Metric:
        """The ``mean`` metric that reports the objective."""
        return Metric(self.name, "mean", self.description)


def with_objective(
    objective: Objective,
    outcome: Callable[[Any], Mapping[str, Any]],
    metrics: Sequence[Metric],
    counters: Mapping[str, Any] | None = None,
) -> tuple[Callable[[Any], dict[str, Any]], tuple[Metric, ...], dict[str, Any]]:
    """A chain's ``(outcome, metrics, counters)`` with the objective added as a mean metric.

    Per trial the metric is ``final(final_state)`` plus the weights of the tags of every step
    taken (a weighted counter), so its exact value under a solved policy is ``Solution.value``.
    """
    counters = dict(counters or {})
    if any(objective.name in m.reported_names() for m in metrics) or objective.name in counters:
        raise MonteCarloError(f"a metric is already named {objective.name!r}: name the objective otherwise")

    def outcome_and_objective(state: Any) -> dict[str, Any]:
        values = dict(outcome(state))
        values[objective.name] = objective.value(state)
        return values

    if objective.rewards:
        counters[objective.name] = dict(objective.rewards)
    return outcome_and_objective, (*metrics, objective.metric()), counters


@dataclass(frozen=True, eq=False)
class Solution(Generic[S]):
    """Best play from ``start``: its value, its policy, and the chain it plays.

    ``policy`` maps every decision state reachable from the start (under any play) to the
    option chosen there; :meth:`transitions` is the rule of the chain under that policy.
    """

    start: S
    value: float  # the expected objective from start under the policy (the optimum)
    policy: Mapping[S, str]
    _values: Mapping[S, float] = field(repr=False)
    _options: Mapping[S, tuple[tuple[str, float], ...]] = field(repr=False)
    _steps: Mapping[S, tuple[Step[S], ...]] = field(repr=False)

    def value_at(self, state: S) -> float:
        """The expected objective from ``state`` on, under best play (-inf: it may never end)."""
        return self._values[self._known(state)]

    def option_values(self, state: S) -> dict[str, float]:
        """At a decision state: the value of each option, in option order.

        An option's value is the expected objective of taking it here once and playing best
        afterwards (a step that stays put leaves the choice to best play); -inf where the option
        can only stay put or the play may never end. Best play's own option is worth its value.
        """
        if self._known(state) not in self._options:
            raise MonteCarloError(f"{state_said(state)} is not a decision state")
        return dict(self._options[state])

    def transitions(self, state: S) -> tuple[Step[S], ...]:
        """The chain under the policy: a decision state's steps are those of its chosen option."""
        return self._steps[self._known(state)]

    def size(self) -> int:
        """The number of states reachable from the start (under any play)."""
        return len(self._steps)

    def visits(self) -> dict[S, float]:
        """How often best play meets each state it can reach from the start: the expected number
        of visits (a state met at most once: the chance of meeting it; one met again after a
        step that stays put counts each time). Solved exactly as one sparse linear system over
        the chain it plays, ``n = e_start + Q^T n``.

        >>> def coin(state):  # flip until heads; at 2 tails, choose to stop or flip on
        ...     if state in ("heads", "stopped"):
        ...         return []
        ...     if state == 2:
        ...         flip = [(0.5, "heads", ()), (0.5, 2, ())]
        ...         return Choice({"stop": [(1.0, "stopped", ())], "flip": flip})
        ...     return [(0.5, "heads", ()), (0.5, state + 1, ())]
        >>> best = solve(coin, 0, Objective(lambda end: 1.0 if end == "heads" else 0.0))
        >>> {state: round(n, 12) for state, n in best.visits().items()}
        {0: 1.0, 'heads': 1.0, 1: 0.5, 2: 0.5}
        """
        import scipy.sparse as sparse
        from scipy.sparse.linalg import spsolve

        index: dict[S, int] = {self.start: 0}
        work = [self.start]
        rows, cols, probs = [], [], []
        while work:
            state = work.pop()
            for p, nxt, _tags in self._steps[state]:
                if nxt not in index:
                    index[nxt] = len(index)
                    work.append(nxt)
                rows.append(index[nxt])
                cols.append(index[state])
                probs.append(p)
        size = len(index)
        flow = sparse.csr_matrix((probs, (rows, cols)), shape=(size, size))
        start = np.zeros(size)
        start[0] = 1.0
        counts = np.atleast_1d(spsolve((sparse.identity(size, format="csr") - flow).tocsc(), start))
        return {state: float(counts[i]) for state, i in index.items()}

    def _known(self, state: S) -> S:
        if state not in self._steps:
            raise MonteCarloError(
                f"{state_said(state)} cannot be reached from the solved start {state_said(self.start)}"
            )
        return state


def follow(
    transitions: Callable[[S], Sequence[Step[S]] | Choice[S]],
    policy: Mapping[S, str] | Callable[[S, Choice[S]], str],
) -> Callable[[S], tuple[Step[S], ...]]:
    """The plain rule that plays a fixed ``policy`` (``{state: option}`` or ``(state, choice) ->
    option``) at every decision state: a chain of its own, or a :func:`solve` input to value it.
    """

    def rule(state: S) -> tuple[Step[S], ...]:
        got = transitions(state)
        if not isinstance(got, Choice):
            return tuple(got)
        if callable(policy):
            name = policy(state, got)
        elif state in policy:
            name = policy[state]
        else:
            raise MonteCarloError(f"the policy has no option for decision state {state_said(state)}")
        return got.steps(name)

    return rule


def evaluate(
    transitions: Callable[[S], Sequence[Step[S]] | Choice[S]],
    start: S,
    objective: Objective,
    policy: Mapping[S, str] | Callable[[S, Choice[S]], str],
    *,
    max_states: int = DEFAULT_MAX_STATES,
) -> float:
    """The exact expected objective of a fixed policy (to set beside :func:`solve`'s optimum)."""
    return solve(follow(transitions, policy), start, objective, max_states=max_states).value


def solve(
    transitions: Callable[[S], Sequence[Step[S]] | Choice[S]],
    start: S,
    objective: Objective,
    *,
    max_states: int = DEFAULT_MAX_STATES,
) -> Solution[S]:
    """The policy that maximises the expected objective from ``start``: see the module docstring.

    Raises:
        ChainTooLarge: more than ``max_states`` states are reachable from the start.
        MonteCarloError: steps whose probabilities do not sum to 1; no play from the start ever
            ends; a positive reward inside a cycle where a player decides (best play could
            collect it for ever).
    """
    return _Solver(transitions, objective, max_states).run(start)


class _Rewards(dict):
    """tags -> the reward of a step with those tags, memoised."""

    def __init__(self, objective: Objective) -> None:
        super().__init__()
        self.objective = objective

    def __missing__(self, tags: tuple[str, ...]) -> float:
        got = self[tags] = self.objective.reward(tags)
        return got


class _BadTotal(Exception):
    """The probabilities of an option's steps do not sum to 1 (the caller names the option)."""


def _folded(
    state: Any, steps: Sequence[Step[Any]], values: Mapping[Any, float], rewards: _Rewards | None
) -> float:
    """An option's value, taken again each time it stays put: (r + sum p v(next)) / (1 - q).

    One pass over the steps, which also checks that their probabilities sum to 1.
    """
    stay = total = weight = 0.0
    if rewards is None:
        for p, nxt, _ in steps:
            weight += p
            if nxt == state:
                stay += p
            else:
                total += p * values[nxt]
    else:
        for p, nxt, tags in steps:
            weight += p
            total += p * rewards[tags]
            if nxt == state:
                stay += p
            else:
                total += p * values[nxt]
    if abs(weight - 1.0) > 1e-9:
        raise _BadTotal(weight)
    if stay == 0.0:
        return total
    if stay == weight:  # every step stays put: taken for ever
        return NEVER_ENDS
    return total / (1.0 - stay)


class _Solver(Generic[S]):
    """One solve: the walk, the values, the policy (state -> index of the option chosen)."""

    def __init__(self, transitions: Callable[[S], Any], objective: Objective, max_states: int) -> None:
        self.transitions = transitions
        self.objective = objective
        self.max_states = max_states
        self.options: dict[S, Sequence[tuple[Step[S], ...]]] = {}  # per state, each option's steps
        self.names: dict[S, tuple[str, ...]] = {}  # decision states only
        self.value: dict[S, float] = {}
        self.option_values: dict[S, list[float]] = {}
        self.choice: dict[S, int] = {}
        self.rewards = _Rewards(objective) if objective.rewards else None

    # --- the walk -------------------------------------------------------------------------------

    def read(self, state: S) -> Sequence[tuple[Step[S], ...]]:
        """A state's options (one for a chance state, none for a final state)."""
        got = self.transitions(state)
        if isinstance(got, Choice):
            self.names[state] = got.names
            return got.steps_by_option
        steps = tuple([step for step in got if step[0] > 0])
        return (steps,) if steps else ()

    def check(self, state: S, k: int) -> None:
        """Option ``k`` of a state on a cycle: its probabilities must sum to 1."""
        total = sum([p for p, _, _ in self.options[state][k]])
        if abs(total - 1.0) > 1e-9:
            self._bad_total(state, k, total)

    def _bad_total(self, state: S, k: int, total: float) -> NoReturn:
        names = self.names.get(state)
        said = state_said(state)
        where = f"option {names[k]!r} of {said}" if names else f"the steps from {said}"
        raise MonteCarloError(f"{where} have total probability {total}, not 1")

    def folded(self, state: S, k: int, values: Mapping[S, float]) -> float:
        """The value of option ``k`` of ``state`` (see :func:`_folded`), its probabilities checked."""
        try:
            return _folded(state, self.options[state][k], values, self.rewards)
        except _BadTotal as bad:
            self._bad_total(state, k, bad.args[0])

    def run(self, start: S) -> Solution[S]:
        """Tarjan's strongly connected components, iteratively; each solved as it closes."""
        options, index, low = self.options, {}, {}
        stack: list[S] = []
        on_stack: set[S] = set()

        def visit(state: S) -> Any:
            if len(index) >= self.max_states:
                raise ChainTooLarge(f"more than {self.max_states:,} states")
            index[state] = low[state] = len(index)
            stack.append(state)
            on_stack.add(state)
            got = options[state] = self.read(state)
            return (nxt for steps in got for _, nxt, _ in steps)  # repeats and self-loops do no harm

        work = [(start, visit(start))]
        while work:
            state, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    work.append((nxt, visit(nxt)))
                    break
                if nxt in on_stack and index[nxt] < low[state]:
                    low[state] = index[nxt]
            else:
                work.pop()
                if work and low[state] < low[work[-1][0]]:
                    low[work[-1][0]] = low[state]
                if low[state] == index[state]:
                    if stack[-1] == state:  # a component of one state: the usual case
                        stack.pop()
                        on_stack.discard(state)
                        self.solve_state(state)
                    else:
                        at = len(stack) - 1 - stack[::-1].index(state)
                        component = stack[at:]
                        del stack[at:]
                        on_stack.difference_update(component)
                        self.solve_cycle(component)
        if self.value[start] == NEVER_ENDS:
            raise MonteCarloError(f"from {state_said(start)} the play may never end, whatever the choices")
        return self.solution(start)

    # --- states on no cycle: backward recursion ---------------------------------------------------

    def solve_state(self, state: S) -> None:
        options = self.options[state]
        if not options:
            self.value[state] = self.objective.value(state)
        elif state in self.names:
            values = [self.folded(state, k, self.value) for k in range(len(options))]
            self.option_values[state] = values
            self.choice[state] = best = _first_best(values)
            self.value[state] = values[best]
        else:
            self.value[state] = self.folded(state, 0, self.value)

    # --- cycles through several states: policy iteration ----------------------------------------

    def solve_cycle(self, component: list[S]) -> None:
        """Policy iteration over one strongly connected component (everything it leads to solved).

        Each policy is valued by one sparse solve; every option of every state is valued at once
        (one sparse product) to improve it, where an option beats the current one by more than
        the tie tolerance. The tie rule then picks, among the options within the tolerance of the
        best, the first listed that keeps the play proper (sure to end).
        """
        member = dict.fromkeys(component)
        allowed = self.viable(component, member)
        live = [s for s in component if s in allowed]
        for s in component:
            if s not in allowed:
                self.value[s] = NEVER_ENDS
        if not live:  # no play from here ever ends
            for s in component:
                if s in self.names:
                    self.choice[s] = 0
                    self.option_values[s] = [NEVER_ENDS] * len(self.options[s])
            return
        self.check_rewards(component, member)
        cycle = _Cycle(self, live, allowed)  # also checks every option's probabilities
        rows = self.proper_rows(cycle, live, allowed)
        before = rows.copy()
        for _ in range(MAX_POLICY_ROUNDS):
            trapped = cycle.trapped(rows)
            if trapped.size:  # pragma: no cover - only rounding could close a cycle of no reward: undo
                rows[trapped] = before[trapped]
                continue
            values = cycle.evaluate(rows)
            before = rows.copy()
            worth = cycle.worth(values)
            best = np.maximum.reduceat(worth, cycle.first)
            better = best > values + _tolerances(values)
            if not better.any():
                break
            rows[better] = cycle.first_within(worth, best)[better]
        else:  # pragma: no cover - policy iteration is finite
            raise MonteCarloError("policy iteration did not settle")
        # the tie rule: the first listed option within the tolerance of the best, kept proper
        worth = cycle.worth(values)
        best = np.maximum.reduceat(worth, cycle.first)
        tied = worth >= np.repeat(best - _tolerances(best), np.diff(np.append(cycle.first, worth.size)))
        ties = {s: [int(cycle.option[r]) for r in np.flatnonzero(tied[a:b]) + a]
                for s, a, b in zip(live, cycle.first.tolist(), [*cycle.first[1:].tolist(), worth.size])}
        rows = self.proper_rows(cycle, live, ties)
        values = cycle.evaluate(rows)
        worth = cycle.worth(values)
        self.value.update(zip(live, values.tolist()))
        chosen = dict(zip(live, cycle.option[rows].tolist()))
        by_row = dict(zip(zip(cycle.state.tolist(), cycle.option.tolist()), worth.tolist()))
        for s in component:
            if s in self.names:
                self.choice[s] = chosen.get(s, 0)
                at = cycle.index.get(s)
                self.option_values[s] = [by_row.get((at, k), NEVER_ENDS) for k in range(len(self.options[s]))]

    def viable(self, component: list[S], member: Mapping[S, Any]) -> dict[S, list[int]]:
        """States of the component from which some policy ends for sure, with the options that keep
        it so (every step to such a state, some step out of the state): almost-sure reachability.
        """
        alive = dict.fromkeys(component)
        value = self.value
        while True:
            allowed: dict[S, list[int]] = {}
            for s in alive:
                ok = [
                    k
                    for k, steps in enumerate(self.options[s])
                    if any(nxt != s for _, nxt, _ in steps)
                    and all((n in alive) if n in member else value[n] != NEVER_ENDS for _, n, _ in steps)
                ]
                if ok:
                    allowed[s] = ok
            reach = self.reaching(list(allowed), allowed, member)
            if len(reach) == len(alive):
                return allowed
            alive = dict.fromkeys(s for s in alive if s in reach)

    def reaching(
        self, states: list[S], options: Mapping[S, list[int]], member: Mapping[S, Any]
    ) -> dict[S, int]:
        """The states that can leave ``member`` by ``options`` only, each with an option that brings
        it one step closer to the way out (the first listed among those of its layer)."""
        reached: dict[S, int] = {}
        back: dict[S, list[tuple[S, int]]] = {}  # state -> (predecessor, option) within member
        for s in states:
            for k in options[s]:
                for _, nxt, _ in self.options[s][k]:
                    if nxt == s:
                        continue
                    if nxt not in member:
                        if s not in reached:
                            reached[s] = k
                    else:
                        back.setdefault(nxt, []).append((s, k))
        layer = list(reached)
        while layer:
            found: dict[S, int] = {}
            for t in layer:
                for s, k in back.get(t, ()):
                    if s not in reached and k < found.get(s, k + 1):
                        found[s] = k
            reached.update(found)
            layer = list(found)
        return reached

    def proper_rows(self, cycle: _Cycle, live: list[S], preferred: Mapping[S, list[int]]) -> np.ndarray:
        """The first preferred option everywhere; where that never leaves the component, the first
        preferred option that leads out (through states that do)."""
        choice = {s: preferred[s][0] for s in live}
        rows = cycle.rows(choice)
        trapped = [live[i] for i in cycle.trapped(rows).tolist()]
        if trapped:
            fix = self.reaching(trapped, preferred, dict.fromkeys(trapped))
            if len(fix) < len(trapped):  # pragma: no cover - the viable options always lead out
                raise MonteCarloError("no proper policy among the best options")
            choice.update(fix)
            rows = cycle.rows(choice)
        return rows

    def check_rewards(self, component: list[S], member: Mapping[S, Any]) -> None:
        """Policy iteration needs every cycle a player can close to earn nothing positive."""
        rewards = self.rewards
        if rewards is None or not any(s in self.names for s in component):
            return
        for s in component:
            for steps in self.options[s]:
                for _, nxt, tags in steps:
                    if nxt in member and nxt != s and rewards[tags] > 0:
                        raise MonteCarloError(
                            f"the step from {state_said(s)} to {state_said(nxt)} earns {rewards[tags]} "
                            "inside a cycle where a player decides: best play could collect it for ever "
                            "(rewards in such a cycle must not be positive)"
                        )

    # --- the answer -------------------------------------------------------------------------------

    def once(self, state: S, k: int, folded: float) -> float:
        """The value of taking option ``k`` of ``state`` once and playing best afterwards, from its
        value taken again each time it stays put (``folded``, what the policy is chosen by): a
        step that stays put is worth best play's value here. Equal for the option chosen, and
        never above it, so the choice is the same; an option that can only stay put, or from
        which the play may never end, stays at minus infinity."""
        if folded == NEVER_ENDS:
            return NEVER_ENDS
        stay = sum(p for p, nxt, _ in self.options[state][k] if nxt == state)
        if stay == 0.0:
            return folded
        # folded = (r + sum p v(next)) / (1 - stay), so r + sum p v(next) = folded * (1 - stay)
        return folded * (1.0 - stay) + stay * self.value[state]

    def solution(self, start: S) -> Solution[S]:
        policy, steps = {}, {}
        for s, options in self.options.items():
            if s in self.names:
                k = self.choice[s]
                policy[s] = self.names[s][k]
                steps[s] = options[k]
            else:
                steps[s] = options[0] if options else ()
        option_values = {
            s: tuple(zip(names, [self.once(s, k, v) for k, v in enumerate(self.option_values[s])]))
            for s, names in self.names.items()
        }
        return Solution(
            start,
            self.value[start],
            MappingProxyType(policy),
            MappingProxyType(self.value),
            MappingProxyType(option_values),
            MappingProxyType(steps),
        )


class _Cycle:
    """The options of a component's live states as arrays: option r of state ``state[r]`` is worth
    ``(const[r] + moves[r] @ v) / (1 - stay[r])``, with ``v`` the values of the live states.

    ``moves`` is a dense array for a component of up to ``_DENSE_LIMIT`` states (the usual small
    cycle: no scipy needed, nor imported), else a sparse matrix.
    """

    def __init__(self, solver: _Solver, live: list[Any], allowed: Mapping[Any, list[int]]) -> None:
        self.index = index = {s: i for i, s in enumerate(live)}
        self.n = len(live)
        value, rewards = solver.value, solver.rewards
        state, option, const, stay, leaves = [], [], [], [], []
        rows, cols, probs = [], [], []
        first = []
        for i, s in enumerate(live):
            first.append(len(state))
            options = solver.options[s]
            for k in range(len(options)):
                solver.check(s, k)
            for k in allowed[s]:
                r = len(state)
                state.append(i)
                option.append(k)
                total = here = 0.0
                out = False
                for p, nxt, tags in options[k]:
                    if rewards is not None:
                        total += p * rewards[tags]
                    if nxt == s:
                        here += p
                        continue
                    j = index.get(nxt)
                    if j is None:
                        total += p * value[nxt]
                        out = True
                    else:
                        rows.append(r)
                        cols.append(j)
                        probs.append(p)
                const.append(total)
                stay.append(here)
                leaves.append(out)
        self.state, self.option = np.array(state), np.array(option)
        self.const, self.stay, self.leaves = np.array(const), np.array(stay), np.array(leaves)
        self.first = np.array(first)
        self.row_of = {(i, k): r for r, (i, k) in enumerate(zip(state, option))}
        self.dense = self.n <= _DENSE_LIMIT
        if self.dense:
            self.moves = np.zeros((len(state), self.n))
            np.add.at(self.moves, (np.array(rows, dtype=np.intp), np.array(cols, dtype=np.intp)), probs)
        else:
            from scipy.sparse import csr_matrix

            self.moves = csr_matrix((probs, (rows, cols)), shape=(len(state), self.n))

    def rows(self, choice: Mapping[Any, int]) -> np.ndarray:
        """The row of each live state's chosen option."""
        row_of = self.row_of
        return np.array([row_of[i, choice[s]] for s, i in self.index.items()], dtype=np.intp)

    def trapped(self, rows: np.ndarray) -> np.ndarray:
        """The live states from which the policy ``rows`` never leaves the component."""
        if self.dense:
            steps = self.moves[rows] > 0  # [i, j]: state i steps to state j
            reaching = self.leaves[rows].copy()  # states that can leave, directly or through others
            while True:
                grown = reaching | steps[:, reaching].any(axis=1)
                if (grown == reaching).all():
                    return np.flatnonzero(~reaching)
                reaching = grown
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import breadth_first_order

        n = self.n
        edges = self.moves[rows].tocoo()
        exits = np.flatnonzero(self.leaves[rows])
        backwards = csr_matrix(  # j -> i for every step i -> j, and a way out -> every state leaving
            (np.ones(edges.nnz + exits.size), (np.append(edges.col, np.full(exits.size, n)),
                                               np.append(edges.row, exits))),
            shape=(n + 1, n + 1),
        )
        reached = np.zeros(n + 1, dtype=bool)
        reached[breadth_first_order(backwards, n, directed=True, return_predecessors=False)] = True
        return np.flatnonzero(~reached[:n])

    def evaluate(self, rows: np.ndarray) -> np.ndarray:
        """The values of the live states under a proper policy ``rows``: one exact linear solve."""
        if self.dense:
            matrix = np.eye(self.n) - self.moves[rows]
            matrix[np.diag_indices(self.n)] -= self.stay[rows]
            return np.linalg.solve(matrix, self.const[rows])
        from scipy.sparse import identity
        from scipy.sparse.linalg import spsolve

        matrix = identity(self.n, format="csr") - self.moves[rows]
        matrix.setdiag(matrix.diagonal() - self.stay[rows])
        return np.asarray(spsolve(matrix.tocsc(), self.const[rows]))

    def worth(self, values: np.ndarray) -> np.ndarray:
        """Every option's value given the live states' values (taken again while it stays put)."""
        return (self.const + self.moves @ values) / (1.0 - self.stay)

    def first_within(self, worth: np.ndarray, best: np.ndarray) -> np.ndarray:
        """Per live state, the first row within the tie tolerance of ``best``."""
        sizes = np.diff(np.append(self.first, worth.size))
        ok = worth >= np.repeat(best - _tolerances(best), sizes)
        return np.minimum.reduceat(np.where(ok, np.arange(worth.size), worth.size), self.first)


def as_good(a: float, b: float) -> bool:
    """Two exact values of a choice equal but for rounding: within the solver's tie tolerance of
    each other (the advice's "as good").

    >>> as_good(0.3, 0.1 + 0.2), as_good(0.3, 0.3 + 1e-9)
    (True, False)
    """
    return abs(a - b) <= TIE_TOLERANCE * max(1.0, abs(a), abs(b))


def _tolerances(values: np.ndarray) -> np.ndarray:
    return TIE_TOLERANCE * np.maximum(1.0, np.abs(values))


def _tolerance(value: float) -> float:
    return TIE_TOLERANCE * max(1.0, abs(value)) if math.isfinite(value) else 0.0


def _first_best(values: Sequence[float]) -> int:
    """The first option within the tie tolerance of the best."""
    top = max(values)
    floor = top - _tolerance(top)
    return next(i for i, v in enumerate(values) if v >= floor)
