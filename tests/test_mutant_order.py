"""The order of a mutant's tests under mutmut (tests/mutant_order.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests import mutant_order as mo
from tests.conftest import HARNESS


def test_the_function_of_a_mutant_and_of_mutmuts_other_runs():
    assert mo.function_of("montecarlo.engine.stats.x_wilson__mutmut_12") == "montecarlo.engine.stats.x_wilson"
    assert mo.function_of("montecarlo.datagame.spec.xǁ_Readerǁmetric__mutmut_3") == (
        "montecarlo.datagame.spec.xǁ_Readerǁmetric")
    for other in ("", "stats", "fail", "list_all_tests", "mutant_generation", "none"):
        assert mo.function_of(other) is None


def test_known_killers_first_most_frequent_first_then_cheapest_first_untimed_last():
    durations = {"a": 3.0, "b": 0.5, "c": 0.1, "d": 2.0}
    got = mo.ordered(["a", "b", "c", "d", "e", "f"], str, durations, ["d", "a"])
    assert got == ["d", "a", "c", "b", "e", "f"]
    assert mo.ordered(["x", "y"], str, {}, []) == ["x", "y"]  # no census: the order as given


def test_killers_are_counted_per_function_and_survive_bad_names(tmp_path):
    f = "pkg.mod.xǁCǁm"
    for test in ("t1", "t2", "t2", "t3", "t1", "t2"):
        mo.record_killer(tmp_path, f, test)
    mo.record_killer(tmp_path, "pkg.mod.x_other", "t9")
    assert mo.killers(tmp_path, f) == ["t2", "t1", "t3"]
    assert mo.killers(tmp_path, "pkg.mod.x_other") == ["t9"]
    assert mo.killers(tmp_path, "pkg.mod.x_never") == []
    for test in ("u2", "u1", "u1", "u2", "u3"):  # a tie keeps the order first seen
        mo.record_killer(tmp_path, "pkg.mod.x_tied", test)
    assert mo.killers(tmp_path, "pkg.mod.x_tied") == ["u2", "u1", "u3"]
    mo.record_killer(tmp_path / "missing" / "deeper", f, "t1")  # cannot write: ignored


def test_killers_with_a_census_are_ordered_by_seconds_per_kill(tmp_path):
    for test in ["slow"] * 8 + ["cheap"] * 8 + ["often"] * 100 + ["new"] * 200:
        mo.record_killer(tmp_path, "pkg.mod.x_f", test)
    durations = {"slow": 10.0, "cheap": 0.001, "often": 1.0}  # "new": not in the census
    assert mo.killers(tmp_path, "pkg.mod.x_f", durations) == ["cheap", "often", "slow", "new"]
    assert mo.killers(tmp_path, "pkg.mod.x_f") == ["new", "often", "slow", "cheap"]  # no census: by count
    durations = {"slow": 1.0, "cheap": 1.0, "often": 12.5, "new": 25.0}  # equal cost per kill: by count
    assert mo.killers(tmp_path, "pkg.mod.x_f", durations) == ["new", "often", "slow", "cheap"]


def test_a_mutants_own_killers_come_before_its_functions(tmp_path):
    """The tests that killed a mutant in an earlier run come first for that mutant alone, each once,
    first seen first; the function's killers follow in their usual order, without repeats."""
    f = "pkg.mod.xǁCǁm"
    for test, mutant in (("cheap", "pkg.mod.xǁCǁm__mutmut_1"), ("cheap", "pkg.mod.xǁCǁm__mutmut_2"),
                         ("slow", "pkg.mod.xǁCǁm__mutmut_3"), ("rare", "pkg.mod.xǁCǁm__mutmut_3"),
                         ("slow", "pkg.mod.xǁCǁm__mutmut_3"), ("cheap", "pkg.mod.xǁCǁm__mutmut_13")):
        mo.record_killer(tmp_path, f, test, mutant)
    durations = {"cheap": 0.01, "slow": 5.0, "rare": 1.0}
    assert mo.killers(tmp_path, f, durations) == ["cheap", "rare", "slow"]
    assert mo.killers(tmp_path, f, durations, "pkg.mod.xǁCǁm__mutmut_3") == ["slow", "rare", "cheap"]
    assert mo.killers(tmp_path, f, durations, "pkg.mod.xǁCǁm__mutmut_1") == ["cheap", "rare", "slow"]
    assert mo.killers(tmp_path, f, durations, "pkg.mod.xǁCǁm__mutmut_4") == ["cheap", "rare", "slow"]
    assert mo.killed_by(tmp_path, f) == {"1": ["cheap"], "2": ["cheap"], "3": ["slow", "rare"],
                                         "13": ["cheap"]}
    assert (mo.mutant_number("pkg.mod.x_f__mutmut_13"), mo.mutant_number("stats")) == ("13", None)
    mo.record_killer(tmp_path, "pkg.mod.x_g", "t", "fail")  # mutmut's other runs name no mutant
    assert mo.killers(tmp_path, "pkg.mod.x_g") == ["t"] and mo.killed_by(tmp_path, "pkg.mod.x_g") == {}
    (tmp_path / mo.KILLED_BY / mo.file_name(f)).write_text("7\tonly\nbroken line\n", encoding="utf-8")
    (tmp_path / mo.KILLERS / mo.file_name(f)).unlink()
    assert mo.killers(tmp_path, f, durations, "pkg.mod.xǁCǁm__mutmut_7") == ["only"]  # no function file


def test_census_durations_come_from_mutmuts_stats_file(tmp_path):
    assert mo.census_durations(tmp_path) == {}
    (tmp_path / "mutmut-stats.json").write_text(json.dumps({"duration_by_test": {"t": 1.5}, "other": 1}))
    assert mo.census_durations(tmp_path) == {"t": 1.5}
    (tmp_path / "mutmut-stats.json").write_text("{not json")
    assert mo.census_durations(tmp_path) == {}


def test_the_tests_a_run_names_per_file():
    args = ["tests/a.py::test_x[1-2]", "tests/a.py::test_x[3]", "tests/a.py::TestK::test_m",
            "tests/b.py::test_y", "montecarlo/m.py::montecarlo.m.f"]
    assert mo.wanted_tests(args) == {"tests/a.py": {"test_x", "TestK"}, "tests/b.py": {"test_y"},
                                     "montecarlo/m.py": {"montecarlo.m.f"}}
    assert mo.wanted_tests(["tests/a.py::test_x", "tests/b.py"]) is None  # a whole file
    assert mo.wanted_tests(["tests"]) is None


def test_the_known_killers_are_collected_alone_first():
    args = ["t::a", "t::b", "t::c", "u::d", "u::e"]
    assert mo.stages(args, ["u::d", "gone::z", "t::b"]) == [["u::d", "t::b"], ["t::a", "t::c", "u::e"]]
    assert mo.stages(args, ["t::a", "t::b", "t::c", "u::d"]) == [["t::a", "t::b", "t::c"], ["u::d", "u::e"]]
    assert mo.stages(args, []) == [args] and mo.stages(args, ["gone::z"]) == [args]
    assert mo.stages(["t::a"], ["t::a"]) == [["t::a"]]
    assert mo.stages(["t::a", "u"], ["t::a"]) == [["t::a", "u"]]  # a whole file: one stage


FAKE_TESTS = {
    "test_first.py": """
import os
def test_passes(): open("ran", "a").write("test_passes\\n")
def test_kills():
    open("ran", "a").write("test_kills\\n")
    assert "mutmut" not in os.environ.get("MUTANT_UNDER_TEST", "")
def test_not_named(): open("ran", "a").write("test_not_named\\n")
""",
    "test_later.py": """
open("imported", "a").write("test_later\\n")
def test_later(): open("ran", "a").write("test_later\\n")
""",
}


def _fake_tree(tmp_path, killers: list[str]):
    here = Path(__file__).resolve().parent
    tests = tmp_path / "tests"
    tests.mkdir(parents=True)
    (tests / "__init__.py").write_text("")
    for name in HARNESS:
        shutil.copy(here / name, tests)
    for name, text in FAKE_TESTS.items():
        (tests / name).write_text(text)
    for test in killers:
        mo.record_killer(tmp_path, "pkg.mod.x_f", test)
    return tmp_path


def _run_as_mutmut(tree, mutant: str):
    """pytest as mutmut runs a mutant's tests: -x and the tests' node ids, in the tree."""
    args = [f"tests/test_first.py::{name}" for name in ("test_passes", "test_kills")]
    args.append("tests/test_later.py::test_later")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--rootdir=.", "-c",
         os.devnull, *args],
        cwd=tree, env={**os.environ, "MUTANT_UNDER_TEST": mutant, "PYTHONPATH": str(tree)},
        capture_output=True, text=True, check=False)
    read = lambda name: (tree / name).read_text().split() if (tree / name).exists() else []  # noqa: E731
    return done.returncode, read("ran"), read("imported")


def test_a_known_killer_fails_before_the_other_files_are_collected(tmp_path):
    """Under mutmut, a mutant whose known killer fails: the other file was never collected (nor
    imported) and nothing else ran."""
    tree = _fake_tree(tmp_path, ["tests/test_first.py::test_kills"])
    code, ran, imported = _run_as_mutmut(tree, "pkg.mod.x_f__mutmut_2")
    assert (code, ran, imported) == (1, ["test_kills"], [])


def test_when_the_killers_pass_the_rest_is_collected_and_run(tmp_path):
    tree = _fake_tree(tmp_path, ["tests/test_later.py::test_later"])
    code, ran, imported = _run_as_mutmut(tree, "pkg.mod.x_f__mutmut_2")
    assert (code, ran, imported) == (1, ["test_later", "test_passes", "test_kills"], ["test_later"])
    code, ran, _ = _run_as_mutmut(_fake_tree(tmp_path / "clean", ["tests/test_later.py::test_later"]), "")
    assert code == 0 and sorted(ran) == ["test_kills", "test_later", "test_passes"]  # outside mutmut
