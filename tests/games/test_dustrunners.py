"""Dustrunners combats (``montecarlo.games.dustrunners``).

- the kernel, the plain reference trial and the exact solver agree on several small decks, every
  ammo policy, both redraw policies, every enemy kind and both reshuffle rules (4.5 standard errors);
- decks whose cards are all the same give the hand-computed deterministic combat;
- monotonicity where the rules make it true (hypothesis, exact solver), and a counterexample
  where they do not (more ammo can lower the win odds);
- deck files and setups are validated with one-line errors naming the file and card.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from montecarlo.errors import InputError
from montecarlo.games.dustrunners import GAME
from montecarlo.games.dustrunners.combat import (
    METRIC_NAMES, CombatSetup, exact_combat, parse_combat, reference_combat, simulate_combat,
)
from montecarlo.games.dustrunners.deck import Enemy, load_deck, parse_deck
from montecarlo.games.dustrunners.rules import Rules


def deck_of(*cards, file="test-deck.toml"):
    """A deck from (count, die, driver, triangle, skulls, moon, loot) tuples."""
    keys = ("count", "die", "driver", "triangle", "skulls", "moon", "loot")
    return parse_deck({"card": [dict(zip(keys, c), name=f"card{i}") for i, c in enumerate(cards)]}, file)


SMALL = deck_of(
    (2, 1, "you", 0, 0, "new", "fuel"), (1, 3, "raiders", 1, 1, "full", "ammo"),
    (2, 2, "you", 2, 1, "half", "health"), (1, 5, "raiders", 0, 2, "full", "modification"),
)  # 6 cards
SKULLY = deck_of((1, 2, "raiders", 1, 2, "full", "ammo"), (2, 4, "you", 0, 1, "new", "health"),
                 (1, 6, "raiders", 3, 0, "new", "fuel"))  # 4 cards: attacks often exhaust it
EIGHT = deck_of((3, 1, "you", 0, 0, "new", "fuel"), (3, 3, "raiders", 1, 1, "full", "ammo"),
                (2, 5, "raiders", 2, 2, "half", "health"))

RAIDERS = Enemy("raiders", 2, 4, 2, moon="full")
SPYBOT = Enemy("spybot", 1, 3, 2, kind="spybot", moon="half")
MUTANT = Enemy("mutant", 2, 3, 0, kind="mutant", radiation=2, moon="new")


def check_agreement(rules, setup, trials=40_000, ref_trials=3000, seed=1):
    """Kernel and reference against the exact expectations, each within 4.5 standard errors."""
    exact = exact_combat(rules, setup)
    assert exact is not None
    sim = simulate_combat(rules, setup, trials, np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    ref = [reference_combat(rules, setup, rng) for _ in range(ref_trials)]
    for name in METRIC_NAMES:
        for values in (np.asarray(sim[name], dtype=float), np.array([r[name] for r in ref], dtype=float)):
            se = values.std() / math.sqrt(len(values))
            floor = 1.0 / len(values)  # a metric that never varied in the sample
            gap = abs(values.mean() - exact[name])
            assert gap <= 4.5 * max(se, floor) + 1e-9, (name, values.mean(), exact[name])
    return exact


@pytest.mark.parametrize("policy", ["all_in", "fixed:1", "fixed:2", "just_enough"])
@pytest.mark.parametrize("redraw", ["never", "when_losing"])
def test_kernel_reference_exact_agree_every_policy(policy, redraw):
    setup = CombatSetup(SMALL, RAIDERS, health=4, ammo=3, damage_bonus=0, vp=4, policy=policy, redraw=redraw)
    exact = check_agreement(Rules(), setup)
    assert 0.05 < exact["player_win"] < 0.95  # a real contest, not a foregone one


@pytest.mark.parametrize("deck", [SKULLY, EIGHT], ids=["4-cards", "8-cards"])
@pytest.mark.parametrize("variant", [(), ("reshuffle_when_drawing",), ("redraw_cost_3",)])
def test_agree_on_decks_exhausted_within_attacks(deck, variant):
    setup = CombatSetup(deck, RAIDERS, health=5, ammo=6, damage_bonus=0, second_card=True, vp=6,
                        policy="all_in", redraw="when_losing")
    check_agreement(GAME.rules(variant), setup)


@pytest.mark.parametrize("enemy", [SPYBOT, MUTANT], ids=["spybot", "mutant"])
def test_agree_against_spybots_and_mutants(enemy):
    setup = CombatSetup(SMALL, enemy, health=3, ammo=2, damage_bonus=1, policy="fixed:1")
    exact = check_agreement(Rules(turn_limit=15), setup)
    assert exact["player_lost"] == 0.0  # neither damages you
    assert exact["raider_steps" if enemy is SPYBOT else "radiation"] > 0


def test_stalemate_when_nobody_can_deal_damage():
    blank = deck_of((3, 2, "raiders", 1, 0, "new", "fuel"))  # no skulls at all
    setup = CombatSetup(blank, RAIDERS, health=3, ammo=2, damage_bonus=0)
    rules = Rules(turn_limit=10)
    exact = exact_combat(rules, setup)
    sim = simulate_combat(rules, setup, 1000, np.random.default_rng(0))
    ref = reference_combat(rules, setup, np.random.default_rng(0))
    assert exact["stalemate"] == 1.0 and sim["stalemate"].all() and ref["stalemate"]
    assert exact["attacks"] == 10 and (sim["attacks"] == 10).all() and ref["attacks"] == 10
    assert exact["ammo_spent"] == 2 and exact["health_lost"] == 0


def _all_three(rules, setup):
    """The kernel's trials, one reference trial and the exact values of a deterministic combat."""
    sim = simulate_combat(rules, setup, 500, np.random.default_rng(3))
    ref = reference_combat(rules, setup, np.random.default_rng(3))
    exact = exact_combat(rules, setup)
    out = {}
    for name in METRIC_NAMES:
        values = np.unique(np.asarray(sim[name], dtype=float))
        assert len(values) == 1, name  # the same in every trial
        assert values[0] == pytest.approx(float(ref[name])) == pytest.approx(exact[name]), name
        out[name] = values[0]
    return out


def test_deck_of_identical_cards_player_first_hand_computed():
    # Every card: die 2, you drive, 1 triangle, 1 skull, full moon, ammo loot.
    deck = deck_of((5, 2, "you", 1, 1, "full", "ammo"))
    enemy = Enemy("e", 3, 5, 2, moon="full")
    setup = CombatSetup(deck, enemy, health=4, ammo=4, damage_bonus=1)
    # Enemy health 3 + 2 = 5; you strike first: 4 cards x 1 skull + 1 bonus = 5. Won in one
    # attack; the loot card moves the raider 1 step and its full moon matches: bonus loot.
    got = _all_three(Rules(), setup)
    assert got == {"player_win": 1, "player_lost": 0, "stalemate": 0, "health_lost": 0, "ammo_spent": 4,
                   "raider_steps": 1, "vp_gained": 2, "radiation": 0, "attacks": 1, "bonus_loot": 1}


def test_deck_of_identical_cards_raiders_first_hand_computed():
    deck = deck_of((3, 2, "raiders", 2, 1, "new", "fuel"))
    enemy = Enemy("e", 3, 5, 2, moon="full")
    setup = CombatSetup(deck, enemy, health=3, ammo=2, damage_bonus=0)
    # Enemy health 5, raiders first: 2 cards = 2 damage (health 1); you: 2 ammo = 2 damage
    # (enemy 3); raiders: 2 more = health -1. Lost after 3 attacks; 3 health lost (down to 0).
    got = _all_three(Rules(), setup)
    assert got == {"player_win": 0, "player_lost": 1, "stalemate": 0, "health_lost": 3, "ammo_spent": 2,
                   "raider_steps": 0, "vp_gained": 0, "radiation": 0, "attacks": 3, "bonus_loot": 0}


def test_attack_larger_than_the_deck_draws_no_more():
    deck = deck_of((2, 1, "you", 0, 1, "new", "fuel"))  # 2 cards, 1 skull each
    setup = CombatSetup(deck, Enemy("e", 6, 6, 5), health=10, ammo=4, damage_bonus=1)
    # Enemy health 7, you first. You spend at most as many ammo as there are cards (2): 3 damage
    # (enemy 4); the raiders' 5-card attack reveals both cards and draws no more: 2 damage
    # (health 8); you: 2 ammo, 3 damage (enemy 1); raiders: 2 (health 6); you: no ammo left,
    # the damage bonus alone finishes the enemy.
    got = _all_three(Rules(), setup)
    assert got["ammo_spent"] == 4 and got["player_win"] == 1 and got["attacks"] == 5
    assert got["health_lost"] == 4


def test_shipped_example_exact_on_the_small_deck_only():
    small = parse_combat({"deck": "illustrative-12", "enemy": "road raiders", "vehicle": "interceptor"})
    big = parse_combat({"enemy": "road raiders", "vehicle": "interceptor"})
    assert exact_combat(Rules(), small) is not None
    assert exact_combat(Rules(), big) is None


# --- monotonicity (exact, on random small decks) --------------------------------------------

cards = st.tuples(st.integers(1, 2), st.integers(1, 6), st.sampled_from(["you", "raiders"]),
                  st.integers(0, 1), st.integers(0, 2), st.sampled_from(["new", "full"]), st.just("ammo"))
combats = st.fixed_dictionaries({
    "cards": st.lists(cards, min_size=1, max_size=3), "die": st.integers(0, 3), "stars": st.integers(0, 2),
    "health": st.integers(1, 4), "ammo": st.integers(0, 3), "bonus": st.integers(0, 1),
})


def _win(c, policy, **change):
    values = {"health": c["health"], "ammo": c["ammo"], "bonus": c["bonus"], **change}
    setup = CombatSetup(deck_of(*c["cards"]), Enemy("e", c["die"], c["die"], c["stars"]), values["health"],
                        values["ammo"], values["bonus"], policy=policy)
    return exact_combat(Rules(turn_limit=12), setup)["player_win"]


@settings(max_examples=60, deadline=None)
@given(combats, st.sampled_from(["all_in", "fixed:1", "just_enough"]))
def test_more_health_never_lowers_win_odds(c, policy):
    # Same cards in the same order until the weaker vehicle would fall; no decision depends on
    # your health (redraw never), so the healthier vehicle wins whenever the weaker one does.
    assert _win(c, policy, health=c["health"] + 1) >= _win(c, policy) - 1e-12


@settings(max_examples=60, deadline=None)
@given(combats, st.sampled_from(["all_in", "fixed:1", "fixed:2"]))
def test_more_damage_bonus_never_lowers_win_odds(c, policy):
    # With ammo spending that ignores the enemy's health, the draws are the same and every
    # attack deals one more damage.
    assert _win(c, policy, bonus=c["bonus"] + 1) >= _win(c, policy) - 1e-12


def test_more_ammo_can_lower_win_odds():
    # Not monotone: the extra card you reveal is one the raiders would otherwise have drawn.
    c = {"cards": [(2, 6, "raiders", 0, 1, "new", "ammo"), (2, 3, "you", 0, 0, "new", "ammo")], "die": 1,
         "stars": 1, "health": 1, "ammo": 3, "bonus": 1}
    assert _win(c, "just_enough", ammo=4) < _win(c, "just_enough") - 0.2
    setup = CombatSetup(deck_of(*c["cards"]), Enemy("e", 1, 1, 1), 1, 4, 1, policy="just_enough")
    check_agreement(Rules(turn_limit=12), setup, trials=20_000, ref_trials=2000)


# --- deck files and setups ------------------------------------------------------------------

def write(tmp_path, text, name="deck.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


CARD = 'die = 2\ndriver = "you"\nloot = "ammo"\n'


@pytest.mark.parametrize("body,message", [
    ('name = "x"\n', "the deck has no cards"),
    (f'[[card]]\n{CARD}skulls = -1\n', "card 1: skulls must be an integer 0..99, got -1"),
    ('[[card]]\nname = "bad"\ndie = 2\ndriver = "you"\nloot = "gold"\n',
     "card 1 ('bad'): loot must be one of"),
    ('[[card]]\ndie = 2\ndriver = "nobody"\nloot = "ammo"\n', "card 1: driver must be one of you, raiders"),
    (f'[[card]]\n{CARD}[[card]]\ndie = "two"\ndriver = "you"\nloot = "ammo"\n',
     "card 2: die must be an integer 1..6"),
    (f'[[card]]\n{CARD}count = 0\n', "the deck has no cards"),
    (f'[[card]]\n{CARD}skull = 1\n', "card 1: unknown key(s) skull"),
    ('[[card]]\ndie = 2\nloot = "ammo"\n', "card 1: driver is required"),
    ('[[card\n', "invalid TOML"),
])
def test_bad_deck_files_one_line_naming_file_and_card(tmp_path, body, message):
    path = write(tmp_path, body)
    with pytest.raises(InputError) as err:
        load_deck(path)
    text = str(err.value)
    assert message in text and path in text and "\n" not in text


def test_missing_deck_file_and_good_user_deck(tmp_path):
    with pytest.raises(InputError, match="deck file not found"):
        load_deck(str(tmp_path / "nope.toml"))
    path = write(tmp_path, f'name = "mine"\n[[card]]\n{CARD}count = 3\nskulls = 1\n')
    deck = load_deck(path)
    assert deck.size == 3 and deck.file == path and not deck.illustrative and path in deck.label()


def test_shipped_deck_says_it_is_illustrative():
    deck = load_deck()
    path = deck.file.split("/")[-1]
    from montecarlo.games.dustrunners.deck import DATA
    first_lines = (DATA / path).read_text().splitlines()[:3]
    assert "ILLUSTRATIVE" in first_lines[0] and "not published" in " ".join(first_lines)
    assert deck.illustrative and "ILLUSTRATIVE" in deck.label() and deck.file in deck.label()


@pytest.mark.parametrize("values,message", [
    ({"enemy": "road raiders", "health": -1}, "health must be an integer 1..99"),
    ({"enemy": "road raiders"}, "health: give"),
    ({"enemy": "zorg", "health": 3}, "unknown enemy 'zorg'"),
    ({"vehicle": "tank", "enemy": "spybot"}, "unknown vehicle 'tank'"),
    ({"health": 3}, "enemy: give"),
    ({"enemy": "spybot", "enemy_die": 3, "health": 3}, "not both"),
    ({"enemy": "spybot", "health": 3, "policy": "fixed:x"}, "policy must be"),
    ({"enemy": "spybot", "health": 3, "redraw": "always"}, "redraw must be"),
    ({"enemy": "spybot", "health": 3, "card_counts": "nope=2"}, "no card named 'nope'"),
    ({"enemy": "spybot", "health": 3, "colour": 2}, "unknown field(s) colour"),
])
def test_bad_setups(values, message):
    with pytest.raises(InputError, match=None) as err:
        parse_combat(values)
    assert message in str(err.value)


def test_card_counts_override_and_vehicle_values():
    setup = parse_combat({"enemy": "War Rig", "second_card": True, "vehicle": "hauler", "ammo": 1,
                          "card_counts": "critical hit=0, empty road=10"})
    assert setup.health == 8 and setup.ammo == 1 and setup.damage_bonus == 1 and setup.vp == 2
    assert setup.enemy_die == 6 and setup.deck.size == 30 - 2 + 6
    assert "critical hit" not in [c.name for c in setup.deck.cards]
    assert "empty road x10" in setup.deck.label()
    same = parse_combat({"enemy": "war rig", "vehicle": "hauler", "card_counts": {"critical hit": 0}})
    assert same.deck.size == 28


def test_questions_carry_their_reference_trials():
    rng = np.random.default_rng(0)
    for name in ("combat", "campaign"):
        question = GAME.question(name)
        setup = question.setup(question.example)
        trial = question.reference(GAME.rules(), setup, rng)
        assert set(trial) == {m.name for m in question.metrics}, name
