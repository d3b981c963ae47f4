"""Findings: sentences generated from a comparison whose exact answer is known (the coin game)."""

import dataclasses
import math
import re
from typing import Any

import numpy as np
import polars as pl
import pytest

from montecarlo.reporting.findings import (
    _asymmetry, _headline, _per_row, _range, _seat_gap, findings, headline, named_once, number_range
)
from montecarlo.reporting.tables import all_tables
from montecarlo.scenarios import parse_scenario, run_scenario
from tests.test_scenarios import GAME
from tests.conftest import per_test_under_mutation

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


def unsized(text: str) -> str:
    """A headline without the size of each variant's largest change (tested on its own)."""
    return re.sub(r"; largest [-+][0-9.]+, in [^()]*\)", ")", text)


@pytest.fixture(scope=per_test_under_mutation)
def sentences():
    result = run_scenario(parse_scenario(SCENARIO, default_name="coin-findings"), jobs=1)
    return findings(result, all_tables(result))


def test_which_variant_moves_which_metric(sentences):
    # in words (metric and variant descriptions), code names in parentheses
    assert unsized(headline(sentences)) == (
        "Against “the official rules” (`official`): “heads 70% of the time” (`loaded`) raises the chance "
        "that at least need heads and number of heads (changes in 3 of 3 setups); “bias = 0.5” (`same`) "
        "changes nothing; `bonus` changes nothing."
    )
    # how large its largest change of the first metric is: the exact one, 0.7 - 0.5 at one flip
    # (not heads' +0.600: more heads and a chance are not compared)
    assert "(changes in 3 of 3 setups; largest +0.200, in the chance that at least need heads);" in headline(
        sentences)
    first = sentences[1]
    assert first.startswith(
        "“Heads 70% of the time” (`loaded`) raises the chance that at least need heads (`win`) in 3 of 3 "
        "setups ("
    ) and "raises number of heads (`heads`) in 3 of 3 setups" in first
    # the range of the exact differences (as the comparison table's min and max): 0.098 to 0.2
    assert "(`win`) in 3 of 3 setups (exactly +0.098 to +0.200)" in first, first


def test_variants_that_change_nothing_in_one_line(sentences):
    text = " ".join(sentences)
    assert (
        "“Bias = 0.5” (`same`) and `bonus` leave every metric identical to “the official rules” (`official`) "
        "in all 3 setups"
    ) in text
    assert " ".join(sentences[1:]).count("`same`") == 1 and "0.0000" not in text  # one line, no zeros


def test_beside_variants_the_baseline_own_numbers_are_its_first_metric_under_its_name(sentences):
    own = [s for s in sentences if " ranges exactly from " in s]  # (every setup has its exact value)
    assert len(own) == 1 and own[0].startswith(
        "The chance that at least need heads (`win`) under “the official rules” (`official`) ranges "
        "exactly from "
    ), own


def test_largest_effects_name_setup_interval_and_exact(sentences):
    largest = next(s for s in sentences if s.startswith("Largest effect"))
    heads = re.search(
        r"\(`loaded`\) on number of heads \(`heads`\): ([-+.\d]+) \(95% CI ([-+.\d]+) to ([-+.\d]+); "
        r"exact ([-+.\d]+)\) at flips = (\d)",
        largest,
    )
    assert heads, largest
    assert all(re.fullmatch(r"[-+]\d\.\d{4}", x) for x in heads.groups()[:4]), heads.groups()
    estimate, low, high, exact, flips = (float(x) for x in heads.groups())
    assert flips == 3 and exact == pytest.approx(0.6) and low < estimate < high
    assert abs(estimate - 0.6) < 4.5 * (high - low) / (2 * 1.96)
    win = re.search(
        r"\(`loaded`\) on the chance that at least need heads \(`win`\): .* at flips = (\d)",
        largest,
    )
    assert win and win.group(1) == "1"  # exact +0.2 at one flip is the largest change of win
    # only significant changes are effects: the identical variants (`same`, `bonus`) are not named
    assert largest.startswith("Largest effects: ") and largest.count(" on ") == 2, largest


def test_matrix_findings_say_where_odds_cross_half():
    sc = parse_scenario(
        {
            "game": GAME,
            "seed": 2,
            "trials": 4000,
            "metrics": ["win", "heads"],
            "grid": {"flips": [1, 2, 3, 4], "need": [1, 2, 3, 4]},
        }
    )
    result = run_scenario(sc, jobs=1)
    text = findings(result, all_tables(result))
    # not only the first metric
    assert any(s.startswith("Number of heads (`heads`) ranges exactly from ") for s in text)
    # exact: above 1/2 when need <= flips/2; exactly 1/2 (even, not "above") at 1 flip need 1
    # and at 3 flips need 2
    assert text[0] == (
        "The chance that at least need heads (`win`) is above 50% at these values of need: flips 1: none; "
        "flips 2, 3: 1; flips 4: 1, 2."
    )
    # six setups cannot reach their `need` and win 0.000: the first is named, with the count of the rest
    assert text[1] == (
        "The chance that at least need heads (`win`) ranges exactly from 0.000 (flips = 1, need = 2, and 5 "
        "more setups) to 0.938 (flips = 4, need = 1)."
    )


def test_a_row_above_half_everywhere_is_all_and_one_field_has_no_crossing():
    def first(spec):
        spec = {"game": GAME, "seed": 2, "trials": 4000, "metrics": ["win"], **spec}
        result = run_scenario(parse_scenario(spec), jobs=1)
        return findings(result, all_tables(result))

    assert first({"grid": {"flips": [2, 3, 4], "need": [1, 2]}})[0] == (
        "The chance that at least need heads (`win`) is above 50% at these values of flips: need 1: all; "
        "need 2: 4."
    )
    # every cell above 50% (need 1 of 2, 3, 4 flips): nothing crosses 50%, only the range is said
    assert first({"grid": {"flips": [2, 3, 4], "need": [1]}}) == [
        "The chance that at least need heads (`win`) ranges exactly from 0.750 (flips = 2, need = 1) to "
        "0.938 (flips = 4, need = 1)."
    ]
    # one grid field (need 2 of 2, 3, 4 flips: 0.25, 0.5, 0.69): a range, no matrix to cross
    assert first({"setup": {"need": 2}, "grid": {"flips": [2, 3, 4]}}) == [
        "The chance that at least need heads (`win`) ranges exactly from 0.250 (flips = 2) to 0.688 "
        "(flips = 4)."
    ]


def toss_game(simulate, metrics: dict[str, Any], builtins: dict[str, dict]):
    """A fake game of one question, ``toss``: rules with one ``edge``, a setup with a ``size`` and
    an ``other``, the given metrics drawn by ``simulate`` (name -> a probability's description, or
    a whole Metric)."""
    import dataclasses

    from montecarlo.games.base import Game, Metric, Question

    @dataclasses.dataclass(frozen=True)
    class Rules:
        edge: float = 0.0

    @dataclasses.dataclass(frozen=True)
    class Setup:
        size: int = 1
        other: int = 1

    made = tuple(
        m if isinstance(m, Metric) else Metric(name, "probability", m) for name, m in metrics.items()
    )
    toss = Question("toss", "a toss", Setup, made, simulate)
    return Game("toss", "Toss", Rules, builtins, {"toss": toss}, "toss")


def test_a_variant_that_moves_nothing_significantly_says_what_it_leaves_identical():
    """A fake toss: ``coin`` is drawn first, so it is the same in both arms (common random numbers);
    ``hit`` moves by 0.001, far below what 2,000 trials can tell."""

    def simulate(rules, setup, n, rng):
        coin = rng.random(n) < 0.5
        return {"hit": rng.random(n) < 0.5 + rules.edge, "coin": coin}

    game = toss_game(simulate, {"hit": "a hit", "coin": "heads first"}, {"tiny": {"edge": 0.001}})
    variants = {"official": {}, "tiny": {"builtin": "tiny"}}
    spec = {"game": game, "seed": 1, "trials": 2000, "grid": {"size": [1, 2]}, "variants": variants}
    result = run_scenario(parse_scenario(spec), jobs=1)
    tiny = next(s for s in findings(result, all_tables(result)) if s.startswith("`tiny`"))
    assert tiny.startswith(
        "`tiny` changes nothing significantly (the chance that a hit (`hit`): largest difference "
    )
    assert tiny.endswith(
        "; it leaves the chance that heads first (`coin`) identical in all 2 setups."
    )


def duel_game(exact: bool = True):
    """A fake duel: the attacker wins with chance a / (a + b) + edge + grow x a + its bonus, with
    the game's exact solver or without one (then every value is an estimate, with its noise)."""
    import dataclasses

    from montecarlo.games.base import Game, Metric, Question

    @dataclasses.dataclass(frozen=True)
    class Rules:
        edge: float = 0.0
        grow: float = 0.0  # an edge that grows with the attacker's strength

    @dataclasses.dataclass(frozen=True)
    class Setup:
        attacker: int = 1
        defender: int = 1
        attacker_bonus: float = 0.0

    def chance(rules, setup):
        fair = setup.attacker / (setup.attacker + setup.defender)
        return min(1.0, fair + rules.edge + rules.grow * setup.attacker + setup.attacker_bonus)

    question = Question(
        "duel",
        "a duel",
        Setup,
        (Metric("attacker_win", "probability", "the attacker wins", complement_swaps=True),),
        simulate=lambda rules, setup, n, rng: {"attacker_win": rng.random(n) < chance(rules, setup)},
        exact=(lambda rules, setup: {"attacker_win": chance(rules, setup)}) if exact else None,
    )
    return Game("duel", "Duel", Rules, {"edge": {"edge": 0.1}}, {"duel": question}, "duel")


def test_every_chance_crosses_half_and_only_a_sides_own_is_swapped():
    """Three metrics with the same chances over attacker x defender: ``attacker_win`` is said to
    cross 50% and to be swapped between the sides; ``draw_win``, a win chance that names neither
    field, and ``hit``, a chance that is no win (a Guile check's survival), cross 50% but have no
    swap (the line was drawn only for a metric whose name held "win")."""
    import dataclasses

    from montecarlo.engine.metrics import Metric

    def values(rules, setup):
        fair = setup.attacker / (setup.attacker + setup.defender)
        return {"attacker_win": fair, "draw_win": fair, "hit": fair}

    game = duel_game()
    duel = game.questions["duel"]
    more = (Metric("draw_win", "probability", "the draw wins"), Metric("hit", "probability", "a hit"))
    duel = dataclasses.replace(
        duel,
        metrics=(*duel.metrics, *more),
        simulate=lambda rules, setup, n, rng: {k: rng.random(n) < v for k, v in values(rules, setup).items()},
        exact=values,
    )
    spec = {"game": dataclasses.replace(game, questions={"duel": duel}), "seed": 3, "trials": 1000,
            "grid": {"attacker": [1, 2, 3], "defender": [1, 2, 3]}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    said = findings(result, all_tables(result))
    crossing = [s.split(" (`")[1].split("`)")[0] for s in said if " is above 50% " in s]
    assert crossing == ["attacker_win", "draw_win", "hit"], said
    assert [s.split(",")[0] for s in said if s.startswith("At equal")] == [
        "At equal attacker and defender"
    ], said
    assert len([s for s in said if "(`hit`)" in s]) == 2  # its range and its 50% line


def test_seat_advantage_and_asymmetry_of_two_sides():
    """Swapping the sides of the fake duel shows its edge."""
    game = duel_game()
    grid = {"attacker": [1, 2, 3], "defender": [1, 2, 3]}

    def said(**spec) -> str:
        """The findings, in one text, of the duel over ``grid`` with ``spec`` (variants, rules)."""
        spec = {"game": game, "seed": 1, "trials": 2000, "grid": grid, **spec}
        result = run_scenario(parse_scenario(spec), jobs=1)
        return " ".join(findings(result, all_tables(result)))

    fair = run_scenario(parse_scenario({"game": game, "seed": 1, "trials": 2000, "grid": grid}), jobs=1)
    text = findings(fair, all_tables(fair))
    assert (
        text[0] == "The chance that the attacker wins (`attacker_win`) is above 50% exactly when attacker − "
        "defender ≥ 1, even (50%) when it is 0."
    )
    assert (
        "At equal attacker and defender, the chance that the attacker wins is 0.500 (exact; even); swapping "
        "the two sides changes nothing beyond noise."
    ) in text
    # the numbers at equal sides are exact where the solver gives them (the heat map shows estimates)
    estimated = all_tables(fair)
    estimated["results"] = estimated["results"].with_columns(pl.lit(None, dtype=pl.Float64).alias("exact"))
    assert "At equal attacker and defender, the chance that the attacker wins is 0.508 (even); " in " ".join(
        findings(fair, estimated))
    text = said(variants={"edge": {"builtin": "edge"}})
    assert "the chance that the attacker wins is 0.600 (exact; favouring the attacker side)" in text
    assert "sum to 1.200 instead of 1, the attacker side favoured by 20.0 points" in text
    a, b = re.search(r"the largest asymmetry is attacker (\d) against defender (\d)", text).groups()
    assert a < b  # a pair of setups swapped, not one setup against itself (its gap is the line above)
    # exact values carry no noise: an edge of 1 point, far inside the estimates' intervals, is named
    assert "sum to 1.020 instead of 1, the attacker side favoured by 2.0 points" in said(rules={"edge": 0.01})
    text = said(rules={"grow": 0.05})
    assert "the chance that the attacker wins is 0.550–0.650 (exact; favouring the attacker side)" in text
    # an edge to the defender that grows with the attacker: the largest gap is the most negative sum
    assert (
        "the largest asymmetry is attacker 2 against defender 3: with the sides swapped the two chances "
        "sum to 0.750 instead of 1, the defender side favoured by 25.0 points"
    ) in said(rules={"grow": -0.05})
    # a setup field of one side only (the attacker's bonus) is its effect, not a seat advantage
    grid = {**grid, "attacker_bonus": [0.0, 0.1]}
    bonus = run_scenario(parse_scenario({"game": game, "seed": 1, "trials": 2000, "grid": grid}), jobs=1)
    text = findings(bonus, all_tables(bonus))
    with_bonus = next(s for s in text if s.startswith("With attacker bonus = 0.1: at equal"))
    own = "(exact; attacker bonus = 0.1 is one side's only: this is its effect, not a seat advantage)"
    assert own in with_bonus
    assert "favoured by" not in with_bonus and "favouring" not in with_bonus
    assert "swapping the two sides changes nothing beyond noise" in next(
        s for s in text if s.startswith("With attacker bonus = 0.0: at equal")
    )


@dataclasses.dataclass(frozen=True)
class RaceRules:
    """A fake race's rules: none."""


@dataclasses.dataclass(frozen=True)
class RaceSetup:
    """A fake race's setup: seat 1's edge."""

    edge: float = 0.0


def test_seat_gaps_in_words():
    """A fake race: seat 1 wins with chance 1/2 + edge; the seats' metrics are said once, in words."""
    from montecarlo.games.base import Game, Metric, Question

    def exact(rules, setup):
        return {"seat1_first": 0.5 + setup.edge, "seat2_first": 0.5 - setup.edge}

    def simulate(rules, setup, n, rng):
        first = rng.random(n) < 0.5 + setup.edge
        return {"seat1_first": first, "seat2_first": ~first}

    metrics = tuple(Metric(f"seat{i}_first", "probability", f"seat {i} comes first") for i in (1, 2))
    race = Question("race", "a race", RaceSetup, metrics, simulate, exact)
    game = Game("race", "Race", RaceRules, {}, {"race": race}, "race")
    result = run_scenario(
        parse_scenario({"game": game, "seed": 3, "trials": 4000, "grid": {"edge": [0.0, 0.3]}}), jobs=1
    )
    seats = next(s for s in findings(result, all_tables(result)) if s.startswith("Seats"))
    found = re.fullmatch(
        r"Seats: the largest gap in the chance that each seat comes first \(`seat\*_first`\) is ([.\d]+), "
        r"seat 1 ([.\d]+) against seat 2 ([.\d]+) at edge = 0.3.",
        seats,
    )
    assert found, seats
    gap, high, low = (float(x) for x in found.groups())
    se = 2 * (0.8 * 0.2 / 4000) ** 0.5  # seat 2 comes first exactly when seat 1 does not
    assert abs(gap - 0.6) < 4.5 * se and gap == pytest.approx(high - low, abs=2e-3)  # shown rounded
    # an even race of one setup (no grid): its gap is noise, and no setup is named
    one_setup = {"game": game, "seed": 3, "trials": 4000, "setup": {"edge": 0.0}}
    even = run_scenario(parse_scenario(one_setup), jobs=1)
    seats = next(s for s in findings(even, all_tables(even)) if s.startswith("Seats"))
    assert re.fullmatch(
        r"Seats: the largest gap in the chance that each seat comes first \(`seat\*_first`\) is [.\d]+ "
        r"\(within noise\), seat [12] [.\d]+ against seat [12] [.\d]+\.",
        seats,
    ), seats


def test_seats_are_compared_within_one_setup_for_every_group_of_seat_metrics():
    """Seat 1 at one setup against seat 2 at another is no gap between seats; and a group of seat
    metrics without estimates (first) leaves the next group (last) its sentence."""
    from montecarlo.games.base import Game, Metric, Question
    from montecarlo.reporting.findings import _seats

    def simulate(rules, setup, n, rng):
        return {f"seat{i}_{what}": rng.random(n) < 0.5 for i in (1, 2) for what in ("first", "last")}

    metrics = tuple(
        Metric(f"seat{i}_{what}", "probability", f"seat {i} comes {what}")
        for what in ("first", "last")
        for i in (1, 2)
    )
    race = Question("race", "a race", RaceSetup, metrics, simulate)
    game = Game("race", "Race", RaceRules, {}, {"race": race}, "race")
    result = run_scenario(
        parse_scenario({"game": game, "seed": 3, "trials": 100, "grid": {"edge": [0.0, 0.3]}}), jobs=1
    )
    rows = pl.DataFrame({
        "edge": [0.0] * 4 + [0.3] * 4,
        "metric": ["seat1_first", "seat2_first", "seat1_last", "seat2_last"] * 2,
        "estimate": [None, None, 0.9, 0.8, None, None, 0.5, 0.1],
        "se": [None, None, 0.01, 0.01, None, None, 0.01, 0.01],
    })
    assert _seats(result, rows) == [
        "Seats: the largest gap in the chance that each seat comes last (`seat*_last`) is 0.400, "
        "seat 1 0.500 against seat 2 0.100 at edge = 0.3."
    ]


def test_a_distribution_that_moves_is_said_to_shift_in_so_many_setups():
    two = {"official": {}, "loaded": {"builtin": "loaded"}}
    scenario = {**SCENARIO, "metrics": ["total", "win"], "variants": two}
    result = run_scenario(parse_scenario(scenario, default_name="coin-shift"), jobs=1)
    tables = all_tables(result)
    sentences = findings(result, tables)
    moved = sentences[0]  # one variant compared: its sentence leads
    assert moved.startswith(
        "“Heads 70% of the time” (`loaded`) shifts the distribution of heads + bonus (`total`) in 3 of 3 "
        "setups and raises the chance that at least need heads (`win`) in 3 of 3 setups ("
    ), moved
    # the largest effects count a distribution's values as one metric: its largest value only
    largest = next(s for s in sentences if s.startswith("Largest effect"))
    assert largest.startswith("Largest effects: ") and largest.count("(`total=") == 1, largest
    # the headline (of several variants) names the distribution once, not each of its values
    assert unsized(_headline(tables["comparison"], result)) == (
        "Against “the official rules” (`official`): “heads 70% of the time” (`loaded`) shifts the "
        "distribution of heads + bonus and raises the chance that at least need heads (changes in 3 of 3 "
        "setups)."
    )


def test_a_side_is_favoured_by_its_exact_value_and_a_seat_gap_weighs_both_seats_noise():
    from montecarlo.reporting.findings import _seat_gap, _side

    # the exact value decides where there is one, even when the interval straddles one half
    assert _side({"exact": 0.6, "estimate": 0.5, "ci_low": 0.45, "ci_high": 0.55}) == 1
    assert _side({"exact": None, "estimate": 0.5, "ci_low": 0.45, "ci_high": 0.55}) == 0
    # without one, the interval must leave one half out
    intervals = ((0.51, 0.6), (0.4, 0.49))
    assert [_side({"exact": None, "ci_low": lo, "ci_high": hi}) for lo, hi in intervals] == [1, -1]
    # an interval that reaches one half exactly does not leave it out
    touching = ((0.5, 0.6), (0.4, 0.5))
    assert [_side({"exact": None, "ci_low": lo, "ci_high": hi}) for lo, hi in touching] == [0, 0]
    assert _side({"exact": 0.5 + 1e-12, "ci_low": 0.6, "ci_high": 0.7}) == 0
    rows = pl.DataFrame(
        {"metric": ["seat1_points", "seat2_points"], "estimate": [2.0, 1.0], "se": [0.3, 0.4]}
    )
    gap, high, low, noise = _seat_gap(rows, ["seat1_points", "seat2_points"], [])
    assert (gap, high["metric"], low["metric"]) == (1.0, "seat1_points", "seat2_points")
    assert noise == pytest.approx(4.5 * 0.5)  # 4.5 standard errors of the difference of two seats
    # a seat that never scores has no noise (standard error 0, or none): only the other seat's counts
    for none in (0.0, None):
        rows = pl.DataFrame(
            {"metric": ["seat1_first", "seat2_first"], "estimate": [0.6, 0.0], "se": [0.01, none]}
        )
        assert _seat_gap(rows, ["seat1_first", "seat2_first"], [])[3] == pytest.approx(4.5 * 0.01)
        rows = pl.DataFrame(  # ... whichever seat it is: here the one that always scores
            {"metric": ["seat1_first", "seat2_first"], "estimate": [1.0, 0.4], "se": [none, 0.01]}
        )
        assert _seat_gap(rows, ["seat1_first", "seat2_first"], [])[3] == pytest.approx(4.5 * 0.01)


def test_the_largest_seat_gap_is_the_first_in_the_grids_order_among_equal_ones_of_its_own_metrics():
    """Two setups with the same gap: the first one is named (whatever polars' grouping does);
    another metric's rows (a wider spread) are not part of the seats' gap."""
    rows = pl.DataFrame({
        "size": [3, 3, 3, 1, 1, 1, 2, 2],
        "metric": ["seat1_wins", "seat2_wins", "rounds"] * 2 + ["seat1_wins", "seat2_wins"],
        "estimate": [0.75, 0.25, 9.0, 0.625, 0.125, 7.0, 0.5, 0.5],  # gaps of exactly 1/2
        "se": [0.01] * 8,
    })
    gap, higher, lower, _ = _seat_gap(rows, ["seat1_wins", "seat2_wins"], ["size"])
    assert gap == 0.5 and higher["size"] == lower["size"] == 3
    assert (higher["metric"], lower["metric"]) == ("seat1_wins", "seat2_wins")
    # 200 setups, every gap equal: the first is named every time (grouped without keeping the
    # order, polars put the first group first in 1 call of 200, measured)
    many = pl.DataFrame({"size": [n for n in range(200, 0, -1) for _ in (1, 2)],
                         "metric": ["seat1_wins", "seat2_wins"] * 200, "estimate": [0.75, 0.25] * 200,
                         "se": [0.01] * 400})
    for _ in range(3):
        assert _seat_gap(many, ["seat1_wins", "seat2_wins"], ["size"])[1]["size"] == 200


def test_a_variant_that_moves_one_metric_names_the_ones_it_leaves_unchanged_significantly():
    """A fake toss: under ``big``, ``hit`` moves by 0.2, while ``near`` keeps its chance of 1/2 but
    changes on 20% of the trials, both ways (shifted modulo 1); ``tiny`` moves ``hit`` by 0.001,
    too little for 2,000 trials."""

    def simulate(rules, setup, n, rng):
        return {"hit": rng.random(n) < 0.5 + rules.edge, "near": (rng.random(n) + rules.edge) % 1.0 < 0.5}

    builtins = {"big": {"edge": 0.2}, "tiny": {"edge": 0.001}}
    game = toss_game(simulate, {"hit": "a hit", "near": "a near miss"}, builtins)
    variants = {"official": {}, "big": {"builtin": "big"}, "tiny": {"builtin": "tiny"}}
    spec = {"game": game, "seed": 1, "trials": 2000, "variants": variants}
    result = run_scenario(parse_scenario(spec), jobs=1)
    sentences = findings(result, all_tables(result))
    assert headline(sentences).endswith("; `tiny` no significant change.")  # not "changes nothing"
    big = sentences[1]
    assert big.startswith("`big` raises the chance that a hit (`hit`) in 1 of 1 setups (")
    assert big.endswith("; no significant change to the chance that a near miss (`near`)."), big
    # one significant row: its effect is the largest
    largest = next(s for s in sentences if s.startswith("Largest effect"))
    assert largest.startswith("Largest effect: `big` on the chance that a hit (`hit`): +0."), largest
    assert re.search(r"\(95% CI [-+.\d]+ to [-+.\d]+\)\.$", largest), largest  # no exact value, no word of it


def test_variant_names_cut_values_counted_metrics_and_mixed_values_in_order():
    from types import SimpleNamespace as N

    from montecarlo.reporting.findings import _few, _less, _rare, _short, _variant

    def named(description):
        return _variant(N(variants=[N(name="house", description=description)]), "house")

    assert named("heads 70% of the time; from a forum") == "“heads 70% of the time” (`house`)"
    assert named("ties to the attacker (a house rule)") == "“ties to the attacker” (`house`)"
    assert named("house") == "`house`"
    spaced = N(variants=[N(name="ties_to_attacker", description="ties to attacker")])
    assert _variant(spaced, "ties_to_attacker") == "`ties_to_attacker`"  # the name in words says no more
    aside = "the tie rules (and ties_split_up) never apply; see p. 3"  # the aside goes, the rest stays
    assert named(aside) == "“the tie rules never apply” (`house`)"
    # a head of three words or more before ": " stands for the clause; a shorter one does not
    assert named("the rules as printed: a tie goes to both: see p. 3") == "“the rules as printed” (`house`)"
    assert named("ties: to the attacker") == "“ties: to the attacker” (`house`)"
    assert named("ties favour attackers: see p. 3") == "“ties favour attackers” (`house`)"  # three words
    # a long description is cut at its last space before 110 characters
    exactly = "every tied round of combat goes to the attacking side instead of being rolled again by both"
    exactly += " sides, house rules"
    assert len(exactly) == 110 and named(exactly) == f"“{exactly}” (`house`)"  # 110 characters: whole
    assert named(exactly + "s") == f"“{exactly[:exactly.rfind(' ')]} …” (`house`)"
    later = exactly + " and then some"  # cut before the limit, not at the last space of all
    assert named(later) == f"“{exactly[:exactly.rfind(' ')]} …” (`house`)"
    assert named("ties go to the `attacker`") == "“ties go to the attacker” (`house`)"  # no code marks
    assert _short("a" * 50, 10) == "a" * 10 + " …"  # no space to cut at: cut at the limit
    assert _short("a b" * 4, 12) == "a b" * 4  # up to the limit itself, whole
    # cut at the last space or "+" before the limit, never at the first character
    assert _short("a+b+cccccccccc+dd", 10) == "a+b …"
    assert _short("one, twothree", 9) == "one …"  # a comma before the cut goes too
    assert _short(" aaaaaaaaaaaa", 10) == " aaaaaaaaa …"
    assert _short("a aaaaaaaaaaaa", 10) == "a …"
    assert _short("one two three four", 10) == "one two …"
    assert _short("rule X and more", 8) == "rule X …"  # only commas, semicolons, + and spaces are trimmed
    caveat = " (though the exact values differ in {}: a change too rare for these trials)"
    assert [_rare(n) for n in (0, 1, 2)] == ["", caveat.format("1 row"), caveat.format("2 rows")]
    assert [_few("abcde"[:n], 3) for n in (3, 4, 5)] == [
        "a, b and c", "a, b, c and 1 more metric", "a, b, c and 2 more metrics"
    ]
    # values of different types sort by their text
    assert (_less(1, 2), _less("A", 1), _less(1, "A")) == (True, False, True)
    # strictly: two values of the same text (1 and "1") are not each less than the other, so
    # such a pair of swapped setups is read once
    assert (_less(1, "1"), _less("1", 1)) == (False, False)


def test_a_crossing_whose_even_setups_are_not_its_diagonal_counts_them():
    """Above 50% exactly when attacker − defender ≥ 1, even at 1 v 1 and 2 v 2 but below at 3 v 3:
    the even setups are not the line "when it is 0", so the sentence counts them."""
    from montecarlo.reporting.findings import _crossing

    grid = {"attacker": [1, 2, 3], "defender": [1, 2, 3]}
    fair = run_scenario(parse_scenario({"game": duel_game(), "seed": 1, "trials": 100, "grid": grid}), jobs=1)
    cells = [(a, d) for a in grid["attacker"] for d in grid["defender"]]
    exact = [0.75 if a > d else 0.5 if a == d < 3 else 0.25 for a, d in cells]
    part = pl.DataFrame({"attacker": [a for a, _ in cells], "defender": [d for _, d in cells],
                         "estimate": exact, "exact": exact, "ci_low": exact, "ci_high": exact})
    assert _crossing(fair, "attacker_win", part, "attacker", "defender") == [
        "The chance that the attacker wins (`attacker_win`) is above 50% exactly when attacker − defender "
        "≥ 1; even (50% within the interval) at 2 setups."
    ]
    # even or below everywhere, then even or above everywhere: nothing crosses 50%
    for one_side in ([min(p, 0.5) for p in exact], [max(p, 0.5) for p in exact]):
        part = part.with_columns(pl.Series(name, one_side) for name in ("estimate", "exact", "ci_low",
                                                                         "ci_high"))
        assert _crossing(fair, "attacker_win", part, "attacker", "defender") == []


def test_a_crossing_is_said_for_the_first_three_values_of_a_field_outside_the_matrix():
    """A third grid field (a bonus, 4 values) makes one matrix per value: one sentence for each
    of the first three where the chance crosses 50%, in grid order, each naming its value (with a
    bonus of 3 the attacker is above 50% throughout: no line to draw)."""
    from montecarlo.reporting.findings import _crossing

    grid = {"attacker": [1, 2, 3], "defender": [1, 2, 3]}
    fair = run_scenario(parse_scenario({"game": duel_game(), "seed": 1, "trials": 100, "grid": grid}), jobs=1)
    bonuses = [3, 1, 0, 2]  # grid order, not sorted
    scenario = dataclasses.replace(fair.scenario, grid={**grid, "bonus": bonuses})
    result = dataclasses.replace(fair, scenario=scenario)
    cells = [(b, a, d) for b in bonuses for a in grid["attacker"] for d in grid["defender"]]
    p = [0.75 if a + b > d else 0.25 for b, a, d in cells]  # above 50% exactly when a - d >= 1 - b
    part = pl.DataFrame({"bonus": [b for b, _, _ in cells], "attacker": [a for _, a, _ in cells],
                         "defender": [d for _, _, d in cells], "estimate": p, "exact": p, "ci_low": p,
                         "ci_high": p})
    said = _crossing(result, "attacker_win", part, "attacker", "defender")
    assert said == [
        f"The chance that the attacker wins (`attacker_win`) is above 50% with bonus = {b} exactly when "
        f"attacker − defender ≥ {1 - b}."
        for b in bonuses[1:]
    ]


def test_values_past_the_third_where_the_chance_crosses_are_named_not_left_out():
    """Three sentences at most, then one naming the other values where the chance crosses 50%:
    the battle matrix's settlement 3 was left out, which read as "never above 50% there"."""
    from montecarlo.reporting.findings import _crossing

    grid = {"attacker": [1, 2, 3], "defender": [1, 2, 3]}
    fair = run_scenario(parse_scenario({"game": duel_game(), "seed": 1, "trials": 100, "grid": grid}), jobs=1)
    bonuses = [1, 0, 2, -1]
    scenario = dataclasses.replace(fair.scenario, grid={**grid, "bonus": bonuses})
    result = dataclasses.replace(fair, scenario=scenario)
    cells = [(b, a, d) for b in bonuses for a in grid["attacker"] for d in grid["defender"]]
    p = [0.75 if a + b > d else 0.25 for b, a, d in cells]
    part = pl.DataFrame({"bonus": [b for b, _, _ in cells], "attacker": [a for _, a, _ in cells],
                         "defender": [d for _, _, d in cells], "estimate": p, "exact": p, "ci_low": p,
                         "ci_high": p})
    said = _crossing(result, "attacker_win", part, "attacker", "defender")
    assert len(said) == 4 and all(f"with bonus = {b} " in text for b, text in zip(bonuses, said[:3]))
    assert said[3] == ("The chance that the attacker wins (`attacker_win`) crosses 50% as well with "
                       "bonus = -1 (its table below shows where).")


def test_values_of_a_field_outside_the_matrix_where_the_chance_crosses_alike_share_one_sentence():
    """An investment's chance does not depend on its payout: one sentence "with payout = 2, 4 or
    6", not three alike; a value where the chance stays on one side of 50% is not named."""
    from montecarlo.reporting.findings import _crossing

    grid = {"attacker": [1, 2, 3], "defender": [1, 2, 3]}
    fair = run_scenario(parse_scenario({"game": duel_game(), "seed": 1, "trials": 100, "grid": grid}), jobs=1)
    bonuses = [2, 4, 9, 6]
    scenario = dataclasses.replace(fair.scenario, grid={**grid, "bonus": bonuses})
    result = dataclasses.replace(fair, scenario=scenario)
    cells = [(b, a, d) for b in bonuses for a in grid["attacker"] for d in grid["defender"]]
    p = [0.75 if a > d or b == 9 else 0.25 for b, a, d in cells]
    part = pl.DataFrame({"bonus": [b for b, _, _ in cells], "attacker": [a for _, a, _ in cells],
                         "defender": [d for _, _, d in cells], "estimate": p, "exact": p, "ci_low": p,
                         "ci_high": p})
    assert _crossing(result, "attacker_win", part, "attacker", "defender") == [
        "The chance that the attacker wins (`attacker_win`) is above 50% with bonus = 2, 4 or 6 exactly when "
        "attacker − defender ≥ 1."
    ]


def test_without_exact_values_an_asymmetry_inside_both_cells_noise_is_called_noise():
    """The fake duel without its exact solver, with a 3-point edge to the attacker: swapped, the
    two chances sum to about 1.06, inside 4.5 standard errors of that sum (about 0.071 at 2,000
    trials a cell) though not inside 4.5 standard errors of one cell (about 0.05). Seed 5 puts the
    estimated sum in that window (seeds 5, 6 and 7 of 1..8 do); the first assert says so."""
    grid = {"attacker": [1, 2], "defender": [1, 2]}
    spec = {"game": duel_game(exact=False), "seed": 5, "trials": 2000, "grid": grid, "rules": {"edge": 0.03}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    tables = all_tables(result)
    value = {(r["attacker"], r["defender"]): r for r in tables["results"].iter_rows(named=True)}
    low, high = value[1, 2], value[2, 1]
    size = low["estimate"] + high["estimate"] - 1
    assert 4.5 * max(low["se"], high["se"]) < size <= 4.5 * math.hypot(low["se"], high["se"]), size
    assert "swapping the two sides changes nothing beyond noise" in " ".join(findings(result, tables))


def test_one_rule_set_says_the_range_of_its_first_three_metrics_that_are_not_distributions():
    """A distribution has no range of its own (its values are metrics of their own): it takes none
    of the three places. A metric that applies to no setup (``a``) takes one but says nothing, and
    the metrics after it are still said; a fourth is left to the tables."""
    import dataclasses

    from montecarlo.games.base import Metric

    def simulate(rules, setup, n, rng):
        out = {name: rng.random(n) < 0.2 * setup.size for name in "abcd"}
        return {"score": rng.integers(0, 2, n), **out}

    game = toss_game(simulate, {name: f"{name} happens" for name in "abcd"}, {})
    score = Metric("score", "distribution", "the score", support=(0, 1))
    toss = game.questions["toss"]
    applies = lambda setup: ("score", "b", "c", "d")  # noqa: E731
    toss = dataclasses.replace(toss, metrics=(score, *toss.metrics), applicable=applies)
    game = dataclasses.replace(game, questions={"toss": toss})
    spec = {"game": game, "seed": 1, "trials": 500, "grid": {"size": [1, 2]},
            "metrics": ["score", "a", "b", "c", "d"]}  # named: by default `a` is left out
    result = run_scenario(parse_scenario(spec), jobs=1)
    ranges = [s.split(" (`")[0] for s in findings(result, all_tables(result)) if " ranges from " in s]
    assert ranges == ["The chance that b happens", "The chance that c happens"]
    unnamed = {k: v for k, v in spec.items() if k != "metrics"}
    assert parse_scenario(unnamed).metrics == ("score", "b", "c", "d")


@pytest.mark.parametrize(
    ("names", "rest"), [("abc", None), ("abcd", "1 more metric"), ("abcde", "2 more metrics")]
)
def test_past_three_metrics_a_variant_counts_the_rest(names, rest):
    def simulate(rules, setup, n, rng):
        return {name: rng.random(n) < 0.5 + rules.edge for name in names}

    game = toss_game(simulate, {name: f"{name} happens" for name in names}, {"big": {"edge": 0.2}})
    spec = {"game": game, "seed": 1, "trials": 2000, "variants": {"official": {}, "big": {"builtin": "big"}}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    tables = all_tables(result)
    moved = findings(result, tables)[0]
    if rest is None:  # three are named
        assert "more metric" not in moved and moved.count(" in 1 of 1 setups") == 3, moved
    else:
        assert moved.endswith(f" and moves {rest} (see the comparison table)."), moved
    more = len(names) - 2  # the headline names two metrics a variant moves
    assert unsized(_headline(tables["comparison"], result)).endswith(
        f"`big` raises the chance that a happens and the chance that b happens, and moves {more} more "
        f"metric{'s' * (more > 1)} (changes in 1 of 1 setups)."
    )
    # no exact value here: the largest estimate of the first metric named (b's or c's may be larger)
    comparison = tables["comparison"].filter(pl.col("significant"), pl.col("metric") == "a")
    top = comparison.sort(pl.col("difference").abs(), descending=True).row(0, named=True)
    size = number_range([top["difference"]])
    said = f"; largest {size}, in the chance that {top['metric']} happens)."
    assert _headline(tables["comparison"], result).endswith(said)


def test_each_rule_set_is_said_how_fair_it_is_to_the_seats():
    def simulate(rules, setup, n, rng):
        first, second = rng.random(n), rng.random(n)
        return {"seat1_win": first < 0.5 + rules.edge, "seat2_win": second < 0.5 - rules.edge}

    seats = {"seat1_win": "seat 1 wins", "seat2_win": "seat 2 wins"}
    game = toss_game(simulate, seats, {"big": {"edge": 0.2}})
    spec = {"game": game, "seed": 1, "trials": 2000, "variants": {"official": {}, "big": {"builtin": "big"}}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    text = " ".join(findings(result, all_tables(result)))
    assert re.search(
        r"Largest gap between seats in the chance that each seat wins \(`seat\*_win`\): “the official rules” "
        r"\(`official`\) 0\.0\d\d \(within noise\); `big` 0\.(3[89]|4[0-2])\d \(seat 1 over seat 2\)\.",
        text,
    ), text


def test_the_headline_sizes_only_the_metrics_it_names():
    """`tiebreak_by_troops` "raises" two metrics, and its largest change read -0.022, on a metric
    the headline counts but does not name; `best_play`'s read +4.323 rolls beside a chance: the
    size is of the first metric named."""
    edges = {"a": 0.1, "b": 0.1, "c": -0.3}

    def simulate(rules, setup, n, rng):
        return {name: rng.random(n) < 0.5 + rules.edge * edge for name, edge in edges.items()}

    game = toss_game(simulate, {name: f"{name} happens" for name in edges}, {"big": {"edge": 1.0}})
    spec = {"game": game, "seed": 1, "trials": 4000, "variants": {"official": {}, "big": {"builtin": "big"}}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    said = _headline(all_tables(result)["comparison"], result)
    assert "raises the chance that a happens and the chance that b happens, and moves 1 more metric" in said
    size = re.search(r"; largest \+(0\.\d+), in the chance that a happens\)", said)
    assert size and abs(float(size[1]) - 0.1) < 0.05, said


def test_the_largest_change_is_chosen_and_said_by_its_exact_value():
    """An estimate can rank two changes the other way round from their exact values: the exact
    ones choose it (b's estimate +0.29 is larger than a's +0.25, but a's exact +0.30 is)."""
    from types import SimpleNamespace as N

    from montecarlo.engine.metrics import Metric
    from montecarlo.reporting.findings import _largest_change

    sc = N(question=N(metric=lambda name: Metric(name, "probability", f"{name} happens")))
    sig = pl.DataFrame({"metric": ["a", "b"], "difference": [0.25, 0.29], "exact_difference": [0.30, 0.28]})
    assert _largest_change(sc, sig) == "; largest +0.300, in the chance that a happens"
    estimated = sig.with_columns(pl.lit(None, dtype=pl.Float64).alias("exact_difference"))
    assert _largest_change(sc, estimated) == "; largest +0.290, in the chance that b happens"
    assert _largest_change(sc, sig.with_columns(pl.lit("total=3").alias("metric"))) == ""  # a distribution's
    # the largest by size, a fall as much as a rise; of equal sizes the first in the table
    both = pl.DataFrame({"metric": ["a", "b", "c"], "difference": [0.1, -0.5, 0.5],
                         "exact_difference": [None, None, None]},
                        schema_overrides={"exact_difference": pl.Float64})
    assert _largest_change(sc, both) == "; largest -0.500, in the chance that b happens"


def test_the_headline_names_the_seats_a_variant_leaves_alone():
    """tiebreak_by_seat raised the first-reward chance of seats 1 to 3 and left seat 4's the same
    in every setup; the headline said it raised "the chance that each seat takes the first reward".
    A seat alone is named as itself."""

    def simulate(rules, setup, n, rng):
        draws = [rng.random(n) for _ in range(4)]
        edge = [rules.edge * (seat < setup.size) for seat in range(4)]  # the first `size` seats gain
        return {f"seat{i + 1}_win": d < 0.3 + e for i, (d, e) in enumerate(zip(draws, edge))}

    seats = {f"seat{i}_win": f"seat {i} wins" for i in range(1, 5)}
    game = toss_game(simulate, seats, {"up": {"edge": 0.3}, "same": {"edge": 0.0}})
    variants = {"official": {}, "up": {"builtin": "up"}, "same": {"builtin": "same"}}
    three_and_four = "each seat but seats 3 and 4"
    for sizes, but in (([2], three_and_four), ([1], "seat 1"), ([1, 2], three_and_four),
                       ([3], "each seat but seat 4"), ([4], "each seat")):
        spec = {"game": game, "seed": 1, "trials": 2000, "grid": {"size": sizes}, "variants": variants}
        result = run_scenario(parse_scenario(spec), jobs=1)
        said = findings(result, all_tables(result))
        assert unsized(said[0]) == (
            f"Against “the official rules” (`official`): `up` raises the chance that {but} wins (changes in "
            f"{len(sizes)} of {len(sizes)} setups); `same` changes nothing."
        )
    # seats that no setup has are no seats left alone: two seats of two, "each seat"
    seats = [f"seat{i}_win" for i in (1, 2)]
    two = dataclasses.replace(game.questions["toss"], applicable=lambda setup: seats)
    game = dataclasses.replace(game, questions={"toss": two})
    spec = {"game": game, "seed": 1, "trials": 2000, "grid": {"size": [2]}, "variants": variants}
    result = run_scenario(parse_scenario(spec), jobs=1)
    assert findings(result, all_tables(result))[0].startswith(
        "Against “the official rules” (`official`): `up` raises the chance that each seat wins (changes in 1 "
    )


def test_seats_over_a_grid_are_said_once_in_the_headline_and_their_gap_where_it_is():
    """Two variants that favour seat 1 at size 2 only: the headline says "each seat" once, in
    words (no metric names in a sentence about every variant), and each seat gap names its setup."""

    def simulate(rules, setup, n, rng):
        edge = rules.edge if setup.size == 2 else 0.0
        first, second = rng.random(n), rng.random(n)
        return {"seat1_win": first < 0.5 + edge, "seat2_win": second < 0.5 - edge}

    seats = {"seat1_win": "seat 1 wins", "seat2_win": "seat 2 wins"}
    game = toss_game(simulate, seats, {"big": {"edge": 0.2}, "small": {"edge": 0.1}})
    variants = {"official": {}, "big": {"builtin": "big"}, "small": {"builtin": "small"}}
    spec = {"game": game, "seed": 1, "trials": 2000, "grid": {"size": [1, 2]}, "variants": variants}
    result = run_scenario(parse_scenario(spec), jobs=1)
    said = findings(result, all_tables(result))
    assert unsized(said[0]) == (
        "Against “the official rules” (`official`): `big` moves the chance that each seat wins (changes "
        "in 1 of 2 setups); `small` moves the chance that each seat wins (changes in 1 of 2 setups)."
    )
    gap = next(s for s in said if s.startswith("Largest gap between seats"))
    assert re.fullmatch(
        r"Largest gap between seats in the chance that each seat wins \(`seat\*_win`\): “the official rules” "
        r"\(`official`\) 0\.0\d\d \(within noise\); "
        r"`big` 0\.(3[89]|4[0-3])\d \(seat 1 over seat 2 at size = 2\); "
        r"`small` 0\.(1[89]|2[0-2])\d \(seat 1 over seat 2 at size = 2\)\.",
        gap,
    ), gap


def test_when_no_variant_changes_anything_significantly_that_is_said_first():
    spec = {
        "game": GAME, "seed": 2, "trials": 400, "metrics": ["win"], "grid": {"flips": [2, 3]},
        "variants": {
            "official": {}, "up": {"overrides": {"bias": 0.51}}, "down": {"overrides": {"bias": 0.49}},
        },
    }
    result = run_scenario(parse_scenario(spec), jobs=1)
    said = findings(result, all_tables(result))
    assert said[:4] == [
        "No variant changes any metric significantly (4 tests, Holm correction at 5%).",
        "Against “the official rules” (`official`): “bias = 0.51” (`up`) no significant change; "
        "“bias = 0.49” (`down`) no significant change.",
        "“Bias = 0.51” (`up`) changes nothing significantly (the chance that at least need heads (`win`): "
        "largest difference 0.0075).",
        "“Bias = 0.49” (`down`) changes nothing significantly (the chance that at least need heads (`win`): "
        "largest difference 0.0075).",
    ]


def test_a_scenario_whose_metrics_apply_to_no_setup_says_so():
    import dataclasses

    def simulate(rules, setup, n, rng):
        return {"hit": rng.random(n) < 0.5}

    game = toss_game(simulate, {"hit": "a hit"}, {})
    game.questions["toss"] = dataclasses.replace(game.questions["toss"], applicable=lambda setup: ())
    result = run_scenario(parse_scenario({"game": game, "seed": 1, "trials": 200, "grid": {"size": [1, 2]}}))
    assert findings(result, all_tables(result)) == [
        "No numbers to summarise: every metric is not applicable to every setup."
    ]


def coin_only_at_size_two(builtins: dict[str, dict]):
    """A fake toss of ``hit`` (0.3 + the rules' ``edge``) and ``coin`` (a fair coin), ``coin``
    not applicable at size 1 (its rows there are n/a)."""
    import dataclasses

    def simulate(rules, setup, n, rng):
        return {"hit": rng.random(n) < 0.3 + rules.edge, "coin": rng.random(n) < 0.5}

    game = toss_game(simulate, {"hit": "a hit", "coin": "heads first"}, builtins)
    applies = lambda setup: ("hit",) if setup.size == 1 else ("hit", "coin")  # noqa: E731
    game.questions["toss"] = dataclasses.replace(game.questions["toss"], applicable=applies)
    return game


def test_largest_effects_leave_out_metrics_a_setup_does_not_have():
    """``coin`` does not apply at size 1 (its rows there are n/a, with no difference at all): the
    largest effects are the significant ones of ``hit`` only."""
    import dataclasses

    game = coin_only_at_size_two({"edge": {"edge": 0.3}, "flat": {"edge": 0.0}})
    variants = {"official": {}, "edge": {"builtin": "edge"}, "flat": {"builtin": "flat"}}
    spec = {"game": game, "seed": 1, "trials": 2000, "grid": {"size": [1, 2]}, "variants": variants}
    result = run_scenario(parse_scenario(spec), jobs=1)
    sentences = findings(result, all_tables(result))
    largest = next(s for s in sentences if s.startswith("Largest effect"))
    assert largest.startswith("Largest effect: `edge` on the chance that a hit (`hit`): +0."), largest
    assert "—" not in largest and "coin" not in largest
    # `flat` is identical wherever a metric applies: its n/a rows do not make it "no significant change"
    assert headline(sentences).endswith("; `flat` changes nothing.")
    edge = next(s for s in sentences if s.startswith("`edge`"))
    assert edge.endswith(
        "it leaves the chance that heads first (`coin`) identical in every setup where it applies."
    )
    # a metric that applies to no setup at all is passed over, the metrics after it still said
    none = lambda setup: ("hit",)  # noqa: E731
    game.questions["toss"] = dataclasses.replace(game.questions["toss"], applicable=none)
    result = run_scenario(parse_scenario({**spec, "metrics": ["coin", "hit"]}), jobs=1)
    edge = next(s for s in findings(result, all_tables(result)) if s.startswith("`edge`"))
    assert edge.startswith("`edge` raises the chance that a hit (`hit`) in 2 of 2 setups"), edge


def test_a_single_setup_states_each_metric_with_its_interval():
    sc = parse_scenario({"game": GAME, "seed": 3, "trials": 4000, "metrics": ["win", "heads"],
                         "setup": {"flips": 2}})
    result = run_scenario(sc, jobs=1)
    tables = all_tables(result)
    text, long = findings(result, tables), tables["results"]
    said = {}
    for metric, words in (("win", "The chance that at least need heads (`win`)"),
                          ("heads", "Number of heads (`heads`)")):
        row = long.filter(pl.col("metric") == metric).row(0, named=True)
        said[metric] = (f"{words} is {row['estimate']:.3f} (95% CI {row['ci_low']:.3f} to "
                        f"{row['ci_high']:.3f}).")
        assert said[metric] in text, (said, text)
    assert abs(float(said["heads"].split(" is ")[1][:5]) - 1.0) < 0.05  # two fair flips: one head


def test_a_variant_identical_in_every_trial_but_not_exactly_says_so():
    """"Leaves every metric identical" is what the trials saw: where the exact solver tells the
    rule sets apart, the sentence says so."""
    from tests.reporting.test_tables import RARE_SWORD

    result = run_scenario(parse_scenario(RARE_SWORD), jobs=1)
    said = findings(result, all_tables(result))
    assert said[0].endswith(
        "(`sword_d7`) leaves every metric identical to “the official rules” (`official`) in all 2 setups: "
        "the two rule sets agree on every trial of these setups (though the exact values differ in 2 rows: "
        "a change too rare for these trials)."
    ), said
    d9 = {**RARE_SWORD["variants"], "sword_d9": {"overrides": {"sword_faces": 9}}}
    both = run_scenario(parse_scenario({**RARE_SWORD, "variants": d9}), jobs=1)
    assert findings(both, all_tables(both))[1].endswith(
        "leave every metric identical to “the official rules” (`official`) in all 2 setups: all 3 rule sets "
        "agree on every trial of these setups (though the exact values differ in 4 rows: a change too rare "
        "for these trials)."
    )  # the rows of both variants counted
    with_rounds = run_scenario(parse_scenario({**RARE_SWORD, "metrics": ["attacker_win", "rounds"]}), jobs=1)
    moved = findings(with_rounds, all_tables(with_rounds))[0]
    assert moved.endswith(
        "identical in all 2 setups (though the exact values differ in 2 rows: "
        "a change too rare for these trials)."
    ), moved


@pytest.mark.parametrize(
    ("rules", "equal", "largest"),
    [
        # the same gap for every pair: the first pair, in the grid's order, is named
        ({"edge": -0.1}, "0.400 (exact; favouring the defender side)",
         "1 against defender 2: 0.800 / defender / 20.0"),
        # even at 1, then above
        ({"edge": -0.05, "grow": 0.05}, "0.500–0.600 (exact; favouring the attacker side)",
         "2 against defender 3: 1.150 / attacker / 15.0"),
        # below, even at 1
        ({"edge": 0.05, "grow": -0.05}, "0.400–0.500 (exact; favouring the defender side)",
         "2 against defender 3: 0.850 / defender / 15.0"),
        # below at 1, even at 2, above at 3
        ({"edge": -0.1, "grow": 0.05}, "0.450–0.550 (exact; either side)",
         "1 against defender 2: 0.950 / defender / 5.0"),
    ],
)
def test_at_equal_sides_the_verdict_names_the_side_every_equal_setup_leans_to(rules, equal, largest):
    grid = {"attacker": [1, 2, 3], "defender": [1, 2, 3]}
    spec = {"game": duel_game(), "seed": 1, "trials": 2000, "grid": grid}
    result = run_scenario(parse_scenario({**spec, "rules": rules}), jobs=1)
    text = findings(result, all_tables(result))
    pair, facts = largest.split(": ")
    total, side, points = facts.split(" / ")
    assert (
        f"At equal attacker and defender, the chance that the attacker wins is {equal}; the largest "
        f"asymmetry is attacker {pair}: with the sides swapped the two chances sum to {total} instead of "
        f"1, the {side} side favoured by {points} points."
    ) in text


def test_the_swap_asymmetry_of_estimates_counts_their_noise_at_4_5_standard_errors():
    """Without exact values a swapped pair's gap is named when it passes 4.5 standard errors of the
    pair's sum, and a certain outcome (an estimate of 1, standard error 0) has no noise at all."""
    grid = {"attacker": [1, 2], "defender": [1, 2]}
    spec = {"game": duel_game(exact=False), "seed": 5, "trials": 2000, "grid": grid, "rules": {"edge": 0.04}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    tables = all_tables(result)
    value = {(r["attacker"], r["defender"]): r for r in tables["results"].iter_rows(named=True)}
    size = value[1, 2]["estimate"] + value[2, 1]["estimate"] - 1
    assert 4.5 < size / math.hypot(value[1, 2]["se"], value[2, 1]["se"]) <= 5.5  # seed 5 puts it there
    assert "the largest asymmetry is attacker 1 against defender 2" in " ".join(findings(result, tables))
    certain = run_scenario(parse_scenario({**spec, "rules": {"edge": 1.0}}), jobs=1)
    assert (
        "the largest asymmetry is attacker 1 against defender 2: with the sides swapped the two chances sum "
        "to 2.000 instead of 1, the attacker side favoured by 100.0 points"
    ) in " ".join(findings(certain, all_tables(certain)))


def test_the_swap_findings_go_by_the_other_fields_in_grid_order_three_at_most():
    game = duel_game()
    grid = {"attacker": [1, 2], "defender": [1, 2], "attacker_bonus": [0.0, 0.1, 0.2, 0.3]}
    result = run_scenario(parse_scenario({"game": game, "seed": 1, "trials": 2000, "grid": grid}), jobs=1)
    said = [s.split(":")[0] for s in findings(result, all_tables(result)) if ": at equal attacker" in s]
    assert said == ["With attacker bonus = 0.0", "With attacker bonus = 0.1", "With attacker bonus = 0.2"]
    # one setup a group: the label and the one-sided field are read from its only row
    grid = {"attacker": [2], "defender": [2], "attacker_bonus": [0.0, 0.1]}
    result = run_scenario(parse_scenario({"game": game, "seed": 1, "trials": 2000, "grid": grid}), jobs=1)
    assert [s for s in findings(result, all_tables(result)) if "at equal" in s] == [
        "With attacker bonus = 0.0: at equal attacker and defender, the chance that the attacker wins is "
        "0.500 (exact; even).",
        "With attacker bonus = 0.1: at equal attacker and defender, the chance that the attacker wins is "
        "0.600 (exact; attacker bonus = 0.1 is one side's only: this is its effect, not a seat advantage).",
    ]
    # without two fields of the same values there is no pair of sides to swap
    table = all_tables(result)["results"]
    assert _asymmetry(result, "attacker_win", table, None, "defender") == []
    assert _asymmetry(result, "attacker_win", table, "attacker", None) == []


def test_values_above_half_are_listed_in_the_grids_order_not_sorted():
    """A grid written ``attacker = [3, 1, 2]`` is described in that order (polars' unique would
    sort the values without ``maintain_order``)."""
    order = [(d, a) for d in (2, 1) for a in (3, 1, 2)]
    group = pl.DataFrame({"defender": [d for d, _ in order], "attacker": [a for _, a in order]})
    above = {(2, 3), (1, 3), (1, 2)}
    said = _per_row("the chance that the attacker wins", group, "defender", "attacker", "", above)
    assert said == (
        "The chance that the attacker wins is above 50% at these values of attacker: "
        "defender 2: 3; defender 1: 3, 2"
    )


def test_the_largest_seat_gap_is_looked_for_past_a_setup_with_one_seat_estimated():
    """At size 1 only the first seat has an estimate (the second's is null): that setup has no gap,
    and the setups after it are still looked at."""
    rows = pl.DataFrame({
        "size": [1, 1, 2, 2],
        "metric": ["seat1_wins", "seat2_wins", "seat1_wins", "seat2_wins"],
        "estimate": [0.9, None, 0.7, 0.3],
        "se": [0.01, None, 0.01, 0.01],
    })
    gap, higher, lower, noise = _seat_gap(rows, ["seat1_wins", "seat2_wins"], ["size"])
    assert gap == pytest.approx(0.4) and higher["size"] == lower["size"] == 2
    assert (higher["metric"], lower["metric"]) == ("seat1_wins", "seat2_wins")
    assert noise == pytest.approx(4.5 * math.hypot(0.01, 0.01))


def test_a_metric_with_one_value_everywhere_says_so_with_the_value():
    same = pl.DataFrame({"need": [1, 2, 3], "estimate": [0.25, 0.25, 0.25]})
    said = _range("The chance", same, ["need"], " of a head", chance=False)
    assert said == "The chance of a head is 0.250 in every setup."
    spread = same.with_columns(pl.Series("estimate", [0.5, 0.25, 0.75]))
    said = _range("The chance", spread, ["need"], "", chance=False)
    assert said == "The chance ranges from 0.250 (need = 2) to 0.750 (need = 3)."


def test_seat_metrics_that_are_distributions_are_not_compared_seat_by_seat():
    """``seatN_roll`` of kind distribution reports ``seatN_roll=v`` rows, not one estimate per seat:
    only the probabilities ``seatN_win`` form a group of seats."""
    import dataclasses

    from montecarlo.games.base import Metric
    from montecarlo.reporting.findings import _seat_groups

    def simulate(rules, setup, n, rng):
        return {"seat1_win": rng.random(n) < 0.5, "seat2_win": rng.random(n) < 0.5,
                "seat1_roll": rng.integers(0, 3, n), "seat2_roll": rng.integers(0, 3, n)}

    game = toss_game(simulate, {"seat1_win": "seat 1 wins", "seat2_win": "seat 2 wins"}, {})
    toss = game.questions["toss"]
    rolls = tuple(Metric(f"seat{i}_roll", "distribution", f"seat {i}'s roll", (0, 1, 2)) for i in (1, 2))
    game.questions["toss"] = dataclasses.replace(toss, metrics=toss.metrics + rolls)
    result = run_scenario(parse_scenario({"game": game, "seed": 1, "trials": 200}), jobs=1)
    assert _seat_groups(result) == {"win": ["seat1_win", "seat2_win"]}


def test_variants_are_said_in_the_scenarios_order():
    """Eight variants that all move ``hit``, listed out of alphabetical order: the headline and
    the sentences take them in the scenario's order (an unordered set of names would not)."""

    def simulate(rules, setup, n, rng):
        return {"hit": rng.random(n) < 0.5 + rules.edge}

    names = ["kite", "bell", "wolf", "acorn", "moth", "fern", "drum", "opal"]
    builtins = {name: {"edge": 0.05 * (i + 1)} for i, name in enumerate(names)}
    game = toss_game(simulate, {"hit": "a hit"}, builtins)
    variants = {"official": {}, **{name: {"builtin": name} for name in names}}
    result = run_scenario(parse_scenario({"game": game, "seed": 3, "trials": 2000, "variants": variants}),
                          jobs=1)
    sentences = findings(result, all_tables(result))
    said = [re.match(r"`(\w+)` raises", s) for s in sentences[1:]]
    assert [m.group(1) for m in said if m] == names
    assert re.findall(r"`(\w+)` raises", headline(sentences)) == names[:3]  # the headline names three
    assert headline(sentences).endswith("; and 5 more variants.")  # named in the findings that follow
    for count, rest in ((4, "1 more variant"), (5, "2 more variants")):
        fewer = {"official": {}, **{name: {"builtin": name} for name in names[:count]}}
        spec = {"game": game, "seed": 3, "trials": 2000, "variants": fewer}
        result = run_scenario(parse_scenario(spec), jobs=1)
        assert headline(findings(result, all_tables(result))).endswith(f"; and {rest}.")
    # the largest effects are the three largest, largest first (edges 0.4, 0.35, 0.3)
    largest = next(s for s in sentences if s.startswith("Largest effects"))
    assert re.findall(r"`(\w+)` on", largest) == ["opal", "drum", "fern"], largest
    assert all(item.startswith("`") for item in largest.removeprefix("Largest effects: ").split("; "))


def test_the_caveat_of_rare_changes_counts_the_rows_of_every_metric_left_identical():
    """``house`` moves ``hit`` and changes ``a`` and ``b`` by 1e-6 exactly: 2,000 trials on the
    same random numbers never see it (both arms agree on every trial), the exact values do, in
    the two setups of each: four rows."""
    from montecarlo.games.base import Game, Metric, Question

    @dataclasses.dataclass(frozen=True)
    class Rules:
        edge: float = 0.0
        tiny: float = 0.0

    @dataclasses.dataclass(frozen=True)
    class Setup:
        size: int = 1

    def simulate(rules, setup, n, rng):
        u = rng.random(n)
        hit = rng.random(n) < 0.5 + rules.edge
        return {"hit": hit, "a": u < 0.5 + rules.tiny, "b": u < 0.25 + rules.tiny}

    def exact(rules, setup):
        return {"hit": 0.5 + rules.edge, "a": 0.5 + rules.tiny, "b": 0.25 + rules.tiny}

    metrics = tuple(Metric(name, "probability", f"{name} happens") for name in ("hit", "a", "b"))
    toss = Question("toss", "a toss", Setup, metrics, simulate, exact=exact)
    game = Game("toss", "Toss", Rules, {"house": {"edge": 0.3, "tiny": 1e-6}}, {"toss": toss}, "toss")
    spec = {"game": game, "seed": 1, "trials": 2000, "grid": {"size": [1, 2]},
            "variants": {"official": {}, "house": {"builtin": "house"}}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    moved = findings(result, all_tables(result))[0]
    assert moved.startswith("`house` raises the chance that hit happens (`hit`) in 2 of 2 setups (")
    assert moved.endswith(
        "; it leaves the chance that a happens (`a`) and the chance that b happens (`b`) identical in all 2 "
        "setups (though the exact values differ in 4 rows: a change too rare for these trials)."
    ), moved


def test_seat_gaps_of_several_rule_sets_are_within_one_setup_for_two_groups_at_most():
    """Both seats win often at size 1 and rarely at size 2: no gap within a setup (each variant's
    gap is within noise), though the seats differ by 0.6 across setups. Of three groups of seat
    metrics, the first two are said."""

    def simulate(rules, setup, n, rng):
        p = 0.8 if setup.size == 1 else 0.2
        return {f"seat{seat}_{what}": rng.random(n) < p + rules.edge for what in "abc" for seat in (1, 2)}

    metrics = {f"seat{seat}_{what}": f"seat {seat} scores {what}" for what in "abc" for seat in (1, 2)}
    game = toss_game(simulate, metrics, {"more": {"edge": 0.1}})
    variants = {"official": {}, "more": {"builtin": "more"}}
    spec = {"game": game, "seed": 1, "trials": 2000, "grid": {"size": [1, 2]}, "variants": variants}
    result = run_scenario(parse_scenario(spec), jobs=1)
    gaps = [s for s in findings(result, all_tables(result)) if s.startswith("Largest gap between seats")]
    assert [s.split(":")[0] for s in gaps] == [
        "Largest gap between seats in the chance that each seat scores a (`seat*_a`)",
        "Largest gap between seats in the chance that each seat scores b (`seat*_b`)",
    ]
    assert all(s.count("(within noise)") == 2 for s in gaps), gaps


def test_a_range_end_shared_by_several_setups_says_how_many():
    import polars as pl

    from montecarlo.reporting.findings import _end

    part = pl.DataFrame({"a": [1, 2, 3, 4], "estimate": [0.0, 0.0, 0.5, 1.0]})
    assert _end(part, part.row(0, named=True), ["a"], False) == "a = 1, and 1 more setup"
    assert _end(part, part.row(3, named=True), ["a"], False) == "a = 4"
    three = pl.DataFrame({"a": [1, 2, 3], "estimate": [0.0, 0.0, 0.0]})
    assert _end(three, three.row(0, named=True), ["a"], False) == "a = 1, and 2 more setups"


# ---------------------------------------------------------------- focus: the grid's own question


def _focused(spec):
    spec = {"game": GAME, "seed": 2, "trials": 4000, "metrics": ["win"], **spec}
    result = run_scenario(parse_scenario(spec), jobs=1)
    return findings(result, all_tables(result))


def test_a_focus_field_of_two_values_says_what_the_second_changes_against_the_first():
    # exact: P(at least 2 of n) - P(at least 1 of n) = -n / 2**n: -0.5, -0.5, -0.375, -0.25
    said = _focused({"grid": {"flips": [1, 2, 3, 4], "need": [1, 2]}, "focus": ["need"]})
    assert said[0] == (
        "Need = 2 instead of 1 lowers the chance that at least need heads (`win`) in 4 of 4 setups of the "
        "other fields (-0.500 to -0.250; exact values)."
    )
    # the focus is one field of the matrix: where the odds turn over flips x need is not said
    assert not any("is above 50%" in s for s in said), said


def test_a_focus_field_of_ascending_numbers_says_what_each_step_up_changes():
    said = _focused({"grid": {"flips": [1, 2, 3, 4], "need": [1, 2]}, "focus": ["flips"]})
    # need 1: 0.5, 0.75, 0.875, 0.9375; need 2: 0, 0.25, 0.5, 0.6875: every step up raises it
    assert said[0] == (
        "Each step up in flips (1 → 2 → 3 → 4) raises the chance that at least need heads (`win`) in 6 of "
        "6 steps across the 2 setups of the other fields (+0.062 to +0.250; exact values)."
    )


def test_a_focus_field_of_other_values_is_read_against_its_first_value():
    # flips 2 is the yardstick; 1 lowers by 0.25 at either need, 4 raises by 0.1875 and 0.4375
    said = _focused({"grid": {"flips": [2, 1, 4], "need": [1, 2]}, "focus": ["flips"]})
    assert said[0] == (
        "Against flips = 2 (the first value), the other 2 values move (both ways) the chance that at least "
        "need heads (`win`) on average across the 2 setups of the other fields: highest with 4 (+0.312), "
        "lowest with 1 (-0.250); both change it in at least one setup (exact values)."
    )


def test_a_focus_field_declared_ordered_is_read_step_by_step_in_its_listed_order():
    # labelled into words, flips would be read against its first value; `ordered` says the words go
    # up as listed: 3 steps at each need, each one raising the chance
    labels = {"flips": {"1": "one coin", "2": "two coins", "3": "three coins", "4": "four coins"}}
    spec = {"grid": {"flips": [1, 2, 3, 4], "need": [1, 2]}, "focus": ["flips"], "labels": labels}
    assert _focused(spec)[0].startswith("Against flips = one coin (the first value)")
    said = _focused({**spec, "ordered": ["flips"]})
    assert said[0] == (
        "Each step up in flips (one coin → two coins → three coins → four coins) raises the chance that at "
        "least need heads (`win`) in 6 of 6 steps across the 2 setups of the other fields (+0.062 to +0.250; "
        "exact values)."
    )
    # in its listed order, not sorted: 4 coins listed before 3 is a step down there
    shuffled = {**spec, "grid": {"flips": [1, 2, 4, 3], "need": [1, 2]}, "ordered": ["flips"]}
    assert "(one coin → two coins → four coins → three coins) moves (both ways)" in _focused(shuffled)[0]


def test_focus_on_both_fields_of_the_matrix_leads_with_where_the_odds_turn_then_each_field():
    said = _focused({"grid": {"flips": [1, 2, 3, 4], "need": [1, 2]}, "focus": ["flips", "need"]})
    assert said[0].startswith("Each step up in flips ") and said[1].startswith("Need = 2 instead of 1 "), said
    assert said[2].startswith("The chance that at least need heads (`win`) is above 50% "), said
    assert said[3].startswith("The chance that at least need heads (`win`) ranges exactly from "), said


def test_with_a_focus_and_variants_the_grid_is_read_in_full_first():
    """Beside variants, a report without focus gives only its first metric's range; with focus on
    the two fields of its matrix, it says where the odds turn and every metric's range first."""
    spec = {"grid": {"flips": [1, 2, 3, 4], "need": [1, 2]}, "metrics": ["win", "heads"],
            "variants": {"official": {}, "loaded": {"builtin": "loaded"}}}
    plain = _focused(spec)
    assert not any("is above 50%" in s or s.startswith("Number of heads") for s in plain), plain
    said = _focused({**spec, "focus": ["flips", "need"]})
    assert said[2].startswith("The chance that at least need heads (`win`) is above 50% "), said
    assert said[0] == (  # the first metric's own numbers, whatever the other metrics hold
        "Each step up in flips (1 → 2 → 3 → 4) raises the chance that at least need heads (`win`) in 6 of "
        "6 steps across the 2 setups of the other fields (+0.062 to +0.250; exact values)."
    ), said
    assert any(s.startswith("Number of heads (`heads`) under ") for s in said), said
    assert said[-1].startswith("Largest effect"), said  # the variants after


def test_with_a_focus_the_grid_leads_and_the_variants_follow():
    spec = {"grid": {"flips": [1, 2]}, "variants": {"official": {}, "loaded": {"builtin": "loaded"}}}
    # no focus: the variants lead
    assert _focused(spec)[0].startswith("“Heads 70% of the time” (`loaded`) raises ")
    said = _focused({**spec, "focus": ["flips"]})
    assert said[0].startswith("Flips = 2 instead of 1 raises the chance that at least need heads (`win`) "
                              "(+0.250; exact values)"), said
    assert said[1].startswith("The chance that at least need heads (`win`) under “the official rules” "), said
    assert any(s.startswith("“Heads 70% of the time” (`loaded`) raises ") for s in said[2:]), said


def test_a_focus_reads_the_first_metric_that_is_one_number_and_only_where_it_applies():
    # a distribution first: the focus is read on the chance after it
    grid = {"flips": [1, 2, 3, 4], "need": [1, 2]}
    said = _focused({"grid": grid, "focus": ["need"], "metrics": ["total", "win"]})
    assert said[0].startswith("Need = 2 instead of 1 lowers the chance that at least need heads (`win`) ")
    only = _focused({"grid": grid, "focus": ["need"], "metrics": ["total"]})
    assert not any(s.startswith("Need = ") for s in only), only  # distributions only: nothing to read

    def simulate(rules, setup, n, rng):
        return {"hit": rng.random(n) < 0.5}

    game = toss_game(simulate, {"hit": "a hit"}, {})
    game.questions["toss"] = dataclasses.replace(
        game.questions["toss"], applicable=lambda setup: ("hit",) if setup.size == 1 else ()
    )
    spec = {"game": game, "seed": 1, "trials": 500, "grid": {"size": [1, 2]}, "focus": ["size"]}
    result = run_scenario(parse_scenario(spec), jobs=1)
    said = findings(result, all_tables(result))  # size 2 has no number: nothing to compare it with
    assert not any(s.startswith("Size = ") for s in said), said


def test_without_exact_values_a_focus_difference_within_noise_counts_as_none():
    game = duel_game(exact=False)
    grid = {"attacker": [1, 2], "attacker_bonus": [0.0, 1e-4]}
    spec = {"game": game, "seed": 5, "trials": 1000, "grid": grid,
            "focus": ["attacker_bonus", "attacker"]}
    result = run_scenario(parse_scenario(spec), jobs=1)
    said = findings(result, all_tables(result))
    assert said[0] == (
        "Attacker bonus = 0.0001 instead of 0.0 does not change the chance that the attacker wins "
        "(`attacker_win`) in any of 2 setups of the other fields (estimates; a difference within noise "
        "counts as none)."
    )
    # 0.5 -> 0.667: about 7 standard errors of two estimates of 1,000 trials
    assert said[1].startswith("Attacker = 2 instead of 1 raises the chance that the attacker wins "
                              "(`attacker_win`) in 2 of 2 setups of the other fields (+0."), said
    assert said[1].endswith("; estimates; a difference within noise counts as none)."), said


def test_a_chance_seen_in_no_trial_says_so_with_its_exact_value():
    from montecarlo.reporting.findings import _end

    row = {"g": 1, "estimate": 0.0, "exact": None, "trials": 500}
    assert _end(pl.DataFrame([row]), row, ["g"], chance=True) == "g = 1; none of 500 trials"
    row = {"g": 2, "estimate": 1.0, "exact": 0.99998, "trials": 500}
    assert _end(pl.DataFrame([row]), row, ["g"], chance=True) == "g = 2; all of 500 trials, exact 1 − 2.0e-5"
    row = {"g": 3, "estimate": 0.0, "exact": 0.0, "trials": 500}  # impossible: nothing to add
    assert _end(pl.DataFrame([row]), row, ["g"], chance=True) == "g = 3"
    mean = {**row, "exact": 1e-5}  # a mean: no trial count
    assert _end(pl.DataFrame([row]), mean, ["g"], False) == "g = 3"
    row = {"g": 4, "estimate": 1.0, "exact": 1.0, "trials": 500}  # certain, and seen so: nothing to add
    assert _end(pl.DataFrame([row]), row, ["g"], chance=True) == "g = 4"
    row = {"g": 5, "estimate": 0.0, "exact": 1e-12, "trials": 500}  # 1e-12 from 0: rounding, not a chance
    assert _end(pl.DataFrame([row]), row, ["g"], chance=True) == "g = 5"
    # setups alike: the note holds if any of them is not certain, with the farthest exact value
    alike = pl.DataFrame([{"g": g, "estimate": 0.0, "exact": e, "trials": 500}
                          for g, e in ((1, 0.0), (2, 5.7e-5), (3, 2e-5))])
    first = alike.row(0, named=True)
    said = _end(alike, first, ["g"], True)
    assert said == "g = 1, and 2 more setups; none of 500 trials, exact up to 5.7e-5"
    two = alike.head(2)  # two alike: "up to" already
    assert _end(two, first, ["g"], True) == "g = 1, and 1 more setup; none of 500 trials, exact up to 5.7e-5"
    ones = alike.with_columns(pl.lit(1.0).alias("estimate"), (1 - pl.col("exact")).alias("exact"))
    assert _end(ones, ones.row(0, named=True), ["g"], True) == (
        "g = 1, and 2 more setups; all of 500 trials, exact down to 1 − 5.7e-5"
    )


def test_a_metric_whose_unit_a_grid_field_sets_gets_a_range_per_unit():
    """``score`` is a chance at size 1 and points at size 100 (as Dustrunners' objective is a win
    chance or keep:W points): neither its range nor a variant's differences mix the two."""
    from montecarlo.games.base import Metric

    def simulate(rules, setup, n, rng):
        return {"score": (rng.random(n) < 0.3 + rules.edge) * float(setup.size) + setup.other / 10}

    score = Metric("score", "mean", "the score", unit_field="size")
    game = toss_game(simulate, {"score": score}, {"big": {"edge": 0.3}})
    spec = {"game": game, "seed": 1, "trials": 2000, "grid": {"size": [1, 100], "other": [1, 2]},
            "variants": {"official": {}, "big": {"builtin": "big"}}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    said = findings(result, all_tables(result))
    moved = next(s for s in said if s.startswith("`big` raises"))
    number = r"\+\d+\.\d+( to \+\d+\.\d+)?"  # common random numbers: maybe one value for both `other`
    assert re.search(r"in 4 of 4 setups \(size = 1: \+0\.\d+.*; 100: \+[23]\d\.\d+.*\)\.$", moved), moved
    assert re.fullmatch(rf".*\(size = 1: {number}; 100: {number}\)\.", moved), moved
    ranges = [s for s in said if " ranges from " in s]
    assert [s.split(" ranges from ")[0] for s in ranges] == [
        "The score (`score`) under “the official rules” (`official`) with size = 1",
        "The score (`score`) under “the official rules” (`official`) with size = 100",
    ]
    assert ranges[0].endswith("(other = 2).") and "size =" not in ranges[0].split(" ranges from ")[1]
    fixed = run_scenario(parse_scenario({**spec, "setup": {"size": 100}, "grid": {"other": [1, 2]}}), jobs=1)
    said = findings(fixed, all_tables(fixed))
    assert [s.split(" ranges from ")[0] for s in said if " ranges from " in s] == [
        "The score (`score`) under “the official rules” (`official`)"  # one unit: one range
    ]
    one = run_scenario(parse_scenario({**spec, "grid": {"size": [1, 100]}}), jobs=1)  # one setup per unit
    moved = next(s for s in findings(one, all_tables(one)) if s.startswith("`big` raises"))
    assert re.fullmatch(rf".*in 2 of 2 setups \(size = 1: {number}; 100: {number}\)\.", moved), moved


def test_a_seat_that_stands_for_no_player_enters_no_seat_gap():
    """Seat 3 is a stand-in (Imperium's House Hagal) in setups where ``edge`` > 0 and never comes
    first there: the gap of seat 1 against it is no seat advantage. Where it is a player's seat
    (edge 0), it counts."""
    from montecarlo.games.base import Game, Metric, Question

    def simulate(rules, setup, n, rng):
        first = rng.integers(1, 3 if setup.edge else 4, n)
        return {f"seat{i}_first": first == i for i in (1, 2, 3)}

    metrics = tuple(Metric(f"seat{i}_first", "probability", f"seat {i} comes first") for i in (1, 2, 3))
    race = Question("race", "a race", RaceSetup, metrics, simulate,
                    stand_ins=lambda setup: (3,) if setup.edge else ())
    game = Game("race", "Race", RaceRules, {}, {"race": race}, "race")

    def seats(edges):  # a labelled value: the stand-ins are found by the setup's own values
        spec = {"game": game, "seed": 3, "trials": 4000, "grid": {"edge": edges},
                "labels": {"edge": {"0.1": "a small edge"}} if 0.1 in edges else {}}
        result = run_scenario(parse_scenario(spec), jobs=1)
        return next(s for s in findings(result, all_tables(result)) if s.startswith("Seats"))

    # seat 3 never first at edge 0.1: 0.5 against 0 would be the largest gap; it is left out
    pattern = r".* is [-.e\d]+ \(within noise\), seat [12] [.\d]+ against seat [12] [.\d]+ at edge = a small "
    pattern += r"edge\."
    assert re.fullmatch(pattern, seats([0.1])), seats([0.1])
    assert "seat 3" in seats([0.0])  # a player's seat: three seats of about 1/3, any two may differ most
    # beside a second rule set, each rule set's largest gap leaves the stand-in out too
    spec = {"game": game, "seed": 3, "trials": 4000, "grid": {"edge": [0.1]},
            "variants": {"official": {}, "again": {"description": "the same rules again"}}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    said = findings(result, all_tables(result))
    by_variant = next(s for s in said if s.startswith("Largest gap between seats"))
    assert "seat 3" not in by_variant, by_variant


def test_labelled_grid_values_are_what_the_tables_and_findings_say():
    said = _focused({"grid": {"flips": [1, 2, 3, 4], "need": [1, 2]}, "focus": ["need"],
                     "labels": {"need": {"1": "one head", "2": "two heads"}}})
    assert said[0].startswith("Need = two heads instead of one head lowers "), said
    assert "(flips = 1, need = two heads, and 0" not in said[1] and "need = two heads" in said[1], said
    spec = {"game": GAME, "seed": 2, "trials": 500, "metrics": ["win"], "grid": {"need": [1, 2]},
            "labels": {"need": {"2": "two heads"}}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    assert all_tables(result)["results"]["need"].to_list() == ["1", "two heads"]  # the unlabelled one as text


def _effect(rows: list[dict], grid: dict, labels: dict | None = None) -> str | None:
    """``_field_effect`` of field ``f`` on hand-made rows (metric ``hit``, a chance): the words,
    the counts and the line between a difference and noise, exactly."""
    from types import SimpleNamespace as N

    from montecarlo.engine.metrics import Metric
    from montecarlo.reporting.findings import _field_effect
    from montecarlo.scenarios import show_value

    labels = labels or {}
    from montecarlo.scenarios import Scenario

    sc = N(grid=grid, labels=labels, ordered=(),
           question=N(metric=lambda name: Metric(name, "probability", "a hit")),
           shown=lambda name, v: labels.get(name, {}).get(str(show_value(v)), show_value(v)))
    sc.numeric = lambda name: Scenario.numeric(sc, name)  # the scenario's own rule
    part = pl.DataFrame([{"exact": None, "se": 0.0, **row} for row in rows],
                        schema_overrides={"exact": pl.Float64, "se": pl.Float64, "estimate": pl.Float64})
    return _field_effect(N(scenario=sc), "hit", part, "f")


def test_values_that_change_nothing_do_not_make_the_others_both_ways():
    # desert-hazards: carryalls save every lone harvester (0.000 against the first deployment) and
    # the other deployments all lose more units: they raise it, not "move (both ways)"
    rows = [{"f": "a", "estimate": 0.5}, {"f": "b", "estimate": 0.5}, {"f": "c", "estimate": 0.7}]
    assert _effect(rows, {"f": ("a", "b", "c")}) == (
        "Against f = a (the first value), of the other 2 values only c (+0.200) raises the chance that a "
        "hit (`hit`); the other one does not change it (estimates; a difference within noise counts as "
        "none)."
    )
    # of three, two raise it: the extremes are theirs, not the one that stays (no "lowest rise" of 0)
    rows = [{"f": "a", "estimate": 0.5}, {"f": "b", "estimate": 0.5}, {"f": "c", "estimate": 0.7},
            {"f": "d", "estimate": 0.6}]
    assert _effect(rows, {"f": ("a", "b", "c", "d")}) == (
        "Against f = a (the first value), 2 of the other 3 values raise the chance that a hit (`hit`): "
        "most with c (+0.200), least with d (+0.100); the other one does not change it (estimates; a "
        "difference within noise counts as none)."
    )
    # the same over two setups of another field: the average says where it is taken
    rows = [{"f": v, "g": g, "estimate": e} for g in (1, 2)
            for v, e in (("a", 0.5), ("b", 0.5), ("c", 0.7), ("d", 0.6))]
    assert _effect(rows, {"f": ("a", "b", "c", "d"), "g": (1, 2)}) == (
        "Against f = a (the first value), 2 of the other 3 values raise the chance that a hit (`hit`) in "
        "at least one setup, on average across the 2 setups of the other fields: most with c (+0.200), "
        "least with d (+0.100); the other one does not change it (estimates; a difference within noise "
        "counts as none)."
    )
    # a value that moves it both ways across setups, averaging 0, still says both ways
    rows = [{"f": "a", "g": 1, "estimate": 0.5}, {"f": "b", "g": 1, "estimate": 0.6},
            {"f": "a", "g": 2, "estimate": 0.5}, {"f": "b", "g": 2, "estimate": 0.4},
            {"f": "c", "g": 1, "estimate": 0.7}, {"f": "c", "g": 2, "estimate": 0.7}]
    assert "the other 2 values move (both ways)" in _effect(rows, {"f": ("a", "b", "c"), "g": (1, 2)})


def test_when_no_value_changes_it_the_sentence_says_so():
    # within noise (estimates) or exactly equal: no "move (both ways)", no highest and lowest
    rows = [{"f": "a", "estimate": 0.5, "se": 0.01}, {"f": "b", "estimate": 0.505, "se": 0.01},
            {"f": "c", "estimate": 0.49, "se": 0.01}]
    assert _effect(rows, {"f": ("a", "b", "c")}) == (
        "Against f = a (the first value), none of the other 2 values changes the chance that a hit (`hit`) "
        "(estimates; a difference within noise counts as none)."
    )
    rows = [{"f": v, "g": g, "estimate": 0.5} for v in "abc" for g in (1, 2)]
    assert _effect(rows, {"f": ("a", "b", "c"), "g": (1, 2)}) == (
        "Against f = a (the first value), none of the other 2 values changes the chance that a hit (`hit`) "
        "in any of the 2 setups of the other fields (estimates; a difference within noise counts as none)."
    )


def test_a_field_effect_in_one_setup_says_setup_and_no_average():
    # two values, nothing else swept: one setup, no count of setups
    assert _effect([{"f": "a", "estimate": 0.2}, {"f": "b", "estimate": 0.5}], {"f": ("a", "b")}) == (
        "F = b instead of a raises the chance that a hit (`hit`) (+0.300; estimates; a difference within "
        "noise counts as none)."
    )
    # three words, one setup: no "on average", no "in at least one setup"; both lower it, one by noise
    rows = [{"f": "a", "estimate": 0.5, "se": 0.01}, {"f": "b", "estimate": 0.49, "se": 0.01},
            {"f": "c", "estimate": 0.2, "se": 0.01}]
    assert _effect(rows, {"f": ("a", "b", "c")}) == (
        "Against f = a (the first value), of the other 2 values only c (-0.300) lowers the chance that a "
        "hit (`hit`); the other one does not change it (estimates; a difference within noise counts as "
        "none)."
    )
    # another field of one value: still one setup; both raise it, the lowest is signed too
    rows = [{"f": "a", "g": 5, "estimate": 0.2}, {"f": "b", "g": 5, "estimate": 0.5},
            {"f": "c", "g": 5, "estimate": 0.3}]
    assert _effect(rows, {"f": ("a", "b", "c"), "g": (5,)}) == (
        "Against f = a (the first value), the other 2 values raise the chance that a hit (`hit`): most "
        "with b (+0.300), least with c (+0.100); both change it (estimates; a difference within "
        "noise counts as none)."
    )
    # a value with a comma is quoted; values alike are counted (the first named)
    rows = [{"f": "a", "estimate": 0.2}, {"f": "x, y", "estimate": 0.5}, {"f": "c", "estimate": 0.5},
            {"f": "d", "estimate": 0.3}, {"f": "e", "estimate": 0.3}, {"f": "g", "estimate": 0.3}]
    said = _effect(rows, {"f": ("a", "x, y", "c", "d", "e", "g")})
    assert ": most with “x, y” (+0.300, and 1 more value alike), least with d (+0.100, and 2 more " \
        "values alike); all 5 change it " in said, said
    # all lowering it: the most is the lowest, the least the highest (not "highest with -0.1")
    rows = [{"f": "a", "estimate": 0.5}, {"f": "b", "estimate": 0.4}, {"f": "c", "estimate": 0.2}]
    said = _effect(rows, {"f": ("a", "b", "c")})
    assert ": most with c (-0.300), least with b (-0.100); both change it " in said, said
    # lists (not numbers) in ascending order are words, read against the first; labels are words too
    lists = [{"f": "none", "estimate": 0.1}, {"f": "red", "estimate": 0.2},
             {"f": "red+blue", "estimate": 0.4}]
    first = "Against f = none (the first value)"
    assert _effect(lists, {"f": ([], ["red"], ["red", "blue"])}).startswith(first)
    named = [{"f": "one", "estimate": 0.1}, {"f": "2", "estimate": 0.2}, {"f": "three", "estimate": 0.4}]
    assert _effect(named, {"f": (1, 2, 3)}, {"f": {"1": "one", "3": "three"}}).startswith(
        "Against f = one (the first value), the other 2 values raise "
    )


def test_a_field_effect_draws_the_line_at_196_standard_errors_of_the_two_setups():
    def verdict(difference, exact=False):
        rows = [{"f": 1, "estimate": 0.5, "se": 0.03}, {"f": 2, "estimate": 0.5 + difference, "se": 0.04}]
        if exact:  # exact values: any difference above 1e-12 is real, whatever the noise
            rows = [{**row, "exact": row["estimate"]} for row in rows]
        return _effect(rows, {"f": (1, 2)}).split(" the chance")[0]

    # 1.96 x hypot(0.03, 0.04) = 0.098
    assert [verdict(d) for d in (0.097, 0.099, -0.099)] == [
        "F = 2 instead of 1 does not change", "F = 2 instead of 1 raises", "F = 2 instead of 1 lowers"
    ]
    assert verdict(0.001, exact=True) == "F = 2 instead of 1 raises"
    # real changes below 0.001 are counted, and said to be that small
    rows = [{"f": 1, "g": g, "estimate": 0.5, "exact": 0.5} for g in (1, 2, 3)]
    changes = ((1, 2e-9), (2, 0.2), (3, 0.000999))
    rows += [{"f": 2, "g": g, "estimate": 0.5, "exact": 0.5 + d} for g, d in changes]
    assert _effect(rows, {"f": (1, 2), "g": (1, 2, 3)}).endswith(
        "in 3 of 3 setups of the other fields (+2.0e-9 to +0.200; 2 of them by less than 0.001; exact "
        "values)."
    )
    at_the_line = [{"f": f, "g": g, "estimate": 0.0, "exact": v}
                   for g, (a, b) in enumerate(((0.0, 0.001), (0.0, 0.3))) for f, v in ((1, a), (2, b))]
    assert _effect(at_the_line, {"f": (1, 2), "g": (0, 1)}).endswith("(+0.001 to +0.300; exact values).")
    two = [{**row, "exact": 0.0005} if row["exact"] == 0.001 else row for row in at_the_line]
    assert _effect(two, {"f": (1, 2), "g": (0, 1)}).endswith(
        "(+5.0e-4 to +0.300; 1 of them by less than 0.001; exact values)."
    )
    one = [{"f": 1, "estimate": 0.0, "exact": 0.0}, {"f": 2, "estimate": 0.0, "exact": 2e-9}]
    assert _effect(one, {"f": (1, 2)}).endswith("(+2.0e-9; exact values).")  # its one number says it
    exact_rows = [{"f": 1, "estimate": 0.0, "exact": 0.0}, {"f": 2, "estimate": 0.0, "exact": 1e-12}]
    assert " does not change " in _effect(exact_rows, {"f": (1, 2)})  # 1e-12: rounding, not a change
    # a certain change (0 to 1, both without noise) is real
    certain = [{"f": 1, "estimate": 0.0, "se": 0.0}, {"f": 2, "estimate": 1.0, "se": 0.0}]
    assert " raises " in _effect(certain, {"f": (1, 2)})
    certain = [{"f": 1, "estimate": 0.0, "se": None}, {"f": 2, "estimate": 1.0, "se": None}]
    assert " raises " in _effect(certain, {"f": (1, 2)})


def test_a_field_effect_skips_a_setup_missing_a_value_and_says_nothing_without_a_pair():
    # g = 2 has no value at f = 2 (the metric does not apply there): only g = 1 is compared
    rows = [{"f": 1, "g": 1, "estimate": 0.2}, {"f": 2, "g": 1, "estimate": 0.6},
            {"f": 1, "g": 2, "estimate": 0.3}]
    assert _effect(rows, {"f": (1, 2), "g": (1, 2)}) == (
        "F = 2 instead of 1 raises the chance that a hit (`hit`) (+0.400; estimates; a difference within "
        "noise counts as none)."
    )
    assert _effect([{"f": 1, "estimate": 0.2}], {"f": (1,)}) is None  # one value: nothing to compare
    assert _effect([{"f": 1, "estimate": 0.2}], {"f": (1, 2)}) is None  # the second never applies


def test_a_range_of_chances_says_an_end_seen_in_no_trial_or_in_every_trial():
    """Without exact values, 0.000 and 1.000 are what the trials showed, not certainties."""

    def simulate(rules, setup, n, rng):
        return {"hit": np.full(n, setup.size == 3)}

    game = toss_game(simulate, {"hit": "a hit"}, {})
    spec = {"game": game, "seed": 1, "trials": 300, "grid": {"size": [1, 2, 3]}}
    result = run_scenario(parse_scenario(spec), jobs=1)
    said = next(s for s in findings(result, all_tables(result)) if " ranges from " in s)
    assert said == (
        "The chance that a hit (`hit`) ranges from 0.000 (size = 1, and 1 more setup; none of 300 trials) to "
        "1.000 (size = 3; all of 300 trials)."
    )


def test_a_win_chance_with_draws_gets_no_seat_advantage():
    """War for Arrakis' attacker_win leaves out the battles where both legions die: equal sides
    win less than half each, which is no advantage of either seat. Only a metric whose complement
    is the other side's win (``complement_swaps``) is read for one."""
    game = duel_game()
    duel = game.questions["duel"]
    plain = dataclasses.replace(duel.metrics[0], complement_swaps=False)
    spec = {"seed": 3, "trials": 1000, "grid": {"attacker": [1, 2, 3], "defender": [1, 2, 3]}}
    for metric, said in ((duel.metrics[0], True), (plain, False)):
        changed = dataclasses.replace(game, questions={"duel": dataclasses.replace(duel, metrics=(metric,))})
        result = run_scenario(parse_scenario({"game": changed, **spec}), jobs=1)
        sentences = findings(result, all_tables(result))
        assert any(s.startswith("At equal attacker and defender") for s in sentences) is said


def test_a_labelled_side_field_is_read_by_its_value_not_its_words():
    """``attacker_equipment`` labelled: "no equipment" is still none, so it is no one side's own;
    a side's own value is named by its label, an unlabelled one by its value."""
    from types import SimpleNamespace as N

    from montecarlo.reporting.findings import _one_sided

    sc = N(setup={}, labels={"attacker_equipment": {"none": "no equipment", "sword": "a Sword"}})
    result = N(scenario=sc)
    assert _one_sided(result, {"attacker_equipment": "no equipment"}, ["attacker_equipment"], "attacker",
                      "defender") == []
    assert _one_sided(result, {"attacker_equipment": "a Sword"}, ["attacker_equipment"], "attacker",
                      "defender") == ["attacker equipment = a Sword"]
    assert _one_sided(result, {"attacker_equipment": "gom_jabbar"}, ["attacker_equipment"], "attacker",
                      "defender") == ["attacker equipment = gom_jabbar"]


def test_where_the_odds_turn_the_same_way_at_every_value_it_is_said_once():
    """enemy-by-policy listed the same four enemies for each of its four policies."""
    group = pl.DataFrame({"policy": [p for p in "ab" for _ in range(3)], "enemy": ["x", "y", "z"] * 2})
    above = {("a", "x"), ("b", "x")}
    said = _per_row("the chance", group, "policy", "enemy", "", above)
    assert said == "The chance is above 50% at these values of enemy, whatever the policy: x"
    said = _per_row("the chance", group, "policy", "enemy", "", above | {("b", "y")})
    assert said == "The chance is above 50% at these values of enemy: policy a: x; policy b: x, y"
    many = pl.DataFrame({"p": [str(i) for i in range(7) for _ in range(8)], "e": list(range(8)) * 7})
    seven = _per_row("the chance", many, "p", "e", "", {(str(i), 0) for i in range(7)})
    assert "whatever" not in seven  # only six values are looked at: no claim about all seven
    six = many.filter(pl.col("p") != "6")  # six: all looked at
    assert _per_row("the chance", six, "p", "e", "", {(str(i), 0) for i in range(6)}).endswith(
        ", whatever the p: 0"
    )
    one = group.filter(pl.col("policy") == "a")  # one value: nothing to say "whatever" of
    assert _per_row("the chance", one, "policy", "enemy", "", above) == (
        "The chance is above 50% at these values of enemy: policy a: x"
    )


def test_a_report_names_each_metric_and_variant_in_words_once_then_by_its_name():
    """The battle matrix wrote "the chance that the defender is destroyed or retreats and the
    attacker has units (`attacker_win`)" in eight findings; the report's findings write a metric or
    variant out the first time (whichever form, capitalised or not, with "the chance that" or
    without), then by its code name; a code name that is neither (a seat's group) stays as it is."""
    result = run_scenario(parse_scenario(SCENARIO, default_name="coin-findings"), jobs=1)
    said = named_once(result, [
        "“Heads 70% of the time” (`loaded`) raises the chance that at least need heads (`win`) and "
        "at least need heads (`win`).",
        "The chance that at least need heads (`win`) under “heads 70% of the time” (`loaded`) is high; "
        "number of heads (`heads`) too.",
        "At least need heads (`win`) and number of heads (`heads`), seats (`seat*_win`) (`seat*_win`).",
        "Seats (`seat*_win`) and number of heads (`heads`).",
    ])
    assert said == [
        "“Heads 70% of the time” (`loaded`) raises the chance that at least need heads (`win`) and `win`.",
        "`win` under `loaded` is high; number of heads (`heads`) too.",
        "`win` and `heads`, seats (`seat*_win`) (`seat*_win`).",
        "Seats (`seat*_win`) and `heads`.",
    ]


def test_a_range_uses_the_exact_values_when_every_setup_has_one():
    """As the heat maps show them (the battle matrix's range said 4.729, its cell the exact 4.69);
    with a setup without one (null or NaN) the estimates, with what the trials saw."""
    part = pl.DataFrame({"g": [1, 2, 3], "estimate": [0.49, 0.81, 0.2], "exact": [0.5, 0.8, 0.21],
                         "trials": [100, 100, 100]})
    assert _range("The chance", part, ["g"], "", True) == (
        "The chance ranges exactly from 0.210 (g = 3) to 0.800 (g = 2).")
    for missing in (None, float("nan")):
        partial = part.with_columns(pl.Series("exact", [0.5, missing, 0.21], dtype=pl.Float64))
        assert _range("The chance", partial, ["g"], "", True) == (
            "The chance ranges from 0.200 (g = 3) to 0.810 (g = 2).")
    # an exact range says nothing of the trials (none of 100 saw it) and ties by the exact values
    rare = pl.DataFrame({"g": [1, 2, 3], "estimate": [0.0, 0.02, 0.0], "exact": [0.01, 0.01, 0.03],
                         "trials": [100, 100, 100]})
    assert _range("The chance", rare, ["g"], "", True) == (
        "The chance ranges exactly from 0.010 (g = 1, and 1 more setup) to 0.030 (g = 3).")
    # a mean seen as 0 in every trial of a setup is no chance: nothing of "none of the trials"
    mean = rare.with_columns(pl.lit(None, dtype=pl.Float64).alias("exact"))
    assert _range("Rounds", mean, ["g"], "", False) == (
        "Rounds ranges from 0.000 (g = 1, and 1 more setup) to 0.020 (g = 2).")
    even = part.with_columns(pl.lit(0.5).alias("exact"))
    said = _range("The chance", even, ["g"], " under `x`", True)
    assert said == "The chance under `x` is exactly 0.500 in every setup."
    # an exact solver's 0.9999999999999998 rounds ties with the 1.0 beside it (the battle matrix
    # counted 12 setups "at 1.000" of the 18 its heat map shows at 1.00)
    rounds = pl.DataFrame({"g": [1, 2, 3, 4], "estimate": [1.0, 1.0, 1.0, 2.5],
                           "exact": [1 - 2.2e-16, 1.0, 1 - 1.1e-16, 2.5], "trials": [100] * 4})
    assert _range("Rounds", rounds, ["g"], "", False) == (
        "Rounds ranges exactly from 1.000 (g = 1, and 2 more setups) to 2.500 (g = 4).")


def test_a_variant_named_as_a_metric_is_written_out_once_and_so_is_the_metric():
    """A variant called `heads` beside the metric `heads`: each is written out the first time."""
    data = {**SCENARIO, "variants": {"official": {}, "heads": {"builtin": "loaded"}}}
    result = run_scenario(parse_scenario(data, default_name="coin-findings"), jobs=1)
    said = named_once(result, [
        "“Heads 70% of the time” (`heads`) raises number of heads (`heads`).",
        "“Heads 70% of the time” (`heads`) and number of heads (`heads`).",
    ])
    assert said == [
        "“Heads 70% of the time” (`heads`) raises number of heads (`heads`).", "`heads` and `heads`."
    ]
