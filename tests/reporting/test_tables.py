"""Tables from scenario results: long form, Holm-corrected comparisons, matrices.

Runs the fake ``coin`` game of tests/test_scenarios.py once (small trials) and checks the
tables against its exact binomial answers.
"""

import math

import numpy as np
import polars as pl
import pytest

from montecarlo.engine import stats
from montecarlo.reporting.tables import (
    COMPARISON_COLUMNS,
    IDENTICAL,
    NOT_APPLICABLE,
    RESULT_COLUMNS,
    TESTED,
    all_tables,
    comparison_summary,
    comparison_table,
    exactly_different,
    fmt,
    holm_line,
    matrix_index,
    matrix_layout,
    metric_text,
    results_table,
    summary_line,
)
from montecarlo.scenarios import parse_scenario, run_scenario
from tests.test_scenarios import GAME
from tests.conftest import per_test_under_mutation

SCENARIO = {
    "game": GAME,
    "seed": 11,
    "trials": 3000,
    "grid": {"flips": [1, 2, 3], "need": [1, 2], "tags": [[], ["red", "blue"]]},
    "variants": {"official": {}, "same": {"overrides": {"bias": 0.5}}, "loaded": {"builtin": "loaded"}},
}


@pytest.fixture(scope=per_test_under_mutation)
def result():
    return run_scenario(parse_scenario(SCENARIO, default_name="coin-tables"), jobs=1)


@pytest.fixture(scope=per_test_under_mutation)
def tables(result):
    return all_tables(result)


def test_results_table_is_long_form_and_matches_exact(result):
    long = results_table(result)
    assert long.columns == ["flips", "need", "tags", *RESULT_COLUMNS]
    assert long.height == 12 * 3 * (2 + 6)  # setups x variants x reported metrics
    assert long["tags"].unique(maintain_order=True).to_list() == ["none", "red+blue"]
    assert long["flips"].dtype == pl.Int64 and set(long["trials"]) == {3000}
    assert long.select("estimate", "ci_low", "ci_high", "se", "exact").null_count().sum_horizontal()[0] == 0
    z = (long["estimate"] - long["exact"]).abs() / long["se"].clip(1e-12)
    assert z.max() <= 4.5, long.filter(z > 4.5)
    assert (long["ci_low"] <= long["estimate"]).all() and (long["estimate"] <= long["ci_high"]).all()


def test_comparison_table_pairs_holm_and_signs(result):
    comp = comparison_table(result)
    assert comp.columns == ["flips", "need", "tags", *COMPARISON_COLUMNS]
    assert comp.height == 12 * 2 * 8 and set(comp["baseline"]) == {"official"}
    same = comp.filter(pl.col("variant") == "same")
    # the same rules: identical by construction, not a test with p = 1
    assert (same["difference"] == 0).all() and (same["status"] == "identical").all()
    assert same["p_value"].null_count() == same.height and not same["significant"].any()
    win = comp.filter(pl.col("variant") == "loaded", pl.col("metric") == "win")
    matters = win.filter(pl.col("exact_difference") > 0.05)
    assert matters.height == 10 and matters["significant"].all() and (matters["ci_low"] > 0).all()
    impossible = win.filter(pl.col("need") > pl.col("flips"))
    assert (impossible["difference"] == 0).all() and (impossible["status"] == "identical").all()
    # Holm over the real tests only, exactly as the engine computes it
    tested = comp.filter(pl.col("status") == "tested")
    assert 0 < tested.height < comp.height
    assert tested["significant"].to_list() == stats.holm(tested["p_value"].to_list()).tolist()
    assert np.allclose(tested["p_holm"].to_numpy(), stats.holm_adjusted(tested["p_value"].to_list()))
    assert comp.filter(pl.col("status") != "tested")["p_holm"].null_count() == comp.height - tested.height
    z = (comp["difference"] - comp["exact_difference"]).abs() / comp["se"].clip(1e-12)
    assert z.max() <= 4.5
    assert (
        comparison_table(run_scenario(parse_scenario({"game": GAME, "seed": 1, "trials": 100}), jobs=1))
        is None
    )


def test_comparison_rows_hold_both_arms_their_trials_and_the_alpha_given(result):
    # also with "loaded" as the baseline: the arm after it ("official") differs from it
    scenario = parse_scenario(SCENARIO, default_name="coin-tables")
    loaded_first = run_scenario(scenario, jobs=1, baseline="loaded")
    keys = ["flips", "need", "tags", "metric"]
    for res, name in ((result, "official"), (loaded_first, "loaded")):
        long, comp = results_table(res), comparison_table(res)
        baseline = long.filter(pl.col("variant") == name).select(*keys, pl.col("estimate").alias("b"))
        arms = long.select(*keys, "variant", pl.col("estimate").alias("v"))
        rows = comp.join(baseline, on=keys).join(arms, on=[*keys, "variant"])
        assert rows.height == comp.height and set(rows["baseline"]) == {name}
        for column in ("b", "v", "baseline_estimate", "variant_estimate", "trials"):
            assert rows[column].null_count() == 0
        assert (rows["baseline_estimate"] == rows["b"]).all()
        assert (rows["variant_estimate"] == rows["v"]).all()
        assert ((rows["v"] - rows["b"] - rows["difference"]).abs() < 1e-12).all()
        assert set(comp["trials"]) == {3000}
    comp = comparison_table(result)
    identical = comp.filter(pl.col("status") == "identical")  # nothing tested: no verdict, not "false"
    assert identical.height and identical["significant"].null_count() == identical.height
    tested = pl.col("status") == "tested"
    strict = comparison_table(result, alpha=1e-9).filter(tested)
    assert strict["significant"].to_list() == stats.holm(strict["p_value"].to_list(), 1e-9).tolist()
    assert 0 < strict["significant"].sum() < comp.filter(tested)["significant"].sum()


def test_matrices_hold_numbers(tables):
    m = tables["matrix-win"]
    assert m.columns == ["tags", "variant", "flips", "need=1", "need=2"]
    assert m.height == 2 * 3 * 3
    assert m["variant"].to_list()[:3] == ["official"] * 3 and m["flips"].to_list()[:3] == [1, 2, 3]
    assert m["need=1"].dtype == pl.Float64 and m["need=2"].dtype == pl.Float64
    low, high = tables["matrix-win-ci_low"], tables["matrix-win-ci_high"]
    assert low.columns == m.columns and high.columns == m.columns
    for col in ("need=1", "need=2"):
        assert ((low[col] <= m[col]) & (m[col] <= high[col])).all()
    exact = tables["matrix-win-exact"]
    row = exact.filter(pl.col("variant") == "loaded", pl.col("flips") == 2, pl.col("tags") == "none")
    assert math.isclose(row["need=2"][0], 0.49) and math.isclose(row["need=1"][0], 0.91)
    diff, sig = tables["difference-win"], tables["difference-win-significant"]
    assert set(diff["variant"]) == {"same", "loaded"} and diff["need=1"].dtype == pl.Float64
    loaded = diff.filter(pl.col("variant") == "loaded")["need=1"]
    assert (loaded > 0).all() and sig.filter(pl.col("variant") == "loaded")["need=1"].all()
    assert not sig.filter(pl.col("variant") == "same")["need=1"].any()
    assert sig.columns == diff.columns == ["tags", "variant", "flips", "need=1", "need=2"]
    assert tables["difference-win-ci_low"].columns == diff.columns
    assert sig.select("tags", "variant", "flips").equals(diff.select("tags", "variant", "flips"))
    assert matrix_index(sig, ["flips", "need", "tags"]) == ["tags", "variant", "flips"]
    assert tables["difference-win-exact"].filter(pl.col("variant") == "loaded", pl.col("flips") == 1)[
        "need=1"
    ][0] == pytest.approx(0.2)
    dist = tables["distribution-total"]
    assert dist.columns == ["flips", "need", "tags", "variant", *(f"total={v}" for v in range(6))]
    sums = dist.select(pl.sum_horizontal(pl.col(r"^total=\d$")))
    assert np.allclose(sums.to_series().to_numpy(), 1.0)


def test_no_grid_and_single_field_layouts():
    one = run_scenario(
        parse_scenario(
            {
                "game": GAME,
                "seed": 2,
                "trials": 500,
                "metrics": ["win"],
                "variants": {"a": {}, "b": {"builtin": "loaded"}},
            }
        ),
        jobs=1,
    )
    m = all_tables(one)["matrix-win"]
    assert m.columns == ["a", "b"] and m.height == 1
    line = run_scenario(
        parse_scenario(
            {"game": GAME, "seed": 2, "trials": 500, "metrics": ["win"], "grid": {"flips": [1, 2]}}
        ),
        jobs=1,
    )
    assert all_tables(line)["matrix-win"].columns == ["flips", "official"]


def test_the_summary_takes_exact_differences_where_every_applicable_row_has_one():
    """Best play's objective, never below a fixed policy's, showed a minimum difference of -5.5e-4
    in the summary: the trials' noise. Where every applicable row of a variant's metric has an
    exact difference the summary's range is the exact one (rounding read as 0); else the trials'."""
    rows = {
        "variant": ["best"] * 5 + ["half"] * 2 + ["none"] + ["one"],
        "metric": ["win"] * 9,
        "status": [TESTED, TESTED, IDENTICAL, IDENTICAL, NOT_APPLICABLE]
        + [TESTED, TESTED, NOT_APPLICABLE, TESTED],
        "significant": [True, False, None, None, None, True, True, None, True],
        "difference": [0.30, -5.5e-4, 0.0, 0.0, None, 0.2, 0.4, None, 0.1],
        "exact_difference": [0.31, -1.1e-16, 2e-9, 1e-9, None, 0.25, None, None, 0.125],
    }
    summary = comparison_summary(pl.DataFrame(rows))
    assert summary["exact"].to_list() == [True, False, False, True]
    best, half, none, one = summary.iter_rows(named=True)
    assert (best["min_difference"], best["max_difference"]) == (0.0, 0.31)
    # 2e-9 is a difference, 1e-9 (EXACT_NOISE itself) rounding
    assert best["mean_difference"] == pytest.approx((0.31 + 0 + 2e-9 + 0) / 4, abs=1e-15)
    assert one["min_difference"] == one["max_difference"] == 0.125
    assert (half["min_difference"], half["mean_difference"], half["max_difference"]) == (
        0.2, pytest.approx(0.3), 0.4
    )
    assert none["min_difference"] is None and (none["tests"], none["not_applicable"]) == (0, 1)
    names = [f"v{499 - i}" for i in range(500)]
    many = pl.DataFrame({**{k: v[-1:] * 500 for k, v in rows.items()}, "variant": names})
    assert comparison_summary(many)["variant"].to_list() == many["variant"].to_list()  # the scenario's order


def test_summaries(result, tables):
    summary = comparison_summary(tables["comparison"])
    same = summary.filter(pl.col("variant") == "same")
    assert (same["significant"] == 0).all() and (same["tests"] == 0).all() and (same["identical"] == 12).all()
    line = summary_line(result, tables)
    assert line.startswith(f"12 setups × 3 variants, 3,000 trials each, seed {result.scenario.seed}; ")
    comp = tables["comparison"]
    tests = int((comp["status"] == "tested").sum())
    assert f"{int(comp['significant'].sum())} of {tests} tests significant (Holm)" in line
    assert f"{comp.height - tests} identical in every trial" in line


@pytest.mark.parametrize(
    "value, digits, signed, text",
    [
        (0.41234, 3, False, "0.412"),
        (4.8e-5, 4, False, "4.8e-5"),
        (-0.00004, 4, True, "-4.0e-5"),
        (-1e-15, 4, True, "0.0000"),
        (-0.00004999, 3, False, "-5.0e-5"),
        (0.0, 4, True, "0.0000"),
        (-0.2, 4, True, "-0.2000"),
        pytest.param(None, 3, False, "—", id="None-dash"),  # ASCII ids: mutmut passes them to pytest
        pytest.param(float("nan"), 3, False, "—", id="nan-dash"),
        (12_000, 3, False, "12,000"),
        (True, 3, False, "yes"),  # a significance column
        (False, 3, False, "no"),
        (0.001, 3, False, "0.001"),  # 1e-3 itself is written with decimals
        (4.8e-5, 4, True, "+4.8e-5"),
        (-0.004, 2, False, "0.00"),  # rounds to zero: no "-0.00"
        (0.9999, 3, False, "1.000"),
    ],
)
def test_numbers_for_people(value, digits, signed, text):
    assert fmt(value, digits, signed) == text
    assert not fmt(value, digits, signed).startswith("-0.0")


def coin_with_applicable():
    """The coin game whose ``win`` does not apply with one flip (like a seat a setup lacks)."""
    import dataclasses

    from tests.test_scenarios import COIN

    question = dataclasses.replace(
        COIN, applicable=lambda setup: ("win", "heads", "total") if setup.flips > 1 else ("heads", "total")
    )
    return dataclasses.replace(GAME, questions={"flip": question})


def test_metrics_that_do_not_apply_are_missing_not_numbers():
    sc = parse_scenario(
        {
            "game": coin_with_applicable(),
            "seed": 4,
            "trials": 2000,
            "metrics": ["win", "heads"],
            "grid": {"flips": [1, 2, 3]},
            "variants": {"official": {}, "loaded": {"builtin": "loaded"}},
        }
    )
    result = run_scenario(sc, jobs=1)
    tables = all_tables(result)
    long = tables["results"]
    missing = long.filter(pl.col("metric") == "win", pl.col("flips") == 1)
    assert missing.height == 2 and missing.select(
        "estimate", "ci_low", "ci_high", "se", "exact"
    ).null_count().row(0) == (2, 2, 2, 2, 2)
    assert long.filter(pl.col("metric") == "heads")["estimate"].null_count() == 0
    comp = tables["comparison"]
    na = comp.filter(pl.col("metric") == "win", pl.col("flips") == 1)
    assert na["status"].to_list() == ["not applicable"] and na["significant"][0] is None
    assert na["difference"][0] is None and na["p_holm"][0] is None
    tested = comp.filter(pl.col("status") == "tested")
    assert tested.height == 5  # win at 2 and 3 flips, heads at 1..3: the n/a row is no test
    assert np.allclose(tested["p_holm"].to_numpy(), stats.holm_adjusted(tested["p_value"].to_list()))
    matrix = tables["matrix-win"]
    assert matrix.filter(pl.col("flips") == 1)["official"][0] is None
    assert matrix["official"].dtype == pl.Float64
    summary = comparison_summary(comp).filter(pl.col("metric") == "win")
    assert summary["tests"][0] == 2 and summary["not_applicable"][0] == 1
    # the row that is no test counts as no significant one either
    significant = int(tested.filter(pl.col("metric") == "win")["significant"].sum())
    assert summary["significant"][0] == significant
    assert summary_line(result, tables).endswith(
        f"; {int(tested['significant'].sum())} of 5 tests significant (Holm); 1 not applicable"
    )


@pytest.mark.parametrize(
    "grid, layout",
    [
        ({"tags": [[], ["red"]], "flips": [1, 2], "need": [1, 2]}, ("flips", "need")),  # numbers first
        ({"mode": ["a", "b"], "flips": [1, 2]}, ("flips", "mode")),
        ({"flag": [True, False], "flips": [1, 2]}, ("flips", "flag")),  # a yes/no field is no number
        ({"flips": [1.5, 2], "need": list(range(9))}, ("need", "flips")),  # a long list goes down
        ({"flips": [1, 2]}, ("flips", None)),  # one field: the variants across
        ({"flips": [1], "need": [1, 2]}, ("flips", "need")),  # short lists stay as they are
        ({"flips": [1, 2], "need": list(range(8))}, ("flips", "need")),  # 8 still go across
        ({"flips": list(range(9)), "need": list(range(9))}, ("flips", "need")),  # as long: stay
    ],
)
def test_matrices_put_number_fields_first_without_a_heat_map(grid, layout):
    from types import SimpleNamespace

    result = SimpleNamespace(scenario=SimpleNamespace(plots=(), grid=grid))
    assert matrix_layout(result) == layout


def test_a_heat_map_sets_the_matrices_layout():
    from types import SimpleNamespace

    grid = {"flips": [1, 2], "need": [1, 2], "tags": [[], ["red"]]}
    lines = SimpleNamespace(kind="lines", x="flips", y="need")
    heatmap = SimpleNamespace(kind="heatmap", x="tags", y="need")
    result = SimpleNamespace(scenario=SimpleNamespace(plots=(lines, heatmap), grid=grid))
    assert matrix_layout(result) == ("need", "tags")
    result = SimpleNamespace(scenario=SimpleNamespace(plots=(lines,), grid=grid))
    assert matrix_layout(result) == ("flips", "need")


def test_matrices_of_metrics_after_a_distribution():
    sc = parse_scenario(
        {"game": GAME, "seed": 6, "trials": 200, "metrics": ["total", "win"], "grid": {"flips": [1, 2]}}
    )
    tables = all_tables(run_scenario(sc, jobs=1))
    assert {"distribution-total", "matrix-win", "matrix-win-exact"} <= set(tables)


@pytest.mark.parametrize(
    "where", [{"grid": {"flips": [1]}}, {"setup": {"flips": 1}}], ids=["grid", "no-grid"]
)
def test_number_columns_keep_their_types_when_every_value_is_missing(where):
    """Parquet readers see a number column as numbers even when no row holds one: every row
    not applicable here (``win`` with one flip), so every number of every table is null."""
    sc = parse_scenario(
        {
            "game": coin_with_applicable(),
            "seed": 4,
            "trials": 200,
            "metrics": ["win"],
            "variants": {"official": {}, "loaded": {"builtin": "loaded"}},
            **where,
        }
    )
    result = run_scenario(sc, jobs=1)
    tables = all_tables(result)
    comp = tables["comparison"]
    assert comp["status"].to_list() == ["not applicable"] and comp["trials"].to_list() == [200]
    numbers = COMPARISON_COLUMNS[3:12]
    assert all(comp[c].null_count() == 1 for c in (*numbers, "significant"))
    assert {c: comp[c].dtype for c in numbers} == dict.fromkeys(numbers, pl.Float64)
    assert comp["significant"].dtype == pl.Boolean
    long = tables["results"]
    numbers = ("estimate", "ci_low", "ci_high", "se", "exact")
    assert long.select(numbers).null_count().row(0) == (2,) * 5
    assert {c: long[c].dtype for c in numbers} == dict.fromkeys(numbers, pl.Float64)
    # no exact value anywhere: no file of them; the intervals' files are still written
    assert "matrix-win-exact" not in tables and "difference-win-exact" not in tables
    for name in ("matrix-win", "matrix-win-ci_low", "difference-win", "difference-win-ci_high"):
        cells = tables[name].select(pl.exclude("flips", "variant"))
        assert set(cells.dtypes) == {pl.Float64} and cells.null_count().sum_horizontal()[0] == cells.width
    assert summary_line(result, tables) == (
        "1 setup × 2 variants, 200 trials each, seed 4; 0 of 0 tests significant (Holm); 1 not applicable"
    )


# a precision target over one fair flip (p = 1/2, the widest interval) and four: trials differ
PRECISION_RUN = {"game": GAME, "seed": 1, "precision": 0.005, "metrics": ["win"], "grid": {"flips": [1, 4]}}


def test_summary_line_gives_the_span_of_trials_a_precision_target_took():
    sc = parse_scenario(PRECISION_RUN)
    result = run_scenario(sc, jobs=1)
    tables = all_tables(result)
    low, high = tables["results"]["trials"].min(), tables["results"]["trials"].max()
    assert low < high  # one flip is a fair coin (p = 1/2), the widest interval
    assert summary_line(result, tables) == f"2 setups × 1 variant, {low:,}–{high:,} trials each, seed 1"


def test_a_certain_difference_is_tested_not_identical():
    """Heads with a coin that always lands heads against one that never does: the difference
    is the number of flips in every trial (standard error 0), a real and significant change."""
    sc = parse_scenario(
        {
            "game": GAME,
            "seed": 5,
            "trials": 300,
            "metrics": ["heads"],
            "grid": {"flips": [2]},
            "variants": {"never": {"overrides": {"bias": 0.0}}, "always": {"overrides": {"bias": 1.0}}},
        }
    )
    row = comparison_table(run_scenario(sc, jobs=1)).filter(pl.col("metric") == "heads").row(0, named=True)
    assert row["difference"] == 2 and row["se"] == 0
    assert row["status"] == "tested" and row["significant"] is True


def test_a_grid_of_whole_and_decimal_numbers_is_one_number_column():
    """TOML reads ``payout = [2, 2.5]`` as an integer and a float: one Float64 column, no error."""
    sc = parse_scenario(
        {
            "game": "dune1984",
            "question": "invest",
            "seed": 3,
            "trials": 200,
            "metrics": ["returns"],
            "grid": {"sums": [[3, 11]], "payout": [2, 2.5]},
        }
    )
    long = results_table(run_scenario(sc, jobs=1))
    assert long["payout"].dtype == pl.Float64 and long["payout"].to_list() == [2.0, 2.5]


@pytest.mark.parametrize(
    "description, text",
    [
        ("at least `need` heads (a note)", "at least need heads"),
        ("odds (per fight) of winning", "odds (per fight) of winning"),  # no trailing remark
        ("wins (of 3) in a row (a note)", "wins (of 3) in a row"),  # only the last one goes
        ("  heads  ", "heads"),
    ],
)
def test_metric_descriptions_for_people(description, text):
    from montecarlo.games.base import Metric

    assert metric_text(Metric("m", "probability", description)) == text


# A d7 Sword wins 6 against 1 about one fight in a million less often than a d8, 5 against 1 about
# 50 in a million: identical in every one of 2,000 trials, not by construction.
RARE_SWORD = {
    "game": "dune1984", "question": "duel", "seed": 1984, "trials": 2_000, "metrics": ["attacker_win"],
    "setup": {"attacker_equipment": ["sword"], "defender": 1}, "grid": {"attacker": [5, 6]},
    "variants": {"official": {}, "sword_d7": {"overrides": {"sword_faces": 7}}},
}


def test_identical_rows_that_the_exact_solver_tells_apart_are_named_in_the_holm_line():
    """The line says that the exact values of the identical rows differ."""
    comp = comparison_table(run_scenario(parse_scenario(RARE_SWORD), jobs=1))
    same = comp.filter(pl.col("status") == "identical")
    assert same.height == 2 and (same["exact_difference"] != 0).all()
    assert holm_line(comp) == (
        "0 of 0 tests significant (Holm); 2 identical in every trial "
        "(the exact values differ in all of them: a change too rare to show in these trials)"
    )
    one = comp.with_columns(exact_difference=pl.Series([0.0, -1e-6]))
    assert holm_line(one).endswith("; 2 identical in every trial (the exact values differ in 1 of them: "
                                   "a change too rare to show in these trials)")
    assert holm_line(comp.with_columns(exact_difference=pl.lit(0.0))).endswith("; 2 identical in every trial")
    # rounding in two exact solves of equal odds (1e-16 seen) is not a difference; a missing value neither
    noise = comp.with_columns(exact_difference=pl.Series([1.1e-16, None], dtype=pl.Float64))
    assert holm_line(noise).endswith("; 2 identical in every trial")
    assert exactly_different(comp.with_columns(exact_difference=pl.lit(-2e-9))) == 2


def test_grid_columns_show_numbers_as_numbers_and_everything_else_as_text():
    """A bool or a labelled value is text in the tables (False, "two"), a number stays a number."""
    from types import SimpleNamespace as N

    from montecarlo.reporting.tables import grid_columns
    from montecarlo.scenarios import Scenario

    sc = N(grid={"b": (False, True), "n": (1, 2), "m": (1, 2)}, labels={"m": {"2": "two"}})
    sc.shown = lambda name, value: Scenario.shown(sc, name, value)
    sc.numeric = lambda name: Scenario.numeric(sc, name)
    sc.points = [N(values={"b": b, "n": n, "m": n}) for b, n in ((False, 1), (True, 2))]
    assert grid_columns(N(scenario=sc)) == {"b": ["False", "True"], "n": [1, 2], "m": ["1", "two"]}


def test_a_metric_whose_meaning_the_rules_change_is_not_compared():
    """War for Arrakis' objective is the defender's where the defender plays best, else the
    attacker's: official against defender_best_play read -0.946, significant. It is not
    applicable there (outside Holm), and compared where the same side decides."""
    import montecarlo as mc

    compared = mc.compare("war-for-arrakis", variants=["defender_best_play", "best_play"],
                          attacker="2 regular", defender="1 regular", objective="win", trials=2000,
                          metrics=["objective", "attacker_win"])
    rows = {(r["variant"], r["metric"]): r for r in compared.differences.to_polars().iter_rows(named=True)}
    assert rows[("defender_best_play", "objective")]["status"] == "not applicable"
    assert rows[("defender_best_play", "objective")]["difference"] is None
    assert rows[("best_play", "objective")]["status"] in ("tested", "identical")
    assert rows[("defender_best_play", "attacker_win")]["status"] in ("tested", "identical")


def test_the_files_hold_a_labelled_fields_values_with_its_words_beside():
    """A [labels] field's words are what tables and plots show; its CSV and Parquet files hold the
    values again (numbers as numbers, to filter on) and the words in FIELD_label beside them; a
    list-valued field's labels give back its value as the tables write it ("red+blue")."""
    from montecarlo.reporting.tables import with_values

    # need first: a matrix has its values as columns, not as a column, and the others still follow
    labels = {"need": {"2": "two heads"}, "flips": {"1": "one coin", "3": "three coins"},
              "tags": {"red+blue": "both"}}
    sc = parse_scenario({**SCENARIO, "trials": 20, "labels": labels}, default_name="coin-labels")
    shown = all_tables(run_scenario(sc, jobs=1))
    for name, df in shown.items():
        files = with_values(df, sc)
        if "flips" not in df.columns:  # a matrix whose columns are the flips: headers stay words
            assert files.equals(df), name
            continue
        for field in ("flips", "tags"):  # the words right after the values
            at = files.columns.index(field)
            assert files.columns[at + 1] == f"{field}_label", name
        assert files["flips"].dtype == pl.Int64, name
        pairs = set(zip(files["flips"], files["flips_label"], strict=True))
        assert pairs == {(1, "one coin"), (2, "2"), (3, "three coins")}, name
        assert set(zip(files["tags"], files["tags_label"])) == {("none", "none"), ("red+blue", "both")}
        labelled = [f for f in ("need", "flips", "tags") if f in df.columns]
        assert files.drop(*(f"{f}_label" for f in labelled)).columns == df.columns
        assert files.drop(*labelled, *(f"{f}_label" for f in labelled)).equals(df.drop(*labelled))
        if "need" in df.columns:
            assert set(zip(files["need"], files["need_label"])) == {(1, "1"), (2, "two heads")}
    assert with_values(shown["results"], parse_scenario(SCENARIO, default_name="x")).equals(shown["results"])
    # a field of Strengths and names (Dune's attacker: 4 or "Paul") stays text, a column of one type
    spec = {"game": "dune1984", "question": "duel", "seed": 1, "trials": 20, "setup": {"defender": 3},
            "grid": {"attacker": [4, "Paul"]}, "labels": {"attacker": {"4": "four"}}}
    duel = parse_scenario(spec, default_name="duel-labels")
    files = with_values(results_table(run_scenario(duel, jobs=1)), duel)
    assert files["attacker"].dtype == pl.Utf8
    assert set(zip(files["attacker"], files["attacker_label"])) == {("4", "four"), ("Paul", "Paul")}
