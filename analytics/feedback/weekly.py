"""A contractor's agreement with researchers week by week, beside the team's weekly median, and its trend: the
first half of their weeks against the second. Pairs are (contractor rating, researcher rating) on a unit both
rated, as in analytics.agreement.pairing: a unit with two researcher labels gives two pairs."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pandas as pd

from analytics import agreement as ag
from analytics.agreement import intervals as iv
from analytics.agreement import pairing as pg
from analytics.agreement import sides as sd
from analytics.agreement import team as tm
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.feedback.scope import per_rater, subject_filter, subjects_filter, team_filter

WEEK_COLUMNS = (
    "rubric",
    "week",
    "n_pairs",
    "n_tasks",
    "exact_agreement",
    "ci_low",
    "ci_high",
    "coarse_agreement",
    "team_exact_agreement",
    "team_contractors",
    "small_n",
)


def weekly_pairs_query(sides: sd.Sides, by_task: bool) -> Query:
    """Pairs of the one pairing per rater, rubric and week of the subject's rating (and task, `by_task`): how
    many, how many agree exactly and how many on the coarse scale."""
    head, params = pg.pair_ctes(sides, carry=("submitted_at",), named=False)
    task_key, task_id, tasks = (", task_key", ", task_id", " JOIN task_keys USING (task_key)") if by_task else ("",) * 3
    # Pairs are counted per rater, dimension, week and confusion cell (on the integer keys), then each cell's
    # coarse agreement is read from its dimension's scale and the counts are named and summed per rubric. Only
    # submitted_at is carried: contractors against researchers then read the pairs kept at ingest
    # (pairs.KEPT_CARRY). Joining every pair to its scale's coarse levels instead would copy a list per pair.
    sql = f"""{head}, cells AS (
    SELECT key_a, dim_key, CAST(date_trunc('week', submitted_at_a) AS DATE) AS week{task_key}, index_a, index_b,
           count(*) AS n
    FROM pairs
    WHERE submitted_at_a IS NOT NULL
    GROUP BY ALL
), grouped AS (
    SELECT key_a, dim_key, week{task_key}, sum(n) AS n_pairs, sum(n) FILTER (WHERE index_a = index_b) AS agree,
           sum(n) FILTER (WHERE d.coarse[index_a + 1] = d.coarse[index_b + 1]) AS coarse_agree
    FROM cells JOIN (SELECT dim_key, coarse FROM dimension_keys JOIN dimensions USING (rubric, dimension)) d
         USING (dim_key)
    GROUP BY ALL
)
SELECT k.rater_id, rubric, week{task_id}, CAST(sum(n_pairs) AS BIGINT) AS n_pairs,
       CAST(coalesce(sum(agree), 0) AS BIGINT) AS agree, CAST(coalesce(sum(coarse_agree), 0) AS BIGINT) AS coarse_agree
FROM grouped JOIN dimension_keys USING (dim_key) JOIN (SELECT rater_key AS key_a, rater_id FROM rater_keys) k
     USING (key_a){tasks}
GROUP BY ALL
ORDER BY ALL"""
    return Query("weekly_pairs_by_task" if by_task else "weekly_pairs", sql, params)


def weekly_by_contractor(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Per contractor, rubric and week (Monday): pairs with a researcher and how many agreed exactly."""
    sides = sd.comparison_sides(team_filter(filters), "contractor_vs_researcher")
    return weekly_pairs_query(sides, by_task=False).df(con)


def weekly_by_task(con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters) -> pd.DataFrame:
    """One contractor's pairs per rubric, week and task (the task is the unit the bootstrap resamples)."""
    sides = sd.comparison_sides(subject_filter(filters, contractor), "contractor_vs_researcher")
    return weekly_pairs_query(sides, by_task=True).df(con).drop(columns="rater_id")


def every_weekly_by_task(
    con: duckdb.DuckDBPyConnection, contractors: tuple[str, ...], filters: Filters
) -> dict[str, pd.DataFrame]:
    """weekly_by_task of each of `contractors` from one query (each one's pairs are their own ratings')."""
    sides = sd.comparison_sides(subjects_filter(filters, contractors), "contractor_vs_researcher")
    every = weekly_pairs_query(sides, by_task=True).df(con)
    by_rater = {str(c): g.drop(columns="rater_id").reset_index(drop=True) for c, g in every.groupby("rater_id")}
    return {c: by_rater.get(c, every.iloc[:0].drop(columns="rater_id")) for c in contractors}


def own_weeks(by_task: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Per rubric and week: the contractor's exact agreement with researchers over every dimension, its 95%
    interval (Wilson at the effective tasks, their variance from the task bootstrap) and coarse agreement, from their per-task pair counts (weekly_by_task); without the
    team's columns (with_team_weeks adds them), so the Feedback page computes them alongside the team's."""
    rows = []
    all_agree, all_pairs = by_task["agree"].to_numpy(float), by_task["n_pairs"].to_numpy(float)
    all_coarse = by_task["coarse_agree"].to_numpy()
    for i, ((rubric, week), at) in enumerate(groups(by_task, ("rubric", "week"))):
        agree, pairs = all_agree[at], all_pairs[at]
        value = agree.sum() / pairs.sum()
        samples = iv.ratio_samples(agree, pairs, n_boot, np.random.default_rng([seed, i]))
        ci = iv.interval("exact_agreement", value, samples, len(at), n_boot, n_pairs=float(pairs.sum()))
        rows.append(
            {
                "rubric": rubric,
                "week": pd.Timestamp(week),
                "n_pairs": int(pairs.sum()),
                "n_tasks": len(at),
                "exact_agreement": value,
                "ci_low": ci.low,
                "ci_high": ci.high,
                "coarse_agreement": all_coarse[at].sum() / pairs.sum(),
                "small_n": len(at) < ag.MIN_TASKS,
            }
        )
    return pd.DataFrame(rows)


def groups(frame: pd.DataFrame, keys: tuple[str, ...]) -> list[tuple[tuple, np.ndarray]]:
    """The rows of each value of `keys`, as a pandas groupby(sort=True) gives them: the keys in sorted order, each
    one's row positions in the frame's order, rows with a missing key left out."""
    at: dict[tuple, list[int]] = {}
    for i, key in enumerate(zip(*(frame[k].tolist() for k in keys), strict=True)):
        if not any(pd.isna(k) for k in key):
            at.setdefault(key, []).append(i)
    return [(key, np.array(rows, dtype=int)) for key, rows in sorted(at.items())]


def team_week_medians(team_weekly: pd.DataFrame, contractor: str) -> pd.DataFrame:
    """Per rubric and week, the median of the other contractors' weekly exact agreement (`team_weekly`:
    weekly_by_contractor's rows)."""
    return tm.team_medians(_rates(team_weekly), WEEK_STAT, (contractor,), "team_contractors", WEEK_BY, "n_pairs")


def every_team_week_medians(team_weekly: pd.DataFrame, contractors: tuple[str, ...]) -> dict[str, pd.DataFrame]:
    """team_week_medians of each of `contractors` in one pass (agreement.team.team_medians_each)."""
    rates = _rates(team_weekly)
    each = tm.team_medians_each(rates, WEEK_STAT, contractors, "team_contractors", WEEK_BY, "n_pairs")
    return per_rater(each, contractors)


WEEK_STAT, WEEK_BY = ("team_exact_agreement",), ("rubric", "week")  # the team's weekly median: of what, per what


def _rates(team_weekly: pd.DataFrame) -> pd.DataFrame:
    """weekly_by_contractor's rows with each one's exact agreement."""
    return team_weekly.assign(team_exact_agreement=team_weekly["agree"] / team_weekly["n_pairs"])


def with_team_weeks(
    weeks: pd.DataFrame, contractor: str, team_weekly: pd.DataFrame, medians: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The contractor's weekly rows (`own_weeks`) with the median of the other contractors' weekly agreement
    (`team_weekly`: weekly_by_contractor's rows; `medians`: team_week_medians of the contractor, when computed
    beforehand)."""
    if weeks.empty:
        return pd.DataFrame(columns=list(WEEK_COLUMNS))
    med = team_week_medians(team_weekly, contractor) if medians is None else medians
    team = {
        (rubric, week): (value, n)
        for rubric, week, value, n in zip(
            med["rubric"].tolist(),
            pd.to_datetime(med["week"]).tolist(),
            med["team_exact_agreement"].tolist(),
            med["team_contractors"].tolist(),
            strict=True,
        )
    }
    found = [team.get(key, (math.nan, 0)) for key in zip(weeks["rubric"].tolist(), weeks["week"].tolist(), strict=True)]
    out = weeks.assign(team_exact_agreement=[float(v) for v, _ in found], team_contractors=[int(n) for _, n in found])
    return out[list(WEEK_COLUMNS)]


TREND_COLUMNS = (
    "rubric",
    "weeks",
    "early_weeks",
    "late_weeks",
    "early_tasks",
    "late_tasks",
    "early",
    "late",
    "change",
    "change_ci_low",
    "change_ci_high",
)


def early_late_trend(by_task: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Per rubric: pooled exact agreement in the first and the second half of the contractor's weeks with a
    researcher, and the change (late minus early) with its 95% task-bootstrap interval, from the contractor's
    per-task pair counts (weekly_by_task)."""
    rows = []
    agree, pairs, task = by_task["agree"].to_numpy(), by_task["n_pairs"].to_numpy(), by_task["task_id"].to_numpy()
    week_of = np.array(by_task["week"].tolist(), dtype=object)
    for i, ((rubric,), at) in enumerate(groups(by_task, ("rubric",))):
        weeks = sorted(set(week_of[at]))
        if len(weeks) < 2:
            continue
        half = len(weeks) // 2  # an odd middle week is left out
        first, last = set(weeks[:half]), set(weeks[len(weeks) - half :])
        early = at[[w in first for w in week_of[at]]]
        late = at[[w in last for w in week_of[at]]]
        e = agree[early].sum() / pairs[early].sum()
        lt = agree[late].sum() / pairs[late].sum()
        rng = np.random.default_rng([seed, 1_000 + i])
        be = iv.ratio_samples(agree[early].astype(float), pairs[early].astype(float), n_boot, rng)
        bl = iv.ratio_samples(agree[late].astype(float), pairs[late].astype(float), n_boot, rng)
        n_early, n_late = len(set(task[early])), len(set(task[late]))
        change = bl - be if be.size and bl.size else np.empty(0)
        lo, hi, _ = iv.difference_interval(e, n_early, lt, n_late, change, ag.MIN_TASKS) if n_boot else (math.nan,) * 3
        rows.append(
            {
                "rubric": rubric,
                "weeks": len(weeks),
                "early_weeks": f"{pd.Timestamp(weeks[0]):%Y-%m-%d} to {pd.Timestamp(weeks[half - 1]):%Y-%m-%d}",
                "late_weeks": f"{pd.Timestamp(weeks[len(weeks) - half]):%Y-%m-%d} to {pd.Timestamp(weeks[-1]):%Y-%m-%d}",
                "early_tasks": int(n_early),
                "late_tasks": int(n_late),
                "early": float(e),
                "late": float(lt),
                "change": float(lt - e),
                "change_ci_low": lo,
                "change_ci_high": hi,
            }
        )
    return pd.DataFrame(rows, columns=list(TREND_COLUMNS))
