"""One false-alarm budget for a whole review, the rule that spends it, and the two tests every alarm is decided by.

A review is one look at the alarms shown now (the whole project under the filters, up to its latest week). Every
test of the review, all kinds and all contractors together (each contractor x rule, x effect x dimension, and drift
once per contractor and rubric over a window that moves with the project), gives a one-sided p-value; one
Benjamini-Hochberg step-up rule at DISCOVERY_RATE over all of them decides which alarm (Benjamini & Hochberg 1995,
"Controlling the false discovery rate", JRSS B 57:289-300). On a steady team every null hypothesis is true and
the rule is Simes' test: it alarms at all with probability DISCOVERY_RATE whatever the number of tests (team size,
rules, dimensions, weeks), and the expected number of false alarms per review stays under
FALSE_ALARMS_PER_REVIEW (measured by bench/bench_alarms.py over steady teams of 9 to 52 weeks: bench/RESULTS.md).
Where contractors really differ, the rule loosens in proportion to what it finds, and at most a DISCOVERY_RATE share
of the alarms is expected to be false. Each test must hold its level at small n: rules use Fisher's exact test,
effects and drift a z-test whose standard error cannot fall below the team's.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from scipy import stats as sps

FALSE_ALARMS_PER_REVIEW = 0.1
# Below the budget: on a steady team the step-up rule alarms with this probability, and a review that alarms
# falsely once sometimes does twice (bench/bench_alarms.py measured the mean; bench/RESULTS.md).
DISCOVERY_RATE = 0.08
# Every alarm kind, in the order a page lists them; the effects are analytics/effects' names.
KINDS = (
    "drift",
    "rule",
    "leniency",
    "severity",
    "ties",
    "position_bias",
    "haste",
    "central_tendency",
    "halo",
)
POWER = 0.8  # the detection rate power statements are given at
_NORMAL = NormalDist()


def discovery_threshold(p_values: np.ndarray, rate: float = DISCOVERY_RATE) -> float:
    """The p-value at or below which a test alarms: rate * k / m, for the largest k whose sorted p_(k) is at most
    rate * k / m over the m finite p-values (-1.0 when none is, so nothing alarms)."""
    p = np.sort(np.asarray(p_values, dtype=float)[np.isfinite(p_values)])
    ok = np.flatnonzero(p <= rate * np.arange(1, len(p) + 1) / max(len(p), 1))
    return rate * (ok[-1] + 1) / len(p) if len(ok) else -1.0


def steady_level(n_tests: int, rate: float = DISCOVERY_RATE) -> float:
    """The level each test is held to when nothing else alarms (the step-up rule's first step): the level a
    power statement assumes, so the power found is at least the one stated."""
    return rate / max(1, n_tests)


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
