"""Contractor-researcher confusion cells per contractor task, kept at ingest: what the per-rater figures of
contractors against researchers (and the researcher coverage) group, so a filter change groups a small table
instead of pairing.

The per-rater query of analytics/agreement/pair_plans.py met every contractor rating with its unit's researcher labels
and listed each task's cells, on every filter change. This table holds, per
contractor, task, dimension and submission time, the sorted confusion cells of the contractor's pairs on the task
(subject position * CELL + reference position, one per pair in reference_pairs) and the targets they are on. The
filters read the same columns as on the ratings (rubric, dimension, rater, role, submitted_at); a task whose
ratings by one contractor carry several submission times has several rows (`one_row` false), merged at query time.

Rows are a function of a task's kept pairs, so every change of the pairs recomputes the rows of the tasks it
touches, after reference_pairs has followed it (analytics/store/derived/refresh.py).
"""

from __future__ import annotations

import duckdb

# A cell is subject position * CELL + reference position; positions are below CELL on any scale (levels of a
# catalogued or inferred scale number at most a few hundred).
CELL = 1 << 20

CREATE = """CREATE TABLE reference_tasks (
    task_key INTEGER NOT NULL, dim_key INTEGER NOT NULL, rater_key INTEGER NOT NULL, rater_id VARCHAR NOT NULL,
    role VARCHAR NOT NULL, rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, submitted_at TIMESTAMP,
    cells BIGINT[] NOT NULL, targets INTEGER[] NOT NULL, one_row BOOLEAN NOT NULL)"""
# Per row, over the contractor's kept pairs on the task and dimension submitted at `submitted_at`:
#   cells    every pair's cell, sorted (a unit with two researcher labels gives two);
#   targets  the distinct target keys of those pairs (the units with a pair), sorted;
#   one_row  whether this is the contractor's one row of the task and dimension (else merged at query time).

# A row is its contractor's one row of the task and dimension unless `multi` lists the three (cheaper than a
# window count per partition, as in analytics/store/derived/rater_tasks.py).
_FILL = f"""INSERT INTO reference_tasks
WITH g AS MATERIALIZED (
    SELECT task_key, dim_key, rater_key, rater_id, role, rubric, dimension, submitted_at,
           list_sort(list(CAST(value_index AS BIGINT) * {CELL} + reference_index)) AS cells,
           list_sort(list_distinct(list(target_key))) AS targets
    FROM reference_pairs
    WHERE {{scope}}
    GROUP BY task_key, dim_key, rater_key, rater_id, role, rubric, dimension, submitted_at
), multi AS (SELECT task_key, dim_key, rater_key FROM g GROUP BY ALL HAVING count(*) > 1)
SELECT g.*, m.task_key IS NULL FROM g LEFT JOIN multi m USING (task_key, dim_key, rater_key)"""


def redo(con: duckdb.DuckDBPyConnection, scope: str, params: dict) -> None:
    """Recompute the rows of the tasks `scope` (refresh.SCOPE or refresh.RUBRIC) selects, from the kept pairs
    as they are now."""
    con.execute(f"DELETE FROM reference_tasks WHERE {scope}", params)
    con.execute(_FILL.format(scope=scope), params)


def migration_statements() -> list[str]:
    """Migration 12: the table, filled from the pairs already kept."""
    return [CREATE, _FILL.format(scope="TRUE")]
