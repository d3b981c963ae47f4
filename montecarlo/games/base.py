"""The small face every game module shows the engine, the CLI and the reports.

A game is a set of *questions* ("who wins this duel?", "does this Guile check survive?").
Each question has a frozen ``Setup`` dataclass (the situation asked about), a vectorised
``simulate(rules, setup, n, rng)`` kernel, optionally an ``exact(rules, setup)`` solver, a
``reference(rules, setup, rng)`` trial in plain Python that checks them, and the list of metrics
they return. Rules are one frozen dataclass per game, official values as
defaults; a variant is a named dict of field overrides applied with ``dataclasses.replace``.

Metric kinds (probability, mean, distribution) and what a kernel returns for each: see
:mod:`montecarlo.engine.metrics`.

``exact`` returns a dict keyed by the same reported names (``"winner_strength=3"`` for a
distribution), any subset of them, or ``None`` where no exact answer is available.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Mapping, NamedTuple, Sequence

import numpy as np

from montecarlo.engine.metrics import Metric, MetricKind
from montecarlo.errors import InputError
from montecarlo.validate import check_known, is_whole, whole

Kernel = Callable[[Any, Any, int, np.random.Generator], dict[str, np.ndarray]]
ExactSolver = Callable[[Any, Any], "dict[str, float] | None"]
Reference = Callable[[Any, Any, np.random.Generator], "dict[str, Any]"]

__all__ = [
    "Game", "Question", "Metric", "MetricKind", "apply_overrides", "refuse_conflicts", "build_dataclass",
    "to_plain", "check_known", "is_whole", "whole", "field_help", "AdviceRow", "AdviceTable",
]


class AdviceRow(NamedTuple):
    """One option of one choice of best play, in words (:class:`AdviceTable`)."""

    situation: str  # where the choice is made, as a player sees it
    option: str
    value: float  # the exact expected objective of taking it there and playing best afterwards
    best: bool  # best play's choice there


@dataclass(frozen=True, slots=True)
class AdviceTable:
    """A question's advice (:attr:`Question.advise`): the choices of best play, one row an option."""

    objective: str  # what is maximised, in words ("P(attacker wins)", "expected trade:2")
    value: float  # best play's value from the start
    fixed: Mapping[str, float]  # a fixed policy's name -> its value from the start, to compare
    rows: tuple[AdviceRow, ...]  # the choices in the order a player meets them
    notes: tuple[str, ...] = ()  # what the rows leave out, and why


@dataclass(frozen=True, slots=True)
class Question:
    """One random question a game answers.

    ``parse_setup`` turns plain values (from the CLI or a TOML scenario: ints, strings, lists)
    into a validated ``Setup``, raising :class:`InputError` naming the field on bad input.
    """

    name: str
    description: str
    setup_type: type
    metrics: tuple[Metric, ...]
    simulate: Kernel
    exact: ExactSolver | None = None
    parse_setup: Callable[[Mapping[str, Any]], Any] | None = None
    reference: Reference | None = None  # one trial in plain Python: real dice, real shuffled cards
    example: Mapping[str, Any] = field(default_factory=dict)  # a typical setup, for docs and tests
    # which metrics mean something for a setup (e.g. not seat 4 of a 3-player conflict); None: all
    applicable: Callable[[Any], Sequence[str]] | None = None
    # why ``exact`` gives no value for a setup ("exact value unavailable because ..."), None when
    # it gives one; chain-shaped questions get it from montecarlo.engine.chain_question
    why_no_exact: Callable[[Any, Any], str | None] | None = None
    # the rule readings in force for (rules, setup), in words, where the game's sources disagree
    # (War for Arrakis' English overview and Korean page): reports print them beside the numbers
    notes: Callable[[Any, Any], Sequence[str]] | None = None
    # plain values ``parse_setup`` reads besides the setup's own fields (name -> what it is), such as
    # a deck's card counts or an enemy's die: the Python API lists them with the fields
    inputs: Mapping[str, str] = field(default_factory=dict)
    # seats (1-based) of a setup that stand for no player (Imperium's House Hagal): reports read no
    # seat advantage against them; None: every seat is a player's
    stand_ins: Callable[[Any], Sequence[int]] | None = None
    # refuses (InputError) one setup asked alone under rules that leave it nothing to answer, as
    # best play with nothing to choose or too large to solve; the odds of one setup (the CLI's
    # and montecarlo.odds) ask it before the run, grids do not: a cell with nothing to choose
    # simply has the fixed policy's odds
    check_alone: Callable[[Any, Any], None] | None = None
    # a cheap check of (rules, setup) before any trial, for every setup of a run and every grid
    # point under every variant: InputError in one line for a setup these rules cannot play (a
    # battle file's pool of -1 dice under a variant), which the run would meet only on reaching it
    check: Callable[[Any, Any], None] | None = None
    # the metrics that mean different things under two rule sets of one setup, so that their
    # difference is no effect of the rules (War for Arrakis' objective: the attacker's under one,
    # the defender's where the defender plays best): a comparison marks them not applicable
    incomparable: Callable[[Any, Any, Any], Sequence[str]] | None = None
    # what a player may not mean in a setup, said but not refused (characters of one house on
    # opposite sides: one player owns both): the CLI prints each as a warning on stderr,
    # ``montecarlo.odds`` and ``montecarlo.advise`` give each as a Python warning
    cautions: Callable[[Any], Sequence[str]] | None = None
    # best play as advice for (rules, setup, inputs): the choices, each option with its exact
    # value (``montecarlo.advise``); ``advise_inputs`` are the plain values it reads besides the
    # setup (name -> what it is), such as the side that decides or the enemy's health now
    advise: Callable[[Any, Any, Mapping[str, Any]], AdviceTable] | None = None
    advise_inputs: Mapping[str, str] = field(default_factory=dict)
    # setup values the advice assumes where none is given (a deck small enough to solve exactly)
    advise_defaults: Mapping[str, Any] = field(default_factory=dict)
    # (rules, setup) -> a hashable value: setups of equal value reuse each other's work in one
    # process (a chain question's context: the chain and its memos), so a grid's workers get them
    # together; None: every setup stands alone
    affinity: Callable[[Any, Any], Hashable] | None = None
    # the rule fields that can change its answers (a Guile check: the Guile roll and Spice's price);
    # a variant that sets none of them is no house rule of this question: its help does not list
    # it and a run under it is the official rules' (said in a note); None: every field of the rules
    rule_fields: frozenset[str] | None = None

    def setup(self, values: Mapping[str, Any]) -> Any:
        """A validated setup from plain values."""
        if self.parse_setup is not None:
            return self.parse_setup(values)
        return build_dataclass(self.setup_type, values, what=f"{self.name} setup")

    def reported_names(self) -> tuple[str, ...]:
        return tuple(n for m in self.metrics for n in m.reported_names())

    def applicable_metrics(self, setup: Any) -> tuple[str, ...]:
        """Names of the metrics that apply to ``setup``; the others are reported as missing (NA)."""
        if self.applicable is None:
            return tuple(m.name for m in self.metrics)
        keep = set(self.applicable(setup))
        return tuple(m.name for m in self.metrics if m.name in keep)

    def applicable_names(self, setup: Any) -> tuple[str, ...]:
        """Reported names that apply to ``setup``: those of :meth:`applicable_metrics`, but only the
        listed values of a distribution when ``applicable`` names some (``survived=3``)."""
        if self.applicable is None:
            return self.reported_names()
        keep = set(self.applicable(setup))
        out = []
        for m in self.metrics:
            values = [n for n in m.reported_names() if n in keep]
            out += values if values else list(m.reported_names()) if m.name in keep else []
        return tuple(out)

    def metric(self, name: str) -> Metric:
        for m in self.metrics:
            if m.name == name:
                return m
        raise InputError(
            f"unknown metric {name!r} for {self.name}; known: {', '.join(m.name for m in self.metrics)}"
        )


@dataclass(frozen=True, slots=True)
class Game:
    """A modelled game: its rules type, named variants and questions."""

    name: str
    title: str
    rules_type: type
    variants: Mapping[str, Mapping[str, Any]]
    questions: Mapping[str, Question]
    default_question: str
    variant_descriptions: Mapping[str, str] = field(default_factory=dict)
    # more (question, setup) pairs beside each question's example, chosen so that every variant
    # changes some result in one of them (the consistency test checks kernels, references and
    # exact solvers on all of them)
    examples: Sequence[tuple[str, Mapping[str, Any]]] = ()
    # what defines the game when the package's version does not (a digest of a battle file's
    # text): a checkpoint records it, so that a file edited since is not resumed
    definition: str = ""

    def setups(self, question: str) -> list[Mapping[str, Any]]:
        """The example setups of ``question``: its own example, then the game's extra ones."""
        q = self.question(question)
        own = [q.example] if q.example else []
        return own + [setup for name, setup in self.examples if name == question]

    def variants_for(self, question: str | None = None) -> tuple[str, ...]:
        """The variants that can change ``question``'s answers: each sets a rule field it reads
        (:attr:`Question.rule_fields`), in the game's order."""
        used = self.question(question).rule_fields
        return tuple(
            name for name, overrides in self.variants.items() if used is None or used & set(overrides)
        )

    def variants_outside(self, question: str | None, names: Sequence[str]) -> tuple[str, ...]:
        """Those of ``names`` that are variants of this game setting no rule field of ``question``
        (:meth:`variants_for`): they change nothing there, in any setup (the CLI's note, the
        Python API's Caution); other names are left to the rules' own refusal."""
        fit = set(self.variants_for(question))
        return tuple(name for name in names if name in self.variants and name not in fit)

    def question(self, name: str | None = None) -> Question:
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise InputError(
                f"question must be a question's name (or None for {self.default_question!r}), got "
                f"{name!r}; known: {', '.join(self.questions)}"
            )
        key = name or self.default_question
        if key not in self.questions:
            raise InputError(
                f"unknown question {key!r} for {self.name}; known: {', '.join(self.questions)}"
            )
        return self.questions[key]

    def rules(
        self,
        variants: Sequence[str] = (),
        overrides: Mapping[str, Any] | None = None,
        overrides_from: str | None = None,
    ) -> Any:
        """Official rules with the named variants, then ``overrides``, applied in order.

        Two named variants that set one rule to different values are refused (``-v best_play -v
        strongest_first``): the later would silently undo the earlier, which the run's record
        would still name. ``overrides`` refine the variants (as a scenario's ``overrides`` follow
        its ``builtin``), unless ``overrides_from`` names them (``--policy``, a peer of ``-v``
        on the command line): then they are held to the same rule, and named in its message.
        """
        rules = self.rules_type()
        set_by: dict[str, tuple[str, Any]] = {}  # rule field -> (who set it, its value)
        for name in variants:
            if name not in self.variants:
                known = ", ".join(self.variants) or "none"
                raise InputError(f"unknown variant {name!r} for {self.name}; known: {known}")
            refuse_conflicts(set_by, [(f"variant {name!r}", self.variants[name])])
            rules = apply_overrides(rules, self.variants[name], what=f"variant {name!r}")
        if overrides:
            if overrides_from:
                refuse_conflicts(set_by, [(overrides_from, overrides)])
            rules = apply_overrides(rules, overrides, what="rule override")
        return rules


def refuse_conflicts(
    set_by: dict[str, tuple[str, Any]], settings: Sequence[tuple[str, Mapping[str, Any]]]
) -> None:
    """One line when a setting ``(who, overrides)`` sets a rule that an earlier one (in ``set_by``:
    rule -> (who, value), filled as it goes) set to another value."""
    for who, overrides in settings:
        for name, value in overrides.items():
            if name in set_by and set_by[name][1] != value:
                earlier, was = set_by[name]
                raise InputError(
                    f"{who} sets {name} = {value!r}, but {earlier} sets it to {was!r}: give only one of them"
                )
            set_by.setdefault(name, (who, value))


def apply_overrides(obj: Any, overrides: Mapping[str, Any], what: str = "override") -> Any:
    """``dataclasses.replace`` with a clear error for unknown fields or rejected values."""
    names = {f.name for f in dataclasses.fields(obj)}
    if not isinstance(overrides, Mapping):
        raise InputError(f"{what}: expected a mapping of rule fields to values, got {overrides!r}")
    unknown = sorted(map(str, set(overrides) - names))
    if unknown:
        known = f"known: {', '.join(sorted(names))}" if names else "these rules have no fields to override"
        raise InputError(f"{what}: unknown rule field(s) {', '.join(unknown)}; {known}")
    try:
        replaced = dataclasses.replace(obj, **dict(overrides))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"{what}: {exc}") from None
    # a yes/no rule the rules' own checks let through as something else: "no" or "off" (text,
    # so true) ran the rule the user had turned off; 0 and 1 (numpy's bools too) read as such
    plain = {}
    for name, value in overrides.items():
        if isinstance(getattr(obj, name), bool) and not isinstance(value, bool):
            numpy = type(value).__module__ == "numpy" and getattr(value, "ndim", 1) == 0  # a notebook's
            number = value.item() if numpy else value
            if type(number) not in (bool, int) or number not in (0, 1):
                raise InputError(f"{what}: {name} must be true or false, got {value!r}")
            plain[name] = bool(number)
    return dataclasses.replace(replaced, **plain) if plain else replaced


def build_dataclass(
    cls: type, values: Mapping[str, Any], what: str, required: Mapping[str, str] | None = None
) -> Any:
    """``cls(**values)`` with unknown keys reported by name (validation is the class's own).

    ``required``: field -> what it takes, for fields without a default; checked after the
    unknown keys, so that a misspelt field is named as such ("unknown field(s) atacker"), not
    reported as the field it was meant to be missing.
    """
    check_known(values, (f.name for f in dataclasses.fields(cls)), what)
    for name, takes in (required or {}).items():
        if name not in values:
            raise InputError(f"{what}: {name} is required ({takes})")
    try:
        return cls(**dict(values))
    except InputError:
        raise
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what}: {exc}") from None


def to_plain(obj: Any) -> Any:
    """A JSON-ready copy of a (nested) dataclass, tuple or mapping."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def field_help(cls: type) -> dict[str, str]:
    """Field -> help text, from the ``Attributes:`` section of a setup dataclass's docstring.

    The Python API lists it beside each setup field and the scenario schema shows it in editors.

    >>> class S:
    ...     '''A setup.
    ...
    ...     Attributes:
    ...         a, b: the sides,
    ...             two of them.
    ...         c: a count.
    ...     '''
    >>> field_help(S)
    {'a': 'the sides, two of them.', 'b': 'the sides, two of them.', 'c': 'a count.'}
    >>> class T:
    ...     '''Another.
    ...
    ...     Attributes:
    ...         d: as in :class:`DuelSetup`, see :func:`~montecarlo.odds`.
    ...     '''
    >>> field_help(T)
    {'d': 'as in DuelSetup, see montecarlo.odds.'}
    """
    doc = inspect.getdoc(cls) or ""
    _, mark, section = doc.partition("Attributes:")
    out: dict[str, str] = {}
    if not mark:
        return out
    current: list[str] = []
    for line in section.splitlines()[1:]:
        if not line.strip():
            break
        entry = re.match(r"^    ([A-Za-z_][\w, ]*):\s*(.*)$", line)
        if entry and not line.startswith("     "):
            current = [n.strip() for n in entry.group(1).split(",")]
            for n in current:
                out[n] = entry.group(2).strip()
        elif current and line.startswith("     "):
            for n in current:
                out[n] = f"{out[n]} {line.strip()}".strip()
        else:
            break
    # the docstring's Sphinx roles read as plain names: "as in :class:`DuelSetup`" -> "as in DuelSetup"
    return {n: re.sub(r":\w+:`~?([^`]+)`", r"\1", text) for n, text in out.items()}


def parse_weighted_objective(text: Any, weighted: str, example: str) -> tuple[str, float]:
    """A best-play objective: ``win``, or ``<weighted>:W`` with a weight W >= 0; ``""`` or None:
    none asked. The objectives of the games (War for Arrakis ``trade:W``, Dustrunners
    ``keep:W``) share this one reading and its messages.

    >>> parse_weighted_objective("Trade: 1.5", "trade", "trade:2")
    ('trade', 1.5)
    >>> parse_weighted_objective("keep:1E6", "keep", "keep:10")  # an exponent is fine too
    ('keep', 1000000.0)
    >>> parse_weighted_objective(None, "trade", "trade:2"), weighted_objective_text(("keep", 10.0))
    (('', 0.0), 'keep:10')
    >>> parse_weighted_objective("keep:-1", "keep", "keep:10")
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: objective must be win or keep:W (W >= 0, e.g. keep:10), got 'keep:-1'
    """
    if text is None:
        return "", 0.0
    choices = f"win or {weighted}:W (W >= 0, e.g. {example})"
    if not isinstance(text, str):
        raise InputError(f"objective must be {choices}, got {text!r}")
    key = "".join(text.lower().split())
    if key in ("", "win"):
        return key, 0.0
    match = re.fullmatch(re.escape(weighted) + r":((?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)", key)
    if not match:
        raise InputError(f"objective must be {choices}, got {text!r}")
    weight = float(match.group(1))
    if weight > 1e6:
        raise InputError(f"objective {weighted}:W needs W <= 1000000, got {text!r}")
    return weighted, weight


def weighted_objective_text(objective: tuple[str, float]) -> str:
    """The canonical text of a parsed objective: ``""``, ``"win"`` or ``"trade:2"``. The weight
    is written in full, never rounded nor in exponent form, so that the text reads back as the
    same objective.

    >>> [weighted_objective_text(("keep", w)) for w in (1e6, 123456.7, 2.0000001, 1e-7)]
    ['keep:1000000', 'keep:123456.7', 'keep:2.0000001', 'keep:0.0000001']
    """
    kind, weight = objective
    if kind in ("", "win"):
        return kind
    return f"{kind}:{np.format_float_positional(weight, trim='-')}"
