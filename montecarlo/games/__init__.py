"""Registry of modelled games: ``get_game(name)``, ``list_games()``.

Each game module defines a module-level ``GAME`` (:class:`montecarlo.games.base.Game`); the
registry imports them lazily by name so that starting the CLI or a worker stays cheap.
"""

from __future__ import annotations

import importlib
import importlib.util

from montecarlo.errors import InputError
from montecarlo.games.base import Game

_MODULES = {
    "dune1984": "montecarlo.games.dune1984",
    "imperium": "montecarlo.games.imperium",
}


def list_games() -> list[str]:
    """Names of the games whose module is present."""
    names = []
    for name, module in _MODULES.items():
        if importlib.util.find_spec(module) is not None:
            names.append(name)
    return names


def get_game(name: str) -> Game:
    """The game registered as ``name``; InputError naming the known games otherwise."""
    if name not in _MODULES or importlib.util.find_spec(_MODULES[name]) is None:
        raise InputError(f"unknown game {name!r}; known: {', '.join(list_games())}")
    return importlib.import_module(_MODULES[name]).GAME
