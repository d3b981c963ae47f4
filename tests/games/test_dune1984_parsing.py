"""Dune (1984) setups: the whole error message a user reads for each bad setup, and the inputs the
parsers accept (docs/rules/dune1984.md). Messages are written out in full from the validation
rules: ``whole`` says "<field> must be an integer <low>..<high>, got <value>" (or ">= <low>"),
unknown keys say "<what>: unknown field(s) ...; known: <sorted fields>"."""

import math

import pytest

from montecarlo.errors import InputError
from montecarlo.games.dune1984 import GAME
from montecarlo.games.dune1984.checks import GuileSetup
from montecarlo.games.dune1984.fights import DuelSetup, FightSetup, equipment
from montecarlo.games.dune1984.movement import InvestSetup, ReachSetup, sum_ways

KNOWN_CHARACTERS = (
    "Paul Atreides, Duke Leto Atreides, Gurney Halleck, Emperor Shaddam IV, Princess Irulan, "
    "Sardaukar Warrior, Dr. Kynes, Chani, Stilgar, Baron Harkonnen, Feyd, Beast Rabban"
)
DUEL_FIELDS = "attacker, attacker_equipment, attacker_guile, defender, defender_equipment, defender_guile"

BAD_SETUPS = [
    # Guile checks
    (
        "guile",
        {"guile": 3, "strength": 4},
        "guile setup: unknown field(s) strength; known: guile, spice, stillsuit",
    ),
    ("guile", {}, "guile setup: guile is required (an integer 0..10 or a character name)"),
    ("guile", {"guile": 11}, "guile must be an integer 0..10, got 11"),
    ("guile", {"guile": 3, "spice": -1}, "spice must be an integer >= 0, got -1"),
    # movement reach
    (
        "reach",
        {"distance": 3, "third": 1},
        "reach setup: unknown field(s) third; known: distance, second_distance",
    ),
    ("reach", {"distance": 13}, "distance must be an integer 1..12, got 13"),
    ("reach", {"distance": 3, "second_distance": 7}, "second_distance must be an integer 1..6, got 7"),
    # investments
    (
        "invest",
        {"sums": [3, 11], "payout": 4, "bonus": 1},
        "invest setup: unknown field(s) bonus; known: payout, players, stake, sums",
    ),
    ("invest", {"sums": [1, 11], "payout": 4}, "sums must be an integer 2..12, got 1"),
    # a single sum out of range is named as such before the count of sums is checked
    ("invest", {"sums": [13], "payout": 4}, "sums must be an integer 2..12, got 13"),
    ("invest", {"sums": [3, 11], "payout": 4, "players": 5}, "players must be an integer 2..4, got 5"),
    ("invest", {"sums": [3, 11], "payout": 4, "stake": 0}, "stake must be an integer >= 1, got 0"),
    # fights
    (
        "duel",
        {"attacker": 4, "defender": 5, "strength": 3},
        f"duel setup: unknown field(s) strength; known: {DUEL_FIELDS}",
    ),
    (
        "fight",
        {"attacker": [4], "defender": [5], "x": 3},
        f"fight setup: unknown field(s) x; known: {DUEL_FIELDS}, objective",
    ),
    (
        "fight",
        {"attacker": [4]},
        "fight setup: defender is required (a list of Strengths 1..6 or character names)",
    ),
    (
        "duel",
        {"attacker": 4, "defender": 5, "attacker_equipment": 5},
        "attacker_equipment must be a list of equipment names, got 5",
    ),
    # "-3" is read as the number -3 (not as a name)
    (
        "duel",
        {"attacker": "-3", "defender": 5},
        "attacker must be a Strength 1..6 or a character name, got -3",
    ),
    (
        "duel",
        {"attacker": 4, "defender": 5, "attacker_guile": 3.5},
        "attacker_guile must be an integer 0..10, got 3.5",
    ),
    (
        "duel",
        {"attacker": 4, "defender": 5, "defender_guile": True},
        "defender_guile must be an integer 0..10, got True",
    ),
]


@pytest.mark.parametrize("question,values,message", BAD_SETUPS)
def test_bad_setups_give_the_whole_message(question, values, message):
    with pytest.raises(InputError) as caught:
        GAME.question(question).setup(values)
    assert str(caught.value) == message


def test_setups_built_directly_check_their_fields():
    bad = [
        (lambda: InvestSetup((3, 13), 4), "sums must be an integer 2..12, got 13"),
        (lambda: InvestSetup((3, 11), True), "payout must be a positive number (the x of x:1), got True"),
        (lambda: InvestSetup((3, 11), math.inf), "payout must be a positive number (the x of x:1), got inf"),
        (lambda: InvestSetup((3, 11), "4"), "payout must be a positive number (the x of x:1), got '4'"),
        (lambda: GuileSetup(-1), "guile must be an integer 0..10, got -1"),
        (lambda: ReachSetup(0), "distance must be an integer 1..12, got 0"),
        (lambda: DuelSetup("X4", 5), f"attacker: unknown character 'X4'; known: {KNOWN_CHARACTERS}"),
    ]
    for build, message in bad:
        with pytest.raises(InputError) as caught:
            build()
        assert str(caught.value) == message


def test_accepted_setups():
    invest = GAME.question("invest")
    assert invest.setup({"sums": [11, 3], "payout": "4"}).payout == 4.0  # a bare number as text: 4:1
    assert invest.setup({"sums": [11, 3], "payout": "3:2"}).payout == 1.5
    half = InvestSetup((3, 11), 0.5)  # 1:2 is a positive ratio; it pays floor(0.5) + 1 = 1 for 1 staked
    assert half.received() == 1
    assert DuelSetup("+4", 5).attacker == 4
    fight = GAME.question("fight")
    # one Strength instead of a list is a side of one
    assert fight.setup({"attacker": 4, "defender": 5}) == FightSetup((4,), (5,))
    # one Guile for a whole side applies to each of its characters (Chani's own is 3)
    assert FightSetup((4, "Chani"), (5,), attacker_guile=6).attacker_guile == (6, 6)
    assert FightSetup((4,), (5,), defender_guile="5").defender_guile == (5,)
    # an empty value is no equipment; an empty item among others is refused, as a fight's "4,,3"
    assert equipment("  ", "attacker_equipment") == equipment(None, "attacker_equipment") == ()
    for slip in ("sword, ", ", ,"):
        with pytest.raises(InputError, match="an empty item"):
            equipment(slip, "attacker_equipment")


def test_sum_ways_is_zero_outside_two_to_twelve():
    # the triangle 1, 2, ..., 6, ..., 1 of 2d6 over 2..12; no two dice total 1 or 13
    assert [sum_ways(t) for t in range(1, 14)] == [0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1, 0]


def test_a_notebooks_arrays_and_series_are_lists_of_characters():
    import numpy as np
    import pandas as pd

    plain = FightSetup([3, 2], [4], attacker_guile=[3, 4])
    assert FightSetup(np.array([3, 2]), [4], attacker_guile=np.array([3, 4])) == plain
    assert FightSetup(pd.Series([3, 2]), [4], attacker_guile=pd.Series([3, 4])) == plain
