"""One way to read a TOML file the user wrote: typed look-ups, one-line errors in one wording.

Every mistake is one line ``FILE: key: what is wrong; the fix`` (``FILE: what is wrong; the
fix`` when the file itself cannot be read), raised as the reader's error class (a
:class:`~montecarlo.errors.InputError`). Scenario files (:mod:`montecarlo.scenarios`) and game
definitions (:mod:`montecarlo.datagame.spec`) are both read through :class:`TomlReader`.

Example:
    >>> r = TomlReader("battle.toml")
    >>> r.whole(0, "trials", low=1)
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: battle.toml: trials: expected a whole number >= 1, got 0
    >>> r.keys({"colour": "red"}, ("name", "seed"), "")
    Traceback (most recent call last):
    ...
    montecarlo.errors.InputError: battle.toml: colour: unknown key; use one of: name, seed
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Mapping, NoReturn, Sequence

from montecarlo.errors import InputError
from montecarlo.validate import is_whole

MISSING: Any = object()  # the default of a look-up whose key is required


def show(value: Any) -> str:
    """A value as it is written in TOML: ``'text'``, ``true``, ``[1, 2]``; ``nothing`` for None.

    A list longer than ten shows its first ten, so that a message stays one readable line.

    >>> show(True), show("d6"), show([1, "a"]), show(None), show(2.5)
    ('true', "'d6'", "[1, 'a']", 'nothing', '2.5')
    >>> show(list(range(10))), show(list(range(11)))
    ('[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]', '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...]')
    """
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (list, tuple)):
        more = ", ..." if len(value) > 10 else ""
        return "[" + ", ".join(show(v) for v in value[:10]) + more + "]"
    return str(value)


def one_line(message: Any) -> str:
    """A message from other code (an exception) on one line: whitespace runs become one space.

    >>> one_line("expected '=' after a key\\n  (at line 3)")
    "expected '=' after a key (at line 3)"
    """
    return " ".join(str(message).split())


def printable(text: str) -> str:
    """``text`` with control characters (a newline typed into a key) written as escapes.

    >>> printable("grid.a\\nb: expected a list")
    'grid.a\\\\nb: expected a list'
    """
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


MAX_TOML_BYTES = 16_000_000  # far above any scenario, deck or battle file: a larger one is a wrong path


def read_text(path: str | Path, what: str, error: type[InputError] = InputError) -> str:
    """The text of the ``what`` file at ``path`` (``what``: "scenario", "game definition").

    At most MAX_TOML_BYTES are read: ``/dev/zero`` read without end and filled the memory, while
    a pipe that ends (``<(cat file)``) is read as a file is."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_TOML_BYTES + 1)
        if len(data) > MAX_TOML_BYTES:
            raise error(f"{path}: more than {MAX_TOML_BYTES:,} bytes, more than any {what} file holds; "
                        "check the path")
        # utf-8-sig: a byte-order mark some editors write at the start is not a TOML statement
        return data.decode("utf-8-sig")
    except FileNotFoundError:
        raise error(f"{path}: no such {what} file; check the path") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory; give the path of a .toml {what} file") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc.reason}); save the file as UTF-8") from None
    except PermissionError as exc:
        raise error(f"{path}: cannot be read ({exc.strerror or exc}); check its permissions") from None
    except OSError as exc:  # a file where a folder should be, a name too long, ...
        raise error(f"{path}: cannot be read ({exc.strerror or exc}); check the path") from None


def parse_text(text: str, source: str, error: type[InputError] = InputError) -> dict[str, Any]:
    """TOML text -> a dict; an invalid file is one line naming the place of the mistake."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{source}: invalid TOML: {one_line(exc)}; fix the syntax there") from None


class TomlReader:
    """Typed look-ups in the tables of one file; each fails with one line naming file and key.

    ``where`` is the key's full name in the file (``variants.cheap.builtin``); ``docs`` is the
    page that documents the format, named in the fix of a missing table.
    """

    def __init__(self, source: str, error: type[InputError] = InputError, docs: str = "") -> None:
        self.source = source
        self.error = error
        self.docs = docs

    # ------------------------------------------------------------------ failing

    def fail(self, where: str, problem: Any, fix: str = "") -> NoReturn:
        """Raise ``FILE: where: problem; fix`` (``problem`` may be an exception from other code)."""
        if isinstance(problem, Exception):
            problem = one_line(problem)
        # from None: raised while handling another code's error, the user's mistake is the whole story
        said = f"{self.source}: {where}: {problem}" + (f"; {fix}" if fix else "")
        raise self.error(printable(said)) from None

    def expected(self, where: str, expected: str, got: Any = MISSING) -> NoReturn:
        """Raise ``FILE: where: expected EXPECTED, got VALUE``."""
        self.fail(where, f"expected {expected}" + ("" if got is MISSING else f", got {show(got)}"))

    # ------------------------------------------------------------------ look-ups

    def keys(self, table: Any, allowed: Sequence[str], where: str) -> Mapping:
        """``table`` itself, once it is a table whose keys are all ``allowed``."""
        if not isinstance(table, Mapping):
            self.expected(where or "file", "a table", table)
        for key in table:
            if key not in allowed:
                full = f"{where}.{key}" if where else key
                self.fail(full, "unknown key", f"use one of: {', '.join(allowed)}")
        return table

    def table(self, data: Mapping, key: str, where: str, required: bool = False) -> Mapping:
        """The table ``data[key]`` ({} when absent and not ``required``)."""
        if key not in data:
            if required:
                self.fail(where, "missing", "add this table" + (f" (see {self.docs})" if self.docs else ""))
            return {}
        value = data[key]
        if not isinstance(value, Mapping):
            self.expected(where, "a table", value)
        return value

    def string(self, data: Mapping, key: str, where: str, default: Any = MISSING) -> Any:
        """The non-empty string ``data[key]``, or ``default`` when absent (required without one)."""
        if key not in data:
            if default is MISSING:
                self.fail(where, "missing", "add it as a string")
            return default
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            self.expected(where, "a non-empty string", value)
        return value

    def string_list(self, data: Mapping, key: str, where: str, default: Sequence[str]) -> list[str]:
        """A string or a list of strings at ``data[key]``, as a list."""
        value = data.get(key, default)
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            self.expected(where, "a string or a list of strings", value)
        return list(value)

    def array(self, data: Mapping, key: str, where: str, example: str) -> list:
        """The array ``data[key]`` ([] when absent); ``example`` shows its TOML form."""
        value = data.get(key, [])
        if not isinstance(value, list):
            self.expected(where, f"an array ({example})", value)
        return value

    def whole(self, value: Any, where: str, low: int | None = None, high: int | None = None) -> int:
        """``value`` if it is a whole number (at least ``low``, at most ``high``).

        >>> TomlReader("battle.toml").whole(100_000, "dice.d.faces", low=1, high=10_000)
        Traceback (most recent call last):
        ...
        montecarlo.errors.InputError: battle.toml: dice.d.faces: expected a whole number 1..10000, got 100000
        """
        too_low = low is not None and is_whole(value) and value < low
        too_high = high is not None and is_whole(value) and value > high
        if not is_whole(value) or too_low or too_high:
            if low is not None and high is not None:
                wanted = f"a whole number {low}..{high}"
            elif high is not None:
                wanted = f"a whole number <= {high}"
            else:
                wanted = "a whole number" if low is None else f"a whole number >= {low}"
            self.expected(where, wanted, value)
        return value
