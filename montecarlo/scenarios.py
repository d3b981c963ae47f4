"""Scenario files: TOML -> validated :class:`Scenario` -> one comparison per grid point.

A scenario asks one question of one game over a grid of setups under named rule variants
(format: ``docs/scenarios.md``). :func:`load_scenario` checks everything before any trial is
run — every key, every variant's rules, every grid point's setup — and raises
:class:`~montecarlo.errors.ScenarioError` with one line naming the file, the key and what was
expected. :func:`run_scenario` runs every grid point through
:func:`montecarlo.analysis.compare_many` (all variants of a point share common random numbers)
and returns a :class:`ScenarioResult`, which :mod:`montecarlo.reporting` turns into tables.

>>> sc = load_scenario("scenarios/dune1984/duel-matrix.toml")  # doctest: +SKIP
>>> result = run_scenario(sc)                                   # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import sys
import time
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, NoReturn, Sequence

from montecarlo.validate import NAME, first_repeated, fit_name
from montecarlo import __version__, registry
from montecarlo.analysis import (
    DEFAULT_TRIALS, Comparison, RunSettings, SettingError, compare_many, first_batch_chunk_size,
)
from montecarlo.engine import memory, runner
from montecarlo.errors import InputError, ScenarioError, unusable_path
from montecarlo.games.base import Game, Question, apply_overrides, refuse_conflicts
from montecarlo.progress import trial_bar
from montecarlo.tomlread import TomlReader, one_line, parse_text, read_text, show

TOP_KEYS = (
    "name",
    "title",
    "description",
    "game",
    "question",
    "seed",
    "trials",
    "precision",
    "max_trials",
    "chunk_size",
    "metrics",
    "baseline",
    "focus",
    "ordered",
    "labels",
    "setup",
    "grid",
    "rules",
    "variants",
    "plots",
)
VARIANT_KEYS = ("builtin", "overrides", "description")
PLOT_KEYS = ("kind", "metric", "x", "y", "facet", "hue", "variant", "where", "title")
# the grid fields each kind of plot shows (reporting/plots.py draws them so)
PLOT_ROLES = {"heatmap": ("x", "y", "facet"), "lines": ("x", "hue", "facet"), "bars": ("x", "hue", "facet"),
              "forest": ("facet",)}
PLOT_KINDS = ("heatmap", "lines", "bars", "forest")
DEFAULT_PRECISION_BATCH = 10_000
AUTO_PARALLEL_WORK = 1_000_000  # trials x arms x grid points above which a scenario uses every core
# Memory a grid point holds through a run and its report: its setup and row, and per variant and
# reported value an estimate, a difference and their table cells (an overestimate, measured roughly).
POINT_BYTES, RESULT_BYTES = 4096, 2048


def _fits(name: str) -> bool:
    """Whether ``name`` can name a report folder beside report-all's index.html.

    >>> _fits("tie-variants"), _fits("my duel"), _fits("index.HTML"), _fits("_x")
    (True, False, False, False)
    """
    return bool(NAME.match(name)) and name.lower() != "index.html"


@dataclass(frozen=True)
class Variant:
    """A named set of rules: built-in variants of the game, then field overrides."""

    name: str
    builtin: tuple[str, ...]
    overrides: Mapping[str, Any]
    description: str
    rules: Any


@dataclass(frozen=True)
class PlotSpec:
    """One requested plot (``[[plots]]``); unused grid fields are fixed by ``where``."""

    kind: str
    metric: str
    x: str | None = None
    y: str | None = None
    facet: str | None = None
    hue: str | None = None
    variant: str | None = None
    where: Mapping[str, Any] = field(default_factory=dict)
    title: str | None = None


@dataclass(frozen=True)
class GridPoint:
    """One setup of the grid: the swept values as written in the file, and the built setup."""

    values: Mapping[str, Any]
    setup: Any


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: everything needed to run it and to reproduce its numbers."""

    name: str
    title: str
    description: str
    path: Path | None
    game: Game
    question: Question
    seed: int
    trials: int
    precision: float | None
    max_trials: int | None
    chunk_size: int
    metrics: tuple[str, ...]
    baseline: str
    setup: Mapping[str, Any]
    grid: Mapping[str, tuple]
    rules: Mapping[str, Any]
    variants: tuple[Variant, ...]
    plots: tuple[PlotSpec, ...] | None  # None: the default plots; (): none but a comparison's forest
    points: tuple[GridPoint, ...]
    # the grid fields the title asks about: the findings lead with what they change, the
    # variants come after (none: the variants lead when there are several)
    focus: tuple[str, ...] = ()
    # grid fields whose values go up in the order listed (words: "seat 1: 0 troops", "… 1 troop"):
    # the findings read them step by step, as they do ascending numbers
    ordered: tuple[str, ...] = ()
    # [labels]: per grid field, a value as shown (``show_value``) -> the words a report shows for it
    labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def shown(self, name: str, value: Any) -> Any:
        """A value of grid field ``name`` as reports show it: its label, else ``show_value``."""
        plain = show_value(value)
        return self.labels.get(name, {}).get(str(plain), plain)

    def numeric(self, name: str) -> bool:
        """Whether grid field ``name`` is shown as numbers (not bools, not labelled into words)."""
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in self.grid[name])
        return numbers and not self.labels.get(name)

    @property
    def reported_metrics(self) -> tuple[str, ...]:
        """Reported names of the chosen metrics (a distribution expands per value)."""
        return tuple(n for m in self.metrics for n in self.question.metric(m).reported_names())

    def variant(self, name: str, flag: str = "") -> Variant:
        """The variant called ``name``; else an error that names the ``flag`` it came from."""
        for v in self.variants:
            if v.name == name:
                return v
        raise InputError(
            (f"{flag}: " if flag else "") + f"unknown variant {name!r} in scenario {self.name}; "
            f"known: {', '.join(v.name for v in self.variants)}"
        )

    def ordered_variants(self, baseline: str | None = None) -> tuple[Variant, ...]:
        """The variants with ``baseline`` (default: the scenario's) first, the rest in file order."""
        first = self.variant(baseline or self.baseline)
        return (first, *(v for v in self.variants if v.name != first.name))

    def settings(self, jobs: int | None) -> RunSettings:
        """The run settings of this scenario on ``jobs`` workers (None: chosen by the run's size)."""
        return RunSettings(
            trials=self.trials,
            seed=self.seed,
            jobs=jobs,
            precision=self.precision,
            max_trials=self.max_trials,
            chunk_size=self.chunk_size,
        )


@dataclass(frozen=True)
class ScenarioResult:
    """A scenario run: one :class:`~montecarlo.analysis.Comparison` per grid point."""

    scenario: Scenario
    variants: tuple[Variant, ...]  # variants[0] is the baseline
    comparisons: tuple[Comparison, ...]  # aligned with scenario.points
    seconds: float
    jobs: int
    date: str
    version: str = __version__

    @property
    def baseline(self) -> str:
        return self.variants[0].name


# ---------------------------------------------------------------- loading and validation


def load_scenario(path: str | os.PathLike) -> Scenario:
    """Read and validate a scenario file; ScenarioError (one line) if anything is wrong."""
    path = Path(path)
    data = parse_text(read_text(path, "scenario", ScenarioError), str(path), ScenarioError)
    if "format" in data and "game" not in data:  # a battle file: say so, not "format: unknown key"
        raise ScenarioError(
            f"{path}: a battle file (it has format = {data['format']!r}), not a scenario: ask it with "
            f"montecarlo odds {path}, or give its path as a scenario's game (docs/scenarios.md)"
        )
    return parse_scenario(data, source=str(path), default_name=path.stem, path=path)


def name_clashes(scenarios: Sequence[Scenario]) -> list[str]:
    """One line per scenario whose name an earlier one already has (empty when all are unique).

    A report folder is named after its scenario (``reports/<name>/``) whatever the game, so
    names are unique across games: a second ``duel-matrix`` in another game's folder would
    replace the first one's report. The fix named in the message puts the game in front.
    """
    seen: dict[str, Scenario] = {}
    clashes = []
    for sc in scenarios:
        other = seen.get(sc.name)
        if other is None:
            seen[sc.name] = sc
            continue
        clashes.append(
            f"{sc.path}: name: {sc.name!r} is already the name of {other.path} (reports/<name>/ is "
            f"shared by every game); set name = \"{sc.game.name}-{sc.name}\" or rename the file"
        )
    return clashes


def find_scenarios(directory: str | os.PathLike) -> list[Path]:
    """Scenario files under ``directory``: ``<game>/*.toml`` and ``*.toml``, sorted; not a report
    folder's copy of its scenario (``<report>/scenario.toml`` beside its ``report.json``), which
    would clash by name with the scenario it copies."""
    root = Path(directory)
    with unusable_path(str(root), "give the folder of the scenarios"):
        if not root.is_dir():
            raise ScenarioError(f"{root}: not a directory of scenarios")
        from montecarlo.datagame import is_definition  # game definitions (rules as data) are not scenarios

        copies = {p for p in root.glob("*/scenario.toml") if (p.parent / "report.json").is_file()}
        found = {p for p in (*root.glob("*"), *root.glob("*/*")) if registry.names_a_file(p.name)} - copies
        return sorted(p for p in found if not is_definition(p))


def parse_scenario(
    data: Mapping[str, Any],
    source: str = "<scenario>",
    default_name: str = "scenario",
    path: Path | None = None,
) -> Scenario:
    """Validate a scenario given as plain data (``game`` may also be a Game object)."""
    c = _Checker(source)
    c.keys(data, TOP_KEYS, "")
    name = c.string(data, "name", "name", default_name)
    if "name" not in data and not _fits(name):  # the file's name stands in for the key: made to fit
        # ("my duel.toml" names reports/my-duel/; a compare that writes no folder was refused)
        name = fit_name(unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode())  # é as e
        name = name if _fits(name) else "scenario"
    if not _fits(name):  # report-all's index beside the reports
        c.expected("name", "letters, digits, '.', '_' or '-', starting with a letter or digit, and not "
                   "index.html (it names the report folder)", name)
    raw_game = data.get("game")
    if isinstance(raw_game, str) and registry.names_a_file(raw_game) and path is not None:
        raw_game = _beside(path, raw_game)  # a game definition file, relative to the scenario
    game = c.game(raw_game)
    asked = c.string(data, "question", "question", None)  # its own one-line error, not wrapped again
    try:
        question = game.question(asked)
    except InputError as exc:
        c.fail("question", exc)
    settings = c.run_settings(data)
    seed, trials, precision = settings.seed, settings.trials, settings.precision
    max_trials, chunk_size = settings.max_trials, settings.chunk_size

    known_metrics = [m.name for m in question.metrics]
    metrics = tuple(c.string_list(data, "metrics", "metrics", known_metrics))
    if not metrics or len(set(metrics)) < len(metrics):
        c.expected("metrics", "a non-empty list of distinct metric names", list(metrics))
    for i, m in enumerate(metrics):
        if m not in known_metrics:
            c.fail(
                f"metrics[{i}]",
                f"unknown metric {m!r} for {game.name} {question.name}",
                f"use one of: {', '.join(known_metrics)}",
            )

    setup = dict(c.table(data, "setup", "setup"))
    grid_raw = c.table(data, "grid", "grid")
    grid: dict[str, tuple] = {}
    for key, values in grid_raw.items():
        if not isinstance(values, list):
            c.expected(f"grid.{key}", "a list of values (put a fixed value under [setup])", values)
        if not values:
            c.expected(f"grid.{key}", "a non-empty list of values", values)
        if key in setup:
            c.fail(f"grid.{key}", "also fixed in [setup]", "fix it in [setup] or sweep it in [grid]")
        shown = [str(show_value(v)) for v in values]
        if len(set(shown)) < len(shown):
            c.expected(f"grid.{key}", "distinct values", values)
        grid[key] = tuple(values)

    common = dict(c.table(data, "rules", "rules"))
    try:
        base_rules = apply_overrides(game.rules_type(), common, what="rule override")
    except InputError as exc:
        c.fail("rules", exc)
    variants = c.variants(data.get("variants"), game, base_rules, common)
    names = [v.name for v in variants]
    baseline = c.string(data, "baseline", "baseline", names[0])
    if baseline not in names:
        c.expected("baseline", f"one of the variants ({', '.join(names)})", baseline)

    count = math.prod(len(v) for v in grid.values())
    reported = sum(len(question.metric(m).reported_names()) for m in metrics)  # known: checked above
    try:
        memory.check_fits(
            count * (POINT_BYTES + RESULT_BYTES * len(variants) * reported),
            f"a grid of {count:,} points",
            hint="split the grid into several scenarios",
        )
    except InputError as exc:
        c.fail("grid", exc)
    points = []
    seen: dict[Any, dict[str, Any]] = {}  # each setup built -> the grid values that gave it first
    for combo in itertools.product(*grid.values()):
        values = dict(zip(grid, combo))
        try:
            built = question.setup(_files_beside(path, {**setup, **values}))
        except (TypeError, ValueError) as exc:  # InputError is a ValueError
            c.fail(_point_said(values), exc)
        first = seen.setdefault(built, values)  # setups are frozen dataclasses, hashed by their fields
        if first is not values:  # "Paul Atreides" and "paul", 2 and "02": one setup run twice
            # the field whose values are shown apart (as the grid's distinct values are checked)
            key = next(k for k in grid if str(show_value(first[k])) != str(show_value(values[k])))
            said = f"{show_value(first[key])!r} and {show_value(values[key])!r}"
            c.fail(f"grid.{key}", f"{said} make the same setup", "keep one")
        points.append(GridPoint(values, built))
    if "metrics" not in data:  # every metric by default, but one that applies to no setup here
        # (a battle's objective without best play) gave a table of "—" and n/a counts no row showed
        applies = {m for point in points for m in question.applicable_metrics(point.setup)}
        metrics = tuple(m for m in metrics if m in applies) or metrics
    if question.cautions is not None:  # what a player may not mean, said as odds says it (once each)
        from montecarlo.errors import caution_about

        caution_about(c for point in points for c in question.cautions(point.setup))
    if question.check is not None:  # every point under every variant, before any trial
        for variant in variants:
            for point in points:
                try:
                    question.check(variant.rules, point.setup)
                except InputError as exc:
                    c.fail(_blamed(question.check, base_rules, variant, point), exc)
    if len(points) == 1 and question.check_alone is not None:  # one setup (a grid of one value too):
        for variant in variants:  # each variant as odds asks it; a grid's cell has the fixed policy's odds
            try:
                question.check_alone(variant.rules, points[0].setup)
            except InputError as exc:
                c.fail(f"variants.{variant.name}", exc)

    raw_plots = c.array(data, "plots", "plots", "[[plots]] tables")
    plots = None if "plots" not in data else tuple(  # an empty list asks for no plots
        c.plot(i, p, metrics, question, grid, names) for i, p in enumerate(raw_plots)
    )
    return Scenario(
        name=name,
        title=c.string(data, "title", "title", name),
        description=c.string(data, "description", "description", ""),
        path=path,
        game=game,
        question=question,
        seed=seed,
        trials=trials,
        precision=precision,
        max_trials=max_trials,
        chunk_size=chunk_size,
        metrics=metrics,
        baseline=baseline,
        setup=dict(setup),
        grid=grid,
        rules=dict(common),
        variants=variants,
        plots=plots,
        points=tuple(points),
        focus=_grid_fields(c, data, grid, "focus"),
        ordered=_grid_fields(c, data, grid, "ordered"),
        labels=_labels(c, c.table(data, "labels", "labels"), grid),
    )


class _Checker(TomlReader):
    """The look-ups of a scenario file (:class:`~montecarlo.tomlread.TomlReader`), one-line
    :class:`ScenarioError` naming the file and the key."""

    def __init__(self, source: str) -> None:
        super().__init__(source, ScenarioError)  # no table of a scenario is required: no docs hint

    def fail(self, where: str, problem: Any, fix: str = "") -> NoReturn:
        if isinstance(problem, Exception):  # a game's own message, without its "rule override: "
            problem = one_line(problem).removeprefix("rule override: ")
        super().fail(where, problem, fix)

    def run_settings(self, data: Mapping) -> RunSettings:
        """seed, trials, precision, max_trials and chunk_size, checked by :class:`RunSettings`."""
        if "seed" not in data:
            self.fail("seed", "missing", "add seed = <an integer> (every report must be reproducible)")
        precision = data.get("precision")
        if data.get("max_trials") is not None and precision is None:
            problem = "set without precision, whose target it caps"
            self.fail("max_trials", problem, "add precision or remove max_trials")
        trials = data.get("trials", DEFAULT_PRECISION_BATCH if precision else DEFAULT_TRIALS)
        default_chunk = first_batch_chunk_size(trials, precision)
        try:
            return RunSettings(
                trials=trials,
                seed=data["seed"],
                precision=precision,
                max_trials=data.get("max_trials"),
                chunk_size=data.get("chunk_size", default_chunk),
            )
        except SettingError as exc:
            self.expected(exc.key, exc.expected, exc.got)

    def game(self, value: Any) -> Game:
        if isinstance(value, Game):
            return value
        if not isinstance(value, str):
            if value is None:
                self.fail("game", "missing", "add game = <a game name> (see: montecarlo games)")
            self.expected("game", "a game name (see: montecarlo games)", value)
        try:
            return registry.get_game(value)
        except InputError as exc:
            self.fail("game", exc)

    def variants(self, raw: Any, game: Game, base_rules: Any, common: Mapping) -> tuple[Variant, ...]:
        plain = "the official rules" + (" with [rules]" if common else "")
        if raw is None:  # one rule set: the scenario's own [rules] say so, as a variant of no change would
            return (Variant("official", (), {}, plain, base_rules),)
        if not isinstance(raw, Mapping) or not raw:
            self.expected("variants", "a table of named variants ([variants.NAME])", raw)
        out = []
        for name, spec in raw.items():
            key = f"variants.{name}"
            self.keys(spec, VARIANT_KEYS, key)
            builtin = tuple(self.string_list(spec, "builtin", f"{key}.builtin", []))
            overrides = self.table(spec, "overrides", f"{key}.overrides")
            rules = base_rules
            twice = first_repeated(builtin)
            if twice is not None:
                self.fail(f"{key}.builtin", f"{twice!r} is given twice", "name each house rule once")
            for b in builtin:
                if b not in game.variants:
                    known = ", ".join(game.variants) or "none"
                    unknown = f"unknown variant {b!r} for {game.name}"
                    self.fail(f"{key}.builtin", unknown, f"use one of: {known}")
            try:  # two built-in variants that set one rule otherwise: the later would undo the earlier
                refuse_conflicts({}, [(f"variant {b!r}", game.variants[b]) for b in builtin])
            except InputError as exc:
                self.fail(f"{key}.builtin", exc, "or set that rule in the variant's overrides")
            for b in builtin:
                try:  # a variant that contradicts [rules] or a variant before it
                    rules = apply_overrides(rules, game.variants[b], what=f"variant {b!r}")
                except InputError as exc:
                    self.fail(f"{key}.builtin", exc, f"drop {b!r} or the rule it contradicts")
            try:
                rules = apply_overrides(rules, overrides, what="rule override")
            except InputError as exc:
                self.fail(f"{key}.overrides", exc)
            if not name.strip() or not name.isprintable():  # it heads tables, CSV cells and plots
                self.fail("variants", f"a variant's name must be one line of printable text, got {name!r}",
                          "name it in words, e.g. [variants.no_gain]")
            default_desc = ", ".join(
                [game.variant_descriptions.get(b, b) for b in builtin]
                + [f"{k} = {show(v)}" for k, v in overrides.items()]
            ) or plain
            out.append(
                Variant(
                    name,
                    builtin,
                    dict(overrides),
                    self.string(spec, "description", f"{key}.description", default_desc),
                    rules,
                )
            )
        return tuple(out)

    def plot(
        self,
        i: int,
        spec: Any,
        metrics: Sequence[str],
        question: Question,
        grid: Mapping,
        variants: Sequence[str],
    ) -> PlotSpec:
        key = f"plots[{i}]"
        self.keys(spec, PLOT_KEYS, key)
        kind = spec.get("kind")
        if kind not in PLOT_KINDS:
            if kind is None:
                self.fail(f"{key}.kind", "missing", f"add kind = one of {', '.join(PLOT_KINDS)}")
            self.expected(f"{key}.kind", f"one of {', '.join(PLOT_KINDS)}", kind)
        metric = self.string(spec, "metric", f"{key}.metric", metrics[0])
        if metric not in metrics:
            self.expected(f"{key}.metric", f"one of the scenario's metrics ({', '.join(metrics)})", metric)
        fields = {}
        for role in ("x", "y", "facet", "hue"):
            value = self.string(spec, role, f"{key}.{role}", None)
            if value is not None and value not in grid:
                fields_text = ", ".join(grid) or "the grid is empty"
                self.expected(f"{key}.{role}", f"a [grid] field ({fields_text})", value)
            taken = next((r for r, v in fields.items() if v is not None and v == value), None)
            if taken is not None:  # a heatmap of guile by guile cannot be drawn
                self.fail(f"{key}.{role}", f"{value!r} is already the plot's {taken}",
                          "give each of x, y, facet and hue its own [grid] field")
            fields[role] = value
        used = PLOT_ROLES[kind]
        for role, value in fields.items():
            if value is not None and role not in used:  # it would be ignored, and a where on it too
                self.fail(f"{key}.{role}", f"a {kind} plot has no {role} (it uses {', '.join(used)})",
                          "remove it")
        needed = {"heatmap": ("x", "y"), "lines": ("x",)}.get(kind, ())
        for role in needed:
            if fields[role] is None:
                self.fail(f"{key}.{role}", f"missing (a {kind} plot needs it)", "name a [grid] field")
        is_distribution = question.metric(metric).kind == "distribution"
        if is_distribution and kind in ("heatmap", "lines", "forest"):
            self.expected(
                f"{key}.metric",
                f"a probability or mean metric for a {kind} plot (use bars for a distribution)",
                metric,
            )
        variant = self.string(spec, "variant", f"{key}.variant", None)
        if variant is not None and variant not in variants:
            self.expected(f"{key}.variant", f"one of the variants ({', '.join(variants)})", variant)
        if kind == "forest" and len(variants) < 2:
            self.fail(f"{key}.kind", "a forest plot needs at least two variants to compare", "add a variant")
        where = self.table(spec, "where", f"{key}.where")
        for field_name, value in where.items():
            if field_name not in grid:
                self.expected(
                    f"{key}.where.{field_name}",
                    f"a [grid] field ({', '.join(grid) or 'the grid is empty'})",
                    field_name,
                )
            role = next((r for r, v in fields.items() if v == field_name), None)
            if role is not None:  # it would be ignored: the plot shows every value of its axes
                self.fail(f"{key}.where.{field_name}", f"{field_name!r} is the plot's {role}",
                          "where fixes only the fields the plot does not show; remove it")
            if value not in grid[field_name]:
                values_text = show(list(grid[field_name]))
                self.expected(f"{key}.where.{field_name}", f"one of the grid values {values_text}", value)
        return PlotSpec(
            kind,
            metric,
            variant=variant,
            where=where,
            title=self.string(spec, "title", f"{key}.title", None),
            **fields,
        )


# ---------------------------------------------------------------- running


def start_scenario_workers(scenario: Scenario, jobs: int | None = None, backend: str = "loky") -> None:
    """Start the workers a run of ``scenario`` will use, in the background (a command calls
    this as soon as the scenario is read, so that their start-up overlaps its preparations).

    Each worker imports the question's module and the game's (its rules' module), which its
    first chunk would otherwise import while the run waits for it."""
    workers = scenario_workers(scenario, jobs)
    dataclasses.replace(scenario.settings(jobs=workers), backend=backend).start_workers(
        list(dict.fromkeys([scenario.question.simulate.__module__, scenario.game.rules_type.__module__]))
    )


def _beside(path: Path, name: str) -> str:
    """A file a scenario names, found beside the scenario file wherever the command runs; a path
    from the home folder (``~/...``) or an absolute one as it is, and one found only from the
    current folder from there (as scenarios written before found their decks)."""
    given = Path(name.strip()).expanduser()
    near = path.parent / given
    return str(given if given.is_absolute() or (not near.exists() and given.exists()) else near)


def _files_beside(path: Path | None, values: dict[str, Any]) -> dict[str, Any]:
    """Setup values that name a ``.toml`` file (a Dustrunners deck) found as the scenario's
    ``game`` is (:func:`_beside`: they were found from the current folder alone, so a scenario
    worked from one folder); the values as written stay the grid's labels."""
    if path is None:
        return values
    return {k: _beside(path, v) if isinstance(v, str) and registry.names_a_file(v) else v
            for k, v in values.items()}


def _point_said(values: Mapping[str, Any]) -> str:
    """Where in a scenario a setup's mistake is: 'grid point attackers=45, defenders=1', or
    'setup' for a scenario without a grid."""
    where = ", ".join(f"{k}={show(v)}" for k, v in values.items())
    return f"grid point {where}" if where else "setup"


def _blamed(check: Callable[[Any, Any], None], base_rules: Any, variant: Variant, point: GridPoint) -> str:
    """Where a setup the rules cannot play is the scenario's mistake: the grid point alone when
    the scenario's own rules (the game's and [rules]) fail there too, else the variant's."""
    point_said = _point_said(point.values)
    try:
        if variant.rules != base_rules:
            check(base_rules, point.setup)
            return f"variants.{variant.name}, {point_said}"
    except InputError:
        pass
    return point_said


def too_few_trials(scenario: Scenario, said: str | None = None) -> str | None:
    """Why ``scenario`` cannot run as it stands (variants to compare on one trial a setup), or None.
    ``said``: where its trials were given (``--trials 1``), else its file's key."""
    if len(scenario.variants) > 1 and scenario.trials < 2:
        where = f"{scenario.path}: " if scenario.path is not None else ""
        return (
            f"{said or f'{where}trials = {scenario.trials}'}: comparing variants needs at least 2 trials a "
            "setup (one trial has no spread to test a difference against)"
        )
    return None


def run_scenario(
    scenario: Scenario,
    *,
    jobs: int | None = None,
    baseline: str | None = None,
    progress: bool | Callable[[int, int], None] = False,
    backend: str = "loky",
    scheduler: str | None = None,
    checkpoint: str | os.PathLike | None = None,
    measured_start: bool = False,
) -> ScenarioResult:
    """Run every grid point (all variants on common random numbers) and collect the results.

    The chunks of every grid point form one pool of tasks over the workers (joblib processes,
    or the dask cluster at ``scheduler`` with ``backend="dask"``), so a grid of small setups
    fills every core. Every point uses the scenario's seed, so any cell can be reproduced alone
    with the same seed and trials, and the numbers do not depend on ``jobs`` or ``backend``.

    ``progress``: True for a bar over the whole grid's trials on a terminal, or a callable
    ``progress(done, total)``. ``checkpoint``: a file that saves finished chunks and resumes.

    ``measured_start``: with ``jobs`` None on local processes, start the workers only once the
    run has shown more than ``runner.AUTO_PARALLEL_SECONDS`` of work left, as ``odds`` and
    ``table`` do, rather than by the scenario's size up front: for a run whose workers have
    nothing else to do after it (``compare`` without a report; a report's workers also draw its
    plots). The result's ``jobs`` is then what the run used: every core if it started workers
    or found them started, else 1.
    """
    check_progress(progress)
    variants = scenario.ordered_variants(baseline)
    too_few = too_few_trials(scenario)
    if too_few:
        raise InputError(too_few)
    arms = [(v.name, v.rules) for v in variants]
    workers = scenario_workers(scenario, jobs)
    measured = measured_start and jobs is None and backend == "loky"
    settings = dataclasses.replace(
        scenario.settings(jobs=None if measured else workers), backend=backend, scheduler=scheduler,
        checkpoint=checkpoint,
    )
    if not measured:
        start_scenario_workers(scenario, jobs, backend)
    started = time.perf_counter()
    with grid_progress(progress, f"{scenario.name}") as report:
        try:
            comparisons = compare_many(
                scenario.game, scenario.question.name, [p.setup for p in scenario.points], arms,
                dataclasses.replace(settings, progress=report), scenario.metrics, checked=True,
            )
        except runner.ChunkTooLarge as exc:  # refused before any trial: named with its file
            if scenario.path is None:
                raise
            raise InputError(f"{scenario.path}: {exc}") from None
    if measured:
        workers = settings.resolved_jobs() if runner.pool_started() else 1
    return ScenarioResult(
        scenario,
        variants,
        tuple(comparisons),
        time.perf_counter() - started,
        workers,
        datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
    )


def scenario_workers(scenario: Scenario, jobs: int | None) -> int:
    """Workers for a run: ``jobs`` as given (-1 = all cores), or all cores for big runs.

    Checked like everywhere else (RunSettings refuses jobs 0, -2, ...).
    """
    jobs = scenario.settings(jobs=jobs).jobs  # checked, and numpy's integers made Python's
    cores = os.cpu_count() or 1
    if jobs is not None:  # more workers than cores only compete for them: capped
        return cores if jobs < 0 else min(jobs, cores)
    work = len(scenario.points) * len(scenario.variants) * scenario.trials * (4 if scenario.precision else 1)
    return cores if work >= AUTO_PARALLEL_WORK else 1


def local_workers(scenario: Scenario, jobs: int | None, backend: str = "loky") -> int:
    """The local worker processes a run of ``scenario`` left running, for its report's plots to
    reuse (:func:`montecarlo.reporting.write_report`): none (1) for a run on a dask cluster."""
    return scenario_workers(scenario, jobs) if backend == "loky" else 1


def check_progress(progress: Any) -> None:
    """One line for a ``progress`` that is neither True, False, None nor a function."""
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        raise InputError(
            f"progress must be True (a bar), False or a function progress(done, total), got {progress!r}"
        )


@contextmanager
def grid_progress(enabled: bool | Callable[[int, int], None] | None, label: str):
    """``progress(done, total)`` over the whole grid's trials: the caller's, or (True) a rich bar
    on stderr, only for a terminal."""
    if callable(enabled):
        yield enabled
        return
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    bar = trial_bar(sys.stderr)
    try:
        task = bar.add_task(label, total=0)  # the runner tells the total first (None would not format)
        yield lambda done, total: bar.update(task, completed=done, total=total)
    finally:
        bar.stop()


# ---------------------------------------------------------------- helpers


def _grid_fields(c, data: Mapping[str, Any], grid: Mapping[str, tuple], key: str) -> tuple[str, ...]:
    """``focus`` or ``ordered``: distinct fields swept in the grid."""
    names = tuple(c.string_list(data, key, key, []))
    for i, name in enumerate(names):
        if name not in grid:
            fix = "sweep it in [grid] or leave it out"
            if grid:
                fix = f"use one of the grid's fields: {', '.join(grid)}"
            c.fail(f"{key}[{i}]", f"{name!r} is not swept in [grid]", fix)
    if len(set(names)) < len(names):
        c.expected(key, "distinct grid fields", list(names))
    return names


def _labels(c, raw: Mapping[str, Any], grid: Mapping[str, tuple]) -> dict[str, dict[str, str]]:
    """``[labels.FIELD]``: words for values of a swept field (``"value as shown" = "label"``),
    each a value of the field, non-empty, and every shown value still distinct."""
    labels: dict[str, dict[str, str]] = {}
    for name, table in raw.items():
        if name not in grid:
            c.fail(f"labels.{name}", f"{name!r} is not swept in [grid]", "label values of a [grid] field")
        if not isinstance(table, Mapping):
            c.expected(f"labels.{name}", 'a table of "value" = "label"', table)
        shown = [str(show_value(v)) for v in grid[name]]
        for value, label in table.items():
            if value not in shown:
                problem = f"{value!r} is not one of its values"
                c.fail(f"labels.{name}", problem, "use one of: " + ", ".join(shown))
            if not isinstance(label, str) or not label.strip():
                c.expected(f"labels.{name}.{value}", "a non-empty string", label)
        final = [table.get(v, v).strip() for v in shown]
        if len(set(final)) < len(final):
            distinct = "labels distinct from each other and from the values left unlabelled"
            c.expected(f"labels.{name}", distinct, final)
        labels[name] = {value: label.strip() for value, label in table.items()}
    return labels


def show_value(value: Any) -> Any:
    """A grid value as people read it: lists as 'none' / 'sword' / 'gom_jabbar+sword'."""
    if isinstance(value, (list, tuple)):
        if not value:
            return "none"
        joiner = "+" if all(isinstance(v, str) for v in value) else ","
        return joiner.join(str(show_value(v)) for v in value)
    if isinstance(value, Mapping):
        return ",".join(f"{k}:{show_value(v)}" for k, v in value.items())
    return value
