"""A counted round (compare = "count") listed on arrays, and the limit on its joint results.

Every joint result of both sides' dice is worked out at once on numpy arrays; the steps must be
those of working the results out one at a time (same next states, same order, same sums to the
last bit), and a round of more than MAX_JOINT joint results sends the battle to simulation,
with a note saying why.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from montecarlo.datagame import compile as compile_module
from montecarlo.datagame import load_compiled, rounds
from montecarlo.datagame.spec import DefinitionError
from montecarlo.engine.chain import ChainTooLarge
from tests.datagame.test_count_and_size import SHIELDS, red_wins, write
from tests.datagame.test_rounds import PAIRS

TWO_KINDS = (
    SHIELDS.replace(
        '[dice.battle]\nfaces = ["hit", "hit", "shield", "shield", "special", "blank"]',
        '[dice.battle]\nfaces = ["hit", "hit", "shield", "shield", "special", "blank"]\n'
        '[dice.sword]\nfaces = ["hit", "special", "blank"]',
    )
    .replace(
        'red = { battle = "min(red, max_dice)" }',
        'red = { battle = "min(red, max_dice)", sword = "red - 1" }',
    )
    .replace("max = 8", "max = 5")
)

BONUS = SHIELDS.replace(  # and/or and chained comparisons of scalars in arithmetic (numpy bools)
    'blue = "max(0, red_hit + (red_special if special_hits else 0) - blue_shield)"',
    'blue = "max(0, red_hit - blue_shield) + ((red > 1 and blue > 1) + (0 < red < 3 or blue > 2)) '
    '- (red > 3 and blue > 3)"',
)

HUGE = SHIELDS.replace(  # 2 x 4e18 is too large, in a branch never taken: arrays work it out
    'blue = "max(0, red_hit + (red_special if special_hits else 0) - blue_shield)"',
    'blue = "red_hit * 4000000000000000000 if red_hit < 2 else 1"',
)

WALLS = (  # red rolls a die of four names, blue a die of one
    SHIELDS.replace(
        '[dice.battle]\nfaces = ["hit", "hit", "shield", "shield", "special", "blank"]',
        '[dice.battle]\nfaces = ["hit", "shield", "special", "blank"]\n[dice.wall]\nfaces = ["shield"]',
    )
    .replace('blue = { battle = "min(blue, max_dice)" }', 'blue = { wall = "1" }')
    .replace('red = "max(0, blue_hit + (blue_special if special_hits else 0) - red_shield)"', 'red = "1"')
    .replace('blue = "max(0, red_hit + (red_special if special_hits else 0) - blue_shield)"',
             'blue = "max(0, red_hit - blue_shield)"')
)
HUGE_WALLS = WALLS.replace(
    'blue = "max(0, red_hit - blue_shield)"', 'blue = "red_hit * 4000000000000000000 if red_hit < 2 else 1"'
)


def one_at_a_time(compiled, rules, state) -> list:
    """The steps from ``state`` as they were listed before the arrays: every joint result of the
    two pools in turn (the attacker's outer), its losses and next state by the scalar
    expressions, the probabilities summed in that order."""
    d, (a, b) = compiled.d, compiled.d.sides
    env0, faces, _ = compiled._rules_env(rules)
    env = {**env0, **state._asdict()}
    pool_a, pool_d = compiled._pools(env, faces)
    steps: dict[tuple, float] = {}
    da, dd = rounds.symbol_counts(pool_a, d.symbols[0]), rounds.symbol_counts(pool_d, d.symbols[1])
    for (ca, pa), (cd, pd) in itertools.product(da, dd):
        q = {f"{a}_dice": sum(n for _, n in pool_a), f"{b}_dice": sum(n for _, n in pool_d)}
        q.update(zip((f"{a}_{s}" for s in d.symbols[0]), ca))
        q.update(zip((f"{b}_{s}" for s in d.symbols[1]), cd))
        full = {**env, **q}
        q[f"{a}_lost"], q[f"{b}_lost"] = d.lost[0](full), d.lost[1](full)
        full = {**env, **q}
        nxt = dict(zip(compiled.fields, state))
        for name, expr in d.update:
            nxt[name] = int(expr(full))
        key = tuple(nxt.values())
        steps[key] = steps.get(key, 0.0) + pa * pd
    return [(p, key) for key, p in steps.items()]


@pytest.mark.parametrize(
    "text",
    [SHIELDS, TWO_KINDS, BONUS, HUGE, HUGE_WALLS],
    ids=["one kind", "two kinds", "bools", "huge branch not taken", "and sides of other names"],
)
@pytest.mark.parametrize("variant", [None, "special_blank"])
def test_counted_steps_are_those_of_one_result_at_a_time(tmp_path, text, variant):
    compiled = load_compiled(write(tmp_path, text))
    rules = compiled.game.rules([variant] if variant else [])
    for red, blue in itertools.product(range(1, 6), range(1, 5)):
        state = compiled.State(red, blue)
        got = [(p, tuple(nxt)) for p, nxt, _ in compiled._transitions(rules, state)]
        assert got == one_at_a_time(compiled, rules, state), (red, blue)  # to the last bit, in order


def test_next_states_too_far_apart_for_one_number_are_compared_as_rows(tmp_path, monkeypatch):
    compiled = load_compiled(write(tmp_path, TWO_KINDS))
    rules, state = compiled.game.rules(), compiled.State(5, 4)
    as_numbers = compiled._transitions(rules, state)
    monkeypatch.setattr(compile_module, "_one_number", lambda columns: None)
    assert compiled._transitions(rules, state) == as_numbers


def test_one_number_keeps_rows_apart_and_in_order_and_gives_up_past_62_bits():
    columns = [np.array([3, 3, -2, 3, -2, 3]), np.array([7, 9, 9, 7, 8, 8]), np.array([0, -4, 1, 0, -4, 0])]
    key = compile_module._one_number(columns)
    rows = list(zip(*(c.tolist() for c in columns)))
    assert len(set(key.tolist())) == len(set(rows))
    assert sorted(rows, key=lambda r: key[rows.index(r)]) == sorted(rows)
    spans = compile_module._one_number([np.array([3, -2]), np.array([7, 9])])  # spans 6 and 3
    assert spans.tolist() == [5 * 3 + 0, 0 * 3 + 2]
    wide = [np.array([0, 1 << 31]), np.array([0, 1 << 31])]  # spans (2**31 + 1) ** 2 > 2**62
    assert compile_module._one_number(wide) is None
    assert compile_module._one_number([np.array([0, (1 << 62) - 2])]).tolist() == [0, (1 << 62) - 2]
    assert compile_module._one_number([np.array([0, (1 << 62) - 1])]) is None  # 2**62 values


@pytest.mark.parametrize(
    ("faces", "n"), [(("a", "b", "b", "c"), 4), (("a", "b", "c"), 5), (("x",), 3), (("a", "b"), 0)]
)
def test_count_bound_is_exact_for_one_kind_of_die(faces, n):
    pool = ((faces, n),)
    symbols = tuple(sorted(set(faces)))
    assert rounds.count_bound(pool, symbols) == len(rounds.count_table(pool, symbols)[1])


def test_count_bound_bounds_mixed_pools():
    hit = ("hit", "hit", "shield", "blank")
    sword = ("hit", "special")
    symbols = ("hit", "shield", "blank", "special")
    for n, m in itertools.product(range(4), range(4)):
        pool = ((hit, n), (sword, m))
        listed = len(rounds.count_table(pool, symbols)[1])
        assert listed <= rounds.count_bound(pool, symbols)
        assert rounds.count_bound(pool, symbols) <= math.comb(3 + n - 1, n) * math.comb(2 + m - 1, m)
    assert rounds.count_bound((), ()) == 1  # a side that rolls nothing: one result
    twice = ((("a", "b"), 3), (("b", "a"), 3))  # two kinds of dice of the same names: 0..6 a's
    assert rounds.count_bound(twice, ("a", "b")) == len(rounds.count_table(twice, ("a", "b"))[1]) == 7


def test_a_round_of_too_many_joint_results_is_simulated_and_said(tmp_path, monkeypatch):
    """Four named faces: one die a side has 4 x 4 = 16 joint results, two dice a side 10 x 10."""
    monkeypatch.setattr(compile_module, "MAX_JOINT", 16)
    compiled = load_compiled(write(tmp_path, SHIELDS, "joint.toml"))
    q, rules = compiled.game.question(), compiled.game.rules()
    one_each = q.exact(rules, q.setup({"red": 1, "blue": 1}))
    assert one_each["red_win"] == pytest.approx(red_wins(1, 1), abs=1e-12)
    setup = q.setup({"red": 2, "blue": 1})
    with pytest.raises(ChainTooLarge, match=r"^a round at \(red=2, blue=1\) has up to 40 joint results$"):
        compiled._transitions(rules, compiled.State(2, 1))
    assert q.exact(rules, setup) is None
    assert q.why_no_exact(rules, setup) == (
        "exact value unavailable because a round of the battle at (red=2, blue=1) has up to 40 results "
        "of both sides' dice, more than the exact solver lists in a round (at most 16); the trials are "
        "simulated without it"
    )
    out = q.simulate(rules, setup, 20_000, np.random.default_rng(3))  # round by round
    p = red_wins(2, 1)
    assert abs(out["red_win"].mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / 20_000)


def test_a_counted_pool_past_the_most_multisets_is_simulated_not_refused(tmp_path, monkeypatch):
    """45 dice of four named faces a side: C(48, 3) = 17,296 multisets a pool, 17,296 ** 2 joint
    results, more than MAX_JOINT: simulated. With a limit on one pool of 1,000 (below 17,296) the
    first round was refused as an error; the joint limit now sends it to simulation first."""
    monkeypatch.setattr(rounds, "MAX_OUTCOMES", 1_000)
    text = SHIELDS.replace("max = 8", "max = 60").replace("max_dice = 3", "max_dice = 60")
    compiled = load_compiled(write(tmp_path, text, "many.toml"))
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"red": 45, "blue": 45})
    q.check(rules, setup)  # no error: a first round too large to list is simulated
    assert q.exact(rules, setup) is None
    assert "at (red=45, blue=45) has up to 299,151,616 results" in q.why_no_exact(rules, setup)
    out = q.simulate(rules, setup, 2_000, np.random.default_rng(1))
    assert 0.4 < out["red_win"].mean() < 0.6  # an even fight


def test_each_sides_bound_counts_its_own_faces(tmp_path, monkeypatch):
    """Red rolls a die of four names, blue a die of one: red's two dice have C(5, 2) = 10 results
    and blue's one die 1, so 10 joint results: above a limit of 5, though blue's one name would
    bound red's dice at one result."""
    monkeypatch.setattr(compile_module, "MAX_JOINT", 5)
    compiled = load_compiled(write(tmp_path, WALLS, "walls.toml"))
    q, rules = compiled.game.question(), compiled.game.rules()
    assert q.exact(rules, q.setup({"red": 1, "blue": 1})) is not None  # 4 x 1 joint results
    assert "has up to 10 results of both sides' dice" in q.why_no_exact(rules, q.setup({"red": 2, "blue": 1}))


def test_a_value_too_large_where_it_is_used_is_still_an_error(tmp_path):
    """Listed one at a time after the arrays met the value, a value the round uses is refused
    as before, naming its key."""
    text = HUGE.replace("if red_hit < 2 else 1", "if red_hit < 3 else 1")  # 2 hits: 8e18
    compiled = load_compiled(write(tmp_path, text, "huge.toml"))
    q = compiled.game.question()
    with pytest.raises(DefinitionError, match=r"huge\.toml: round\.lost\.blue: 2 \* 4000000000000000000 = "):
        q.exact(compiled.game.rules(), q.setup({"red": 3, "blue": 3}))


@pytest.mark.parametrize(("faces", "n", "keep"), [((1, 2, 3, 4, 5, 6), 5, 5), ((1, 2, 3, 4, 5, 6), 5, 2),
                                                  ((1, 1, 2), 4, 3), ((3,), 3, 1), ((1, 2), 0, 2)])
def test_top_bound_is_exact_for_one_kind_of_die(faces, n, keep):
    pool = ((faces, n),)
    assert rounds.top_bound(pool, keep) == len(rounds.top_values(pool, keep))


def test_top_bound_bounds_mixed_pools():
    d6, d8 = tuple(range(1, 7)), tuple(range(1, 9))
    for pool, keep, exact in [
        ((((1, 2), 1), ((3, 4), 1)), 2, 4),  # two dice of values apart: 2 x 2, not C(4 + 1, 2)
        (((d6, 2), (d6, 2), (d8, 0)), 2, 21),  # the two highest of 4 d6: no d8 is rolled
    ]:
        assert rounds.top_bound(pool, keep) == len(rounds.top_values(pool, keep)) == exact
    for n, m, keep in itertools.product(range(3), range(3), range(1, 5)):
        pool = ((d6, n), (d8, m))
        assert len(rounds.top_values(pool, keep)) <= rounds.top_bound(pool, keep)


def test_a_round_of_too_many_pairs_to_compare_is_simulated_and_said(tmp_path, monkeypatch):
    """Every die of a side paired: 8 d6 a side have C(13, 5) = 1,287 sorted results each, 1,656,369
    joint ones, compared one at a time in Python (12 a side took 216 s, 40 a side never ended):
    past MAX_JOINT the battle is simulated. Here a limit of 441 = 21 x 21 (2 pairs of d6)."""
    monkeypatch.setattr(compile_module, "MAX_JOINT", 441)
    text = PAIRS.replace('pairs = "2"\n', "")  # every die paired
    compiled = load_compiled(write(tmp_path, text, "pairs.toml"))
    q, rules = compiled.game.question(), compiled.game.rules()
    assert q.exact(rules, q.setup({"red": 2, "blue": 2})) is not None
    assert q.exact(rules, q.setup({"red": 3, "blue": 2})) is not None  # 2 pairs: 21 x 21 sorted results
    setup = q.setup({"red": 3, "blue": 3})
    assert q.exact(rules, setup) is None
    assert q.why_no_exact(rules, setup).startswith(
        "exact value unavailable because a round of the battle at (red=3, blue=3) has up to 3,136 results"
    )
    out = q.simulate(rules, setup, 20_000, np.random.default_rng(2))["red_win"]  # round by round
    monkeypatch.setattr(compile_module, "MAX_JOINT", 250_000)
    exact = load_compiled(write(tmp_path, text, "pairs-exact.toml")).game.question().exact(rules, setup)
    p = exact["red_win"]
    assert abs(out.mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / out.size)


def test_count_work_bounds_the_steps_that_combine_kinds_of_dice():
    """Combining kinds of dice takes, for each kind after the first, the results so far times the
    kind's own; count_work bounds that without enumerating (one kind: nothing to combine)."""
    hit, sword, wall = ("hit", "hit", "shield", "blank"), ("hit", "special"), ("shield", "blank", "wall")
    symbols = ("hit", "shield", "blank", "special", "wall")
    assert rounds.count_work(((hit, 9),), symbols) == 0
    for n, m, k in itertools.product(range(4), range(4), range(3)):
        pool = ((hit, n), (sword, m), (wall, k))
        steps, so_far = 0, None
        for faces, count in pool:
            if count:
                kind = len(rounds.symbol_counts(((faces, count),), symbols))
                if so_far is not None:
                    steps += so_far * kind
                so_far = len(rounds.symbol_counts(pool[: pool.index((faces, count)) + 1], symbols))
        assert steps <= rounds.count_work(pool, symbols), pool
    assert rounds.count_work(((hit, 2), (sword, 3)), symbols) == math.comb(4, 2) * math.comb(4, 3)
    coin = ("a", "b")  # three kinds of the same two names: 4 x 4, then 7 results (0..6 a's) x 4
    assert rounds.count_work(((coin, 3), (coin[::-1], 3), (coin, 3)), coin) == 4 * 4 + 7 * 4


def test_a_side_whose_kinds_of_dice_take_too_long_to_combine_is_simulated(tmp_path, monkeypatch):
    """Three kinds of dice for each red unit (3 red: 20 x 4 steps, then 80 x 10): over a limit of
    100 steps to combine them, the battle is simulated, and the note says why. Blue rolls two
    kinds of its own names (2 steps); each side's work is bounded with its own names."""
    text = WALLS.replace(
        '[dice.wall]\nfaces = ["shield"]',
        '[dice.wall]\nfaces = ["shield"]\n[dice.ward]\nfaces = ["shield", "blank"]\n'
        '[dice.sword]\nfaces = ["hit", "blank"]\n[dice.guard]\nfaces = ["shield", "special", "blank"]',
    ).replace('blue = { wall = "1" }', 'blue = { wall = "1", ward = "1" }').replace(
        'red = { battle = "min(red, max_dice)" }', 'red = { battle = "red", sword = "red", guard = "red" }'
    )
    compiled = load_compiled(write(tmp_path, text, "kinds.toml"))
    q, rules = compiled.game.question(), compiled.game.rules()
    setup = q.setup({"red": 3, "blue": 1})
    monkeypatch.setattr(compile_module, "MAX_COMBINED", 880)
    assert q.exact(rules, setup) is not None  # at the limit
    monkeypatch.setattr(compile_module, "MAX_COMBINED", 879)
    compiled = load_compiled(write(tmp_path, text, "kinds-879.toml"))
    q, rules = compiled.game.question(), compiled.game.rules()
    assert q.exact(rules, q.setup({"red": 1, "blue": 1})) is not None  # 4 x 2 + 8 x 3 = 32 steps
    assert q.exact(rules, setup) is None
    said = q.why_no_exact(rules, setup)
    assert "at (red=3, blue=1) takes up to 880 steps to combine a side's kinds of dice" in said
    with pytest.raises(ChainTooLarge, match=r"^a round at \(red=3, blue=1\) takes up to 880 steps to"):
        compiled._transitions(rules, compiled.State(3, 1))
    assert q.simulate(rules, setup, 1_000, np.random.default_rng(1))["red_win"].size == 1_000
