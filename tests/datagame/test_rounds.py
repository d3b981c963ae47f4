"""montecarlo.datagame.rounds: a pool's highest dice worked out value by value.

The reference is the enumeration the solver used before: every sorted multiset of a kind of
die with its multinomial weight, cut to its highest dice. The two must give the same results
with the same probabilities (to rounding), for dice with repeated faces, negative faces, fewer
dice than kept, and none.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from montecarlo.datagame import load_compiled, rounds
from tests.datagame.test_count_and_size import write


def enumerated_top(faces: tuple, count: int, keep: int) -> dict[tuple[int, ...], float]:
    """The highest ``keep`` of ``count`` dice from every sorted multiset (the old way)."""
    out: dict[tuple[int, ...], float] = {}
    for combo, p in rounds._multisets(faces, count):
        top = tuple(sorted(combo, reverse=True)[:keep])
        out[top] = out.get(top, 0.0) + p
    return out


@settings(max_examples=300, deadline=None)
@given(
    faces=st.lists(st.integers(-3, 9), min_size=1, max_size=8).map(tuple),
    count=st.integers(0, 9),
    keep=st.integers(0, 10),
)
def test_the_highest_dice_of_one_kind_are_those_of_every_multiset(faces, count, keep):
    got = rounds.top_of_one_kind(faces, count, keep)
    want = enumerated_top(faces, count, keep)
    assert set(got) == set(want)
    for top, p in want.items():
        assert got[top] == pytest.approx(p, rel=1e-12, abs=1e-15)
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-12)
    assert rounds.top_bound(((faces, count),), keep) == len(got)  # exact for one kind of die


@pytest.mark.parametrize(("faces", "count"), [(tuple(range(1, 10_001)), 1_000), (tuple(range(1, 7)), 1_000),
                                              ((1, 2, 2, 3, 3, 3), 500), ((5,), 40)])
def test_the_highest_die_matches_the_product_of_the_dice_cdfs(faces, count):
    """:func:`rounds.highest` works the highest die out from the CDFs: the same numbers."""
    got = rounds.top_of_one_kind(faces, count, 1)
    for value, p in rounds.highest(((faces, count),)):
        assert got[(value,)] == pytest.approx(p, rel=1e-9, abs=1e-300)
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-12)


def test_many_dice_are_not_enumerated(monkeypatch):
    """The 3 highest of 1,000 d6 (C(1005, 5) multisets) and every die of 1,000 coins: no multiset
    is listed, and the probabilities add up."""
    monkeypatch.setattr(rounds, "_multisets", None)
    three = rounds.top_of_one_kind(tuple(range(1, 7)), 1_000, 3)
    assert len(three) == math.comb(6 + 3 - 1, 3) and sum(three.values()) == pytest.approx(1.0)
    assert three[(6, 6, 6)] == pytest.approx(1.0)  # (the others are all but impossible)
    coins = rounds.top_of_one_kind((0, 1), 1_000, 1_000)
    assert len(coins) == 1_001 and sum(coins.values()) == pytest.approx(1.0)
    heads = {top.count(1): p for top, p in coins.items()}
    # 1,000 dice of three faces, their 400 highest: 80,601 results, none infinite or NaN (the
    # weights of open results once overflowed past 1e308, and a tail of 0 times inf is NaN)
    many = rounds.top_of_one_kind((1, 2, 3), 1_000, 400)
    assert len(many) == 80_601 and all(0 <= p <= 1 for p in many.values())
    assert sum(many.values()) == pytest.approx(1.0, abs=1e-12)
    assert heads[500] == pytest.approx(math.comb(1_000, 500) / 2**1_000, rel=1e-9)
    # all heads, 2 ** -1000: the tail summed itself (as 1 minus the rest it would be lost to rounding)
    assert heads[1_000] == pytest.approx(2.0**-1_000, rel=1e-9, abs=0)
    assert heads[0] == pytest.approx(2.0**-1_000, rel=1e-9, abs=0)


def test_top_work_bounds_the_steps_that_combine_kinds_of_dice():
    """top_values combines a pool's kinds of dice one after another, each kind's results times
    those so far; top_work bounds that without listing (one kind: nothing to combine)."""
    d6, d8, coin = tuple(range(1, 7)), tuple(range(1, 9)), (1, 2)
    assert rounds.top_work(((d6, 9),), 3) == 0
    assert rounds.top_work(((d6, 2), (d8, 3)), 2) == math.comb(7, 2) * math.comb(9, 2)
    # three kinds of 3 coins, all kept: 4 x 4 steps, then the 7 sorted results of 6 coins x 4
    assert rounds.top_work(((coin, 3), (coin, 3), (coin, 3)), 9) == 4 * 4 + 7 * 4
    for n, m, k, keep in itertools.product(range(4), range(4), range(3), range(1, 4)):
        pool = ((d6, n), (coin, m), (d8, k))
        steps, before = 0, 0
        for kinds in range(1, len(pool) + 1):
            faces, count = pool[kinds - 1]
            if count:
                steps += before * len(rounds.top_of_one_kind(faces, count, keep))
                before = len(rounds.top_values(pool[:kinds], keep))
        assert steps <= rounds.top_work(pool, keep), pool


PAIRS = """
format = "dice-battle/1"
name = "two-pairs"
end = "red == 0 or blue == 0"
[setup.red]
min = 1
max = 60
example = 10
[setup.blue]
min = 1
max = 60
example = 10
[dice.d6]
faces = 6
[round]
compare = "pairs"
pairs = "2"
[round.roll]
red = { d6 = "red" }
blue = { d6 = "blue" }
[round.update]
red = "red - red_lost"
blue = "blue - blue_lost"
[metrics.red_win]
kind = "probability"
value = "blue == 0"
[metrics.rounds]
kind = "mean"
counts = "rounds"
"""


def test_a_battle_of_many_dice_two_pairs_a_round_is_solved_and_agrees_with_its_dice(tmp_path):
    """Every army rolls and the two highest pairs are compared: 30 d6 against 29 (its pools were
    593,775 and 501,942 multisets to enumerate, taking minutes). The exact values agree with the
    round-by-round simulation, which rolls every die, within 4.5 standard errors."""
    compiled = load_compiled(write(tmp_path, PAIRS, "pairs.toml"))
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"red": 30, "blue": 29})
    exact = q.exact(rules, setup)
    assert exact is not None
    n = 20_000
    out = compiled.simulate_direct(rules, setup, n, np.random.default_rng(11))
    p = exact["red_win"]
    assert 0.2 < p < 0.8
    assert abs(out["red_win"].mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / n)
    rounds_played = out["rounds"]
    assert abs(rounds_played.mean() - exact["rounds"]) <= 4.5 * rounds_played.std() / math.sqrt(n)


def test_a_paired_round_whose_kinds_of_dice_take_too_long_to_combine_is_simulated(tmp_path, monkeypatch):
    """Each side rolls d6 and d8 (one each per army) and two pairs are compared: combining the
    kinds' highest dice takes 21 x 36 = 756 steps a side at 2 armies, past a limit of 500, so
    the battle is simulated round by round, with the note; it agrees with the exact values
    worked out without the limit."""
    from montecarlo.datagame import compile as compile_module

    text = PAIRS.replace("[dice.d6]\nfaces = 6", "[dice.d6]\nfaces = 6\n[dice.d8]\nfaces = 8")
    text = text.replace('red = { d6 = "red" }', 'red = { d6 = "red", d8 = "red" }')
    text = text.replace('blue = { d6 = "blue" }', 'blue = { d6 = "blue", d8 = "blue" }')
    text = text.replace('pairs = "2"', 'pairs = "min(2, red, blue)"')  # no side loses more than it has
    assert rounds.top_work(((tuple(range(1, 7)), 2), (tuple(range(1, 9)), 2)), 2) == 21 * 36
    monkeypatch.setattr(compile_module, "MAX_COMBINED", 500)
    compiled = load_compiled(write(tmp_path, text, "kinds.toml"))
    q, rules = compiled.game.question(), compiled.game.rules()
    assert q.exact(rules, q.setup({"red": 1, "blue": 1})) is not None  # 1 pair: 6 x 8 steps
    setup = q.setup({"red": 2, "blue": 2})
    assert q.exact(rules, setup) is None
    assert q.why_no_exact(rules, setup) == (
        "exact value unavailable because a round of the battle at (red=2, blue=2) takes up to 756 steps "
        "to combine a side's kinds of dice, more than the exact solver takes (at most 500); the trials "
        "are simulated without it"
    )
    n = 20_000
    out = q.simulate(rules, setup, n, np.random.default_rng(4))["red_win"]
    monkeypatch.setattr(compile_module, "MAX_COMBINED", 756)  # at the limit: solved
    exact = load_compiled(write(tmp_path, text, "kinds-exact.toml")).game.question().exact(rules, setup)
    p = exact["red_win"]
    assert abs(out.mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / n)


def test_pairs_compared_on_arrays_are_those_of_one_pair_at_a_time():
    """pair_outcomes compares every joint result at once on arrays: the same outcomes, in the
    same order, as comparing the highest dice one joint result at a time (and a pool of fewer
    dice than the pairs asked compares as many as it has)."""
    d6, d8, coin = tuple(range(1, 7)), tuple(range(1, 9)), (1, 2)
    sides = ("attacker", "defender")
    for pool_a, pool_d, pairs, tie in [(((d6, 3),), ((d6, 2),), 2, "defender"),
                                       (((d6, 2), (coin, 2)), ((d8, 3),), 3, "attacker"),
                                       (((d8, 4),), ((d6, 1), (coin, 1)), 2, "reroll"),
                                       (((d6, 3),), ((d6, 1),), 2, "defender")]:
        want: dict[tuple[int, int, int], float] = {}
        lose = rounds._lose(tie, sides)
        for top_a, pa in rounds.top_values(pool_a, pairs):
            for top_d, pd in rounds.top_values(pool_d, pairs):
                a = d = t = 0
                for x, y in zip(top_a, top_d):
                    a, d, t = (a, d + 1, t) if x > y else (a + 1, d, t) if y > x else (
                        a + lose[0], d + lose[1], t + lose[2])
                want[(a, d, t)] = want.get((a, d, t), 0.0) + pa * pd
        got = rounds.pair_outcomes(pool_a, pool_d, pairs, tie, sides)
        assert [key for _, *key in got] == [list(key) for key in sorted(want)]
        assert [p for p, *_ in got] == pytest.approx([want[key] for key in sorted(want)], rel=1e-12)
