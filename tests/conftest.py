"""Shared test set-up.

Under mutation testing (mutmut sets ``MUTANT_UNDER_TEST``) every test starts with cold caches:
mutmut forks each mutant's run from a process that has already run the suite, so memoised
results of the unmutated code (the Dune fight chain, War for Arrakis round tables, Dustrunners
deck tables, compiled rules-as-data files, every ``functools.lru_cache`` of the games, the engine
and the rules-as-data reader) would otherwise answer instead of the mutated functions, and their
mutants would survive unseen.

For the same reason a fixture shared by a module's tests is built once per test under mutation
(:func:`per_test_under_mutation`): mutmut's census credits the work a module fixture does to the
first test that builds it, so the module's other tests, the ones that read the result, would never
run against the mutants of the code the fixture calls.
"""

import os
import sys

import pytest


CACHED = ("montecarlo.games", "montecarlo.engine", "montecarlo.datagame")  # modules that memoise


def _clear_every_cache() -> None:
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(CACHED):
            continue
        clear = getattr(module, "clear_caches", None)
        if callable(clear):
            clear()
        if isinstance(getattr(module, "_CACHE", None), dict):  # the rules-as-data files compiled
            module._CACHE.clear()
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


@pytest.fixture(autouse=True)
def _cold_caches_under_mutation():
    if os.environ.get("MUTANT_UNDER_TEST"):
        _clear_every_cache()
    yield


def per_test_under_mutation(fixture_name: str, config) -> str:
    """Scope of a fixture shared by a module's tests: the module, except under mutation testing."""
    return "function" if os.environ.get("MUTANT_UNDER_TEST") else "module"
