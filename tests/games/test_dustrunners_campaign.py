"""Dustrunners campaigns: reshuffles of a deck carried over many fights, and kernel vs reference.

- the reference records every draw over a long campaign with a deck smaller than one combat's
  draws: between two reshuffles no card appears twice, each reshuffle rebuilds the draw pile
  from exactly the cards not in the attack in progress, and each full cycle draws every card
  of its pile exactly once;
- the kernel keeps every card of every trial in exactly one pile across a campaign;
- the campaign kernel and the reference campaign agree (two-sample, 4.5 standard errors),
  for both exploration policies;
- on decks of identical cards whole campaigns are computed by hand (loot up to its caps, a
  batch of one trial, a loss in the first fight), and so is the safer policy's choice;
- a one-fight campaign is the exact mixture of single combats (exact solver) that the safer
  policy's choice of first or second card makes;
- setups are parsed field by field and refused with whole one-line messages.
"""

import dataclasses
import math

import numpy as np
import pytest

from montecarlo.errors import InputError
from montecarlo.games.dustrunners import GAME
from montecarlo.games.dustrunners import campaign as cp
from montecarlo.games.dustrunners import combat as cb
from montecarlo.games.dustrunners.deck import Enemy
from tests.games.test_dustrunners import SMALL, deck_of

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
    ({"health": 3, "enemies": []}, "enemies: no enemy named; give shipped enemy names"),
    # given but empty: once every enemy, as if not given
    ({"health": 3, "enemies": ""}, "enemies: no enemy named; give shipped enemy names"),
    # an empty item among names: refused, as Dune 1984's '4,,3' is, not dropped without a word
    ({"health": 3, "enemies": "road raiders,,war rig"}, "enemies: an empty item in 'road raiders,,war rig'"),
    ({"health": 3, "enemies": "war rig,"}, "enemies: an empty item in 'war rig,'"),
    ({"health": 3, "enemies": " , "}, "or leave it out for all of them"),
    ({"health": 3, "enemies": ["zorg"]}, "enemies: unknown enemy 'zorg'"),
    ({"health": 3, "exploration": "bold"}, "exploration must be one of first, safer"),
    ({"health": 3, "max_health": 2}, "max_health must be an integer 3..99"),
    ({"fights": 3}, "health: give"),
    ({"health": 3, "policy": "best"},  # best play is solved for one combat, not a campaign
     "policy best (ammo decided by exact best play) is offered for a single combat only"),
])
def test_bad_campaign_setups(values, message):
    with pytest.raises(InputError) as err:
        cp.parse_campaign(values)
    assert message in str(err.value)


# ------------------------------------------------------------------ hand-computed campaigns
# With a deck of identical cards every campaign is the same, so its whole outcome is computed by
# hand. A "pushover" (health die 1 + the card's die 1 = 2) faces a player with damage bonus 2 who
# moves first (driver "you"): one attack with no ammo kills it (fixed:0 never spends ammo). The
# loot card then moves the raider 1 step and gives the card's loot; its moon (full) is not the
# enemy's (new) and the enemy is the first exploration card, so there is no bonus loot.
PUSHOVER = Enemy("pushover", 1, 1, 1, moon="new", bonus_loot="ammo")


def _same_cards(driver, loot):
    return deck_of((3, 1, driver, 1, 2, "full", loot))


def _fixed_campaign(deck, fights, **values):
    base = {"health": 1, "max_health": 9, "ammo": 0, "max_ammo": 0, "damage_bonus": 2, "vp": 0,
            "policy": "fixed:0"}
    return cp.CampaignSetup(deck=deck, **{"enemies": (PUSHOVER,), "fights": fights, **base, **values})


def _each_trial(setup, trials):
    """The reference campaign once, then the kernel on ``trials`` trials, as plain dicts."""
    rules = GAME.rules()
    yield cp.reference_campaign(rules, setup, np.random.default_rng(0))
    out = cp.simulate_campaign(rules, setup, trials, np.random.default_rng(0))
    for i in range(trials):
        yield {name: out[name][i] for name in cp.METRIC_NAMES}


@pytest.mark.parametrize("trials", [1, 2, 7])  # a batch of one trial fights like any other
@pytest.mark.parametrize("loot,fights,values,health_left,ammo_left", [
    ("health", 2, {}, 3, 0),  # 1 + 1 + 1
    ("health", 5, {"max_health": 3}, 3, 0),  # 1 + 5, capped at 3
    ("ammo", 3, {"max_ammo": 2}, 1, 2),  # 0 + 3, capped at 2
    ("ammo", 3, {"ammo": 2, "max_ammo": 2}, 1, 2),  # already full: no more
    ("fuel", 4, {}, 1, 0),
    ("modification", 4, {}, 1, 0),
])
def test_campaign_of_sure_wins_by_hand(trials, loot, fights, values, health_left, ammo_left):
    setup = _fixed_campaign(_same_cards("you", loot), fights, **values)
    for out in _each_trial(setup, trials):
        assert out == {
            "survived": fights, "survive_all": True, "fights_survived": fights, "fights_won": fights,
            "stalemates": 0, "health_left": health_left, "ammo_left": ammo_left, "vp": 2 * fights,
            "raider_steps": fights, "radiation": 0, "fuel": fights * (loot == "fuel"),
            "modifications": fights * (loot == "modification"),
        }


@pytest.mark.parametrize("trials", [1, 3])
def test_campaign_lost_in_its_first_fight_by_hand(trials):
    """The raiders drive (attack first): 1 star, one card of 2 skulls, against 1 health."""
    setup = _fixed_campaign(_same_cards("raiders", "health"), 4)
    for out in _each_trial(setup, trials):
        assert out == {
            "survived": 0, "survive_all": False, "fights_survived": 0, "fights_won": 0, "stalemates": 0,
            "health_left": 0, "ammo_left": 0, "vp": 0, "raider_steps": 0, "radiation": 0, "fuel": 0,
            "modifications": 0,
        }


def test_one_fight_campaign_is_the_exact_mixture_of_single_combats():
    """One fight is one combat, against the enemy the exploration policy picks.

    The pool is (easy, hard) for k = 2 cards; ``safer`` fights the first card when its win chance
    as a first card reaches the pool's mean as a second card, else the second card, which is then
    fought as a second card (its other health die). So enemy i is met first with probability
    take[i] / k, and enemy j second with probability (cards not taken) / k^2. Each single combat
    comes from the exact solver; kernel and reference must match the mixture within 4.5 se.
    """
    rules = GAME.rules()
    easy = Enemy("easy", 0, 5, 1, moon="full", bonus_loot="health")  # weak as a first card only
    hard = Enemy("hard", 5, 0, 2, moon="new")  # and the reverse
    setup = cp.CampaignSetup(deck=SMALL, enemies=(easy, hard), health=4, ammo=3, damage_bonus=1,
                             max_health=4, max_ammo=3, fights=1, exploration="safer")
    take = cp.take_first(rules, setup)
    assert take == (True, False)
    k, skipped = 2, take.count(False)
    weights = [(e, False, take[i] / k) for i, e in enumerate(setup.enemies)]
    weights += [(e, True, skipped / k**2) for e in setup.enemies]
    exact = {"survive_all": 0.0, "fights_won": 0.0, "stalemates": 0.0, "raider_steps": 0.0}
    for enemy, second, w in weights:
        one = cb.exact_combat(rules, cb.CombatSetup(SMALL, enemy, 4, 3, 1, second, 0, "all_in", "never"))
        exact["survive_all"] += w * (1 - one["player_lost"])
        exact["fights_won"] += w * one["player_win"]
        exact["stalemates"] += w * one["stalemate"]
        exact["raider_steps"] += w * one["raider_steps"]
    sim = cp.simulate_campaign(rules, setup, 40_000, np.random.default_rng(5))
    rng = np.random.default_rng(6)
    ref = [cp.reference_campaign(rules, setup, rng) for _ in range(16_000)]
    for name, want in exact.items():
        for values in (np.asarray(sim[name], dtype=float), np.array([r[name] for r in ref], dtype=float)):
            se = values.std() / math.sqrt(len(values))
            assert abs(values.mean() - want) <= 4.5 * max(se, 1 / len(values)), (name, values.mean(), want)


@pytest.mark.parametrize("values,message", [
    ({"health": 0}, "health must be an integer 1..99, got 0"),
    ({"health": 100, "max_health": 100}, "health must be an integer 1..99, got 100"),
    ({"ammo": -1}, "ammo must be an integer 0..99, got -1"),
    ({"ammo": 100, "max_ammo": 100}, "ammo must be an integer 0..99, got 100"),
    ({"damage_bonus": -1}, "damage_bonus must be an integer 0..99, got -1"),
    ({"damage_bonus": 100}, "damage_bonus must be an integer 0..99, got 100"),
    ({"vp": -1}, "vp must be an integer 0..999, got -1"),
    ({"vp": 1000}, "vp must be an integer 0..999, got 1000"),
    ({"max_health": 100}, "max_health must be an integer 1..99, got 100"),
    ({"max_ammo": 100}, "max_ammo must be an integer 0..99, got 100"),
    ({"ammo": 2, "max_ammo": 1}, "max_ammo must be an integer 2..99, got 1"),  # a cap below the start
    ({"fights": 13}, "fights must be an integer 1..12, got 13"),
    ({"enemies": ()}, "enemies: give at least one enemy"),
    ({"redraw": "sometimes"}, "redraw must be never, all, or uses among initiative, finish, when_losing, "
     "loot, steps (comma-separated), got 'sometimes'"),
    ({"exploration": "bold"}, "exploration must be one of first, safer, got 'bold'"),
    ({"policy": "best"}, "policy best (ammo decided by exact best play) is offered for a single combat only"),
])
def test_campaign_setup_errors_whole_message(values, message):
    with pytest.raises(InputError) as err:
        _fixed_campaign(_same_cards("you", "fuel"), **{"fights": 3, **values})
    assert str(err.value) == message


def test_campaign_setup_range_ends_are_allowed():
    setup = _fixed_campaign(_same_cards("you", "fuel"), 12, health=99, max_health=99, ammo=99, max_ammo=99,
                            damage_bonus=99, vp=999)
    assert (setup.health, setup.ammo, setup.damage_bonus, setup.vp, setup.fights) == (99, 99, 99, 999, 12)


def test_unknown_campaign_field_whole_message():
    with pytest.raises(InputError) as err:
        cp.parse_campaign({"health": 3, "zzz": 1})
    assert str(err.value) == (
        "campaign setup: unknown field(s) zzz; known: ammo, card_counts, damage_bonus, deck, enemies, "
        "exploration, fights, health, max_ammo, max_health, policy, redraw, vehicle, vp"
    )


@pytest.mark.parametrize("dies,want", [
    # (first, second) health dice per enemy; with the deck of identical cards a die of 1 is a sure
    # win (enemy health 2, one attack of 2) and a die of 6 a sure loss (enemy health 7; its first
    # attack of 2 skulls destroys the 1-health vehicle), so each win chance is exactly 0 or 1.
    # The bar is the pool's mean win chance as a second card; a first card at or above it is fought.
    (((1, 6), (6, 6)), (True, True)),  # bar 0: even a sure loss as a first card reaches it
    (((1, 6), (6, 1)), (True, False)),  # bar 1/2: only the first enemy is a better first card
    (((6, 1), (6, 1)), (False, False)),  # bar 1: both are better met as a second card
])
def test_safer_exploration_by_hand(dies, want):
    pool = tuple(Enemy(f"enemy{i}", first, second, 1) for i, (first, second) in enumerate(dies))
    setup = _fixed_campaign(_same_cards("you", "fuel"), 3, enemies=pool, exploration="safer")
    assert cp.take_first(GAME.rules(), setup) == want


def _fields(setup):
    keys = ("health", "ammo", "damage_bonus", "vp", "max_health", "max_ammo", "fights", "policy", "redraw",
            "exploration", "vehicle")
    return {k: getattr(setup, k) for k in keys} | {"enemies": [e.name for e in setup.enemies]}


SHIPPED_ENEMIES = ["Scavenger Buggy", "Road Raiders", "War Rig", "Spybot", "Mutant Pack"]  # data/enemies.toml


@pytest.mark.parametrize("values,want", [
    # the Interceptor of data/vehicles.toml: health 6, ammo 4, damage bonus 1, 2 stars (its VP);
    # its health and ammo are also the trackers' maxima; every shipped enemy; the default policies
    ({"vehicle": "interceptor"},
     {"health": 6, "ammo": 4, "damage_bonus": 1, "vp": 2, "max_health": 6, "max_ammo": 4, "fights": 5,
      "policy": "all_in", "redraw": "never", "exploration": "first", "vehicle": "Interceptor",
      "enemies": SHIPPED_ENEMIES}),
    # a bare health: everything else 0 or the default, no vehicle
    ({"health": 4},
     {"health": 4, "ammo": 0, "damage_bonus": 0, "vp": 0, "max_health": 4, "max_ammo": 0, "fights": 5,
      "policy": "all_in", "redraw": "never", "exploration": "first", "vehicle": None,
      "enemies": SHIPPED_ENEMIES}),
    # every value given over a vehicle's; enemies as comma-separated text
    ({"vehicle": "interceptor", "health": 3, "ammo": 1, "damage_bonus": 3, "vp": 7, "max_health": 9,
      "max_ammo": 5, "fights": 2, "policy": "just_enough", "redraw": "when_losing", "exploration": "safer",
      "enemies": " spybot,war rig "},
     {"health": 3, "ammo": 1, "damage_bonus": 3, "vp": 7, "max_health": 9, "max_ammo": 5, "fights": 2,
      "policy": "just_enough", "redraw": "when_losing", "exploration": "safer", "vehicle": "Interceptor",
      "enemies": ["Spybot", "War Rig"]}),
    # a given 0 replaces the vehicle's value; enemies as a list
    ({"vehicle": "interceptor", "ammo": 0, "damage_bonus": 0, "vp": 0, "enemies": ["mutant pack"]},
     {"health": 6, "ammo": 0, "damage_bonus": 0, "vp": 0, "max_health": 6, "max_ammo": 0, "fights": 5,
      "policy": "all_in", "redraw": "never", "exploration": "first", "vehicle": "Interceptor",
      "enemies": ["Mutant Pack"]}),
])
def test_parse_campaign_fields(values, want):
    assert _fields(cp.parse_campaign(values)) == want


@pytest.mark.parametrize("values,message", [
    ({"health": 3, "enemies": 5}, "enemies: expected a list of enemy names, got 5"),
    ({"fights": 3}, "health: give the vehicle's health (health) or a shipped vehicle (vehicle)"),
    ({"health": 3, "enemies": "spybot war rig"},
     "enemies: unknown enemy 'spybot war rig'; "
     "known: scavenger-buggy, road-raiders, war-rig, spybot, mutant-pack"),
])
def test_parse_campaign_errors_whole_message(values, message):
    with pytest.raises(InputError) as err:
        cp.parse_campaign(values)
    assert str(err.value) == message


def test_safer_judges_a_small_deck_by_the_exact_value_of_best_play():
    """On a deck the exact solver handles, a card's danger is its win chance under best play."""
    setup = cp.parse_campaign({"deck": "illustrative-12", "vehicle": "interceptor", "exploration": "safer",
                               "enemies": "road raiders, war rig, scavenger buggy"})
    rules = GAME.rules()

    def best(enemy, second):
        one = cb.CombatSetup(setup.deck, enemy, setup.health, setup.ammo, setup.damage_bonus, second,
                             setup.vp, "best", "never", objective="win")
        return cb.exact_combat(rules, one)["player_win"]

    bar = sum(best(e, True) for e in setup.enemies) / len(setup.enemies)
    assert cp.take_first(rules, setup) == tuple(best(e, False) >= bar for e in setup.enemies)
    for e in setup.enemies:
        args = (setup.health, setup.ammo, setup.damage_bonus, setup.vp, setup.policy, setup.redraw)
        assert cp.win_chance(rules, setup.deck, e, False, *args) == best(e, False)
