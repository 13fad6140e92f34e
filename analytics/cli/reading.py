"""The one place the command line opens the store: read-only for a read command (report, agreement, consistency,
effects, model, alerts, datasets, and any later one), read-write for a load, or the running dashboard that holds
it: a load is handed to it (analytics/cli/handover.py), a read command reads a snapshot it writes
(analytics/cli/snapshot.py), with the same output and exit codes as on the store itself."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import duckdb

from analytics import store
from analytics.cli import handover
from analytics.cli.flags import wait_seconds
from analytics.cli.inbox import lock_holder
from analytics.cli.snapshot import SnapshotError, open_snapshot

# What the dashboard says of a store whose blocks cannot be read (app.py), said here by every command.
DAMAGE_WHAT, DAMAGE_DETAIL = "corrupt or truncated", "a part of it cannot be read"


def damaged(db: str | os.PathLike | None) -> str:
    """The one message for a damaged store (the pages give the same), naming the store the command used."""
    return store.damaged_message(store.db_path(db), DAMAGE_WHAT, DAMAGE_DETAIL)


def open_for_reading(db: str | os.PathLike | None) -> duckdb.DuckDBPyConnection:
    """The store `db` (--db, $CONCORD_DB or the default) for a read command: opened read-only, or, while a running
    dashboard holds it, a snapshot of it that the dashboard writes for this command (taken with no write half
    done, deleted once open). StoreError says why neither can be had: the store is missing, held by another
    program, damaged (the one damaged message), or the dashboard could not make a snapshot in time."""
    path = store.db_path(db)
    try:
        try:
            con, writer = open_or_find_writer(path, wait_seconds(), read_only=True)
        except handover.HandoverRefused as refused:  # no heartbeat is believed there: the store itself, if free
            return _open_refused_inbox(path, refused)
        if writer is None:
            assert con is not None
            return con
        if sys.stderr.isatty():
            print(f"The dashboard (process {writer.pid}) holds {path}: reading a snapshot of it.", file=sys.stderr)
        snapshot, result = handover.ask_snapshot(path, wait_seconds(), writer)
        return open_snapshot(snapshot, result)
    except SnapshotError as e:
        raise store.StoreError(damaged(db) if e.damaged else f"{path}: {e}") from e
    except (handover.HandoverError, ValueError) as e:
        raise store.StoreError(str(e)) from e


def _open_refused_inbox(path: Path, refused: handover.HandoverRefused) -> duckdb.DuckDBPyConnection:
    """The store opened read-only beside an inbox folder that is not the user's alone; StoreError with the
    folder's problem when a process holds the store (its snapshot cannot be asked for through that folder)."""
    try:
        return store.open_store(path, read_only=True)
    except store.StoreInUse as e:
        raise store.StoreError(f"{e} {refused}") from e


def open_or_find_writer(
    db: Path, wait_s: float, read_only: bool = False
) -> tuple[duckdb.DuckDBPyConnection | None, handover.Writer | None]:
    """The store opened (read-only for a read command), or the dashboard serving it: (connection, None) or
    (None, writer). Another command-line load holding the store is waited for, up to `wait_s`; any other holder
    is StoreInUse."""
    # A serving dashboard is asked even if the store could be opened: two processes writing one DuckDB file lose
    # rows, one reading a file another writes may see a write half done, and the file lock alone is not a sure
    # sign (docs/limits.md).
    deadline, told = time.monotonic() + wait_s, False
    while True:
        writer = handover.serving_writer(db)
        if writer is not None:
            return None, writer
        try:
            return store.open_store(db, read_only=read_only), None
        except store.StoreInUse as e:
            holder = lock_holder(e)
            writer = handover.serving_writer(db, holder)  # a dashboard that started serving meanwhile
            if writer is not None:
                return None, writer
            if holder is None or not handover.load_running(db, holder):
                raise
            if time.monotonic() >= deadline:
                raise handover.HandoverError(
                    f"Another load of {db} (process {holder}) is still running after {wait_s:g} s: run the "
                    "command again when it has finished, or wait longer with --wait SECONDS (or CONCORD_LOAD_WAIT)."
                ) from None
            if not told:
                print(
                    f"Waiting for another load of this store (pid {holder}) to finish, up to {wait_s:g} s "
                    "(--wait or CONCORD_LOAD_WAIT to change)…",
                    file=sys.stderr,
                )
                told = True
            time.sleep(min(handover.POLL_S, max(deadline - time.monotonic(), 0.0)))
