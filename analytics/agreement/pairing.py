"""The one pairing as SQL: the ratings of two sides (analytics/agreement/sides.py) joined into pairs, and the
queries read straight off those pairs.

Every page, export and command that compares two raters' ratings reads the queries built here or in
analytics/agreement/pair_plans.py (the pairing counted per task signature). Contractors against researchers read
the pairs kept at ingest (analytics/store/derived/reference_pairs.py) instead of joining the ratings.
"""

from __future__ import annotations

import duckdb

from analytics.agreement import sides as sd
from analytics.agreement.sides import Sides
from analytics.core import packing as pk
from analytics.core.filters import Filters
from analytics.core.queries import Query, run
from analytics.store import keys

UNIT = ("task_id", "rubric", "dimension", "target")
# Grains a pair query may be grouped by (an allow-list: these become SQL identifiers).
GRAINS = {
    "rater": ("rater_a", "rubric", "dimension"),
    "dimension": ("rubric", "dimension"),
    "rater_pair": ("rater_a", "rater_b", "rubric", "dimension"),
}


# The same grains on the ratings' integer keys (analytics/store/keys.py): queries group by these and name them last.
KEYED_GRAINS = {
    "rater": ("rater_a", "dim_key"),
    "dimension": ("dim_key",),
    "rater_pair": ("key_a", "key_b", "dim_key"),
}
UNIT_KEYS = "task_key, dim_key, target_key"  # a unit on the keys: the join of every pairing
# A pair's columns on the keys, beside its named ones: the unit and both raters' keys (rater_a's is key_a).
PAIR_KEYS = f"{UNIT_KEYS}, key_a, key_b"
TAU_COLUMNS = ("concordant", "discordant", "tied_subject", "tied_reference", "tied_both")


def side_ctes(
    sides: Sides,
    columns: str,
    join_dims: str = "",
    carry: tuple[str, ...] = (),
    only: str = "TRUE",
    named: bool = True,
) -> tuple[str, dict]:
    """The subject (s), reference (r) and pairs CTEs; `carry` names rating columns kept on both sides of a pair
    (as `<column>_a`, `<column>_b`; internal names only, never user input); `only`, a condition on both sides'
    ratings besides the filters (DuckDB does not push one on the pairs below their join); without `named`, the
    pairs may lack rater_a, rater_b, task_id and target (their keys are there)."""
    s_where, s_params = sides.subject.where_named("", "s_")
    r_where, r_params = sides.reference.where_named("", "r_")
    order, ranked = order_join(sides), order_select(sides)
    columns = ", ".join([columns, *carry])
    carried = "".join(f", s.{c} AS {c}_a, r.{c} AS {c}_b" for c in carry)
    subjects = f"""WITH s AS (
    SELECT {UNIT_KEYS}, task_id, rubric, dimension, target, rater_id, rater_key{ranked}, {columns}
    FROM ratings{join_dims}{order}
    WHERE value_index IS NOT NULL AND {s_where} AND {only}
)"""
    if not join_dims and only == "TRUE" and set(carry) <= set(KEPT_CARRY) and sd.reads_reference_pairs(sides):
        return subjects + _kept_pairs_cte(sides, carry, named), s_params
    sql = f"""{subjects}, r AS (
    SELECT {UNIT_KEYS}, rater_id, rater_key{ranked}, {columns}
    FROM ratings{join_dims}{order}
    WHERE value_index IS NOT NULL AND {r_where} AND {only}
), pairs AS (
    SELECT s.rater_id AS rater_a, r.rater_id AS rater_b, task_id, rubric, dimension, target, {UNIT_KEYS},
           s.rater_key AS key_a, r.rater_key AS key_b, s.value_index AS index_a, r.value_index AS index_b{carried}
    FROM s JOIN r USING ({UNIT_KEYS})
    WHERE {before(sides, "s", "r")}
)"""
    return sql, {**s_params, **r_params}


# Each pair of raters once: rater_a's id before rater_b's, compared on the ids' ranks, joined to both sides of a
# symmetric pairing (integers in the join's hash table, not strings: at a million tasks the rater ids were 370 MB
# of the 2.1 GB `--pairs` peak). Sides of two roles pair every subject with every other reference rater.
RATER_ORDER = """
    JOIN (SELECT rater_key, CAST(rank() OVER (ORDER BY rater_id) AS INTEGER) AS rater_order FROM rater_keys)
    USING (rater_key)"""


def order_join(sides: Sides) -> str:
    """The join giving each rating its rater's rank (`rater_order`), for a symmetric pairing; else nothing."""
    return RATER_ORDER if sides.symmetric else ""


def order_select(sides: Sides) -> str:
    """The rank column a side selects beside rater_key (`order_join`), or nothing."""
    return ", rater_order" if sides.symmetric else ""


def before(sides: Sides, a: str, b: str) -> str:
    """SQL: relation `a`'s rater pairs with relation `b`'s (each pair once when symmetric; never a rater with
    itself)."""
    return f"{a}.rater_order < {b}.rater_order" if sides.symmetric else f"{a}.rater_key <> {b}.rater_key"


# Rating columns the kept pairs hold for both sides (analytics/store/derived/reference_pairs.py).
KEPT_CARRY = {"submitted_at": ("submitted_at", "reference_submitted_at")}


def _kept_pairs_cte(sides: Sides, carry: tuple[str, ...], named: bool = True) -> str:
    """The pairs CTE of contractors against researchers from the pairs kept at ingest (same columns as the
    self-join's; the subject filter reads the kept subject columns). Without `named`, no rater, task or target
    names: DuckDB keeps a join whose columns nobody reads."""
    where, _ = sides.subject.where_named("p", "s_")
    carried = "".join(f", p.{KEPT_CARRY[c][0]} AS {c}_a, p.{KEPT_CARRY[c][1]} AS {c}_b" for c in carry)
    if not named:
        return f""", pairs AS (
    -- contractor-researcher pairs kept at ingest (reference_pairs), on their keys
    SELECT p.rubric, p.dimension, {UNIT_KEYS},
           p.rater_key AS key_a, p.reference_key AS key_b, p.value_index AS index_a, p.reference_index AS index_b{carried}
    FROM reference_pairs p
    WHERE {where}
)"""
    return f""", pairs AS (
    -- contractor-researcher pairs kept at ingest (reference_pairs), named by the key tables
    SELECT p.rater_id AS rater_a, k.rater_b, t.task_id, p.rubric, p.dimension, g.target, {UNIT_KEYS},
           p.rater_key AS key_a, p.reference_key AS key_b, p.value_index AS index_a, p.reference_index AS index_b{carried}
    FROM reference_pairs p
    JOIN task_keys t USING (task_key)
    JOIN target_keys g USING (target_key)
    JOIN (SELECT rater_key AS reference_key, rater_id AS rater_b FROM rater_keys) k USING (reference_key)
    WHERE {where}
)"""


def pair_ctes(sides: Sides, carry: tuple[str, ...] = (), named: bool = True) -> tuple[str, dict]:
    """The pairing as SQL CTEs (`WITH s AS ..., r AS ..., pairs AS (...)`) and its named parameters, for a
    query elsewhere that aggregates the pairs its own way (the pairing itself is only written here); a query
    that reads only the pairs' keys passes `named=False` (no rater_a, rater_b, task_id or target promised)."""
    return side_ctes(sides, "value_index", carry=carry, named=named)


def multi_target_query() -> Query:
    """Dimensions with more than one target (where a task can hold several units of one rater), and whether they
    have exactly two (`two`: the rater-pair grain's task items then hold every rating, a rater rating a unit once)."""
    return Query(
        "multi_target_dimensions",
        """SELECT rubric || chr(31) || dimension AS dimension_key, targets = 2 AS two
FROM (SELECT dim_key, count(DISTINCT target_key) AS targets FROM ratings WHERE value_index IS NOT NULL
      GROUP BY dim_key HAVING count(DISTINCT target_key) > 1)
JOIN dimension_keys USING (dim_key)
ORDER BY ALL""",
    )


def multi_target(con: duckdb.DuckDBPyConnection, queries: list | None = None) -> list[str]:
    """Keys (rubric, chr(31), dimension) of the dimensions with more than one target (logged in `queries`)."""
    return run(con, multi_target_query(), queries)["dimension_key"].tolist()


def selected(keys: list[str], filters: Filters) -> list[str]:
    """The dimension keys (rubric, chr(31), dimension) of `keys` that `filters`' rubric and dimensions select."""
    return [key for key in keys if filters.selects(*key.split(chr(31), 1))]


# A condition on dim_key: one of the dimensions with several targets ($multi). A semi-join on a tiny table,
# applied to pairs: `list_contains($multi, rubric || chr(31) || dimension)` was pushed into the scan and built a
# string per rating.
MULTI = """dim_key IN (
    SELECT dim_key FROM dimension_keys WHERE list_contains($multi, rubric || chr(31) || dimension))"""


def named_groups(grain: str, fields: str, source: str = "grouped", rater_key: bool = False) -> str:
    """The final SELECT of a keyed query: `source`'s groups with their names (dimension keys to rubric and
    dimension; with `rater_key`, the subject's rater key to rater_a; pairs of raters' key_a and key_b to rater_a
    and rater_b), then `fields`. In no order: `signatures` sorts groups and their signatures itself (cheaper than
    sorting on the signature lists in SQL)."""
    names = ", ".join(GRAINS[grain])
    raters = " JOIN (SELECT rater_key, rater_id AS rater_a FROM rater_keys) USING (rater_key)" if rater_key else ""
    if grain == "rater_pair":  # grouped on the raters' integer keys, not their ids (faster)
        raters = "".join(
            f" JOIN (SELECT rater_key AS key_{s}, rater_id AS rater_{s} FROM rater_keys) USING (key_{s})" for s in "ab"
        )
    return f"""
SELECT {names}, {fields}
FROM {source} JOIN dimension_keys USING (dim_key){raters}"""


def ranking_query(sides: Sides, grain: str) -> Query:
    """Per group of `grain` and task: item pairs both sides order alike, oppositely or tie, grouped by tasks."""
    group = ", ".join(f"a.{k}" for k in GRAINS[grain])
    # ranking dimensions by key: joined by name, every rating of the filter was read first
    join = f" SEMI JOIN ({keys.RANKING_DIM_KEYS}) USING (dim_key)"
    head, params = side_ctes(sides, "value_index", join)
    sql = f"""{head}, item_pairs AS (
    SELECT {group}, a.task_key,
           count(*) FILTER (WHERE sign(a.index_a - b.index_a) * sign(a.index_b - b.index_b) > 0) AS concordant,
           count(*) FILTER (WHERE sign(a.index_a - b.index_a) * sign(a.index_b - b.index_b) < 0) AS discordant,
           count(*) FILTER (WHERE a.index_a = b.index_a AND a.index_b <> b.index_b) AS tied_subject,
           count(*) FILTER (WHERE a.index_a <> b.index_a AND a.index_b = b.index_b) AS tied_reference,
           count(*) FILTER (WHERE a.index_a = b.index_a AND a.index_b = b.index_b) AS tied_both
    FROM pairs a JOIN pairs b
      ON a.key_a = b.key_a AND a.key_b = b.key_b AND a.task_key = b.task_key
     AND a.dim_key = b.dim_key AND a.target_key < b.target_key
    GROUP BY {group}, a.task_key
)
SELECT {", ".join(GRAINS[grain])}, {", ".join(TAU_COLUMNS)}, count(*) AS n_tasks
FROM item_pairs
GROUP BY ALL
ORDER BY ALL"""
    return Query(f"ranking_pairs_{sides.name}_by_{grain}", sql, params)


def unit_pairs_query(sides: Sides) -> Query:
    """Every pair itself (one row per pair of ratings), for drilling into cases on a few units."""
    head, params = side_ctes(sides, "value_index")
    return Query(f"pair_rows_{sides.name}", f"{head}\nSELECT * EXCLUDE ({PAIR_KEYS}) FROM pairs ORDER BY ALL", params)


CASE_COLUMNS = ("value", "submitted_at")


def case_pairs_query(sides: Sides, disagreeing: bool = True) -> Query:
    """The pairs of `unit_pairs_query` with both ratings' stored values and submission times (value_a,
    value_b, submitted_at_a, submitted_at_b); with `disagreeing`, only pairs on different levels
    (index_a <> index_b). The Disagreements case list and the Feedback report's cases read it."""
    head, params = side_ctes(sides, "value_index", carry=CASE_COLUMNS)
    where = " WHERE index_a <> index_b" if disagreeing else ""
    sql = f"{head}\nSELECT * EXCLUDE ({PAIR_KEYS}) FROM pairs{where} ORDER BY ALL"
    return Query(f"case_pairs_{sides.name}", sql, params)


def shared_tasks_query(sides: Sides, bound: dict[str, int]) -> Query:
    """How many tasks the subject side rated (`subject_tasks`) and how many of them have a pair with the
    reference side on some unit (`paired_tasks`), per rubric, under the filter rules above. Contractors against
    researchers without a dimension filter read the rater tasks and the cells per contractor task kept at ingest
    (analytics/store/derived/rater_tasks.py, analytics/store/derived/reference_tasks.py). `bound` is keys.task_key_bound's."""
    tail = """
SELECT rubric, subject_tasks, coalesce(paired_tasks, 0) AS paired_tasks
FROM rated LEFT JOIN paired USING (rubric)
ORDER BY rubric"""
    tasks = keys.distinct_tasks("task_key")
    if sd.reads_reference_pairs(sides) and not sides.subject.dimensions:
        where, params = sides.subject.where_named("", "s_")
        sql = f"""WITH rated AS (
    SELECT rubric, {tasks} AS subject_tasks FROM rater_tasks WHERE n_valued > 0 AND {where} GROUP BY rubric
), paired AS (
    SELECT rubric, {tasks} AS paired_tasks FROM reference_tasks WHERE {where} GROUP BY rubric
){tail}"""
    else:
        head, params = side_ctes(sides, "value_index")
        sql = f"""{head}, rated AS (
    SELECT rubric, {tasks} AS subject_tasks FROM s GROUP BY rubric
), paired AS (
    SELECT rubric, {tasks} AS paired_tasks FROM pairs GROUP BY rubric
){tail}"""
    return Query(f"shared_tasks_{sides.name}", sql, {**params, **bound})


def data_queries() -> list[Query]:
    """The pairings' queries whose results depend on the stored ratings only, whatever the filters (the packing
    width and the dimensions with several targets): each reads every rating, so a page runs them once per dataset
    version and hands their results to the QueryLog of each computation (QueryLog.know)."""
    return [pk.scale_width_query(), multi_target_query()]
