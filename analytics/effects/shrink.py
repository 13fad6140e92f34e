"""Empirical-Bayes shrinkage of each contractor's rater effect toward the rest of the team, and the one flag rule.

Every effect (leniency, ties, position bias, ...) arrives as a raw estimate per contractor with a standard error
from task-level variation. A contractor with few tasks has a noisy raw estimate; taken at face value, the most
extreme raw estimates are mostly the noisiest ones. So each estimate is pulled toward the team in proportion to
its noise (normal-normal model, Morris 1983, "Parametric empirical Bayes inference", JASA 78:47-55):

    raw_i ~ N(theta_i, se_i^2),   theta_i ~ N(mu, tau^2)
    shrunk_i = mu + B_i (raw_i - mu),   B_i = tau^2 / (tau^2 + se_i^2)
    var_i = B_i se_i^2 + (1 - B_i)^2 var(mu)

tau^2, how much contractors truly differ, is estimated over every contractor of the same (rubric, dimension,
effect) (DerSimonian & Laird 1986, "Meta-analysis in clinical trials", Controlled Clinical Trials 7:177-188,
method of moments): estimated without the contractor, one outlier in a homogeneous team would get tau^2 = 0 and
be shrunk all the way to the team. mu, the team value a report shows, is the random-effects mean of the OTHER
contractors only, so a contractor is never compared with a team that contains them.

The flag rule (the only one for rater effects): a contractor is flagged on an effect when they have at least
MIN_TASKS tasks behind it (the small-n rule of analytics.agreement) and the 95% interval of the shrunk estimate
lies wholly on the effect's bad side of the team value, beyond the effect's MARGIN: the smallest difference worth
a conversation with a contractor (a quarter of a scale step, ten points of share). Without it, with hundreds of
tasks the slight, real quirks every typical rater has would be flagged as confidently as a planted habit.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analytics.agreement.rows import MIN_TASKS
from analytics.core.stats import Z95

# A standard error of 0 (every task exactly alike: the same duration on each) is read as this small one, so the
# estimate counts as exact instead of unusable.
SE_FLOOR = 1e-6
GROUP = ("rubric", "dimension", "effect")
SIDES = ("high", "low")
INPUT_COLUMNS = ("rater_id", "rubric", "dimension", "effect", "raw", "se", "n_tasks", "bad_side")
OUTPUT_COLUMNS = ("estimate", "estimate_ci_low", "estimate_ci_high", "team_value", "flagged")
MARGIN = {  # effect -> smallest difference from the team worth flagging, in the raw estimate's unit
    "leniency": 0.25,  # scale points
    "severity": 0.25,
    "central_tendency": 0.10,  # share of ratings at inner levels
    "ties": 0.10,  # share of comparisons called equal
    "position_bias": 0.10,  # share of decided comparisons won by the option shown first
    "halo": 0.05,  # spread of one item's ratings across dimensions, as a share of the scale
    "haste": math.log(4 / 3),  # log duration ratio: a quarter faster than the team
    "drift": 0.0,  # a fall in agreement already measured against the team's same weeks: any credible fall counts
}


def dersimonian_laird(raw: np.ndarray, se: np.ndarray) -> tuple[float, float, float]:
    """The random-effects mean, its variance and the between-rater variance tau^2 of estimates with their
    standard errors (DerSimonian & Laird 1986); (nan, nan, nan) without any estimate."""
    ok = np.isfinite(raw) & np.isfinite(se) & (se > 0)
    y, v = raw[ok], se[ok] ** 2
    if len(y) == 0:
        return math.nan, math.nan, math.nan
    w = 1.0 / v
    tau2 = 0.0
    if len(y) > 1:
        mean_fixed = float(np.sum(w * y) / np.sum(w))
        q = float(np.sum(w * (y - mean_fixed) ** 2))
        c = float(np.sum(w) - np.sum(w**2) / np.sum(w))
        tau2 = max(0.0, (q - (len(y) - 1)) / c) if c > 0 else 0.0
    w_star = 1.0 / (v + tau2)
    return float(np.sum(w_star * y) / np.sum(w_star)), float(1.0 / np.sum(w_star)), tau2


def team_means_without_each(raw: np.ndarray, se: np.ndarray, tau2: float) -> tuple[np.ndarray, np.ndarray]:
    """For each estimate in turn, the random-effects mean of the others given tau^2 (weights 1 / (se^2 + tau^2);
    each is left out of its own team) and its variance, as arrays."""
    n = len(raw)
    ok = np.isfinite(raw) & np.isfinite(se) & (se > 0)
    if not math.isfinite(tau2) or n < 2:
        return np.full(n, np.nan), np.full(n, np.nan)
    w = np.where(ok, 1.0 / (np.where(ok, se, 1.0) ** 2 + tau2), 0.0)
    w_others, wy_others, n_others = _sums_over_others(np.stack([w, w * np.where(ok, raw, 0.0), ok.astype(float)]))
    with np.errstate(divide="ignore", invalid="ignore"):
        mu, var = wy_others / w_others, 1.0 / w_others
    none = n_others == 0
    return np.where(none, np.nan, mu), np.where(none, np.nan, var)


def _sums_over_others(rows: np.ndarray, budget: int = 4_000_000) -> np.ndarray:
    """Per row of `rows` (k x n) and each position i, the sum of the row's other values: summed over the others,
    not the total less one's own (a dominant weight would cancel the rest), in blocks of positions of at most
    `budget` numbers."""
    n = rows.shape[1]
    out = np.empty_like(rows, dtype=float)
    step = max(1, budget // max(n, 1))
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        others = np.ones((n, hi - lo))
        others[np.arange(lo, hi), np.arange(hi - lo)] = 0.0
        out[:, lo:hi] = rows @ others
    return out


def shrink_one(raw: float, se: float, mu: float, var_mu: float, tau2: float) -> tuple[float, float, float]:
    """The shrunk estimate and its 95% interval of one raw estimate toward a team of mean mu (variance var_mu)
    and between-rater variance tau2; the raw interval when there is no team to shrink toward."""
    if not (math.isfinite(raw) and math.isfinite(se) and se > 0):
        return raw, math.nan, math.nan
    if not math.isfinite(mu):
        return raw, raw - Z95 * se, raw + Z95 * se
    b = tau2 / (tau2 + se**2)
    estimate = mu + b * (raw - mu)
    sd = math.sqrt(b * se**2 + (1.0 - b) ** 2 * var_mu)
    return estimate, estimate - Z95 * sd, estimate + Z95 * sd


def is_flagged(
    n_tasks: int, ci_low: float, ci_high: float, team_value: float, bad_side: str, margin: float = 0.0
) -> bool:
    """The flag rule: enough tasks, and the shrunk estimate's 95% interval wholly on the bad side of the team,
    beyond the margin."""
    if bad_side not in SIDES:
        raise ValueError(f"bad_side must be one of {SIDES}, not {bad_side!r}")
    if n_tasks < MIN_TASKS or not all(math.isfinite(x) for x in (ci_low, ci_high, team_value)):
        return False
    return ci_low > team_value + margin if bad_side == "high" else ci_high < team_value - margin


def shrink_effects(rows: pd.DataFrame, margins: dict[str, float] | None = None) -> pd.DataFrame:
    """The rows (INPUT_COLUMNS) with their shrunk estimate, its interval, the team value without the contractor
    and the flag (OUTPUT_COLUMNS), each against the other contractors of the same rubric, dimension and effect;
    `margins` per effect default to MARGIN (0 for an effect it does not name)."""
    margins = MARGIN if margins is None else margins
    missing = [c for c in INPUT_COLUMNS if c not in rows.columns]
    if missing:
        raise ValueError(f"shrink_effects needs columns {missing}")
    out = rows.reset_index(drop=True).copy()
    values: dict[str, list] = {c: [math.nan] * len(out) for c in OUTPUT_COLUMNS}
    values["flagged"] = [False] * len(out)
    for (_, _, effect), group in out.groupby(list(GROUP), sort=False, dropna=False):
        margin = margins.get(str(effect), 0.0)
        raw = group["raw"].to_numpy(dtype=float)
        se = group["se"].to_numpy(dtype=float)
        se = np.where(se == 0.0, SE_FLOOR, se)
        n_tasks = group["n_tasks"].to_numpy(dtype=int)
        sides = group["bad_side"].astype(str).tolist()
        tau2 = dersimonian_laird(raw, se)[2] if len(group) > 1 else math.nan
        mus, var_mus = team_means_without_each(raw, se, tau2)
        for pos, i in enumerate(group.index):
            mu = float(mus[pos])
            estimate, low, high = shrink_one(float(raw[pos]), float(se[pos]), mu, float(var_mus[pos]), tau2)
            values["estimate"][i], values["estimate_ci_low"][i], values["estimate_ci_high"][i] = estimate, low, high
            values["team_value"][i] = mu
            values["flagged"][i] = is_flagged(int(n_tasks[pos]), low, high, mu, sides[pos], margin)
    for c in OUTPUT_COLUMNS:
        out[c] = values[c]
    out["flagged"] = out["flagged"].astype(bool)
    return out
