"""The dataset version (the key of every page cache), the store's identity and its row counts."""

from __future__ import annotations

import duckdb

from analytics.core.queries import Query


def dataset_version(con: duckdb.DuckDBPyConnection) -> int:
    """A number that changes whenever the store's data changes: the key for page caches."""
    return int(con.execute("SELECT value FROM meta WHERE key = 'dataset_version'").fetchall()[0][0])


STORE_IDENTITY = Query("store_identity", "SELECT store_id FROM store_identity LIMIT 1")


def store_identity(con: duckdb.DuckDBPyConnection) -> str | None:
    """The random id written into the store when it was made (migration 17); None for a store not yet migrated."""
    try:
        rows = STORE_IDENTITY.rows(con)
    except duckdb.CatalogException:  # opened read-only before this release migrated it: no such table
        return None
    return str(rows[0][0]) if rows else None


def bump_version(con: duckdb.DuckDBPyConnection) -> None:
    """Mark the data as changed (call inside the transaction that changed it)."""
    con.execute("UPDATE meta SET value = CAST(CAST(value AS BIGINT) + 1 AS VARCHAR) WHERE key = 'dataset_version'")


def table_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Row counts of the main tables."""
    names = ("tasks", "task_items", "submissions", "ratings", "quarantine", "ingest_log")
    return {n: int(con.execute(f"SELECT count(*) FROM {n}").fetchall()[0][0]) for n in names}


def next_ingest_id(con: duckdb.DuckDBPyConnection) -> int:
    """The id of the next load: above every id used, also by files unloaded since."""
    row = con.execute(
        """SELECT greatest((SELECT coalesce(max(ingest_id), 0) FROM ingest_log),
                           (SELECT coalesce(max(ingest_id), 0) FROM unloads)) + 1"""
    ).fetchall()
    return int(row[0][0])
