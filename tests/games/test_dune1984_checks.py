"""Guile checks (docs/rules/dune1984.md, Guile checks): simulation vs closed form over whole
grids, closed form vs brute force, the rulebook's "impossible to be eliminated", setup parsing and
the shipped scenario."""

import itertools
import pathlib
import tomllib

import numpy as np
import pytest

from montecarlo.engine import stats
from montecarlo.errors import InputError
from montecarlo.games.dune1984 import GAME
from montecarlo.games.dune1984.checks import (
    GuileSetup,
    exact_guile,
    reference_guile,
    simulate_guile,
    spice_ladder,
    survival,
)
from montecarlo.games.dune1984.rules import Rules

ROLLS = ("d6", "d8", "2d6")
N = 20_000
SCENARIO = pathlib.Path(__file__).resolve().parents[2] / "scenarios" / "dune1984" / "guile-survival.toml"


def brute_survival(roll: str, guile: int) -> float:
    """P(survive) by listing every face (or pair of faces) of the check roll."""
    if roll == "2d6":
        outcomes = [a + b for a, b in itertools.product(range(1, 7), repeat=2)]
        limit = 2 * guile
    else:
        outcomes = list(range(1, (8 if roll == "d8" else 6) + 1))
        limit = guile
    return sum(o <= limit for o in outcomes) / len(outcomes)


def within(values: np.ndarray, exact: float) -> bool:
    est = stats.proportion(int(np.count_nonzero(values)), len(values))
    return abs(est.estimate - exact) <= 4.5 * est.se + 1e-12


@pytest.mark.parametrize("roll", ROLLS)
def test_simulation_matches_closed_form_over_the_grid(roll):
    rules = Rules(guile_roll=roll)
    rng = np.random.default_rng(15)
    for guile, spice, suit in itertools.product(range(0, 9), range(0, 10), (False, True)):
        setup = GuileSetup(guile, spice, suit)
        out = simulate_guile(rules, setup, N, rng)
        exact = exact_guile(rules, setup)
        for name in ("survive", "next_step_saves"):
            assert within(out[name], exact[name]), (roll, guile, spice, suit, name)


def test_grid_check_can_fail():
    """The 4.5-se check above tells Guile g from Guile g + 1 at every unsafe point."""
    rng = np.random.default_rng(3)
    for roll in ROLLS:
        rules = Rules(guile_roll=roll)
        for guile in range(0, 5):
            out = simulate_guile(rules, GuileSetup(guile), N, rng)
            assert not within(out["survive"], survival(rules, guile + 1)), (roll, guile)


@pytest.mark.parametrize("roll", ROLLS)
def test_closed_form_matches_brute_force(roll):
    rules = Rules(guile_roll=roll)
    for guile in range(0, 14):
        assert survival(rules, guile) == pytest.approx(brute_survival(roll, guile), abs=1e-15)
    for guile, spice in itertools.product(range(0, 11), range(0, 10)):
        g = guile + spice // 3
        want = {
            "survive": brute_survival(roll, g),
            "next_step_saves": brute_survival(roll, g + 1) - brute_survival(roll, g),
        }
        assert exact_guile(rules, GuileSetup(guile, spice)) == pytest.approx(want, abs=1e-15)


def test_spice_buys_guile_in_whole_steps_and_stillsuit_adds_one():
    rules = Rules()
    assert [GuileSetup(3, s).effective_guile(rules) for s in range(0, 10)] == [3, 3, 3, 4, 4, 4, 5, 5, 5, 6]
    assert GuileSetup(3, 2, True).effective_guile(rules) == 4
    assert GuileSetup(3, 4).effective_guile(Rules(spice_per_guile=2)) == 5


def test_enough_spice_makes_elimination_impossible():
    # Rulebook, "Raising your Character's Guile": "If enough Spice is paid, it will become
    # impossible for your character to be eliminated." With 1d6 <= Guile that is Guile 6.
    rules = Rules()
    assert survival(rules, 6) == 1.0
    out = simulate_guile(rules, GuileSetup(3, 9), N, np.random.default_rng(1))
    assert out["survive"].all() and not out["next_step_saves"].any()
    assert survival(Rules(guile_roll="d8"), 8) == 1.0 and survival(Rules(guile_roll="2d6"), 6) == 1.0


@pytest.mark.parametrize("roll", ROLLS)
def test_spice_ladder_against_brute_force(roll):
    rules = Rules(guile_roll=roll)
    for guile, suit in itertools.product(range(0, 7), (False, True)):
        ladder = spice_ladder(rules, guile, suit)
        start = guile + suit
        assert [s.spice for s in ladder] == [3 * k for k in range(len(ladder))]
        assert ladder[-1].survive == 1.0 and all(s.survive < 1.0 for s in ladder[:-1])
        assert ladder[0].spice_per_point is None
        for k, step in enumerate(ladder):
            assert step.guile == start + k
            assert step.survive == pytest.approx(brute_survival(roll, start + k))
            if k:
                gain = brute_survival(roll, start + k) - brute_survival(roll, start + k - 1)
                assert step.spice_per_point == pytest.approx(3 / (100 * gain))
                assert step.gain == pytest.approx(gain)
            else:
                assert step.gain == 0.0  # nothing gained on the first rung


def test_ladder_price_example():
    # 1d6: each +1 Guile is 1/6 of survival, so 3 Spice buy 16.7 points: 0.18 Spice per point.
    ladder = spice_ladder(Rules(), 3)
    assert [s.spice for s in ladder] == [0, 3, 6, 9]
    assert all(s.spice_per_point == pytest.approx(0.18) for s in ladder[1:])


@pytest.mark.parametrize("roll", ROLLS)
def test_reference_trial_matches_exact(roll):
    rules = Rules(guile_roll=roll)
    rng = np.random.default_rng(8)
    for setup in (GuileSetup(2), GuileSetup(3, 4, True)):
        trials = [reference_guile(rules, setup, rng) for _ in range(3000)]
        exact = exact_guile(rules, setup)
        for name in ("survive", "next_step_saves"):
            assert within(np.array([t[name] for t in trials]), exact[name]), (roll, setup, name)


def test_parse_setup():
    q = GAME.question("guile")
    assert q.setup({"guile": 3}) == GuileSetup(3)
    assert q.setup({"guile": "4", "spice": 6, "stillsuit": True}) == GuileSetup(4, 6, True)
    leto = q.setup({"guile": "duke leto  atreides"})
    assert (leto.guile, leto.character) == (4, "Duke Leto Atreides")
    assert q.setup({"guile": "Paul Atreides"}).guile == 3


@pytest.mark.parametrize(
    "values,field",
    [
        ({"guile": -1}, "guile"),
        ({"guile": 11}, "guile"),
        ({"guile": 3.5}, "guile"),
        ({"guile": True}, "guile"),
        ({"guile": "Nobody"}, "character"),
        ({}, "guile"),
        ({"guile": 3, "spice": -1}, "spice"),
        ({"guile": 3, "spice": "lots"}, "spice"),
        ({"guile": 3, "stillsuit": "yes"}, "stillsuit"),
        ({"guile": 3, "strength": 4}, "strength"),
    ],
)
def test_bad_setups_name_the_field(values, field):
    with pytest.raises(InputError, match=field):
        GAME.question("guile").setup(values)


def test_scenario_grid_points_are_valid_setups():
    scenario = tomllib.loads(SCENARIO.read_text())
    q = GAME.question(scenario["question"])
    assert set(scenario["metrics"]) <= {m.name for m in q.metrics}
    assert set(scenario["variants"]) == {"official", "guile_check_d8", "guile_check_2d6"}
    rolls = {GAME.rules(v.get("builtin", [])).guile_roll for v in scenario["variants"].values()}
    assert rolls == set(ROLLS)
    grid = scenario["grid"]
    for point in itertools.product(*grid.values()):
        q.setup({**scenario.get("setup", {}), **dict(zip(grid, point))})
    for plot in scenario["plots"]:
        assert plot["metric"] in scenario["metrics"]
        assert {plot[k] for k in ("x", "y", "hue", "facet") if k in plot} <= set(grid)
