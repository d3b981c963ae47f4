"""Shared test set-up.

Under mutation testing (mutmut sets ``MUTANT_UNDER_TEST``) every test starts with cold caches:
mutmut forks each mutant's run from a process that has already run the suite, so memoised
results of the unmutated code (the Dune fight chain, its round tables and kernels) would
otherwise answer instead of the mutated functions, and their mutants would survive unseen.
"""

import os

import pytest


@pytest.fixture(autouse=True)
def _cold_caches_under_mutation():
    if os.environ.get("MUTANT_UNDER_TEST"):
        from montecarlo.games.dune1984 import fights

        fights.clear_caches()
    yield
