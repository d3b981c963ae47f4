"""Registry of modelled games: ``get_game(name)``, ``list_games()``.

Each game module defines a module-level ``GAME`` (:class:`montecarlo.games.base.Game`); the
registry imports them lazily by name so that starting the CLI or a worker stays cheap.
"""

from __future__ import annotations

import importlib

from montecarlo.errors import InputError
from montecarlo.games.base import Game

_MODULES = {
    "dune1984": "montecarlo.games.dune1984",
    "imperium": "montecarlo.games.imperium",
}


def list_games() -> list[str]:
    """Names of the registered games."""
    return list(_MODULES)


def get_game(name: str) -> Game:
    """The game registered as ``name``; InputError naming the known games otherwise."""
    if name not in _MODULES:
        raise InputError(f"unknown game {name!r}; known: {', '.join(list_games())}")
    return importlib.import_module(_MODULES[name]).GAME
