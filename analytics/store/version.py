"""The dataset version (the key of every page cache), the store's identity and its row counts."""

from __future__ import annotations

from pathlib import Path

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


def file_state(path: Path) -> tuple[int, int, int]:
    """A store file's size and modification time, and its write-ahead log's size (0: none): unchanged while a
    copy of it is taken means the copy is of one state."""
    st = path.stat()
    wal = Path(f"{path}.wal")
    return st.st_size, st.st_mtime_ns, wal.stat().st_size if wal.exists() else 0


def copy_key(path: Path) -> tuple[str | None, int] | None:
    """The (store identity, dataset version) a store file or copy holds; None when it cannot be read."""
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return None
    try:
        return store_identity(con), dataset_version(con)
    except (duckdb.Error, IndexError, ValueError):
        return None
    finally:
        con.close()
