"""What the store holds: volumes per rubric and week, raters, researcher coverage, incomplete and quarantined work."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics.agreement import anonymous as an
from analytics.agreement import pairs as pr
from analytics.filters import Filters


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
    contractor_tasks: int  # tasks the contractors the filter shows rated (pairs.py's subject side)
    paired_tasks: int  # of those, tasks where a researcher rated a same unit (the tasks agreement is measured on)
    incomplete_submissions: int  # under every filter but dimensions (a submission has none)
    quarantined_rows: int  # store-wide: a row that could not be read has no trustworthy rubric, rater or date
    files_loaded: int  # store-wide
    first_rating: dt.datetime | None
    last_rating: dt.datetime | None
    anonymous_positions: int  # label positions of files without rater ids: not people, so not among the raters


def summary(con: duckdb.DuckDBPyConnection, filters: Filters) -> Summary:
    """Headline counts over the filtered ratings and submissions, plus the store-wide quarantine and file counts."""
    where, params = filters.where()
    # A task is (task_id, rubric): tasks are counted per rubric (on the integer task key) and summed; raters
    # on their keys, over one small group per rater and role.
    r = con.execute(
        f"""WITH t AS (SELECT rubric, count(DISTINCT task_key) AS tasks FROM ratings WHERE {where} GROUP BY rubric),
                 k AS (SELECT rater_key, role, count(*) AS n, min(submitted_at) AS lo, max(submitted_at) AS hi
                       FROM ratings WHERE {where} GROUP BY rater_key, role)
            SELECT coalesce((SELECT sum(n) FROM k), 0), coalesce((SELECT sum(tasks) FROM t), 0),
                   count(DISTINCT rater_key) FILTER (WHERE NOT anonymous),
                   count(DISTINCT rater_key) FILTER (WHERE role = 'contractor' AND NOT anonymous),
                   count(DISTINCT rater_key) FILTER (WHERE role = 'researcher' AND NOT anonymous),
                   (SELECT count(*) FROM t), min(lo), max(hi), count(DISTINCT rater_key) FILTER (WHERE anonymous)
            FROM (SELECT k.*, starts_with(rater_id, ?) AS anonymous FROM k JOIN rater_keys USING (rater_key))""",
        params + params + [an.ANONYMOUS_PREFIX],
    ).fetchall()[0]
    contractor_tasks, paired_tasks = researcher_coverage(con, filters)
    share = paired_tasks / contractor_tasks if contractor_tasks else None
    sub_where, sub_params = submission_filter(filters)
    incomplete = con.execute(
        f"SELECT count(*) FROM submissions WHERE status NOT IN ('rated') AND {sub_where}", sub_params
    ).fetchall()[0][0]
    quarantined = con.execute("SELECT count(*) FROM quarantine").fetchall()[0][0]
    files = con.execute("SELECT count(*) FROM ingest_log").fetchall()[0][0]
    return Summary(
        ratings=int(r[0]),
        tasks=int(r[1]),
        raters=int(r[2]),
        contractors=int(r[3]),
        researchers=int(r[4]),
        rubrics=int(r[5]),
        researcher_share=share,
        contractor_tasks=contractor_tasks,
        paired_tasks=paired_tasks,
        incomplete_submissions=int(incomplete),
        quarantined_rows=int(quarantined),
        files_loaded=int(files),
        first_rating=r[6],
        last_rating=r[7],
        anonymous_positions=int(r[8]),
    )


def researcher_coverage(con: duckdb.DuckDBPyConnection, filters: Filters) -> tuple[int, int]:
    """Tasks the contractors rated and how many of them share a unit with a researcher, by the one pairing
    (analytics.agreement.pairs, contractor_vs_researcher): the rater filter chooses which contractors, dates
    select their ratings, researcher labels count whatever their date, the role filter does not apply."""
    sides = pr.comparison_sides(filters, "contractor_vs_researcher")
    df = pr.shared_tasks_query(sides).df(con)
    return int(df["subject_tasks"].sum()), int(df["paired_tasks"].sum())


def volume_by_rubric(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Ratings, tasks and raters per rubric and role."""
    where, params = filters.where()
    return con.execute(
        f"""SELECT rubric, role, count(*) AS ratings, count(DISTINCT task_key) AS tasks,
                   count(DISTINCT rater_key) AS raters
            FROM ratings WHERE {where} GROUP BY rubric, role ORDER BY rubric, role""",
        params,
    ).df()


def volume_by_week(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Ratings per ISO week, rubric and role (undated ratings are left out)."""
    where, params = filters.where()
    return con.execute(
        f"""WITH per_task AS (SELECT CAST(date_trunc('week', submitted_at) AS DATE) AS week, rubric, role, task_key,
                                     count(*) AS n
                              FROM ratings WHERE {where} AND submitted_at IS NOT NULL GROUP BY ALL)
            SELECT week, rubric, role, CAST(sum(n) AS BIGINT) AS ratings, count(*) AS tasks
            FROM per_task GROUP BY week, rubric, role ORDER BY week, rubric, role""",
        params,
    ).df()


def raters(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """One row per rater: role, rubrics, tasks and ratings, first and last activity, median time per submission
    (label positions of files without rater ids are nobody: Summary.anonymous_positions counts them)."""
    where, params = filters.where()
    return con.execute(
        f"""WITH per_task AS (SELECT rater_key, task_key, rubric, any_value(role) AS role, count(*) AS ratings,
                                     min(submitted_at) AS first_rating, max(submitted_at) AS last_rating,
                                     max(duration_s) AS duration_s
                              FROM ratings WHERE {where} GROUP BY rater_key, task_key, rubric),
                 per_rater AS (SELECT rater_key, any_value(role) AS role,
                                      string_agg(DISTINCT rubric, ', ' ORDER BY rubric) AS rubrics,
                                      count(*) AS tasks, CAST(sum(ratings) AS BIGINT) AS ratings,
                                      min(first_rating) AS first_rating, max(last_rating) AS last_rating,
                                      median(duration_s) AS median_duration_s
                               FROM per_task GROUP BY rater_key)
            SELECT rater_id, role, rubrics, tasks, ratings, first_rating, last_rating, median_duration_s
            FROM per_rater JOIN rater_keys USING (rater_key) WHERE NOT starts_with(rater_id, ?)
            ORDER BY role, rater_id""",
        params + [an.ANONYMOUS_PREFIX],
    ).df()


def submission_filter(filters: Filters) -> tuple[str, list]:
    """The filter's SQL condition on the submissions table: rubric, role, rater and date as on ratings (an undated
    submission passes a date filter, like an undated rating); a dimension filter does not apply to a submission."""
    return filters.but(dimensions=()).where()


def submission_status(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Submissions per rubric and status (rated, skipped, rejected, flagged, incomplete) under the filters."""
    where, params = submission_filter(filters)
    return con.execute(
        f"""SELECT rubric, status, count(*) AS submissions FROM submissions
            WHERE {where} GROUP BY ALL ORDER BY rubric, status""",
        params,
    ).df()


def filter_options(con: duckdb.DuckDBPyConnection) -> dict:
    """Values the shared sidebar offers: rubrics, raters with their role, and the date range."""
    rubrics = [
        r[0]
        for r in con.execute(
            """SELECT DISTINCT rubric FROM dimension_keys
               WHERE dim_key IN (SELECT DISTINCT dim_key FROM ratings) ORDER BY rubric"""
        ).fetchall()
    ]
    raters = con.execute("SELECT rater_id, any_value(role) FROM ratings GROUP BY rater_id ORDER BY rater_id").fetchall()
    lo, hi = con.execute("SELECT min(submitted_at), max(submitted_at) FROM ratings").fetchall()[0]
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
    return con.execute(
        """SELECT ingest_id, file_name, format, role_override, rows_read, rows_loaded, rows_quarantined,
                  tasks, submissions, loaded_at, content_hash
           FROM ingest_log ORDER BY ingest_id DESC"""
    ).df()


def quarantine(con: duckdb.DuckDBPyConnection, file_name: str | None = None, limit: int = 100_000) -> pd.DataFrame:
    """Quarantined rows with file, line or record, field, raw value and reason."""
    return con.execute(
        """SELECT file_name, line, record, field, raw_value, reason, ingest_id FROM quarantine
           WHERE (? IS NULL OR file_name = ?) ORDER BY ingest_id, line NULLS LAST LIMIT ?""",
        [file_name, file_name, limit],
    ).df()


def quarantine_by_reason(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Quarantined rows per file and field, for a quick picture of what goes wrong."""
    return con.execute(
        """SELECT file_name, coalesce(field, '(row)') AS field, count(*) AS rows FROM quarantine
           GROUP BY ALL ORDER BY rows DESC"""
    ).df()
