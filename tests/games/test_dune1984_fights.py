"""Dune (1984) fights (docs/rules/dune1984.md: duels, equipment, fights with several characters).

The vectorised kernel against the exact solver over whole 6 x 6 grids (plain dice, Sword, Gom
Jabbar, each variant) and Poison grids; the solver's one-round odds against brute-force
enumeration of every face; the plain-Python ``reference_duel`` against the solver (Poison, Gom
cap, defender-wins-ties, fight to the last); multi-character fights against their solver; closed
forms and the rulebook's Equipment claims; setup parsing. Every comparison allows 4.5 standard
errors, with fixed seeds.
"""

import functools
import itertools
import math
from collections import Counter

import numpy as np
import pytest

from montecarlo.analysis import RunSettings, ask
from montecarlo.engine import stats
from montecarlo.errors import InputError
from montecarlo.games.dune1984 import GAME, fights
from montecarlo.games.dune1984.fights import (
    QUESTIONS,
    STRENGTHS,
    DuelSetup,
    DUEL,
    FightSetup,
    _Context,
    exact,
    reference_duel,
    round_odds,
    simulate_duel,
    simulate_fight,
)
from montecarlo.games.dune1984.rules import Rules

N = 30_000  # trials per grid cell


def misses(question: str, out: dict, expected: dict, names, n: int) -> list[tuple[str, float, float]]:
    """(name, estimate, exact) for every reported value more than 4.5 standard errors off.

    A probability's se is sqrt(p(1-p)/n) at the exact p (the engine's se is 0 when a rare value
    was never drawn); a mean's is the engine's (sample variance).
    """
    bad = []
    for metric in QUESTIONS[question].metrics:
        if metric.name not in names:
            continue
        values = np.asarray(out[metric.name])
        for reported in metric.reported_names():
            want = expected[reported]
            if metric.kind == "mean":
                v = values.astype(float)
                est = stats.mean(v.sum(), v @ v, n)
                got, se = est.estimate, est.se
            else:
                hits = values == int(reported.split("=")[1]) if metric.kind == "distribution" else values
                got = stats.proportion(np.count_nonzero(hits), n).estimate
                se = math.sqrt(max(want * (1 - want), 0.0) / n)
            if abs(got - want) > 4.5 * se + 1e-9:
                bad.append((reported, got, want))
    return bad


GRIDS = [  # variants, attacker's equipment, metrics checked in every cell
    ((), (), ("attacker_win", "rounds", "winner_strength")),
    ((), ("sword",), ("attacker_win",)),
    ((), ("gom_jabbar",), ("attacker_win",)),
    (("ties_favour_defender",), (), ("attacker_win", "tied_rounds")),
    (("no_strength_gain",), (), ("attacker_win", "winner_strength_after")),
    (("gom_counts_toward_cap",), ("gom_jabbar",), ("attacker_win",)),
]


@pytest.mark.parametrize(
    "variants,kit,names",
    GRIDS,
    ids=["plain", "sword", "gom_jabbar", "ties_favour_defender", "no_strength_gain", "gom_counts_toward_cap"],
)
def test_kernel_matches_exact_over_the_grid(variants, kit, names):
    rules = GAME.rules(variants)
    rng = np.random.default_rng(1984)
    for a, d in itertools.product(STRENGTHS, STRENGTHS):
        setup = DuelSetup(a, d, kit)
        bad = misses("duel", simulate_duel(rules, setup, N, rng), exact(rules, setup), names, N)
        assert not bad, (variants, kit, a, d, bad)


def test_grid_check_can_fail():
    """Simulated plain duels are told apart from the exact odds with a Sword, a Gom Jabbar or
    defender-wins-ties wherever those differ by more than 8 standard errors."""
    rng = np.random.default_rng(7)
    plain, flagged, expected_flags = Rules(), 0, 0
    for a, d in itertools.product(STRENGTHS, STRENGTHS):
        out = simulate_duel(plain, DuelSetup(a, d), N, rng)
        for rules, kit in ((plain, ("sword",)), (plain, ("gom_jabbar",)), (Rules(ties="defender"), ())):
            other = exact(rules, DuelSetup(a, d, kit))["attacker_win"]
            p = exact(plain, DuelSetup(a, d))["attacker_win"]
            if abs(other - p) > 8 * math.sqrt(max(p * (1 - p), other * (1 - other)) / N):
                expected_flags += 1
                wrong = {**exact(plain, DuelSetup(a, d)), "attacker_win": other}
                flagged += bool(misses("duel", out, wrong, ("attacker_win",), N))
    assert expected_flags > 60 and flagged == expected_flags


@functools.lru_cache(maxsize=None)
def highest_counts(faces: tuple[int, ...]) -> Counter:
    """How often each value is the highest die, over every combination of faces of ``faces``."""
    return Counter(map(max, itertools.product(*(range(1, f + 1) for f in faces))))


def brute_round(dice_a: list[int], dice_d: list[int]) -> tuple[float, float, float]:
    """One roll by enumeration: every face of every die of each side (sides are independent)."""
    ha, hd = highest_counts(tuple(dice_a)), highest_counts(tuple(dice_d))
    total = sum(ha.values()) * sum(hd.values())
    wins = [
        sum(ca * cd for va, ca in ha.items() for vd, cd in hd.items() if cmp(va, vd)) / total
        for cmp in (lambda x, y: x > y, lambda x, y: x < y, lambda x, y: x == y)
    ]
    return tuple(wins)


def pool(strength: int, kit: tuple[str, ...], gom_capped: bool) -> list[int]:
    """The dice the rules give: Strength dice (d8 with a Sword), max 6, plus a Gom Jabbar d8
    that counts toward the 6 only with ``gom_capped``."""
    gom = "gom_jabbar" in kit
    n = min(strength, 6 - (1 if gom and gom_capped else 0))
    return [8 if "sword" in kit else 6] * n + ([8] if gom else [])


def test_round_odds_match_brute_force_enumeration():
    kits_a = [(), ("sword",), ("gom_jabbar",), ("gom_jabbar", "sword")]
    kits_d = [(), ("sword",)]
    for capped in (False, True):
        rules = Rules(gom_counts_toward_cap=capped)
        for kit_a, kit_d in itertools.product(kits_a, kits_d):
            top = 5 if kit_a == ("gom_jabbar", "sword") else 6  # keeps enumeration under a second
            for a, d in itertools.product(range(1, top + 1), (1, 3, 6) if kit_d else STRENGTHS):
                want = brute_round(pool(a, kit_a, capped), pool(d, kit_d, capped))
                got = round_odds(rules, a, kit_a, d, kit_d)
                assert np.allclose(got, want, atol=1e-12), (capped, kit_a, kit_d, a, d, got, want)


REFERENCE_CASES = [
    (Rules(), DuelSetup(4, 5, ("poison",), ("poison",))),
    (Rules(gom_counts_toward_cap=True), DuelSetup(6, 5, ("gom_jabbar",))),
    (Rules(ties="defender"), DuelSetup(3, 3, defender_equipment=("sword",))),
    (Rules(guile_roll="2d6"), DuelSetup("Paul Atreides", "Duke Leto Atreides", ("poison",))),
    (Rules(fight_to_last=True), FightSetup((3, 2), (4,), ("poison",))),
    (Rules(fight_to_last=True), FightSetup((1, 3), (3,), defender_equipment=("poison",))),  # first hit kills
    (Rules(designation="strongest_first"), FightSetup((3, 2), (4,))),
    (
        Rules(fight_to_last=True, designation="strongest_first", strength_gain=0),
        FightSetup((2, 4, 1), (3, 3), defender_equipment=("sword", "poison")),
    ),
    (Rules(set_aside_die=True), FightSetup((4, 3), (5,), defender_equipment=("poison",))),
    (
        Rules(set_aside_die=True, fight_to_last=True, designation="strongest_first"),
        FightSetup((5, 4), (6, 2), ("gom_jabbar",)),
    ),
    (Rules(set_aside_die=True, max_dice=2), DuelSetup(4, 1)),  # out of dice at Strength 2: rolls none
]


@pytest.mark.parametrize("rules,setup", REFERENCE_CASES)
def test_reference_trial_matches_exact(rules, setup):
    rng = np.random.default_rng(41)
    n = 4000
    rows = [reference_duel(rules, setup, rng) for _ in range(n)]
    question = "duel" if isinstance(setup, DuelSetup) else "fight"
    out = {name: np.array([r[name] for r in rows]) for name in rows[0]}
    names = [m.name for m in QUESTIONS[question].metrics]
    assert not misses(question, out, exact(rules, setup), names, n)


def test_poison_grid_matches_exact():
    rng = np.random.default_rng(5)
    for roll, (kit_a, kit_d) in itertools.product(
        ("d6", "2d6"), [(("poison",), ()), ((), ("poison",)), (("poison",), ("poison", "sword"))]
    ):
        rules = Rules(guile_roll=roll)
        for a, d, guile in ((1, 1, 3), (2, 4, 1), (4, 2, 4), (3, 5, 0), (5, 5, 5), (6, 3, 2)):
            setup = DuelSetup(a, d, kit_a, kit_d, attacker_guile=guile, defender_guile=6 - guile)
            out = simulate_duel(rules, setup, 20_000, rng)
            assert not misses(
                "duel", out, exact(rules, setup), ("attacker_win", "poisoned", "rounds"), 20_000
            ), (roll, setup)


FIGHT_SIDES = [(3,), (2, 1), (3, 2)], [(2,), (2, 2), (1, 3, 1)]
FIGHT_RULES = [
    Rules(),
    Rules(fight_to_last=True),
    Rules(designation="strongest_first"),
    Rules(fight_to_last=True, designation="strongest_first"),
    Rules(set_aside_die=True, fight_to_last=True),
]


@pytest.mark.parametrize(
    "rules", FIGHT_RULES, ids=["default", "fight_to_last", "strongest_first", "both", "set_aside_die"]
)
def test_fight_kernel_matches_exact(rules):
    rng = np.random.default_rng(13)
    names = (
        "attacker_win",
        "rounds",
        "attacker_survivors",
        "defender_survivors",
        "attacker_strength_after",
        "poisoned",
    )
    for a, d in itertools.product(*FIGHT_SIDES):
        setup = FightSetup(a, d, ("gom_jabbar",) if len(a) == 2 else (), ("poison",) if len(d) == 2 else ())
        out = simulate_fight(rules, setup, 20_000, rng)
        assert not misses("fight", out, exact(rules, setup), names, 20_000), (a, d)


def test_a_one_character_fight_is_the_duel():
    for kit, variants in itertools.product(
        ((), ("sword",), ("poison", "gom_jabbar")), ((), ("ties_favour_defender",))
    ):
        rules = GAME.rules(variants)
        for a, d in itertools.product(STRENGTHS, STRENGTHS):
            duel, fight = exact(rules, DuelSetup(a, d, kit)), exact(rules, FightSetup([a], [d], kit))
            for name in ("attacker_win", "rounds", "decisive_rounds", "tied_rounds", "poisoned"):
                assert fight[name] == pytest.approx(duel[name], abs=1e-12)


def test_closed_forms():
    rules = Rules()
    one = exact(rules, DuelSetup(1, 1))
    assert one["attacker_win"] == pytest.approx(0.5)  # one d6 each: symmetric
    assert one["rounds"] == pytest.approx(6 / 5) and one["tied_rounds"] == pytest.approx(
        1 / 5
    )  # P(tie) = 1/6
    assert exact(Rules(ties="defender"), DuelSetup(1, 1))["attacker_win"] == pytest.approx(15 / 36)
    assert exact(rules, DuelSetup(1, 1, ("sword",)))["attacker_win"] == pytest.approx(27 / 42)  # d8 vs d6
    for a, d in itertools.product(STRENGTHS, STRENGTHS):  # re-rolled ties: the labels do not matter
        assert exact(rules, DuelSetup(a, d))["attacker_win"] + exact(rules, DuelSetup(d, a))[
            "attacker_win"
        ] == pytest.approx(1)
    # Poison, Strength 1 against Strength 2 with Guile g: win the first decisive roll (p1: without
    # Poison the duel is then an even 1 vs 1, so p1 = 2 x P(win 1 vs 2)), then the 1d6 check kills
    # with (6 - g)/6, and otherwise the even 1 vs 1 decides.
    p1 = 2 * exact(rules, DuelSetup(1, 2))["attacker_win"]
    for g in range(0, 7):
        got = exact(rules, DuelSetup(1, 2, ("poison",), defender_guile=g))["attacker_win"]
        assert got == pytest.approx(p1 * ((6 - g) / 6 + g / 6 * 0.5)), g


def test_set_aside_die_by_hand():
    """The two readings of "Subtract 1 Strength point ... and Set aside 1 die", worked by hand.

    With at most 2 dice (``max_dice=2``), Strengths 2,1 (the 2 designated: ``strongest_first``)
    against 2: the attacker's summed Strength 3 is above the cap, so the readings differ.
    Per decisive roll (ties are re-rolled), 2d6 against 2d6 or 1d6 against 1d6 is even; 2d6
    against 1d6: P(1d6 higher) = sum_v (1/6)(v-1)^2/36 = 55/216, P(tie) = sum_v (2v-1)/216 =
    36/216, so the 2 dice win 125/216, i.e. 125/180 = 25/36 of decisive rolls (the 1 die 11/36).

    - Default (dice = min(2, total Strength)): the attacker rolls 2 dice all fight (total 3, then
      2); the defender 2, then 1. Win = 1/2 (25/36 + 11/36 x 25/36) + 1/2 x 1/2 x 25/36
      = 1175/2592 + 450/2592 = 1625/2592 (about 0.627).
    - ``set_aside_die``: both sides start with 2 dice and set one aside per lost round, and each
      needs two wins: the fight is symmetric, win = 1/2. The same symmetry gives 1/2 for 6,1
      (the 6 designated) against 6 with the usual six dice.
    """
    strongest = Rules(max_dice=2, designation="strongest_first")
    setup = FightSetup((2, 1), (2,))
    assert exact(strongest, setup)["attacker_win"] == pytest.approx(1625 / 2592, abs=1e-12)
    assert exact(GAME.rules(["set_aside_die"], {"max_dice": 2, "designation": "strongest_first"}), setup)[
        "attacker_win"
    ] == pytest.approx(1 / 2, abs=1e-12)
    six = GAME.rules(["set_aside_die", "strongest_first"])
    assert exact(six, FightSetup((6, 1), (6,)))["attacker_win"] == pytest.approx(1 / 2, abs=1e-12)
    # at or below 6 Strength a side the readings agree: 3,2 vs 4 rolls the same dice either way
    plain = exact(Rules(), FightSetup((3, 2), (4,), ("sword",)))
    assert exact(GAME.rules(["set_aside_die"]), FightSetup((3, 2), (4,), ("sword",))) == pytest.approx(plain)
    # the figures: 4,3 vs 5, 0.652 (dice recounted) against about 0.562 (set aside)
    assert exact(Rules(), FightSetup((4, 3), (5,)))["attacker_win"] == pytest.approx(0.652, abs=5e-4)
    assert exact(Rules(set_aside_die=True), FightSetup((4, 3), (5,)))["attacker_win"] == pytest.approx(
        0.562, abs=5e-4
    )


def set_aside_duel(a: int, d: int, cap: int, gom: tuple[bool, bool]) -> float:
    """P(attacker wins) of a duel under ``set_aside_die``, by recursion on the rounds each side
    has lost: a side rolls max(min(cap, Strength) - rounds lost, 0) d6 (none: its highest is 0)
    and its Gom Jabbar d8 beside them; ties are re-rolled (won by nobody)."""
    from fractions import Fraction

    def highest(n: int, extra: bool) -> list:  # P(highest = k), k = 0..8
        def cdf(k):
            return Fraction(min(k, 6), 6) ** n * (Fraction(min(k, 8), 8) if extra else 1)
        return [cdf(k) - (cdf(k - 1) if k else 0) for k in range(9)]

    @functools.lru_cache(maxsize=None)
    def win(lost_a: int, lost_d: int) -> Fraction:
        if lost_d == d:
            return Fraction(1)
        if lost_a == a:
            return Fraction(0)
        ha = highest(max(min(cap, a) - lost_a, 0), gom[0])
        hd = highest(max(min(cap, d) - lost_d, 0), gom[1])
        up = sum(p * q for i, p in enumerate(ha) for j, q in enumerate(hd) if i > j)
        down = sum(p * q for i, p in enumerate(ha) for j, q in enumerate(hd) if i < j)
        ahead = up * win(lost_a, lost_d + 1) if up else 0  # a round no side can win is never met
        behind = down * win(lost_a + 1, lost_d) if down else 0
        return (ahead + behind) / (up + down)

    return float(win(0, 0))


@pytest.mark.parametrize("cap", [1, 2, 3])
def test_set_aside_die_with_fewer_dice_than_strength_runs_out_of_dice(cap):
    """A house rule's max_dice below a Strength, under ``set_aside_die``: a side that has set
    every die aside rolls none (it took -1 dice, read as the whole cap again: 4 vs 1 at
    max_dice 2 gave 0.9533 for 0.8472), against a recursion of its own, Gom Jabbar or not."""
    for a, d in itertools.product(STRENGTHS, STRENGTHS):
        for gom in ((False, False), (True, False), (False, True)):
            kit = tuple(("gom_jabbar",) if g else () for g in gom)
            rules = Rules(set_aside_die=True, max_dice=cap)
            got = exact(rules, DuelSetup(a, d, kit[0], kit[1]))["attacker_win"]
            assert got == pytest.approx(set_aside_duel(a, d, cap, gom), abs=1e-12), (a, d, gom)


def test_a_strength_cap_above_the_track_is_refused():
    """max_strength 8 with a gain of 3 gave the winner Strengths 7..9, which the distribution of
    the winner's Strength after the gain (over the track, 1..6) dropped: its values summed to
    0.0015. The track has no place above 6, so neither has the rule."""
    with pytest.raises(InputError, match=r"^max_strength must be an integer 1\.\.6, got 8$"):
        Rules(max_strength=8, strength_gain=3)
    rules = Rules(max_strength=6, strength_gain=3)
    after = exact(rules, DuelSetup(6, 1))
    assert sum(after[f"winner_strength_after={v}"] for v in STRENGTHS) == pytest.approx(1, abs=1e-12)


def test_equipment_helps_the_weaker_side_as_the_rulebook_says():
    """Rulebook, Equipment Cards (seeds/dune1984-rulebook.txt): Sword "greatly increases fighting
    capability if your character's Strength is less than the enemy character's Strength"; Gom
    Jabbar "increases fighting capability" in the same case."""
    rules = Rules()
    for a, d in itertools.product(STRENGTHS, STRENGTHS):
        if a < d:
            plain = exact(rules, DuelSetup(a, d))["attacker_win"]
            sword = exact(rules, DuelSetup(a, d, ("sword",)))["attacker_win"]
            gom = exact(rules, DuelSetup(a, d, ("gom_jabbar",)))["attacker_win"]
            assert sword > 2 * plain and gom > plain, (a, d)


def test_setups_normalise_and_reject_bad_input():
    a = QUESTIONS["duel"].setup(
        {"attacker": "paul  atreides", "defender": "5", "attacker_equipment": "Gom-Jabbar, sword"}
    )
    b = QUESTIONS["duel"].setup(
        {"attacker": "Paul Atreides", "defender": 5, "attacker_equipment": ["sword", "gom_jabbar"]}
    )
    assert a == b and hash(a) == hash(b)
    assert (a.attacker, a.attacker_guile, a.attacker_equipment) == (
        "Paul Atreides",
        3,
        ("gom_jabbar", "sword"),
    )
    assert DuelSetup("Duke Leto Atreides", 2, defender_guile=5).attacker_guile == 4
    f = QUESTIONS["fight"].setup({"attacker": "4, Chani", "defender": [5], "attacker_guile": "2,6"})
    assert (f.attacker, f.attacker_guile, f.defender_guile) == ((4, "Chani"), (2, 6), (3,))
    bad = [
        ("duel", {"attacker": 0, "defender": 5}, "attacker must be a Strength 1..6"),
        ("duel", {"attacker": 4, "defender": 7}, "defender must be a Strength 1..6"),
        ("duel", {"attacker": "Bob", "defender": 5}, "attacker: unknown character 'Bob'"),
        (
            "duel",
            {"attacker": 4, "defender": 5, "defender_equipment": ["lasgun"]},
            "defender_equipment: unknown equipment",
        ),
        (
            "duel",
            {"attacker": 4, "defender": 5, "attacker_guile": 11},
            "attacker_guile must be an integer 0..10",
        ),
        # were dropped without a word, where a fight's "4,,3" is refused
        ("duel", {"attacker": 4, "defender": 5, "attacker_equipment": "sword,,poison"},
         "attacker_equipment: an empty item in 'sword,,poison'; separate the items by single commas"),
        ("duel", {"attacker": 4, "defender": 5, "attacker_equipment": ","}, "an empty item in ','"),
        ("duel", {"attacker": 4, "defender": 5, "defender_equipment": [""]}, "an empty item in \\[''\\]"),
        ("duel", {"attacker": 4}, "defender is required"),
        ("duel", {"attacker": 4, "defender": 5, "strength": 3}, "unknown field(s) strength"),
        ("fight", {"attacker": [4, 3, 2, 1], "defender": [5]}, "attacker must list 1..3 characters"),
        ("fight", {"attacker": "", "defender": [5]}, "attacker must list 1..3 characters, got 0"),
        ("fight", {"attacker": "4,", "defender": [5]}, "attacker: an empty item in '4,'"),
        (
            "fight",
            {"attacker": [4, 3], "defender": [5], "attacker_guile": "3,"},
            "attacker_guile: an empty item in '3,'",
        ),
        (
            "fight",
            {"attacker": [4, 3], "defender": [5], "attacker_guile": [3]},
            "attacker_guile needs one Guile per character",
        ),
    ]
    for question, values, message in bad:
        with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
            QUESTIONS[question].setup(values)


def test_rules_that_never_end_a_round_are_an_input_error():
    with pytest.raises(InputError) as caught:
        exact(Rules(die_faces=1), DuelSetup(2, 2))
    assert str(caught.value) == "under these rules every roll is a tie, so the fight never ends"


@pytest.mark.parametrize("rules, attacker_kit, defender_kit, fields", [
    (Rules(die_faces=1), (), (), "die_faces"),
    (Rules(die_faces=1, sword_faces=1), ("sword",), (), "sword_faces and die_faces"),
    (Rules(die_faces=1, gom_faces=1), (), ("gom_jabbar",), "die_faces and gom_faces"),
])
def test_rules_under_which_every_roll_ties_are_refused_before_any_trial(
    rules, attacker_kit, defender_kit, fields
):
    """The duel's and the fight's check, which a scenario runs under every variant (and names the
    variant): the solver met it inside its first round, and its line named no rule."""
    for question, setup in (("duel", DuelSetup(2, 3, attacker_kit, defender_kit)),
                            ("fight", QUESTIONS["fight"].setup({"attacker": [2], "defender": [3],
                                                                "attacker_equipment": list(attacker_kit),
                                                                "defender_equipment": list(defender_kit)}))):
        with pytest.raises(InputError) as caught:
            QUESTIONS[question].check(rules, setup)
        assert str(caught.value) == (
            f"under these rules every roll is a tie ({fields} = 1: each side's highest die always shows 1) "
            "and ties are re-rolled, so the fight never ends; give the dice 2 faces or more"
        )


@pytest.mark.parametrize("rules, attacker_kit", [
    (Rules(die_faces=1), ("sword",)),  # a d8 against a d1: the attacker wins every roll
    (Rules(die_faces=1, ties="defender"), ()),  # every roll a tie, won by the defender
    (Rules(die_faces=2, sword_faces=1), ("sword",)),
    (Rules(die_faces=1, gom_faces=2), ("gom_jabbar",)),
])
def test_rules_under_which_a_roll_can_be_won_pass_the_check(rules, attacker_kit):
    setup = DuelSetup(2, 3, attacker_kit, ())
    QUESTIONS["duel"].check(rules, setup)
    assert 0 <= exact(rules, setup)["attacker_win"] <= 1


def one_die_wins(n: int) -> float:
    """P(a lone d6 beats the highest of ``n`` d6 in a decisive roll), ties re-rolled.

    P(highest of n < v) = ((v - 1)/6)^n, so the lone die wins with sum_v (1/6)((v - 1)/6)^n; a tie
    (the lone die equals the highest) has 1/6 whatever n, so a decisive roll is 5/6 of them and
    the share is (1/5) sum_{k=0..5} (k/6)^n.
    """
    return sum((k / 6) ** n for k in range(6)) / 5


@pytest.mark.parametrize("policy", ["weakest_first", "strongest_first"])
def test_designation_ties_go_to_the_first_listed(policy):
    """Attacker Strengths (2, 2) with Guiles (0, 6) against a defender 1 with Poison.

    Both policies designate the first listed character (Guile 0). The attacker rolls 4 dice, the
    defender 1. If the defender wins the first decisive roll (979/6480 = one_die_wins(4):
    sum k^4 = 0 + 1 + 16 + 81 + 256 + 625 = 979 over 5 * 1296), its Poison checks the damaged
    character, which cannot pass 1d6 <= 0: it is eliminated and the attacker loses. Otherwise the
    defender's only character is eliminated. Were the second character (Guile 6) designated, it
    would always pass and nothing would ever be poisoned.
    """
    rules = Rules(designation=policy)
    setup = FightSetup((2, 2), (1,), defender_equipment=("poison",), attacker_guile=(0, 6))
    q = one_die_wins(4)
    assert q == pytest.approx(979 / 6480)
    e = exact(rules, setup)
    assert e["poisoned"] == pytest.approx(q) and e["attacker_win"] == pytest.approx(1 - q)
    rng = np.random.default_rng(17)
    n = 600
    poisoned = sum(reference_duel(rules, setup, rng)["poisoned"] for _ in range(n))
    assert abs(poisoned / n - q) <= 4.5 * math.sqrt(q * (1 - q) / n)


def test_fight_to_last_designates_the_next_by_the_policy():
    """Fight to the last, strongest first: attacker (1, 2, 3) with Guiles (6, 6, 0) against a
    defender 1 with Poison.

    The attacker wins its first decisive roll with 1 - q6 (q_n = one_die_wins(n), n attacker dice):
    three survivors. Otherwise Poison eliminates the designated 3 (Guile 0) and the strongest left,
    the 2, is designated next; now 3 dice. The attacker keeps two survivors if it wins the next
    decisive roll (1 - q3) or loses one (the 2 falls to 1, still 2 dice) and wins the one after
    (q3 (1 - q2)). Designating the weakest (the 1) there instead would leave one survivor after
    a single further loss.
    """
    rules = Rules(fight_to_last=True, designation="strongest_first")
    setup = FightSetup((1, 2, 3), (1,), defender_equipment=("poison",), attacker_guile=(6, 6, 0))
    q6, q3, q2 = one_die_wins(6), one_die_wins(3), one_die_wins(2)
    assert (q3, q2) == (pytest.approx(5 / 24), pytest.approx(11 / 36))  # 225/1080 and 55/180
    e = exact(rules, setup)
    assert e["attacker_survivors=3"] == pytest.approx(1 - q6)
    assert e["attacker_survivors=2"] == pytest.approx(q6 * (1 - q3 * q2))
    assert e["poisoned"] == pytest.approx(q6)


def test_fight_contexts_are_equal_by_their_rules_dice_and_guiles():
    """Equal contexts share one solved chain (the chain cache looks contexts up by equality)."""
    rules, dice, guiles = Rules(), ((6, 0, 6), (8, 0, 6)), ((3,), (4,))
    one, same = _Context(rules, dice, guiles), _Context(rules, dice, guiles)
    other = _Context(rules, dice, ((3,), (5,)))
    assert one == same and hash(one) == hash(same)
    assert one != other and one != (rules, dice, guiles)
    assert DUEL.chain(one) is DUEL.chain(same)


def test_engine_runs_are_reproducible_and_exact_is_attached():
    settings = RunSettings(trials=50_000, seed=3, jobs=1)
    one = ask("dune1984", "duel", {"attacker": "Chani", "defender": 3}, settings=settings)
    two = ask("dune1984", "duel", {"attacker": 4, "defender": 3}, settings=settings)
    assert one.metrics == two.metrics  # Chani is Strength 4, Guile 3
    assert one.metrics["attacker_win"].exact == pytest.approx(exact(Rules(), DuelSetup(4, 3))["attacker_win"])


def test_a_reference_fight_past_the_roll_limit_is_a_bug_not_a_hang(monkeypatch):
    """A 6-vs-6 duel needs at least six rolls: with the limit at 5 the reference stops with an
    error instead of rolling for ever (as a mutated rule would)."""
    monkeypatch.setattr(fights, "REFERENCE_ROUND_LIMIT", 5)
    with pytest.raises(RuntimeError, match=r"^a reference fight went on past 5 rolls: a bug$"):
        reference_duel(Rules(), DuelSetup(6, 6), np.random.default_rng(2))
    monkeypatch.setattr(fights, "REFERENCE_ROUND_LIMIT", 100)
    assert reference_duel(Rules(), DuelSetup(6, 6), np.random.default_rng(2))["rounds"] <= 100


def test_rule_fields_are_bounded_before_any_array_is_made():
    """max_dice 10**9 asked numpy for 52 GiB (a MemoryError, not an InputError)."""
    from montecarlo.games.dune1984.rules import RULE_BOUNDS

    for name, high in RULE_BOUNDS.items():
        assert Rules(**{name: high}) is not None
        with pytest.raises(InputError, match=f"^{name} must be an integer .*{high}, got {high + 1}$"):
            Rules(**{name: high + 1})
    with pytest.raises(InputError, match="^max_dice must be an integer 1..20, got 1000000000$"):
        Rules(max_dice=10**9)
