"""Scenario results -> polars tables: long form for machines, matrices for people.

- :func:`results_table`: one row per grid point, variant and reported metric —
  ``<grid fields>..., variant, metric, estimate, ci_low, ci_high, se, exact, trials``.
  A metric that does not apply to a setup (``Question.applicable_metrics``: a seat the setup
  lacks, a tie for second with two players) is a row of missing values (null), never a number.
- :func:`comparison_table`: one row per grid point, non-baseline variant and metric — the
  paired difference (variant − baseline) with its 95% interval, the exact difference where both
  arms have one, and a Holm correction over the real tests of the table. ``status`` says which
  rows are tests: ``"tested"``; ``"identical"`` (difference 0 with standard error 0: the two
  arms agree on every trial, by construction, so there is nothing to test); ``"not
  applicable"`` (the metric does not apply to the setup).
- :func:`matrix_tables`: the same numbers pivoted where a person would rather read a matrix
  (rows × columns = two grid fields), numbers only: ``matrix-<metric>`` holds the estimates and
  ``-ci_low`` / ``-ci_high`` / ``-exact`` the interval ends and exact values in the same
  layout; ``difference-<metric>`` likewise (plus ``-significant``); distributions one column
  per value.

List-valued grid values read as ``"none"``, ``"sword"``, ``"gom_jabbar+sword"``.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import polars as pl

from montecarlo.engine import stats
from montecarlo.scenarios import ScenarioResult, show_value

RESULT_COLUMNS = ("variant", "metric", "estimate", "ci_low", "ci_high", "se", "exact", "trials")
COMPARISON_COLUMNS = (
    "variant",
    "baseline",
    "metric",
    "baseline_estimate",
    "variant_estimate",
    "difference",
    "ci_low",
    "ci_high",
    "se",
    "exact_difference",
    "p_value",
    "p_holm",
    "significant",
    "status",
    "trials",
)
ALPHA = 1 - stats.CONFIDENCE
TESTED, IDENTICAL, NOT_APPLICABLE = "tested", "identical", "not applicable"
VALUE_PARTS = ("ci_low", "ci_high", "exact")  # files beside a matrix, same layout


def grid_columns(result: ScenarioResult) -> dict[str, list]:
    """Display values of each grid field, one per grid point (numbers stay numbers)."""
    cols = {}
    for name in result.scenario.grid:
        values = [result.scenario.shown(name, p.values[name]) for p in result.scenario.points]
        cols[name] = values if result.scenario.numeric(name) else [str(v) for v in values]
    return cols


def with_values(df: pl.DataFrame, sc: Any) -> pl.DataFrame:
    """A table as its CSV and Parquet files hold it: a grid field the scenario labels (``[labels]``)
    holds its values again (numbers as numbers, yes/no as such: ``settlement`` 0..3, which a
    designer filters on), with the words beside it in ``FIELD_label``; other tables unchanged."""
    for name, words in sc.labels.items():
        if name not in df.columns or not words:
            continue
        raw = [show_value(v) for v in sc.grid[name]]
        value_of = {str(sc.shown(name, v)): plain for v, plain in zip(sc.grid[name], raw)}
        values = [value_of[str(x)] for x in df[name].to_list()]  # every row's is a grid value's
        native = all(isinstance(v, (bool, int, float)) for v in raw)  # yes/no stays yes/no
        column = pl.Series(name, values if native else [str(v) for v in values])
        words_column = df[name].cast(pl.Utf8).alias(f"{name}_label")
        df = df.with_columns(column).insert_column(df.columns.index(name) + 1, words_column)
    return df


def applicable_names(result: ScenarioResult, i: int) -> set[str]:
    """Reported names of the scenario's metrics that apply to grid point ``i``."""
    sc = result.scenario
    return set(sc.question.applicable_names(sc.points[i].setup)) & set(sc.reported_metrics)


def results_table(result: ScenarioResult) -> pl.DataFrame:
    """Every estimate in long form (null where a metric does not apply to the setup)."""
    grid = grid_columns(result)
    names = result.scenario.reported_metrics
    rows: dict[str, list] = {k: [] for k in (*grid, *RESULT_COLUMNS)}
    for i, comparison in enumerate(result.comparisons):
        applies = applicable_names(result, i)
        for answer, variant in zip(comparison.answers, result.variants):
            for name in names:
                m = answer.metrics[name]
                if name in applies:
                    values = dict(
                        estimate=m.estimate, ci_low=m.ci_low, ci_high=m.ci_high, se=m.se, exact=m.exact
                    )
                else:
                    values = dict.fromkeys(("estimate", "ci_low", "ci_high", "se", "exact"))
                _append(rows, grid, i, variant=variant.name, metric=name, **values, trials=answer.trials)
    return _frame(rows, float_columns=("estimate", "ci_low", "ci_high", "se", "exact"))


def comparison_table(result: ScenarioResult, alpha: float = ALPHA) -> pl.DataFrame | None:
    """Every paired difference from the baseline, Holm-corrected over the real tests only."""
    if len(result.variants) < 2:
        return None
    grid = grid_columns(result)
    names = result.scenario.reported_metrics
    rows: dict[str, list] = {k: [] for k in (*grid, *COMPARISON_COLUMNS)}
    question = result.scenario.question
    for i, comparison in enumerate(result.comparisons):
        applies = applicable_names(result, i)
        base = comparison.answers[0].metrics
        for k, diffs in enumerate(comparison.differences, start=1):
            apart = set()  # metrics whose meaning the two rule sets change (whose objective)
            if question.incomparable is not None:
                setup = result.scenario.points[i].setup
                apart = set(question.incomparable(result.variants[0].rules, result.variants[k].rules, setup))
            for name in names:
                d = diffs[name]
                common = dict(variant=result.variants[k].name, baseline=result.baseline, metric=name)
                if name not in applies or name in apart:
                    _append(
                        rows,
                        grid,
                        i,
                        **common,
                        **dict.fromkeys(COMPARISON_COLUMNS[3:12]),
                        significant=None,
                        status=NOT_APPLICABLE,
                        trials=comparison.trials,
                    )
                    continue
                identical = d.estimate == 0 and d.se == 0
                _append(
                    rows,
                    grid,
                    i,
                    **common,
                    baseline_estimate=base[name].estimate,
                    variant_estimate=comparison.answers[k].metrics[name].estimate,
                    difference=d.estimate,
                    ci_low=d.ci_low,
                    ci_high=d.ci_high,
                    se=d.se,
                    exact_difference=d.exact,
                    p_value=None if identical else d.p_value,
                    p_holm=None,
                    significant=None,  # Holm's verdict, below, for the rows tested; none for identical ones
                    status=IDENTICAL if identical else TESTED,
                    trials=comparison.trials,
                )
    tested = [j for j, s in enumerate(rows["status"]) if s == TESTED]
    p = [rows["p_value"][j] for j in tested]
    if tested:
        for j, adjusted, significant in zip(tested, stats.holm_adjusted(p), stats.holm(p, alpha)):
            rows["p_holm"][j] = _nan_to_none(float(adjusted))
            rows["significant"][j] = bool(significant)
    floats = (
        "baseline_estimate",
        "variant_estimate",
        "difference",
        "ci_low",
        "ci_high",
        "se",
        "exact_difference",
        "p_value",
        "p_holm",
    )
    return _frame(rows, float_columns=floats, bool_columns=("significant",))


def matrix_layout(result: ScenarioResult) -> tuple[str | None, str | None]:
    """(row field, column field) of the matrices: a heat map's y/x, else the first two grid fields
    (numbers first; the longer one down the rows when it has more than 8 values); with fewer
    than two grid fields the columns are the variants (None)."""
    for plot in result.scenario.plots or ():
        if plot.kind == "heatmap":
            return plot.y, plot.x
    grid = result.scenario.grid
    fields = sorted(grid, key=lambda f: not _numeric(result, f))
    if len(fields) >= 2:
        row, col = fields[0], fields[1]
        if len(grid[col]) > 8 and len(grid[row]) < len(grid[col]):  # long lists down, not across
            row, col = col, row
        return row, col
    return (fields[0] if fields else None), None


def matrix_tables(
    result: ScenarioResult, long: pl.DataFrame, comparison: pl.DataFrame | None
) -> dict[str, pl.DataFrame]:
    """Pivoted tables of numbers: ``matrix-<metric>`` (estimates) with ``-ci_low``, ``-ci_high``
    and ``-exact`` beside it, ``difference-<metric>`` (variant − baseline) likewise plus
    ``-significant`` (after Holm; null where nothing was tested), and ``distribution-<metric>``
    (a column per value) likewise with ``-ci_low``, ``-ci_high`` and ``-exact``."""
    sc = result.scenario
    row, col = matrix_layout(result)
    out: dict[str, pl.DataFrame] = {}
    for metric in sc.metrics:
        m = sc.question.metric(metric)
        if m.kind == "distribution":
            names = m.reported_names()
            out[f"distribution-{metric}"] = _distribution(long, list(sc.grid), names)
            shown = long.filter(pl.col("metric").is_in(list(names)))
            for name in VALUE_PARTS:  # each value's interval and exact chance, as a matrix has them
                if name != "exact" or shown["exact"].is_not_null().any():
                    out[f"distribution-{metric}-{name}"] = _distribution(long, list(sc.grid), names, name)
            continue
        part = long.filter(pl.col("metric") == metric)
        out[f"matrix-{metric}"] = _pivot(part, sc, row, col, "estimate")
        for name in VALUE_PARTS:
            if name != "exact" or part["exact"].is_not_null().any():
                out[f"matrix-{metric}-{name}"] = _pivot(part, sc, row, col, name)
        if comparison is not None:
            diff = comparison.filter(pl.col("metric") == metric).rename({"exact_difference": "exact"})
            out[f"difference-{metric}"] = _pivot(diff, sc, row, col, "difference")
            for name in VALUE_PARTS:
                if name != "exact" or diff["exact"].is_not_null().any():
                    out[f"difference-{metric}-{name}"] = _pivot(diff, sc, row, col, name)
            out[f"difference-{metric}-significant"] = _pivot(diff, sc, row, col, "significant")
    return out


def all_tables(result: ScenarioResult) -> dict[str, pl.DataFrame]:
    """Every table of a report, by file name stem: results, comparison, then the matrices."""
    long = results_table(result)
    comparison = comparison_table(result)
    tables = {"results": long}
    if comparison is not None:
        tables["comparison"] = comparison
    tables.update(matrix_tables(result, long, comparison))
    return tables


def comparison_summary(comparison: pl.DataFrame) -> pl.DataFrame:
    """Per variant and metric: real tests, how many are significant, identical and not
    applicable rows, and the range of the differences (applicable rows only): the exact
    differences where every applicable row has one (``exact`` true; rounding below
    ``EXACT_NOISE`` read as 0), else the trials'. Best play's objective, never below a fixed
    policy's, once showed a minimum of -5.5e-4 from the trials' noise alone."""
    applies = pl.col("status") != NOT_APPLICABLE
    exact = pl.col("exact_difference").filter(applies)
    exact = pl.when(exact.abs() > EXACT_NOISE).then(exact).otherwise(0.0)
    everywhere = (pl.col("exact_difference").filter(applies).null_count() == 0) & (applies.sum() > 0)
    summary = comparison.group_by("variant", "metric", maintain_order=True).agg(
        pl.col("significant").fill_null(False).sum().alias("significant"),
        (pl.col("status") == TESTED).sum().alias("tests"),
        (pl.col("status") == IDENTICAL).sum().alias("identical"),
        (pl.col("status") == NOT_APPLICABLE).sum().alias("not_applicable"),
        everywhere.alias("exact"),
        *(getattr(pl.col("difference"), k)().alias(f"{k}_trials") for k in ("min", "mean", "max")),
        *(getattr(exact, k)().alias(f"{k}_exact") for k in ("min", "mean", "max")),
    )
    return summary.with_columns(
        pl.when(pl.col("exact")).then(pl.col(f"{k}_exact")).otherwise(pl.col(f"{k}_trials")).alias(f"{k}_difference")
        for k in ("min", "mean", "max")
    ).drop(*(f"{k}_{w}" for k in ("min", "mean", "max") for w in ("trials", "exact")))


EXACT_NOISE = 1e-9  # exact differences below this are rounding (1e-16 seen), and no run could see them


def exactly_different(comparison: pl.DataFrame) -> int:
    """Rows identical in every trial whose exact difference is beyond rounding (``EXACT_NOISE``):
    a change too rare for the trials to meet, which "identical" must not hide.

    >>> rows = {"status": [IDENTICAL] * 4 + [TESTED], "exact_difference": [2e-9, -3e-9, 1e-9, 1e-16, 0.1]}
    >>> exactly_different(pl.DataFrame(rows))  # 1e-9 itself is rounding; a tested row is no such row
    2
    """
    exact = comparison.filter(pl.col("status") == IDENTICAL)["exact_difference"]
    return int((exact.abs() > EXACT_NOISE).sum())


def holm_line(comparison: pl.DataFrame) -> str:
    """``"4 of 46 tests significant (Holm); 116 identical in every trial; 8 not applicable"``.

    Identical rows are not tests. Where the exact solver still finds a difference in some of them
    (a change too rare to meet in these trials), the line says how many: "identical" is what the
    trials saw, not a claim that the rules agree.
    """
    status = comparison["status"]
    tests = int((status == TESTED).sum())
    text = f"{int(comparison['significant'].fill_null(False).sum())} of {tests} tests significant (Holm)"
    identical, missing = int((status == IDENTICAL).sum()), int((status == NOT_APPLICABLE).sum())
    if identical:
        text += f"; {identical} identical in every trial"
        rare = exactly_different(comparison)
        if rare:
            which = "all" if rare == identical else f"{rare}"
            text += (
                f" (the exact values differ in {which} of them: a change too rare to show in these trials)"
            )
    if missing:
        text += f"; {missing} not applicable"
    return text


def summary_line(result: ScenarioResult, tables: dict[str, pl.DataFrame]) -> str:
    """One line saying what a report holds (sizes, seed and tests): the index shows it too."""
    sc = result.scenario
    trials = tables["results"]["trials"]
    span = f"{trials.min():,}" if trials.min() == trials.max() else f"{trials.min():,}–{trials.max():,}"
    text = (
        f"{len(sc.points)} setup{'s' * (len(sc.points) != 1)} × {len(sc.variants)} "
        f"variant{'s' * (len(sc.variants) != 1)}, {span} trials each, seed {sc.seed}"
    )
    if "comparison" in tables:
        text += "; " + holm_line(tables["comparison"])
    return text


def metric_text(metric) -> str:
    """A metric's description for people: without a trailing remark in parentheses (the whole
    remark: cut at its last "(", a remark holding one left a "(" open, and a plot's variant or the
    code name then landed inside it) or backticks.

    >>> from montecarlo.games.base import Metric
    >>> metric_text(Metric("win", "probability", "at least `need` heads (a note)"))
    'at least need heads'
    >>> metric_text(Metric("lost", "mean", "units lost (an elite (veteran) demoted is not lost)"))
    'units lost'
    """
    text = metric.description.strip()
    if text.endswith(")"):
        depth = 0
        for start in range(len(text) - 1, -1, -1):  # back to the "(" that opens the last remark
            depth += (text[start] == ")") - (text[start] == "(")
            if depth == 0:
                break
        if depth == 0 and text[:start].endswith(" "):  # a remark, not "min(6, Strength)"
            text = text[:start].rstrip()
    return text.replace("`", "")


def two_figures(p: float) -> str:
    """``p`` to two significant figures, an exponent written as the report writes it (8.5e-5,
    not Python's 8.5e-05).

    >>> two_figures(0.0487), two_figures(4.9e-4), two_figures(8.5e-5), two_figures(3.3e-10)
    ('0.049', '0.00049', '8.5e-5', '3.3e-10')
    """
    mantissa, _, exponent = f"{p:.2g}".partition("e")
    return f"{mantissa}e{int(exponent)}" if exponent else mantissa


SETTLED = 1e-12  # an exact solver's rounding: a value this close to a whole number is that number


def settled(x: float) -> float:
    """``x``, or the whole number within 1e-12 of it: an exact solver's rounding (a sure thing
    worked out as 0.9999999999999) read as what it is.

    >>> settled(1 - 1e-13), settled(2 - 1e-14), settled(3e-17), settled(1 - 1e-11)
    (1.0, 2.0, 0.0, 0.99999999999)
    """
    return float(round(x)) if abs(x - round(x)) <= SETTLED else x


def settled_column(x: pl.Expr) -> pl.Expr:
    """:func:`settled` of each value of a column, keeping its name.

    >>> pl.DataFrame({"x": [1 - 1e-13, 0.5, 2.0]}).select(settled_column(pl.col("x")))["x"].to_list()
    [1.0, 0.5, 2.0]
    """
    return pl.when((x - x.round()).abs() <= SETTLED).then(x.round()).otherwise(x).alias(x.meta.output_name())


def fmt(x: Any, digits: int = 3, signed: bool = False, chance: bool = False) -> str:
    """A number for people: ``digits`` decimals, or two significant figures below 0.001 (an
    exact 4.8e-5 is not ``0.000``); never ``-0.000``; '—' for missing. A ``chance`` just below 1
    that would read as 1 is ``>0.999`` (an exact 0.99995 is not ``1.000``), as the CLI prints it.

    >>> fmt(0.41234), fmt(4.8e-5, 4), fmt(-0.00001, 4, signed=True), fmt(-1e-12, 3), fmt(0.0, 3, True)
    ('0.412', '4.8e-5', '-1.0e-5', '0.000', '0.000')
    >>> fmt(0.99995, chance=True), fmt(0.99995), fmt(1 - 1e-15, chance=True), fmt(0.9985, chance=True)
    ('>0.999', '1.000', '1.000', '0.999')
    """
    if chance and isinstance(x, float) and 1e-12 < 1 - x and round(x, digits) == 1:
        return ">0." + "9" * digits
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        if 1e-12 < abs(x) < 1e-3:
            mantissa, exponent = (f"{x:+.1e}" if signed else f"{x:.1e}").split("e")
            return f"{mantissa}e{int(exponent)}"
        if abs(x) <= 1e-12 or round(x, digits) == 0:
            return f"{0.0:.{digits}f}"
        return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
    return str(x)


# ---------------------------------------------------------------- helpers


def _append(rows: dict[str, list], grid: dict[str, list], i: int, **values: Any) -> None:
    for name, col in grid.items():
        rows[name].append(col[i])
    for name, value in values.items():
        rows[name].append(_nan_to_none(value))


def _frame(
    rows: dict[str, list], float_columns: Sequence[str] = (), bool_columns: Sequence[str] = ()
) -> pl.DataFrame:
    """A frame whose number columns stay Float64 even when all values are missing."""
    schema = {**{c: pl.Float64 for c in float_columns}, **{c: pl.Boolean for c in bool_columns}}
    df = pl.DataFrame(rows, strict=False)
    return df.with_columns(pl.col(c).cast(t) for c, t in schema.items() if c in df.columns)


def _nan_to_none(x: Any) -> Any:
    return None if isinstance(x, float) and math.isnan(x) else x


def _numeric(result: ScenarioResult, field: str) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in result.scenario.grid[field])


def matrix_index(df: pl.DataFrame, grid: Sequence[str]) -> list[str]:
    """The index (row label) columns of a pivoted matrix: grid fields and ``variant``."""
    return [c for c in df.columns if c in grid or c == "variant"]


def _pivot(part: pl.DataFrame, sc, row: str | None, col: str | None, values: str) -> pl.DataFrame:
    """Rows: the other grid fields, the variant and ``row``; columns: values of ``col``
    (``"col=value"``) or, without ``col``, the variants; cells: column ``values`` of ``part``."""
    others = [f for f in sc.grid if f not in (row, col)]
    on = col or "variant"
    index = others + ([] if col is None else ["variant"]) + ([row] if row else [])
    df = part.select(*index, on, pl.col(values).alias("cell")).with_columns(
        (
            pl.col(on).cast(pl.String).alias(on)
            if col is None
            else (pl.lit(f"{col}=") + pl.col(on).cast(pl.String)).alias(on)
        )
    )
    if not index:  # no grid: one row, one column per variant
        return pl.DataFrame([pl.Series(k, [c], dtype=df["cell"].dtype) for k, c in zip(df[on], df["cell"])])
    return _ordered(df.pivot(on=on, index=index, values="cell"), index, part)


def _ordered(pivot: pl.DataFrame, index: list[str], part: pl.DataFrame) -> pl.DataFrame:
    """Sort a pivot's rows by the grid order of its index fields (variants in file order)."""
    ranks = []
    for name in index:
        order = {v: i for i, v in enumerate(part[name].unique(maintain_order=True).to_list())}
        ranks.append(pivot[name].replace_strict(order, return_dtype=pl.Int64).alias(f"__{name}"))
    return pivot.with_columns(ranks).sort([f"__{n}" for n in index]).drop([f"__{n}" for n in index])


def _distribution(
    long: pl.DataFrame, grid: list[str], names: Sequence[str], values: str = "estimate"
) -> pl.DataFrame:
    part = long.filter(pl.col("metric").is_in(list(names)))
    index = grid + ["variant"]
    return part.pivot(on="metric", index=index, values=values).select(*index, *names)


def precision_facts(result: ScenarioResult, long: pl.DataFrame) -> dict[str, Any]:
    """For a ``precision`` run: whether every probability's half-width reached the target and
    the widest half-width achieved (metrics that do not apply left out); else empty."""
    sc = result.scenario
    if not sc.precision:
        return {}
    probabilities = [n for m in sc.question.metrics if m.kind != "mean" for n in m.reported_names()]
    shown = long.filter(pl.col("metric").is_in(probabilities))
    half_widths = shown.select((pl.col("ci_high") - pl.col("ci_low")) / 2)
    # max skips the nulls of a metric that does not apply to its setup: None when no value is left
    widest = float(half_widths.max().item() or 0.0)
    return {"precision_reached": widest <= sc.precision, "widest_half_width": widest}
