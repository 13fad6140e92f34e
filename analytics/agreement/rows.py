"""The rows of an agreement report: their statistics, columns and labels, and a coefficient as a row in wide form
(one column per statistic, with the notes in words) and in long form (one row per statistic).

Every row carries n_units and n_tasks; fewer than MIN_TASKS tasks sets small_n. A coefficient that is
undefined is NaN with a reason in `notes`; one that does not exist for the scale (weighted kappa at nominal
level) is NaN without a note (`applies` False in long form).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analytics.agreement import coefficients as co
from analytics.agreement import intervals as iv

REFERENCE_NAME = {
    "contractor_vs_researcher": "a researcher",
    "among_contractors": "another contractor",
    "researcher_vs_researcher": "another researcher",
    "all_raters": "another rater",
    "pooled": "a researcher",
    "ceiling": "another researcher",
    "rater_pairs": "the other rater",
}
# Below this many tasks (the independent clusters) a figure is flagged small_n: indicative only, read its interval.
# The flag is a warning, not a rule: intervals (intervals.py) and rankings (team.review_order) change smoothly with
# the number of tasks, with no switch here.
MIN_TASKS = 30
MIN_UNITS = MIN_TASKS  # the earlier name, kept for callers
LABELS = {
    "percent_agreement": "percent agreement",
    "exact_agreement": "exact agreement",
    "coarse_agreement": "coarse agreement",
    "krippendorff_alpha": "Krippendorff's alpha",
    "fleiss_kappa": "Fleiss' kappa",
    "scott_pi": "Scott's pi",
    "gwet_ac1": "Gwet's AC1",
    "gwet_ac2": "Gwet's AC2",
    "brennan_prediger": "Brennan-Prediger kappa",
    "cohen_kappa": "Cohen's kappa",
    "weighted_kappa": "weighted kappa",
    "mean_difference": "mean difference",
    "kendall_tau_b": "Kendall's tau-b",
    "preference_agreement": "pairwise preference agreement",
}
DIMENSION_STATS = (
    "percent_agreement",
    "coarse_agreement",
    "krippendorff_alpha",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "brennan_prediger",
    "cohen_kappa",
    "weighted_kappa",
    "mean_difference",
    "kendall_tau_b",
    "preference_agreement",
)
RATER_STATS = (
    "exact_agreement",
    "coarse_agreement",
    "cohen_kappa",
    "weighted_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "krippendorff_alpha",
    "mean_difference",
    "kendall_tau_b",
    "preference_agreement",
)
PAIR_SET_STATS = (
    "exact_agreement",
    "coarse_agreement",
    "cohen_kappa",
    "weighted_kappa",
    "scott_pi",
    "gwet_ac1",
    "gwet_ac2",
    "krippendorff_alpha",
    "mean_difference",
)
SCALE_COLUMNS = ("rubric", "dimension", "kind", "level", "weights", "scale", "n_levels")
DIMENSION_COLUMNS = (
    *SCALE_COLUMNS,
    "n_units",
    "n_units_rated",
    "n_tasks",
    "n_raters",
    "n_ratings",
    "n_pairs",
    *[c for s in DIMENSION_STATS for c in (s, f"{s}_ci_low", f"{s}_ci_high")],
    "fleiss_kappa_name",
    "small_n",
    "kappa_paradox",
    "notes",
)
RATER_COLUMNS = (
    "rater_id",
    "role",
    *SCALE_COLUMNS,
    "n",
    "n_units",
    "n_tasks",
    "n_item_pairs",
    *[c for s in RATER_STATS for c in (s, f"{s}_ci_low", f"{s}_ci_high")],
    "small_n",
    "kappa_paradox",
    "notes",
)
PAIR_SET_COLUMNS = (
    *SCALE_COLUMNS,
    "n",
    "n_units",
    "n_tasks",
    *[c for s in PAIR_SET_STATS for c in (s, f"{s}_ci_low", f"{s}_ci_high")],
    "small_n",
    "notes",
)
LONG_COLUMNS = (
    "scope",
    "rubric",
    "dimension",
    "rater_id",
    "statistic",
    "value",
    "ci_low",
    "ci_high",
    "ci_method",
    "boot_undefined",
    "n",
    "n_tasks",
    "reason",
    "applies",
)


def coefficient_row(
    name: str, value: float, n: int, n_tasks: int, ci: iv.Interval, reason: str | None, applies: bool = True
) -> dict:
    """One coefficient in long form; `applies=False` marks one that does not exist for this scale (no note)."""
    if math.isnan(value):
        ci = iv.NO_INTERVAL
    return {
        "statistic": name,
        "value": value,
        "ci_low": float(ci.low),
        "ci_high": float(ci.high),
        "ci_method": ci.method,
        "boot_undefined": ci.undefined,
        "n": n,
        "n_tasks": n_tasks,
        "reason": reason,
        "applies": applies,
        "_ci_reason": ci.reason,
    }


def wide_row(base: dict, coefs: list[dict], stats: tuple[str, ...], n_boot: int) -> dict:
    row = dict(base)
    note = row.pop("_note", "")
    for s in stats:
        row[s] = row[f"{s}_ci_low"] = row[f"{s}_ci_high"] = math.nan
    notes = [note] if note else []
    for c in coefs:
        if c["statistic"] not in stats:
            continue
        name = c["statistic"]
        row[name], row[f"{name}_ci_low"], row[f"{name}_ci_high"] = c["value"], c["ci_low"], c["ci_high"]
        label = LABELS.get(name, name)
        if c["reason"] and c["applies"]:
            notes.append(f"{label}: {c['reason']}")
        elif c["applies"] and c["boot_undefined"]:
            notes.append(f"{label}: {c['boot_undefined']} of {n_boot} resamples undefined (left out of the interval)")
        if c["applies"] and c.get("_ci_reason"):
            notes.append(f"{label}: no interval, {c['_ci_reason']}")
    row["notes"] = "; ".join(dict.fromkeys(notes))
    return row


def long_rows(coefs: list[dict], scope: str, rubric: str, dimension: str, rater_id: str | None) -> list[dict]:
    """Coefficients as rows of the long `coefficients` frame (internal `_` keys left out)."""
    return [
        {"scope": scope, "rubric": rubric, "dimension": dimension, "rater_id": rater_id}
        | {k: v for k, v in c.items() if not k.startswith("_")}
        for c in coefs
    ]


def one_level(marginals: np.ndarray, levels: tuple[str, ...]) -> str:
    """The one level used ('A better'), quoted, where the level counts use exactly one; else "one level"."""
    return one_levels(np.asarray(marginals)[None, :], levels)[0]


def one_levels(marginals: np.ndarray, levels: tuple[str, ...]) -> list[str]:
    """`one_level` of each row of (groups x levels) level counts."""
    used = marginals > co.EPS
    single, first = used.sum(axis=1) == 1, used.argmax(axis=1)
    return [f"'{levels[f]}'" if one else "one level" for one, f in zip(single.tolist(), first.tolist(), strict=True)]


def is_paradox(pa: float, kappa: float) -> bool:
    return bool(pa >= co.PARADOX_AGREEMENT and (math.isnan(kappa) or kappa < co.PARADOX_KAPPA))


def used_levels(counts: np.ndarray) -> np.ndarray:
    """The levels with a count in `counts` (one per level of the scale), level 0 when none has: coefficients
    are computed on these alone."""
    used = np.flatnonzero(counts)
    return used if len(used) else np.arange(1)


def sorted_frame(rows: list[dict], columns: tuple[str, ...], sort: list[str]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=list(columns))
    return df.sort_values(sort, kind="stable").reset_index(drop=True) if len(df) else df
