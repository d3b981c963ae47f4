import math

import numpy as np
import pytest
from scipy import stats as sps

from montecarlo.engine import stats


def test_wilson_matches_closed_form():
    # Wilson (1927): centre (p + z^2/2n)/(1 + z^2/n); half-width z sqrt(p(1-p)/n + z^2/4n^2)/(1 + z^2/n)
    z = sps.norm.ppf(0.975)
    for k, n in [(0, 10), (3, 10), (520, 1000), (10, 10), (1, 1_000_000)]:
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        est = stats.proportion(k, n)
        assert est.ci_low == pytest.approx(max(0, centre - half), abs=1e-12)
        assert est.ci_high == pytest.approx(min(1, centre + half), abs=1e-12)
        assert 0 <= est.ci_low <= est.estimate <= est.ci_high <= 1
        # the standard error is the plain binomial one, sqrt(p(1-p)/n); the trials are kept
        assert est.se == pytest.approx(math.sqrt(p * (1 - p) / n), rel=1e-12, abs=0)
        assert est.trials == n and isinstance(est.trials, int)


@pytest.mark.parametrize("trials", [0, -1])
def test_a_proportion_of_no_trials_is_unknown_not_an_error(trials):
    """No trials (a metric that never applied): every number NaN, 0 trials, nothing raised."""
    est = stats.proportion(0, trials)
    numbers = (est.estimate, est.ci_low, est.ci_high, est.se)
    assert all(isinstance(v, float) and math.isnan(v) for v in numbers)
    assert est.trials == 0 and math.isnan(est.half_width)


def test_wilson_coverage_is_close_to_95_percent():
    rng = np.random.default_rng(3)
    p, n, reps = 0.07, 400, 4000
    k = rng.binomial(n, p, reps)
    covered = sum(stats.proportion(int(x), n).ci_low <= p <= stats.proportion(int(x), n).ci_high for x in k)
    # coverage of Wilson at n=400 is within a point of 95%; 4000 reps give se ~0.35 points
    assert 0.93 < covered / reps < 0.97


@pytest.mark.parametrize("n", [3, 5, 10])
def test_mean_interval_covers_95_percent_of_few_normal_trials(n):
    """The mean of a few normal values: the t interval covers 95%; the normal one would cover
    only 82% (3 trials), 88% (5) or 92% (10). 6,000 repetitions give a standard error of 0.28 points."""
    rng = np.random.default_rng(11 + n)
    x = rng.normal(2.0, 3.0, size=(6000, n))
    intervals = [stats.mean(row.sum(), row @ row, n) for row in x]
    covered = np.mean([est.ci_low <= 2.0 <= est.ci_high for est in intervals])
    assert 0.94 < covered < 0.96


def test_mean_interval():
    x = np.arange(10, dtype=float)
    est = stats.mean(x.sum(), (x * x).sum(), len(x))
    assert est.estimate == pytest.approx(4.5)
    assert est.se == pytest.approx(x.std(ddof=1) / math.sqrt(10))
    t = sps.t.ppf(0.975, 9)  # Student's t with 9 degrees of freedom, not the normal 1.96
    assert (est.ci_low, est.ci_high) == pytest.approx((4.5 - t * est.se, 4.5 + t * est.se), rel=1e-12)
    assert est.trials == 10


@pytest.mark.parametrize(
    "values, se",
    [([0.0, 2.0], 1.0), ([3.0], math.nan)],  # two trials: sample variance 2 (ddof 1); one: spread unknown
)
def test_mean_interval_of_one_or_two_trials(values, se):
    x = np.array(values)
    est = stats.mean(x.sum(), (x * x).sum(), len(x))
    assert est.se == pytest.approx(se, abs=1e-15, nan_ok=True) and est.trials == len(x)
    assert est.estimate == x.mean()
    assert math.isnan(est.ci_low) == math.isnan(est.ci_high) == (len(x) == 1)


def test_one_paired_trial_is_never_significant():
    """A single paired trial that differs has no spread to test it against: no p-value, not p = 0."""
    diff = stats.paired_difference(-1.0, 1.0, 1)
    assert diff.estimate == -1.0
    assert all(math.isnan(v) for v in (diff.ci_low, diff.ci_high, diff.se, diff.p_value))
    assert not stats.holm([diff.p_value, 0.001]).tolist()[0]


@pytest.mark.parametrize("trials", [0, -1])
def test_a_mean_of_no_trials_is_unknown_not_an_error(trials):
    est = stats.mean(0.0, 0.0, trials)
    numbers = (est.estimate, est.ci_low, est.ci_high, est.se)
    assert all(isinstance(v, float) and math.isnan(v) for v in numbers)
    assert est.trials == 0


def test_paired_difference_zero_is_not_significant():
    d = stats.paired_difference(0.0, 0.0, 1000)
    assert d.estimate == 0 and d.p_value == 1.0


def test_holm_step_down():
    # Holm (1979): compare sorted p to alpha/(m - rank); stop at the first failure.
    p = [0.01, 0.04, 0.03, 0.005]
    assert stats.holm(p, alpha=0.05).tolist() == [True, False, False, True]
    assert stats.holm([0.001, 0.012, 0.02], alpha=0.05).tolist() == [True, True, True]
    assert stats.holm([float("nan"), 0.01], alpha=0.05).tolist() == [False, True]
    adj = stats.holm_adjusted(p)
    assert np.allclose(adj, [0.03, 0.06, 0.06, 0.02])
