"""Runs that cannot work are refused up front; a worker that dies ends the run in one line."""

import functools

import pytest

from montecarlo.engine import memory, runner
from montecarlo.errors import InputError, MonteCarloError
from tests.engine.fake_kernels import METRICS, coin, die

KERNEL = functools.partial(coin, 0.3)


def test_a_chunk_bigger_than_memory_is_refused_with_an_estimate(monkeypatch):
    monkeypatch.setattr(memory, "available_bytes", lambda: 2**29)  # 512 MiB free
    with pytest.raises(InputError, match=r"chunk of 100,000,000 trials would need about 4\.5 GiB") as info:
        runner.run(KERNEL, METRICS, 300_000_000, seed=1, chunk_size=100_000_000)
    assert "\n" not in str(info.value)
    # paired arms hold twice the values per arm: refused at a smaller chunk
    with pytest.raises(InputError, match="17.9 GiB"):
        runner.run([KERNEL, KERNEL], METRICS, 300_000_000, seed=1, chunk_size=100_000_000)
    # parallel workers each hold a chunk: 458 MiB fits once, not twice
    with pytest.raises(InputError, match="chunk of 10,000,000 trials would need about 915.5 MiB"):
        runner.run(KERNEL, METRICS, 100_000_000, seed=1, chunk_size=10_000_000, jobs=2)
    assert runner.run(KERNEL, METRICS, 1_000, seed=1, chunk_size=500).trials == 1_000


@pytest.mark.processes
def test_a_worker_that_dies_is_one_line():
    # the pool started first: while workers start, the first chunks run in this process, and
    # ``die`` would end the test run itself (seen under xdist when no earlier test had started it)
    runner.start_workers(2)
    runner.wait_for_workers()
    with pytest.raises(MonteCarloError, match="worker process died") as info:
        runner.run(die, METRICS, 4_000, seed=1, chunk_size=1_000, jobs=2)
    assert "\n" not in str(info.value) and not isinstance(info.value, InputError)
    # the pool recovers: the next run works
    assert runner.run(KERNEL, METRICS, 4_000, seed=1, chunk_size=1_000, jobs=2).trials == 4_000
