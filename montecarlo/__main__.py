"""``python -m montecarlo`` runs the command-line interface."""

from montecarlo.cli import main

main()
