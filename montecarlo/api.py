"""The Python API: ``import montecarlo as mc`` for notebooks and scripts.

Five functions over :mod:`montecarlo.analysis` (one setup), :mod:`montecarlo.scenarios` (grids
and variants) and :mod:`montecarlo.reporting` (report folders); the CLI is a thin layer over them
(its odds commands ask through :func:`answer_of`, ``compare`` and ``report`` call :func:`compare`
and :func:`report`, run options are checked by :func:`run_settings`). Setups are keyword
arguments in the CLI's terms; results print as a readable table in a console and as an HTML
table in Jupyter, and turn into DataFrames in the reports' long form. Every mistake raises
:class:`~montecarlo.errors.InputError` (a :class:`~montecarlo.errors.MonteCarloError`) with the
one-line message the CLI prints.

- :func:`odds`: one setup of a question, estimate and 95% interval beside the exact value;
- :func:`table`: a question over a grid of setups (``.pivot()`` makes the two-way matrix);
- :func:`compare`: variants (house rules) against a baseline on common random numbers;
- :func:`report`: a scenario file run and written as a report folder;
- :func:`games`: the games, their questions, variants and setup fields with their help.

>>> import montecarlo as mc
>>> duel = mc.odds("dune1984", attacker=4, defender=5, trials=20_000)
>>> round(duel.exact["attacker_win"], 6)
0.259712
>>> abs(duel.estimate["attacker_win"] - duel.exact["attacker_win"]) < 4 * duel.se["attacker_win"]
True
>>> list(duel.to_pandas().columns)
['attacker', 'defender', 'variant', 'metric', 'estimate', 'ci_low', 'ci_high', 'se', 'exact', 'trials']
>>> mc.odds("dune1984", attacker=9, defender=5)
Traceback (most recent call last):
...
montecarlo.errors.InputError: attacker must be a Strength 1..6 or a character name, got 9
"""

from __future__ import annotations

import dataclasses
import html
import math
import os
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from montecarlo.analysis import (
    DEFAULT_SEED, DEFAULT_TRIALS, Answer, RunSettings, SettingError, ask_many, chosen_backend,
    first_batch_chunk_size,
)
from montecarlo.errors import Caution, InputError, MonteCarloError, ScenarioError
from montecarlo.games.base import field_help
from montecarlo.validate import first_repeated
from montecarlo.registry import names_a_file

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import polars

    from montecarlo.scenarios import Scenario, ScenarioResult

__all__ = [
    "odds", "table", "compare", "report", "advise", "games", "schema", "Result", "Advice", "GameInfo",
    "QuestionInfo",
    "SetupField", "MonteCarloError", "InputError", "Caution",
]

BASELINE = "official"
VALUE_COLUMNS = ("variant", "metric", "estimate", "ci_low", "ci_high", "se", "exact", "trials")
REPR_ROWS = 24  # rows a plain repr shows; the HTML table shows HTML_ROWS
HTML_ROWS = 60
HIDDEN = ("se", "trials", "status", "baseline", "p_value")  # in .to_pandas(), not on screen


# ---------------------------------------------------------------- results


class Result:
    """Numbers in the reports' long form: setup columns, variant, metric, estimate, interval, exact.

    ``to_pandas()`` / ``to_polars()`` give every row; ``estimate``, ``exact``, ``se`` and ``ci``
    are dicts keyed by metric name when the result has one setup and one variant (an
    :func:`odds` answer), else by the tuple (setup values..., variant, metric). ``facts`` holds
    what reproduces the numbers (game, question, seed, trials, variants, rules, version);
    ``differences`` (from :func:`compare` and :func:`report` with two or more variants) is a
    Result of paired differences variant − baseline; ``path`` is a report's folder; ``notes``
    are lines to read beside the numbers (the rule readings in force, made-up data, why there is
    no exact value), shown under the caption.
    """

    def __init__(
        self,
        title: str,
        rows: Sequence[Mapping[str, Any]],
        setup_columns: Sequence[str],
        facts: Mapping[str, Any],
        *,
        value_columns: Sequence[str] = VALUE_COLUMNS,
        keys: Sequence[str] = ("variant", "metric"),
        names: tuple[str, str] = ("estimate", "exact"),
        frame: polars.DataFrame | None = None,
        differences: Result | None = None,
        path: Path | None = None,
        raw: Any = None,
        notes: Sequence[str] = (),
    ) -> None:
        self.title = title
        self.notes = tuple(notes)
        self.rows = [dict(r) for r in rows]
        self.setup_columns = tuple(setup_columns)
        self.columns = (*self.setup_columns, *value_columns)
        self.facts = dict(facts)
        self.differences = differences
        self.path = path
        self.raw = raw  # the Answer or ScenarioResult behind the numbers
        self._keys = tuple(keys)
        self._names = names
        self._frame = frame

    # -- values by key

    def _keys_of_rows(self) -> list[Any]:
        """Each row's key: its metric for one setup and variant, else (setup values..., variant, metric)."""
        setups = {tuple(r[c] for c in self.setup_columns) for r in self.rows}
        variants = {r.get("variant") for r in self.rows}
        if len(setups) <= 1 and len(variants) <= 1:
            return [r["metric"] for r in self.rows]
        return [(*(r[c] for c in self.setup_columns), *(r[k] for k in self._keys)) for r in self.rows]

    def _values(self, column: str) -> dict[Any, Any]:
        return dict(zip(self._keys_of_rows(), (r[column] for r in self.rows)))

    @property
    def estimate(self) -> dict[Any, float | None]:
        """Simulated values (differences for a Result of differences)."""
        return self._values(self._names[0])

    @property
    def exact(self) -> dict[Any, float | None]:
        """Exact values, None where no exact solver answers."""
        return self._values(self._names[1])

    @property
    def se(self) -> dict[Any, float | None]:
        """Standard errors of the estimates."""
        return self._values("se")

    @property
    def ci(self) -> dict[Any, tuple[float | None, float | None]]:
        """95% intervals (low, high) of the estimates."""
        return dict(zip(self._keys_of_rows(), ((r["ci_low"], r["ci_high"]) for r in self.rows)))

    # -- frames

    def to_polars(self) -> polars.DataFrame:
        """Every row as a polars DataFrame (missing values are null)."""
        if self._frame is None:
            import polars as pl

            floats = {"estimate", "ci_low", "ci_high", "se", "exact"}
            data = {c: [r.get(c) for r in self.rows] for c in self.columns}
            self._frame = pl.DataFrame(
                {c: pl.Series(c, v, dtype=pl.Float64 if c in floats else None, strict=False)
                 for c, v in data.items()}
            )
        return self._frame

    def to_pandas(self) -> pandas.DataFrame:
        """Every row as a pandas DataFrame (missing values are NaN / None)."""
        return self.to_polars().to_pandas()

    def pivot(self, metric: str | None = None, values: str | None = None, variant: str | None = None):
        """A two-way pandas table of one metric: rows = the first setup column, columns = the second.

        ``metric`` defaults to the first metric, ``values`` to the estimates (or ``"exact"``,
        ``"ci_low"``...), ``variant`` to the only one (required when there are several).
        """
        if len(self.setup_columns) != 2:
            raise InputError(
                f"pivot needs exactly two swept setup fields, this result has "
                f"{len(self.setup_columns)}: {', '.join(self.setup_columns) or 'none'}"
            )
        metric = metric or self.rows[0]["metric"]
        values = values or self._names[0]
        variants = list(dict.fromkeys(r["variant"] for r in self.rows))
        if variant is None and len(variants) > 1:
            raise InputError(f"pivot: choose a variant= among {', '.join(variants)}")
        variant = variant or variants[0]
        for what, got, known in (
            ("metric", metric, dict.fromkeys(r["metric"] for r in self.rows)),
            ("variant", variant, variants),
            ("values", values, self.columns),
        ):
            if not isinstance(got, str) or got not in known:
                raise InputError(f"pivot: unknown {what} {got!r}; known: {', '.join(map(str, known))}")
        frame = self.to_pandas()
        part = frame[(frame["metric"] == metric) & (frame["variant"] == variant)]
        rows, cols = self.setup_columns
        return part.pivot(index=rows, columns=cols, values=values)

    # -- display

    def _shown(self, limit: int) -> tuple[list[str], list[list[str]], int]:
        """Columns and cells to display (the run facts go into the caption), and the rows left out
        beyond ``limit``; a distribution's values that their setup cannot reach are not shown."""
        columns = [c for c in self.columns if c not in HIDDEN]
        if len({r.get("variant") for r in self.rows}) <= 1 and "variant" in columns:
            columns.remove("variant")
        rows = [r for r in self.rows if not _unreached(r)]
        cells = [[_cell(r.get(c)) for c in columns] for r in rows[:limit]]
        return columns, cells, max(0, len(rows) - limit)

    def _unreached_said(self) -> str | None:
        """The line under a display that names the distribution values it left out."""
        from montecarlo.analysis import unreached_said, values_said

        left = [r["metric"] for r in self.rows if _unreached(r)]
        if not left:
            return None
        names = list(dict.fromkeys(left))
        names.sort(key=lambda n: (n.partition("=")[0], _number_or_text(n.partition("=")[2])))
        if "exact_difference" in self.rows[0]:
            said = values_said(names)
            return f"left out, as neither arm drew them and their exact difference is 0: {said}"
        single = len({tuple(r.get(c) for c in (*self.setup_columns, "variant")) for r in self.rows}) == 1
        return unreached_said(names, single)

    def _caption(self) -> str:
        f = self.facts
        ran = sorted({r["trials"] for r in self.rows if isinstance(r.get("trials"), int)})  # per row
        if ran:  # what ran, not the first batch of a precision run
            shown = f"{ran[0]:,} trials" if len(ran) == 1 else f"{ran[0]:,}–{ran[-1]:,} trials a setup"
        else:
            shown = f"{f['trials']:,} trials" if isinstance(f.get("trials"), int) else "exact"
        rules = _rules_said(f.get("variants"), f.get("overrides"))
        if f.get("precision_reached") is False:  # the trial cap came first: say so, as the CLI does
            shown += f" (precision ±{f['precision']:g} NOT reached: raise max_trials)"
        return f"{shown}, seed {f.get('seed')}, {rules}; 95% intervals; montecarlo {f.get('version')}"

    def __repr__(self) -> str:
        columns, cells, more = self._shown(REPR_ROWS)
        texts = {*self.setup_columns, "variant", "metric"}
        widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]

        def line(values: Sequence[str]) -> str:
            return "  ".join(
                v.ljust(w) if c in texts else v.rjust(w) for c, v, w in zip(columns, values, widths)
            ).rstrip()

        lines = [self.title, line(columns), *(line(row) for row in cells)]
        if more:
            lines.append(f"... {more} more row{'s' if more > 1 else ''} (.to_pandas() has them all)")
        unreached = self._unreached_said()
        if unreached:
            lines.append(unreached)
        lines.append(self._caption())
        lines += [f"note: {note}" for note in self.notes]
        if self.differences is not None:
            lines += ["", repr(self.differences)]
        if self.path is not None:
            lines.append(f"report: {self.path / 'index.html'}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        columns, cells, more = self._shown(HTML_ROWS)
        head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>" for row in cells
        )
        rows = "rows" if more > 1 else "row"
        note = f"<p>... {more} more {rows} (<code>.to_pandas()</code> has them all)</p>" if more else ""
        unreached = self._unreached_said()
        note += f"<p>{html.escape(unreached)}</p>" if unreached else ""
        parts = [
            f"<table><caption>{html.escape(self.title)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>{note}<p>{html.escape(self._caption())}</p>",
            *(f"<p>note: {html.escape(n)}</p>" for n in self.notes),
        ]
        if self.differences is not None:
            parts.append(self.differences._repr_html_())
        if self.path is not None:
            parts.append(f"<p>report: <code>{html.escape(str(self.path / 'index.html'))}</code></p>")
        return "<div>" + "".join(parts) + "</div>"

    def __len__(self) -> int:
        return len(self.rows)


def _unreached(row: Mapping[str, Any]) -> bool:
    """A distribution's value that the row's setup cannot reach: exact 0 and drawn by no trial
    (a storm's 12 hits on a legion of 4), which a display need not list (the frames keep it); in
    a row of differences, a value neither arm drew whose exact difference is 0."""
    if "=" not in str(row.get("metric", "")):
        return False
    if "exact_difference" in row:
        drawn = (row.get("baseline_estimate"), row.get("variant_estimate"))
        return row["exact_difference"] == 0 and drawn == (0, 0)
    return row.get("exact") == 0 and row.get("estimate") == 0


def _number_or_text(text: str) -> tuple[int, Any]:
    try:
        return (0, int(text))
    except ValueError:
        return (1, text)


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


# ---------------------------------------------------------------- checks


def run_settings(
    trials: Any = DEFAULT_TRIALS,
    seed: Any = DEFAULT_SEED,
    precision: Any = None,
    max_trials: Any = None,
    jobs: Any = None,
    *,
    name: Callable[[str], str] = str,
    **more: Any,
) -> RunSettings:
    """Run settings checked once, for the API and the CLI alike (:class:`RunSettings` checks them).

    A bad value raises :class:`InputError` naming the setting as ``name(key)``: the keyword
    argument here, the flag the user typed in the CLI (``--max-trials``). ``more`` passes
    backend, scheduler, checkpoint and progress through.

    >>> run_settings(trials=0)
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: trials must be a positive integer, got 0
    >>> run_settings(max_trials=0, name=lambda key: "--" + key.replace("_", "-"))
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: --max-trials must be a positive integer, got 0
    """
    # a notebook's numpy numbers as Python's: np.float32(0.01) is no float, np.int64 no int
    trials, seed, precision, max_trials, jobs = map(_as_toml, (trials, seed, precision, max_trials, jobs))
    more.setdefault("chunk_size", first_batch_chunk_size(trials, precision))
    try:
        return RunSettings(trials=trials, seed=seed, jobs=jobs, precision=precision, max_trials=max_trials,
                           **more)
    except SettingError as exc:
        raise InputError(exc.named(name(exc.key))) from None


def _names(variants: Any) -> tuple[str, ...]:
    """Built-in variant names: one name or a sequence of names (None: none, as when left out)."""
    return _listed(variants, "variants", "a variant name", "name each house rule once")


def _metric_names(metrics: Any) -> tuple[str, ...]:
    """Metric names: one name or a non-empty sequence of names.

    >>> _metric_names([])
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: metrics must be a metric name or a list of names, got []
    """
    chosen = _listed(metrics, "metrics", "a metric name", "name each metric once")
    if not chosen:
        raise InputError(f"metrics must be a metric name or a list of names, got {metrics!r}")
    return chosen


def _listed(value: Any, what: str, one: str, once: str) -> tuple[str, ...]:
    """Names given as one name or a list or tuple of names, none of them twice."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{what} must be {one} or a list of names, got {value!r}")
    twice = first_repeated(value)
    if twice is not None:
        raise InputError(f"{what}: {twice!r} is given twice; {once}")
    return tuple(value)


def path_arg(value: Any, what: str) -> str:
    """``value`` as a path's text (a str or os.PathLike), else InputError naming ``what``."""
    text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(text, str):
        raise InputError(f"{what} must be a path (a str or pathlib.Path), got {value!r}")
    return text


def _game_arg(game: Any) -> Any:
    if isinstance(game, os.PathLike):
        return os.fspath(game)
    if not isinstance(game, str):
        from montecarlo.games.base import Game

        if isinstance(game, Game):
            return game
        raise InputError(f"game must be a game name or a .toml battle file, got {game!r}")
    return game


def _show(value: Any) -> Any:
    from montecarlo.scenarios import show_value

    shown = show_value(value)
    return shown if isinstance(shown, (int, float, str)) and not isinstance(shown, bool) else str(shown)


# ---------------------------------------------------------------- odds


def _check_rules(rules: Any) -> None:
    """``rules`` is None or a mapping of rule fields to values."""
    if rules is not None and not isinstance(rules, Mapping):
        raise InputError(f"rules must be a mapping of rule fields to values, got {rules!r}")


def _overrides_said(rules: Mapping[str, Any]) -> str:
    """Rule overrides in words: 'ties=defender, max_dice=2'."""
    return ", ".join(f"{k}={_show(v)}" for k, v in rules.items())


def _label(names: Sequence[str], rules: Mapping[str, Any] | None) -> str:
    """A run's rules as a variant column shows them: its built-in variants (or 'official') and
    the rule fields set beside them, so that frames with and without overrides are told apart.

    >>> _label(("ties_favour_defender",), None), _label((), {"max_dice": 2})
    ('ties_favour_defender', 'official with max_dice=2')
    """
    base = "+".join(names) or BASELINE
    return f"{base} with {_overrides_said(rules)}" if rules else base


def _rules_said(variants: Sequence[str] | None, overrides: Mapping[str, Any] | None) -> str:
    """A caption's rules: 'official rules', the variants' names, and the overrides beside them."""
    said = ", ".join(variants or ()) or BASELINE + " rules"
    return f"{said} with {_overrides_said(overrides)}" if overrides else said


def answers_of(
    game: Any,
    question: str | None,
    setups: Sequence[Mapping[str, Any] | Any],
    *,
    variants: str | Sequence[str] = (),
    rules: Mapping[str, Any] | None = None,
    settings: RunSettings,
) -> list[Answer]:
    """Setups through the engine, every one's chunks in one pool of workers (a table's cells):
    the one path of :func:`odds` and of the CLI's odds and table commands.

    A setup is the keyword arguments of :func:`odds` or a Setup the question already checked;
    ``settings`` come from :func:`run_settings` (the CLI adds its backend, checkpoint and
    progress bar). Each :class:`~montecarlo.analysis.Answer` is the one its setup gives alone.
    """
    _check_rules(rules)
    names = _names(variants)
    return ask_many(_game_arg(game), question, setups, variants=names, overrides=rules, settings=settings)


def checked_setups(
    game: Any,
    question: str | None,
    setups: Sequence[Mapping[str, Any] | Any],
    *,
    variants: str | Sequence[str] = (),
    rules: Mapping[str, Any] | None = None,
) -> list[Any]:
    """The setups checked (and the variants and rules beside them) as a run checks them, so that
    a command reports a mistake before anything else it has to say (a warning about --jobs)."""
    from montecarlo.analysis import resolve

    g, q = resolve(_game_arg(game), question)
    g.rules(_names(variants), rules)
    return [q.setup(s) if isinstance(s, Mapping) else s for s in setups]


def answer_of(
    game: Any,
    question: str | None,
    setup: Mapping[str, Any] | Any,
    *,
    variants: str | Sequence[str] = (),
    rules: Mapping[str, Any] | None = None,
    settings: RunSettings,
) -> Answer:
    """One setup through the engine (:func:`answers_of` of one setup), after the question's
    cautions about it (Python warnings, which the CLI prints as its warning lines) and its check
    of a setup asked alone (best play with nothing to choose is refused)."""
    from montecarlo.analysis import resolve

    _check_rules(rules)
    g, q = resolve(_game_arg(game), question)
    if q.cautions is not None or q.check_alone is not None:
        setup = q.setup(setup) if isinstance(setup, Mapping) else setup
        _caution(q, setup)
    if q.check_alone is not None:
        q.check_alone(g.rules(_names(variants), rules), setup)
    return answers_of(g, q.name, [setup], variants=variants, rules=rules, settings=settings)[0]


def odds(
    game: str | os.PathLike,
    question: str | None = None,
    *,
    trials: int = DEFAULT_TRIALS,
    seed: int = DEFAULT_SEED,
    precision: float | None = None,
    max_trials: int | None = None,
    variants: str | Sequence[str] = (),
    rules: Mapping[str, Any] | None = None,
    jobs: int | None = None,
    backend: str | None = None,
    scheduler: str | None = None,
    checkpoint: str | os.PathLike | None = None,
    progress: bool | Callable[[int, int], None] = False,
    **setup: Any,
) -> Result:
    """Odds of one setup: every metric's estimate, 95% interval and exact value (where known).

    ``game`` is a game name (:func:`games` lists them) or a ``.toml`` battle file
    (docs/rules-as-data.md); ``question`` defaults to the game's main one; the setup is given as
    keyword arguments in the CLI's terms (``attacker="4 regular, bashar"``). ``variants`` are
    built-in house rules, ``rules`` rule-field overrides applied after them (as ``[rules]`` of a
    scenario; War for Arrakis policies are the rule fields ``attack`` and ``retreat``).
    ``backend`` (loky, threading, or dask, the default with a ``scheduler``: a Dask cluster's
    address) and ``checkpoint`` (a file that saves finished chunks, so that the same call resumes
    after an interruption) are those of ``montecarlo odds``; none changes a number.
    ``progress``: True for a bar on a terminal, a function ``progress(done, total)``, False (the
    default) for neither; with True or False a run projected to last over a minute warns once
    (:class:`~montecarlo.errors.Caution`, within a second), as the CLI prints its estimate.

    >>> import montecarlo as mc
    >>> battle = mc.odds("war-for-arrakis", attacker="4 regular, bashar", defender="3 regular",
    ...                  settlement=1, trials=5_000)
    >>> round(battle.exact["attacker_win"], 4)
    0.2857
    >>> mc.odds("war-for-arrakis", attacker="4 regular", defender="3 regular", colour="red")
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: battle setup: unknown field(s) colour; known: attacker, attacker_cards, \
defender, defender_cards, harkonnen, objective, settlement, surprise
    """
    if "metrics" in setup and not _a_setup_field(game, question, "metrics"):
        raise InputError("odds gives every metric of its setup; metrics= chooses those of table and compare")
    check_report_checkpoint(None, checkpoint)  # refused before a bar is drawn, as the run settings
    backend = chosen_backend(backend, scheduler)
    settings = run_settings(trials, seed, precision, max_trials, jobs, backend=backend,
                            scheduler=scheduler, checkpoint=checkpoint)
    names = _names(variants)
    setup = _as_toml(setup)  # a notebook's numpy arrays and pandas Series as lists
    named = _game_arg(game)  # a game that is no name or file refused here, in one line
    with _paced(progress, f"odds {getattr(named, 'name', named)}", precision) as report:
        settings = dataclasses.replace(settings, progress=report)
        answer = answer_of(game, question, setup, variants=names, rules=rules, settings=settings)
    _caution_outside(named, answer.question, answer.variants)
    label = _label(names, rules)
    shown = {k: _show(v) for k, v in setup.items()}
    # only the metrics that mean something for this setup (no seat 4 of a 3-player conflict, no
    # objective where none was asked), as the CLI and the reports show them
    rows = [
        {**shown, "variant": label, "metric": m.name, "estimate": m.estimate, "ci_low": m.ci_low,
         "ci_high": m.ci_high, "se": m.se, "exact": m.exact, "trials": answer.trials}
        for m in answer.applicable(_game_arg(game)).metrics.values()
    ]
    from montecarlo.games.base import to_plain

    facts = {
        "game": answer.game, "question": answer.question, "seed": answer.seed, "trials": settings.trials,
        "variants": list(names), "overrides": to_plain(dict(rules or {})), "rules": to_plain(answer.rules),
        "setup": to_plain(answer.setup), "precision": settings.precision, "max_trials": settings.max_trials,
        "precision_reached": answer.precision_reached(), "version": answer.version,
    }
    where = ", ".join(f"{k}={v}" for k, v in shown.items())
    title = f"{answer.game} {answer.question}" + (f": {where}" if where else "")
    return Result(title, rows, tuple(shown), facts, raw=answer, notes=_answer_notes(game, question, answer))


@contextmanager
def _paced(
    progress: Any, label: str, precision: Any = None
) -> Iterator[Callable[[int, int], None] | None]:
    """``progress`` as the runner takes it: a function of the caller's as it is, None as nothing,
    and True (a bar on a terminal) or False (nothing shown) with the CLI's up-front estimate as a
    :class:`~montecarlo.errors.Caution`: a run projected to last over a minute says so within a
    second, where a trial count mistyped by a zero or three looked like a hang in a notebook."""
    import time

    from montecarlo.analysis import duration
    from montecarlo.engine import runner
    from montecarlo.engine.pace import Projection
    from montecarlo.errors import Caution, outside_level
    from montecarlo.scenarios import check_progress, grid_progress

    check_progress(progress)
    if progress is None or not isinstance(progress, bool):
        yield progress
        return
    projection = Projection(runner.starting)
    with grid_progress(progress, label) as shown:

        def report(done: int, total: int) -> None:
            if shown is not None:
                shown(done, total)
            seconds = projection(done, total, time.perf_counter())
            if seconds is not None:
                hint = "a coarser precision or a lower max_trials ends it sooner" if precision else (
                    "precision=0.001 stops as soon as every probability is known to ±0.001, or give fewer "
                    "trials"
                )
                warnings.warn(f"{label}: about {duration(seconds)} for {total:,} trials at this pace; {hint}",
                              Caution, stacklevel=outside_level())

        yield report


def _a_setup_field(game: Any, question: str | None, name: str) -> bool:
    """Whether ``name`` is a setup field or input of the question (a battle file's may be any)."""
    from montecarlo.analysis import resolve

    _, q = resolve(_game_arg(game), question)
    fields = dataclasses.fields(q.setup_type) if dataclasses.is_dataclass(q.setup_type) else ()
    return name in {f.name for f in fields} or name in q.inputs


def _answer_notes(game: Any, question: str | None, answer: Answer) -> tuple[str, ...]:
    """What to read beside one setup's numbers, as the CLI prints it: the question's rule readings
    in force, the setup's made-up data (a value that says it is ``illustrative`` names itself by
    its ``label``, as a Dustrunners deck does) and why no metric has an exact value."""
    from montecarlo.analysis import resolve
    _, q = resolve(_game_arg(game), question)
    lines = list(q.notes(answer.rules, answer.setup)) if q.notes is not None else []
    if dataclasses.is_dataclass(answer.setup):
        for f in dataclasses.fields(answer.setup):
            value = getattr(answer.setup, f.name)
            label = getattr(value, "label", None)
            label = label() if callable(label) else label
            if getattr(value, "illustrative", False) is True and isinstance(label, str):
                lines.append(f"{f.name}: {label}")
    if q.why_no_exact is not None and all(m.exact is None for m in answer.metrics.values()):
        why = q.why_no_exact(answer.rules, answer.setup)
        if why:
            lines.append(f"exact values: not computed — {why}")
    return tuple(lines)


# ---------------------------------------------------------------- advice


NOTHING_TO_CHOOSE = "no choice matters: wherever there is a choice, every option is as good"


class Advice:
    """Best play as advice (:func:`advise`): each choice a player meets, each option's exact value.

    ``rows`` (and ``to_pandas()`` / ``to_polars()``): situation, option, value, best; ``value`` is
    best play's value from the start, ``fixed`` the fixed policies' values beside it,
    ``best`` maps each situation to best play's option there, ``objective`` says what is
    maximised; ``facts`` holds the game, question, variants, rules, setup and version.
    """

    COLUMNS = ("situation", "option", "value", "best")

    def __init__(self, title: str, table: Any, facts: Mapping[str, Any]) -> None:
        self.title = title
        self.objective: str = table.objective
        self.value: float = table.value
        self.fixed: dict[str, float] = dict(table.fixed)
        self.rows = [r._asdict() for r in table.rows]
        self.notes: tuple[str, ...] = tuple(table.notes)
        self.facts = dict(facts)
        self.raw = table

    @property
    def best(self) -> dict[str, str]:
        """Situation -> best play's option there."""
        return {r["situation"]: r["option"] for r in self.rows if r["best"]}

    def to_polars(self) -> polars.DataFrame:
        """Every row as a polars DataFrame."""
        import polars as pl

        return pl.DataFrame(
            {c: [r[c] for r in self.rows] for c in self.COLUMNS},
            schema={"situation": pl.String, "option": pl.String, "value": pl.Float64, "best": pl.Boolean},
        )

    def to_pandas(self) -> pandas.DataFrame:
        """Every row as a pandas DataFrame."""
        return self.to_polars().to_pandas()

    def _as_good(self, row: Mapping[str, Any]) -> bool:
        """An option worth what best play's is in its situation, but for rounding."""
        from montecarlo.engine.decisions import as_good

        best = next(r["value"] for r in self.rows if r["situation"] == row["situation"] and r["best"])
        return as_good(row["value"], best)

    def _mark(self, row: Mapping[str, Any]) -> str:
        return "yes" if row["best"] else "as good" if self._as_good(row) else ""

    def _summary(self) -> str:
        fixed = "".join(f", {v:.4f} under {name}" for name, v in self.fixed.items())
        rules = _rules_said(self.facts.get("variants"), self.facts.get("overrides"))
        return (f"{self.objective}, exact: {self.value:.4f} with best play{fixed}; {rules}; "
                f"montecarlo {self.facts.get('version')}")

    def __repr__(self) -> str:
        lines = [self.title, self._summary()]
        situation = None
        for r in self.rows[:REPR_ROWS]:
            if r["situation"] != situation:
                situation = r["situation"]
                lines.append(f"{situation}:")
            tie = " (as good)" if not r["best"] and self._as_good(r) else ""
            lines.append(f"  {'*' if r['best'] else ' '} {r['option']}: {r['value']:.6f}{tie}")
        if len(self.rows) > REPR_ROWS:
            lines.append(f"... {len(self.rows) - REPR_ROWS} more rows (.to_pandas() has them all)")
        if not self.rows:
            lines.append(NOTHING_TO_CHOOSE)
        lines += [f"({note})" for note in self.notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><td>{html.escape(r['situation'])}</td><td>{html.escape(r['option'])}</td>"
            f"<td>{r['value']:.6f}</td><td>{self._mark(r)}</td></tr>"
            for r in self.rows[:HTML_ROWS]
        )
        more = len(self.rows) - HTML_ROWS
        note = f"<p>... {more} more rows (<code>.to_pandas()</code> has them all)</p>" if more > 0 else ""
        notes = "".join(f"<p>{html.escape(n)}</p>" for n in self.notes)
        if not self.rows:
            notes = f"<p>{NOTHING_TO_CHOOSE}</p>" + notes
        head = "".join(f"<th>{c}</th>" for c in self.COLUMNS)
        return (f"<div><table><caption>{html.escape(self.title)}</caption><thead><tr>{head}</tr></thead>"
                f"<tbody>{body}</tbody></table>{note}{notes}<p>{html.escape(self._summary())}</p></div>")

    def __len__(self) -> int:
        return len(self.rows)


def advise(
    game: str | os.PathLike,
    question: str | None = None,
    *,
    variants: str | Sequence[str] = (),
    rules: Mapping[str, Any] | None = None,
    **setup: Any,
) -> Advice:
    """Best play for one setup as advice: every choice where the options differ, each option's
    exact value (the expected objective of taking it there and playing best afterwards).

    ``question`` defaults to the game's first question that gives advice (a Dune 1984 ``fight``,
    a War for Arrakis ``battle``, a Dustrunners ``combat``); the setup is given as keyword
    arguments in the CLI's terms, with the advice's own inputs beside them (:func:`games` lists
    them as ``advise_inputs``): Dune 1984 ``side``, Dustrunners ``enemy_health`` and ``seen``.

    >>> import montecarlo as mc
    >>> fight = mc.advise("dune1984", attacker=[5, 1, 1], defender=4)
    >>> fight.best
    {'at the start': 'character 1 (Strength 5)'}
    >>> round(fight.value, 4), round(fight.fixed["weakest_first"], 4)
    (0.9362, 0.359)
    >>> mc.advise("imperium")
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: imperium gives no advice: no question of it solves best play \
(advice: dune1984 fight, dustrunners combat, war-for-arrakis battle)
    """
    from montecarlo.analysis import resolve
    from montecarlo.games.base import to_plain

    _check_rules(rules)
    names = _names(variants)
    run = sorted(set(setup) & {"trials", "seed", "precision", "max_trials", "jobs"})
    if run:
        raise InputError(f"advice is exact: it takes no {' or '.join(run)} (no trials are run)")
    g, _ = resolve(_game_arg(game), None)
    advising = [q for q in g.questions.values() if q.advise is not None]
    if question is not None and (not isinstance(question, str) or not question.strip()) and advising:
        raise InputError(f"question must be a question's name (or None for {advising[0].name!r}), got "
                         f"{question!r}; advice: {', '.join(a.name for a in advising)}")
    if question is None and advising:
        question = advising[0].name
    q = g.question(question)
    if q.advise is None:
        raise InputError(f"{g.name} gives no advice: no question of it solves best play (advice: "
                         f"{_advising_questions()})" if not advising else
                         f"{g.name} {q.name} gives no advice; ask {', '.join(a.name for a in advising)}")
    setup = _as_toml(setup)  # a notebook's numpy arrays and pandas Series as lists
    inputs = {k: v for k, v in setup.items() if k in q.advise_inputs}
    values = {k: v for k, v in setup.items() if k not in q.advise_inputs}
    checked = q.setup({**q.advise_defaults, **values})
    _caution(q, checked)
    played = g.rules(names, rules)
    table = q.advise(played, checked, inputs)
    _caution_outside(g, q.name, names)  # once its inputs proved good
    facts = {"game": g.name, "question": q.name, "variants": list(names),
             "overrides": to_plain(dict(rules or {})), "rules": to_plain(played), "setup": to_plain(checked),
             "inputs": {k: _show(v) for k, v in inputs.items()}, "version": _version()}
    where = ", ".join(f"{k}={_show(v)}" for k, v in setup.items())
    return Advice(f"{g.name} {q.name} advice" + (f": {where}" if where else ""), table, facts)


def _caution_outside(game: Any, question: str, names: Sequence[str]) -> None:
    """A Caution for each variant of ``names`` that sets no rule of ``question`` (``variants=
    "fight_to_last"`` on a duel): its numbers are those of the rules without it, in any setup; the
    CLI says the same in a note."""
    from montecarlo.errors import caution_about
    from montecarlo.registry import get_game

    found = get_game(game) if isinstance(game, str) else game
    caution_about(
        f"variant {name!r} changes nothing in {question}: it sets no rule that {question} uses"
        for name in found.variants_outside(question, names)
    )


def _caution(question: Any, setup: Any) -> None:
    """The question's cautions about a setup (characters of one house on opposite sides) as
    Python warnings, which the CLI prints as its own warning lines."""
    from montecarlo.errors import caution_about

    if question.cautions is not None:
        caution_about(question.cautions(setup))


def _advising_questions() -> str:
    """'dune1984 fight, ...': every game's questions that give advice."""
    from montecarlo.registry import get_game, list_games

    return ", ".join(f"{name} {q.name}" for name in list_games() for q in get_game(name).questions.values()
                     if q.advise is not None)


def _version() -> str:
    from montecarlo import __version__

    return __version__


# ---------------------------------------------------------------- grids and variants


def _variant_specs(variants: Any) -> dict[str, dict[str, Any]]:
    """``variants=`` of :func:`table` / :func:`compare` as a scenario's ``[variants]`` table.

    A name or list of built-in names: the official rules first, then one arm per name. A mapping
    name -> spec: a spec is a built-in name, a list of them, ``{"builtin": ..., "overrides": ...,
    "description": ...}`` or a plain mapping of rule overrides.

    >>> _variant_specs("ties_favour_defender")
    {'official': {}, 'ties_favour_defender': {'builtin': ['ties_favour_defender']}}
    >>> _variant_specs({"base": {}, "no_gain": {"strength_gain": 0}})
    {'base': {}, 'no_gain': {'overrides': {'strength_gain': 0}}}
    """
    if variants is None or isinstance(variants, (str, list, tuple)):
        names = _names(variants)
        return {BASELINE: {}, **{n: {"builtin": [n]} for n in names if n != BASELINE}}
    if not isinstance(variants, Mapping):
        raise InputError(f"variants must be names or a mapping name -> variant, got {variants!r}")
    out: dict[str, dict[str, Any]] = {}
    for name, spec in variants.items():
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"variants: a variant's name must be a non-empty text, got {name!r}")
        if isinstance(spec, (str, list, tuple)):
            out[name] = {"builtin": list(_names(spec))}
        elif isinstance(spec, Mapping) and set(spec) <= {"builtin", "overrides", "description"} and spec:
            out[name] = dict(spec)
        elif isinstance(spec, Mapping):
            out[name] = {"overrides": dict(spec)} if spec else {}
        else:
            raise InputError(f"variants[{name!r}]: expected built-in names or rule overrides, got {spec!r}")
    return out


def _scenario_data(
    game: Any, question: str | None, source: str, grid: Any, setup: Mapping[str, Any],
    variants: Mapping[str, Any] | None, trials: Any, seed: Any, precision: Any, max_trials: Any,
    rules: Any, metrics: Any, baseline: str | None,
) -> dict[str, Any]:
    run_settings(trials, seed, precision, max_trials, None)
    if grid is not None and not isinstance(grid, Mapping):
        raise InputError(f"grid must be a mapping of setup fields to lists of values, got {grid!r}")
    for key in grid or {}:
        if not isinstance(key, str):
            raise InputError(f"grid: a swept field is named by its name (text), got {key!r}")
    data: dict[str, Any] = {
        "name": source, "game": _game_arg(game), "seed": seed, "trials": trials,
        "setup": dict(setup), "grid": {k: list(v) if isinstance(v, (range, tuple)) else v
                                       for k, v in (grid or {}).items()},
    }
    for key, value in (("question", question), ("precision", precision), ("max_trials", max_trials),
                       ("rules", rules), ("metrics", metrics), ("baseline", baseline),
                       ("variants", variants)):
        if value is not None:
            data[key] = value
    return data


def game_scenario(
    game: Any, question: str | None = None, *, variants: Any, grid: Mapping[str, Sequence[Any]] | None = None,
    trials: int | None = None, seed: int | None = None, precision: float | None = None,
    max_trials: int | None = None, rules: Mapping[str, Any] | None = None,
    metrics: str | Sequence[str] | None = None, baseline: str | None = None, **setup: Any,
) -> Scenario:
    """A scenario built from a game, its variants (as :func:`compare` takes them) and a setup (a
    ``grid`` sweeps fields): what :func:`compare` runs for a game, and ``montecarlo compare GAME``;
    its title names ``baseline`` (one of the variants; by default the first) as what the others
    are compared with."""
    specs = _variant_specs(variants)
    data = _scenario_data(
        game, question, "compare", grid, setup, specs,
        DEFAULT_TRIALS if trials is None else trials, DEFAULT_SEED if seed is None else seed,
        precision, max_trials, rules, metrics, None,
    )
    sc = _parse(data, "compare")
    against = baseline if baseline in specs else sc.baseline  # an unknown one is refused by the caller
    others = [name for name in specs if name != against]
    title = f"{sc.game.title}, {sc.question.name}: {', '.join(others)} against {against}"
    if rules:  # every arm plays them: said once, in the title
        title += f" (every arm with {_overrides_said(rules)})"
    return dataclasses.replace(sc, title=title)


def _parse(data: Mapping[str, Any], source: str) -> Scenario:
    from montecarlo.scenarios import parse_scenario

    return parse_scenario(_as_toml(data), source=source)


def _as_toml(value: Any) -> Any:
    """Scenario data as a TOML file would give it: numpy's numbers as Python's (a report's JSON
    could not write an int64 of the grid, after the whole run), tuples and ranges as lists."""
    import numpy as np

    if isinstance(value, Mapping):
        return {k: _as_toml(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, range)):
        return [_as_toml(v) for v in value]
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):  # a pandas Series
        value = value.to_numpy()
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return [_as_toml(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _scenario_result(result: ScenarioResult, title: str, path: Path | None = None) -> Result:
    """A scenario run as a Result (long form) with its differences when there are several variants."""
    from montecarlo.games.base import to_plain
    from montecarlo.reporting.tables import (
        COMPARISON_COLUMNS,
        comparison_table,
        precision_facts,
        results_table,
    )

    sc = result.scenario
    grid = tuple(sc.grid)
    long = results_table(result)
    facts = {
        "game": sc.game.name, "question": sc.question.name, "seed": sc.seed, "trials": sc.trials,
        "variants": [v.name for v in result.variants], "baseline": result.baseline,
        "rules": {v.name: to_plain(v.rules) for v in result.variants}, "setup": dict(sc.setup),
        "precision": sc.precision, "max_trials": sc.max_trials, "precision_reached": None,
        **precision_facts(result, long), "version": result.version,
        "scenario": sc.name,
    }
    diffs = comparison_table(result)
    differences = None
    if diffs is not None:
        differences = Result(
            f"{title}: {', '.join(v.name for v in result.variants[1:])} − {result.baseline} "
            "(paired on common random numbers, Holm-corrected)", diffs.to_dicts(), grid, facts,
            value_columns=COMPARISON_COLUMNS, names=("difference", "exact_difference"), frame=diffs,
        )
    return Result(title, long.to_dicts(), grid, facts, frame=long, differences=differences, path=path,
                  raw=result)


def table(
    game: str | os.PathLike,
    question: str | None = None,
    *,
    grid: Mapping[str, Sequence[Any]] | None = None,
    trials: int = DEFAULT_TRIALS,
    seed: int = DEFAULT_SEED,
    precision: float | None = None,
    max_trials: int | None = None,
    variants: str | Sequence[str] = (),
    rules: Mapping[str, Any] | None = None,
    metrics: str | Sequence[str] | None = None,
    jobs: int | None = None,
    backend: str | None = None,
    scheduler: str | None = None,
    checkpoint: str | os.PathLike | None = None,
    progress: bool | Callable[[int, int], None] = False,
    **setup: Any,
) -> Result:
    """A question over a grid of setups: ``grid`` maps swept fields to values, ``setup`` the rest.

    Every grid point uses ``seed`` (as a scenario's points do). ``.pivot(metric)`` turns two swept
    fields into the two-way table of ``montecarlo table``. ``backend``, ``scheduler`` and
    ``checkpoint`` are those of :func:`odds`.
    ``progress``: True for a bar on a terminal, a function ``progress(done, total)``, False (the
    default) for neither; with True or False a run projected to last over a minute warns once
    (:class:`~montecarlo.errors.Caution`, within a second), as the CLI prints its estimate.

    >>> import montecarlo as mc
    >>> t = mc.table("dune1984", grid={"attacker": [3, 4], "defender": [4, 5]}, trials=2_000,
    ...              metrics="attacker_win")
    >>> t.pivot("attacker_win", values="exact").round(4)  # doctest: +NORMALIZE_WHITESPACE
    defender       4       5
    attacker
    3         0.2384  0.0873
    4         0.5000  0.2597
    """
    from montecarlo.scenarios import run_scenario

    if grid is None:  # (the CLI's table has default rows and columns; here they are named)
        raise InputError("table: give grid=, the swept setup fields and their values, "
                         "e.g. grid={'attacker': [1, 2, 3], 'defender': [4, 5]}")
    names = _names(variants)
    _check_rules(rules)
    spec = {_label(names, rules): {"builtin": list(names)}} if names or rules else None
    check_report_checkpoint(None, checkpoint)  # before the grid is read: its best play may be solved there
    backend = chosen_backend(backend, scheduler)
    data = _scenario_data(game, question, "table", grid, setup, spec, trials, seed, precision, max_trials,
                          rules, metrics, None)
    sc = _parse(data, "table")
    with _paced(progress, f"table {sc.game.name}", sc.precision) as report:
        result = run_scenario(sc, jobs=jobs, progress=report, backend=backend, scheduler=scheduler,
                              checkpoint=checkpoint)
    where = ", ".join(f"{k}={_show(v)}" for k, v in setup.items())
    title = f"{sc.game.name} {sc.question.name} over {' × '.join(sc.grid) or 'one setup'}"
    _caution_outside(sc.game, sc.question.name, [v.name for v in sc.variants])  # once it has run
    return _scenario_result(result, title + (f" ({where})" if where else ""))


def _scenario_arg(value: Any, *, trials: int | None = None, seed: int | None = None) -> Scenario | None:
    """The scenario ``value`` names (a file, plain data or a Scenario), or None for a game;
    ``trials`` and ``seed`` given complete plain data that leaves them out."""
    from montecarlo.scenarios import Scenario, load_scenario

    if isinstance(value, Scenario):
        return value
    if isinstance(value, Mapping):
        given = {k: v for k, v in (("trials", trials), ("seed", seed)) if v is not None}
        return _parse({**value, **given}, "scenario")
    if isinstance(value, (str, os.PathLike)) and names_a_file(os.fspath(value)):
        from montecarlo.datagame import is_definition

        if not is_definition(os.fspath(value)):
            return load_scenario(value)
    return None


def _check_given_run(trials: int | None, seed: int | None, jobs: int | None) -> None:
    """The ``trials``, ``seed`` and ``jobs`` a caller gives beside a scenario, checked alone."""
    if trials is not None or seed is not None:
        run_settings(DEFAULT_TRIALS if trials is None else trials, DEFAULT_SEED if seed is None else seed,
                     None, None, jobs)


def _with_run(sc: Scenario, trials: int | None, seed: int | None) -> Scenario:
    """The scenario with the caller's ``trials`` and ``seed`` (checked already) in place of its
    own; one trial, which gives no interval, refused in the caller's words."""
    if trials is None and seed is None:
        return sc
    from montecarlo.scenarios import too_few_trials

    sc = dataclasses.replace(sc, trials=trials or sc.trials, seed=sc.seed if seed is None else seed)
    too_few = trials is not None and too_few_trials(sc, said=f"trials={trials} for {sc.path or sc.name}")
    if too_few:  # the caller's trials, not the file's
        raise InputError(too_few)
    return sc


def check_baseline(sc: Scenario, baseline: str | None, *, name: Callable[[str], str] = str) -> None:
    """``baseline`` names one of the scenario's variants (None: the scenario's own), or InputError.

    ``name`` turns ``"baseline"`` into the word the caller's user typed (the CLI: ``--baseline``).
    """
    known = [v.name for v in sc.variants]
    if baseline is not None and baseline not in known:
        raise InputError(f"{name('baseline')}: unknown variant {baseline!r}; known: {', '.join(known)}")


def check_comparable(
    sc: Scenario, metrics: Sequence[str], *, name: Callable[[str], str] = str, where: Any = None
) -> None:
    """Two or more variants to compare and ``metrics`` among the scenario's, before anything runs.

    ``where`` starts the message on too few variants (default: the scenario's name; the CLI: the
    file as typed); ``name`` turns ``"metrics"`` into the caller's word (the CLI: ``--metric``).
    """
    if len(sc.variants) < 2:
        only = f"only {sc.variants[0].name!r}" if sc.variants else "none"
        raise ScenarioError(
            f"{sc.name if where is None else where}: variants: expected two or more variants to compare, "
            f"got {only}; add a [variants.NAME] table for each house rule (docs/scenarios.md)"
        )
    for m in metrics:
        if m not in sc.metrics:
            base = m.partition("=")[0]
            hint = (f"; give {base!r}: a comparison shows every value of a distribution"
                    if base != m and base in sc.metrics else "")
            known = ", ".join(sc.metrics)
            raise InputError(f"{name('metrics')}: {m!r} is not among the scenario's metrics ({known}){hint}")


def compare(
    scenario_or_game: Any,
    question: str | None = None,
    *,
    variants: Any = None,
    baseline: str | None = None,
    grid: Mapping[str, Sequence[Any]] | None = None,
    trials: int | None = None,
    seed: int | None = None,
    precision: float | None = None,
    max_trials: int | None = None,
    rules: Mapping[str, Any] | None = None,
    metrics: str | Sequence[str] | None = None,
    jobs: int | None = None,
    backend: str | None = None,
    scheduler: str | None = None,
    checkpoint: str | os.PathLike | None = None,
    progress: bool | Callable[[int, int], None] = False,
    **setup: Any,
) -> Result:
    """Variants against a baseline on common random numbers: paired differences, Holm-corrected.

    ``scenario_or_game`` is a scenario file (docs/scenarios.md), a scenario as plain data, or a
    game (name or ``.toml`` battle file) with ``variants`` and the setup as keyword arguments
    (``grid`` sweeps fields). ``variants`` is a built-in name or list of names (compared with the
    official rules) or a mapping name -> built-in names, rule overrides, or a scenario's
    ``{"builtin": ..., "overrides": ...}``. ``trials`` and ``seed`` override a scenario's.
    ``backend``, ``scheduler``, ``checkpoint`` and ``progress`` are those of
    :func:`montecarlo.scenarios.run_scenario` (a Dask cluster, a file to resume from, a bar; with
    True or False a run projected over a minute warns once, a Caution); the backend is dask when a
    ``scheduler`` is given, else loky.

    >>> import montecarlo as mc
    >>> house = mc.compare("war-for-arrakis", variants="continue_always_costs",
    ...                    attacker="4 regular, bashar", defender="3 regular", settlement=0,
    ...                    metrics="attacker_win", trials=4_000)
    >>> round(house.differences.exact["attacker_win"], 4)
    -0.3409
    """
    _check_given_run(trials, seed, jobs)  # named as given, before a scenario is read
    sc = _scenario_arg(scenario_or_game, trials=trials, seed=seed)
    of_a_game = sc is None  # variants named here, not a scenario's own
    if sc is not None:
        extra = {k: v for k, v in dict(setup, question=question, variants=variants, grid=grid,
                                       precision=precision, max_trials=max_trials, rules=rules).items()
                 if v is not None}
        if extra:
            raise InputError(
                f"compare: {', '.join(extra)} belong in the scenario file; give only baseline, metrics, "
                "trials, seed and jobs with a scenario"
            )
        sc = _with_run(sc, trials, seed)
    else:
        from montecarlo.analysis import resolve

        resolve(_game_arg(scenario_or_game), question)  # a path that is no file says so, not "give variants="
        if variants is None:
            raise InputError("compare: give variants= (house rules to compare with the official rules)")
        sc = game_scenario(scenario_or_game, question, variants=variants, grid=grid, trials=trials, seed=seed,
                           precision=precision, max_trials=max_trials, rules=rules, metrics=metrics,
                           baseline=baseline, **setup)
        metrics = None
    check_baseline(sc, baseline)
    chosen = _metric_names(metrics) if metrics is not None else sc.metrics
    check_comparable(sc, chosen)
    sc = dataclasses.replace(sc, metrics=tuple(chosen))
    from montecarlo.scenarios import run_scenario

    backend = chosen_backend(backend, scheduler)
    # by default the workers start once the run proves long enough: nothing else waits for them
    label = f"compare {sc.name if sc.path is not None else sc.game.name}"
    with _paced(progress, label, sc.precision) as report:
        result = run_scenario(sc, jobs=jobs, baseline=baseline, progress=report, backend=backend,
                              scheduler=scheduler, checkpoint=checkpoint, measured_start=True)
    if of_a_game:
        _caution_outside(sc.game, sc.question.name, [v.name for v in sc.variants])  # once it has run
    return _scenario_result(result, sc.title if sc.title != sc.name else f"{sc.game.name} {sc.question.name}")


def report_folder(sc: Scenario, out: str | os.PathLike | None = None, *,
                  name: Callable[[str], str] = str) -> Path:
    """The folder of ``sc``'s report, checked before any simulation (InputError, one line).

    ``out``, else ``reports/<scenario name>`` unless that holds another game's report (scenario
    names are shared by every game). Never a folder holding files montecarlo did not write.
    ``name`` turns ``"out"`` into the caller's word (the CLI: ``--out``).
    """
    import json

    from montecarlo.reporting import check_out

    if out is None:
        out = Path("reports") / sc.name
        try:
            written = json.loads((out / "report.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            written = None
        if isinstance(written, dict) and written.get("game") not in (None, sc.game.name):
            source = written.get("file") or "a scenario without a file"  # built in Python
            raise InputError(
                f"{sc.path or 'scenario'}: name: {out} holds the {written['game']} report of {source} "
                f"(scenario names are shared by every game); set name = \"{sc.game.name}-{sc.name}\" "
                f"or give {name('out')}"
            )
    return check_out(out, option=name("out"))


def report(
    scenario: Any,
    out: str | os.PathLike | None = None,
    *,
    baseline: str | None = None,
    jobs: int | None = None,
    backend: str | None = None,
    scheduler: str | None = None,
    checkpoint: str | os.PathLike | None = None,
    progress: bool | Callable[[int, int], None] = False,
    command: str | None = None,
    trials: int | None = None,
    seed: int | None = None,
) -> Result:
    """Run a scenario and write its report folder (index.html, report.md, tables, plots).

    ``out`` defaults to ``reports/<scenario name>`` like ``montecarlo report``; it is checked
    before any simulation (:func:`report_folder`) and never replaces a folder montecarlo did not
    write. ``backend`` (dask with a ``scheduler``, else loky), ``scheduler``, ``checkpoint``
    and ``progress`` are those of :func:`montecarlo.scenarios.run_scenario` (with True or False a
    run projected over a minute warns once, a Caution); ``command`` is what
    the report records as the way to rerun it (default: this call). ``trials`` and ``seed``
    override the scenario's, as ``montecarlo report -n/-s`` do. The Result holds the numbers and
    ``path``, the folder.
    """
    from montecarlo.reporting import write_report
    from montecarlo.scenarios import local_workers, run_scenario

    _check_given_run(trials, seed, jobs)  # named as given, before a scenario is read
    sc = _scenario_arg(scenario, trials=trials, seed=seed)
    if sc is None:
        raise InputError(f"report: expected a scenario file (.toml) or scenario data, got {scenario!r}")
    sc = _with_run(sc, trials, seed)
    if command is not None and not isinstance(command, str):
        raise InputError(f"report: command must be the text that reruns the report, got {command!r}")
    check_baseline(sc, baseline)
    folder = report_folder(sc, out)
    check_report_checkpoint(folder, checkpoint)
    backend = chosen_backend(backend, scheduler)
    with _paced(progress, f"report {sc.name}", sc.precision) as report:
        result = run_scenario(sc, jobs=jobs, baseline=baseline, progress=report, backend=backend,
                              scheduler=scheduler, checkpoint=checkpoint)
    if command is None and isinstance(scenario, (str, os.PathLike)):
        command = f"mc.report({os.fspath(scenario)!r}, out={os.fspath(folder)!r})"
    written = write_report(result, folder, command=command, jobs=local_workers(sc, jobs, backend))
    return _scenario_result(result, sc.title, path=written)


def check_report_checkpoint(folder: str | os.PathLike | None, checkpoint: str | os.PathLike | None) -> None:
    """InputError (one line) if a run's ``checkpoint`` file cannot serve: not a checkpoint, an
    unwritable place, or inside the report ``folder`` (None: no report), which the finished
    report replaces (it would then refuse the folder, holding a file it did not write)."""
    if checkpoint is None:
        return
    path_arg(checkpoint, "checkpoint")
    from montecarlo.engine.checkpoint import Checkpoint

    place = Path(os.path.realpath(checkpoint))
    home = None if folder is None else Path(os.path.realpath(folder))
    if home is not None and (place == home or home in place.parents):
        raise InputError(
            f"checkpoint {checkpoint}: inside the report folder {folder}, which the report replaces; "
            "keep it elsewhere"
        )
    Checkpoint(checkpoint, {}).check()


# ---------------------------------------------------------------- catalogue


@dataclass(frozen=True)
class SetupField:
    """One setup field of a question: its name, type, default and what it means. ``required``:
    no setup can leave it out (its question's example cannot); a field that another stands in
    for (a Dustrunners vehicle's health) or that its parser fills (Imperium's ``revealed``, 3 a
    seat) is not."""

    name: str
    type: str
    default: Any
    help: str
    required: bool


@dataclass(frozen=True)
class QuestionInfo:
    name: str
    description: str
    setup: tuple[SetupField, ...]
    metrics: dict[str, str]  # name -> description
    example: Mapping[str, Any]
    # what montecarlo.advise reads besides the setup
    advise_inputs: dict[str, str] = dataclasses.field(default_factory=dict)
    gives_advice: bool = False  # montecarlo.advise answers it
    # the game's variants that can change its answers (each sets a rule it uses); the others, named
    # in ``montecarlo.odds``, give the official rules' numbers here, in every setup
    variants: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameInfo:
    name: str
    title: str
    default_question: str
    questions: dict[str, QuestionInfo]
    variants: dict[str, str]  # name -> description

    def changed_by(self, variant: str) -> tuple[str, ...]:
        """The questions ``variant`` can change (``QuestionInfo.variants``), in the game's order;
        InputError for a name that is not one of this game's variants."""
        if variant not in self.variants:
            known = ", ".join(self.variants) or "none"
            raise InputError(f"unknown variant {variant!r} for {self.name}; known: {known}")
        return tuple(name for name, q in self.questions.items() if variant in q.variants)

    def variant_line(self, variant: str) -> str:
        """``variant NAME: description (changes: duel, fight)``; the questions are named only where
        the variant leaves some unchanged."""
        changed = self.changed_by(variant)
        desc = self.variants[variant]
        where = f" (changes: {', '.join(changed) or 'none'})" if len(changed) < len(self.questions) else ""
        return f"variant {variant}" + (f": {desc}" if desc else "") + where


class Catalogue(dict):
    """Game name -> :class:`GameInfo`, printed as a readable listing; a battle file is listed by
    the path it was given by, and found by its game's name too (``mc.games("risk.toml")["risk"]``)."""

    def _named(self, key: Any) -> list[GameInfo]:
        return [g for g in self.values() if g.name == key]

    def __missing__(self, key: Any) -> GameInfo:
        named = self._named(key)
        if len(named) == 1:
            return named[0]
        raise KeyError(f"{key!r}: no such game in this catalogue; it holds {', '.join(map(str, self))}")

    def __contains__(self, key: Any) -> bool:
        return dict.__contains__(self, key) or len(self._named(key)) == 1

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __repr__(self) -> str:
        lines = []
        for g in self.values():
            lines.append(f"{g.name}: {g.title}")
            for q in g.questions.values():
                main = " (default)" if q.name == g.default_question else ""
                lines.append(f"  question {q.name}{main}: {q.description}")
                for f in q.setup:
                    default = "required" if f.required else f"default {f.default!r}"
                    default = "optional" if f.default is None and not f.required else default
                    lines.append(f"    {f.name} ({default}){': ' + f.help if f.help else ''}")
            lines += [f"  {g.variant_line(v)}" for v in g.variants]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "<pre>" + html.escape(repr(self)) + "</pre>"


def _question_info(q: Any, variants: tuple[str, ...] = ()) -> QuestionInfo:
    helps = field_help(q.setup_type)
    fields = []
    for f in dataclasses.fields(q.setup_type):
        if not f.metadata.get("input", True):  # a field the parser fills in, not a value to give
            continue
        no_default = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        factory: Any = f.default_factory
        default = None if no_default else (f.default if f.default is not dataclasses.MISSING else factory())
        # the parser fills some fields the dataclass leaves without a default (Imperium's revealed,
        # a Dustrunners deck): required are those the question's example cannot do without
        parsed = _parsed_without(q, f.name)
        required = no_default and parsed is None
        if not no_default and parsed is not None and getattr(parsed, f.name, default) != default:
            default = None  # the parser's own (max_health: the start's health): "optional", as its help says
        kind = f.type.__name__ if isinstance(f.type, type) else str(f.type)  # a battle file's: int
        fields.append(SetupField(f.name, kind, default, helps.get(f.name, ""), required))
    fields += [SetupField(name, "Any", None, text, False) for name, text in q.inputs.items()]
    return QuestionInfo(
        q.name, q.description, tuple(fields), {m.name: m.description for m in q.metrics}, dict(q.example),
        dict(q.advise_inputs), q.advise is not None, variants,
    )


def _parsed_without(q: Any, name: str) -> Any:
    """The question's example setup parsed without the field ``name``, or None where it cannot
    do without it; where it can, the parser fills the field (Imperium's revealed) or another
    stands in for it (a Dustrunners vehicle's health), maybe with another value than the
    dataclass's default (max_health: the starting health, not 0)."""
    example = {k: v for k, v in q.example.items() if k != name}
    try:
        return q.setup(example)
    except (MonteCarloError, TypeError, ValueError):
        return None


def games(*files: str | os.PathLike) -> Catalogue:
    """The games (and any ``.toml`` battle files given, by path), their questions, variants, setup fields.

    >>> import montecarlo as mc
    >>> catalogue = mc.games()
    >>> "dune1984" in catalogue and catalogue["dune1984"].default_question
    'duel'
    >>> [f.name for f in catalogue["war-for-arrakis"].questions["battle"].setup][:3]
    ['attacker', 'defender', 'settlement']
    """
    from montecarlo.registry import get_game, list_games

    out = Catalogue()
    for name in (*list_games(), *(path_arg(f, "games: a battle file") for f in files)):  # listed by path
        g = get_game(name)
        out[name] = GameInfo(
            g.name, g.title, g.default_question,
            {q: _question_info(v, g.variants_for(q)) for q, v in g.questions.items()},
            {v: g.variant_descriptions.get(v, "") for v in g.variants},
        )
    return out


def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of scenario files (``"scenario"``) or battle files (``"battle"``)."""
    from montecarlo.schemas import schema as build

    return build(kind)
