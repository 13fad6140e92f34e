"""Drift: a contractor's agreement week by week, with researchers on shared units and with the other contractors
on every unit, a CUSUM alert when it falls below their own first weeks, and the fall as a rater effect."""

from __future__ import annotations

import math
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from analytics.core.filters import NO_FILTERS, Filters
from analytics.core.queries import Query, QueryLog, run
from analytics.effects import markers
from analytics.effects.rows import finish
from analytics.store.derived import reference_pairs as rp

BASELINE_WEEKS = 2  # a contractor's first active weeks: the level later weeks are held to
EARLY_WEEKS = LATE_WEEKS = 3  # the drift effect: first and last active weeks compared (enough tasks for MIN_TASKS)
# CUSUM (Page 1954) on standardised weekly falls: reference value K and decision threshold H in standard errors.
# drift_false_alarm_rate() simulates stable contractors to give the rate these imply (docs/effects.md).
K, H = 0.5, 2.5
ALERT_COLUMNS = (
    "rater_id",
    "rubric",
    "basis",
    "alert_week",
    "baseline",
    "recent",
    "cusum",
    "threshold",
    "n_tasks",
    "evidence",
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
    df = run(con, weekly_query(filters), queries)
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


def cusum(
    values: list[float], counts: list[int], baseline: float, n_baseline: int, sd: float, k: float = K
) -> list[float]:
    """The lower CUSUM path of weekly means against a baseline: S_w = max(0, S_(w-1) + z_w - k), where z_w is the
    week's fall below the baseline in standard errors of the difference (sd * sqrt(1/tasks + 1/baseline tasks):
    the baseline is itself estimated)."""
    s, path = 0.0, []
    for v, n in zip(values, counts, strict=True):
        z = (baseline - v) / (sd * math.sqrt(1 / n + 1 / n_baseline)) if n > 0 and sd > 0 else 0.0
        s = max(0.0, s + z - k)
        path.append(s)
    return path


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


def _alert(g: Weeks, sd: float, h: float) -> dict | None:
    """The first week a contractor's CUSUM of agreement relative to the team crosses h (None when it never does);
    g is the contractor's week sums, sd the task-level standard deviation of the rubric's relative agreement."""
    base, later = g.week_no < BASELINE_WEEKS, g.week_no >= BASELINE_WEEKS
    n_base = int(g.n[base].sum())
    if n_base < 10 or not later.any():
        return None
    mu = float(g.r1[base].sum()) / n_base
    n_later = g.n[later]
    path = cusum((g.r1[later] / n_later).tolist(), n_later.astype(int).tolist(), mu, n_base, sd)
    crossed = [i for i, s in enumerate(path) if s > h]
    if not crossed:
        return None
    i = crossed[0]
    alert_week_no, alert_week = g.week_no[later][i], g.week[later][i]
    since = later & (g.week_no <= alert_week_no)
    n_since = float(g.n[since].sum())
    before, recent = float(g.s1[base].sum()) / n_base, float(g.s1[since].sum()) / n_since
    return {
        "basis": "consensus",
        "alert_week": alert_week,
        "baseline": before,
        "recent": recent,
        "cusum": path[i],
        "threshold": h,
        "n_tasks": int(g.n.sum()),
        "evidence": f"Agreement with the other contractors fell from {before:.0%} in their first {BASELINE_WEEKS} "
        f"weeks to {recent:.0%} since, {mu - float(g.r1[since].sum()) / n_since:.0%} more than the team's; the "
        f"CUSUM crossed {h:g} in the week of {pd.Timestamp(alert_week).date()}.",
    }


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


def drift_alerts(
    con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS, h: float = H, queries: list | None = None
) -> pd.DataFrame:
    """Per contractor and rubric, the first week their agreement with the other contractors fell below their own
    first weeks by more than chance allows (CUSUM over h), with evidence."""
    df = week_sums(con, filters, queries)
    sd = _rubric_sd(df)
    rows = [
        {"rater_id": rater, "rubric": rubric, **a}
        for rater, rubric, g in _groups(df)
        if (a := _alert(g, float(sd.get(rubric, math.nan)), h))
    ]
    out = pd.DataFrame(rows, columns=list(ALERT_COLUMNS))
    marks = markers.markers(con)
    if len(out) and len(marks):
        first = df.groupby(["rater_id", "rubric"])["week"].min()
        out["evidence"] = [
            e + _marked(marks, rubric, first[(r, rubric)], week)
            for e, r, rubric, week in zip(
                out["evidence"], out["rater_id"], out["rubric"], out["alert_week"], strict=True
            )
        ]
    return out


def alerts_with_weeks(
    con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """drift_alerts and the alerted contractors' contractor_weeks, from one run of the weekly query."""
    log = QueryLog()
    alerts = drift_alerts(con, filters, queries=log)
    return alerts, contractor_weeks(con, alerts, filters, log)


def _marked(marks: pd.DataFrame, rubric: str, since: pd.Timestamp, week: pd.Timestamp) -> str:
    """A sentence naming the guideline changes marked between a contractor's first week and the end of their
    alert week, or ''."""
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
    """Drift effect rows (dimension ''): agreement with the other contractors (relative to the team's that week) in
    the first EARLY_WEEKS active weeks minus the last LATE_WEEKS (positive = worse now), with its task-level
    standard error."""
    df = week_sums(con, filters, queries)
    rows = []
    for rater, rubric, g in _groups(df):
        last = g.week_no.max()
        early, late = g.week_no < EARLY_WEEKS, g.week_no > last - LATE_WEEKS
        n_early, n_late = int(g.n[early].sum()), int(g.n[late].sum())
        if last < EARLY_WEEKS + LATE_WEEKS - 1 or n_early < 2 or n_late < 2:
            continue
        var_early = _variance_of(n_early, float(g.r1[early].sum()), float(g.r2[early].sum()))
        var_late = _variance_of(n_late, float(g.r1[late].sum()), float(g.r2[late].sum()))
        se = math.sqrt(var_early / n_early + var_late / n_late)
        before, after = float(g.r1[early].sum()) / n_early, float(g.r1[late].sum()) / n_late
        rows.append(
            {
                "rater_id": rater,
                "rubric": rubric,
                "dimension": "",
                "raw": before - after,
                "se": se,
                "n_tasks": n_early + n_late,
                "evidence": f"Agreement with the other contractors, relative to the team's that week: {before:+.0%} "
                f"in the first {EARLY_WEEKS} weeks ({n_early} tasks), {after:+.0%} in the last {LATE_WEEKS} "
                f"({n_late} tasks).",
            }
        )
    if not rows:
        return pd.DataFrame()
    return finish(pd.DataFrame(rows), "drift", "high", "agreement", "consensus")


def drift_false_alarm_rate(
    weeks: int = 8,
    tasks_per_week: int = 15,
    sd: float = 0.25,
    h: float = H,
    k: float = K,
    n: int = 20000,
    seed: int = 0,
) -> float:
    """Share of simulated stable contractors (per-task agreement normal with a constant mean) alerted within
    `weeks` weeks: the baseline is estimated from their first BASELINE_WEEKS weeks, as drift_alerts does."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0.5, sd, size=(n, weeks, tasks_per_week))
    base = x[:, :BASELINE_WEEKS].reshape(n, -1)
    mu, s = base.mean(axis=1), x.reshape(n, -1).std(axis=1, ddof=1)
    z = (mu[:, None] - x[:, BASELINE_WEEKS:].mean(axis=2)) / (
        s[:, None] * math.sqrt(1 / tasks_per_week + 1 / (BASELINE_WEEKS * tasks_per_week))
    )
    path = np.zeros(n)
    alerted = np.zeros(n, dtype=bool)
    for w in range(z.shape[1]):
        path = np.maximum(0.0, path + z[:, w] - k)
        alerted |= path > h
    return float(alerted.mean())
