"""Effects read from how a contractor uses an ordered absolute scale: leniency and severity (their signed
difference from researchers, or from the other contractors where researchers rarely rated with them), central
tendency (how often they keep to the inner levels) and halo (how little their ratings of one item vary across
the rubric's dimensions)."""

from __future__ import annotations

import pandas as pd

from analytics.agreement.rows import MIN_TASKS
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.effects.rows import KEYS, finish, share_floor, sums_stats_sql
from analytics.store.derived import contractor_tasks

# Ordered absolute dimensions (contractor_tasks.ORDERED says which and why).
ORDERED = f"""ordered AS (SELECT k.dim_key, rubric, dimension, levels, level_values, len(levels) AS q
                         FROM dimensions JOIN dimension_keys k USING (rubric, dimension)
                         WHERE {contractor_tasks.ORDERED})"""


def researcher_shift_query(filters: Filters) -> Query:
    """Per contractor and ordered absolute dimension, over tasks: the task's mean of their value minus the
    researchers' on the same unit (kept pairs), as task_means rows; from the sums kept per day
    (analytics/store/derived/contractor_days.py), not the kept pairs grouped per task."""
    where, params = filters.but(roles=()).where_named("t")
    return Query(
        "effects_researcher_shift",
        f"""WITH {ORDERED},
days AS (
    SELECT t.rater_key, t.dim_key, sum(t.researcher_tasks) AS n, sum(t.researcher_s1) AS s1,
           sum(t.researcher_s2) AS s2
    FROM contractor_days t JOIN ordered o USING (dim_key)
    WHERE {where} AND t.researcher_tasks > 0
    GROUP BY t.rater_key, t.dim_key),
stats AS (SELECT rater_key, dim_key, {sums_stats_sql("n", "s1", "s2")} FROM days)
SELECT rater_id, rubric, dimension, raw, se, n_tasks FROM stats {NAMED}
ORDER BY rater_id, rubric, dimension""",
        params,
    )


NAMED = "JOIN rater_keys USING (rater_key) JOIN dimension_keys USING (dim_key)"  # keys to rater_id, rubric, dimension


def kept_levels_query(filters: Filters) -> Query:
    """Per contractor and ordered absolute dimension, over their tasks, from the sums kept per day
    (analytics/store/derived/contractor_days.py), not every contractor task grouped:
    - central tendency: the share of their ratings at inner levels per task, over tasks (raw, se, n_tasks), and the
      variance of their values beside all contractors' (`variance`, `team_variance`: sample variances from the
      kept sums);
    - consensus shift: the task's mean of their value minus the other contractors' mean on the same unit
      (leave-self-out, units another contractor rated, whatever that one's date), over the tasks where another
      contractor rated (shift_raw, shift_se, shift_n_tasks; 0 tasks: no such unit)."""
    where, params = filters.but(roles=("contractor",)).where_named("t")
    sql = f"""WITH {ORDERED},
days AS (
    SELECT t.rater_key, t.dim_key, sum(t.tasks) AS tasks, sum(t.inner_s1) AS i1, sum(t.inner_s2) AS i2,
           sum(t.shift_tasks) AS shift_tasks, sum(t.shift_s1) AS h1, sum(t.shift_s2) AS h2,
           sum(t.n_ratings) AS n, sum(t.v_sum) AS s1, sum(t.v_sq) AS s2
    FROM contractor_days t JOIN ordered o USING (dim_key) WHERE {where}
    GROUP BY t.rater_key, t.dim_key),
own AS (SELECT rater_key, dim_key, {sums_stats_sql("tasks", "i1", "i2")},
               {sums_stats_sql("shift_tasks", "h1", "h2", "shift_")}, n, s1, s2 FROM days),
team AS (SELECT dim_key, sum(n) AS n, sum(s1) AS s1, sum(s2) AS s2 FROM own GROUP BY ALL)
SELECT rater_id, rubric, dimension, raw, se, n_tasks,
       CASE WHEN own.n > 1 THEN (own.s2 - own.s1 * own.s1 / own.n) / (own.n - 1) END AS variance,
       CASE WHEN team.n > 1 THEN (team.s2 - team.s1 * team.s1 / team.n) / (team.n - 1) END AS team_variance,
       shift_raw, shift_se, shift_n_tasks
FROM own JOIN team USING (dim_key) {NAMED}
ORDER BY rater_id, rubric, dimension"""
    return Query("effects_kept_levels", sql, params)


STATS = ["raw", "se", "n_tasks"]  # sums_stats_sql's columns


def central_stats(kept: pd.DataFrame) -> pd.DataFrame:
    """kept_levels_query's central tendency columns (task_means rows with variance and team_variance)."""
    return kept[[*KEYS, *STATS, "variance", "team_variance"]].reset_index(drop=True)


def consensus_stats(kept: pd.DataFrame) -> pd.DataFrame:
    """kept_levels_query's consensus shift as task_means rows (contractors with a task another one rated)."""
    shift = {f"shift_{c}": c for c in STATS}
    rows = kept.loc[kept["shift_n_tasks"] > 0, [*KEYS, *shift]]
    return rows.rename(columns=shift).reset_index(drop=True)


def halo_query(filters: Filters) -> Query:
    """Per contractor and rubric, over tasks: the task's mean spread (sample standard deviation) of one item's
    scale positions (value_index / (q - 1)) across the rubric's ordered dimensions, items rated on three or more
    (kept per task in contractor_rubric_tasks, analytics/store/derived/contractor_tasks.py; every ordered dimension of the
    rubric, whatever dimensions the filter selects)."""
    where, params = filters.but(roles=("contractor",), dimensions=()).where_named("t")
    # from the sums kept per day (analytics/store/derived/contractor_days.py)
    sql = f"""WITH days AS (
    SELECT t.rater_key, t.rubric, sum(t.halo_n) AS n, sum(t.halo_s1) AS s1, sum(t.halo_s2) AS s2
    FROM contractor_rubric_days t WHERE {where} AND t.halo_n > 0 GROUP BY t.rater_key, t.rubric),
stats AS (SELECT rater_key, rubric, {sums_stats_sql("n", "s1", "s2")} FROM days)
SELECT rater_id, rubric, '' AS dimension, raw, se, n_tasks FROM stats JOIN rater_keys USING (rater_key)
ORDER BY rater_id, rubric"""
    return Query("effects_halo", sql, params)


def shift_rows(researchers: pd.DataFrame, by_team: pd.DataFrame) -> pd.DataFrame:
    """Leniency rows (raw = mean signed difference per task, + = more lenient): from researchers
    (researcher_shift_query's rows) where the contractor shares at least MIN_TASKS tasks with them, else from the
    other contractors' mean (`by_team`: consensus_stats' rows)."""
    by_ref = researchers.assign(basis="researchers") if len(researchers) else None
    by_others = by_team.assign(basis="consensus") if len(by_team) else None
    parts = [p for p in (by_ref, by_others) if p is not None]
    if not parts:
        return pd.DataFrame()
    both = pd.concat(parts, ignore_index=True)
    use_ref = both["basis"].eq("researchers") & both["n_tasks"].ge(MIN_TASKS)
    enough = use_ref.groupby([both[c] for c in ("rater_id", "rubric", "dimension")]).transform("any")
    chosen = both[(both["basis"] == "researchers") == enough].copy()
    chosen["evidence"] = [
        f"Mean difference {r:+.2f} scale points per task from the {'researchers' if b == 'researchers' else 'other contractors'}"
        f" over {n} tasks."
        for r, b, n in zip(chosen["raw"], chosen["basis"], chosen["n_tasks"], strict=True)
    ]
    lenient = finish(chosen, "leniency", "high", "levels", chosen["basis"])
    return pd.concat([lenient, lenient.assign(effect="severity", bad_side="low")], ignore_index=True)


def central_rows(stats: pd.DataFrame) -> pd.DataFrame:
    """Central tendency rows from central_stats' rows: share of a contractor's ratings at the scale's inner levels
    (neither end), per task then over tasks; the evidence gives their variance against the other contractors'."""
    rows = share_floor(stats)
    ratio = rows["variance"] / rows["team_variance"]
    rows["evidence"] = [
        f"{s:.0%} of ratings at inner levels over {n} tasks; ratings vary {v:.2f} times as much as all "
        "contractors' ratings together (variance)."
        for s, n, v in zip(rows["raw"], rows["n_tasks"], ratio, strict=True)
    ]
    return finish(rows.drop(columns=["variance", "team_variance"]), "central_tendency", "high", "share", "own ratings")


def halo_rows(stats: pd.DataFrame) -> pd.DataFrame:
    """Halo rows (per rubric, dimension '') from halo_query's rows: a spread well below the team's is a halo."""
    rows = stats.copy()
    rows["evidence"] = [
        f"One item's ratings across dimensions spread {s:.2f} of the scale on average over {n} tasks."
        for s, n in zip(rows["raw"], rows["n_tasks"], strict=True)
    ]
    return finish(rows, "halo", "low", "share of the scale", "own ratings")
