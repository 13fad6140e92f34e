"""What the store holds: volumes per rubric and week, raters, researcher coverage, incomplete and quarantined work."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import duckdb
import pandas as pd
from pandas.api.typing import NaTType

from analytics.agreement.pairing import shared_tasks_query
from analytics.agreement.sides import comparison_sides
from analytics.core import rater_ids as an
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.store import keys
from analytics.store.derived import rater_tasks


@dataclass(frozen=True)
class Summary:
    """Headline counts for the Overview page."""

    ratings: int
    tasks: int
    raters: int
    contractors: int
    researchers: int
    rubrics: int
    researcher_share: float | None  # paired_tasks / contractor_tasks (None when no contractor task)
    contractor_tasks: int  # tasks the contractors the filter shows rated (sides.py's subject side)
    paired_tasks: int  # of those, tasks where a researcher rated a same unit (the tasks agreement is measured on)
    incomplete_submissions: int  # under every filter but dimensions (a submission has none)
    quarantined_rows: int  # store-wide: a row that could not be read has no trustworthy rubric, rater or date
    files_loaded: int  # store-wide
    first_rating: dt.datetime | None
    last_rating: dt.datetime | None
    anonymous_positions: int  # label positions of files without rater ids: not people, so not among the raters


def activity_query(filters: Filters, bound: dict[str, int], kept: bool = True) -> Query:
    """One pass over the filtered rater tasks kept at ingest (analytics/store/derived/rater_tasks.py; the ratings under a
    dimension filter or without `kept`), grouped per rater, role, rubric and task, then read four ways (`part`):
    per rubric and role (ratings, tasks, raters), per rubric (tasks), per rater and role (ratings, first and last
    rating, whether the id is an anonymous label position) and per rater (the Overview's rater table: a task's
    duration is its longest rating's; a rater who rated one task under both roles counts it once per role).
    `bound` is keys.task_key_bound's."""
    where, params = filters.where_named("r")
    tasks = keys.distinct_tasks("task_key")
    if kept and rater_tasks.answers(filters):
        per_task = f"""per_task AS NOT MATERIALIZED (
    -- the rater tasks kept at ingest; a task rated at several times is merged (each reading scans the table)
    SELECT r.rater_key, r.role, r.rubric, r.task_key, r.n_ratings AS n, r.submitted_at AS lo, r.submitted_at AS hi,
           r.duration_s
    FROM rater_tasks r WHERE r.one_row AND {where}
    UNION ALL
    SELECT r.rater_key, r.role, r.rubric, r.task_key, sum(r.n_ratings), min(r.submitted_at), max(r.submitted_at),
           max(r.duration_s)
    FROM rater_tasks r WHERE NOT r.one_row AND {where} GROUP BY r.rater_key, r.role, r.rubric, r.task_key)"""
    else:
        per_task = f"""per_task AS MATERIALIZED (
    SELECT r.rater_key, r.role, r.rubric, r.task_key, count(*) AS n, min(r.submitted_at) AS lo,
           max(r.submitted_at) AS hi, max(r.duration_s) AS duration_s
    FROM ratings r WHERE {where} GROUP BY r.rater_key, r.role, r.rubric, r.task_key)"""
    sql = f"""WITH {per_task}
SELECT 'rubric_role' AS part, rubric, role, sum(n) AS ratings, {tasks} AS tasks, count(DISTINCT rater_key) AS raters
FROM per_task GROUP BY rubric, role
UNION ALL BY NAME
SELECT 'rubric' AS part, rubric, {tasks} AS tasks FROM per_task GROUP BY rubric
UNION ALL BY NAME
SELECT 'rater_role' AS part, p.rater_key, p.role, sum(p.n) AS ratings, min(p.lo) AS first_rating,
       max(p.hi) AS last_rating, starts_with(any_value(k.rater_id), $anonymous) AS anonymous
FROM per_task p JOIN rater_keys k USING (rater_key) GROUP BY p.rater_key, p.role
UNION ALL BY NAME
SELECT 'rater' AS part, k.rater_id, t.role, t.rubrics, t.tasks, t.ratings, t.first_rating, t.last_rating,
       t.median_duration_s
FROM (SELECT rater_key, any_value(role) AS role, string_agg(DISTINCT rubric, ', ' ORDER BY rubric) AS rubrics,
             count(*) AS tasks, sum(n) AS ratings, min(lo) AS first_rating, max(hi) AS last_rating,
             median(duration_s) AS median_duration_s
      FROM per_task GROUP BY rater_key) t
JOIN rater_keys k USING (rater_key) WHERE NOT starts_with(k.rater_id, $anonymous)"""
    return Query("overview_activity", sql, {**params, **bound, "anonymous": an.ANONYMOUS_PREFIX})


@dataclass(frozen=True)
class Activity:
    """activity_query's four readings (the headline counts, volumes per rubric and role, the raters) and the
    submissions per status the headline's incomplete count is read from."""

    summary: Summary
    by_rubric: pd.DataFrame
    raters: pd.DataFrame
    status: pd.DataFrame


def activity(con: duckdb.DuckDBPyConnection, filters: Filters) -> Activity:
    """The Overview's summary, volume per rubric and rater table from one pass over the ratings."""
    df = keys.counted_tasks(con, lambda bound: activity_query(filters, bound))
    part = {name: rows.drop(columns="part") for name, rows in df.groupby("part", sort=False)}
    empty = df.iloc[0:0].drop(columns="part")
    by_role = part.get("rubric_role", empty)
    by_rubric = by_role[["rubric", "role", "ratings", "tasks", "raters"]].astype(
        {"ratings": "int64", "tasks": "int64", "raters": "int64"}
    )
    people = part.get("rater", empty)[RATER_COLUMNS].astype({"tasks": "int64", "ratings": "int64"})
    status = submission_status(con, filters)
    return Activity(
        summary=_summary(con, filters, part.get("rater_role", empty), part.get("rubric", empty), status),
        by_rubric=by_rubric.sort_values(["rubric", "role"]).reset_index(drop=True),
        raters=people.sort_values(["role", "rater_id"]).reset_index(drop=True),
        status=status,
    )


RATER_COLUMNS = ["rater_id", "role", "rubrics", "tasks", "ratings", "first_rating", "last_rating", "median_duration_s"]


def _summary(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    by_rater: pd.DataFrame,
    by_rubric: pd.DataFrame,
    status: pd.DataFrame,
) -> Summary:
    """Summary from activity_query's per rater and role and per rubric rows and the submissions per status, plus the
    coverage and store-wide counts."""
    named = by_rater[~by_rater["anonymous"].astype(bool)]
    contractor_tasks, paired_tasks = researcher_coverage(con, filters)
    share = paired_tasks / contractor_tasks if contractor_tasks else None
    incomplete = status.loc[status["status"].notna() & (status["status"] != "rated"), "submissions"].sum()
    quarantined, files = STORE_COUNTS.rows(con)[0]
    return Summary(
        ratings=int(by_rater["ratings"].sum()),
        tasks=int(by_rubric["tasks"].sum()),
        raters=int(named["rater_key"].nunique()),
        contractors=int(named.loc[named["role"] == "contractor", "rater_key"].nunique()),
        researchers=int(named.loc[named["role"] == "researcher", "rater_key"].nunique()),
        rubrics=len(by_rubric),
        researcher_share=share,
        contractor_tasks=contractor_tasks,
        paired_tasks=paired_tasks,
        incomplete_submissions=int(incomplete),
        quarantined_rows=int(quarantined),
        files_loaded=int(files),
        first_rating=_timestamp(by_rater["first_rating"].min()),
        last_rating=_timestamp(by_rater["last_rating"].max()),
        anonymous_positions=int(by_rater.loc[by_rater["anonymous"].astype(bool), "rater_key"].nunique()),
    )


def _timestamp(value: pd.Timestamp | NaTType) -> dt.datetime | None:
    """A pandas minimum or maximum as a datetime (None when there was no dated rating)."""
    return None if pd.isna(value) else pd.Timestamp(value).to_pydatetime()


STORE_COUNTS = Query(
    "store_counts",
    "SELECT (SELECT count(*) FROM quarantine) AS quarantined, (SELECT count(*) FROM ingest_log) AS files",
)


def summary(con: duckdb.DuckDBPyConnection, filters: Filters) -> Summary:
    """Headline counts over the filtered ratings and submissions, plus the store-wide quarantine and file counts."""
    return activity(con, filters).summary


def researcher_coverage(con: duckdb.DuckDBPyConnection, filters: Filters) -> tuple[int, int]:
    """Tasks the contractors rated and how many of them share a unit with a researcher, by the one pairing
    (analytics.agreement.sides, contractor_vs_researcher): the rater filter chooses which contractors, dates
    select their ratings, researcher labels count whatever their date, the role filter does not apply."""
    sides = comparison_sides(filters, "contractor_vs_researcher")
    df = keys.counted_tasks(con, lambda bound: shared_tasks_query(sides, bound))
    return int(df["subject_tasks"].sum()), int(df["paired_tasks"].sum())


def volume_by_rubric(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Ratings, tasks and raters per rubric and role."""
    return activity(con, filters).by_rubric


def rated_rubrics_query(filters: Filters) -> Query:
    """The rubrics with ratings under the filter, in order (from the level counts kept at ingest)."""
    where, params = filters.where_named("r")
    return Query("rated_rubrics", f"SELECT DISTINCT r.rubric FROM level_counts r WHERE {where} ORDER BY 1", params)


def rated_rubrics(con: duckdb.DuckDBPyConnection, filters: Filters) -> list[str]:
    """rated_rubrics_query's rubrics."""
    return [r for (r,) in rated_rubrics_query(filters).rows(con)]


def volume_by_week_query(filters: Filters, bound: dict[str, int], kept: bool = True) -> Query:
    """Ratings and tasks per ISO week, rubric and role (undated ratings are left out), from the rater tasks kept
    at ingest (the ratings under a dimension filter or without `kept`). `bound` is keys.task_key_bound's."""
    where, params = filters.where_named("r")
    table, n = ("rater_tasks", "sum(r.n_ratings)") if kept and rater_tasks.answers(filters) else ("ratings", "count(*)")
    sql = f"""SELECT CAST(date_trunc('week', r.submitted_at) AS DATE) AS week, r.rubric, r.role,
       CAST({n} AS BIGINT) AS ratings, {keys.distinct_tasks("r.task_key")} AS tasks
FROM {table} r WHERE {where} AND r.submitted_at IS NOT NULL
GROUP BY ALL ORDER BY week, rubric, role"""
    return Query("overview_volume_by_week", sql, {**params, **bound})


def volume_by_week(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Ratings per ISO week, rubric and role (undated ratings are left out)."""
    return keys.counted_tasks(con, lambda bound: volume_by_week_query(filters, bound))


def raters(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """One row per rater: role, rubrics, tasks and ratings, first and last activity, median time per submission
    (label positions of files without rater ids are nobody: Summary.anonymous_positions counts them)."""
    return activity(con, filters).raters


def submission_status_query(filters: Filters) -> Query:
    """Submissions per rubric and status (rated, skipped, rejected, flagged, incomplete) under the filters: rubric,
    role, rater and date as on ratings (an undated submission passes a date filter, like an undated rating); a
    dimension filter does not apply to a submission."""
    where, params = filters.but(dimensions=()).where_named("s")
    sql = f"""SELECT s.rubric, s.status, count(*) AS submissions FROM submissions s
WHERE {where} GROUP BY ALL ORDER BY rubric, status"""
    return Query("overview_submission_status", sql, params)


def submission_status(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Submissions per rubric and status (rated, skipped, rejected, flagged, incomplete) under the filters."""
    return submission_status_query(filters).df(con)


RATED_RUBRICS = Query(
    "rated_rubrics",
    "SELECT DISTINCT rubric FROM dimension_keys WHERE dim_key IN (SELECT DISTINCT dim_key FROM ratings) ORDER BY rubric",
)
RATER_ROLES = Query("rater_roles", "SELECT rater_id, any_value(role) FROM ratings GROUP BY rater_id ORDER BY rater_id")
DATE_RANGE = Query("rating_dates", "SELECT min(submitted_at), max(submitted_at) FROM ratings")
INGEST_LOG = Query(
    "ingest_log",
    """SELECT ingest_id, file_name, format, role_override, rows_read, rows_loaded, rows_quarantined,
              tasks, submissions, loaded_at, content_hash
       FROM ingest_log ORDER BY ingest_id DESC""",
)
QUARANTINE_BY_REASON = Query(
    "quarantine_by_reason",
    """SELECT file_name, coalesce(field, '(row)') AS field, count(*) AS rows FROM quarantine
       GROUP BY ALL ORDER BY rows DESC""",
)


def filter_options(con: duckdb.DuckDBPyConnection) -> dict:
    """Values the shared sidebar offers: rubrics, raters with their role, and the date range."""
    rubrics = [r[0] for r in RATED_RUBRICS.rows(con)]
    raters = RATER_ROLES.rows(con)
    lo, hi = DATE_RANGE.rows(con)[0]
    return {
        "rubrics": rubrics,
        "raters": [r[0] for r in raters],
        "rater_roles": dict(raters),
        # People a report can be about: positions in label lists without rater ids are nobody (anonymous.py).
        "contractors": [r for r, role in raters if role == "contractor" and not an.is_anonymous(r)],
        "date_min": lo.date() if lo else None,
        "date_max": hi.date() if hi else None,
    }


def ingest_log(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every file loaded, newest first."""
    return INGEST_LOG.df(con)


QUARANTINE_ROWS = Query(
    "quarantine_rows",
    """SELECT file_name, line, record, field, raw_value, reason, ingest_id FROM quarantine
       WHERE ($file_name IS NULL OR file_name = $file_name) ORDER BY ingest_id, line NULLS LAST LIMIT $limit""",
)


def quarantine(con: duckdb.DuckDBPyConnection, file_name: str | None = None, limit: int = 100_000) -> pd.DataFrame:
    """Quarantined rows with file, line or record, field, raw value and reason."""
    return QUARANTINE_ROWS.bind(file_name=file_name, limit=limit).df(con)


def quarantine_by_reason(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Quarantined rows per file and field, for a quick picture of what goes wrong."""
    return QUARANTINE_BY_REASON.df(con)
