"""Calls past mutmut's trampolines in a mutant's run (tests/trampolines.py)."""

from __future__ import annotations

import functools
import os
import pickle
import sys
import types

import pytest

from tests import trampolines


def _fake_module(name: str, wrap) -> types.ModuleType:
    """A module as mutmut writes it: ``double`` and ``C.half`` behind trampolines, one mutant each."""
    module = types.ModuleType(name)
    source = '''
def x_double__mutmut_orig(n):
    return 2 * n
def x_double__mutmut_1(n):
    return 3 * n
mutants_double = {"_mutmut_orig": x_double__mutmut_orig, "x_double__mutmut_1": x_double__mutmut_1}
@wrap(mutants_double)
def double(n):
    """Twice n."""
class C:
    def xǁCǁhalf__mutmut_orig(self, n):
        return n / 2
    def xǁCǁhalf__mutmut_1(self, n):
        return n / 3
    mutants_half = {"_mutmut_orig": xǁCǁhalf__mutmut_orig, "xǁCǁhalf__mutmut_1": xǁCǁhalf__mutmut_1}
    @wrap(mutants_half)
    def half(self, n):
        """Half n."""
def quadruple(n):
    return double(double(n))
KEPT = {"double": double}
'''
    module.wrap = wrap
    exec(compile(source, name, "exec"), vars(module))
    return module


def _wrap_in_trampoline(mutants_dict, is_classmethod=False):
    """mutmut's ``wrap_in_trampoline`` (mutmut 3.8) in short: the same closures, the same dispatch."""
    def mutmut_mutated(decorated_func):
        def trampoline(*args, **kwargs):
            if is_classmethod:
                raise NotImplementedError
            module, _, name = os.environ.get("MUTANT_UNDER_TEST", "").rpartition(".")
            mutant = mutants_dict.get(name) if module == decorated_func.__module__ else None
            return (mutant or mutants_dict["_mutmut_orig"])(*args, **kwargs)

        @functools.wraps(decorated_func)
        def _trampoline_wrapper(*args, **kwargs):
            return trampoline(*args, **kwargs)
        return _trampoline_wrapper
    return mutmut_mutated


@pytest.fixture(params=["mutmut", "its closures alone"])
def mutmut_tree(request, monkeypatch):
    """The package as in mutmut's tree: a module behind trampolines (mutmut's own when the dev
    extra is installed, else the same closures), and the mutant under test."""
    if request.param == "mutmut":
        trampoline = pytest.importorskip("mutmut.mutation.trampoline")
    else:
        trampoline = types.ModuleType("mutmut.mutation.trampoline")
        trampoline.wrap_in_trampoline = _wrap_in_trampoline
        monkeypatch.setitem(sys.modules, trampoline.__name__, trampoline)
    module = _fake_module("montecarlo.fake_mutated", trampoline.wrap_in_trampoline)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(trampolines, "_PREPARED", None)

    def activate(mutant: str) -> None:
        monkeypatch.setenv("MUTANT_UNDER_TEST", mutant)
    return module, activate


def test_the_unmutated_functions_forward_straight_to_their_originals(mutmut_tree):
    module, activate = mutmut_tree
    double = module.double
    activate("montecarlo.fake_mutated.xǁCǁhalf__mutmut_1")
    assert trampolines.bypass("montecarlo.fake_mutated.xǁCǁhalf__mutmut_1") >= 1
    assert module.double is double is module.KEPT["double"]  # the same objects wherever kept
    assert double(5) == 10 and module.quadruple(1) == 4
    assert pickle.loads(pickle.dumps(double)) is double  # found again by its name
    assert module.C().half(6) == 2  # the mutated method keeps its trampoline: the mutant answers
    activate("montecarlo.fake_mutated.x_double__mutmut_1")  # no longer read by double's dispatch
    assert double(5) == 10 and module.C().half(6) == 3


def test_the_mutated_function_keeps_its_trampoline(mutmut_tree):
    module, activate = mutmut_tree
    activate("montecarlo.fake_mutated.x_double__mutmut_1")
    trampolines.prepare_once()  # as mutmut's fork server does, before the mutant's child
    trampolines.bypass("montecarlo.fake_mutated.x_double__mutmut_1")
    assert module.double(5) == 15 and module.quadruple(1) == 9 and module.KEPT["double"](1) == 3
    assert module.C().half(6) == 3  # unmutated: straight to the original
    assert module.double.__name__ == "double" and module.double.__doc__ == "Twice n."


def test_outside_mutmuts_tree_nothing_is_touched(monkeypatch):
    monkeypatch.setattr(trampolines, "_PREPARED", None)
    monkeypatch.delitem(sys.modules, "mutmut.mutation.trampoline", raising=False)
    assert trampolines.prepare() == []
    assert trampolines.bypass("montecarlo.engine.stats.x_wilson__mutmut_1") == 0


def test_in_the_census_a_trampoline_records_what_mutmuts_own_records(mutmut_tree, request, monkeypatch):
    """mutmut's census (``MUTANT_UNDER_TEST`` "stats"): the same functions recorded, by the same names,
    whether mutmut's trampolines record them or :func:`trampolines.record_only`'s."""
    mutmut_state = pytest.importorskip("mutmut.state")
    module, activate = mutmut_tree
    activate("stats")
    monkeypatch.setattr(mutmut_state, "_state", None)
    expected = {"montecarlo.fake_mutated.x_double", "montecarlo.fake_mutated.xǁCǁhalf"}
    if request.node.callspec.params["mutmut_tree"] == "mutmut":  # mutmut's own census first
        assert module.quadruple(1) == 4 and module.C().half(6) == 3
        assert mutmut_state.state()._stats == expected
        mutmut_state.state()._stats.clear()
    globals_ = trampolines.prepare()[0].function.__globals__
    monkeypatch.setitem(globals_, trampolines.RECORD, None)  # taken back after the test
    assert trampolines.record_only() >= 2  # (with those of earlier tests not yet collected)
    assert mutmut_state.state()._stats == set()
    assert module.double(5) == 10 and module.KEPT["double"](1) == 2  # the same objects, the originals
    assert mutmut_state.state()._stats == {"montecarlo.fake_mutated.x_double"}
    assert module.quadruple(1) == 4 and module.C().half(6) == 3
    assert mutmut_state.state()._stats == expected
    activate("montecarlo.fake_mutated.x_double__mutmut_1")  # the census never has a mutant: ignored
    assert module.double(5) == 10
