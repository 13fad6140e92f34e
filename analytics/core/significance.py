"""One-sided tests the alarms are decided by (analytics/alarms/budget.py): the z statistic's p-value and quantiles,
and Fisher's exact test of one rate against the rest of a team's."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from scipy.special import _ufuncs

POWER = 0.8  # the detection rate power statements are given at
_NORMAL = NormalDist()


def z_critical(level: float) -> float:
    """The one-sided standard normal quantile a z statistic must exceed at this level."""
    return _NORMAL.inv_cdf(1.0 - level)


def z_power(level: float, power: float = POWER) -> float:
    """How many standard errors an effect must be to be found with this power by a one-sided z-test at level."""
    return z_critical(level) + _NORMAL.inv_cdf(power)


def z_p_value(z: float) -> float:
    """The one-sided p-value of a z statistic (NaN stays NaN)."""
    return 1.0 - _NORMAL.cdf(z) if math.isfinite(z) else math.nan


def fisher_p_value(v: int, n: int, others_v: int, others_n: int) -> float:
    """One-sided p-value of Fisher's exact test that a contractor's rate v/n is above the others' (conditional on
    the margins: hypergeometric upper tail). Exact at any n, so a 23-of-23 rate against a team's 11% is credible
    and 2 of 2 is not."""
    if n <= 0 or others_n <= 0:
        return math.nan
    return float(hypergeom_sf(np.array([v - 1]), np.array([n + others_n]), np.array([v + others_v]), np.array([n]))[0])


def hypergeom_sf(k: np.ndarray, total: np.ndarray, good: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """scipy.stats.hypergeom.sf(k, total, good, draws) of valid counts (0 <= good, draws <= total, total > 0),
    element by element and to the last bit: the special function it evaluates (Boost's, in scipy.special) inside the
    support, 1 below it and 0 at or above its top, as rv_discrete.sf does. scipy.stats itself is not imported:
    about 0.7 s of every command's start (issue 50 item 9); tests/test_significance_tail.py holds them equal."""
    k, total, good, draws = (np.asarray(a, dtype=float) for a in np.broadcast_arrays(k, total, good, draws))
    low, high = np.maximum(draws - (total - good), 0), np.minimum(good, draws)
    inside = (k >= low) & (k < high)
    out = np.where(k < low, 1.0, 0.0)
    out[inside] = np.clip(_ufuncs._hypergeom_sf(k[inside], good[inside], draws[inside], total[inside]), 0, 1)
    return out
