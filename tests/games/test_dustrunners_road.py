"""Dustrunners road (docs/rules/dustrunners.md, "The road"): rounds of 6 turns on an exploration
deck, events, the round ends (fuel, the raider's 2 spaces, radiation on a d6) and the two ways
to lose. Hand-worked roads on small exploration files, and the kernel against the plain-Python
reference within 4.5 standard errors (fixed seeds)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from montecarlo.errors import InputError
from montecarlo.games.dustrunners import GAME
from montecarlo.games.dustrunners.road import load_exploration, reference_road, simulate_road

ROAD = GAME.question("road")
RULES = GAME.rules()


def exploration_file(tmp_path, *cards: str, name="ex.toml") -> str:
    """An exploration file from [[card]] bodies (TOML lines), with the default radiation deck."""
    body = "".join(f"[[card]]\n{c}\n\n" for c in cards)
    path = tmp_path / name
    path.write_text(body)
    return str(path)


def both(setup, n=20_000, ref=3_000, seed=5):
    """The kernel's and the reference's per-metric means."""
    kernel = simulate_road(RULES, setup, n, np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    trials = [reference_road(RULES, setup, rng) for _ in range(ref)]
    return ({k: np.asarray(v, dtype=float) for k, v in kernel.items()},
            {k: np.array([t[k] for t in trials], dtype=float) for k in trials[0]})


def close(values: np.ndarray, expected: float) -> bool:
    se = max(values.std() / math.sqrt(values.size), 1 / values.size)
    return abs(values.mean() - expected) <= 4.5 * se


def test_round_ends_spend_fuel_then_the_raider_moves_two(tmp_path):
    """'Spend 1 fuel. If you're out of fuel, advance the Raider Mini 2 spaces.' An exploration
    deck of 12 empty events: only the round ends move the raider. Fuel 0, gap 4: 2 steps after
    round 1, 4 after round 2, caught then (1 round completed). Fuel 1: the first round end spends
    it, so the raider reaches 4 at the end of round 3 (2 rounds completed)."""
    deck = exploration_file(tmp_path, 'event = "Open Road"\ncount = 12')
    for fuel, survived in ((0, 1), (1, 2)):
        setup = ROAD.setup({"exploration_deck": deck, "health": 3, "fuel": fuel, "rounds": 3,
                            "raider_gap": 4})
        kernel, ref = both(setup, n=200, ref=20)
        for out in (kernel, ref):
            assert (out["caught"] == 1).all() and (out["rounds_survived"] == survived).all()
            assert (out["raider_steps"] == 4).all() and (out["fuel_left"] == 0).all()


def test_radiation_on_a_d6_by_hand(tmp_path):
    """11 empty events and 1 Fallout (1 radiation card), health 1, one round, policy first. The
    12 cards are drawn as 6 pairs and only the first of a pair is resolved, so the Fallout is
    resolved with 1/2; its card's face is uniform on 1..6 and the round-end d6 shows it with 1/6:
    destroyed 1/12, radiation resolved 1/12, radiation cards held at the end 1/2 - 1/12 = 5/12."""
    deck = exploration_file(tmp_path, 'event = "Open Road"\ncount = 11', 'event = "Fallout"\nradiation = 1')
    setup = ROAD.setup({"exploration_deck": deck, "health": 1, "fuel": 1, "rounds": 1, "raider_gap": 99})
    kernel, ref = both(setup)
    for out in (kernel, ref):
        assert close(out["destroyed"], 1 / 12) and close(out["radiation_resolved"], 1 / 12)
        assert close(out["radiation_cards"], 5 / 12) and close(out["events"], 6)


def test_safer_discards_a_harmful_event_unless_it_must_be_resolved(tmp_path):
    """6 Potholes (health -1) and 6 empty events, health 10, one round. Policy first resolves the
    first card of each of the 6 pairs: 3 Potholes on average. Policy safer discards a Pothole for
    the second card, so a Pothole is resolved only when both cards of a pair are Potholes:
    6 x 6/12 x 5/11 = 15/11. A Dust Worm (health -1, must_resolve) is resolved when revealed
    first: 3 again ("A dust worm must always be resolved when revealed")."""
    potholes = exploration_file(tmp_path, 'event = "Pothole"\nhealth = -1\ncount = 6',
                                'event = "Open Road"\ncount = 6')
    worms = exploration_file(tmp_path, 'event = "Dust Worm"\nhealth = -1\nmust_resolve = true\ncount = 6',
                             'event = "Open Road"\ncount = 6', name="worms.toml")
    base = {"health": 10, "fuel": 1, "rounds": 1, "raider_gap": 99}
    for deck, policy, lost in ((potholes, "first", 3), (potholes, "safer", 15 / 11), (worms, "safer", 3)):
        setup = ROAD.setup({**base, "exploration_deck": deck, "exploration": policy})
        for out in both(setup):
            assert close(10 - out["health_left"], lost), (deck, policy)


def test_the_shipped_road_kernel_agrees_with_the_reference():
    for values in ({"vehicle": "scout", "rounds": 3, "policy": "just_enough"},
                   {"vehicle": "interceptor", "rounds": 2, "redraw": "when_losing,loot",
                    "exploration": "safer"}):
        kernel, ref = both(ROAD.setup(values), n=20_000, ref=3_000)
        for name, values_k in kernel.items():
            if name == "rounds_survived":
                continue
            se = math.sqrt(values_k.var() / values_k.size + ref[name].var() / ref[name].size)
            assert abs(values_k.mean() - ref[name].mean()) <= 4.5 * se + 1e-9, name


def test_the_shipped_exploration_deck_is_labelled_illustrative():
    deck = load_exploration("illustrative")
    assert deck.illustrative and "ILLUSTRATIVE" in deck.label() and deck.size >= 12
    assert deck.faces == (1, 2, 3, 4, 5, 6)


@pytest.mark.parametrize("body,message", [
    ('event = "x"\ncount = 3', "the exploration deck has 3 cards; a round of 6 turns draws 12"),
    ('enemy = "nobody"\ncount = 12', "unknown enemy 'nobody'"),
    ('event = "x"\nenemy = "spybot"\ncount = 12', "give either enemy"),
    ('event = "x"\nwormy = 1\ncount = 12', "unknown key(s) wormy"),
    ('enemy = "spybot"\nhealth = 1\ncount = 12', "an enemy card takes no effects"),
])
def test_bad_exploration_files(tmp_path, body, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_exploration(exploration_file(tmp_path, body))


def test_road_setup_needs_vp_for_redraws_and_a_vehicle_or_health():
    with pytest.raises(InputError, match="starting VP"):
        ROAD.setup({"health": 5, "redraw": "finish"})
    with pytest.raises(InputError, match="health: give the vehicle's health"):
        ROAD.setup({"fuel": 2})
    assert ROAD.setup({"vehicle": "hauler"}).fuel == 5
