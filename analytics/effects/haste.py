"""Haste: how long a contractor takes per submission against the team, and how their agreement with
researchers changes between their faster and slower submissions."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pandas as pd

from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.effects.rows import finish, task_means
from analytics.store.derived import rater_tasks
from analytics.store.derived import reference_pairs as rp


def durations_query(filters: Filters, kept: bool = False) -> Query:
    """Per contractor, rubric and task: seconds spent (the submission's, else the task's ratings'), with the
    share of the task's ratings paired with researchers that agree exactly (NULL where none is paired). With
    `kept` (for `durations` to choose: no submission carries a duration, no dimension filter), the seconds are
    the longest of the task's ratings' kept per rater task at ingest (analytics/store/derived/rater_tasks.py). Without any
    duration the agreement side is not computed (EXISTS: no pairing of every rating with researchers for nothing)."""
    where, params = filters.but(roles=("contractor",)).where_named("r")
    paired, _ = filters.but(roles=("contractor",)).where_named("p")  # the same parameters, on the kept pairs
    seconds = (
        f"""SELECT r.rater_id, r.rubric, r.task_key, max(r.duration_s) AS duration_s
    FROM rater_tasks r
    WHERE {where} AND r.duration_s > 0 AND NOT starts_with(r.rater_id, 'anon:')"""
        if kept
        else f"""SELECT r.rater_id, r.rubric, r.task_key, max(coalesce(s.duration_s, r.duration_s)) AS duration_s
    FROM ratings r LEFT JOIN s USING (submission_id)
    WHERE {where} AND coalesce(s.duration_s, r.duration_s) > 0 AND NOT starts_with(r.rater_id, 'anon:')"""
    )
    return Query(
        "effects_durations",
        f"""WITH s AS (SELECT submission_id, duration_s FROM submissions WHERE duration_s IS NOT NULL),
d AS (
    {seconds}
    GROUP BY ALL),
a AS (
    {rp.task_agreement_sql(f"EXISTS (SELECT 1 FROM d) AND {paired}", rater="rater_id")})
SELECT d.*, a.agreement FROM d LEFT JOIN a USING (rater_id, rubric, task_key)""",
        params,
    )


TIMED_SUBMISSIONS = Query("timed_submissions", "SELECT count(*) FROM submissions WHERE duration_s IS NOT NULL")


def durations(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """durations_query's rows, from the kept rater tasks when no submission carries a duration of its own (the
    rating-only formats) and no dimension filter applies."""
    timed = TIMED_SUBMISSIONS.rows(con)[0][0]
    return durations_query(filters, kept=not timed and rater_tasks.answers(filters)).df(con)


def haste_rows(durations: pd.DataFrame) -> pd.DataFrame:
    """Haste rows per rubric (dimension ''): raw = mean over tasks of log(seconds / the rubric's median over all
    contractors); shrunk on that log scale, shown as a ratio by `as_ratio` (below 1 = faster than the team)."""
    if durations.empty:
        return pd.DataFrame()
    med = durations.groupby("rubric")["duration_s"].transform("median")
    logs = durations.assign(log_ratio=np.log(durations["duration_s"] / med), dimension="")
    rows = task_means(logs, "log_ratio")
    rows["evidence"] = evidence(logs)
    return finish(rows, "haste", "low", "duration ratio", "durations")


def evidence(logs: pd.DataFrame) -> list[str]:
    """Per rater, rubric and dimension (sorted, as task_means' rows): quartiles of seconds per submission and
    agreement with researchers in the faster and slower half (of the tasks paired with researchers, at least 10).
    One grouped pass: a pass per group took about 40 ms each, most of the Raters page's haste time."""
    keys = ["rater_id", "rubric", "dimension"]
    seconds = logs.groupby(keys, sort=True)["duration_s"]
    quartiles = seconds.quantile(np.array([0.25, 0.5, 0.75])).unstack()
    paired = logs[logs["agreement"].notna()]
    fast = paired["duration_s"] <= paired.groupby(keys)["duration_s"].transform("median")
    halves = paired.assign(fast=fast).groupby([*keys, "fast"])["agreement"].mean().unstack()
    halves = halves.reindex(index=quartiles.index, columns=[True, False])
    n_paired = paired.groupby(keys).size().reindex(quartiles.index, fill_value=0)
    out = []
    for (q1, q2, q3), n, m, (a, b) in zip(
        quartiles.to_numpy().tolist(),
        seconds.size().tolist(),
        n_paired.tolist(),
        halves.to_numpy().tolist(),
        strict=True,
    ):
        text = f"Seconds per submission: quartiles {q1:.0f}, {q2:.0f}, {q3:.0f} over {n} tasks"
        if m >= 10:
            text += f"; exact agreement with researchers {a:.0%} on the faster half, {b:.0%} on the slower"
        out.append(text + ".")
    return out


RATIO_COLUMNS = (
    "estimate",
    "estimate_ci_low",
    "estimate_ci_high",
    "team_value",
    "team_pooled",
    "raw",
    "raw_ci_low",
    "raw_ci_high",
)


def as_ratio(rows: pd.DataFrame) -> pd.DataFrame:
    """Haste rows moved from the log scale to duration ratios (exp keeps order, so flags are unchanged)."""
    out = rows.copy()
    for c in (c for c in RATIO_COLUMNS if c in out.columns):
        out[c] = [math.exp(x) if pd.notna(x) else math.nan for x in out[c]]
    return out
