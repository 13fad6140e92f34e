"""What a labelling plan narrows: each contractor's exact agreement with researchers on the rubric's primary
dimension and its interval now (the Agreement page's and the Feedback ranking's figure), who is active, how many
tasks two researchers share per rubric (researcher-researcher agreement's), and the dimensions with too few shared tasks."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from analytics import agreement as ag
from analytics.core import rater_ids as an
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.describe.overview import rated_rubrics
from analytics.plan import widths
from analytics.review.disagreements import primary_dimension

STATISTIC = "exact_agreement"
USABLE_TASKS = ag.MIN_TASKS  # shared tasks from which an interval is usable: no small-n warning (agreement.rows)
ACTIVE_DAYS = 28  # a contractor who rated within this many days of the latest rating in scope is active
CEILING_TASKS = ag.MIN_TASKS  # tasks two researchers label per rubric for usable researcher-researcher agreement
UNKNOWN_P = 0.5  # the agreement a width is modelled at where a rubric has no shared task yet (the widest)
PRIOR_TASKS = ag.MIN_INTERVAL_TASKS  # the weight, in tasks, of the rubric's pooled agreement in a width forecast
N_BOOT = 1000  # the agreement report's setting; exact agreement's interval is Wilson's, resampling nothing
BEFORE_COLUMNS = ("rater_id", "rubric", "dimension", "n_tasks", "half_width", STATISTIC, "active", "usable")


@dataclass(frozen=True)
class Needs:
    """Everything a plan aims at, under one filter."""

    contractors: pd.DataFrame  # BEFORE_COLUMNS plus the width model's p and ratio, one row per contractor and rubric
    primary: dict[str, str]  # rubric -> its primary dimension
    ceiling: dict[str, int]  # rubric -> tasks with two or more researchers (any date)
    thin: dict[tuple[str, str], int]  # (rubric, dimension) with fewer than USABLE_TASKS shared tasks -> that number
    latest: dt.datetime | None  # the latest contractor rating in scope (recency is measured from it)

    def model(self, rater_id: str, rubric: str) -> widths.WidthModel:
        """The width model of one contractor in one rubric."""
        at: Any = self.contractors.at
        key = (rater_id, rubric)
        return widths.WidthModel(float(at[key, "p"]), float(at[key, "ratio"]), int(at[key, "n_tasks"]))


def scope(filters: Filters) -> Filters:
    """The contractors' filter a plan reads (rubric, raters, dates; the role and dimension filters apply apart)."""
    return filters.but(roles=(), dimensions=())


def plans_anyone(filters: Filters) -> bool:
    """Whether the filter leaves contractors to plan for (a role filter without contractors leaves none)."""
    return not filters.roles or "contractor" in filters.roles


def primary_of(con: duckdb.DuckDBPyConnection, filters: Filters) -> dict[str, str]:
    """Each rubric rated under the filter's rubric and dates, with its primary dimension."""
    rubrics = rated_rubrics(con, Filters(rubric=filters.rubric, date_from=filters.date_from, date_to=filters.date_to))
    return {r: d for r in rubrics if (d := primary_dimension(con, r))}


def activity_query(filters: Filters) -> Query:
    """Each contractor's latest rating per rubric under the filter (rater tasks kept at ingest)."""
    where, params = scope(filters).where_named()
    sql = f"""SELECT rater_id, rubric, max(submitted_at) AS last_at FROM rater_tasks
WHERE role = 'contractor' AND {where} GROUP BY rater_id, rubric"""
    return Query("plan_contractor_activity", sql, params)


def ceiling_query(rubrics: list[str]) -> Query:
    """Per rubric, the tasks two or more researchers rated (researcher-researcher agreement's tasks, the JSON's
    `ceiling`; any date)."""
    sql = """SELECT rubric, CAST(count(*) AS BIGINT) AS n_tasks FROM (
    SELECT task_key, rubric FROM rater_tasks WHERE role = 'researcher' AND list_contains($rubrics, rubric)
    GROUP BY task_key, rubric HAVING count(DISTINCT rater_key) >= 2)
GROUP BY rubric"""
    return Query("plan_ceiling_tasks", sql, {"rubrics": rubrics})


def coverage_query(filters: Filters, rubrics: list[str]) -> Query:
    """Per dimension the contractors rated under the filter, the tasks where a researcher rated a same unit."""
    where, params = scope(filters).where_named("c")
    dims = "" if not filters.dimensions else "AND list_contains($dimensions, c.dimension)"
    sql = f"""WITH rated AS (
    SELECT DISTINCT c.rubric, c.dimension FROM contractor_tasks c
    WHERE {where} AND list_contains($rubrics, c.rubric) {dims}),
shared AS (
    SELECT c.rubric, c.dimension, count(DISTINCT c.task_key) AS n_tasks FROM reference_tasks c
    WHERE c.role = 'contractor' AND {where} AND list_contains($rubrics, c.rubric) GROUP BY ALL)
SELECT r.rubric, r.dimension, CAST(coalesce(s.n_tasks, 0) AS BIGINT) AS n_tasks
FROM rated r LEFT JOIN shared s USING (rubric, dimension) ORDER BY 1, 2"""
    extra = {"dimensions": list(filters.dimensions)} if filters.dimensions else {}
    return Query("plan_dimension_coverage", sql, {**params, "rubrics": rubrics, **extra})


PRIMARY_DIMS = "primary_dims AS (SELECT unnest($rubrics) AS rubric, unnest($dimensions) AS dimension)"


def primary_params(primary: dict[str, str]) -> dict[str, list[str]]:
    """The parameters of PRIMARY_DIMS, the (rubric, primary dimension) pairs as a table in a query."""
    rubrics = sorted(primary)
    return {"rubrics": rubrics, "dimensions": [primary[r] for r in rubrics]}


def shared_tasks_query(filters: Filters, primary: dict[str, str]) -> Query:
    """Per contractor and rubric, the tasks shared with researchers on the rubric's primary dimension under the
    filter (reference tasks kept at ingest: what the interval's n_tasks counts, without its interval)."""
    where, params = scope(filters).where_named("c")
    sql = f"""WITH {PRIMARY_DIMS}
SELECT c.rater_id, c.rubric, count(DISTINCT c.task_key) AS n_tasks
FROM reference_tasks c JOIN primary_dims USING (rubric, dimension)
WHERE c.role = 'contractor' AND {where} GROUP BY c.rater_id, c.rubric"""
    return Query("plan_shared_tasks", sql, {**params, **primary_params(primary)})


def lacking(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """The active contractors without a usable interval under the filter (rater_id, rubric, n_tasks): the rows
    `needs` marks active and not usable, from two small queries (the Overview's link to the Plan page)."""
    primary = primary_of(con, filters) if plans_anyone(filters) else {}
    columns = ["rater_id", "rubric", "n_tasks"]
    if not primary:
        return pd.DataFrame(columns=columns)
    activity, latest = _activity(con, filters, primary)
    shared = shared_tasks_query(filters, primary).df(con)
    rows = activity.merge(shared, how="left", on=["rater_id", "rubric"])
    rows["n_tasks"] = rows["n_tasks"].fillna(0).astype("int64")
    short = _active(rows["last_at"], latest) & (rows["n_tasks"] < USABLE_TASKS)
    return rows.loc[short, columns].sort_values(["rubric", "rater_id"]).reset_index(drop=True)


def intervals(con: duckdb.DuckDBPyConnection, filters: Filters, primary: dict[str, str]) -> pd.DataFrame:
    """Every contractor's exact agreement with researchers on each rubric's primary dimension with its interval
    (agreement.rater_agreement, as the Agreement page and the Feedback ranking compute it) under the filter."""
    spec = ag.AgreementSpec(
        comparison="contractor_vs_researcher",
        n_boot=N_BOOT,
        filters=scope(filters).but(raters=(), dimensions=tuple(sorted(set(primary.values())))),
    )
    pairs = frozenset(primary.items())
    rows = ag.rater_agreement(con, spec, stats=(STATISTIC,), interval_dimensions=pairs)
    keep = [(r, d) in pairs for r, d in zip(rows["rubric"], rows["dimension"], strict=True)]
    rows = rows[np.array(keep, dtype=bool) & (rows["role"] == "contractor").to_numpy()]
    if filters.raters:
        rows = rows[rows["rater_id"].isin(filters.raters)]
    return rows[
        ["rater_id", "rubric", "dimension", "n_tasks", STATISTIC, f"{STATISTIC}_ci_low", f"{STATISTIC}_ci_high"]
    ]


def needs(con: duckdb.DuckDBPyConnection, filters: Filters) -> Needs:
    """What a plan under `filters` aims at (docs/plan.md)."""
    primary = primary_of(con, filters) if plans_anyone(filters) else {}
    rubrics = sorted(primary)
    empty = pd.DataFrame(columns=[*BEFORE_COLUMNS, "p", "ratio"]).set_index(["rater_id", "rubric"], drop=False)
    if not rubrics:
        return Needs(empty, primary, {}, {}, None)
    activity, latest = _activity(con, filters, primary)
    table = activity.merge(intervals(con, filters, primary), how="left", on=["rater_id", "rubric"])
    table["dimension"] = table["rubric"].map(primary)
    table["n_tasks"] = table["n_tasks"].fillna(0).astype("int64")
    table["half_width"] = (table[f"{STATISTIC}_ci_high"] - table[f"{STATISTIC}_ci_low"]) / 2
    table["active"] = _active(table["last_at"], latest)
    table["usable"] = usable(table["half_width"], table["n_tasks"])
    table = _with_models(table)
    table = table.sort_values(["rubric", "rater_id"]).set_index(["rater_id", "rubric"], drop=False)
    ceiling = {r: int(n) for r, n in ceiling_query(rubrics).rows(con)}
    coverage = coverage_query(filters, rubrics).df(con)
    thin = {
        (str(r), str(d)): int(n)
        for r, d, n in coverage[["rubric", "dimension", "n_tasks"]].itertuples(index=False)
        if n < USABLE_TASKS
    }
    return Needs(table[[*BEFORE_COLUMNS, "p", "ratio"]], primary, {r: ceiling.get(r, 0) for r in rubrics}, thin, latest)


def _activity(
    con: duckdb.DuckDBPyConnection, filters: Filters, primary: dict[str, str]
) -> tuple[pd.DataFrame, dt.datetime | None]:
    """Each contractor's latest rating per planned rubric (anonymous label positions left out: nobody to plan for),
    and the latest of all."""
    activity = activity_query(filters).df(con)
    activity = activity[activity["rubric"].isin(list(primary)) & ~activity["rater_id"].map(an.is_anonymous)]
    latest = activity["last_at"].max() if len(activity) else None
    return activity, None if latest is None or pd.isna(latest) else pd.Timestamp(latest).to_pydatetime()


def usable(half_width: pd.Series, n_tasks: pd.Series) -> pd.Series:
    """Whether each interval is usable: there is one, over at least USABLE_TASKS shared tasks."""
    return half_width.notna() & (n_tasks >= USABLE_TASKS)


def _active(last_at: pd.Series, latest: dt.datetime | None) -> pd.Series:
    """Whether each contractor rated within ACTIVE_DAYS of the latest rating (everyone, in undated data)."""
    if latest is None:
        return pd.Series(True, index=last_at.index)
    since = pd.Timestamp(latest) - pd.Timedelta(days=ACTIVE_DAYS)
    return last_at.isna() | (pd.to_datetime(last_at) >= since)


def _with_models(table: pd.DataFrame) -> pd.DataFrame:
    """The width model of each row (widths.WidthModel): a contractor with an interval keeps their design effect and
    their agreement pulled toward the rubric's pooled agreement as if that were PRIOR_TASKS tasks (2 agreeing of 2
    would otherwise forecast ±0.05 at 30 tasks: bench/bench_plan.py measured ±0.16); one without gets the rubric's
    pooled agreement and median design effect."""
    p = table[STATISTIC].astype(float)
    ratio = pd.Series(
        [
            widths.fitted(a, w, int(n)) if n > 0 and not math.isnan(w) else math.nan
            for a, w, n in zip(p, table["half_width"].astype(float), table["n_tasks"], strict=True)
        ],
        index=table.index,
        dtype=float,
    )
    has = ratio.notna()
    weight = table["n_tasks"].where(has, 0).astype(float)
    pooled = (p.fillna(0) * weight).groupby(table["rubric"]).sum() / weight.groupby(table["rubric"]).sum()
    median_ratio = ratio.groupby(table["rubric"]).median()
    team_p = table["rubric"].map(pooled).fillna(UNKNOWN_P)
    team_ratio = table["rubric"].map(median_ratio).fillna(1.0)
    n = table["n_tasks"].astype(float)
    shrunk = (n * p.fillna(0) + PRIOR_TASKS * team_p) / (n + PRIOR_TASKS)
    return table.assign(p=shrunk.where(has, team_p), ratio=ratio.where(has, team_ratio))
