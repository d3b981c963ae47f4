"""``python -m montecarlo`` runs the command-line interface."""

from montecarlo._console import main

main()
