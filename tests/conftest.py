"""Shared test set-up.

Under mutation testing (mutmut sets ``MUTANT_UNDER_TEST``) every test starts with cold caches:
mutmut forks each mutant's run from a process that has already run the suite, so memoised
results of the unmutated code (the Dune fight chain, War for Arrakis round tables, Dustrunners
deck tables, compiled rules-as-data files, every ``functools.lru_cache`` of the games, the engine
and the rules-as-data reader) would otherwise answer instead of the mutated functions, and their
mutants would survive unseen.

A fixture shared by a module's tests is built once per test in mutmut's census
(:func:`per_test_under_mutation`): the census credits the work a module fixture does to the first
test that builds it, so the module's other tests, the ones that read the result, would never run
against the mutants of the code the fixture calls. In a mutant's run it is built once per module,
under the mutant, with nothing memoised by the unmutated code (every cache is emptied before the
first fixture).
"""

import gc
import os
import sys
from pathlib import Path

import pytest

from tests import mutant_order, mutmut_shards, session_server, trampolines


# This file and the modules of tests/ it imports: what a copy of it needs (tests build small trees)
HARNESS = ("conftest.py", "lazy_mutants.py", "mutant_order.py", "mutmut_shards.py", "plot_memo.py",
           "session_server.py", "trampolines.py")
CACHED = ("montecarlo.games", "montecarlo.engine", "montecarlo.datagame")  # modules that memoise


_CLEARERS: tuple[int, list] = (-1, [])  # (how many modules were loaded, their caches' clear methods)


def _cache_clearers() -> list:
    """The clear methods of every memo of the modules loaded, found again when more are loaded:
    in mutmut's tree a module holds thousands of mutants, too many to walk before every test."""
    global _CLEARERS
    if _CLEARERS[0] != len(sys.modules):
        found = []
        for name, module in list(sys.modules.items()):
            if module is None or not name.startswith(CACHED):
                continue
            clear = getattr(module, "clear_caches", None)
            if callable(clear):
                found.append(clear)
            if isinstance(getattr(module, "_CACHE", None), dict):  # the rules-as-data files compiled
                found.append(module._CACHE.clear)
            found.extend(value.cache_clear for value in list(vars(module).values())
                         if callable(getattr(value, "cache_clear", None)))
        _CLEARERS = (len(sys.modules), found)
    return _CLEARERS[1]


def _clear_every_cache() -> None:
    for clear in _cache_clearers():
        clear()


def skip_doctests_of_mutmut_copies() -> None:
    """Under mutmut, doctest finds no examples in mutmut's copies of a function (``x_f__mutmut_3``,
    ``x_f__mutmut_orig``), only in the function itself.

    mutmut keeps a copy of each mutated function beside it, docstring and all, so a module of its
    tree holds its doctests once per mutant: 1,514 of the 1,636 doctests mutmut's census ran in
    December 2026, each calling the function by its own name, which is the function's own doctest
    again. Finding them made collecting ``reporting/findings.py``'s doctests in a warm process take
    0.30 s instead of 0.13 s, in every mutant's run that needs one of them."""
    import doctest

    find = doctest.DocTestFinder._find
    if getattr(find, "skips_mutmut_copies", False):
        return

    def _find(self, tests, obj, name, *rest):
        if "__mutmut_" not in name:
            find(self, tests, obj, name, *rest)

    _find.skips_mutmut_copies = True  # type: ignore[attr-defined]
    doctest.DocTestFinder._find = _find  # type: ignore[method-assign]


if "MUTANT_UNDER_TEST" in os.environ:
    skip_doctests_of_mutmut_copies()


def pytest_configure(config):
    """Under mutmut, freeze the heap this process was forked with before the tests run.

    mutmut runs each mutant's tests in a child forked from a server that has collected the whole
    selection (every test module, numpy, polars, matplotlib...): without this, every collection
    of the garbage collector in the child, pytest's own at the end of the run among them, walks
    that whole heap again (and writes to its pages, which the child then copies). Measured on
    2 cores (December 2026): one cheap mutant's run in such a child took 0.84-0.98 s, 0.22-0.26 s
    with the heap frozen; a whole run has about 25,800 mutants. The objects the tests create are
    collected as usual.
    """
    if "MUTANT_UNDER_TEST" in os.environ:
        gc.freeze()


# mutmut's tree (mutants/) when these tests run there; its census times, read once by the fork
# server that collects the tests (each mutant's child inherits them); empty anywhere else.
_TREE = Path(__file__).resolve().parent.parent
_CENSUS = mutant_order.census_durations(_TREE)


_WANTED: dict[str, set[str]] = {}  # under mutmut: per test file being collected, the tests wanted
_LATER = pytest.StashKey[list]()  # under mutmut: the node ids collected once the first ones pass
_KILLERS = pytest.StashKey[list]()  # under mutmut: the mutated function's known killers, read once


def _mutated_function() -> str | None:
    """The function whose mutant this run tests; None outside mutmut's mutant runs."""
    return mutant_order.function_of(os.environ.get("MUTANT_UNDER_TEST", ""))


def _collect(session, args) -> None:
    global _WANTED
    _WANTED = mutant_order.wanted_tests(args) or {}
    session.perform_collect(args)


def pytest_collection(session):
    """Under mutmut, collect a mutant's likely killers alone first (tests/mutant_order.py)."""
    function = _mutated_function()
    if function is None:
        return None
    killers = session.config.stash[_KILLERS] = mutant_order.killers(
        _TREE, function, _CENSUS, os.environ["MUTANT_UNDER_TEST"])
    first, *later = mutant_order.stages(session.config.args, killers)
    session.stash[_LATER] = later
    _collect(session, first)
    return True


def pytest_pycollect_makeitem(collector, name, obj):
    """Under mutmut, a test file's tests that the mutant's run does not name are not collected."""
    wanted = _WANTED.get(collector.nodeid)
    if wanted is not None and name not in wanted and (collector.funcnamefilter(name)
                                                      or collector.classnamefilter(name)):
        return []
    return None


def pytest_collection_finish(session):
    """Under mutmut, the functions the mutant leaves alone are called without their trampolines
    (tests/trampolines.py), now that the tests and the package's modules are imported, and the
    plots that the mutant cannot change are drawn once (tests/plot_memo.py); in mutmut's census,
    the trampolines only record which functions each test reaches."""
    if _mutated_function() is not None:
        session_server.prepare_mutant(_TREE, os.environ["MUTANT_UNDER_TEST"])
    elif "MUTANT_UNDER_TEST" in os.environ:  # mutmut's fork server collecting, or its census
        trampolines.prepare_once()
        if os.environ["MUTANT_UNDER_TEST"] == "stats":
            trampolines.record_only()


def pytest_sessionfinish(session):
    """In mutmut's census, spread over children: which modules its tests loaded, for the fork
    server to import once (tests/mutmut_shards.py)."""
    if os.environ.get("MUTANT_UNDER_TEST") == "stats" and mutmut_shards.shared_counter() is not None:
        mutmut_shards.record_modules(_TREE)


def pytest_runtestloop(session):
    """Under mutmut, run the likely killers, then collect and run the rest if none failed; in
    mutmut's census or clean run spread over several children (tests/mutmut_shards.py), run only
    the tests this child claims."""
    shared = mutmut_shards.shared_counter()
    if shared is not None:
        mutmut_shards.run_claimed(session, *shared)
        return True
    later = session.stash.get(_LATER, [])
    if not later:
        return None
    from _pytest.main import pytest_runtestloop as run_items

    run_items(session)
    for args in later:
        if session.testsfailed:
            break
        _collect(session, args)
        run_items(session)
    return True


def pytest_collection_modifyitems(config, items):
    """Under mutmut, a mutant's tests in the order that finds a failure soonest (tests/mutant_order.py);
    its known killers were read by :func:`pytest_collection`, which collects them."""
    killers = config.stash.get(_KILLERS, None)
    if killers is not None:
        items[:] = mutant_order.ordered(items, lambda item: item.nodeid, _CENSUS, killers)


def pytest_runtest_logreport(report):
    """Under mutmut, remember the test that killed a mutant for the next mutants of its function,
    and for this mutant's next run."""
    if report.failed:
        function = _mutated_function()
        if function is not None:
            mutant_order.record_killer(_TREE, function, report.nodeid, os.environ["MUTANT_UNDER_TEST"])


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """A test that runs the CLI's ``main()`` here leaves Ctrl-C and kills ignored, as a command
    does while it exits: this process gets its own handlers back."""
    import signal

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for number, handler in handlers.items():
        if signal.getsignal(number) is not handler:
            signal.signal(number, handler)


@pytest.fixture(scope="session", autouse=True)
def _cold_caches_before_any_fixture_under_mutation():
    """Before a mutant's first fixture is built: nothing memoised by the unmutated code (the fork
    server's imports and collection) answers for the mutant."""
    if os.environ.get("MUTANT_UNDER_TEST"):
        _clear_every_cache()


@pytest.fixture(autouse=True)
def _cold_caches_under_mutation():
    if os.environ.get("MUTANT_UNDER_TEST"):
        _clear_every_cache()
    yield


def per_test_under_mutation(fixture_name: str, config) -> str:
    """Scope of a fixture shared by a module's tests: the module, except in mutmut's census.

    The census (``MUTANT_UNDER_TEST`` is "stats") credits each test with the functions it calls,
    a fixture's set-up included; built once per test there, a module fixture credits every test
    that reads it, not just the first. A mutant's run then builds it once, under the mutant, for
    all of that module's tests it runs (measured, December 2026: report mutants killed after 39,
    16 and 14 s of tests took 9, 6.5 and 6.3 s)."""
    return "function" if os.environ.get("MUTANT_UNDER_TEST") == "stats" else "module"
