"""The one progress bar of a run's trials, drawn by the CLI and for Python callers that ask for one.

Rich is imported only when a bar is drawn (it is typer's dependency, and a script or a worker
that draws nothing should not pay for it).
"""

from __future__ import annotations

from typing import IO, Any


def trial_bar(stream: IO[str]) -> Any:
    """A started ``rich.progress.Progress`` on ``stream`` that vanishes when stopped: the label, the
    bar, "done/total trials", the time taken and the time left (last)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} trials"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(file=stream),
        transient=True,
    )
    bar.start()
    return bar
