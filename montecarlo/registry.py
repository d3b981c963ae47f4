"""Registry of modelled games: ``get_game(name)``, ``list_games()``.

A game is any package or module ``montecarlo.games.<module>`` that defines a module-level
``GAME`` (:class:`montecarlo.games.base.Game`); modules whose name starts with ``_`` (the
template) and ``base`` are not games. Nothing is kept by hand: a new game is registered by
adding its package. The game's name is the module name with ``_`` written ``-``
(``war_for_arrakis`` -> ``war-for-arrakis``); either spelling is accepted. Games are found by
listing the package folder, and imported only when asked for, so that starting the CLI or a
worker stays cheap. A path ending in ``.toml`` names a game described as data
(:mod:`montecarlo.datagame`).

The registry sits above both :mod:`montecarlo.games` and :mod:`montecarlo.datagame`, so that
neither of those imports the other.

Example:
    >>> "dune1984" in list_games()
    True
    >>> canonical_name("War_For_Arrakis")
    'war-for-arrakis'
    >>> module_name("war-for-arrakis")
    'montecarlo.games.war_for_arrakis'
"""

from __future__ import annotations

import functools
import importlib
import os
import pkgutil
from typing import TYPE_CHECKING

import montecarlo.games as _games_package
from montecarlo.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from montecarlo.games.base import Game

_NOT_GAMES = {"base"}
# Games defined outside montecarlo.games (tests, plugins): name -> module path. See :func:`register`.
EXTRA: dict[str, str] = {}


def register(name: str, module: str) -> None:
    """Register a game defined in another module (a test's fake game, a plugin)."""
    EXTRA[name] = module


def _modules() -> dict[str, str]:
    """Game name -> module path: the package's own games, then registered ones."""
    return {**_found(), **EXTRA}


@functools.lru_cache(maxsize=1)
def _found() -> dict[str, str]:
    """The package's own games, from its folder (sorted, so the order is stable)."""
    found = {}
    for info in sorted(pkgutil.iter_modules(_games_package.__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in _NOT_GAMES:
            continue
        found[info.name.replace("_", "-")] = f"{_games_package.__name__}.{info.name}"
    return found


def list_games() -> list[str]:
    """Names of the registered games."""
    return list(_modules())


def canonical_name(name: str) -> str:
    """``war_for_arrakis`` or ``War-For-Arrakis`` -> ``war-for-arrakis``; InputError if unknown."""
    if name in EXTRA:
        return name
    key = str(name).strip().lower().replace("_", "-")
    if key not in _modules():
        known = ", ".join(list_games())
        if os.path.isdir(str(name)):  # "unknown game '/tmp/bf'" for a folder of battle files
            raise InputError(f"{not_a_game(name)}: give a game's name ({known}) or a battle file (FILE.toml)")
        raise InputError(f"{not_a_game(name)}; known: {known}")
    return key


def not_a_game(name: str) -> str:
    """What is wrong with a name no game has: a folder is said to be one (a folder of battle files).

    >>> not_a_game("chess")
    "unknown game 'chess'"
    """
    return f"{name!r} is a folder, not a game" if os.path.isdir(str(name)) else f"unknown game {name!r}"


def module_name(name: str) -> str:
    """The module that defines game ``name`` (``montecarlo.games.war_for_arrakis``)."""
    return _modules()[canonical_name(name)]


def names_a_file(name: object) -> bool:
    """Whether ``name`` is the path of a ``.toml`` file rather than a game's name (in any case:
    ``RISK.TOML`` too, as a file system that ignores case would give it).

    >>> names_a_file("scenarios/games/risk.toml"), names_a_file("RISK.TOML"), names_a_file("dune1984")
    (True, True, False)
    """
    return str(name).lower().endswith(".toml")


def check_battle_name(game: Game, path: str) -> None:
    """InputError when the battle file ``path`` defines ``game`` under the name of a game
    montecarlo has: its reports, and the index's heading, would take it for that game."""
    if game.name.lower().replace("_", "-") not in _modules():
        return
    import tomllib

    from montecarlo.tomlread import read_text

    named = "name" in tomllib.loads(read_text(path, "game definition"))  # else its file's name
    where = "name: " if named else "the file has no name key, and its file name "
    raise InputError(
        f"{path}: {where}{game.name!r} is the name of a game montecarlo has, which the reports would "
        f'confuse with it; {"give the battle another name" if named else "add a name"} '
        f'(e.g. name = "{game.name}-battle")'
    )


def get_game(name: str) -> Game:
    """The game registered as ``name`` (or defined by a ``.toml`` file); InputError otherwise."""
    if names_a_file(name):  # rules as data: docs/rules-as-data.md
        from montecarlo.datagame import load_game

        game = load_game(name)
        check_battle_name(game, name)
        return game
    from montecarlo.games.base import Game  # here, so that listing games imports no numpy

    module = importlib.import_module(module_name(name))
    game = getattr(module, "GAME", None)
    if not isinstance(game, Game):
        raise InputError(f"{module.__name__} defines no GAME")
    return game
