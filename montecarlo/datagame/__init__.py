"""Rules as data: a dice battle described in a TOML file becomes a game, with no Python.

The format is documented in ``docs/rules-as-data.md``; the repository ships
``scenarios/games/risk.toml`` and ``scenarios/games/dune1984-duel.toml``. A definition file is
checked key by key (:mod:`.spec`), its expressions are parsed by a small safe language
(:mod:`.expr`), and it is compiled (:mod:`.compile`) into a :class:`montecarlo.games.base.Game`
whose exact solver and sampler come from :mod:`montecarlo.engine.chain`.

``montecarlo.registry.get_game("path/to/file.toml")`` returns the compiled game (through
:func:`load_game`), so ``odds``, ``report`` and ``compare`` accept such files.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from montecarlo.datagame.spec import FORMAT, Definition, DefinitionError, parse_definition, read_definition
from montecarlo.errors import InputError
from montecarlo.games.base import Game
from montecarlo.tomlread import read_text

_CACHE: dict[tuple[str, int], object] = {}


def load_compiled(path: str | Path):
    """The compiled game of a definition file, cached per resolved path and modification time."""
    from montecarlo.datagame.compile import compile_text

    path = Path(path)
    try:
        resolved = path.resolve()
        mtime = resolved.stat().st_mtime_ns
    except OSError:
        read_definition(path)  # raises the one-line error for a missing file
        raise
    key = (str(resolved), mtime)
    got = _CACHE.get(key)
    if got is None:
        definition = read_definition(path)
        got = compile_text(definition.text, str(path))
        if len(_CACHE) >= 64:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = got
    return got


def load_game(path: str | Path) -> Game:
    """The :class:`Game` a definition file describes (DefinitionError, one line, if it is wrong)."""
    return load_compiled(path).game


def is_definition(path: str | Path) -> bool:
    """True when ``path`` is a game definition (its top-level ``format`` is this format's)."""
    try:
        return tomllib.loads(read_text(path, "game definition")).get("format") == FORMAT
    except (InputError, tomllib.TOMLDecodeError):
        return False


__all__ = [
    "FORMAT",
    "Definition",
    "DefinitionError",
    "is_definition",
    "load_compiled",
    "load_game",
    "parse_definition",
    "read_definition",
]
