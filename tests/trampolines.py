"""Under mutmut, a cheaper dispatch for the functions a mutant's run does not mutate.

mutmut puts every mutated function of the package behind a trampoline that, on each call, reads
which mutant is active (from ``os.environ``) and forwards to the original function or to the
mutant. A mutant's run changes one function, yet every call of every other function paid that
dispatch.

:func:`prepare` runs once in mutmut's fork server, after it has collected the tests: it finds
every trampoline of the loaded package. :func:`bypass` runs in the child that tests one mutant,
before its tests: every trampoline but the mutated function's own is given code that forwards
straight to its original. The functions stay the same objects wherever they are kept (module
names, dicts of kernels, pickles by name); only their dispatch gets cheaper, and the mutated
function's trampoline, untouched, still forwards to the mutant.
"""

from __future__ import annotations

import gc
import sys
import types
from dataclasses import dataclass


@dataclass(frozen=True)
class Trampoline:
    """mutmut's inner trampoline of one function, with what its closure holds."""

    function: types.FunctionType  # the inner ``trampoline`` closure mutmut's wrapper calls
    module: str  # the module of the mutated function, as mutants name it
    mutants: dict  # "_mutmut_orig" and the mutants' names -> functions


def _closure(function: types.FunctionType) -> dict[str, object]:
    """What a closure holds, by the names its code reads them under."""
    cells = function.__closure__ or ()
    return dict(zip(function.__code__.co_freevars, (cell.cell_contents for cell in cells)))


def _inner_code() -> types.CodeType | None:
    """The code every inner trampoline shares; None outside mutmut's tree."""
    module = sys.modules.get("mutmut.mutation.trampoline")  # loaded by the package's modules
    if module is None:
        return None
    probe = module.wrap_in_trampoline({})(lambda: None)
    function = _closure(probe).get("trampoline")
    return function.__code__ if isinstance(function, types.FunctionType) else None


def _trampoline_code(freevars: tuple[str, ...], body: str) -> types.CodeType | None:
    """Code for an inner trampoline with these free variables (mutmut's closure, read and dropped)
    that runs ``body`` (lines indented for the function)."""
    if "mutants_dict" not in freevars or not all(name.isidentifier() for name in freevars):
        return None
    source = (f"def outer({', '.join(freevars)}):\n"
              f"    def trampoline(*args, **kwargs):\n"
              f"        {', '.join(freevars)},\n"  # the same closure as mutmut's, read and dropped
              f"{body}"
              f"    return trampoline\n")
    namespace: dict = {}
    exec(compile(source, __file__, "exec"), namespace)
    code = namespace["outer"](*freevars).__code__
    return code if code.co_freevars == freevars else None


def _straight_code(freevars: tuple[str, ...]) -> types.CodeType | None:
    """Code for an inner trampoline with these free variables that calls the original function."""
    return _trampoline_code(freevars, "        return mutants_dict['_mutmut_orig'](*args, **kwargs)\n")


def _recording_code(freevars: tuple[str, ...]) -> types.CodeType | None:
    """Code for an inner trampoline with these free variables that records its function as reached
    by the running test (mutmut's census) and calls the original function."""
    return _trampoline_code(freevars, ("        original = mutants_dict['_mutmut_orig']\n"
                                       f"        {RECORD}(original)\n"
                                       "        return original(*args, **kwargs)\n"))


RECORD = "_montecarlo_census_record"  # the recorder's name among the trampolines' globals


def _recorder():
    """What mutmut's census trampoline records of a call (``record_trampoline_hit``): the function's
    name in the set of those the running test reached. The name is worked out once per function."""
    from mutmut.state import state
    from mutmut.utils.format_utils import mangled_name_from_mutant_name

    names: dict = {}

    def record(original) -> None:
        name = names.get(original)
        if name is None:
            name = f"{original.__module__}.{mangled_name_from_mutant_name(original.__name__)}"
            names[original] = name
        state()._stats.add(name)

    return record


def record_only() -> int:
    """In mutmut's census: every trampoline records its function and calls the original, without
    mutmut's bookkeeping of each call (the active mutant read from the environment, the caller kept
    in a context variable, the configuration read again). mutmut keeps the callers only to reset
    verdicts when a run resumes on changed source, which ``make mutation`` never does (it starts
    afresh). How many trampolines were changed."""
    trampolines, code = _found_with(_recording_code)
    if code is None:
        return 0
    trampolines[0].function.__globals__[RECORD] = _recorder()
    for trampoline in trampolines:
        trampoline.function.__code__ = code
    return len(trampolines)


def prepare() -> list[Trampoline]:
    """Every plain function's inner trampoline in this process (not a classmethod's: the class it
    is called on picks the function)."""
    code = _inner_code()
    if code is None:
        return []
    found = []
    for obj in gc.get_objects():
        if type(obj) is types.FunctionType and obj.__code__ is code:
            cells = _closure(obj)
            mutants, decorated = cells.get("mutants_dict"), cells.get("decorated_func")
            if isinstance(mutants, dict) and cells.get("is_classmethod") is False and (
                    isinstance(mutants.get("_mutmut_orig"), types.FunctionType)):
                found.append(Trampoline(obj, getattr(decorated, "__module__", ""), mutants))
    return found


_PREPARED: list[Trampoline] | None = None


def _found_with(code_for) -> tuple[list[Trampoline], types.CodeType | None]:
    """The trampolines (found once in the fork server, else now), and the code ``code_for`` gives
    for their closure (None when there are none)."""
    trampolines = prepare() if _PREPARED is None else _PREPARED
    return trampolines, code_for(trampolines[0].function.__code__.co_freevars) if trampolines else None


def prepare_once(again: bool = False) -> None:
    """In mutmut's fork server: find the trampolines now, once, for every mutant's child (``again``:
    once more, after more modules were imported)."""
    global _PREPARED
    if _PREPARED is None or again:
        _PREPARED = prepare()


def bypass(mutant: str) -> int:
    """Every trampoline but the one of ``mutant``'s function (``package.module.x_f__mutmut_3``)
    forwards straight to its original from now on; how many were changed."""
    trampolines, straight = _found_with(_straight_code)
    if straight is None:
        return 0
    module, _, name = mutant.rpartition(".")
    changed = 0
    for trampoline in trampolines:
        if trampoline.module == module and name in trampoline.mutants:
            continue
        trampoline.function.__code__ = straight
        changed += 1
    return changed
