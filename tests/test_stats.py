"""The ground floor's statistics helpers (analytics/core/stats.py): one Wilson interval and one z for every floor."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
import statsmodels.stats.proportion as smp
from scipy.stats import t as student_t

from analytics.core import stats


@pytest.mark.parametrize(
    "successes, n, low, high",
    # Newcombe RG (1998), Two-sided confidence intervals for the single proportion, Stat Med 17:857-872, Table I
    # (method 3, the Wilson score interval).
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_matches_newcombes_published_intervals(successes, n, low, high):
    assert stats.wilson(successes / n, n) == pytest.approx((low, high), abs=5e-5)


def test_the_scalar_and_the_array_forms_are_one_rule_and_match_statsmodels():
    x, n = np.array([0, 3, 17, 40, 5]), np.array([10, 9, 40, 40, 0])
    lo, hi = stats.wilson_interval(x, n)
    for i in range(4):
        assert (lo[i], hi[i]) == pytest.approx(stats.wilson(x[i] / n[i], n[i]))
        assert (lo[i], hi[i]) == pytest.approx(smp.proportion_confint(x[i], n[i], method="wilson"))
    assert math.isnan(lo[4]) and math.isnan(hi[4])
    assert all(math.isnan(v) for v in stats.wilson(0.5, 0))


def test_z95_is_the_normal_quantile():
    assert stats.Z95 == pytest.approx(NormalDist().inv_cdf(0.975), abs=1e-15)
    assert stats.PERCENTILES_95 == (2.5, 97.5)


@pytest.mark.parametrize("df", [5, 9, 10, 19, 29, 99, 499, 10_000])
def test_t95_matches_scipy(df):
    """stats.t95 (Cornish-Fisher expansion, Abramowitz & Stegun 26.7.5) against scipy.stats.t.ppf(0.975, df):
    within 2e-5 from 9 degrees of freedom (the fewest the agreement intervals use), 3e-4 at 5."""
    assert stats.t95(df) == pytest.approx(student_t.ppf(0.975, df), abs=2e-5 if df >= 9 else 3e-4)


def test_wilson_of_one_share_is_wilson_bounds_to_the_last_bit():
    """stats.wilson computes on floats (issue 50 item 9: thousands of calls per page) what wilson_bounds does on
    arrays: the same bounds exactly, edges included."""
    rng = np.random.default_rng(11)
    p = np.concatenate([rng.random(500), [0.0, 1.0, 0.5, 1e-12, 1 - 1e-12, 1.2, -0.1]])
    n = np.concatenate([rng.integers(1, 5000, 500).astype(float), [1, 1, 2.5, 7, 7, 10, 10]])
    lo, hi = stats.wilson_bounds(p, n)
    for i in range(len(p)):
        one = stats.wilson(float(p[i]), float(n[i]))
        assert np.array_equal(np.array(one), np.array([lo[i], hi[i]]), equal_nan=True), (p[i], n[i], one)
