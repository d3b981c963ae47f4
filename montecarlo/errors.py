"""The package's few exceptions.

Library code raises these; only :mod:`montecarlo.cli` turns them into a one-line message and
exit code 2, so a user never sees a traceback for a mistake of theirs.
"""

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager


class MonteCarloError(Exception):
    """Base of every error the package raises on purpose."""


class InputError(MonteCarloError, ValueError):
    """A setup, rule override, variant name or option that is not valid."""


class ScenarioError(InputError):
    """A scenario file that cannot be read or does not validate."""


class Caution(UserWarning):
    """A setup the rules allow but a player may not mean (characters of one house on opposite
    sides): a Python warning of the API, which the CLI prints as its own "warning:" line."""


def caution_about(cautions: Iterable[str]) -> None:
    """Each caution once, as a :class:`Caution` warning that points at the caller's own line
    (the first one outside this package), however deep in it the setup was checked."""
    import warnings

    for text in dict.fromkeys(cautions):
        warnings.warn(text, Caution, stacklevel=outside_level())


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def outside_level() -> int:
    """The ``stacklevel`` that makes a warning raised by this function's caller name the first
    frame outside the package: the user's line, not the package's, whichever function of the
    API (``odds``, ``table``, ``compare``) led there."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


@contextmanager
def unusable_path(what: str, advice: str = "give another") -> Iterator[None]:
    """Inside, an OSError of looking at a path the user gave (a name longer than the file system
    takes, a file where a folder should be) is one line about ``what``: InputError.

    >>> with unusable_path("--out x"):
    ...     raise OSError(36, "File name too long")
    Traceback (most recent call last):
    montecarlo.errors.InputError: --out x: cannot be used (File name too long); give another
    """
    try:
        yield
    except OSError as exc:
        raise InputError(f"{what}: cannot be used ({exc.strerror or exc}); {advice}") from None


LONG_WORD = 250  # a run of this many characters without a space is a pasted value, not a file's path
LONG_MESSAGE = 600  # characters of a message shown at most


def readable(message: str) -> str:
    """An error message cut to a readable line: a long pasted value is shortened in the middle.

    >>> readable("unknown character '" + "x" * 100_000 + "'")
    "unknown character 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…(100,002 characters)…xxxxxxxxx'"
    >>> deep = "/home/someone" + "/a-folder-of-scenarios" * 10 + "/duel.toml:"  # 244 characters
    >>> readable(deep + " no such scenario file") == deep + " no such scenario file"
    True
    """
    import re

    def cut(match: re.Match) -> str:
        text = match.group(0)
        return f"{text[:40]}…({len(text):,} characters)…{text[-10:]}"

    message = re.sub(rf"\S{{{LONG_WORD},}}", cut, str(message))
    if len(message) > LONG_MESSAGE:
        message = f"{message[: LONG_MESSAGE - 40]}… ({len(message):,} characters in all)"
    return message
