"""Task-level bootstrap intervals: every coefficient's 95% interval resamples tasks, never units or pairs.

A task is the independent cluster: its targets (answers A and B, outputs 1..4), its raters and every pair of
ratings on it share the task's difficulty, so resampling units or pairs treats correlated observations as
independent and gives intervals that are too narrow (nominal 95% intervals covered 86-90% in simulation).

Everything a coefficient needs is a sum over tasks of a small per-task vector (confusion cells, per-unit
value-count patterns, item-pair counts). Tasks with the same vector are interchangeable, so a group's tasks
are held as distinct "signatures" with a task count each, and resampling T tasks with replacement is exactly a
multinomial draw of T over the signatures (Efron & Tibshirani 1993, ch. 6; performance notes: "resample
counts, not rows"). A resample's vector is then `draws @ signatures`.

Proportions (percent, exact, coarse agreement) get the Wilson score interval at the effective number of tasks,
n_eff = p(1 - p) / Var(p) with Var(p) over tasks (Kish's design effect; Dean & Pagano 2015 found this Wilson
interval the one that holds its coverage in clustered samples): one formula at every n, never a zero-width
interval, and no switch of method at a number of tasks. n_eff is at most the number of pairs, and is the number
of pairs where the variance is 0 (every pair agrees, or none does: no design effect can be estimated), as survey
practice truncates the design effect at 1 (Korn & Graubard 1998; NCHS data presentation standards for proportions,
Parker et al. 2017). Where the pairs are not known (a bootstrap caller) it is the number of tasks there instead.

Pair coefficients (a rater against researchers, a pair of raters: `analytic_interval`) take their variance from
the delta method over tasks at every n. Kappa-type coefficients (Cohen's and weighted kappa, Scott's pi,
Krippendorff's alpha, Gwet's AC1/AC2, Brennan-Prediger) are skewed near their bound 1 at small n, so their normal
interval is built on Fisher's z = atanh(kappa) and mapped back (a transformed delta-method interval): the task
bootstrap's percentile interval covered 84-93% at 10 tasks and the plain normal one 85-93% at 10-30 tasks in most
of bench/bench_coverage.py's scenarios (bench/RESULTS.md). Below MIN_INTERVAL_TASKS tasks no interval held 93-97%
in the benchmark's scenarios: they get none (NaN with a reason), the point estimate, n and small_n kept (DESIGN.md
principle 6).

Other coefficients resample tasks (multi-rater coefficients, Kendall's tau-b): their percentile interval, or no
interval and a reason where every resample gives the same value. Resamples where a coefficient is undefined
(0/0) are left out and counted.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from analytics.core.stats import PERCENTILES_95, Z95, t95, wilson, wilson_bounds

BOOT_BUDGET = 4_000_000  # most numbers held at once by one bootstrap batch (32 MB of float64)
BOOTSTRAP, DELTA = "task bootstrap", "task delta method"  # how an interval was made
WILSON_EFFECTIVE = "Wilson (effective tasks)"  # a proportion's score interval at n_eff (module docstring)
FISHER_Z = "task delta method, Fisher z"  # a kappa-type coefficient's transformed interval
DELTA_T = "task delta method, t"  # the mean difference: a normal interval with the t quantile
# From DELTA_MIN_TASKS tasks, a statistic that is not smooth in the sums (a total variation distance, whose basic
# interval corrects the bias of |.|) is resampled by the Gaussian multiplier bootstrap (Wu 1986; Chernozhukov,
# Chetverikov & Kato 2013): the summed vectors are drawn from their normal law over tasks, which the multinomial
# draw over signatures approaches at that size, for a few numbers per resample instead of one per signature.
MULTIPLIER = "task multiplier bootstrap"
# An interval narrower than this is rounding, not uncertainty: a coefficient that is constant in the cells (kappa
# of a rater who used one level is 0 on any resample) gets a delta-method width of 1e-13 to 5e-11 from the numerical
# gradient (rater pairs at 300k tasks), on either side of a tighter threshold depending on the order of float sums.
FLOAT_NOISE = 1e-9
PROPORTIONS = ("percent_agreement", "exact_agreement", "coarse_agreement", "preference_agreement")


@dataclass(frozen=True)
class Interval:
    """A 95% interval, how it was made, and how many resamples were undefined."""

    low: float
    high: float
    method: str  # WILSON_EFFECTIVE, FISHER_Z, DELTA_T, "task bootstrap", "task delta method" or "" (none)
    undefined: int = 0  # resamples where the coefficient was 0/0 (left out)
    reason: str | None = None  # why there is no interval


NO_INTERVAL = Interval(math.nan, math.nan, "")


def rng_for(seed: int, *key: str) -> np.random.Generator:
    """A generator seeded by the report seed and a row's key, so a row's interval does not depend on others."""
    return np.random.default_rng([seed, zlib.crc32("\x1f".join(key).encode())])


def chunks(n_boot: int, width: int, budget: int = BOOT_BUDGET) -> list[int]:
    """Resample batch sizes that keep a (batch x width) array under `budget` elements."""
    size = max(1, min(n_boot, budget // max(1, width)))
    return [min(size, n_boot - i) for i in range(0, n_boot, size)]


def task_draws(n_tasks: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(n_boot x signatures) task counts of resamples: T tasks drawn with replacement over the signatures."""
    n = np.asarray(n_tasks, dtype=float)
    total = int(round(n.sum()))
    if total <= 0 or n_boot <= 0:
        return np.zeros((max(n_boot, 0), n.size))
    counts = np.rint(n).astype(np.int64)
    if total <= TASKS_PER_SIGNATURE * n.size and np.array_equal(counts, n):
        return _draw_tasks(counts, total, n_boot, rng)
    return rng.multinomial(total, n / n.sum(), size=n_boot).astype(float)


# A multinomial draw costs one binomial per signature and resample, about as much as drawing eight tasks: where a
# group has fewer tasks than that per signature (most pairs of raters: some 50 tasks on 27 signatures), the tasks
# themselves are drawn. Both are exactly the multinomial law of T tasks over the signatures.
TASKS_PER_SIGNATURE = 8


def _draw_tasks(counts: np.ndarray, total: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """task_draws by drawing T task indices per resample and counting them per signature."""
    k = len(counts)
    signature_of = np.repeat(np.arange(k, dtype=np.int64), counts)
    out = np.empty((n_boot, k))
    for rows, tasks in _task_batches(total, n_boot, rng):
        flat = signature_of[tasks] + (np.arange(len(tasks), dtype=np.int64) * k)[:, None]
        out[rows] = np.bincount(flat.ravel(), minlength=len(tasks) * k).reshape(len(tasks), k)
    return out


def _task_batches(total: int, n_boot: int, rng: np.random.Generator) -> Iterator[tuple[slice, np.ndarray]]:
    """n_boot resamples of T task indices drawn with replacement, as (resample rows, size x T indices) batches
    that stay under BOOT_BUDGET indices."""
    start = 0
    for size in chunks(n_boot, total):
        # uint32 (not uint16, which buffers within one call only): draws in batches equal one draw of all rows, so a
        # group's resamples do not depend on how its caller batches them.
        yield slice(start, start + size), rng.integers(0, total, size=(size, total), dtype=np.uint32)
        start += size


def _tasks_below(total: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(n_boot x T+1): per resample of T task indices (_task_batches), how many fall below each position 0..T."""
    below = np.zeros((n_boot, total + 1), dtype=np.int32)
    for rows, tasks in _task_batches(total, n_boot, rng):
        flat = tasks + (np.arange(len(tasks), dtype=np.int64) * total)[:, None]
        hits = np.bincount(flat.ravel(), minlength=len(tasks) * total).reshape(len(tasks), total)
        np.cumsum(hits, axis=1, out=below[rows, 1:])
    return below


def _per_signature(below: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """(n_boot x signatures) draws per signature from _tasks_below's counts: signature j owns the task positions
    [c_j-1, c_j) of the cumulative task counts c."""
    return np.diff(below[:, np.r_[0, np.cumsum(counts)]], axis=1).astype(float)


# Groups of at most this many tasks read task draws shared with every group of the same number of tasks (see
# TaskDraws): pairs of raters are thousands of groups of a few dozen to a few hundred tasks, and drawing each one's
# tasks anew was most of the full agreement's time.
SHARED_MAX_TASKS = 500


class TaskDraws:
    """The task draws of one report's groups, per group the multinomial law of T tasks over its signatures.

    A group of at most SHARED_MAX_TASKS tasks reads draws shared by every group of the same T (common random
    numbers): per T, n_boot resamples of T task indices, seeded by the seed and T alone, held as each resample's
    number of indices below each position (_tasks_below). A signature's draw is a difference of two of those
    numbers (_per_signature): k numbers per resample instead of T. Groups of the same T
    are then not independent of each other, which no interval needs; each one's law is exact, and depends on its
    own tasks and the seed only. Larger groups draw from their own generator (rng_for with the group's key)."""

    def __init__(self, seed: int, n_boot: int) -> None:
        self.seed, self.n_boot = seed, n_boot
        self._total, self._below = -1, np.zeros((0, 0), dtype=np.int32)  # the last T's (callers go in order of T)

    def of(self, n_tasks: np.ndarray, *key: str) -> np.ndarray:
        """(n_boot x signatures) task counts of a group's resamples; `key` seeds a group's own generator."""
        n = np.asarray(n_tasks, dtype=float)
        counts = np.rint(n).astype(np.int64)
        total = int(counts.sum())
        if not 0 < total <= SHARED_MAX_TASKS or not np.array_equal(counts, n) or self.n_boot <= 0:
            return task_draws(n, self.n_boot, rng_for(self.seed, *key))
        if total != self._total:
            rng = rng_for(self.seed, "shared task draws", str(total))
            self._total, self._below = total, _tasks_below(total, self.n_boot, rng)
        return _per_signature(self._below, counts)


def resample(signatures: np.ndarray, n_tasks: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(n_boot x cells) sums of resampled tasks' vectors, from (signatures x cells) and each one's task count."""
    return task_draws(n_tasks, n_boot, rng) @ np.asarray(signatures, dtype=float)


def multiplier_sums(signatures: np.ndarray, n_tasks: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(n_boot x cells) resampled sums by the Gaussian multiplier bootstrap over tasks (see MULTIPLIER)."""
    return shared_multiplier_sums(signatures, n_tasks, np.zeros(1, dtype=np.int64), n_boot, rng)[0]


def shared_multiplier_sums(
    signatures: np.ndarray, n_tasks: np.ndarray, starts: np.ndarray, n_boot: int, rng: np.random.Generator
) -> np.ndarray:
    """(groups x n_boot x cells) `multiplier_sums` of groups of (signatures x cells) rows and their task counts,
    group g being the rows from starts[g] to the next start, from one draw of standard normals shared by all.

    Common random numbers, as in TaskDraws: each group's law is exactly its own multiplier bootstrap's, the groups
    are not independent of each other, which no interval needs; the normals are drawn once, not per
    group (per group, the draws were most of the Distributions page's shift intervals)."""
    x, n = np.asarray(signatures, dtype=float), np.asarray(n_tasks, dtype=float)
    group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(x)]))
    totals = np.add.reduceat(x * n[:, None], starts)
    dev = x - (totals / np.add.reduceat(n, starts)[:, None])[group]
    # Given the tasks, C + sum_t g_t (x_t - mean) with g_t ~ N(0, 1) is exactly normal with covariance
    # sum_t (x_t - mean)(x_t - mean)', the multinomial bootstrap's own covariance: draw it through a square root.
    weighted, ends = dev * n[:, None], np.r_[starts[1:], len(x)]
    covariances = np.stack([weighted[a:b].T @ dev[a:b] for a, b in zip(starts, ends, strict=True)])
    eigen, vectors = np.linalg.eigh(covariances)
    roots = vectors * np.sqrt(np.clip(eigen, 0.0, None))[:, None, :]
    normals = rng.standard_normal((n_boot, eigen.shape[1]))
    return totals[:, None, :] + normals @ roots.transpose(0, 2, 1)


def percentile(samples: np.ndarray) -> tuple[float, float, int]:
    """The 95% percentile interval of bootstrap samples and the number left out as undefined."""
    s = np.asarray(samples, dtype=float)
    ok = s[np.isfinite(s)]
    undefined = int(s.size - ok.size)
    if ok.size < 2:
        return math.nan, math.nan, undefined
    lo, hi = np.percentile(ok, PERCENTILES_95)
    return float(lo), float(hi), undefined


def percentiles(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row-wise `percentile` of (groups x resamples) samples: low, high and undefined resamples per row.

    Same as np.nanpercentile(..., method="linear") per row, without its per-row Python loop; a row of all-NaN
    (no resamples) counts no undefined resamples."""
    s = np.asarray(samples, dtype=float)
    if s.ndim != 2 or s.shape[1] == 0:
        n = len(s)
        return np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, dtype=int)
    finite = np.isfinite(s)
    k = finite.sum(axis=1)
    srt = np.sort(np.where(finite, s, np.nan), axis=1)  # NaN sort last
    rows = np.arange(len(s))
    bounds = []
    for p in PERCENTILES_95:
        pos = np.maximum(k - 1, 0) * p / 100
        below = np.floor(pos).astype(int)
        above = np.minimum(below + 1, np.maximum(k - 1, 0))
        frac = pos - below
        value = srt[rows, below] * (1 - frac) + np.where(frac > 0, srt[rows, above] * frac, 0.0)
        bounds.append(np.where(k >= 2, value, np.nan))
    drawn = ~np.isnan(s).all(axis=1)
    return bounds[0], bounds[1], np.where(drawn, s.shape[1] - k, 0)


def interval(
    name: str, value: float, samples: np.ndarray | None, n_tasks: int, n_boot: int, n_pairs: float = math.inf
) -> Interval:
    """The reported interval of one coefficient from its bootstrap samples (see the module docstring); `n_pairs`
    bounds a proportion's effective sample size."""
    lo, hi, undefined = percentile(samples) if samples is not None else (math.nan, math.nan, 0)
    return interval_of(name, value, lo, hi, undefined, n_tasks, n_boot, n_pairs=n_pairs)


def interval_of(
    name: str,
    value: float,
    lo: float,
    hi: float,
    undefined: int,
    n_tasks: int,
    n_boot: int,
    method: str = BOOTSTRAP,
    n_pairs: float = math.inf,
) -> Interval:
    """The reported interval of one coefficient from its bootstrap percentile interval, or the delta method's
    with `method` DELTA (NaN: none). A proportion gets the Wilson interval at the effective number of tasks (at
    most `n_pairs`), its standard error read from the percentile interval's width (a normal one's: width / 2z)
    times sqrt(T / (T - 1)), the delta method's small-sample factor (the bootstrap's variance lacks it)."""
    if math.isnan(value) or n_boot == 0:
        return NO_INTERVAL
    boot_ok = not math.isnan(lo)
    degenerate = boot_ok and hi - lo <= FLOAT_NOISE
    if name in PROPORTIONS:
        ok = boot_ok and not degenerate and n_tasks >= 2
        se = (hi - lo) / (2 * Z95) * math.sqrt(n_tasks / (n_tasks - 1)) if ok else math.nan
        wlo, whi = wilson_effective(value, se, n_tasks, n_pairs)
        return Interval(wlo, whi, WILSON_EFFECTIVE, undefined)
    if not boot_ok:
        return Interval(math.nan, math.nan, "", undefined, "too few defined resamples for an interval")
    if degenerate:
        return Interval(math.nan, math.nan, "", undefined, _constant(n_tasks))
    return Interval(lo, hi, method, undefined)


def _constant(n_tasks: int) -> str:
    """Why a coefficient with no spread over its tasks gets no interval."""
    return f"the value does not vary over the {n_tasks} task(s): too little variation for an interval"


def effective_tasks(p: float, se: float, n_tasks: float, n_pairs: float = math.inf) -> float:
    """Kish's effective sample size p(1 - p) / se^2 of a proportion over tasks, at most `n_pairs`; `n_pairs` where
    the variance is 0 (no design effect to estimate), or `n_tasks` where the pairs are not known either."""
    if not (math.isfinite(se) and se > 0) or p <= 0 or p >= 1:
        return float(n_pairs if math.isfinite(n_pairs) else n_tasks)
    return float(min(p * (1 - p) / se**2, n_pairs))


def wilson_effective(p: float, se: float, n_tasks: float, n_pairs: float = math.inf) -> tuple[float, float]:
    """The Wilson score interval of a proportion at its effective number of tasks (`effective_tasks`)."""
    return wilson(p, effective_tasks(p, se, n_tasks, n_pairs))


# Chance-corrected coefficients whose interval is built on Fisher's z (module docstring); FISHER_T of them use the
# t quantile with tasks - 1 degrees of freedom, the others the normal one. Chosen by measurement
# (bench/bench_coverage.py's scenarios, a trial of both quantiles at 1,500 runs a cell): with the normal quantile
# Cohen's kappa and alpha covered 92.7-92.9% on average at 10 tasks, with t's 95.1-95.3%; AC1 and weighted kappa
# covered 97.4-98.0% with t's and 94.7-96.0% with the normal one (bench/RESULTS.md has the chosen rule's figures).
KAPPA_TYPES = (
    "cohen_kappa",
    "weighted_kappa",
    "scott_pi",
    "fleiss_kappa",
    "krippendorff_alpha",
    "gwet_ac1",
    "gwet_ac2",
    "brennan_prediger",
)
FISHER_T = ("cohen_kappa", "scott_pi", "fleiss_kappa", "krippendorff_alpha")
# Below this many tasks no interval of a kappa-type coefficient or the mean difference held 93-97% coverage in the
# benchmark's scenarios (the nominal scenario with one level on 88% of units: 81-88% at 6-8 tasks): none is shown.
# Proportions keep their Wilson interval at every n: at 5 and 8 tasks it covered 94.1-97.4% in those scenarios, at
# 3 tasks 96.7-99.0% in three and 85.8% in the moderate-agreement one (three tasks estimate the design effect
# poorly; bench/RESULTS.md).
MIN_INTERVAL_TASKS = 10
# Two coefficients over-cover at 10 tasks (Gwet's AC2 97.5%, the mean difference 97.6%, ordinal scenario) and are in
# the band from 15 (96.6%, 95.6%; bench/RESULTS.md): below 15 tasks they get none, as DESIGN.md principle 6 asks.
MIN_INTERVAL_TASKS_OF = {"gwet_ac2": 15, "mean_difference": 15}


def fisher_z(value: float, se: float, q: float) -> tuple[float, float]:
    """tanh(atanh(value) -/+ q se_z), se_z = se / (1 - value^2) (the delta method on the z scale)."""
    z, h = math.atanh(value), q * se / (1 - value**2)
    return math.tanh(z - h), math.tanh(z + h)


def analytic_interval(name: str, value: float, se: float, n_tasks: int, n_pairs: float) -> Interval:
    """A pair coefficient's 95% interval from its delta-method standard error over tasks (module docstring):
    Wilson at the effective tasks for proportions, Fisher's z for kappa types, value -/+ t se for the mean
    difference; none below MIN_INTERVAL_TASKS tasks for the latter two (MIN_INTERVAL_TASKS_OF for AC2 and the mean
    difference)."""
    if math.isnan(value):
        return NO_INTERVAL
    if name in PROPORTIONS:
        return Interval(*wilson_effective(value, se, n_tasks, n_pairs), WILSON_EFFECTIVE)
    least = MIN_INTERVAL_TASKS_OF.get(name, MIN_INTERVAL_TASKS)
    if n_tasks < least:
        why = f"fewer than {least} tasks: no interval holds 95% coverage at this n"
        return Interval(math.nan, math.nan, "", 0, why)
    if not (math.isfinite(se) and se > FLOAT_NOISE) or (name in KAPPA_TYPES and abs(value) >= 1):
        return Interval(math.nan, math.nan, "", 0, _constant(n_tasks))
    t = t95(n_tasks - 1)
    if name in KAPPA_TYPES:
        lo, hi = fisher_z(value, se, t if name in FISHER_T else Z95)
        return Interval(lo, hi, FISHER_Z)
    return Interval(value - t * se, value + t * se, DELTA_T)


MIN_BOOT_TASKS = 2  # below two tasks every resample is the same task: no bootstrap

# From this many tasks a dimension's multi-rater coefficients (alpha, Fleiss' kappa, AC1/AC2, percent agreement)
# take the delta method's interval over tasks (analytic_interval on delta_se) instead of the task bootstrap's: the
# planners' answer to issue 51 (the delta method within 0.7 points of the bootstrap's coverage from 160 tasks);
# bench/bench_multi_coverage.py measures both at and above it (bench/RESULTS.md). A thousand multinomial draws
# over some 1,500 task signatures were most of the full agreement's time at 1M tasks.
MULTI_DELTA_MIN_TASKS = 160

# From this many tasks the Distributions page's shift intervals take the Gaussian multiplier bootstrap (MULTIPLIER)
# instead of resampling tasks: at this size the two agree, and the multiplier draws cost a few numbers a resample.
DELTA_MIN_TASKS = 500


def delta_se(
    compute: Callable[[np.ndarray], dict[str, np.ndarray]],
    cells: list[np.ndarray],
    n_tasks: list[np.ndarray],
    shape: tuple[int, ...],
    names: list[str],
) -> dict[str, np.ndarray]:
    """Per group, the standard error of each coefficient in `names` by the delta method over tasks (NaN below
    two tasks or where the coefficient is undefined).

    A coefficient is a smooth function f of the summed per-task vectors C (confusion cells; not always of their
    mean: Krippendorff's alpha has n - 1 in it). With tasks as the independent clusters, Var f(C) ~ g' Var(C) g,
    g the gradient of f at C (forward differences) and Var(C) = T Cov(x), the covariance of the tasks' vectors
    (signatures x_i, n_i tasks each). Groups are (signatures x d) `cells` with their task counts; `compute`
    maps (batch x *shape) arrays to a dict of coefficient arrays."""
    totals = np.stack([n @ c for c, n in zip(cells, n_tasks, strict=True)])  # (groups x d)
    steps = 1e-6 * np.maximum(totals.sum(axis=1), 1e-12)
    # A cell no signature has is 0 in every task: its deviations are 0, so g is needed along the others only.
    active = np.flatnonzero(np.any([c.any(axis=0) for c in cells], axis=0))
    width = len(active) + 1  # per group, probe 0 is C itself and probe 1 + j is C + h e_active[j]
    group = np.repeat(np.arange(len(cells)), width)
    cell = np.tile(np.r_[-1, active], len(cells))
    parts: dict[str, list[np.ndarray]] = {name: [] for name in names}
    start = 0
    for size in chunks(len(group), totals.shape[1] * 8):
        at, j = group[start : start + size], cell[start : start + size]
        probes = totals[at]
        probes[np.flatnonzero(j >= 0), j[j >= 0]] += steps[at[j >= 0]]
        values = compute(probes.reshape(-1, *shape))
        for name in names:
            parts[name].append(np.asarray(values[name], dtype=float))
        start += size
    # Every group's signatures stacked, with the group each belongs to: the deviations of all groups at once.
    of_group = np.repeat(np.arange(len(cells)), [len(n) for n in n_tasks])
    stacked = np.concatenate([c[:, active] for c in cells]) if cells else np.empty((0, len(active)))
    weights = np.concatenate(n_tasks).astype(float) if cells else np.empty(0)
    t = np.bincount(of_group, weights=weights, minlength=len(cells))
    centred = stacked - (totals[:, active] / np.maximum(t, 1e-300)[:, None])[of_group]
    out = {}
    for name in names:
        f = np.concatenate(parts[name]).reshape(len(cells), width)
        grad = (f[:, 1:] - f[:, :1]) / steps[:, None]
        dev = np.einsum("ij,ij->i", centred, grad[of_group])  # each signature's linearised deviation
        with np.errstate(invalid="ignore", divide="ignore"):
            var = np.bincount(of_group, weights=weights * dev**2, minlength=len(cells)) * t / (t - 1)
        ok = (t >= 2) & np.isfinite(f[:, 0]) & np.isfinite(grad).all(axis=1)
        out[name] = np.where(ok, np.sqrt(np.where(ok, var, 0.0)), np.nan)
    return out


def ratio_samples(num: np.ndarray, den: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Resampled values of sum(num) / sum(den) over per-task sums, tasks drawn with replacement (empty below
    two tasks)."""
    k = len(den)
    if k < MIN_BOOT_TASKS or n_boot == 0:
        return np.empty(0)
    # The draws of task_draws(np.ones(k), ...) (each task its own signature), summed by indexing: counting them
    # into an (n_boot x k) matrix first is slower.
    out = np.empty(n_boot)
    for rows, tasks in _task_batches(k, n_boot, rng):
        out[rows] = num[tasks].sum(axis=1) / np.maximum(den[tasks].sum(axis=1), 1)
    return out


def newcombe(p1: float, n1: float, p2: float, n2: float) -> tuple[float, float]:
    """Newcombe's (1998, method 10) hybrid score interval of p2 - p1 from two Wilson intervals."""
    l1, u1 = wilson(p1, n1)
    l2, u2 = wilson(p2, n2)
    d = p2 - p1
    return d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2), d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)


def newcombe_bounds(p1: np.ndarray, n1: np.ndarray, p2: np.ndarray, n2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """newcombe of each element (NaN where a side has no unit): the same IEEE operations in the same order, so the
    same bounds to the last bit (as stats.wilson_bounds to stats.wilson)."""
    l1, u1 = wilson_bounds(p1, n1)
    l2, u2 = wilson_bounds(p2, n2)
    both = (np.asarray(n1) > 0) & (np.asarray(n2) > 0)
    with np.errstate(invalid="ignore"):
        d = p2 - p1
        low = np.where(both, d - np.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2), np.nan)
        high = np.where(both, d + np.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2), np.nan)
    return low, high


def difference_interval(
    p1: float, n1: int, p2: float, n2: int, samples: np.ndarray, min_tasks: int
) -> tuple[float, float, str]:
    """The 95% interval of a change in a proportion (p2 - p1 over n1 and n2 tasks): the task bootstrap's,
    joined with Newcombe's where a side has fewer than `min_tasks` tasks or the bootstrap is degenerate."""
    lo, hi, _ = percentile(samples) if samples.size else (math.nan, math.nan, 0)
    boot_ok = not math.isnan(lo) and hi - lo > FLOAT_NOISE
    if boot_ok and min(n1, n2) >= min_tasks:
        return lo, hi, "task bootstrap"
    nlo, nhi = newcombe(p1, n1, p2, n2)
    if boot_ok:
        return min(lo, nlo), max(hi, nhi), "task bootstrap + Newcombe (tasks)"
    return nlo, nhi, "Newcombe (tasks)"
