"""Dune (1984) commands: ``odds dune1984``, ``table dune1984`` and the ``dune1984`` group.

The fight commands live in :mod:`montecarlo.cli.dune1984_fights`, the Guile, reach and
investment commands in :mod:`montecarlo.cli.dune1984_checks`; both add to the apps here.
"""

import importlib
import importlib.util

import typer

from montecarlo.cli import app

dune1984_app = typer.Typer(help="Dune (1984): fights, Guile checks, movement reach, investments.", no_args_is_help=True)
app.add_typer(dune1984_app, name="dune1984")

for _module in ("montecarlo.cli.dune1984_fights", "montecarlo.cli.dune1984_checks"):
    if importlib.util.find_spec(_module) is not None:
        importlib.import_module(_module)
