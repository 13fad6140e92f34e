"""How raters use each rubric dimension's scale: level distributions by role and rater, position bias on
comparison dimensions, and each contractor's shift from the researchers on the same units.

Scales come from the store's `dimensions` table, which is the rubric catalogue's copy (store.sync_catalogue)
plus the scales inferred for rubrics the catalogue does not know. Every count is a GROUP BY in DuckDB; Python
only adds intervals and reshapes small results.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd

from analytics import rubrics
from analytics.filters import Filters

ROLES = ("contractor", "researcher")
NO_FILTERS = Filters()
Z95 = 1.959963984540054  # two-sided 95% normal quantile
POOLED = "All {role}s"

# The coarse position of a rating: how many distinct coarse levels come up to and including its level. Coarse
# groups are contiguous in scale order, so this is the 0-based index of its coarse level ("drop the very").
COARSE_INDEX = "(len(list_distinct(d.coarse[1:{v} + 1])) - 1)"
# Which side of the middle a rating lies on: -1 (the scale's first half), 0 (the middle coarse level of an odd
# number of coarse levels), +1 (second half). On a comparison scale the first half favours stored option A.
SIDE = "sign(2 * " + COARSE_INDEX + " - (len(list_distinct(d.coarse)) - 1))"


def coarse_index_sql(value_index: str) -> str:
    """SQL for the 0-based coarse level of `value_index` on dimension row `d` (levels and coarse arrays)."""
    return COARSE_INDEX.format(v=value_index)


def side_sql(value_index: str) -> str:
    """SQL for the side of the scale's middle (-1, 0, +1) that `value_index` lies on, for dimension row `d`."""
    return SIDE.format(v=value_index)


def dimension_order(con: duckdb.DuckDBPyConnection, rubric: str) -> list[str]:
    """The rubric's dimensions in catalogue order (by name for rubrics the catalogue does not know)."""
    known = rubrics.get_rubric(rubric)
    if known is not None:
        return [d.name for d in known.dimensions]
    rows = con.execute("SELECT dimension FROM dimensions WHERE rubric = ? ORDER BY dimension", [rubric]).fetchall()
    return [r[0] for r in rows]


def dimensions(con: duckdb.DuckDBPyConnection, rubric: str) -> pd.DataFrame:
    """The rubric's dimensions in catalogue order with label, kind, levels, coarse levels and flags."""
    order = dimension_order(con, rubric)
    return con.execute(
        """SELECT dimension, coalesce(label, dimension) AS label, kind, levels, coarse, is_primary, is_comparison,
                  list_position(?, dimension) AS dimension_order
           FROM dimensions WHERE rubric = ? ORDER BY dimension_order, dimension""",
        [order, rubric],
    ).df()


def level_distribution(con: duckdb.DuckDBPyConnection, rubric: str, filters: Filters = NO_FILTERS) -> pd.DataFrame:
    """Per dimension and role: every level in scale order with its count and share of the role's ratings."""
    where, params = filters.but(rubric=rubric).where("r")
    roles = [r for r in ROLES if not filters.roles or r in filters.roles]
    return con.execute(
        f"""WITH d AS (SELECT * FROM dimensions WHERE rubric = ?),
                 lv AS (SELECT dimension, coalesce(label, dimension) AS dimension_label,
                               list_position(?, dimension) AS dimension_order,
                               unnest(levels) AS level, unnest(coarse) AS coarse,
                               generate_subscripts(levels, 1) - 1 AS level_index FROM d),
                 counts AS (SELECT r.dimension, r.role, r.value_index, count(*) AS n FROM ratings r
                            WHERE {where} GROUP BY ALL),
                 grid AS (SELECT lv.*, role FROM lv CROSS JOIN unnest(?) AS t(role)),
                 joined AS (SELECT g.*, coalesce(c.n, 0) AS n FROM grid g LEFT JOIN counts c
                            ON c.dimension = g.dimension AND c.role = g.role AND c.value_index = g.level_index)
            SELECT dimension, dimension_label, dimension_order, level_index, level, coarse, role, n,
                   n / nullif(sum(n) OVER (PARTITION BY dimension, role), 0) AS share,
                   CAST(sum(n) OVER (PARTITION BY dimension, role) AS BIGINT) AS role_total
            FROM joined
            QUALIFY sum(n) OVER (PARTITION BY dimension) > 0
            ORDER BY dimension_order, dimension, role, level_index""",
        [rubric, dimension_order(con, rubric), *params, roles],
    ).df()


def rater_levels(
    con: duckdb.DuckDBPyConnection, rubric: str, dimension: str, filters: Filters = NO_FILTERS
) -> pd.DataFrame:
    """Per rater: every level of one dimension in scale order with the rater's count and share (long form)."""
    where, params = filters.but(rubric=rubric, dimensions=(dimension,)).where("r")
    return con.execute(
        f"""WITH d AS (SELECT * FROM dimensions WHERE rubric = ? AND dimension = ?),
                 lv AS (SELECT unnest(levels) AS level, generate_subscripts(levels, 1) - 1 AS level_index FROM d),
                 counts AS (SELECT r.rater_id, any_value(r.role) AS role, r.value_index, count(*) AS n
                            FROM ratings r WHERE {where} GROUP BY r.rater_id, r.value_index),
                 raters AS (SELECT rater_id, any_value(role) AS role, CAST(sum(n) AS BIGINT) AS rater_total,
                                   sum(n * (value_index + 1)) / sum(n) AS mean_level
                            FROM counts GROUP BY rater_id)
            SELECT raters.rater_id, raters.role, lv.level_index, lv.level, coalesce(c.n, 0) AS n,
                   coalesce(c.n, 0) / raters.rater_total AS share, raters.rater_total, raters.mean_level
            FROM raters CROSS JOIN lv
            LEFT JOIN counts c ON c.rater_id = raters.rater_id AND c.value_index = lv.level_index
            ORDER BY raters.role, raters.rater_id, lv.level_index""",
        [rubric, dimension, *params],
    ).df()


def rater_level_table(
    con: duckdb.DuckDBPyConnection, rubric: str, dimension: str, filters: Filters = NO_FILTERS
) -> pd.DataFrame:
    """One row per rater with n, mean level (1 = first level) and the share of each level as a column."""
    long = rater_levels(con, rubric, dimension, filters)
    if long.empty:
        return pd.DataFrame(columns=["rater_id", "role", "n", "mean_level"])
    levels = long.drop_duplicates("level_index").sort_values("level_index")["level"].tolist()
    wide = long.pivot_table(index=["rater_id", "role"], columns="level", values="share", aggfunc="first")
    wide = wide.reindex(columns=levels).reset_index()
    wide.columns.name = None
    totals = long.drop_duplicates("rater_id")[["rater_id", "rater_total", "mean_level"]]
    out = totals.rename(columns={"rater_total": "n"}).merge(wide, on="rater_id")
    return out[["rater_id", "role", "n", "mean_level", *levels]].sort_values(["role", "rater_id"], ignore_index=True)


def wilson_interval(successes: np.ndarray, n: np.ndarray, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for binomial proportions (Wilson 1927); NaN where n is 0."""
    x = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = x / m
        denom = 1 + z**2 / m
        centre = (p + z**2 / (2 * m)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / m + z**2 / (4 * m**2))
    lo = np.where(m > 0, np.clip(centre - half, 0, 1), np.nan)
    hi = np.where(m > 0, np.clip(centre + half, 0, 1), np.nan)
    return lo, hi


def _position_counts(con: duckdb.DuckDBPyConnection, rubric: str, filters: Filters) -> pd.DataFrame:
    """Comparison ratings per dimension and rater (and pooled per role) by side of the option shown first."""
    where, params = filters.but(rubric=rubric).where("r")
    # A stored rating favours stored option A on side -1. Seen from the screen, the first option shown is
    # favoured when it was A and the side is -1, or when it was B and the side is +1.
    return con.execute(
        f"""WITH d AS (SELECT * FROM dimensions WHERE rubric = ? AND is_comparison),
                 lv AS (SELECT d.dimension, i AS value_index, {side_sql("i")} AS side
                        FROM d, unnest(range(len(d.levels))) AS t(i)),
                 shown AS (SELECT task_id, rater_id, any_value(shown_first) AS shown_first FROM submissions
                           WHERE rubric = ? AND shown_first IN ('A', 'B') GROUP BY task_id, rater_id),
                 r AS (SELECT r.dimension, r.rater_id, r.role,
                              lv.side * CASE s.shown_first WHEN 'A' THEN 1 ELSE -1 END AS side
                       FROM ratings r JOIN lv USING (dimension, value_index) JOIN shown s USING (task_id, rater_id)
                       WHERE {where})
            SELECT dimension, rater_id, role, count(*) AS n_rated,
                   count(*) FILTER (WHERE side < 0) AS first_better,
                   count(*) FILTER (WHERE side = 0) AS equal,
                   count(*) FILTER (WHERE side > 0) AS second_better
            FROM r GROUP BY GROUPING SETS ((dimension, role, rater_id), (dimension, role))""",
        [rubric, rubric, *params],
    ).df()


def position_bias(con: duckdb.DuckDBPyConnection, rubric: str, filters: Filters = NO_FILTERS) -> pd.DataFrame:
    """Per comparison dimension and rater (plus each role pooled): share of decided comparisons won by the
    option shown first, with its Wilson 95% interval and n (0.5 when there is no position bias)."""
    counts = _position_counts(con, rubric, filters)
    columns = [
        "dimension",
        "dimension_label",
        "rater_id",
        "role",
        "pooled",
        "n_rated",
        "first_better",
        "equal",
        "second_better",
        "n",
        "share_first_better",
        "ci_low",
        "ci_high",
        "interval_excludes_half",
    ]
    if counts.empty:
        return pd.DataFrame(columns=columns)
    out = counts.assign(
        pooled=counts["rater_id"].isna(),
        rater_id=counts["rater_id"].fillna(counts["role"].map(lambda r: POOLED.format(role=r))),
        n=counts["first_better"] + counts["second_better"],
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        out["share_first_better"] = np.where(out["n"] > 0, out["first_better"] / out["n"], np.nan)
    out["ci_low"], out["ci_high"] = wilson_interval(out["first_better"].to_numpy(), out["n"].to_numpy())
    out["interval_excludes_half"] = (out["ci_low"] > 0.5) | (out["ci_high"] < 0.5)
    dims = dimensions(con, rubric)[["dimension", "label", "dimension_order"]]
    out = out.merge(dims.rename(columns={"label": "dimension_label"}), on="dimension", how="left")
    out = out.sort_values(["dimension_order", "pooled", "role", "rater_id"], ascending=[True, False, True, True])
    return out[columns].reset_index(drop=True)


def shift_from_researchers(con: duckdb.DuckDBPyConnection, rubric: str, filters: Filters = NO_FILTERS) -> pd.DataFrame:
    """Per contractor and dimension, on the units a researcher also rated: mean levels, their difference
    (contractor minus researcher, in scale steps; positive = later on the scale) and the total variation
    distance between the two level distributions. Pairs are (contractor rating, researcher rating) on a unit."""
    cond, params = _pair_condition(rubric, filters)
    return con.execute(
        f"""WITH d AS (SELECT * FROM dimensions WHERE rubric = ?),
                 p AS (SELECT c.rater_id AS contractor_id, c.dimension, c.task_id, c.target,
                              c.value_index AS ci, x.value_index AS xi
                       FROM ratings c JOIN ratings x
                         ON x.task_id = c.task_id AND x.rubric = c.rubric AND x.dimension = c.dimension
                        AND x.target = c.target AND x.role = 'researcher'
                       WHERE c.role = 'contractor' AND {cond}),
                 hist AS (SELECT contractor_id, dimension, lvl, sum(cn) AS cn, sum(xn) AS xn FROM (
                            SELECT contractor_id, dimension, ci AS lvl, 1 AS cn, 0 AS xn FROM p
                            UNION ALL SELECT contractor_id, dimension, xi, 0, 1 FROM p) GROUP BY ALL),
                 tv AS (SELECT contractor_id, dimension, 0.5 * sum(abs(cn - xn)) / sum(cn) AS tv
                        FROM hist GROUP BY ALL),
                 m AS (SELECT contractor_id, dimension, count(*) AS n_pairs,
                              count(DISTINCT (task_id, target)) AS n_units,
                              avg(ci + 1) AS contractor_mean, avg(xi + 1) AS researcher_mean,
                              avg(ci - xi) AS mean_difference, avg(CAST(ci = xi AS DOUBLE)) AS exact_agreement
                       FROM p GROUP BY ALL)
            SELECT m.contractor_id, m.dimension, coalesce(d.label, m.dimension) AS dimension_label, m.n_units,
                   m.n_pairs,
                   CASE WHEN ordered THEN m.contractor_mean END AS contractor_mean,
                   CASE WHEN ordered THEN m.researcher_mean END AS researcher_mean,
                   CASE WHEN ordered THEN m.mean_difference END AS mean_difference,
                   tv.tv AS total_variation, m.exact_agreement
            FROM m JOIN tv USING (contractor_id, dimension)
            JOIN (SELECT *, kind <> 'nominal' OR len(levels) = 2 AS ordered FROM d) d USING (dimension)
            ORDER BY total_variation DESC, abs(mean_difference) DESC NULLS LAST, contractor_id, dimension""",
        [rubric, *params],
    ).df()


def _pair_condition(rubric: str, filters: Filters) -> tuple[str, list]:
    """Conditions on a contractor rating `c` paired with a researcher rating `x`: rubric, dimensions, dates
    (of the contractor's rating) and raters (either side of the pair is one of the chosen raters)."""
    where, params = filters.but(rubric=rubric, roles=(), raters=()).where("c")
    if filters.raters:
        where += " AND (list_contains(?, c.rater_id) OR list_contains(?, x.rater_id))"
        params += [list(filters.raters), list(filters.raters)]
    return where, params
