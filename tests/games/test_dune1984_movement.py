"""Movement reach (1.6) and investments (1.7): simulation vs closed form over whole grids, closed
forms vs brute-force enumeration, the rulebook's examples, setup parsing and the scenario."""

import itertools
import pathlib
import tomllib

import numpy as np
import pytest

from montecarlo.engine import stats
from montecarlo.errors import InputError
from montecarlo.games.dune1984 import GAME
from montecarlo.games.dune1984.movement import (
    InvestSetup,
    ReachSetup,
    break_even_payout,
    exact_invest,
    exact_reach,
    investment_return,
    reference_invest,
    reference_reach,
    simulate_invest,
    simulate_reach,
)
from montecarlo.games.dune1984.rules import Rules

RULES = Rules()
N = 20_000
ROLLS = list(itertools.product(range(1, 7), repeat=2))
PAIRS = list(itertools.combinations(range(2, 13), 2))
SCENARIO = pathlib.Path(__file__).resolve().parents[2] / "scenarios" / "dune1984" / "investments.toml"


def within(values: np.ndarray, exact: float) -> bool:
    """Simulated mean within 4.5 standard errors (Wilson-style proportion for booleans)."""
    v = np.asarray(values)
    if v.dtype == bool:
        est = stats.proportion(int(np.count_nonzero(v)), len(v))
    else:
        est = stats.mean(float(v.sum()), float(np.dot(v, v)), len(v))
    return abs(est.estimate - exact) <= 4.5 * est.se + 1e-9


def brute_reach(d, e=None):
    """(reach, split both, split either) by listing the 36 rolls and every move they allow."""
    reach = both = either = 0
    for a, b in ROLLS:
        reach += d in {a, b, a + b}
        assignments = [(a, b), (b, a)]  # (first character's die, second character's die)
        if e is None:
            both += any(x == d for x, _ in assignments)
            either += any(x == d for x, _ in assignments)
        else:
            both += any(x == d and y == e for x, y in assignments)
            either += any(x == d or y == e for x, y in assignments)
    return reach / 36, both / 36, either / 36


def brute_return(sums, players):
    """P(a stake pays): one roll's hit chance by listing the 36 rolls, then every hit/miss sequence."""
    q = sum(a + b in sums for a, b in ROLLS) / 36
    total = 0.0
    for seq in itertools.product((True, False), repeat=players):
        p = np.prod([q if hit else 1 - q for hit in seq])
        total += p if any(seq) else 0.0
    return total


SECONDS = [None, 1, 2, 3, 4, 5, 6]
# every target of one character (1..12), and every split roll (one die each: both targets 1..6)
TARGETS = [(d, e) for d, e in itertools.product(range(1, 13), SECONDS) if e is None or d <= 6]


def test_reach_simulation_matches_closed_form_for_every_distance_and_split():
    rng = np.random.default_rng(21)
    for d, e in TARGETS:
        setup = ReachSetup(d, e)
        out = simulate_reach(RULES, setup, N, rng)
        exact = exact_reach(RULES, setup)
        for name in ("reach", "split_reach", "split_either"):
            assert within(out[name], exact[name]), (d, e, name)


def test_reach_closed_form_matches_enumeration():
    for d, e in TARGETS:
        exact = exact_reach(RULES, ReachSetup(d, e))
        want = brute_reach(d, e)
        got = (exact["reach"], exact["split_reach"], exact["split_either"])
        assert got == pytest.approx(want, abs=1e-15), (d, e)


class FixedDice:
    """A stand-in generator whose every die roll is the rulebook's 5 and 4."""

    def integers(self, low, high, size, dtype=np.int64):
        return np.broadcast_to(np.array([5, 4], dtype=dtype), size).copy()


def test_rulebook_movement_example():
    # Rulebook, "Moving One Character On Your Turn": "If you roll a 5 and a 4, and you are moving
    # only one character, you may move that character 4, 5 or a total of 9 spaces."
    reachable = [
        d for d in range(1, 13) if simulate_reach(RULES, ReachSetup(d), 3, FixedDice())["reach"].all()
    ]
    assert reachable == [4, 5, 9]
    assert simulate_reach(RULES, ReachSetup(4, 5), 3, FixedDice())["split_reach"].all()
    # split, each character moves one die: 9 is no die's (and a split roll to 9 is refused)
    assert not simulate_reach(RULES, ReachSetup(9), 3, FixedDice())["split_reach"].any()


def test_reach_reference_trial_matches_exact():
    rng = np.random.default_rng(4)
    for setup in (ReachSetup(4), ReachSetup(8), ReachSetup(3, 5), ReachSetup(2, 2)):
        trials = [reference_reach(RULES, setup, rng) for _ in range(3000)]
        exact = exact_reach(RULES, setup)
        for name in exact:
            assert within(np.array([t[name] for t in trials]), exact[name]), (setup, name)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_invest_simulation_matches_closed_form_for_every_pair(players):
    rng = np.random.default_rng(100 + players)
    for sums in PAIRS:
        setup = InvestSetup(sums, 3.0, players)
        out = simulate_invest(RULES, setup, N, rng)
        exact = exact_invest(RULES, setup)
        for name in ("returns", "spice_back", "net"):
            assert within(out[name], exact[name]), (sums, players, name)


def test_invest_closed_form_matches_enumeration():
    for sums, players in itertools.product(PAIRS, (1, 2, 3, 4)):
        assert investment_return(sums, players) == pytest.approx(brute_return(sums, players), abs=1e-12)
        if players > 1:
            r = brute_return(sums, players)
            x = break_even_payout(sums, players)
            assert (x + 1) * r == pytest.approx(1.0)
            assert exact_invest(RULES, InvestSetup(sums, 4.0, players, 2))["spice_back"] == pytest.approx(
                5 * r
            )


def test_rulebook_example_space():
    # Rulebook, "How to Read Your Investment Spaces": "For 3, 11, if any player rolls a total of
    # 3 or 11, you earn a return" -- 2 + 2 of the 36 rolls, 1/9 per roll.
    assert investment_return((3, 11), 1) == pytest.approx(1 / 9)
    assert investment_return((3, 11), 4) == pytest.approx(1 - (8 / 9) ** 4)
    assert break_even_payout((3, 11), 4) == pytest.approx(1 / (1 - (8 / 9) ** 4) - 1)


def test_fractional_payouts_round_down_to_whole_spice():
    one, two = InvestSetup((6, 8), 1.5, 4, 1), InvestSetup((6, 8), 1.5, 4, 2)
    assert (one.received(), two.received()) == (2, 5)  # 1 + 1, and 3 + 2
    r = investment_return((6, 8), 4)
    assert exact_invest(RULES, one)["spice_back"] == pytest.approx(2 * r)
    assert exact_invest(RULES, two)["net"] == pytest.approx(2.5 * r - 1)
    out = simulate_invest(RULES, two, N, np.random.default_rng(2))
    assert within(out["spice_back"], 2.5 * r)
    assert set(np.unique(out["spice_back"])) <= {0.0, 2.5}


def test_invest_reference_trial_matches_exact():
    rng = np.random.default_rng(6)
    for setup in (InvestSetup((3, 11), 4, 4), InvestSetup((6, 8), 2, 2, 3)):
        trials = [reference_invest(RULES, setup, rng) for _ in range(3000)]
        exact = exact_invest(RULES, setup)
        for name in exact:
            values = np.array([t[name] for t in trials], dtype=bool if name == "returns" else float)
            assert within(values, exact[name]), (setup, name)


def test_parse_setups():
    reach, invest = GAME.question("reach"), GAME.question("invest")
    assert reach.setup({"distance": 9}) == ReachSetup(9)
    assert reach.setup({"distance": 4, "second_distance": 5}) == ReachSetup(4, 5)
    assert invest.setup({"sums": [11, 3], "payout": "4:1"}) == InvestSetup((3, 11), 4.0, 4, 1)
    assert invest.setup({"sums": (2, 12), "payout": "3:2", "players": 2, "stake": 2}).payout == 1.5


@pytest.mark.parametrize(
    "question,values,field",
    [
        ("reach", {"distance": 0}, "distance"),
        ("reach", {"distance": 13}, "distance"),
        ("reach", {"distance": 3, "second_distance": 7}, "second_distance"),
        ("reach", {"distance": 3, "second_distance": 0}, "second_distance"),
        ("reach", {"distance": 2.5}, "distance"),
        ("reach", {"distance": 3, "third": 1}, "third"),
        ("invest", {"sums": [1, 11], "payout": 4}, "sums"),
        ("invest", {"sums": [3, 13], "payout": 4}, "sums"),
        ("invest", {"sums": [3, 3], "payout": 4}, "sums"),
        ("invest", {"sums": [3], "payout": 4}, "sums"),
        ("invest", {"sums": 3, "payout": 4}, "sums"),
        ("invest", {"sums": [3, 11], "payout": -1}, "payout"),
        ("invest", {"sums": [3, 11], "payout": 0}, "payout"),
        ("invest", {"sums": [3, 11], "payout": "x"}, "payout"),
        ("invest", {"sums": [3, 11], "payout": "4:0"}, "payout"),
        ("invest", {"sums": [3, 11], "payout": 4, "players": 1}, "players"),
        ("invest", {"sums": [3, 11], "payout": 4, "players": 5}, "players"),
        ("invest", {"sums": [3, 11], "payout": 4, "stake": 0}, "stake"),
        ("invest", {"sums": [3, 11]}, "payout"),
        # payout x stake past whole-Spice float range: once an OverflowError traceback (exit 1)
        ("invest", {"sums": [3, 11], "payout": 1e308, "stake": 10}, "payout x stake"),
        ("invest", {"sums": [3, 11], "payout": 4, "stake": 10**400}, "payout x stake"),
        ("invest", {"sums": [3, 11], "payout": 1e300}, "payout x stake"),
        ("invest", {"sums": [3, 11], "payout": "3:2", "stake": 10**400}, "payout x stake"),  # float x int
        ("invest", {"sums": [3, 11], "payout": 2**52, "stake": 2}, "payout x stake"),  # 2**53: too many
    ],
)
def test_bad_setups_name_the_field(question, values, field):
    with pytest.raises(InputError, match=field):
        GAME.question(question).setup(values)


@pytest.mark.parametrize("distance", [7, 12])
def test_a_split_roll_to_a_target_no_die_shows_is_refused_with_why(distance):
    """A split roll moves each character by one die: a target above 6 was answered 0 without a word."""
    assert ReachSetup(distance).distance == distance  # one character: the total can reach it
    with pytest.raises(InputError) as err:
        GAME.question("reach").setup({"distance": distance, "second_distance": 6})
    assert str(err.value) == (
        f"distance must be 1..6 in a split roll (second_distance), where each character moves by one die; "
        f"got {distance} (up to 12 is one character's move, without a second target)"
    )


@pytest.mark.parametrize("values,message", [
    ({"sums": [3]}, "sums 3: a space has two target sums (e.g. 3,11), got 1"),
    ({"sums": [3, 11, 5]}, "sums 3,11,5: a space has two target sums (e.g. 3,11), got 3"),  # as given
    ({"sums": [3, 3]}, "sums 3,3: the two target sums must differ (two chances to earn a return)"),
    ({"sums": [3, 11], "payout": "2:0"},
     "payout 2:0: divides by zero; give a ratio x:y with y above 0, e.g. 4:1"),
    ({"sums": [3, 11], "payout": " 0 "},
     "payout 0: must be positive (x Spice from the Bank per Spice staked, x or x:1)"),
    ({"sums": [3, 11], "payout": "2:-1"},
     "payout 2:-1: must be positive (x Spice from the Bank per Spice staked, x or x:1)"),
    ({"sums": [3, 11], "payout": "1e400"},  # read as infinity: it said "got inf"
     "payout 1e400: too large a ratio to pay out; give a finite x:y, e.g. 4:1"),
    ({"sums": [3, 11], "payout": "1e300:1e-300"},
     "payout 1e300:1e-300: too large a ratio to pay out; give a finite x:y, e.g. 4:1"),
])
def test_bad_sums_and_payouts_say_what_is_wrong_as_given(values, message):
    """Once "got (3,)", "got (3, 5, 11)" (sorted), "got [3, 3]"; a payout 2:0 "must be a ratio"."""
    with pytest.raises(InputError) as err:
        GAME.question("invest").setup({"payout": 4, **values})
    assert str(err.value) == message


def test_scenario_grid_points_are_valid_setups():
    scenario = tomllib.loads(SCENARIO.read_text())
    q = GAME.question(scenario["question"])
    grid = scenario["grid"]
    points = [
        q.setup({**scenario.get("setup", {}), **dict(zip(grid, p))})
        for p in itertools.product(*grid.values())
    ]
    assert (3, 11) in {p.sums for p in points} and {p.players for p in points} == {2, 3, 4}
    for plot in scenario.get("plots", []):
        assert plot["metric"] in {m.name for m in q.metrics}
        assert {plot[k] for k in ("x", "y", "hue", "facet") if k in plot} <= set(grid)


def test_the_banks_part_up_to_the_last_whole_float_is_accepted():
    """payout x stake below 2**53: every whole Spice count a float holds exactly."""
    setup = GAME.question("invest").setup({"sums": [3, 11], "payout": 2**53 - 1})
    assert setup.received() == 2**53


def test_invest_sums_as_typed_on_the_command_line():
    """docs/api.md: the API takes the values you would type; `--sums 3,11` was refused as
    "sums must be a pair of target sums, got '3,11'" by montecarlo.odds."""
    import montecarlo as mc

    typed = mc.odds("dune1984", "invest", sums="3, 11", payout=2, trials=2000, seed=3)
    listed = mc.odds("dune1984", "invest", sums=[3, 11], payout=2, trials=2000, seed=3)
    assert typed.estimate == listed.estimate
    for text in ("3,,11", "a,b", "3.5,11"):
        with pytest.raises(InputError, match=r"^sums must be two target sums separated by a comma"):
            mc.odds("dune1984", "invest", sums=text, payout=2, trials=100)
