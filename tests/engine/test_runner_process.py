"""What a process sets up before its first chunk (runner._set_up_process): Ctrl-C is left to
the command's own process in a worker, and kept in the command's own process."""

import functools
import multiprocessing
import signal
import threading

import pytest

from montecarlo.engine import runner
from tests.engine.fake_kernels import METRICS, coin


def _one_chunk() -> tuple:
    return runner.run_task((functools.partial(coin, 0.5),), METRICS, 100, 1, 0)


def _first_chunk_then_sigint_handler(queue) -> None:
    _one_chunk()
    queue.put(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)


@pytest.mark.processes  # a real spawned process: the in-process tests below stand for it in mutation runs
def test_a_worker_process_leaves_ctrl_c_to_the_command(monkeypatch):
    # a fresh child, as loky starts one again mid-run: its SIGINT is Python's own until its first chunk
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_first_chunk_then_sigint_handler, args=(queue,))
    child.start()
    ignored = queue.get(timeout=60)
    child.join(timeout=60)
    assert ignored is True


def _a_fresh_process(monkeypatch, parent) -> None:
    """This process as one that has run no chunk yet, with ``parent`` as its parent process
    (mutmut runs the tests in a multiprocessing child)."""
    monkeypatch.setattr(runner, "_process_set_up", False)
    monkeypatch.setattr(multiprocessing, "parent_process", lambda: parent)


def _sigint_after_first_chunk(monkeypatch, parent) -> object:
    """SIGINT's handler after a fresh process's first chunk; the handler is Python's own before,
    whatever the test's runner set (mutmut's ignores Ctrl-C)."""
    _a_fresh_process(monkeypatch, parent)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever pytest's runner set
    try:
        _one_chunk()
        assert runner._process_set_up is True
        return signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, before)


def test_the_commands_own_process_keeps_ctrl_c(monkeypatch):
    assert _sigint_after_first_chunk(monkeypatch, parent=None) is signal.default_int_handler


def test_a_process_with_a_parent_is_a_worker_and_ignores_ctrl_c(monkeypatch):
    assert _sigint_after_first_chunk(monkeypatch, parent=object()) is signal.SIG_IGN


def test_a_worker_thread_leaves_signals_alone(monkeypatch):
    # only the main thread may set a handler (signal.signal raises elsewhere): a run in a thread
    # of a worker process leaves SIGINT as it is and runs its chunk
    _a_fresh_process(monkeypatch, parent=object())
    before, outcome = signal.getsignal(signal.SIGINT), []
    thread = threading.Thread(target=lambda: outcome.append(_one_chunk()))
    thread.start()
    thread.join(timeout=60)
    assert len(outcome) == 1 and signal.getsignal(signal.SIGINT) is before


@pytest.fixture
def unfrozen_heap():
    """The heap unfrozen for the test (under mutmut, tests/conftest.py freezes it), as it was after."""
    import gc

    was_frozen = gc.get_freeze_count() > 0
    gc.unfreeze()
    yield
    if was_frozen:
        gc.freeze()


def test_the_collector_leaves_the_objects_from_before_the_run_alone_and_gets_them_back(unfrozen_heap):
    """A run freezes the heap it starts with (the collector would walk a command's report
    modules again at every full collection) and unfreezes it at the end, even on an error."""
    import gc

    seen = []

    def counting(n, rng):
        seen.append(gc.get_freeze_count())
        return coin(0.5, n, rng)

    assert gc.get_freeze_count() == 0
    runner.run(counting, METRICS, trials=10, seed=1)
    assert seen and min(seen) > 0 and gc.get_freeze_count() == 0

    def failing(n, rng):
        raise ValueError("a kernel's own error")

    with pytest.raises(ValueError):
        runner.run(failing, METRICS, trials=10, seed=1)
    assert gc.get_freeze_count() == 0


def test_a_heap_frozen_before_the_run_stays_frozen(unfrozen_heap):
    import gc

    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        runner.run(functools.partial(coin, 0.5), METRICS, trials=10, seed=1)
        assert gc.get_freeze_count() > 0  # (a frozen object freed by its count leaves it)
    finally:
        gc.unfreeze()
