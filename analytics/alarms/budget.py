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
effects and drift a z-test whose standard error cannot fall below the team's (analytics/core/significance.py).
"""

from __future__ import annotations

import numpy as np

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
