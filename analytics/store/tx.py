"""The one way to write to the store: a transaction under the process's write lock, committed when its block ends
and rolled back when it raises; and the read-only transaction the Explore sandbox runs a query in."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import duckdb

# One writer at a time in this process. The dashboard's sessions write through cursors of one connection, and
# DuckDB's optimistic transactions would make concurrent writers fail each other ("Transaction conflict": a note
# saved during an upload, two uploads at once); every write transaction takes this lock, so writes queue instead.
WRITE_LOCK = threading.RLock()


@contextmanager
def write(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """A write transaction on `con`, holding the write lock until it ends: committed when the block ends, rolled
    back when anything raises in it (or the commit fails), and the exception raised again."""
    with WRITE_LOCK:
        con.execute("BEGIN TRANSACTION")
        try:
            yield con
            con.execute("COMMIT")
        except BaseException:
            _rollback(con)
            raise


@contextmanager
def read_only(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only transaction on `con` (DuckDB refuses any write in it), always rolled back when the block ends."""
    con.execute("BEGIN TRANSACTION READ ONLY")
    try:
        yield con
    finally:
        _rollback(con)


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    """End the transaction without its changes; DuckDB may have ended it already (after an error), which is fine."""
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass


def now() -> dt.datetime:
    """The time a write records (a feedback event, an issued plan): UTC, without a zone, as the store keeps
    timestamps."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)
