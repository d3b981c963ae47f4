"""A report's plots drawn once for the mutants that cannot change them (tests/plot_memo.py)."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

from montecarlo.reporting import plots
from tests import plot_memo

MUTANT = "montecarlo.reporting.report.x__unit_order__mutmut_14"  # report.py: a SAFE module


@pytest.fixture
def tree(tmp_path):
    """mutmut's tree after its census: the stats file and a module of the package."""
    root = tmp_path / "mutants"
    (root / "montecarlo" / "reporting").mkdir(parents=True)
    (root / "montecarlo" / "reporting" / "report.py").write_text("# mutants\n")
    (root / "mutmut-stats.json").write_text("{}")
    return root


@pytest.fixture
def drawn(monkeypatch):
    """A stand-in for the plots module's draw_file that counts its draws; the memo wraps it."""
    calls: list[tuple] = []

    def draw_file(kind, spec, sc, results, comparison, path):
        calls.append((kind, spec))
        if kind == "nothing":
            return None
        Path(path).write_bytes(f"PNG of {kind} {spec} {results}".encode())
        return f"caption of {kind}"

    monkeypatch.setattr(plots, "draw_file", draw_file)
    return calls


def _args(tmp_path: Path, session, kind="bars", spec="spec", results=(1, 2)) -> tuple:
    """draw_file's arguments in a test session's temporary folder (a scenario file, a report)."""
    folder = tmp_path / "pytest-of-me" / f"pytest-{session}" / "report0"
    folder.mkdir(parents=True, exist_ok=True)
    return (kind, spec, {"path": folder / "scenario.toml"}, results, None, folder / "plot-01.png")


def test_a_plot_is_drawn_once_then_read_back_byte_for_byte(tree, drawn, tmp_path):
    assert plot_memo.install(tree, MUTANT)
    first = _args(tmp_path, 1)
    second = _args(tmp_path, 2)  # another test session: another temporary folder
    assert plots.draw_file(*first) == plots.draw_file(*second) == "caption of bars"
    assert len(drawn) == 1
    assert first[-1].read_bytes() == second[-1].read_bytes() == b"PNG of bars spec (1, 2)"


def test_other_inputs_are_drawn_again(tree, drawn, tmp_path):
    plot_memo.install(tree, MUTANT)
    for session, (kind, spec, results) in enumerate([("bars", "s", (1,)), ("lines", "s", (1,)),
                                                     ("bars", "t", (1,)), ("bars", "s", (2,))]):
        args = _args(tmp_path, session, kind, spec, results)
        plots.draw_file(*args)
        assert args[-1].read_bytes() == f"PNG of {kind} {spec} {results}".encode()
    assert len(drawn) == 4


def test_nothing_to_draw_is_remembered_and_writes_no_file(tree, drawn, tmp_path):
    plot_memo.install(tree, MUTANT)
    for session in (1, 2):
        args = _args(tmp_path, session, kind="nothing")
        assert plots.draw_file(*args) is None and not args[-1].exists()
    assert len(drawn) == 1


@pytest.mark.parametrize("mutant", ["montecarlo.reporting.tables.x_fmt__mutmut_3",
                                    "montecarlo.scenarios.x_show_value__mutmut_1",
                                    "montecarlo.engine.stats.x_wilson__mutmut_2", "stats", ""])
def test_only_mutants_of_modules_a_plot_never_runs_are_memoised(tree, drawn, tmp_path, mutant):
    assert not plot_memo.install(tree, mutant)
    for session in (1, 2):
        plots.draw_file(*_args(tmp_path, session))
    assert len(drawn) == 2


def test_no_memo_before_mutmut_s_census(tree, drawn, tmp_path):
    (tree / "mutmut-stats.json").unlink()
    assert not plot_memo.install(tree, MUTANT)


def test_a_draw_that_runs_code_of_a_memoised_module_is_never_stored(tree, drawn, tmp_path, monkeypatch):
    """If drawing ran code of report.py, a mutant of it could change the plot: it is drawn each time."""
    namespace: dict = {}
    exec(compile("def helper():\n    return 1\n", str(tree / "montecarlo" / "reporting" / "report.py"),
                 "exec"), namespace)
    inner = plots.draw_file

    def draw_file(*args):
        namespace["helper"]()
        return inner(*args)

    monkeypatch.setattr(plots, "draw_file", draw_file)
    plot_memo.install(tree, MUTANT)
    for session in (1, 2):
        assert plots.draw_file(*_args(tmp_path, session)) == "caption of bars"
    assert len(drawn) == 2


def test_a_patched_plots_module_or_changed_settings_draw_again(tree, drawn, tmp_path, monkeypatch):
    plot_memo.install(tree, MUTANT)
    plots.draw_file(*_args(tmp_path, 1))
    with monkeypatch.context() as patch:
        patch.setattr(plots, "save_png", lambda fig, path: None)  # as the tests of a failing disk do
        plots.draw_file(*_args(tmp_path, 2))
    with monkeypatch.context() as patch:
        patch.setitem(matplotlib.rcParams, "font.size", 3.0)
        plots.draw_file(*_args(tmp_path, 3))
    plots.draw_file(*_args(tmp_path, 4))
    assert len(drawn) == 3


def test_inputs_that_do_not_pickle_are_drawn(tree, drawn, tmp_path):
    plot_memo.install(tree, MUTANT)
    for session in (1, 2):
        args = list(_args(tmp_path, session))
        args[3] = lambda: None  # a local function does not pickle
        plots.draw_file(*args)
    assert len(drawn) == 2


def test_a_new_tree_does_not_read_an_old_tree_s_memo(tree, drawn, tmp_path):
    stand_in = plots.draw_file
    plot_memo.install(tree, MUTANT)
    plots.draw_file(*_args(tmp_path, 1))
    plots.draw_file = stand_in  # the next child forks from a process where no memo was installed
    (tree / "montecarlo" / "reporting" / "report.py").write_text("# mutants, generated again\n")
    plot_memo.install(tree, MUTANT)  # the next child, after mutmut generated its tree again
    plots.draw_file(*_args(tmp_path, 2))
    assert len(drawn) == 2
