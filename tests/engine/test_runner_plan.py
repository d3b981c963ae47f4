"""The runner's lazy chunk plan, its progress reports, a distribution tally whose support does not
start at 0, and the in-process path of a one-worker run (no joblib import)."""

import functools
import subprocess
import sys

import numpy as np
import pytest

from montecarlo.engine import runner
from montecarlo.engine.runner import ChunkPlan
from montecarlo.games.base import Metric
from tests.engine.fake_kernels import METRICS, coin


def test_chunk_plan_is_a_sequence_of_chunk_sizes():
    plan = ChunkPlan(300_000, 131_072)
    assert len(plan) == 3 and list(plan) == [131_072, 131_072, 37_856]
    assert (plan[0], plan[1], plan[2]) == (131_072, 131_072, 37_856)
    assert (plan[-1], plan[-3]) == (37_856, 131_072)
    assert plan[1:] == [131_072, 37_856] and plan[::2] == [131_072, 37_856] and plan[5:] == []
    for index in (3, -4):
        with pytest.raises(IndexError) as err:
            plan[index]
        assert str(err.value) == str(index)
    exact = ChunkPlan(262_144, 131_072)
    assert len(exact) == 2 and list(exact) == [131_072, 131_072] and exact[-1] == 131_072
    assert len(ChunkPlan(0, 10)) == 0 and list(ChunkPlan(0, 10)) == []
    assert len(ChunkPlan(1, 10)) == 1 and ChunkPlan(1, 10)[0] == 1


def test_progress_is_reported_before_the_first_chunk_and_after_each():
    calls = []
    runner.run(functools.partial(coin, 0.5), METRICS, 25, seed=1, chunk_size=10,
               progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 25), (10, 25), (20, 25), (25, 25)]


def test_progress_of_a_precision_run_follows_its_growing_target():
    calls = []
    result = runner.run(functools.partial(coin, 0.5), METRICS, 1_000, seed=2, chunk_size=1_000,
                        precision=0.02, progress=lambda done, total: calls.append((done, total)))
    assert calls[:2] == [(0, 1_000), (1_000, 1_000)]
    # then the new target, a whole number of chunks, and one report per chunk up to it
    target = calls[2][1]
    assert calls[2][0] == 1_000 and target % 1_000 == 0 and target > 1_000
    assert calls[3:] == [(done, target) for done in range(2_000, target + 1, 1_000)]
    assert result.trials == target


@pytest.mark.parametrize("broken", ["a point left unfinished", "rounds of no chunks"])
def test_a_plan_that_stops_giving_trials_is_an_error_not_an_endless_loop(monkeypatch, broken):
    """A broken planner (a mutant, a future edit) fails at its second round in a row with nothing to
    run, instead of spinning for ever; the fakes give up after 50 rounds, so that a runner without
    the check fails here at once too."""
    rounds = []

    def counted(result):
        def fake(*args):
            rounds.append(args)
            assert len(rounds) < 50, "the runner went on planning rounds with nothing to run"
            return result
        return fake

    if broken == "a point left unfinished":
        monkeypatch.setattr(runner, "_plan_more", counted(False))
    else:
        monkeypatch.setattr(runner, "ChunkPlan", counted([]))
    message = "^internal error: the run's planning stopped giving its points trials$"
    with pytest.raises(RuntimeError, match=message):
        runner.run(functools.partial(coin, 0.5), METRICS, 25, seed=1, chunk_size=10, precision=0.01)
    assert len(rounds) == 2  # planned twice, the second time for a round that again ran nothing


def test_distribution_support_need_not_start_at_zero():
    metric = Metric("rounds", "distribution", "rounds played", (2, 3, 4))
    values = np.array([2, 2, 3, 4, 4, 4, 9, 1])  # 9 and 1 lie outside the support: not counted
    sums, squares = runner.tally([metric], {"rounds": values}, len(values))
    assert sums.tolist() == [2, 1, 3] and squares.tolist() == [2, 1, 3]


def test_one_worker_runs_in_process_like_a_fresh_process():
    """`jobs=1` never imports joblib (start-up time of every CLI call), and a fresh process gives
    the tallies this one does."""
    here = runner.run(functools.partial(coin, 0.5), METRICS, 300, seed=1, chunk_size=100, jobs=1)
    code = (
        "import functools, sys\n"
        "from montecarlo.engine import runner\n"
        "from tests.engine.fake_kernels import METRICS, coin\n"
        "r = runner.run(functools.partial(coin, 0.5), METRICS, 300, seed=1, chunk_size=100, jobs=1)\n"
        "print('joblib' in sys.modules, r.totals.tolist())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"False {here.totals.tolist()}"
