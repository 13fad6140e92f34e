"""Contractor tasks kept at ingest: per contractor, task and dimension, the sums the rater effects and drift read.

Leniency from the other contractors, central tendency and drift's weekly agreement each compared every contractor
rating with the other contractors' ratings of its unit: a scan and join of every contractor rating (16-22M at 1M
tasks) on every filter change. This table holds one row per contractor, task and dimension with those figures
summed over the task's units (its targets), so a page groups it instead.

The other contractors on a unit count whatever their date and whoever the filter selects: the filters choose which
of a contractor's tasks are read, not who they are compared with (as reference_pairs keeps a researcher's label
whatever its date). A unit's figures change when another contractor rates it, so every change of stored ratings
recomputes the rows of the tasks it touches, inside its transaction: a load, an unload, a rater directory's
renames, a scale re-read (`redo`). Raters whose id starts with 'anon:' are neither counted nor compared with.
"""

from __future__ import annotations

import duckdb

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
# A value is the level's number on the scale, else its position (levels.VALUE).

_FILL = """INSERT INTO contractor_tasks
WITH c AS (
    SELECT r.task_key, r.dim_key, r.target_key, r.rater_key, r.rater_id, r.rubric, r.dimension, r.submitted_at,
           r.value_index, len(d.levels) AS q, coalesce(d.level_values[r.value_index + 1], r.value_index) AS v
    FROM ratings r LEFT JOIN dimensions d USING (rubric, dimension)
    WHERE r.role = 'contractor' AND r.value_index IS NOT NULL AND NOT starts_with(r.rater_id, 'anon:')
      AND {scope}),
levels AS (SELECT dim_key, task_key, target_key, value_index, count(*) AS n_level FROM c GROUP BY ALL),
units AS (SELECT dim_key, task_key, target_key, count(*) AS n_unit, sum(v) AS total FROM c GROUP BY ALL)
SELECT c.task_key, c.dim_key, c.rater_key, c.rater_id, 'contractor', c.rubric, c.dimension, min(c.submitted_at),
       count(*),
       sum(CASE WHEN u.n_unit >= 2 THEN (l.n_level - 1) / (u.n_unit - 1) END),
       count(*) FILTER (WHERE u.n_unit >= 2),
       sum(CASE WHEN u.n_unit >= 2 THEN c.v - (u.total - c.v) / (u.n_unit - 1) END),
       count(*) FILTER (WHERE c.value_index > 0 AND c.value_index < c.q - 1),
       sum(c.v), sum(c.v * c.v)
FROM c JOIN units u USING (dim_key, task_key, target_key) JOIN levels l USING (dim_key, task_key, target_key, value_index)
GROUP BY c.task_key, c.dim_key, c.rater_key, c.rater_id, c.rubric, c.dimension"""

# Conditions closed under units (a unit's ratings meet all or none), on columns both tables have: the tasks of
# some loads, one dimension, a list of tasks.
LOADS = "task_key IN (SELECT task_key FROM ratings WHERE list_contains($ids, ingest_id))"
DIMENSION = "rubric = $rubric AND dimension = $dimension"
TASKS = "list_contains($tasks, task_key)"


def redo(con: duckdb.DuckDBPyConnection, scope: str, params: dict) -> None:
    """Recompute the rows of the units `scope` (LOADS, DIMENSION or TASKS) selects, from the ratings stored now."""
    con.execute(f"DELETE FROM contractor_tasks WHERE {scope}", params)
    con.execute(_FILL.format(scope=scope), params)


def add_load(con: duckdb.DuckDBPyConnection, ingest_id: int) -> None:
    """The rows of the tasks load `ingest_id` rated, again (inside its transaction, after its ratings are in)."""
    redo(con, LOADS, {"ids": [ingest_id]})


def redo_loads(con: duckdb.DuckDBPyConnection, ingest_ids: list[int]) -> None:
    """The rows of the tasks the loads rated, again (their raters were renamed)."""
    if ingest_ids:
        redo(con, LOADS, {"ids": list(ingest_ids)})


def redo_dimension(con: duckdb.DuckDBPyConnection, rubric: str, dimension: str) -> None:
    """The rows of one dimension again (its stored ratings were re-read on a new scale)."""
    redo(con, DIMENSION, {"rubric": rubric, "dimension": dimension})


def load_tasks(con: duckdb.DuckDBPyConnection, ingest_id: int) -> list[int]:
    """The tasks load `ingest_id` rated: an unload reads them before it deletes the ratings, to redo them after."""
    rows = con.execute("SELECT DISTINCT task_key FROM ratings WHERE ingest_id = $id", {"id": ingest_id}).fetchall()
    return [k for (k,) in rows]


def redo_tasks(con: duckdb.DuckDBPyConnection, task_keys: list[int]) -> None:
    """The rows of these tasks again (after an unload)."""
    if task_keys:
        redo(con, TASKS, {"tasks": list(task_keys)})


def migration_statements() -> list[str]:
    """Migration 11: the table, filled from the ratings already stored."""
    return [CREATE, _FILL.format(scope="TRUE")]
