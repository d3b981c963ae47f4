"""Findings: sentences generated from a comparison whose exact answer is known (the coin game)."""

import re

import pytest

from montecarlo.reporting.findings import findings, headline
from montecarlo.reporting.tables import all_tables
from montecarlo.scenarios import parse_scenario, run_scenario
from tests.test_scenarios import GAME

# official: a fair coin; loaded: heads 70% (exact: win +0.2, +0.16, +0.098 and heads +0.2 per flip);
# same: the official rules again (identical on every trial); bonus: +1 to `total` only.
SCENARIO = {
    "game": GAME, "seed": 8, "trials": 4000, "metrics": ["win", "heads"], "grid": {"flips": [1, 2, 3]},
    "variants": {"official": {}, "loaded": {"builtin": "loaded"}, "same": {"overrides": {"bias": 0.5}},
                 "bonus": {"builtin": "bonus"}},
}


@pytest.fixture(scope="module")
def sentences():
    result = run_scenario(parse_scenario(SCENARIO, default_name="coin-findings"), jobs=1)
    return findings(result, all_tables(result))


def test_which_variant_moves_which_metric(sentences):
    assert headline(sentences) == ("Against `official`: `loaded` moves `win` and `heads` (3 of 3 setups); "
                                   "`same` changes nothing; `bonus` changes nothing.")
    first = sentences[1]
    assert first.startswith("`loaded` raises `win` in 3 of 3 setups (") and "raises `heads` in 3 of 3 setups" in first
    low, high = (float(x) for x in re.search(r"`win` in 3 of 3 setups \(([-+.\d]+) to ([-+.\d]+)\)", first).groups())
    se = 0.0095  # the largest paired standard error of these differences at 4,000 trials
    assert abs(low - 0.098) < 4.5 * se and abs(high - 0.2) < 4.5 * se


def test_variants_that_change_nothing_in_one_line(sentences):
    text = " ".join(sentences)
    assert ("`same` and `bonus` leave every metric identical to `official` in all 3 setups" in text)
    assert " ".join(sentences[1:]).count("`same`") == 1 and "0.0000" not in text  # one line, no zeros


def test_largest_effects_name_setup_interval_and_exact(sentences):
    largest = next(s for s in sentences if s.startswith("Largest effect"))
    heads = re.search(r"`loaded` on `heads`: ([-+.\d]+) \(95% CI ([-+.\d]+) to ([-+.\d]+); exact ([-+.\d]+)\) "
                      r"at flips=(\d)", largest)
    assert heads, largest
    estimate, low, high, exact, flips = (float(x) for x in heads.groups())
    assert flips == 3 and exact == pytest.approx(0.6) and low < estimate < high
    assert abs(estimate - 0.6) < 4.5 * (high - low) / (2 * 1.96)
    win = re.search(r"`loaded` on `win`: .* at flips=(\d)", largest)
    assert win and win.group(1) == "1"  # exact +0.2 at one flip is the largest change of win


def test_matrix_findings_say_where_odds_cross_half():
    sc = parse_scenario({"game": GAME, "seed": 2, "trials": 4000, "metrics": ["win"],
                         "grid": {"flips": [1, 2, 3, 4], "need": [1, 2, 3, 4]}})
    result = run_scenario(sc, jobs=1)
    text = findings(result, all_tables(result))
    assert text[0].startswith("`win` ranges from 0.000 (flips=1, need=2) to ")
    # exact: above 1/2 when need <= flips/2 (+1 for odd flips); 1 flip: 0.5 exactly, by chance on either side
    crossing = next(s for s in text if "above 50%" in s)
    assert "flips=2: 1;" in crossing and "flips=3: 1" in crossing and "flips=4: 1, 2" in crossing
