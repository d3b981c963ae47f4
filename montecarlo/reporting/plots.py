"""Plots of scenario tables (matplotlib, Agg canvas; no pyplot, so no global state).

Four kinds, chosen by a scenario's ``[[plots]]`` or by :func:`plan` when it has none:

- ``heatmap``: a metric over two grid fields (e.g. attacker × defender Strength), the numbers in
  the cells, one panel per facet value and variant. Probabilities on both sides of 0.5 use a
  diverging map centred there (purple: more likely than not, orange: less), other rates a
  sequential map from 0, means a sequential map over their range; cells where the metric does
  not apply are grey and read "n/a"; of the differences from the baseline, a panel with no
  difference in it (every cell "=" or n/a) is left out. A cell's number is black or white,
  whichever contrasts more with the cell (WCAG), and never reads 0 when it is not.
- ``lines``: a metric against a swept number, with its 95% interval as a band, one curve per
  hue value (and variant); exact values as black dots. Curves that coincide in every panel
  are drawn once and named together in the legend ("a = b (coinciding)"); the legend is true
  of every panel, and :func:`legend_entries` says what each entry claims, for checking.
- ``bars``: a distribution (one bar per value, up to the largest value any setup drawn
  reaches) or a metric over a categorical field, with 95% error bars and exact values as a
  black dash across their bar; legends as for lines; a bar whose estimate is 0 reads "0" (a bar
  of height 0 would show nothing).
- ``forest``: paired differences from the baseline with intervals; a filled marker is
  significant after Holm, a hollow one is not. Only the significant setups are shown, in grid
  order, or, when there are more than :data:`MAX_FOREST_ROWS`, the largest effects, largest
  first; rows identical to the baseline or not applicable are left out (the title says how many
  are shown); a facet value with no row drawn gets no panel, and the title says why. All panels
  share one x scale.

Colours are the Okabe–Ito palette (distinguishable with any colour vision) and every series
also has its own marker or hatch; a variant keeps its colour, marker and hatch in every plot of
a report (its place among the variants, the baseline first). Axis labels and titles use the
metric's description, fields are named in words as the report's text names them ("attacker
equipment = Sword"), grid values by their labels; variants by their names, as typed. Grid
fields a plot does not use are held at their ``where`` value, else at the middle value of the
grid, and the title says so; a plot of one variant of several names it in its title. Panel
titles wrap to the panel's width, at spaces only; panels wrap to the page's width, so that no
figure is wider than the page (where it would be shrunk, its text with it; a forest's setups wrap
beside their rows, one axis label under all panels), and heat maps size their cell numbers for
the page (:data:`CELL_TEXT_PX`).
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib import colormaps
from matplotlib.colors import Normalize, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.ticker import MaxNLocator

from montecarlo.reporting.tables import fmt, metric_text, settled
from montecarlo.scenarios import PlotSpec, Scenario

MAX_DISTRIBUTION_PANELS = 4  # a comparison's distribution: a panel per value of a field this short
MAX_FOREST_ROWS = 30  # setups drawn per panel: the significant ones, else the largest effects
FOREST_LABEL_CHARS = 44  # a forest row's setup wraps after this many characters
MAX_FOREST_SETUPS = 200  # a default forest holds grid fields at their middle value above this
MAX_DEFAULT_METRIC_PLOTS = 3
DPI = 100
# inches at DPI: the report page's column, where a wider PNG is shrunk: 1240 px at most, 1233 px
# in a 1280 px window beside the scrollbar
PAGE_WIDTH = 12.3
# inches of panels side by side: with the legend or colour bar beside them, the page's width
MAX_LINE_WIDTH = PAGE_WIDTH - 1.8
CELL_TEXT_PX = 11  # heat-map cell numbers as shown on the page (pixels), whatever the figure's size
# A heat map of more columns prints no number in its cells: they would overlap (a Risk grid of
# 100 x 100 setups printed 10,000 numbers over each other); the report's tables hold them.
MOST_COLUMNS_NUMBERED = 24
# Okabe & Ito (2008), told apart with any colour vision; black is kept for exact values, so a
# neutral grey stands in for it; yellow last (weak on white)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#666666", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
HATCHES = ("", "//", "..", "xx", "\\\\", "--", "oo", "++")
DIVERGING, SEQUENTIAL, MEANS = "PuOr", "cividis", "viridis"


def plan(sc: Scenario) -> list[PlotSpec]:
    """The scenario's ``[[plots]]``, or sensible defaults for its grid and metrics.

    A scenario with several variants always gets a forest plot of the differences, even when
    its ``[[plots]]`` name none: a comparison is not reported without one.
    """
    kinds = {m: sc.question.metric(m).kind for m in sc.metrics}
    scalar = [m for m in sc.metrics if kinds[m] != "distribution"]
    if sc.plots is not None:  # the scenario's own, even none (plots = [])
        specs = list(sc.plots)
        if not any(spec.kind == "forest" for spec in specs):
            specs.extend(_default_forest(sc, scalar))
        return specs
    numeric = [f for f in sc.grid if sc.numeric(f)]
    other = [f for f in sc.grid if f not in numeric]
    specs = []
    for metric in scalar[:MAX_DEFAULT_METRIC_PLOTS]:
        if len(numeric) >= 2:
            rest = [f for f in sc.grid if f not in numeric[:2]]
            specs.append(PlotSpec("heatmap", metric, x=numeric[1], y=numeric[0], facet=_first(rest)))
        elif numeric:
            specs.append(PlotSpec("lines", metric, x=numeric[0], hue=_first(other), facet=_first(other[1:])))
        else:
            specs.append(PlotSpec("bars", metric, x=_first(other), hue=_first(other[1:])))
    for metric in [m for m in sc.metrics if kinds[m] == "distribution"][:2]:
        if len(sc.variants) > 1:  # the variants side by side, a panel per value of a short field:
            # held at its middle value, a field drew the one setup where no variant differed
            facet = _first([f for f in reversed(sc.grid) if len(sc.grid[f]) <= MAX_DISTRIBUTION_PANELS])
            specs.append(PlotSpec("bars", metric, facet=facet))
        else:
            hue = _first([f for f in reversed(sc.grid) if len(sc.grid[f]) <= 6])
            specs.append(PlotSpec("bars", metric, hue=hue))
    return specs + _default_forest(sc, scalar)


def _default_forest(sc: Scenario, scalar: Sequence[str]) -> list[PlotSpec]:
    """A forest plot of the first scalar metric over at most MAX_FOREST_SETUPS setups per panel
    (of which the largest MAX_FOREST_ROWS are drawn)."""
    if len(sc.variants) < 2 or not scalar:
        return []
    other = [f for f in sc.grid if not sc.numeric(f)]
    facet = _first([f for f in other if len(sc.grid[f]) <= 4])
    where, rows = {}, math.prod(len(v) for f, v in sc.grid.items() if f != facet)
    for f in (f for f in sc.grid if f != facet):
        if rows <= MAX_FOREST_SETUPS:
            break
        where[f] = _middle(sc.grid[f])
        rows //= len(sc.grid[f])
    return [PlotSpec("forest", scalar[0], facet=facet, where=where)]


def draw(
    spec: PlotSpec, sc: Scenario, results: pl.DataFrame, comparison: pl.DataFrame | None
) -> Figure | None:
    """The figure for one plot spec, from the report's long tables (None: nothing to draw,
    e.g. a forest plot where every variant is identical to the baseline)."""
    if spec.kind == "forest":
        if comparison is None:
            raise ValueError("a forest plot needs a comparison (two or more variants)")
        return _forest(spec, sc, comparison)
    return {"heatmap": _heatmap, "lines": _lines, "bars": _bars}[spec.kind](spec, sc, results)


def draw_file(
    kind: str, spec: PlotSpec, sc: Scenario, results: pl.DataFrame, comparison: pl.DataFrame | None, path
) -> str | None:
    """Draw one planned figure and save it as the PNG ``path``: its caption (the figure's title
    on one line), or None when there is nothing to draw. ``kind`` "difference" is the heat map
    of differences from the baseline of a heat map spec. One plot of a report: the task a worker
    process runs when a report's plots are drawn in parallel."""
    if kind == "difference":
        fig = difference_heatmap(spec, sc, comparison)
    else:
        fig = draw(spec, sc, results, comparison)
    if fig is None:
        return None
    save_png(fig, path)
    return " ".join(fig.get_suptitle().split())


def save_png(fig: Figure, path) -> None:
    """Write ``fig`` as PNG with the Agg canvas."""
    FigureCanvasAgg(fig)
    fig.savefig(path, format="png", dpi=DPI)


def file_name(index: int, spec: PlotSpec) -> str:
    return f"plot-{index + 1:02d}-{spec.kind}-{spec.metric}.png"


def words(sc: Scenario, metric: str) -> str:
    """A metric in words for axes and titles: its description (without a trailing remark in
    parentheses), as a chance for a probability.

    >>> from montecarlo.games.base import Metric
    >>> class Q:  # a stand-in question
    ...     def metric(self, name): return Metric(name, "probability", "the attacker wins (note)")
    >>> class S: question = Q()
    >>> words(S(), "attacker_win")
    'chance: the attacker wins'
    """
    m = sc.question.metric(metric.split("=", 1)[0])
    text = metric_text(m)
    return f"chance: {text}" if m.kind == "probability" else text


def field_words(field: str | None) -> str:
    return "" if field is None else field.replace("_", " ")


def text_colour(rgba: Sequence[float]) -> str:
    """Black or white, whichever has the better WCAG contrast against the colour ``rgba`` (from
    its relative luminance): dark text on viridis teal or a mid orange, white on deep colours.

    >>> text_colour((0.129, 0.569, 0.549, 1.0)), text_colour((0.267, 0.005, 0.329, 1.0))
    ('black', 'white')
    """
    on_black, on_white = (contrast(rgba, (0.0, 0.0, 0.0)), contrast(rgba, (1.0, 1.0, 1.0)))
    return "black" if on_black >= on_white else "white"


def contrast(a: Sequence[float], b: Sequence[float]) -> float:
    """The WCAG 2 contrast ratio of two sRGB colours (1 to 21; 4.5 is enough for small text).

    >>> round(contrast((0, 0, 0), (1, 1, 1)), 1), contrast((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))
    (21.0, 1.0)
    """
    la, lb = _luminance(a), _luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def _luminance(rgb: Sequence[float]) -> float:
    """WCAG relative luminance of an sRGB colour (channels 0..1)."""
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _cell_number(x: float, digits: int, signed: bool) -> str:
    """A heat map cell's number: ``digits`` decimals, more where a value that is not 0 would
    read as 0 (a significant difference of 0.004 is "+0.004", not "0.00"), or one below 1 as 1
    (an exact chance of 0.99962 is "0.9996", not "1.000").

    >>> _cell_number(0.004, 2, True), _cell_number(-0.004, 2, True), _cell_number(0.0, 2, True)
    ('+0.004', '-0.004', '0.00')
    >>> _cell_number(0.99962, 3, False), _cell_number(1.0, 3, False), _cell_number(0.99996, 3, False)
    ('0.9996', '1.000', '0.99996')
    >>> _cell_number(1 - 1e-15, 3, False), _cell_number(3e-17, 3, False)  # an exact solver's rounding
    ('1.000', '0.000')
    >>> _cell_number(1 - 4.6e-8, 3, False)  # as the findings write it ("exact down to 1 − 2.2e-6")
    '1−4.6e-8'
    """
    x = settled(x)  # (as the findings read it)
    text = fmt(x, digits, signed)
    while (x != 0 and float(text) == 0 or abs(x) < 1 and abs(float(text)) == 1) and digits < 6:
        digits += 1
        text = fmt(x, digits, signed)
    if 0 < x < 1 and float(text) == 1:  # closer to 1 than six decimals show
        text = "1−" + fmt(1 - x, digits)
    return text


def _differs(panel: pl.DataFrame) -> bool:
    """Whether a difference heat map's panel shows any difference (a cell that is not 0 or n/a).

    >>> _differs(pl.DataFrame({"estimate": [0.0, None]})), _differs(pl.DataFrame({"estimate": [0.0, -0.2]}))
    (False, True)
    """
    return bool((panel["estimate"].fill_null(0.0) != 0).any())


def colour_map(sc: Scenario, metric: str, values: np.ndarray, difference: bool = False):
    """(cmap, norm): diverging at 0 for differences; for a probability, diverging at 0.5 when
    its values lie on both sides of it (odds that turn, whatever the metric is called), else
    sequential from 0 (a rate); sequential over the range for means."""
    kind = sc.question.metric(metric).kind
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if difference:
        reach = max(abs(lo), abs(hi), 1e-9)
        cmap, norm = DIVERGING, TwoSlopeNorm(0.0, -reach, reach)
    elif kind == "probability" and lo < 0.5 < hi:
        cmap, norm = DIVERGING, TwoSlopeNorm(0.5, 0.0, 1.0)
    elif kind == "probability":
        cmap, norm = SEQUENTIAL, Normalize(0.0, max(hi, 1e-9))
    else:
        cmap, norm = MEANS, Normalize(lo, hi if hi > lo else lo + 1e-9)
    cmap = colormaps[cmap].with_extremes(bad="#e6e6e6")
    return cmap, norm


# ---------------------------------------------------------------- the four kinds


def difference_heatmap(spec: PlotSpec, sc: Scenario, comparison: pl.DataFrame) -> Figure | None:
    """A heat map spec drawn for the differences variant − baseline: a diverging map centred at
    0, ``=`` where the two arms are identical, ``*`` where significant after Holm. A panel with
    no difference in it (every cell ``=`` or n/a) is left out; None when no panel is left."""
    baseline = comparison["baseline"][0]
    df = comparison.filter(pl.col("variant") != baseline).with_columns(pl.col("difference").alias("estimate"))
    if spec.variant is not None and spec.variant != baseline:
        df = df.filter(pl.col("variant") == spec.variant)
    tested = df.filter(pl.col("metric") == spec.metric, pl.col("status") == "tested")["variant"]
    df = df.filter(pl.col("variant").is_in(tested.unique().to_list()))
    if df.height == 0:
        return None
    return _heatmap(dataclasses.replace(spec, variant=None, title=None), sc, df, baseline=baseline)


def _heatmap(
    spec: PlotSpec, sc: Scenario, results: pl.DataFrame, baseline: str | None = None
) -> Figure | None:
    df, fixed, variants = _select(spec, sc, results, (spec.x, spec.y, spec.facet))
    xs, ys, facets = _values(sc, spec.x), _values(sc, spec.y), _values(sc, spec.facet)
    prob = sc.question.metric(spec.metric).kind == "probability"
    diff = baseline is not None
    # A cell shows the exact value where the setup has one (a Findings line quotes it; an estimate
    # beside it, 0.499 for an exact 1/2, reads as an imbalance), the estimate elsewhere.
    shown = "estimate" if diff else "shown"  # (the results always have their exact column)
    mixed = False  # exact values in some cells only: the others are marked ≈
    if shown == "shown":
        df = df.with_columns(pl.coalesce(pl.col("exact").fill_nan(None), pl.col("estimate")).alias("shown"))
        exact_cells = df["exact"].fill_nan(None).is_not_null()
        mixed = bool(exact_cells.any()) and not exact_cells.all()
    cmap, norm = colour_map(sc, spec.metric, np.array([_num(v) for v in df[shown]]), difference=diff)
    panels = [(variant, facet) for variant in variants for facet in facets]
    if diff:  # a panel of "=" and n/a only carries no information
        panels = [p for p in panels if _differs(_where(df, {"variant": p[0], spec.facet: p[1]}))]
        if not panels:
            return None
    width, height = min(1.2 + 0.62 * len(xs), MAX_LINE_WIDTH), 1.0 + 0.45 * len(ys)
    every = len(panels) == len(variants) * len(facets)
    if every:
        fig, axes = _figure(len(variants), len(facets), width, height)
    else:  # panels left out: the others in reading order, wrapped to the page
        fig, axes = _figure(1, len(panels), width, height)
    cell_pt = _points_on_page(fig, CELL_TEXT_PX)
    numbered = len(xs) <= MOST_COLUMNS_NUMBERED
    near_one = False  # a cell written 1−x: the title says what it means
    image = None
    for (variant, facet), ax in zip(panels, (ax for row in axes for ax in row)):
        sub = _where(df, {"variant": variant, spec.facet: facet})
        cells = {(row[spec.y], row[spec.x]): row for row in sub.iter_rows(named=True)}
        grid = np.array([[_num(cells.get((y, x), {}).get(shown)) for x in xs] for y in ys])
        image = ax.imshow(np.ma.masked_invalid(grid), origin="lower", cmap=cmap, norm=norm, aspect="auto")
        for (i, j), v in np.ndenumerate(grid) if numbered else ():
            if math.isnan(v):
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=cell_pt, color="#555555")
                continue
            colour = text_colour(cmap(norm(v)))
            text = _cell_number(v, 3 if prob else 2, diff)  # 4.8e-5, not 0.000
            if diff:
                row = cells[ys[i], xs[j]]
                text = "=" if row["status"] == "identical" else text + ("*" if row["significant"] else "")
            elif mixed and math.isnan(_num(cells[ys[i], xs[j]]["exact"])):
                text = "≈" + text  # no exact value here: the estimate
            near_one = near_one or "1−" in text
            ax.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=cell_pt,
                color=colour,
            )
        _xticks(ax, xs)
        ax.set_yticks(range(len(ys)), [str(y) for y in ys])
        ax.set_xlabel(field_words(spec.x))
        ax.set_ylabel(field_words(spec.y))
        name = f"{variant} − {baseline}" if diff else variant if len(variants) > 1 else None
        ax.set_title(_panel(name, spec.facet, facet), fontsize=9)
    label = words(sc, spec.metric) + (f": variant − {baseline}" if diff else "")
    fig.colorbar(image, ax=[ax for row in axes for ax in row], shrink=0.8, label=_wrap(label, 40))
    what = f"{_cap(words(sc, spec.metric))}\nby {field_words(spec.y)} and {field_words(spec.x)}"
    if diff:
        left_out = "" if every else "; panels with no difference left out"
        what = (f"{_cap(words(sc, spec.metric))}: difference from {baseline}\nby {field_words(spec.y)} and "
                f"{field_words(spec.x)}\n* significant after Holm; = identical in every trial{left_out}")
    elif shown == "shown" and exact_cells.any():
        what += "\n(exact values where known; ≈ a simulated estimate)" if mixed else "\n(exact values)"
    if near_one:
        what += "\n(1−3e-9: short of 1 by 3e-9)"
    unnumbered = f"\n(no numbers in the cells: {len(xs)} columns; the report's tables give them)"
    fig.suptitle(_title(spec, sc, what, fixed) + ("" if numbered else unnumbered))
    return fig


def _lines(spec: PlotSpec, sc: Scenario, results: pl.DataFrame) -> Figure:
    df, fixed, variants = _select(spec, sc, results, (spec.x, spec.hue, spec.facet))
    xs = _values(sc, spec.x)
    numeric_x = sc.numeric(spec.x)
    rows, facets = _panel_rows(spec, variants), _values(sc, spec.facet)
    order = _variant_order(results)
    fig, axes = _figure(len(rows), len(facets), 4.8, 3.4, sharey=True)
    panels = []  # (axis, row variant, facet, series); the same series, in the same order, in each
    for r, row_variant in enumerate(rows):
        for c, facet in enumerate(facets):
            series = []
            for k, (hue, variant) in enumerate(_panel_series(sc, spec.hue, variants, row_variant)):
                sub = _where(df, {"variant": variant, spec.hue: hue, spec.facet: facet})
                by_x = {row[spec.x]: row for row in sub.iter_rows(named=True)}
                pts = [by_x[x] for x in xs if x in by_x]
                # Text values (e.g. troop lists) are placed at their grid position, labelled below.
                x = np.array([_num(p[spec.x]) if numeric_x else xs.index(p[spec.x]) for p in pts])
                cols = (
                    np.array([_num(p[col]) for p in pts])
                    for col in ("estimate", "ci_low", "ci_high", "exact")
                )
                style = _style(k, spec.hue, variant, order)
                series.append((style, _series_label(spec.hue, hue, variant, row_variant, variants), x, *cols))
            panels.append((axes[r][c], row_variant, facet, series))
    groups = _coinciding_everywhere([p[3] for p in panels])
    labels = _record(fig, spec, sc, fixed, variants, rows, facets, groups, (spec.metric,), spec.x)
    for ax, row_variant, facet, series in panels:
        exact_shown = False
        for group, label in zip(groups, labels):  # coinciding curves are drawn once
            k, _, x, est, lo, hi, ex = series[group[0]]  # k: its style
            (line,) = ax.plot(
                x,
                est,
                color=PALETTE[k % len(PALETTE)],
                marker=MARKERS[k % len(MARKERS)],
                ms=4,
                lw=1.4,
                linestyle=("-", "--", ":", "-.")[k % 4],
                label=label,
            )
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
            if not np.isnan(ex).all():
                ax.plot(x, ex, "k.", ms=4, label=None if exact_shown else "exact")
                exact_shown = True
        if not numeric_x:
            _xticks(ax, xs)
        elif all(float(v).is_integer() for v in xs):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(field_words(spec.x))
        if ax.get_subplotspec().colspan.start == 0:  # the panels of a line share the y axis
            ax.set_ylabel(_wrap(words(sc, spec.metric), 34))
        _panel_title(ax, _panel(row_variant, spec.facet, facet), 4.8)
        ax.grid(alpha=0.3)
    _legend(_top_right(axes))
    fig.suptitle(
        _title(spec, sc, f"{_cap(words(sc, spec.metric))}\nagainst {field_words(spec.x)} (95% bands)", fixed)
    )
    return fig


def _bars(spec: PlotSpec, sc: Scenario, results: pl.DataFrame) -> Figure:
    metric = sc.question.metric(spec.metric)
    df, fixed, variants = _select(
        spec, sc, results, (spec.x, spec.hue, spec.facet), names=metric.reported_names()
    )
    dropped: list[Any] = []
    if metric.kind == "distribution":
        categories, dropped = _possible_values(metric, df)
        key, xlabel, along = (lambda row: int(row["metric"].split("=", 1)[1])), spec.metric, "metric"
    elif spec.x is not None:
        categories, key, xlabel, along = _values(sc, spec.x), (lambda row: row[spec.x]), spec.x, spec.x
    else:
        categories, key, xlabel, along = variants, (lambda row: row["variant"]), "variant", "variant"
    rows, facets = ([None] if xlabel == "variant" else _panel_rows(spec, variants)), _values(sc, spec.facet)
    per_panel = [_panel_series(sc, spec.hue, variants, v) for v in rows]
    if xlabel == "variant":
        per_panel = [[(h, None) for h in _values(sc, spec.hue)]]
    order = _variant_order(results)
    styles = [_style(k, spec.hue, variant, order) for k, (_, variant) in enumerate(per_panel[0])]
    width = 0.8 / max(len(per_panel[0]), 1)
    panel_width = min(max(4.5, 0.3 * len(categories) * len(per_panel[0]) + 1.5), MAX_LINE_WIDTH)
    fig, axes = _figure(len(rows), len(facets), panel_width, 3.4, sharey=True)
    panels = []  # (axis, row variant, facet, series); the same series, in the same order, in each
    for r, (row_variant, series) in enumerate(zip(rows, per_panel)):
        for c, facet in enumerate(facets):
            drawn = []
            for k, (hue, variant) in enumerate(series):
                sub = _where(df, {"variant": variant, spec.hue: hue, spec.facet: facet})
                by_cat = {key(row): row for row in sub.iter_rows(named=True)}
                est, lo, hi, ex = (
                    np.array([_num(by_cat.get(cat, {}).get(col)) for cat in categories])
                    for col in ("estimate", "ci_low", "ci_high", "exact")
                )
                drawn.append(
                    (k, _series_label(spec.hue, hue, variant, row_variant, variants), None, est, lo, hi, ex)
                )
            panels.append((axes[r][c], row_variant, facet, drawn))
    groups = _coinciding_everywhere([p[3] for p in panels])
    names = metric.reported_names()
    labels = _record(fig, spec, sc, fixed, variants, rows, facets, groups, names, along, xlabel == "variant")
    # every bar is drawn (side by side); a group of coinciding bars is named once, at its first
    first = {group[0]: label for group, label in zip(groups, labels)}
    bars: dict[Any, dict[int, Any]] = {}  # axis -> series -> its bars (for the legend's swatches)
    for ax, row_variant, facet, drawn in panels:
        exact_shown = False
        for k, _, _, est, lo, hi, ex in drawn:
            pos = np.arange(len(categories)) - 0.4 + width * (k + 0.5)
            colour = PALETTE[styles[k] % len(PALETTE)]
            bars.setdefault(ax, {})[k] = ax.bar(
                pos,
                est,
                width,
                yerr=np.abs(np.vstack([est - lo, hi - est])),
                capsize=2,
                label=first.get(k),
                color=colour,
                hatch=HATCHES[styles[k] % len(HATCHES)],
                edgecolor="white",
                linewidth=0.5,
                error_kw={"elinewidth": 0.8},
            )
            known = ~np.isnan(ex)
            if known.any():  # a dash across the middle of its bar: dashes of neighbouring bars never join
                ax.hlines(
                    ex[known], pos[known] - 0.35 * width, pos[known] + 0.35 * width, colors="black", lw=1.5,
                    label=None if exact_shown else "exact",
                )
                exact_shown = True
            for x in pos[est == 0]:  # a bar of height 0 is drawn as nothing: say "0"
                ax.text(x, 0, "0", ha="center", va="bottom", fontsize=7, color=colour)
        _xticks(ax, categories, panel_width)
        if metric.kind == "distribution":
            shown = words(sc, spec.metric) + (f" (never above {categories[-1]} here)" if dropped else "")
            ax.set_xlabel(_wrap(shown, 40))
        else:
            ax.set_xlabel(field_words(xlabel))
        ylabel = "probability" if metric.kind == "distribution" else _wrap(words(sc, spec.metric), 34)
        if ax.get_subplotspec().colspan.start == 0:  # the panels of a line share the y axis
            ax.set_ylabel(ylabel)
        _panel_title(ax, _panel(row_variant, spec.facet, facet), panel_width)
        ax.grid(axis="y", alpha=0.3)
    top = _top_right(axes)
    # coinciding bars stand side by side in their own colours: their entry shows every colour
    swatches = {
        label: tuple(bars[top][k] for k in group)
        for group, label in zip(groups, labels)
        if label and len(group) > 1 and all(k in bars.get(top, {}) for k in group)
    }
    _legend(top, swatches)
    what = (
        f"Distribution of {_lower(words(sc, spec.metric))}"
        if metric.kind == "distribution"
        else f"{_cap(words(sc, spec.metric))}\nby {field_words(xlabel)}"
    )
    fig.suptitle(_title(spec, sc, f"{what} (95% error bars)", fixed))
    return fig


def _possible_values(metric, df: pl.DataFrame) -> tuple[list[Any], list[Any]]:
    """(values shown, values left out) of a distribution: its support up to the largest value
    that any drawn setup reaches (an estimate or an exact probability above 0), so that an axis
    does not run to 10 harvesters where 4 is the most a setup holds."""
    support = list(metric.support)
    seen = df.filter((pl.col("estimate") > 0) | (pl.col("exact") > 0))["metric"]
    reached = {int(name.split("=", 1)[1]) for name in seen}
    last = max((i for i, v in enumerate(support) if v in reached), default=len(support) - 1)
    return support[: last + 1], support[last + 1 :]


def _forest(spec: PlotSpec, sc: Scenario, comparison: pl.DataFrame) -> Figure | None:
    df, fixed, variants = _select(spec, sc, comparison, (spec.facet,), hold_unused=False)
    baseline = comparison["baseline"][0]
    variants = [v for v in variants if v != baseline]
    order = _variant_order(comparison, baseline)  # the baseline keeps its colour, unused here
    row_fields = [f for f in sc.grid if f != spec.facet and f not in fixed]
    facets = _values(sc, spec.facet)
    tested = df.filter(pl.col("status") == "tested")
    if tested.height == 0:
        return None
    tested = tested.with_columns(
        pl.Series("_label", [_label(row, row_fields) for row in tested.iter_rows(named=True)])
    )
    all_labels = list(dict.fromkeys(tested["_label"]))
    significant = tested.filter(pl.col("significant"))
    pool = significant if significant.height else tested
    # groups in grid order, so that equal effects keep the first setups (and the same on every run)
    size = pool.group_by("_label", maintain_order=True).agg(pl.col("difference").abs().max().alias("_size"))
    effect = dict(zip(size["_label"], size["_size"]))
    largest = sorted(effect, key=lambda lab: -effect[lab])  # stable: equal effects in grid order
    if len(effect) > MAX_FOREST_ROWS:  # the largest effects, largest first (a ranking reads so)
        labels = largest[:MAX_FOREST_ROWS]
    else:  # every row of the pool, in grid order
        labels = [lab for lab in all_labels if lab in effect]
    shown = tested.filter(pl.col("_label").is_in(labels))
    # a row is a setup in every panel: counted as rows, "significant" if it is in some panel
    rows = "row" if len(labels) == 1 else "rows"
    if len(effect) > len(labels):
        effects = "largest significant effects" if significant.height else "largest effects"
        what = f"the {len(labels)} {rows} with the {effects} (of {len(effect)}), largest first"
    elif not significant.height:
        what = f"{len(labels)} tested {rows}"
    else:  # "27 of 29 rows show a significant difference"
        count = f"{len(labels)} of {len(all_labels)}" if len(labels) < len(all_labels) else (
            "the one" if len(labels) == 1 else f"all {len(labels)}")
        what = f"{count} {'row shows' if len(labels) == 1 else 'rows show'} a significant difference"
        others = len(all_labels) - len(labels)
        if others:  # filled or not, a drawn row has a significant difference somewhere
            what += f"; the other {others} {'is' if others == 1 else 'are'} not drawn"
    # a facet value with no row drawn gets no panel, a variant with no marker no legend entry:
    # the title says which and why
    left_out = _left_out(df, shown, spec.facet, facets, baseline,
                         lambda left: f"no panel for {_setting(spec.facet, ', '.join(map(str, left)))}")
    left_out += _left_out(df, shown, "variant", variants, baseline,
                          lambda left: f"not drawn: {', '.join(left)}")
    left_out += _missing_markers(shown, len(labels), spec.facet, baseline)
    facets = [f for f in facets if _where(shown, {spec.facet: f}).height]
    step = 1.0 / (len(variants) + 1)
    # long setups (lists of areas) wrap over a few lines beside their row, not across the page
    wrapped = [_wrap_parts(lab, FOREST_LABEL_CHARS) for lab in labels]
    lines_per_row = max((w.count("\n") + 1 for w in wrapped), default=1)
    longest = max((len(line) for w in wrapped for line in w.split("\n")), default=8)
    label_width = min(FOREST_LABEL_CHARS, longest)
    label_inches = 0.6 * 8 / 72 * label_width + 0.3  # 8-point text, about 0.6 em a character
    fig = Figure(
        figsize=(
            min(max(3.2 * len(facets) + label_inches + 1.8, 8.0), PAGE_WIDTH),  # never shrunk on the page
            min(2.4 + len(labels) * max(0.12 + 0.14 * len(variants), 0.15 * lines_per_row), 40),
        ),
        layout="constrained",
    )
    axes = fig.subplots(1, len(facets), squeeze=False, sharey=True, sharex=True)[0]
    panel_width = (fig.get_figwidth() - label_inches - 1.8) / len(facets)
    for ax, facet in zip(axes, facets):
        for k, variant in enumerate(variants):
            sub = _where(shown, {"variant": variant, spec.facet: facet})
            style = order.index(variant)
            colour, marker = PALETTE[style % len(PALETTE)], MARKERS[style % len(MARKERS)]
            for row in sub.iter_rows(named=True):
                y = labels.index(row["_label"]) + (k + 1) * step - 0.5
                err = [[row["difference"] - row["ci_low"]], [row["ci_high"] - row["difference"]]]
                face = colour if row["significant"] else "white"
                ax.errorbar(row["difference"], y, xerr=err, fmt=marker, ms=5, color=colour, mfc=face, lw=1)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(range(len(labels)), wrapped, fontsize=8)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5))  # narrow panels: numbers must not touch
        _panel_title(ax, _panel(None, spec.facet, facet), panel_width)
        ax.grid(axis="x", alpha=0.3)
    for variant in variants:
        if variant in set(shown["variant"]):
            style = order.index(variant)
            axes[-1].errorbar(
                [], [], fmt=MARKERS[style % len(MARKERS)], color=PALETTE[style % len(PALETTE)], label=variant
            )
    _legend(axes[-1])
    # one axis label under every panel: per panel, long labels ran into each other
    fig.supxlabel(_wrap(f"{words(sc, spec.metric)}: variant − {baseline}", 90), fontsize=9)
    fig.suptitle(
        _title(
            spec,
            sc,
            f"{_cap(words(sc, spec.metric))}: differences from {baseline}\n"
            f"{what}\n95% paired intervals; filled = significant after Holm{left_out}",
            fixed,
        ),
        fontsize=10,
    )
    return fig


def _left_out(df: pl.DataFrame, shown: pl.DataFrame, field: str | None, values: list, baseline: str,
              named: Callable[[list], str]) -> str:
    """The title's lines for the values of ``field`` (a facet, or ``"variant"``) a forest draws
    nothing of, those left out for one reason together, ``named`` by the caller: an empty panel
    said the same thing three times over, a variant left out said nothing.
    ``"\nno panel for settlement = rank 1, rank 2: every variant is ..."``."""
    why: dict[str, list] = {}
    for value in values:
        if field is not None and _where(shown, {field: value}).height == 0:
            reason = _why_not_drawn(_where(df, {field: value}), baseline, panel=field != "variant")
            why.setdefault(reason, []).append(value)
    return "".join(f"\n{named(left)}: {reason}" for reason, left in why.items())


def _missing_markers(shown: pl.DataFrame, rows: int, facet_field: str | None, baseline: str) -> str:
    """The title's line when a variant drawn has no marker in some row of a panel drawn."""
    panels = shown[facet_field].n_unique() if facet_field else 1
    if any(part.height < rows * panels for part in shown.partition_by("variant")):
        return f"\nno marker: no difference from {baseline} tested there (identical, or n/a)"
    return ""


def _why_not_drawn(rows: pl.DataFrame, baseline: str, panel: bool) -> str:
    """Why a forest draws nothing of a facet value (``panel``) or of a variant, from their rows of
    the comparison table: nothing tested differs there, every row is identical, or none applies."""
    status = set(rows["status"].to_list())
    if "tested" in status:  # tested in rows beyond those drawn
        return ("no setup drawn differs there: see the comparison table" if panel
                else "no difference in the rows drawn")
    if "identical" not in status:
        return "the metric does not apply there" if panel else "the metric does not apply"
    if panel:
        extra = " (or the metric does not apply)" if "not applicable" in status else ""
        return f"every variant is identical to {baseline} there, trial by trial{extra}"
    return f"identical to {baseline} in every trial" + (", or n/a" * ("not applicable" in status))


@dataclass(frozen=True)
class LegendEntry:
    """One legend entry of a lines or bars plot and what it claims, to be checked against the
    data: the ``series`` it names (conditions on the results table: variant, hue value) have the
    same estimates of ``metrics`` along column ``along`` in every one of the plot's ``panels``
    (conditions: row variant, facet value, the grid fields held fixed; ``variants``: the
    variants drawn). One series: an entry of its own, nothing claimed."""

    label: str | None
    series: tuple[Mapping[str, Any], ...]
    panels: tuple[Mapping[str, Any], ...]
    metrics: tuple[str, ...]
    along: str
    variants: tuple[str, ...]

    @property
    def coinciding(self) -> bool:
        return len(self.series) > 1


_LEGENDS: "weakref.WeakKeyDictionary[Figure, tuple[LegendEntry, ...]]" = weakref.WeakKeyDictionary()


def legend_entries(fig: Figure) -> tuple[LegendEntry, ...]:
    """The legend entries a lines or bars figure of :func:`draw` was drawn with (else empty)."""
    return _LEGENDS.get(fig, ())


def _coinciding_everywhere(panels: Sequence[Sequence[tuple]]) -> list[list[int]]:
    """Positions of series ``(k, label, x, est, lo, hi, exact)`` grouped when their estimates are
    the same in every panel (a legend names such a group once, true in each panel).

    >>> a, b = np.array([0.2, 0.5]), np.array([0.3, 0.5])
    >>> s = lambda *ests: [(k, str(k), None, e, e, e, e) for k, e in enumerate(ests)]
    >>> _coinciding_everywhere([s(a, a, b), s(a, a, a)])  # 0 and 1 agree in both panels
    [[0, 1], [2]]
    >>> _coinciding_everywhere([s(a, a), s(a, b)])  # the same in one panel only: not grouped
    [[0], [1]]
    """
    count = len(panels[0]) if panels else 0
    joined = [[np.asarray(p[k][3], dtype=float) for p in panels] for k in range(count)]  # per series

    def same(i: int, j: int) -> bool:
        pairs = zip(joined[i], joined[j])
        return all(a.shape == b.shape and np.array_equal(a, b, equal_nan=True) for a, b in pairs)

    groups: list[list[int]] = []
    for k in range(count):
        drawn = not all(np.isnan(a).all() for a in joined[k])  # nothing drawn coincides with nothing
        group = next((g for g in groups if drawn and same(g[0], k)), None)
        if group is None:
            groups.append([k])
        else:
            group.append(k)
    return groups


def _record(
    fig: Figure,
    spec: PlotSpec,
    sc: Scenario,
    fixed: Mapping[str, Any],
    variants: Sequence[str],
    rows: Sequence[str | None],
    facets: Sequence[Any],
    groups: Sequence[Sequence[int]],
    metrics: Sequence[str],
    along: str,
    by_variant: bool = False,
) -> list[str | None]:
    """The legend label of each group (``a = b (coinciding)`` for several series), recorded on
    ``fig`` with what it claims (:func:`legend_entries`)."""
    held = {f: _display(sc, f, v) for f, v in fixed.items()}
    panels = tuple(
        {**held, **({"variant": v} if v else {}), **({spec.facet: f} if spec.facet else {})}
        for v in rows
        for f in facets
    )
    if by_variant:
        members = [(h, None) for h in _values(sc, spec.hue)]
    else:
        members = _panel_series(sc, spec.hue, variants, rows[0])
    entries, labels = [], []
    for group in groups:
        names = [_series_label(spec.hue, *members[k], rows[0], variants) for k in group]
        hues = [members[k][0] for k in group]
        hue_only = spec.hue is not None and all(n == _setting(spec.hue, h) for n, h in zip(names, hues))
        label = _group_label(names, spec.hue if hue_only else None, hues)
        series = tuple(
            {
                **({spec.hue: members[k][0]} if spec.hue else {}),
                **({"variant": members[k][1]} if members[k][1] and not rows[0] else {}),
            }
            for k in group
        )
        entries.append(LegendEntry(label, series, panels, tuple(metrics), along, tuple(variants)))
        labels.append(label)
    _LEGENDS[fig] = tuple(entries)
    return labels


def _group_label(
    names: Sequence[str | None], hue_field: str | None = None, hues: Sequence[Any] = ()
) -> str | None:
    """One legend entry for coinciding series: variants joined by "=", values of one hue field
    named once (``need = 1 / 2 (coinciding)``, not ``need = 1 = need = 2``).

    >>> _group_label(["official", "same"]), _group_label(["need = 1", "need = 2"], "need", [1, 2])
    ('official = same (coinciding)', 'need = 1 / 2 (coinciding)')
    """
    if len(names) == 1:
        return names[0]
    if hue_field is not None:
        return _setting(hue_field, " / ".join(str(h) for h in hues)) + " (coinciding)"
    return " = ".join(str(n) for n in names) + " (coinciding)"


def _wrap(text: str, width: int) -> str:
    """``text`` wrapped to ``width`` at spaces only: a name is not broken at its hyphen
    (Feyd-Rautha) nor a variant's name inside it, nor a field from its value at " = ".

    >>> print(_wrap("attacker = 3 regular, Thufir Hawat, Feyd-Rautha", 30))
    attacker = 3 regular, Thufir
    Hawat, Feyd-Rautha
    >>> print(_wrap("attacker = 3 regular, objective = win chance", 34))
    attacker = 3 regular,
    objective = win chance
    """
    import textwrap

    glued = text.replace(" = ", "\u00a0=\u00a0")  # textwrap breaks at ASCII whitespace only
    lines = textwrap.wrap(glued, width, break_on_hyphens=False, break_long_words=False)
    return "\n".join(lines).replace("\u00a0", " ") or text


def _wrap_parts(text: str, width: int) -> str:
    """``text`` wrapped to ``width``, a new line after each "+" (one area of a list a line).

    >>> print(_wrap_parts("areas=desert: 2 regular, harvester+plateau: 3 regular", 30))
    areas=desert: 2 regular,
    harvester+
    plateau: 3 regular
    """
    parts = text.split("+")
    return "\n".join(_wrap(p + ("+" if i < len(parts) - 1 else ""), width) for i, p in enumerate(parts))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _lower(text: str) -> str:
    return text.removeprefix("chance: ")


# ---------------------------------------------------------------- helpers


def _select(
    spec: PlotSpec,
    sc: Scenario,
    df: pl.DataFrame,
    used: Sequence[str | None],
    names: Sequence[str] | None = None,
    hold_unused: bool = True,
):
    """Rows of ``df`` for the spec's metric and variant; grid fields the plot does not use are held
    at their ``where`` value (else, with ``hold_unused``, at their middle value)."""
    fixed = {
        f: spec.where.get(f, _middle(v))
        for f, v in sc.grid.items()
        if f not in used and (hold_unused or f in spec.where)
    }
    variants = df["variant"].unique(maintain_order=True).to_list()
    if spec.variant is not None:
        variants = [spec.variant]
    df = df.filter(pl.col("metric").is_in(list(names or [spec.metric])), pl.col("variant").is_in(variants))
    df = _where(df, {f: _display(sc, f, v) for f, v in fixed.items()})
    return df, fixed, variants


def _where(df: pl.DataFrame, conditions: dict[Any, Any]) -> pl.DataFrame:
    """Filter on equalities, skipping None keys or values (an unused role)."""
    exprs = [pl.col(k) == v for k, v in conditions.items() if k is not None and v is not None]
    return df.filter(*exprs) if exprs else df


def _figure(
    rows: int, cols: int, width: float, height: float, wrap: int = 3, line_width: float = MAX_LINE_WIDTH, **kw
) -> tuple[Figure, list[list]]:
    """A figure of ``rows`` x ``cols`` panels (``axes[row][col]``); a single row or a single
    column of panels, or rows wider than ``line_width`` inches, are laid out side by side in
    reading order, wrapping after ``wrap`` panels or ``line_width`` inches: a figure wider than
    the page was shrunk there, its text with it."""
    panels = rows * cols
    wrap = max(1, min(wrap, int(line_width // width)))  # wide panels (big heat maps): fewer a line
    single = rows == 1 or cols == 1 or cols > wrap
    lines, per_line = (math.ceil(panels / wrap), min(panels, wrap)) if single else (rows, cols)
    fig = Figure(
        figsize=(min(per_line * width + 1.8, 24), min(lines * height + 0.8, 40)), layout="constrained"
    )
    grid = fig.subplots(lines, per_line, squeeze=False, **kw).ravel()
    for ax in grid[panels:]:
        ax.set_visible(False)
    return fig, [list(grid[r * cols : (r + 1) * cols]) for r in range(rows)]


def _points_on_page(fig: Figure, pixels: float) -> float:
    """The font size (points) that shows as ``pixels`` on the report page, where a figure wider
    than :data:`PAGE_WIDTH` is shrunk to fit.

    >>> _points_on_page(Figure(figsize=(6, 4)), 11), _points_on_page(Figure(figsize=(24.6, 4)), 11)
    (7.92, 15.84)
    """
    shrink = min(1.0, PAGE_WIDTH / float(fig.get_figwidth()))
    return round(float(pixels * 72 / DPI / shrink), 2)


def _xticks(ax, values: Sequence[Any], width: float | None = None) -> None:
    r"""Categorical x ticks: level when they fit the panel (``width`` inches), else wrapped at
    their spaces to at most four lines, else slanted.

    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> _xticks(ax, ["4 regular, bashar", "3 regular, Baron Harkonnen, Beast Rabban"], 5.1)
    >>> [t.get_text() for t in ax.get_xticklabels()], ax.get_xticklabels()[0].get_rotation()
    (['4 regular, bashar', '3 regular, Baron\nHarkonnen, Beast Rabban'], 0.0)
    """
    import textwrap

    labels = [str(v) for v in values]
    fits = max(6, int((width or 0) * 0.85 / max(len(labels), 1) * 72 / (0.6 * 10)))  # 10-point text
    wrapped = [textwrap.wrap(lab, fits, break_long_words=False, break_on_hyphens=False) for lab in labels]
    if width is not None and all(len(w) <= 4 and all(len(line) <= fits for line in w) for w in wrapped):
        ax.set_xticks(range(len(labels)), ["\n".join(w) or lab for w, lab in zip(wrapped, labels)])
        return
    slant = max(map(len, labels), default=0) > 5
    ax.set_xticks(range(len(labels)), labels, rotation=30 if slant else 0, ha="right" if slant else "center")


def _top_right(axes: list[list]) -> Any:
    """The panel at the right end of the first line (where a legend goes)."""
    top = [ax for row in axes for ax in row if ax.get_subplotspec().rowspan.start == 0]
    return max(top, key=lambda ax: ax.get_subplotspec().colspan.start)


def _legend(ax, swatches: Mapping[str, tuple] | None = None) -> None:
    """The legend right of ``ax``, "exact" last; an entry named in ``swatches`` shows all of its
    handles side by side (the colours of coinciding bars)."""
    handles, labels = ax.get_legend_handles_labels()
    handles = [(swatches or {}).get(label, h) for h, label in zip(handles, labels)]
    if handles:
        pairs = sorted(zip(handles, labels), key=lambda hl: hl[1] == "exact")
        ax.legend(
            *zip(*pairs), fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1),
            handler_map={tuple: HandlerTuple(ndivide=None, pad=0)},
        )


def _panel_rows(spec: PlotSpec, variants: Sequence[str]) -> list[str | None]:
    """One row of panels per variant when curves are already coloured by a hue field."""
    return list(variants) if spec.hue and len(variants) > 1 else [None]


def _panel_series(
    sc: Scenario, hue: str | None, variants: Sequence[str], row_variant: str | None
) -> list[tuple[Any, str]]:
    """(hue value, variant) of each curve or bar group in one panel."""
    return [(h, v) for h in _values(sc, hue) for v in ([row_variant] if row_variant else variants)]


def _series_label(
    hue_field: str | None, hue: Any, variant: str | None, row_variant: str | None, variants: Sequence[str]
) -> str | None:
    """A series' legend label: its hue value in words (``attacker equipment = Sword``) or its
    variant's name, as typed (when the panel shows several variants).

    >>> _series_label("attacker_equipment", "Sword", "official", None, ["official"])
    'attacker equipment = Sword'
    """
    parts = [
        _setting(hue_field, hue) if hue_field else None,
        variant if len(variants) > 1 and not row_variant else None,
    ]
    return ", ".join(str(p) for p in parts if p) or None


def _setting(field: str, value: Any) -> str:
    """A grid field at a value as the report's text shows a setup: ``attacker equipment = Sword``."""
    return f"{field_words(field)} = {value}"


def _variant_order(df: pl.DataFrame, baseline: str | None = None) -> list[str]:
    """Every variant of a report's table in the report's order (the baseline first): a variant's
    place in it is its colour, marker and hatch in every plot of the report."""
    names = df["variant"].unique(maintain_order=True).to_list()
    return ([baseline] if baseline is not None else []) + [v for v in names if v != baseline]


def _style(k: int, hue_field: str | None, variant: str | None, order: Sequence[str]) -> int:
    """The style (colour, marker, hatch) of the ``k``-th series of a panel: its variant's own
    when the series are variants, else the ``k``-th (the hue values)."""
    return order.index(variant) if hue_field is None and variant in order else k


def _values(sc: Scenario, field: str | None) -> list[Any]:
    return [None] if field is None else [_display(sc, field, v) for v in sc.grid[field]]


def _display(sc: Scenario, field: str, value: Any) -> Any:
    shown = sc.shown(field, value)
    return shown if sc.numeric(field) else str(shown)


def _middle(values: Sequence[Any]) -> Any:
    return values[len(values) // 2]


def _first(items: Sequence[Any]) -> Any:
    return items[0] if items else None


def _num(x: Any) -> float:
    return math.nan if x is None else float(x)


def _label(row: dict, fields: Sequence[str]) -> str:
    """A forest row's setup in words: ``attacker = 1, defender = 1, settlement = 0``; nothing
    when the panels' titles name the whole setup (the only row said "setup").

    >>> _label({"attacker": 1, "attacker_cards": 2}, ["attacker", "attacker_cards"]), _label({"a": 1}, [])
    ('attacker = 1, attacker cards = 2', '')
    """
    return ", ".join(_setting(f, row[f]) for f in fields)


def _panel_title(ax, text: str, width: float, fontsize: float = 9) -> None:
    """A panel's title wrapped to the panel's ``width`` (inches), so that long facet values
    (lists of areas) neither run into the next panel nor off the figure."""
    chars = max(12, int(width * 72 / (0.6 * fontsize)))
    ax.set_title(_wrap(text, chars), fontsize=fontsize)


def _panel(variant: str | None, facet_field: str | None, facet: Any) -> str:
    """A panel's title: its variant (as typed) and facet value in words.

    >>> _panel("gom_counts_toward_cap − official", "attacker_equipment", "Sword")
    'gom_counts_toward_cap − official · attacker equipment = Sword'
    """
    return " · ".join(s for s in (variant, _setting(facet_field, facet) if facet_field else None) if s)


def _title(spec: PlotSpec, sc: Scenario, default: str, fixed: Mapping[str, Any]) -> str:
    """A figure's title: the spec's own or ``default``, the variant it draws when it draws one of
    several ("… (official)"), and the grid values held fixed in the report's words."""
    held = ", ".join(_setting(k, sc.shown(k, v)) for k, v in fixed.items())
    lines = (spec.title or default).split("\n")
    if spec.variant is not None and len(sc.variants) > 1:
        # after the first line that closes every parenthesis opened so far: a title broken inside
        # its own "( … )" had the variant inside the pair ("(3 regulars (official) + Naib)")
        depths = accumulate(line.count("(") - line.count(")") for line in lines)
        closed = next((i for i, depth in enumerate(depths) if depth <= 0), len(lines) - 1)
        lines[closed] += f" ({spec.variant})"
    # a scenario's own title can be long: wrapped, so that a narrow figure does not clip it
    title = "\n".join(_wrap(line, 60) for line in lines)
    return title + (f"\nat {held}" if held else "")
