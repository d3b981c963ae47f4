"""What a process sets up before its first chunk (runner._set_up_process): Ctrl-C is left to
the command's own process in a worker, and kept in the command's own process."""

import functools
import multiprocessing
import signal

from montecarlo.engine import runner
from tests.engine.fake_kernels import METRICS, coin


def _first_chunk_then_sigint_handler(queue) -> None:
    runner.run_task((functools.partial(coin, 0.5),), METRICS, 100, 1, 0)
    queue.put(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)


def test_a_worker_process_leaves_ctrl_c_to_the_command(monkeypatch):
    # a fresh child, as loky starts one again mid-run: its SIGINT is Python's own until its first chunk
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_first_chunk_then_sigint_handler, args=(queue,))
    child.start()
    ignored = queue.get(timeout=60)
    child.join(timeout=60)
    assert ignored is True


def test_the_commands_own_process_keeps_ctrl_c(monkeypatch):
    monkeypatch.setattr(runner, "_process_set_up", False)
    before = signal.getsignal(signal.SIGINT)
    runner.run_task((functools.partial(coin, 0.5),), METRICS, 100, 1, 0)
    assert signal.getsignal(signal.SIGINT) is before is not signal.SIG_IGN
    assert runner._process_set_up is True
