"""montecarlo: balance questions about board-game rules, answered by simulation.

Each modelled game lives in :mod:`montecarlo.games`; the game-agnostic machinery (seeding,
parallel runs, statistics, dice primitives) in :mod:`montecarlo.engine`.
"""

__version__ = "0.1.0"
