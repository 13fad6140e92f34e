"""Snapshots for read commands while the dashboard holds the store (analytics/cli/reading.py asks for them).

The dashboard writes a copy of the store into its private hand-over folder (`<store>.inbox/snapshots/<id>.duckdb`,
0600 in a 0700 folder), named by the request's id. It takes the copy under the write lock (analytics/store/tx.py
WRITE_LOCK), so no write of the dashboard is half done: after a CHECKPOINT the store file holds every committed
write, and a child process copies it (a handle closed in the dashboard's own process would drop DuckDB's lock on
the store: docs/limits.md); when the file changed during the copy or cannot be checkpointed, COPY FROM DATABASE
writes the copy in one transaction instead. The result names no path and quotes nothing of the store: the copy's
name, the store's identity and the dataset version, which the command line checks in the copy it opens.

The command line opens the copy read-only and deletes it at once (its connection keeps reading the open file; the
space is freed when it closes, also when the command is stopped). A copy nobody opened (the command line was
stopped while waiting) is removed by the dashboard after KEEP_SNAPSHOTS_S.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import duckdb

from analytics import store
from analytics.cli.inbox import FILE_MODE, REQUEST_ID, remove_entry
from analytics.core.queries import Query

KEEP_SNAPSHOTS_S = 3600.0  # a copy still there after an hour was not collected: its command line is gone
ATTACH_COPY = Query("cli_snapshot_attach", "ATTACH $path AS concord_cli_snapshot")
COPY_VERSION = Query(
    "cli_snapshot_version", "SELECT value FROM concord_cli_snapshot.main.meta WHERE key = 'dataset_version'"
)


class SnapshotError(RuntimeError):
    """A snapshot could not be made or opened; the message says why in words a user can act on. `damaged`: the
    store itself cannot be read (the command line then gives the one message for a damaged store)."""

    def __init__(self, message: str, damaged: bool = False) -> None:
        super().__init__(message)
        self.damaged = damaged


def snapshot_file(request_id: str) -> str:
    """The name of the copy made for the request `request_id` (ids are checked: no dots, no slashes)."""
    return f"{request_id}.duckdb"


# --- the dashboard's side ------------------------------------------------------------------------------------


def write_snapshot(cur: duckdb.DuckDBPyConnection, folder: Path, request_id: str) -> dict[str, Any]:
    """Copy the store `cur` reads into `folder` for the request `request_id`: the result a request gets (the copy's
    name, the store's identity and dataset version), or the one reason it could not be made."""
    if not REQUEST_ID.match(request_id):
        return {"error": "the request was refused: its id is not a request id", "kind": "refused"}
    source = _database_file(cur)
    target = folder / snapshot_file(request_id)
    if source is None:
        return {"error": "the dashboard's store is in memory: there is no file to read", "kind": "failure"}
    if problem := _room_for(source, folder):
        return {"error": problem, "kind": "failure"}
    try:
        with store.WRITE_LOCK:  # no write of this process is half done while the copy is taken
            identity, version = store.store_identity(cur), store.dataset_version(cur)
            if not _copy_file(cur, source, target, (identity, version)):
                version = _copy_database(cur, folder, target)
    except duckdb.Error as e:
        remove_entry(target)
        if store.is_damage(e):
            return {"error": "the store cannot be read whole", "kind": "damaged"}
        return {"error": f"the dashboard could not copy the store ({type(e).__name__})", "kind": "failure"}
    except OSError as e:
        remove_entry(target)
        return {
            "error": f"the dashboard could not write the copy ({e.strerror or type(e).__name__})",
            "kind": "failure",
        }
    return {"snapshot": target.name, "store_id": identity, "dataset_version": version}


def _database_file(cur: duckdb.DuckDBPyConnection) -> Path | None:
    """The file of the database `cur` reads (None: in memory)."""
    rows = cur.execute(
        "SELECT path FROM system.main.duckdb_databases() WHERE database_name = system.main.current_database()"
    ).fetchall()
    return Path(rows[0][0]) if rows and rows[0][0] else None


def _room_for(source: Path, folder: Path) -> str | None:
    """Why a copy of the store would not fit beside it (None: it fits): the file and its write-ahead log."""
    wal = Path(f"{source}.wal")
    needed = source.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    free = shutil.disk_usage(folder).free
    if needed > free:
        return (
            f"a copy of the store ({needed / 1e9:,.1f} GB) does not fit on its disk ({free / 1e9:,.1f} GB free): "
            "stop the dashboard to read the store directly, or free some space"
        )
    return None


def _copy_file(cur: duckdb.DuckDBPyConnection, source: Path, target: Path, key: tuple[str | None, int]) -> bool:
    """Checkpoint the store and copy its file to `target` (created 0600 without following a link) in a child
    process; whether the copy is whole: the file did not change meanwhile and the copy holds `key`."""
    try:
        cur.execute("CHECKPOINT")
    except duckdb.Error:
        return False  # e.g. a transaction of another program's kind is open: COPY FROM DATABASE instead
    before = store.file_state(source)
    if before[2]:  # committed data still in the write-ahead log only
        return False
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE))
    done = subprocess.run(["cp", "--", str(source), str(target)], capture_output=True, check=False)
    if done.returncode == 0 and store.file_state(source) == before and store.copy_key(target) == key:
        return True
    remove_entry(target)
    return False


def _copy_database(cur: duckdb.DuckDBPyConnection, folder: Path, target: Path) -> int:
    """Write the store into a new database at `target` in one transaction (COPY FROM DATABASE); its version."""
    tmp = folder / f".{target.name}.{secrets.token_hex(8)}.tmp"
    database = cur.execute("SELECT system.main.current_database()").fetchall()[0][0]
    try:
        ATTACH_COPY.bind(path=str(tmp)).run(cur)
        try:
            cur.execute(f'COPY FROM DATABASE "{database}" TO concord_cli_snapshot')
            version = int(COPY_VERSION.rows(cur)[0][0])
        finally:
            cur.execute("DETACH concord_cli_snapshot")
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, target)
    finally:
        for left in (tmp, Path(f"{tmp}.wal")):  # a copy that failed half way leaves nothing behind
            remove_entry(left)
    return version


def forget_old_snapshots(folder: Path, keep_s: float = KEEP_SNAPSHOTS_S) -> None:
    """Remove the copies (and temp files) in `folder` older than `keep_s`: their command lines are gone."""
    cutoff = time.time() - keep_s
    with os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    remove_entry(Path(entry.path))


# --- the command line's side ---------------------------------------------------------------------------------


def open_snapshot(path: Path, result: dict[str, Any]) -> duckdb.DuckDBPyConnection:
    """The copy at `path` opened read-only and deleted at once; SnapshotError unless it is this user's regular
    file (a link is not followed) holding the identity and dataset version the result carries."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise SnapshotError("the dashboard's copy of the store is not this user's regular file")
        con = store.open_store(path, read_only=True)
    except (OSError, store.StoreError) as e:
        damaged = store.DAMAGED_HINT in str(e)  # the copy is the store's bytes: the store is damaged too
        raise SnapshotError(f"the dashboard's copy of the store cannot be opened ({type(e).__name__})", damaged) from e
    finally:
        remove_entry(path)  # the open connection keeps reading it; nothing is left behind
    try:
        found = (store.store_identity(con), store.dataset_version(con))
    except (duckdb.Error, IndexError, ValueError) as e:
        if store.is_damage(e):
            con.close()
            raise SnapshotError("the store cannot be read whole", damaged=True) from e
        found = None
    if found != (result.get("store_id"), result.get("dataset_version")):
        con.close()
        raise SnapshotError("the dashboard's copy of the store does not hold the version it announced")
    return con
