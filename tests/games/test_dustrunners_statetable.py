"""The lookup of best play's solved decisions in the kernel (``StateTable``), against a dict.

- Keys of several widths (one or two piles, one to three other values), the whole deck's kinds
  merged into classes by a 0/1 matrix, a dense table and a sparse one (past ``DENSE_POLICY``
  codes), an empty table and one holding only the all-zero state: every key is found with its
  choice, and states off the table are not found, also where their code, read in mixed radix,
  would land on a stored key (a count one past the largest a column holds).
- The guard on the number of codes: 2**62 codes are refused with the documented message, one
  key below it a table is still built and looks its key up.
- Through ``simulate_combat``: best play with no ammo has an empty policy (every state is
  hopeless), and the kernel still plays it.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from montecarlo.errors import InputError
from montecarlo.games.dustrunners.combat import (
    DENSE_POLICY, StateTable, exact_combat, parse_combat, simulate_combat,
)
from montecarlo.games.dustrunners.rules import Rules

# three kinds of card merged into two classes: kinds 0 and 2 are class 0, kind 1 is class 1
MERGE = np.array([[1, 0, 1], [0, 1, 0]], dtype=np.int64)
CLASSES = MERGE.shape[0]


def model(keys: np.ndarray, choices: np.ndarray) -> dict[tuple, int]:
    """What the table should answer: state -> choice."""
    return {tuple(int(v) for v in key): int(c) for key, c in zip(keys, choices)}


def as_kinds(classes: tuple) -> list[int]:
    """A whole deck's pile (counts per kind) whose merge has these class counts (class 0 split
    between kinds 0 and 2 when it can be, so that both columns of the merge are read)."""
    c0, c1 = classes
    return [c0 - c0 // 2, c1, c0 // 2]


def look_up(table: StateTable, queries: list[tuple], piles: int) -> tuple[np.ndarray, np.ndarray]:
    """``table.find`` on the queries (rows of class counts per pile, then the other values) as
    one batch, the piles given per kind as the kernel gives them."""
    pile_arrays = [np.array([as_kinds(q[j * CLASSES:(j + 1) * CLASSES]) for q in queries],
                            dtype=np.int16).T for j in range(piles)]
    width = len(queries[0]) - piles * CLASSES
    rest = [np.array([q[piles * CLASSES + i] for q in queries], dtype=np.int64) for i in range(width)]
    return table.find(pile_arrays, rest)


def queries_around(keys: np.ndarray, radix: np.ndarray, rng: np.random.Generator) -> list[tuple]:
    """Every key; each key with one column one more, and at the radix (just off the table, where
    its code would carry into the next column); random states up to two past each radix."""
    out = [tuple(int(v) for v in key) for key in keys]
    for key in keys:
        for j in range(keys.shape[1]):
            for value in (key[j] + 1, radix[j]):
                out.append(tuple(int(value) if i == j else int(v) for i, v in enumerate(key)))
    high = np.minimum(radix, 6) + 2
    out += [tuple(int(v) for v in row) for row in rng.integers(0, high, size=(300, radix.size))]
    return out


def check_against_dict(keys: np.ndarray, choices: np.ndarray, piles: int, queries: list[tuple]) -> None:
    table = StateTable(keys, choices, MERGE, piles)
    want = model(keys, choices)
    got, found = look_up(table, queries, piles)
    # the first few wrong answers only: a short report (the query lists are long)
    wrong = [(q, bool(f), int(g)) for q, g, f in zip(queries, got, found)
             if bool(f) != (q in want) or (f and int(g) != want[q])][:3]
    assert not wrong, f"(state, found, choice) wrong: {wrong}"


def random_keys(rng: np.random.Generator, piles: int, width: int, n: int) -> np.ndarray:
    """Up to ``n`` distinct random states (class counts 0..2, other values 0..3) and the all-zero
    state (the code a state off the table reads), sorted."""
    pile_part = rng.integers(0, 3, size=(n, piles * CLASSES))
    rest_part = rng.integers(0, 4, size=(n, width))
    rows = np.concatenate([pile_part, rest_part], axis=1)
    return np.unique(np.concatenate([np.zeros((1, rows.shape[1]), np.int64), rows]), axis=0)


WIDTHS = [(1, 1), (1, 3), (2, 1), (2, 2)]  # (piles, other values): the kernel uses (1, 6) and (2, 7)


@pytest.mark.parametrize("piles, width", WIDTHS)
def test_a_dense_table_finds_its_keys_and_nothing_else(piles, width):
    """Mixed-radix codes read in a table: every key found with its choice, every other state
    (in range but missing, or one past a column's largest value) not found."""
    rng = np.random.default_rng(piles * 10 + width)
    keys = random_keys(rng, piles, width, 12)
    choices = rng.integers(0, 5, size=len(keys)).astype(np.int8)
    radix = keys.max(axis=0) + 1
    assert int(np.prod(radix)) <= DENSE_POLICY
    check_against_dict(keys, choices, piles, queries_around(keys, radix, rng))


@pytest.mark.parametrize("piles, width", WIDTHS)
def test_a_sparse_table_finds_its_keys_and_nothing_else(piles, width):
    """Past ``DENSE_POLICY`` codes the keys are found by a binary search: the same answers,
    including the key with the largest code, states whose code is beyond it and states whose
    code falls between two keys."""
    rng = np.random.default_rng(100 + piles * 10 + width)
    keys = random_keys(rng, piles, width, 12)
    big = keys[-1].copy()
    big[-1] = DENSE_POLICY  # the last column's radix alone takes the table past DENSE_POLICY codes
    keys = np.concatenate([keys, big[None, :]])
    choices = rng.integers(0, 5, size=len(keys)).astype(np.int8)
    radix = keys.max(axis=0) + 1
    assert int(np.prod(radix)) > DENSE_POLICY
    queries = queries_around(keys, radix, rng)
    queries.append(tuple(big[:-1]) + (DENSE_POLICY - 1,))  # between two codes
    check_against_dict(keys, choices, piles, queries)


@pytest.mark.parametrize("piles", [1, 2])
def test_an_empty_table_finds_nothing(piles):
    """An empty policy (best play where every state is hopeless) is a table of no keys: every
    state, the all-zero one too, is not found."""
    width = 3
    keys = np.zeros((0, piles * CLASSES + width), dtype=np.int64)
    queries = list(itertools.product(range(2), repeat=piles * CLASSES + width))
    check_against_dict(keys, np.zeros(0, np.int8), piles, queries)


@pytest.mark.parametrize("piles", [1, 2])
def test_a_table_of_only_the_zero_state(piles):
    """One key, all zeros (a table of a single code): it is found, and every other state, past
    some column's radix 1, is not, although the one code such a state reads holds a choice."""
    keys = np.zeros((1, piles * CLASSES + 2), dtype=np.int64)
    queries = list(itertools.product(range(3), repeat=piles * CLASSES + 2))
    check_against_dict(keys, np.array([3], np.int8), piles, queries)


def test_too_many_codes_are_refused_in_one_line():
    """2**62 codes (a column up to 2**62 - 1) are refused; with the message the user sees."""
    keys = np.array([[0, 0, 2**62 - 1]], dtype=np.int64)
    with pytest.raises(InputError) as refused:
        StateTable(keys, np.array([1], np.int8), MERGE, 1)
    assert str(refused.value) == "best play: the solved policy has too many states to look up"


@pytest.mark.parametrize("keys", [[[0, 0, 2**62 - 2]], [[0, 0, 2**61 - 1, 0]]],
                         ids=["one-column", "zero-columns"])
def test_the_largest_tables_below_the_limit_are_built(keys):
    """Just below 2**62 codes (each column's radix its largest value + 1; a column of zeros
    counts 1) the table is built, sparse, and finds its key and not its neighbour."""
    keys_array = np.array(keys, dtype=np.int64)
    table = StateTable(keys_array, np.array([2], np.int8), MERGE, 1)
    key = tuple(keys[0])
    neighbour = key[:2] + (key[2] - 1,) + key[3:]
    got, found = look_up(table, [key, neighbour], 1)
    assert found.tolist() == [True, False] and got[0] == 2


def test_best_play_without_ammo_has_an_empty_policy_and_still_plays():
    """No ammo and no damage bonus: every state is hopeless, so the solve records no ammo choice
    and no finish decision, and the kernel builds its tables from nothing; no trial can win or
    spend, as the exact solve says."""
    setup = parse_combat({"deck": "illustrative-12",
                          "card_counts": "empty road=1, dust cloud=1, glancing hit=0, side swipe=0, "
                                         "double tap=0, head-on crash=1",
                          "enemy_die": 1, "enemy_stars": 1, "health": 2, "ammo": 0, "damage_bonus": 0,
                          "policy": "best", "objective": "win", "redraw": "finish", "vp": 4})
    exact = exact_combat(Rules(), setup)
    assert exact is not None and exact["player_win"] == 0.0
    got = simulate_combat(Rules(), setup, 200, np.random.default_rng(3))
    assert not got["player_win"].any() and not got["ammo_spent"].any() and not got["vp_gained"].any()
