"""Dune: War for Arrakis rule parsing (montecarlo/games/war_for_arrakis/rules.py).

Leader values ('2H+1S', [hits, shields]) and their errors, the unknown-leader message with the
whole table of names, and policy names; every message compared whole, as the user reads it.
"""

from __future__ import annotations

import pytest

from montecarlo.errors import InputError
from montecarlo.games.war_for_arrakis.rules import (
    Rules,
    find_leader,
    leader,
    leader_value,
    parse_value,
    policy_overrides,
)

# The leaders of data/leaders.toml in file order (table 2.6 of the rules page).
LEADER_NAMES = (
    "Bashar, Naib, Feyd-Rautha, Beast Rabban, Baron Harkonnen, Thufir Hawat, Gaius Helen Mohiam, "
    "Captain Aramsham, Shaddam IV, Paul Atreides, Paul-Muad'Dib, Lady Jessica, Reverend Mother Jessica, "
    "Gurney Halleck, Stilgar, Chani, Alia"
)
POLICY_HELP = (
    "attack policies: until_destroyed (default), while_ahead, max_rounds:N, best; "
    "retreat policies: never (default), when_outnumbered, defender:best"
)


class _Text:
    """Not a string, though its text reads like a value: only real strings are parsed."""

    def __str__(self) -> str:
        return "2H"


@pytest.mark.parametrize(
    "value,want",
    [
        ("2H+1S", (2, 1)),
        ("3s", (0, 3)),
        ("1S", (0, 1)),  # no H part: 0 hits, not 1
        ("2h", (2, 0)),  # no S part: 0 shields, not 1
        (" 1 h + 2 s ", (1, 2)),
        ([1, 0], (1, 0)),
        ((0, 2), (0, 2)),  # a 0 is a value like any other
        ([3, 1], (3, 1)),  # hits first, shields second
    ],
)
def test_parse_value(value, want):
    assert parse_value(value, "x") == want


@pytest.mark.parametrize(
    "value",
    ["", "+", "H", "2x", 5, None, [1, 2, 3], [-1, 0], [1.5, 0], [1], (2, "a"), _Text()],
)
def test_parse_value_errors(value):
    with pytest.raises(InputError) as err:
        parse_value(value, "leader_values.Stilgar")
    assert str(err.value) == (
        f"leader_values.Stilgar: expected a value like '2H+1S', '3S' or [hits, shields], got {value!r}"
    )


def test_unknown_leader_lists_every_name():
    with pytest.raises(InputError) as err:
        leader("Kynes")
    assert str(err.value) == f"unknown leader 'Kynes'; known: {LEADER_NAMES}"


@pytest.mark.parametrize(
    "names,want",
    [
        ("while-ahead", {"attack": "while_ahead"}),  # dashes read as underscores
        (["When-Outnumbered"], {"retreat": "when_outnumbered"}),
        (", while_ahead,,when_outnumbered", {"attack": "while_ahead", "retreat": "when_outnumbered"}),
        ("max_rounds:12, max_rounds:12", {"attack": "max_rounds:12"}),
        (None, {}),
        # the side-qualified best play read with spaces around the colon, as a user may type it
        ("attacker: best", {"attack": "best"}),
        (["Defender : Best"], {"retreat": "best"}),
    ],
)
def test_policy_overrides(names, want):
    assert policy_overrides(names) == want


@pytest.mark.parametrize(
    "names,message",
    [
        ("max_rounds:N", f"unknown policy 'max_rounds:N'; {POLICY_HELP}"),  # N is a placeholder
        ("max_rounds:0", "policy 'max_rounds:0': max_rounds:N needs a number of rounds N >= 1 (the first "
         "round is always fought)"),
        ("max_rounds:", "policy 'max_rounds:': max_rounds:N needs a number of rounds N >= 1 (the first "
         "round is always fought)"),
        ("max_rounds:-1", "policy 'max_rounds:-1': max_rounds:N needs a number of rounds N >= 1 (the first "
         "round is always fought)"),
        (["retreat"], f"unknown policy 'retreat'; {POLICY_HELP}"),
        ("while_ahead, max_rounds:2", "two attack policies given (while_ahead, max_rounds:2); choose one"),
        ("never, when_outnumbered", "two retreat policies given (never, when_outnumbered); choose one"),
        # as written: "best" alone is the attacker's
        ("Defender:Best, when_outnumbered", "two retreat policies given (Defender:Best, when_outnumbered); "
         "choose one"),
        ("attacker: best, while_ahead",
         "two attack policies given (attacker: best, while_ahead); choose one"),
    ],
)
def test_policy_override_errors(names, message):
    with pytest.raises(InputError) as err:
        policy_overrides(names)
    assert str(err.value) == message


def test_leader_value_by_alias_and_override():
    """Table 2.6 read by any alias or spelling; an override in the rules replaces the table's value."""
    assert leader_value(Rules(), "Feyd") == (2, 1)
    assert leader_value(Rules(), "Reverend-Mother MOHIAM") == (0, 3)
    assert leader_value(Rules(leader_values={"Stilgar": "1H+2S"}), "STILGAR") == (1, 2)


NO_FACES = {"hit_faces": 0, "shield_faces": 0, "special_faces": 0, "blank_faces": 0}
NO_TOKENS = {"wormsign_sand": 0, "wormsign_sandworm": 0, "wormsign_burrowing": 0}
EXPOSED_NAMES = "deep_desert, desert, minor_erg, plateau"
TABLE_HELP = "leader_values must be a table {leader: '2H+1S'}, got "


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"hit_faces": 61}, "hit_faces must be an integer 0..60, got 61"),
        ({"blank_faces": -1}, "blank_faces must be an integer 0..60, got -1"),
        (NO_FACES, "the combat die needs at least one face"),
        ({"max_dice": 13}, "max_dice must be an integer 1..12, got 13"),
        ({"max_dice": 0}, "max_dice must be an integer 1..12, got 0"),
        ({"wild_maker_extra_dice": 7}, "wild_maker_extra_dice must be an integer 0..6, got 7"),
        ({"wormsign_sand": 101}, "wormsign_sand must be an integer 0..100, got 101"),
        ({"deep_desert_spice": 101}, "deep_desert_spice must be an integer 0..100, got 101"),
        (NO_TOKENS, "the wormsign pool needs at least one token"),
        ({"continue_always_costs": "yes"}, "continue_always_costs must be true or false, got 'yes'"),
        ({"choam_ban": 1}, "choam_ban must be true or false, got 1"),
        ({"wormsign_order": "random"}, "wormsign_order must be one of type, area, got 'random'"),
        (
            {"attack": "best", "retreat": "best"},
            "only one side plays best: the attacker (attack policy best) or the defender "
            "(retreat policy best, --policy defender:best), not both",
        ),
        ({"surprise": "x"}, "surprise must be one of special, die, got 'x'"),
        (
            {"attack": "max_rounds:0"},
            "attack policy must be one of until_destroyed, while_ahead, best, max_rounds:N (N >= 1), "
            "got 'max_rounds:0'",
        ),
        ({"retreat": "always"}, "retreat policy must be one of never, when_outnumbered, best, got 'always'"),
        # four exposed terrains, so four values: fewer, more or a bare number are refused
        ({"storm_dice": (1, 2, 3)}, f"storm_dice needs one value per exposed terrain ({EXPOSED_NAMES}), "
                                    "got (1, 2, 3)"),
        ({"worm_dice": [1, 2, 3, 4, 5]}, f"worm_dice needs one value per exposed terrain ({EXPOSED_NAMES}), "
                                         "got [1, 2, 3, 4, 5]"),
        ({"storm_dice": 5}, f"storm_dice needs one value per exposed terrain ({EXPOSED_NAMES}), got 5"),
        # each value in range: at most 12 dice and 6 special hits per terrain
        ({"storm_dice": (13, 0, 0, 0)}, "storm_dice must be an integer 0..12, got 13"),
        ({"storm_special_hits": (0, 0, 0, 7)}, "storm_special_hits must be an integer 0..6, got 7"),
        ({"worm_dice": (0, 13, 0, 0)}, "worm_dice must be an integer 0..12, got 13"),
        ({"worm_special_hits": (0, 7, 0, 0)}, "worm_special_hits must be an integer 0..6, got 7"),
        ({"worm_dice": (0, -1, 0, 0)}, "worm_dice must be an integer 0..12, got -1"),
        # leader overrides: a table, or a list of [name, hits, shields] triples
        ({"leader_values": 5}, TABLE_HELP + "5"),
        ({"leader_values": [("Stilgar", 1)]}, TABLE_HELP + "[('Stilgar', 1)]"),
        ({"leader_values": [1]}, TABLE_HELP + "[1]"),
        ({"leader_values": ["abc"]}, TABLE_HELP + "['abc']"),  # a 3-letter string is no triple
        (
            {"leader_values": {"Stilgar": "9Q"}},
            "leader_values.Stilgar: expected a value like '2H+1S', '3S' or [hits, shields], got '9Q'",
        ),
    ],
)
def test_rules_errors_whole_message(kwargs, message):
    with pytest.raises(InputError) as err:
        Rules(**kwargs)
    assert str(err.value) == message


@pytest.mark.parametrize(
    "kwargs",
    [
        {**NO_FACES, "hit_faces": 1},  # a one-face die is a die
        {"hit_faces": 60, "blank_faces": 60},
        {"max_dice": 1},
        {"max_dice": 12},
        {"wild_maker_extra_dice": 0},
        {"wild_maker_extra_dice": 6},
        {**NO_TOKENS, "wormsign_sandworm": 1},  # a one-token pool is a pool
        {"wormsign_sand": 100, "desert_spice": 100},
    ],
)
def test_rules_range_ends_are_allowed(kwargs):
    rules = Rules(**kwargs)
    assert all(getattr(rules, k) == v for k, v in kwargs.items())


def test_leader_names_take_underscores_and_dashes_as_spaces():
    assert find_leader("Feyd_Rautha") == find_leader("feyd-rautha") == "feyd rautha"
    assert find_leader("  paul__muad'dib ") == "paul muad'dib"



def test_terrain_values_at_their_ends_are_kept_in_order():
    rules = Rules(storm_dice=[12, 0, 1, 2], storm_special_hits=(6, 0, 1, 2),
                  worm_dice=(0, 12, 3, 4), worm_special_hits=[0, 6, 5, 4])
    assert rules.storm_dice == (12, 0, 1, 2)
    assert rules.storm_special_hits == (6, 0, 1, 2)
    assert rules.worm_dice == (0, 12, 3, 4)
    assert rules.worm_special_hits == (0, 6, 5, 4)


def test_leader_values_as_triples():
    """[name, hits, shields] triples (the form a TOML array of arrays gives) set the same overrides."""
    rules = Rules(leader_values=[("Stilgar", 1, 2), ["chani", 3, 0]])
    assert rules.leader_values == (("chani", 3, 0), ("stilgar", 1, 2))
    assert leader_value(rules, "Stilgar") == (1, 2)
    assert leader_value(rules, "Chani") == (3, 0)
    assert leader_value(rules, "Feyd") == (2, 1)  # not overridden: table 2.6


@pytest.mark.parametrize(
    "given, kept", [(" Max_Rounds:1 ", "max_rounds:1"), ("max_rounds:12", "max_rounds:12"), ("BEST", "best")]
)
def test_an_attack_policy_is_kept_in_its_plain_form(given, kept):
    assert Rules(attack=given).attack == kept


@pytest.mark.parametrize("given", ["max_rounds:0", "max_rounds:N", "max_rounds", "max_rounds:-1", "rounds:2"])
def test_an_attack_policy_without_a_number_of_rounds_of_at_least_one_is_refused(given):
    with pytest.raises(InputError, match=r"^attack policy must be one of until_destroyed, while_ahead, best, "
                       r"max_rounds:N \(N >= 1\), got "):
        Rules(attack=given)


def test_either_side_alone_may_play_best():
    assert Rules(retreat="best").retreat == "best" and Rules(attack="best").attack == "best"
    with pytest.raises(InputError, match="^only one side plays best"):
        Rules(attack="best", retreat="best")
