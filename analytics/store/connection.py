"""Opening the DuckDB store: where it lives, creating and migrating it, and errors a user can act on."""

from __future__ import annotations

import os
import re
from pathlib import Path

import duckdb

from analytics.core.queries import Query
from analytics.store.migrations import migrate

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DB = ROOT / "data" / "concord.duckdb"


class StoreError(RuntimeError):
    """The store cannot be opened or used; the message says why in words a user can act on."""


class StoreInUse(StoreError):
    """Another process (usually the running dashboard) holds the store read-write."""


# DuckDB's memory budget for a store's queries, when whoever runs the dashboard or the command sets it (DuckDB's own
# default is 80% of the machine's memory, which a 1M-task CSV load then used: 13.4 GB; with 3GB it peaked at
# 3.1 GB for 8% more time, and spilled to a folder beside the store; bench/RESULTS.md).
MEMORY_LIMIT_ENV = "CONCORD_MEMORY_LIMIT"
_MEMORY = re.compile(r"\d+(\.\d+)?\s*(MB|GB|MiB|GiB)")


def memory_limit() -> str | None:
    """$CONCORD_MEMORY_LIMIT ("3GB", "2500MB", ...), or None (DuckDB's default); StoreError when it is malformed."""
    raw = os.environ.get(MEMORY_LIMIT_ENV, "").strip()
    if not raw:
        return None
    if not _MEMORY.fullmatch(raw):
        raise StoreError(f"{MEMORY_LIMIT_ENV} must be an amount like 3GB or 2500MB, not {raw!r}")
    return raw


def db_path(path: str | os.PathLike | None = None) -> Path:
    """The store file: the argument, else $CONCORD_DB, else data/concord.duckdb."""
    return Path(path or os.environ.get("CONCORD_DB") or DEFAULT_DB)


def open_store(path: str | os.PathLike | None = None, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open (and on first use create and migrate) the store; StoreError says why it cannot be opened."""
    p = db_path(path)
    if read_only and not p.exists():
        raise StoreError(f"The store {p} does not exist yet: load some data first.")
    if not read_only:
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            why = "a file is in the way" if isinstance(e, FileExistsError | NotADirectoryError) else e.strerror or e
            raise StoreError(f"The store {p} cannot be created: its folder cannot be made ({why}).") from e
    had_wal = Path(f"{p}.wal").exists()  # replaying a write-ahead log adds blocks the file does not hold yet
    try:
        con = duckdb.connect(str(p), read_only=read_only)
    except duckdb.Error as e:
        message = _explain_io_error(p, e)
        raise (StoreInUse if message.startswith(IN_USE.format(p=p)) else StoreError)(message) from e
    try:
        # DuckDB's own progress bar would write over the command line's output (and a long migration's wait).
        con.execute("SET enable_progress_bar = false")
        limit = memory_limit()
        if limit:
            con.execute(f"SET memory_limit = '{limit}'")  # checked above: digits and a unit only
        if not had_wal:
            _check_not_truncated(con, p)
        if not read_only:
            migrate(con)
            _check_writable(p)
    except duckdb.Error as e:  # e.g. its folder is read-only (no write-ahead log), or another program's tables
        con.close()
        raise StoreError(_explain_io_error(p, e)) from e
    except StoreError:
        con.close()
        raise
    return con


def _check_writable(p: Path) -> None:
    """StoreError when a read-write store cannot be written: an open that found nothing to migrate wrote nothing,
    and the first load would fail instead (DuckDB writes its write-ahead log beside the file)."""
    if str(p) == ":memory:":
        return
    for where in (p.parent, p):
        if where.exists() and not os.access(where, os.W_OK):
            raise StoreError(_explain_io_error(p, PermissionError(f"{where}: permission denied")))


# What to do about a store that cannot be read: the one sentence the pages and the command line give.
DAMAGED_HINT = "Restore it from a backup, or start a new store by setting CONCORD_DB (or --db) to another file."


def damaged_message(p: Path, what: str, detail: str) -> str:
    """The one message for a corrupt or truncated store: what happened and what to do."""
    return f"The store {p} is not a readable DuckDB file ({what}): {detail.rstrip('.')}. {DAMAGED_HINT}"


HEADER_BYTES = 3 * 4096  # DuckDB's file header before block 0


def _check_not_truncated(con: duckdb.DuckDBPyConnection, p: Path) -> None:
    """StoreError when the file is shorter than the blocks it holds (a copy that stopped half way opens, then
    fails on every query that reaches a missing block). Only without a write-ahead log at open."""
    if str(p) == ":memory:" or not p.is_file():
        return
    try:
        row = con.execute("SELECT block_size, total_blocks, used_blocks FROM pragma_database_size() LIMIT 1").fetchall()
    except duckdb.Error:
        return
    if not row or any(v is None for v in row[0]):
        return
    block, total, used = (int(v) for v in row[0])
    size = p.stat().st_size
    # A whole file holds every block (a free last block may already be cut off); fewer bytes than the blocks in
    # use is certainly a cut. In between, free blocks may sit among used ones: find the last block data uses.
    if size >= HEADER_BYTES + (total - 1) * block:
        return
    needed = HEADER_BYTES + used * block
    if size >= needed:
        try:
            needed = HEADER_BYTES + (_last_data_block(con) + 1) * block
        except duckdb.Error as e:  # its metadata is past the end of the file
            raise StoreError(damaged_message(p, "truncated", _first_line(e))) from e
    if size < needed:
        raise StoreError(damaged_message(p, "truncated", f"the file is {size:,} bytes, its blocks need {needed:,}"))


TABLE_LAST_BLOCK = Query("table_last_block", "SELECT max(block_id) FROM pragma_storage_info($table)")


def _last_data_block(con: duckdb.DuckDBPyConnection) -> int:
    """The highest block id any table's data is stored in (-1: none)."""
    top = -1
    tables = con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()").fetchall()
    for (table,) in tables:
        found = TABLE_LAST_BLOCK.bind(table=table).rows(con)[0][0]
        top = max(top, -1 if found is None else int(found))
    return top


def is_damage(e: BaseException) -> bool:
    """Whether an engine error means the store file is damaged (a missing or unreadable block)."""
    text = str(e).lower()
    return isinstance(e, duckdb.Error) and any(
        m in text for m in ("could not read enough bytes", "corrupt", "checksum", "not a valid duckdb")
    )


def _first_line(e: Exception) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


IN_USE = "The store {p} is in use by another program (it holds the file lock)."


_SHORT_READ = re.compile(r"could not read enough bytes.*attempted to read (\d+) bytes from location (\d+)", re.I | re.S)


def _reads_past_the_end(p: Path, text: str) -> bool:
    """Whether DuckDB failed reading bytes past the end of the file: a copy cut short (its metadata among the lost
    blocks, so the open itself fails)."""
    found = _SHORT_READ.search(text)
    if not found or str(p) == ":memory:" or not p.is_file():
        return False
    return int(found.group(1)) + int(found.group(2)) > p.stat().st_size


def _explain_io_error(p: Path, e: Exception) -> str:
    text = str(e)
    if "could not set lock" in text.lower() or "conflicting lock" in text.lower():  # not "block": corruption
        return IN_USE.format(p=p) + " Close the other Concord process or choose another store with --db / CONCORD_DB."
    if _reads_past_the_end(p, text):
        return damaged_message(p, "truncated", _first_line(e))
    corrupt = ("not a valid DuckDB", "corrupt", "checksum", "database file", "could not read enough bytes")
    if any(m.lower() in text.lower() for m in corrupt):
        return damaged_message(p, "corrupt or another kind of file", _first_line(e))
    if any(m in text.lower() for m in ("permission denied", "operation not permitted", "read-only")):
        return (
            f"The store {p} cannot be written (permission denied or a read-only file system). "
            "Check the permissions of the file and its folder, or choose another store with --db / CONCORD_DB."
        )
    return f"The store {p} cannot be opened: {_first_line(e)}"
