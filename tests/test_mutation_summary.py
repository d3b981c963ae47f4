"""The mutation summary tool: the sample it draws and the score it estimates from it."""

import json
import shutil

import pytest

from montecarlo.engine import stats
from tests import mutation_summary as ms


def test_a_sample_is_uniform_without_repeats_and_the_same_for_a_seed():
    names = [f"m.x_f__mutmut_{i}" for i in range(1, 101)]
    one = ms.pick(names, 10, seed=1)
    assert len(set(one)) == 10 and set(one) <= set(names)
    assert ms.pick(list(reversed(names)), 10, seed=1) == one  # whatever order they came in
    assert ms.pick(names, 10, seed=2) != one
    assert ms.pick(names[:5], 10, seed=1) == sorted(names[:5])
    # uniform: over 2,000 seeds each name is drawn about 200 times (binomial sd 13.4)
    counts = {n: 0 for n in names}
    for seed in range(2000):
        for n in ms.pick(names, 10, seed):
            counts[n] += 1
    assert max(abs(c - 200) for c in counts.values()) < 5 * 13.4


@pytest.mark.parametrize("k, n", [(0, 10), (10, 10), (90, 100), (297, 300), (1, 3)])
def test_the_interval_holds_the_estimate_and_stays_in_zero_one(k, n):
    score = stats.proportion(k, n)  # the interval the summary prints
    assert 0 <= score.ci_low <= k / n <= score.ci_high <= 1 and score.ci_high - score.ci_low < 0.8


def test_after_a_sample_the_summary_counts_only_it_and_estimates_the_whole(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mutants").mkdir()
    codes = {f"montecarlo.engine.stats.x_f__mutmut_{i}": (1 if i <= 9 else 0) for i in range(1, 12)}
    codes["montecarlo.engine.stats.x_f__mutmut_99"] = 1  # run, but not in the sample: not counted
    (tmp_path / "mutants" / "stats.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))
    drawn = [f"montecarlo.engine.stats.x_f__mutmut_{i}" for i in range(1, 12)]
    sample = {"population": 5000, "seed": 3, "names": drawn}
    (tmp_path / "mutants" / "sample.json").write_text(json.dumps(sample))
    monkeypatch.setattr(ms, "equivalent", lambda: {"montecarlo.engine.stats.x_f__mutmut_11"})
    assert ms.main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    score = stats.proportion(9, 10)
    assert lines[-2] == (
        "estimated over all 5,000 mutants from a uniform sample of 11 (seed 3): 90.0% "
        f"(95% interval {100 * score.ci_low:.1f}% to {100 * score.ci_high:.1f}%)"
    )
    assert lines[-1] == "killed 9 of 10 mutants (90.0%)"


def test_mutants_that_mypy_rejects_count_as_killed_and_are_shown_apart(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mutants").mkdir()
    codes = {f"montecarlo.engine.stats.x_f__mutmut_{i}": code
             for i, code in enumerate([1, 1, ms.TYPE_CHECKED, ms.TYPE_CHECKED, ms.TYPE_CHECKED, 0], 1)}
    (tmp_path / "mutants" / "stats.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))
    monkeypatch.setattr(ms, "equivalent", lambda: set())
    assert ms.main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("montecarlo.engine: killed 5 of 6 (83.3%) without 0 equivalent; raw 5 of 6 (83.3%); "
                        "3 rejected by lint (counted as killed), 1 survived")
    assert lines[-1] == "killed 5 of 6 mutants (83.3%)"


MUTANTS_OF_ONE_MODULE = """
def x_f__mutmut_orig(a):
    return g(a)
def x_f__mutmut_1(a):
    return g()
def x_f__mutmut_2(a):
    return g(None)
class C:
    def xǁCǁm__mutmut_orig(self):
        self.n: int = 0
    def xǁCǁm__mutmut_1(self):
        self.n: int = None
x_f__mutmut_mutants = {}
"""


def _error(line, message, code="misc", file="montecarlo/engine/stats.py"):
    return {"file": file, "line": line, "message": message, "code": code, "severity": "error"}


def test_a_mutant_is_rejected_by_mypy_only_for_an_error_its_original_lacks(tmp_path):
    for file in ("montecarlo/engine/stats.py", "montecarlo/engine/__init__.py"):
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file).write_text(MUTANTS_OF_ONE_MODULE)
    errors = [
        _error(5, 'Missing positional argument "a" in call to "g"', "call-arg"),  # mutant 1 only
        _error(3, "copied", "attr-defined"), _error(5, "copied", "attr-defined"),  # the original has it too
        _error(7, "copied", "attr-defined"),
        _error(12, 'Incompatible types in assignment', "assignment"),  # a method's mutant
        _error(13, "outside any of mutmut's functions"),
        _error(5, "in a package's __init__", file="montecarlo/engine/__init__.py"),
    ]
    assert ms.rejected(errors, tmp_path) == {
        "montecarlo.engine.stats.x_f__mutmut_1": 'Missing positional argument "a" in call to "g" [call-arg]',
        "montecarlo.engine.stats.xǁCǁm__mutmut_1": "Incompatible types in assignment [assignment]",
        "montecarlo.engine.x_f__mutmut_1": "in a package's __init__ [misc]",
    }


def test_the_linters_own_errors_are_read_from_their_json_output(tmp_path):
    pytest.importorskip("mypy")  # the dev extra
    pytest.importorskip("ruff")
    (tmp_path / "montecarlo").mkdir()
    (tmp_path / "montecarlo" / "__init__.py").write_text("")
    (tmp_path / "montecarlo" / "m.py").write_text(
        "def g(a: int) -> int:\n    return a\n\n\ndef x_f__mutmut_1(a: int) -> int:\n    return g()\n"
        "\n\ndef x_f__mutmut_2(a: int) -> int:\n    b = a\n    return a\n")
    errors = ms.mypy_errors(tmp_path)
    assert [(e["file"], e["line"], e["code"]) for e in errors] == [("montecarlo/m.py", 6, "call-arg")]
    found = ms.ruff_errors(tmp_path)
    assert [(e["file"], e["line"], e["code"]) for e in found] == [("montecarlo/m.py", 10, "F841")]
    assert ms.rejected(errors + found, tmp_path) == {
        "montecarlo.m.x_f__mutmut_1": 'Missing positional argument "a" in call to "g" [call-arg]',
        "montecarlo.m.x_f__mutmut_2": "Local variable `b` is assigned to but never used [F841]"}


def test_mutants_that_mypy_rejects_get_mutmuts_type_check_verdict(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mutants" / "montecarlo" / "engine").mkdir(parents=True)
    (tmp_path / "mutants" / "montecarlo" / "engine" / "stats.py").write_text(MUTANTS_OF_ONE_MODULE)
    errors = [_error(5, "no a", "call-arg"), _error(7, "no", "call-arg")]
    monkeypatch.setattr(ms, "mypy_errors", lambda root: errors[:1])
    monkeypatch.setattr(ms, "ruff_errors", lambda root: errors[1:])
    codes = {f"{STATS}f__mutmut_1": None, f"{STATS}f__mutmut_2": 1}
    _meta(tmp_path, codes)
    assert ms.reject_by_lint([]) == 1  # the mutant not run yet; a verdict already in stays
    assert ms.verdicts() == {f"{STATS}f__mutmut_1": ms.TYPE_CHECKED, f"{STATS}f__mutmut_2": 1}
    meta = json.loads((tmp_path / "mutants" / "engine" / "stats.py.meta").read_text())
    assert meta["type_check_error_by_key"] == {f"{STATS}f__mutmut_1": "no a [call-arg]"}  # what mutmut shows
    _meta(tmp_path, codes)
    assert ms.reject_by_lint(["*.x_g__*"]) == 0  # outside the globs
    assert ms.reject_by_lint([], names={f"{STATS}f__mutmut_2"}) == 1  # named: whatever its verdict
    assert ms.verdicts()[f"{STATS}f__mutmut_2"] == ms.TYPE_CHECKED


def test_a_name_listed_twice_is_a_problem(tmp_path):
    name = "montecarlo.engine.stats.x_proportion__mutmut_1"
    key = ms.function_key(name)
    now = ms.current_hash(key, {})
    line = f"- [message] `{name}`: why. <!-- judged: {key}={now} -->"
    listed = tmp_path / "MUTANTS.md"
    listed.write_text(f"# list\n\n{line}\n")
    assert ms.source_problems(listed) == []
    listed.write_text(f"# list\n\n{line}\n{line}\n")
    assert ms.source_problems(listed) == [f"tests/MUTANTS.md:4: {name} is listed already at line 3"]


@pytest.mark.skipif(ms.ROOT.name == "mutants", reason="mutmut's copy of the source is rewritten")
def test_every_listed_equivalent_was_judged_on_the_source_of_today():
    """An edit to a function with listed mutants may renumber them or make one killable: the
    list must then be judged again (``make mutation-check``) and restamped before it lands.
    Not inside mutmut's copy of the tree, where every function is rewritten into trampolines:
    there it would fail whatever the mutant, and count every mutant it reaches as killed."""
    problems = ms.source_problems()
    advice = "judge these again, then: python tests/mutation_summary.py --stamp"
    assert problems == [], "\n".join([*problems, advice])


def test_a_changed_function_is_a_problem_until_judged_again(tmp_path):
    name = "montecarlo.engine.stats.x_proportion__mutmut_1"
    listed = tmp_path / "MUTANTS.md"
    listed.write_text(f"- [message] `{name}`: why. <!-- judged: {ms.function_key(name)}=000000000000 -->\n")
    assert ms.source_problems(listed) == [
        f"tests/MUTANTS.md:1: {ms.function_key(name)} changed since it was judged: judge again, then restamp"
    ]
    listed.write_text(f"- [guess] `{name}`: why.\n")
    assert ms.source_problems(listed) == [
        "tests/MUTANTS.md:1: no known category (one of " + ", ".join(ms.CATEGORIES) + ")",
        f"tests/MUTANTS.md:1: {ms.function_key(name)} has no stamp: run --stamp once judged",
    ]


def test_a_wildcard_is_stale_only_when_every_mutant_it_matches_is_killed():
    runs = {"m.x_f__mutmut_1": 0, "m.x_f__mutmut_2": 1, "m.x_g__mutmut_1": 1, "m.x_h__mutmut_1": 0}
    listed = ["m.x_f__mutmut_*", "m.x_g__mutmut_*", "m.x_h__mutmut_1", "m.x_f__mutmut_2", "m.x_k__mutmut_3"]
    assert ms.stale_and_missing(listed, runs) == (["m.x_g__mutmut_*", "m.x_f__mutmut_2"], ["m.x_k__mutmut_3"])


def test_the_fingerprint_of_a_whole_run_changes_with_any_watched_file_or_the_globs(tmp_path, monkeypatch):
    for top in ("montecarlo", "tests", "scenarios"):
        (tmp_path / top / "sub").mkdir(parents=True)
        (tmp_path / top / "sub" / "a.py").write_text("x = 1\n")
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    first = ms.fingerprint([], root=tmp_path)
    assert ms.fingerprint([], root=tmp_path) == first
    assert ms.fingerprint(["montecarlo.engine.*"], root=tmp_path) != first
    (tmp_path / "montecarlo" / "sub" / "__pycache__").mkdir()
    (tmp_path / "montecarlo" / "sub" / "__pycache__" / "a.pyc").write_bytes(b"\0")
    assert ms.fingerprint([], root=tmp_path) == first  # compiled files do not count
    for changed in ("montecarlo/sub/a.py", "tests/sub/a.py", "scenarios/sub/a.py", "pyproject.toml"):
        before = (tmp_path / changed).read_text()
        (tmp_path / changed).write_text(before + "# edited\n")
        assert ms.fingerprint([], root=tmp_path) != first, changed
        (tmp_path / changed).write_text(before)
    (tmp_path / "tests" / "sub" / "b.py").write_text("")
    assert ms.fingerprint([], root=tmp_path) != first  # a new test file
    again = ms.fingerprint([], root=tmp_path)
    monkeypatch.setattr(ms, "LISTED", tmp_path / "tests" / "MUTANTS.md")
    ms.LISTED.write_text("- [cache] `x`: judged while the run goes on")
    assert ms.fingerprint([], root=tmp_path) == again  # the list of equivalents is not a verdict's input


STATS = "montecarlo.engine.stats.x_"


def _meta(tmp_path, codes):
    (tmp_path / "mutants" / "engine").mkdir(parents=True, exist_ok=True)
    (tmp_path / "mutants" / "engine" / "stats.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))


@pytest.mark.parametrize("globs", [[], ["montecarlo.engine.stats.x_f*"]])
def test_a_whole_run_starts_afresh_then_resumes_only_the_mutants_left(tmp_path, monkeypatch, capsys, globs):
    monkeypatch.chdir(tmp_path)
    calls = []
    def mutmut(args, check):  # mutmut's run, its census and clean run spread over its children
        assert args[1].endswith("tests/mutmut_shards.py") and args[2:5] == ["run", "--max-children", "2"]
        calls.append(args[5:])
        return type("Done", (), {"returncode": 0})()

    monkeypatch.setattr(ms.subprocess, "run", mutmut)
    typed = []
    monkeypatch.setattr(ms, "mypy_errors", lambda root: typed.append(1) or [])
    monkeypatch.setattr(ms, "ruff_errors", lambda root: [])
    monkeypatch.setattr(ms, "fingerprint", lambda g: "source-1")

    def generated(jobs):  # mutmut's generation: every mutant, none run
        _meta(tmp_path, {f"{STATS}f__mutmut_1": None, f"{STATS}f__mutmut_2": None,
                         f"{STATS}f__mutmut_3": None, f"{STATS}g__mutmut_1": None})
        return list(ms.verdicts())

    monkeypatch.setattr(ms, "generate", generated)
    monkeypatch.setattr(ms, "judged_today", lambda: {f"{STATS}f__mutmut_2"})  # listed, judged on this source
    _meta(tmp_path, {"montecarlo.engine.stats.x_f__mutmut_1": 1})  # an earlier run of other source
    (tmp_path / "mutants" / "other").mkdir()
    assert ms.whole(2, globs) == 0
    assert not (tmp_path / "mutants" / "other").exists()
    assert json.loads(ms.WHOLE.read_text())["fingerprint"] == "source-1"
    # the listed mutant is left out (mutmut's "skipped"); without globs mutmut itself skips the
    # mutants with a verdict, named it would run them again: with globs, the others are named
    assert ms.verdicts()[f"{STATS}f__mutmut_2"] == ms.LEFT_OUT
    assert calls == [[] if not globs else [f"{STATS}f__mutmut_1", f"{STATS}f__mutmut_3"]]
    assert typed == [1]  # mypy ran once, before mutmut
    out = capsys.readouterr().out
    assert "1 mutants listed as equivalent and judged on today's source are left out" in out
    # interrupted after two verdicts: the same command runs only what is left
    _meta(tmp_path, {f"{STATS}f__mutmut_1": 1, f"{STATS}f__mutmut_2": ms.LEFT_OUT,
                     f"{STATS}f__mutmut_3": None, f"{STATS}g__mutmut_1": None})
    calls.clear()
    assert ms.whole(2, globs) == 0
    assert calls == [[] if not globs else [f"{STATS}f__mutmut_3"]]
    assert typed == [1]  # its verdicts are in: not run again on a resume
    assert (tmp_path / "mutants" / "engine" / "stats.py.meta").exists()
    # an entry judged while the run went on: that mutant is left out too when the run resumes
    monkeypatch.setattr(ms, "judged_today", lambda: {f"{STATS}f__mutmut_2", f"{STATS}f__mutmut_3"})
    calls.clear()
    assert ms.whole(2, globs) == 0
    assert ms.verdicts()[f"{STATS}f__mutmut_3"] == ms.LEFT_OUT
    assert calls == ([[]] if not globs else [])  # with globs, nothing of theirs is left to run
    # the source changed: the run starts afresh, and says why
    monkeypatch.setattr(ms, "fingerprint", lambda g: "source-2")
    calls.clear()
    capsys.readouterr()
    assert ms.whole(2, globs) == 0
    assert "changed since the run started" in capsys.readouterr().out
    assert len(calls) == 1 and ms.verdicts()[f"{STATS}f__mutmut_1"] is None


def test_a_sample_runs_only_its_mutants_that_lint_passes_and_the_list_does_not_explain(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    calls = []
    monkeypatch.setattr(ms.subprocess, "run", lambda args, check: calls.append(args[5:]) or
                        type("Done", (), {"returncode": 0})())
    names = [f"{STATS}f__mutmut_{n}" for n in range(1, 7)]

    def generated(jobs):
        _meta(tmp_path, dict.fromkeys(names))
        return list(ms.verdicts())

    monkeypatch.setattr(ms, "generate", generated)
    monkeypatch.setattr(ms, "pick", lambda every, n, seed: names[:4])
    monkeypatch.setattr(ms, "mypy_errors", lambda root: [])
    monkeypatch.setattr(ms, "ruff_errors", lambda root: [])
    monkeypatch.setattr(ms, "rejected", lambda errors, root: {names[0]: "mypy", names[5]: "ruff"})
    monkeypatch.setattr(ms, "judged_today", lambda: {names[1]})
    assert ms.sample(4, 7, 2, []) == 0
    assert calls == [names[2:4]]
    codes = ms.verdicts()
    assert (codes[names[0]], codes[names[1]], codes[names[5]]) == (ms.TYPE_CHECKED, ms.LEFT_OUT, None)
    assert "1 of them rejected by mypy or ruff (counted as killed, not run), 1 listed as equivalent " \
           "and left out; 2 to run" in capsys.readouterr().out
    # every one of the sample rejected or listed: mutmut is not started (named nothing, it runs all)
    monkeypatch.setattr(ms, "pick", lambda every, n, seed: names[:2])
    calls.clear()
    assert ms.sample(2, 7, 2, []) == 0 and calls == []


def test_a_mutant_is_left_out_only_while_its_entry_was_judged_on_todays_source(tmp_path, monkeypatch):
    listed = tmp_path / "MUTANTS.md"
    key = "montecarlo.engine.stats.x_proportion"
    now = ms.current_hash(key, {})
    assert now is not None
    listed.write_text(
        f"- [message] `{key}__mutmut_1`: judged today. <!-- judged: {key}={now} -->\n"
        f"- [message] `{key}__mutmut_2`: judged on older source. <!-- judged: {key}=0123456789ab -->\n"
        f"- [message] `{key}__mutmut_3`: never stamped.\n"
        "- [message] `montecarlo.engine.stats.x_gone__mutmut_1`: a function that went. "
        "<!-- judged: montecarlo.engine.stats.x_gone=0123456789ab -->\n"
    )
    assert ms.judged_today(listed) == {f"{key}__mutmut_1"}
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(ms, "judged_today", lambda: {f"{key}__mutmut_1", f"{STATS}g__mutmut_*"})
    _meta(tmp_path, {f"{key}__mutmut_1": None, f"{key}__mutmut_2": None, f"{STATS}g__mutmut_4": None,
                     f"{STATS}g__mutmut_5": 1})
    assert ms.leave_out_listed(["montecarlo.engine.stats.x_g*"]) == 1  # outside the globs: run as usual
    assert ms.leave_out_listed([]) == 1
    assert ms.verdicts() == {f"{key}__mutmut_1": ms.LEFT_OUT, f"{key}__mutmut_2": None,
                             f"{STATS}g__mutmut_4": ms.LEFT_OUT, f"{STATS}g__mutmut_5": 1}
    # an entry dropped from the list while the run goes on: its mutant is run after all
    monkeypatch.setattr(ms, "judged_today", lambda: {f"{STATS}g__mutmut_*"})
    assert ms.leave_out_listed([]) == 0 and ms.verdicts()[f"{key}__mutmut_1"] is None


def test_a_finished_whole_run_is_not_run_again(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(ms.subprocess, "run", lambda *a, **k: pytest.fail("mutmut started"))
    monkeypatch.setattr(ms, "fingerprint", lambda g: "source-1")
    _meta(tmp_path, {"montecarlo.engine.stats.x_f__mutmut_1": 1})
    ms.WHOLE.write_text(json.dumps({"fingerprint": "source-1", "started": "2026-12-03T09:00", "lint": True}))
    assert ms.whole(2, ["montecarlo.engine.*"]) == 0
    assert capsys.readouterr().out == "resuming the run started 2026-12-03T09:00: 1 mutants done, 0 to go\n"


def test_the_summary_of_an_unfinished_whole_run_says_how_many_are_left(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _meta(tmp_path, {f"{STATS}f__mutmut_1": 1, f"{STATS}f__mutmut_2": 0, f"{STATS}f__mutmut_3": None,
                     f"{STATS}f__mutmut_4": None})
    monkeypatch.setattr(ms, "equivalent", lambda: set())
    ms.WHOLE.write_text(json.dumps({"fingerprint": "source-1", "started": "2026-12-03T09:00", "lint": True}))
    assert ms.main([]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "killed 1 of 2 mutants (50.0%); 2 more not run yet (make mutation resumes the run)")
    # listed equivalents left out of the run are counted as listed, and the summary says so
    _meta(tmp_path, {f"{STATS}f__mutmut_1": 1, f"{STATS}f__mutmut_2": 0, f"{STATS}f__mutmut_3": None,
                     f"{STATS}f__mutmut_4": ms.LEFT_OUT})
    monkeypatch.setattr(ms, "equivalent", lambda: {f"{STATS}f__mutmut_4"})
    assert ms.main([]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("1 mutants listed as equivalent (tests/MUTANTS.md) were left out of this run, each as "
                      "it was judged on today's source: make mutation-check runs them")
    assert "1 listed, left out" in out[1] and out[-1] == (
        "killed 1 of 2 mutants (50.0%); 1 more not run yet (make mutation resumes the run)")
    ms.WHOLE.unlink()  # a run by hand (mutmut run GLOB): the mutants not named are not "left"
    assert ms.main([]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "killed 1 of 2 mutants (50.0%)"


def test_a_function_of_a_package_is_found_in_its_init(tmp_path):
    """mutmut names a package's own function ``pkg.x_f``: its source is ``pkg/__init__.py``."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("def f(x):\n    return x + 1\n")
    (tmp_path / "mod.py").write_text("def f(x):\n    return x + 1\n")
    package, module = ms.function_hashes("pkg", tmp_path), ms.function_hashes("mod", tmp_path)
    assert set(package) == {"x_f"} and package == module  # the same function, the same hash
    assert ms.function_hashes("absent", tmp_path) == {}


def test_a_fresh_tree_keeps_only_each_functions_known_killers_once(tmp_path):
    from tests import mutant_order

    assert (ms.KILLERS, ms.KILLED_BY) == (mutant_order.KILLERS, mutant_order.KILLED_BY)
    root = tmp_path / "mutants"
    root.mkdir()
    for test in ("t::a", "t::b", "t::a", "t::a"):
        mutant_order.record_killer(root, "pkg.mod.x_f", test)
    mutant_order.record_killer(root, "pkg.mod.x_g", "t::c")
    (root / "mutmut-stats.json").write_text("{}")
    (root / "pkg").mkdir()
    no_hints = tmp_path / "absent.txt"
    assert ms.fresh_tree(root, no_hints) == 2
    assert sorted(p.name for p in root.iterdir()) == [ms.KILLED_BY, ms.KILLERS]
    assert mutant_order.killers(root, "pkg.mod.x_f") == ["t::a", "t::b"]  # once each, first seen first
    assert mutant_order.killers(root, "pkg.mod.x_g") == ["t::c"]
    assert mutant_order.killers(root, "pkg.mod.x_f", {"t::a": 2.0, "t::b": 0.5}) == ["t::b", "t::a"]
    shutil.rmtree(root)
    assert ms.fresh_tree(root, no_hints) == 0 and (root / ms.KILLERS).is_dir()  # nothing to keep: a new tree


def test_the_kept_killers_seed_a_fresh_clone_and_add_to_a_used_tree(tmp_path):
    from tests import mutant_order

    root, hints = tmp_path / "mutants", tmp_path / "mutant-killers.txt"
    root.mkdir()
    for function, test in (("pkg.mod.x_f", "t::a"), ("pkg.mod.x_f", "t::b"), ("pkg.mod.x_f", "t::a"),
                           ("pkg.modǁCǁm", "t::c[x y-1]")):
        mutant_order.record_killer(root, function, test)
    assert ms.save_killers(root, hints) == 2
    assert not hints.with_name(hints.name + ".partial").exists()
    assert ms.read_hints(hints) == {"pkg.mod.x_f": ["t::a", "t::b"], "pkg.modǁCǁm": ["t::c[x y-1]"]}
    shutil.rmtree(root)  # a fresh clone: no tree, only the project's hints
    assert ms.fresh_tree(root, hints) == 2
    assert mutant_order.killers(root, "pkg.mod.x_f") == ["t::a", "t::b"]
    assert mutant_order.killers(root, "pkg.modǁCǁm") == ["t::c[x y-1]"]
    mutant_order.record_killer(root, "pkg.mod.x_f", "t::d")  # a used tree: its own killers come first
    mutant_order.record_killer(root, "pkg.mod.x_g", "t::e")
    assert ms.fresh_tree(root, hints) == 3
    assert mutant_order.killers(root, "pkg.mod.x_f") == ["t::a", "t::b", "t::d"]
    assert mutant_order.killers(root, "pkg.mod.x_g") == ["t::e"]
    for number in range(ms.HINTS_KEPT + 2):
        mutant_order.record_killer(root, "pkg.mod.x_many", f"t::k{number}")
    ms.save_killers(root, hints)
    assert ms.read_hints(hints)["pkg.mod.x_many"] == [f"t::k{n}" for n in range(ms.HINTS_KEPT)]  # first seen
    hints.write_text("# a comment\tnot a function\nbroken line\n\npkg.mod.x_h\tt::f\n", encoding="utf-8")
    assert ms.read_hints(hints) == {"pkg.mod.x_h": ["t::f"]}
    assert ms.read_hints(tmp_path / "absent.txt") == {}
    assert ms.save_killers(tmp_path / "no-run-here", hints) == 0  # nothing to keep: the file stays
    assert ms.read_hints(hints) == {"pkg.mod.x_h": ["t::f"]}


def test_each_mutants_first_killer_is_kept_and_seeds_a_fresh_clone(tmp_path):
    """--save-killers keeps each mutant's first killer beside its function's first ones (a test
    beyond those is kept too); a fresh clone's run puts it first for that mutant, and a used tree's
    own record wins over the project's."""
    from tests import mutant_order

    root, hints = tmp_path / "mutants", tmp_path / "mutant-killers.txt"
    root.mkdir()
    f = "pkg.mod.x_f"
    kills = [(f"t::k{n}", f"{f}__mutmut_{n}") for n in range(ms.HINTS_KEPT)]
    kills += [("t::k0", f"{f}__mutmut_10"), ("t::late", f"{f}__mutmut_11"), ("t::k1", f"{f}__mutmut_11")]
    for test, mutant in kills:
        mutant_order.record_killer(root, f, test, mutant)
    mutant_order.record_killer(root, "pkg.mod.x_g", "t::g")  # recorded without a mutant: no map
    assert ms.save_killers(root, hints) == 2
    line = next(text for text in hints.read_text(encoding="utf-8").splitlines() if text.startswith(f + "\t"))
    assert line.split("\t")[-1] == "#0:0 1:1 2:2 3:3 10:0 11:4"
    assert ms.read_hints(hints)[f] == [*(f"t::k{n}" for n in range(ms.HINTS_KEPT)), "t::late"]
    assert ms.read_mutant_hints(hints) == {f: {**{str(n): f"t::k{n}" for n in range(ms.HINTS_KEPT)},
                                               "10": "t::k0", "11": "t::late"}}
    shutil.rmtree(root)
    assert ms.fresh_tree(root, hints) == 2
    assert mutant_order.killers(root, f, None, f"{f}__mutmut_11")[0] == "t::late"
    assert mutant_order.killers(root, f, None, f"{f}__mutmut_2")[0] == "t::k2"
    mutant_order.record_killer(root, f, "t::new", f"{f}__mutmut_11")  # killed first by t::new here
    shutil.rmtree(root / ms.KILLED_BY)
    mutant_order.record_killer(root, f, "t::new", f"{f}__mutmut_11")
    assert ms.fresh_tree(root, hints) == 2
    assert mutant_order.killed_by(root, f)["11"] == ["t::new"]  # the tree's own record first
    hints.write_text(f"{f}\tt::a\t#1:0 2:5 x 3:\n", encoding="utf-8")  # indices past the tests: ignored
    assert ms.read_mutant_hints(hints) == {f: {"1": "t::a"}}

