"""Drift: a contractor's agreement week by week, with researchers on shared units and with the other contractors
on every unit, a CUSUM alert when it falls below their own first weeks, and the fall as a rater effect."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pandas as pd

from analytics.effects import markers
from analytics.effects.rows import finish
from analytics.filters import NO_FILTERS, Filters
from analytics.queries import Query

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
    """Per contractor, rubric and task, with its week: the share of the other contractors' ratings of the same
    units that agree exactly (consensus), and the share of researcher ratings that do (NULL where none)."""
    where, params = filters.but(roles=("contractor",)).where_named("r")
    paired, _ = filters.but(roles=("contractor",)).where_named("p")
    return Query(
        "drift_task_agreement",
        f"""WITH c AS (
    SELECT r.rater_id, r.rubric, r.task_key, r.dim_key, r.target_key, r.value_index, r.submitted_at
    FROM ratings r WHERE {where} AND r.value_index IS NOT NULL AND NOT starts_with(r.rater_id, 'anon:')),
levels AS (SELECT dim_key, task_key, target_key, value_index, count(*) AS n_level FROM c
           GROUP BY dim_key, task_key, target_key, value_index),
unit AS (SELECT *, sum(n_level) OVER (PARTITION BY dim_key, task_key, target_key) AS n_unit FROM levels),
team AS (
    SELECT c.rater_id, c.rubric, c.task_key, min(c.submitted_at) AS submitted_at,
           avg(CASE WHEN u.n_unit >= 2 THEN (u.n_level - 1) / (u.n_unit - 1) END) AS consensus
    FROM c JOIN unit u USING (dim_key, task_key, target_key, value_index) GROUP BY ALL),
res AS (
    SELECT p.rater_id, p.rubric, p.task_key,
           avg(CASE WHEN p.value_index = p.reference_index THEN 1.0 ELSE 0.0 END) AS researchers
    FROM reference_pairs p WHERE {paired} GROUP BY ALL)
SELECT t.rater_id, t.rubric, t.task_key, date_trunc('week', t.submitted_at) AS week, t.consensus, res.researchers
FROM team t LEFT JOIN res USING (rater_id, rubric, task_key)
WHERE t.submitted_at IS NOT NULL""",
        params,
    )


def task_agreement(con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS) -> pd.DataFrame:
    """task_agreement_query's rows with each contractor's week number (0 = their first active week) and their
    consensus agreement relative to the team's that week (`relative`): a fall everyone shares (new guidelines,
    harder tasks, newcomers in the pool) is not one contractor's drift."""
    df = task_agreement_query(filters).df(con)
    if df.empty:
        return df.assign(week_no=pd.Series(dtype=int), relative=pd.Series(dtype=float))
    first = df.groupby(["rater_id", "rubric"])["week"].transform("min")
    team = df.groupby(["rubric", "week"])["consensus"].transform("mean")
    return df.assign(week_no=((df["week"] - first).dt.days // 7).astype(int), relative=df["consensus"] - team)


def weekly_agreement(con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS) -> pd.DataFrame:
    """Per contractor, rubric and week: mean agreement with the other contractors and with researchers over the
    week's tasks, and the tasks behind each."""
    df = task_agreement(con, filters)
    cols = ["rater_id", "rubric", "week", "week_no"]
    if df.empty:
        return pd.DataFrame(columns=[*cols, "consensus", "n_tasks", "researchers", "n_researcher_tasks"])
    g = df.groupby(cols)
    return pd.DataFrame(
        {
            "consensus": g["consensus"].mean(),
            "n_tasks": g["consensus"].count(),
            "researchers": g["researchers"].mean(),
            "n_researcher_tasks": g["researchers"].count(),
        }
    ).reset_index()


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


def _alert(g: pd.DataFrame, sd: float, h: float) -> dict | None:
    """The first week a contractor's CUSUM of agreement relative to the team crosses h (None when it never does);
    sd is the task-level standard deviation of the rubric's relative agreement."""
    basis = "relative"
    g = g[g[basis].notna()]
    base = g[g["week_no"] < BASELINE_WEEKS]
    later = g[g["week_no"] >= BASELINE_WEEKS]
    if len(base) < 10 or later.empty:
        return None
    mu = float(base[basis].mean())
    weekly = later.groupby(["week_no", "week"])[basis].agg(["mean", "size"]).reset_index()
    path = cusum(weekly["mean"].tolist(), weekly["size"].tolist(), mu, len(base), sd)
    crossed = [i for i, s in enumerate(path) if s > h]
    if not crossed:
        return None
    i = crossed[0]
    since = g[(g["week_no"] >= BASELINE_WEEKS) & (g["week_no"] <= weekly["week_no"].iloc[i])]
    before, recent = float(base["consensus"].mean()), float(since["consensus"].mean())
    return {
        "rater_id": g["rater_id"].iloc[0],
        "rubric": g["rubric"].iloc[0],
        "basis": "consensus",
        "alert_week": weekly["week"].iloc[i],
        "baseline": before,
        "recent": recent,
        "cusum": path[i],
        "threshold": h,
        "n_tasks": len(g),
        "evidence": f"Agreement with the other contractors fell from {before:.0%} in their first {BASELINE_WEEKS} "
        f"weeks to {recent:.0%} since, {mu - float(since[basis].mean()):.0%} more than the team's; the CUSUM crossed "
        f"{h:g} in the week of {pd.Timestamp(weekly['week'].iloc[i]).date()}.",
    }


def drift_alerts(con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS, h: float = H) -> pd.DataFrame:
    """Per contractor and rubric, the first week their agreement with the other contractors fell below their own
    first weeks by more than chance allows (CUSUM over h), with evidence."""
    df = task_agreement(con, filters)
    sd = df.groupby("rubric")["relative"].std(ddof=1) if len(df) else pd.Series(dtype=float)
    groups = df.groupby(["rater_id", "rubric"], sort=True)
    rows = [a for (_, rubric), g in groups if (a := _alert(g, float(sd.get(rubric, math.nan)), h))]
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


def contractor_weeks(con: duckdb.DuckDBPyConnection, who: pd.DataFrame, filters: Filters = NO_FILTERS) -> pd.DataFrame:
    """Week by week, the agreement with the other contractors of each (rater_id, rubric) in `who` (e.g. the
    alerts) beside the team's mean that week (rater_id, rubric, week, agreement, team, n_tasks)."""
    cols = ["rater_id", "rubric", "week", "agreement", "team", "n_tasks"]
    if who.empty:
        return pd.DataFrame(columns=cols)
    weekly = weekly_agreement(con, filters)
    team = weekly.assign(w=weekly["consensus"] * weekly["n_tasks"]).groupby(["rubric", "week"])[["w", "n_tasks"]].sum()
    team = (team["w"] / team["n_tasks"]).rename("team").reset_index()
    mine = weekly.merge(who[["rater_id", "rubric"]].drop_duplicates(), on=["rater_id", "rubric"]).merge(
        team, on=["rubric", "week"]
    )
    return mine.rename(columns={"consensus": "agreement"})[cols]


def drift_rows(con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS) -> pd.DataFrame:
    """Drift effect rows (dimension ''): agreement with the other contractors (relative to the team's that week) in
    the first EARLY_WEEKS active weeks minus the last LATE_WEEKS (positive = worse now), with its task-level
    standard error."""
    df = task_agreement(con, filters)
    rows = []
    for (rater, rubric), g in df.groupby(["rater_id", "rubric"], sort=True):
        g = g[g["relative"].notna()]
        last = g["week_no"].max() if len(g) else 0
        early = g.loc[g["week_no"] < EARLY_WEEKS, "relative"]
        late = g.loc[g["week_no"] > last - LATE_WEEKS, "relative"]
        if last < EARLY_WEEKS + LATE_WEEKS - 1 or len(early) < 2 or len(late) < 2:
            continue
        se = math.sqrt(early.var(ddof=1) / len(early) + late.var(ddof=1) / len(late))
        rows.append(
            {
                "rater_id": rater,
                "rubric": rubric,
                "dimension": "",
                "raw": float(early.mean() - late.mean()),
                "se": se,
                "n_tasks": len(early) + len(late),
                "evidence": f"Agreement with the other contractors, relative to the team's that week: {early.mean():+.0%} "
                f"in the first {EARLY_WEEKS} weeks ({len(early)} tasks), {late.mean():+.0%} in the last {LATE_WEEKS} "
                f"({len(late)} tasks).",
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
