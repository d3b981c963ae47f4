"""Scenario files: loading, validation errors (one line naming file and key), running.

The tests run against a tiny fake game, ``coin`` (defined here, registered by monkeypatching
the game registry), so they do not wait for the real games; every shipped scenario under
``scenarios/`` is also loaded and every grid point built, skipping games still unimplemented.
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from montecarlo import registry
from montecarlo.engine import memory
from montecarlo.errors import InputError, ScenarioError
from montecarlo.games.base import Game, Metric, Question, build_dataclass
from montecarlo.scenarios import (
    find_scenarios,
    load_scenario,
    name_clashes,
    parse_scenario,
    run_scenario,
    show_value,
)

ROOT = Path(__file__).resolve().parents[1]
TAGS = ("red", "blue")


# ---------------------------------------------------------------- the fake game "coin"


@dataclass(frozen=True, slots=True)
class CoinRules:
    bias: float = 0.5  # chance of heads per flip
    bonus: int = 0  # added to the heads count in "total"

    def __post_init__(self) -> None:
        if not 0 <= self.bias <= 1:
            raise InputError(f"bias must be between 0 and 1, got {self.bias!r}")


@dataclass(frozen=True, slots=True)
class CoinSetup:
    """A few flips of a coin (its fields documented for the CLI generated from them).

    Attributes:
        flips: how many times the coin is flipped, 1..4.
        need: heads needed to win.
        tags: labels with no effect (red, blue); a list-valued field like Dune's equipment.
    """

    flips: int = 1
    need: int = 1
    tags: tuple[str, ...] = ()


def parse_coin_setup(values) -> CoinSetup:
    setup = build_dataclass(CoinSetup, {**values, "tags": tuple(values.get("tags", ()))}, "coin setup")
    if not isinstance(setup.flips, int) or not 1 <= setup.flips <= 4:
        raise InputError(f"flips must be an integer 1..4, got {setup.flips!r}")
    if set(setup.tags) - set(TAGS):
        raise InputError(f"tags must be among {', '.join(TAGS)}, got {list(setup.tags)}")
    return setup


def coin_kernel(
    rules: CoinRules, setup: CoinSetup, n: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    heads = (rng.random((n, setup.flips)) < rules.bias).sum(axis=1)
    return {"win": heads >= setup.need, "heads": heads, "total": heads + rules.bonus}


def coin_exact(rules: CoinRules, setup: CoinSetup) -> dict[str, float]:
    pmf = sps.binom.pmf(np.arange(setup.flips + 1), setup.flips, rules.bias)
    out = {"win": float(pmf[setup.need :].sum()), "heads": setup.flips * rules.bias}
    for v in range(6):
        k = v - rules.bonus
        out[f"total={v}"] = float(pmf[k]) if 0 <= k <= setup.flips else 0.0
    return out


COIN = Question(
    name="flip",
    description="flip a biased coin a few times",
    setup_type=CoinSetup,
    metrics=(
        Metric("win", "probability", "at least `need` heads"),
        Metric("heads", "mean", "number of heads"),
        Metric("total", "distribution", "heads + bonus", tuple(range(6))),
    ),
    simulate=coin_kernel,
    exact=coin_exact,
    parse_setup=parse_coin_setup,
    example={"flips": 2},
)
GAME = Game(
    name="coin",
    title="Coin (a fake game for tests)",
    rules_type=CoinRules,
    variants={"loaded": {"bias": 0.7}, "bonus": {"bonus": 1}},
    questions={"flip": COIN},
    default_question="flip",
    variant_descriptions={"loaded": "heads 70% of the time"},
)


@pytest.fixture
def coin_game(monkeypatch):
    """Register the fake game as ``coin`` (the registry imports this module's GAME)."""
    monkeypatch.setitem(registry.EXTRA, "coin", __name__)
    return GAME


VALID = """
title = "Coin odds"
game = "coin"
seed = 7
trials = 4000
metrics = ["win", "heads", "total"]

[setup]
tags = ["red"]

[grid]
flips = [1, 2, 3]
need = [1, 2]

[variants.official]
[variants.same]
overrides = { bias = 0.5 }
[variants.loaded]
builtin = "loaded"
description = "a loaded coin"
"""


def write(tmp_path: Path, text: str, name: str = "coin-odds.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------- valid files


def test_valid_scenario_loads_with_defaults(coin_game, tmp_path):
    sc = load_scenario(write(tmp_path, VALID))
    assert sc.name == "coin-odds" and sc.title == "Coin odds" and sc.question.name == "flip"
    assert sc.baseline == "official" and [v.name for v in sc.variants] == ["official", "same", "loaded"]
    assert sc.variant("loaded").rules == CoinRules(bias=0.7)
    assert sc.variant("same").rules == CoinRules()
    assert sc.chunk_size == 1 << 17 and sc.precision is None
    assert len(sc.points) == 6
    assert sc.points[1].values == {"flips": 1, "need": 2}  # first field outermost
    assert sc.points[1].setup == CoinSetup(flips=1, need=2, tags=("red",))
    assert sc.reported_metrics == ("win", "heads", *(f"total={v}" for v in range(6)))


def test_minimal_scenario_and_rule_order(coin_game, tmp_path):
    """[rules] first, then builtin, then overrides; no [variants] means one 'official'."""
    sc = load_scenario(write(tmp_path, 'game = "coin"\nseed = 1\nprecision = 0.01\n[rules]\nbias = 0.2\n'))
    assert [v.name for v in sc.variants] == ["official"] and sc.variants[0].rules == CoinRules(bias=0.2)
    assert sc.trials == 10_000 and sc.chunk_size == 10_000 and len(sc.points) == 1
    assert sc.metrics == ("win", "heads", "total")
    text = (
        'game = "coin"\nseed = 1\n[rules]\nbias = 0.2\n'
        '[variants.a]\nbuiltin = ["loaded"]\noverrides = {bonus = 2}\n'
    )
    assert load_scenario(write(tmp_path, text)).variants[0].rules == CoinRules(bias=0.7, bonus=2)
    one = load_scenario(write(tmp_path, 'game = "coin"\nseed = 1\nprecision = 0.01\ntrials = 1\n'))
    assert one.trials == 1 and one.chunk_size == 1  # a precision run grows in steps of its first batch
    chunked = load_scenario(write(tmp_path, 'game = "coin"\nseed = 1\nchunk_size = 1000\n'))
    assert chunked.chunk_size == 1000 and chunked.settings(jobs=1).chunk_size == 1000  # the file's own chunks
    fixed = load_scenario(write(tmp_path, 'game = "coin"\nseed = 1\n'))  # no precision: the usual trials
    assert fixed.trials == 200_000 and fixed.chunk_size == 1 << 17


def test_parse_scenario_accepts_a_game_object():
    sc = parse_scenario({"game": GAME, "seed": 3, "grid": {"flips": [1, 2]}})
    assert sc.game is GAME and len(sc.points) == 2


def test_show_value_reads_lists():
    assert show_value([]) == "none" and show_value(["sword"]) == "sword"
    assert show_value(["gom_jabbar", "sword"]) == "gom_jabbar+sword" and show_value([3, 2]) == "3,2"
    assert show_value(4) == 4
    assert show_value({"sword": 1, "guns": [2, 3]}) == "sword:1,guns:2,3"  # a table as key:value pairs


# ---------------------------------------------------------------- invalid files

BAD = [
    (
        'game = "coin"\nseed = 1\ncolour = "red"\n',
        'colour: unknown key; use one of: name, title, description, game, question, seed, '
        'trials, precision, max_trials, chunk_size, metrics, baseline, focus, ordered, labels, setup, grid, '
        'rules, variants, plots',
    ),
    (  # labels: words for values of a swept field
        'game = "coin"\nseed = 1\n[labels.flips]\n"1" = "one"\n',
        "labels.flips: 'flips' is not swept in [grid]; label values of a [grid] field",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 2]\n[labels.flips]\n"3" = "three"\n',
        "labels.flips: '3' is not one of its values; use one of: 1, 2",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 2]\n[labels.flips]\n"1" = " "\n',
        "labels.flips.1: expected a non-empty string, got ' '",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 2]\n[labels.flips]\n"1" = "2"\n',
        "labels.flips: expected labels distinct from each other and from the values left unlabelled, "
        "got ['2', '2']",
    ),
    (
        'game = "coin"\nseed = 1\nlabels = { flips = 3 }\n[grid]\nflips = [1, 2]\n',
        'labels.flips: expected a table of "value" = "label", got 3',
    ),
    (
        'game = "coin"\nseed = 1\nlabels = 3\n[grid]\nflips = [1, 2]\n',
        "labels: expected a table, got 3",
    ),
    (  # focus names the grid fields the title asks about (a wrong one is named, not the scenario)
        'game = "coin"\nseed = 1\nfocus = ["flips", "need"]\n[grid]\nflips = [1, 2]\n',
        "focus[1]: 'need' is not swept in [grid]; use one of the grid's fields: flips",
    ),
    (
        'game = "coin"\nseed = 1\nfocus = "tags"\n[grid]\nflips = [1, 2]\nneed = [1]\n',
        "focus[0]: 'tags' is not swept in [grid]; use one of the grid's fields: flips, need",
    ),
    (
        'game = "coin"\nseed = 1\nfocus = "flips"\n',
        "focus[0]: 'flips' is not swept in [grid]; sweep it in [grid] or leave it out",
    ),
    (
        'game = "coin"\nseed = 1\nfocus = ["flips", "flips"]\n[grid]\nflips = [1, 2]\n',
        "focus: expected distinct grid fields, got ['flips', 'flips']",
    ),
    (
        'game = "coin"\nseed = 1\nfocus = 3\n',
        "focus: expected a string or a list of strings, got 3",
    ),
    (  # ordered: grid fields whose values go up in the order listed, checked as focus is
        'game = "coin"\nseed = 1\nordered = ["need"]\n[grid]\nflips = [1, 2]\n',
        "ordered[0]: 'need' is not swept in [grid]; use one of the grid's fields: flips",
    ),
    (
        'game = "coin"\nseed = 1\nordered = ["flips", "flips"]\n[grid]\nflips = [1, 2]\n',
        "ordered: expected distinct grid fields, got ['flips', 'flips']",
    ),
    (
        'game = "coin"\nseed = 1\n[variants.x]\nbulitin = "loaded"\n',
        'variants.x.bulitin: unknown key; use one of: builtin, overrides, description',
    ),
    (
        'game = "coin"\nseed = 1\n[[plots]]\nkind = "bars"\ncolour = 1\n',
        'plots[0].colour: unknown key; use one of: kind, metric, x, y, facet, hue, variant, '
        'where, title',
    ),
    (
        'game = "chess"\nseed = 1\n',
        "game: unknown game 'chess'; known: {known}",  # every registered game
    ),
    (
        'game = "coin"\nseed = 1\nquestion = "roll"\n',
        "question: unknown question 'roll' for coin; known: flip",
    ),
    (
        'game = "coin"\nseed = 1\nmetrics = ["win", "tails"]\n',
        "metrics[1]: unknown metric 'tails' for coin flip; use one of: win, heads, total",
    ),
    (
        'game = "coin"\nseed = 1\n[variants.x]\nbuiltin = "cheat"\n',
        "variants.x.builtin: unknown variant 'cheat' for coin; use one of: loaded, bonus",
    ),
    (  # in the CLI and the API a variant named twice is refused: a file's list too
        'game = "coin"\nseed = 1\n[variants.x]\nbuiltin = ["loaded", "loaded"]\n',
        "variants.x.builtin: 'loaded' is given twice; name each house rule once",
    ),
    (
        'game = "coin"\nseed = 1\n[variants.x]\nbuiltin = "loaded"\ndescription = 3\n',
        "variants.x.description: expected a non-empty string, got 3",
    ),
    (
        'game = "coin"\nseed = 1\n[variants.x]\noverrides = { bias = 2.0 }\n',
        'variants.x.overrides: bias must be between 0 and 1, got 2.0',
    ),
    (
        'game = "coin"\nseed = 1\n[variants.x]\noverrides = { sides = 3 }\n',
        'variants.x.overrides: unknown rule field(s) sides; known: bias, bonus',
    ),
    (
        'game = "coin"\nseed = 1\n[rules]\nsides = 3\n',
        'rules: unknown rule field(s) sides; known: bias, bonus',
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 5]\n',
        'grid point flips=5: flips must be an integer 1..4, got 5',
    ),
    (  # a point of two swept fields names both
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 9]\nneed = [1]\n',
        'grid point flips=9, need=1: flips must be an integer 1..4, got 9',
    ),
    *(  # every top-level key of the wrong type is named by itself
        (f'game = "coin"\nseed = 1\n{key} = 5\n', f"{key}: expected {expected}, got 5")
        for key, expected in (
            ("metrics", "a string or a list of strings"),
            ("setup", "a table"),
            ("grid", "a table"),
            ("rules", "a table"),
            ("baseline", "a non-empty string"),
            ("title", "a non-empty string"),
            ("description", "a non-empty string"),
        )
    ),
    (
        'game = "coin"\nseed = 1\nbaseline = "b"\n[variants.a]\n[variants.c]\n',
        "baseline: expected one of the variants (a, c), got 'b'",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\ntags = [[], ["green"]]\n',
        "grid point tags=['green']: tags must be among red, blue, got ['green']",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = []\n',
        'grid.flips: expected a non-empty list of values, got []',
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 2, 1]\n',
        'grid.flips: expected distinct values, got [1, 2, 1]',
    ),
    (
        'game = "coin"\nseed = 1\nmetrics = ["win", "win"]\n',
        "metrics: expected a non-empty list of distinct metric names, got ['win', 'win']",
    ),
    (
        'game = "coin"\nseed = 1\n[setup]\nsides = 2\n',
        'setup: coin setup: unknown field(s) sides; known: flips, need, tags',
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = 2\n',
        'grid.flips: expected a list of values (put a fixed value under [setup]), got 2',
    ),
    (
        'game = "coin"\nseed = 1\n[setup]\nflips = 2\n[grid]\nflips = [1]\n',
        'grid.flips: also fixed in [setup]; fix it in [setup] or sweep it in [grid]',
    ),
    (
        'game = "coin"\nseed = 1\ntrials = 0\n',
        'trials: expected a positive integer, got 0',
    ),
    (
        'game = "coin"\nseed = 1\ntrials = -5\n',
        'trials: expected a positive integer, got -5',
    ),
    (  # a precision run's first batch of none: its trials are wrong, not the chunks made of them
        'game = "coin"\nseed = 1\nprecision = 0.01\ntrials = 0\n',
        'trials: expected a positive integer, got 0',
    ),
    (
        'game = "coin"\nseed = 1\ntrials = "many"\n',
        "trials: expected a positive integer, got 'many'",
    ),
    (
        'game = "coin"\ntrials = 10\n',
        'seed: missing; add seed = <an integer> (every report must be reproducible)',
    ),
    (
        'game = "coin"\nseed = 1\nprecision = 0.9\n',
        'precision: expected a half-width between 0 and 0.5, got 0.9',
    ),
    (
        'game = "coin"\nseed = 1\nmax_trials = 10\n',
        'max_trials: set without precision, whose target it caps; add precision or remove '
        'max_trials',
    ),
    (
        'game = "coin"\nseed = 1\nbaseline = "nope"\n',
        "baseline: expected one of the variants (official), got 'nope'",
    ),
    (
        'game = "coin"\nseed = 1\nname = "a b"\n',
        "name: expected letters, digits, '.', '_' or '-', starting with a letter or digit, and not "
        "index.html (it names the report folder), got 'a b'",
    ),
    (
        'game = "coin"\nseed = 1\nname = "Index.HTML"\n',  # report-all writes its index there
        "name: expected letters, digits, '.', '_' or '-', starting with a letter or digit, and not "
        "index.html (it names the report folder), got 'Index.HTML'",
    ),
    (
        'game = "coin"\nseed = 1\nname = "..."\n',  # only the allowed characters, but no folder name
        "name: expected letters, digits, '.', '_' or '-', starting with a letter or digit, and not "
        "index.html (it names the report folder), got '...'",
    ),
    (
        'game = "coin"\nseed = 1\nname = 5\n',
        "name: expected a non-empty string, got 5",
    ),
    (
        'game = "coin"\nseed = 1\n[[plots]]\nkind = "pie"\n',
        "plots[0].kind: expected one of heatmap, lines, bars, forest, got 'pie'",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1]\n[[plots]]\nkind = "lines"\nx = "need"\n',
        "plots[0].x: expected a [grid] field (flips), got 'need'",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1]\n[[plots]]\nkind = "heatmap"\nx = "flips"\n',
        'plots[0].y: missing (a heatmap plot needs it); name a [grid] field',
    ),
    (
        'game = "coin"\nseed = 1\n[[plots]]\nkind = "forest"\n',
        'plots[0].kind: a forest plot needs at least two variants to compare; add a variant',
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1]\n'
        '[[plots]]\nkind = "lines"\nx = "flips"\nmetric = "total"\n',
        'plots[0].metric: expected a probability or mean metric for a lines plot (use bars for a '
        "distribution), got 'total'",
    ),
    (
        'game = "coin"\nseed = 1\n[variants.fair]\n[variants.x]\nbuiltin = "loaded"\n'
        '[[plots]]\nkind = "forest"\nmetric = "total"\n',
        'plots[0].metric: expected a probability or mean metric for a forest plot (use bars for a '
        "distribution), got 'total'",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1]\n[[plots]]\nkind = "bars"\nwhere = { flips = 3 }\n',
        'plots[0].where.flips: expected one of the grid values [1], got 3',
    ),
    (
        'game = "coin"\nseed = 1\n[[plots]]\nkind = "bars"\nwhere = { flips = 3 }\n',
        "plots[0].where.flips: expected a [grid] field (the grid is empty), got 'flips'",
    ),
    (  # a heatmap of flips by flips cannot be drawn (it crashed report after the simulation)
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 2]\n'
        '[[plots]]\nkind = "heatmap"\nx = "flips"\ny = "flips"\n',
        "plots[0].y: 'flips' is already the plot's x; give each of x, y, facet and hue its own "
        "[grid] field",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 2]\n'
        '[[plots]]\nkind = "lines"\nx = "flips"\nhue = "flips"\n',
        "plots[0].hue: 'flips' is already the plot's x; give each of x, y, facet and hue its own "
        "[grid] field",
    ),
    (  # a heatmap has no hue: it was ignored, and a where on it refused as if it were shown
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 2]\nneed = [1]\ntags = [[]]\n'
        '[[plots]]\nkind = "heatmap"\nx = "flips"\ny = "need"\nhue = "tags"\n',
        "plots[0].hue: a heatmap plot has no hue (it uses x, y, facet); remove it",
    ),
    (
        'game = "coin"\nseed = 1\n[variants.fair]\n[variants.x]\nbuiltin = "loaded"\n'
        '[grid]\nflips = [1, 2]\n[[plots]]\nkind = "forest"\nx = "flips"\n',
        "plots[0].x: a forest plot has no x (it uses facet); remove it",
    ),
    (  # it was silently ignored: the plot shows every value of its axes
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 2]\nneed = [1]\n'
        '[[plots]]\nkind = "lines"\nx = "flips"\nwhere = { flips = 1 }\n',
        "plots[0].where.flips: 'flips' is the plot's x; where fixes only the fields the plot does not "
        "show; remove it",
    ),
    ('game = 3\nseed = 1\n', "game: expected a game name (see: montecarlo games), got 3"),
    ("seed = 1\n", "game: missing; add game = <a game name> (see: montecarlo games)"),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 2]\n[[plots]]\nkind = "lines"\nx = 3\n',
        "plots[0].x: expected a non-empty string, got 3",
    ),
    ('game = "coin"\nseed = 1\nquestion = 3\n', "question: expected a non-empty string, got 3"),
    (
        'game = "coin"\nseed = 1\n[[plots]]\nx = "flips"\n',
        "plots[0].kind: missing; add kind = one of heatmap, lines, bars, forest",
    ),
    (
        'game = "coin"\nseed = 1\n[variants.fair]\n[variants.x]\nbuiltin = "loaded"\n'
        '[[plots]]\nkind = "bars"\nvariant = "y"\n',
        "plots[0].variant: expected one of the variants (fair, x), got 'y'",
    ),
    (
        'game = "coin"\nseed = 1\n[[plots]]\nkind = "lines"\nx = "flips"\n',
        "plots[0].x: expected a [grid] field (the grid is empty), got 'flips'",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1, 2]\nneed = [1]\n'
        '[[plots]]\nkind = "heatmap"\nx = "flips"\ny = "need"\nmetric = "total"\n',
        'plots[0].metric: expected a probability or mean metric for a heatmap plot (use bars for a '
        "distribution), got 'total'",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1]\n[[plots]]\nkind = "lines"\n',
        'plots[0].x: missing (a lines plot needs it); name a [grid] field',
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1]\nneed = [1]\n'
        '[[plots]]\nkind = "lines"\nx = "nope"\n',
        "plots[0].x: expected a [grid] field (flips, need), got 'nope'",
    ),
    (
        'game = "coin"\nseed = 1\n[[plots]]\nkind = "bars"\nmetric = 3\n',
        "plots[0].metric: expected a non-empty string, got 3",
    ),
    (
        'game = "coin"\nseed = 1\n[[plots]]\nkind = "bars"\nvariant = 3\n',
        "plots[0].variant: expected a non-empty string, got 3",
    ),
    (
        'game = "coin"\nseed = 1\n[[plots]]\nkind = "bars"\nwhere = 3\n',
        "plots[0].where: expected a table, got 3",
    ),
    (
        'game = "coin"\nseed = 1\n[grid]\nflips = [1]\nneed = [1]\n'
        '[[plots]]\nkind = "bars"\nwhere = { nope = 1 }\n',
        "plots[0].where.nope: expected a [grid] field (flips, need), got 'nope'",
    ),
    (
        'game = "coin"\nseed = 1\n[[plots]]\nkind = "bars"\ntitle = 3\n',
        "plots[0].title: expected a non-empty string, got 3",
    ),
    (
        'game = "coin"\nseed = 1\n[variants.x]\noverrides = 3\n',
        "variants.x.overrides: expected a table, got 3",
    ),
    (
        'game = "coin"\nseed = 1\n[variants.x]\nbuiltin = 3\n',
        "variants.x.builtin: expected a string or a list of strings, got 3",
    ),
    ('game = "coin"\nseed = 1\nplots = 3\n', "plots: expected an array ([[plots]] tables), got 3"),
    (
        'game = "coin"\nseed = 1\nvariants = 3\n',
        "variants: expected a table of named variants ([variants.NAME]), got 3",
    ),
    (
        'game = "coin"\nseed = 1\nmetrics = ["win"]\n[[plots]]\nkind = "bars"\nmetric = "heads"\n',
        "plots[0].metric: expected one of the scenario's metrics (win), got 'heads'",
    ),
    (
        'game = "coin"\nseed = 1\nmetrics = ["win", "total"]\n[[plots]]\nkind = "bars"\nmetric = "heads"\n',
        "plots[0].metric: expected one of the scenario's metrics (win, total), got 'heads'",
    ),
    (
        'game = "coin"\nseed = 1\n[grid\nflips = [1]\n',
        "invalid TOML: Expected ']' at the end of a table declaration (at line 3, column 6); fix "
        'the syntax there',
    ),
    (
        'game = "coin"\nseed = 1\ntrials = 10 10\n',
        'invalid TOML: Expected newline or end of document after a statement (at line 3, column '
        '13); fix the syntax there',
    ),
]


@pytest.mark.parametrize("text,expected", BAD, ids=[f[1][:40] for f in BAD])
def test_invalid_scenarios_fail_in_one_line_naming_file_and_key(coin_game, tmp_path, text, expected):
    """Every message: ``FILE: key: what is wrong; the fix`` (or ``expected ..., got ...``)."""
    path = write(tmp_path, text, "bad.toml")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    known = ", ".join(registry.list_games())
    assert str(info.value) == f"{path}: {expected.replace('{known}', known)}"


def test_a_builtin_variant_that_contradicts_the_rules_before_it_is_refused_by_its_key(coin_game, tmp_path,
                                                                                   monkeypatch):
    """A game's own refusal (or a wrong value's TypeError) named by the variant's key, with the fix;
    and a game without named variants says so."""
    monkeypatch.setitem(GAME.variants, "biased", {"bias": 2.0})
    monkeypatch.setitem(GAME.variants, "odd", {"bias": "high"})
    for builtin, problem in (
        ("biased", "bias must be between 0 and 1, got 2.0"),
        ("odd", "variant 'odd': '<=' not supported between instances of 'int' and 'str'"),
    ):
        path = write(tmp_path, f'game = "coin"\nseed = 1\n[variants.x]\nbuiltin = ["bonus", "{builtin}"]\n')
        with pytest.raises(ScenarioError) as info:
            load_scenario(path)
        fix = f"drop {builtin!r} or the rule it contradicts"
        assert str(info.value) == f"{path}: variants.x.builtin: {problem}; {fix}"
    for name in list(GAME.variants):
        monkeypatch.delitem(GAME.variants, name)
    path = write(tmp_path, 'game = "coin"\nseed = 1\n[variants.x]\nbuiltin = ["loaded"]\n')
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    unknown = "unknown variant 'loaded' for coin; use one of: none"
    assert str(info.value) == f"{path}: variants.x.builtin: {unknown}"


def test_two_builtin_variants_that_set_one_rule_otherwise_are_refused(coin_game, tmp_path, monkeypatch):
    """The later would silently undo the earlier while the report still named both."""
    monkeypatch.setitem(GAME.variants, "fair", {"bias": 0.5})
    path = write(tmp_path, 'game = "coin"\nseed = 1\n[variants.x]\nbuiltin = ["loaded", "bonus", "fair"]\n')
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    conflict = "variant 'fair' sets bias = 0.5, but variant 'loaded' sets it to 0.7: give only one of them"
    fix = "or set that rule in the variant's overrides"
    assert str(info.value) == f"{path}: variants.x.builtin: {conflict}; {fix}"
    text = 'game = "coin"\nseed = 1\n[variants.x]\nbuiltin = "loaded"\noverrides = { bias = 0.5 }\n'
    path = write(tmp_path, text)
    assert load_scenario(path).variants[0].rules.bias == 0.5  # overrides refine a built-in variant


def test_two_sides_playing_best_are_refused_in_a_scenario_with_its_key(tmp_path):
    """War for Arrakis: best play is one side's; both builtin variants at once name the second."""
    text = ('game = "war-for-arrakis"\nseed = 1\n[setup]\nattacker = "3 regular"\ndefender = "2 regular"\n'
            '[variants.both]\nbuiltin = ["best_play", "defender_best_play"]\n')
    path = write(tmp_path, text)
    with pytest.raises(ScenarioError, match=r": variants\.both\.builtin: only one side plays best: .*; drop "
                       r"'defender_best_play' or the rule it contradicts$"):
        load_scenario(path)


def test_best_play_with_nothing_to_choose_is_refused_in_a_scenario_of_one_setup_not_in_a_grid(tmp_path):
    """A duel under best play is the fixed policy's odds: odds refuses it, and so does a scenario of
    that one setup (it ran, every number the official rules'); a grid keeps such a cell."""
    text = ('game = "dune1984"\nseed = 1\n[setup]\nattacker = 4\ndefender = 5\n[variants.bp]\n'
            'builtin = "best_play"\n')
    with pytest.raises(ScenarioError, match=r": variants\.bp: best play: the attacker fights with one"):
        load_scenario(write(tmp_path, text))
    swept = text.replace("attacker = 4\n", "").replace("[variants", "[grid]\nattacker = [4, 5]\n[variants")
    assert len(load_scenario(write(tmp_path, swept)).points) == 2
    with pytest.raises(ScenarioError, match=r": variants\.bp: best play: the attacker fights"):  # one value
        load_scenario(write(tmp_path, swept.replace("[4, 5]", "[4]")))


def test_every_field_of_a_scenario_is_the_file_s_own(coin_game, tmp_path):
    """What the file says is what the Scenario holds (a report prints each of them)."""
    text = (
        'title = "T"\ndescription = "D"\ngame = "coin"\nseed = 1\nprecision = 0.01\nmax_trials = 50000\n'
        '[setup]\ntags = ["red"]\n[rules]\nbonus = 2\n'
    )
    path = write(tmp_path, text)
    sc = load_scenario(path)
    assert (sc.title, sc.description, sc.path, sc.max_trials) == ("T", "D", path, 50_000)
    assert sc.setup == {"tags": ["red"]} and sc.rules == {"bonus": 2}
    plain = load_scenario(write(tmp_path, 'game = "coin"\nseed = 1\n', "plain.toml"))
    assert (plain.title, plain.description, plain.setup, plain.rules) == ("plain", "", {}, {})  # the defaults


def test_a_grid_s_memory_counts_points_variants_and_reported_metrics(coin_game, tmp_path, monkeypatch):
    """The estimate refused up front: points x (4 KiB + 2 KiB x variants x reported metrics)."""
    from montecarlo import scenarios

    text = 'game = "coin"\nseed = 1\nmetrics = ["win", "total"]\n[grid]\nflips = [1, 2, 3]\n'
    text += '[variants.a]\n[variants.b]\n'
    reported = 1 + 6  # win, and total=0..5
    need = 3 * (scenarios.POINT_BYTES + scenarios.RESULT_BYTES * 2 * reported)
    monkeypatch.setattr(memory, "available_bytes", lambda: need)
    load_scenario(write(tmp_path, text))  # exactly enough
    monkeypatch.setattr(memory, "available_bytes", lambda: need - 1)
    refused = rf": grid: a grid of 3 points would need about {need / 1024:.1f} KiB "
    with pytest.raises(ScenarioError, match=refused):
        load_scenario(write(tmp_path, text))


def test_a_scenario_given_as_data_is_named_scenario_and_its_errors_say_where_it_came_from(coin_game):
    """parse_scenario without a file: the default name and source (the Python API passes its own)."""
    assert parse_scenario({"game": "coin", "seed": 1}).name == "scenario"
    with pytest.raises(ScenarioError) as info:
        parse_scenario({"game": "coin"})
    assert str(info.value).startswith("<scenario>: seed: missing; ")


def test_missing_file_is_a_scenario_error(tmp_path):
    with pytest.raises(ScenarioError) as info:
        load_scenario(tmp_path / "nope.toml")
    assert str(info.value) == f"{tmp_path / 'nope.toml'}: no such scenario file; check the path"
    with pytest.raises(ScenarioError) as info:
        load_scenario(tmp_path)
    assert str(info.value) == f"{tmp_path}: is a directory; give the path of a .toml scenario file"


def test_a_grid_too_large_for_memory_is_refused_before_its_points_are_built(coin_game, tmp_path, monkeypatch):
    text = 'game = "coin"\nseed = 1\n[grid]\nflips = [1, 2, 3, 4]\nneed = [1, 2, 3, 4, 5]\n'
    path = write(tmp_path, text, "big.toml")
    monkeypatch.setattr(memory, "available_bytes", lambda: 1000)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert re.fullmatch(
        rf"{re.escape(str(path))}: grid: a grid of 20 points would need about [\d.]+ KiB of memory; "
        r"1000 B are available: split the grid into several scenarios",
        str(info.value),
    ), str(info.value)
    monkeypatch.setattr(memory, "available_bytes", lambda: None)  # unknown: the grid is built
    assert len(load_scenario(path).points) == 20


def test_a_plain_variant_is_described_as_the_official_rules_with_the_scenarios_own(coin_game):
    plain = {"game": "coin", "seed": 1, "variants": {"official": {}, "x": {"overrides": {"bonus": 1}}}}
    assert [v.description for v in parse_scenario(plain).variants] == ["the official rules", "bonus = 1"]
    ruled = parse_scenario({**plain, "rules": {"bias": 0.6}, "grid": {"flips": [1, 2]},
                            "plots": [{"kind": "lines", "x": "flips", "title": "Mine"}]})
    assert [v.description for v in ruled.variants] == ["the official rules with [rules]", "bonus = 1"]
    alone = {"game": "coin", "seed": 1}  # no [variants]: the one rule set says so too
    assert [v.description for v in parse_scenario(alone).variants] == ["the official rules"]
    ruled_alone = parse_scenario({**alone, "rules": {"bias": 0.6}})
    assert [(v.name, v.description) for v in ruled_alone.variants] == [
        ("official", "the official rules with [rules]")
    ]
    assert ruled.plots[0].title == "Mine"  # a plot's own title, as given
    bars = {"kind": "bars", "where": {"flips": 2}}
    where = parse_scenario({**plain, "grid": {"flips": [1, 2]}, "plots": [bars]})
    assert where.plots[0].where == {"flips": 2}  # and the setups it keeps
    both = {**plain, "variants": {"y": {"builtin": ["loaded"], "overrides": {"bonus": 2, "bias": 0.6}}}}
    assert parse_scenario(both).variants[0].description == "heads 70% of the time, bonus = 2, bias = 0.6"


def test_scenarios_are_found_in_a_directory_only(tmp_path):
    with pytest.raises(ScenarioError) as info:
        find_scenarios(tmp_path / "nope")
    assert str(info.value) == f"{tmp_path / 'nope'}: not a directory of scenarios"
    long = tmp_path / ("x" * 300)  # a name longer than the file system takes
    with pytest.raises(InputError) as info:
        find_scenarios(long)
    assert str(info.value) == f"{long}: cannot be used (File name too long); give the folder of the scenarios"
    (tmp_path / "mine").mkdir()
    for name in ("top.toml", "mine/inner.toml", "mine/notes.txt", "mine/LOUD.TOML"):
        (tmp_path / name).write_text('game = "coin"\nseed = 1\n')
    # a file's suffix in any case, as `montecarlo report LOUD.TOML` reads it
    assert find_scenarios(tmp_path) == [
        tmp_path / "mine" / "LOUD.TOML", tmp_path / "mine" / "inner.toml", tmp_path / "top.toml"
    ]
    (tmp_path / "mine" / "LOUD.TOML").unlink()
    # a report written among the scenarios keeps a copy of its scenario beside its report.json:
    # not a scenario of its own (its name would clash with the one it copies)
    (tmp_path / "a-report").mkdir()
    (tmp_path / "a-report" / "scenario.toml").write_text('game = "coin"\nseed = 1\n')
    (tmp_path / "a-report" / "report.json").write_text("{}")
    (tmp_path / "not-a-report").mkdir()
    (tmp_path / "not-a-report" / "scenario.toml").write_text('game = "coin"\nseed = 1\n')
    assert find_scenarios(tmp_path) == [
        tmp_path / "mine" / "inner.toml", tmp_path / "not-a-report" / "scenario.toml", tmp_path / "top.toml"
    ]


def test_an_unknown_variant_names_the_flag_it_came_from_and_the_known_ones(coin_game):
    variants = {"fair": {}, "x": {"builtin": "loaded"}}
    sc = parse_scenario({"game": "coin", "seed": 1, "name": "ties", "variants": variants})
    assert sc.variant("x").name == "x"
    with pytest.raises(InputError) as info:
        sc.variant("nope")
    assert str(info.value) == "unknown variant 'nope' in scenario ties; known: fair, x"
    with pytest.raises(InputError) as info:
        sc.variant("nope", "--baseline")
    assert str(info.value) == "--baseline: unknown variant 'nope' in scenario ties; known: fair, x"


# ---------------------------------------------------------------- running


def assert_same_numbers(one, other) -> None:
    """Two runs of one scenario give the same estimates and differences, setup by setup."""
    for a, b in zip(one.comparisons, other.comparisons, strict=True):
        assert [x.metrics for x in a.answers] == [x.metrics for x in b.answers]
        assert a.differences == b.differences


def test_run_matches_exact_values_and_is_independent_of_jobs(coin_game, tmp_path):
    """Two workers give the numbers of one: threads here (in one process, so that mutation runs
    it too), processes in the next test."""
    sc = load_scenario(write(tmp_path, VALID))
    serial = run_scenario(sc, jobs=1)
    assert [v.name for v in serial.variants] == ["official", "same", "loaded"] and len(
        serial.comparisons
    ) == 6
    for point, comparison in zip(sc.points, serial.comparisons):
        assert comparison.setup == point.setup and comparison.trials == 4000
        for answer in comparison.answers:
            for m in answer.metrics.values():
                assert m.exact is not None
                assert abs(m.estimate - m.exact) <= 4.5 * max(m.se, 1e-12), (point.values, answer.variants, m)
    parallel = run_scenario(sc, jobs=2, backend="threading")
    assert parallel.jobs == 2
    assert_same_numbers(serial, parallel)


@pytest.mark.processes
def test_a_run_on_worker_processes_has_the_numbers_of_one_process(coin_game, tmp_path):
    sc = load_scenario(write(tmp_path, VALID))
    serial, parallel = run_scenario(sc, jobs=1), run_scenario(sc, jobs=2)
    assert parallel.jobs == 2
    assert_same_numbers(serial, parallel)


def test_a_grid_point_reproduces_a_single_run(coin_game, tmp_path):
    """Same seed and trials: a scenario cell equals `ask` on that setup (the CLI's path)."""
    from montecarlo.analysis import RunSettings, ask

    sc = load_scenario(write(tmp_path, VALID))
    cell = run_scenario(sc, jobs=1).comparisons[3].answers[2]  # flips=2, need=2, loaded
    alone = ask(
        "coin",
        None,
        {"flips": 2, "need": 2, "tags": ["red"]},
        variants=["loaded"],
        settings=RunSettings(trials=4000, seed=7),
    )
    assert cell.metrics == alone.metrics


def test_baseline_reorders_arms_without_changing_estimates(coin_game, tmp_path):
    sc = load_scenario(write(tmp_path, VALID))
    a, b = run_scenario(sc, jobs=1), run_scenario(sc, jobs=1, baseline="loaded")
    assert [v.name for v in b.variants] == ["loaded", "official", "same"]
    assert b.comparisons[0].answers[0].metrics == a.comparisons[0].answers[2].metrics
    d = b.comparisons[0].differences[0]["win"]  # official - loaded: the fair coin wins less
    assert d.ci_high < 0


def test_precision_target_adds_trials_until_met(coin_game, tmp_path):
    text = (
        'game = "coin"\nseed = 5\nprecision = 0.02\ntrials = 500\nmetrics = ["win"]\n[grid]\nflips = [1, 4]\n'
    )
    result = run_scenario(load_scenario(write(tmp_path, text)), jobs=1)
    for c in result.comparisons:
        win = c.answers[0].metrics["win"]
        assert (win.ci_high - win.ci_low) / 2 <= 0.02 and c.trials % 500 == 0


def test_precision_target_is_met_by_every_variant(coin_game, tmp_path):
    """The stop waits for the widest arm: the baseline (bias 0.05) is precise long before the
    fair coin of the other variant."""
    text = (
        'game = "coin"\nseed = 5\nprecision = 0.02\ntrials = 500\nmetrics = ["win"]\n'
        "[variants.rare]\noverrides = { bias = 0.05 }\n[variants.fair]\noverrides = { bias = 0.5 }\n"
    )
    result = run_scenario(load_scenario(write(tmp_path, text)), jobs=1)
    (c,) = result.comparisons
    assert [a.precision_reached() for a in c.answers] == [True, True]
    assert c.answers[1].widest_half_width() > c.answers[0].widest_half_width()


def test_widest_half_width_is_over_the_probabilities_only(coin_game):
    """What the precision target bounds: the widest 95% half-width of the probabilities (a mean
    has no target); an answer without probabilities is precise at once, one without a target
    says nothing (None)."""
    from montecarlo.analysis import RunSettings, ask

    settings = RunSettings(trials=2_000, seed=3, precision=0.05)
    answer = ask("coin", None, {"flips": 2}, settings=settings)
    probabilities = [m for m in answer.metrics.values() if m.kind != "mean"]
    assert answer.widest_half_width() == max((m.ci_high - m.ci_low) / 2 for m in probabilities)
    assert answer.precision_reached() is (answer.widest_half_width() <= 0.05)
    means_only = dataclasses.replace(answer, metrics={"heads": answer.metrics["heads"]})
    assert means_only.widest_half_width() == 0.0 and means_only.precision_reached() is True
    no_target = dataclasses.replace(answer, precision=None)
    assert no_target.precision_reached() is None


def test_house_rule_sword_reaches_its_precision_in_every_variant():
    """`compare scenarios/dune1984/house-rule-sword.toml` on two of its setups (a coarser
    target, to stay quick): the official Sword's odds are the most lopsided, so the house-rule
    arms are the ones that need the trials."""
    text = (ROOT / "scenarios/dune1984/house-rule-sword.toml").read_text()
    text = text.replace("precision = 0.005", "precision = 0.015").replace("trials = 20000", "trials = 2000")
    text = text.replace("attacker = [1, 2, 3, 4, 5, 6]", "attacker = [4]")
    text = text.replace("defender = [1, 2, 3, 4, 5, 6]", "defender = [4, 5]")
    sc = parse_scenario(tomllib.loads(text), "house-rule-sword.toml")
    result = run_scenario(sc, jobs=1)
    for c in result.comparisons:
        widths = [a.widest_half_width() for a in c.answers]
        assert all(a.precision_reached() for a in c.answers), (c.setup, widths)
        assert max(widths) > widths[0]  # a variant, not the baseline, was the widest


def test_a_report_draws_on_the_runs_local_workers_and_on_none_after_a_cluster_run(coin_game, tmp_path):
    from montecarlo.scenarios import local_workers

    small = load_scenario(write(tmp_path, VALID))  # 6 points x 3 variants x 4,000 trials: one core
    big = dataclasses.replace(small, trials=100_000)  # 1.8 M trials: every core
    cores = os.cpu_count() or 1
    assert [local_workers(small, None), local_workers(big, None)] == [1, cores]
    assert [local_workers(small, jobs) for jobs in (2, -1, 1)] == [min(2, cores), cores, 1]
    assert local_workers(big, None, "dask") == local_workers(small, 2, "dask") == 1


def test_a_precision_run_counts_four_times_its_first_batch_when_it_chooses_its_workers(
    coin_game, tmp_path, monkeypatch
):
    """A precision run usually goes on past its first batch: 6 points x 3 variants x 20,000 trials
    is 360,000 trials, one core; with a precision target it counts as 1.44 M, every core."""
    from montecarlo.scenarios import scenario_workers

    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    first_batch = dataclasses.replace(load_scenario(write(tmp_path, VALID)), trials=20_000)
    assert scenario_workers(first_batch, None) == 1
    assert scenario_workers(dataclasses.replace(first_batch, precision=0.01), None) == 4


def test_every_core_from_exactly_the_work_threshold_on(coin_game, tmp_path, monkeypatch):
    """Work = points x variants x trials (x 4 with a precision target): every core from
    AUTO_PARALLEL_WORK on, one below it; -1 is every core, and a machine whose cores Python
    cannot count has one."""
    from montecarlo import scenarios

    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    monkeypatch.setattr(scenarios, "AUTO_PARALLEL_WORK", 18_000)
    valid = load_scenario(write(tmp_path, VALID))  # 6 points x 3 variants
    sized = {trials: dataclasses.replace(valid, trials=trials) for trials in (249, 250, 999, 1_000)}
    assert [scenarios.scenario_workers(sized[t], None) for t in (999, 1_000)] == [1, 4]
    precise = {t: dataclasses.replace(sized[t], precision=0.01) for t in (249, 250)}
    assert [scenarios.scenario_workers(precise[t], None) for t in (249, 250)] == [1, 4]
    assert scenarios.scenario_workers(valid, -1) == 4 and scenarios.scenario_workers(valid, 9) == 4
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert scenarios.scenario_workers(valid, -1) == 1


def test_workers_started_early_are_the_ones_the_run_will_use(coin_game, tmp_path, monkeypatch):
    """A grid of small setups is big as a whole: its run uses every core, so the workers a
    command starts early must count the grid, not one setup's trials."""
    from montecarlo.engine import runner
    from montecarlo.scenarios import start_scenario_workers

    started = []
    monkeypatch.setattr(runner, "start_workers", lambda n, backend, modules: started.append((n, backend)))
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    small = load_scenario(write(tmp_path, VALID))
    big = dataclasses.replace(small, trials=100_000)  # 1.8 M trials in all, 100,000 a setup
    start_scenario_workers(big)
    start_scenario_workers(small, jobs=3, backend="threading")
    start_scenario_workers(small)
    assert started == [(4, "loky"), (3, "threading"), (1, "loky")]


def test_a_run_hands_its_workers_and_backend_to_the_runner(coin_game, tmp_path, monkeypatch):
    """The numbers cannot tell (they are the same on any workers): the runner is asked for them."""
    from montecarlo.engine import runner

    asked, started, real, real_start = [], [], runner._execute, runner.start_workers

    def execute(points, tasks, seed, jobs, backend, auto):
        asked.append((jobs, backend))
        return real(points, tasks, seed, jobs, backend, auto)

    def start(jobs, backend, modules=()):
        started.append((jobs, backend))
        return real_start(jobs, backend, modules)

    monkeypatch.setattr(runner, "_execute", execute)
    monkeypatch.setattr(runner, "start_workers", start)
    sc = load_scenario(write(tmp_path, VALID))
    run_scenario(sc, jobs=2, backend="threading")
    assert asked == [(2, "threading")]
    assert started == [(2, "threading")] * 2  # early (the command's start-up), then by the runner


def test_a_measured_start_leaves_the_workers_to_the_run_and_records_what_it_used(
    coin_game, tmp_path, monkeypatch
):
    """``measured_start`` with the default jobs: no workers up front, the runner told ``auto``
    (it starts them once the run proves long enough), and the result's jobs what the run used:
    1 in one process, every core with a pool started. Given jobs, or without it, as before.
    Every chunk runs here: the pool is a stand-in that runs its tasks in turn."""
    import joblib

    from montecarlo import scenarios
    from montecarlo.engine import runner

    class InTurn:
        def __init__(self, n_jobs, backend=None, return_as="list"):
            pass

        def __call__(self, tasks):
            return (function(*args, **kwargs) for function, args, kwargs in tasks)

    monkeypatch.setattr(joblib, "Parallel", InTurn)
    monkeypatch.setattr(runner, "start_workers", lambda *a, **k: None)
    told, started = [], []
    real = runner.run_grid

    def run_grid(*args, **kwargs):
        told.append((kwargs["jobs"], kwargs["auto"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "run_grid", run_grid)
    monkeypatch.setattr(scenarios, "start_scenario_workers", lambda *a, **k: started.append(a))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(runner, "_starting", None)  # as in a new process: no pool yet
    monkeypatch.setattr(runner, "AUTO_PARALLEL_SECONDS", 1e9)  # never worth them, however slow the machine
    big = dataclasses.replace(load_scenario(write(tmp_path, VALID)), trials=100_000)  # 1.8 M trials in all
    assert run_scenario(big, measured_start=True).jobs == 1
    assert (told, started) == ([(2, True)], [])
    before = threading.Thread()  # a pool this process started before (its start over)
    before.start()
    before.join()
    monkeypatch.setattr(runner, "_starting", before)
    assert run_scenario(big, measured_start=True).jobs == 2
    told.clear()
    assert run_scenario(big, jobs=1, measured_start=True).jobs == 1
    assert run_scenario(big, measured_start=True, backend="threading").jobs == 2
    assert run_scenario(big).jobs == 2
    assert told == [(1, False), (2, False), (2, False)]
    assert [a[1:] for a in started] == [(1, "loky"), (None, "threading"), (None, "loky")]


def test_the_python_api_shows_a_bar_only_when_asked(coin_game, tmp_path, monkeypatch):
    """Even on a terminal: a script's run is quiet unless it passes progress=True."""
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    sc = load_scenario(write(tmp_path, VALID))
    run_scenario(sc)
    assert screen.getvalue() == ""
    run_scenario(sc, progress=True)
    assert sc.name in screen.getvalue()  # the bar is labelled with the scenario's name


def test_progress_counts_the_trials_of_the_whole_grid(coin_game, tmp_path):
    """One bar and one time estimate for the grid: every point's trials from the first call."""
    sc = load_scenario(write(tmp_path, VALID))
    calls = []
    run_scenario(sc, jobs=1, progress=lambda done, total: calls.append((done, total)))
    total = len(sc.points) * sc.trials
    assert calls[0] == (0, total) and calls[-1] == (total, total) and len(calls) == 1 + len(sc.points)


# ---------------------------------------------------------------- shipped scenarios

SHIPPED = find_scenarios(ROOT / "scenarios")  # every scenario file (game definitions are not scenarios)


@pytest.mark.parametrize("path", SHIPPED, ids=[str(p.relative_to(ROOT)) for p in SHIPPED])
def test_every_shipped_scenario_loads_and_builds_every_grid_point(path):
    sc = load_scenario(path)  # builds every grid point's setup and every variant's rules
    assert sc.points and sc.variants
    # its report folder: its name key, else its file's name (a focus once renamed three of them)
    assert sc.name == tomllib.loads(path.read_text(encoding="utf-8")).get("name", path.stem)


def test_shipped_scenario_names_are_unique_across_games():
    """A report folder is named after its scenario, whatever the game (docs/adding-a-game.md)."""
    assert name_clashes([load_scenario(p) for p in SHIPPED]) == []


def test_a_name_clash_between_games_is_one_line_with_the_fix(coin_game, tmp_path):
    first = load_scenario(write(tmp_path, 'game = "coin"\nseed = 1\n', "duel-matrix.toml"))
    (tmp_path / "other").mkdir()
    second = load_scenario(write(tmp_path / "other", 'game = "coin"\nseed = 1\n', "duel-matrix.toml"))
    assert name_clashes([first, second]) == [
        f"{second.path}: name: 'duel-matrix' is already the name of {first.path} (reports/<name>/ is "
        'shared by every game); set name = "coin-duel-matrix" or rename the file'
    ]


def test_dune_ties_favour_defender_lowers_attacker_win():
    """On the real duel: a no-op override changes nothing; ties_favour_defender costs the attacker."""
    from montecarlo.reporting.tables import comparison_table

    if "duel" not in registry.get_game("dune1984").questions:
        pytest.skip("dune1984 duel is not implemented yet")
    sc = parse_scenario(
        {
            "game": "dune1984",
            "question": "duel",
            "seed": 3,
            "trials": 20_000,
            "metrics": ["attacker_win"],
            "grid": {"attacker": [2, 4], "defender": [3], "attacker_equipment": [[], ["sword"]]},
            "variants": {
                "official": {},
                "same": {"overrides": {"ties": "reroll"}},
                "ties_favour_defender": {"builtin": "ties_favour_defender"},
            },
        }
    )
    comp = comparison_table(run_scenario(sc, jobs=1))
    same = comp.filter(comp["variant"] == "same")
    assert (same["difference"] == 0).all() and not same["significant"].any()
    ties = comp.filter(comp["variant"] == "ties_favour_defender")
    assert ties["significant"].all() and (ties["ci_high"] < 0).all() and (ties["exact_difference"] < 0).all()
    assert ((ties["difference"] - ties["exact_difference"]).abs() <= 4.5 * ties["se"]).all()


def test_dask_backend_gives_the_same_scenario_results(tmp_path):
    """The same scenario on the dask backend (a local in-process cluster) gives identical numbers."""
    pytest.importorskip("dask.distributed")
    path = tmp_path / "duel.toml"
    path.write_text(
        'game = "dune1984"\nseed = 3\ntrials = 5000\nmetrics = ["attacker_win"]\n'
        "[grid]\nattacker = [2, 4]\ndefender = [3]\n"
        '[variants.official]\n[variants.defender_ties]\nbuiltin = "ties_favour_defender"\n'
    )
    sc = load_scenario(path)
    local = run_scenario(sc, jobs=1)
    dask = run_scenario(sc, backend="dask")
    assert_same_numbers(local, dask)


def test_a_run_records_its_wall_seconds_and_its_date_in_utc(monkeypatch):
    import time
    from datetime import datetime, timedelta, timezone

    monkeypatch.setenv("TZ", "Asia/Tokyo")  # nine hours from UTC: a local date would show
    time.tzset()
    try:
        started = time.perf_counter()
        result = run_scenario(parse_scenario({"game": GAME, "seed": 1, "trials": 100}), jobs=1)
        took = time.perf_counter() - started
        now = datetime.now(timezone.utc)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert 0 < result.seconds <= took
    recorded = datetime.strptime(result.date, "%Y-%m-%d %H:%M:%S UTC").replace(tzinfo=timezone.utc)
    assert timedelta(0) <= now - recorded < timedelta(minutes=1)


def test_a_battle_file_given_as_a_scenario_says_what_it_is(tmp_path):
    """compare/report of a battle file said 'format: unknown key; use one of: name, ...'."""
    battle = ROOT / "scenarios" / "games" / "risk.toml"
    with pytest.raises(ScenarioError) as refused:
        load_scenario(battle)
    assert str(refused.value) == (
        f"{battle}: a battle file (it has format = 'dice-battle/1'), not a scenario: ask it with "
        f"montecarlo odds {battle}, or give its path as a scenario's game (docs/scenarios.md)"
    )


def test_too_few_trials_to_compare_variants():
    """One trial a setup cannot test a difference; two can; one variant has nothing to compare."""
    from montecarlo.scenarios import too_few_trials

    variants = {"fair": {}, "x": {"builtin": "loaded"}}
    two = parse_scenario({"game": GAME, "seed": 1, "trials": 1, "variants": variants})
    assert too_few_trials(two) == (
        "trials = 1: comparing variants needs at least 2 trials a setup (one trial has no spread to test a "
        "difference against)"
    )
    with pytest.raises(InputError) as refused:
        run_scenario(two, jobs=1)
    assert str(refused.value) == too_few_trials(two)
    assert too_few_trials(dataclasses.replace(two, trials=2)) is None
    assert too_few_trials(parse_scenario({"game": GAME, "seed": 1, "trials": 1})) is None


def test_a_scenario_with_a_stray_format_key_is_a_scenario(tmp_path):
    """Only a file with format and no game is taken for a battle file: a scenario that names its
    game keeps the usual message for a key it does not know."""
    path = tmp_path / "odd.toml"
    path.write_text(f'game = "{GAME}"\nseed = 1\nformat = "dice-battle/1"\n')
    with pytest.raises(ScenarioError, match=r"odd\.toml: format: unknown key; use one of: name, "):
        load_scenario(path)


def test_a_scenario_runs_the_question_it_names(tmp_path):
    """A scenario of a game's second question runs that question, not the default one."""
    from montecarlo.analysis import RunSettings, ask

    path = tmp_path / "guile.toml"
    path.write_text('game = "dune1984"\nquestion = "guile"\nseed = 4\ntrials = 3000\n'
                    '[setup]\nguile = 3\n[variants.official]\n[variants.d8]\nbuiltin = "guile_check_d8"\n')
    result = run_scenario(load_scenario(path), jobs=1)
    alone = ask("dune1984", "guile", {"guile": 3}, settings=RunSettings(trials=3000, seed=4, jobs=1))
    official = result.comparisons[0].answers[0]
    assert official.question == "guile" and "survive" in official.metrics
    assert official.metrics["survive"].estimate == alone.metrics["survive"].estimate


def test_workers_started_early_import_the_scenario_s_game_and_bad_jobs_are_refused(monkeypatch):
    """A command starts a scenario's workers as soon as it is read (issue 24): each is asked to
    import the game's kernel module meanwhile, and a job count the run would refuse is refused
    there first, whatever the size of the run."""
    from montecarlo.engine import runner
    from montecarlo.scenarios import scenario_workers, start_scenario_workers

    sc = parse_scenario({"game": GAME, "seed": 3, "grid": {"flips": [1, 2]}})
    started = []
    monkeypatch.setattr(runner, "start_workers", lambda *args: started.append(args))
    start_scenario_workers(sc, 2)
    assert started == [(min(2, os.cpu_count() or 1), "loky", [sc.question.simulate.__module__])]
    # a chain question's kernel is the engine's: the game's own module comes from its rules
    started.clear()
    start_scenario_workers(load_scenario(ROOT / "scenarios/war_for_arrakis/battle-matrix.toml"), 2)
    assert started[0][2] == ["montecarlo.engine.chain_question", "montecarlo.games.war_for_arrakis.rules"]
    for jobs in (0, -2):
        with pytest.raises(InputError, match="jobs"):
            scenario_workers(sc, jobs)


def test_every_grid_point_under_every_variant_is_checked_before_any_trial(tmp_path):
    """A variant whose pools a battle file cannot roll at one grid point failed after 16-33 s of
    the grid's run, when the run reached that point; it is now refused while the file is read."""
    risk = (ROOT / "scenarios" / "games" / "risk.toml").read_text()
    battle = tmp_path / "risk.toml"  # attacking armies up to 2,000, each rolling up to attack_dice
    battle.write_text(risk.replace("max = 100", "max = 2000"))
    data = {
        "game": str(battle), "seed": 1, "trials": 3_000_000,
        "metrics": ["attacker_win"], "grid": {"attackers": [2, 3, 1500], "defenders": [1, 2]},
        "variants": {"official": {}, "many": {"overrides": {"attack_dice": 1500}}},
    }
    said = (r"^late.toml: variants.many, grid point attackers=1500, defenders=1: "
            r".*risk.toml: under the rules attack_dice=1500 .*gives 1,500 dice .* at most 1,000 dice")
    with pytest.raises(ScenarioError, match=said):
        parse_scenario(data, source="late.toml")
    parse_scenario({**data, "grid": {"attackers": [2, 3], "defenders": [1, 2]}}, source="fine.toml")


@pytest.mark.parametrize("name", ["", "  ", "a\nb", "tab\there"])
def test_a_variant_name_is_one_line_of_printable_text(coin_game, name):
    """A newline in a name ended up inside the CSV cells of every row of that variant."""
    data = {"game": "coin", "seed": 1, "variants": {"official": {}, name: {}}}
    with pytest.raises(ScenarioError, match=r"^v.toml: variants: a variant's name must be one line of"):
        parse_scenario(data, source="v.toml")


def test_a_point_the_scenarios_own_rules_cannot_play_is_named_without_a_variant(tmp_path):
    """With no [variants] the message named 'variants.official', which the file does not have, and
    it blamed a variant for a point that the rules without it cannot play either."""
    risk = (ROOT / "scenarios" / "games" / "risk.toml").read_text()
    battle = tmp_path / "many.toml"
    battle.write_text(risk.replace('d6 = "min(attack_dice, attackers)"', 'd6 = "attackers * 25"'))
    data = {"game": str(battle), "seed": 1, "metrics": ["attacker_win"],
            "grid": {"attackers": [3, 45], "defenders": [1]}}
    said = r"^s.toml: grid point attackers=45, defenders=1: .*many.toml: round.roll.attacker.d6: gives 1,125"
    with pytest.raises(ScenarioError, match=said):
        parse_scenario(data, source="s.toml")
    alone = {**data, "grid": {}, "setup": {"attackers": 45, "defenders": 1}}
    with pytest.raises(ScenarioError, match=r"^s.toml: setup: .*many.toml: round.roll.attacker.d6: gives 1,"):
        parse_scenario(alone, source="s.toml")  # no grid: the setup is named
    ties = {**data, "variants": {"ties": {"overrides": {"ties": "attacker"}}}}
    with pytest.raises(ScenarioError, match=r"^s.toml: grid point attackers=45, defenders=1: .*under the"):
        parse_scenario(ties, source="s.toml")


def test_a_chunk_too_large_for_memory_names_the_file(tmp_path):
    """The runner's refusal ("a chunk of ... trials would need about 12 TiB") named no file."""
    path = tmp_path / "huge.toml"
    path.write_text('game = "dune1984"\nseed = 1\ntrials = 100_000_000_000\nchunk_size = 50_000_000_000\n'
                    '[setup]\nattacker = 4\ndefender = 5\n', encoding="utf-8")
    with pytest.raises(InputError) as refused:
        run_scenario(load_scenario(path), jobs=1)
    assert str(refused.value).startswith(
        f"{path}: a chunk of 50,000,000,000 trials would need about "
    ) and str(refused.value).endswith(": use a smaller chunk size")
    data = parse_scenario({"game": "dune1984", "seed": 1, "trials": 10**11, "chunk_size": 5 * 10**10,
                           "setup": {"attacker": 4, "defender": 5}})
    with pytest.raises(InputError, match="^a chunk of 50,000,000,000 trials"):
        run_scenario(data, jobs=1)  # scenario data: no file to name


def test_a_deck_file_a_scenario_names_is_found_beside_the_scenario_wherever_it_runs(tmp_path, monkeypatch):
    """As the scenario's ``game`` file is: a deck named from the scenario's folder was looked for
    in the current one, so the scenario (and report-all) worked from one folder alone."""
    deck = (ROOT / "montecarlo/games/dustrunners/data/illustrative-deck-12.toml").read_text()
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "mine.toml").write_text(deck)
    (tmp_path / "scenarios" / "dustrunners").mkdir(parents=True)
    file = tmp_path / "scenarios" / "dustrunners" / "mine.toml"
    file.write_text(
        'name = "mine"\ngame = "dustrunners"\nquestion = "combat"\nseed = 1\ntrials = 1000\n'
        '[setup]\nenemy = "spybot"\nvehicle = "scout"\n'
        '[grid]\ndeck = ["../../decks/mine.toml", "illustrative-12"]\n'
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    sc = load_scenario(file)
    assert [p.values["deck"] for p in sc.points] == ["../../decks/mine.toml", "illustrative-12"]  # the labels
    assert sc.points[0].setup.deck.cards == sc.points[1].setup.deck.cards
    assert Path(sc.points[0].setup.deck.file).resolve() == tmp_path / "decks" / "mine.toml"


@pytest.mark.parametrize("stem, fitting", [
    ("my duel", "my-duel"), ("  My  Duel!", "My-Duel"), ("X duel", "X-duel"), ("__", "scenario"),
    ("index.html", "scenario"), ("ünï çødé", "uni-cde"), ("éé", "ee"), ("戦い", "scenario"),
])
def test_a_file_name_that_cannot_name_the_report_folder_is_made_to_fit(tmp_path, stem, fitting):
    """The file's name stands in for a missing ``name`` key: "my duel.toml" was refused, even by
    a compare that writes no folder; its report folder is now my-duel. A name the file sets
    must fit as it is."""
    file = tmp_path / f"{stem}.toml"
    file.write_text('game = "dune1984"\nseed = 1\n[setup]\nattacker = 4\ndefender = 5\n')
    assert load_scenario(file).name == fitting
    file.write_text(f'name = "{stem}"\n' + file.read_text())
    with pytest.raises(ScenarioError, match=r": name: expected letters, digits, '\.', '_' or '-'"):
        load_scenario(file)


@pytest.mark.parametrize("grid, said", [
    ('attacker = ["Paul Atreides", "paul"]\ndefender = [3]', "grid.attacker: 'Paul Atreides' and 'paul'"),
    ('attacker = [4]\ndefender = [3]\nattacker_equipment = ["sword", "Sword "]',
     "grid.attacker_equipment: 'sword' and 'Sword '"),
])
def test_two_grid_values_that_make_one_setup_are_refused(tmp_path, grid, said):
    """Both ran the same setup twice, under two labels."""
    file = tmp_path / "dup.toml"
    file.write_text(f'game = "dune1984"\nseed = 1\n[grid]\n{grid}\n')
    with pytest.raises(ScenarioError) as err:
        load_scenario(file)
    assert str(err.value) == f"{file}: {said} make the same setup; keep one"


def test_a_deck_from_the_home_folder_or_only_from_the_current_one_is_found_as_before(tmp_path, monkeypatch):
    """'~/decks/mine.toml' was joined to the scenario's folder ('sc/~/decks/...'); a deck named
    from the folder the command runs in, as scenarios written before named theirs, is still found
    when nothing of that name is beside the scenario."""
    deck = (ROOT / "montecarlo/games/dustrunners/data/illustrative-deck-12.toml").read_text()
    home = tmp_path / "home"
    (home / "decks").mkdir(parents=True)
    (home / "decks" / "mine.toml").write_text(deck)
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "work" / "decks").mkdir(parents=True)
    (tmp_path / "work" / "decks" / "ours.toml").write_text(deck)
    (tmp_path / "work" / "decks" / "twice.toml").write_text(deck)
    (tmp_path / "work" / "sc" / "decks").mkdir(parents=True)
    (tmp_path / "work" / "sc" / "decks" / "twice.toml").write_text(deck)
    file = tmp_path / "work" / "sc" / "both.toml"
    file.write_text(
        'name = "both"\ngame = "dustrunners"\nquestion = "combat"\nseed = 1\ntrials = 1000\n'
        '[setup]\nenemy = "spybot"\nvehicle = "scout"\n'
        '[grid]\ndeck = ["~/decks/mine.toml", "decks/ours.toml", "decks/twice.toml"]\n'
    )
    monkeypatch.chdir(tmp_path / "work")
    sc = load_scenario(file)
    assert [Path(p.setup.deck.file).resolve() for p in sc.points] == [
        home / "decks" / "mine.toml", tmp_path / "work" / "decks" / "ours.toml",
        tmp_path / "work" / "sc" / "decks" / "twice.toml",  # in both places: the one beside the scenario
    ]
