"""Small statistics every floor shares: the 95% normal quantile, the percentile pair of a 95% interval, and the
Wilson score interval of a proportion (Wilson 1927)."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval
PERCENTILES_95 = (2.5, 97.5)  # the percentiles bounding a 95% percentile interval


def wilson_bounds(p: np.ndarray, n: np.ndarray, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval of proportions `p` each observed over `n` independent units (NaN where n is 0)."""
    share = np.asarray(p, dtype=float)
    m = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = 1 + z**2 / m
        centre = (share + z**2 / (2 * m)) / denom
        half = z / denom * np.sqrt(share * (1 - share) / m + z**2 / (4 * m**2))
    lo = np.where(m > 0, np.clip(centre - half, 0, 1), np.nan)
    hi = np.where(m > 0, np.clip(centre + half, 0, 1), np.nan)
    return lo, hi


def wilson_interval(successes: np.ndarray, n: np.ndarray, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval of `successes` out of `n` (NaN where n is 0)."""
    x = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return wilson_bounds(x / m, m, z)


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of one proportion p observed over n independent units (NaN when n is 0)."""
    if n <= 0 or math.isnan(p):
        return math.nan, math.nan
    lo, hi = wilson_bounds(np.array([p]), np.array([n]), z)
    return float(lo[0]), float(hi[0])
