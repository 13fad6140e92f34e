"""Effects read from comparison ratings: ties (how often a contractor calls the two options equal) and position
bias (how often the option they were shown first wins a decided comparison), from the display order each
submission records (analytics.distributions.position_bias); on ranking scales (1 = best, ties allowed), ties are
the share of a task's pairs of items given the same rank."""

from __future__ import annotations

import duckdb
import pandas as pd

from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.describe import distributions as dist
from analytics.describe.overview import rated_rubrics
from analytics.effects.rows import finish, share_means, share_se
from analytics.store import keys


def comparison_rubrics(con: duckdb.DuckDBPyConnection, filters: Filters) -> list[str]:
    """The rubrics with comparison dimensions among those rated at any date under the filter's rubric."""
    rubrics = rated_rubrics(con, Filters(rubric=filters.rubric))
    return [r for r in rubrics if dist.dimensions(con, r)["is_comparison"].astype(bool).any()]


def position_table(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """distributions.position_bias of every rubric with comparison dimensions under the filter, every role (the
    filter's roles aside), with a `rubric` column: what comparison_counts reads and a feedback report shows."""
    every_role = filters.but(roles=())
    frames = [dist.position_bias(con, r, every_role).assign(rubric=r) for r in comparison_rubrics(con, filters)]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["rubric", "rater_id", "dimension"])


def comparison_counts(
    con: duckdb.DuckDBPyConnection, filters: Filters, rubrics: list[str], positions: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per contractor, rubric and comparison dimension: comparisons rated, ties, and decided comparisons won by
    the option shown first (one comparison per task); `positions`: position_table of the filter, when read
    beforehand (a contractor's rows are the same in it as in position_bias of contractors alone)."""
    parts = []
    for rubric in rubrics:
        dims = dist.dimensions(con, rubric)
        if not dims["is_comparison"].astype(bool).any():
            continue  # a rubric without comparison dimensions has no comparison to count
        if positions is None:
            counts = dist.position_bias(con, rubric, filters.but(roles=("contractor",)))
        elif positions.empty:
            continue  # no comparison rated under the filter: position_bias has no row either
        else:
            counts = positions[(positions["rubric"] == rubric) & (positions["role"] == "contractor")]
            counts = counts.drop(columns="rubric")
        counts = counts[~counts["pooled"].astype(bool) & ~counts["rater_id"].str.startswith("anon:")]
        parts.append(counts.merge(dims[["dimension", "levels"]], on="dimension").assign(rubric=rubric))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def tie_rows(counts: pd.DataFrame) -> pd.DataFrame:
    """Ties rows: share of comparisons at the scale's middle level, on scales with one (an odd number of levels)."""
    c = counts[counts["levels"].map(len) % 2 == 1]
    c = c[c["n_rated"] > 0]
    rows = c[["rater_id", "rubric", "dimension"]].assign(
        raw=c["equal"] / c["n_rated"], n_tasks=c["n_rated"].astype(int)
    )
    rows["se"] = [share_se(s, n) for s, n in zip(rows["raw"], rows["n_tasks"], strict=True)]
    rows["evidence"] = [
        f'"{lv[len(lv) // 2]}" on {s:.0%} of {n} comparisons.'
        for lv, s, n in zip(c["levels"], rows["raw"], rows["n_tasks"], strict=True)
    ]
    return finish(rows, "ties", "high", "share", "own ratings")


def position_rows(counts: pd.DataFrame) -> pd.DataFrame:
    """Position bias rows: share of decided comparisons won by the option shown first (0.5 = none)."""
    c = counts[counts["n"] > 0]
    rows = c[["rater_id", "rubric", "dimension"]].assign(raw=c["share_first_better"], n_tasks=c["n"].astype(int))
    rows["se"] = [share_se(s, n) for s, n in zip(rows["raw"], rows["n_tasks"], strict=True)]
    rows["evidence"] = [
        f"The option shown first won {s:.0%} of {n} decided comparisons."
        for s, n in zip(rows["raw"], rows["n_tasks"], strict=True)
    ]
    return finish(rows, "position_bias", "high", "share", "display order")


def ranking_ties_query(filters: Filters) -> Query:
    """Per contractor, ranking dimension and task: the share of pairs of the task's ranked items given the same
    rank (tasks with at least two ranked items)."""
    where, params = filters.but(roles=("contractor",)).where_named("r")
    # The ranking dimensions by key: joined to the catalogue by name, DuckDB grouped every contractor rating first.
    return Query(
        "effects_ranking_ties",
        f"""WITH ranking AS (
    {keys.RANKING_DIM_KEYS}
), counts AS (
    SELECT r.rater_key, r.dim_key, r.task_key, r.value_index, count(*) AS c
    FROM ratings r
    WHERE {where} AND r.dim_key IN (SELECT dim_key FROM ranking) AND r.value_index IS NOT NULL
    GROUP BY ALL
), tasks AS (
    SELECT rater_key, dim_key, task_key, sum(c * (c - 1)) / (sum(c) * (sum(c) - 1)) AS tied
    FROM counts GROUP BY ALL HAVING sum(c) >= 2
)
SELECT k.rater_id, d.rubric, d.dimension, t.task_key, t.tied
FROM tasks t JOIN rater_keys k USING (rater_key) JOIN dimension_keys d USING (dim_key)
WHERE NOT starts_with(k.rater_id, 'anon:')""",
        params,
    )


def ranking_tie_rows(per_task: pd.DataFrame) -> pd.DataFrame:
    """Ties rows on ranking scales: the share of a task's item pairs ranked equal, per task then over tasks."""
    rows = share_means(per_task, "tied")
    rows["evidence"] = [
        f"Ranked {s:.0%} of a task's pairs of items equal on average over {n} tasks."
        for s, n in zip(rows["raw"], rows["n_tasks"], strict=True)
    ]
    return finish(rows, "ties", "high", "share", "own ratings")
