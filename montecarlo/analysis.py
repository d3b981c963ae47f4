"""Ask a game a question: run its kernel through the engine and pair estimates with exact values.

This is the one place where games meet the engine. The Python API (and the CLI through it) and
the scenario runner call :func:`ask` (one set of rules) and :func:`compare_rules` (a baseline and
variants sharing common random numbers); both return plain result objects that reporting turns
into tables.

>>> from montecarlo.analysis import ask, RunSettings
>>> a = ask("dune1984", None, {"attacker": 4, "defender": 5}, settings=RunSettings(trials=20_000))
>>> 0.2 < a.metrics["attacker_win"].estimate < 0.5
True
"""

from __future__ import annotations

import functools
import math
import os
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from montecarlo import __version__
from montecarlo.engine import runner, stats
from montecarlo.errors import InputError
from montecarlo.games.base import to_plain
from montecarlo.registry import get_game
from montecarlo.validate import is_whole

if TYPE_CHECKING:  # pragma: no cover
    from montecarlo.games.base import Game, Question

DEFAULT_SEED = 20261129
DEFAULT_TRIALS = 200_000


class SettingError(InputError):
    """A run setting out of range. ``key`` names it, so that the CLI can say ``--max-trials``
    and a scenario file ``max_trials`` where Python says ``max_trials``.

    >>> str(SettingError("trials", "a positive integer", 0))
    'trials must be a positive integer, got 0'
    >>> SettingError("max_trials", "a positive integer", 0).named("--max-trials")
    '--max-trials must be a positive integer, got 0'
    """

    def __init__(self, key: str, expected: str, got: Any) -> None:
        self.key, self.expected, self.got = key, expected, got
        super().__init__(self.named(key))

    def named(self, name: str) -> str:
        """The message with the setting called ``name``."""
        got = self.got
        shown = f"{got:,}" if is_whole(got) and not isinstance(got, bool) else repr(got)
        return f"{name} must be {self.expected}, got {shown}"


_POSITIVE = "a positive integer"
_AT_MOST = f"at most {runner.MAX_TRIALS:,} (about a year of simulation per arm)"
_JOBS = "a positive number of workers, or -1 for all cores"
_PRECISION = "a half-width between 0 and 0.5"
_ADDRESS = "a Dask scheduler address such as tcp://HOST:8786"
_DASK = "dask with a scheduler (the address of a Dask cluster)"
_PROGRESS = "a function progress(done, total), or None"
_CAP_ALONE = "given only with precision, whose run it caps (set trials instead)"


def _takes_two(function: Callable) -> bool:
    """Whether ``function(done, total)`` can be called (a function of no arguments failed deep in
    the run); True when Python cannot tell (some built-ins)."""
    import inspect

    try:
        inspect.signature(function).bind(0, 0)
    except TypeError:
        return False
    except ValueError:  # no signature to read
        return True
    return True


def _count(key: str, value: Any) -> None:
    if not is_whole(value) or value <= 0:
        raise SettingError(key, _POSITIVE, value)
    if value > runner.MAX_TRIALS:
        raise SettingError(key, _AT_MOST, value)


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How many trials, which seed, and where to run them: checked here, once, for every caller.

    The CLI, scenarios and :func:`montecarlo.engine.runner.run` trust a ``RunSettings``; a bad
    value raises :class:`SettingError` naming the field.

    >>> RunSettings(trials=0)
    Traceback (most recent call last):
    ...
    montecarlo.analysis.SettingError: trials must be a positive integer, got 0
    """

    trials: int = DEFAULT_TRIALS
    seed: int = DEFAULT_SEED
    jobs: int | None = None  # None: all cores once the run proves long enough, else in-process
    precision: float | None = None
    max_trials: int | None = None
    backend: str = "loky"
    scheduler: str | None = None
    progress: Callable[[int, int], None] | None = None  # ``progress(done, total)``, see runner.run
    chunk_size: int = runner.DEFAULT_CHUNK_SIZE
    checkpoint: str | os.PathLike | None = None  # a file that saves finished chunks and resumes

    def __post_init__(self) -> None:
        _count("trials", self.trials)
        if not is_whole(self.seed) or self.seed < 0:
            raise SettingError("seed", "a non-negative integer", self.seed)
        if self.jobs is not None and (not is_whole(self.jobs) or (self.jobs < 1 and self.jobs != -1)):
            raise SettingError("jobs", _JOBS, self.jobs)
        if self.precision is not None and not (
            isinstance(self.precision, (int, float))
            and not isinstance(self.precision, bool)
            and 0 < self.precision < 0.5
        ):
            raise SettingError("precision", _PRECISION, self.precision)
        if self.max_trials is not None:
            _count("max_trials", self.max_trials)
            if self.precision is None:
                raise SettingError("max_trials", _CAP_ALONE, self.max_trials)
            if self.max_trials < self.trials:
                raise SettingError("max_trials", f"at least the first batch of trials ({self.trials:,})",
                                   self.max_trials)
        if self.backend not in runner.BACKENDS:
            raise SettingError("backend", f"one of {', '.join(runner.BACKENDS)}", self.backend)
        if self.scheduler is not None:  # checked and stripped here, for the API and the CLI alike
            address = runner.scheduler_address(self.scheduler)
            if address is None:
                raise SettingError("scheduler", _ADDRESS, self.scheduler)
            if self.backend != "dask":
                raise SettingError("backend", _DASK, self.backend)
            object.__setattr__(self, "scheduler", address)
        _count("chunk_size", self.chunk_size)
        if self.progress is not None and not (callable(self.progress) and _takes_two(self.progress)):
            raise SettingError("progress", _PROGRESS, self.progress)
        if self.checkpoint is not None and not isinstance(self.checkpoint, (str, os.PathLike)):
            raise SettingError("checkpoint", "a file's path (a str or pathlib.Path)", self.checkpoint)
        for key in ("trials", "seed", "jobs", "max_trials", "chunk_size"):  # numpy's integers as Python's
            value = getattr(self, key)
            if value is not None and type(value) is not int:
                object.__setattr__(self, key, int(value))

    def resolved_jobs(self) -> int:
        """The most workers to use: ``jobs`` as given but never more than the cores (-1 or, by
        default, all cores).

        More workers than cores only compete for them (100 on 2 cores ran 7 times slower), so
        the count is capped; :func:`excess_jobs` tells a caller that wants to warn. By default
        (``jobs=None``) a run starts its workers only once it proves long enough to gain from
        them (``runner.AUTO_PARALLEL_SECONDS``): the count of its trials cannot tell, as kernels
        differ a hundredfold in speed.
        """
        cores = os.cpu_count() or 1
        if self.jobs is None or self.jobs == -1:
            return cores
        return min(int(self.jobs), cores)

    def run(self, arms, metrics) -> runner.RunResult:
        """One point's arms through the engine (see :meth:`run_grid`)."""
        arm_list = (arms,) if callable(arms) else tuple(arms)
        return self.run_grid([runner.Point(arm_list, tuple(metrics))])[0]

    def run_grid(
        self, points: Sequence[runner.Point], work: Mapping[str, Any] | None = None
    ) -> list[runner.RunResult]:
        """Every point's chunks as one pool of tasks; ``work`` describes the run for a checkpoint."""
        checkpoint = None
        if self.checkpoint is not None:
            from montecarlo.engine.checkpoint import Checkpoint

            checkpoint = Checkpoint(self.checkpoint, {"version": __version__, **(work or {})})
        return runner.run_grid(
            points, int(self.trials), int(self.seed), jobs=self.resolved_jobs(),
            chunk_size=int(self.chunk_size), precision=self.precision,
            max_trials=None if self.max_trials is None else int(self.max_trials),
            backend=self.backend, scheduler=self.scheduler,
            progress=self.progress,
            checkpoint=checkpoint,
            auto=self.jobs is None,
        )


    def start_workers(self, modules: Sequence[str] = ()) -> None:
        """Start the workers of a parallel run in the background now (see
        :func:`montecarlo.engine.runner.start_workers`): a command calls this as soon as its
        settings are checked, so that the workers' start-up overlaps its own preparations.
        Not by default (``jobs=None``): such a run starts them only when it proves long enough."""
        if self.jobs is not None:
            runner.start_workers(self.resolved_jobs(), self.backend, modules)


def first_batch_chunk_size(trials: Any, precision: Any) -> int:
    """The chunk size of a run whose own is not given: a precision run's trials are its first
    batch and it grows by whole chunks, so its chunks are the first batch (at most the default
    chunk: 131,072-trial chunks ran 131,072 trials for 1,000 asked); otherwise the default.

    >>> first_batch_chunk_size(1_000, 0.01), first_batch_chunk_size(1_000, None)
    (1000, 131072)
    """
    if precision is not None and is_whole(trials) and trials > 0:
        return min(int(trials), runner.DEFAULT_CHUNK_SIZE)
    return runner.DEFAULT_CHUNK_SIZE


def chosen_backend(backend: str | None, scheduler: str | None) -> str:
    """The backend when none is named: dask with a scheduler (its cluster), else loky.

    >>> chosen_backend(None, "tcp://10.0.0.1:8786"), chosen_backend(None, None)
    ('dask', 'loky')
    >>> chosen_backend("threading", None)
    'threading'
    """
    if backend is not None:  # "" is a backend name left blank, refused where names are checked
        return backend
    return "dask" if scheduler else "loky"


def excess_jobs(jobs: int | None) -> int | None:
    """The core count if ``jobs`` asks for more workers than there are cores, else None.

    >>> excess_jobs(1) is None and excess_jobs(None) is None and excess_jobs(-1) is None
    True
    """
    cores = os.cpu_count() or 1
    return cores if jobs is not None and jobs > cores else None


@dataclass(frozen=True, slots=True)
class MetricValue:
    """One reported number: the estimate, its 95% interval and the exact value (None if unknown)."""

    name: str
    kind: str
    estimate: float
    ci_low: float
    ci_high: float
    se: float
    exact: float | None
    description: str = ""  # what the metric means (Metric.description)

    def to_json(self) -> dict[str, Any]:
        return {
            "estimate": _finite(self.estimate), "ci_low": _finite(self.ci_low),
            "ci_high": _finite(self.ci_high), "se": _finite(self.se), "exact": self.exact,
            "description": self.description,
        }


@dataclass(frozen=True)
class Answer:
    """Everything needed to reproduce and read one simulated question."""

    game: str
    question: str
    rules: Any
    variants: tuple[str, ...]
    setup: Any
    trials: int
    seed: int
    seconds: float
    metrics: dict[str, MetricValue]
    precision: float | None = None
    version: str = __version__

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game, "question": self.question, "trials": self.trials,
            "seed": self.seed, "version": self.version, "variants": list(self.variants),
            "rules": to_plain(self.rules), "setup": to_plain(self.setup),
            "precision": self.precision,
            **({} if self.precision is None else {
                "precision_reached": self.precision_reached(), "widest_half_width": self.widest_half_width(),
            }),
            "metrics": {name: m.to_json() for name, m in self.metrics.items()},
        }

    def applicable(self, game: str | Game) -> "Answer":
        """The answer with only the metrics its question says apply to its setup (no seat 4 of a
        3-player conflict, no objective nobody asked for): what ``montecarlo.odds`` and the CLI
        show. ``game``: the answer's game, by name or object (a battle file has no name here)."""
        keep = set(resolve(game, self.question)[1].applicable_names(self.setup))
        return replace(self, metrics={k: m for k, m in self.metrics.items() if k in keep})

    def widest_half_width(self) -> float:
        """The widest 95% half-width among the probabilities (what ``precision`` bounds)."""
        widths = ((m.ci_high - m.ci_low) / 2 for m in self.metrics.values() if m.kind != "mean")
        return max(widths, default=0.0)

    def precision_reached(self) -> bool | None:
        """Whether every probability's half-width is within ``precision`` (None without one)."""
        return None if self.precision is None else self.widest_half_width() <= self.precision


@dataclass(frozen=True)
class DifferenceValue:
    """A variant minus the baseline for one metric, with its paired 95% interval."""

    name: str
    estimate: float
    ci_low: float
    ci_high: float
    se: float
    p_value: float
    exact: float | None


@dataclass(frozen=True)
class Comparison:
    """A baseline and variants run on common random numbers for one setup."""

    game: str
    question: str
    setup: Any
    labels: tuple[str, ...]  # labels[0] is the baseline
    rules: tuple[Any, ...]
    answers: tuple[Answer, ...]
    differences: tuple[dict[str, DifferenceValue], ...]  # one per non-baseline arm
    trials: int
    seed: int


def resolve(game: str | Game, question: str | None) -> tuple[Game, Question]:
    """The game (by name or object) and its question (None: the game's default question)."""
    g = get_game(game) if isinstance(game, str) else game
    return g, g.question(question)


def kernel_for(question: Question, rules: Any, setup: Any):
    """A picklable ``kernel(n, rng)`` for the engine."""
    return functools.partial(question.simulate, rules, setup)


def _exacts_of(exact: Callable[[Any, Any], Any], rules: Sequence[Any], setup: Any) -> list[dict[str, float]]:
    """The exact values of ``setup`` under each of ``rules`` (a point's companion)."""
    return [exact(r, setup) or {} for r in rules]


def _exact_companion(question: Question, rules: Sequence[Any], setup: Any) -> Callable[[], Any] | None:
    """A grid point's companion computing its exact values where its first chunk runs: that
    worker has just built the setup's chain and memos, which the parent would build again."""
    if question.exact is None:
        return None
    return functools.partial(_exacts_of, question.exact, tuple(rules), setup)


def _affinity(question: Question, rules: Sequence[Any], setup: Any) -> Any:
    """What a grid point shares with others run in the same process (see ``Question.affinity``)."""
    if question.affinity is None:
        return None
    return tuple(question.affinity(r, setup) for r in rules)


def _exacts(question: Question, rules: Sequence[Any], setup: Any, result: runner.RunResult) -> list:
    """The exact values a run's companion brought back, else worked out here by the same code
    (its first chunk ran in an earlier, checkpointed run)."""
    if result.companion is not None:
        return result.companion
    companion = _exact_companion(question, rules, setup)
    return [{} for _ in rules] if companion is None else companion()


def _metric_values(
    question: Question, estimates: Mapping[str, stats.Estimate], exact: Mapping[str, float]
) -> dict[str, MetricValue]:
    reported = {name: m for m in question.metrics for name in m.reported_names()}  # every estimate's metric
    return {
        name: MetricValue(name, reported[name].kind, est.estimate, est.ci_low, est.ci_high, est.se,
                          _maybe_float(exact.get(name)), reported[name].description)
        for name, est in estimates.items()
    }


def _definition(game: Game) -> dict[str, str]:
    """The work's record of a game the package's version does not define (a battle file)."""
    return {"definition": game.definition} if game.definition else {}


def ask(
    game: str | Game,
    question: str | None,
    setup: Mapping[str, Any] | Any,
    variants: Sequence[str] = (),
    overrides: Mapping[str, Any] | None = None,
    settings: RunSettings = RunSettings(),
) -> Answer:
    """Simulate one question under one set of rules and attach exact values where they exist."""
    return ask_many(game, question, [setup], variants, overrides, settings)[0]


def ask_many(
    game: str | Game,
    question: str | None,
    setups: Sequence[Mapping[str, Any] | Any],
    variants: Sequence[str] = (),
    overrides: Mapping[str, Any] | None = None,
    settings: RunSettings = RunSettings(),
) -> list[Answer]:
    """:func:`ask` for several setups at once: their chunks share the workers (a table's cells).

    Each answer is the one :func:`ask` gives for its setup alone, bit for bit.
    """
    g, q = resolve(game, question)
    rules = g.rules(variants, overrides)
    setup_objs = [q.setup(s) if isinstance(s, Mapping) else s for s in setups]
    _check(q, [rules], setup_objs)
    points = [
        runner.Point((kernel_for(q, rules, s),), tuple(q.metrics), _exact_companion(q, [rules], s),
                     _affinity(q, [rules], s))
        for s in setup_objs
    ]
    work = {"kind": "ask", "game": g.name, **_definition(g), "question": q.name, "variants": list(variants),
            "rules": to_plain(rules), "setups": [to_plain(s) for s in setup_objs]}
    results = settings.run_grid(points, work)
    return [
        Answer(g.name, q.name, rules, tuple(variants), s, r.trials, r.seed, r.seconds,
               _metric_values(q, r.estimates(), _exacts(q, [rules], s, r)[0]), settings.precision)
        for s, r in zip(setup_objs, results)
    ]


def compare_rules(
    game: str | Game,
    question: str | None,
    setup: Mapping[str, Any] | Any,
    arms: Sequence[tuple[str, Any]],
    settings: RunSettings = RunSettings(),
) -> Comparison:
    """Run ``arms`` = [(label, rules), ...] on one setup; arm 0 is the baseline.

    All arms draw from the same seed per chunk (common random numbers), and differences are
    paired per trial, so their intervals are as narrow as the shared randomness allows.
    """
    return compare_many(game, question, [setup], arms, settings)[0]


def _check(q: Question, rule_sets: Sequence[Any], setups: Sequence[Any]) -> None:
    """The question's cheap check of every setup under every rule set, before any trial."""
    if q.check is not None:
        for rules in rule_sets:
            for setup in setups:
                q.check(rules, setup)


def compare_many(
    game: str | Game,
    question: str | None,
    setups: Sequence[Mapping[str, Any] | Any],
    arms: Sequence[tuple[str, Any]],
    settings: RunSettings = RunSettings(),
    metrics: Sequence[str] | None = None,
    checked: bool = False,
) -> list[Comparison]:
    """:func:`compare_rules` for several setups at once: one pool of (setup x chunk) tasks.

    A task runs every arm of its setup on the chunk's stream, so the arms stay paired per trial;
    each comparison is the one :func:`compare_rules` gives for its setup alone, bit for bit.
    ``metrics``: the names to tally (all the question's by default); a precision run stops when
    the probabilities among them reach the target, not on ones nobody looks at. ``checked``:
    every setup already passed the question's check under every arm (a parsed scenario's).
    """
    g, q = resolve(game, question)
    chosen = tuple(q.metrics) if metrics is None else tuple(q.metric(name) for name in metrics)
    setup_objs = [q.setup(s) if isinstance(s, Mapping) else s for s in setups]
    if not checked:
        _check(q, [rules for _, rules in arms], setup_objs)
    points = [
        runner.Point(
            tuple(kernel_for(q, rules, s) for _, rules in arms), chosen,
            _exact_companion(q, [rules for _, rules in arms], s),
            _affinity(q, [rules for _, rules in arms], s),
        )
        for s in setup_objs
    ]
    work = {"kind": "compare", "game": g.name, **_definition(g), "question": q.name,
            "arms": [[label, to_plain(rules)] for label, rules in arms],
            "setups": [to_plain(s) for s in setup_objs], "metrics": [m.name for m in chosen]}
    results = settings.run_grid(points, work)
    return [_comparison(g, q, s, arms, r, settings) for s, r in zip(setup_objs, results)]


def _comparison(g: Game, q: Question, setup_obj: Any, arms: Sequence[tuple[str, Any]],
                result: runner.RunResult, settings: RunSettings) -> Comparison:
    exacts = _exacts(q, [rules for _, rules in arms], setup_obj, result)
    answers = tuple(
        Answer(g.name, q.name, rules, (label,), setup_obj, result.trials, result.seed,
               result.seconds, _metric_values(q, result.estimates(i), exacts[i]), settings.precision)
        for i, (label, rules) in enumerate(arms)
    )
    diffs = []
    for i in range(1, len(arms)):
        row = {}
        for name, d in result.differences(i).items():
            e0, e1 = exacts[0].get(name), exacts[i].get(name)
            exact = None if e0 is None or e1 is None else float(e1) - float(e0)
            row[name] = DifferenceValue(name, d.estimate, d.ci_low, d.ci_high, d.se, d.p_value, exact)
        diffs.append(row)
    return Comparison(
        g.name, q.name, setup_obj, tuple(label for label, _ in arms),
        tuple(rules for _, rules in arms), answers, tuple(diffs), result.trials, result.seed,
    )


def variants_change_nothing(answer: Answer, game: Game | None = None) -> bool:
    """Whether the answer's variants leave every exact value of its setup as the official rules
    give it (``odds dune1984 -v fight_to_last``: a duel has no next character), so that a user
    can be told before reading the numbers as the variant's effect. False whenever it cannot be
    told: a metric without an exact value, rules the official ones cannot stand beside.
    ``game``: the answer's game where the registry has none of that name (a battle file)."""
    import dataclasses

    if not answer.variants or not answer.metrics:
        return False
    now = {name: m.exact for name, m in answer.metrics.items()}
    if any(v is None for v in now.values()):
        return False
    try:
        game = get_game(answer.game) if game is None else game
        question = game.question(answer.question)
        official = game.rules()
        fields = {f for name in answer.variants for f in game.variants.get(name, {})}
        base = dataclasses.replace(answer.rules, **{f: getattr(official, f) for f in fields})
        before = question.exact(base, answer.setup) if question.exact is not None else None
    except Exception:  # noqa: BLE001 - a note is never worth a failure
        return False
    if not before:
        return False
    return all(
        before.get(name) is not None and abs(before[name] - v) <= 1e-12 * max(1.0, abs(v))
        for name, v in now.items()
    )


def _finite(x: float) -> float | None:
    """A number for JSON: None for a missing or NaN value (JSON has no NaN).

    >>> _finite(None), _finite(float("nan")), _finite(0.25), _finite(2)
    (None, None, 0.25, 2.0)
    """
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _maybe_float(x: Any) -> float | None:
    return None if x is None else float(x)


def values_said(names: Sequence[str]) -> str:
    """Distribution values, a run of consecutive whole numbers of one metric as ``x=4–10``.

    >>> values_said(["a=4", "a=5", "a=6", "a=9", "b=3", "c=x", "d=-2", "d=-1"])
    'a=4–6, a=9, b=3, c=x, d=-2–-1'
    """
    runs: list[list] = []  # [metric, first, last] or [metric, text, None]
    for name in names:
        base, _, value = name.partition("=")
        number = int(value) if re.fullmatch(r"-?[0-9]+", value) else None
        last = runs[-1] if runs else None
        if number is not None and last and last[0] == base and last[2] is not None and last[2] + 1 == number:
            last[2] = number
        else:
            runs.append([base, number, number] if number is not None else [base, value, None])
    return ", ".join(
        f"{base}={first}" if last is None or first == last else f"{base}={first}–{last}"
        for base, first, last in runs
    )


def unreached_said(names: Sequence[str], single: bool = True) -> str:
    """The line under a table that leaves out distribution values a setup cannot reach.

    >>> unreached_said(["hits=5", "hits=6"]), unreached_said(["x=2"], single=False)
    ('left out, as this setup cannot reach them (exact 0, none drawn): hits=5–6', \
'left out, where a setup cannot reach them (exact 0, none drawn): x=2')
    """
    where = "as this setup cannot" if single else "where a setup cannot"
    return f"left out, {where} reach them (exact 0, none drawn): {values_said(names)}"


def seconds_said(seconds: float) -> str:
    """A run's time to a tenth of a second, and "under 0.1 s" for less, where "0.0 s" read as none.

    >>> seconds_said(1.26), seconds_said(0.05), seconds_said(0.049)
    ('1.3 s', '0.1 s', 'under 0.1 s')
    """
    return f"{seconds:.1f} s" if seconds >= 0.05 else "under 0.1 s"


def duration(seconds: float) -> str:
    """A time as people say it, for estimates: '45 s', '12 min', '3.5 h', '2.1 days'.

    >>> duration(45), duration(700), duration(12600), duration(8460), duration(181440)
    ('45 s', '12 min', '3.5 h', '2.4 h', '2.1 days')
    """
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.1f} days"
