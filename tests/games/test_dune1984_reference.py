"""Dune (1984) fights: the plain-dice reference trial against the exact solver, over whole grids.

The kernel and the exact solver share one transition function, so comparing them checks the
sampler, never the rules. ``question.reference`` rolls every die one by one and applies the rules
as written (docs/rules/dune1984.md), apart from both; comparing it with ``question.exact`` is
what catches a rule read wrongly (the defender's Sword ignored, the Strength gain not capped at
6, the Gom Jabbar always counted toward the 6-dice cap, a Poison check on the wrong character).

The reference is slow plain Python (tens of microseconds a trial), so each grid cell gets a few
hundred trials, and each cell is checked within 4.5 standard errors; a bias that runs the same
way through a grid is caught by the pooled check: the summed deviations of all cells within 4.5
standard errors of their sum. A few cells where a rule acts only rarely (the cap binds only at
Strength 6) get thousands of trials. Fixed seeds: the test is deterministic.
"""

from __future__ import annotations

import itertools
import math
import zlib

import numpy as np
import pytest

from montecarlo.registry import get_game

GAME = get_game("dune1984")
DUEL, FIGHT = GAME.question("duel"), GAME.question("fight")
STRENGTHS = range(1, 7)
Z = 4.5
MEAN_SD_FLOOR = 0.5

NONE, SWORD, GOM, POISON = (), ("sword",), ("gom_jabbar",), ("poison",)
ALL = ("gom_jabbar", "poison", "sword")


def compare(question, rules, setups, n: int, seed: int) -> list[str]:
    """Misses of ``n`` reference trials per setup against the exact values, cell by cell and pooled.

    A probability's standard error is sqrt(p(1-p)/n) at the exact p (so a value that must never
    happen fails at its first appearance); a mean's is the sample standard deviation over root n,
    the deviation floored at half a unit: these means count whole rounds and Strength points, and
    a rare value never drawn in a few hundred trials would leave a sample variance of zero.
    """
    misses: list[str] = []
    pooled: dict[str, list[float]] = {}
    for k, setup in enumerate(setups):
        rng = np.random.default_rng([seed, k])
        rows = [question.reference(rules, setup, rng) for _ in range(n)]
        want = question.exact(rules, setup)
        for metric in question.metrics:
            values = np.array([row[metric.name] for row in rows], dtype=float)
            if metric.kind == "distribution":
                cells = [(f"{metric.name}={v}", values == v) for v in metric.support]
            else:
                cells = [(metric.name, values)]
            for name, x in cells:
                x = np.asarray(x, dtype=float)
                exact = want[name]
                if metric.kind == "mean":
                    var = max(x.var(ddof=1), MEAN_SD_FLOOR**2) / n
                else:
                    var = max(exact * (1 - exact), 0.0) / n
                dev = float(x.mean()) - exact
                if abs(dev) > Z * math.sqrt(var) + 1e-12:
                    misses.append(f"{setup} {name}: reference {x.mean():.4f}, exact {exact:.4f}")
                total = pooled.setdefault(name, [0.0, 0.0])
                total[0] += dev
                total[1] += var
    for name, (dev, var) in pooled.items():
        if abs(dev) > Z * math.sqrt(var) + 1e-12:
            misses.append(
                f"pooled over {len(setups)} setups, {name}: "
                f"summed deviation {dev:.4f}, se {math.sqrt(var):.4f}"
            )
    return misses


def duels(pairs, kits, **guiles):
    return [
        DUEL.setup(
            {"attacker": a, "defender": d, "attacker_equipment": ka, "defender_equipment": kd, **guiles}
        )
        for (a, d), (ka, kd) in itertools.product(pairs, kits)
    ]


def fights(sides, kits):
    return [
        FIGHT.setup(
            {"attacker": list(a), "defender": list(d), "attacker_equipment": ka, "defender_equipment": kd}
        )
        for (a, d), (ka, kd) in itertools.product(sides, kits)
    ]


GRID = list(itertools.product(STRENGTHS, STRENGTHS))
STRONG = [(6, d) for d in STRENGTHS] + [(a, 6) for a in range(1, 6)]  # a Strength-6 side: the caps bind

# Each variant's grid: where the rule it changes acts (all of them are also run under the official
# rules). Equipment on the defender as often as on the attacker.
DUEL_GRIDS = {
    "official": (
        GRID,
        [(NONE, NONE), (NONE, SWORD), (SWORD, GOM), (POISON, ("gom_jabbar", "sword")), (ALL, POISON)],
        400,
    ),
    "gom_counts_toward_cap": (STRONG, [(GOM, NONE), (NONE, GOM), (("gom_jabbar", "sword"), SWORD)], 800),
    "ties_favour_defender": (GRID, [(NONE, NONE), (SWORD, SWORD), (GOM, NONE)], 300),
    "no_strength_gain": (STRONG, [(NONE, NONE), (NONE, SWORD)], 400),
    "guile_check_d8": (
        [(2, 4), (4, 4), (5, 2), (6, 6)],
        [(POISON, NONE), (NONE, POISON), (POISON, POISON)],
        600,
    ),
    "guile_check_2d6": (
        [(2, 4), (4, 4), (5, 2), (6, 6)],
        [(POISON, NONE), (NONE, POISON), (POISON, POISON)],
        600,
    ),
}
# Variants that act only in multi-character fights still run a duel grid: they must change nothing there.
for _variant in ("fight_to_last", "strongest_first", "set_aside_die", "best_play", "defender_best_play"):
    DUEL_GRIDS[_variant] = ([(1, 1), (3, 5), (6, 2), (6, 6)], [(NONE, NONE), (POISON, SWORD)], 400)


def test_every_variant_has_a_grid():
    assert set(DUEL_GRIDS) == {"official", *GAME.variants}


@pytest.mark.parametrize("variant", list(DUEL_GRIDS))
def test_duel_reference_matches_exact_over_the_grid(variant):
    pairs, kits, n = DUEL_GRIDS[variant]
    rules = GAME.rules([] if variant == "official" else [variant])
    assert not compare(DUEL, rules, duels(pairs, kits), n, seed=zlib.crc32(variant.encode()))


@pytest.mark.parametrize("variant", ["official", "gom_counts_toward_cap", "guile_check_2d6"])
def test_poison_checks_over_every_guile(variant):
    # the Guile of the poisoned character decides the check: the wrong character's Guile shows here
    setups = [
        s
        for g in range(0, 7)
        for s in duels(
            [(3, 4), (5, 5)], [(POISON, NONE), (NONE, POISON)], attacker_guile=g, defender_guile=6 - g
        )
    ]
    rules = GAME.rules([] if variant == "official" else [variant])
    assert not compare(DUEL, rules, setups, 400, seed=7)


STRENGTH_SIX_CELLS = [  # (attacker, defender, attacker's kit, defender's kit): rules seen only at Strength 6
    (6, 6, GOM, NONE),
    (6, 6, NONE, GOM),
    (6, 6, ("gom_jabbar", "sword"), SWORD),
    (6, 3, NONE, SWORD),
    (6, 1, NONE, NONE),
    (2, 6, NONE, ("sword", "poison")),
]


@pytest.mark.parametrize(
    "cell",
    STRENGTH_SIX_CELLS,
    ids=lambda c: f"{c[0]}v{c[1]}-{'+'.join(c[2]) or 'none'}-vs-{'+'.join(c[3]) or 'none'}",
)
def test_strength_six_cells_closely(cell):
    a, d, ka, kd = cell
    for variant in ([], ["gom_counts_toward_cap"]):
        assert not compare(DUEL, GAME.rules(variant), duels([(a, d)], [(ka, kd)]), 3000, seed=a * 10 + d)


FIGHT_SIDES = [
    ((3,), (2, 2)),
    ((2, 1), (4,)),
    ((3, 2), (1, 3, 1)),
    ((6,), (2, 3)),
    ((1, 1, 1), (2, 1)),
    ((4, 2), (5, 1)),
    ((4, 3), (5, 2)),  # both sides above 6 Strength: the two readings of "Set aside 1 die" differ
]
FIGHT_KITS = [(NONE, NONE), (POISON, SWORD), (("gom_jabbar", "sword"), POISON)]


@pytest.mark.parametrize("variant", ["official", *GAME.variants])
def test_fight_reference_matches_exact(variant):
    rules = GAME.rules([] if variant == "official" else [variant])
    assert not compare(FIGHT, rules, fights(FIGHT_SIDES, FIGHT_KITS), 300, seed=zlib.crc32(variant.encode()))


def test_fight_to_last_with_the_strongest_first():
    rules = GAME.rules(["fight_to_last", "strongest_first"])
    assert not compare(FIGHT, rules, fights(FIGHT_SIDES, FIGHT_KITS), 300, seed=3)


@pytest.mark.parametrize("variant", ["best_play", "defender_best_play"])
def test_best_play_to_the_last_with_the_set_aside_die(variant):
    # the reference asks the solved policy at the state the table sees, every time a side designates
    rules = GAME.rules([variant, "fight_to_last", "set_aside_die"])
    assert not compare(FIGHT, rules, fights(FIGHT_SIDES, FIGHT_KITS), 300, seed=11)


@pytest.mark.parametrize("variant", ["best_play", "defender_best_play"])
@pytest.mark.parametrize("set_aside", [False, True])
def test_best_play_designates_again_against_a_side_above_six_dice(variant, set_aside):
    # the deciding side (3 characters) designates again after a loss while the other side, above
    # 6 Strength, has lost rounds: the state asked of the policy counts that side's dice as the
    # table does (set aside, or recounted from its Strength)
    rules = GAME.rules([variant, "fight_to_last"] + (["set_aside_die"] if set_aside else []))
    # with Poison on both sides: the characters each side lost to it are part of that state too
    sides = [((1, 1, 2), (5, 3)), ((5, 3), (1, 1, 2))]
    assert not compare(FIGHT, rules, fights(sides, [(NONE, NONE), (POISON, POISON)]), 300, seed=13)


def test_set_aside_die_with_the_gom_jabbar_counting_toward_the_cap():
    # each side's dice in play start at its own cap: 5 with a Gom Jabbar that counts toward 6
    rules = GAME.rules(["set_aside_die", "gom_counts_toward_cap"])
    assert not compare(DUEL, rules, duels(STRONG, [(GOM, NONE), (NONE, GOM)]), 600, seed=17)


def test_set_aside_die_with_fight_to_last():
    # a side that designates its next character counts its dice afresh; dice set aside before
    rules = GAME.rules(["set_aside_die", "fight_to_last"])
    sides = [((4, 3), (5, 2)), ((6, 2), (3, 3, 2)), ((5, 4, 1), (6,))]
    assert not compare(FIGHT, rules, fights(sides, FIGHT_KITS), 400, seed=5)


# --- Guile checks, movement reach and investments: their reference trials over whole grids --------

CHECKS_AND_MOVES = {
    "guile": [
        {"guile": g, "spice": s, "stillsuit": w}
        for g in range(0, 11, 2)
        for s in (0, 4)
        for w in (False, True)
    ],
    "reach": [{"distance": d} for d in range(1, 13)]
    + [{"distance": d, "second_distance": e} for d in (2, 4, 6) for e in (1, 4, 6)],
    "invest": [{"sums": [a, 14 - a], "payout": 3, "players": p} for a in range(2, 7) for p in (2, 4)]
    + [
        {"sums": [2, 3], "payout": 1.5, "players": 3, "stake": 2},
        {"sums": [11, 12], "payout": 2, "players": 2},
    ],
}


@pytest.mark.parametrize("question_name", list(CHECKS_AND_MOVES))
@pytest.mark.parametrize("variant", ["official", "guile_check_d8", "guile_check_2d6"])
def test_check_and_movement_references_match_exact(question_name, variant):
    question = GAME.question(question_name)
    setups = [question.setup(values) for values in CHECKS_AND_MOVES[question_name]]
    rules = GAME.rules([] if variant == "official" else [variant])
    assert not compare(question, rules, setups, 1_500, seed=zlib.crc32(f"{question_name}{variant}".encode()))
