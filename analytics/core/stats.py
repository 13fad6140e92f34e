"""Small statistics every floor shares: the 95% normal and t quantiles, the percentile pair of a 95% interval, and
the Wilson score interval of a proportion (Wilson 1927)."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval
PERCENTILES_95 = (2.5, 97.5)  # the percentiles bounding a 95% percentile interval


def t95(df: float) -> float:
    """The t distribution's 97.5% quantile with `df` degrees of freedom (two-sided 95%), by the Cornish-Fisher
    expansion in 1/df (Abramowitz & Stegun 1964, 26.7.5): within 2e-5 from 9 degrees of freedom, 3e-4 from 5, and
    exact in the limit; without scipy, which the agreement engine does not import."""
    z, v = Z95, float(df)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4)
    )


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
    # wilson_bounds' arithmetic on floats, not arrays of one (called thousands of times per page): the same IEEE
    # operations in the same order, so the same bounds to the last bit.
    share, m = float(p), float(n)
    denom = 1 + z**2 / m
    centre = (share + z**2 / (2 * m)) / denom
    radicand = share * (1 - share) / m + z**2 / (4 * m**2)
    if not radicand >= 0:  # a share outside [0, 1] (or NaN): numpy's sqrt gives NaN
        return math.nan, math.nan
    half = z / denom * math.sqrt(radicand)
    return _clip01(centre - half), _clip01(centre + half)


def _clip01(x: float) -> float:
    """x clipped to [0, 1] (NaN stays NaN, as np.clip keeps it)."""
    return x if math.isnan(x) else min(max(x, 0.0), 1.0)
