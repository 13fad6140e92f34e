"""Load one file into the store as one transaction: detect, parse, validate against the catalogue, quarantine.

Rows loaded plus rows quarantined equals rows read. Loading the same content again is a no-op
(`already_loaded`, keyed by the SHA-256 of the bytes). A file that cannot be parsed is `rejected` and nothing
of it is written.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from analytics import rubrics, store
from analytics.ingest import FORMATS, detect_format
from analytics.ingest.base import (
    ITEM_COLUMNS,
    ROLES,
    SUBMISSION_COLUMNS,
    TASK_COLUMNS,
    FileRejected,
    Parsed,
    as_json,
)

MAX_BYTES = int(os.environ.get("CONCORD_MAX_UPLOAD_MB", "2048")) * 1024 * 1024
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

    def as_dict(self) -> dict:
        """The JSON form promised by DESIGN.md (plus rows_read, tasks and submissions)."""
        return {
            "file": self.file,
            "format": self.format,
            "status": self.status,
            "rows_loaded": self.rows_loaded,
            "rows_quarantined": self.rows_quarantined,
            "errors": self.errors,
            "rows_read": self.rows_read,
            "tasks": self.tasks,
            "submissions": self.submissions,
        }


def ingest_bytes(
    con: duckdb.DuckDBPyConnection, data: bytes, file_name: str, fmt: str = "auto", role: str | None = None
) -> IngestResult:
    """Load an upload held in memory (writes it to a temp file so DuckDB can scan it)."""
    safe_name = Path(file_name.replace("\\", "/")).name or "upload"
    suffix = Path(safe_name).suffix
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"upload{suffix}"
        path.write_bytes(data)
        return ingest_file(con, path, fmt=fmt, role=role, file_name=safe_name)


def ingest_file(
    con: duckdb.DuckDBPyConnection,
    path: str | os.PathLike,
    fmt: str = "auto",
    role: str | None = None,
    file_name: str | None = None,
) -> IngestResult:
    """Load one file; never raises for bad input, the result says what went wrong."""
    path = Path(path)
    name = file_name or path.name
    if role is not None and role not in ROLES:
        return IngestResult(name, fmt, "rejected", errors=[f"role must be one of {', '.join(ROLES)}, not {role!r}"])
    try:
        data_hash, head = _check_file(path, name)
        fmt = _choose_format(fmt, head, name)
    except FileRejected as e:
        return IngestResult(name, fmt, "rejected", errors=[str(e)])
    if con.execute("SELECT 1 FROM ingest_log WHERE content_hash = ?", [data_hash]).fetchall():
        return IngestResult(name, fmt, "already_loaded", errors=[f"{name}: the same content was loaded before"])
    con.execute("BEGIN TRANSACTION")
    try:
        parsed = FORMATS[fmt].parse(path, name, con)
        result = _load(con, parsed, name, data_hash, role)
        con.execute("COMMIT")
        return result
    except FileRejected as e:
        con.execute("ROLLBACK")
        return IngestResult(name, fmt, "rejected", errors=[str(e)])
    except Exception as e:  # any other failure: the transaction keeps the store as it was
        con.execute("ROLLBACK")
        return IngestResult(name, fmt, "rejected", errors=[f"{name}: could not be loaded ({type(e).__name__}: {e})"])


def _check_file(path: Path, name: str) -> tuple[str, bytes]:
    """Refuse empty, oversized and binary files; return the content hash and the first bytes."""
    size = path.stat().st_size
    if size == 0:
        raise FileRejected(f"{name} is empty")
    if size > MAX_BYTES:
        raise FileRejected(f"{name} is {size / 2**20:.0f} MB, over the limit of {MAX_BYTES / 2**20:.0f} MB")
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        head = f.read(65536)
        digest.update(head)
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    if head.startswith(b"PAR1"):
        return digest.hexdigest(), head
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
            raise FileRejected(
                f"{name} is not UTF-8 text (byte 0x{head[e.start]:02x} at offset {e.start}); save it as UTF-8"
            ) from e
    if not head.strip(b"\xef\xbb\xbf \r\n\t"):
        raise FileRejected(f"{name} holds only white space")
    return digest.hexdigest(), head


def _choose_format(fmt: str, head: bytes, name: str) -> str:
    if fmt == "auto":
        found = detect_format(head, name)
        if found is None:
            raise FileRejected(f"{name}: unknown format; expected one of {', '.join(FORMATS)} (see docs/formats.md)")
        return found
    if fmt not in FORMATS:
        raise FileRejected(f"unknown format {fmt!r}; choose one of auto, {', '.join(FORMATS)}")
    return fmt


def _load(con: duckdb.DuckDBPyConnection, parsed: Parsed, name: str, data_hash: str, role: str | None) -> IngestResult:
    ingest_id = int(con.execute("SELECT coalesce(max(ingest_id), 0) + 1 FROM ingest_log").fetchall()[0][0])
    source = _input_view(con, parsed, role)
    _infer_unknown_dimensions(con)
    _stage(con, source, name)
    problems = list(parsed.problems)
    con.execute(
        f"""INSERT INTO ratings
            SELECT task_id, rater_id, role, rubric, dimension, target, value, value_index, value_num,
                   submitted_ts, duration, comment, submission_id, ?
            FROM {STAGE} WHERE problem IS NULL""",
        [ingest_id],
    )
    loaded, bad = con.execute(
        f"SELECT count(*) FILTER (WHERE problem IS NULL), count(*) FILTER (WHERE problem IS NOT NULL) FROM {STAGE}"
    ).fetchall()[0]
    con.execute(
        f"""INSERT INTO quarantine
            SELECT ?, ?, line, record, problem_field, problem_value, problem FROM {STAGE} WHERE problem IS NOT NULL""",
        [ingest_id, name],
    )
    if problems:
        con.executemany(
            "INSERT INTO quarantine VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(ingest_id, name, p.line, p.record, p.field, p.raw_value, p.reason) for p in problems],
        )
    n_tasks = _insert_rows(con, "tasks", TASK_COLUMNS, parsed.tasks, ingest_id, role=None)
    _insert_rows(con, "task_items", ITEM_COLUMNS, parsed.items, ingest_id, role=None)
    n_subs = _insert_rows(con, "submissions", SUBMISSION_COLUMNS, parsed.submissions, ingest_id, role=role)
    quarantined = int(bad) + sum(p.counts_as_row for p in problems)
    loaded = int(loaded)
    con.execute(
        "INSERT INTO ingest_log VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, current_timestamp)",
        [ingest_id, name, data_hash, parsed.format, role, loaded + quarantined, loaded, quarantined, n_tasks, n_subs],
    )
    store.bump_version(con)
    con.execute(f"DROP TABLE IF EXISTS {STAGE}")
    con.execute("DROP VIEW IF EXISTS stage_input")
    errors = [p.reason for p in problems] + _sample_problems(con, ingest_id, limit=20)
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
    )


def _input_view(con: duckdb.DuckDBPyConnection, parsed: Parsed, role: str | None) -> str:
    """A view of the adapter's candidate rows with text trimmed, defaults applied and numbers in one spelling."""
    if parsed.staged_table:
        source = parsed.staged_table
    else:
        con.register("parsed_ratings", parsed.ratings)
        con.execute("CREATE OR REPLACE TEMP TABLE parsed_ratings_t AS SELECT * FROM parsed_ratings")
        con.unregister("parsed_ratings")
        source = "parsed_ratings_t"
    role_sql = "?" if role else "lower(coalesce(nullif(trim(role), ''), 'contractor'))"
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW stage_input AS SELECT
              nullif(trim(task_id), '') AS task_id, nullif(trim(rater_id), '') AS rater_id,
              {role_sql} AS role,
              coalesce(nullif(trim(rubric), ''), 'unspecified') AS rubric,
              nullif(trim(dimension), '') AS dimension, coalesce(trim(target), '') AS target,
              CASE WHEN TRY_CAST(trim(value) AS DOUBLE) IS NOT NULL
                        AND TRY_CAST(trim(value) AS DOUBLE) = round(TRY_CAST(trim(value) AS DOUBLE))
                        AND abs(TRY_CAST(trim(value) AS DOUBLE)) < 1e15
                   THEN CAST(CAST(TRY_CAST(trim(value) AS DOUBLE) AS BIGINT) AS VARCHAR)
                   ELSE nullif(trim(value), '') END AS value,
              trim(value) AS raw_value,
              submitted_at, TRY_CAST(submitted_at AS TIMESTAMP) AS submitted_ts,
              duration_s, TRY_CAST(duration_s AS DOUBLE) AS duration,
              comment, submission_id, CAST(line AS BIGINT) AS line, record
            FROM {source}""",
        [role] if role else [],
    )
    return "stage_input"


def _infer_unknown_dimensions(con: duckdb.DuckDBPyConnection) -> None:
    """Give dimensions of rubrics the catalogue does not know a scale inferred from their values."""
    rows = con.execute(
        """SELECT rubric, dimension, list(DISTINCT value) FROM stage_input
            WHERE dimension IS NOT NULL AND value IS NOT NULL
              AND rubric NOT IN (SELECT DISTINCT rubric FROM dimensions WHERE source = 'catalogue')
            GROUP BY rubric, dimension"""
    ).fetchall()
    for rubric, dimension, values in rows:
        old = con.execute(
            "SELECT levels FROM dimensions WHERE rubric = ? AND dimension = ?", [rubric, dimension]
        ).fetchall()
        previous = list(old[0][0]) if old else []
        dim = rubrics.infer_dimension(dimension, previous + list(values))
        con.execute(
            "INSERT OR REPLACE INTO dimensions VALUES (?, ?, ?, ?, ?, ?, ?, ?, false, false, 'inferred')",
            [rubric, dimension, dimension, dim.kind, list(dim.levels), list(dim.levels), [], ""],
        )
        if old and previous != list(dim.levels):  # new levels changed the positions of the old ones
            con.execute(
                """UPDATE ratings SET value_index = list_position(?, value) - 1
                   WHERE rubric = ? AND dimension = ?""",
                [list(dim.levels), rubric, dimension],
            )


# Each check is (field, SQL condition on input row s joined with its dimension d, reason as a SQL expression).
# They are tried in order; a row keeps the first problem found.
CHECKS = (
    ("task_id", "s.task_id IS NULL", "'missing required field task_id'"),
    ("rater_id", "s.rater_id IS NULL", "'missing required field rater_id'"),
    ("dimension", "s.dimension IS NULL", "'missing required field dimension'"),
    ("value", "s.value IS NULL", "'missing required field value'"),
    (
        "role",
        "s.role NOT IN ('contractor', 'researcher')",
        "'role ' || s.role || ' is neither contractor nor researcher'",
    ),
    ("dimension", "d.dimension IS NULL", "'rubric ' || s.rubric || ' has no dimension ' || s.dimension"),
    (
        "target",
        "len(d.targets) > 0 AND NOT list_contains(d.targets, s.target)",
        "'target ' || CASE WHEN s.target = '' THEN '(empty)' ELSE s.target END || ' is not one of '"
        " || array_to_string(d.targets, ', ') || ' for ' || s.dimension",
    ),
    (
        "value",
        "NOT list_contains(d.levels, s.value)",
        "'value ' || s.raw_value || ' is not on the scale of ' || s.rubric || '/' || s.dimension || ' ('"
        " || array_to_string(d.levels[1:12], ', ') || CASE WHEN len(d.levels) > 12 THEN ', ...' ELSE '' END || ')'"
        " || CASE WHEN TRY_CAST(s.raw_value AS DOUBLE) IS NOT NULL"
        " AND TRY_CAST(s.raw_value AS DOUBLE) <> round(TRY_CAST(s.raw_value AS DOUBLE))"
        " THEN ': half or fractional scores are not allowed' ELSE '' END",
    ),
    (
        "submitted_at",
        "s.submitted_at IS NOT NULL AND trim(s.submitted_at) <> '' AND s.submitted_ts IS NULL",
        "'submitted_at ' || s.submitted_at || ' is not a date and time (use ISO 8601, e.g. 2026-03-01T14:05:00)'",
    ),
    (
        "duration_s",
        "s.duration_s IS NOT NULL AND trim(s.duration_s) <> '' AND (s.duration IS NULL OR s.duration < 0)",
        "'duration_s ' || s.duration_s || ' is not a non-negative number of seconds'",
    ),
)


def _stage(con: duckdb.DuckDBPyConnection, source: str, name: str) -> None:
    """Materialise the input once with its scale positions and its first problem, then mark duplicates."""
    problem = "CASE " + " ".join(f"WHEN {cond} THEN {reason}" for _, cond, reason in CHECKS) + " END"
    problem_field = "CASE " + " ".join(f"WHEN {cond} THEN '{fld}'" for fld, cond, _ in CHECKS) + " END"
    con.execute(f"DROP TABLE IF EXISTS {STAGE}")
    con.execute(
        f"""CREATE TEMP TABLE {STAGE} AS SELECT s.*,
                list_position(d.levels, s.value) - 1 AS value_index,
                coalesce(TRY_CAST(s.value AS DOUBLE),
                         CASE WHEN d.kind IN ('ordinal', 'ranking') THEN list_position(d.levels, s.value) - 1 END)
                    AS value_num,
                {problem} AS problem, {problem_field} AS problem_field, s.raw_value AS problem_value
            FROM {source} s LEFT JOIN dimensions d ON d.rubric = s.rubric AND d.dimension = s.dimension"""
    )
    _mark_duplicates(con)
    # Prefix every reason with where it is, so each message stands on its own.
    con.execute(
        f"""UPDATE {STAGE} SET problem = ? || coalesce(', line ' || CAST(line AS VARCHAR), ', ' || record, '')
                || coalesce(', field ' || problem_field, '') || ': ' || problem
            WHERE problem IS NOT NULL""",
        [name],
    )


def _mark_duplicates(con: duckdb.DuckDBPyConnection) -> None:
    """Quarantine a rater's second rating of a unit, in this file or after an earlier file."""
    # Inside the file: the same rater on the same unit twice. Neither copy is trusted.
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE stage_dups AS
            SELECT task_id, rubric, dimension, target, rater_id,
                   array_to_string(list(CAST(coalesce(line, 0) AS VARCHAR) ORDER BY line)[1:5], ', ') AS lines
            FROM {STAGE} WHERE problem IS NULL GROUP BY ALL HAVING count(*) > 1"""
    )
    if con.execute("SELECT count(*) FROM stage_dups").fetchall()[0][0]:
        con.execute(
            f"""UPDATE {STAGE} AS s SET problem = 'rater ' || s.rater_id || ' rated ' || s.rubric || '/'
                    || s.dimension || ' of task ' || s.task_id
                    || CASE WHEN s.target <> '' THEN ' (' || s.target || ')' ELSE '' END
                    || ' more than once in this file'
                    || CASE WHEN dup.lines <> '0' THEN ' (lines ' || dup.lines || ')' ELSE '' END,
                    problem_field = 'rater_id'
                FROM stage_dups dup
                WHERE s.problem IS NULL AND s.task_id = dup.task_id AND s.rubric = dup.rubric
                  AND s.dimension = dup.dimension AND s.target = dup.target AND s.rater_id = dup.rater_id"""
        )
    con.execute("DROP TABLE stage_dups")
    # Already rated in an earlier file: the store keeps one rating per rater and unit.
    if con.execute("SELECT count(*) FROM (SELECT 1 FROM ratings LIMIT 1)").fetchall()[0][0]:
        con.execute(
            f"""UPDATE {STAGE} AS s SET problem = 'rater ' || s.rater_id || ' already rated ' || s.rubric || '/'
                    || s.dimension || ' of task ' || s.task_id || ' in an earlier file (' || l.file_name || ')',
                    problem_field = 'rater_id'
                FROM ratings r JOIN ingest_log l USING (ingest_id)
                WHERE s.problem IS NULL AND s.task_id = r.task_id AND s.rubric = r.rubric
                  AND s.dimension = r.dimension AND s.target = r.target AND s.rater_id = r.rater_id"""
        )


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
    placeholders = ", ".join("?" for _ in range(len(columns) + 1))
    before = int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])
    con.executemany(f"INSERT OR IGNORE INTO {table} VALUES ({placeholders})", values)
    return int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]) - before


def _sample_problems(con: duckdb.DuckDBPyConnection, ingest_id: int, limit: int) -> list[str]:
    rows = con.execute(
        "SELECT reason FROM quarantine WHERE ingest_id = ? ORDER BY line NULLS LAST LIMIT ?", [ingest_id, limit]
    ).fetchall()
    return [r[0] for r in rows]
