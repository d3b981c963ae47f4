"""The order of a mutant's tests under mutmut (tests/mutant_order.py)."""

from __future__ import annotations

import json

from tests import mutant_order as mo


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


def test_census_durations_come_from_mutmuts_stats_file(tmp_path):
    assert mo.census_durations(tmp_path) == {}
    (tmp_path / "mutmut-stats.json").write_text(json.dumps({"duration_by_test": {"t": 1.5}, "other": 1}))
    assert mo.census_durations(tmp_path) == {"t": 1.5}
    (tmp_path / "mutmut-stats.json").write_text("{not json")
    assert mo.census_durations(tmp_path) == {}
