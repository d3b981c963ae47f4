"""The one progress bar of a run's trials (montecarlo.progress)."""

import io
import re

from rich.console import Console

from montecarlo.progress import trial_bar


def test_the_bar_draws_on_its_stream_with_the_trials_the_time_taken_and_left_and_vanishes():
    stream = io.StringIO()
    bar = trial_bar(stream)
    try:
        assert bar.live.transient and bar.live.is_started
        task = bar.add_task("a grid", total=0)  # a total of 0 formats (None would not)
        bar.update(task, completed=250, total=1_000)
        shown = Console(width=100, file=io.StringIO(), color_system=None)
        shown.print(bar.get_renderable())
        assert re.fullmatch(r"a grid ━+ +250/1,000 trials 0:00:0\d -:--:--\n", shown.file.getvalue())
    finally:
        bar.stop()
    assert not bar.live.is_started
    assert bar.console.file is stream
