"""The Risk file (scenarios/games/risk.toml) against Osborne (2003) and an independent recursion.

Osborne, J. A. (2003), "Markov Chains for the RISK Board Game Revisited", Mathematics Magazine
76(2): Table 3 gives the probability that the attacker wins for 1..10 attacking armies (the army
left behind not counted) against 1..10 defending armies. Its cells are rebuilt here by a separate
small recursion whose per-roll odds come from brute-force enumeration of the dice (6**(a+d)
ordered outcomes), sharing no code with the package.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from montecarlo.datagame import load_compiled, rounds
from montecarlo.datagame.compile import compile_text
from tests.conftest import per_test_under_mutation

RISK = Path(__file__).resolve().parents[2] / "scenarios" / "games" / "risk.toml"
Z = 4.5


@functools.lru_cache(maxsize=None)
def roll_odds(a: int, d: int, ties_to_defender: bool = True) -> dict[tuple[int, int], Fraction]:
    """Exact {(attacker losses, defender losses): probability} of one roll of a vs d dice."""
    counts: dict[tuple[int, int], int] = {}
    for dice in itertools.product(range(1, 7), repeat=a + d):
        att, dfn = sorted(dice[:a], reverse=True), sorted(dice[a:], reverse=True)
        la = ld = 0
        for x, y in zip(att, dfn):
            if x > y or (x == y and not ties_to_defender):
                ld += 1
            else:
                la += 1
        counts[la, ld] = counts.get((la, ld), 0) + 1
    return {k: Fraction(v, 6 ** (a + d)) for k, v in counts.items()}


@functools.lru_cache(maxsize=None)
def win(a: int, d: int, max_defend: int = 2, ties_to_defender: bool = True) -> float:
    """P(attacker wins) by first-step analysis (Osborne's recursion), on floats."""
    if d == 0:
        return 1.0
    if a == 0:
        return 0.0
    odds = roll_odds(min(3, a), min(max_defend, d), ties_to_defender)
    return sum(float(p) * win(a - la, d - ld, max_defend, ties_to_defender) for (la, ld), p in odds.items())


@pytest.fixture(scope=per_test_under_mutation)
def risk():
    return load_compiled(RISK)


def table(compiled, variants=()) -> dict[tuple[int, int], float]:
    g = compiled.game
    q, rules = g.question(), g.rules(variants)
    return {
        (a, d): q.exact(rules, q.setup({"attackers": a, "defenders": d}))["attacker_win"]
        for a in range(1, 11)
        for d in range(1, 11)
    }


def test_one_roll_odds_are_osborne_table_2():
    """3 dice against 2: 2890, 2611 and 2275 of the 6**5 = 7776 rolls (Osborne Table 2)."""
    d6 = tuple(range(1, 7))
    got = rounds.pair_outcomes(((d6, 3),), ((d6, 2),), 2, "defender", ("attacker", "defender"))
    counts = {(la, ld): round(p * 7776) for p, la, ld, _ in got}
    assert counts == {(0, 2): 2890, (1, 1): 2611, (2, 0): 2275}
    assert {k: v * 7776 for k, v in roll_odds(3, 2).items()} == {(0, 2): 2890, (1, 1): 2611, (2, 0): 2275}


def test_exact_table_matches_an_independent_recursion(risk):
    got = table(risk)
    for (a, d), value in got.items():
        assert value == pytest.approx(win(a, d), abs=1e-9), (a, d)


def test_published_cells(risk):
    """Cells derived by hand; Osborne's Table 3 prints the first two as 0.417 and 0.754.

    1 vs 1: the attacker's die beats the defender's in 15 of 36 rolls.
    2 vs 1: the higher of two dice beats one die with probability 1 - 91/216 = 125/216; after a
        loss the battle is 1 vs 1.
    1 vs 2: one die beats the higher of two in 55/216 rolls; then 1 vs 1.
    3 vs 1: the highest of three beats one die in 1 - 441/1296 = 855/1296; after a loss, 2 vs 1.
    """
    got = table(risk)
    one_one = Fraction(15, 36)
    two_one = Fraction(125, 216) + Fraction(91, 216) * one_one
    one_two = Fraction(55, 216) * one_one
    three_one = Fraction(855, 1296) + Fraction(441, 1296) * two_one
    assert got[1, 1] == pytest.approx(float(one_one), abs=1e-12)
    assert got[2, 1] == pytest.approx(float(two_one), abs=1e-12)
    assert got[1, 2] == pytest.approx(float(one_two), abs=1e-12)
    assert got[3, 1] == pytest.approx(float(three_one), abs=1e-12)
    assert (round(got[1, 1], 3), round(got[2, 1], 3)) == (0.417, 0.754)


def test_house_rules_match_the_recursion(risk):
    ties = table(risk, ["ties_to_attacker"])
    three = table(risk, ["defender_three_dice"])
    for a, d in [(1, 1), (3, 2), (5, 5), (10, 10), (2, 7)]:
        assert ties[a, d] == pytest.approx(win(a, d, 2, False), abs=1e-9)
        assert three[a, d] == pytest.approx(win(a, d, 3, True), abs=1e-9)


@pytest.mark.parametrize("method", ["simulate", "simulate_direct"])
def test_simulation_within_4_5_standard_errors_on_every_cell(risk, method):
    g = risk.game
    q, rules = g.question(), g.rules()
    kernel = q.simulate if method == "simulate" else risk.simulate_direct
    rng = np.random.default_rng(2003)
    n = 4000
    for a in range(1, 11):
        for d in range(1, 11):
            exact = win(a, d)
            est = kernel(rules, q.setup({"attackers": a, "defenders": d}), n, rng)["attacker_win"].mean()
            se = math.sqrt(max(exact * (1 - exact), 1e-12) / n)
            assert abs(est - exact) <= Z * se + 1e-12, (a, d, est, exact)


def test_every_metric_of_kernels_and_reference_agree_with_exact(risk):
    g = risk.game
    q, rules = g.question(), g.rules(["both_house_rules"])
    setup = q.setup({"attackers": 6, "defenders": 4})
    exact = q.exact(rules, setup)
    kinds = {name: m.kind for m in q.metrics for name in m.reported_names()}
    runs = {
        "simulate": q.simulate(rules, setup, 40_000, np.random.default_rng(1)),
        "direct": risk.simulate_direct(rules, setup, 40_000, np.random.default_rng(2)),
    }
    rng = np.random.default_rng(3)
    trials = [q.reference(rules, setup, rng) for _ in range(3000)]
    runs["reference"] = {m.name: np.array([t[m.name] for t in trials]) for m in q.metrics}
    for label, out in runs.items():
        for m in q.metrics:
            values = np.asarray(out[m.name])
            columns = (
                {f"{m.name}={v}": (values == v) for v in m.support}
                if m.kind == "distribution"
                else {m.name: values}
            )
            for name, col in columns.items():
                col = col.astype(float)
                target = exact[name]
                if kinds[name] == "mean":
                    se = col.std(ddof=1) / math.sqrt(col.size)
                else:
                    se = math.sqrt(max(target * (1 - target), 0.0) / col.size)
                assert abs(col.mean() - target) <= Z * se + 1e-9, (label, name, col.mean(), target)


def test_whole_table_is_fast_from_a_cold_start():
    """The issue's target is 50 ms for the 10x10 exact table; the bench prints the figure. The
    bound here is looser so that a loaded test machine does not fail it."""
    text = RISK.read_text()
    best = math.inf
    for i in range(3):
        compile_text.cache_clear()
        rounds.clear_caches()
        start = time.perf_counter()
        compiled = compile_text(text, f"risk-{i}.toml")
        table(compiled)
        best = min(best, time.perf_counter() - start)
    assert best < 0.25, best


MIXED = (
    RISK.read_text()
    .replace(
        'attacker = { d6 = "min(attack_dice, attackers)" }',
        'attacker = { d6 = "min(2, attackers)", d8 = "attackers >= 3" }',
    )
    .replace('ties = "ties"            #', 'pairs = "1 + (defenders > 1)"\nties = "ties"            #')
    .replace("[dice.d6]", "[dice.d8]\nfaces = 8\n\n[dice.d6]")
)


@pytest.mark.parametrize("variant", [None, "defender_three_dice"])
def test_mixed_pools_and_a_pairs_expression_agree_across_solver_kernel_and_reference(variant):
    """Two d6 and, from 3 armies on, a d8 for the attacker; pairs given by an expression."""
    compiled = compile_text(MIXED, "mixed.toml")
    g = compiled.game
    q, rules = g.question(), g.rules([variant] if variant else [])
    for a, d in [(3, 2), (5, 4)]:
        setup = q.setup({"attackers": a, "defenders": d})
        p = q.exact(rules, setup)["attacker_win"]
        direct = compiled.simulate_direct(rules, setup, 40_000, np.random.default_rng(a))["attacker_win"]
        rng = np.random.default_rng(d)
        reference = np.array([q.reference(rules, setup, rng)["attacker_win"] for _ in range(3000)])
        for values in (direct, reference):
            assert abs(values.mean() - p) <= Z * math.sqrt(p * (1 - p) / values.size), (a, d)


def test_the_cache_of_compiled_files_keeps_64_and_drops_the_oldest(monkeypatch):
    """A session that loads many definition files keeps the 64 latest compiled, never fails."""
    import montecarlo.datagame as datagame

    monkeypatch.setattr(datagame, "_CACHE", {(f"old{i}.toml", 0): object() for i in range(64)})
    compiled = load_compiled(RISK)
    assert len(datagame._CACHE) == 64 and ("old0.toml", 0) not in datagame._CACHE
    assert ("old1.toml", 0) in datagame._CACHE and load_compiled(RISK) is compiled
