"""Under mutmut, a fork server that does not hold every mutant's code: each fork costs less.

mutmut's tree defines every mutant of a function beside its original (27,817 of them in December
2026), and mutmut's fork server imports them all. Importing the whole mutated package took 664 MB
of anonymous memory against 106 MB for the package itself, and every mutant's child is a fork of
that server: the fork and the child's exit cost time in proportion to the memory mapped (measured
beside a mutation run: 78 ms for a fork and exit, 35 ms once the mutants' code was dropped and
the freed memory given back, 648 -> 231 MB).

:func:`stash` runs once in the fork server, after its imports: it writes each mutant function's
code to a file in mutmut's tree (marshalled, as a .pyc holds code), keeps the rest of what makes
the function (its globals, defaults, closure, names, annotations), checks that these rebuild an
equal function, and drops the function from its module or class and from its function's dict of
mutants (the key stays, with None, so that the trampolines still know their mutants' names).
:func:`restore` runs in the child that tests one mutant, before its tests: it rebuilds that
mutant's function from the file and puts it back where it was, the same dict object that the
trampoline reads. A mutant that would not rebuild equal is not stashed, and a module imported
after the stash keeps its mutants. ``MONTECARLO_MUTMUT_LAZY=0`` keeps every mutant in the server.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import marshal
import os
import sys
import types
from dataclasses import dataclass
from pathlib import Path

CODE_FILE = ".mutant-code"  # in mutmut's tree, suffixed with the fork server's pid
LAZY = "MONTECARLO_MUTMUT_LAZY"  # "0": the fork server keeps every mutant


@dataclass(frozen=True)
class Stashed:
    """Where one mutant function was kept, and what rebuilds it but its code (in the file)."""

    mutants: dict  # its function's dict of mutants, which the trampoline reads
    key: str
    owner: object  # the module or class that held it as an attribute, or None
    static: bool  # held as a static method
    offset: int
    length: int
    name: str
    qualname: str
    globals: dict
    defaults: tuple | None
    kwdefaults: dict | None
    closure: tuple | None
    annotations: dict
    attributes: dict


_STASH: dict[str, Stashed] = {}  # mutant name (module.key) -> where and how
_FILE: Path | None = None


def _rebuilt(code: types.CodeType, kept: Stashed) -> types.FunctionType:
    function = types.FunctionType(code, kept.globals, kept.name, kept.defaults, kept.closure)
    function.__kwdefaults__ = kept.kwdefaults
    function.__qualname__ = kept.qualname
    function.__annotations__ = kept.annotations
    function.__dict__.update(kept.attributes)
    return function


def _same(one: types.FunctionType, other: types.FunctionType) -> bool:
    return (one.__code__ == other.__code__ and one.__module__ == other.__module__
            and one.__doc__ == other.__doc__ and one.__qualname__ == other.__qualname__
            and one.__defaults__ is other.__defaults__ and one.__kwdefaults__ == other.__kwdefaults__
            and one.__closure__ is other.__closure__ and one.__globals__ is other.__globals__)


def _in_tree(module: types.ModuleType, tree: Path) -> bool:
    file = getattr(module, "__file__", None)
    if not file:
        return False
    path = Path(file).resolve()
    return path.is_relative_to(tree) and not path.is_relative_to(tree / "tests")


def _give_back_memory() -> None:
    """Collect, then hand the freed pages of the C heap back to the system (glibc's malloc_trim)."""
    gc.collect()
    name = ctypes.util.find_library("c")
    try:
        ctypes.CDLL(name).malloc_trim(0)
    except (OSError, AttributeError, TypeError):
        pass


def stash(tree: Path) -> int:
    """In mutmut's fork server: write the code of every mutant function of the loaded modules of
    ``tree`` to a file and drop the functions (see the module's docstring); how many."""
    global _FILE
    if os.environ.get(LAZY) == "0":
        return 0
    tree = tree.resolve()
    for old in tree.glob(CODE_FILE + "-*"):  # an earlier server's (one server runs at a time)
        old.unlink(missing_ok=True)
    path = tree / f"{CODE_FILE}-{os.getpid()}"
    count = 0
    with open(path, "wb") as out:
        for module_name, module in list(sys.modules.items()):
            if not isinstance(module, types.ModuleType) or not _in_tree(module, tree):
                continue
            space = vars(module)
            classes = [value for value in space.values()
                       if isinstance(value, type) and value.__module__ == module_name]
            for attribute, mutants in list(space.items()):
                if not (attribute.startswith("mutants_") and attribute.endswith("__mutmut")
                        and type(mutants) is dict):
                    continue
                for key, function in list(mutants.items()):
                    if key == "_mutmut_orig" or type(function) is not types.FunctionType:
                        continue
                    count += _stash_one(out, module_name, module, classes, mutants, key, function)
    _FILE = path
    _give_back_memory()
    return count


def _stash_one(out, module_name: str, module: types.ModuleType, classes: list[type], mutants: dict,
               key: str, function: types.FunctionType) -> int:
    try:
        blob = marshal.dumps(function.__code__)
    except ValueError:
        return 0
    def holds(held: object) -> bool:
        return held is function or (isinstance(held, staticmethod) and held.__func__ is function)

    owner = module if holds(vars(module).get(key)) else next(
        (cls for cls in classes if holds(vars(cls).get(key))), None)
    static = owner is not None and isinstance(vars(owner).get(key), staticmethod)
    kept = Stashed(mutants, key, owner, static, out.tell(), len(blob), function.__name__,
                   function.__qualname__, function.__globals__, function.__defaults__,
                   function.__kwdefaults__, function.__closure__, dict(function.__annotations__),
                   dict(function.__dict__))
    if not _same(function, _rebuilt(marshal.loads(blob), kept)):
        return 0
    out.write(blob)
    _STASH[f"{module_name}.{key}"] = kept
    mutants[key] = None
    if owner is not None:
        delattr(owner, key)
    return 1


def restore(mutant: str) -> bool:
    """In the child that tests ``mutant`` (``pkg.mod.x_f__mutmut_3``): its function rebuilt and put
    back where the server kept it; False when the server did not stash it."""
    kept = _STASH.get(mutant)
    if kept is None or _FILE is None:
        return False
    with open(_FILE, "rb") as file:
        file.seek(kept.offset)
        function = _rebuilt(marshal.loads(file.read(kept.length)), kept)
    kept.mutants[kept.key] = function
    if kept.owner is not None:
        setattr(kept.owner, kept.key, staticmethod(function) if kept.static else function)
    return True
