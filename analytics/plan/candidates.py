"""The tasks a plan may propose: inside the filter, rated by contractors on the rubric's primary dimension, labelled
by no researcher (in any rubric, at any date) and assigned in no open plan; with their contractors, their latest
rating and how far their contractors agree among themselves."""

from __future__ import annotations

import datetime as dt

import duckdb
import numpy as np
import pandas as pd

from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.plan import issued
from analytics.plan.needs import PRIMARY_DIMS, Needs, primary_params, scope

HALF_LIFE_DAYS = 28  # a task's weight halves for every four weeks between its latest rating and the latest in scope
MIN_RECENCY = 0.25  # an old task's weight does not fall below this: it still narrows its active contractors
# Labelled: a researcher rated the task; assigned: an open plan holds it (analytics/plan/issued.py; a store opened
# read-only before migration 21 has no plans).
_LABELLED = "labelled AS (SELECT DISTINCT task_key FROM rater_tasks WHERE role = 'researcher')"
_ASSIGNED = """assigned AS (
    SELECT DISTINCT k.task_key FROM label_plan_tasks t JOIN label_plans p USING (plan_id)
    JOIN task_keys k USING (task_id) WHERE p.withdrawn_at IS NULL)"""
_NO_PLANS = "assigned AS (SELECT CAST(NULL AS INTEGER) AS task_key WHERE FALSE)"


def _excluded(with_plans: bool) -> str:
    """The CTEs of the tasks no plan proposes: labelled, and assigned in an open plan."""
    return f"{_LABELLED},\n{_ASSIGNED if with_plans else _NO_PLANS}"


def candidates_query(filters: Filters, primary: dict[str, str], with_plans: bool = True) -> Query:
    """Per candidate task and rubric: its contractors on the primary dimension (sorted), their latest rating, and
    the share of the other contractors who gave each contractor's level, pooled (NULL with one contractor)."""
    where, params = scope(filters).where_named("c")
    sql = f"""WITH {PRIMARY_DIMS},
{_excluded(with_plans)}
SELECT k.task_id, c.rubric, list(DISTINCT c.rater_id ORDER BY c.rater_id) AS contractors,
       max(c.submitted_at) AS last_at, sum(c.agree_sum) / nullif(sum(c.agree_n), 0) AS consensus
FROM contractor_tasks c JOIN primary_dims USING (rubric, dimension) JOIN task_keys k USING (task_key)
WHERE {where}
  AND c.task_key NOT IN (SELECT task_key FROM labelled) AND c.task_key NOT IN (SELECT task_key FROM assigned)
GROUP BY k.task_id, c.rubric
ORDER BY c.rubric, k.task_id"""
    return Query("plan_candidates", sql, {**params, **primary_params(primary)})


def thin_query(filters: Filters, thin: list[tuple[str, str]], with_plans: bool = True) -> Query:
    """Per candidate task and rubric, the dimensions with too few shared tasks (`thin`) its contractors rated."""
    where, params = scope(filters).where_named("c")
    sql = f"""WITH thin AS (SELECT unnest($thin_rubrics) AS rubric, unnest($thin_dimensions) AS dimension),
{_excluded(with_plans)}
SELECT k.task_id, c.rubric, list(DISTINCT c.dimension ORDER BY c.dimension) AS dimensions
FROM contractor_tasks c JOIN thin USING (rubric, dimension) JOIN task_keys k USING (task_key)
WHERE {where}
  AND c.task_key NOT IN (SELECT task_key FROM labelled) AND c.task_key NOT IN (SELECT task_key FROM assigned)
GROUP BY k.task_id, c.rubric"""
    return Query(
        "plan_thin_dimensions",
        sql,
        {**params, "thin_rubrics": [r for r, _ in thin], "thin_dimensions": [d for _, d in thin]},
    )


def candidates(con: duckdb.DuckDBPyConnection, filters: Filters, needs: Needs) -> pd.DataFrame:
    """The tasks a plan under `filters` may propose, one row per task and rubric: task_id, rubric, contractors (a
    tuple), last_at, disagreement, weight (recency times 1 + disagreement: docs/plan.md) and thin (the thin
    dimensions it covers, a tuple)."""
    columns = ["task_id", "rubric", "contractors", "last_at", "disagreement", "weight", "thin"]
    if not needs.primary:
        return pd.DataFrame(columns=columns)
    with_plans = issued.has_tables(con)
    q = candidates_query(filters, needs.primary, with_plans)
    tasks = q.df(con)
    tasks["contractors"] = [tuple(c) for c in tasks["contractors"]]
    consensus = tasks["consensus"].astype(float)
    tasks["disagreement"] = (1 - consensus).fillna(0.0).clip(0, 1)
    tasks["weight"] = recency(tasks["last_at"], needs.latest) * (1 + tasks["disagreement"])
    thin = sorted(needs.thin)
    tasks["thin"] = [()] * len(tasks)
    if thin and len(tasks):
        tq = thin_query(filters, thin, with_plans)
        covered = {(t, r): tuple(d) for t, r, d in tq.rows(con)}
        tasks["thin"] = [covered.get((t, r), ()) for t, r in zip(tasks["task_id"], tasks["rubric"], strict=True)]
    return tasks[columns].reset_index(drop=True)


def recency(last_at: pd.Series, latest: dt.datetime | None) -> np.ndarray:
    """Each task's recency weight: 1 at the latest rating in scope, halving every HALF_LIFE_DAYS, at least
    MIN_RECENCY (1 for undated tasks)."""
    if latest is None or last_at.empty:
        return np.ones(len(last_at))
    age = (pd.Timestamp(latest) - pd.to_datetime(last_at)).dt.total_seconds().to_numpy() / 86400.0
    weight = np.power(0.5, np.maximum(age, 0) / HALF_LIFE_DAYS)
    return np.where(np.isnan(age), 1.0, np.maximum(weight, MIN_RECENCY))
