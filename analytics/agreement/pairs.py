"""Sufficient statistics for agreement, computed by DuckDB with GROUP BY over the `ratings` table.

Every function takes a connection and an `analytics.filters.Filters` and returns a small DataFrame; no
function ever fetches individual ratings or builds a raters x units matrix. A unit is
(task_id, rubric, dimension, target). Levels are identified by `value_index`, the 0-based position of the
value on the dimension's full scale (the store's `dimensions.levels`).

- `value_patterns`: per dimension, the distinct per-unit multisets of levels and how many units have each
  (Krippendorff's alpha, Fleiss' kappa, Gwet's AC1/AC2 and percent agreement need nothing else).
- `rater_level_counts`: per dimension x rater, ratings on each level (rater marginals for Conger's kappa,
  the number of raters and ratings, and which raters a comparison's subject side has).
- `pair_confusion`: per subject rater x dimension, confusion counts (subject level x reference level) over
  the units the subject shares with a reference rater of the other side (Cohen's kappa, weighted kappa,
  exact/coarse agreement, leniency). With `reference_role == subject_role` the reference side is every other
  rater of that role (among contractors, researcher vs researcher).
- `shared_units`: per subject rater x dimension (and per dimension) the number of distinct shared units.
- `ranking_pairs`: per subject rater x ranking dimension, concordant / discordant / tied item pairs inside a
  task against each reference rater (Kendall's tau-b, pairwise preference agreement).
- `rater_pair_confusion`: for one dimension, confusion counts for every pair of raters (a < b).

Several reference labels on one unit: every (subject, reference) pair is compared separately, so a unit
with two researcher labels contributes two pairs. This keeps every label (no tie-breaking for a majority of
two, no median of a nominal scale), lets a contractor's agreement reflect researchers' own disagreement, and
keeps the counts integers so that the bootstrap can resample confusion cells. `n` is always the number of
pairs compared and `n_units` the number of distinct units behind them.

Filters: the comparison decides the roles (`Filters.roles` is replaced). The subject side gets the whole
filter; the reference side only the rubric and dimension restrictions, so that choosing one contractor or a
date range never removes the researcher labels that contractor is compared with.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd

from analytics.filters import Filters

UNIT = ("task_id", "rubric", "dimension", "target")


def role_filter(filters: Filters, roles: tuple[str, ...] | None) -> Filters:
    """The filter with its roles replaced by the comparison's roles (None keeps the filter's own roles)."""
    return filters if roles is None else filters.but(roles=tuple(roles))


def reference_filter(filters: Filters, role: str | None) -> Filters:
    """The reference side of a comparison: rubric and dimensions only, and the role (None: the filter's roles)."""
    roles = filters.roles if role is None else (role,)
    return Filters(rubric=filters.rubric, dimensions=filters.dimensions, roles=roles)


def scales_sql() -> str:
    """SQL of `scales`."""
    return """SELECT rubric, dimension, label, kind, levels, coarse, is_primary, is_comparison
FROM dimensions
WHERE (? IS NULL OR rubric = ?)
ORDER BY rubric, dimension"""


def scales(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """The scale of every dimension (kind, ordered levels, coarse level per level) in the filter's rubric."""
    return con.execute(scales_sql(), [filters.rubric, filters.rubric]).df()


def value_patterns_sql(where: str) -> str:
    """SQL of `value_patterns` for a ratings condition on alias `r`."""
    return f"""WITH d AS (
    SELECT rubric, dimension, len(levels) AS q, CAST(62 // greatest(len(levels), 1) AS INTEGER) AS bits
    FROM dimensions
), units AS (
    -- a unit's level counts packed in one integer, `bits` bits per level (decoded and checked in Python)
    SELECT r.rubric, r.dimension, count(*) AS m, sum(CAST(1 AS BIGINT) << (d.bits * r.value_index)) AS code
    FROM ratings r JOIN d USING (rubric, dimension)
    WHERE r.value_index IS NOT NULL AND r.value_index < d.q AND {where}
    GROUP BY r.rubric, r.dimension, r.task_id, r.target
)
SELECT rubric, dimension, code, m, count(*) AS n_units
FROM units
GROUP BY ALL
ORDER BY ALL"""


def value_lists_sql(where: str) -> str:
    """SQL of the fallback of `value_patterns` (one dimension, any number of ratings per level)."""
    return f"""WITH units AS (
    SELECT list_sort(list(value_index)) AS vals
    FROM ratings
    WHERE value_index IS NOT NULL AND {where} AND rubric = ? AND dimension = ?
    GROUP BY task_id, target
)
SELECT vals, count(*) AS n_units FROM units GROUP BY vals ORDER BY vals"""


def value_patterns(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Per dimension, each distinct vector of per-level counts on a unit and the number of units with it.

    Columns rubric, dimension, counts (list, one count per level of the full scale), n_units.
    """
    where, params = filters.where("r")
    rows = con.execute(value_patterns_sql(where), params).fetchall()
    sizes = {(r, d): q for r, d, q in con.execute("SELECT rubric, dimension, len(levels) FROM dimensions").fetchall()}
    out, overflow = [], set()
    for rubric, dimension, code, m, n in rows:
        q = sizes[(rubric, dimension)]
        bits = 62 // max(q, 1)
        counts = [(int(code) >> (bits * k)) & ((1 << bits) - 1) for k in range(q)]
        if sum(counts) != m:  # more ratings of one level on a unit than `bits` can hold
            overflow.add((rubric, dimension))
        out.append((rubric, dimension, counts, n))
    out = [row for row in out if row[:2] not in overflow]
    plain, plain_params = filters.where()
    for rubric, dimension in sorted(overflow):
        q = sizes[(rubric, dimension)]
        for vals, n in con.execute(value_lists_sql(plain), [*plain_params, rubric, dimension]).fetchall():
            out.append((rubric, dimension, [int(c) for c in np.bincount(vals, minlength=q)[:q]], n))
    df = pd.DataFrame(out, columns=["rubric", "dimension", "counts", "n_units"])
    return df.sort_values(["rubric", "dimension"], kind="stable").reset_index(drop=True)


def rater_level_counts_sql(where: str) -> str:
    """SQL of `rater_level_counts` for a ratings condition."""
    return f"""SELECT rubric, dimension, rater_id, role, value_index, count(*) AS n
FROM ratings
WHERE value_index IS NOT NULL AND {where}
GROUP BY ALL
ORDER BY ALL"""


def rater_level_counts(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Per dimension x rater (and role), how many ratings fell on each level (rater marginals, totals)."""
    where, params = filters.where()
    return con.execute(rater_level_counts_sql(where), params).df()


def _sides(filters: Filters, subject_role: str | None, reference_role: str | None) -> tuple[str, str, list]:
    s_where, s_params = role_filter(filters, None if subject_role is None else (subject_role,)).where()
    r_where, r_params = reference_filter(filters, reference_role).where()
    return s_where, r_where, s_params + r_params


def pair_confusion_sql(subject_where: str, reference_where: str) -> str:
    """SQL of `pair_confusion` for the two sides' ratings conditions."""
    return f"""WITH s AS (
    SELECT task_id, rubric, dimension, target, rater_id, value_index
    FROM ratings WHERE value_index IS NOT NULL AND {subject_where}
), r AS (
    SELECT task_id, rubric, dimension, target, rater_id AS reference_id, value_index AS reference_index
    FROM ratings WHERE value_index IS NOT NULL AND {reference_where}
)
SELECT s.rater_id, s.rubric, s.dimension, s.value_index AS subject_index, r.reference_index, count(*) AS n
FROM s JOIN r USING (task_id, rubric, dimension, target)
WHERE s.rater_id <> r.reference_id
GROUP BY ALL
ORDER BY ALL"""


def pair_confusion(
    con: duckdb.DuckDBPyConnection, filters: Filters, subject_role: str | None, reference_role: str | None
) -> pd.DataFrame:
    """Per subject rater x dimension, counts of (subject level, reference level) pairs on shared units."""
    s_where, r_where, params = _sides(filters, subject_role, reference_role)
    return con.execute(pair_confusion_sql(s_where, r_where), params).df()


def shared_units_sql(subject_where: str, reference_where: str, same_side: bool) -> str:
    """SQL of `shared_units` for the two sides' ratings conditions."""
    if same_side:
        # Raters of one role against each other: a count per unit over a window is several times faster here
        # than joining back millions of units (measured at 25M ratings).
        return f"""WITH x AS (
    SELECT rater_id, task_id, rubric, dimension, ({subject_where}) AS is_subject,
           coalesce(({reference_where}), false) AS is_reference,
           count(*) FILTER (WHERE {reference_where}) OVER (PARTITION BY task_id, rubric, dimension, target) AS n_reference
    FROM ratings
    WHERE value_index IS NOT NULL AND (({subject_where}) OR ({reference_where}))
), per_task AS (
    SELECT rater_id, rubric, dimension, task_id, count(*) AS k
    FROM x
    WHERE is_subject AND n_reference - CAST(is_reference AS INTEGER) >= 1
    GROUP BY ALL
)
SELECT rater_id, rubric, dimension, sum(k) AS n_units, count(*) AS n_tasks
FROM per_task
GROUP BY ALL
ORDER BY ALL"""
    return f"""WITH u AS (
    SELECT task_id, rubric, dimension, target, count(*) AS n_reference
    FROM ratings WHERE value_index IS NOT NULL AND {reference_where}
    GROUP BY ALL
), s AS (
    SELECT task_id, rubric, dimension, target, rater_id, coalesce(({reference_where}), false) AS is_reference
    FROM ratings WHERE value_index IS NOT NULL AND {subject_where}
), shared AS (
    SELECT s.* FROM s JOIN u USING (task_id, rubric, dimension, target)
    WHERE u.n_reference - CAST(s.is_reference AS INTEGER) >= 1
), per_task AS (
    SELECT rater_id, rubric, dimension, task_id, count(*) AS k FROM shared GROUP BY ALL
), units AS (
    SELECT DISTINCT task_id, rubric, dimension, target FROM shared
)
SELECT rater_id, rubric, dimension, sum(k) AS n_units, count(*) AS n_tasks FROM per_task GROUP BY ALL
UNION ALL
SELECT NULL, rubric, dimension, count(*), count(DISTINCT task_id) FROM units GROUP BY ALL
ORDER BY rubric, dimension, rater_id NULLS FIRST"""


def shared_units(
    con: duckdb.DuckDBPyConnection, filters: Filters, subject_role: str | None, reference_role: str | None
) -> pd.DataFrame:
    """Units (and tasks) a subject rater shares with a rater of the reference side (rater_id NULL: whole dimension).

    Assumes one rating per rater per unit. The whole-dimension rows are there only when the sides differ.
    """
    s_where, s_params = role_filter(filters, None if subject_role is None else (subject_role,)).where()
    r_where, r_params = reference_filter(filters, reference_role).where()
    same = subject_role == reference_role
    if same:
        params = s_params + r_params + r_params + s_params + r_params
    else:
        params = r_params + r_params + s_params
    return con.execute(shared_units_sql(s_where, r_where, same), params).df()


def ranking_pairs_sql(subject_where: str, reference_where: str) -> str:
    """SQL of `ranking_pairs` for the two sides' ratings conditions."""
    return f"""WITH rank_dims AS (
    SELECT rubric, dimension FROM dimensions WHERE kind = 'ranking'
), s AS (
    SELECT task_id, rubric, dimension, target, rater_id, value_index AS sv
    FROM ratings JOIN rank_dims USING (rubric, dimension)
    WHERE value_index IS NOT NULL AND {subject_where}
), r AS (
    SELECT task_id, rubric, dimension, target, rater_id AS reference_id, value_index AS rv
    FROM ratings JOIN rank_dims USING (rubric, dimension)
    WHERE value_index IS NOT NULL AND {reference_where}
), p AS (
    SELECT s.rater_id, r.reference_id, task_id, rubric, dimension, target, s.sv, r.rv
    FROM s JOIN r USING (task_id, rubric, dimension, target)
    WHERE s.rater_id <> r.reference_id
)
SELECT a.rater_id, a.rubric, a.dimension,
       count(*) FILTER (WHERE sign(a.sv - b.sv) * sign(a.rv - b.rv) > 0) AS concordant,
       count(*) FILTER (WHERE sign(a.sv - b.sv) * sign(a.rv - b.rv) < 0) AS discordant,
       count(*) FILTER (WHERE a.sv = b.sv AND a.rv <> b.rv) AS tied_subject,
       count(*) FILTER (WHERE a.sv <> b.sv AND a.rv = b.rv) AS tied_reference,
       count(*) FILTER (WHERE a.sv = b.sv AND a.rv = b.rv) AS tied_both
FROM p a JOIN p b
  ON a.rater_id = b.rater_id AND a.reference_id = b.reference_id AND a.task_id = b.task_id
 AND a.rubric = b.rubric AND a.dimension = b.dimension AND a.target < b.target
GROUP BY a.rater_id, a.rubric, a.dimension
ORDER BY a.rubric, a.dimension, a.rater_id"""


def ranking_pairs(
    con: duckdb.DuckDBPyConnection, filters: Filters, subject_role: str | None, reference_role: str | None
) -> pd.DataFrame:
    """Per subject rater x ranking dimension, item pairs within a task by (dis)agreement of their order."""
    s_where, r_where, params = _sides(filters, subject_role, reference_role)
    return con.execute(ranking_pairs_sql(s_where, r_where), params).df()


def rater_pair_confusion_sql(where: str) -> str:
    """SQL of `rater_pair_confusion` for a ratings condition (rubric and dimension bound last)."""
    return f"""WITH r AS (
    SELECT task_id, target, rater_id, role, value_index
    FROM ratings
    WHERE value_index IS NOT NULL AND {where} AND rubric = ? AND dimension = ?
)
SELECT a.rater_id AS rater_a, b.rater_id AS rater_b, a.role AS role_a, b.role AS role_b,
       a.value_index AS index_a, b.value_index AS index_b, count(*) AS n
FROM r a JOIN r b USING (task_id, target)
WHERE a.rater_id < b.rater_id
GROUP BY ALL
ORDER BY ALL"""


def rater_pair_confusion(con: duckdb.DuckDBPyConnection, filters: Filters, rubric: str, dimension: str) -> pd.DataFrame:
    """For one dimension, confusion counts of every pair of raters (rater_a < rater_b) on shared units."""
    where, params = filters.where()
    return con.execute(rater_pair_confusion_sql(where), [*params, rubric, dimension]).df()


def unit_level_counts_sql(subject_where: str, reference_where: str, dimension_units: bool = False) -> str:
    """SQL of `unit_pairs` for the two sides' ratings conditions (bound first: levels, levels, bits per level);
    with `dimension_units`, also a row per dimension (rater_id NULL) with its distinct shared units and tasks."""
    if dimension_units:
        tail = """, j AS MATERIALIZED (
    SELECT s.*, u.code, u.m, u.m_scale FROM s JOIN u USING (task_id, rubric, dimension, target)
)
SELECT rater_id, rubric, dimension, value_index AS subject_index, is_reference, code, m, m_scale, count(*) AS n,
       NULL AS n_tasks
FROM j
GROUP BY ALL
UNION ALL
SELECT NULL, rubric, dimension, NULL, NULL, NULL, NULL, NULL, count(DISTINCT (task_id, target)), count(DISTINCT task_id)
FROM j
WHERE m - CAST(is_reference AS INTEGER) >= 1
GROUP BY rubric, dimension
ORDER BY ALL"""
    else:
        tail = """
SELECT s.rater_id, s.rubric, s.dimension, s.value_index AS subject_index, s.is_reference, u.code, u.m, u.m_scale,
       count(*) AS n
FROM s JOIN u USING (task_id, rubric, dimension, target)
GROUP BY ALL
ORDER BY ALL"""
    return f"""WITH u AS (
    -- a unit's reference level counts packed in one integer, `bits` bits per level (decoded and checked in Python)
    SELECT task_id, rubric, dimension, target, count(*) AS m, count(*) FILTER (WHERE value_index < ?) AS m_scale,
           sum(CASE WHEN value_index < ? THEN CAST(1 AS BIGINT) << (? * value_index) ELSE 0 END) AS code
    FROM ratings WHERE value_index IS NOT NULL AND {reference_where}
    GROUP BY task_id, rubric, dimension, target
), s AS (
    SELECT task_id, rubric, dimension, target, rater_id, value_index,
           coalesce(({reference_where}), false) AS is_reference
    FROM ratings WHERE value_index IS NOT NULL AND {subject_where}
){tail}"""


def _multi_target_dimensions(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """Dimensions with ratings on more than one target (where a rater can share several units of one task)."""
    return con.execute(
        "SELECT rubric, dimension FROM ratings WHERE value_index IS NOT NULL GROUP BY ALL "
        "HAVING min(target) <> max(target) ORDER BY ALL"
    ).fetchall()


def _decode(df: pd.DataFrame, sizes: dict, width: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(rows x width) reference counts on each dimension's own levels of `unit_level_counts` rows, without the
    subject's own rating, and each row's number of levels; None if a count overflowed its bits."""
    bits = 62 // max(width, 1)
    shifts = bits * np.arange(width, dtype=np.int64)
    counts = (df["code"].to_numpy(np.int64)[:, None] >> shifts) & ((1 << bits) - 1)
    if not np.array_equal(counts.sum(axis=1), df["m_scale"].to_numpy(np.int64)):
        return None  # more ratings of one level on a unit than `bits` can hold
    q = np.array([sizes[k] for k in zip(df["rubric"], df["dimension"], strict=True)], dtype=np.int64)
    counts[np.arange(width)[None, :] >= q[:, None]] = 0  # off the dimension's scale: not a level
    a = df["subject_index"].to_numpy(np.int64)
    own = df["is_reference"].to_numpy(bool) & (a < q)
    counts[np.flatnonzero(own), a[own]] -= 1  # one rating per rater per unit: the subject's own is this one
    return counts, q


def _patterns(df: pd.DataFrame, counts: np.ndarray, q: np.ndarray) -> pd.DataFrame:
    """`value_patterns` from `unit_level_counts` rows whose two sides are the same ratings, all on the scale.

    Each unit appears once per rating on it (m times), so the units with a pattern are its rows' n over m.
    """
    own = df["subject_index"].to_numpy(np.int64)
    counts = counts.copy()
    mine = np.flatnonzero(df["is_reference"].to_numpy(bool) & (own < q))
    counts[mine, own[mine]] += 1  # the unit's full counts again
    keys = ["rubric", "dimension", "code", "m"]
    per = df.groupby(keys, sort=True, as_index=False).agg(n=("n", "sum"), row=("_row", "first"))
    index = per["row"].to_numpy()
    return pd.DataFrame(
        {
            "rubric": per["rubric"],
            "dimension": per["dimension"],
            "counts": [counts[i, : q[i]].tolist() for i in index],
            "n_units": per["n"].to_numpy(np.int64) // per["m"].to_numpy(np.int64),
        }
    )


def unit_pairs(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    subject_role: str | None,
    reference_role: str | None,
    dimension_units: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None] | None:
    """`pair_confusion`, `shared_units` (per rater; per dimension too with `dimension_units`) and
    `value_patterns`, from per-unit level counts.

    A subject rating of level a on a unit whose reference ratings have level counts c is paired with c - e_a
    (itself removed when it is a reference rating), so the frames are those of the self-join without forming
    every pair. The patterns only when both sides are the same ratings (one role, no rater or date filter),
    else None. None overall when a unit holds more ratings of one level than the packed counts can (use the
    other functions).
    """
    s_where, s_params = role_filter(filters, None if subject_role is None else (subject_role,)).where()
    r_where, r_params = reference_filter(filters, reference_role).where()
    sizes = {(r, d): q for r, d, q in con.execute("SELECT rubric, dimension, len(levels) FROM dimensions").fetchall()}
    width = max(sizes.values(), default=1)
    params = [width, width, 62 // max(width, 1), *r_params, *r_params, *s_params]
    df = con.execute(unit_level_counts_sql(s_where, r_where, dimension_units), params).df()
    if dimension_units:  # rows with rater_id NULL are per dimension; the union made the pair columns nullable
        per_dimension = df.loc[df["rater_id"].isna(), ["rater_id", "rubric", "dimension", "n", "n_tasks"]]
        per_dimension = per_dimension.rename(columns={"n": "n_units"})
        df = df[df["rater_id"].notna()].drop(columns="n_tasks").reset_index(drop=True)
        df = df.astype(
            {"subject_index": "int64", "is_reference": bool, "code": "int64", "m": "int64", "m_scale": "int64"}
        )
    known = np.array([k in sizes for k in zip(df["rubric"], df["dimension"], strict=True)], dtype=bool)
    df = df[known].reset_index(drop=True)  # ratings of a dimension without a scale are not compared
    decoded = _decode(df, sizes, width)
    if decoded is None:
        return None
    counts, q = decoded
    patterns = None
    a = df["subject_index"].to_numpy(np.int64)
    own = df["is_reference"].to_numpy(np.int64) * (a < q)
    on_scale = bool((a < q).all()) and np.array_equal(df["m"].to_numpy(np.int64), counts.sum(axis=1) + own)
    if (s_where, s_params) == (r_where, r_params) and on_scale:
        patterns = _patterns(df.assign(_row=np.arange(len(df))), counts, q)
    n = df["n"].to_numpy(np.int64)
    keys = ["rater_id", "rubric", "dimension"]
    rows, levels = np.nonzero(counts)
    confusion = (
        df.loc[rows, [*keys, "subject_index"]]
        .assign(reference_index=levels, n=counts[rows, levels] * n[rows])
        .groupby([*keys, "subject_index", "reference_index"], sort=True, as_index=False)["n"]
        .sum()
    )
    is_shared = df["m"].to_numpy(np.int64) - df["is_reference"].to_numpy(np.int64) >= 1
    shared = df[is_shared].groupby(keys, sort=True, as_index=False)["n"].sum().rename(columns={"n": "n_units"})
    # With one target per (task, dimension) a rater's shared units are all in different tasks.
    shared["n_tasks"] = shared["n_units"]
    multi = [
        (r, d)
        for r, d in _multi_target_dimensions(con)
        if filters.rubric in (None, r) and (not filters.dimensions or d in filters.dimensions)
    ]
    for rubric in sorted({r for r, _ in multi}):
        dims = tuple(d for r, d in multi if r == rubric)
        exact = shared_units(con, filters.but(rubric=rubric, dimensions=dims), subject_role, reference_role)
        exact = exact[exact["rater_id"].notna()]
        replaced = (shared["rubric"] == rubric) & shared["dimension"].isin(dims)
        shared = pd.concat([shared[~replaced], exact[shared.columns]], ignore_index=True)
    shared = shared.sort_values(keys, kind="stable").reset_index(drop=True)
    if dimension_units:
        shared = pd.concat([per_dimension.astype({"rater_id": object, "n_tasks": "int64"}), shared], ignore_index=True)
    return confusion, shared, patterns
