"""One chain-shaped question: its kernel, exact solver and "why no exact value" from one description.

A question whose trials are walks of an absorbing chain (a duel, a battle) is described by

- ``start(rules, setup) -> state``: where a trial starts;
- ``transitions(context, state) -> [(p, next_state, tags), ...]`` and ``outcome(context, state)``:
  the rule of :class:`montecarlo.engine.chain.Chain`, given the *context* the chain is built for
  (the rules, unless ``context(rules, setup)`` says what else a setup fixes for the whole walk,
  such as each side's dice);
- the metrics and ``counters`` (metric -> tag) of the chain;
- optionally a ``direct(rules, setup, n, rng)`` kernel for setups whose chain is too large.

:class:`ChainQuestion` keeps one :class:`Chain` per context (a bounded LRU, so solved states are
shared between setups) and gives the three functions a ``Question`` needs:
:meth:`~ChainQuestion.simulate`, :meth:`~ChainQuestion.exact` (None when the chain is too large)
and :meth:`~ChainQuestion.why_no_exact` ("exact value unavailable because ..."). The engine
knows nothing about games: rules, setups and contexts are opaque hashable values to it.

Every chain comes from :meth:`ChainQuestion.build_chain` and is cached under ``(context,
extra)``; a subclass can build other chains for a context by passing its own ``extra``.

Objectives and best play (:mod:`montecarlo.engine.decisions`). With ``objective(context) ->
Objective | None``, a context that asks for an objective gets it reported as one more metric
(``objective.name``, its exact value and its estimate) under whatever policy it plays. With
``best_play(context) -> bool`` as well, a context that asks for best play may return
:class:`~montecarlo.engine.decisions.Choice` objects from ``transitions``: the builder solves the
decisions for the objective (once per ``(context, start)``, memoised), and ``exact``,
``simulate`` and ``why_no_exact`` all answer for the chain of the solved policy: every metric
under best play, and the objective's exact value is the optimum. A chain too large to solve has
no best play at all (the ``direct`` kernel plays a fixed policy): ``exact`` gives None,
``why_no_exact`` says so in one line and ``simulate`` raises :class:`InputError` with that line.

>>> from montecarlo.engine.decisions import Choice, Objective
>>> def bet(greedy, s):  # flip a coin to win 1; a greedy player may then bet it on a 3-for-1 flip
...     if s == "start":
...         return [(0.5, "won", ("flip",)), (0.5, "lost", ("flip",))]
...     if s == "won" and greedy:
...         return Choice({"keep": [(1.0, "kept", ())],
...                        "bet": [(0.5, "tripled", ("flip",)), (0.5, "lost", ("flip",))]})
...     return []
>>> gain = Objective(lambda s: {"won": 1.0, "kept": 1.0, "tripled": 3.0}.get(s, 0.0), {"flip": -0.1})
>>> bets = ChainQuestion(lambda rules, setup: "start", bet, lambda greedy, s: {"win": s != "lost"},
...                      (Metric("win", "probability", ""),), objective=lambda greedy: gain,
...                      best_play=lambda greedy: greedy)
>>> bets.exact(False, None)  # a fixed policy: win 1/2, gain 1/2 x 1 - 0.1 for the flip
{'win': 0.5, 'objective': 0.4}
>>> {k: round(v, 12) for k, v in bets.exact(True, None).items()}  # bet: 1/2 x (1/2 x 3 - 0.1) - 0.1
{'win': 0.25, 'objective': 0.6}
>>> {k: round(v, 12) for k, v in bets.solution(True, None).option_values("won").items()}
{'keep': 1.0, 'bet': 1.4}
"""

from __future__ import annotations

import importlib
from collections import OrderedDict
from typing import Any, Callable, Generic, Hashable, Mapping, Sequence, TypeVar

import numpy as np

from montecarlo.engine.chain import DEFAULT_MAX_STATES, Chain, ChainTooLarge, Step, state_said
from montecarlo.engine.decisions import Choice, Objective, Solution, solve, with_objective
from montecarlo.engine.metrics import Metric
from montecarlo.errors import InputError, MonteCarloError

C = TypeVar("C", bound=Hashable)  # what a chain is built for: the rules, or what a setup adds to them
S = TypeVar("S", bound=Hashable)  # a chain's state
Kernel = Callable[[Any, Any, int, np.random.Generator], dict[str, np.ndarray]]

TOO_LARGE = -1  # a size memo entry: the chain has more states than the limit
BEST = "best play"  # the ``extra`` of the chain of a solved policy: (BEST, start)


class ChainQuestion(Generic[C, S]):
    """Kernel, exact solver and exact-value note of one chain-shaped question (module docstring).

    Args:
        start: ``(rules, setup) -> state``.
        transitions: ``(context, state) -> steps`` (see :class:`Chain`; empty for a final state).
        outcome: ``(context, final state) -> {metric: value}``.
        metrics, counters: as in :class:`Chain`.
        context: ``(rules, setup) -> context`` the chain is built for (hashable); default the rules.
        direct: a kernel used when the chain is too large; without one such a setup raises
            :class:`ChainTooLarge`.
        max_states: the exact solver's limit (and the sampler's, unless ``sampler_max_states``).
        sampler_max_states: above this many states trials are simulated by ``direct`` (a large
            chain's byte table costs more than it saves), as they are when the table would have
            more than ``TABLE_MOST_ROWS`` rows (:meth:`Chain.table_fits`); needs ``direct``.
        size_bound: ``(rules, setup) -> int | None``, an upper bound on the states known without
            walking the chain (None: no bound known, walk it); a setup whose bound exceeds
            ``max_states`` is never walked.
        finish: ``(rules, setup, values)``, adds values derived from the chain's (in place) to
            exact values (floats) and chain samples (arrays) alike; ``direct`` returns all.
        explain: ``(error, context) -> Exception``, the engine's errors about a context's chain
            (a state that only leads to itself) in the caller's own words (e.g. naming the file
            that defined the rule, or the rules that differ from it).
        objective: ``context -> Objective | None``: the objective a context asks about, reported
            as one more metric (named ``objective.name``) of every chain built for it.
        best_play: ``context -> bool``: the context asks for best play; its ``transitions`` may
            then return :class:`~montecarlo.engine.decisions.Choice` objects, and every answer is
            that of the solved policy (needs ``objective``; see the module docstring).
        name: what the "exact value unavailable" note calls the chain.
        cache_size: chains kept (least recently used dropped first).
        home: where the builder lives, ``(module name, attribute)`` or ``(picklable owner,
            attribute)``: it then pickles as that reference, so that a worker process reuses
            its own copy and its solved chains. Without it, the builder pickles as its
            description (its functions must then be picklable) with empty caches.
    """

    def __init__(
        self,
        start: Callable[[Any, Any], S],
        transitions: Callable[[C, S], Sequence[Step[S]] | Choice[S]],
        outcome: Callable[[C, S], Mapping[str, Any]],
        metrics: Sequence[Metric],
        counters: Mapping[str, str] | None = None,
        *,
        context: Callable[[Any, Any], C] | None = None,
        direct: Kernel | None = None,
        max_states: int = DEFAULT_MAX_STATES,
        sampler_max_states: int | None = None,
        size_bound: Callable[[Any, Any], int | None] | None = None,
        finish: Callable[[Any, Any, dict[str, Any]], None] | None = None,
        explain: Callable[[MonteCarloError, C], Exception] | None = None,
        objective: Callable[[C], Objective | None] | None = None,
        best_play: Callable[[C], bool] | None = None,
        name: str = "the chain",
        cache_size: int = 64,
        home: tuple[Any, str] | None = None,
    ) -> None:
        if sampler_max_states is not None and direct is None:
            raise ValueError("sampler_max_states needs a direct kernel for the larger chains")
        if best_play is not None and objective is None:
            raise ValueError("best_play needs an objective to maximise")
        self.start = start
        self.transitions = transitions
        self.outcome = outcome
        self.metrics = tuple(metrics)
        self.counters = dict(counters or {})
        self.context = context
        self.direct = direct
        self.max_states = max_states
        self.sampler_max_states = max_states if sampler_max_states is None else sampler_max_states
        self.size_bound = size_bound
        self.finish = finish
        self.explain = explain
        self.objective = objective
        self.best_play = best_play
        self.name = name
        self.cache_size = cache_size
        self.home = home
        self._chains: OrderedDict[tuple[C, Hashable], Chain[S]] = OrderedDict()
        # (context, start) -> states; TOO_LARGE above the limit, or why it is too large to solve
        self._sizes: dict[tuple[C, S], int | str] = {}
        self._solutions: OrderedDict[tuple[C, S], Solution[S] | int | str] = OrderedDict()  # or as above

    def __reduce__(self) -> Any:
        if self.home is not None:
            return _at_home, self.home
        state = {k: v for k, v in vars(self).items() if k not in ("_chains", "_sizes", "_solutions")}
        return _rebuilt, (type(self), state)

    # --- chains -------------------------------------------------------------------------------

    def context_of(self, rules: Any, setup: Any) -> C:
        """The context of ``setup``'s chain under ``rules``."""
        return rules if self.context is None else self.context(rules, setup)

    def chain(self, context: C, extra: Hashable = None) -> Chain[S]:
        """The chain for ``context`` (and ``extra``), built once and kept in the LRU."""
        key = (context, extra)
        got = self._chains.get(key)
        if got is None:
            got = self._chains[key] = self.build_chain(context, extra)
            if len(self._chains) > self.cache_size:
                self._chains.popitem(last=False)
        else:
            self._chains.move_to_end(key)
        return got

    def build_chain(self, context: C, extra: Hashable = None) -> Chain[S]:
        """A new chain for ``context``: the plain rule (``extra`` None), or the solved policy's
        (``extra`` = ``(BEST, start)``); the objective, when the context asks one, as a metric."""
        outcome = self.outcome
        metrics, counters = self.metrics, self.counters
        report: Callable[[S], Mapping[str, Any]] = lambda state: outcome(context, state)  # noqa: E731
        objective = self.objective_of(context)
        if objective is not None:
            report, metrics, counters = with_objective(objective, report, metrics, counters)
        if isinstance(extra, tuple) and len(extra) == 2 and extra[0] == BEST:
            solved = self._solution(context, extra[1])
            if not isinstance(solved, Solution):
                raise ChainTooLarge(f"more than {self.max_states:,} states")
            rule: Callable[[S], Sequence[Step[S]]] = solved.transitions
        else:
            rule = self._plain(context)
        return Chain(rule, report, metrics, counters, max_states=self.max_states)

    def _plain(self, context: C) -> Callable[[S], Sequence[Step[S]]]:
        """The rule of a context that plays a fixed policy: a decision state there is a bug."""
        transitions = self.transitions

        def rule(state: S) -> Sequence[Step[S]]:
            got = transitions(context, state)
            if isinstance(got, Choice):
                raise MonteCarloError(
                    f"{self.name} offers a choice at {state_said(state)} but the question asks for no "
                    "best play"
                )
            return got

        return rule

    # --- objectives and best play -------------------------------------------------------------

    def objective_of(self, context: C) -> Objective | None:
        """The objective ``context`` asks about, or None."""
        return None if self.objective is None else self.objective(context)

    def asks_best(self, context: C) -> bool:
        """Whether ``context`` asks for best play."""
        return self.best_play is not None and bool(self.best_play(context))

    def solution(self, rules: Any, setup: Any) -> Solution[S]:
        """Best play from ``setup``'s start (memoised): its value, policy and option values.

        Raises:
            InputError: the rules do not ask for best play, or the chain is too large to solve
                (the message is :meth:`why_no_exact`'s line).
        """
        context, start = self.context_of(rules, setup), self.start(rules, setup)
        if not self.asks_best(context):
            raise InputError("these rules ask for no best play: there is no decision to solve")
        solved = self._solution(context, start) if self._solvable(rules, setup) else TOO_LARGE
        if not isinstance(solved, Solution):
            raise InputError(self.why_no_exact(rules, setup) or "best play unavailable")
        return solved

    def _bound(self, rules: Any, setup: Any) -> int | None:
        """``size_bound``'s upper bound on the states, None when there is none."""
        return None if self.size_bound is None else self.size_bound(rules, setup)

    def _solvable(self, rules: Any, setup: Any) -> bool:
        bound = self._bound(rules, setup)
        return bound is None or bound <= self.max_states

    def _solution(self, context: C, start: S) -> Solution[S] | int | str:
        """The solved policy of ``(context, start)``, or TOO_LARGE, or why it is too large to
        solve (:attr:`ChainTooLarge.why`); memoised (bounded LRU)."""
        key = (context, start)
        got = self._solutions.get(key)
        if got is None:
            objective = self.objective_of(context)
            if objective is None:
                raise MonteCarloError("best play needs an objective: objective(context) gave None")
            transitions, limit = self.transitions, self.max_states

            def rule(state: S) -> Sequence[Step[S]] | Choice[S]:
                return transitions(context, state)

            try:
                got = self._run(lambda: solve(rule, start, objective, max_states=limit), context)
            except ChainTooLarge as exc:
                got = TOO_LARGE if exc.why is None else exc.why
            self._solutions[key] = got
            if len(self._solutions) > self.cache_size:
                self._solutions.popitem(last=False)
        else:
            self._solutions.move_to_end(key)
        return got

    def _chain_for(self, context: C, start: S) -> Chain[S]:
        """The chain ``exact`` and ``simulate`` use: the solved policy's under best play."""
        if self.asks_best(context):
            return self.chain(context, (BEST, start))
        return self.chain(context)

    def clear(self) -> None:
        """Forget every chain, size and solved policy (for cold timings)."""
        self._chains.clear()
        self._sizes.clear()
        self._solutions.clear()

    def size(self, rules: Any, setup: Any) -> int | None:
        """States of ``setup``'s chain; None above ``max_states`` (walked once, then memoised)."""
        if not self._solvable(rules, setup):
            return None
        context, start = self.context_of(rules, setup), self.start(rules, setup)
        return self._size(context, start)

    def _size(self, context: C, start: S) -> int | None:
        if self.asks_best(context):  # the states reachable under any play, walked by the solve
            solved = self._solution(context, start)
            return solved.size() if isinstance(solved, Solution) else None
        key = (context, start)
        got = self._sizes.get(key)
        if got is None:
            try:
                got = self._run(lambda: self.chain(context).size(start), context)
            except ChainTooLarge as exc:
                got = TOO_LARGE if exc.why is None else exc.why
            if len(self._sizes) >= 4096:
                self._sizes.pop(next(iter(self._sizes)))
            self._sizes[key] = got
        return got if isinstance(got, int) and got != TOO_LARGE else None

    def _run(self, work: Callable[[], Any], context: C) -> Any:
        """Chain work for ``context``, with the engine's errors about its chain put in the
        caller's words."""
        if self.explain is None:
            return work()
        try:
            return work()
        except (ChainTooLarge, InputError):
            raise
        except MonteCarloError as exc:
            raise self.explain(exc, context) from None

    # --- the question's functions -------------------------------------------------------------

    def _within(self, rules: Any, setup: Any, context: C, start: S, limit: int) -> bool:
        """Whether the chain has at most ``limit`` states (by ``size_bound`` when given: no walk)."""
        bound = self._bound(rules, setup)
        if bound is not None:
            return bound <= limit
        size = self._size(context, start)
        return size is not None and size <= limit

    def exact(self, rules: Any, setup: Any) -> dict[str, float] | None:
        """Every metric's exact expected value (under best play when the rules ask for it); None
        when the chain is too large (to solve)."""
        context, start = self.context_of(rules, setup), self.start(rules, setup)
        if self.asks_best(context):
            if not self._solvable(rules, setup) or not isinstance(self._solution(context, start), Solution):
                return None
        elif (self.direct is not None or self.size_bound is not None) and not self._within(
            rules, setup, context, start, self.max_states
        ):
            return None
        try:
            values = self._run(lambda: self._chain_for(context, start).exact(start), context)
        except ChainTooLarge:
            return None
        if self.finish is not None:
            self.finish(rules, setup, values)
        return values

    def simulate(self, rules: Any, setup: Any, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """``n`` trials: the chain's sampler, or ``direct`` when the chain is too large for it.

        Under best play always the solved policy's chain (``direct`` plays a fixed policy); a
        chain too large to solve raises :class:`InputError` with :meth:`why_no_exact`'s line.
        """
        context, start = self.context_of(rules, setup), self.start(rules, setup)
        if self.asks_best(context):
            self.solution(rules, setup)  # InputError when it cannot be solved
        else:
            limit = self.sampler_max_states
            if self.direct is not None and not (
                self._within(rules, setup, context, start, limit)
                and self._run(lambda: self.chain(context).table_fits(start), context)
            ):  # a chain too large for the sampler's table: the direct kernel beats the walk
                return self.direct(rules, setup, n, rng)
        out = self._run(lambda: self._chain_for(context, start).sample(start, n, rng), context)
        if self.finish is not None:
            self.finish(rules, setup, out)
        return out

    def why_no_exact(self, rules: Any, setup: Any) -> str | None:
        """Why ``exact`` gives no value for this setup ("exact value unavailable because ..."); None
        when it gives one."""
        context = self.context_of(rules, setup)
        best = self.asks_best(context)
        bound = self._bound(rules, setup)
        if bound is not None:
            if bound <= self.max_states:
                return None
            why = (
                f"exact value unavailable because {self.name} would have up to {bound:,} states, "
                f"too large for the exact solver (at most {self.max_states:,})"
            )
        elif self.size(rules, setup) is None:
            said = (self._solutions if best else self._sizes).get((context, self.start(rules, setup)))
            if not isinstance(said, str):
                said = f"{self.name} has more than {self.max_states:,} states"
            why = f"exact value unavailable because {said}"
        else:
            return None
        if best:
            return why.replace("exact value unavailable", "best play unavailable", 1) + (
                ", and best play needs the exact solve of every decision"
            )
        return why + ("; the trials are simulated without it" if self.direct is not None else "")


def _at_home(owner: Any, attribute: str) -> Any:
    """The builder a pickle refers to: ``owner`` is a module name or an unpickled object."""
    if isinstance(owner, str):
        owner = importlib.import_module(owner)
    return getattr(owner, attribute)


def _rebuilt(cls: type[ChainQuestion], state: dict[str, Any]) -> ChainQuestion:
    """A builder from its pickled description, with empty caches."""
    new = object.__new__(cls)
    new.__dict__.update(state, _chains=OrderedDict(), _sizes={}, _solutions=OrderedDict())
    return new


__all__ = ["BEST", "ChainQuestion", "Kernel"]
