"""Tables from scenario results: long form, Holm-corrected comparisons, matrices.

Runs the fake ``coin`` game of tests/test_scenarios.py once (small trials) and checks the
tables against its exact binomial answers.
"""

import math
import re

import numpy as np
import polars as pl
import pytest

from montecarlo.engine import stats
from montecarlo.reporting.tables import (
    COMPARISON_COLUMNS, RESULT_COLUMNS, all_tables, comparison_summary, comparison_table,
    results_table, summary_line,
)
from montecarlo.scenarios import parse_scenario, run_scenario
from tests.test_scenarios import GAME

SCENARIO = {
    "game": GAME, "seed": 11, "trials": 3000,
    "grid": {"flips": [1, 2, 3], "need": [1, 2], "tags": [[], ["red", "blue"]]},
    "variants": {"official": {}, "same": {"overrides": {"bias": 0.5}}, "loaded": {"builtin": "loaded"}},
}


@pytest.fixture(scope="module")
def result():
    return run_scenario(parse_scenario(SCENARIO, default_name="coin-tables"), jobs=1)


@pytest.fixture(scope="module")
def tables(result):
    return all_tables(result)


def test_results_table_is_long_form_and_matches_exact(result):
    long = results_table(result)
    assert long.columns == ["flips", "need", "tags", *RESULT_COLUMNS]
    assert long.height == 12 * 3 * (2 + 6)  # setups x variants x reported metrics
    assert long["tags"].unique(maintain_order=True).to_list() == ["none", "red+blue"]
    assert long["flips"].dtype == pl.Int64 and set(long["trials"]) == {3000}
    assert long["exact"].null_count() == 0
    z = (long["estimate"] - long["exact"]).abs() / long["se"].clip(1e-12)
    assert z.max() <= 4.5, long.filter(z > 4.5)
    assert (long["ci_low"] <= long["estimate"]).all() and (long["estimate"] <= long["ci_high"]).all()


def test_comparison_table_pairs_holm_and_signs(result):
    comp = comparison_table(result)
    assert comp.columns == ["flips", "need", "tags", *COMPARISON_COLUMNS]
    assert comp.height == 12 * 2 * 8 and set(comp["baseline"]) == {"official"}
    same = comp.filter(pl.col("variant") == "same")
    assert (same["difference"] == 0).all() and (same["p_value"] == 1).all() and not same["significant"].any()
    win = comp.filter(pl.col("variant") == "loaded", pl.col("metric") == "win")
    matters = win.filter(pl.col("exact_difference") > 0.05)
    assert matters.height == 10 and matters["significant"].all() and (matters["ci_low"] > 0).all()
    impossible = win.filter(pl.col("need") > pl.col("flips"))
    assert (impossible["difference"] == 0).all() and not impossible["significant"].any()
    # Holm over the whole table, exactly as the engine computes it
    assert comp["significant"].to_list() == stats.holm(comp["p_value"].to_list()).tolist()
    assert np.allclose(comp["p_holm"].to_numpy(), stats.holm_adjusted(comp["p_value"].to_list()))
    z = (comp["difference"] - comp["exact_difference"]).abs() / comp["se"].clip(1e-12)
    assert z.max() <= 4.5
    assert comparison_table(run_scenario(parse_scenario({"game": GAME, "seed": 1, "trials": 100}), jobs=1)) is None


def test_matrices_for_people(tables):
    m = tables["matrix-win"]
    assert m.columns == ["tags", "variant", "flips", "need=1", "need=2"]
    assert m.height == 2 * 3 * 3
    assert m["variant"].to_list()[:3] == ["official"] * 3 and m["flips"].to_list()[:3] == [1, 2, 3]
    cell = re.compile(r"^\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]$")
    assert all(cell.match(c) for c in m["need=1"].to_list() + m["need=2"].to_list())
    exact = tables["matrix-win-exact"]
    row = exact.filter(pl.col("variant") == "loaded", pl.col("flips") == 2, pl.col("tags") == "none")
    assert math.isclose(row["need=2"][0], 0.49) and math.isclose(row["need=1"][0], 0.91)
    diff = tables["difference-win"]
    assert set(diff["variant"]) == {"same", "loaded"}
    starred = diff.filter(pl.col("variant") == "loaded")["need=1"].to_list()
    assert all(c.endswith("*") and c.startswith("+") for c in starred)
    assert not any(c.endswith("*") for c in diff.filter(pl.col("variant") == "same")["need=1"])
    dist = tables["distribution-total"]
    assert dist.columns == ["flips", "need", "tags", "variant", *(f"total={v}" for v in range(6))]
    sums = dist.select(pl.sum_horizontal(pl.col(r"^total=\d$")))
    assert np.allclose(sums.to_series().to_numpy(), 1.0)


def test_no_grid_and_single_field_layouts():
    one = run_scenario(parse_scenario({"game": GAME, "seed": 2, "trials": 500, "metrics": ["win"],
                                       "variants": {"a": {}, "b": {"builtin": "loaded"}}}), jobs=1)
    m = all_tables(one)["matrix-win"]
    assert m.columns == ["a", "b"] and m.height == 1
    line = run_scenario(parse_scenario({"game": GAME, "seed": 2, "trials": 500, "metrics": ["win"],
                                        "grid": {"flips": [1, 2]}}), jobs=1)
    assert all_tables(line)["matrix-win"].columns == ["flips", "official"]


def test_summaries(result, tables):
    summary = comparison_summary(tables["comparison"])
    same = summary.filter(pl.col("variant") == "same")
    assert (same["significant"] == 0).all() and (same["tests"] == 12).all()
    line = summary_line(result, tables)
    assert line.startswith("12 setups × 3 variants, 3,000 trials each; win ")
    assert f"{int(tables['comparison']['significant'].sum())} of 192 differences significant (Holm)" in line
