"""The rater model's accuracy interval: posteriors calibrated on the researchers' labels, and a Wilson interval whose
sample size counts the uncertainty of the modelled truth as well as the rater's number of tasks.

Dawid-Skene posteriors are overconfident where raters are not independent given the truth (a wrong majority is
believed), so a rater's expected correct count is too sure and, on Snow et al. (2008) RTE and temp with a fifth of
the gold given, a Wilson interval treating it as known covered the workers' accuracy 92.0% and 89.9% of the time
(bench/bench_model_coverage.py). Two changes bring that to 95.4% and 94.1% (bench/RESULTS.md):
- temperature scaling (Guo, Pleiss, Sun & Weinberger 2017, "On calibration of modern neural networks", ICML): the
  unanchored units' posteriors are softmax(T * log posterior), with T <= 1 the maximum-likelihood temperature on the
  units a researcher labelled, their posteriors computed from the contractors' labels as if unanchored;
- the interval's sample size is an effective n (Kish 1965, "Survey Sampling", the design effect): the variance of
  the accuracy is the binomial variance over the rater's tasks plus the variance of their correct count given the
  calibrated posteriors.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, sparse

from analytics.core.stats import wilson_bounds

MIN_CALIBRATION_UNITS = 20  # anchored units with a contractor label needed to learn a temperature (else not calibrated)
MAX_CALIBRATION_UNITS = 20_000  # evenly spaced anchored units a temperature is learnt from (standard error ~0.01)
MIN_TEMPERATURE = 0.05  # the smallest temperature searched (T -> 0 flattens every posterior)
# What the interval was measured to cover where it cannot be calibrated (no temperature learnt): on Snow 2008 with
# no gold given, 92.8% (RTE) and 89.9% (temp) (bench/RESULTS.md, bench/bench_model_coverage.py --share 0).
UNCALIBRATED_COVERAGE = "90-93%"


def log_posterior(
    units: np.ndarray, raters: np.ndarray, labels: np.ndarray, confusion: np.ndarray, prior: np.ndarray, n_units: int
) -> np.ndarray:
    """Each unit's log posterior over true levels, up to a constant, from its labels alone (units x levels)."""
    q = len(prior)
    n_raters = confusion.shape[0]
    ratings = sparse.csr_matrix((np.ones(len(units)), (units, raters * q + labels)), shape=(n_units, n_raters * q))
    return np.log(prior)[None, :] + ratings @ np.log(confusion).transpose(0, 2, 1).reshape(-1, q)


def tempered(log_post: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(temperature * log_post) per row."""
    x = temperature * log_post
    x = np.exp(x - x.max(axis=1, keepdims=True))
    return x / x.sum(axis=1, keepdims=True)


def temperature(log_post: np.ndarray, truth: np.ndarray) -> float:
    """The temperature in [MIN_TEMPERATURE, 1] that maximises the likelihood of the known levels `truth` under
    tempered(log_post, T); 1 with fewer than MIN_CALIBRATION_UNITS units (never sharper than the fit)."""
    if len(truth) < MIN_CALIBRATION_UNITS:
        return 1.0
    rows = np.arange(len(truth))

    def loss(log_t: float) -> float:
        """Negative log likelihood of the known levels at temperature exp(log_t)."""
        return -float(np.log(np.maximum(tempered(log_post, np.exp(log_t))[rows, truth], 1e-300)).sum())

    best = optimize.minimize_scalar(loss, bounds=(np.log(MIN_TEMPERATURE), 0.0), method="bounded")
    return float(np.exp(best.x))


def calibrated(
    posterior: np.ndarray,
    confusion: np.ndarray,
    prior: np.ndarray,
    units: np.ndarray,
    raters: np.ndarray,
    labels: np.ndarray,
    truth: np.ndarray,
) -> tuple[np.ndarray, float]:
    """The fit's posteriors with the unanchored units' ones tempered (anchored units keep their level), and the
    temperature, learnt on the anchored units that have a contractor label (at most MAX_CALIBRATION_UNITS of
    them: `units`, `raters`, `labels` are the observed ratings, `truth` each unit's known level or -1). With fewer
    than MIN_CALIBRATION_UNITS such units, the fit's posteriors and NaN (not calibrated)."""
    anchored = truth >= 0
    seen = np.zeros(len(truth), dtype=bool)
    seen[units] = True
    known = np.flatnonzero(anchored & seen)
    if len(known) < MIN_CALIBRATION_UNITS:
        return posterior, math.nan
    log_post = log_posterior(units, raters, labels, confusion, prior, len(truth))
    known = known[np.linspace(0, len(known) - 1, min(len(known), MAX_CALIBRATION_UNITS)).astype(int)]
    t = temperature(log_post[known], truth[known])
    out = posterior.copy()
    out[~anchored] = tempered(log_post[~anchored], t)
    return out, t


def accuracy_bounds(
    correct: np.ndarray, spread: np.ndarray, n_labels: np.ndarray, n_tasks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The 95% Wilson interval of each rater's accuracy (expected correct labels `correct` of `n_labels`) with an
    effective n: 1 / n_eff = 1 / n_tasks + spread / (n_labels^2 p (1 - p)), where `spread` is the variance of the
    correct count given the posteriors (the sum of p_i (1 - p_i) over their labels). Tasks, not labels, count as
    the binomial sample: labels of one task are not independent."""
    n, m = np.asarray(n_labels, dtype=float), np.asarray(n_tasks, dtype=float)
    share = np.asarray(correct, dtype=float) / n
    binomial = share * (1 - share)
    with np.errstate(divide="ignore", invalid="ignore"):
        extra = np.where(binomial > 0, np.asarray(spread, dtype=float) / (n**2 * binomial), 0.0)
        n_eff = 1 / (1 / m + extra)
    return wilson_bounds(share, n_eff)


def rater_accuracy(
    posterior: np.ndarray,
    confusion: np.ndarray,
    prior: np.ndarray,
    units: np.ndarray,
    raters: np.ndarray,
    labels: np.ndarray,
    truth: np.ndarray,
    n_tasks: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Per rater (index of `n_tasks`): accuracy (expected share of their observed labels equal to the true level,
    under the calibrated posteriors) and its 95% interval (accuracy_bounds; `n_tasks` per rater); and the
    temperature (NaN: not calibrated)."""
    sure, t = calibrated(posterior, confusion, prior, units, raters, labels, truth)
    right = sure[units, labels]
    k = len(n_tasks)
    n_labels = np.bincount(raters, minlength=k)
    correct = np.bincount(raters, right, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = accuracy_bounds(correct, np.bincount(raters, right * (1 - right), k), n_labels, n_tasks)
        return correct / n_labels, low, high, t
