"""When a run says, early, that it will be long: the projection of its time left from its pace.

The CLI prints it ("estimated time: about 4.1 days ...") and the Python API warns with it, so that
a trial count mistyped by a zero or three is seen within a second instead of looking like a hang.
"""

from __future__ import annotations

from typing import Callable, Optional

ESTIMATE_ABOVE_SECONDS = 60.0  # runs projected to last longer say so up front
ESTIMATE_AGAIN_SECONDS = 3.0  # a shorter projection is looked at again after this long ...
ESTIMATE_UNTIL_SHARE = 0.25  # ... until this share of the trials is done
ESTIMATE_AFTER_SECONDS = 0.5  # the pace is first read this long after the first finished chunk


class Projection:
    """Fed ``(done, total, now)`` as a run's chunks finish, it returns the projected seconds left
    once, the first time they exceed ``ESTIMATE_ABOVE_SECONDS``, and None otherwise.

    The clock starts at the first finished chunk, and again while ``restarting()`` (a run that
    starts its workers part way runs its chunks here meanwhile, at one process's pace, shared with
    their start). The pace is read half a second later, and again every few seconds until a
    quarter of the trials are done: a grid often runs its small setups first. A total that grows
    after that (a precision run adding trials) is looked at again.
    """

    def __init__(self, restarting: Callable[[], bool] = lambda: False) -> None:
        self.restarting = restarting
        self.first: Optional[tuple[float, int]] = None  # (time, done) at the first finished chunk
        self.said = False
        self.settled = 0  # the total of which a quarter was done with no long projection (0: none)
        self.next_look = 0.0  # when the projection is looked at next

    @property
    def estimated(self) -> bool:
        """Whether the projection is over: said, or settled for the present total."""
        return self.said or self.settled > 0

    def __call__(self, done: int, total: int, now: float) -> Optional[float]:
        if done > 0 and (self.first is None or self.restarting()):
            self.first = (now, done)
            return None
        if self.settled and total > self.settled:  # more trials than when it settled: look again
            self.settled = 0
        if (
            self.first is None
            or self.estimated
            or now - self.first[0] < ESTIMATE_AFTER_SECONDS
            or now < self.next_look
            or done <= self.first[1]
        ):
            return None
        self.next_look = now + ESTIMATE_AGAIN_SECONDS
        seconds = (total - done) * (now - self.first[0]) / (done - self.first[1])
        if seconds > ESTIMATE_ABOVE_SECONDS:
            self.said = True
            return seconds
        if done >= total * ESTIMATE_UNTIL_SHARE:
            self.settled = total
        return None
