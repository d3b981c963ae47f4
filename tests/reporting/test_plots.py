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
    assert [t.get_text() for t in labels][0] == "need=1 = need=2 = need=3 = need=4 (coinciding)"
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
    first = list(dict.fromkeys(f"flips={f}, need={n}" for f, n in zip(tested["flips"], tested["need"])))[:5]
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
    assert titles == ["loaded − official · tags=none", "loaded − official · tags=red"]


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
    colour; a bar of height 0 (interval included) is drawn as nothing, so it reads "0"."""
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
    zero = results.with_columns(
        *(pl.when(pl.col("variant") == "loaded").then(0.0).otherwise(pl.col(c)).alias(c)
          for c in ("estimate", "ci_low", "ci_high"))
    )
    fig = plots.draw(spec, sc, zero, None)
    assert any(t.get_text() == "0" for ax in fig.axes for t in ax.texts)
    fig = plots.draw(spec, sc, results, None)
    assert not any(t.get_text() == "0" for ax in fig.axes for t in ax.texts)


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
