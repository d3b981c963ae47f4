"""Plots: palettes by meaning, words from metric descriptions, coinciding curves, capped forests."""

import dataclasses

import numpy as np
import polars as pl
import pytest
from matplotlib.colors import to_hex

from montecarlo.reporting import plots
from montecarlo.reporting.tables import all_tables
from montecarlo.scenarios import PlotSpec, load_scenario, parse_scenario, run_scenario
from tests.test_scenarios import GAME, SHIPPED
from tests.conftest import per_test_under_mutation

TINY = {"game": GAME, "seed": 5, "trials": 300}


@pytest.fixture(scope=per_test_under_mutation)
def compared():
    sc = parse_scenario(
        {
            **TINY,
            "metrics": ["win", "heads"],
            "grid": {"flips": [1, 2, 3, 4], "need": [1, 2, 3, 4], "tags": [[], ["red"]]},
            "variants": {"official": {}, "loaded": {"builtin": "loaded"}, "same": {}},
        }
    )
    result = run_scenario(sc, jobs=1)
    return sc, all_tables(result)


def test_colour_maps_follow_meaning(compared):
    sc, _ = compared
    cmap, norm = plots.colour_map(sc, "win", np.array([0.1, 0.9]))
    assert cmap.name.startswith(plots.DIVERGING) and norm.vcenter == 0.5 and (norm.vmin, norm.vmax) == (0, 1)
    cmap, norm = plots.colour_map(sc, "win", np.array([-0.1, 0.3]), difference=True)
    assert norm.vcenter == 0 and norm.vmin == -0.3 and norm.vmax == 0.3
    cmap, norm = plots.colour_map(sc, "heads", np.array([0.5, 2.0]))
    assert cmap.name.startswith(plots.MEANS) and (norm.vmin, norm.vmax) == (0.5, 2.0)
    assert len(set(plots.PALETTE)) == len(plots.PALETTE) and len(set(plots.MARKERS)) == len(plots.MARKERS)
    assert not {"#ff0000", "#00ff00", "#008000"} & {c.lower() for c in plots.PALETTE}


def test_rates_use_a_sequential_map():
    import dataclasses

    from montecarlo.games.base import Metric
    from tests.test_scenarios import COIN

    tie = dataclasses.replace(COIN, metrics=(*COIN.metrics, Metric("tie", "probability", "a tie (rare)")))
    sc = parse_scenario({**TINY, "game": dataclasses.replace(GAME, questions={"flip": tie})})
    cmap, norm = plots.colour_map(sc, "tie", np.array([0.01, 0.2]))
    assert cmap.name.startswith(plots.SEQUENTIAL) and (norm.vmin, norm.vmax) == (0.0, 0.2)
    assert plots.words(sc, "tie") == "chance: a tie"


def test_words_on_axes_and_coinciding_curves_named(compared):
    sc, tables = compared
    fig = plots.draw(
        PlotSpec("lines", "heads", x="flips", hue="need", variant="official"), sc, tables["results"], None
    )
    ax = fig.axes[0]
    assert ax.get_ylabel() == "number of heads" and "Number of heads" in fig.get_suptitle()
    labels = ax.get_legend().get_texts()
    # heads does not depend on need: the four curves are one, named as coinciding
    assert [t.get_text() for t in labels][0] == "need = 1 / 2 / 3 / 4 (coinciding)"
    fig = plots.draw(
        PlotSpec("lines", "win", x="flips", hue="need", variant="official"), sc, tables["results"], None
    )
    lines = [
        line for line in fig.axes[0].get_lines() if line.get_label() != "exact" and line.get_marker() != "."
    ]
    assert len({to_hex(line.get_color()) for line in lines}) == len(lines) == 4
    assert len({line.get_marker() for line in lines}) == 4
    assert fig.axes[0].get_ylabel() == "chance: at least `need` heads".replace("`", "")


def test_forest_shows_the_largest_effects_on_one_scale(compared, monkeypatch):
    sc, tables = compared
    monkeypatch.setattr(plots, "MAX_FOREST_ROWS", 5)
    fig = plots.draw(PlotSpec("forest", "win", facet="tags"), sc, None, tables["comparison"])
    left, right = [ax for ax in fig.axes if ax.get_visible()][:2]
    assert len(left.get_yticks()) == 5 and left.get_shared_x_axes().joined(left, right)
    assert "the 5 rows with the largest significant effects (of 10)" in " ".join(fig.get_suptitle().split())
    assert "Chance: at least need heads" in fig.get_suptitle()
    legend = [t.get_text() for t in right.get_legend().get_texts()]
    assert legend == ["loaded"]  # `same` is identical everywhere: no rows, not in the legend
    comp = tables["comparison"].filter(tables["comparison"]["variant"] == "same")
    assert plots.draw(PlotSpec("forest", "win"), sc, None, comp) is None  # nothing tested: no plot


@pytest.mark.parametrize("status, why", [
    ("identical", "every variant is identical to official there, trial by trial"),
    ("not applicable", "the metric does not apply there"),
])
def test_a_forest_draws_no_empty_panel_and_says_why_in_its_title(compared, status, why):
    """The battle matrix's forest had three empty panels, each saying the same thing in a box:
    a facet value with no row drawn gets no panel, and one line of the title instead."""
    sc, tables = compared
    red = pl.col("tags") == "red"
    comparison = tables["comparison"].with_columns(
        pl.when(red).then(pl.lit(status)).otherwise(pl.col("status")).alias("status"),
        pl.when(red).then(None).otherwise(pl.col("significant")).alias("significant"),
    )
    fig = plots.draw(PlotSpec("forest", "win", facet="tags"), sc, None, comparison)
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_yticks().size]
    assert [ax.get_title() for ax in panels] == ["tags = none"]
    assert f"no panel for tags = red: {why}" in " ".join(fig.get_suptitle().split())
    assert "no panel" not in plots.draw(
        PlotSpec("forest", "win", facet="tags"), sc, None, tables["comparison"]
    ).get_suptitle()


def test_a_forest_says_which_variants_it_draws_no_marker_of(compared):
    """tie-variants' forest left out a variant identical to the baseline, and the markers of
    another where it was identical, with no word: the title says both."""
    sc, tables = compared
    fig = plots.draw(PlotSpec("forest", "win", facet="tags"), sc, None, tables["comparison"])
    title = " ".join(fig.get_suptitle().split())
    assert "not drawn: same: identical to official in every trial" in title, title
    assert "no marker" not in title  # `loaded` differs in every setup drawn
    red = (pl.col("variant") == "loaded") & (pl.col("tags") == "red") & (pl.col("flips") == 1)
    gaps = tables["comparison"].with_columns(
        pl.when(red).then(pl.lit("identical")).otherwise(pl.col("status")).alias("status"))
    fig = plots.draw(PlotSpec("forest", "win", facet="tags"), sc, None, gaps)
    title = " ".join(fig.get_suptitle().split())
    assert "no marker: no difference from official tested there (identical, or n/a)" in title, title


def test_a_heat_map_says_what_a_cell_written_1_minus_x_means(compared):
    """The battle matrix wrote "1−3.4e-9" in a cell and nowhere said what it means."""
    sc, tables = compared
    spec = PlotSpec("heatmap", "win", x="need", y="flips", variant="official", where={"tags": "red"})
    results = tables["results"]
    assert "short of 1" not in plots.draw(spec, sc, results, None).get_suptitle()
    close = results.with_columns(
        pl.when(pl.col("exact") > 0.9).then(1 - 4.6e-8).otherwise(pl.col("exact")).alias("exact"))
    fig = plots.draw(spec, sc, close, None)
    assert "1−4.6e-8" in [t.get_text() for t in fig.axes[0].texts]
    assert "(1−3e-9: short of 1 by 3e-9)" in fig.get_suptitle()


def test_forest_breaks_ties_in_effect_size_by_grid_order(compared, monkeypatch):
    """Equal effects: the rows drawn are the first in grid order, the same on every run (polars'
    group_by alone returns its groups in a different order each time)."""
    sc, tables = compared
    monkeypatch.setattr(plots, "MAX_FOREST_ROWS", 5)
    tie = {"difference": 0.1, "ci_low": 0.05, "ci_high": 0.15}
    is_tested = pl.col("status") == "tested"
    comparison = tables["comparison"].with_columns(
        *(pl.when(is_tested).then(v).otherwise(pl.col(k)).alias(k) for k, v in tie.items()),
        is_tested.alias("significant"),
    )
    tested = comparison.filter(pl.col("status") == "tested", pl.col("metric") == "win")
    setups = (f"flips = {f}, need = {n}" for f, n in zip(tested["flips"], tested["need"]))
    first = list(dict.fromkeys(setups))[:5]
    for _ in range(5):
        fig = plots.draw(PlotSpec("forest", "win", facet="tags"), sc, None, comparison)
        left = [ax for ax in fig.axes if ax.get_visible()][0]
        assert [t.get_text() for t in left.get_yticklabels()] == first


def test_difference_heat_map_is_centred_at_zero(compared):
    sc, tables = compared
    spec = PlotSpec("heatmap", "win", x="need", y="flips", facet="tags")
    fig = plots.difference_heatmap(spec, sc, tables["comparison"])
    image = fig.axes[0].get_images()[0]
    assert image.norm.vcenter == 0 and image.norm.vmin == -image.norm.vmax
    texts = [t.get_text() for t in fig.axes[0].texts]
    # an identical cell and a significant one
    assert "=" in texts and any(t.startswith("+") and t.endswith("*") for t in texts)
    assert "difference from official" in fig.get_suptitle()
    titles = [ax.get_title() for ax in fig.axes if ax.get_images()]
    # `same` changes nothing: no panel of its own
    assert titles == ["loaded − official · tags = none", "loaded − official · tags = red"]


# ---------------------------------------------------------------- legends are true in every panel


def assert_legend_true(fig, results):
    """Each legend entry of ``fig`` is shown, and the series it names together have the same
    estimates in every panel, read from the results table the plot was drawn from."""
    entries = plots.legend_entries(fig)
    shown = {t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()}
    for entry in entries:
        assert entry.label is None or entry.label in shown, (entry.label, shown)
        for panel in entry.panels:
            curves = []
            drawn = results.filter(
                pl.col("metric").is_in(entry.metrics), pl.col("variant").is_in(entry.variants)
            )
            for series in entry.series:
                df = drawn
                for field, value in {**panel, **series}.items():
                    df = df.filter(pl.col(field) == value)
                assert df.height, (entry.label, panel, series)  # the conditions name drawn rows
                curves.append(dict(zip(df[entry.along].to_list(), df["estimate"].to_list())))
            assert all(c == curves[0] for c in curves[1:]), f"{entry.label!r} is false at {panel}"
    labels = [e.label for e in entries if e.label is not None]
    assert len(labels) == len(set(labels))  # no series named twice


def legend_of(fig):
    """(legend texts, the facet value of the panel that holds the legend)."""
    ax = next(ax for ax in fig.axes if ax.get_legend())
    return [t.get_text() for t in ax.get_legend().get_texts()], int(ax.get_title().split("=")[-1])


def test_a_legend_names_series_together_only_where_they_coincide_in_every_panel(compared):
    sc, tables = compared
    results = tables["results"]
    spec = PlotSpec("bars", "win", x="flips", facet="need", where={"tags": "none"})
    fig = plots.draw(spec, sc, results, None)
    assert_legend_true(fig, results)
    legend, need = legend_of(fig)
    assert legend[:2] == ["official = same (coinciding)", "loaded"]  # `same` copies official everywhere
    # `loaded` made equal to official in the panel that holds the legend only: still its own entry
    panel = (pl.col("variant") == "official", pl.col("need") == need, pl.col("metric") == "win")
    official = results.filter(*panel)
    keys = ["variant", "flips", "need", "tags", "metric"]
    doctored = results.update(official.with_columns(pl.lit("loaded").alias("variant")), on=keys)
    fig = plots.draw(spec, sc, doctored, None)
    assert_legend_true(fig, doctored)
    assert legend_of(fig) == (legend, need)
    # and where they coincide in every panel, the claim is made and holds
    copy = results.filter(pl.col("variant") == "official").with_columns(pl.lit("loaded").alias("variant"))
    everywhere = results.update(copy, on=keys)
    fig = plots.draw(spec, sc, everywhere, None)
    assert_legend_true(fig, everywhere)
    assert legend_of(fig)[0][0] == "official = loaded = same (coinciding)"


def test_a_false_claim_is_caught(compared):
    """The check itself can fail: a claim of coinciding series that differ."""
    sc, tables = compared
    fig = plots.draw(PlotSpec("bars", "win", x="flips", facet="need"), sc, tables["results"], None)
    entry = next(e for e in plots.legend_entries(fig) if e.coinciding)
    false = dataclasses.replace(entry, series=(*entry.series, {"variant": "loaded"}))
    plots._LEGENDS[fig] = (false,)
    with pytest.raises(AssertionError, match="is false"):
        assert_legend_true(fig, tables["results"])


def _plotted(path):
    return any(spec.kind in ("lines", "bars") for spec in plots.plan(load_scenario(path)))


LEGEND_SCENARIOS = [p for p in SHIPPED if _plotted(p)]


@pytest.mark.parametrize("path", LEGEND_SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_shipped_report_plot_legend_is_true(path):
    """Every lines and bars plot of every shipped scenario, at 100 trials a setup (a few seconds
    in all): each legend entry holds in every panel against the table it was drawn from."""
    sc = dataclasses.replace(load_scenario(path), trials=100, precision=None, max_trials=None, chunk_size=100)
    tables = all_tables(run_scenario(sc, jobs=1))
    for spec in plots.plan(sc):
        if spec.kind in ("lines", "bars"):
            assert_legend_true(plots.draw(spec, sc, tables["results"], None), tables["results"])


def test_coinciding_bars_show_every_colour_in_their_legend_entry_and_zero_bars_say_so(compared):
    """Coinciding bars stand side by side in their own colours, so their one entry shows each
    colour; a bar of height 0 is drawn as nothing, so it reads "0" (its interval need not be 0:
    a Wilson upper bound never is)."""
    sc, tables = compared
    results = tables["results"]
    spec = PlotSpec("bars", "win", x="flips", facet="need", where={"tags": "none"})
    fig = plots.draw(spec, sc, results, None)
    ax = next(ax for ax in fig.axes if ax.get_legend())
    from matplotlib.offsetbox import DrawingArea
    from matplotlib.patches import Rectangle

    areas = ax.get_legend().findobj(lambda a: isinstance(a, DrawingArea))  # one per entry, in order
    first = areas[0].get_children()  # official = same (coinciding): two swatches
    colours = {tuple(p.get_facecolor()) for p in first if isinstance(p, Rectangle)}
    assert len(colours) == 2, colours
    def zeros(fig):
        return sum(t.get_text() == "0" for ax in fig.axes for t in ax.texts)

    drawn = results.filter(pl.col("metric") == "win", pl.col("tags") == "none")
    zero = results.with_columns(
        *(pl.when(pl.col("variant") == "loaded").then(v).otherwise(pl.col(c)).alias(c)
          for c, v in (("estimate", 0.0), ("ci_low", 0.0), ("ci_high", 0.012)))
    )
    fig = plots.draw(spec, sc, zero, None)
    others = drawn.filter(pl.col("variant") != "loaded", pl.col("estimate") == 0).height
    assert zeros(fig) == drawn.filter(pl.col("variant") == "loaded").height + others
    fig = plots.draw(spec, sc, results, None)  # one "0" a bar of estimate 0 (here: need > flips)
    assert zeros(fig) == drawn.filter(pl.col("estimate") == 0).height > 0


def test_labelled_grid_values_are_what_a_plot_shows():
    """[labels]: the bars of a labelled field are named by their labels, where a plot's ``where``
    names the value itself."""
    spec = {"game": GAME, "seed": 1, "trials": 500, "metrics": ["win"],
            "grid": {"flips": [1, 2, 3], "need": [1, 2]},
            "labels": {"flips": {"1": "one flip", "3": "three"}},
            "plots": [{"kind": "bars", "metric": "win", "x": "flips", "where": {"need": 2}}]}
    sc = parse_scenario(spec)
    result = run_scenario(sc, jobs=1)
    tables = all_tables(result)
    fig = plots.draw(sc.plots[0], sc, tables["results"], tables.get("comparison"))
    ticks = [t.get_text() for ax in fig.axes for t in ax.get_xticklabels()]
    assert ticks == ["one flip", "2", "three"], ticks


def test_an_empty_plots_list_asks_for_none_but_a_comparisons_forest():
    """`plots = []` gave the default plots: there was no way to ask for none."""
    grid = {"flips": [1, 2, 3], "need": [1, 2]}
    unsaid = parse_scenario({**TINY, "grid": grid})
    assert unsaid.plots is None and plots.plan(unsaid)  # no key: the defaults
    none = parse_scenario({**TINY, "grid": grid, "plots": []})
    assert none.plots == () and plots.plan(none) == []
    compared = parse_scenario({**TINY, "grid": grid, "plots": [],
                               "variants": {"official": {}, "loaded": {"builtin": ["loaded"]}}})
    assert [spec.kind for spec in plots.plan(compared)] == ["forest"]


def test_a_comparisons_distribution_has_a_panel_per_value_of_a_short_field():
    """A compare over settlement 0..2 drew its distributions at settlement = 1 alone (the middle
    value), where no variant differed: each value of a short field now has its panel."""
    variants = {"official": {}, "loaded": {"builtin": "loaded"}}
    sc = parse_scenario({**TINY, "metrics": ["total"], "grid": {"flips": [1, 2, 3], "need": [1, 2]},
                         "variants": variants})
    bars = [spec for spec in plots.plan(sc) if spec.kind == "bars"]
    assert [(spec.metric, spec.facet, spec.hue) for spec in bars] == [("total", "need", None)]
    fig = plots.draw(bars[0], sc, all_tables(run_scenario(sc, jobs=1))["results"], None)
    assert sorted(ax.get_title() for ax in fig.axes if ax.get_visible()) == ["need = 1", "need = 2"]
    alone = parse_scenario({**TINY, "metrics": ["total"], "grid": {"flips": [1, 2, 3], "need": [1, 2]}})
    assert [(s.facet, s.hue) for s in plots.plan(alone) if s.kind == "bars"] == [(None, "need")]


# ---------------------------------------------------------------- one look and one wording in a report


def _marked(ax):
    """(colour, marker) of the data lines of ``ax`` that carry a series' marker."""
    return {(to_hex(line.get_color()), line.get_marker()) for line in ax.get_lines()
            if line.get_marker() in plots.MARKERS}


def test_a_variant_has_one_colour_in_every_plot(compared):
    """A variant's colour, marker and hatch are its place among the report's variants, baseline
    first, in every plot: the forest (which draws no baseline) did not shift them by one."""
    from matplotlib.container import BarContainer

    sc, tables = compared
    results = tables["results"]
    loaded = (to_hex(plots.PALETTE[1]), plots.MARKERS[1])  # official, loaded, same
    forest = plots.draw(PlotSpec("forest", "win", facet="tags"), sc, None, tables["comparison"])
    assert set().union(*(_marked(ax) for ax in forest.axes)) == {loaded}  # `same`: identical, not drawn
    held = {"need": 1, "tags": "none"}
    lines = plots.draw(PlotSpec("lines", "win", x="flips", where=held), sc, results, None)
    drawn = [line for line in lines.axes[0].get_lines() if line.get_label() == "loaded"]
    assert [(to_hex(line.get_color()), line.get_marker()) for line in drawn] == [loaded]
    for variant in (None, "loaded"):  # every variant, or loaded alone
        bars = plots.draw(PlotSpec("bars", "win", x="flips", where=held, variant=variant), sc, results, None)
        boxes = [c for c in bars.axes[0].containers if isinstance(c, BarContainer)]
        box = next(c for c in boxes if c.get_label() == "loaded") if variant is None else boxes[0]
        assert to_hex(box.patches[0].get_facecolor()) == loaded[0]
        assert box.patches[0].get_hatch() == plots.HATCHES[1]


def _renamed(sc, tables, old, new):
    """The scenario and tables with grid field ``old`` called ``new`` (a name with an underscore)."""
    grid = {(new if f == old else f): v for f, v in sc.grid.items()}
    renamed = {k: tables[k].rename({old: new}) for k in ("results", "comparison")}
    return dataclasses.replace(sc, grid=grid), renamed


def test_plot_text_names_fields_in_words(compared):
    """Legends, panel titles, forest rows and held values name a field in words, as the report's
    text shows a setup ("coin flips = 2"), never by its code name ("coin_flips=2")."""
    sc, tables = _renamed(*compared, "flips", "coin_flips")
    results, comparison = tables["results"], tables["comparison"]
    spec = PlotSpec("lines", "heads", x="need", hue="coin_flips", facet="tags", variant="official")
    fig = plots.draw(spec, sc, results, None)
    legend = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    assert {"coin flips = 1", "coin flips = 4"} <= set(legend), legend
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == ["tags = none", "tags = red"]
    fig = plots.draw(PlotSpec("forest", "win", facet="tags"), sc, None, comparison)
    rows = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert rows and all(r.startswith("coin flips = ") and ", need = " in r for r in rows), rows
    spec = PlotSpec("bars", "win", x="need", where={"coin_flips": 2, "tags": []})
    fig = plots.draw(spec, sc, results, None)
    assert fig.get_suptitle().endswith("\nat coin flips = 2, tags = none")
    assert fig.axes[0].get_title() == "" and fig.axes[0].get_xlabel() == "need"


def test_held_values_and_a_single_variant_are_named_in_the_title(compared):
    """A held value reads as its label, as in the panels and the forest ("tags = red tag", not
    "tags=red"); a plot of one variant of several says which; a scenario of one variant does not."""
    spec = {"game": GAME, "seed": 1, "trials": 200, "metrics": ["win"],
            "grid": {"flips": [1, 2, 3], "need": [1, 2], "tags": [[], ["red"]]},
            "labels": {"need": {"2": "two heads"}, "tags": {"red": "red tag"}},
            "plots": [{"kind": "bars", "metric": "win", "x": "flips", "variant": "official"}]}
    sc = parse_scenario(spec)
    tables = all_tables(run_scenario(sc, jobs=1))
    title = plots.draw(sc.plots[0], sc, tables["results"], None).get_suptitle()
    assert title.endswith("\nat need = two heads, tags = red tag") and "(official)" not in title
    sc, tables = compared  # official, loaded and same
    for kind, extra in (("bars", {}), ("lines", {}), ("heatmap", {"y": "need"})):
        spec = PlotSpec(kind, "win", x="flips", variant="loaded", where={"tags": "none"}, **extra)
        first = plots.draw(spec, sc, tables["results"], None).get_suptitle().split("\n")[0]
        assert first.endswith(" (loaded)"), first
    every = plots.draw(PlotSpec("lines", "win", x="flips"), sc, tables["results"], None).get_suptitle()
    assert "(official)" not in every and "(loaded)" not in every


def test_exact_values_are_dashes_within_their_bars(compared):
    """An exact value is a dash across its own bar, never wider (a 32-point marker joined the
    dashes of neighbouring bars), and its legend line ends before its word."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection
    from matplotlib.container import BarContainer

    sc, tables = compared
    held = {"need": 1, "tags": "none"}
    for variant in ("official", None):  # one series (wide bars), three series (narrow bars)
        spec = PlotSpec("bars", "win", x="flips", where=held, variant=variant)
        fig = plots.draw(spec, sc, tables["results"], None)
        ax = fig.axes[0]
        bars = [p for c in ax.containers if isinstance(c, BarContainer) for p in c.patches]
        exact = [a for a in ax.get_children() if a.get_label() == "exact"]
        assert len(exact) == 1 and isinstance(exact[0], LineCollection), exact  # one legend entry
        dashes = [s for c in ax.collections if isinstance(c, LineCollection) for s in c.get_segments()
                  if s[0, 1] == s[-1, 1] and s[0, 0] != s[-1, 0]]  # level: error bars stand upright
        spans = sorted((float(s[:, 0].min()), float(s[:, 0].max())) for s in dashes)
        assert len(spans) == len(bars) == 4 * (1 if variant else 3)
        for (left, right), bar in zip(spans, sorted(bars, key=lambda b: b.get_x())):
            assert bar.get_x() < left < right < bar.get_x() + bar.get_width()
        FigureCanvasAgg(fig).draw()  # lay the legend out
        renderer = fig.canvas.get_renderer()
        legend = ax.get_legend()
        texts = [t.get_text() for t in legend.get_texts()]
        handle, word = legend.legend_handles[texts.index("exact")], legend.get_texts()[texts.index("exact")]
        assert handle.get_window_extent(renderer).x1 < word.get_window_extent(renderer).x0


def _luminance(colour):
    from matplotlib.colors import to_rgb

    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a, b):
    la, lb = sorted((_luminance(a), _luminance(b)))
    return (lb + 0.05) / (la + 0.05)


def test_heat_map_numbers_take_the_colour_of_better_contrast(compared):
    """Black or white by WCAG contrast against the cell (white on viridis teal was 2.9:1): at
    least 4.5:1 in every cell, which one of the two always reaches."""
    sc, tables = compared
    # 16 estimates spread over each colour map, the teal and the mid orange included
    spread = ((pl.col("flips") - 1) * 4 + pl.col("need") - 1) / 15
    results = tables["results"].with_columns(spread.alias("estimate"))
    checked = 0
    for metric in ("heads", "win"):  # viridis (means), PuOr (win chances)
        spec = PlotSpec("heatmap", metric, x="need", y="flips", facet="tags", variant="loaded")
        fig = plots.draw(spec, sc, results, None)
        for ax in (ax for ax in fig.axes if ax.get_images()):
            image = ax.get_images()[0]
            data = image.get_array()
            for t in ax.texts:
                if t.get_text() == "n/a":
                    continue
                j, i = t.get_position()
                cell = image.cmap(image.norm(data[int(i), int(j)]))
                other = "white" if _luminance(t.get_color()) < 0.5 else "black"
                best = max(4.5, _contrast(cell, other))
                assert _contrast(cell, t.get_color()) >= best, (t.get_text(), cell)
                checked += 1
    assert checked > 20


def test_forest_rows_say_how_many_are_significant_and_rank_the_largest(compared, monkeypatch):
    """"8 of 12 rows show a significant difference" (not "8 rows with a significant difference of
    12"); when only the largest effects fit, they are drawn largest first, as the title says."""
    sc, tables = compared
    win = pl.col("metric") == "win"
    comparison = tables["comparison"].with_columns(  # no row of one flip significant
        (pl.col("significant") & (pl.col("flips") != 1)).alias("significant")
    )
    tested = comparison.filter(win, pl.col("status") == "tested")
    rows = tested.select("flips", "need").unique()
    significant = tested.filter(pl.col("significant")).select("flips", "need").unique()
    assert 0 < significant.height < rows.height
    fig = plots.draw(PlotSpec("forest", "win", facet="tags"), sc, None, comparison)
    title = " ".join(fig.get_suptitle().split())
    others = rows.height - significant.height
    said = f"{significant.height} of {rows.height} rows show a significant difference; the other {others} "
    assert said + ("is not drawn" if others == 1 else "are not drawn") in title, title
    monkeypatch.setattr(plots, "MAX_FOREST_ROWS", 3)
    fig = plots.draw(PlotSpec("forest", "win", facet="tags"), sc, None, comparison)
    assert "largest first" in " ".join(fig.get_suptitle().split())
    size = (tested.filter(pl.col("significant")).group_by("flips", "need")
            .agg(pl.col("difference").abs().max().alias("size")).sort("size", descending=True))
    drawn = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert drawn == [f"flips = {f}, need = {n}" for f, n in size.select("flips", "need").head(3).rows()]


def test_setups_wrap_at_spaces_only():
    """Feyd-Rautha is one name: a forest row or title never breaks it at its hyphen, nor a
    field from its value ("objective =" above "win chance")."""
    setup = "attacker = 2 regular, 1 sardaukar, Thufir Hawat, Feyd-Rautha, objective = win chance"
    for width in range(20, 60):
        lines = plots._wrap_parts(setup, width).split("\n")
        assert any("Feyd-Rautha" in line for line in lines), (width, lines)
        assert not any(line.endswith("=") or line.startswith("=") for line in lines), (width, lines)


def test_a_significant_difference_never_reads_as_zero(compared):
    """A significant difference of 0.003 in a mean is "+0.003*", not "0.00*" (as if none)."""
    sc, tables = compared
    tested = pl.col("status") == "tested"
    comparison = tables["comparison"].with_columns(
        *(pl.when(tested).then(v).otherwise(pl.col(k)).alias(k)
          for k, v in (("difference", 0.003), ("ci_low", 0.001), ("ci_high", 0.005))),
        tested.alias("significant"),
    )
    spec = PlotSpec("heatmap", "heads", x="need", y="flips", facet="tags")
    fig = plots.difference_heatmap(spec, sc, comparison)
    starred = [t.get_text() for ax in fig.axes for t in ax.texts if t.get_text().endswith("*")]
    assert starred and all(float(t[:-1]) != 0 for t in starred), starred
    assert "+0.003*" in starred


def test_a_difference_panel_with_no_difference_is_left_out(compared):
    """A panel of the difference heat map where every cell is "=" (identical to the baseline)
    says nothing: it is left out, and the title says so; with no panel left, no figure."""
    sc, tables = compared
    red = (pl.col("variant") == "loaded") & (pl.col("tags") == "red")
    comparison = tables["comparison"].with_columns(  # loaded changes nothing with a red tag
        pl.when(red).then(0.0).otherwise(pl.col("difference")).alias("difference"),
        pl.when(red).then(pl.lit("identical")).otherwise(pl.col("status")).alias("status"),
        pl.when(red).then(None).otherwise(pl.col("significant")).alias("significant"),
    )
    spec = PlotSpec("heatmap", "win", x="need", y="flips", facet="tags")
    fig = plots.difference_heatmap(spec, sc, comparison)
    titles = [ax.get_title() for ax in fig.axes if ax.get_images()]
    assert titles == ["loaded − official · tags = none"]
    assert "left out" in " ".join(fig.get_suptitle().split())
    held = PlotSpec("heatmap", "win", x="need", y="flips", where={"tags": "red"})
    assert plots.difference_heatmap(held, sc, comparison) is None


def test_the_heat_maps_colours_follow_the_values_not_the_metrics_name():
    """A chance on both sides of 0.5 is centred there whatever it is called ("survive", a seat's
    first place); one that stays below is a rate from 0, even with "win" in its name."""
    from montecarlo.games.base import Metric
    from tests.test_scenarios import COIN

    extra = (Metric("survive", "probability", "the coin survives"),
             Metric("winner_tie", "probability", "a tie"))
    question = dataclasses.replace(COIN, metrics=(*COIN.metrics, *extra))
    sc = parse_scenario({**TINY, "game": dataclasses.replace(GAME, questions={"flip": question})})
    cmap, norm = plots.colour_map(sc, "survive", np.array([0.2, 0.9]))
    assert cmap.name.startswith(plots.DIVERGING) and norm.vcenter == 0.5
    cmap, norm = plots.colour_map(sc, "winner_tie", np.array([0.01, 0.2]))
    assert cmap.name.startswith(plots.SEQUENTIAL) and (norm.vmin, norm.vmax) == (0.0, 0.2)


def _inside_parentheses(text: str, part: str) -> bool:
    """Whether ``part`` in ``text`` stands inside another pair of parentheses (or an open one)."""
    at = text.index(part)
    return text[:at].count("(") > text[:at].count(")")


def test_a_plots_variant_never_lands_inside_the_titles_own_parentheses(compared):
    """A title broken inside its own "( … )" and a metric whose remark holds a "(" put the variant
    inside a pair ("(3 regulars (loaded) + Naib)", "Units lost (an elite (loaded) …")."""
    from montecarlo.games.base import Metric
    from tests.test_scenarios import COIN

    sc, tables = compared
    spec = PlotSpec("bars", "win", x="flips", variant="loaded", title="Win chance (3 regulars\n+ Naib)")
    title = " ".join(plots.draw(spec, sc, tables["results"], None).get_suptitle().split())
    assert title.startswith("Win chance (3 regulars + Naib) (loaded)"), title
    nested = Metric("win", "probability", "at least need heads (an elite (veteran) counts twice)")
    question = dataclasses.replace(COIN, metrics=(nested, *COIN.metrics[1:]))
    sc = dataclasses.replace(sc, question=question)
    spec = PlotSpec("bars", "win", x="flips", variant="loaded")
    title = " ".join(plots.draw(spec, sc, tables["results"], None).get_suptitle().split())
    assert "(loaded)" in title and not _inside_parentheses(title, "(loaded)"), title


def test_no_figure_is_wider_than_the_page(compared):
    """A wider PNG is shrunk on the page, its text with it: a heat map of more panels than fit a
    line wraps them (it kept them side by side, 16.5 inches), a bar chart of many bars is capped."""
    sc, tables = compared
    wide = [
        PlotSpec("heatmap", "win", x="need", y="tags", facet="flips"),  # 3 variants x 4 flips
        PlotSpec("bars", "win", x="need", hue="flips"),  # 4 x 4 bars x 3 variants in one panel
    ]
    for spec in wide:
        fig = plots.draw(spec, sc, tables["results"], None)
        assert fig.get_figwidth() <= plots.PAGE_WIDTH, (spec.kind, fig.get_figwidth())
    fig = plots.difference_heatmap(wide[0], sc, tables["comparison"])
    assert fig.get_figwidth() <= plots.PAGE_WIDTH


@pytest.mark.parametrize("most,numbered", [(4, True), (3, False)])
def test_a_heat_map_of_many_columns_prints_no_numbers_and_says_so(compared, monkeypatch, most, numbered):
    """A Risk grid of 100 x 100 setups printed 10,000 numbers over each other; past
    MOST_COLUMNS_NUMBERED columns the cells hold colour only, and the title says where the
    numbers are. The grid here has 4 columns."""
    sc, tables = compared
    monkeypatch.setattr(plots, "MOST_COLUMNS_NUMBERED", most)
    spec = PlotSpec("heatmap", "win", x="need", y="flips", where={"tags": "none"}, variant="official")
    fig = plots.draw(spec, sc, tables["results"], None)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    note = "(no numbers in the cells: 4 columns; the report's tables give them)"
    assert (len(texts) == 16) == numbered and (texts == []) != numbered
    assert fig.get_suptitle().endswith(note) != numbered


def test_a_heat_maps_cells_show_the_exact_value_where_the_setup_has_one(compared):
    """The duel matrix printed 0.499 for an even duel whose exact value, 1/2, the Findings quote:
    a cell shows the exact value where there is one, the estimate elsewhere (marked ≈), and the
    title says which; a difference heat map still shows the simulated differences."""
    sc, tables = compared
    spec = PlotSpec("heatmap", "win", x="need", y="flips", variant="official", where={"tags": "red"})
    results = tables["results"]
    exact = results.filter(pl.col("metric") == "win", pl.col("variant") == "official",
                           pl.col("tags") == "red")
    fig = plots.draw(spec, sc, results, None)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == [plots._cell_number(v, 3, False) for v in exact.sort("flips", "need")["exact"]]
    assert texts != [plots._cell_number(v, 3, False) for v in exact.sort("flips", "need")["estimate"]]
    assert "\n(exact values)\n" in fig.get_suptitle(), fig.get_suptitle()
    image = fig.axes[0].images[0]  # coloured by the values shown: 0 to 0.94, a diverging map at 0.5
    cmap, norm = plots.colour_map(sc, "win", exact["exact"].to_numpy())
    assert image.cmap.name == cmap.name and image.norm.vcenter == norm.vcenter == 0.5
    heads = dataclasses.replace(spec, metric="heads")  # a mean: coloured over the range shown
    shown = results.filter(pl.col("metric") == "heads", pl.col("variant") == "official",
                           pl.col("tags") == "red")
    norm = plots.draw(heads, sc, results, None).axes[0].images[0].norm
    expected = plots.colour_map(sc, "heads", shown["exact"].to_numpy())[1]
    assert (norm.vmin, norm.vmax) == (expected.vmin, expected.vmax) and expected.vmin < expected.vmax
    some = results.with_columns(  # no exact value at 4 flips: those cells show the estimates
        pl.when(pl.col("flips") == 4).then(None).otherwise(pl.col("exact")).alias("exact"))
    fig = plots.draw(spec, sc, some, None)
    texts = [t.get_text() for t in fig.axes[0].texts]
    ordered = exact.sort("flips", "need")
    both = [("≈" + plots._cell_number(e, 3, False)) if f == 4 else plots._cell_number(x, 3, False)
            for f, e, x in zip(ordered["flips"], ordered["estimate"], ordered["exact"])]
    assert texts == both and sum(t.startswith("≈") for t in texts) == 4  # the estimates say so
    assert "(exact values where known; ≈ a simulated estimate)" in " ".join(fig.get_suptitle().split())
    none = results.with_columns(pl.lit(None, dtype=pl.Float64).alias("exact"))
    assert "exact" not in plots.draw(spec, sc, none, None).get_suptitle()
