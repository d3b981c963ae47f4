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

Room for decisions: every chain comes from :meth:`ChainQuestion.build_chain` and is cached
under ``(context, extra)``, so a subclass (or a later argument) can build the chain of a solved
policy for an objective by passing ``extra`` without a second builder.

>>> from typing import NamedTuple
>>> class Coins(NamedTuple):  # flip until two heads in a row, or give up after ``rules`` flips
...     run: int
...     flips: int
>>> def flip(limit, s):
...     if s.run == 2 or s.flips == limit:
...         return []
...     return [(0.5, Coins(s.run + 1, s.flips + 1), ("flip",)), (0.5, Coins(0, s.flips + 1), ("flip",))]
>>> coins = ChainQuestion(lambda rules, setup: Coins(0, 0), flip, lambda limit, s: {"done": s.run == 2},
...                       (Metric("done", "probability", ""),), max_states=50)
>>> coins.exact(3, None), coins.why_no_exact(3, None)
({'done': 0.375}, None)
>>> coins.exact(200, None) is None, coins.why_no_exact(200, None)
(True, 'exact value unavailable because the chain has more than 50 states')
"""

from __future__ import annotations

import importlib
from collections import OrderedDict
from typing import Any, Callable, Generic, Hashable, Mapping, Sequence, TypeVar

import numpy as np

from montecarlo.engine.chain import DEFAULT_MAX_STATES, Chain, ChainTooLarge, Step
from montecarlo.engine.metrics import Metric
from montecarlo.errors import InputError, MonteCarloError

C = TypeVar("C", bound=Hashable)  # what a chain is built for: the rules, or what a setup adds to them
S = TypeVar("S", bound=Hashable)  # a chain's state
Kernel = Callable[[Any, Any, int, np.random.Generator], dict[str, np.ndarray]]

TOO_LARGE = -1  # a size memo entry: the chain has more states than the limit


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
            chain's byte table costs more than it saves); needs ``direct``.
        size_bound: ``(rules, setup) -> int``, an upper bound on the states known without walking
            the chain; when given, a setup whose bound exceeds ``max_states`` is never walked.
        finish: ``(rules, setup, values)``, adds values derived from the chain's (in place) to
            exact values (floats) and chain samples (arrays) alike; ``direct`` returns all.
        explain: turns the engine's errors about a chain (a state that only leads to itself)
            into the caller's own (e.g. naming the file that defined the rule).
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
        transitions: Callable[[C, S], Sequence[Step[S]]],
        outcome: Callable[[C, S], Mapping[str, Any]],
        metrics: Sequence[Metric],
        counters: Mapping[str, str] | None = None,
        *,
        context: Callable[[Any, Any], C] | None = None,
        direct: Kernel | None = None,
        max_states: int = DEFAULT_MAX_STATES,
        sampler_max_states: int | None = None,
        size_bound: Callable[[Any, Any], int] | None = None,
        finish: Callable[[Any, Any, dict[str, Any]], None] | None = None,
        explain: Callable[[MonteCarloError], Exception] | None = None,
        name: str = "the chain",
        cache_size: int = 64,
        home: tuple[Any, str] | None = None,
    ) -> None:
        if sampler_max_states is not None and direct is None:
            raise ValueError("sampler_max_states needs a direct kernel for the larger chains")
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
        self.name = name
        self.cache_size = cache_size
        self.home = home
        self._chains: OrderedDict[tuple[C, Hashable], Chain[S]] = OrderedDict()
        self._sizes: dict[tuple[C, S], int] = {}  # (context, start) -> states, TOO_LARGE above the limit

    def __reduce__(self) -> Any:
        if self.home is not None:
            return _at_home, self.home
        state = {k: v for k, v in vars(self).items() if k not in ("_chains", "_sizes")}
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
        """A new chain for ``context``; ``extra`` is for subclasses (a policy to play, ...)."""
        transitions, outcome = self.transitions, self.outcome
        return Chain(
            lambda state: transitions(context, state),
            lambda state: outcome(context, state),
            self.metrics,
            self.counters,
            max_states=self.max_states,
        )

    def clear(self) -> None:
        """Forget every chain and size (for cold timings)."""
        self._chains.clear()
        self._sizes.clear()

    def size(self, rules: Any, setup: Any) -> int | None:
        """States of ``setup``'s chain; None above ``max_states`` (walked once, then memoised)."""
        if self.size_bound is not None and self.size_bound(rules, setup) > self.max_states:
            return None
        context, start = self.context_of(rules, setup), self.start(rules, setup)
        return self._size(context, start)

    def _size(self, context: C, start: S) -> int | None:
        key = (context, start)
        got = self._sizes.get(key)
        if got is None:
            try:
                got = self._run(lambda: self.chain(context).size(start))
            except ChainTooLarge:
                got = TOO_LARGE
            if len(self._sizes) >= 4096:
                self._sizes.pop(next(iter(self._sizes)))
            self._sizes[key] = got
        return None if got == TOO_LARGE else got

    def _run(self, work: Callable[[], Any]) -> Any:
        """Chain work, with the engine's errors about the chain put in the caller's words."""
        if self.explain is None:
            return work()
        try:
            return work()
        except (ChainTooLarge, InputError):
            raise
        except MonteCarloError as exc:
            raise self.explain(exc) from None

    # --- the question's functions -------------------------------------------------------------

    def _within(self, rules: Any, setup: Any, context: C, start: S, limit: int) -> bool:
        """Whether the chain has at most ``limit`` states (by ``size_bound`` when given: no walk)."""
        if self.size_bound is not None:
            return self.size_bound(rules, setup) <= limit
        size = self._size(context, start)
        return size is not None and size <= limit

    def exact(self, rules: Any, setup: Any) -> dict[str, float] | None:
        """Every metric's exact expected value; None when the chain is too large."""
        context, start = self.context_of(rules, setup), self.start(rules, setup)
        if (self.direct is not None or self.size_bound is not None) and not self._within(
            rules, setup, context, start, self.max_states
        ):
            return None
        try:
            values = self._run(lambda: self.chain(context).exact(start))
        except ChainTooLarge:
            return None
        if self.finish is not None:
            self.finish(rules, setup, values)
        return values

    def simulate(self, rules: Any, setup: Any, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """``n`` trials: the chain's sampler, or ``direct`` when the chain is too large for it."""
        context, start = self.context_of(rules, setup), self.start(rules, setup)
        limit = self.sampler_max_states
        if self.direct is not None and not self._within(rules, setup, context, start, limit):
            return self.direct(rules, setup, n, rng)
        out = self._run(lambda: self.chain(context).sample(start, n, rng))
        if self.finish is not None:
            self.finish(rules, setup, out)
        return out

    def why_no_exact(self, rules: Any, setup: Any) -> str | None:
        """Why ``exact`` gives no value for this setup ("exact value unavailable because ..."); None
        when it gives one."""
        if self.size_bound is not None:
            bound = self.size_bound(rules, setup)
            if bound <= self.max_states:
                return None
            why = (
                f"exact value unavailable because {self.name} would have up to {bound:,} states, "
                f"too large for the exact solver (at most {self.max_states:,})"
            )
        elif self.size(rules, setup) is None:
            why = f"exact value unavailable because {self.name} has more than {self.max_states:,} states"
        else:
            return None
        return why + ("; the trials are simulated without it" if self.direct is not None else "")


def _at_home(owner: Any, attribute: str) -> Any:
    """The builder a pickle refers to: ``owner`` is a module name or an unpickled object."""
    if isinstance(owner, str):
        owner = importlib.import_module(owner)
    return getattr(owner, attribute)


def _rebuilt(cls: type[ChainQuestion], state: dict[str, Any]) -> ChainQuestion:
    """A builder from its pickled description, with empty caches."""
    new = object.__new__(cls)
    new.__dict__.update(state, _chains=OrderedDict(), _sizes={})
    return new


__all__ = ["ChainQuestion", "Kernel"]
