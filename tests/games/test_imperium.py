"""Dune: Imperium conflicts (``montecarlo.games.imperium``).

- the reward rule of docs/rules/imperium.md case by case on fixed strengths, through the
  vectorised allocator, the scalar group-by-group reading and the literal sentence-by-sentence
  reading (which must all agree), for the official rules and every variant;
- the vectorised allocator against the scalar reference on random strengths (hypothesis);
- simulation against exact enumeration over a grid of seats, troops, hand sizes, decks and
  variants, within 4.5 standard errors; the plain-Python reference trial (real shuffled cards)
  against exact enumeration on a handful of setups and every variant;
- which metrics apply to a setup;
- the sword distribution against scipy's hypergeometric, setup syntax and validation;
- every shipped scenario builds every grid point's setup and every variant's rules.
"""

import itertools
import math
import pathlib
import tomllib
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats as scipy_stats

from montecarlo.analysis import RunSettings, ask
from montecarlo.errors import InputError
from montecarlo.games.imperium import (
    CONFLICTS, DECKS, GAME, TIE_RULES, TIEBREAKS, Rules, allocate, applicable_conflict, exact_conflict,
    literal_places, parse_conflict, parse_troops, reference_conflict, reference_places, simulate_conflict,
    sword_pmf,
)

SCENARIOS = pathlib.Path(__file__).resolve().parents[2] / "scenarios" / "imperium"


def places(strengths, *variants, troops=None, **overrides):
    """(places, tie for first, tie for second) of one conflict; all three readings must agree."""
    rules = GAME.rules(variants, overrides)
    ref = reference_places(strengths, rules, troops)
    alloc = allocate(np.array([strengths]), rules, None if troops is None else np.array([troops]))
    assert (alloc.places[0].tolist(), bool(alloc.tie_first[0]), bool(alloc.tie_second[0])) == ref
    assert literal_places(strengths, troops or [0] * len(strengths), rules) == ref
    return ref


# --- the reward rule (docs/rules/imperium.md, Rewards and ties), official rules ---------------

def test_plain_order_two_three_and_four_players():
    assert places([3, 5]) == ([2, 1], False, False)
    assert places([5, 3, 2]) == ([1, 2, 0], False, False)  # no third reward with 3 players
    assert places([8, 6, 4, 2]) == ([1, 2, 3, 0], False, False)
    assert places([2, 4, 8, 6]) == ([0, 3, 1, 2], False, False)


def test_tie_for_first_two_players_both_take_second():
    assert places([4, 4]) == ([2, 2], True, False)


def test_tie_for_first_three_players_third_gets_nothing():
    assert places([4, 4, 2]) == ([2, 2, 0], True, False)
    assert places([2, 4, 4]) == ([0, 2, 2], True, False)


def test_tie_for_first_four_players_next_highest_competes_for_third():
    assert places([4, 4, 3, 2]) == ([2, 2, 3, 0], True, False)
    # The next highest tie among themselves: a tie for third, so nothing.
    assert places([4, 4, 3, 3]) == ([2, 2, 0, 0], True, False)


def test_three_way_tie_for_first_four_players():
    assert places([5, 5, 5, 2]) == ([2, 2, 2, 3], True, False)
    assert places([5, 2, 5, 5]) == ([2, 3, 2, 2], True, False)
    assert places([5, 5, 5, 5]) == ([2, 2, 2, 2], True, False)


def test_tie_for_second_takes_third_reward_with_four_players_only():
    assert places([6, 4, 4, 2]) == ([1, 3, 3, 0], False, True)
    assert places([6, 4, 4, 4]) == ([1, 3, 3, 3], False, True)
    assert places([6, 4, 4]) == ([1, 0, 0], False, True)


def test_tie_for_third_gets_nothing():
    assert places([6, 5, 3, 3]) == ([1, 2, 0, 0], False, False)
    assert places([3, 3, 5, 6]) == ([0, 0, 2, 1], False, False)


def test_zero_strength_gets_nothing():
    assert places([0, 3]) == ([0, 1], False, False)
    assert places([0, 0]) == ([0, 0], False, False)
    assert places([0, 0, 0, 2]) == ([0, 0, 0, 1], False, False)
    assert places([5, 0, 0, 0]) == ([1, 0, 0, 0], False, False)  # players at 0 are not tied
    assert places([6, 4, 0, 0]) == ([1, 2, 0, 0], False, False)  # the third reward goes unclaimed
    assert places([4, 0, 4, 0]) == ([2, 0, 2, 0], True, False)


# --- variants -------------------------------------------------------------------------------

def test_ties_split_up_tied_players_take_the_place_they_tied_for():
    assert places([4, 4], "ties_split_up") == ([1, 1], True, False)
    assert places([4, 4, 3, 2], "ties_split_up") == ([1, 1, 3, 0], True, False)
    assert places([5, 5, 5, 2], "ties_split_up") == ([1, 1, 1, 3], True, False)
    assert places([6, 4, 4, 2], "ties_split_up") == ([1, 2, 2, 0], False, True)
    assert places([6, 4, 4], "ties_split_up") == ([1, 2, 2], False, True)
    assert places([6, 5, 3, 3], "ties_split_up") == ([1, 2, 3, 3], False, False)
    assert places([0, 0, 3, 3], "ties_split_up") == ([0, 0, 1, 1], True, False)


def test_tiebreak_by_troops_then_the_official_tie_rule():
    assert places([6, 6, 4, 2], "tiebreak_by_troops", troops=[2, 3, 2, 1]) == ([2, 1, 3, 0], False, False)
    assert places([8, 5, 5, 2], "tiebreak_by_troops", troops=[4, 2, 1, 1]) == ([1, 2, 3, 0], False, False)
    # Same strength and same troops: still a tie, settled by the tie rule in force.
    assert places([6, 6, 4, 2], "tiebreak_by_troops", troops=[3, 3, 2, 1]) == ([2, 2, 3, 0], True, False)
    assert places([6, 6, 4, 2], "tiebreak_by_troops", "ties_split_up", troops=[3, 3, 2, 1]) == (
        [1, 1, 3, 0], True, False)
    assert places([0, 4, 4], "tiebreak_by_troops", troops=[0, 2, 1]) == ([0, 1, 2], False, False)


def test_tiebreak_by_seat_earlier_seat_wins_and_no_tie_is_left():
    assert places([4, 4, 3, 2], "tiebreak_by_seat") == ([1, 2, 3, 0], False, False)
    assert places([3, 5, 5, 5], "tiebreak_by_seat") == ([0, 1, 2, 3], False, False)
    assert places([4, 4], "tiebreak_by_seat") == ([1, 2], False, False)
    assert places([0, 0, 2, 0], "tiebreak_by_seat") == ([0, 0, 1, 0], False, False)
    assert places([4, 4], "tiebreak_by_seat", "ties_split_up") == ([1, 2], False, False)


def test_troops_then_seat_tiebreak():
    assert places([6, 6, 6, 2], troops=[2, 3, 3, 1], tiebreak="troops_then_seat") == (
        [3, 1, 2, 0], False, False)


def test_no_third_reward_even_with_four_players():
    assert places([8, 6, 4, 2], "no_third_reward") == ([1, 2, 0, 0], False, False)
    assert places([6, 4, 4, 2], "no_third_reward") == ([1, 0, 0, 0], False, True)
    assert places([4, 4, 3, 2], "no_third_reward") == ([2, 2, 0, 0], True, False)
    assert places([6, 5, 4], "no_third_reward") == ([1, 2, 0], False, False)
    assert places([6, 4, 4, 2], "no_third_reward", "ties_split_up") == ([1, 2, 2, 0], False, True)


def test_rules_validate_their_fields():
    for bad in ({"ties": "coin"}, {"tiebreak": "age"}, {"third_reward": 1}, {"troop_strength": 0}):
        with pytest.raises(InputError):
            Rules(**bad)
    with pytest.raises(InputError, match="unknown variant"):
        GAME.rules(["ties_favour_defender"])


# --- vectorised allocator = scalar reference -------------------------------------------------

@st.composite
def conflicts(draw):
    players = draw(st.integers(2, 4))
    rows = draw(st.integers(1, 40))
    cell = st.integers(0, 7)
    row = lambda values: st.lists(values, min_size=players, max_size=players)  # noqa: E731
    strengths = draw(st.lists(row(cell), min_size=rows, max_size=rows))
    troops = draw(st.lists(row(st.integers(0, 3)), min_size=rows, max_size=rows))
    rules = Rules(ties=draw(st.sampled_from(TIE_RULES)), tiebreak=draw(st.sampled_from(TIEBREAKS)),
                  third_reward=draw(st.booleans()))
    return rules, strengths, troops


@settings(max_examples=250, deadline=None)
@given(conflicts())
def test_vectorised_allocator_matches_the_reference(case):
    rules, strengths, troops = case
    alloc = allocate(np.array(strengths, dtype=np.int16), rules, np.array(troops))
    for row, (s, t) in enumerate(zip(strengths, troops)):
        expected = reference_places(s, rules, t)
        got = (alloc.places[row].tolist(), bool(alloc.tie_first[row]), bool(alloc.tie_second[row]))
        assert got == expected, (rules, s, t)


# --- simulation against exact enumeration ----------------------------------------------------

VARIANT_SETS = [(), ("ties_split_up",), ("tiebreak_by_troops",), ("tiebreak_by_seat",),
                ("no_third_reward",), ("ties_split_up", "tiebreak_by_troops")]
TROOPS = [  # (troops, intrigue)
    ("0,1", "0"), ("1,1", "0"), ("2,1", "0,2"), ("0:1/2|2:1/2,1:1/4|3:3/4", "0"),
    ("1,1,1", "0"), ("3,2,2", "0"), ("deploy:1+3:uniform,2,1", "1,0,0"),
    ("3,2,2,1", "0"), ("1,1,1,1", "0"), ("2,2,2,0", "0"), ("0,0,3,3", "0"),
    ("deploy:0+2:uniform,1:1/2|2:1/2,2,3", "0,1,0,2"),
]
GRID = [(t, i, r, "starting") for (t, i), r in itertools.product(TROOPS, ["0", "3", "5", "0,2,4,5"])]
GRID += [(t, "0", "3", deck) for t in ("1,1", "2,2,1", "1:1/2|2:1/2,2,2,1")
         for deck in ("starting+sword1", "starting+sword2")]


def close_to_exact(answer, n):
    """Every estimate within 4.5 se of its exact value (se from the exact p for probabilities)."""
    for name, m in answer.metrics.items():
        assert m.exact is not None, name
        se = m.se
        if m.kind == "probability":
            se = max(se, math.sqrt(max(m.exact * (1 - m.exact), 0.0) / n))
        assert abs(m.estimate - m.exact) <= 4.5 * se + 1e-9, (name, m.estimate, m.exact, se)


@pytest.mark.parametrize("troops,intrigue,revealed,deck", GRID)
def test_simulation_matches_exact(troops, intrigue, revealed, deck):
    seats = len(troops.split(","))
    revealed = ",".join(revealed.split(",")[:seats]) if "," in revealed else revealed
    setup = {"troops": troops, "intrigue": intrigue, "revealed": revealed, "deck": deck,
             "conflict": "points_3_2_1"}
    n = 20_000
    for k, variants in enumerate(VARIANT_SETS):
        answer = ask(GAME, None, setup, variants, settings=RunSettings(trials=n, seed=4_000 + k, jobs=1))
        close_to_exact(answer, n)
        exact = answer.metrics
        for seat in range(1, 5):
            places = ("first", "second", "third", "nothing")
            total = sum(exact[f"seat{seat}_{p}"].exact for p in places) if seat <= seats else 0
            assert total == pytest.approx(1.0 if seat <= seats else 0.0)


def test_literal_reading_agrees_with_the_group_walk_everywhere_small():
    """Every strength 0..3 and troops 0..1 for 2-4 players under every combination of rules."""
    for players in (2, 3, 4):
        for strengths in itertools.product(range(4), repeat=players):
            for troops in itertools.product(range(2), repeat=players):
                for ties, tiebreak, third in itertools.product(TIE_RULES, TIEBREAKS, (True, False)):
                    rules = Rules(ties=ties, tiebreak=tiebreak, third_reward=third)
                    expected = reference_places(strengths, rules, troops)
                    assert literal_places(strengths, troops, rules) == expected, (rules, strengths, troops)


REFERENCE_SETUPS = [  # (troops, intrigue, revealed, deck, conflict card)
    ("1,1", "0", "3", "starting", "points_3_2_1"),
    ("2,1", "0,2", "5", "starting+sword2", "skirmish"),
    ("3,2,2", "0", "3", "starting", "battle_for_arrakeen"),
    ("deploy:1+3:uniform,2,1", "1,0,0", "2,3,5", "starting+sword1", "points_3_2_1"),
    ("3,2,2,1", "0", "3", "starting", "points_3_2_1"),
    ("deploy:0+2:uniform,1:1/2|2:1/2,2,3", "0,1,0,2", "3", "starting+sword2", "points_3_2_1"),
    # skewed troop odds, and a seat whose swords and intrigue would win if it counted without troops
    ("0:3/10|1:7/10,1:4/5|2:1/5", "3,0", "3", "starting", None),
]
REFERENCE_VARIANTS = [(), *((v,) for v in GAME.variants), ("ties_split_up", "tiebreak_by_troops")]


@pytest.mark.parametrize("troops,intrigue,revealed,deck,card", REFERENCE_SETUPS)
def test_reference_trial_matches_exact(troops, intrigue, revealed, deck, card):
    """The plain-Python trial (real shuffled cards, the rule read literally) against enumeration.

    Standard errors come from the exact values (for points, the exact variance from the exact
    place probabilities), so an event of exact probability 0 or 1 must never or always happen.
    """
    setup = parse_conflict({"troops": troops, "intrigue": intrigue, "revealed": revealed, "deck": deck,
                            "conflict": card})
    vp = CONFLICTS[card].vp_by_place() if card else (0, 0, 0, 0)
    n = 4_000
    for k, variants in enumerate(REFERENCE_VARIANTS):
        rules = GAME.rules(variants)
        exact = exact_conflict(rules, setup)
        rng = np.random.default_rng(7_000 + k)
        trials = [reference_conflict(rules, setup, rng) for _ in range(n)]
        for name, value in exact.items():
            mean = sum(float(t[name]) for t in trials) / n
            if name.endswith("_points"):
                seat = name[:name.index("_")]
                places = ("nothing", "first", "second", "third")
                second_moment = sum(exact[f"{seat}_{p}"] * v * v for p, v in zip(places, vp))
                variance = max(second_moment - value * value, 0.0)
            else:
                variance = value * (1 - value)
            se = math.sqrt(variance / n)
            assert abs(mean - value) <= 4.5 * se + 1e-9, (variants, name, mean, value)


def test_applicable_metrics_follow_the_setup():
    question = GAME.question()
    two = question.applicable_metrics(parse_conflict({"troops": "2,2"}))
    assert "tie_first" in two and "tie_second" not in two
    places = ("first", "second", "third", "nothing")
    assert {m for m in two if m.startswith("seat")} == {f"seat{s}_{p}" for s in (1, 2) for p in places}
    three = set(applicable_conflict(parse_conflict({"troops": "2,2,1", "conflict": "skirmish"})))
    assert {"tie_second", "seat3_points", "seat3_first"} <= three
    assert not any(m.startswith("seat4") for m in three)
    four = question.applicable_metrics(parse_conflict({"troops": "2,2,1,1", "conflict": "skirmish"}))
    assert set(four) == {m.name for m in question.metrics}


def test_no_troops_means_strength_zero_whatever_the_swords_and_intrigue():
    setup = GAME.question().setup({"troops": "0,1", "revealed": 10, "intrigue": "9,0"})
    exact = exact_conflict(Rules(), setup)
    assert exact["seat2_first"] == 1.0 and exact["seat1_nothing"] == 1.0
    out = simulate_conflict(Rules(), setup, 1000, np.random.default_rng(3))
    assert out["seat2_first"].all() and out["seat1_nothing"].all()


def test_points_of_a_certain_tie_for_first():
    setup = GAME.question().setup({"troops": "1,1", "revealed": 0, "conflict": "points_3_2_1"})
    assert exact_conflict(Rules(), setup)["seat1_points"] == 2.0  # tied: second reward each
    assert exact_conflict(GAME.rules(["ties_split_up"]), setup)["seat1_points"] == 3.0
    assert exact_conflict(GAME.rules(["tiebreak_by_seat"]), setup)["seat2_points"] == 2.0
    out = simulate_conflict(Rules(), setup, 500, np.random.default_rng(1))
    assert (out["seat1_points"] == 2.0).all() and out["tie_first"].all()


def test_absent_seats_report_nothing_at_all():
    setup = GAME.question().setup({"troops": "2,2", "conflict": "skirmish"})
    exact = exact_conflict(Rules(), setup)
    out = simulate_conflict(Rules(), setup, 1000, np.random.default_rng(2))
    for seat in (3, 4):
        for metric in ("first", "second", "third", "nothing", "points"):
            assert exact[f"seat{seat}_{metric}"] == 0.0
            assert not out[f"seat{seat}_{metric}"].any()


def test_no_conflict_card_scores_no_points():
    setup = GAME.question().setup({"troops": "1-3,2,0:1/2|1:1/2,1"})  # 4 players: a third reward too
    exact = exact_conflict(Rules(), setup)
    out = simulate_conflict(Rules(), setup, 2_000, np.random.default_rng(4))
    assert exact["seat4_third"] > 0 and out["seat4_third"].any()
    for seat in (1, 2, 3, 4):
        assert exact[f"seat{seat}_points"] == 0.0 and not out[f"seat{seat}_points"].any()


def test_kernel_never_divides_or_casts_out_of_range():
    """Seats with no troops in some trials only: their strength is zeroed, not divided away."""
    setup = GAME.question().setup({"troops": "0:1/2|1:1/2,0-2,1", "intrigue": "4,4,0", "revealed": 5})
    with np.errstate(all="raise"):
        out = simulate_conflict(Rules(), setup, 4_000, np.random.default_rng(6))
    assert out["seat1_first"].any() and out["seat1_nothing"].any()


def test_applicable_metrics_in_order():
    assert applicable_conflict(parse_conflict({"troops": "2,2", "conflict": "skirmish"})) == (
        "seat1_first", "seat1_second", "seat1_third", "seat1_nothing", "seat1_points",
        "seat2_first", "seat2_second", "seat2_third", "seat2_nothing", "seat2_points", "tie_first")


def test_exact_state_limit_is_inclusive(monkeypatch):
    from montecarlo.games.imperium import conflict

    setup = GAME.question().setup({"troops": "1-2,1-3", "revealed": 0})  # 2 x 3 = 6 joint states
    monkeypatch.setattr(conflict, "MAX_EXACT_STATES", 6)
    assert exact_conflict(Rules(), setup) is not None
    monkeypatch.setattr(conflict, "MAX_EXACT_STATES", 5)
    assert exact_conflict(Rules(), setup) is None


def test_exact_gives_up_on_huge_state_spaces():
    setup = GAME.question().setup({"players": 4, "troops": "0-12"})
    assert exact_conflict(GAME.rules(["tiebreak_by_troops"]), setup) is None
    assert exact_conflict(Rules(), GAME.question().setup({"players": 4, "troops": "0-3"})) is not None


# --- swords, troops and setups ---------------------------------------------------------------

def test_sword_distribution_is_hypergeometric():
    deck = DECKS["starting"]
    for revealed in range(deck.size + 1):
        pmf = sword_pmf(deck, revealed)
        for swords in range(3):
            expected = scipy_stats.hypergeom(deck.size, 2, revealed).pmf(swords)
            assert float(pmf.get(swords, 0)) == pytest.approx(expected, abs=1e-12)


def test_sword_distribution_with_a_two_sword_card():
    deck = DECKS["starting+sword2"]  # 11 cards: swords 1, 1, 2
    for revealed in range(deck.size + 1):
        pmf = sword_pmf(deck, revealed)
        assert sum(pmf.values()) == 1
        assert sum(s * p for s, p in pmf.items()) == pytest.approx(revealed * 4 / 11)  # linearity
    assert sword_pmf(deck, 1) == {0: Fraction(8, 11), 1: Fraction(2, 11), 2: Fraction(1, 11)}


def test_troop_entries_in_every_syntax():
    same = ["0:1/4|2:3/4", "0:0.25 | 2:0.75", {0: 0.25, 2: 0.75}, {"0": "1/4", "2": "3/4"},
            [[0, 0.25], [2, 0.75]]]
    pmfs = {parse_troops(entry).pmf for entry in same}
    assert pmfs == {((0, 0.25), (2, 0.75))}
    assert parse_troops(3).pmf == parse_troops("3").pmf == ((3, 1.0),)
    assert parse_troops("deploy:2+3").pmf == ((4, 1.0),)  # recruits plus at most two from the garrison
    assert parse_troops("deploy:2+1").pmf == ((3, 1.0),)
    assert parse_troops("deploy:2+3:recruited").pmf == ((2, 1.0),)
    uniform = parse_troops({"recruited": 0, "garrison": 3, "policy": "uniform"})
    assert uniform.pmf == ((0, 1 / 3), (1, 1 / 3), (2, 1 / 3))


def test_setup_broadcasts_with_players():
    q = GAME.question()
    setup = q.setup({"players": 3, "troops": "deploy:1+3", "revealed": "2,3,4",
                     "conflict": "Siege of Carthag"})
    assert [t.spec for t in setup.troops] == ["deploy:1+3"] * 3
    assert setup.revealed == (2, 3, 4) and setup.intrigue == (0, 0, 0)
    assert setup.conflict == "siege_of_carthag"
    assert q.setup({"troops": [3, 2, 2, 1]}) == q.setup({"troops": "3,2,2,1", "revealed": 3, "intrigue": "0"})


@pytest.mark.parametrize("values,field", [
    ({"troops": "3"}, "troops"),
    ({"troops": "3,2,2,1,1"}, "troops"),
    ({"troops": "-1,2"}, "troops"),
    ({"troops": "13,2"}, "troops"),
    ({"troops": "0:1/2|2:1/4,1"}, "troops"),
    ({"troops": "deploy:2+x,1"}, "troops"),
    ({"troops": "deploy:1+2:lazy,1"}, "troops"),
    ({"troops": [[0, 0.5], [2, 0.5]]}, "troops"),
    ({"troops": "2,2", "revealed": 11}, "revealed"),
    ({"troops": "2,2", "revealed": "3,3,3"}, "revealed"),
    ({"troops": "2,2", "intrigue": -1}, "intrigue"),
    ({"troops": "2,2", "deck": "imperium_row"}, "deck"),
    ({"troops": "2,2", "conflict": "battle_of_corrin"}, "conflict"),
    ({"troops": "2,2", "players": 3}, "troops"),
    ({"troops": "2,2", "players": 5}, "players"),
    ({"troops": "2,2", "hand": 5}, "conflict setup"),
    ({}, "troops"),
])
def test_bad_setups_raise_one_line_naming_the_field(values, field):
    with pytest.raises(InputError) as err:
        GAME.question().setup(values)
    message = str(err.value)
    assert message.startswith(field) and "\n" not in message


# --- shipped scenarios -----------------------------------------------------------------------

SCENARIO_FILES = sorted(SCENARIOS.glob("*.toml"))


def test_scenarios_exist():
    assert len(SCENARIO_FILES) >= 3


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.stem)
def test_scenario_builds_every_setup_and_variant(path):
    spec = tomllib.loads(path.read_text())
    assert spec["game"] == "imperium" and isinstance(spec["seed"], int)
    question = GAME.question(spec.get("question"))
    names = {m.name for m in question.metrics}
    assert set(spec.get("metrics", [])) <= names
    grid = spec.get("grid", {})
    points = [dict(zip(grid, combo)) for combo in itertools.product(*grid.values())]
    for point in points:
        question.setup({**spec.get("setup", {}), **point})
    variants = spec.get("variants", {"official": {}})
    for variant in variants.values():
        builtin = variant.get("builtin", [])
        overrides = {**spec.get("rules", {}), **variant.get("overrides", {})}
        GAME.rules([builtin] if isinstance(builtin, str) else builtin, overrides)
    for plot in spec.get("plots", []):
        assert plot["metric"] in names
        assert all(plot[k] in grid for k in ("x", "y", "facet", "hue") if k in plot)


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.stem)
def test_scenario_passes_the_scenario_loader(path):
    scenarios = pytest.importorskip("montecarlo.scenarios")
    assert len(scenarios.load_scenario(path).points) >= 1


def test_scenarios_fit_the_time_budget():
    """All imperium scenarios together: at most 120 M trials (~40 s on 2 cores at ~5 M/s)."""
    total = 0
    for path in SCENARIO_FILES:
        spec = tomllib.loads(path.read_text())
        points = math.prod(len(v) for v in spec.get("grid", {}).values())
        total += spec["trials"] * points * len(spec.get("variants", {"official": {}}))
    assert total <= 120_000_000


def test_house_hagal_seat_by_hand():
    """A two-player game with House Hagal as seat 3 (its strength: 1 troop = 2, no cards).

    Seat 1 has 1 troop and reveals 3 of its 10 starting cards (2 Daggers): strength 2 + swords,
    with P(no sword) = C(8,3)/C(10,3) = 56/120 = 7/15. Seat 2 has no troop. So seat 1 takes the
    first reward with 8/15; otherwise it ties Hagal for first and both take the second reward
    (7/15). Skirmish gives 1 VP for first: seat 1 expects 8/15 VP; Hagal's rewards count for
    nobody, so its points are not a metric of this setup. Without Hagal seat 1 always wins.
    """
    question = GAME.question("conflict")
    setup = question.setup({"troops": "1,0,1", "revealed": "3,0,0", "hagal": 3, "conflict": "skirmish"})
    e = exact_conflict(Rules(), setup)
    assert (e["seat1_first"], e["seat1_second"], e["tie_first"], e["seat1_points"]) == pytest.approx(
        (8 / 15, 7 / 15, 7 / 15, 8 / 15), abs=1e-12
    )
    assert "seat3_points" not in question.applicable_metrics(setup)
    assert "seat3_second" in question.applicable_metrics(setup)  # Hagal's places are still shown
    assert tuple(question.stand_ins(setup)) == (3,)  # reports read no seat advantage against Hagal
    alone = exact_conflict(Rules(), question.setup({"troops": "1,0", "revealed": "3,0"}))
    assert alone["seat1_first"] == pytest.approx(1.0)
    # "none" (the default, spelt out) and an empty value mean no Hagal seat, as leaving it out does
    for none in ("none", ""):
        assert parse_conflict({"troops": "1,0", "revealed": "3,0", "hagal": none}).hagal == ()


@pytest.mark.parametrize(
    "values,message",
    [
        ({"troops": "1,1,1,1", "hagal": 4}, "House Hagal plays only in solo and two-player games"),
        ({"troops": "1,1", "hagal": "1,2"}, "leave at least one seat for a player"),
        ({"troops": "1,1,1", "hagal": 5}, r"hagal: seat 5 is not a seat of this conflict \(1..3\)"),
    ],
)
def test_bad_hagal_seats(values, message):
    with pytest.raises(InputError, match=message):
        GAME.question("conflict").setup(values)
