"""The modelled games: one package per game, each defining a module-level ``GAME``.

:mod:`montecarlo.registry` lists this package's folder to find them (``get_game``,
``list_games``); this package imports nothing, so that listing games stays cheap and so that
neither the games nor :mod:`montecarlo.datagame` need the other.
"""
