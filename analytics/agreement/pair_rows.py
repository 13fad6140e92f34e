"""Pair coefficients (exact and coarse agreement, Cohen's and weighted kappa, Scott's pi, Gwet's AC1 and AC2,
Krippendorff's alpha, mean difference; Kendall's tau-b on rankings) of groups of pairs (a rater, a dimension, a
pair of raters) from their task signatures (analytics/agreement/signatures.py), with task-level intervals from the
delta method's standard error over tasks at every n (intervals.analytic_interval); the task bootstrap's percentile
interval only where asked for (`pair_coefficients(force_bootstrap=True)`, for comparisons).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd

from analytics.agreement import coefficients as co
from analytics.agreement import intervals as iv
from analytics.agreement import rows as rw
from analytics.agreement.rows import MIN_TASKS, RATER_STATS, coefficient_row, is_paradox, one_levels
from analytics.agreement.scales import Scale, scale_cells
from analytics.agreement.signatures import Signatures

PAIR_CHECKS = (
    ("exact_agreement", None),
    ("percent_agreement", None),
    ("coarse_agreement", None),
    ("cohen_kappa", "both sides used {one} only: chance agreement is 1, kappa is 0/0"),
    ("weighted_kappa", "both sides used {one} only: chance agreement is 1, kappa is 0/0"),
    ("gwet_ac1", "the scale has a single level"),
    ("gwet_ac2", "the scale has a single level"),
    ("krippendorff_alpha", "every value is {one}: expected disagreement is 0, alpha is 0/0"),
    ("fleiss_kappa", "every value is {one}: chance agreement is 1, Scott's pi is 0/0"),
    ("scott_pi", "every value is {one}: chance agreement is 1, Scott's pi is 0/0"),
    ("brennan_prediger", "the scale has a single level"),
    ("mean_difference", None),
)


class PairCompute(Protocol):
    """What `pair_compute` returns: (batch x k x k) tables on `levels` of the scale (default all) to every pair
    coefficient."""

    def __call__(self, tables: np.ndarray, levels: np.ndarray | None = None) -> dict[str, np.ndarray]: ...


def pair_compute(s: Scale) -> PairCompute:
    """The function from (batch x k x k) tables on `levels` of the scale (default all) to every pair
    coefficient, named as in the report."""

    def compute(tables: np.ndarray, levels: np.ndarray | None = None) -> dict[str, np.ndarray]:
        a = co.pair_arrays(tables, s.values, s.level, s.weights, s.to_coarse, levels)
        a["exact_agreement"] = a["percent_agreement"] = a["agreement"]
        a["weighted_kappa"], a["gwet_ac1"], a["gwet_ac2"] = (
            a["weighted_cohen_kappa"],
            a["gwet_ac"],
            a["weighted_gwet_ac"],
        )
        a["fleiss_kappa"] = a["scott_pi"]  # two raters: Fleiss' kappa is Scott's pi
        return a

    return compute


def _level_map(s: Scale) -> Callable[[np.ndarray], np.ndarray]:
    """The map of (batch x full*full) cells to (batch x levels x levels) tables of this report's levels (whether
    the levels are exact is checked once per scale, not per group)."""
    q = s.full_size
    if s.to_levels.shape == (q, q) and np.array_equal(s.to_levels, np.eye(q)):
        return lambda cells: cells.reshape(-1, q, q)  # exact levels: nothing to map
    return lambda cells: s.to_levels.T @ cells.reshape(-1, q, q) @ s.to_levels


def _on(tables: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """(batch x q x q) tables restricted to `levels`, flattened to (batch x k*k)."""
    if len(levels) == tables.shape[1]:  # every level (levels are distinct and in order)
        return tables.reshape(len(tables), -1)
    return tables[:, levels][:, :, levels].reshape(len(tables), -1)


def _blocks(groups: list[int], levels: list[np.ndarray], q: int, width: int) -> list[tuple[list[int], np.ndarray]]:
    """`groups` in consecutive blocks computed at once on the levels they use together (of q), each block's
    (groups x width x k x k) arrays within the bootstrap budget."""
    out: list[tuple[list[int], np.ndarray]] = []
    block: list[int] = []
    union = np.zeros(0, dtype=np.int64)
    for g in groups:
        grown = union if len(union) == q else np.union1d(union, levels[g])
        if block and (len(block) + 1) * width * len(grown) ** 2 * 8 > iv.BOOT_BUDGET:
            out.append((block, union))
            block, grown = [], levels[g]
        block.append(g)
        union = grown
    return [*out, (block, union)] if block else out


def pair_row(
    s: Scale,
    key: tuple,
    sig: Signatures | None,
    tau: tuple[np.ndarray, np.ndarray] | None,
    n_boot: int,
    seed: int,
    reference: str,
    stats: tuple,
) -> tuple[dict, list]:
    """Base cells and coefficients of one group of pairs (a rater, a dimension, a pair of raters)."""
    return pair_rows(s, [key], [sig], [tau], [n_boot], seed, reference, stats)[0]


@dataclass(frozen=True)
class _Groups:
    """Groups of pairs as tables of this report's levels: per group its signatures' tables (signatures x q x
    q), their task counts and the levels they use. Coefficients are computed on the used levels only (wide
    scales such as -100..100 have 201 levels, a group a few dozen); pair_arrays keeps them the scale's."""

    sigs: list
    tables: list[np.ndarray]
    n_tasks: list[np.ndarray]
    levels: list[np.ndarray]

    @classmethod
    def of(cls, s: Scale, sigs: list) -> _Groups:
        """The groups of `sigs` (None: a group with no pairs) on the levels of `s`."""
        q, to_levels = len(s.levels), _level_map(s)
        tables = [to_levels(sig.cells) if sig is not None else np.zeros((1, q, q)) for sig in sigs]
        n_tasks = [sig.n_tasks if sig is not None else np.zeros(1) for sig in sigs]
        return cls(sigs, tables, n_tasks, [rw.used_levels(co.both_sides(t.sum(axis=0))) for t in tables])


def _points(s: Scale, gs: _Groups) -> tuple[dict, np.ndarray]:
    """Every pair coefficient of each group's summed table, and each group's level counts (both sides)."""
    compute, n = pair_compute(s), len(gs.tables)
    point: dict[str, np.ndarray] = {}
    marginals = np.zeros((n, len(s.levels)))
    for idx, lv in _blocks(list(range(n)), gs.levels, len(s.levels), 1):
        totals = np.stack([gs.n_tasks[g] @ _on(gs.tables[g], lv) for g in idx]).reshape(-1, len(lv), len(lv))
        for name, v in compute(totals, lv).items():
            if v.ndim == 1:
                point.setdefault(name, np.full(n, np.nan))[idx] = v
        marginals[np.array(idx)[:, None], lv] = totals.sum(axis=1) + totals.sum(axis=2)
    return point, marginals


def _boot_pairs(s: Scale, keys: list, gs: _Groups, boots: list[int], seed: int, wanted: list[str]) -> dict:
    """(groups x n_boot) task-bootstrap samples of the `wanted` coefficients; groups are resampled each with
    its own generator and computed in blocks (one vectorised call per block, bounded memory)."""
    n_boot = max(boots, default=0)
    used = [g for g, sig in enumerate(gs.sigs) if sig is not None and sig.tasks and boots[g]]
    out = {name: np.full((len(gs.sigs), n_boot), np.nan) for name in wanted}
    if not used or not n_boot:
        return out
    compute, draws = pair_compute(s), iv.TaskDraws(seed, n_boot)
    used.sort(key=lambda g: gs.sigs[g].tasks)  # groups of one number of tasks read the same shared draws in turn
    for idx, lv in _blocks(used, gs.levels, len(s.levels), n_boot):
        tables, which, offset = [], [], 0
        for g in idx:
            uniq, inverse = _distinct_resamples(gs.sigs[g], draws, [str(k) for k in keys[g]], _on(gs.tables[g], lv))
            tables.append(uniq)
            which.append(inverse + offset)
            offset += len(uniq)
        a = compute(np.concatenate(tables).reshape(-1, len(lv), len(lv)), lv)
        rows = np.concatenate(which)
        for name in wanted:
            out[name][idx] = a[name][rows].reshape(len(idx), n_boot)
    return out


def _distinct_resamples(
    sig: Signatures, task_draws: iv.TaskDraws, key: list[str], cells: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A group's resampled sums of `cells` (default its confusion cells; one row per signature) as (distinct
    sums, index of each resample's sum): the resamples of `task_draws` for the group (`key`), with each distinct
    one computed once. A group of few tasks has few distinct resamples (most pairs of raters share a handful of
    tasks), and a group of one signature has one."""
    cells = sig.cells if cells is None else cells
    n_boot = task_draws.n_boot
    if len(sig.n_tasks) == 1:  # every resample draws all tasks from the one signature
        return sig.n_tasks[0] * cells[:1], np.zeros(n_boot, dtype=np.int64)
    draws = task_draws.of(sig.n_tasks, *key)
    radix = sig.tasks + 1  # each resample's task counts as one integer in base tasks + 1, when that fits
    k = len(sig.n_tasks)
    # Distinct resamples possible: multisets of T tasks over k signatures, C(T + k - 1, k - 1). Where that is
    # far above n_boot, almost every resample differs and looking for repeats costs more than it saves.
    log_outcomes = math.lgamma(sig.tasks + k) - math.lgamma(k) - math.lgamma(sig.tasks + 1)
    if k * math.log2(radix) >= 62 or log_outcomes > math.log(4 * n_boot):
        return draws @ cells, np.arange(n_boot)
    codes = draws.astype(np.int64) @ (radix ** np.arange(len(sig.n_tasks), dtype=np.int64))
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return draws[first] @ cells, inverse


def _delta_pairs(s: Scale, gs: _Groups, groups: list[int], wanted: list[str]) -> dict[str, np.ndarray]:
    """Per coefficient in `wanted`, the delta method's standard error of each of `groups` (NaN elsewhere)."""
    out = {name: np.full(len(gs.sigs), np.nan) for name in wanted}
    compute = pair_compute(s)
    # A group's probes (delta_se): one table per cell its tasks use, plus one. Blocks sized by that keep each
    # block's tables on the levels its groups use (on a 0-100 scale, blocks of every group grew to 101 x 101).
    probes = max((int(gs.tables[g].reshape(len(gs.tables[g]), -1).any(axis=0).sum()) + 1 for g in groups), default=1)
    for idx, lv in _blocks(groups, gs.levels, len(s.levels), probes):
        se = iv.delta_se(
            lambda tables, lv=lv: compute(tables, lv),  # type: ignore[misc]  # mypy infers no lambda with a default
            [_on(gs.tables[g], lv) for g in idx],
            [gs.n_tasks[g] for g in idx],
            (len(lv), len(lv)),
            wanted,
        )
        for name, v in se.items():
            out[name][idx] = v
    return out


def pair_rows(
    s: Scale,
    keys: list,
    sigs: list,
    taus: list,
    boots: list[int],
    seed: int,
    reference: str,
    stats: tuple,
    delta: bool = True,
) -> list[tuple[dict, list]]:
    """Base cells and coefficients of groups of pairs sharing one scale (vectorised over the groups); with
    `delta` every group's intervals are intervals.analytic_interval's, else the task bootstrap's percentiles."""
    if any(b and sig is not None and sig.summed for b, sig in zip(boots, sigs, strict=True)):
        raise ValueError("an interval needs the tasks apart: pair this group without `summed`")
    gs = _Groups.of(s, sigs)
    point, marginals = _points(s, gs)
    wanted = [name for name, _ in PAIR_CHECKS if name in stats]
    drawn = [g for g, sig in enumerate(sigs) if boots[g] and sig is not None and sig.tasks]
    if delta:
        se = {name: v.tolist() for name, v in _delta_pairs(s, gs, drawn, wanted).items()}
    else:
        boot = _boot_pairs(s, keys, gs, boots, seed, wanted)
        bounds = {name: iv.percentiles(v) for name, v in boot.items()}
        ends = {name: tuple(b.tolist() for b in bs) for name, bs in bounds.items()}
    out = []
    # Python lists read per group: indexing numpy arrays element by element is slow.
    values = {name: v.tolist() for name, v in point.items()}
    ones = one_levels(marginals, s.levels)
    for g, (key, sig, tau, n_boot) in enumerate(zip(keys, sigs, taus, boots, strict=True)):
        n = int(round(values["n"][g]))
        n_tasks = sig.tasks if sig is not None else 0
        one = ones[g]
        no_pairs = f"no unit shared with {reference}" if n == 0 else None
        coefs = []
        for name, why in PAIR_CHECKS:
            if name not in stats:
                continue
            value = float(values[name][g])
            reason = no_pairs or (why.format(one=one) if why and math.isnan(value) else None)
            applies = True
            if name in ("weighted_kappa", "gwet_ac2") and s.weights == "none":
                value, reason, applies = math.nan, "not applicable: nominal level, no weights", False
            if name == "mean_difference" and not s.ordered:
                value, reason, applies = math.nan, "not applicable: nominal levels have no direction", False
            if not n_boot or not n_tasks:
                ci = iv.NO_INTERVAL
            elif delta:
                ci = iv.analytic_interval(name, value, float(se[name][g]), n_tasks, n)
            else:
                lo, hi, undefined = (b[g] for b in ends[name])
                ci = iv.interval_of(name, value, float(lo), float(hi), int(undefined), n_tasks, n_boot, n_pairs=n)
            coefs.append(coefficient_row(name, value, n, n_tasks, ci, reason, applies))
        n_item_pairs = 0
        if tau is not None:
            n_item_pairs, tau_coefs = _tau_coefs(tau, n_boot, seed, key)
            coefs += [c for c in tau_coefs if c["statistic"] in stats]
        base = {
            **scale_cells(s),
            "n": n,
            "n_units": sig.n_units if sig is not None else 0,
            "n_tasks": n_tasks,
            "n_item_pairs": n_item_pairs,
            "small_n": n_tasks < MIN_TASKS,
            "kappa_paradox": is_paradox(float(point["agreement"][g]), float(point["cohen_kappa"][g])),
            "_note": s.note,
        }
        out.append((base, coefs))
    return out


def _tau_coefs(tau: tuple[np.ndarray, np.ndarray], n_boot: int, seed: int, key: tuple) -> tuple[int, list]:
    """Kendall's tau-b and preference agreement of item-pair counts, with intervals over resampled tasks."""
    sigs, n_tasks = tau
    pairs = n_tasks @ sigs
    n, tasks = int(pairs.sum()), int(n_tasks.sum())
    point = co.tau_arrays(pairs)
    boot = {}
    if n_boot and tasks:
        boot = co.tau_arrays(iv.resample(sigs, n_tasks, n_boot, iv.rng_for(seed, "tau", *[str(k) for k in key])))
    tau_b = co.kendall_tau_b(*pairs)
    pref = float(point["preference_agreement"][0])
    coefs = []
    for name, value, sample, reason in (
        ("kendall_tau_b", tau_b.value, "tau_b", tau_b.reason),
        ("preference_agreement", pref, "preference_agreement", None if n else "no item pairs to compare"),
    ):
        ci = iv.interval(name, value, boot.get(sample), tasks, n_boot, n_pairs=n)
        coefs.append(coefficient_row(name, value, n, tasks, ci, reason))
    return n, coefs


def pair_coefficients(
    s: Scale,
    sig: Signatures,
    n_boot: int = 1000,
    seed: int = 0,
    key: tuple = ("group",),
    force_bootstrap: bool = False,
) -> pd.DataFrame:
    """Every pair coefficient of one group's task signatures in long form (for notebooks and simulations);
    `force_bootstrap` gives the task bootstrap's percentile intervals instead of the reported ones."""
    stats = (*RATER_STATS, "scott_pi")
    if force_bootstrap:
        _, coefs = pair_rows(s, [key], [sig], [None], [n_boot], seed, "the reference", stats, delta=False)[0]
    else:
        _, coefs = pair_row(s, key, sig, None, n_boot, seed, "the reference", stats)
    return pd.DataFrame([{k: v for k, v in c.items() if not k.startswith("_")} for c in coefs])
