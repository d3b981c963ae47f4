"""Dune (1984) commands: ``odds dune1984``, ``table dune1984`` and the ``dune1984`` group.

The fight commands live in :mod:`montecarlo.cli.dune1984_fights`, the Guile, reach and
investment commands in :mod:`montecarlo.cli.dune1984_checks`; both add to the apps here.
"""

import typer

from montecarlo.cli import app

dune1984_app = typer.Typer(help="Dune (1984): fights, Guile checks, movement reach, investments.", no_args_is_help=True)
app.add_typer(dune1984_app, name="dune1984")

# These modules add their commands to the apps above when imported.
from montecarlo.cli import dune1984_checks, dune1984_fights  # noqa: E402,F401
