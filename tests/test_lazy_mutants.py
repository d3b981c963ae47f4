"""tests/lazy_mutants.py: a fork server without its mutants' code, each child's mutant rebuilt."""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

from tests import lazy_mutants

SOURCE = '''
"""A module as mutmut's tree holds it, with the shapes of function the package has."""
from __future__ import annotations

LIMIT = 3


def scaled(x: int, by: int = LIMIT) -> int:
    """A default read from the module."""
    return x * by + 1


class Base:
    def __init__(self, n: int) -> None:
        self.n = n


class Counter(Base):
    def __init__(self, n: int) -> None:
        super().__init__(n + 1)

    def grown(self, step: int = 2) -> int:
        total = 0
        for _ in range(step):
            total += self.n
        return total

    @staticmethod
    def half(x: int) -> int:
        return x // 2
'''


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A tree with one mutated module (mutmut's own generation), imported as mutmut's server does."""
    from mutmut.mutation.file_mutation import mutate_file_contents

    package = tmp_path / "lazypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(mutate_file_contents("lazypkg/mod.py", textwrap.dedent(SOURCE)).code)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(lazy_mutants, "_STASH", {})
    monkeypatch.setattr(lazy_mutants, "_FILE", None)
    monkeypatch.delenv(lazy_mutants.LAZY, raising=False)
    monkeypatch.delenv("MUTANT_UNDER_TEST", raising=False)
    module = importlib.import_module("lazypkg.mod")
    yield tmp_path, module
    for name in ("lazypkg.mod", "lazypkg"):
        sys.modules.pop(name, None)


def _mutants(module) -> dict[str, dict]:
    return {name: value for name, value in vars(module).items()
            if name.startswith("mutants_") and name.endswith("__mutmut")}


def _outputs(module) -> dict[str, tuple]:
    """What every mutant of the module gives on the same calls (an exception's type counts). The
    active mutant is set in mutmut's process-local variable only: with MUTANT_UNDER_TEST in the
    environment, tests/conftest.py would take this test for a mutant's run."""
    from mutmut.mutation import trampoline

    def call(f):
        try:
            return f()
        except Exception as error:  # a mutant may raise: that is an output too
            return type(error).__name__

    out = {}
    try:
        for mutants in _mutants(module).values():
            for key in mutants:
                if key == "_mutmut_orig":
                    continue
                trampoline._mutant_under_test = f"lazypkg.mod.{key}"
                lazy_mutants.restore(f"lazypkg.mod.{key}")
                out[key] = (call(lambda: module.scaled(2)), call(lambda: module.scaled(2, by=5)),
                            call(lambda: module.Counter(3).grown()), call(lambda: module.Counter.half(9)))
    finally:
        trampoline._mutant_under_test = None
    return out


def test_every_mutant_rebuilt_in_a_child_behaves_as_mutmuts_own(tree):
    """Each mutant, stashed then restored, gives what mutmut's own definition gave on the same
    calls: a default read from the module, a method that calls super() (a closure), a loop, a
    static method. Their code is gone from the module and class, their names stay in the dicts."""
    root, module = tree
    before = _outputs(module)
    assert len(before) > 10 and len(set(before.values())) > 3  # the mutants differ among themselves
    keys = {name: set(mutants) for name, mutants in _mutants(module).items()}
    stashed = lazy_mutants.stash(root)
    assert stashed == len(before)
    assert {name: set(mutants) for name, mutants in _mutants(module).items()} == keys
    gone = [key for mutants in _mutants(module).values() for key, value in mutants.items()
            if value is None]
    assert len(gone) == stashed
    assert not any(hasattr(module, key) or hasattr(module.Counter, key) for key in gone)
    assert [path.name for path in root.glob(lazy_mutants.CODE_FILE + "-*")] != []
    assert _outputs(module) == before
    restored = next(key for key in gone if key.startswith("xǁCounterǁ__init__"))
    mutants = _mutants(module)["mutants_xǁCounterǁ__init____mutmut"]
    assert getattr(module.Counter, restored) is mutants[restored]
    static = next(key for key in gone if key.startswith("xǁCounterǁhalf"))
    assert isinstance(vars(module.Counter)[static], staticmethod)


def test_without_a_stash_nothing_is_restored_and_lazy_0_keeps_every_mutant(tree, monkeypatch):
    root, module = tree
    assert lazy_mutants.restore("lazypkg.mod.x_scaled__mutmut_1") is False  # nothing stashed yet
    monkeypatch.setenv(lazy_mutants.LAZY, "0")
    assert lazy_mutants.stash(root) == 0
    assert all(value is not None for mutants in _mutants(module).values() for value in mutants.values())
    assert lazy_mutants.restore("lazypkg.mod.x_scaled__mutmut_1") is False
