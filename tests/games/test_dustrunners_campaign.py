"""Dustrunners campaigns: reshuffles of a deck carried over many fights, and kernel vs reference.

- the reference records every draw over a long campaign with a deck smaller than one combat's
  draws: between two reshuffles no card appears twice, each reshuffle rebuilds the draw pile
  from exactly the cards not in the attack in progress, and each full cycle draws every card
  of its pile exactly once;
- the kernel keeps every card of every trial in exactly one pile across a campaign;
- the campaign kernel and the reference campaign agree (two-sample, 4.5 standard errors),
  for both exploration policies.
"""

import dataclasses
import math

import numpy as np
import pytest

from montecarlo.errors import InputError
from montecarlo.games.dustrunners import GAME
from montecarlo.games.dustrunners import campaign as cp
from montecarlo.games.dustrunners import combat as cb
from tests.games.test_dustrunners import deck_of

TINY = deck_of((2, 2, "you", 1, 1, "full", "ammo"), (1, 4, "raiders", 0, 2, "new", "health"),
               (2, 1, "raiders", 2, 0, "half", "fuel"))  # 5 cards: one combat draws more than that


def _campaign(deck=TINY, **values):
    base = {"health": 9, "ammo": 4, "max_ammo": 6, "damage_bonus": 1, "fights": 12, "vp": 6,
            "redraw": "when_losing", "enemies": ["road raiders", "war rig", "spybot", "mutant pack"]}
    return dataclasses.replace(cp.parse_campaign({**base, **values}), deck=deck)


def _cycles(events, size):
    """Check the recorded piles event by event; return (completed cycles, reshuffles).

    A cycle runs from one reshuffle (or the fresh deck) to the next; a completed cycle is
    (the cards it drew, the cards its draw pile started with).
    """
    all_cards = set(range(size))
    in_progress: list[int] = []
    start = set(all_cards)  # the first draw pile: the whole, freshly shuffled deck
    pile = set(start)
    drawn: list[int] = []
    complete = []
    for kind, value in events:
        if kind == "draw":
            assert value in pile, "a card drawn twice between two reshuffles, or not in the pile"
            pile.discard(value)
            drawn.append(value)
            in_progress.append(value)
        elif kind == "discard":
            assert sorted(value) == sorted(in_progress)
            in_progress = []
        else:  # reshuffle: the new pile is every card not in the attack in progress
            assert not pile, "reshuffled before the draw pile was empty"
            assert set(value) == all_cards - set(in_progress) and len(value) == len(set(value))
            complete.append((drawn, start))
            drawn, start, pile = [], set(value), set(value)
    return complete, len(complete)


@pytest.mark.parametrize("variant", [(), ("reshuffle_when_drawing",)])
def test_reshuffles_over_a_long_campaign(variant):
    rules = GAME.rules(variant)
    setup = _campaign()
    events: list = []
    rng = np.random.default_rng(4)
    for _ in range(30):
        cp.reference_campaign(rules, setup, rng, record=events)
        complete, reshuffles = _cycles(events, TINY.size)
        events.clear()
        assert reshuffles >= 1
        for drawn, pile in complete:
            assert sorted(drawn) == sorted(pile), "a full cycle draws every card of its pile exactly once"
        if complete:
            assert sorted(complete[0][0]) == list(range(TINY.size))  # the first cycle: the whole deck


def test_kernel_keeps_every_card_in_one_pile():
    setup = _campaign()
    t = cb.tables(TINY)
    rng = np.random.default_rng(0)
    b = cb.fresh_batch(t, 3000)
    b.ph[:], b.ammo[:], b.vp[:] = 9, 4, 6
    for fight in range(6):
        cb.set_enemy(t, b, setup.enemies[fight % len(setup.enemies)], fight % 2 == 1)
        b.ph[:] = np.maximum(b.ph, 3)  # keep everyone fighting
        cb.fight(GAME.rules(), t, b, rng, "all_in", "when_losing", 1)
        assert (b.draw + b.disc == t.counts[:, None]).all()
        assert (b.dtot == b.draw.sum(axis=0)).all() and (b.ctot == b.disc.sum(axis=0)).all()


def _two_sample(rules, setup, trials=30_000, ref_trials=2500):
    sim = cp.simulate_campaign(rules, setup, trials, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    ref = [cp.reference_campaign(rules, setup, rng) for _ in range(ref_trials)]
    for name in cp.METRIC_NAMES:
        a = np.asarray(sim[name], dtype=float)
        b = np.array([r[name] for r in ref], dtype=float)
        se = math.sqrt(a.var() / len(a) + b.var() / len(b))
        assert abs(a.mean() - b.mean()) <= 4.5 * max(se, 1 / len(b)) + 1e-9, (name, a.mean(), b.mean())
    return sim


@pytest.mark.parametrize("exploration", ["first", "safer"])
def test_campaign_kernel_agrees_with_reference(exploration):
    sim = _two_sample(GAME.rules(), _campaign(exploration=exploration, fights=6, policy="just_enough"))
    assert 0 < sim["survive_all"].mean() < 1


def test_campaign_on_the_shipped_deck_agrees_with_reference():
    setup = cp.parse_campaign({"vehicle": "interceptor", "fights": 4, "exploration": "safer"})
    _two_sample(GAME.rules(), setup, trials=20_000, ref_trials=1500)


def test_safer_takes_the_second_card_against_dangerous_first_cards():
    setup = cp.parse_campaign({"vehicle": "interceptor", "exploration": "safer",
                               "enemies": ["scavenger buggy", "war rig"]})
    assert cp.take_first(GAME.rules(), setup) == (True, False)
    first = cp.parse_campaign({"vehicle": "interceptor", "enemies": ["scavenger buggy", "war rig"]})
    assert cp.take_first(GAME.rules(), first) == (True, True)


def test_survived_distribution_sums_to_one_and_loot_is_capped():
    setup = _campaign(fights=5)
    out = cp.simulate_campaign(GAME.rules(), setup, 4000, np.random.default_rng(3))
    counts = np.bincount(out["survived"], minlength=cp.MAX_FIGHTS + 1)
    assert counts.sum() == 4000 and counts[6:].sum() == 0
    assert (out["ammo_left"] <= 6).all() and (out["health_left"] <= 9).all()
    assert np.array_equal(out["survive_all"], out["survived"] == 5)


@pytest.mark.parametrize("values,message", [
    ({"health": 3, "fights": 0}, "fights must be an integer 1..12"),
    ({"health": 3, "enemies": []}, "enemies: give at least one enemy"),
    ({"health": 3, "enemies": ["zorg"]}, "unknown enemy 'zorg'"),
    ({"health": 3, "exploration": "bold"}, "exploration must be one of first, safer"),
    ({"health": 3, "max_health": 2}, "max_health must be an integer 3..99"),
    ({"fights": 3}, "health: give"),
])
def test_bad_campaign_setups(values, message):
    with pytest.raises(InputError) as err:
        cp.parse_campaign(values)
    assert message in str(err.value)
