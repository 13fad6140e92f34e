"""Level counts kept at ingest: per load, rater, role, dimension, level and day, how many ratings; what the level
distributions and the raters' marginals group instead of every rating.

The Distributions page's level distribution and rater levels, and the agreement report's rater marginals, each
grouped the filtered ratings by dimension, rater and level on every filter change (24M ratings at 1M tasks). Their
counts per day are a few hundred thousand rows: the sidebar's dates are whole days (analytics/core/filters.py), so
`submitted_at` here is the day of the ratings' submission (a DATE, compared as its midnight) and a date filter
keeps or drops a row whole, as it would its ratings; the other filters read the same columns as on the ratings.
Ratings without a level are kept too (value_index NULL); the readers choose.

Rows carry their load (ingest_id), like the kept pairs (analytics/store/derived/reference_pairs.py): a load adds its rows, an
unload takes them out, a rater directory's renames redo the loads they touched, and a scale re-read redoes its
dimension (positions moved); analytics/store/derived/refresh.py calls each.
"""

from __future__ import annotations

import duckdb

CREATE = """CREATE TABLE level_counts (
    ingest_id INTEGER NOT NULL, dim_key INTEGER NOT NULL, rater_key INTEGER NOT NULL, rater_id VARCHAR NOT NULL,
    role VARCHAR NOT NULL, rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, value_index INTEGER,
    submitted_at DATE, n BIGINT NOT NULL)"""
# Grouped on the integer keys and the day as a DATE, named after: faster than grouping on the text columns and
# date_trunc's timestamps.
_FILL = """INSERT INTO level_counts
SELECT g.ingest_id, g.dim_key, g.rater_key, k.rater_id, g.role, d.rubric, d.dimension, g.value_index, g.day, g.n
FROM (SELECT ingest_id, dim_key, rater_key, role, value_index, CAST(submitted_at AS DATE) AS day, count(*) AS n
      FROM ratings WHERE {scope}
      GROUP BY ingest_id, dim_key, rater_key, role, value_index, day) AS g
JOIN rater_keys k USING (rater_key) JOIN dimension_keys d USING (dim_key)"""


def add_load(con: duckdb.DuckDBPyConnection, ingest_id: int) -> int:
    """Add the counts of load `ingest_id`'s ratings (inside its transaction); return how many rows."""
    return int(con.execute(_FILL.format(scope="ingest_id = $id"), {"id": ingest_id}).fetchall()[0][0])


def remove_load(con: duckdb.DuckDBPyConnection, ingest_id: int) -> int:
    """Take out load `ingest_id`'s counts (inside the unload's transaction); return how many rows."""
    return int(con.execute("DELETE FROM level_counts WHERE ingest_id = $id", {"id": ingest_id}).fetchall()[0][0])


def redo_loads(con: duckdb.DuckDBPyConnection, ingest_ids: list[int]) -> None:
    """Recompute the counts of loads whose rows changed raters (a rater directory merged or split ids)."""
    if not ingest_ids:
        return
    p = {"ids": list(ingest_ids)}
    con.execute("DELETE FROM level_counts WHERE list_contains($ids, ingest_id)", p)
    con.execute(_FILL.format(scope="list_contains($ids, ingest_id)"), p)


def redo_dimension(con: duckdb.DuckDBPyConnection, rubric: str, dimension: str) -> None:
    """Recompute one dimension's counts after its stored ratings were re-read on a new scale (positions moved)."""
    p = {"rubric": rubric, "dimension": dimension}
    con.execute("DELETE FROM level_counts WHERE rubric = $rubric AND dimension = $dimension", p)
    con.execute(_FILL.format(scope="rubric = $rubric AND dimension = $dimension"), p)


def migration_statements() -> list[str]:
    """Migration 14: the table, filled from the ratings already stored."""
    return [CREATE, _FILL.format(scope="TRUE")]
