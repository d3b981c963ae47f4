"""Proportions, means and differences with confidence intervals.

Everything here works from tallies (counts, sums, sums of squares), never from raw trials, so
the runner can merge chunks without keeping them.

>>> est = proportion(520, 1000)
>>> round(est.ci_low, 4), round(est.ci_high, 4)
(0.489, 0.5508)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Sequence

import numpy as np

CONFIDENCE = 0.95


@functools.lru_cache(maxsize=None)
def z_value(confidence: float = CONFIDENCE) -> float:
    """Two-sided normal quantile for ``confidence`` (1.96 for 95%).

    Computed with :class:`statistics.NormalDist` (Wichura's AS241, accurate to about 1e-16),
    not scipy.stats, whose import alone costs about a second at start-up.

    >>> round(z_value(0.95), 6)
    1.959964
    """
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def normal_sf(x: float) -> float:
    """Upper tail of the standard normal, P(Z > x), from ``math.erfc`` (no scipy).

    >>> round(normal_sf(1.959963984540054), 6)
    0.025
    """
    return 0.5 * math.erfc(x / math.sqrt(2))


@dataclass(frozen=True, slots=True)
class Estimate:
    """A simulated value with its standard error and confidence interval."""

    estimate: float
    ci_low: float
    ci_high: float
    se: float
    trials: int

    @property
    def half_width(self) -> float:
        return (self.ci_high - self.ci_low) / 2


def proportion(successes: float, trials: int, confidence: float = CONFIDENCE) -> Estimate:
    """Wilson score interval for ``successes`` out of ``trials``.

    Wilson rather than the normal interval because it stays inside [0, 1] and keeps its
    coverage for probabilities near 0 or 1 (rare ties, near-certain wins).
    """
    if trials <= 0:
        return Estimate(math.nan, math.nan, math.nan, math.nan, 0)
    z = z_value(confidence)
    p = float(successes) / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    spread = z * math.sqrt(max(p * (1 - p), 0.0) / trials + z * z / (4 * trials * trials)) / denom
    se = math.sqrt(max(p * (1 - p), 0.0) / trials)
    # The Wilson interval always contains p; clamp away floating-point rounding at 0 and 1.
    low = min(max(0.0, centre - spread), p)
    high = max(min(1.0, centre + spread), p)
    return Estimate(p, low, high, se, trials)


def mean(total: float, total_sq: float, trials: int, confidence: float = CONFIDENCE) -> Estimate:
    """Normal interval for a mean from its sum and sum of squares.

    One trial gives the value but says nothing of its spread: its standard error and interval
    are unknown (NaN), not a zero-width interval around that one value.
    """
    if trials <= 0:
        return Estimate(math.nan, math.nan, math.nan, math.nan, 0)
    m = float(total) / trials
    if trials == 1:
        return Estimate(m, math.nan, math.nan, math.nan, 1)
    var = max(total_sq / trials - m * m, 0.0) * trials / (trials - 1)
    se = math.sqrt(var / trials)
    z = z_value(confidence)
    return Estimate(m, m - z * se, m + z * se, se, trials)


@dataclass(frozen=True, slots=True)
class Difference:
    """A difference (variant minus baseline) with its interval and two-sided p-value."""

    estimate: float
    ci_low: float
    ci_high: float
    se: float
    p_value: float


def paired_difference(
    total: float, total_sq: float, trials: int, confidence: float = CONFIDENCE
) -> Difference:
    """Mean of per-trial differences (common random numbers), with a normal interval.

    Valid whether or not the two arms are correlated: the paired variance already contains
    whatever covariance the shared random numbers produced.
    """
    est = mean(total, total_sq, trials, confidence)
    return _difference(est.estimate, est.se, confidence)


def independent_difference(
    a: Estimate, b: Estimate, confidence: float = CONFIDENCE
) -> Difference:
    """``b - a`` for two estimates from independent runs."""
    return _difference(b.estimate - a.estimate, math.hypot(a.se, b.se), confidence)


def _difference(diff: float, se: float, confidence: float) -> Difference:
    z = z_value(confidence)
    if math.isnan(se):  # one paired trial: no spread to test against
        p_value = math.nan
    elif se > 0:
        p_value = 2 * normal_sf(abs(diff) / se)
    else:
        p_value = 1.0 if diff == 0 else 0.0
    return Difference(diff, diff - z * se, diff + z * se, se, p_value)


def holm(p_values: Sequence[float], alpha: float = 1 - CONFIDENCE) -> np.ndarray:
    """Holm step-down: which hypotheses are rejected at family-wise level ``alpha``.

    NaN p-values (nothing to test) are never rejected and do not count toward the family.
    """
    p = np.asarray(p_values, dtype=float)
    rejected = np.zeros(p.shape, dtype=bool)
    valid = np.flatnonzero(~np.isnan(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = len(order)
    for rank, idx in enumerate(order):
        if p[idx] <= alpha / (m - rank):
            rejected[idx] = True
        else:
            break
    return rejected


def holm_adjusted(p_values: Sequence[float]) -> np.ndarray:
    """Holm-adjusted p-values (monotone, capped at 1); NaN stays NaN."""
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = len(order)
    running = 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[idx]))
        adjusted[idx] = running
    return adjusted
