"""montecarlo: balance questions about board-game rules, answered by simulation.

``import montecarlo as mc`` gives the Python API (:mod:`montecarlo.api`, docs/api.md):
``mc.odds``, ``mc.table``, ``mc.compare``, ``mc.report``, ``mc.advise``, ``mc.games``, ``mc.schema``. They are
loaded on first use, so ``import montecarlo`` imports no numpy, pandas or scipy.

Each modelled game lives in :mod:`montecarlo.games`; the game-agnostic machinery (seeding,
parallel runs, statistics, dice primitives) in :mod:`montecarlo.engine`.

>>> import montecarlo as mc
>>> round(mc.odds("dune1984", attacker=4, defender=5, trials=1_000).exact["attacker_win"], 6)
0.259712
"""

import types as _types

__version__ = "0.1.0"

_API = (
    "odds", "table", "compare", "report", "advise", "schema", "Result", "Advice", "MonteCarloError",
    "InputError", "ScenarioError", "Caution",
)


class _GamesPackage(_types.ModuleType):
    """``montecarlo.games`` is the games' package and, called, :func:`montecarlo.api.games`.

    ``mc.games`` must be both: importing the subpackage sets the attribute ``games`` of this
    package, which would otherwise hide a function of that name.
    """

    def __call__(self, *files):
        from montecarlo.api import games

        return games(*files)


from montecarlo import games as _games  # noqa: E402  (the games package: a docstring, imports nothing)

_games.__class__ = _GamesPackage


def __getattr__(name: str):
    if name in _API:
        from montecarlo import api

        return getattr(api, name)
    raise AttributeError(f"module 'montecarlo' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})
