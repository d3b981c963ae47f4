"""mutmut's census and clean run spread over several children (tests/mutmut_shards.py)."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import mutmut_shards as shards
from tests.conftest import HARNESS

HERE = Path(__file__).resolve().parent


def _claim_until_done(limit: int) -> list[int]:
    path, _ = shards.shared_counter()
    taken = []
    while (number := shards.claim(path)) < limit:
        taken.append(number)
        time.sleep(0.001)
    return taken


def test_children_share_one_counter_and_each_number_is_claimed_once():
    first, second = shards.in_children(lambda: _claim_until_done(200), 2, shards.PER_TEST)
    assert sorted(first + second) == list(range(200))
    assert first and second  # both took part (each sleeps between claims)
    assert shards.shared_counter() is None  # the parent's environment is left alone


def test_a_child_that_fails_is_an_error_in_the_parent():
    def broken():
        raise RuntimeError("no tests")

    with pytest.raises(ChildProcessError):
        shards.in_children(broken, 2, shards.PER_FILE)


def test_an_exhausted_counter_has_nothing_left(tmp_path):
    counter = tmp_path / "counter"
    counter.write_bytes(b"0")
    assert [shards.claim(str(counter)) for _ in range(3)] == [0, 1, 2]
    shards.exhaust(str(counter))
    assert shards.claim(str(counter)) >= 2**62


class _Item:
    def __init__(self, nodeid):
        self.nodeid = nodeid


def test_units_are_single_tests_or_a_files_run_of_tests():
    items = [_Item(name) for name in ("a.py::x", "a.py::y", "b.py::x", "a.py::z")]
    assert [[i.nodeid for i in unit] for unit in shards.units(items, shards.PER_TEST)] == [
        ["a.py::x"], ["a.py::y"], ["b.py::x"], ["a.py::z"]]
    assert [[i.nodeid for i in unit] for unit in shards.units(items, shards.PER_FILE)] == [
        ["a.py::x", "a.py::y"], ["b.py::x"], ["a.py::z"]]


FAKE_TESTS = """
import glob, os, time
import pytest

open(f"started.{{os.getpid()}}", "a").close()  # at collection: this child is about to claim


def both_started():
    # a child that claimed everything before the other one had even started (a loaded machine)
    # would leave "each test once between them" untested
    deadline = time.monotonic() + 60
    while len(glob.glob("started.*")) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)

@pytest.fixture(scope="module")
def opened():
    open("fixtures", "a").write(f"{{__name__}} {{os.getpid()}}\\n")
    return 1

@pytest.mark.parametrize("n", range(6))
def test_one(n, opened):
    both_started()
    time.sleep(0.02)
    open("ran", "a").write(f"{{__name__}}::{{n}} {{os.getpid()}}\\n")
    assert not ({fail} and n == 1)
"""


def _fake_tree(tmp_path, fail=False):
    tests = tmp_path / "tests"
    tests.mkdir(parents=True)
    (tests / "__init__.py").write_text("")
    for name in HARNESS:
        shutil.copy(HERE / name, tests)
    for number in range(4):
        (tests / f"test_f{number}.py").write_text(FAKE_TESTS.format(fail=fail and number == 0))
    (tmp_path / "counter").write_bytes(b"0")
    return tmp_path


def _run_shared(tree, per, children=2):
    """``children`` pytest processes at once over the fake tests, sharing the tree's counter."""
    env = {**os.environ, "PYTHONPATH": str(tree), shards.COUNTER: f"{per}:{tree / 'counter'}",
           "MUTANT_UNDER_TEST": "stats"}
    env.pop("PYTEST_XDIST_WORKER", None)
    started = [subprocess.Popen(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--rootdir=.", "-c", os.devnull, "tests"], cwd=tree, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True) for _ in range(children)]
    codes = [process.wait(timeout=120) for process in started]
    ran = [line.split() for line in (tree / "ran").read_text().splitlines()]
    fixtures = [line.split() for line in (tree / "fixtures").read_text().splitlines()]
    return codes, ran, fixtures


def test_the_census_children_run_each_test_once_between_them(tmp_path):
    codes, ran, _ = _run_shared(_fake_tree(tmp_path), shards.PER_TEST)
    assert codes == [0, 0]
    every_test = sorted(f"tests.test_f{f}::{n}" for f in range(4) for n in range(6))
    assert sorted(test for test, _ in ran) == every_test
    assert len({pid for _, pid in ran}) == 2


def test_the_clean_run_children_claim_a_file_at_a_time(tmp_path):
    codes, ran, fixtures = _run_shared(_fake_tree(tmp_path), shards.PER_FILE)
    assert codes == [0, 0] and len(ran) == 24
    by_file = {}
    for test, pid in ran:
        by_file.setdefault(test.split("::")[0], set()).add(pid)
    assert all(len(pids) == 1 for pids in by_file.values())
    assert len(fixtures) == 4  # each file's module fixture built once


def test_the_children_must_have_collected_the_same_tests(tmp_path):
    tree = _fake_tree(tmp_path)
    _run_shared(tree, shards.PER_TEST)
    assert len(list(tree.glob("counter.*.items"))) == 2
    shards.same_tests(tree / "counter")  # the same lists: nothing to say
    (tree / "counter.1.items").write_text("another list")
    with pytest.raises(ChildProcessError, match="collected different tests"):
        shards.same_tests(tree / "counter")


def test_a_failure_stops_every_child(tmp_path):
    codes, ran, _ = _run_shared(_fake_tree(tmp_path, fail=True), shards.PER_TEST)
    assert sorted(codes) == [0, 1] or codes == [1, 1]
    assert len(ran) < 12  # the first file's second test failed: the rest were not claimed


# mutmut's side: the census merged from the children, the clean run left out after it

mutmut_state = pytest.importorskip("mutmut.state")


class _FakeRunner:
    """A test runner whose census claims eight tests and says that the first four reach one function,
    the last four another."""

    def run_stats(self, *, tests):
        path, _ = shards.shared_counter()
        names = tests or [f"t{n}" for n in range(8)]
        while (number := shards.claim(path)) < len(names):
            mutmut_state.state().tests_by_mangled_function_name[f"f{number // 4}"].add(names[number])
            mutmut_state.state().duration_by_test[names[number]] = float(number)
            mutmut_state.state().function_dependencies[f"f{number // 4}"].add(f"pid{os.getpid()}")
            time.sleep(0.05)
        return 0

    def run_tests(self, *, mutant_name, tests):
        open(os.environ["FAKE_CLEAN_LOG"], "a").write(f"{os.getpid()}\n")
        return 3 if "bad" in tests else 0


@pytest.fixture
def fresh_state():
    mutmut_state.reset_state()
    yield mutmut_state.state()
    mutmut_state.reset_state()


def test_the_census_is_merged_and_the_clean_run_left_out_after_it(fresh_state, tmp_path, monkeypatch):
    runner = shards.sharded_runner_class()(max_workers=2, test_runner_class=_FakeRunner, test_runner_args={})
    assert runner.collect_stats(None) == 0
    assert dict(fresh_state.tests_by_mangled_function_name) == {"f0": {"t0", "t1", "t2", "t3"},
                                                                "f1": {"t4", "t5", "t6", "t7"}}
    assert dict(fresh_state.duration_by_test) == {f"t{n}": float(n) for n in range(8)}
    # both children reached each function (they claim in turn, a sleep apart): each record merged
    assert {len(callers) for callers in fresh_state.function_dependencies.values()} == {2}
    monkeypatch.setenv("FAKE_CLEAN_LOG", str(tmp_path / "clean"))
    assert runner.run_clean_tests(["t0"]) == 0 and not (tmp_path / "clean").exists()


def test_after_a_partial_census_the_clean_run_runs_in_every_child(fresh_state, tmp_path, monkeypatch):
    runner = shards.sharded_runner_class()(max_workers=2, test_runner_class=_FakeRunner, test_runner_args={})
    assert runner.collect_stats(["new1"]) == 0  # mutmut's census of new tests only: one child
    assert dict(fresh_state.tests_by_mangled_function_name) == {"f0": {"new1"}}
    monkeypatch.setenv("FAKE_CLEAN_LOG", str(tmp_path / "clean"))
    assert runner.run_clean_tests(["t0"]) == 0
    assert len(set((tmp_path / "clean").read_text().split())) == 2
    assert runner.run_clean_tests(["bad"]) == 3


def test_the_fork_server_imports_what_the_census_children_loaded(tmp_path):
    def child() -> bool:
        import colorsys  # noqa: F401 - a module the "tests" of this child load

        shards.record_modules(tmp_path)
        return True

    def server() -> tuple[int, bool, bool]:
        sys.modules.pop("colorsys", None)
        sys.modules.pop("_lsprof", None)
        imported = shards.import_census_modules(tmp_path)
        left_out = {"no_such_module_anywhere", "_lsprof"} & set(sys.modules)
        return imported, "colorsys" in sys.modules, bool(left_out)

    assert shards.in_children(child, 2, shards.PER_TEST) == [True, True]
    assert len(list((tmp_path / shards.MODULES).iterdir())) == 2  # one list a child
    # one fails to import, one is private (a C half that its package imports): both left out
    (tmp_path / shards.MODULES / "0").write_text("no_such_module_anywhere\n_lsprof\ncolorsys")
    imported, loaded, bogus = shards.in_children(server, 1, shards.PER_TEST)[0]
    assert imported >= 1 and loaded and not bogus
    assert shards.import_census_modules(tmp_path / "absent") == 0
