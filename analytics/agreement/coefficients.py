"""Agreement coefficients from sufficient statistics, in pure numpy, with seeded bootstrap intervals.

Two kinds of statistics feed everything here:

- value counts: a (units x levels) matrix, one row per unit, the number of raters who chose each level
  (optionally compressed to distinct rows with a weight each). Percent agreement, Krippendorff's alpha,
  Fleiss' kappa (Gwet's generalisation to unequal numbers of ratings), Gwet's AC1/AC2, Brennan-Prediger.
- a confusion table: (levels x levels) counts of (subject level, reference level) pairs. Cohen's kappa
  (unweighted, linear, quadratic), two-rater AC1/AC2, Scott's pi, two-coder alpha, percent and coarse
  agreement, mean signed difference.

The `*_arrays` functions are vectorised over a leading batch axis (the bootstrap's resamples); the public
scalar functions wrap them and return a `Coefficient` that is NaN with a `reason` whenever the coefficient
is undefined (no pairable unit, one level used by everyone: 0/0), never an exception and never a 0.

Weights are agreement weights on the values of the full scale's levels (irrCAC's weights on the category
values; positions 1..q where levels have no numbers, as sklearn's `labels=` with the whole scale): linear
1 - |x_k - x_l| / (max - min), quadratic its square form, ratio Gwet's ratio weights. Krippendorff's interval
and ratio metrics use the level values, the ordinal metric their ranks.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

LEVELS = ("nominal", "ordinal", "interval", "ratio")
WEIGHTS = ("none", "linear", "quadratic", "ratio")
# Kappa-type weights that go with each level of measurement: ordinal distances count linearly, interval
# distances by their square (quadratic kappa equals an ICC; Fleiss & Cohen 1973), ratio distances relative to
# their sum (Gwet 2014, section 3.5; irrCAC ratio.weights). All are computed on the levels' values.
WEIGHTS_FOR_LEVEL = {"nominal": "none", "ordinal": "linear", "interval": "quadratic", "ratio": "ratio"}
EPS = 1e-12


@dataclass(frozen=True)
class Coefficient:
    """One coefficient: its value (NaN when undefined, with the reason), its n and its parts."""

    name: str
    value: float
    n: int
    reason: str | None = None
    pa: float = math.nan  # observed agreement in the coefficient's own parametrisation
    pe: float = math.nan  # chance agreement
    marginals: tuple[float, ...] = ()
    components: dict = field(default_factory=dict)

    @property
    def defined(self) -> bool:
        """Whether the coefficient has a value."""
        return not math.isnan(self.value)


# --- scales ----------------------------------------------------------------------------------------------


def level_values(levels: list[str] | tuple[str, ...]) -> np.ndarray:
    """The number of each level: its own value when every level is numeric, else its 1-based position."""
    try:
        return np.array([float(x) for x in levels], dtype=float)
    except (TypeError, ValueError):
        return np.arange(1, len(levels) + 1, dtype=float)


def agreement_weights(
    q: int, weights: str | np.ndarray | None = "none", values: np.ndarray | None = None
) -> np.ndarray:
    """The (q x q) agreement weight matrix: identity, linear, quadratic or ratio on the levels' values.

    `values` are the levels' numbers (default: positions 1..q). Linear and quadratic weights are
    1 - |x_k - x_l| / (max - min) and its square form; ratio weights 1 - ((x_k - x_l) / (x_k + x_l))^2 scaled by
    their largest value (irrCAC linear.weights, quadratic.weights, ratio.weights on the category values).
    """
    if isinstance(weights, np.ndarray):
        if weights.shape != (q, q):
            raise ValueError(f"weights must be a {q} x {q} matrix, got {weights.shape}")
        return weights.astype(float)
    if weights in (None, "none", "unweighted"):
        return np.eye(q)
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {', '.join(WEIGHTS)}, not {weights!r}")
    if q < 2:
        return np.ones((q, q))
    v = np.arange(1, q + 1, dtype=float) if values is None else np.asarray(values, dtype=float)
    if weights == "ratio":
        if (v < 0).any():
            raise ValueError("ratio weights need non-negative values (a ratio scale has a true zero)")
        s = v[:, None] + v[None, :]
        r = np.where(s > 0, _div(v[:, None] - v[None, :], s), 0.0) ** 2
        top = r.max()
        return 1 - r / top if top > 0 else np.ones((q, q))
    span = v.max() - v.min()
    d = np.abs(v[:, None] - v[None, :]) / (span if span > 0 else 1.0)
    return 1 - d if weights == "linear" else 1 - d**2


def coarse_matrix(levels: list[str] | tuple[str, ...], coarse: list[str] | tuple[str, ...]) -> tuple[np.ndarray, tuple]:
    """A (levels x coarse levels) 0/1 matrix mapping each level to its coarse level, and the coarse levels."""
    coarse_levels = tuple(dict.fromkeys(coarse))
    m = np.zeros((len(levels), len(coarse_levels)))
    for i, c in enumerate(coarse):
        m[i, coarse_levels.index(c)] = 1
    return m, coarse_levels


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where the denominator is (numerically) zero."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    ok = np.abs(den) > EPS
    return np.where(ok, num / np.where(ok, den, 1.0), np.nan)


def _chance_corrected(pa: np.ndarray, pe: np.ndarray) -> np.ndarray:
    """(pa - pe) / (1 - pe), NaN when chance agreement is 1 (0/0)."""
    return _div(pa - pe, 1 - pe)


# --- Krippendorff's alpha from a coincidence matrix ------------------------------------------------------


def delta2(level: str, values: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    """Krippendorff's squared difference metric; `n_c` (batch x q) are the coincidence marginals (ordinal)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    q = len(values)
    if level == "nominal":
        return 1.0 - np.eye(q)
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    if level == "ratio":
        s = values[:, None] + values[None, :]
        return np.where(np.abs(s) > EPS, _div(values[:, None] - values[None, :], s) ** 2, 0.0)
    # ordinal: (sum_{g=c..k} n_g - (n_c + n_k)/2)^2, Krippendorff (2011) section D
    n_c = np.atleast_2d(n_c)
    cum = np.cumsum(n_c, axis=-1)
    before = cum - n_c
    span = cum[:, None, :] - before[:, :, None]  # [c, k] = sum_{g=c..k} n_g for c <= k
    half = (n_c[:, :, None] + n_c[:, None, :]) / 2
    upper = (span - half) ** 2
    return np.where(np.triu(np.ones((q, q), dtype=bool)), upper, np.swapaxes(upper, -1, -2))


def alpha_arrays(
    o: np.ndarray, values: np.ndarray, level: str, levels: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Krippendorff's alpha of (batch x k x k) coincidence matrices on `levels` (indices into the scale of
    `values`, default all of it), with Gwet's pa/pe parametrisation (its largest distance is the scale's)."""
    o = np.asarray(o, dtype=float)
    if o.ndim == 2:
        o = o[None]
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    full = np.asarray(values, dtype=float)
    at = np.arange(len(full)) if levels is None else np.asarray(levels)
    b, k = len(o), o.shape[-1]
    cells = o.reshape(b, k * k)
    n_c = cells @ _margin_sums(k)[:, :k]  # sums as matrix products, as in pair_arrays
    ones = np.ones(k)
    n = n_c @ ones
    if level in ("interval", "ordinal"):
        # Both metrics are squared differences of a number per level: the value itself (interval) or its
        # mid-rank among the pairable values, sum_{g<c} n_g + n_c/2 (ordinal; Krippendorff 2011 section D).
        # Sums over pairs then reduce to sums over levels, with no (batch x q x q) metric.
        v = np.broadcast_to(full[at], n_c.shape)
        a = np.cumsum(n_c, axis=-1) - n_c / 2 if level == "ordinal" else v
        s2 = (n_c * a**2) @ ones
        observed = 2 * s2 - 2 * np.einsum("bi,bij,bj->b", a, o, a)
        expected = 2 * n * s2 - 2 * ((n_c * a) @ ones) ** 2
        if level == "interval":
            lo, hi = np.full(b, full.min()), np.full(b, full.max())
        else:  # a level left out, below (above) every level here, has mid-rank 0 (n)
            lo = np.minimum(a.min(axis=1), 0) if at[0] > 0 else a.min(axis=1)
            hi = np.maximum(a.max(axis=1), n) if at[-1] < len(full) - 1 else a.max(axis=1)
        dmax = (hi - lo) ** 2
    else:
        scale_d2 = delta2(level, full, n_c)
        d2 = scale_d2[np.ix_(at, at)]
        observed = cells @ d2.ravel()
        expected = ((n_c @ d2) * n_c) @ ones
        dmax = np.full(b, scale_d2.max())
    alpha = 1 - _div((n - 1) * observed, expected)
    alpha = np.where(n >= 2, alpha, np.nan)
    pa = 1 - _div((n - 1) * observed, n**2 * dmax)
    pe = 1 - _div(expected, n**2 * dmax)
    return {"value": alpha, "pa": pa, "pe": pe, "n": n, "expected": expected}


# --- value counts: percent agreement, alpha, Fleiss, Gwet, Brennan-Prediger ------------------------------


def multi_rater_arrays(
    counts: np.ndarray,
    unit_weights: np.ndarray,
    values: np.ndarray,
    level: str,
    weights: str | np.ndarray = "none",
    coarse: np.ndarray | None = None,
    levels: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """All multi-rater coefficients of value-count patterns (P x k) under (batch x P) unit weights, the counts'
    columns being `levels`, indices into the scale of `values` (default: all its levels; marginals over them).

    Percent agreement, Fleiss' kappa and Gwet's AC1 are unweighted; `weighted_*` use `weights` (AC2 when
    weighted). Formulas follow Gwet's irrCAC (fleiss.kappa.raw, gwet.ac1.raw): observed agreement averages
    over units with two or more ratings, level proportions over every rated unit.
    """
    counts = np.asarray(counts, dtype=float)
    w = np.atleast_2d(np.asarray(unit_weights, dtype=float))
    values = np.asarray(values, dtype=float)
    q = len(values)
    at = np.arange(q) if levels is None else np.asarray(levels)
    k = len(at)
    m = counts.sum(axis=1)
    pairable = (m >= 2).astype(float)
    pair_den = np.where(m >= 2, m * (m - 1), 1.0)
    units = w.sum(axis=1)
    units_pairable = w @ pairable
    pi = w @ (counts / np.where(m > 0, m, 1.0)[:, None])
    pi = pi / np.where(units > 0, units, 1.0)[:, None]

    out: dict[str, np.ndarray] = {"units": units, "units_pairable": units_pairable}
    # Levels left out have no ratings, so every sum over them is 0; only the chance terms of Gwet and
    # Brennan-Prediger read the whole scale (its q and the sum of its weights).
    for tag, full in (("", np.eye(q)), ("weighted_", agreement_weights(q, weights, values))):
        wt = full[np.ix_(at, at)]
        agree_u = (counts * (counts @ wt.T - 1)).sum(axis=1) / pair_den * pairable
        pa = _div(w @ agree_u, units_pairable)
        fleiss_pe = ((pi @ wt) * pi).sum(axis=1)
        gwet_pe = full.sum() / (q * (q - 1)) * (pi * (1 - pi)).sum(axis=1) if q > 1 else np.full(len(w), np.nan)
        bp_pe = np.full(len(w), full.sum() / q**2)
        out[f"{tag}percent_agreement"] = pa
        out[f"{tag}fleiss_pe"] = fleiss_pe
        out[f"{tag}fleiss_kappa"] = _chance_corrected(pa, fleiss_pe)
        out[f"{tag}gwet_pe"] = gwet_pe
        out[f"{tag}gwet_ac"] = _chance_corrected(pa, gwet_pe)
        out[f"{tag}brennan_pe"] = bp_pe
        out[f"{tag}brennan_prediger"] = _chance_corrected(pa, bp_pe)
    out["marginals"] = pi

    o_unit = np.einsum("u,ukl->ukl", _safe_inv(m - 1) * pairable, _outer_minus_diag(counts)).reshape(len(counts), -1)
    o = (w @ o_unit).reshape(len(w), k, k)
    alpha = alpha_arrays(o, values, level, at)
    out["krippendorff_alpha"] = alpha["value"]
    out["alpha_pa"], out["alpha_pe"], out["alpha_expected"] = alpha["pa"], alpha["pe"], alpha["expected"]
    out["pairable_values"] = alpha["n"]
    if coarse is not None:
        cc = counts @ coarse[at]
        c_agree = (cc * (cc - 1)).sum(axis=1) / pair_den * pairable
        out["coarse_agreement"] = _div(w @ c_agree, units_pairable)
    return out


def is_unweighted(weights: str | np.ndarray | None) -> bool:
    """Whether `weights` asks for the unweighted coefficient."""
    return weights is None or (isinstance(weights, str) and weights in ("none", "unweighted"))


def _safe_inv(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) > EPS, 1.0 / np.where(np.abs(x) > EPS, x, 1.0), 0.0)


def _outer_minus_diag(counts: np.ndarray) -> np.ndarray:
    q = counts.shape[1]
    return counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(q)[None]


def _counts_reason(counts: np.ndarray, weights: np.ndarray) -> str | None:
    m = counts.sum(axis=1)
    if not np.any((m >= 2) & (weights > 0)):
        return "no unit has ratings from two or more raters"
    return None


def _one_level_reason(marginals: np.ndarray, what: str) -> str:
    used = np.flatnonzero(marginals > EPS)
    where = f"level {used[0] + 1}" if len(used) == 1 else "one level"
    return f"every rating is {where}: {what} is 0/0"


def _multi(
    counts: ArrayLike,
    key: str,
    name: str,
    values: ArrayLike | None = None,
    level: str = "nominal",
    weights: str | np.ndarray = "none",
    unit_weights: ArrayLike | None = None,
) -> Coefficient:
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    w = np.ones(len(counts)) if unit_weights is None else np.asarray(unit_weights, dtype=float)
    values = level_values([str(i + 1) for i in range(counts.shape[1])]) if values is None else np.asarray(values)
    a = multi_rater_arrays(counts, w, values, level, weights)
    tag = "" if is_unweighted(weights) or key == "krippendorff_alpha" else "weighted_"
    n = int(round(float(a["units_pairable"][0])))
    pa, pe = {
        "krippendorff_alpha": (a["alpha_pa"], a["alpha_pe"]),
        "fleiss_kappa": (a[f"{tag}percent_agreement"], a[f"{tag}fleiss_pe"]),
        "gwet_ac": (a[f"{tag}percent_agreement"], a[f"{tag}gwet_pe"]),
        "brennan_prediger": (a[f"{tag}percent_agreement"], a[f"{tag}brennan_pe"]),
        "percent_agreement": (a[f"{tag}percent_agreement"], np.array([np.nan])),
    }[key]
    value = float(a[key if key == "krippendorff_alpha" else f"{tag}{key}"][0])
    reason = _counts_reason(counts, w)
    if reason is None and math.isnan(value):
        what = {"krippendorff_alpha": "expected disagreement"}.get(key, "chance-corrected agreement")
        reason = _one_level_reason(a["marginals"][0], what)
    return Coefficient(
        name,
        value,
        n,
        reason,
        pa=float(pa[0]),
        pe=float(pe[0]),
        marginals=tuple(float(x) for x in a["marginals"][0]),
        components={"pairable_values": float(a["pairable_values"][0]), "units": float(a["units"][0])},
    )


def percent_agreement(
    counts: ArrayLike, weights: str | np.ndarray = "none", unit_weights: ArrayLike | None = None
) -> Coefficient:
    """Share of agreeing rater pairs within units (averaged over units with two or more ratings)."""
    return _multi(counts, "percent_agreement", "percent_agreement", weights=weights, unit_weights=unit_weights)


def krippendorff_alpha(
    counts: ArrayLike, level: str = "nominal", values: ArrayLike | None = None, unit_weights: ArrayLike | None = None
) -> Coefficient:
    """Krippendorff's alpha from value counts (units x levels); `values` are the levels' numbers (default 1..q)."""
    return _multi(counts, "krippendorff_alpha", "krippendorff_alpha", values, level, unit_weights=unit_weights)


def fleiss_kappa(
    counts: ArrayLike, weights: str | np.ndarray = "none", unit_weights: ArrayLike | None = None
) -> Coefficient:
    """Fleiss' kappa, in Gwet's generalisation to units with unequal numbers of ratings."""
    return _multi(counts, "fleiss_kappa", "fleiss_kappa", weights=weights, unit_weights=unit_weights)


def gwet_ac(
    counts: ArrayLike, weights: str | np.ndarray = "none", unit_weights: ArrayLike | None = None
) -> Coefficient:
    """Gwet's AC1 (unweighted) or AC2 (weighted) from value counts (units x levels of the full scale)."""
    name = "gwet_ac1" if is_unweighted(weights) else "gwet_ac2"
    return _multi(counts, "gwet_ac", name, weights=weights, unit_weights=unit_weights)


def brennan_prediger(
    counts: ArrayLike, weights: str | np.ndarray = "none", unit_weights: ArrayLike | None = None
) -> Coefficient:
    """Brennan-Prediger (Randolph's free-marginal) kappa: chance agreement 1/q."""
    return _multi(counts, "brennan_prediger", "brennan_prediger", weights=weights, unit_weights=unit_weights)


def conger_kappa(
    counts: ArrayLike,
    rater_counts: ArrayLike,
    weights: str | np.ndarray = "none",
    unit_weights: ArrayLike | None = None,
) -> Coefficient:
    """Conger's kappa: Fleiss-type observed agreement, chance agreement from each rater's own marginals.

    `rater_counts` is (raters x levels): how many units each rater put on each level (irrCAC conger.kappa.raw).
    Only meaningful when the same raters rate the units (not for Fleiss 1971's rotating raters).
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    rc = np.atleast_2d(np.asarray(rater_counts, dtype=float))
    q = counts.shape[1]
    w = np.ones(len(counts)) if unit_weights is None else np.asarray(unit_weights, dtype=float)
    wt = agreement_weights(q, weights)
    tag = "" if is_unweighted(weights) else "weighted_"
    a = multi_rater_arrays(counts, w, np.arange(1, q + 1), "nominal", weights)
    pa = float(a[f"{tag}percent_agreement"][0])
    r = len(rc)
    reason = _counts_reason(counts, w)
    if r < 2:
        return Coefficient("conger_kappa", math.nan, 0, reason or "only one rater")
    p_gk = rc / rc.sum(axis=1, keepdims=True)
    p_mean = p_gk.mean(axis=0)
    s2 = (p_gk.T @ p_gk - r * np.outer(p_mean, p_mean)) / (r - 1)
    pe = float((wt * (np.outer(p_mean, p_mean) - s2 / r)).sum())
    value = float(_chance_corrected(np.array(pa), np.array(pe)))
    if reason is None and math.isnan(value):
        reason = _one_level_reason(p_mean, "chance-corrected agreement")
    return Coefficient("conger_kappa", value, int(round(float(a["units_pairable"][0]))), reason, pa=pa, pe=pe)


def gwet_ac_se(counts: ArrayLike, weights: str | np.ndarray = "none", unit_weights: ArrayLike | None = None) -> float:
    """Gwet's analytic standard error of AC1/AC2 for an infinite population of units (irrCAC gwet.ac1.raw)."""
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    w = np.ones(len(counts)) if unit_weights is None else np.asarray(unit_weights, dtype=float)
    q = counts.shape[1]
    wt = agreement_weights(q, weights)
    tag = "" if is_unweighted(weights) else "weighted_"
    a = multi_rater_arrays(counts, w, np.arange(1, q + 1), "nominal", weights)
    ac, pe, pi = float(a[f"{tag}gwet_ac"][0]), float(a[f"{tag}gwet_pe"][0]), a["marginals"][0]
    n, n2 = float(a["units"][0]), float(a["units_pairable"][0])
    if n < 2 or n2 == 0 or math.isnan(ac):
        return math.nan
    m = counts.sum(axis=1)
    pairable = m >= 2
    pa_u = np.where(pairable, (counts * (counts @ wt.T - 1)).sum(axis=1) / np.where(pairable, m * (m - 1), 1), 0.0)
    ac_u = (n / n2) * (pa_u - pe * pairable) / (1 - pe)
    pe_u = wt.sum() / (q * (q - 1)) * (counts @ (1 - pi)) / m
    ac_x = ac_u - 2 * (1 - ac) * (pe_u - pe) / (1 - pe)
    return float(math.sqrt((w * (ac_x - ac) ** 2).sum() / (n * (n - 1))))


def unit_agreement(counts: ArrayLike) -> np.ndarray:
    """Each unit's share of agreeing rater pairs (Fleiss' P_i); NaN for a unit with fewer than two ratings."""
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    m = counts.sum(axis=1)
    return _div((counts * (counts - 1)).sum(axis=1), m * (m - 1))


# --- confusion tables: Cohen, two-rater Gwet, Scott, alpha, exact/coarse, leniency ------------------------


def pair_arrays(
    tables: np.ndarray,
    values: np.ndarray,
    level: str,
    weights: str | np.ndarray = "none",
    coarse: np.ndarray | None = None,
    levels: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """All two-rater coefficients of (batch x k x k) confusion tables (rows: subject, columns: reference) on
    `levels`, indices into the scale of `values` (default: all its levels); marginals are over `levels`."""
    t = np.asarray(tables, dtype=float)
    if t.ndim == 2:
        t = t[None]
    values = np.asarray(values, dtype=float)
    q = len(values)
    at = np.arange(q) if levels is None else np.asarray(levels)
    k = len(at)
    # Levels left out have no pairs, so every sum over them is 0; only the chance terms of Gwet and
    # Brennan-Prediger read the whole scale (its q and the sum of its weights). Every sum over cells is a product
    # with a (k*k x m) matrix: bootstraps call this on millions of small tables, where numpy's reductions over
    # short axes cost several times a matrix product.
    cells = t.reshape(len(t), k * k)
    margins = cells @ _margin_sums(k)  # subject (rows) then reference (columns) counts
    n = margins[:, :k].sum(axis=1)
    scale = np.where(n > 0, 1 / np.where(n > 0, n, 1.0), np.nan)  # 1/n, NaN without pairs
    shares = margins * np.nan_to_num(scale)[:, None]
    rows, cols = shares[:, :k], shares[:, k:]
    pi = (rows + cols) / 2
    ones = np.ones(k)
    out: dict[str, np.ndarray] = {"n": n, "subject_marginals": rows, "reference_marginals": cols}
    for tag, full in (("", np.eye(q)), ("weighted_", agreement_weights(q, weights, values))):
        wt = full[np.ix_(at, at)]
        pa = (cells @ wt.ravel()) * scale
        kappa_pe = ((rows @ wt) * cols) @ ones
        scott_pe = ((pi @ wt) * pi) @ ones
        gwet_pe = full.sum() / (q * (q - 1)) * ((pi * (1 - pi)) @ ones) if q > 1 else np.full(len(t), np.nan)
        out[f"{tag}agreement"] = pa
        out[f"{tag}kappa_pe"] = kappa_pe
        out[f"{tag}cohen_kappa"] = _chance_corrected(pa, kappa_pe)
        out[f"{tag}scott_pi"] = _chance_corrected(pa, scott_pe)
        out[f"{tag}gwet_pe"] = gwet_pe
        out[f"{tag}gwet_ac"] = _chance_corrected(pa, gwet_pe)
        out[f"{tag}brennan_prediger"] = _chance_corrected(pa, np.full(len(t), full.sum() / q**2))
    out["krippendorff_alpha"] = alpha_arrays(t + np.swapaxes(t, 1, 2), values, level, at)["value"]
    v = values[at]
    out["mean_difference"] = (cells @ (v[:, None] - v[None, :]).ravel()) * scale
    if coarse is not None:
        c = coarse[at]
        out["coarse_agreement"] = (cells @ (c @ c.T).ravel()) * scale  # 1: same coarse level
    return out


@functools.cache
def _margin_sums(k: int) -> np.ndarray:
    """The (k*k x 2k) 0/1 matrix summing a flattened k x k table's rows (first k columns) and columns."""
    cell = np.arange(k * k)
    m = np.zeros((k * k, 2 * k))
    m[cell, cell // k] = 1
    m[cell, k + cell % k] = 1
    return m


def both_sides(table: np.ndarray) -> np.ndarray:
    """A q x q table's level counts, both sides together (its column sums plus its row sums)."""
    return table.sum(axis=0) + table.sum(axis=1)


def _table_reason(t: np.ndarray, pe: float, what: str = "kappa") -> str | None:
    if t.sum() <= 0:
        return "no shared units"
    if abs(1 - pe) <= EPS:
        used = np.flatnonzero(both_sides(t))
        lvl = f"level {used[0] + 1}" if len(used) == 1 else "a single level each"
        return f"both raters used {lvl} only: chance agreement is 1, {what} is 0/0"
    return None


def cohen_kappa(table: ArrayLike, weights: str | np.ndarray = "none", values: ArrayLike | None = None) -> Coefficient:
    """Cohen's kappa of a confusion table (rows: rater 1, columns: rater 2), unweighted or weighted on the
    levels' `values` (default positions 1..q)."""
    t = np.asarray(table, dtype=float)
    q = t.shape[0]
    a = pair_arrays(t, np.arange(1, q + 1) if values is None else np.asarray(values, float), "nominal", weights)
    tag = "" if is_unweighted(weights) else "weighted_"
    value, pe = float(a[f"{tag}cohen_kappa"][0]), float(a[f"{tag}kappa_pe"][0])
    name = "cohen_kappa" if not tag else "weighted_kappa"
    reason = _table_reason(t, pe) if math.isnan(value) else None
    return Coefficient(
        name,
        value,
        int(round(t.sum())),
        reason,
        pa=float(a[f"{tag}agreement"][0]),
        pe=pe,
        marginals=tuple(float(x) for x in a["subject_marginals"][0])
        + tuple(float(x) for x in a["reference_marginals"][0]),
    )


def pair_gwet_ac(table: ArrayLike, weights: str | np.ndarray = "none", values: ArrayLike | None = None) -> Coefficient:
    """Gwet's AC1/AC2 of two raters from their confusion table (weights on the levels' `values`)."""
    t = np.asarray(table, dtype=float)
    q = t.shape[0]
    a = pair_arrays(t, np.arange(1, q + 1) if values is None else np.asarray(values, float), "nominal", weights)
    tag = "" if is_unweighted(weights) else "weighted_"
    value = float(a[f"{tag}gwet_ac"][0])
    reason = None
    if math.isnan(value):
        reason = "no shared units" if t.sum() <= 0 else "the scale has a single level: AC1 is undefined"
    return Coefficient(
        "gwet_ac1" if not tag else "gwet_ac2",
        value,
        int(round(t.sum())),
        reason,
        pa=float(a[f"{tag}agreement"][0]),
        pe=float(a[f"{tag}gwet_pe"][0]),
    )


# --- rankings: Kendall's tau-b and pairwise preference agreement ------------------------------------------


def tau_arrays(pairs: np.ndarray) -> dict[str, np.ndarray]:
    """Kendall's tau-b and preference agreement of (batch x 5) item-pair counts.

    Columns: concordant, discordant, tied by the subject only, tied by the reference only, tied by both.
    """
    c, d, ts, tr, tb = np.moveaxis(np.atleast_2d(np.asarray(pairs, dtype=float)), -1, 0)
    total = c + d + ts + tr + tb
    tau = _div(c - d, np.sqrt((c + d + tr) * (c + d + ts)))
    return {"tau_b": tau, "preference_agreement": _div(c + tb, total), "pairs": total}


def kendall_tau_b(
    concordant: float, discordant: float, tied_subject: float = 0, tied_reference: float = 0, tied_both: float = 0
) -> Coefficient:
    """Kendall's tau-b from item-pair counts (ties allowed); undefined when one side ties every pair."""
    pairs = np.array([concordant, discordant, tied_subject, tied_reference, tied_both], dtype=float)
    a = tau_arrays(pairs)
    value, total = float(a["tau_b"][0]), int(pairs.sum())
    reason = None
    if math.isnan(value):
        reason = "no item pairs to compare" if total == 0 else "one side ties every pair: tau-b is 0/0"
    return Coefficient("kendall_tau_b", value, total, reason)


# --- kappa paradox -----------------------------------------------------------------------------------------

PARADOX_AGREEMENT, PARADOX_KAPPA = 0.80, 0.40


@dataclass(frozen=True)
class ParadoxDiagnostic:
    """High agreement but low kappa (Feinstein & Cicchetti 1990): the marginals, AC1 and why, in one sentence."""

    is_paradox: bool
    percent_agreement: float
    kappa: float
    gwet_ac1: float
    levels: tuple[str, ...]
    subject_marginals: tuple[float, ...]
    reference_marginals: tuple[float, ...]
    sentence: str


def kappa_paradox(table: ArrayLike, levels: list[str] | tuple[str, ...]) -> ParadoxDiagnostic:
    """Whether a confusion table shows the kappa paradox, with the marginals and Gwet's AC1 to read it by."""
    t = np.asarray(table, dtype=float)
    a = pair_arrays(t, np.arange(1, len(levels) + 1), "nominal")
    pa, kappa, ac1 = float(a["agreement"][0]), float(a["cohen_kappa"][0]), float(a["gwet_ac"][0])
    rows, cols = a["subject_marginals"][0], a["reference_marginals"][0]
    both = (rows + cols) / 2
    top = int(np.argmax(both)) if t.sum() > 0 else 0
    is_paradox = bool(pa >= PARADOX_AGREEMENT and (math.isnan(kappa) or kappa < PARADOX_KAPPA))
    if t.sum() <= 0:
        sentence = "No shared units, so there is nothing to diagnose."
    elif is_paradox:
        k = "undefined" if math.isnan(kappa) else f"only {kappa:.2f}"
        sentence = (
            f"Raters agree on {pa:.0%} of pairs but kappa is {k} because {both[top]:.0%} of ratings are "
            f"'{levels[top]}': with such skewed marginals chance agreement is high, so read Gwet's AC1 "
            f"({ac1:.2f}), which is not pulled down by prevalence."
        )
    else:
        sentence = f"No kappa paradox: agreement {pa:.0%}, kappa {kappa:.2f}, AC1 {ac1:.2f}."
    return ParadoxDiagnostic(
        is_paradox,
        pa,
        kappa,
        ac1,
        tuple(levels),
        tuple(float(x) for x in rows),
        tuple(float(x) for x in cols),
        sentence,
    )
