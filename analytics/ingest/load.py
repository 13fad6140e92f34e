"""Load one file into the store as one transaction: detect, parse, validate against the catalogue, quarantine
(the entry points and the transaction; file checks in checks.py, scale checks in combinations.py, the staging
tables, duplicates, quarantine and inserts in staging.py).

Rows loaded plus rows quarantined equals rows read. Loading the same content again is a no-op
(`already_loaded`, keyed by the SHA-256 of the bytes). A file that cannot be parsed is `rejected` and nothing
of it is written.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from analytics import store
from analytics.consistency import results as rule_results
from analytics.core.queries import Query
from analytics.ingest import FORMATS, checks, combinations, private, staging
from analytics.ingest.base import (
    ITEM_COLUMNS,
    ROLES,
    SUBMISSION_COLUMNS,
    TASK_COLUMNS,
    FileRejected,
    FormatOptions,
    Parsed,
    Problem,
    RecordCounts,
    account_records,
)
from analytics.ingest.canonical import PARQUET_MAGIC
from analytics.ingest.scales_file import Scales, ScalesError, apply_scales, declare_in_transaction
from analytics.store import feedback_log, keys, people, tx
from analytics.store.derived import refresh

# Called with the share of a file's load done (0..1) and the stage, e.g. (0.55, "checking rows"); the Data
# page draws it as a progress bar, the command line prints it on a terminal.
Progress = Callable[[float, str], None]


def quiet(share: float, stage: str) -> None:
    """No progress shown."""


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
    records: RecordCounts | None = None  # the file's records counted in it: read = used + quarantined whole

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
            "records_read": self.records.read if self.records else None,
            "records_used": self.records.used if self.records else None,
            "records_quarantined": self.records.quarantined if self.records else None,
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
    message naming the command line, which takes files up to checks.max_bytes(). `undated_at`, `options`: as in
    ingest_file."""
    safe_name = Path(file_name.replace("\\", "/")).name
    safe_name = "upload" if safe_name in ("", ".", "..") else safe_name
    if upload_limit_mb is not None and len(data) > upload_limit_mb * 2**20:
        return IngestResult(
            safe_name, fmt, "rejected", errors=[checks.upload_too_large(safe_name, len(data), upload_limit_mb)]
        )
    try:
        with private.folder() as d:
            path = d / f"upload{private.suffix(safe_name)}"
            path.write_bytes(data)
            return _ingest_private(
                con, path, fmt, role, safe_name, scales, on_progress=on_progress, undated_at=undated_at, options=options
            )
    except Exception as e:  # one file's failure is its own result: the other files of an upload still load
        return _failed(safe_name, fmt, e)


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
    try:
        return _ingest_copy(con, path, fmt, role, name, scales, on_progress, undated_at, options)
    except Exception as e:  # one file's failure is its own result: the other files of a command still load
        return _failed(name, fmt, e, path)


def _ingest_copy(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    fmt: str,
    role: str | None,
    name: str,
    scales: Scales | str | os.PathLike | None,
    on_progress: Progress,
    undated_at: dt.datetime | None,
    options: FormatOptions | None,
) -> IngestResult:
    """Copy the file into a private folder (hashing it on the way) and load the copy."""
    if checks.is_an_open_store(con, path):
        return IngestResult(name, fmt, "rejected", errors=[f"{name} is the store itself, not a file of ratings"])
    try:
        src = checks.open_regular(path, name)
    except FileRejected as e:
        return IngestResult(name, fmt, "rejected", errors=[str(e)])
    except OSError as e:
        return IngestResult(name, fmt, "rejected", errors=[f"{name} cannot be read: {e.strerror or e}"])
    with src, private.folder() as d:
        try:
            before = checks.signature(path)
            if os.fstat(src.fileno()).st_size > checks.max_bytes():
                raise FileRejected(checks.too_large(name, os.fstat(src.fileno()).st_size))
            copy = d / f"copy{private.suffix(path.name)}"
            digest = checks.copy_and_hash(
                src, copy, lambda done: on_progress(0.25 * done / max(before[0], 1), "copying")
            )
            after = checks.signature(path)
        except FileRejected as e:
            return IngestResult(name, fmt, "rejected", errors=[str(e)])
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
            staging.drop_staging(con)  # also after a rejection: no staging copy stays on the connection
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
    """Read and check the file into staging tables, then load it in one write transaction (or only declare its
    scales when it is known). The write lock is taken for the insert and refresh only: a file, however it is
    shaped, is read and checked while note saves and other loads go on."""
    if role is not None and role not in ROLES:
        return IngestResult(name, fmt, "rejected", errors=[f"role must be one of {', '.join(ROLES)}, not {role!r}"])
    try:
        declared = checks.read_scales(scales)
        data_hash, head = checks.check_file(path, name, digest)
        checks.check_nesting(path, name, head)
        fmt = checks.choose_format(fmt, head, name)
        parsed = None
        if not KNOWN_FILE.bind(content_hash=data_hash).rows(con):  # a known file is not read again
            parsed = _parse(con, path, fmt, name, on_progress, undated_at, options, head)
        with tx.write(con):  # one writer at a time: uploads and note saves queue, never fail each other
            if parsed is None or KNOWN_FILE.bind(content_hash=data_hash).rows(con):  # changes nothing, its scales may
                note = [declare_in_transaction(con, declared).message] if declared else []
                return IngestResult(
                    name, fmt, "already_loaded", errors=[f"{name}: the same content was loaded before", *note]
                )
            result = _load_parsed(con, parsed, name, role, declared, data_hash, on_progress)
            on_progress(0.95, "committing")
        on_progress(1.0, result.status)
        return result
    except (FileRejected, ScalesError) as e:  # rolled back: a rejected file writes nothing
        return IngestResult(name, fmt, "rejected", errors=[str(e)])
    except Exception as e:  # any other failure: rolled back, the store stays as it was
        return _failed(name, fmt, e, path)


def _failed(name: str, fmt: str, e: Exception, path: Path | None = None) -> IngestResult:
    """The file's rejection for an unexpected failure; a damaged store is re-raised: it is not this file's fault,
    and the caller gives the store's one message (cli/main.py, app.py)."""
    if store.is_damage(e):
        raise e
    return IngestResult(name, fmt, "rejected", errors=[unexpected(name, e, path)])


def unexpected(name: str, e: BaseException, path: Path | None = None) -> str:
    """One sentence for an unexpected failure of a file's load: its kind and first line, no server path."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    if path is not None:
        text = text.replace(str(path), name).replace(str(path.parent), "")
    return f"{name}: could not be loaded ({type(e).__name__}{': ' + text[:300] if text else ''})"


def _parse(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    fmt: str,
    name: str,
    on_progress: Progress,
    undated_at: dt.datetime | None,
    options: FormatOptions | None,
    head: bytes = b"",
) -> Parsed:
    """Parse the file with its format's adapter into staging tables on `con` (no write lock: nothing of the store
    is written; the rows of a file up to 256 MB are copied out of it here, so the transaction does not read it
    again: staging.keep_parsed); `head` is the file's first bytes, as checks.check_file read them."""
    on_progress(0.25, "reading")
    adapter = FORMATS[fmt]
    if getattr(adapter, "TAKES_OPTIONS", False):  # a format with settings (wide, Label Studio)
        parsed: Parsed = adapter.parse(path, name, con, options or FormatOptions())
    else:
        parsed = adapter.parse(path, name, con)
    account_records(parsed, name)  # every record counted in the file is used or quarantined with its place
    if hasattr(adapter, "dated"):  # a format whose documents carry no dates (article Likert)
        parsed = adapter.dated(parsed, undated_at)
    # Parquet columns re-read faster than they are copied (the command line's FILE store: 9 s -> 6 s for 7.3M
    # ratings, bench/RESULTS.md); a store in a file keeps the copy, so its write lock is not held while the file is
    # read.
    parquet = head.startswith(PARQUET_MAGIC)
    staging.keep_parsed(con, parsed, path.stat().st_size, rereads=parquet and staging.in_memory(con))
    return parsed


def _load_parsed(
    con: duckdb.DuckDBPyConnection,
    parsed: Parsed,
    name: str,
    role: str | None,
    declared: Scales | None,
    data_hash: str,
    on_progress: Progress,
) -> IngestResult:
    """Declare the file's scales and load its parsed rows (inside the caller's transaction)."""
    if declared:
        apply_scales(con, declared)
    notes = [apply_scales(con, parsed.scales).message] if parsed.scales is not None else []
    on_progress(0.55, "checking rows")
    if parsed.directory is not None:
        return _load_directory(con, parsed, name, data_hash)
    if parsed.feedback is not None:
        return _load_feedback(con, parsed, name, data_hash)
    result = _load(con, parsed, name, data_hash, role, on_progress)
    result.notes = notes + result.notes
    return result


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
    counts: tuple[int, int, int],
    tasks: int,
    submissions: int,
) -> None:
    """Record a load in ingest_log; `counts` are the rows read (counted in the file), loaded and quarantined."""
    read, loaded, quarantined = counts
    INGEST_LOG_INSERT.bind(
        ingest_id=ingest_id,
        file_name=name,
        content_hash=data_hash,
        format=fmt,
        role_override=role,
        rows_read=read,
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
    staging.input_view(con, parsed)
    combo_problems = combinations.check_combinations(con, role)
    row_problems = staging.find_duplicates(con)
    staging.stage_view(con)
    has_dups = staging.has_duplicates(con)
    # A file whose rows have no problem of their own needs no per-row checks while it is inserted.
    source = staging.STAGE if row_problems or has_dups else "stage_clean"
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
        bad = staging.quarantine_staged(con, ingest_id, name)
    problems = list(parsed.problems)
    staging.quarantine_problems(con, ingest_id, name, problems)
    n_tasks = staging.insert_rows(con, "tasks", TASK_COLUMNS, parsed.tasks, ingest_id, role=None)
    staging.insert_rows(con, "task_items", ITEM_COLUMNS, parsed.items, ingest_id, role=None)
    n_subs = staging.insert_rows(con, "submissions", SUBMISSION_COLUMNS, parsed.submissions, ingest_id, role=role)
    if people.has_aliases(con):  # ids a loaded rater directory merges into a person
        merged = [
            Problem(reason, field="rater_id", raw_value=alias)
            for alias, reason in people.rename_load(con, ingest_id, name)
        ]
        staging.quarantine_problems(con, ingest_id, name, merged)
        problems += merged
        loaded -= len(merged)
    refresh.after_load(con, ingest_id)
    rule_results.after_load(con, ingest_id)
    quarantined = bad + sum(p.counts_as_row for p in problems)
    read = parsed.rows_in_file if parsed.rows_in_file is not None else loaded + quarantined
    counts = (read, loaded, quarantined)
    _log_load(con, ingest_id, name, data_hash, parsed.format, role, counts, n_tasks, n_subs)
    store.bump_version(con)
    staging.drop_staging(con)
    unaccounted = [] if read == loaded + quarantined else [_unaccounted(name, read, loaded, quarantined)]
    records = parsed.records
    if records is None and parsed.rows_in_file is not None:  # a canonical file: each record is one rating
        records = RecordCounts(read=read, used=loaded, quarantined=quarantined)
    errors = unaccounted + [p.reason for p in problems] + _sample_problems(con, ingest_id, limit=20)
    n_missing = RATINGS_WITHOUT_INDEX.bind(ingest_id=ingest_id).rows(con)[0][0]
    return IngestResult(
        file=name,
        format=parsed.format,
        status="loaded",
        rows_loaded=loaded,
        rows_quarantined=quarantined,
        errors=list(dict.fromkeys(errors))[:50],
        rows_read=read,
        tasks=n_tasks,
        submissions=n_subs,
        rows_missing=int(n_missing),
        notes=list(parsed.notes),
        records=records,
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
    _log_load(con, ingest_id, name, data_hash, parsed.format, None, (n, n, 0), 0, 0)
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


def _load_feedback(con: duckdb.DuckDBPyConnection, parsed: Parsed, name: str, data_hash: str) -> IngestResult:
    """Store a feedback log's rows as feedback events; its bad rows in quarantine (analytics/store/feedback_log.py)."""
    ingest_id = store.next_ingest_id(con)
    rows = parsed.feedback or []
    feedback_log.add(con, ingest_id, rows, name, store.dataset_version(con))
    staging.quarantine_problems(con, ingest_id, name, parsed.problems)
    n, bad = len(rows), len(parsed.problems)
    _log_load(con, ingest_id, name, data_hash, parsed.format, None, (n + bad, n, bad), 0, 0)
    store.bump_version(con)
    named = sorted({r.rater_id for r in rows})
    known = feedback_log.known(con, named)
    unknown = [r for r in named if r not in known]
    notes = [f"{name}: {n} feedback event(s) for {len(named)} contractor(s)"]
    if unknown:
        more = " and more" if len(unknown) > 5 else ""
        notes.append(
            f"{name}: no rater the store knows is called {', '.join(unknown[:5])}{more}; their follow-ups wait for "
            "their ratings"
        )
    return IngestResult(
        file=name,
        format=parsed.format,
        status="loaded",
        rows_loaded=n,
        rows_quarantined=bad,
        rows_read=n + bad,
        errors=[p.reason for p in parsed.problems][:50],
        notes=notes,
    )


def _unaccounted(name: str, read: int, loaded: int, quarantined: int) -> str:
    """The message for rows of the file that are neither loaded nor quarantined (never expected: it says so)."""
    return (
        f"{name}: the file holds {read:,} rows but {loaded:,} were loaded and {quarantined:,} quarantined; "
        "please report this file"
    )


QUARANTINE_REASONS = Query(
    "quarantine_reasons",
    "SELECT reason FROM quarantine WHERE ingest_id = $ingest_id ORDER BY line NULLS LAST LIMIT $limit",
)


def _sample_problems(con: duckdb.DuckDBPyConnection, ingest_id: int, limit: int) -> list[str]:
    rows = QUARANTINE_REASONS.bind(ingest_id=ingest_id, limit=limit).rows(con)
    return [r[0] for r in rows]
