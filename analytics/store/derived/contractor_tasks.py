"""Contractor tasks kept at ingest: per contractor, task and dimension, the sums the rater effects and drift read;
per contractor, task and rubric, drift's agreement and the spread halo reads.

Leniency from the other contractors, central tendency and drift's weekly agreement each compared every contractor
rating with the other contractors' ratings of its unit: a scan and join of every contractor rating (16-22M at 1M
tasks) on every filter change. This table holds one row per contractor, task and dimension with those figures
summed over the task's units (its targets), so a page groups it instead. `contractor_rubric_tasks` holds one row
per contractor, task and rubric: the same agreement sums over the rubric's dimensions (drift reads them when no
dimension filter applies) and halo's spread of one item's ratings across the rubric's ordered dimensions (halo
reads every ordered dimension of the rubric, whatever dimensions a filter selects).

The other contractors on a unit count whatever their date and whoever the filter selects: the filters choose which
of a contractor's tasks are read, not who they are compared with (as reference_pairs keeps a researcher's label
whatever its date). A unit's figures change when another contractor rates it, so every change of stored ratings
recomputes the rows of the tasks it touches, inside its transaction: a load, an unload, a rater directory's
renames, a scale re-read (analytics/store/derived/refresh.py calls `redo` for each). Raters whose id starts with 'anon:' are neither counted nor compared with.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import duckdb

from analytics.core import packing as pk
from analytics.store.derived import contractor_days

CREATE = """CREATE TABLE contractor_tasks (
    task_key INTEGER NOT NULL, dim_key INTEGER NOT NULL, rater_key INTEGER NOT NULL, rater_id VARCHAR NOT NULL,
    role VARCHAR NOT NULL, rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, submitted_at TIMESTAMP,
    n_ratings INTEGER NOT NULL, agree_sum DOUBLE, agree_n INTEGER NOT NULL, diff_sum DOUBLE,
    inner_n INTEGER NOT NULL, v_sum DOUBLE, v_sq DOUBLE)"""
# Per row, over the contractor's ratings of the task's units on the dimension (one per target):
#   n_ratings           ratings with a level;
#   agree_sum, agree_n  over ratings of units another contractor rated: the sum of the share of the others who
#                       gave the same level, and their number (drift's consensus);
#   diff_sum            over the same ratings: the sum of the value minus the others' mean value (leniency);
#   inner_n             ratings at neither end of the scale (central tendency);
#   v_sum, v_sq         the sum and sum of squares of the values (central tendency's variances).
# A value is the level's number on the scale, else its position (as in analytics/store/derived/contractor_days.py).
CREATE_RUBRIC = """CREATE TABLE contractor_rubric_tasks (
    task_key INTEGER NOT NULL, rater_key INTEGER NOT NULL, rater_id VARCHAR NOT NULL, role VARCHAR NOT NULL,
    rubric VARCHAR NOT NULL, submitted_at TIMESTAMP, agree_sum DOUBLE, agree_n INTEGER NOT NULL,
    spread_sum DOUBLE NOT NULL, items INTEGER NOT NULL)"""
# Per row: submitted_at, agree_sum and agree_n over the contractor_tasks rows of the task and rubric; over the
# contractor's items (targets) of the task rated on three or more ordered absolute dimensions (ORDERED), the sum of
# each item's sample standard deviation of its scale positions (value_index / (q - 1)) across those dimensions,
# and the number of such items (0: no halo figure for the task).
TABLES = ("contractor_tasks", "contractor_rubric_tasks")

# Ordered absolute dimensions (a condition on the dimensions table): comparison scales have no "lenient"
# direction, two-level scales no inside, and a rank (1 = best) places an item against the task's other items, so
# its mean is fixed by their number. Leniency, central tendency and halo read these.
ORDERED = "NOT is_comparison AND measure <> 'nominal' AND kind <> 'ranking' AND len(levels) >= 3"
# The contractors' ratings in scope with their value v, scale size q and whether the scale is ORDERED.
_RATED = (
    """WITH scale AS (
    SELECT k.dim_key, len(d.levels) AS q, d.level_values, """
    + ORDERED
    + """ AS ordered
    FROM dimensions d JOIN dimension_keys k USING (rubric, dimension)),
c AS (
    SELECT r.task_key, r.dim_key, r.target_key, r.rater_key, r.rubric, r.submitted_at, r.value_index, s.q, s.ordered,
           coalesce(s.level_values[r.value_index + 1], r.value_index) AS v
    FROM ratings r LEFT JOIN scale s USING (dim_key)
    WHERE r.role = 'contractor' AND r.value_index IS NOT NULL AND NOT starts_with(r.rater_id, 'anon:')
      AND {scope})"""
)
# Each rating reads how many ratings of its unit share its level (own): from each unit's level counts packed in one
# integer ($bits per level, analytics/core/packing.py; one GROUP BY of units, no second join), or, when
# the scale is too wide or a unit could hold 2^$bits ratings, from a GROUP BY of unit levels.
_PACKED = """,
units AS (SELECT dim_key, task_key, target_key, count(*) AS n_unit, sum(v) AS total,
                 sum(CAST(1 AS HUGEINT) << ($bits * value_index)) AS code FROM c GROUP BY ALL),
own AS (SELECT c.*, u.n_unit, u.total,
               CAST((u.code >> ($bits * c.value_index)) & ((CAST(1 AS HUGEINT) << $bits) - 1) AS BIGINT) AS n_level
        FROM c JOIN units u USING (dim_key, task_key, target_key))"""
_EXACT = """,
levels AS (SELECT dim_key, task_key, target_key, value_index, count(*) AS n_level FROM c GROUP BY ALL),
units AS (SELECT dim_key, task_key, target_key, count(*) AS n_unit, sum(v) AS total FROM c GROUP BY ALL),
own AS (SELECT c.*, u.n_unit, u.total, l.n_level
        FROM c JOIN units u USING (dim_key, task_key, target_key)
               JOIN levels l USING (dim_key, task_key, target_key, value_index))"""
_ROWS = """,
sums AS (
    SELECT task_key, dim_key, rater_key, min(submitted_at) AS submitted_at, count(*) AS n_ratings,
           sum(CASE WHEN n_unit >= 2 THEN (n_level - 1) / (n_unit - 1) END) AS agree_sum,
           count(*) FILTER (WHERE n_unit >= 2) AS agree_n,
           sum(CASE WHEN n_unit >= 2 THEN v - (total - v) / (n_unit - 1) END) AS diff_sum,
           count(*) FILTER (WHERE value_index > 0 AND value_index < q - 1) AS inner_n,
           sum(v) AS v_sum, sum(v * v) AS v_sq
    FROM own GROUP BY task_key, dim_key, rater_key)
INSERT INTO contractor_tasks
SELECT s.task_key, s.dim_key, s.rater_key, k.rater_id, 'contractor', d.rubric, d.dimension, s.submitted_at,
       s.n_ratings, s.agree_sum, s.agree_n, s.diff_sum, s.inner_n, s.v_sum, s.v_sq
FROM sums s JOIN rater_keys k USING (rater_key) JOIN dimension_keys d USING (dim_key)"""


_RUBRIC = """,
items AS (
    SELECT rater_key, rubric, task_key, stddev_samp(value_index / (q - 1)) AS spread
    FROM c WHERE ordered GROUP BY rater_key, rubric, task_key, target_key HAVING count(*) >= 3),
halo AS (SELECT rater_key, rubric, task_key, sum(spread) AS spread_sum, count(*) AS items FROM items GROUP BY ALL),
tasks AS (
    SELECT task_key, rater_key, rater_id, rubric, min(submitted_at) AS submitted_at, sum(agree_sum) AS agree_sum,
           sum(agree_n) AS agree_n
    FROM contractor_tasks WHERE {scope} GROUP BY task_key, rater_key, rater_id, rubric)
INSERT INTO contractor_rubric_tasks
SELECT t.task_key, t.rater_key, t.rater_id, 'contractor', t.rubric, t.submitted_at, t.agree_sum, t.agree_n,
       coalesce(h.spread_sum, 0), coalesce(h.items, 0)
FROM tasks t LEFT JOIN halo h USING (rater_key, rubric, task_key)"""


def rubric_sql(scope: str) -> str:
    """The INSERT of the contractor_rubric_tasks rows of the tasks `scope` selects (after their contractor_tasks
    rows are in)."""
    return _RATED.format(scope=scope) + _RUBRIC.format(scope=scope)


def fill_sql(scope: str, packed: bool) -> str:
    """The INSERT of the rows of the units `scope` selects, in the packed form (parameter $bits) or the exact one."""
    return _RATED.format(scope=scope) + (_PACKED if packed else _EXACT) + _ROWS


def packing(con: duckdb.DuckDBPyConnection) -> int:
    """Bits per level for the packed form, 0 for the exact one: packing needs a narrow enough scale, and a unit
    holds one rating per rater, so fewer raters than 2^bits cannot overflow a level's count."""
    bits = pk.packing_bits(pk.scale_width(con))
    n_raters = int(con.execute("SELECT count(*) FROM rater_keys").fetchall()[0][0])
    return bits if bits and n_raters < (1 << bits) else 0


CHUNK_RATINGS = 4_000_000  # ratings per fill statement: bounds the memory of a large load's fill


def fill(con: duckdb.DuckDBPyConnection, scope: str = "TRUE", params: dict | None = None) -> None:
    """Insert the rows of the units `scope` selects, from the ratings stored now: in ranges of task keys (units
    are within one task) of about CHUNK_RATINGS ratings each, so that a load of 24M ratings does not hold every
    unit's counts at once."""
    params = params or {}
    lo, hi, n = con.execute(
        f"SELECT min(task_key), max(task_key), count(*) FROM ratings WHERE {scope}", params
    ).fetchall()[0]
    if not n:
        return
    bits = packing(con)
    chunk = f"({scope}) AND task_key >= $lo AND task_key < $hi"
    sql, by_rubric = fill_sql(chunk, bool(bits)), rubric_sql(chunk)
    step = (hi - lo) // math.ceil(n / CHUNK_RATINGS) + 1
    for start in range(lo, hi + 1, step):
        con.execute(sql, {**params, **({"bits": bits} if bits else {}), "lo": start, "hi": start + step})
        con.execute(by_rubric, {**params, "lo": start, "hi": start + step})


def redo(con: duckdb.DuckDBPyConnection, scope: str, params: dict) -> None:
    """Recompute the rows of the items `scope` (refresh.SCOPE or refresh.RUBRIC) selects, from the ratings stored now,
    and the contractor days they make (analytics/store/derived/contractor_days.py)."""
    contractor_days.touched(con, scope, params)
    for table in TABLES:
        con.execute(f"DELETE FROM {table} WHERE {scope}", params)
    fill(con, scope, params)
    contractor_days.redo(con, scope, params)


def migration_steps() -> list[str | Callable[[duckdb.DuckDBPyConnection], None]]:
    """Migration 11: the table, filled from the ratings already stored."""
    return [CREATE, CREATE_RUBRIC, fill]
