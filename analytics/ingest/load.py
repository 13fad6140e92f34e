"""Load one file into the store as one transaction: detect, parse, validate against the catalogue, quarantine.

Rows loaded plus rows quarantined equals rows read. Loading the same content again is a no-op
(`already_loaded`, keyed by the SHA-256 of the bytes). A file that cannot be parsed is `rejected` and nothing
of it is written.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pandas as pd

from analytics import store
from analytics.consistency import results as rule_results
from analytics.core import rubrics
from analytics.core.queries import Query
from analytics.ingest import FORMATS, detect_format, limits
from analytics.ingest.base import (
    ITEM_COLUMNS,
    ROLES,
    SUBMISSION_COLUMNS,
    TASK_COLUMNS,
    FileRejected,
    FormatOptions,
    Parsed,
    Problem,
    as_json,
)
from analytics.ingest.scales_file import (
    Scales,
    ScalesError,
    apply_scales,
    declare_for_new_dimensions,
    declare_scales,
    missing_sql,
    read_scales_file,
)
from analytics.store import keys, people
from analytics.store.derived import refresh as kept

DEFAULT_MAX_UPLOAD_MB = 2048


def max_bytes() -> int:
    """The size limit of one file in bytes: $CONCORD_MAX_UPLOAD_MB megabytes (read at each call), else 2048."""
    raw = os.environ.get("CONCORD_MAX_UPLOAD_MB", "").strip() or str(DEFAULT_MAX_UPLOAD_MB)
    if not raw.isdigit() or int(raw) == 0:
        raise ValueError(f"CONCORD_MAX_UPLOAD_MB must be a whole number of megabytes above 0, not {raw!r}")
    return int(raw) * 1024 * 1024


# Called with the share of a file's load done (0..1) and the stage, e.g. (0.55, "checking rows"); the Data
# page draws it as a progress bar, the command line prints it on a terminal.
Progress = Callable[[float, str], None]


def quiet(share: float, stage: str) -> None:
    """No progress shown."""


MAX_BYTES = max_bytes()  # the limit when this module was imported; checks call max_bytes()
STAGE = "stage_ratings"
BINARY_MAGIC = {b"PK\x03\x04": "a zip archive", b"\x1f\x8b": "a gzip archive", b"%PDF": "a PDF document"}


@dataclass
class IngestResult:
    """What happened to one file (the `files[]` entry of the command line's JSON)."""

    file: str
    format: str
    status: str  # loaded | already_loaded | rejected
    rows_loaded: int = 0
    rows_quarantined: int = 0
    errors: list[str] = field(default_factory=list)
    rows_read: int = 0
    tasks: int = 0
    submissions: int = 0
    rows_missing: int = (
        0  # of rows_loaded: ratings whose value means missing (NA, N/A, null, missing codes): never a level
    )
    notes: list[str] = field(default_factory=list)  # what a load did beyond its rows (a directory's merges)

    def as_dict(self) -> dict:
        """The JSON form promised by DESIGN.md (plus rows_read, rows_missing, tasks and submissions)."""
        return {
            "file": self.file,
            "format": self.format,
            "status": self.status,
            "rows_loaded": self.rows_loaded,
            "rows_quarantined": self.rows_quarantined,
            "errors": self.errors,
            "rows_read": self.rows_read,
            "rows_missing": self.rows_missing,
            "tasks": self.tasks,
            "submissions": self.submissions,
            "notes": self.notes,
        }


def ingest_bytes(
    con: duckdb.DuckDBPyConnection,
    data: bytes,
    file_name: str,
    fmt: str = "auto",
    role: str | None = None,
    scales: Scales | str | os.PathLike | None = None,
    upload_limit_mb: int | None = None,
    on_progress: Progress = quiet,
    undated_at: dt.datetime | None = None,
    options: FormatOptions | None = None,
) -> IngestResult:
    """Load an upload held in memory (writes it to a temp file so DuckDB can scan it).

    `upload_limit_mb` is the dashboard's upload limit (server.maxUploadSize): a larger upload is refused with a
    message naming the command line, which takes files up to max_bytes(). `undated_at`, `options`: as in
    ingest_file."""
    safe_name = Path(file_name.replace("\\", "/")).name
    safe_name = "upload" if safe_name in ("", ".", "..") else safe_name
    if upload_limit_mb is not None and len(data) > upload_limit_mb * 2**20:
        return IngestResult(
            safe_name, fmt, "rejected", errors=[upload_too_large(safe_name, len(data), upload_limit_mb)]
        )
    suffix = Path(safe_name).suffix
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"upload{suffix}"
        path.write_bytes(data)
        return _ingest_private(
            con, path, fmt, role, safe_name, scales, on_progress=on_progress, undated_at=undated_at, options=options
        )


def upload_too_large(name: str, size: int, limit_mb: int) -> str:
    """The message for an upload over the dashboard's limit, naming the command line for larger files."""
    return (
        f"{name} is {size / 2**20:.1f} MB, over the upload limit of {limit_mb} MB; load larger files with the "
        f"command line: python -m analytics ingest FILE (docs/limits.md)"
    )


def ingest_file(
    con: duckdb.DuckDBPyConnection,
    path: str | os.PathLike,
    fmt: str = "auto",
    role: str | None = None,
    file_name: str | None = None,
    scales: Scales | str | os.PathLike | None = None,
    on_progress: Progress = quiet,
    undated_at: dt.datetime | None = None,
    options: FormatOptions | None = None,
) -> IngestResult:
    """Load one file; never raises for bad input, the result says what went wrong.

    `undated_at` dates the records of a format whose documents carry no dates (article Likert); without it they
    get the load time. The result's notes say which. `options` are the settings of the formats that take
    some (the wide layout, Label Studio: base.FormatOptions); other formats ignore them.

    `scales` (a parsed scales file or its path) is declared in the same transaction as the file: a scales file
    that cannot be read or contradicts a stored scale rejects the file whole.

    The file is read once, into a private copy that is hashed on the way; the copy is what gets loaded, so the
    recorded content hash is that of exactly the loaded bytes. A file that changes while it is copied is
    refused (its size or modification time differs before and after)."""
    path = Path(path)
    name = file_name or path.name
    if _is_an_open_store(con, path):
        return IngestResult(name, fmt, "rejected", errors=[f"{name} is the store itself, not a file of ratings"])
    try:
        before = _signature(path)
        if before[0] > max_bytes():
            raise FileRejected(_too_large(name, before[0]))
    except FileRejected as e:
        return IngestResult(name, fmt, "rejected", errors=[str(e)])
    except OSError as e:
        return IngestResult(name, fmt, "rejected", errors=[f"{name} cannot be read: {e.strerror or e}"])
    with tempfile.TemporaryDirectory(prefix="concord-ingest-") as d:
        copy = Path(d) / f"copy{path.suffix}"
        try:
            digest = _copy_and_hash(path, copy, lambda done: on_progress(0.25 * done / max(before[0], 1), "copying"))
            after = _signature(path)
        except OSError as e:
            return IngestResult(name, fmt, "rejected", errors=[f"{name} cannot be read: {e.strerror or e}"])
        if after != before or copy.stat().st_size != before[0]:
            return IngestResult(
                name,
                fmt,
                "rejected",
                errors=[
                    f"{name} changed while it was being loaded (its size or modification time differs); nothing "
                    "was written. Load it again once it is complete."
                ],
            )
        return _ingest_private(con, copy, fmt, role, name, scales, digest, on_progress, undated_at, options)


def _is_an_open_store(con: duckdb.DuckDBPyConnection, path: Path) -> bool:
    """Whether `path` is a database file this connection has open. Reading it would also close a handle on
    it, and the system then drops DuckDB's lock on the store (analytics/explore/sql/worker.py, _copy_in_child)."""
    rows = con.execute("SELECT path FROM duckdb_databases() WHERE NOT internal AND path IS NOT NULL").fetchall()
    try:
        return any(os.path.exists(p) and os.path.samefile(path, p) for (p,) in rows)
    except OSError:
        return False


def _signature(path: Path) -> tuple[int, int]:
    """What tells a changed file: its size and modification time (nanoseconds)."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def _copy_and_hash(src: Path, dst: Path, copied: Callable[[int], None] = lambda n: None) -> str:
    """Copy src to dst in one read, returning the SHA-256 of the bytes copied (`copied` hears the bytes done)."""
    digest = hashlib.sha256()
    done = 0
    with open(src, "rb") as f, open(dst, "wb") as out:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
            out.write(chunk)
            done += len(chunk)
            if done % (64 << 20) < len(chunk):  # every 64 MB
                copied(done)
    return digest.hexdigest()


def _ingest_private(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    fmt: str,
    role: str | None,
    name: str,
    scales: Scales | str | os.PathLike | None,
    digest: str | None = None,
    on_progress: Progress = quiet,
    undated_at: dt.datetime | None = None,
    options: FormatOptions | None = None,
) -> IngestResult:
    """Load a file only this process holds (an upload's temp file or a private copy); `digest` if known."""
    try:
        return _ingest_checked(con, path, fmt, role, name, scales, digest, on_progress, undated_at, options)
    finally:
        try:
            _drop_staging(con)  # also after a rejection: no staging copy stays on the connection
        except duckdb.Error:
            pass  # a store that fails here has already said why in the result


KNOWN_FILE = Query("known_file", "SELECT 1 FROM ingest_log WHERE content_hash = $content_hash")


def _ingest_checked(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    fmt: str,
    role: str | None,
    name: str,
    scales: Scales | str | os.PathLike | None,
    digest: str | None,
    on_progress: Progress,
    undated_at: dt.datetime | None = None,
    options: FormatOptions | None = None,
) -> IngestResult:
    if role is not None and role not in ROLES:
        return IngestResult(name, fmt, "rejected", errors=[f"role must be one of {', '.join(ROLES)}, not {role!r}"])
    try:
        declared = _read_scales(scales)
        data_hash, head = _check_file(path, name, digest)
        fmt = _choose_format(fmt, head, name)
    except (FileRejected, ScalesError) as e:
        return IngestResult(name, fmt, "rejected", errors=[str(e)])
    with store.WRITE_LOCK:  # one writer at a time: uploads and note saves queue, never fail each other
        if KNOWN_FILE.bind(content_hash=data_hash).rows(con):
            try:  # the file changes nothing, its scales may
                note = [declare_scales(con, declared).message] if declared else []
            except ScalesError as e:
                return IngestResult(name, fmt, "rejected", errors=[str(e)])
            return IngestResult(
                name, fmt, "already_loaded", errors=[f"{name}: the same content was loaded before", *note]
            )
        con.execute("BEGIN TRANSACTION")
        try:
            if declared:
                apply_scales(con, declared)
            on_progress(0.25, "reading")
            if getattr(FORMATS[fmt], "TAKES_OPTIONS", False):  # a format with settings (wide, Label Studio)
                parsed = FORMATS[fmt].parse(path, name, con, options or FormatOptions())
            else:
                parsed = FORMATS[fmt].parse(path, name, con)
            if hasattr(FORMATS[fmt], "dated"):  # a format whose documents carry no dates (article Likert)
                parsed = FORMATS[fmt].dated(parsed, undated_at)
            on_progress(0.55, "checking rows")
            if parsed.directory is not None:
                result = _load_directory(con, parsed, name, data_hash)
            else:
                result = _load(con, parsed, name, data_hash, role, on_progress)
            on_progress(0.95, "committing")
            con.execute("COMMIT")
            on_progress(1.0, result.status)
            return result
        except (FileRejected, ScalesError) as e:
            _rollback(con)
            return IngestResult(name, fmt, "rejected", errors=[str(e)])
        except Exception as e:  # any other failure: the transaction keeps the store as it was
            _rollback(con)
            return IngestResult(
                name, fmt, "rejected", errors=[f"{name}: could not be loaded ({type(e).__name__}: {e})"]
            )


def _read_scales(scales: Scales | str | os.PathLike | None) -> Scales | None:
    """A scales argument as a parsed scales file (a path is read and checked; ScalesError says why not)."""
    if scales is None or isinstance(scales, Scales):
        return scales
    return read_scales_file(scales)


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Undo the file's transaction (DuckDB may already have aborted it after an error)."""
    try:
        con.execute("ROLLBACK")
    except duckdb.TransactionException:
        pass


def _too_large(name: str, size: int) -> str:
    return f"{name} is {size / 2**20:.1f} MB, over the limit of {max_bytes() // 2**20} MB (CONCORD_MAX_UPLOAD_MB)"


def _check_file(path: Path, name: str, known_digest: str | None = None) -> tuple[str, bytes]:
    """Refuse empty, oversized and binary files; return the content hash and the first bytes."""
    size = path.stat().st_size
    if size == 0:
        raise FileRejected(f"{name} is empty")
    if size > max_bytes():
        raise FileRejected(_too_large(name, size))
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        head = f.read(65536)
        if known_digest is None:
            digest.update(head)
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    data_hash = known_digest or digest.hexdigest()
    if head.startswith(b"PAR1"):
        return data_hash, head
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # what spreadsheets save as "Unicode text"
        raise FileRejected(f"{name} is UTF-16 text; save it as UTF-8 (in Excel: CSV UTF-8)")
    for magic, what in BINARY_MAGIC.items():
        if head.startswith(magic):
            raise FileRejected(f"{name} is {what}, not a ratings file (CSV, Parquet, JSON or JSONL)")
    if b"\x00" in head:
        offset = head.index(b"\x00")
        raise FileRejected(f"{name} is a binary file, not text (a NUL byte at offset {offset})")
    try:
        head.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 4:  # a multi-byte character cut at the end of the head is fine
            line = head.count(b"\n", 0, e.start) + 1
            raise FileRejected(
                f"{name}, line {line}: not UTF-8 text (byte 0x{head[e.start]:02x} at offset {e.start}); save it as UTF-8"
            ) from e
    if not head.strip(b"\xef\xbb\xbf \r\n\t"):
        raise FileRejected(f"{name} holds only white space")
    return data_hash, head


def _choose_format(fmt: str, head: bytes, name: str) -> str:
    if fmt == "auto":
        found = detect_format(head, name)
        if found is None:
            raise FileRejected(f"{name}: unknown format; expected one of {', '.join(FORMATS)} (see docs/formats.md)")
        return found
    if fmt not in FORMATS:
        raise FileRejected(f"unknown format {fmt!r}; choose one of auto, {', '.join(FORMATS)}")
    return fmt


QUARANTINE_STAGED = Query(
    "quarantine_insert_staged",
    f"""INSERT INTO quarantine
        SELECT $ingest_id, $file_name, line, record, problem_field, problem_value,
               $file_name || coalesce(', line ' || CAST(line AS VARCHAR), ', ' || record, '')
                 || coalesce(', field ' || problem_field, '') || ': ' || problem
        FROM {STAGE} WHERE problem IS NOT NULL""",
)
INGEST_LOG_INSERT = Query(
    "ingest_log_insert",
    """INSERT INTO ingest_log VALUES ($ingest_id, $file_name, $content_hash, $format, $role_override, $rows_read,
                                      $rows_loaded, $rows_quarantined, $tasks, $submissions, current_timestamp)""",
)


def _log_load(
    con: duckdb.DuckDBPyConnection,
    ingest_id: int,
    name: str,
    data_hash: str,
    fmt: str,
    role: str | None,
    loaded: int,
    quarantined: int,
    tasks: int,
    submissions: int,
) -> None:
    """Record a load in ingest_log (its rows read are those loaded and those quarantined)."""
    INGEST_LOG_INSERT.bind(
        ingest_id=ingest_id,
        file_name=name,
        content_hash=data_hash,
        format=fmt,
        role_override=role,
        rows_read=loaded + quarantined,
        rows_loaded=loaded,
        rows_quarantined=quarantined,
        tasks=tasks,
        submissions=submissions,
    ).run(con)


RATINGS_WITHOUT_INDEX = Query(
    "ratings_without_value_index",
    "SELECT count(*) FROM ratings WHERE ingest_id = $ingest_id AND value_index IS NULL",
)


def _load(
    con: duckdb.DuckDBPyConnection, parsed: Parsed, name: str, data_hash: str, role: str | None, on_progress: Progress
) -> IngestResult:
    ingest_id = store.next_ingest_id(con)
    _input_view(con, parsed)
    combo_problems = check_combinations(con, role)
    row_problems = _find_duplicates(con)
    _stage_view(con)
    has_dups = _has_duplicates(con)
    # A file whose rows have no problem of their own needs no per-row checks while it is inserted.
    source = STAGE if row_problems or has_dups else "stage_clean"
    on_progress(0.75, "writing")
    # New task and rater ids come from one pass over the input; dimension and target keys are on the combinations.
    loaded = keys.insert_ratings(
        con,
        f"""(SELECT task_id, rater_id, role, rubric, dimension, target, value, value_index, value_num,
                    submitted_ts AS submitted_at, duration AS duration_s, comment, submission_id, $ingest_id AS ingest_id,
                    dim_key, target_key
             FROM {source} WHERE problem IS NULL)""",
        {"ingest_id": ingest_id},
        sources={"task_keys": "stage_input", "rater_keys": "stage_input"},
        given=("dim_key", "target_key"),
    )
    bad = 0
    if combo_problems or row_problems or has_dups:  # skip a second pass over a clean file
        # Every reason starts with where it is, so each message stands on its own.
        bad = int(QUARANTINE_STAGED.bind(ingest_id=ingest_id, file_name=name).run(con).fetchall()[0][0])
    problems = list(parsed.problems)
    _quarantine_problems(con, ingest_id, name, problems)
    n_tasks = _insert_rows(con, "tasks", TASK_COLUMNS, parsed.tasks, ingest_id, role=None)
    _insert_rows(con, "task_items", ITEM_COLUMNS, parsed.items, ingest_id, role=None)
    n_subs = _insert_rows(con, "submissions", SUBMISSION_COLUMNS, parsed.submissions, ingest_id, role=role)
    if people.has_aliases(con):  # ids a loaded rater directory merges into a person
        merged = [
            Problem(reason, field="rater_id", raw_value=alias)
            for alias, reason in people.rename_load(con, ingest_id, name)
        ]
        _quarantine_problems(con, ingest_id, name, merged)
        problems += merged
        loaded -= len(merged)
    kept.after_load(con, ingest_id)
    rule_results.after_load(con, ingest_id)
    quarantined = bad + sum(p.counts_as_row for p in problems)
    _log_load(con, ingest_id, name, data_hash, parsed.format, role, loaded, quarantined, n_tasks, n_subs)
    store.bump_version(con)
    _drop_staging(con)
    errors = [p.reason for p in problems] + _sample_problems(con, ingest_id, limit=20)
    n_missing = RATINGS_WITHOUT_INDEX.bind(ingest_id=ingest_id).rows(con)[0][0]
    return IngestResult(
        file=name,
        format=parsed.format,
        status="loaded",
        rows_loaded=loaded,
        rows_quarantined=quarantined,
        errors=list(dict.fromkeys(errors))[:50],
        rows_read=loaded + quarantined,
        tasks=n_tasks,
        submissions=n_subs,
        rows_missing=int(n_missing),
        notes=list(parsed.notes),
    )


QUARANTINE_INSERT = Query(
    "quarantine_insert",
    "INSERT INTO quarantine VALUES ($ingest_id, $file_name, $line, $record, $field, $raw_value, $reason)",
)


def _quarantine_problems(con: duckdb.DuckDBPyConnection, ingest_id: int, name: str, problems: list[Problem]) -> None:
    """Keep rows an adapter or a check refused in quarantine, with their reason."""
    if problems:
        QUARANTINE_INSERT.bind(ingest_id=ingest_id, file_name=name).run_many(
            con,
            [
                {"line": p.line, "record": p.record, "field": p.field, "raw_value": p.raw_value, "reason": p.reason}
                for p in problems
            ],
        )


def _load_directory(con: duckdb.DuckDBPyConnection, parsed: Parsed, name: str, data_hash: str) -> IngestResult:
    """Store a rater directory and merge its aliases' ratings into their person (analytics/store/people.py)."""
    ingest_id = store.next_ingest_id(con)
    entries = parsed.directory or []
    try:
        renamed = people.add_directory(con, ingest_id, entries, name)
    except people.DirectoryConflict as e:
        raise FileRejected(str(e)) from e
    n = len(entries)
    _log_load(con, ingest_id, name, data_hash, parsed.format, None, n, 0, 0, 0)
    store.bump_version(con)
    aliases = sum(len(e.aliases) for e in entries)
    return IngestResult(
        file=name,
        format=parsed.format,
        status="loaded",
        rows_loaded=n,
        rows_read=n,
        notes=[f"{name}: {n} people, {aliases} aliases; {renamed:,} ratings renamed to their person's id"],
    )


# Every temp table or view a load creates on its connection (load.py and the adapters): dropped after each load.
STAGING = (
    STAGE,
    "stage_clean",
    "stage_input",
    "canonical_input",
    "stage_combos",
    "catalogue_rubrics",
    "stage_dup_keys",
    "stage_dups",
    "stage_earlier",
    "parsed_ratings_t",
    "stage_canonical",
    "stage_canonical_shown",
    "stage_canonical_checked",
    "csv_rejects",
    "csv_reject_scans",
)


STAGING_RELATIONS = Query(
    "staging_relations",
    """SELECT 'VIEW', view_name FROM duckdb_views()  -- relation.create_view makes canonical_input in main
       WHERE (temporary OR schema_name = 'main') AND NOT internal AND list_contains($staging, view_name)
       UNION ALL SELECT 'TABLE', table_name FROM duckdb_tables() WHERE temporary AND list_contains($staging, table_name)
       ORDER BY 1 DESC""",
)


def _drop_staging(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the load's temp tables and views (each as what it is: DROP TABLE on a view is an error)."""
    found = STAGING_RELATIONS.bind(staging=list(STAGING)).rows(con)
    for kind, name in found:  # views first: they read the tables
        con.execute(f"DROP {kind} IF EXISTS {name}")


def _input_view(con: duckdb.DuckDBPyConnection, parsed: Parsed) -> None:
    """The adapter's candidate rows as the view `stage_input` (ids trimmed, dates and durations parsed)."""
    if parsed.staged_table:
        source = parsed.staged_table
    else:
        con.register("parsed_ratings", parsed.ratings)
        con.execute("CREATE OR REPLACE TEMP TABLE parsed_ratings_t AS SELECT * FROM parsed_ratings")
        con.unregister("parsed_ratings")
        source = "parsed_ratings_t"
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW stage_input AS SELECT *,
              hash(raw_role, raw_rubric, raw_dimension, raw_target, raw_value) AS combo_key,
              hash(task_id, rater_id, raw_rubric, raw_dimension, raw_target) AS unit_key
            FROM (SELECT
              nullif(trim(CAST(task_id AS VARCHAR)), '') AS task_id,
              nullif(trim(CAST(rater_id AS VARCHAR)), '') AS rater_id,
              CAST(role AS VARCHAR) AS raw_role, CAST(rubric AS VARCHAR) AS raw_rubric,
              CAST(dimension AS VARCHAR) AS raw_dimension, CAST(target AS VARCHAR) AS raw_target,
              CAST(value AS VARCHAR) AS raw_value, submitted_at,
              {_submitted_ts_sql(con, source)} AS submitted_ts, duration_s,
              TRY_CAST(duration_s AS DOUBLE) AS duration, CAST(comment AS VARCHAR) AS comment,
              CAST(submission_id AS VARCHAR) AS submission_id, CAST(line AS BIGINT) AS line,
              CAST(record AS VARCHAR) AS record
            FROM {source})"""
    )


def _submitted_ts_sql(con: duckdb.DuckDBPyConnection, source: str) -> str:
    """SQL for submitted_at as a UTC timestamp: a time with a zone (Z, +02:00, a TIMESTAMPTZ column) is converted,
    like the JSON formats do; one without a zone is kept as written. A plain cast to TIMESTAMP drops the offset."""
    first = con.execute(f"SELECT typeof(submitted_at) FROM {source} LIMIT 1").fetchall()
    kind = first[0][0] if first else "VARCHAR"
    if kind == "TIMESTAMP WITH TIME ZONE":
        return "timezone('UTC', submitted_at)"
    if kind != "VARCHAR":
        return "TRY_CAST(submitted_at AS TIMESTAMP)"
    # Only the text after the date (from character 11 on) can hold an offset; '-' in the date is no zone.
    return """CASE WHEN trim(submitted_at)[11:] LIKE '%+%' OR trim(submitted_at)[11:] LIKE '%-%'
                        OR upper(trim(submitted_at)) LIKE '%Z'
                   THEN timezone('UTC', TRY_CAST(trim(submitted_at) AS TIMESTAMPTZ))
                   ELSE TRY_CAST(submitted_at AS TIMESTAMP) END"""


# The columns that identify a combination of scale-related values; a file has few distinct combinations
# (dimensions x levels x targets x roles), so scale checks run once per combination, not once per row.
COMBO_COLUMNS = ("raw_role", "raw_rubric", "raw_dimension", "raw_target", "raw_value")

# Checks on one row's own fields, (field, condition on input row s, reason).
ROW_CHECKS = (
    ("task_id", "s.task_id IS NULL", "'missing required field task_id'"),
    ("rater_id", "s.rater_id IS NULL", "'missing required field rater_id'"),
    (
        "submitted_at",
        "s.submitted_ts IS NULL AND s.submitted_at IS NOT NULL AND trim(CAST(s.submitted_at AS VARCHAR)) <> ''",
        "'submitted_at ' || CAST(s.submitted_at AS VARCHAR) || ' is not a date and time (use ISO 8601, e.g. 2026-03-01T14:05:00)'",
    ),
    (
        "duration_s",
        "(s.duration IS NULL AND s.duration_s IS NOT NULL AND trim(CAST(s.duration_s AS VARCHAR)) <> '')"
        " OR s.duration < 0 OR NOT isfinite(s.duration)",
        "'duration_s ' || CAST(s.duration_s AS VARCHAR) || ' is not a non-negative number of seconds'"
        " || CASE WHEN NOT isfinite(s.duration) THEN ' (NaN and infinity are not numbers of seconds)' ELSE '' END",
    ),
    # Field lengths (docs/limits.md): the text a row carries beyond its scale combination.
    *(
        (
            col,
            f"length(CAST(s.{col} AS VARCHAR)) > {limits.MAX_FIELD_CHARS}",
            f"'{col} is ' || format('{{:,}}', length(CAST(s.{col} AS VARCHAR))) || ' characters long, over the limit"
            f" of {limits.MAX_FIELD_CHARS:,} ({limits.DOCS})'",
        )
        for col in ("task_id", "rater_id", "comment", "submission_id")
    ),
)

NUMBER = "TRY_CAST(trim(raw_value) AS DOUBLE)"

# Checks on a combination c (normalised values, c.is_missing when the value means missing) joined with its
# stored dimension d, in order. A value that means missing (NA, N/A, null, the dimension's missing codes) is a
# rating without a level: it loads with value_index NULL. An empty or absent value is no rating at all.
DECLARE_HINT = "declare its scale in a scales file and load it with --scales PATH (or on the Data page)"
COMBO_CHECKS = (
    *(
        (
            fld,
            f"length(c.raw_{fld}) > {limits.MAX_FIELD_CHARS}",
            f"'{fld} is ' || format('{{:,}}', length(c.raw_{fld})) || ' characters long, over the limit of"
            f" {limits.MAX_FIELD_CHARS:,} ({limits.DOCS})'",
        )
        for fld in ("role", "rubric", "dimension", "target", "value")
    ),
    ("dimension", "c.dimension IS NULL", "'missing required field dimension'"),
    ("value", "c.value IS NULL", "'missing required field value'"),
    (
        "value",
        f"NOT c.is_missing AND NOT isfinite({NUMBER.replace('raw_value', 'c.raw_value')})",
        "'value ' || trim(c.raw_value) || ' is not a finite number (NaN and infinity are not ratings)'",
    ),
    (
        "role",
        "c.role NOT IN ('contractor', 'researcher')",
        "'role ' || c.role || ' is neither contractor nor researcher'",
    ),
    (
        "dimension",
        "d.dimension IS NULL",
        "CASE WHEN c.is_missing AND c.rubric NOT IN (SELECT rubric FROM catalogue_rubrics) THEN 'value '"
        " || c.raw_value || ' means missing, and ' || c.rubric || '/' || c.dimension"
        f" || ' has no other value yet, so its scale is unknown: {DECLARE_HINT}'"
        " ELSE 'rubric ' || c.rubric || ' has no dimension ' || c.dimension END",
    ),
    (
        "target",
        "len(d.targets) > 0 AND NOT list_contains(d.targets, c.target)",
        "'target ' || CASE WHEN c.target = '' THEN '(empty)' ELSE c.target END || ' is not one of '"
        " || array_to_string(d.targets, ', ') || ' for ' || c.dimension",
    ),
    (
        "value",
        "NOT c.is_missing AND d.source = 'inferred' AND d.measure <> 'nominal' AND TRY_CAST(c.value AS DOUBLE) IS NULL",
        "'value ' || c.raw_value || ' is text, but ' || c.rubric || '/' || c.dimension || ' holds numbers (its scale"
        f" was inferred from an earlier file); to rate it with labels, {DECLARE_HINT}'",
    ),
    (
        "value",
        "NOT c.is_missing AND NOT list_contains(d.levels, c.value)",
        "'value ' || c.raw_value || ' is not on the scale of ' || c.rubric || '/' || c.dimension || ' ('"
        " || array_to_string(d.levels[1:12], ', ') || CASE WHEN len(d.levels) > 12 THEN ', ...' ELSE '' END || ')'"
        " || CASE WHEN TRY_CAST(c.raw_value AS DOUBLE) IS NOT NULL"
        " AND TRY_CAST(c.raw_value AS DOUBLE) <> round(TRY_CAST(c.raw_value AS DOUBLE))"
        " AND list_bool_and(list_transform(d.levels, lambda x: coalesce(TRY_CAST(x AS DOUBLE) = round(TRY_CAST(x AS"
        " DOUBLE)), true)))"
        " THEN ': half or fractional scores are not allowed' ELSE '' END",
    ),
)


def _case(checks: tuple, what: str) -> str:
    """A SQL CASE giving the first failing check's reason (what='reason') or field (what='field')."""
    if what == "reason":
        return "CASE " + " ".join(f"WHEN {cond} THEN {reason}" for _, cond, reason in checks) + " END"
    return "CASE " + " ".join(f"WHEN {cond} THEN '{fld}'" for fld, cond, _ in checks) + " END"


# A value in one spelling: numbers as the catalogue and scales files spell them (rubrics.canonical_number:
# "3.0" -> "3", "2.50" -> "2.5"), other text trimmed; empty is NULL (no value).
VALUE_SQL = f"""CASE WHEN isfinite({NUMBER}) AND abs({NUMBER}) < 1e15 AND {NUMBER} = round({NUMBER})
                       THEN CAST(CAST({NUMBER} AS BIGINT) AS VARCHAR)
                     WHEN isfinite({NUMBER}) AND abs({NUMBER}) < 1e15 THEN CAST({NUMBER} AS VARCHAR)
                     ELSE nullif(trim(raw_value), '') END"""


def check_combinations(con: duckdb.DuckDBPyConnection, role: str | None) -> int:
    """Build `stage_combos` from `stage_input`: each distinct scale combination checked against the store's
    scales (new dimensions declared or inferred on the way) and keyed; return the rows it rejects. The Spark
    engine checks its input's combinations with it too (analytics/engines/spark/engine.py)."""
    bad = _check_combos(con, role)
    _combo_keys(con)
    return bad


def _combo_values(role: str | None) -> Query:
    """The UPDATE that puts each combination's cleaned values on `stage_combos` (`role`: the role given for the
    file, else each row's own)."""
    return Query(
        "stage_combos_values",
        f"""UPDATE stage_combos SET
              role = {"$role" if role else "lower(coalesce(nullif(trim(raw_role), ''), 'contractor'))"},
              rubric = coalesce(nullif(trim(raw_rubric), ''), 'unspecified'),
              dimension = nullif(trim(raw_dimension), ''), target = coalesce(trim(raw_target), ''),
              value = {VALUE_SQL}""",
        {"role": role} if role else {},
    )


def _check_combos(con: duckdb.DuckDBPyConnection, role: str | None) -> int:
    """Build `stage_combos` (one row per distinct scale combination, checked); return rows it rejects."""
    # Only low-cardinality columns are read here, so this pass is cheap even for tens of millions of rows.
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE stage_combos AS
            SELECT combo_key, {", ".join(f"any_value({c}) AS {c}" for c in COMBO_COLUMNS)}, count(*) AS n
            FROM stage_input s GROUP BY combo_key"""
    )
    con.execute(
        """ALTER TABLE stage_combos ADD COLUMN role VARCHAR; ALTER TABLE stage_combos ADD COLUMN rubric VARCHAR;
           ALTER TABLE stage_combos ADD COLUMN dimension VARCHAR; ALTER TABLE stage_combos ADD COLUMN target VARCHAR;
           ALTER TABLE stage_combos ADD COLUMN value VARCHAR;"""
    )
    _combo_values(role).run(con)
    if (
        con.execute(f"SELECT count(*) FROM (SELECT DISTINCT {', '.join(COMBO_COLUMNS)} FROM stage_combos)").fetchall()[
            0
        ][0]
        != con.execute("SELECT count(*) FROM stage_combos").fetchall()[0][0]
    ):
        raise RuntimeError("two different value combinations share a 64-bit hash; please report this file")
    con.execute(
        """CREATE OR REPLACE TEMP TABLE catalogue_rubrics AS
           SELECT DISTINCT rubric FROM dimensions WHERE source = 'catalogue'"""
    )
    _declare_new_dimensions(con)
    _infer_unknown_dimensions(con)
    missing = missing_sql("c0.value", "coalesce(d0.missing, CAST([] AS VARCHAR[]))")
    position = "list_position(d.levels, c.value)"
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE stage_combos AS
            SELECT c.* REPLACE (coalesce(c.value, '') AS value),
                   dense_rank() OVER (ORDER BY c.rubric, c.dimension, c.target) AS unit_dim,
                   CASE WHEN NOT c.is_missing THEN {position} - 1 END AS value_index,
                   CASE WHEN NOT c.is_missing THEN coalesce(d.level_values[{position}], TRY_CAST(c.value AS DOUBLE),
                            CASE WHEN d.kind IN ('ordinal', 'ranking') THEN {position} - 1 END) END AS value_num,
                   {_case(COMBO_CHECKS, "reason")} AS combo_problem, {_case(COMBO_CHECKS, "field")} AS combo_field
            FROM (SELECT c0.*, {missing} AS is_missing FROM stage_combos c0
                  LEFT JOIN dimensions d0 ON d0.rubric = c0.rubric AND d0.dimension = c0.dimension) c
            LEFT JOIN dimensions d ON d.rubric = c.rubric AND d.dimension = c.dimension"""
    )
    return int(
        con.execute("SELECT coalesce(sum(n) FILTER (WHERE combo_problem IS NOT NULL), 0) FROM stage_combos").fetchall()[
            0
        ][0]
    )


def _combo_keys(con: duckdb.DuckDBPyConnection) -> None:
    """Dimension and target keys on the value combinations (a few rows), so that the rows need no join for them."""
    keys.register(con, "dim_key", "stage_combos")
    keys.register(con, "target_key", "stage_combos")
    con.execute(
        """CREATE OR REPLACE TEMP TABLE stage_combos AS SELECT c.*, d.dim_key, g.target_key FROM stage_combos c
           LEFT JOIN dimension_keys d USING (rubric, dimension) LEFT JOIN target_keys g USING (target)"""
    )


NEW_DIMENSIONS_DECLARED_FOR_ALL = Query(
    "new_dimensions_declared_for_all",
    """SELECT DISTINCT c.rubric, c.dimension FROM stage_combos c
       WHERE c.dimension IS NOT NULL AND c.rubric NOT IN (SELECT rubric FROM catalogue_rubrics)
         AND c.dimension IN (SELECT dimension FROM scale_declarations WHERE rubric = $all_rubrics)
         AND NOT EXISTS (SELECT 1 FROM dimensions d WHERE d.rubric = c.rubric AND d.dimension = c.dimension)""",
)


def _declare_new_dimensions(con: duckdb.DuckDBPyConnection) -> None:
    """Dimensions new to the store on rubrics the catalogue does not know take a declaration for every rubric."""
    pairs = NEW_DIMENSIONS_DECLARED_FOR_ALL.bind(all_rubrics=store.ALL_RUBRICS).rows(con)
    declare_for_new_dimensions(con, pairs)


RATINGS_REINDEX = Query(
    "ratings_value_index_update",
    """UPDATE ratings SET value_index = list_position($levels, value) - 1
       WHERE rubric = $rubric AND dimension = $dimension""",
)


def _infer_unknown_dimensions(con: duckdb.DuckDBPyConnection) -> None:
    """Give undeclared dimensions of rubrics the catalogue does not know a scale from their values (DESIGN.md)."""
    rows = con.execute(
        f"""SELECT c.rubric, c.dimension, list(DISTINCT c.value), any_value(d.kind), any_value(d.levels),
                  any_value(d.level_values)
            FROM stage_combos c LEFT JOIN dimensions d ON d.rubric = c.rubric AND d.dimension = c.dimension
            WHERE c.dimension IS NOT NULL AND c.value IS NOT NULL AND coalesce(d.source, 'inferred') = 'inferred'
              AND c.rubric NOT IN (SELECT rubric FROM catalogue_rubrics)
              AND coalesce(isfinite(TRY_CAST(trim(c.raw_value) AS DOUBLE)), true)
              AND greatest(coalesce(length(c.raw_rubric), 0), coalesce(length(c.raw_dimension), 0),
                           coalesce(length(c.raw_target), 0), coalesce(length(c.raw_value), 0),
                           coalesce(length(c.raw_role), 0)) <= {limits.MAX_FIELD_CHARS}
            GROUP BY c.rubric, c.dimension"""
    ).fetchall()
    for rubric, dimension, values, kind, levels, level_values in rows:
        previous = None
        if levels is not None:
            previous = rubrics.Dimension(dimension, dimension, kind, tuple(levels), values=tuple(level_values or ()))
        dim = rubrics.infer_dimension(dimension, list(values), previous)
        if not dim.levels or (previous is not None and previous.levels == dim.levels):
            continue  # only missing values so far, or nothing new
        store.save_dimensions(
            con,
            [[rubric, dimension, dimension, dim.kind, list(dim.levels), list(dim.levels), [], "", False, False,
              "inferred", dim.measure, list(dim.values), []]],
        )  # fmt: skip
        if previous is not None:  # new levels changed the positions of the old ones
            RATINGS_REINDEX.bind(levels=list(dim.levels), rubric=rubric, dimension=dimension).run(con)
            kept.after_rescale(con, rubric, dimension)


def _combo_join(alias: str = "c") -> str:
    """The join of input rows s to their checked combination."""
    return f"{alias}.combo_key = s.combo_key"


def _find_duplicates(con: duckdb.DuckDBPyConnection) -> int:
    """Small tables of units a rater rated twice in this file or in an earlier file; return rows with row problems."""
    # One pass over the rows: group on a 64-bit unit hash (fast) and count each row's own problems on the way;
    # only groups with a candidate duplicate or a problem are kept. Candidates are confirmed on the real key.
    row_bad = " OR ".join(f"({cond})" for _, cond, _ in ROW_CHECKS)
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE stage_dup_keys AS
            SELECT unit_key, count(*) FILTER (WHERE s.task_id IS NOT NULL AND s.rater_id IS NOT NULL) AS n,
                   count(*) FILTER (WHERE {row_bad}) AS bad
            FROM stage_input s GROUP BY unit_key
            HAVING count(*) FILTER (WHERE s.task_id IS NOT NULL AND s.rater_id IS NOT NULL) > 1
                OR count(*) FILTER (WHERE {row_bad}) > 0"""
    )
    n_dups, row_problems = con.execute(
        "SELECT count(*) FILTER (WHERE n > 1), coalesce(sum(bad), 0) FROM stage_dup_keys"
    ).fetchall()[0]
    none = not n_dups
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE stage_dups AS
            SELECT s.task_id, s.rater_id, c.unit_dim,
                   nullif(array_to_string(list(CAST(s.line AS VARCHAR) ORDER BY s.line)[1:5], ', '), '') AS lines
            FROM stage_input s JOIN stage_combos c ON {_combo_join()}
            WHERE c.combo_problem IS NULL {"AND false" if none else ""}
              AND s.unit_key IN (SELECT unit_key FROM stage_dup_keys WHERE n > 1)
            GROUP BY ALL HAVING count(*) > 1"""
    )
    # Neither copy of a within-file duplicate is trusted; an earlier file's rating stays.
    store_is_empty = not con.execute("SELECT count(*) FROM (SELECT 1 FROM ratings LIMIT 1)").fetchall()[0][0]
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE stage_earlier AS
            SELECT DISTINCT s.task_id, s.rater_id, c.unit_dim, l.file_name
            FROM stage_input s JOIN stage_combos c ON {_combo_join()}
            JOIN ratings r ON r.task_id = s.task_id AND r.rater_id = s.rater_id AND r.rubric = c.rubric
                 AND r.dimension = c.dimension AND r.target = c.target
            JOIN ingest_log l ON l.ingest_id = r.ingest_id
            WHERE c.combo_problem IS NULL {"AND false" if store_is_empty else ""}"""
    )
    return int(row_problems)


def _has_duplicates(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(
        con.execute("SELECT (SELECT count(*) FROM stage_dups) + (SELECT count(*) FROM stage_earlier)").fetchall()[0][0]
    )


def _stage_view(con: duckdb.DuckDBPyConnection) -> None:
    """The view `stage_ratings`: every input row with its normalised values, positions and first problem.

    Also `stage_clean`, the same rows where only the value combination can be wrong (for files whose rows
    have no problem of their own and no duplicates)."""
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW stage_clean AS SELECT s.task_id, s.rater_id, c.role, c.rubric,
                c.dimension, c.target, c.value, c.value_index, c.value_num, s.submitted_ts, s.duration,
                s.comment, s.submission_id, c.combo_problem AS problem, c.dim_key, c.target_key
            FROM stage_input s JOIN stage_combos c ON {_combo_join()}"""
    )
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW {STAGE} AS SELECT *, {_problem_value()} AS problem_value FROM (
            SELECT s.task_id, s.rater_id, c.role, c.rubric, c.dimension,
                c.target, c.value, c.value_index, c.value_num, s.submitted_ts, s.duration, s.comment,
                s.submission_id, s.line, s.record, s.raw_value, c.dim_key, c.target_key,
                s.raw_role, s.raw_rubric, s.raw_dimension, s.raw_target,
                CAST(s.submitted_at AS VARCHAR) AS raw_submitted_at, CAST(s.duration_s AS VARCHAR) AS raw_duration_s,
                coalesce({_case(ROW_CHECKS, "reason")}, c.combo_problem,
                    CASE WHEN dup.task_id IS NOT NULL THEN 'rater ' || s.rater_id || ' rated ' || c.rubric || '/'
                         || c.dimension || ' of task ' || s.task_id
                         || CASE WHEN c.target <> '' THEN ' (' || c.target || ')' ELSE '' END
                         || ' more than once in this file' || coalesce(' (lines ' || dup.lines || ')', '') END,
                    CASE WHEN earlier.task_id IS NOT NULL THEN 'rater ' || s.rater_id || ' already rated '
                         || c.rubric || '/' || c.dimension || ' of task ' || s.task_id
                         || ' in an earlier file (' || earlier.file_name || ')' END) AS problem,
                coalesce({_case(ROW_CHECKS, "field")}, c.combo_field,
                    CASE WHEN dup.task_id IS NOT NULL OR earlier.task_id IS NOT NULL THEN 'rater_id' END)
                    AS problem_field
            FROM stage_input s JOIN stage_combos c ON {_combo_join()}
            LEFT JOIN stage_dups dup ON dup.task_id = s.task_id AND dup.rater_id = s.rater_id
                 AND dup.unit_dim = c.unit_dim
            LEFT JOIN stage_earlier earlier ON earlier.task_id = s.task_id AND earlier.rater_id = s.rater_id
                 AND earlier.unit_dim = c.unit_dim)"""
    )


# The quarantine keeps the value of the field a row was refused for (the rating's value when it is the value).
PROBLEM_VALUES = {
    "task_id": "task_id",
    "rater_id": "rater_id",
    "role": "raw_role",
    "rubric": "raw_rubric",
    "dimension": "raw_dimension",
    "target": "raw_target",
    "submitted_at": "raw_submitted_at",
    "duration_s": "raw_duration_s",
    "comment": "comment",
    "submission_id": "submission_id",
}


def _problem_value() -> str:
    """SQL: the refused field's value as read, cut to QUARANTINE_VALUE_CHARS characters."""
    cases = " ".join(f"WHEN '{f}' THEN {col}" for f, col in PROBLEM_VALUES.items())
    return f"left(CASE problem_field {cases} ELSE raw_value END, {QUARANTINE_VALUE_CHARS})"


QUARANTINE_VALUE_CHARS = 500  # as the adapters cut raw lines (canonical.py)


def _insert_rows(
    con: duckdb.DuckDBPyConnection,
    table: str,
    columns: tuple[str, ...],
    rows: list[dict],
    ingest_id: int,
    role: str | None,
) -> int:
    """Insert task, item or submission dicts; JSON fields are serialised; existing keys are kept."""
    if not rows:
        return 0
    json_cols = {"metadata", "sources", "flags", "ranking", "details"}
    values = []
    for r in rows:
        rec = dict(r)
        if role and "role" in columns:
            rec["role"] = role
        values.append(tuple(as_json(rec.get(c)) if c in json_cols else rec.get(c) for c in columns) + (ingest_id,))
    # One bulk insert from a frame: executemany inserts row by row (minutes for 20,000 submissions).
    frame = pd.DataFrame(values, columns=[*columns, "ingest_id"], dtype=object)
    before = int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])
    con.register("insert_rows_frame", frame)
    try:
        con.execute(f"INSERT OR IGNORE INTO {table} SELECT * FROM insert_rows_frame")
    finally:
        con.unregister("insert_rows_frame")
    return int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]) - before


QUARANTINE_REASONS = Query(
    "quarantine_reasons",
    "SELECT reason FROM quarantine WHERE ingest_id = $ingest_id ORDER BY line NULLS LAST LIMIT $limit",
)


def _sample_problems(con: duckdb.DuckDBPyConnection, ingest_id: int, limit: int) -> list[str]:
    rows = QUARANTINE_REASONS.bind(ingest_id=ingest_id, limit=limit).rows(con)
    return [r[0] for r in rows]
