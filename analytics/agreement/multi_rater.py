"""Multi-rater coefficients of a dimension (percent agreement, Krippendorff's alpha, Fleiss' kappa, Gwet's AC1 and
AC2, Brennan-Prediger) from its per-task value-count patterns (analytics/agreement/counts.py), with task-level
intervals.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import duckdb
import numpy as np
import pandas as pd

from analytics.agreement import coefficients as co
from analytics.agreement import counts as ct
from analytics.agreement import intervals as iv
from analytics.agreement import rows as rw
from analytics.agreement.rows import (
    DIMENSION_STATS,
    MIN_TASKS,
    coefficient_row,
    is_paradox,
    long_rows,
    one_level,
    wide_row,
)
from analytics.agreement.scales import Scale, scale_cells
from analytics.agreement.sides import COMPARISON_ROLES
from analytics.core.filters import Filters

MULTI_CHECKS = (
    ("percent_agreement", None),
    ("coarse_agreement", None),
    ("krippendorff_alpha", "every pairable value is {one}: expected disagreement is 0, alpha is 0/0"),
    ("fleiss_kappa", "every rating is {one}: chance agreement is 1, kappa is 0/0"),
    ("gwet_ac1", "the scale has a single level"),
    ("gwet_ac2", "the scale has a single level"),
    ("brennan_prediger", "the scale has a single level"),
)


def _multi_compute(s: Scale, counts: np.ndarray, levels: np.ndarray) -> Callable[[np.ndarray], dict[str, np.ndarray]]:
    """The function from (batch x patterns) unit weights to every multi-rater coefficient of `counts`, the
    patterns' counts on `levels` of the scale."""

    def compute(weights: np.ndarray) -> dict[str, np.ndarray]:
        a = co.multi_rater_arrays(counts, weights, s.values, s.level, s.weights, s.to_coarse, levels)
        a["gwet_ac1"], a["gwet_ac2"] = a["gwet_ac"], a["weighted_gwet_ac"]
        return a

    return compute


def multi_rater_row(
    s: Scale,
    tp: ct.TaskPatterns,
    n_raters: int,
    n_ratings: int,
    n_boot: int,
    seed: int,
    delta: bool | None = None,
) -> tuple[dict, list]:
    """One dimension's multi-rater coefficients with their intervals over tasks: the delta method's from
    iv.MULTI_DELTA_MIN_TASKS tasks, the task bootstrap's below (`delta` forces either; n_boot 0: none)."""
    counts = tp.counts @ s.to_levels
    used = rw.used_levels(counts.sum(axis=0))
    compute = _multi_compute(s, counts[:, used], used)
    point = compute(tp.unit_weights[None])
    m = tp.counts.sum(axis=1)
    pairable = m >= 2
    n_tasks = int(tp.n_tasks[(tp.membership[:, pairable] > 0).any(axis=1)].sum()) if pairable.any() else 0
    boot: dict[str, list] = {}
    se: dict[str, np.ndarray] | None = None
    by_delta = n_tasks >= iv.MULTI_DELTA_MIN_TASKS if delta is None else delta
    names = [name for name, _ in MULTI_CHECKS]
    if n_boot and n_tasks and by_delta:
        se = iv.delta_se(compute, [tp.membership], [tp.n_tasks], (tp.membership.shape[1],), names)
    elif n_boot and n_tasks:
        rng = iv.rng_for(seed, s.rubric, s.dimension)
        for b in iv.chunks(n_boot, max(counts.shape[0], used.size**2) * 4):
            a = compute(iv.task_draws(tp.n_tasks, b, rng) @ tp.membership)
            for name in names:
                boot.setdefault(name, []).append(a[name])
    n_units = int(round(point["units_pairable"][0]))
    one = one_level(point["marginals"][0], tuple(s.levels[i] for i in used))
    common = "only one rater" if n_raters < 2 else None
    if common is None and n_units == 0:
        common = "no unit has ratings from two or more raters"
    coefs = []
    for name, why in MULTI_CHECKS:
        value = float(point[name][0])
        reason = common or (why.format(one=one) if why and math.isnan(value) else None)
        applies = not (name == "gwet_ac2" and s.weights == "none")
        if not applies:
            value, reason = math.nan, "not applicable: nominal level, AC2 with no weights is AC1"
        if se is not None:
            ci = iv.analytic_interval(name, value, float(se[name][0]), n_tasks, n_units) if applies else iv.NO_INTERVAL
        else:
            samples = np.concatenate(boot[name]) if name in boot else None
            ci = iv.interval(name, value, samples, n_tasks, n_boot, n_pairs=n_units)
        coefs.append(coefficient_row(name, value, n_units, n_tasks, ci, reason, applies))
    two_only = bool(pairable.any()) and bool((m[pairable] == 2).all())
    base = {
        **scale_cells(s),
        "n_units": n_units,
        "n_units_rated": int(round(point["units"][0])),
        "n_tasks": n_tasks,
        "n_raters": n_raters,
        "n_ratings": n_ratings,
        "n_pairs": math.nan,
        # Fleiss' kappa with exactly two ratings per unit is Scott's pi (Fleiss 1971; Gwet 2014, ch. 2).
        "fleiss_kappa_name": "Scott's pi" if two_only else "Fleiss' kappa",
        "small_n": n_tasks < MIN_TASKS,
        "kappa_paradox": is_paradox(float(point["percent_agreement"][0]), float(point["fleiss_kappa"][0])),
        "_note": s.note,
    }
    return base, coefs


def multi_rater_table(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    comparison: str,
    scale_of: dict[tuple[str, str], Scale],
    n_boot: int,
    seed: int,
    queries: list,
) -> tuple[list[dict], list[dict]]:
    roles = COMPARISON_ROLES[comparison]
    f = ct.dimension_filter(filters, None if roles is None else roles[0])
    q_of = lambda key: scale_of[key].full_size if key in scale_of else None  # noqa: E731
    patterns = ct.task_patterns_for(con, f, q_of, queries)
    level_counts = ct.rater_level_counts(con, f, queries)
    totals = level_counts.groupby(["rubric", "dimension"]).agg(n_raters=("rater_id", "nunique"), n_ratings=("n", "sum"))
    rows, long = [], []
    for key, tp in sorted(patterns.items()):
        t = cast(pd.Series, totals.loc[key])  # a row: key is a whole (rubric, dimension) index key
        base, coefs = multi_rater_row(scale_of[key], tp, int(t["n_raters"]), int(t["n_ratings"]), n_boot, seed)
        rows.append(wide_row(base, coefs, DIMENSION_STATS, n_boot))
        long += long_rows(coefs, "dimension", key[0], key[1], None)
    return rows, long


def multi_rater_coefficients(
    s: Scale, tp: ct.TaskPatterns, n_raters: int, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Every multi-rater coefficient of one dimension's task patterns in long form (notebooks, simulations)."""
    _, coefs = multi_rater_row(s, tp, n_raters, int(tp.unit_weights @ tp.counts.sum(axis=1)), n_boot, seed)
    return pd.DataFrame([{k: v for k, v in c.items() if not k.startswith("_")} for c in coefs])
