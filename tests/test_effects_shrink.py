"""Empirical-Bayes shrinkage and the alarm test of rater effects (analytics/effects/shrink.py); a row alarms when
the review's one rule (analytics/alarms/budget.py) over the rows' p-values says so (`_flagged`)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats
from statsmodels.stats.meta_analysis import combine_effects

from analytics.alarms import budget
from analytics.effects import shrink


def _flagged(out: pd.DataFrame) -> list[bool]:
    """Whether each row alarms under the review's one rule applied to these rows' p-values."""
    threshold = budget.discovery_threshold(out["p_value"].to_numpy(dtype=float))
    return (out["p_value"] <= threshold).tolist()


def _team_mean(raw: np.ndarray, se: np.ndarray, tau2: float) -> tuple[float, float]:
    """The oracle: the random-effects mean of estimates with their standard errors given tau^2, and its variance,
    computed directly (the weighted mean of DerSimonian & Laird 1986, eq. 7)."""
    ok = np.isfinite(raw) & np.isfinite(se) & (se > 0)
    if not ok.any() or not math.isfinite(tau2):
        return math.nan, math.nan
    w = 1.0 / (se[ok] ** 2 + tau2)
    return float(np.sum(w * raw[ok]) / np.sum(w)), float(1.0 / np.sum(w))


def _rows(raw, se, n_tasks=100, bad_side="high") -> pd.DataFrame:
    """Effect rows of one (rubric, dimension, effect) for raters r0, r1, ..."""
    k = len(raw)
    return pd.DataFrame(
        {
            "rater_id": [f"r{i}" for i in range(k)],
            "rubric": "rb",
            "dimension": "d",
            "effect": "leniency",
            "raw": raw,
            "se": se,
            "n_tasks": n_tasks if isinstance(n_tasks, list) else [n_tasks] * k,
            "bad_side": bad_side,
        }
    )


def _posterior_mode(raw: np.ndarray, se: np.ndarray) -> tuple[float, float]:
    """The oracle: the joint mode of (mu, tau) under a flat prior on mu and a gamma(2, rate 1e-9) prior on tau
    (Chung, Rabe-Hesketh & Choi 2013), found by Nelder-Mead on the two parameters together with scipy's normal
    and gamma densities (no profiling, no grid): (mu, tau^2)."""

    def minus_log_posterior(p: np.ndarray) -> float:
        mu, tau = p[0], math.exp(p[1])  # the same density, evaluated at tau = e^u: its maximiser is unchanged
        spread = np.sqrt(se**2 + tau**2)
        return -float(np.sum(stats.norm.logpdf(raw, mu, spread)) + stats.gamma.logpdf(tau, a=2, scale=1e9))

    start = np.array([float(np.mean(raw)), math.log(float(np.std(raw)) + float(np.mean(se)))])
    found = optimize.minimize(
        minus_log_posterior, start, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-14}
    )
    return float(found.x[0]), math.exp(2 * float(found.x[1]))


@pytest.mark.parametrize(
    "raw, se",
    [
        (np.random.default_rng(3).normal(0.2, 0.3, 12), np.random.default_rng(4).uniform(0.05, 0.4, 12)),
        (np.array([0.10, 0.11, 0.09]), np.array([0.2, 0.2, 0.2])),  # DerSimonian-Laird's tau^2 is 0 here
        (np.array([0.71, 0.70, 0.72, 0.71, 0.50]), np.array([0.03, 0.03, 0.03, 0.03, 0.29])),
        (np.array([0.0, 1.0]), np.array([0.1, 0.5])),
    ],
)
def test_bayes_modal_tau2_matches_direct_optimisation(raw, se):
    """tau^2 equals the joint posterior mode of (mu, tau) found by a general optimiser on the unprofiled
    posterior, including where the method of moments gives 0."""
    _, want = _posterior_mode(raw, se)
    assert shrink.bayes_modal_tau2(raw, se) == pytest.approx(want, rel=1e-5)


def test_bayes_modal_tau2_by_hand():
    """With equal standard errors s, setting the derivative of the penalised log-likelihood in tau to 0 gives
    (k - 1) t^2 - (S + (2 - k) s^2) t - s^4 = 0 for t = tau^2, S the sum of squared deviations: its positive root."""
    raw = np.array([0.3, 0.1, 0.25, 0.2, 0.18, 0.22])
    s, k = 0.15, len(raw)
    big_s = float(np.sum((raw - raw.mean()) ** 2))
    b = big_s + (2 - k) * s**2
    want = (b + math.sqrt(b * b + 4 * (k - 1) * s**4)) / (2 * (k - 1))
    assert shrink.bayes_modal_tau2(raw, np.full(k, s)) == pytest.approx(want, rel=1e-7)


def test_homogeneous_team_keeps_a_positive_between_rater_variance():
    """Estimates that differ less than their own noise: DerSimonian & Laird's tau^2 (statsmodels) is 0, the Bayes
    modal one is not, and one or two usable estimates give 0 and none nan."""
    raw, se = np.array([0.10, 0.11, 0.09]), np.array([0.2, 0.2, 0.2])
    assert combine_effects(raw, se**2, method_re="dl").tau2 <= 0.0  # statsmodels does not truncate at 0
    assert shrink.bayes_modal_tau2(raw, se) > 0.0
    assert shrink.bayes_modal_tau2(np.array([0.1, np.nan]), np.array([0.2, 0.2])) == 0.0
    assert math.isnan(shrink.bayes_modal_tau2(np.array([np.nan]), np.array([0.2])))


def test_a_few_tasks_are_not_shown_as_the_team_value():
    """Issue 48's case: a 3-task contractor with raw 0.50 among contractors at about 0.71, where the moment
    estimate of tau^2 is 0 (so they were shown exactly the team's value): tau^2 stays positive, so the shrunk
    estimate keeps its share B = tau^2 / (tau^2 + se^2) of the distance from the team, strictly between the two."""
    raw = [0.71, 0.70, 0.72, 0.71, 0.69, 0.73, 0.71, 0.70, 0.72, 0.71, 0.50]
    se = [0.03] * 10 + [0.29]
    assert combine_effects(np.array(raw), np.array(se) ** 2, method_re="dl").tau2 <= 0.0  # statsmodels: no truncation
    one = shrink.shrink_effects(margins={}, rows=_rows(raw, se, n_tasks=[100] * 10 + [3])).iloc[10]
    tau2 = shrink.bayes_modal_tau2(np.array(raw), np.array(se))
    b = tau2 / (tau2 + 0.29**2)
    assert b > 0.0
    assert one["raw"] < one["estimate"] < one["team_value"]
    assert one["estimate"] == pytest.approx(one["team_value"] + b * (0.50 - one["team_value"]), rel=1e-12)


def test_shrink_one_by_hand():
    """raw 1.0 with se 0.5 toward mu 0 (var_mu 0.01) with tau^2 0.25: B = 0.5, estimate 0.5,
    sd = sqrt(0.5 * 0.25 + 0.25 * 0.01) (Morris 1983's posterior with the mean's uncertainty)."""
    estimate, low, high = shrink.shrink_one(1.0, 0.5, 0.0, 0.01, 0.25)
    sd = math.sqrt(0.5 * 0.25 + 0.25 * 0.01)
    assert estimate == pytest.approx(0.5)
    assert (low, high) == pytest.approx((0.5 - shrink.Z95 * sd, 0.5 + shrink.Z95 * sd))


def test_noisier_estimates_are_pulled_further_toward_the_team():
    """Two contractors with the same raw estimate: the one with the larger standard error ends nearer the team."""
    raw = [0.0, 0.05, -0.05, 0.02, -0.02, 0.6, 0.6]
    se = [0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.4]
    out = shrink.shrink_effects(margins={}, rows=_rows(raw, se))
    precise, noisy = out.iloc[5], out.iloc[6]
    assert abs(noisy["estimate"] - noisy["team_value"]) < abs(precise["estimate"] - precise["team_value"])
    assert _flagged(out)[5] and not _flagged(out)[6]


def test_team_value_leaves_the_contractor_out():
    """The team value of each contractor is the random-effects mean of the others only, weighted with the
    between-rater variance of the whole team."""
    raw = [0.0, 0.1, -0.1, 1.5]
    se = [0.1, 0.1, 0.1, 0.1]
    out = shrink.shrink_effects(margins={}, rows=_rows(raw, se))
    tau2 = shrink.bayes_modal_tau2(np.array(raw), np.array(se))
    mu, _ = _team_mean(np.array(raw[:3]), np.array(se[:3]), tau2)
    assert out.iloc[3]["team_value"] == pytest.approx(mu)
    assert out.iloc[3]["team_pooled"] == pytest.approx(0.0)  # the others pooled over their (equal) tasks
    assert _flagged(out)[3]


@pytest.mark.parametrize(
    "raw, se",
    [
        ([0.0, 0.1, -0.1, 1.5], [0.1, 0.1, 0.1, 0.1]),
        ([0.3, np.nan, 0.2, 0.9, -0.4], [0.1, 0.2, np.nan, 1e-6, 0.3]),  # missing values; one weight dominates
        ([0.5, 0.7], [0.2, np.nan]),  # one contractor has no team to be compared with
    ],
)
def test_team_means_without_each_are_team_mean_of_the_others(raw, se):
    """The vectorised leave-one-out means equal _team_mean over the others, one contractor at a time."""
    raw_a, se_a = np.array(raw), np.array(se)
    tau2 = 0.02
    mus, var_mus = shrink.team_means_without_each(raw_a, se_a, tau2)
    for pos in range(len(raw)):
        others = np.arange(len(raw)) != pos
        mu, var_mu = _team_mean(raw_a[others], se_a[others], tau2)
        assert mus[pos] == pytest.approx(mu, rel=1e-12, nan_ok=True)
        assert var_mus[pos] == pytest.approx(var_mu, rel=1e-12, nan_ok=True)
    assert np.isnan(shrink.team_means_without_each(raw_a, se_a, math.nan)[0]).all()


def test_sums_over_the_others_in_blocks_are_the_sums():
    """However small the block budget, each position's sum leaves out that position only."""
    rows = np.random.default_rng(3).normal(size=(3, 37))
    want = rows.sum(axis=1, keepdims=True) - rows
    for limit in (1, 40, 100, 10_000):
        assert np.allclose(shrink._sums_over_others(rows, limit), want, rtol=1e-12, atol=1e-12)


def test_one_outlier_in_a_homogeneous_team_is_not_shrunk_away():
    """Among contractors who agree exactly, the one who differs keeps most of the difference: the between-rater
    variance counts every contractor, the subject included (else it would be 0 and shrink them to the team)."""
    out = shrink.shrink_effects(margins={}, rows=_rows([0.0] * 10 + [1.0], [0.1] * 11))
    assert out.iloc[10]["estimate"] > 0.8
    assert _flagged(out) == [False] * 10 + [True]


def test_the_test_is_continuous_in_tasks():
    """No floor of tasks: the same clear effect on 29 and on 30 tasks gets nearly the same z (both alarm), and the
    standard error never falls below the team's task-level spread at the contractor's n (se^2 * n median 0.25:
    sqrt(0.25 / 29) = 0.093 > 0.05), so fewer tasks need a larger difference."""
    raw, se = [0.0, 0.05, -0.05, 0.0, 1.0], [0.05] * 5
    z = {
        n: shrink.shrink_effects(margins={}, rows=_rows(raw, se, n_tasks=[100, 100, 100, 100, n])).iloc[4]["z"]
        for n in (3, 29, 30)
    }
    assert z[29] == pytest.approx(z[30], rel=0.03)
    assert z[3] < z[29]
    others = 4 * 100
    assert z[29] == pytest.approx(1.0 / math.sqrt(0.25 / 29 + 0.25 / others))
    flagged = shrink.shrink_effects(margins={}, rows=_rows(raw, se, n_tasks=[100, 100, 100, 100, 29]))
    assert _flagged(flagged)[4]


def test_flag_only_on_the_bad_side():
    """A clearly low estimate is flagged only when low is the bad side (severity), not for leniency."""
    raw, se = [0.0, 0.05, -0.05, 0.0, -1.0], [0.05] * 5
    high = shrink.shrink_effects(margins={}, rows=_rows(raw, se, bad_side="high"))
    low = shrink.shrink_effects(margins={}, rows=_rows(raw, se, bad_side="low"))
    assert not _flagged(high)[4]
    assert _flagged(low) == [False] * 4 + [True]


def test_groups_are_shrunk_separately():
    """A contractor is compared only with the same rubric, dimension and effect."""
    a = _rows([0.0, 0.0, 0.0], [0.1] * 3)
    b = _rows([5.0, 5.0, 5.0], [0.1] * 3).assign(effect="ties")
    out = shrink.shrink_effects(pd.concat([a, b]), margins={})
    assert out.loc[out["effect"] == "leniency", "team_value"].tolist() == pytest.approx([0.0] * 3)
    assert out.loc[out["effect"] == "ties", "team_value"].tolist() == pytest.approx([5.0] * 3)


def test_unusable_standard_error_is_never_flagged():
    """A raw estimate without a standard error keeps its value, gets no interval and no flag."""
    out = shrink.shrink_effects(margins={}, rows=_rows([0.0, 0.1, 3.0], [0.1, 0.1, math.nan]))
    assert out.iloc[2]["estimate"] == 3.0
    assert math.isnan(out.iloc[2]["estimate_ci_low"])
    assert math.isnan(out.iloc[2]["p_value"]) and not _flagged(out)[2]


def test_zero_standard_error_counts_as_exact():
    """Every task alike (the same 10 s each) gives a standard error of 0: read as SE_FLOOR, the estimate stays
    where it is and alarms against a team that is far away."""
    out = shrink.shrink_effects(margins={}, rows=_rows([0.0, 0.0, 0.0, -3.0], [0.0] * 4, bad_side="low"))
    assert out.iloc[3]["estimate"] == pytest.approx(-3.0)
    assert _flagged(out)[3]


def test_a_lone_contractor_has_no_team():
    """With nobody else on the effect there is no team value and no flag, only the raw interval."""
    out = shrink.shrink_effects(margins={}, rows=_rows([2.0], [0.1]))
    assert math.isnan(out.iloc[0]["team_value"])
    assert out.iloc[0]["estimate_ci_low"] == pytest.approx(2.0 - shrink.Z95 * 0.1)
    assert math.isnan(out.iloc[0]["p_value"]) and not _flagged(out)[0]


def test_bad_input_is_refused():
    """Missing columns and an unknown bad side raise a readable error."""
    with pytest.raises(ValueError, match="needs columns"):
        shrink.shrink_effects(pd.DataFrame({"raw": [1.0]}))
    with pytest.raises(ValueError, match="bad_side"):
        shrink.shrink_effects(margins={}, rows=_rows([0.0, 0.1, 0.2, 1.0], [0.1] * 4, bad_side="up"))


def test_margin_keeps_slight_real_differences_unflagged():
    """A precisely measured difference smaller than the effect's margin (leniency: a quarter of a scale step) is
    not flagged; the same contractor beyond the margin is."""
    slight = shrink.shrink_effects(_rows([0.0] * 10 + [0.2], [0.02] * 11))
    clear = shrink.shrink_effects(_rows([0.0] * 10 + [0.6], [0.02] * 11))
    assert shrink.MARGIN["leniency"] == 0.25
    assert not _flagged(slight)[10]
    assert _flagged(clear)[10]
