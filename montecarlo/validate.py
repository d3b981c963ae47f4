"""Validation helpers every layer shares: whole numbers in a range, unknown keys.

They raise :class:`montecarlo.errors.InputError` naming the field, so the CLI can turn any bad
value into one line and exit code 2.

>>> whole("strength", 4, 1, 6)
4
>>> is_whole(True), is_whole(3)
(False, True)
"""

from __future__ import annotations

import re
from typing import Any, Iterable

import numpy as np

from montecarlo.errors import InputError


NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")  # a game's or a report folder's name


def fit_name(text: str) -> str:
    """``text`` in :data:`NAME`'s characters: each run of others as one '-', and none of '.', '_'
    or '-' at either end ('' when nothing is left): a name to suggest, or to use, for a file's.

    >>> fit_name("  My  Duel!"), fit_name("X duel"), fit_name("__")
    ('My-Duel', 'X-duel', '')
    """
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("._-")


def is_whole(value: Any) -> bool:
    """True for an int (numpy ints too), False for bools, floats and everything else."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def whole(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an int if it is a whole number in ``low..high``, else InputError naming ``name``."""
    if not is_whole(value) or value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise InputError(f"{name} must be an integer {span}, got {value!r}")
    return int(value)


def check_known(given: Iterable[str], known: Iterable[str], what: str) -> None:
    """InputError listing the unknown keys of ``given`` (and the known ones) if there are any.

    >>> check_known(["a", "x"], ["a", "b"], "duel setup")
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: duel setup: unknown field(s) x; known: a, b
    """
    known = list(known)
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise InputError(f"{what}: unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")


def first_repeated(values: Iterable[Any]) -> Any | None:
    """The first value that comes again after an equal one (None when none does): a name given
    twice, which a list of names would otherwise count once or let undo itself.

    >>> first_repeated(["a", "b", "b", "a"]), first_repeated(["a", "b"])
    ('b', None)
    """
    seen: set[Any] = set()
    for value in values:
        if value in seen:
            return value
        seen.add(value)
    return None
