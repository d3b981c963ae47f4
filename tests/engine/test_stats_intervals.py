"""Intervals against their textbook formulas, at settings where a wrong formula shows."""

import math

import numpy as np
import pytest

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
    z = stats.z_value()
    assert got.ci_low == pytest.approx(d.mean() - z * se, rel=1e-9)
    assert got.ci_high == pytest.approx(d.mean() + z * se, rel=1e-9)
    assert got.p_value == pytest.approx(math.erfc(abs(d.mean()) / se / math.sqrt(2)), rel=1e-6, abs=1e-300)


def test_constant_difference_has_no_spread():
    got = stats.paired_difference(0.25 * 400, 0.0625 * 400, 400)  # d = 0.25 on every trial
    assert got.estimate == 0.25 and got.se == pytest.approx(0.0, abs=1e-12)
    assert got.p_value == 0.0
