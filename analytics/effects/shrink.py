"""Empirical-Bayes shrinkage of each contractor's rater effect toward the rest of the team, and the alarm test.

Every effect (leniency, ties, position bias, ...) arrives as a raw estimate per contractor with a standard error
from task-level variation. A contractor with few tasks has a noisy raw estimate; taken at face value, the most
extreme raw estimates are mostly the noisiest ones. So each estimate is pulled toward the team in proportion to
its noise (normal-normal model, Morris 1983, "Parametric empirical Bayes inference", JASA 78:47-55):

    raw_i ~ N(theta_i, se_i^2),   theta_i ~ N(mu, tau^2)
    shrunk_i = mu + B_i (raw_i - mu),   B_i = tau^2 / (tau^2 + se_i^2)
    var_i = B_i se_i^2 + (1 - B_i)^2 var(mu)

tau^2, how much contractors truly differ, is estimated over every contractor of the same (rubric, dimension,
effect): estimated without the contractor, one outlier in a homogeneous team would get a tau^2 near 0 and be
shrunk all the way to the team. The estimate is the Bayes modal one of Chung, Rabe-Hesketh & Choi (2013,
"Avoiding zero between-study variance estimates in random-effects meta-analysis", Statistics in Medicine
32:4071-4089; the penalty of Chung et al. 2013, Psychometrika 78:685-709): the joint posterior mode of (mu, tau)
under a flat prior on mu and a gamma(2, lambda -> 0) prior on tau, that is the maximum of the log-likelihood
plus log(tau). The penalty is -infinity at tau = 0, so the estimate is never 0: a moment estimator such as
DerSimonian & Laird's (1986) gives tau^2 = 0 whenever the estimates differ less than their noise, which on a
handful of contractors is common, and every contractor is then shown the team's value as their own. mu, the
team value a report shows, is the random-effects mean of the OTHER contractors only, so a contractor is never
compared with a team that contains them.

The alarm test: how far (z, and its one-sided p-value) a contractor's RAW estimate lies beyond the rest of the
team pooled (`team_pooled`: the others' estimates weighted by their tasks, as the rules pool the others'
submissions) on the effect's bad side, beyond the effect's MARGIN, in standard errors of the difference. `flagged`
is left False here: the alarm layer decides it from the p-values of every test in the review under one
false-alarm budget (analytics/alarms/budget.py). The standard error is the contractor's own, never below the
team's typical task-level spread at their n (a contractor whose few tasks all gave the same value would otherwise
look exact). There is no floor on tasks: the test's level holds at any n (bench/bench_alarms.py), and fewer tasks
just need a larger difference. The margin is the smallest difference worth a conversation with a contractor (a
quarter of a scale step, ten points of share): without it, with hundreds of tasks the slight, real quirks every
typical rater has would be flagged as confidently as a planted habit.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np
import pandas as pd
from scipy import optimize

from analytics.core import significance
from analytics.core.stats import Z95

# A standard error of 0 (every task exactly alike: the same duration on each) is read as this small one, so the
# estimate counts as exact instead of unusable.
SE_FLOOR = 1e-6
GRID_POINTS = 81  # bayes_modal_tau2's starting grid: about 8 points per factor of 10 in tau
GROUP = ("rubric", "dimension", "effect")
SIDES = ("high", "low")
INPUT_COLUMNS = ("rater_id", "rubric", "dimension", "effect", "raw", "se", "n_tasks", "bad_side")
OUTPUT_COLUMNS = (
    "estimate",
    "estimate_ci_low",
    "estimate_ci_high",
    "team_value",
    "flagged",
    "team_pooled",
    "z",
    "p_value",
)
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


def penalised_loglik(tau: np.ndarray, y: np.ndarray, v: np.ndarray) -> np.ndarray:
    """At each tau, the profile log-likelihood (mu at its weighted mean given tau) plus log(tau), the log of a
    gamma(2, lambda -> 0) prior on tau (Chung, Rabe-Hesketh & Choi 2013), up to a constant."""
    t = v[None, :] + (tau * tau)[:, None]
    w = 1.0 / t
    mu = np.sum(w * y, axis=1) / np.sum(w, axis=1)
    return -0.5 * np.sum(np.log(t), axis=1) - 0.5 * np.sum(w * (y - mu[:, None]) ** 2, axis=1) + np.log(tau)


def bayes_modal_tau2(raw: np.ndarray, se: np.ndarray) -> float:
    """tau^2 at the maximum of penalised_loglik over the usable estimates (finite, with a positive standard
    error): always positive with two or more; 0 with one (nobody has another to be shrunk toward), nan with none."""
    ok = np.isfinite(raw) & np.isfinite(se) & (se > 0)
    y, v = raw[ok].astype(float), se[ok].astype(float) ** 2
    if len(y) < 2:
        return 0.0 if len(y) else math.nan
    scale = max(float(np.sqrt(np.max(v))), float(np.ptp(y)))
    # The maximum lies below the spread of the estimates plus their noise: a log grid from far below the smallest
    # standard error finds its neighbourhood (the function can have a second, lower bump), Brent refines it.
    grid = np.geomspace(min(float(np.sqrt(np.min(v))), scale) * 1e-4, scale * 10.0, GRID_POINTS)
    best = int(np.argmax(penalised_loglik(grid, y, v)))
    lo, hi = math.log(grid[max(best - 1, 0)]), math.log(grid[min(best + 1, len(grid) - 1)])
    found = optimize.minimize_scalar(
        lambda u: -float(penalised_loglik(np.array([math.exp(u)]), y, v)[0]),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return math.exp(2.0 * float(found.x))


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


def shrink_many(
    raw: np.ndarray, se: np.ndarray, mu: np.ndarray, var_mu: np.ndarray, tau2: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """shrink_one of each position of the arrays (the same arithmetic, element by element)."""
    usable = np.isfinite(raw) & np.isfinite(se) & (se > 0)
    team = usable & np.isfinite(mu)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = tau2 / (tau2 + se**2)
        shrunk = mu + b * (raw - mu)
        sd = np.sqrt(b * se**2 + (1.0 - b) ** 2 * var_mu)
        estimate = np.where(team, shrunk, raw)
        low = np.where(team, shrunk - Z95 * sd, np.where(usable, raw - Z95 * se, np.nan))
        high = np.where(team, shrunk + Z95 * sd, np.where(usable, raw + Z95 * se, np.nan))
    return estimate, low, high


def alarm_z_many(
    raw: np.ndarray, se: np.ndarray, team_value: np.ndarray, var_team: np.ndarray, high: np.ndarray, margin: float
) -> np.ndarray:
    """alarm_z of each position of the arrays (`high`: whether the bad side is high), the same arithmetic."""
    finite = np.isfinite(raw) & np.isfinite(se) & np.isfinite(team_value)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(se**2 + np.where(np.isfinite(var_team), var_team, 0.0))
        beyond = np.where(high, raw - team_value - margin, team_value - margin - raw)
        z = np.where(sd > 0, beyond / sd, np.nan)
    return np.where(finite, z, np.nan)


def alarm_z(raw: float, se: float, team_value: float, var_team: float, bad_side: str, margin: float = 0.0) -> float:
    """How many standard errors of the difference the raw estimate lies beyond the team value plus the margin, on
    the effect's bad side (NaN without a team or an estimate)."""
    if bad_side not in SIDES:
        raise ValueError(f"bad_side must be one of {SIDES}, not {bad_side!r}")
    if not all(math.isfinite(x) for x in (raw, se, team_value)):
        return math.nan
    sd = math.sqrt(se**2 + (var_team if math.isfinite(var_team) else 0.0))
    beyond = raw - team_value - margin if bad_side == "high" else team_value - margin - raw
    return beyond / sd if sd > 0 else math.nan


def task_variance(se: np.ndarray, n_tasks: np.ndarray) -> float:
    """The group's typical task-level variance: the median of se^2 * n over its rows with a standard error."""
    ok = np.isfinite(se) & (se > SE_FLOOR) & (n_tasks > 0)
    return float(np.median(se[ok] ** 2 * n_tasks[ok])) if ok.any() else math.nan


def rest_of_team(raw: np.ndarray, n_tasks: np.ndarray, variance: float) -> tuple[np.ndarray, np.ndarray]:
    """For each row, the other rows' estimates pooled over their tasks (weighted by tasks, as the rules pool the
    rest of the team's submissions) and that mean's variance at the typical task-level variance."""
    ok = np.isfinite(raw) & (n_tasks > 0)
    n = np.where(ok, n_tasks, 0).astype(float)
    n_others = n.sum() - n
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = ((n * np.where(ok, raw, 0.0)).sum() - n * np.where(ok, raw, 0.0)) / n_others
        return np.where(n_others > 0, mean, np.nan), np.where(n_others > 0, variance / n_others, np.nan)


def shrink_effects(rows: pd.DataFrame, margins: dict[str, float] | None = None) -> pd.DataFrame:
    """The rows (INPUT_COLUMNS) with their shrunk estimate, its interval, the team value without the contractor
    and the alarm test (OUTPUT_COLUMNS; `flagged` False until the alarm layer decides it), each against the other contractors of the same rubric, dimension and effect;
    `margins` per effect default to MARGIN (0 for an effect it does not name)."""
    margins = MARGIN if margins is None else margins
    missing = [c for c in INPUT_COLUMNS if c not in rows.columns]
    if missing:
        raise ValueError(f"shrink_effects needs columns {missing}")
    out = rows.reset_index(drop=True).copy()
    values = {c: np.full(len(out), np.nan) for c in OUTPUT_COLUMNS if c != "flagged"}
    all_sides = out["bad_side"].astype(str).to_numpy()
    if not np.isin(all_sides, SIDES).all():
        raise ValueError(f"bad_side must be one of {SIDES}, not {sorted(set(all_sides) - set(SIDES))[0]!r}")
    all_raw, all_se = out["raw"].to_numpy(dtype=float), out["se"].to_numpy(dtype=float)
    all_n = out["n_tasks"].to_numpy(dtype=int)
    groups = out.groupby(list(GROUP), sort=False, dropna=False).indices
    for key, at in groups.items():
        effect = cast(tuple, key)[2]
        raw, sides, n_tasks = all_raw[at], all_sides[at], all_n[at]
        se = np.where(all_se[at] == 0.0, SE_FLOOR, all_se[at])
        variance = task_variance(se, n_tasks)
        rest, var_rest = rest_of_team(raw, n_tasks, variance)
        tau2 = bayes_modal_tau2(raw, se)
        mus, var_mus = team_means_without_each(raw, se, tau2)
        estimate, low, high = shrink_many(raw, se, mus, var_mus, tau2)
        values["estimate"][at], values["estimate_ci_low"][at], values["estimate_ci_high"][at] = estimate, low, high
        values["team_value"][at], values["team_pooled"][at] = mus, rest
        with np.errstate(divide="ignore", invalid="ignore"):
            floor = np.where(n_tasks > 0, np.sqrt(variance / np.where(n_tasks > 0, n_tasks, 1)), np.nan)
        tested_se = np.where(floor > se, floor, se)  # max(se, floor) as Python's max: a nan floor keeps se
        values["z"][at] = alarm_z_many(raw, tested_se, rest, var_rest, sides == "high", margins.get(str(effect), 0.0))
    values["p_value"] = np.array([significance.z_p_value(float(z)) for z in values["z"]])
    for c in OUTPUT_COLUMNS:
        out[c] = values[c] if c != "flagged" else False
    out["flagged"] = out["flagged"].astype(bool)
    return out
