"""The package's few exceptions.

Library code raises these; only :mod:`montecarlo.cli` turns them into a one-line message and
exit code 2, so a user never sees a traceback for a mistake of theirs.
"""


class MonteCarloError(Exception):
    """Base of every error the package raises on purpose."""


class InputError(MonteCarloError, ValueError):
    """A setup, rule override, variant name or option that is not valid."""


class ScenarioError(InputError):
    """A scenario file that cannot be read or does not validate."""
