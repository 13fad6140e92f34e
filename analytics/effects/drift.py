"""Drift: a contractor's agreement week by week, with researchers on shared units and with the other contractors
on every unit, and the drift effect: their agreement with the other contractors (relative to the team's that week) in
the project's last RECENT_WEEKS weeks against the BASELINE_WEEKS weeks before them. The window moves with the
project, so a review tests each contractor once whatever the project's length (a CUSUM from a fixed start alerted
20% of steady contractors at 13 weeks and 40% at 52); the alarm layer decides the flag (analytics/alarms)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from analytics.core.filters import NO_FILTERS, Filters
from analytics.core.formatting import points, week_label
from analytics.core.queries import Query, run
from analytics.effects.rows import finish
from analytics.store.derived import reference_pairs as rp

RECENT_WEEKS = 3  # the project's latest weeks, where a fall is looked for
BASELINE_WEEKS = 6  # the weeks just before them, the level recent weeks are held to
DAYS = 7
WINDOW_WORDS = (  # what a drift alarm measures, as pages say it
    f"each contractor's agreement with the other contractors, every week measured against the whole team's that "
    f"same week (a week hard for everyone counts against nobody), in the project's last {RECENT_WEEKS} weeks "
    f"against the {BASELINE_WEEKS} weeks before them"
)


def task_agreement_query(filters: Filters) -> Query:
    """Per contractor (rater_key), rubric and task, with its week: the share of the other contractors' ratings
    of the same units that agree exactly (consensus; the other contractors count whatever their date, see
    analytics/store/derived/contractor_tasks.py, which keeps the sums per task), and the share of researcher ratings that do
    (NULL where none)."""
    where, params = filters.but(roles=("contractor",)).where_named("t")
    paired, _ = filters.but(roles=("contractor",)).where_named("p")
    # One row per contractor, rubric and task is kept (contractor_rubric_tasks); with a dimension filter the
    # task's rows of the chosen dimensions are summed instead.
    team = (
        f"""SELECT t.rater_key, t.rubric, t.task_key, min(t.submitted_at) AS submitted_at,
           sum(t.agree_sum) / nullif(sum(t.agree_n), 0) AS consensus
    FROM contractor_tasks t WHERE {where} GROUP BY t.rater_key, t.rubric, t.task_key"""
        if filters.dimensions
        else f"""SELECT t.rater_key, t.rubric, t.task_key, t.submitted_at, t.agree_sum / nullif(t.agree_n, 0) AS consensus
    FROM contractor_rubric_tasks t WHERE {where}"""
    )
    return Query(
        "drift_task_agreement",
        f"""WITH team AS (
    {team}),
res AS (
    {rp.task_agreement_sql(paired)})
SELECT t.rater_key, t.rubric, t.task_key, date_trunc('week', t.submitted_at) AS week, t.consensus,
       res.agreement AS researchers
FROM team t LEFT JOIN res USING (rater_key, rubric, task_key)
WHERE t.submitted_at IS NOT NULL""",
        params,
    )


def weekly_query(filters: Filters) -> Query:
    """Per contractor, rubric and week, over task_agreement_query's tasks: how many there were (n_rows) and, over
    those with a consensus, their number, sum and sum of squares (n, s1, s2); the researcher agreement's number
    and sum. Small (contractors x weeks), whatever the number of tasks."""
    if not filters.dimensions:
        return _weekly_from_days(filters)
    task = task_agreement_query(filters)
    # grouped on the rater's key and named after (grouping the ids' strings is slower)
    sql = f"""WITH weeks AS (
    SELECT rater_key, rubric, week, count(*) AS n_rows, count(consensus) AS n, sum(consensus) AS s1,
           sum(consensus * consensus) AS s2, count(researchers) AS n_researchers, sum(researchers) AS s_researchers
    FROM ({task.sql}) AS tasks
    GROUP BY ALL)
SELECT k.rater_id, w.* EXCLUDE (rater_key)
FROM weeks w JOIN rater_keys k USING (rater_key)
ORDER BY ALL"""
    return Query("drift_weekly_agreement", sql, task.params)


def _weekly_from_days(filters: Filters) -> Query:
    """weekly_query without a dimension filter: the same sums from the contractor rubric days kept at ingest
    (analytics/store/derived/contractor_days.py), not the contractor rubric tasks grouped with their researcher
    pairs. A task's researcher share is over all its pairs in the rubric (see that module)."""
    where, params = filters.but(roles=("contractor",)).where_named("t")
    sql = f"""WITH weeks AS (
    SELECT t.rater_key, t.rubric, date_trunc('week', t.submitted_at) AS week, CAST(sum(t.tasks) AS BIGINT) AS n_rows,
           CAST(sum(t.consensus_n) AS BIGINT) AS n, sum(t.consensus_s1) AS s1, sum(t.consensus_s2) AS s2,
           CAST(sum(t.researchers_n) AS BIGINT) AS n_researchers, sum(t.researchers_s1) AS s_researchers
    FROM contractor_rubric_days t
    WHERE {where} AND t.submitted_at IS NOT NULL
    GROUP BY ALL)
SELECT k.rater_id, w.* EXCLUDE (rater_key)
FROM weeks w JOIN rater_keys k USING (rater_key)
ORDER BY ALL"""
    return Query("drift_weekly_agreement", sql, params)


def week_sums(
    con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS, queries: list | None = None
) -> pd.DataFrame:
    """weekly_query's rows with each contractor's week number (0 = their first active week), the team's mean
    consensus that week, and the sum and sum of squares of the tasks' consensus relative to it (r1, r2): a fall
    everyone shares (new guidelines, harder tasks, newcomers in the pool) is not one contractor's drift. With a
    QueryLog as `queries`, the functions below given the same log and filter run the query once."""
    return with_team(run(con, weekly_query(filters), queries))


def with_team(df: pd.DataFrame) -> pd.DataFrame:
    """weekly_query's rows with week_no, the team's mean that week and the sums relative to it (week_sums)."""
    if df.empty:
        return df.assign(week_no=pd.Series(dtype=int), team=[], r1=[], r2=[])
    first = df.groupby(["rater_id", "rubric"])["week"].transform("min")
    by_week = df.groupby(["rubric", "week"])
    team = by_week["s1"].transform("sum") / by_week["n"].transform("sum")
    s1, s2, n = df["s1"].fillna(0.0), df["s2"].fillna(0.0), df["n"]
    return df.assign(
        week_no=((df["week"] - first).dt.days // 7).astype(int),
        team=team,
        r1=s1 - n * team,
        r2=s2 - 2 * team * s1 + n * team * team,
    )


def _variance_of(n: float, r1: float, r2: float) -> float:
    """Sample variance (ddof 1) of the relative consensus over n tasks, from its sum r1 and sum of squares r2."""
    return max(r2 - r1 * r1 / n, 0.0) / (n - 1) if n > 1 else math.nan


def _variance(rows: pd.DataFrame) -> float:
    """Sample variance (ddof 1) of the relative consensus over the tasks of `rows` (week sums)."""
    return _variance_of(float(rows["n"].sum()), float(rows["r1"].sum()), float(rows["r2"].sum()))


def weekly_agreement(
    con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS, queries: list | None = None
) -> pd.DataFrame:
    """Per contractor, rubric and week: mean agreement with the other contractors and with researchers over the
    week's tasks, and the tasks behind each."""
    df = week_sums(con, filters, queries)
    cols = ["rater_id", "rubric", "week", "week_no"]
    if df.empty:
        return pd.DataFrame(columns=[*cols, "consensus", "n_tasks", "researchers", "n_researcher_tasks"])
    return pd.DataFrame(
        {
            **{c: df[c] for c in cols},
            "consensus": df["s1"] / df["n"].where(df["n"] > 0),
            "n_tasks": df["n"],
            "researchers": df["s_researchers"] / df["n_researchers"].where(df["n_researchers"] > 0),
            "n_researcher_tasks": df["n_researchers"],
        }
    )


@dataclass(frozen=True)
class Weeks:
    """One contractor's week sums on one rubric, weeks with tasks only, in week order (numpy columns of
    week_sums: a group's alert is computed on arrays, not on a DataFrame per group)."""

    week_no: np.ndarray
    week: np.ndarray
    n: np.ndarray
    s1: np.ndarray
    r1: np.ndarray
    r2: np.ndarray


def _groups(df: pd.DataFrame) -> list[tuple[str, str, Weeks]]:
    """week_sums' rows with tasks as (rater_id, rubric, Weeks) per contractor and rubric, sorted by both."""
    d = df[df["n"] > 0].sort_values(["rater_id", "rubric", "week_no"], kind="stable")
    if d.empty:
        return []
    raters, rubrics = d["rater_id"].to_numpy(), d["rubric"].to_numpy()
    starts = np.flatnonzero(np.r_[True, (raters[1:] != raters[:-1]) | (rubrics[1:] != rubrics[:-1])])
    ends = np.r_[starts[1:], len(d)]
    cols = {c: d[c].to_numpy() for c in ("week_no", "week", "n", "s1", "r1", "r2")}
    return [
        (raters[a], rubrics[a], Weeks(**{c: v[a:b] for c, v in cols.items()}))
        for a, b in zip(starts, ends, strict=True)
    ]


def _rubric_sd(df: pd.DataFrame) -> pd.Series:
    """Per rubric, the task-level standard deviation of the consensus relative to the team's that week."""
    if df.empty:
        return pd.Series(dtype=float)
    return df.groupby("rubric")[["n", "r1", "r2"]].apply(lambda g: math.sqrt(_variance(g)))


def project_weeks(df: pd.DataFrame) -> pd.DataFrame:
    """Per rubric, the first week of the recent window and of the baseline (`recent_from`, `baseline_from`), counted
    back from the rubric's latest week in week_sums' rows."""
    if df.empty:
        return pd.DataFrame(columns=["rubric", "recent_from", "baseline_from"])
    last = df.groupby("rubric")["week"].max()
    recent = last - pd.Timedelta(days=DAYS * (RECENT_WEEKS - 1))
    return pd.DataFrame(
        {"recent_from": recent, "baseline_from": recent - pd.Timedelta(days=DAYS * BASELINE_WEEKS)}
    ).reset_index()


def marked_changes(marks: pd.DataFrame, rubric: str, since: pd.Timestamp, week: pd.Timestamp) -> str:
    """A sentence naming the guideline changes marked from `since` to the end of `week`, or ''."""
    on = pd.to_datetime(marks["marked_on"])
    hit = marks[
        (marks["rubric"].isna() | (marks["rubric"] == rubric)) & (on >= since) & (on < week + pd.Timedelta(days=7))
    ]
    if hit.empty:
        return ""
    named = "; ".join(f"{pd.Timestamp(d).date()} ({n})" for d, n in zip(hit["marked_on"], hit["note"], strict=True))
    return f" Guideline changes marked in these weeks: {named}: the fall may follow them."


def contractor_weeks(
    con: duckdb.DuckDBPyConnection, who: pd.DataFrame, filters: Filters = NO_FILTERS, queries: list | None = None
) -> pd.DataFrame:
    """Week by week, the agreement with the other contractors of each (rater_id, rubric) in `who` (e.g. the
    alerts) beside the team's mean that week (rater_id, rubric, week, agreement, team, n_tasks)."""
    cols = ["rater_id", "rubric", "week", "agreement", "team", "n_tasks"]
    if who.empty:
        return pd.DataFrame(columns=cols)
    df = week_sums(con, filters, queries)  # its `team` is the team's mean that week
    mine = df.merge(who[["rater_id", "rubric"]].drop_duplicates(), on=["rater_id", "rubric"])
    return mine.assign(agreement=mine["s1"] / mine["n"].where(mine["n"] > 0), n_tasks=mine["n"])[cols]


def drift_rows(
    con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS, queries: list | None = None
) -> pd.DataFrame:
    """Drift effect rows (dimension ''), one per contractor and rubric with tasks in both windows: agreement with
    the other contractors relative to the team's that week, in the baseline minus the recent window (positive =
    worse now), its standard error from the rubric's task-level spread, and `since` (the recent window's start)."""
    return window_rows(week_sums(con, filters, queries))


def window_words(before: float, after: float, recent_from: pd.Timestamp, n_base: int, n_recent: int) -> str:
    """A drift's two windows in words: the contractor's agreement with the other contractors against the team's in
    the same weeks, in percentage points, before and since the recent window's first day."""
    team = "the team's"
    return (
        f"Their agreement with the other contractors was {points(before, team)} in the {BASELINE_WEEKS} weeks "
        f"before {week_label(recent_from)} ({n_base} tasks) and {points(after, team)} in the {RECENT_WEEKS} weeks "
        f"since ({n_recent} tasks)."
    )


def window_rows(df: pd.DataFrame) -> pd.DataFrame:
    """drift_rows from week_sums' rows (a benchmark feeds simulated ones)."""
    sd, w = _rubric_sd(df), project_weeks(df)
    windows = {
        r: (pd.Timestamp(a), pd.Timestamp(b))
        for r, a, b in zip(w["rubric"], w["recent_from"], w["baseline_from"], strict=True)
    }
    rows = []
    for rater, rubric, g in _groups(df):
        recent_from, baseline_from = windows[rubric]
        recent, base = g.week >= recent_from, (g.week >= baseline_from) & (g.week < recent_from)
        n_recent, n_base = int(g.n[recent].sum()), int(g.n[base].sum())
        if n_recent == 0 or n_base == 0:
            continue
        before, after = float(g.r1[base].sum()) / n_base, float(g.r1[recent].sum()) / n_recent
        se = float(sd.get(rubric, math.nan)) * math.sqrt(1 / n_base + 1 / n_recent)
        rows.append(
            {
                "rater_id": rater,
                "rubric": rubric,
                "dimension": "",
                "raw": before - after,
                "se": se,
                "n_tasks": n_base + n_recent,
                "since": recent_from,
                "evidence": window_words(before, after, recent_from, n_base, n_recent),
            }
        )
    if not rows:
        return pd.DataFrame()
    return finish(pd.DataFrame(rows), "drift", "high", "agreement", "consensus")
