"""Absorbing Markov chains: exact values and a fast sampler from one description.

A game describes a random process that ends (a duel, a battle) by three things:

- a start state: any hashable value; a ``NamedTuple`` gives the fields names;
- ``transitions(state) -> [(probability, next_state, tags), ...]``: the next step, empty for a
  final state. ``tags`` is a tuple of words naming what the step was (``("roll", "tie")``);
- ``outcome(final_state) -> {metric: value}``: the per-trial values a final state fixes (who
  won, who is left).

and names, in ``counters``, the metrics that count tagged steps along the way (``{"rounds":
"roll"}``). From that one description :class:`Chain` gives the exact expected value of every
metric (:meth:`Chain.exact`), the distribution of final states (:meth:`Chain.absorption`) and a
vectorised sampler (:meth:`Chain.sample`). The states are found by walking the rule, as in
icepool's ``absorbing_markov_chain``.

>>> from typing import NamedTuple
>>> from montecarlo.engine.metrics import Metric
>>> class Coins(NamedTuple):  # flip until two heads in a row
...     run: int
>>> def flip(s):
...     if s.run == 2:
...         return []
...     return [(0.5, Coins(s.run + 1), ("flip",)), (0.5, Coins(0), ("flip",))]
>>> chain = Chain(flip, lambda s: {"done": True},
...               (Metric("done", "probability", ""), Metric("flips", "mean", "")), {"flips": "flip"})
>>> chain.exact(Coins(0))
{'done': 1.0, 'flips': 6.0}

How the sampler works: every live state gets a code; a trial's state is stored as ``code << 8``
in a small unsigned int. One step XORs a fresh random byte into the low 8 bits and looks the
result up in a table that holds the next ``(code << 8) | tag_id``. A byte picks one of 256 equal
slices of [0, 1); the rare slice that holds a boundary between two outcomes leads to a helper row
that the next byte refines, three levels deep, so step probabilities are rounded to multiples of
2**-24 (an error below 1e-7 per step). XOR with a fixed tag id keeps the next byte uniform.
Finished trials leave the active set on a schedule planned from the chain's exact survival curve.

Counters cost nothing per step when the count of a tag is the same on every path to a state (the
engine checks this on the walk) and every self-loop carries the same tags: the count is then read
off the final state plus the number of self-loops taken (one flag per step). Otherwise the
counter is added up step by step from the tag ids.

A counter may weigh its tags, ``{"objective": {"kill": 1.0, "loss": -1.0}}``: a step adds the
weights of the tags it holds, and the count starts from the outcome's value for the counter's
name, when the outcome gives one (a final value plus rewards along the way: see
:mod:`montecarlo.engine.decisions`). The sampler counts each weighted tag like a plain counter
and adds the weights up at the end.

>>> chain = Chain(flip, lambda s: {"score": 10.0},
...               (Metric("score", "mean", ""),), {"score": {"flip": -0.5}})
>>> chain.exact(Coins(0))
{'score': 7.0}
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable, Generic, Hashable, Iterator, Mapping, Sequence, TypeVar

import numpy as np

from montecarlo.engine.metrics import Metric
from montecarlo.errors import MonteCarloError

State = Hashable
S = TypeVar("S", bound=Hashable)  # a chain's state type (its rule's argument)
T = TypeVar("T")
Step = tuple[float, S, tuple[str, ...]]  # generic alias: Step[S]; a bare Step is Step[Any]

SCALE_BITS = 24  # step probabilities are quantised to multiples of 2**-24
_LEVELS = -(-SCALE_BITS // 8)  # a sampler row's slices narrow 256-fold a level: single values at the last
STEP_COST, COMPACT_COST = 1.0, 3.0  # relative cost per trial of a step and of a compaction
DEFAULT_MAX_STATES = 250_000
# The sampler's walks stop with an error past a bound that no walk of a sound chain reaches: the
# bound is checked after FIRST_STEP_CHECK table steps, then set from the chain's longest expected
# walk h (in chain steps). From any state a walk outlives 2h steps with probability at most 1/2
# (Markov's inequality), so it outlives 2h * TAIL_HALVINGS steps with probability at most
# 2**-TAIL_HALVINGS; a chain step takes at most SCALE_BITS / 8 table steps (a byte a step), and
# ROUNDING_MARGIN covers the table's rounding of step probabilities.
FIRST_STEP_CHECK = 12_288
TAIL_HALVINGS, ROUNDING_MARGIN = 64, 2
TABLE_STEPS_PER_STEP = SCALE_BITS // 8

# A chunk of at most WALK_MOST_TRIALS trials is walked step by step instead of through a
# compiled table when its expected steps are at most WALK_MOST_STEPS and fewer than
# WALK_STEPS_A_STATE times the states its start reaches (see Chain._walk_pays).
WALK_MOST_TRIALS, WALK_MOST_STEPS, WALK_STEPS_A_STATE = 1024, 65_536, 64
# A start whose compiled table would have more rows than this is walked (a row is 256 entries;
# compiling took about 13 KB a row at its peak: a counted battle of 30 dice a side, 86,000
# rows, 1.1 GB and 8 s). The largest of the default reports has 1,870; Risk 100 v 100 25,300.
TABLE_MOST_ROWS = 1 << 15
# Only a point's first chunk is walked (see first_chunk): its later ones reuse the table.
_FIRST_CHUNK: ContextVar[bool] = ContextVar("montecarlo_first_chunk", default=True)


@contextmanager
def first_chunk(first: bool) -> Iterator[None]:
    """Inside, :meth:`Chain.sample` knows whether it draws a point's first chunk (the runner says
    so): a later chunk never walks, as a table compiled for it is reused by every chunk after.

    Why: a precision run of 1,000-trial chunks on Risk 30 against 30 walked its 228 chunks in
    3.9 s, against 1.0 s with one table. Which chunk is first is part of the run's plan, so the
    choice stays a function of the seed.
    """
    token = _FIRST_CHUNK.set(first)
    try:
        yield
    finally:
        _FIRST_CHUNK.reset(token)


# The walk-or-table choices of a chunk's first arm, in the order its samples made them, and the
# position of the arm running now (see one_arm): every arm of a chunk then chooses alike.
_ARM_CHOICES: ContextVar[tuple[list[bool], list[int]] | None] = ContextVar(
    "montecarlo_arm_choices", default=None
)


@contextmanager
def one_arm(choices: list[bool]) -> Iterator[None]:
    """Inside, :meth:`Chain.sample` walks or compiles as the chunk's first arm did at the same
    call: ``choices`` starts empty for a chunk and is shared by its arms, run one after the other.

    Why: each arm chose for its own chain, so along the contour where one variant walks and the
    other compiles, two arms drew their numbers differently and lost their pairing (Risk 75
    against 75, chunks of 1,000: the paired standard error of rounds 0.0280 against 0.0205).
    The first arm's choices are part of the run's plan, so the numbers stay a function of the seed.
    """
    token = _ARM_CHOICES.set((choices, [0]))
    try:
        yield
    finally:
        _ARM_CHOICES.reset(token)


def _byte_rows(cums, targets, flags, block: int = 2048) -> tuple[np.ndarray, np.ndarray]:
    """The sampler's rows, 256 slices of [0, 2**SCALE_BITS) a row, one row per live state (in
    order), then a row for each slice that holds a step boundary (its 256 sub-slices), level by level.

    ``cums[i]``: live state i's step boundaries (cumulative, the last 2**SCALE_BITS); ``targets[i]``
    and ``flags[i]``: the code of each step's state (final states negative) and its flag. Returns
    each row's next codes and flags (rows x 256): a slice within one step goes to that step's state
    with its flag, a slice across a boundary to its own row with flag 0. All the rows of a level are
    worked out together (``block`` rows at a time, for memory): a row at a time, one numpy call
    each, took about two thirds of the time of compiling a War for Arrakis battle.
    """
    if not cums:  # the start is final: no live state
        return np.zeros((0, 256), dtype=np.int64), np.zeros((0, 256), dtype=np.int64)
    lengths = np.array([len(c) for c in cums], dtype=np.int64)
    shift = SCALE_BITS + 1  # each state's boundaries apart from the others': state i's at i << shift
    bounds = np.concatenate(cums) + np.repeat(np.arange(len(cums), dtype=np.int64) << shift, lengths)
    goes = np.concatenate([np.asarray(t, dtype=np.int64) for t in targets])
    flagged = np.concatenate([np.asarray(f, dtype=np.int64) for f in flags])
    slices = np.arange(256, dtype=np.int64)
    level_next, level_flag = [], []
    origin = np.arange(len(cums), dtype=np.int64) << shift  # where each row of a level starts
    width, count = 1 << SCALE_BITS, len(cums)
    # a level's slices are apart, so each holds its own boundary: at most one new row a boundary a
    # level (not a state's last, the end of its range), and the last level (single units) makes none
    most = count + (_LEVELS - 1) * (bounds.size - count)
    for _ in range(_LEVELS):
        if not origin.size:
            break
        step = width >> 8
        found_next, found_flag, found_origin = [], [], []
        for at in range(0, origin.size, block):
            starts = origin[at : at + block, None] + step * slices
            first = np.searchsorted(bounds, starts, side="right")
            across = first != np.searchsorted(bounds, starts + (step - 1), side="right")
            row_next, row_flag = goes[first], flagged[first]
            new = int(np.count_nonzero(across))
            row_next[across] = count + np.arange(new)  # rows numbered in the order they are found
            row_flag[across] = 0
            count += new
            if count > most:  # a broken edit, not a chain: fail before memory runs out
                raise RuntimeError("internal error: the sampler's rows outnumber its steps")
            found_next.append(row_next)
            found_flag.append(row_flag)
            found_origin.append(starts[across])
        level_next += found_next
        level_flag += found_flag
        origin, width = np.concatenate(found_origin), step
    if origin.size:  # a slice of one value cannot hold a boundary: a broken edit, not a chain
        raise RuntimeError("internal error: the sampler's rows go deeper than its scale")
    return np.concatenate(level_next), np.concatenate(level_flag)


def _scaled_bounds(steps: Sequence[Step[Any]]) -> np.ndarray:
    """A live state's step boundaries as the sampler's table cuts them: cumulative, in units of
    2**-SCALE_BITS, the last exactly 2**SCALE_BITS."""
    cum = np.rint(np.cumsum([p for p, _, _ in steps]) * (1 << SCALE_BITS)).astype(np.int64)
    cum[-1] = 1 << SCALE_BITS
    return cum


class _Cycle(Exception):
    """A walk came back to a state on its own path (not a self-loop)."""


class ChainTooLarge(MonteCarloError):
    """The chain is too large to solve: more states than the limit (``why`` None), or what
    ``why`` says, as the end of "exact value unavailable because ..." (a rule's own limit, such
    as a state whose steps would take too long to list). Simulate it another way."""

    def __init__(self, message: str, why: str | None = None) -> None:
        super().__init__(message)
        self.why = why

    def __reduce__(self) -> Any:
        return type(self), (str(self), self.why)


class _MemoFull(ChainTooLarge):
    """The memo of steps holds ``max_states`` states, some maybe of other starts: forget them
    and walk again before calling the start too large."""


def state_said(state: Any) -> str:
    """A state as a message shows it: a ``NamedTuple``'s or a dataclass's fields in parentheses,
    without the type's name (which means nothing to the reader of a battle file); others by repr.

    >>> from typing import NamedTuple
    >>> class State(NamedTuple):
    ...     attackers: int
    ...     defenders: int
    >>> state_said(State(5, 3)), state_said((5, 3)), state_said("end")
    ('(attackers=5, defenders=3)', '(5, 3)', "'end'")
    """
    fields = getattr(state, "_fields", None)
    if isinstance(state, tuple) and fields:
        return "(" + ", ".join(f"{name}={value!r}" for name, value in zip(fields, state)) + ")"
    if dataclasses.is_dataclass(state) and not isinstance(state, type):
        said = (f"{f.name}={getattr(state, f.name)!r}" for f in dataclasses.fields(state) if f.repr)
        return "(" + ", ".join(said) + ")"
    return repr(state)


@dataclass(frozen=True)
class _Table:
    """A chain compiled for :meth:`Chain.sample` from one start state."""

    table: np.ndarray  # index (code << 8) | byte -> next (code << 8) | tag id
    done: int  # values >= done are final states
    ends: np.ndarray  # per code, a record of the per-trial values its final state fixes
    schedule: tuple[int, ...]  # steps between compactions of the active set
    loop_counters: dict[str, int]  # counter -> increment per self-loop taken (flag bit method)
    step_counters: dict[str, np.ndarray]  # counter -> increment per tag id (counted each step)
    source: dict[str, str | None]  # counter read off the final state -> its column (None: zero)


class Chain(Generic[S]):
    """An absorbing Markov chain given as a rule: see the module docstring.

    Args:
        transitions: ``state -> [(p, next_state, tags), ...]``; empty for a final state. The
            probabilities of a state's steps sum to 1; a step back to the same state is a
            self-loop (a re-rolled tie).
        outcome: ``final_state -> {metric name: value}`` (bool, int or float).
        metrics: the metrics reported; each is a key of ``outcome`` or of ``counters``.
        counters: ``{metric name: tag}``: the metric counts the steps whose tags hold ``tag``;
            or ``{metric name: {tag: weight}}``: a weighted counter of a ``mean`` metric, which
            starts from the outcome's value for its name (0 if the outcome gives none).
        max_states: the walk stops with :class:`ChainTooLarge` beyond this many states.

    Expected values are memoised per state, so chains that share states (a 4-vs-5 duel passes
    through 3-vs-5) are solved once: keep one ``Chain`` per set of rules and reuse it.
    """

    def __init__(
        self,
        transitions: Callable[[S], Sequence[Step[S]]],
        outcome: Callable[[S], Mapping[str, Any]],
        metrics: Sequence[Metric],
        counters: Mapping[str, str | Mapping[str, float]] | None = None,
        *,
        max_states: int = DEFAULT_MAX_STATES,
    ) -> None:
        self.transitions = transitions
        self.outcome = outcome
        self.metrics = tuple(metrics)
        self.counters = dict(counters or {})
        self.max_states = max_states
        self.names = tuple(n for m in self.metrics for n in m.reported_names())
        self._weighted = _checked_counters(self.metrics, self.counters)
        self._counter_at = {
            self.names.index(name): self._weighted.get(name) or {tag: 1.0}  # type: ignore[dict-item]
            for name, tag in self.counters.items()
        }
        # the sampler counts plain tags: a weighted counter becomes one hidden count per tag
        self._sampled_counters: dict[str, str] = {
            name: tag for name, tag in self.counters.items() if name not in self._weighted  # type: ignore[misc]
        }
        for name, weights in self._weighted.items():
            self._sampled_counters.update({_hidden(name, tag): tag for tag in weights})
        self._steps: dict[S, tuple[Step[S], ...]] = {}
        self._values: dict[S, tuple[float, ...]] = {}
        self._tag_positions: dict[tuple[str, ...], tuple[tuple[int, float], ...]] = {}
        self._tables: dict[S, _Table] = {}
        self._steps_left: dict[S, float] = {}  # expected steps to a final state, per state
        self._table_rows: dict[S, int] = {}  # rows of a start's compiled table

    # --- the walk ---------------------------------------------------------------------------

    def steps(self, state: S) -> tuple[Step[S], ...]:
        """``transitions(state)`` without zero-probability steps, memoised."""
        got = self._steps.get(state)
        if got is None:
            if len(self._steps) >= self.max_states:
                raise _MemoFull(f"more than {self.max_states:,} states")
            got = tuple(step for step in self.transitions(state) if step[0] > 0)
            total = sum(p for p, _, _ in got)
            if got and abs(total - 1.0) > 1e-9:
                raise ValueError(f"the steps from {state_said(state)} have total probability {total}, not 1")
            if got and all(nxt == state for _, nxt, _ in got):
                raise MonteCarloError(
                    f"state {state_said(state)} only leads back to itself: the process never ends"
                )
            self._steps[state] = got
        return got

    def states(self, start: S) -> list[S]:
        """Every state reachable from ``start``, breadth first (start first)."""
        order = []
        for state in self._found(start):
            order.append(state)
            if len(order) > self.max_states:
                raise ChainTooLarge(f"more than {self.max_states:,} states")
        return order

    def _found(self, start: S) -> Iterator[S]:
        """The states reachable from ``start``, breadth first (start first), each as it is found:
        a caller that has seen enough stops the walk there."""
        order, seen = [start], {start}
        yield start
        for state in order:  # the list grows while we walk it
            for _, nxt, _ in self.steps(state):
                if nxt not in seen:
                    seen.add(nxt)
                    order.append(nxt)
                    yield nxt

    def size(self, start: S) -> int:
        """The number of states reachable from ``start`` (ChainTooLarge beyond the limit).

        A memo filled up to the limit by earlier starts is forgotten and the states counted again:
        else a start's size, and whether it has exact values, would depend on what the process
        walked before, and so on the number of worker processes (found by review).
        """
        return self._afresh(lambda: len(self.states(start)))

    def _afresh(self, work: Callable[[], T]) -> T:
        """``work()``; if the memo of steps fills up (with earlier starts' states, maybe), the
        memo forgotten and ``work()`` once more: its answer then depends on the start alone."""
        try:
            return work()
        except _MemoFull:
            self.forget()
        return work()

    # --- exact values -------------------------------------------------------------------------

    def exact(self, start: S) -> dict[str, float]:
        """The expected value of every reported metric (probabilities for 0/1 columns)."""
        return dict(zip(self.names, self.value(start)))

    def value(self, start: S) -> tuple[float, ...]:
        """Expected reported values from ``start`` on, in ``self.names`` order.

        Worked backwards from the final states. A state's self-loop of probability ``q`` is
        folded in: the walk leaves it with the other steps' odds divided by ``1 - q``, and each
        visit costs ``q / (1 - q)`` self-loops on average. Cycles through several states are
        solved as a sparse linear system instead.
        """
        got = self._values.get(start)
        if got is not None:
            return got
        return self._afresh(lambda: self._solve(start))

    def forget(self) -> None:
        """Drop every memoised step, value and compiled table."""
        self._steps.clear()
        self._values.clear()
        self._tables.clear()
        self._steps_left.clear()
        self._table_rows.clear()

    def _solve(self, start: S) -> tuple[float, ...]:
        try:
            return self._recurse(start, set())
        except (_Cycle, RecursionError):
            pass
        order = self._post_order(start)
        if order is None:
            self._solve_linear(start)
        else:
            for state in order:
                self._values[state] = self._backward(state)
        return self._values[start]

    def _recurse(self, state: S, on_path: set) -> tuple[float, ...]:
        """Depth-first values with memo (the fast path); _Cycle if a state leads back to itself."""
        steps = self._steps.get(state)
        if steps is None:
            steps = self.steps(state)
        if steps:
            on_path.add(state)
            values = self._values
            for _, nxt, _ in steps:
                if nxt not in values and nxt != state:
                    if nxt in on_path:
                        raise _Cycle
                    self._recurse(nxt, on_path)
            on_path.discard(state)
        got = self._values[state] = self._backward(state)
        return got

    def absorption(self, start: S) -> dict[S, float]:
        """The probability of ending in each final state."""
        order = self.states(start)
        index = {s: i for i, s in enumerate(order)}
        mass = np.zeros(len(order))
        mass[0] = 1.0
        ends: dict[S, float] = {}
        post = self._post_order(start, skip_solved=False)
        if post is None:
            raise MonteCarloError("absorption needs a chain without cycles other than self-loops")
        for state in reversed(post):  # a topological order: every state before its successors
            steps = self.steps(state)
            p_here = mass[index[state]]
            if not steps:
                ends[state] = float(p_here)
                continue
            stay = sum(p for p, nxt, _ in steps if nxt == state)
            for p, nxt, _ in steps:
                if nxt != state:
                    mass[index[nxt]] += p_here * p / (1 - stay)
        return ends

    def _post_order(self, start: S, skip_solved: bool = True) -> list[S] | None:
        """States (not yet solved), each after all its successors; None if there is a cycle."""
        solved = self._values if skip_solved else {}
        order: list[S] = []
        on_path: set[S] = set()
        finished: set[S] = set()
        stack: list[tuple[S, Any]] = [(start, None)]
        while stack:
            state, successors = stack[-1]
            if successors is None:
                if state in solved or state in finished:
                    stack.pop()
                    continue
                on_path.add(state)
                successors = iter([nxt for _, nxt, _ in self.steps(state) if nxt != state])
                stack[-1] = (state, successors)
            for nxt in successors:
                if nxt in on_path:
                    return None
                if nxt not in solved and nxt not in finished:
                    stack.append((nxt, None))
                    break
            else:
                stack.pop()
                on_path.discard(state)
                finished.add(state)
                order.append(state)
        return order

    def _final_terms(self, state: S) -> tuple[float, ...]:
        values = self.outcome(state)
        terms = dict.fromkeys(self.names, 0.0)
        for m in self.metrics:
            if m.name in self.counters:
                if m.name in self._weighted and m.name in values:
                    terms[m.name] = float(values[m.name])
                continue
            if m.name not in values:
                raise KeyError(f"outcome of {state_said(state)} has no value for metric {m.name!r}")
            v = values[m.name]
            if m.kind == "distribution":
                if v in m.support:
                    terms[f"{m.name}={v}"] = 1.0
            else:
                terms[m.name] = float(v)
        return tuple(terms.values())

    def _backward(self, state: S) -> tuple[float, ...]:
        """A state's values from its successors' (all already known)."""
        steps = self._steps.get(state)
        if steps is None:
            steps = self.steps(state)
        if not steps:
            return self._final_terms(state)
        values, counting = self._values, bool(self._counter_at)
        stay, moves, counts = 0.0, [], {}
        for p, nxt, tags in steps:
            if nxt == state:
                stay += p
            else:
                moves.append((p, values[nxt]))
            if counting:
                for i, weight in self._counted(tags):
                    counts[i] = counts.get(i, 0.0) + p * weight
        scale = 1.0 / (1.0 - stay)
        if len(moves) == 2:
            (p1, v1), (p2, v2) = moves
            q1, q2 = p1 * scale, p2 * scale
            out = [q1 * a + q2 * b for a, b in zip(v1, v2)]
        elif len(moves) == 1:
            out = list(moves[0][1])
        else:
            out = [
                sum(p * scale * x for (p, _), x in zip(moves, column))
                for column in zip(*(v for _, v in moves))
            ]
        for i, p in counts.items():
            out[i] += p * scale
        return tuple(out)

    def _counted(self, tags: tuple[str, ...]) -> tuple[tuple[int, float], ...]:
        """(position, amount) of the counters that a step with ``tags`` adds to (1 unless weighted)."""
        got = self._tag_positions.get(tags)
        if got is None:
            got = self._tag_positions[tags] = tuple(
                (i, sum(w for tag, w in weights.items() if tag in tags))
                for i, weights in self._counter_at.items()
                if any(tag in tags for tag in weights)
            )
        return got

    def _solve_linear(self, start: S) -> None:
        """Values of every state reachable from ``start`` by one sparse solve (chains with cycles)."""
        from scipy.sparse.linalg import spsolve

        order = self.states(start)
        self._require_ends([s for s in order if self.steps(s)])
        index = {s: i for i, s in enumerate(order)}
        rhs = np.zeros((len(order), len(self.names)))
        for i, state in enumerate(order):
            steps = self.steps(state)
            if not steps:
                rhs[i] = self._final_terms(state)
                continue
            for p, _, tags in steps:
                for j, weight in self._counted(tags):
                    rhs[i, j] += p * weight
        solution = np.asarray(spsolve(self._minus_steps(order, index), rhs))
        solution = solution.reshape(len(order), len(self.names))
        for state, row in zip(order, solution):
            self._values[state] = tuple(row.tolist())

    # --- the sampler --------------------------------------------------------------------------

    def sample(self, start: S, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """``n`` independent walks from ``start``: one value per trial for every metric.

        Trials stay in order (paired runs under common random numbers line up). A few trials are
        walked step by step (:meth:`_walk`) where that costs less than compiling the start's
        table (:meth:`_walk_pays`), in a point's first chunk only (:func:`first_chunk`), and by
        every arm of a chunk as its first arm chose (:func:`one_arm`): a choice made before any
        random number is drawn, from the chain, the start, ``n`` and the run's plan alone, so it
        neither biases the trials nor depends on what this process compiled before. A start whose
        table would be too large is walked whatever the choice (:meth:`table_fits`).
        """
        if 0 < n <= WALK_MOST_TRIALS and _FIRST_CHUNK.get():
            arm = _ARM_CHOICES.get()
            if arm is not None and arm[1][0] < len(arm[0]):  # a later arm: as the first one chose
                walking = arm[0][arm[1][0]]
            else:
                walking = self._afresh(lambda: self._walk_pays(start, n))
                if arm is not None:
                    arm[0].append(walking)
            if arm is not None:
                arm[1][0] += 1
            if walking:
                return self._walk(start, n, rng)
        k = self._tables.get(start)
        if k is None:
            if not self.table_fits(start):
                return self._walk(start, n, rng)
            if len(self._tables) >= 64:
                self._tables.pop(next(iter(self._tables)))
            k = self._tables[start] = self._afresh(lambda: self._compile(start))
        table, done, bits = k.table, k.done, rng.bit_generator
        state = np.zeros(n, dtype=table.dtype)  # every trial at the start state (code 0)
        loops = np.zeros(n, dtype=table.dtype) if k.loop_counters else None
        counts = {name: np.zeros(n, dtype=np.uint32) for name in k.step_counters}
        final = np.empty(n, dtype=table.dtype)
        final_loops = np.empty(n, dtype=table.dtype) if loops is not None else None
        final_counts = {name: np.empty(n, dtype=np.uint32) for name in counts}
        where = None  # the original index of each active trial (None: all trials, in order)
        gaps = itertools.chain(k.schedule, itertools.repeat(2))
        index_buffer, flag_buffer = np.empty(n, dtype=np.intp), np.empty_like(state)  # reused buffers
        walked, bound = 0, FIRST_STEP_CHECK  # table steps taken by every active trial; when to check
        while state.size:
            m = state.size
            index, flag = index_buffer[:m], flag_buffer[:m]
            if walked > bound:
                bound = self._step_bound(start)
                if walked > bound:
                    raise MonteCarloError(
                        f"the sampler's walks from {state_said(start)} ran {walked:,} steps, past the "
                        f"{bound:,} that no walk of this chain reaches: its compiled table is wrong"
                    )
            gap = next(gaps)
            walked += gap
            for _ in range(gap):
                np.bitwise_xor(state, bits.random_raw((m + 7) >> 3).view(np.uint8)[:m], out=index)
                np.take(table, index, out=state, mode="clip")
                if loops is not None:
                    np.bitwise_and(state, 1, out=flag)
                    np.add(loops, flag, out=loops)
                for name, per_tag in k.step_counters.items():
                    np.add(counts[name], per_tag[state & 0xFF], out=counts[name])
            finished = state >= done
            out = np.flatnonzero(finished)
            if not out.size:
                continue
            keep = np.flatnonzero(~finished)
            final_at = out if where is None else where[out]
            final[final_at] = state[out]
            state = state[keep]
            if loops is not None:
                final_loops[final_at] = loops[out]
                loops = loops[keep]
            for name in counts:
                final_counts[name][final_at] = counts[name][out]
                counts[name] = counts[name][keep]
            where = keep if where is None else where[keep]
        record = np.take(k.ends, (final >> 8).astype(np.intp), mode="clip")
        result = {name: record[name] for name in k.ends.dtype.names}
        taken = final_loops.astype(np.uint16, copy=False) if final_loops is not None else None
        for name, src in k.source.items():
            per_loop = k.loop_counters.get(name, 0)
            if src is None:  # counted by self-loops alone
                result[name] = taken if per_loop == 1 else taken * np.uint16(per_loop)
            elif per_loop:
                result[name] = record[src] + (taken if per_loop == 1 else taken * np.uint16(per_loop))
            else:
                result[name] = record[src]
        for name, values in final_counts.items():
            result[name] = values
        for name, weights in self._weighted.items():
            total = record[name].astype(np.float64) if name in k.ends.dtype.names else np.zeros(n)
            for tag, weight in weights.items():
                total += weight * result[_hidden(name, tag)]
            result[name] = total
        return {m.name: result[m.name] for m in self.metrics}

    def table_fits(self, start: S) -> bool:
        """Whether ``start``'s compiled table has at most ``TABLE_MOST_ROWS`` rows; :meth:`sample`
        walks the trials of a start whose table is larger (a choice from the chain and the start
        alone). Counted from the steps' scaled boundaries without building the rows, memoised."""
        got = self._table_rows.get(start)
        if got is None:
            got = self._table_rows[start] = self._afresh(lambda: self._rows_of_table(start))
        return got <= TABLE_MOST_ROWS

    def _rows_of_table(self, start: S) -> int:
        """The rows of ``start``'s compiled table (see :func:`_byte_rows`), final states' included:
        a row per state; for each of a live state's 256 slices that holds a step boundary inside
        it, one more; and for each of their 256 sub-slices that holds one inside, one more."""
        rows = 0
        for state in self.states(start):
            steps = self.steps(state)
            rows += 1
            if steps:
                inside = _scaled_bounds(steps)[:-1]
                for level in range(1, _LEVELS):  # slices 2**shift wide, split by a boundary inside
                    shift = SCALE_BITS - 8 * level
                    rows += np.unique(inside[(inside & ((1 << shift) - 1)) != 0] >> shift).size
        return rows

    def _walk_pays(self, start: S, n: int) -> bool:
        """Whether ``n`` trials from ``start`` are walked step by step: their expected steps are at
        most ``WALK_MOST_STEPS`` and fewer than ``WALK_STEPS_A_STATE`` times the states the start
        reaches (a table costs about 0.1 ms a state to compile, a step about 1 us to walk).

        Why: a grid of many setups at a few trials each compiled a table at every setup (a Risk
        battle of 100 against 100 armies: 10,000 states, a second), while its trials visit a few
        hundred states. A start of few states keeps its table: it is compiled once and reused
        by every later chunk (a precision run's, say).
        """
        expected = n * self._mean_steps(start)
        return expected <= WALK_MOST_STEPS and self._reaches_more_than(start, expected / WALK_STEPS_A_STATE)

    def _reaches_more_than(self, start: S, count: float) -> bool:
        """Whether more than ``count`` states are reachable from ``start`` (walked until it knows)."""
        return any(found > count for found, _ in enumerate(self._found(start), 1))

    def _mean_steps(self, start: S) -> float:
        """The expected number of steps from ``start`` to a final state, memoised per state:
        worked backwards as :meth:`value` is, or by a sparse solve where states form cycles."""
        got = self._steps_left.get(start)
        if got is not None:
            return got
        try:
            return self._steps_down(start, set())
        except (_Cycle, RecursionError):
            pass
        self._steps_left.update(self._expected_steps(start))
        return self._steps_left[start]

    def _steps_down(self, state: S, on_path: set) -> float:
        """Expected steps from ``state`` by depth-first recursion; _Cycle if a state leads back."""
        steps = self.steps(state)
        total, stay = 1.0, 0.0
        if not steps:
            total = 0.0
        on_path.add(state)
        for p, nxt, _ in steps:
            if nxt == state:
                stay += p
                continue
            below = self._steps_left.get(nxt)
            if below is None:
                if nxt in on_path:
                    raise _Cycle
                below = self._steps_down(nxt, on_path)
            total += p * below
        on_path.discard(state)
        got = self._steps_left[state] = total / (1.0 - stay)
        return got

    def _walk(self, start: S, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """``n`` trials walked through the memoised steps (exact step probabilities), all of them
        a step at a time: each step draws ``n`` uniform numbers and trial i takes the i-th, so
        that two arms run from one seed meet the same numbers, trial by trial (common random
        numbers), however long their walks.

        Why: the compiled table costs work for every state the start can reach, which a grid of
        many setups at a few trials each pays at every setup (see :meth:`_walk_pays`).

        First the expected steps are worked out (memoised): they check that every state the start
        reaches can end (else a trial would walk for ever), and leave those states in the memo,
        so the walk cannot fill it. A later arm walking as arm 0 chose, or a start whose table is
        too large, comes here without :meth:`_walk_pays` (a review found the first one walking
        for ever under a variant whose battles cannot end).
        """
        self._afresh(lambda: self._mean_steps(start))
        rows: dict[Any, tuple[list[float], list[Any], list[tuple[tuple[int, float], ...]], list[bool]]] = {}
        states: list[Any] = [start] * n
        counted = {position: [0.0] * n for position in self._counter_at}
        active = list(range(n)) if self.steps(start) else []  # a final start takes no step
        while active:
            uniforms = rng.random(n).tolist()
            going = []
            for trial in active:
                state = states[trial]
                row = rows.get(state)
                if row is None:
                    steps = self.steps(state)
                    cums = list(itertools.accumulate(p for p, _, _ in steps))
                    cums[-1] = math.inf  # the last step takes what rounding leaves
                    nexts = [nxt for _, nxt, _ in steps]
                    adds = [self._counted(t) for _, _, t in steps]
                    row = rows[state] = (cums, nexts, adds, [bool(self.steps(s)) for s in nexts])
                cums, nexts, adds, live = row
                step = bisect.bisect_right(cums, uniforms[trial])
                for position, amount in adds[step]:
                    counted[position][trial] += amount
                states[trial] = nexts[step]
                if live[step]:
                    going.append(trial)
            active = going
        outcomes = [self.outcome(state) for state in states]
        result: dict[str, np.ndarray] = {}
        for m in self.metrics:
            if m.name in self.counters:
                along = counted[self.names.index(m.name)]
                if m.name in self._weighted:
                    result[m.name] = (
                        np.array([o.get(m.name, 0.0) for o in outcomes], dtype=np.float64) + along
                    )
                else:
                    result[m.name] = np.array(along).astype(np.uint32)
            else:
                result[m.name] = np.array([o[m.name] for o in outcomes])
        return result

    def _step_bound(self, start: S) -> int:
        """Table steps that no walk from ``start`` takes but with odds below 2**-64 (see
        FIRST_STEP_CHECK); an error if some reachable state cannot reach a final state. Worked
        out only for walks that pass FIRST_STEP_CHECK, so it is not memoised.
        """
        longest = max(self._expected_steps(start).values())
        table_steps = 2 * longest * TAIL_HALVINGS * TABLE_STEPS_PER_STEP * ROUNDING_MARGIN
        return max(FIRST_STEP_CHECK, math.ceil(table_steps))

    def _expected_steps(self, start: S) -> dict[S, float]:
        """The expected number of steps to a final state from each live state reachable from
        ``start`` (which must be live), by state."""
        from scipy.sparse.linalg import spsolve

        live = [s for s in self.states(start) if self.steps(s)]
        self._require_ends(live)
        index = {s: i for i, s in enumerate(live)}
        solved = np.atleast_1d(spsolve(self._minus_steps(live, index), np.ones(len(live))))
        return dict(zip(live, solved.tolist()))

    def _minus_steps(self, states: list[S], index: Mapping[S, int]) -> Any:
        """``I - P`` over ``states`` (numbered by ``index``), in CSC form for a sparse solve: P holds
        their steps to states of ``index``; steps out of it (to final states) are left out."""
        from scipy.sparse import csr_matrix, identity

        rows, cols, probs = [], [], []
        for i, state in enumerate(states):
            for p, nxt, _ in self.steps(state):
                if nxt in index:
                    rows.append(i)
                    cols.append(index[nxt])
                    probs.append(p)
        n = len(states)
        return (identity(n, format="csr") - csr_matrix((probs, (rows, cols)), shape=(n, n))).tocsc()

    def _require_ends(self, live: list[S]) -> None:
        """An error if one of the ``live`` states (every live state a walk reaches) has no way to
        a final state: the chain would walk for ever, and a linear solve would be singular.
        """
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import breadth_first_order

        n = len(live)
        index = {s: i for i, s in enumerate(live)}
        edges = [(index.get(nxt, n), index[s]) for s in live for _, nxt, _ in self.steps(s)]
        back = csr_matrix((np.ones(len(edges)), tuple(zip(*edges))), shape=(n + 1, n + 1))  # node n: the ends
        order, _ = breadth_first_order(back, n)  # every state that can end, walked backwards
        reached = np.zeros(n + 1, dtype=bool)
        reached[order] = True
        if not reached.all():
            stuck = live[int(np.flatnonzero(~reached)[0])]
            raise MonteCarloError(
                f"state {state_said(stuck)} has no way to a final state: the process may never end"
            )

    def _compile(self, start: S) -> _Table:
        order = self.states(start)
        index = {s: i for i, s in enumerate(order)}
        live = [s for s in order if self.steps(s)]
        ends = [s for s in order if not self.steps(s)]
        if not ends:
            raise MonteCarloError("the chain has no final state")
        loop_counters, potential, step_counters, tag_ids = self._plan_counters(start, order)
        code = {s: i for i, s in enumerate(live)}
        code.update({s: -1 - i for i, s in enumerate(ends)})  # final states are numbered last
        cums, targets, flags = [], [], []
        for state in live:
            steps = self.steps(state)
            cums.append(_scaled_bounds(steps))
            targets.append([code[n] for _, n, _ in steps])
            flags.append([tag_ids.get((nxt == state, tags), 0) for _, nxt, tags in steps])
        rows_next, rows_flag = _byte_rows(cums, targets, flags)
        first_end = len(rows_next)
        nxt = np.concatenate([rows_next.ravel(), first_end + np.repeat(np.arange(len(ends)), 256)])
        flag = np.concatenate([rows_flag.ravel(), np.zeros(256 * len(ends), dtype=np.int64)])
        nxt = np.where(nxt < 0, first_end - 1 - nxt, nxt)
        table = ((nxt << 8) | flag).astype(np.uint16 if first_end + len(ends) <= 256 else np.uint32)

        # A counter read off the final state shares its column with an equal one (rounds and
        # decisive rounds of a duel), and needs none where it is 0 on every path (tied rounds).
        source: dict[str, str | None] = {}
        for name, phi in potential.items():
            column = tuple(phi[s] for s in ends)
            twin = next(
                (
                    other
                    for other, src in source.items()
                    if src == other and tuple(potential[other][s] for s in ends) == column
                ),
                None,
            )
            source[name] = None if not any(column) and name in loop_counters else (twin or name)
        values = []
        for s in ends:
            row = dict(self.outcome(s))
            row.update({name: potential[name][s] for name, src in source.items() if src == name})
            values.append(row)
        kinds = {}
        for m in self.metrics:
            if m.name in self._weighted:  # its own column holds the outcome's value, if any
                if any(m.name in v for v in values):
                    kinds[m.name] = np.float64
                continue
            if m.name in self.counters and source.get(m.name) != m.name:
                continue
            column = [v[m.name] for v in values]
            kinds[m.name] = _dtype(m, column, m.name in potential)
        for name in self._sampled_counters.keys() - self.counters.keys():  # hidden counts
            if source.get(name) == name:
                kinds[name] = np.uint16
        size = sum(np.dtype(kind).itemsize for kind in kinds.values())
        record = np.dtype(
            {
                "names": list(kinds),
                "formats": list(kinds.values()),  # padded: 8-byte records
                "itemsize": max(1 << max(size - 1, 0).bit_length(), size, 1),
            }
        )
        records = np.zeros(first_end + len(ends), dtype=record)  # zeros for the live codes
        for name in kinds:
            records[name][first_end:] = [v.get(name, 0.0) for v in values]
        return _Table(
            table, first_end << 8, records, self._schedule(order, index), loop_counters, step_counters, source
        )

    def _plan_counters(self, start: S, order: list[S]):
        """How each counter is counted: off the final state, by self-loops taken, or per step.

        Returns (loop increments, potentials per final state, per-tag-id increments, tag ids).
        """
        if not self._sampled_counters:
            return {}, {}, {}, {}
        loop_tags = {tags for s in order for _, nxt, tags in self.steps(s) if nxt == s}
        potential: dict[str, dict[S, int]] = {}
        for name, tag in self._sampled_counters.items():
            phi = {start: 0}
            for s in order:
                for _, nxt, tags in self.steps(s):
                    if nxt == s:
                        continue
                    value = phi[s] + (tag in tags)
                    if phi.setdefault(nxt, value) != value:
                        break
                else:
                    continue
                break
            else:
                potential[name] = phi
        one_loop_kind = len(loop_tags) <= 1 and len(potential) == len(self._sampled_counters)
        if one_loop_kind:
            tags = next(iter(loop_tags), ())
            counted = self._sampled_counters.items()
            loop_counters = {name: int(tag in tags) for name, tag in counted if tag in tags}
            tag_ids = {(True, tags): 1} if loop_counters else {}
            return loop_counters, potential, {}, tag_ids
        # counted step by step: one id per distinct (is a self-loop, tags) that a counter sees
        kinds = sorted(
            {
                (nxt == s, tags)
                for s in order
                for _, nxt, tags in self.steps(s)
                if any(tag in tags for tag in self._sampled_counters.values())
            },
            key=repr,
        )
        if len(kinds) > 255:
            raise MonteCarloError("too many different tag sets for the sampler (at most 255)")
        tag_ids = {kind: i + 1 for i, kind in enumerate(kinds)}
        step_counters = {}
        for name, tag in self._sampled_counters.items():
            per_tag = np.zeros(256, dtype=np.uint32)
            for (_, tags), i in tag_ids.items():
                per_tag[i] = tag in tags
            step_counters[name] = per_tag
        return {}, {}, step_counters, tag_ids

    def _schedule(self, order: list[S], index: dict[S, int]) -> tuple[int, ...]:
        """Steps between compactions of the active set, minimising the expected work.

        A step costs about ``STEP_COST`` per active trial and a compaction ``COMPACT_COST`` per
        trial it scans; the live share after each step is the chain's exact survival curve, so a
        small dynamic programme over compaction points finds the cheapest plan.
        """
        edges = [(i, index[nxt], p) for i, state in enumerate(order) for p, nxt, _ in self.steps(state)]
        if not edges:
            return ()
        src, dst, prob = (np.array(column) for column in zip(*edges))
        live = np.array([bool(self.steps(state)) for state in order])
        mass = np.zeros(len(order))
        mass[0] = 1.0
        alive = [1.0]
        while alive[-1] > 1e-6 and len(alive) < 2000:
            mass = np.bincount(dst, weights=mass[src] * prob, minlength=len(order))
            alive.append(float(mass[live].sum()))
        cost, back = [0.0], [0]
        for i in range(1, len(alive)):
            options = [
                (cost[j] + alive[j] * ((i - j) * STEP_COST + COMPACT_COST), j)
                for j in range(max(0, i - 64), i)
            ]
            best = min(options)
            cost.append(best[0])
            back.append(best[1])
        points, i = [], len(alive) - 1
        while i > 0:
            points.append(i)
            i = back[i]
        points.append(0)
        points.reverse()
        return tuple(b - a for a, b in zip(points, points[1:]))


def _dtype(metric: Metric, column: Sequence[Any], counter: bool) -> Any:
    """The smallest dtype that holds a metric's values over the final states."""
    if counter:
        return np.uint16
    if metric.kind == "probability" or all(isinstance(v, (bool, np.bool_)) for v in column):
        return bool
    if metric.kind == "mean" and any(isinstance(v, (float, np.floating)) for v in column):
        return np.float64
    low, high = min(column), max(column)
    for kind in (np.int8, np.int16, np.int32):
        info = np.iinfo(kind)
        if info.min <= low and high <= info.max:
            return kind
    return np.int64


def _hidden(name: str, tag: str) -> str:
    """The sampler's own count of ``tag`` for the weighted counter ``name`` (never a metric name)."""
    return f"{name}\x00{tag}"


def _checked_counters(metrics: Sequence[Metric], counters: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """Every counter checked; returns the weighted ones, ``{name: {tag: weight}}`` of finite weights.

    Every counter, plain or weighted, must be a mean metric: a count is no probability, and a
    distribution reports under other names."""
    kinds = {m.name: m.kind for m in metrics}
    weighted = {}
    for name, spec in counters.items():
        if kinds.get(name) != "mean":
            kind = "counter" if isinstance(spec, str) else "weighted counter"
            raise MonteCarloError(f"{kind} {name!r} must be a reported mean metric")
        if isinstance(spec, str):
            continue
        weights = dict(spec)
        for tag, weight in weights.items():
            if not isinstance(tag, str) or isinstance(weight, bool) or not isinstance(weight, (int, float)):
                raise MonteCarloError(f"weighted counter {name!r}: {tag!r}: {weight!r} is not tag: number")
            if not math.isfinite(weight):
                raise MonteCarloError(f"weighted counter {name!r}: the weight of {tag!r} is {weight}")
        weighted[name] = {tag: float(w) for tag, w in weights.items()}
    return weighted
