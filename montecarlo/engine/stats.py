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


# From this many degrees of freedom on, Student's t and the normal agree to about 1e-8 (relative).
NORMAL_DF = 10**8


def student_t_sf(t: float, df: int) -> float:
    """Upper tail of Student's t with ``df`` degrees of freedom, P(T > t) (no scipy).

    From the regularized incomplete beta function, P(T > |t|) = I_x(df/2, 1/2) / 2 with
    x = df / (df + t^2), by its continued fraction; agrees with scipy.stats.t.sf to about 1e-9
    (relative) below 10^8 degrees of freedom, and is the normal tail from there on.

    >>> round(student_t_sf(2.776445105, 4), 6)  # the 97.5% quantile of t with 4 degrees
    0.025
    >>> round(student_t_sf(1.0, 1), 12)  # Cauchy: 1/2 - atan(1)/pi
    0.25
    """
    if df >= NORMAL_DF:
        return normal_sf(t)
    if math.isnan(t) or df < 1:  # no degrees of freedom: no spread to measure against
        return math.nan
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    half = _student_t_tail(abs(t), df)
    return half if t >= 0 else 1 - half


def _student_t_tail(t: float, df: int) -> float:
    """P(T > t) for t >= 0, as I_x(a, 1/2) / 2 with a = df/2 and x = 1 / (1 + t^2/df)."""
    a, ratio = df / 2, t * t / df
    x, y = 1 / (1 + ratio), ratio / (1 + ratio)  # x and 1 - x, each without cancellation
    if y == 0:
        return 0.5
    log_front = (
        _log_gamma_ratio_half(a) - math.lgamma(0.5) - a * math.log1p(ratio) + 0.5 * math.log(y)
    )
    if x < (a + 1) / (a + 2.5):  # where the continued fraction of I_x(a, 1/2) converges fast
        return 0.5 * math.exp(log_front) * _beta_fraction(a, 0.5, x) / a
    return 0.5 * (1 - 2 * math.exp(log_front) * _beta_fraction(0.5, a, y))


def _log_gamma_ratio_half(a: float) -> float:
    """log(Gamma(a + 1/2) / Gamma(a)); for large ``a`` by the first terms of its asymptotic
    series (the next is 1 / (192 a^3), below 1e-14 from a = 10^4 on), since the difference of two
    large lgamma values loses the digits that matter."""
    if a < 1e4:
        return math.lgamma(a + 0.5) - math.lgamma(a)
    return 0.5 * math.log(a) - 1 / (8 * a)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function, by the modified Lentz method."""
    tiny = 1e-300

    def guard(v: float) -> float:
        return v if abs(v) > tiny else tiny

    c, d = 1.0, 1 / guard(1 - (a + b) * x / (a + 1))
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        for coefficient in (
            m * (b - m) * x / ((a - 1 + m2) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2)),
        ):
            d = 1 / guard(1 + coefficient * d)
            c = guard(1 + coefficient / c)
            h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return h


def _student_t_pdf(t: float, df: int) -> float:
    return math.exp(
        _log_gamma_ratio_half(df / 2) - 0.5 * math.log(df * math.pi) - (df + 1) / 2 * math.log1p(t * t / df)
    )


@functools.lru_cache(maxsize=4096)
def t_value(confidence: float, df: int) -> float:
    """Two-sided quantile of Student's t with ``df`` degrees of freedom (2.776 for 95% and 4).

    Newton's method on :func:`student_t_sf` from the normal quantile: the tail is convex beyond
    it, so every step lands short of the root and the steps shrink to it.

    >>> round(t_value(0.95, 4), 6), round(t_value(0.95, 1), 6)
    (2.776445, 12.706205)
    """
    z = z_value(confidence)
    if df >= NORMAL_DF:
        return z
    if df < 1:  # one trial: its spread, and so its interval, is unknown
        return math.nan
    alpha, t, last = (1 - confidence) / 2, z, math.inf
    for _ in range(200):
        step = (student_t_sf(t, df) - alpha) / _student_t_pdf(t, df)
        t += step
        # done when the step is below the tail's own rounding (about 1e-12 relative), or when, that
        # close, it stops shrinking (the rounding of the tail, not the distance to the root)
        if abs(step) <= 1e-12 * t or (abs(step) <= 1e-9 * t and abs(step) >= last):
            break
        last = abs(step)
    return t


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
    """Student-t interval for a mean from its sum and sum of squares (trials - 1 degrees of
    freedom: wider than the normal interval for few trials, the same for many).

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
    t = t_value(confidence, trials - 1)
    return Estimate(m, m - t * se, m + t * se, se, trials)


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
    """Mean of per-trial differences (common random numbers): the paired t interval and test.

    Valid whether or not the two arms are correlated: the paired variance already contains
    whatever covariance the shared random numbers produced.
    """
    est = mean(total, total_sq, trials, confidence)
    return _difference(est.estimate, est.se, confidence, df=trials - 1)


def independent_difference(
    a: Estimate, b: Estimate, confidence: float = CONFIDENCE
) -> Difference:
    """``b - a`` for two estimates from independent runs (normal interval and test)."""
    return _difference(b.estimate - a.estimate, math.hypot(a.se, b.se), confidence)


def _difference(diff: float, se: float, confidence: float, df: int | None = None) -> Difference:
    """The interval and two-sided p-value: Student's t with ``df`` degrees, normal without."""
    quantile = z_value(confidence) if df is None else t_value(confidence, df)
    if math.isnan(se):  # one paired trial: no spread to test against
        p_value = math.nan
    elif se > 0:
        x = abs(diff) / se
        p_value = 2 * (normal_sf(x) if df is None else student_t_sf(x, df))
    else:
        p_value = 1.0 if diff == 0 else 0.0
    return Difference(diff, diff - quantile * se, diff + quantile * se, se, p_value)


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
