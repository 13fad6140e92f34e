"""One-sided tests the alarms are decided by (analytics/alarms/budget.py): the z statistic's p-value and quantiles,
and Fisher's exact test of one rate against the rest of a team's."""

from __future__ import annotations

import math
from statistics import NormalDist

from scipy import stats as sps

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
    return float(sps.hypergeom.sf(v - 1, n + others_n, v + others_v, n))
