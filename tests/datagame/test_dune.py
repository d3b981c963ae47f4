"""The plain Dune duel as data (scenarios/games/dune1984-duel.toml) against the Python model."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from montecarlo.datagame import load_game
from montecarlo.registry import get_game

DUEL = Path(__file__).resolve().parents[2] / "scenarios" / "games" / "dune1984-duel.toml"
PAIRS = [(a, d) for a in range(1, 7) for d in range(1, 7)]


@pytest.mark.parametrize("variant", [None, "ties_favour_defender", "no_strength_gain"])
def test_every_metric_equals_the_python_model_for_all_36_strength_pairs(variant):
    game = load_game(DUEL)
    dune = get_game("dune1984")
    q, dq = game.question(), dune.question("duel")
    variants = [variant] if variant else []
    rules, dune_rules = game.rules(variants), dune.rules(variants)
    for a, d in PAIRS:
        mine = q.exact(rules, q.setup({"attacker": a, "defender": d}))
        theirs = dq.exact(dune_rules, dq.setup({"attacker": a, "defender": d}))
        assert set(mine) <= set(theirs)
        for name, value in mine.items():
            assert value == pytest.approx(theirs[name], abs=1e-12), (a, d, name)


def test_a_house_rule_on_the_die_changes_the_odds_like_the_python_model():
    game, dune = load_game(DUEL), get_game("dune1984")
    q, dq = game.question(), dune.question("duel")
    mine = q.exact(game.rules(["d8_dice"]), q.setup({"attacker": 4, "defender": 5}))
    theirs = dq.exact(dune.rules(overrides={"die_faces": 8}), dq.setup({"attacker": 4, "defender": 5}))
    assert mine["attacker_win"] == pytest.approx(theirs["attacker_win"], abs=1e-12)


def test_duel_via_get_game_path_and_the_sampler():
    game = get_game(str(DUEL))
    q = game.question()
    setup = q.setup({"attacker": "3", "defender": 4})
    exact = q.exact(game.rules(), setup)
    out = q.simulate(game.rules(), setup, 50_000, np.random.default_rng(7))
    p = exact["attacker_win"]
    assert abs(out["attacker_win"].mean() - p) <= 4.5 * math.sqrt(p * (1 - p) / 50_000)


def test_a_mixed_pool_gives_the_python_model_s_gom_jabbar():
    """One extra d8 beside the capped d6 pool is the model's Gom Jabbar (outside the cap)."""
    text = (
        DUEL.read_text()
        .replace("[dice.d]", "[dice.gom]\nfaces = 8\n\n[dice.d]")
        .replace(
            'attacker = { d = "min(attacker, max_dice)" }',
            'attacker = { d = "min(attacker, max_dice)", gom = 1 }',
        )
    )
    from montecarlo.datagame.compile import compile_text

    game = compile_text(text, "gom.toml").game
    dune = get_game("dune1984")
    q, dq = game.question(), dune.question("duel")
    for a, d in PAIRS:
        mine = q.exact(game.rules(), q.setup({"attacker": a, "defender": d}))
        theirs = dq.exact(
            dune.rules(), dq.setup({"attacker": a, "defender": d, "attacker_equipment": "gom_jabbar"})
        )
        for name, value in mine.items():
            assert value == pytest.approx(theirs[name], abs=1e-12), (a, d, name)


def test_the_direct_kernel_compares_the_highest_dice_only():
    """Several dice a side (4 against 5 Strength): the vectorised round compares each side's
    highest die, as the exact chain does, not the dice in pairs."""
    from montecarlo.datagame import load_compiled

    compiled = load_compiled(DUEL)
    game = compiled.game
    q = game.question()
    setup = q.setup({"attacker": 4, "defender": 5})
    exact = q.exact(game.rules(), setup)
    out = compiled.simulate_direct(game.rules(), setup, 40_000, np.random.default_rng(3))
    p = exact["attacker_win"]
    assert abs(np.mean(out["attacker_win"]) - p) <= 4.5 * math.sqrt(p * (1 - p) / 40_000)
    rng = np.random.default_rng(4)
    plain = [compiled.reference(game.rules(), setup, rng) for _ in range(4000)]
    for name in ("rounds", "decisive_rounds", "tied_rounds"):  # the reference trial counts ties too
        for column in (np.asarray(out[name], dtype=float), np.array([t[name] for t in plain], dtype=float)):
            se = column.std(ddof=1) / math.sqrt(column.size)
            assert abs(column.mean() - exact[name]) <= 4.5 * se, (name, column.size)
