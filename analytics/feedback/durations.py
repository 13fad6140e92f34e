"""Time per submission: each contractor's median seconds per submission per rubric, against the team's median."""

from __future__ import annotations

from collections.abc import Mapping

import duckdb
import pandas as pd

from analytics.agreement import team as tm
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.feedback.scope import subject_filter, subjects_filter


def contractor_durations(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Per contractor and rubric: submissions with a duration and their median and quartiles in seconds.

    A submission's duration comes from the submissions table, or for rating-only formats (canonical files)
    from its ratings (one duration per task and rater)."""
    where, params = filters.where_named()
    return Query(
        "contractor_durations",
        f"""WITH s AS (SELECT rater_id, rubric, duration_s FROM submissions
                       WHERE role = 'contractor' AND duration_s IS NOT NULL AND {where}
                       UNION ALL
                       SELECT rater_id, rubric, duration_s
                       FROM (SELECT rater_key, rubric, max(duration_s) AS duration_s FROM ratings
                             WHERE role = 'contractor' AND submission_id IS NULL AND duration_s IS NOT NULL AND {where}
                             GROUP BY task_key, rubric, rater_key)
                       JOIN rater_keys USING (rater_key))
            SELECT rater_id, rubric, count(*) AS submissions, median(duration_s) AS median_s,
                   quantile_cont(duration_s, 0.25) AS q1_s, quantile_cont(duration_s, 0.75) AS q3_s
            FROM s GROUP BY ALL ORDER BY ALL""",
        params,
    ).df(con)


DURATION_COLUMNS = ["rubric", "submissions", "median_s", "q1_s", "q3_s", "team_median_s", "team_contractors", "ratio"]


def own_durations(con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters) -> pd.DataFrame:
    """The contractor's contractor_durations rows (per rubric) under the filter."""
    own = contractor_durations(con, subject_filter(filters, contractor))
    return own[own["rater_id"] == contractor]


def every_own_durations(
    con: duckdb.DuckDBPyConnection, contractors: tuple[str, ...], filters: Filters
) -> dict[str, pd.DataFrame]:
    """own_durations of each of `contractors` from one query."""
    every = contractor_durations(con, subjects_filter(filters, contractors))
    by_rater = {str(c): g.reset_index(drop=True) for c, g in every.groupby("rater_id")}
    return {c: by_rater.get(c, every.iloc[:0]) for c in contractors}


def no_durations() -> pd.DataFrame:
    """The durations table of a contractor without timed submissions."""
    return pd.DataFrame(columns=DURATION_COLUMNS)


def durations_vs_team(own: pd.DataFrame, contractor: str, team_durations: pd.DataFrame) -> pd.DataFrame:
    """Per rubric: the contractor's submissions, median (and quartiles of) seconds per submission, the median of
    other contractors' medians, and the ratio of the two (below 1 = faster than the team), from the contractor's
    rows (own_durations) and every contractor's (`team_durations`: contractor_durations rows); the team median is
    analytics.agreement.team's."""
    if own.empty:
        return no_durations()
    med = tm.team_medians(team_durations, ("median_s",), (contractor,), "team_contractors", ("rubric",), "submissions")
    return _with_team(own, med, ["rubric"])[DURATION_COLUMNS].reset_index(drop=True)


def every_durations_vs_team(own: Mapping[str, pd.DataFrame], team_durations: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """durations_vs_team of each contractor of `own` (their own_durations rows, every_own_durations') at once: the
    team medians that leave each one out in one pass (agreement.team.team_medians_each), joined to every
    contractor's rows together."""
    who = tuple(own)
    frames = [rows for rows in own.values() if len(rows)]
    if not frames:
        return {c: no_durations() for c in who}
    med = tm.team_medians_each(team_durations, ("median_s",), who, "team_contractors", ("rubric",), "submissions")
    every = _with_team(pd.concat(frames, ignore_index=True), med, ["rater_id", "rubric"])
    by_rater = {str(c): g[DURATION_COLUMNS].reset_index(drop=True) for c, g in every.groupby("rater_id", sort=False)}
    return {c: by_rater[c] if c in by_rater else no_durations() for c in who}


def _with_team(own: pd.DataFrame, med: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Durations rows beside the team medians `med` (joined on `keys`), with the ratio of the two."""
    out = own.merge(med.rename(columns={"median_s": "team_median_s"}), on=keys, how="left")
    out["team_median_s"] = out["team_median_s"].astype(float)
    out["team_contractors"] = out["team_contractors"].fillna(0).astype(int)
    out["ratio"] = out["median_s"] / out["team_median_s"]
    return out
