"""Whom and what a feedback report covers: the contractor's filter and the team's, the rubrics the contractor
rated, the dimensions of those rubrics, the contractor's span of ratings, and rubric titles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb
import pandas as pd

from analytics.agreement.spec import AgreementSpec
from analytics.alarms.review import scope as review_scope
from analytics.core import rubrics
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.describe.distributions import dimensions
from analytics.describe.overview import rated_rubrics
from analytics.store.derived import rater_tasks

NO_FILTERS = Filters()


def against_researchers(filters: Filters, n_boot: int = 0, seed: int = 0) -> AgreementSpec:
    """The agreement request behind a feedback figure: the filter's raters against researchers."""
    return AgreementSpec(comparison="contractor_vs_researcher", n_boot=n_boot, seed=seed, filters=filters)


def subject_filter(filters: Filters, contractor: str) -> Filters:
    """The filter restricted to one contractor (rubric and dates kept; roles and other raters dropped)."""
    return filters.but(raters=(contractor,), roles=(), dimensions=())


def subjects_filter(filters: Filters, contractors: tuple[str, ...]) -> Filters:
    """subject_filter for many contractors at once (their figures are then split per contractor)."""
    return filters.but(raters=contractors, roles=(), dimensions=())


def team_filter(filters: Filters) -> Filters:
    """The filter over every rater (rubric and dates kept): the team's over every role and dimension, the team an
    alarm review tests (analytics.alarms.review.scope)."""
    return review_scope(filters)


def contractor_rubrics(con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters) -> tuple[str, ...]:
    """The rubrics the contractor has ratings in, under the filter."""
    return tuple(rated_rubrics(con, subject_filter(filters, contractor)))


def each_contractors_rubrics(
    con: duckdb.DuckDBPyConnection, contractors: tuple[str, ...], filters: Filters
) -> dict[str, tuple[str, ...]]:
    """contractor_rubrics of each of `contractors` from one query (rated_rubrics_query's rows, per rater)."""
    where, params = subjects_filter(filters, contractors).where_named("r")
    sql = f"SELECT DISTINCT r.rater_id, r.rubric FROM level_counts r WHERE {where} ORDER BY 1, 2"
    found: dict[str, list[str]] = {}
    for rater, rubric in Query("each_contractors_rubrics", sql, params).rows(con) if contractors else []:
        found.setdefault(rater, []).append(rubric)
    return {c: tuple(found.get(c, ())) for c in contractors}


def every_contractors_rubrics(
    con: duckdb.DuckDBPyConnection, contractors: tuple[str, ...], filters: Filters
) -> tuple[str, ...]:
    """The rubrics any of the contractors has ratings in, under the filter."""
    return tuple(rated_rubrics(con, subjects_filter(filters, contractors))) if contractors else ()


Catalogue = Mapping[str, pd.DataFrame]  # rubric -> describe.distributions.dimensions, read once for many reports


def catalogue(con: duckdb.DuckDBPyConnection, rubric_names: tuple[str, ...]) -> dict[str, pd.DataFrame]:
    """The dimensions of each of the rubrics (describe.distributions.dimensions), to share between reports."""
    return {r: dimensions(con, r) for r in rubric_names}


def rubric_dimensions(con: duckdb.DuckDBPyConnection, rubric: str, known: Catalogue | None = None) -> pd.DataFrame:
    """The rubric's dimensions: from `known` when it has them, else from the store."""
    return known[rubric] if known is not None and rubric in known else dimensions(con, rubric)


def dimension_info(
    con: duckdb.DuckDBPyConnection, rubric_names: tuple[str, ...], known: Catalogue | None = None
) -> pd.DataFrame:
    """Label, primary flag and catalogue order of every dimension of the given rubrics (`known`: catalogue's)."""
    frames = []
    for r in rubric_names:
        d = rubric_dimensions(con, r, known)
        frames.append(
            d.assign(rubric=r, dimension_label=d["label"])[
                ["rubric", "dimension", "dimension_label", "is_primary", "dimension_order"]
            ]
        )
    if not frames:
        return pd.DataFrame(columns=["rubric", "dimension", "dimension_label", "is_primary", "dimension_order"])
    return pd.concat(frames, ignore_index=True)


def per_rater(each: pd.DataFrame, contractors: tuple[str, ...]) -> dict[str, pd.DataFrame]:
    """Rows of many raters (`rater_id` first, as agreement.team.team_medians_each gives them) split per rater without
    `rater_id`; a rater without rows gets an empty frame of the other columns, as team_medians gives."""
    columns = [c for c in each.columns if c != "rater_id"]
    by_rater = {str(r): g[columns].reset_index(drop=True) for r, g in each.groupby("rater_id", sort=False)}
    return {c: by_rater[c] if c in by_rater else pd.DataFrame(columns=columns) for c in contractors}


def span_query(contractor: str, filters: Filters) -> Query:
    """The contractor's number of ratings and first and last rating time under the filter, from the rater tasks
    kept at ingest (analytics/store/derived/rater_tasks.py; the ratings when those cannot answer the filter)."""
    f = subject_filter(filters, contractor)
    where, params = f.where_named()
    table, n = ("rater_tasks", "sum(n_ratings)") if rater_tasks.answers(f) else ("ratings", "count(*)")
    sql = f"""SELECT CAST(coalesce({n}, 0) AS BIGINT), min(submitted_at), max(submitted_at)
FROM {table} WHERE role = 'contractor' AND {where}"""
    return Query("contractor_span", sql, params)


def every_span(
    con: duckdb.DuckDBPyConnection, contractors: tuple[str, ...], filters: Filters
) -> dict[str, tuple[int, Any, Any]]:
    """span_query's row (ratings, first and last rating time) of each of `contractors` from one query."""
    f = subjects_filter(filters, contractors)
    where, params = f.where_named()
    table, n = ("rater_tasks", "sum(n_ratings)") if rater_tasks.answers(f) else ("ratings", "count(*)")
    sql = f"""SELECT rater_id, CAST(coalesce({n}, 0) AS BIGINT), min(submitted_at), max(submitted_at)
FROM {table} WHERE role = 'contractor' AND {where} GROUP BY rater_id"""
    found = (
        {r: (n, a, b) for r, n, a, b in Query("every_contractor_span", sql, params).rows(con)} if contractors else {}
    )
    return {c: found.get(c, (0, None, None)) for c in contractors}


def rubric_title(name: str) -> str:
    """A rubric's title from the catalogue (its name when uncatalogued)."""
    r = rubrics.get_rubric(name)
    return r.title if r else name
