"""mutmut's fork server inside one pytest session: a mutant's child runs the items it collected.

mutmut (3.8) forks each mutant's child from a server that has only imported the tests (a
``--collect-only`` run that has ended), and the child starts pytest afresh: configuration,
plugins, the collection of the files its tests are in, the session's start and end. In a warm
process that is about 0.1 s for a one-test mutant (December 2026: 0.11 s of a 0.19 s run),
times about 21,000 mutants run in a whole run, and more for a function reached by hundreds of
parametrised tests (collecting a whole file took 1.4-1.6 s).

Here the server is itself a pytest session over the whole selection, stopped in its run loop:
:func:`serve` runs mutmut's server loop there, and each mutant's child runs its tests from the
session's items (:func:`run_items`), in the order of tests/mutant_order.py, stopping at the first
failure as ``-x`` does. Which tests a mutant runs and what counts as a failure stay pytest's:
each item goes through pytest's own run protocol (fixtures, capture, reports and the hooks of
tests/conftest.py). Nothing the tests import at collection runs under a mutant in either way:
the server imported the test modules before any mutant (no test module collects through package
code: no ``pytest_generate_tests``). A test the session does not hold sends the mutant's run to
pytest as before.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from tests import lazy_mutants, mutant_order, mutmut_shards, plot_memo, trampolines

TREE = Path(__file__).resolve().parent.parent  # mutmut's tree (mutants/) when run there


def prepare_mutant(tree: Path, mutant: str) -> None:
    """In the child that tests ``mutant`` (``pkg.mod.x_f__mutmut_3``), its tests collected: its
    function is back if the server dropped it (tests/lazy_mutants.py), the functions it leaves
    alone skip their trampolines (tests/trampolines.py), and the plots it cannot change are drawn
    once (tests/plot_memo.py)."""
    lazy_mutants.restore(mutant)
    trampolines.bypass(mutant)
    plot_memo.install(tree, mutant)


def run_items(session: Any, items: Sequence[Any], mutant: str | None, durations: dict[str, float],
              tree: Path = TREE) -> int:
    """Run ``items`` of ``session`` through pytest's run protocol, likely killers first, until one
    fails; pytest's exit code (1 when one failed, else 0). For a mutant, :func:`prepare_mutant`
    first, as tests/conftest.py does once a mutant's run started afresh has collected its tests."""
    gc.freeze()  # what the server built: the collector need not walk it (tests/conftest.py)
    function = mutant_order.function_of(mutant or "")
    ordered = list(items)
    if function is not None:
        prepare_mutant(tree, mutant)
        known = mutant_order.killers(tree, function, durations, mutant)
        ordered = mutant_order.ordered(ordered, lambda item: item.nodeid, durations, known)
    hook = session.config.hook
    started = last = time.perf_counter()
    ran = 0
    for index, item in enumerate(ordered):
        following = ordered[index + 1] if index + 1 < len(ordered) else None
        last = time.perf_counter()
        hook.pytest_runtest_protocol(item=item, nextitem=following)
        ran += 1
        if session.testsfailed or session.shouldfail or session.shouldstop:
            break
    code = 1 if session.testsfailed else 0
    if function is not None:
        done = time.perf_counter()
        record_run(tree, mutant or "", ran, ordered[ran - 1].nodeid if code and ran else "",
                   done - started, done - last)
    return code


RUNS = "mutant-runs.tsv"  # in mutmut's tree: one line a mutant's run (record_run)


def record_run(tree: Path, mutant: str, ran: int, killer: str, seconds: float, killer_seconds: float) -> None:
    """Append a line to ``RUNS``: the mutant, how many tests it ran, the test that failed ("" when
    none did), the seconds of its tests and those of the last one: where a slow mutant's time goes
    (its own killer, or the tests run before it). A failure to write is ignored."""
    mutant_order.append_line(tree / RUNS, f"{mutant}\t{ran}\t{killer}\t{seconds:.4f}\t{killer_seconds:.4f}")


class SessionTests:
    """mutmut's test runner for the children of a server that is a pytest session."""

    def __init__(self, session: Any, fallback: Any, folder: str) -> None:
        self.session = session
        self.fallback = fallback  # mutmut's own runner: pytest started afresh, from mutmut's folder
        self.folder = folder  # where the session runs its tests (mutmut's tree)
        self.items = {item.nodeid: item for item in session.items}
        self.durations = mutant_order.census_durations(TREE)

    def warm_up(self) -> None:
        """Nothing: the session has imported and collected every test."""

    def run_tests(self, *, mutant_name: str | None, tests: Iterable[str]) -> int:
        wanted = list(tests)
        if not wanted or any(test not in self.items for test in wanted):
            return int(self.fallback.run_tests(mutant_name=mutant_name, tests=wanted))
        os.chdir(self.folder)  # this child's tests run where the session collected them
        return run_items(self.session, [self.items[test] for test in wanted], mutant_name, self.durations)


def serve(session: Any, runner: Any, server_loop: Callable[..., None], *pipes: int) -> bool:
    """In pytest's run loop of the server's session, which runs in mutmut's tree: mutmut's
    ``server_loop`` (its fork server's main, unbound), from the folder above as mutmut runs it,
    with ``runner``'s children running the session's items. First the modules the census's tests
    loaded and the collection did not are imported, once for every child."""
    if session.testsfailed:
        raise session.Interrupted(f"{session.testsfailed} errors during collection")
    if mutmut_shards.import_census_modules(TREE):
        trampolines.prepare_once(again=True)  # with those of the modules just imported
    lazy_mutants.stash(TREE)  # last: every child forks from a server without the mutants' code
    fallback = runner.test_runner_class(**runner.test_runner_args)
    folder = os.getcwd()
    runner.test_runner_class = lambda **_: SessionTests(session, fallback, folder)
    runner.test_runner_args = {}
    os.chdir(os.path.dirname(folder))  # mutmut's loop runs from its own folder (its log, its paths)
    try:
        server_loop(runner, *pipes)
    finally:
        os.chdir(folder)
    return True
