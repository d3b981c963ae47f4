"""Intervals against their textbook formulas, at settings where a wrong formula shows."""

import math

import numpy as np
import pytest
from scipy.stats import t as student_t

from montecarlo.engine import stats


@pytest.mark.parametrize("seed, values, weights", [
    (1, [-1, 0, 1, 2], [0.1, 0.3, 0.4, 0.2]),  # mean 0.7: raw and centred mean squares differ a lot
    (2, [0, 1], [0.2, 0.8]),  # a paired win probability: d in {0, 1}, mean 0.8
    (3, [-3.5, 10.25], [0.5, 0.5]),
])
def test_paired_difference_se_is_the_sample_sd_over_root_n(seed, values, weights):
    rng = np.random.default_rng(seed)
    d = rng.choice(values, size=501, p=weights)
    assert abs(d.mean()) > 0.5  # a non-zero mean is what tells centred from raw
    got = stats.paired_difference(d.sum(), (d * d).sum(), d.size)
    se = np.std(d, ddof=1) / math.sqrt(d.size)
    assert got.estimate == pytest.approx(d.mean(), rel=1e-12)
    assert got.se == pytest.approx(se, rel=1e-9)
    t = student_t.ppf(0.975, d.size - 1)  # the paired t interval and test, from scipy
    assert got.ci_low == pytest.approx(d.mean() - t * se, rel=1e-9)
    assert got.ci_high == pytest.approx(d.mean() + t * se, rel=1e-9)
    p_value = 2 * student_t.sf(abs(d.mean()) / se, d.size - 1)
    assert got.p_value == pytest.approx(p_value, rel=1e-6, abs=1e-300)


def test_constant_difference_has_no_spread():
    got = stats.paired_difference(0.25 * 400, 0.0625 * 400, 400)  # d = 0.25 on every trial
    assert got.estimate == 0.25 and got.se == pytest.approx(0.0, abs=1e-12)
    assert got.p_value == 0.0


Z = 1.959963984540054  # the 97.5% normal quantile


def _wilson_by_score_test(k: int, n: int) -> tuple[float, float]:
    """Wilson (1927) as the set of p0 with |k/n - p0| <= z sqrt(p0 (1 - p0) / n).

    Squaring gives (1 + z^2/n) p0^2 - (2 k/n + z^2/n) p0 + (k/n)^2 <= 0: the interval is the
    two roots of this quadratic (a different route from the centre-and-spread form in stats.py).
    """
    ph = k / n
    a, b, c = 1 + Z * Z / n, -(2 * ph + Z * Z / n), ph * ph
    root = math.sqrt(b * b - 4 * a * c)
    return (-b - root) / (2 * a), (-b + root) / (2 * a)


def _wald(k: int, n: int) -> tuple[float, float]:
    ph = k / n
    h = Z * math.sqrt(ph * (1 - ph) / n)
    return ph - h, ph + h


@pytest.mark.parametrize("k, n", [(0, 1), (1, 2), (0, 20), (1, 20), (2, 40), (7, 13), (50, 100), (99, 100),
                                  (100, 100), (3, 10_000), (123_456, 1_000_000)])
def test_wilson_equals_the_score_test_roots(k, n):
    low, high = _wilson_by_score_test(k, n)
    est = stats.proportion(k, n)
    assert est.estimate == k / n
    assert est.ci_low == pytest.approx(max(low, 0.0), abs=1e-12)
    assert est.ci_high == pytest.approx(min(high, 1.0), abs=1e-12)
    if 0 < k < n:  # here Wilson and Wald differ visibly at these sizes (n <= 100)
        assert n > 1000 or abs(est.ci_low - _wald(k, n)[0]) > 1e-3


def _coverage(interval, n: int, p: float) -> float:
    """Exact coverage: the binomial probability of the k whose interval holds p."""
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)
               if interval(k, n)[0] <= p <= interval(k, n)[1])


@pytest.mark.parametrize("n", [20, 30, 40, 100])
def test_wilson_keeps_its_coverage_where_wald_loses_it(n):
    # at p = 0.05 and n <= 100 the Wald interval covers only 64-88% (Brown, Cai & DasGupta 2001)
    p = 0.05
    wilson = _coverage(lambda k, m: (stats.proportion(k, m).ci_low, stats.proportion(k, m).ci_high), n, p)
    assert 0.92 < wilson < 0.975
    assert _coverage(_wald, n, p) < 0.89  # so the band above tells the two apart


def test_simulated_wilson_coverage_at_small_n():
    rng = np.random.default_rng(20)
    n, p, reps = 40, 0.05, 20_000
    table = np.array([(stats.proportion(k, n).ci_low, stats.proportion(k, n).ci_high) for k in range(n + 1)])
    k = rng.binomial(n, p, reps)
    covered = np.mean((table[k, 0] <= p) & (p <= table[k, 1]))
    # exact coverage 0.952 (Wald: 0.868); 20,000 repetitions give se 0.0015
    assert 0.94 < covered < 0.965


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 9, 29, 30, 99, 999, 9_999, 10_001, 19_999, 10**5, 10**6,
                                10**7, 10**8 - 1])
def test_student_t_tail_and_quantile_match_scipy(df):
    """Our t tail (incomplete beta by continued fraction) and quantile (Newton) against scipy's."""
    for x in (0.0, 1e-6, 0.01, 0.5, 1.0, 1.7, 1.96, 2.5, 4.0, 10.0, 40.0):
        want = student_t.sf(x, df)
        if want > 1e-290:
            assert stats.student_t_sf(x, df) == pytest.approx(want, rel=1e-8)
            assert stats.student_t_sf(-x, df) == pytest.approx(1 - want, rel=1e-8)
    for confidence in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999):
        want = student_t.ppf(0.5 + confidence / 2, df)
        assert stats.t_value(confidence, df) == pytest.approx(want, rel=1e-8)


@pytest.mark.parametrize("df", [1, 2, 5, 29, 19_999, 20_001, 10**6])
def test_student_t_density_matches_scipy(df):
    """The density only steers Newton's steps to the quantile: a wrong one still finds the root,
    more slowly, so it is checked on its own."""
    for x in (0.0, 0.5, 1.96, 4.0, 12.7):
        assert stats._student_t_pdf(x, df) == pytest.approx(student_t.pdf(x, df), rel=1e-9)


def test_student_t_from_a_hundred_million_degrees_is_the_normal():
    assert stats.t_value(0.95, stats.NORMAL_DF) == stats.z_value(0.95)
    assert stats.student_t_sf(2.0, stats.NORMAL_DF) == stats.normal_sf(2.0)
    assert stats.t_value(0.95, stats.NORMAL_DF - 1) == pytest.approx(stats.z_value(0.95), rel=2e-8)
    assert stats.student_t_sf(math.inf, 5) == 0.0 and stats.student_t_sf(-math.inf, 5) == 1.0
    assert math.isnan(stats.student_t_sf(math.nan, 5))


def test_few_trials_get_the_wider_t_interval():
    d = np.array([1.0, 0.0, 1.0, 1.0, 0.0])  # five paired trials
    got = stats.paired_difference(d.sum(), d @ d, 5)
    se = np.std(d, ddof=1) / math.sqrt(5)
    assert got.ci_high - got.estimate == pytest.approx(2.7764451051977987 * se, rel=1e-12)  # t, 4 degrees
    assert got.p_value == pytest.approx(2 * student_t.sf(0.6 / se, 4), rel=1e-9)


def test_no_degrees_of_freedom_no_quantile():
    assert math.isnan(stats.t_value(0.95, 0)) and math.isnan(stats.student_t_sf(1.0, 0))
    one = stats.paired_difference(1.0, 1.0, 1)
    assert one.estimate == 1.0 and all(math.isnan(v) for v in (one.ci_low, one.ci_high, one.se, one.p_value))
