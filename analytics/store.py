"""The DuckDB store: connection, schema migrations, the rubric catalogue tables and the dataset version."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb

from analytics import (
    contractor_days,
    contractor_tasks,
    kept,
    keys,
    level_counts,
    people,
    rater_tasks,
    reference_pairs,
    reference_tasks,
    rubrics,
    tx,
)
from analytics.consistency import results as rule_results
from analytics.queries import Query

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DB = ROOT / "data" / "concord.duckdb"


class StoreError(RuntimeError):
    """The store cannot be opened or used; the message says why in words a user can act on."""


class StoreInUse(StoreError):
    """Another process (usually the running dashboard) holds the store read-write."""


def db_path(path: str | os.PathLike | None = None) -> Path:
    """The store file: the argument, else $CONCORD_DB, else data/concord.duckdb."""
    return Path(path or os.environ.get("CONCORD_DB") or DEFAULT_DB)


# Each migration is (version, statements). Never edit a released migration: append a new one.
# Each migration: SQL statements, or functions of the connection for steps that choose their SQL.
MIGRATIONS: list[tuple[int, Sequence[str | Callable[[duckdb.DuckDBPyConnection], None]]]] = [
    (
        1,
        [
            """CREATE TABLE ingest_log (
                ingest_id INTEGER PRIMARY KEY, file_name VARCHAR NOT NULL, content_hash VARCHAR NOT NULL UNIQUE,
                format VARCHAR NOT NULL, role_override VARCHAR, rows_read INTEGER NOT NULL,
                rows_loaded INTEGER NOT NULL, rows_quarantined INTEGER NOT NULL, tasks INTEGER NOT NULL,
                submissions INTEGER NOT NULL, loaded_at TIMESTAMP NOT NULL DEFAULT current_timestamp)""",
            """CREATE TABLE tasks (
                task_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL, prompt VARCHAR, context VARCHAR,
                metadata JSON, ingest_id INTEGER NOT NULL, PRIMARY KEY (task_id, rubric))""",
            """CREATE TABLE task_items (
                task_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL, item_id VARCHAR NOT NULL,
                position INTEGER, label VARCHAR, text VARCHAR, sources JSON, metadata JSON,
                ingest_id INTEGER NOT NULL, PRIMARY KEY (task_id, rubric, item_id))""",
            """CREATE TABLE submissions (
                submission_id VARCHAR PRIMARY KEY, task_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL,
                rater_id VARCHAR NOT NULL, role VARCHAR NOT NULL, status VARCHAR NOT NULL,
                reason VARCHAR, submitted_at TIMESTAMP, duration_s DOUBLE, flags JSON, comment VARCHAR,
                explanation VARCHAR, justification VARCHAR, ranking JSON, shown_first VARCHAR,
                details JSON, ingest_id INTEGER NOT NULL)""",
            """CREATE TABLE ratings (
                task_id VARCHAR NOT NULL, rater_id VARCHAR NOT NULL, role VARCHAR NOT NULL,
                rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, target VARCHAR NOT NULL DEFAULT '',
                value VARCHAR NOT NULL, value_index INTEGER, value_num DOUBLE, submitted_at TIMESTAMP,
                duration_s DOUBLE, comment VARCHAR, submission_id VARCHAR, ingest_id INTEGER NOT NULL)""",
            """CREATE TABLE dimensions (
                rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, label VARCHAR, kind VARCHAR NOT NULL,
                levels VARCHAR[] NOT NULL, coarse VARCHAR[] NOT NULL, targets VARCHAR[],
                dim_group VARCHAR, is_primary BOOLEAN NOT NULL, is_comparison BOOLEAN NOT NULL,
                source VARCHAR NOT NULL, PRIMARY KEY (rubric, dimension))""",
            """CREATE TABLE quarantine (
                ingest_id INTEGER NOT NULL, file_name VARCHAR NOT NULL, line INTEGER, record VARCHAR,
                field VARCHAR, raw_value VARCHAR, reason VARCHAR NOT NULL)""",
            """CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR)""",
            "INSERT INTO meta VALUES ('dataset_version', '0')",
        ],
    ),
    (
        2,
        [
            # Reviewers' notes on contractor-researcher disagreements (analytics/disagreements.py). Keyed by ids,
            # not by ingest, so a note survives re-ingests; status values are checked in save_note().
            """CREATE TABLE review_notes (
                task_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL,
                target VARCHAR NOT NULL DEFAULT '', contractor_id VARCHAR NOT NULL, researcher_id VARCHAR NOT NULL,
                status VARCHAR NOT NULL, note VARCHAR, reviewer VARCHAR,
                updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
                PRIMARY KEY (task_id, rubric, dimension, target, contractor_id, researcher_id))""",
        ],
    ),
    (
        3,
        [
            # Declared scales (DESIGN.md, canonical data): every dimension's level of measurement, each level's
            # number (NULL where a level has none; same length and order as levels) and its missing codes.
            "ALTER TABLE dimensions ADD COLUMN measure VARCHAR",
            "ALTER TABLE dimensions ADD COLUMN level_values DOUBLE[]",
            "ALTER TABLE dimensions ADD COLUMN missing VARCHAR[]",
            # Catalogue rows are rewritten by sync_catalogue(); inferred rows: numbers are values, text nominal.
            """UPDATE dimensions SET
                 measure = CASE WHEN len(levels) > 0 AND list_bool_and(
                                    list_transform(levels, lambda x: isfinite(TRY_CAST(x AS DOUBLE)))) IS TRUE
                                THEN 'ordinal' ELSE 'nominal' END,
                 level_values = list_transform(levels, lambda x: CASE WHEN isfinite(TRY_CAST(x AS DOUBLE))
                                                                    THEN TRY_CAST(x AS DOUBLE) END),
                 missing = []""",
            # Scales declared by scales files, as declared; rubric '*' applies to that dimension in every rubric
            # the catalogue does not know (also rubrics loaded later).
            """CREATE TABLE scale_declarations (
                rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, measure VARCHAR NOT NULL,
                levels VARCHAR[] NOT NULL, level_values DOUBLE[] NOT NULL, missing VARCHAR[] NOT NULL,
                file_name VARCHAR, declared_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
                PRIMARY KEY (rubric, dimension))""",
        ],
    ),
    (
        4,
        [
            # Files unloaded from the Data page (unload_file): the ingest_log row as it was, who and when. The
            # ingest_log row itself goes, so the same content can be loaded again.
            """CREATE TABLE unloads (
                ingest_id INTEGER PRIMARY KEY, file_name VARCHAR NOT NULL, content_hash VARCHAR NOT NULL,
                format VARCHAR NOT NULL, role_override VARCHAR, rows_read INTEGER NOT NULL,
                rows_loaded INTEGER NOT NULL, rows_quarantined INTEGER NOT NULL, tasks INTEGER NOT NULL,
                submissions INTEGER NOT NULL, loaded_at TIMESTAMP NOT NULL, unloaded_by VARCHAR,
                unloaded_at TIMESTAMP NOT NULL DEFAULT current_timestamp)""",
        ],
    ),
    # Integer keys of tasks, raters, dimensions and targets on every rating (analytics/keys.py): the ratings
    # table is rebuilt with them, so a store loaded before keys existed gets them once, when it is opened.
    (5, keys.migration_statements()),
    # Contractor-researcher pairs kept at ingest (analytics/reference_pairs.py), filled from the stored ratings.
    (6, reference_pairs.migration_statements()),
    # The rater directory (analytics/people.py): people, their aliases and the rows renamed to them.
    (7, people.MIGRATION),
    # The rubric documents' rules checked per submission (analytics/consistency/results.py).
    (8, rule_results.MIGRATION),
    # Guideline-change markers researchers add to read drift against (analytics/effects/markers.py); rubric NULL:
    # the marker applies to every rubric.
    (
        9,
        [
            """CREATE TABLE guideline_markers (
                marker_id INTEGER PRIMARY KEY, rubric VARCHAR, marked_on DATE NOT NULL, note VARCHAR NOT NULL,
                author VARCHAR, created_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"""
        ],
    ),
    # The kept pairs recomputed: a scale widened by a later load or declared over stored ratings left old positions
    # in them before reference_pairs.redo_dimension.
    (10, reference_pairs.rebuild_statements()),
    # Per contractor, task and dimension, the sums the rater effects and drift read (analytics/contractor_tasks.py).
    (11, contractor_tasks.migration_steps()),
    # Per contractor, task and dimension, the confusion cells of the kept pairs (analytics/reference_tasks.py).
    (12, reference_tasks.migration_statements()),
    # Per rater, role, rubric, task and submission time, the counts the Overview reads (analytics/rater_tasks.py).
    (13, rater_tasks.migration_statements()),
    # Per load, rater, role, dimension, level and day, the counts the level distributions read
    # (analytics/level_counts.py).
    (14, level_counts.migration_statements()),
    # Per contractor, dimension and day, the sums over tasks that central tendency and the consensus shift read
    # (analytics/contractor_days.py), from the contractor tasks of migration 11.
    (15, contractor_days.migration_steps()),
]

# The dimensions table's columns in order (migrations 1 and 3); write rows by these names.
DIMENSION_COLUMNS = (
    "rubric",
    "dimension",
    "label",
    "kind",
    "levels",
    "coarse",
    "targets",
    "dim_group",
    "is_primary",
    "is_comparison",
    "source",
    "measure",
    "level_values",
    "missing",
)
ALL_RUBRICS = "*"  # scale_declarations.rubric of a declaration without a rubric


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
        if not had_wal:
            _check_not_truncated(con, p)
        if not read_only:
            migrate(con)
    except duckdb.Error as e:  # e.g. its folder is read-only (no write-ahead log), or another program's tables
        con.close()
        raise StoreError(_explain_io_error(p, e)) from e
    except StoreError:
        con.close()
        raise
    return con


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


def _explain_io_error(p: Path, e: Exception) -> str:
    text = str(e)
    if "could not set lock" in text.lower() or "conflicting lock" in text.lower():  # not "block": corruption
        return IN_USE.format(p=p) + " Close the other Concord process or choose another store with --db / CONCORD_DB."
    corrupt = ("not a valid DuckDB", "corrupt", "checksum", "database file", "could not read enough bytes")
    if any(m.lower() in text.lower() for m in corrupt):
        return damaged_message(p, "corrupt or another kind of file", _first_line(e))
    if any(m in text.lower() for m in ("permission denied", "operation not permitted", "read-only")):
        return (
            f"The store {p} cannot be written (permission denied or a read-only file system). "
            "Check the permissions of the file and its folder, or choose another store with --db / CONCORD_DB."
        )
    return f"The store {p} cannot be opened: {_first_line(e)}"


def schema_version(con: duckdb.DuckDBPyConnection) -> int:
    """The highest migration applied to this store (0 for an empty file)."""
    con.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMP)")
    row = con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchall()
    return int(row[0][0])


def migrate(con: duckdb.DuckDBPyConnection) -> None:
    """Apply every migration the store has not seen yet, each in its own transaction."""
    with tx.WRITE_LOCK:  # one migrator at a time: the versions read are those still to apply
        _migrate(con)
    sync_catalogue(con)


SCHEMA_MIGRATIONS_INSERT = Query(
    "schema_migrations_insert", "INSERT INTO schema_migrations VALUES ($version, current_timestamp)"
)


def _migrate(con: duckdb.DuckDBPyConnection) -> None:
    """The migrations the store has not seen yet (under the write lock)."""
    current = schema_version(con)
    for version, statements in MIGRATIONS:
        if version <= current:
            continue
        with tx.write(con):
            for step in statements:
                step(con) if callable(step) else con.execute(step)
            SCHEMA_MIGRATIONS_INSERT.bind(version=version).run(con)


def sync_catalogue(con: duckdb.DuckDBPyConnection) -> None:
    """Write the catalogued rubrics into the dimensions table (declared and inferred dimensions are left alone)."""
    rows = [(*row[:10], "catalogue", *row[10:]) for row in rubrics.catalogue_rows()]
    with tx.write(con):
        con.execute("DELETE FROM dimensions WHERE source = 'catalogue'")
        save_dimensions(con, rows)


DIMENSION_SAVE = Query(
    "dimension_save",
    f"INSERT OR REPLACE INTO dimensions ({', '.join(DIMENSION_COLUMNS)}) "
    f"VALUES ({', '.join(f'${c}' for c in DIMENSION_COLUMNS)})",
)


def save_dimensions(con: duckdb.DuckDBPyConnection, rows: list[tuple] | list[list]) -> None:
    """INSERT OR REPLACE dimensions rows, each given in DIMENSION_COLUMNS order."""
    DIMENSION_SAVE.run_many(con, [dict(zip(DIMENSION_COLUMNS, row, strict=True)) for row in rows])


def dataset_version(con: duckdb.DuckDBPyConnection) -> int:
    """A number that changes whenever the store's data changes: the key for page caches."""
    return int(con.execute("SELECT value FROM meta WHERE key = 'dataset_version'").fetchall()[0][0])


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


LOADED_FILE_NAME = Query("loaded_file_name", "SELECT file_name FROM ingest_log WHERE ingest_id = $ingest_id")
SUBMISSIONS_RECREDIT = Query(
    "submissions_recredit",
    """UPDATE submissions s SET ingest_id = o.first_id
       FROM (SELECT submission_id, min(ingest_id) AS first_id FROM ratings
             WHERE submission_id IS NOT NULL GROUP BY submission_id) o
       WHERE s.ingest_id = $ingest_id AND o.submission_id = s.submission_id""",
)
LOAD_SUBMISSION_RUBRICS = Query(
    "load_submission_rubrics", "SELECT DISTINCT rubric FROM submissions WHERE ingest_id = $ingest_id"
)
UNLOADS_INSERT = Query(
    "unloads_insert",
    """INSERT INTO unloads SELECT ingest_id, file_name, content_hash, format, role_override, rows_read,
              rows_loaded, rows_quarantined, tasks, submissions, loaded_at, $unloaded_by, current_timestamp
       FROM ingest_log WHERE ingest_id = $ingest_id""",
)
INGEST_LOG_DELETE = Query("ingest_log_delete", "DELETE FROM ingest_log WHERE ingest_id = $ingest_id")


def unload_file(con: duckdb.DuckDBPyConnection, ingest_id: int, who: str | None) -> dict[str, int]:
    """Remove one loaded file in one transaction: its ratings, submissions, quarantine rows, and the tasks and
    task items it brought; the ingest_log row moves to `unloads` with who and when; the dataset version moves.

    A task or item another loaded file also uses stays, now credited to the earliest such file. Review notes
    and declared or inferred scales stay. Returns the rows removed per table; KeyError when no such load."""
    with tx.write(con):
        found = LOADED_FILE_NAME.bind(ingest_id=ingest_id).rows(con)
        if not found:
            raise KeyError(f"no loaded file has ingest id {ingest_id}")
        removed = kept.remove_load(con, ingest_id)
        tasks = kept.tasks_of_load(con, ingest_id)
        people.unload(con, ingest_id)  # a directory gives renamed rows their own ids back
        for table in ("ratings", "quarantine"):
            removed[table] = _delete(con, table, "ingest_id = $ingest_id", {"ingest_id": ingest_id})
        # Submissions whose id a rating of another file names stay (credited to that file).
        SUBMISSIONS_RECREDIT.bind(ingest_id=ingest_id).run(con)
        ruled = LOAD_SUBMISSION_RUBRICS.bind(ingest_id=ingest_id).rows(con)
        removed["submissions"] = _delete(con, "submissions", "ingest_id = $ingest_id", {"ingest_id": ingest_id})
        checked = tuple(r for (r,) in ruled if r in rule_results.rubrics_with_rules())
        if checked:  # a rule may compare a submission with the contractor's others: the rubric again
            rule_results.refresh(con, checked)
        # Tasks and items are shared by every file rating them: kept while another file's rows use them.
        users = """SELECT task_id, rubric, min(ingest_id) AS first_id FROM (
                       SELECT task_id, rubric, ingest_id FROM ratings
                       UNION ALL SELECT task_id, rubric, ingest_id FROM submissions) GROUP BY ALL"""
        for table in ("tasks", "task_items"):
            Query(
                f"{table}_recredit",
                f"""UPDATE {table} t SET ingest_id = o.first_id FROM ({users}) o
                    WHERE t.ingest_id = $ingest_id AND o.task_id = t.task_id AND o.rubric = t.rubric""",
                {"ingest_id": ingest_id},
            ).run(con)
            removed[table] = _delete(con, table, "ingest_id = $ingest_id", {"ingest_id": ingest_id})
        UNLOADS_INSERT.bind(unloaded_by=(who or "").strip() or None, ingest_id=ingest_id).run(con)
        INGEST_LOG_DELETE.bind(ingest_id=ingest_id).run(con)
        kept.after_unload(con, tasks)
        bump_version(con)
    return removed


def _delete(con: duckdb.DuckDBPyConnection, table: str, where: str, params: dict[str, Any]) -> int:
    return int(Query(f"{table}_delete", f"DELETE FROM {table} WHERE {where}", params).run(con).fetchall()[0][0])


def unloads(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """Unloaded files, newest first: (ingest_id, file_name, rows_loaded, loaded_at, unloaded_by, unloaded_at)."""
    return con.execute(
        """SELECT ingest_id, file_name, rows_loaded, loaded_at, unloaded_by, unloaded_at FROM unloads
           ORDER BY unloaded_at DESC, ingest_id DESC"""
    ).fetchall()
