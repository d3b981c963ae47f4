"""mutmut's census and clean run of the tests, spread over as many children as the run has.

mutmut (3.8) runs its census of which tests reach which function, then its clean run of the
tests, each in one child, one after the other: 10.5 and 7 minutes of a whole run on 2 cores
(December 2026) with the second core idle. ``python tests/mutmut_shards.py run ...`` is ``mutmut
run ...`` with two changes:

- the census runs in ``--max-children`` children at once. Each collects the whole selection and
  runs the tests it claims from a counter they share, one test at a time, in collection order
  (:func:`run_claimed`), so that the children end together; mutmut's record of each child (the
  functions each test reached, each test's time) is merged. The census builds every fixture once
  per test (``per_test_under_mutation`` in ``tests/conftest.py``), so which child runs a test
  changes nothing it records.
- the clean run is left out after a census of every test in the same run: the census ran them
  all, stopping at the first failure, and mutmut stops when it fails. Otherwise (a resumed run,
  whose census was read from disk) the clean run is spread the same way, a test file at a time.

Which tests a mutant runs, in what order, and its verdict, are mutmut's as before.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

COUNTER = "MONTECARLO_MUTMUT_COUNTER"  # the counter file the children of one step share
PER_TEST = "test"  # claim one test at a time (the census)
PER_FILE = "file"  # claim a test file at a time (the clean run: module fixtures are shared)
SESSION = "MONTECARLO_MUTMUT_SESSION"  # "0": mutmut's own fork server (pytest started in each child)
MODULES = ".census-modules"  # in mutmut's tree: per census child, the modules loaded once its tests ran


def claim(path: str) -> int:
    """The next number of the counter in ``path`` (0, 1, 2 ... across every process that shares it)."""
    with open(path, "r+b") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        taken = int(counter.read() or b"0")
        counter.seek(0)
        counter.write(str(taken + 1).encode())
        counter.truncate()
        return taken


def exhaust(path: str) -> None:
    """Leave nothing more to claim from the counter in ``path``."""
    with open(path, "r+b") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        counter.write(str(sys.maxsize).encode())
        counter.truncate()


def units(items: list, per: str) -> list[list]:
    """``items`` in runs that one child claims at a time: each test, or each test file's tests."""
    if per == PER_TEST:
        return [[item] for item in items]
    grouped: list[list] = []
    for item in items:
        if grouped and grouped[-1][0].nodeid.split("::")[0] == item.nodeid.split("::")[0]:
            grouped[-1].append(item)
        else:
            grouped.append([item])
    return grouped


def run_claimed(session: Any, path: str, per: str) -> None:
    """pytest's run loop over the units this process claims from the counter in ``path``: each
    test runs with the next test this process will run as its ``nextitem``, so that fixtures are
    torn down as after any test."""
    if session.testsfailed and not session.config.option.continue_on_collection_errors:
        raise session.Interrupted(f"{session.testsfailed} errors during collection")
    if session.config.option.collectonly:
        return
    names = "\n".join(item.nodeid for item in session.items).encode()
    Path(f"{path}.{os.getpid()}.items").write_text(hashlib.sha256(names).hexdigest())
    batches = units(list(session.items), per)

    def take() -> list:
        number = claim(path)
        return batches[number] if number < len(batches) else []

    queue = take()
    while queue:
        item = queue.pop(0)
        if not queue:
            queue = take()
        session.config.hook.pytest_runtest_protocol(item=item, nextitem=queue[0] if queue else None)
        if session.shouldfail or session.shouldstop:
            exhaust(path)  # the other children stop at their next claim: the step has failed
        if session.shouldfail:
            raise session.Failed(session.shouldfail)
        if session.shouldstop:
            raise session.Interrupted(session.shouldstop)


def record_modules(tree: Path) -> None:
    """In a child of the census: the names of the modules loaded once its tests have run."""
    folder = tree / MODULES
    folder.mkdir(exist_ok=True)
    (folder / str(os.getpid())).write_text("\n".join(sorted(sys.modules)), encoding="utf-8")


def import_census_modules(tree: Path) -> int:
    """In mutmut's fork server, once it has collected the tests: import the modules the census's
    tests loaded that collecting them did not (typer's parameter adapters and pydantic, which a CLI
    test loads at its first command: 0.11 s), so that each mutant's child finds them loaded
    instead of importing them again. A module whose top name is private (``_asyncio``, ``__main__``)
    is left to the package that imports it, and one that fails to import to the tests. How many
    were imported."""
    import importlib

    names: set[str] = set()
    for path in sorted((tree / MODULES).glob("*")):
        names.update(path.read_text(encoding="utf-8").split())
    imported = 0
    for name in sorted(names - set(sys.modules)):
        if name in sys.modules or name.startswith("_"):  # loaded meanwhile by the import of another,
            continue  # or private to a package: its C half (``_asyncio`` alone breaks asyncio's tasks)
        try:
            importlib.import_module(name)
            imported += 1
        except BaseException:  # noqa: BLE001 - left to the test that needs it
            continue
    return imported


def in_children(operation: Callable[[], Any], children: int, per: str) -> list[Any]:
    """``operation()`` in ``children`` forked processes at once, sharing a fresh counter (``per``
    says what they claim from it); what each returned, in the order they were forked."""
    with tempfile.TemporaryDirectory(prefix="mutmut-shards-") as folder:
        counter = Path(folder) / "counter"
        counter.write_bytes(b"0")
        started = []
        for _ in range(children):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: run, send back, never return into mutmut's parent code
                os.close(read_end)
                code = 1
                try:
                    os.environ[COUNTER] = f"{per}:{counter}"
                    result = operation()
                    with os.fdopen(write_end, "wb") as pipe:
                        pickle.dump(result, pipe)
                    code = 0
                except BaseException:
                    traceback.print_exc()
                finally:
                    os._exit(code)
            os.close(write_end)
            started.append((pid, read_end))
        results = []
        for pid, read_end in started:
            with os.fdopen(read_end, "rb") as pipe:
                data = pipe.read()
            _, status = os.waitpid(pid, 0)
            if os.waitstatus_to_exitcode(status) != 0 or not data:
                raise ChildProcessError(f"a child of mutmut's {per}-shared step ended with status {status}")
            results.append(pickle.loads(data))
        same_tests(counter)
        return results


def same_tests(counter: Path) -> None:
    """Raise unless every child that shared ``counter`` collected the same tests in the same order:
    a number claimed from it names a test only if they all did."""
    seen = {path.read_text() for path in counter.parent.glob(f"{counter.name}.*.items")}
    if len(seen) > 1:
        raise ChildProcessError(f"the children of a mutmut step collected different tests: {len(seen)} lists")


def shared_counter() -> tuple[str, str] | None:
    """In a child of :func:`in_children`: (the counter's path, what is claimed); None elsewhere."""
    value = os.environ.get(COUNTER)
    if not value:
        return None
    per, _, path = value.partition(":")
    return path, per


def _first_failure(codes: list[int]) -> int:
    """The exit code of a step run in several children: the first that is not 0, else 0."""
    return next((code for code in codes if code != 0), 0)


def sharded_runner_class() -> type:
    """mutmut's fork-server runner with the census and the clean run spread over its children."""
    from mutmut.models.results import StatsResult
    from mutmut.state import state
    from mutmut.workers.isolation import ForkServerRunner

    class ShardedRunner(ForkServerRunner):  # type: ignore[misc, valid-type]
        full_census_passed = False

        def collect_stats(self, tests: Iterable[str] | None) -> int:
            wanted = list(tests or [])

            def census() -> dict[str, Any]:
                runner = self.test_runner_class(**self.test_runner_args)
                code = runner.run_stats(tests=wanted)
                return StatsResult(
                    exit_code=code,
                    tests_by_mangled_function_name=dict(state().tests_by_mangled_function_name),
                    duration_by_test=dict(state().duration_by_test),
                    stats_time=state().stats_time or 0.0,
                    function_dependencies=dict(state().function_dependencies),
                ).to_dict()

            children = min(self.max_workers, len(wanted)) if wanted else self.max_workers
            codes = []
            for data in in_children(census, children, PER_TEST):
                result = StatsResult.from_dict(data)
                codes.append(result.exit_code)
                for function, names in result.tests_by_mangled_function_name.items():
                    state().tests_by_mangled_function_name[function] |= names
                state().duration_by_test.update(result.duration_by_test)
                for function, callers in result.function_dependencies.items():
                    state().function_dependencies[function] |= set(callers)
            code = _first_failure(codes)
            self.full_census_passed = code == 0 and not wanted
            return code

        def run_clean_tests(self, tests: Iterable[str]) -> int:
            if self.full_census_passed:
                print("    (left out: the census just ran every test, and they passed)")
                return 0
            wanted = list(tests)

            def clean() -> int:
                return int(self.test_runner_class(**self.test_runner_args).run_tests(
                    mutant_name=None, tests=wanted))

            return _first_failure(in_children(clean, self.max_workers, PER_FILE))

        def _forkserver_main(self, work_fd: int, result_fd: int) -> None:
            """mutmut's fork server, run inside a pytest session over the whole selection, so that
            each mutant's child runs the session's items instead of starting pytest again
            (tests/session_server.py); mutmut's own when ``SESSION`` is set to anything but "1"."""
            if os.environ.get(SESSION, "1") != "1":
                return ForkServerRunner._forkserver_main(self, work_fd, result_fd)
            import pytest
            from mutmut.utils.file_utils import change_cwd

            runner, served = self, []

            class Serve:
                @pytest.hookimpl(tryfirst=True)
                def pytest_runtestloop(self, session: Any) -> bool:
                    from tests import session_server  # mutmut's copy, beside the conftest pytest loaded

                    served.append(True)
                    return session_server.serve(session, runner, ForkServerRunner._forkserver_main,
                                                work_fd, result_fd)

            tests = self.test_runner_class(**self.test_runner_args)
            sys.stdout = sys.stderr = open(os.devnull, "w")  # this process ends with the session
            with change_cwd("mutants"):
                code = tests.execute_pytest(tests._pytest_args_regular_run([]), plugins=[Serve()])
            if not served:
                raise RuntimeError(f"the fork server's pytest session ended before its loop (exit {code})")

    return ShardedRunner


def main(arguments: list[str]) -> None:
    """``mutmut`` with ``arguments``, its fork-server runner replaced by :func:`sharded_runner_class`."""
    import mutmut.__main__ as mutmut_main
    from mutmut.workers import isolation

    isolation.ForkServerRunner = sharded_runner_class()  # get_mutant_runner reads the name there
    mutmut_main.cli(args=arguments, prog_name="mutmut")


if __name__ == "__main__":
    main(sys.argv[1:])
