"""How raters use each rubric dimension's scale: level distributions by role and rater, position bias on
comparison dimensions, and each contractor's shift from the researchers on the same units.

Scales come from the store's `dimensions` table, which is the rubric catalogue's copy (store.sync_catalogue)
plus the scales inferred for rubrics the catalogue does not know. Every count is a GROUP BY in DuckDB; Python
only adds intervals and reshapes small results.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import duckdb
import numpy as np
import pandas as pd

from analytics.agreement import intervals as iv
from analytics.agreement import sides as sd
from analytics.agreement.intervals import DELTA_MIN_TASKS as DELTA_MIN_TASKS
from analytics.agreement.rows import MIN_TASKS
from analytics.agreement.signatures import Signatures, pair_signatures
from analytics.core import rubrics
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.core.stats import wilson_interval

ROLES = ("contractor", "researcher")
NO_FILTERS = Filters()
POOLED = "All {role}s"

# The coarse position of a rating: how many distinct coarse levels come up to and including its level. Coarse
# groups are contiguous in scale order, so this is the 0-based index of its coarse level ("drop the very").
COARSE_INDEX = "(len(list_distinct(d.coarse[1:{v} + 1])) - 1)"
# Which side of the middle a rating lies on: -1 (the scale's first half), 0 (the middle coarse level of an odd
# number of coarse levels), +1 (second half). On a comparison scale the first half favours stored option A.
SIDE = "sign(2 * " + COARSE_INDEX + " - (len(list_distinct(d.coarse)) - 1))"
# Which option each rater saw first on a task of the rubric $rubric: the submission keeps it, from an
# answer-comparison file's display_order or a canonical file's shown_first column.
SHOWN_FIRST = """SELECT task_id, rater_id, any_value(shown_first) AS shown_first FROM submissions
                 WHERE rubric = $rubric AND shown_first IN ('A', 'B') GROUP BY task_id, rater_id"""
NO_SHOWN_FIRST = (
    "Position bias cannot be measured: these files do not say which option each rater saw first; "
    "add a shown_first column, A or B, the option shown first (the Data page's Formats section, canonical format)."
)
PARTLY_SHOWN_FIRST = (
    "{missing:,} of {total:,} comparison ratings do not say which option the rater saw first (no shown_first) "
    "and are left out of position bias."
)


def coarse_index_sql(value_index: str) -> str:
    """SQL for the 0-based coarse level of `value_index` on dimension row `d` (levels and coarse arrays)."""
    return COARSE_INDEX.format(v=value_index)


def side_sql(value_index: str) -> str:
    """SQL for the side of the scale's middle (-1, 0, +1) that `value_index` lies on, for dimension row `d`."""
    return SIDE.format(v=value_index)


RUBRIC_DIMENSION_NAMES = Query(
    "rubric_dimension_names", "SELECT dimension FROM dimensions WHERE rubric = $rubric ORDER BY dimension"
)


def dimension_order(con: duckdb.DuckDBPyConnection, rubric: str) -> list[str]:
    """The rubric's dimensions in catalogue order (by name for rubrics the catalogue does not know)."""
    known = rubrics.get_rubric(rubric)
    if known is not None:
        return [d.name for d in known.dimensions]
    rows = RUBRIC_DIMENSION_NAMES.bind(rubric=rubric).rows(con)
    return [r[0] for r in rows]


RUBRIC_DIMENSIONS = Query(
    "rubric_dimensions",
    """SELECT dimension, coalesce(label, dimension) AS label, kind, levels, coarse, is_primary, is_comparison,
              list_position($dimension_order, dimension) AS dimension_order
       FROM dimensions WHERE rubric = $rubric ORDER BY dimension_order, dimension""",
)


def dimensions(con: duckdb.DuckDBPyConnection, rubric: str) -> pd.DataFrame:
    """The rubric's dimensions in catalogue order with label, kind, levels, coarse levels and flags."""
    order = dimension_order(con, rubric)
    return RUBRIC_DIMENSIONS.bind(dimension_order=order, rubric=rubric).df(con)


def level_distribution(con: duckdb.DuckDBPyConnection, rubric: str, filters: Filters = NO_FILTERS) -> pd.DataFrame:
    """Per dimension and role: every level in scale order with its count and share of the role's ratings (from
    the level counts kept at ingest, analytics/store/derived/level_counts.py)."""
    where, params = filters.but(rubric=rubric).where_named("r")
    roles = [r for r in ROLES if not filters.roles or r in filters.roles]
    return Query(
        "level_distribution",
        f"""WITH d AS (SELECT * FROM dimensions WHERE rubric = $shown_rubric),
                 lv AS (SELECT dimension, k.dim_key, coalesce(label, dimension) AS dimension_label,
                               list_position($dimension_order, dimension) AS dimension_order,
                               unnest(levels) AS level, unnest(coarse) AS coarse,
                               generate_subscripts(levels, 1) - 1 AS level_index
                        FROM d LEFT JOIN dimension_keys k USING (rubric, dimension)),
                 counts AS (SELECT r.dim_key, r.role, r.value_index, CAST(sum(r.n) AS BIGINT) AS n
                            FROM level_counts r WHERE {where} GROUP BY ALL),
                 grid AS (SELECT lv.*, role FROM lv CROSS JOIN unnest($shown_roles) AS t(role)),
                 joined AS (SELECT g.*, coalesce(c.n, 0) AS n FROM grid g LEFT JOIN counts c
                            ON c.dim_key = g.dim_key AND c.role = g.role AND c.value_index = g.level_index)
            SELECT dimension, dimension_label, dimension_order, level_index, level, coarse, role, n,
                   n / nullif(sum(n) OVER (PARTITION BY dimension, role), 0) AS share,
                   CAST(sum(n) OVER (PARTITION BY dimension, role) AS BIGINT) AS role_total
            FROM joined
            QUALIFY sum(n) OVER (PARTITION BY dimension) > 0
            ORDER BY dimension_order, dimension, role, level_index""",
        {**params, "shown_rubric": rubric, "dimension_order": dimension_order(con, rubric), "shown_roles": roles},
    ).df(con)


def rater_levels(
    con: duckdb.DuckDBPyConnection, rubric: str, dimension: str, filters: Filters = NO_FILTERS
) -> pd.DataFrame:
    """Per rater: every level of one dimension in scale order with the rater's count and share (long form);
    missing ratings (no level) are not counted (from the level counts kept at ingest, analytics/store/derived/level_counts.py)."""
    where, params = filters.but(rubric=rubric, dimensions=(dimension,)).where_named("r")
    return Query(
        "rater_levels",
        f"""WITH d AS (SELECT * FROM dimensions WHERE rubric = $shown_rubric AND dimension = $shown_dimension),
                 lv AS (SELECT unnest(levels) AS level, generate_subscripts(levels, 1) - 1 AS level_index FROM d),
                 counts AS (SELECT r.rater_key, any_value(r.role) AS role, r.value_index,
                                   CAST(sum(r.n) AS BIGINT) AS n
                            FROM level_counts r WHERE r.value_index IS NOT NULL AND {where}
                            GROUP BY r.rater_key, r.value_index),
                 raters AS (SELECT rater_key, any_value(role) AS role, CAST(sum(n) AS BIGINT) AS rater_total,
                                   sum(n * (value_index + 1)) / sum(n) AS mean_level
                            FROM counts GROUP BY rater_key)
            SELECT k.rater_id, raters.role, lv.level_index, lv.level, coalesce(c.n, 0) AS n,
                   coalesce(c.n, 0) / raters.rater_total AS share, raters.rater_total, raters.mean_level
            FROM raters JOIN rater_keys k USING (rater_key) CROSS JOIN lv
            LEFT JOIN counts c ON c.rater_key = raters.rater_key AND c.value_index = lv.level_index
            ORDER BY raters.role, k.rater_id, lv.level_index""",
        {**params, "shown_rubric": rubric, "shown_dimension": dimension},
    ).df(con)


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


def position_counts_query(rubric: str, filters: Filters) -> Query:
    """Comparison ratings per dimension and rater (and pooled per role) by side of the option shown first."""
    where, params = filters.but(rubric=rubric).where_named("r", "f_")
    # A stored rating favours stored option A on side -1. Seen from the screen, the first option shown is
    # favoured when it was A and the side is -1, or when it was B and the side is +1.
    sql = f"""WITH d AS (SELECT * FROM dimensions WHERE rubric = $rubric AND is_comparison),
     lv AS (SELECT d.dimension, i AS value_index, {side_sql("i")} AS side
            FROM d, unnest(range(len(d.levels))) AS t(i)),
     shown AS ({SHOWN_FIRST}),
     r AS (SELECT r.dimension, r.rater_id, r.role, lv.side * CASE s.shown_first WHEN 'A' THEN 1 ELSE -1 END AS side
           FROM ratings r JOIN lv USING (dimension, value_index) JOIN shown s USING (task_id, rater_id)
           WHERE {where})
SELECT dimension, rater_id, role, count(*) AS n_rated,
       count(*) FILTER (WHERE side < 0) AS first_better,
       count(*) FILTER (WHERE side = 0) AS equal,
       count(*) FILTER (WHERE side > 0) AS second_better
FROM r GROUP BY GROUPING SETS ((dimension, role, rater_id), (dimension, role))"""
    return Query("position_counts", sql, {"rubric": rubric, **params})


def position_bias(con: duckdb.DuckDBPyConnection, rubric: str, filters: Filters = NO_FILTERS) -> pd.DataFrame:
    """Per comparison dimension and rater (plus each role pooled): share of decided comparisons won by the
    option shown first, with its Wilson 95% interval and n (0.5 when there is no position bias)."""
    counts = position_counts_query(rubric, filters).df(con)
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


# The comparison ratings under the filters ($f_... parameters), as `r`, for the position-bias note's queries.
_COMPARISON = """JOIN dimensions d ON d.rubric = r.rubric AND d.dimension = r.dimension AND d.is_comparison
WHERE r.value_index IS NOT NULL AND {where}"""


def comparison_ratings_query(rubric: str, filters: Filters) -> Query:
    """How many comparison ratings the filters select (from the level counts kept at ingest)."""
    where, params = filters.but(rubric=rubric).where_named("r", "f_")
    sql = f"SELECT coalesce(sum(r.n), 0) AS n FROM level_counts r {_COMPARISON.format(where=where)}"
    return Query("comparison_ratings", sql, params)


def shown_first_query(rubric: str) -> Query:
    """How many (task, rater) submissions of the rubric say which option was shown first."""
    return Query("shown_first_submissions", f"SELECT count(*) AS n FROM ({SHOWN_FIRST})", {"rubric": rubric})


def shown_first_ratings_query(rubric: str, filters: Filters) -> Query:
    """How many comparison ratings the filters select have their submission's display order."""
    where, params = filters.but(rubric=rubric).where_named("r", "f_")
    sql = f"""WITH shown AS ({SHOWN_FIRST})
SELECT count(s.shown_first) AS n FROM ratings r
JOIN shown s ON s.task_id = r.task_id AND s.rater_id = r.rater_id {_COMPARISON.format(where=where)}"""
    return Query("comparison_ratings_shown_first", sql, {"rubric": rubric, **params})


def position_bias_note(con: duckdb.DuckDBPyConnection, rubric: str, filters: Filters = NO_FILTERS) -> str | None:
    """Why position bias leaves comparison ratings out: none (NO_SHOWN_FIRST) or only some of them say which
    option the rater saw first; None when all do or the rubric has no comparison ratings under the filters."""
    total = int(comparison_ratings_query(rubric, filters).rows(con)[0][0])
    known = 0
    if total and shown_first_query(rubric).rows(con)[0][0]:
        # Only files with display orders need each rating matched to its submission's (a pass over the ratings).
        known = int(shown_first_ratings_query(rubric, filters).rows(con)[0][0])
    if total == 0 or known == total:
        return None
    return NO_SHOWN_FIRST if known == 0 else PARTLY_SHOWN_FIRST.format(missing=total - known, total=total)


SHIFT_COLUMNS = (
    "rank",
    "contractor_id",
    "dimension",
    "dimension_label",
    "n_tasks",
    "n_units",
    "n_pairs",
    "contractor_mean",
    "researcher_mean",
    "mean_difference",
    "mean_difference_ci_low",
    "mean_difference_ci_high",
    "total_variation",
    "total_variation_ci_low",
    "total_variation_ci_high",
    "exact_agreement",
    "small_n",
    "interval_method",
)


DIMENSION_SCALES = Query(
    "dimension_scales",
    """SELECT dimension, coalesce(label, dimension), len(levels), kind <> 'nominal' OR len(levels) = 2
       FROM dimensions WHERE rubric = $rubric""",
)


def shift_from_researchers(
    con: duckdb.DuckDBPyConnection, rubric: str, filters: Filters = NO_FILTERS, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Per contractor and dimension, on the units a researcher also rated: mean levels (1 = the scale's first
    level), their difference (contractor minus researcher, in scale steps; positive = later on the scale), the
    total variation distance between the two level distributions, exact agreement, and n in tasks (SHIFT_COLUMNS).

    Pairs are the one pairing's (analytics.agreement.sides, contractor_vs_researcher): the rater filter chooses
    whose rows are shown, dates select the contractor's ratings, every researcher label counts whatever its date.
    Intervals (95%) resample tasks (analytics.agreement.intervals); the mean difference's is the percentile
    interval, the total variation's the basic (reverse-percentile) bootstrap interval, which corrects the
    distance's upward bias from few pairs (two samples of one distribution are never identical).

    Rows are ranked by an n-aware estimate: contractors with at least MIN_TASKS tasks first, then the lower end
    of the total variation's interval, largest first (the smallest shift the data support), so a contractor
    with one or two disagreeing units never tops the table; rows with fewer tasks follow in the same order."""
    sides = sd.comparison_sides(filters.but(rubric=rubric), "contractor_vs_researcher")
    scale = {d: (label, n, ordered) for d, label, n, ordered in DIMENSION_SCALES.bind(rubric=rubric).rows(con)}
    q_of = lambda key: scale[key[2]][1] if key[2] in scale and scale[key[2]][1] else None  # noqa: E731
    sigs = pair_signatures(con, sides, "rater", q_of)
    rows, draws = [], []
    for dimension in sorted({d for _, _, d in sigs}):
        label, q, ordered = scale[dimension]
        keys = [k for k in sigs if k[2] == dimension]
        shared = iv.rng_for(seed, "shift multipliers", rubric, dimension)
        own = lambda i, keys=keys: iv.rng_for(seed, keys[i][0], rubric, keys[i][2])  # noqa: E731
        found, drawn = _shift_draws([sigs[k] for k in keys], q, ordered, n_boot, shared, own)
        for (contractor, _, _), row in zip(keys, found, strict=True):
            rows.append({"contractor_id": contractor, "dimension": dimension, "dimension_label": label, **row})
        draws.extend(drawn)
    rows = _with_intervals(rows, draws)
    if not rows:
        return pd.DataFrame(columns=list(SHIFT_COLUMNS))
    out = pd.DataFrame(rows)
    out = out.sort_values(
        ["small_n", "total_variation_ci_low", "total_variation", "contractor_id", "dimension"],
        ascending=[True, False, False, True, True],
        na_position="last",
        kind="stable",
    ).reset_index(drop=True)
    out["rank"] = range(1, len(out) + 1)
    return out[list(SHIFT_COLUMNS)]


def _shift_figures(c: np.ndarray, x: np.ndarray, ordered: bool) -> dict[str, np.ndarray]:
    """Shift figures of a batch of (batch x q) contractor and researcher level counts over the same pairs."""
    n = c.sum(axis=1)
    pos = np.arange(1, c.shape[1] + 1, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = {
            "total_variation": 0.5 * np.abs(c - x).sum(axis=1) / n,
            "contractor_mean": c @ pos / n,
            "researcher_mean": x @ pos / n,
        }
    out["mean_difference"] = out["contractor_mean"] - out["researcher_mean"]
    if not ordered:  # nominal levels have no direction: no means
        for k in ("contractor_mean", "researcher_mean", "mean_difference"):
            out[k] = np.full(n.shape, np.nan)
    return out


def _margins(cells: np.ndarray, q: int) -> np.ndarray:
    """(rows x 2q) contractor then researcher level counts of (rows x q*q) pair cells."""
    tables = np.asarray(cells, dtype=float).reshape(-1, q, q)
    return np.concatenate([tables.sum(axis=2), tables.sum(axis=1)], axis=1)


def _shift_draws(
    sigs: list[Signatures],
    q: int,
    ordered: bool,
    n_boot: int,
    shared: np.random.Generator,
    own: Callable[[int], np.random.Generator],
    force_bootstrap: bool = False,
) -> tuple[list[dict], list[dict[str, np.ndarray] | None]]:
    """Contractors' shifts on one dimension from their task signatures, without intervals, and each one's
    figures over task resamples (None below two tasks or without resamples).

    From DELTA_MIN_TASKS tasks unless forced, the multiplier bootstrap (at that size the same interval, drawing
    2q numbers a resample instead of one per signature), its normals drawn once from `shared` for all of them
    (iv.shared_multiplier_sums); else the multinomial task bootstrap, from `own(i)`, the i-th signatures' generator."""
    tasks = np.array([sig.tasks for sig in sigs])
    margins = _margins(np.concatenate([sig.cells for sig in sigs]), q)
    sizes = np.array([len(sig.n_tasks) for sig in sigs])
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    n_tasks = np.concatenate([sig.n_tasks for sig in sigs])
    tables = np.stack([sig.table(q) for sig in sigs])
    points = _shift_figures(tables.sum(axis=2), tables.sum(axis=1), ordered)
    n_pairs, agreeing = tables.sum(axis=(1, 2)), np.trace(tables, axis1=1, axis2=2)
    drawn = (tasks >= 2) & bool(n_boot)
    large = drawn & (tasks >= iv.DELTA_MIN_TASKS) & (not force_bootstrap)
    rows = [
        {
            "n_tasks": int(tasks[i]),
            "n_units": sig.n_units,
            "n_pairs": int(round(n_pairs[i])),
            **{k: float(v[i]) for k, v in points.items()},
            "exact_agreement": float(agreeing[i] / n_pairs[i]) if n_pairs[i] else math.nan,
            "small_n": bool(tasks[i] < MIN_TASKS),
            "interval_method": iv.MULTIPLIER if large[i] else iv.BOOTSTRAP if drawn[i] else "",
            **{f"{k}_ci_{end}": math.nan for k in ("mean_difference", "total_variation") for end in ("low", "high")},
        }
        for i, sig in enumerate(sigs)
    ]
    sums = np.full((len(sigs), n_boot, 2 * q), np.nan)
    if large.any():
        mine = np.repeat(large, sizes)
        large_starts = np.r_[0, np.cumsum(sizes[large])[:-1]]
        sums[large] = iv.shared_multiplier_sums(margins[mine], n_tasks[mine], large_starts, n_boot, shared)
    for i in np.flatnonzero(drawn & ~large):
        at = slice(starts[i], starts[i] + sizes[i])
        sums[i] = iv.resample(margins[at], n_tasks[at], n_boot, own(int(i)))
    figures = _shift_figures(sums[:, :, :q].reshape(-1, q), sums[:, :, q:].reshape(-1, q), ordered)
    per_row = {k: v.reshape(len(sigs), n_boot) for k, v in figures.items()}
    return rows, [{k: v[i] for k, v in per_row.items()} if drawn[i] else None for i in range(len(sigs))]


def _with_intervals(rows: list[dict], draws: list[dict[str, np.ndarray] | None]) -> list[dict]:
    """The rows with their 95% intervals from their resampled figures (every row's percentiles at once; rows
    without resamples keep NaN): the mean difference's percentile interval, the total variation's basic one."""
    drawn = [(row, d) for row, d in zip(rows, draws, strict=True) if d is not None]
    if not drawn:
        return rows
    ends = {k: iv.percentiles(np.stack([d[k] for _, d in drawn])) for k in ("mean_difference", "total_variation")}
    for j, (row, _) in enumerate(drawn):
        lo, hi = float(ends["mean_difference"][0][j]), float(ends["mean_difference"][1][j])
        if hi - lo > 1e-12:
            row["mean_difference_ci_low"], row["mean_difference_ci_high"] = lo, hi
        lo, hi = float(ends["total_variation"][0][j]), float(ends["total_variation"][1][j])
        if hi - lo > 1e-12:  # basic bootstrap: reflect the percentiles around the estimate
            tv = row["total_variation"]
            row["total_variation_ci_low"] = max(0.0, 2 * tv - hi)
            row["total_variation_ci_high"] = min(1.0, 2 * tv - lo)
    return rows


def _shift_row(
    sig: Signatures, q: int, ordered: bool, n_boot: int, rng: np.random.Generator, force_bootstrap: bool = False
) -> dict:
    """One contractor's shift on one dimension with its task-bootstrap intervals (_shift_draws, _with_intervals)."""
    rows, drawn = _shift_draws([sig], q, ordered, n_boot, rng, lambda _: rng, force_bootstrap)
    return _with_intervals(rows, drawn)[0]
