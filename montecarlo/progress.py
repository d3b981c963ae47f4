"""The one progress bar of a run's trials, drawn by the CLI and for Python callers that ask for one,
and the spinner of a long exact solve.

Rich is imported only when a bar is drawn (it is typer's dependency, and a script or a worker
that draws nothing should not pay for it).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import IO, Any, Iterator


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


@contextmanager
def working(stream: IO[str], message: str, after: float = 1.0) -> Iterator[None]:
    """Inside, work with no trials to count (an exact solve): if it lasts more than ``after``
    seconds, a spinner with ``message`` on ``stream`` until it ends, then nothing left of it.

    The caller decides whether ``stream`` is a terminal; a solve that ends sooner shows nothing.
    """
    lock = threading.Lock()
    shown: list[Any] = []
    over = False

    def show() -> None:
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner

        with lock:
            if not over:
                # rich's own status would also take over sys.stdout and sys.stderr meanwhile,
                # from this thread: what the command printed would go to the spinner's stream
                console = Console(file=stream, force_terminal=True)
                status = Live(
                    Spinner("dots", message, style="green"), console=console, transient=True,
                    redirect_stdout=False, redirect_stderr=False, refresh_per_second=12.5,
                )
                status.start()
                shown.append(status)

    timer = threading.Timer(after, show)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            over = True
            for status in shown:
                status.stop()
