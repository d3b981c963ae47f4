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
    "game": GAME,
    "seed": 8,
    "trials": 4000,
    "metrics": ["win", "heads"],
    "grid": {"flips": [1, 2, 3]},
    "variants": {
        "official": {},
        "loaded": {"builtin": "loaded"},
        "same": {"overrides": {"bias": 0.5}},
        "bonus": {"builtin": "bonus"},
    },
}


@pytest.fixture(scope="module")
def sentences():
    result = run_scenario(parse_scenario(SCENARIO, default_name="coin-findings"), jobs=1)
    return findings(result, all_tables(result))


def test_which_variant_moves_which_metric(sentences):
    assert headline(sentences) == (
        "Against `official`: `loaded` moves `win` and `heads` (3 of 3 setups); "
        "`same` changes nothing; `bonus` changes nothing."
    )
    first = sentences[1]
    assert (
        first.startswith("`loaded` raises `win` in 3 of 3 setups (")
        and "raises `heads` in 3 of 3 setups" in first
    )
    low, high = (
        float(x) for x in re.search(r"`win` in 3 of 3 setups \(([-+.\d]+) to ([-+.\d]+)\)", first).groups()
    )
    se = 0.0095  # the largest paired standard error of these differences at 4,000 trials
    assert abs(low - 0.098) < 4.5 * se and abs(high - 0.2) < 4.5 * se


def test_variants_that_change_nothing_in_one_line(sentences):
    text = " ".join(sentences)
    assert "`same` and `bonus` leave every metric identical to `official` in all 3 setups" in text
    assert " ".join(sentences[1:]).count("`same`") == 1 and "0.0000" not in text  # one line, no zeros


def test_largest_effects_name_setup_interval_and_exact(sentences):
    largest = next(s for s in sentences if s.startswith("Largest effect"))
    heads = re.search(
        r"`loaded` on `heads`: ([-+.\d]+) \(95% CI ([-+.\d]+) to ([-+.\d]+); exact ([-+.\d]+)\) "
        r"at flips=(\d)",
        largest,
    )
    assert heads, largest
    estimate, low, high, exact, flips = (float(x) for x in heads.groups())
    assert flips == 3 and exact == pytest.approx(0.6) and low < estimate < high
    assert abs(estimate - 0.6) < 4.5 * (high - low) / (2 * 1.96)
    win = re.search(r"`loaded` on `win`: .* at flips=(\d)", largest)
    assert win and win.group(1) == "1"  # exact +0.2 at one flip is the largest change of win


def test_matrix_findings_say_where_odds_cross_half():
    sc = parse_scenario(
        {
            "game": GAME,
            "seed": 2,
            "trials": 4000,
            "metrics": ["win"],
            "grid": {"flips": [1, 2, 3, 4], "need": [1, 2, 3, 4]},
        }
    )
    result = run_scenario(sc, jobs=1)
    text = findings(result, all_tables(result))
    # exact: above 1/2 when need <= flips/2; exactly 1/2 (even, not "above") at 1 flip need 1
    # and at 3 flips need 2
    assert text[0] == (
        "`win` is above 50% at these `need` values: flips=1: none; flips=2: 1; flips=3: 1; " "flips=4: 1, 2."
    )
    assert text[1].startswith("`win` ranges from 0.000 (flips=1, need=2) to ")


def test_seat_advantage_and_asymmetry_of_two_sides():
    """A fake duel: side a wins with chance a / (a + b) + edge; swapping the sides shows the edge."""
    import dataclasses


    from montecarlo.games.base import Game, Metric, Question

    @dataclasses.dataclass(frozen=True)
    class Rules:
        edge: float = 0.0

    @dataclasses.dataclass(frozen=True)
    class Setup:
        attacker: int = 1
        defender: int = 1

    def chance(rules, setup):
        return min(1.0, setup.attacker / (setup.attacker + setup.defender) + rules.edge)

    question = Question(
        "duel",
        "a duel",
        Setup,
        (Metric("attacker_win", "probability", "the attacker wins"),),
        simulate=lambda rules, setup, n, rng: {"attacker_win": rng.random(n) < chance(rules, setup)},
        exact=lambda rules, setup: {"attacker_win": chance(rules, setup)},
    )
    game = Game("duel", "Duel", Rules, {"edge": {"edge": 0.1}}, {"duel": question}, "duel")
    grid = {"attacker": [1, 2, 3], "defender": [1, 2, 3]}
    fair = run_scenario(parse_scenario({"game": game, "seed": 1, "trials": 2000, "grid": grid}), jobs=1)
    text = findings(fair, all_tables(fair))
    assert (
        text[0]
        == "`attacker_win` is above 50% exactly when `attacker` − `defender` ≥ 1, "
        "even (50%) when it is 0."
    )
    assert (
        "At equal `attacker` and `defender`, `attacker_win` is 0.500 (even); swapping the two sides changes "
        "nothing beyond noise."
    ) in text
    edged = run_scenario(
        parse_scenario(
            {"game": game, "seed": 1, "trials": 2000, "grid": grid, "variants": {"edge": {"builtin": "edge"}}}
        ),
        jobs=1,
    )
    text = " ".join(findings(edged, all_tables(edged)))
    assert "`attacker_win` is 0.600 (favouring the `attacker` side)" in text
    assert "sum to 1.200 instead of 1, the `attacker` side favoured by 20.0 points" in text
