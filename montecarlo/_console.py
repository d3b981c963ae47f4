"""The ``montecarlo`` command's entry point (and ``python -m montecarlo``'s).

It only imports the command-line interface, which takes about 0.08 s (typer, click, rich's
pieces), and runs it. A Ctrl-C while that import runs ends the command as a Ctrl-C does once
it runs: "interrupted" and exit code 130, where Python printed a KeyboardInterrupt traceback
from deep inside an import.
"""

import sys

INTERRUPTED = 130  # as montecarlo.cli.INTERRUPTED: 128 + SIGINT


def main() -> None:
    try:
        from montecarlo.cli import main as run
    except KeyboardInterrupt:
        # an eval of a string that ends normally clears the mark that a KeyboardInterrupt left
        # inside one (an import's namedtuple) sets, which would kill the process with SIGINT at
        # exit instead of exiting 130 (see montecarlo.cli._forget_the_interrupted_eval)
        eval("None")  # noqa: S307 - a constant: only its normal end matters
        sys.stderr.write("interrupted\n")
        raise SystemExit(INTERRUPTED) from None
    run()
