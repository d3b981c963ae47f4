"""Dustrunners rule parameters (``montecarlo.games.dustrunners.rules``): ranges, messages, variants."""

import pytest

from montecarlo.errors import InputError
from montecarlo.games.dustrunners import GAME
from montecarlo.games.dustrunners.rules import Rules


def _values(r):
    return (r.max_ammo_per_attack, r.win_vp, r.redraw_cost, r.turn_limit, r.reshuffle)


def test_defaults_and_every_bound_accepted():
    assert _values(Rules()) == (4, 2, 2, 60, "when_empty")  # the rules page's values
    low = Rules(max_ammo_per_attack=0, win_vp=0, redraw_cost=1, turn_limit=1, reshuffle="when_drawing")
    high = Rules(max_ammo_per_attack=20, win_vp=100, redraw_cost=100, turn_limit=10_000)
    assert _values(low) == (0, 0, 1, 1, "when_drawing")
    assert _values(high) == (20, 100, 100, 10_000, "when_empty")


@pytest.mark.parametrize("change,message", [
    ({"max_ammo_per_attack": -1}, "max_ammo_per_attack must be an integer 0..20, got -1"),
    ({"max_ammo_per_attack": 21}, "max_ammo_per_attack must be an integer 0..20, got 21"),
    ({"win_vp": -1}, "win_vp must be an integer 0..100, got -1"),
    ({"win_vp": 101}, "win_vp must be an integer 0..100, got 101"),
    ({"redraw_cost": 0}, "redraw_cost must be an integer 1..100, got 0"),
    ({"redraw_cost": 101}, "redraw_cost must be an integer 1..100, got 101"),
    ({"turn_limit": 0}, "turn_limit must be an integer 1..10000, got 0"),
    ({"turn_limit": 10_001}, "turn_limit must be an integer 1..10000, got 10001"),
    ({"turn_limit": 2.0}, "turn_limit must be an integer 1..10000, got 2.0"),
    ({"reshuffle": "never"}, "reshuffle must be one of when_empty, when_drawing, got 'never'"),
])
def test_rule_messages(change, message):
    with pytest.raises(InputError) as err:
        Rules(**change)
    assert str(err.value) == message


@pytest.mark.parametrize("variant,expected", [
    ("redraw_cost_3", (4, 2, 3, 60, "when_empty")),
    ("redraw_cost_4", (4, 2, 4, 60, "when_empty")),
    ("reshuffle_when_drawing", (4, 2, 2, 60, "when_drawing")),
    ("short_turn_limit", (4, 2, 2, 20, "when_empty")),
])
def test_variants(variant, expected):
    assert _values(GAME.rules((variant,))) == expected
