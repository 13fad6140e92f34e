"""The levels a contractor uses against the researchers' on the same units, per dimension in scale order."""

from __future__ import annotations

import duckdb
import pandas as pd

from analytics.agreement import pairing as pg
from analytics.agreement import sides as sd
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.feedback.scope import NO_FILTERS, Catalogue, dimension_info, subject_filter, subjects_filter


def levels_vs_researchers(
    con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters = NO_FILTERS, known: Catalogue | None = None
) -> pd.DataFrame:
    """Per dimension, every level in scale order with the contractor's and the researchers' counts and shares,
    over the pairs on units both rated (side is "contractor" or "researcher")."""
    df = levels_query(subject_filter(filters, contractor)).df(con).drop(columns="rater_id")
    return in_scale_order(con, df, known)


def every_levels_vs_researchers(
    con: duckdb.DuckDBPyConnection, contractors: tuple[str, ...], filters: Filters, known: Catalogue | None = None
) -> dict[str, pd.DataFrame]:
    """levels_vs_researchers of each of `contractors` from one query (each one's counts are their own pairs')."""
    rows = levels_query(subjects_filter(filters, contractors)).df(con)
    every = in_scale_order(con, rows, known, ("rater_id",))
    ids = every["rater_id"].to_numpy(dtype=object)
    cuts = [0, *(i for i in range(1, len(ids)) if ids[i] != ids[i - 1]), len(ids)]  # rows are sorted by rater
    by_rater = {str(ids[a]): every.iloc[a:b] for a, b in zip(cuts, cuts[1:], strict=False) if b > a}
    none = in_scale_order(con, rows.iloc[:0].drop(columns="rater_id"), known)
    return {
        c: by_rater[c].drop(columns="rater_id").reset_index(drop=True) if c in by_rater else none for c in contractors
    }


def levels_query(subject: Filters) -> Query:
    """Per rater of the subject filter, dimension, level and side: the count and share of their pairs with
    researchers on units both rated, every level of the scale listed."""
    sides = sd.comparison_sides(subject, "contractor_vs_researcher")
    head, params = pg.pair_ctes(sides, named=False)
    return Query(
        "contractor_levels_vs_researchers",
        f"""{head},
                 cells AS MATERIALIZED (SELECT key_a, dim_key, index_a, index_b, count(*) AS n FROM pairs GROUP BY ALL),
                 counts AS (SELECT key_a, dim_key, 'contractor' AS role, index_a AS level_index, sum(n) AS n
                            FROM cells GROUP BY ALL
                            UNION ALL
                            SELECT key_a, dim_key, 'researcher', index_b, sum(n) FROM cells GROUP BY ALL),
                 lv AS (SELECT k.dim_key, d.rubric, d.dimension, coalesce(d.label, d.dimension) AS dimension_label,
                               unnest(d.levels) AS level, unnest(d.coarse) AS coarse,
                               generate_subscripts(d.levels, 1) - 1 AS level_index
                        FROM dimensions d JOIN dimension_keys k USING (rubric, dimension)
                        WHERE k.dim_key IN (SELECT dim_key FROM cells)),
                 grid AS (SELECT u.key_a, lv.*, role FROM (SELECT DISTINCT key_a, dim_key FROM cells) u
                          JOIN lv USING (dim_key) CROSS JOIN (VALUES ('contractor'), ('researcher')) AS t(role))
            SELECT rk.rater_id, g.rubric, g.dimension, g.dimension_label, g.level_index, g.level, g.coarse, g.role,
                   CAST(coalesce(c.n, 0) AS BIGINT) AS n,
                   coalesce(c.n, 0) / sum(coalesce(c.n, 0)) OVER (PARTITION BY g.key_a, g.rubric, g.dimension, g.role)
                       AS share
            FROM grid g LEFT JOIN counts c USING (key_a, dim_key, role, level_index)
                 JOIN rater_keys rk ON rk.rater_key = g.key_a
            ORDER BY rk.rater_id, g.rubric, g.dimension, g.role, g.level_index""",
        params,
    )


def in_scale_order(
    con: duckdb.DuckDBPyConnection, df: pd.DataFrame, known: Catalogue | None, first: tuple[str, ...] = ()
) -> pd.DataFrame:
    """One contractor's levels_query rows with primary flag and catalogue order, primary dimension first (`first`:
    columns to sort by before those, such as the rater of many contractors' rows)."""
    if df.empty:
        return df.assign(is_primary=pd.Series(dtype=bool), dimension_order=pd.Series(dtype=int))
    info = dimension_info(con, tuple(df["rubric"].unique()), known)[
        ["rubric", "dimension", "is_primary", "dimension_order"]
    ]
    df = df.merge(info, on=["rubric", "dimension"], how="left")
    df["is_primary"] = df["is_primary"].fillna(False).astype(bool)
    return df.sort_values(
        [*first, "rubric", "is_primary", "dimension_order", "dimension", "role", "level_index"],
        ascending=[*(True for _ in first), True, False, True, True, True, True],
        ignore_index=True,
    )
