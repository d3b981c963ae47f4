"""Counting faces with cancellation (Hits against Shields), and a chain too large for the solver."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest

from montecarlo.datagame import load_compiled
from montecarlo.datagame.spec import DefinitionError, parse_definition

FACES = ("hit", "hit", "shield", "shield", "special", "blank")

SHIELDS = """
format = "dice-battle/1"
name = "shields"
end = "red == 0 or blue == 0"
[setup.red]
min = 1
max = 8
example = 4
[setup.blue]
min = 1
max = 8
example = 3
[rules]
max_dice = 3
special_hits = true
[variants.special_blank]
overrides = { special_hits = false }
[dice.battle]
faces = ["hit", "hit", "shield", "shield", "special", "blank"]
[round]
compare = "count"
[round.roll]
red = { battle = "min(red, max_dice)" }
blue = { battle = "min(blue, max_dice)" }
[round.lost]
red = "max(0, blue_hit + (blue_special if special_hits else 0) - red_shield)"
blue = "max(0, red_hit + (red_special if special_hits else 0) - blue_shield)"
[round.update]
red = "max(0, red - red_lost)"
blue = "max(0, blue - blue_lost)"
[metrics.red_win]
kind = "probability"
value = "blue == 0 and red > 0"
[metrics.both_out]
kind = "probability"
value = "red == 0 and blue == 0"
[metrics.rounds]
kind = "mean"
counts = "rounds"
[metrics.quiet_rounds]
kind = "mean"
counts = "tied_rounds"
[metrics.red_left]
kind = "distribution"
value = "red"
support = "0..8"
"""


def write(tmp_path, text, name="game.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


@functools.lru_cache(maxsize=None)
def round_odds(nr: int, nb: int, special: bool) -> dict[tuple[int, int], float]:
    """{(red loses, blue loses): p} by brute force over every ordered roll of the dice."""
    out: dict[tuple[int, int], float] = {}
    strike = ("hit", "special") if special else ("hit",)
    for roll in itertools.product(FACES, repeat=nr + nb):
        red, blue = roll[:nr], roll[nr:]
        red_lost = max(0, sum(f in strike for f in blue) - red.count("shield"))
        blue_lost = max(0, sum(f in strike for f in red) - blue.count("shield"))
        out[red_lost, blue_lost] = out.get((red_lost, blue_lost), 0.0) + 6.0 ** -(nr + nb)
    return out


@functools.lru_cache(maxsize=None)
def red_wins(r: int, b: int, special: bool = True) -> float:
    """P(red wins) by first-step analysis; a round where nobody loses is simply rolled again."""
    if b == 0:
        return float(r > 0)
    if r == 0:
        return 0.0
    odds = round_odds(min(r, 3), min(b, 3), special)
    stay = odds.get((0, 0), 0.0)
    moves = sum(
        p * red_wins(max(0, r - lr), max(0, b - lb), special)
        for (lr, lb), p in odds.items()
        if (lr, lb) != (0, 0)
    )
    return moves / (1 - stay)


@pytest.fixture
def shields(tmp_path):
    return load_compiled(write(tmp_path, SHIELDS))


@pytest.mark.parametrize("variant", [None, "special_blank"])
def test_count_mode_exact_matches_brute_force(shields, variant):
    g = shields.game
    q, rules = g.question(), g.rules([variant] if variant else [])
    for r, b in [(1, 1), (2, 3), (4, 3), (5, 5)]:
        got = q.exact(rules, q.setup({"red": r, "blue": b}))
        assert got["red_win"] == pytest.approx(red_wins(r, b, variant is None), abs=1e-9), (r, b)


def test_count_mode_kernels_and_reference_agree_with_exact(shields):
    g = shields.game
    q, rules = g.question(), g.rules()
    setup = q.setup({"red": 4, "blue": 3})
    exact = q.exact(rules, setup)
    rng = np.random.default_rng(11)
    reference = [q.reference(rules, setup, rng) for _ in range(3000)]
    runs = {
        "sampler": q.simulate(rules, setup, 40_000, np.random.default_rng(1)),
        "direct": shields.simulate_direct(rules, setup, 40_000, np.random.default_rng(2)),
        "reference": {m.name: np.array([t[m.name] for t in reference]) for m in q.metrics},
    }
    for label, out in runs.items():
        for name in ("red_win", "both_out"):
            p, col = exact[name], np.asarray(out[name], dtype=float)
            assert abs(col.mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / col.size) + 1e-12, (label, name)
        for name in ("rounds", "quiet_rounds"):
            col = np.asarray(out[name], dtype=float)
            assert abs(col.mean() - exact[name]) <= 4.5 * col.std(ddof=1) / math.sqrt(col.size), (label, name)


def test_each_side_counts_the_faces_of_its_own_dice(tmp_path):
    """Red rolls a sword die (hit, hit, blank), blue a shield die (shield, shield, blank): blue
    loses its one army when red hits and blue shows no shield, 2/9 a round; 9/2 rounds on average."""
    text = (
        SHIELDS.replace(
            '[dice.battle]\nfaces = ["hit", "hit", "shield", "shield", "special", "blank"]',
            '[dice.sword]\nfaces = ["hit", "hit", "blank"]\n'
            '[dice.guard]\nfaces = ["shield", "shield", "blank"]',
        )
        .replace('red = { battle = "min(red, max_dice)" }', 'red = { sword = "min(red, max_dice)" }')
        .replace('blue = { battle = "min(blue, max_dice)" }', 'blue = { guard = "min(blue, max_dice)" }')
        .replace('red = "max(0, blue_hit + (blue_special if special_hits else 0) - red_shield)"', 'red = "0"')
        .replace('blue = "max(0, red_hit + (red_special if special_hits else 0) - blue_shield)"',
                 'blue = "max(0, red_hit - blue_shield)"')
    )
    compiled = load_compiled(write(tmp_path, text, "sides.toml"))
    q, rules = compiled.game.question(), compiled.game.rules()
    exact = q.exact(rules, q.setup({"red": 1, "blue": 1}))
    assert exact["red_win"] == pytest.approx(1.0, abs=1e-12)
    assert exact["rounds"] == pytest.approx(4.5, abs=1e-9)


def test_a_side_rolling_two_kinds_of_dice_counts_the_faces_of_both():
    """Red rolls a sword die and a guard die: its round counts the faces of both, in order."""
    text = SHIELDS.replace(
        '[dice.battle]\nfaces = ["hit", "hit", "shield", "shield", "special", "blank"]',
        '[dice.battle]\nfaces = ["hit", "hit", "shield", "shield", "special", "blank"]\n'
        '[dice.sword]\nfaces = ["hit", "special", "edge"]\n[dice.guard]\nfaces = ["shield", "wall"]',
    ).replace('red = { battle = "min(red, max_dice)" }', 'red = { sword = "1", guard = "1" }')
    assert parse_definition(text, "two.toml").symbols[0] == ("hit", "special", "edge", "shield", "wall")


def test_a_chain_too_large_for_the_exact_solver_still_simulates_and_says_so(tmp_path):
    small = load_compiled(
        write(
            tmp_path,
            SHIELDS.replace('name = "shields"', 'name = "shields"\nexact_max_states = 5'),
            "small.toml",
        )
    )
    full = load_compiled(write(tmp_path, SHIELDS, "full.toml"))
    q, rules = small.game.question(), small.game.rules()
    setup = q.setup({"red": 6, "blue": 5})
    assert q.exact(rules, setup) is None
    note = q.why_no_exact(rules, setup)
    assert "small.toml" in note and "more than 5 states" in note and "simulated" in note
    assert full.game.question().why_no_exact(rules, setup) is None
    out = q.simulate(rules, setup, 30_000, np.random.default_rng(5))  # round by round
    p = red_wins(6, 5)
    assert abs(out["red_win"].mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / 30_000)


def test_a_battle_that_can_stall_is_a_one_line_definition_error(tmp_path):
    stalls = SHIELDS.replace('red = "max(0, red - red_lost)"', 'red = "red"').replace(
        'blue = "max(0, blue - blue_lost)"', 'blue = "blue"'
    )
    compiled = load_compiled(write(tmp_path, stalls))
    q = compiled.game.question()
    from montecarlo.errors import InputError

    with pytest.raises(InputError, match=r"game\.toml: round\.update: .*never ends"):
        q.exact(compiled.game.rules(), q.setup({"red": 1, "blue": 1}))
    capped = load_compiled(
        write(tmp_path, stalls.replace('name = "shields"', 'name = "s"\nmax_rounds = 50'), "c.toml")
    )
    message = (r"c\.toml: max_rounds: .*50 rounds \(one at red=1, blue=1\); .*it never ends "
               r"\(check end and round\.update\)$")
    with pytest.raises(InputError, match=message):
        capped.simulate_direct(
            capped.game.rules(), q.setup({"red": 1, "blue": 1}), 10, np.random.default_rng(1)
        )


def test_count_mode_needs_its_losses():
    lost = SHIELDS[SHIELDS.index("[round.lost]") : SHIELDS.index("[round.update]")]
    with pytest.raises(DefinitionError) as info:
        parse_definition(SHIELDS.replace(lost, ""), "g.toml")
    assert str(info.value) == "g.toml: round.lost: missing; add this table (see docs/rules-as-data.md)"


@pytest.mark.parametrize(
    "old, new, message",
    [
        (
            'blue = "max(0, red_hit',
            'green = "max(0, red_hit',
            "round.lost.green: unknown key; use one of: red, blue",
        ),
        (
            'blue = "max(0, red_hit + (red_special if special_hits else 0) - blue_shield)"\n',
            "",
            'round.lost.blue: missing; say what this side loses, e.g. "max(0, other_hit - this_shield)"',
        ),
        (
            SHIELDS[SHIELDS.index("[metrics.red_win]") :],
            "",
            "metrics: missing; add this table (see docs/rules-as-data.md)",
        ),
        (
            SHIELDS[SHIELDS.index("[metrics.red_win]") :],
            "[metrics]\n",
            "metrics: no metrics; add at least one [metrics.NAME]",
        ),
        (
            'red = "max(0, blue_hit + (blue_special if special_hits else 0) - red_shield)"',
            'red = "blue_hit +"',
            "round.lost.red: cannot parse 'blue_hit +': invalid syntax; fix the expression",
        ),
        (  # no pair is compared, so no pair ties: ``tied`` is not a name of a counting round
            'blue = "max(0, blue - blue_lost)"',
            'blue = "max(0, blue - blue_lost - tied)"',
            "round.update.blue: unknown name 'tied'; the names known here are: blue, blue_blank, blue_dice, "
            "blue_hit, blue_lost, blue_shield, blue_special, max_dice, red, red_blank, red_dice, red_hit, "
            "red_lost, red_shield, red_special, special_hits; fix the expression",
        ),
    ],
)
def test_count_mode_needs_each_sides_losses_and_a_battle_some_metrics(old, new, message):
    assert old in SHIELDS
    with pytest.raises(DefinitionError) as info:
        parse_definition(SHIELDS.replace(old, new, 1), "g.toml")
    assert str(info.value) == f"g.toml: {message}"


def test_count_mode_needs_dice_with_named_faces():
    numbered = SHIELDS.replace('faces = ["hit", "hit", "shield", "shield", "special", "blank"]', "faces = 6")
    with pytest.raises(DefinitionError) as info:
        parse_definition(numbered, "g.toml")
    assert str(info.value) == (
        "g.toml: round.roll.red.battle: compare = 'count' needs dice with named faces; "
        'e.g. faces = ["hit", "hit", "shield", "blank", "blank", "blank"]'
    )


@pytest.mark.parametrize(
    "key, message",
    [
        ('ties = "red"', "round.ties: compare = 'count' has no tied comparisons; remove ties"),
        ('pairs = "1"', "round.pairs: only compare = 'pairs' has pairs; remove it"),
    ],
)
def test_count_mode_refuses_the_keys_of_compared_dice(key, message):
    with pytest.raises(DefinitionError) as info:
        parse_definition(SHIELDS.replace('compare = "count"', f'compare = "count"\n{key}'), "g.toml")
    assert str(info.value) == f"g.toml: {message}"


@pytest.mark.parametrize(("limit", "enumerated"), [(6, True), (5, False)])
def test_a_pool_of_exactly_the_most_outcomes_is_enumerated_one_less_refuses(monkeypatch, limit, enumerated):
    """Two dice of three values have C(4, 2) = 6 multisets: a limit of 6 enumerates them, 5 refuses."""
    from montecarlo.datagame import rounds

    monkeypatch.setattr(rounds, "MAX_OUTCOMES", limit)
    outcomes = rounds._multisets((1, 2, 2, 3), 2)
    if enumerated:
        combos = dict(outcomes)
        assert sorted(combos) == [(1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (3, 3)]
        assert combos[(2, 2)] == pytest.approx(1 / 4) and combos[(1, 2)] == pytest.approx(2 * 1 / 4 * 1 / 2)
        assert sum(combos.values()) == pytest.approx(1)
    else:
        with pytest.raises(rounds.PoolTooLarge, match="2 dice of 3 faces are too many") as info:
            next(outcomes)
        assert info.value.args[1:] == (3,)  # the die's number of distinct faces, as documented
