"""The modelled games.

Called, ``montecarlo.games(*files)`` is the catalogue of the games and of any ``.toml`` battle
files given by path: each game's questions, variants and setup fields, as in
``mc.games()["dune1984"].questions["duel"].setup`` (:func:`montecarlo.api.games`).

As a package: one package per game, each defining a module-level ``GAME``.

:mod:`montecarlo.registry` lists this package's folder to find them (``get_game``,
``list_games``); this package imports nothing, so that listing games stays cheap and so that
neither the games nor :mod:`montecarlo.datagame` need the other.
"""
