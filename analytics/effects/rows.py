"""The effects table's shape and the task-clustered estimate every effect's raw value comes from."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analytics.core.stats import Z95

# One row per contractor x rubric x dimension x effect; the command line's keys first (contract.CONTRACT_KEYS).
EFFECT_COLUMNS = (
    "rater_id",
    "rubric",
    "dimension",
    "effect",
    "estimate",
    "estimate_ci_low",
    "estimate_ci_high",
    "team_value",
    "n_tasks",
    "flagged",
    "raw",
    "raw_ci_low",
    "raw_ci_high",
    "se",
    "bad_side",
    "unit",
    "basis",
    "evidence",
    "team_pooled",  # the rest of the team's estimates pooled over their tasks: what the alarm test compares with
    "z",  # the alarm test (analytics/effects/shrink.py): standard errors beyond the team value and the margin
    "p_value",
    "since",  # drift: the first day of the recent window it tests; empty for the other effects
)
KEYS = ["rater_id", "rubric", "dimension"]


def task_means(per_task: pd.DataFrame, value: str, keys: list[str] = KEYS) -> pd.DataFrame:
    """Per key, the mean over tasks of a per-task value, its standard error over tasks (tasks are the independent
    units: a task's ratings share its content) and the number of tasks. One task alone gets no standard error."""
    g = per_task.groupby(keys, sort=True)[value]
    out = pd.DataFrame({"raw": g.mean(), "sd": g.std(ddof=1), "n_tasks": g.size()}).reset_index()
    out["se"] = out["sd"] / np.sqrt(out["n_tasks"])
    return out.drop(columns=["sd"])


def sums_stats_sql(n: str, s1: str, s2: str, prefix: str = "") -> str:
    """SQL of `task_means`' raw, se and n_tasks (named with `prefix`) from a group's number of tasks and the sum and
    sum of squares of their per-task values (kept per day, analytics/store/derived/contractor_days.py), for queries that reduce
    millions of tasks to one row per group in the database. A sum of squared deviations below 1e-12 of the sum of
    squares is rounding (tasks that all gave the same value leave about 1e-16 of it), so it counts as 0."""
    squares = f"{s2} - {s1} * {s1} / {n}"
    return (
        f"CASE WHEN {n} > 0 THEN {s1} / {n} END AS {prefix}raw, "
        f"CASE WHEN {n} > 1 THEN CASE WHEN {squares} <= {s2} * 1e-12 THEN 0.0 "
        f"ELSE sqrt(({squares}) / ({n} - 1) / {n}) END END AS {prefix}se, "
        f"CAST({n} AS BIGINT) AS {prefix}n_tasks"
    )


def share_se(share: float, n: int) -> float:
    """The standard error of a share of n tasks, with add-half pseudo-counts so that 0 and 1 get a positive one
    (Agresti & Coull 1998's adjustment, here with half a success and half a failure)."""
    if n <= 0:
        return math.nan
    p = (share * n + 0.5) / (n + 1)
    return math.sqrt(p * (1 - p) / (n + 1))


def share_means(per_task: pd.DataFrame, value: str, keys: list[str] = KEYS) -> pd.DataFrame:
    """`task_means` of a per-task share, its standard error at least `share_se` of the mean share over the tasks:
    where every task gives the same share (all 0, all 1) the task-level spread is 0, and an estimate read as exact
    would weigh like thousands of tasks in the team's between-rater variance."""
    return share_floor(task_means(per_task, value, keys))


def share_floor(rows: pd.DataFrame) -> pd.DataFrame:
    """`task_means` rows of a share with their standard error raised to at least `share_se` (see share_means)."""
    rows = rows.copy()
    floor = [share_se(p, n) for p, n in zip(rows["raw"], rows["n_tasks"], strict=True)]
    se = rows["se"].to_numpy(dtype=float)
    rows["se"] = np.where(np.isnan(se), np.nan, np.fmax(se, np.array(floor, dtype=float)))  # one task: still none
    return rows


def finish(rows: pd.DataFrame, effect: str, bad_side: str, unit: str, basis: str | pd.Series) -> pd.DataFrame:
    """Raw rows (KEYS, raw, se, n_tasks, evidence optional) as effect rows before shrinkage."""
    out = rows.assign(effect=effect, bad_side=bad_side, unit=unit, basis=basis)
    out["raw_ci_low"] = out["raw"] - Z95 * out["se"]
    out["raw_ci_high"] = out["raw"] + Z95 * out["se"]
    if "evidence" not in out.columns:
        out["evidence"] = ""
    return out
