"""Rater tasks kept at ingest: per rater, role, rubric, task and submission time, how many ratings, how many with a
level, and the longest duration; what the Overview's counts group instead of every rating.

The Overview's activity (ratings, tasks and raters per rubric and role, the rater table) and its volume per week
each grouped the filtered ratings per rater and task on every filter change (24M ratings at 1M tasks). Ratings of
one row share their submission time, so a date filter keeps or drops a row whole, as it would its ratings; the
rubric, role and rater filters read the same columns as on the ratings. A dimension filter cannot be answered
from these rows (`answers`): the readers then read the ratings.

Every change of stored ratings recomputes the rows of the tasks it touches (analytics/store/derived/refresh.py): a load, an
unload, a rater directory's renames, and a scale re-read (a declared scale can leave a rating without a level).
"""

from __future__ import annotations

import duckdb

from analytics.core.filters import Filters

CREATE = """CREATE TABLE rater_tasks (
    task_key INTEGER NOT NULL, rater_key INTEGER NOT NULL, rater_id VARCHAR NOT NULL, role VARCHAR NOT NULL,
    rubric VARCHAR NOT NULL, submitted_at TIMESTAMP, n_ratings INTEGER NOT NULL, n_valued INTEGER NOT NULL,
    duration_s DOUBLE, one_row BOOLEAN NOT NULL)"""
# Per row, over the rater's ratings of the task under the role and rubric submitted at `submitted_at`:
#   n_ratings   ratings (with a level or not);
#   n_valued    ratings with a level (value_index not NULL);
#   duration_s  the longest duration;
#   one_row     whether this is the rater's one row of the task under the role and rubric (else a reader merges).

# A row is its rater's one row of the task under the role and rubric unless `multi` lists the four (a join: a
# window count per partition was most of the fill).
_FILL = """INSERT INTO rater_tasks
WITH g AS MATERIALIZED (
    SELECT task_key, rater_key, rater_id, role, rubric, submitted_at, count(*) AS n_ratings,
           count(value_index) AS n_valued, max(duration_s) AS duration_s
    FROM ratings
    WHERE {scope}
    GROUP BY task_key, rater_key, rater_id, role, rubric, submitted_at
), multi AS (SELECT task_key, rater_key, role, rubric FROM g GROUP BY ALL HAVING count(*) > 1)
SELECT g.*, m.task_key IS NULL FROM g LEFT JOIN multi m USING (task_key, rater_key, role, rubric)"""


def answers(filters: Filters) -> bool:
    """Whether the kept rows can answer `filters`: every filter but a dimension filter reads their columns."""
    return not filters.dimensions


def redo(con: duckdb.DuckDBPyConnection, scope: str, params: dict) -> None:
    """Recompute the rows of the tasks `scope` (refresh.SCOPE or refresh.RUBRIC) selects."""
    con.execute(f"DELETE FROM rater_tasks WHERE {scope}", params)
    con.execute(_FILL.format(scope=scope), params)


def migration_statements() -> list[str]:
    """Migration 13: the table, filled from the ratings already stored."""
    return [CREATE, _FILL.format(scope="TRUE")]
