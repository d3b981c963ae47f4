"""What a kernel returns per trial, and how the engine tallies it.

Metric kinds (what the kernel returns per trial for each metric name):

- ``probability``: a boolean array; reported as the fraction of trials where it is true.
- ``mean``: a numeric array; reported as its mean.
- ``distribution``: an integer array; reported as one probability per value of ``support``,
  named ``"name=value"``. Values outside the support (e.g. -1 for "not applicable") count in
  no category.

>>> Metric("winner_strength", "distribution", "the winner's Strength", (1, 2)).reported_names()
('winner_strength=1', 'winner_strength=2')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MetricKind = Literal["probability", "mean", "distribution"]


@dataclass(frozen=True, slots=True)
class Metric:
    """One output of a question."""

    name: str
    kind: MetricKind
    description: str
    support: tuple[int, ...] = ()
    # the setup field whose value sets this metric's unit (an objective that is a win chance under
    # one value and points under another): reports never put values of two units in one range
    unit_field: str = ""
    # a side's win whose complement is the other side's win (no draw, no retreat): swapping the two
    # sides' values gives 1 - p, so reports may read a seat advantage from p(a, b) + p(b, a) - 1
    complement_swaps: bool = False

    def reported_names(self) -> tuple[str, ...]:
        """The names under which this metric appears in results (one per value for a distribution)."""
        if self.kind == "distribution":
            return tuple(f"{self.name}={v}" for v in self.support)
        return (self.name,)
