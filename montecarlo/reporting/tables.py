"""Scenario results -> polars tables: long form for machines, matrices for people.

- :func:`results_table`: one row per grid point, variant and reported metric —
  ``<grid fields>..., variant, metric, estimate, ci_low, ci_high, se, exact, trials``.
- :func:`comparison_table`: one row per grid point, non-baseline variant and metric — the
  paired difference (variant − baseline) with its 95% interval, the exact difference where both
  arms have one, and a Holm correction over the whole table.
- :func:`matrix_tables`: the same numbers pivoted where a person would rather read a matrix
  (rows × columns = two grid fields; cells ``"0.412 [0.410, 0.414]"``), exact values and
  differences pivoted alike, and distributions one column per value.

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
    "variant", "baseline", "metric", "baseline_estimate", "variant_estimate", "difference",
    "ci_low", "ci_high", "se", "exact_difference", "p_value", "p_holm", "significant", "trials",
)
ALPHA = 1 - stats.CONFIDENCE


def grid_columns(result: ScenarioResult) -> dict[str, list]:
    """Display values of each grid field, one per grid point (numbers stay numbers)."""
    cols = {}
    for name in result.scenario.grid:
        values = [show_value(p.values[name]) for p in result.scenario.points]
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        cols[name] = values if numeric else [str(v) for v in values]
    return cols


def results_table(result: ScenarioResult) -> pl.DataFrame:
    """Every estimate in long form."""
    grid = grid_columns(result)
    names = result.scenario.reported_metrics
    rows: dict[str, list] = {k: [] for k in (*grid, *RESULT_COLUMNS)}
    for i, comparison in enumerate(result.comparisons):
        for answer, variant in zip(comparison.answers, result.variants):
            for name in names:
                m = answer.metrics[name]
                _append(rows, grid, i, variant=variant.name, metric=name, estimate=m.estimate,
                        ci_low=m.ci_low, ci_high=m.ci_high, se=m.se, exact=m.exact, trials=answer.trials)
    return _frame(rows)


def comparison_table(result: ScenarioResult, alpha: float = ALPHA) -> pl.DataFrame | None:
    """Every paired difference from the baseline, Holm-corrected over the whole table."""
    if len(result.variants) < 2:
        return None
    grid = grid_columns(result)
    names = result.scenario.reported_metrics
    rows: dict[str, list] = {k: [] for k in (*grid, *COMPARISON_COLUMNS)}
    for i, comparison in enumerate(result.comparisons):
        base = comparison.answers[0].metrics
        for k, diffs in enumerate(comparison.differences, start=1):
            for name in names:
                d = diffs[name]
                _append(rows, grid, i, variant=result.variants[k].name, baseline=result.baseline,
                        metric=name, baseline_estimate=base[name].estimate,
                        variant_estimate=comparison.answers[k].metrics[name].estimate,
                        difference=d.estimate, ci_low=d.ci_low, ci_high=d.ci_high, se=d.se,
                        exact_difference=d.exact, p_value=d.p_value, p_holm=math.nan,
                        significant=False, trials=comparison.trials)
    rows["p_holm"] = [_nan_to_none(p) for p in stats.holm_adjusted(rows["p_value"])]
    rows["significant"] = [bool(s) for s in stats.holm(rows["p_value"], alpha)]
    return _frame(rows)


def matrix_layout(result: ScenarioResult) -> tuple[str | None, str | None]:
    """(row field, column field) of the matrices: a heat map's y/x, else the first two grid fields
    (numbers first); with fewer than two grid fields the columns are the variants (None)."""
    for plot in result.scenario.plots:
        if plot.kind == "heatmap":
            return plot.y, plot.x
    fields = sorted(result.scenario.grid, key=lambda f: not _numeric(result, f))
    if len(fields) >= 2:
        return fields[0], fields[1]
    return (fields[0] if fields else None), None


def matrix_tables(result: ScenarioResult, long: pl.DataFrame, comparison: pl.DataFrame | None) -> dict[str, pl.DataFrame]:
    """Pivoted tables: ``matrix-<metric>``, ``matrix-<metric>-exact``, ``difference-<metric>``
    (``*`` marks a difference significant after Holm), ``difference-<metric>-exact`` and
    ``distribution-<metric>``."""
    sc = result.scenario
    row, col = matrix_layout(result)
    out: dict[str, pl.DataFrame] = {}
    for metric in sc.metrics:
        m = sc.question.metric(metric)
        if m.kind == "distribution":
            out[f"distribution-{metric}"] = _distribution(long, list(sc.grid), m.reported_names())
            continue
        part = long.filter(pl.col("metric") == metric)
        out[f"matrix-{metric}"] = _pivot(part, sc, row, col, _cell(part, "estimate"))
        if part["exact"].is_not_null().any():
            out[f"matrix-{metric}-exact"] = _pivot(part, sc, row, col, part["exact"].to_list())
        if comparison is not None:
            diff = comparison.filter(pl.col("metric") == metric)
            cells = [c + ("*" if s else "") for c, s in zip(_cell(diff, "difference", digits=4, signed=True), diff["significant"])]
            out[f"difference-{metric}"] = _pivot(diff, sc, row, col, cells)
            if diff["exact_difference"].is_not_null().any():
                out[f"difference-{metric}-exact"] = _pivot(diff, sc, row, col, diff["exact_difference"].to_list())
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
    """Per variant and metric: how many differences are significant and their range."""
    return (
        comparison.group_by("variant", "metric", maintain_order=True)
        .agg(
            pl.col("significant").sum().alias("significant"),
            pl.len().alias("tests"),
            pl.col("difference").min().alias("min_difference"),
            pl.col("difference").mean().alias("mean_difference"),
            pl.col("difference").max().alias("max_difference"),
        )
    )


def summary_line(result: ScenarioResult, tables: dict[str, pl.DataFrame]) -> str:
    """One line saying what a report holds, for the index of all reports."""
    sc = result.scenario
    long = tables["results"]
    trials = long["trials"]
    span = f"{trials.min():,}" if trials.min() == trials.max() else f"{trials.min():,}–{trials.max():,}"
    head = sc.metrics[0]
    part = long.filter(pl.col("metric") == sc.question.metric(head).reported_names()[0])
    text = (f"{len(sc.points)} setup{'s' * (len(sc.points) != 1)} × {len(sc.variants)} "
            f"variant{'s' * (len(sc.variants) != 1)}, {span} trials each; "
            f"{part['metric'][0]} {fmt(part['estimate'].min())}–{fmt(part['estimate'].max())}")
    if "comparison" in tables:
        comp = tables["comparison"]
        text += f"; {int(comp['significant'].sum())} of {comp.height} differences significant (Holm)"
    return text


def fmt(x: Any, digits: int = 3, signed: bool = False) -> str:
    """A number for people: fixed decimals, '—' for missing."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
    return str(x)


# ---------------------------------------------------------------- helpers


def _append(rows: dict[str, list], grid: dict[str, list], i: int, **values: Any) -> None:
    for name, col in grid.items():
        rows[name].append(col[i])
    for name, value in values.items():
        rows[name].append(_nan_to_none(value))


def _frame(rows: dict[str, list]) -> pl.DataFrame:
    return pl.DataFrame(rows, strict=False)


def _nan_to_none(x: Any) -> Any:
    return None if isinstance(x, float) and math.isnan(x) else x


def _numeric(result: ScenarioResult, field: str) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in result.scenario.grid[field])


def _cell(df: pl.DataFrame, column: str, digits: int = 3, signed: bool = False) -> list[str]:
    return [
        f"{fmt(e, digits, signed)} [{fmt(lo, digits, signed)}, {fmt(hi, digits, signed)}]"
        for e, lo, hi in zip(df[column], df["ci_low"], df["ci_high"])
    ]


def _pivot(part: pl.DataFrame, sc, row: str | None, col: str | None, cells: Sequence[Any]) -> pl.DataFrame:
    """Rows: the other grid fields, the variant and ``row``; columns: values of ``col``
    (``"col=value"``) or, without ``col``, the variants."""
    others = [f for f in sc.grid if f not in (row, col)]
    on = col or "variant"
    index = others + ([] if col is None else ["variant"]) + ([row] if row else [])
    df = part.select(*index, on).with_columns(
        pl.Series("cell", list(cells), strict=False),
        pl.col(on).cast(pl.String).alias(on) if col is None else (pl.lit(f"{col}=") + pl.col(on).cast(pl.String)).alias(on),
    )
    if not index:  # no grid: one row, one column per variant
        return pl.DataFrame({k: [c] for k, c in zip(df[on], df["cell"])}, strict=False)
    return _ordered(df.pivot(on=on, index=index, values="cell"), index, part)


def _ordered(pivot: pl.DataFrame, index: list[str], part: pl.DataFrame) -> pl.DataFrame:
    """Sort a pivot's rows by the grid order of its index fields (variants in file order)."""
    ranks = []
    for name in index:
        order = {v: i for i, v in enumerate(part[name].unique(maintain_order=True).to_list())}
        ranks.append(pivot[name].replace_strict(order, return_dtype=pl.Int64).alias(f"__{name}"))
    return pivot.with_columns(ranks).sort([f"__{n}" for n in index]).drop([f"__{n}" for n in index])


def _distribution(long: pl.DataFrame, grid: list[str], names: Sequence[str]) -> pl.DataFrame:
    part = long.filter(pl.col("metric").is_in(list(names)))
    index = grid + ["variant"]
    return part.pivot(on="metric", index=index, values="estimate").select(*index, *names)
