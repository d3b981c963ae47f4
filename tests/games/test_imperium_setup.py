"""Imperium setups: every troop syntax gives the distribution and the label it should, and every bad
value is refused with the whole one-line message (seat, field and fix), not just any error.

Whole messages are compared on purpose: they are what a user reads, and a check that only looks
for "some error" lets a wrong seat number or a lost field name through.
"""

import numpy as np
import pytest

from montecarlo.errors import InputError
from montecarlo.games.imperium import Rules, allocate, parse_conflict, parse_troops
from montecarlo.games.imperium.rules import Reward
from montecarlo.games.imperium.setup import ConflictSetup, conflict_key

THIRD = 1 / 3

# entry -> (label kept in reports, distribution)
SPECS = [
    (5, "5", ((5, 1.0),)),
    ("1-3", "1-3", ((1, THIRD), (2, THIRD), (3, THIRD))),
    ("1 - 3", "1-3", ((1, THIRD), (2, THIRD), (3, THIRD))),
    ("2-2", "2", ((2, 1.0),)),
    ("0-1", "0-1", ((0, 0.5), (1, 0.5))),
    (" 0 : 1/4 | 2 : 3/4 ", "0:1/4|2:3/4", ((0, 0.25), (2, 0.75))),
    ({0: 0.25, 2: 0.75}, "0:1/4|2:3/4", ((0, 0.25), (2, 0.75))),
    ({"0": " 1/4 ", "2": "3/4"}, "0:1/4|2:3/4", ((0, 0.25), (2, 0.75))),
    ([[2, 1]], "2", ((2, 1.0),)),
    ("2:1", "2", ((2, 1.0),)),
    ("0:0|2:1", "2", ((2, 1.0),)),  # a zero probability is dropped
    ("0:1/4|0:1/4|2:1/2", "0:1/2|2:1/2", ((0, 0.5), (2, 0.5))),  # repeated counts add up
    ("1:1/3|2:2/3", "1:1/3|2:2/3", ((1, THIRD), (2, 2 / 3))),
    ("1:1/1000|2:999/1000", "1:1/1000|2:999/1000", ((1, 0.001), (2, 0.999))),
    ("1:1/1001|2:1000/1001", "1:0.000999001|2:0.999001", ((1, 1 / 1001), (2, 1000 / 1001))),
    ("1:0.1234567|2:0.8765433", "1:0.123457|2:0.876543", ((1, 0.1234567), (2, 0.8765433))),
    ("deploy:1+3", "deploy:1+3", ((3, 1.0),)),
    ("Deploy:1+3:max", "deploy:1+3", ((3, 1.0),)),
    ("deploy:1+3:uniform", "deploy:1+3:uniform", ((1, THIRD), (2, THIRD), (3, THIRD))),
    ("deploy:1+3:recruited", "deploy:1+3:recruited", ((1, 1.0),)),
    ({"recruited": 2}, "deploy:2+0", ((2, 1.0),)),
    ({"garrison": 3}, "deploy:0+3", ((2, 1.0),)),
    ({"garrison": 3, "policy": "uniform"}, "deploy:0+3:uniform", ((0, THIRD), (1, THIRD), (2, THIRD))),
    ("deploy:10+2", "deploy:10+2", ((12, 1.0),)),  # all 12 cubes: allowed (13 is refused below)
]


@pytest.mark.parametrize("entry,label,pmf", SPECS, ids=[repr(s[0]) for s in SPECS])
def test_troop_entry_label_and_distribution(entry, label, pmf):
    troops = parse_troops(entry)
    assert troops.spec == label
    assert [t for t, _ in troops.pmf] == [t for t, _ in pmf]
    assert [p for _, p in troops.pmf] == pytest.approx([p for _, p in pmf], abs=1e-15)


def test_probabilities_that_miss_one_by_rounding_are_rescaled_to_sum_to_one():
    troops = parse_troops("0:0.4999999|2:0.5")  # sums to 0.9999999, inside the 1e-6 tolerance
    assert sum(p for _, p in troops.pmf) == pytest.approx(1.0, abs=1e-15)
    assert troops.pmf[0][1] == pytest.approx(0.4999999 / 0.9999999, abs=1e-15)


SEAT2 = "troops: seat 2: "
HAGAL_SEATS = ("hagal: House Hagal plays only in solo and two-player games: at most 3 seats in all with "
               "Hagal's, got 4")
NO_PLAYER = "hagal: every seat ({}) is House Hagal; leave at least one seat for a player"
BAD_SETUPS = [
    ({"troops": "3"}, "troops: 1 seat(s) given; a Dune: Imperium conflict has 2 to 4 players "
                      "(one entry per seat, or set players)"),
    ({"troops": "2,-1"}, SEAT2 + "troops cannot be negative, got -1"),
    # a bad entry is named before the count of seats: the user learns what an entry should be
    ({"troops": "x"}, "troops: seat 1: expected a troop count, a range 'a-b', 'v:p|v:p' or "
                      "'deploy:R+G[:policy]', got 'x'"),
    ({"troops": "2,13"}, SEAT2 + "troops at most 12 (a player has 12 troop cubes), got 13"),
    ({"troops": [2, 13]}, SEAT2 + "troops at most 12 (a player has 12 troop cubes), got 13"),
    ({"troops": [2, 1.5]}, SEAT2 + "expected a troop count, distribution or deploy spec, got 1.5"),
    ({"troops": [2, None]}, SEAT2 + "expected a troop count, distribution or deploy spec, got None"),
    ({"troops": "2,many"}, SEAT2 + "expected a troop count, a range 'a-b', 'v:p|v:p' or "
                                   "'deploy:R+G[:policy]', got 'many'"),
    ({"troops": "2,3-1"}, SEAT2 + "empty range '3-1'"),
    # "1 1" was read as 11 troops: a typo for two seats, not a number
    ({"troops": "1 1,2"}, "troops: seat 1: '1 1' has a space inside a number; separate seats by commas"),
    ({"troops": ["2", " 0: 1/2 | 1 2: 1/2"]},
     SEAT2 + "'0: 1/2 | 1 2: 1/2' has a space inside a number; separate seats by commas"),
    ({"troops": "2,13-14"}, SEAT2 + "troops at most 12 (a player has 12 troop cubes), got 13"),
    ({"troops": "2,1-13"}, SEAT2 + "troops at most 12 (a player has 12 troop cubes), got 13"),
    ({"troops": "2,deploy:2+x"}, SEAT2 + "expected deploy:R+G or deploy:R+G:POLICY, got 'deploy:2+x'"),
    ({"troops": "2,deploy:1+2:lazy"}, SEAT2 + "deploy policy must be one of max, recruited, uniform, "
                                              "got 'lazy'"),
    ({"troops": "2,deploy:13+0"}, SEAT2 + "recruited at most 12 (a player has 12 troop cubes), got 13"),
    ({"troops": "2,deploy:1+13"}, SEAT2 + "garrison at most 12 (a player has 12 troop cubes), got 13"),
    ({"troops": "2,deploy:12+12"},
     SEAT2 + "recruited + garrison at most 12 (a player has 12 troop cubes), got 12+12 = 24"),
    ({"troops": "2,deploy:11+5"},
     SEAT2 + "recruited + garrison at most 12 (a player has 12 troop cubes), got 11+5 = 16"),
    ({"troops": [2, {"recruited": 7, "garrison": 6}]},
     SEAT2 + "recruited + garrison at most 12 (a player has 12 troop cubes), got 7+6 = 13"),
    ({"troops": [2, {"recruited": 1, "extra": 2}]},
     SEAT2 + "deploy: unknown field(s) extra; known: garrison, policy, recruited"),
    ({"troops": [2, {"recruited": -1}]}, SEAT2 + "recruited cannot be negative, got -1"),
    ({"troops": [2, {"garrison": 13}]}, SEAT2 + "garrison at most 12 (a player has 12 troop cubes), got 13"),
    ({"troops": "2,0:1/2|2"}, SEAT2 + "expected value:probability pairs joined by '|', got '0:1/2|2'"),
    ({"troops": "2,0:1:2|2:1/2"}, SEAT2 + "bad probability '1:2' for 0 troops"),
    ({"troops": "2,0:1/2|2:x"}, SEAT2 + "bad probability 'x' for 2 troops"),
    ({"troops": "2,0:1/2|2:1/0"}, SEAT2 + "bad probability '1/0' for 2 troops"),
    ({"troops": "2,0:-1/2|2:3/2"}, SEAT2 + "bad probability '-1/2' for 0 troops"),
    ({"troops": "2,0:3/2|2:-1/2"}, SEAT2 + "bad probability '3/2' for 0 troops"),
    ({"troops": "2,0:1/2|2:1/4"}, SEAT2 + "probabilities sum to 0.75, not 1"),
    ({"troops": "2,0:1/2|13:1/2"}, SEAT2 + "troops at most 12 (a player has 12 troop cubes), got 13"),
    ({"troops": [2, {0: 0.5, 13: 0.5}]}, SEAT2 + "troops at most 12 (a player has 12 troop cubes), got 13"),
    ({"troops": [2, {0.5: 1}]}, SEAT2 + "troops must be a whole number, got 0.5"),
    ({"troops": [2, [[0, 0.5], [13, 0.5]]]},
     SEAT2 + "troops at most 12 (a player has 12 troop cubes), got 13"),
    ({"troops": [2, {}]}, SEAT2 + "an empty distribution"),
    ({"troops": [2, {0: True, 1: 0}]}, SEAT2 + "bad probability True for 0 troops"),
    ({"troops": [2, [[0, 0.5], [2]]]},
     SEAT2 + "a distribution is a list of [value, probability] pairs, got [[0, 0.5], [2]]"),
    ({"troops": "2,2", "revealed": "3,11"},
     "revealed: seat 2 reveals 11 cards but the starting deck holds 10"),
    ({"troops": "2,2", "revealed": "3,3,3"}, "revealed: 3 entries for 2 seats (give one, or one per seat)"),
    ({"troops": "2,2", "revealed": "3,x"}, "revealed: seat 2 must be an integer >= 0, got 'x'"),
    ({"troops": "2,2", "intrigue": "0,-1"}, "intrigue: seat 2 must be an integer >= 0, got -1"),
    ({"troops": "2,2", "intrigue": "0,101"}, "intrigue: seat 2 must be an integer 0..100, got 101"),
    ({"troops": "2,2", "deck": 3},
     "deck: expected a deck name (starting, starting+sword1, starting+sword2), got 3"),
    ({"troops": "2,2", "conflict": 7}, "conflict: expected a conflict card name, got 7"),
    ({"troops": "2,2", "conflict": "battle_of_corrin"},
     "conflict: unknown conflict card 'battle_of_corrin'; known: skirmish, siege_of_carthag, "
     "battle_for_arrakeen, points_3_2_1"),
    ({}, "troops: required (one entry per seat, e.g. '3,2,2,1')"),
    ({"troops": "2,2", "foo": 1},
     "conflict setup: unknown field(s) foo; known: conflict, deck, hagal, intrigue, players, revealed, "
     "troops"),
    ({"troops": "2,2", "players": 5}, "players must be an integer 2..4, got 5"),
    ({"troops": "2,2", "players": 1}, "players must be an integer 2..4, got 1"),
    ({"troops": "2,2", "players": 3}, "troops: 2 entries for 3 seats (give one, or one per seat)"),
    ({"troops": "2,2,2,2,2"}, "troops: 5 seat(s) given; a Dune: Imperium conflict has 2 to 4 players "
                              "(one entry per seat, or set players)"),
    ({"troops": "1,1,1", "hagal": 4}, "hagal: seat 4 is not a seat of this conflict (1..3)"),
    ({"troops": "1,1,1", "hagal": 0}, "hagal: seat 0 is not a seat of this conflict (1..3)"),
    ({"troops": "1,1,1,1", "hagal": 4}, HAGAL_SEATS),
    ({"troops": "1,1", "hagal": "1,2"}, NO_PLAYER.format("1, 2")),
    ({"troops": "1,1,1", "hagal": "3,1,2"}, NO_PLAYER.format("3, 1, 2")),
    # a seat named twice would be silently counted once
    ({"troops": "1,1,1", "hagal": "1,1"}, "hagal: seat 1 is given twice; name each House Hagal seat once"),
    ({"troops": "1,1,1", "hagal": "3,2,3"}, "hagal: seat 3 is given twice; name each House Hagal seat once"),
    ({"troops": "1,1", "hagal": "x"}, "hagal: the seats (1-based numbers) that are House Hagal, got 'x'"),
]


@pytest.mark.parametrize("values,message", BAD_SETUPS, ids=[str(v) for v, _ in BAD_SETUPS])
def test_bad_setup_message(values, message):
    with pytest.raises(InputError) as err:
        parse_conflict(values)
    assert str(err.value) == message


def test_a_setup_read_from_values_is_normalised():
    # one entry for every seat with players; Hagal's seats sorted; the deck name trimmed
    setup = parse_conflict({"troops": "2", "players": 3, "hagal": "3,2", "deck": " starting "})
    assert (setup.players, setup.hagal, setup.deck) == (3, (2, 3), "starting")
    assert (setup.revealed, setup.intrigue, setup.conflict) == ((3, 0, 0), (0, 0, 0), None)  # Hagal's: 0
    for none in ("none", "", None):
        assert parse_conflict({"troops": "1,1", "hagal": none}).hagal == ()
    assert parse_conflict({"troops": "1,1", "hagal": 2}).hagal == (2,)  # the last seat is a seat
    two = parse_troops(2)
    for seat in (1.5, True):  # a seat is a whole number, not a flag
        with pytest.raises(InputError) as err:
            ConflictSetup((two, two, two), (3, 3, 3), (0, 0, 0), hagal=(seat,))
        assert str(err.value) == f"hagal: seat {seat} is not a seat of this conflict (1..3)"


def test_troop_entries_outside_a_setup_name_the_troops():
    with pytest.raises(InputError) as err:
        parse_troops("x")
    assert str(err.value).startswith("troops: expected a troop count")
    with pytest.raises(InputError) as err:
        parse_troops(-1)
    assert str(err.value) == "troops: troops cannot be negative, got -1"


def test_intrigue_up_to_its_bound_and_revealed_up_to_the_deck():
    two = parse_troops(2)
    assert ConflictSetup((two, two), (10, 10), (0, 100)).intrigue == (0, 100)
    checks = [
        (((two,), (3,), (0,)), "troops: 1 seat(s) given; a Dune: Imperium conflict has 2 to 4 players"),
        (((two, two), (3,), (0, 0)), "revealed: 1 value(s) for 2 seats"),
        (((two, two), (3, 3), (0, 101)), "intrigue: seat 2 must be an integer 0..100, got 101"),
        (((two, two), (3, -1), (0, 0)), "revealed: seat 2 must be an integer >= 0, got -1"),
        (((two, two), (3, 300), (0, 0)), "revealed: seat 2 reveals 300 cards but the starting deck holds 10"),
    ]
    for args, message in checks:
        with pytest.raises(InputError) as err:
            ConflictSetup(*args)
        assert str(err.value) == message
    with pytest.raises(InputError) as err:
        ConflictSetup((two, two), (3, 3), (0, 0), conflict="x")
    assert str(err.value) == ("conflict: unknown conflict card 'x'; known: skirmish, siege_of_carthag, "
                              "battle_for_arrakeen, points_3_2_1")
    with pytest.raises(InputError) as err:
        ConflictSetup((two, two), (3, 3), (0, 0), deck="x")
    assert str(err.value) == "deck: unknown deck 'x'; known: starting, starting+sword1, starting+sword2"


def test_conflict_card_names():
    assert conflict_key("  Siege of-Carthag ") == "siege_of_carthag"
    assert conflict_key("") is None and conflict_key(" None ") is None and conflict_key(None) is None


def test_rules_messages_and_bounds():
    assert Rules(troop_strength=100, sword_strength=100).troop_strength == 100
    checks = [
        ({"ties": "coin"}, "ties must be one of official, split_up, got 'coin'"),
        ({"tiebreak": "age"}, "tiebreak must be one of none, troops, seat, troops_then_seat, got 'age'"),
        ({"third_reward": 1}, "third_reward must be true or false, got 1"),
        ({"troop_strength": 0}, "troop_strength must be an integer 1..100, got 0"),
        ({"troop_strength": 101}, "troop_strength must be an integer 1..100, got 101"),
        ({"sword_strength": 101}, "sword_strength must be an integer 1..100, got 101"),
    ]
    for fields, message in checks:
        with pytest.raises(InputError) as err:
            Rules(**fields)
        assert str(err.value) == message


def test_reward_text():
    assert [str(r) for r in (Reward(2, "control of Arrakeen"), Reward(1), Reward(0, "2 Solari"), Reward(0))] \
        == ["2 VP + control of Arrakeen", "1 VP", "2 Solari", "nothing"]


def test_allocator_refuses_arrays_it_cannot_rank():
    checks = [
        ((np.array([1, 2]), Rules()), "strengths must be a (trials, seats) integer array"),
        ((np.array([[1.0, 2.0]]), Rules()), "strengths must be a (trials, seats) integer array"),
        ((np.array([[1, -2]]), Rules()), "strengths cannot be negative"),
        ((np.array([[1, 2]]), Rules(tiebreak="troops")), "a tie-break by troops needs the troops array"),
    ]
    for args, message in checks:
        with pytest.raises(ValueError) as err:
            allocate(*args)
        assert str(err.value) == message


def test_house_hagal_reveals_no_cards_whatever_one_revealed_value_says():
    """One --revealed value (or the default 3) gave Hagal's seat the players' 3 cards, without a
    word, though Hagal reveals none; a value per seat must say 0 for it."""
    assert parse_conflict({"troops": "2", "players": 3, "hagal": 1}).revealed == (0, 3, 3)
    assert parse_conflict({"troops": "2,2,2", "revealed": 4, "hagal": "3"}).revealed == (4, 4, 0)
    assert parse_conflict({"troops": "2,2,2", "revealed": "3,5,0", "hagal": 3}).revealed == (3, 5, 0)
    with pytest.raises(InputError) as err:
        parse_conflict({"troops": "2,2,2", "revealed": "3,3,3", "hagal": 3})
    assert str(err.value) == ("revealed: seat 3 is House Hagal, which reveals no cards: give 0 for it (one "
                              "value for every seat gives Hagal's seats 0)")
    assert parse_conflict({"troops": "2,2", "revealed": 3}).revealed == (3, 3)  # no Hagal: as given
