"""The staging of a load: the adapter's rows as `stage_input`, each row's own checks, duplicates (within the file
and against earlier files), the view of every row with its first problem, quarantine, and the inserts of tasks,
items and submissions. Every temp table or view of a load is in STAGING and dropped after it."""

from __future__ import annotations

import duckdb
import pandas as pd

from analytics.core.queries import Query
from analytics.ingest import limits
from analytics.ingest.base import Parsed, Problem, as_json
from analytics.ingest.combinations import first_failing

STAGE = "stage_ratings"
PARSED = "parsed_rows"  # the adapter's rows, copied out of the file before the write transaction

QUARANTINE_STAGED = Query(
    "quarantine_insert_staged",
    f"""INSERT INTO quarantine
        SELECT $ingest_id, $file_name, line, record, problem_field, problem_value,
               $file_name || coalesce(', line ' || CAST(line AS VARCHAR), ', ' || record, '')
                 || coalesce(', field ' || problem_field, '') || ': ' || problem
        FROM {STAGE} WHERE problem IS NOT NULL""",
)


def quarantine_staged(con: duckdb.DuckDBPyConnection, ingest_id: int, name: str) -> int:
    """Keep every staged row with a problem in quarantine (each reason starts with where it is); the rows kept."""
    return int(QUARANTINE_STAGED.bind(ingest_id=ingest_id, file_name=name).run(con).fetchall()[0][0])


QUARANTINE_INSERT = Query(
    "quarantine_insert",
    """INSERT INTO quarantine SELECT $ingest_id, $file_name, CAST(line AS BIGINT), record, field, raw_value, reason
       FROM quarantine_frame""",
)


def quarantine_problems(con: duckdb.DuckDBPyConnection, ingest_id: int, name: str, problems: list[Problem]) -> None:
    """Keep rows an adapter or a check refused in quarantine, with their reason (one bulk insert: row by row,
    100,000 refused rows took minutes under the write lock)."""
    if not problems:
        return
    frame = pd.DataFrame(
        [(p.line, p.record, p.field, p.raw_value, p.reason) for p in problems],
        columns=["line", "record", "field", "raw_value", "reason"],
        dtype=object,
    )
    con.register("quarantine_frame", frame)
    try:
        QUARANTINE_INSERT.bind(ingest_id=ingest_id, file_name=name).run(con)
    finally:
        con.unregister("quarantine_frame")


# Every temp table or view a load creates on its connection (the staging, the checks and the adapters): dropped
# after each load.
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
    "canonical_line_shifts",
    PARSED,
)


STAGING_RELATIONS = Query(
    "staging_relations",
    """SELECT 'VIEW', view_name FROM duckdb_views()  -- relation.create_view makes canonical_input in main
       WHERE (temporary OR schema_name = 'main') AND NOT internal AND list_contains($staging, view_name)
       UNION ALL SELECT 'TABLE', table_name FROM duckdb_tables() WHERE temporary AND list_contains($staging, table_name)
       ORDER BY 1 DESC""",
)


def drop_staging(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the load's temp tables and views (each as what it is: DROP TABLE on a view is an error)."""
    found = STAGING_RELATIONS.bind(staging=list(STAGING)).rows(con)
    for kind, name in found:  # views first: they read the tables
        con.execute(f"DROP {kind} IF EXISTS {name}")


# A staged view over a file up to this size is copied into PARSED before the write transaction; a larger one (a
# command-line load of tens of millions of rows: the copy doubled the peak memory, bench/RESULTS.md) is read by
# the transaction's passes, after the pre-scan that bounds what each pass costs (csv_scan.py).
COPY_UP_TO_BYTES = 256 * 2**20


def keep_parsed(con: duckdb.DuckDBPyConnection, parsed: Parsed, file_bytes: int = 0, rereads: bool = False) -> None:
    """Copy the adapter's rows into the temp table PARSED (a staged view reads the file each time it is scanned:
    the copy is what the load's transaction reads, so the file is not read under the write lock). `rereads`: a
    view nobody waits on may read its file in each pass (a Parquet file loaded into a store in memory, which no
    other program writes: the command line's FILE store), as a large file's view does."""
    if (parsed.staged_table and (file_bytes > COPY_UP_TO_BYTES or rereads)) or (
        parsed.ratings is None and not parsed.staged_table
    ):
        return  # a view read in place, or a file without ratings (a rater directory)
    if parsed.staged_table:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {PARSED} AS SELECT * FROM {parsed.staged_table}")
    else:
        con.register("parsed_ratings", parsed.ratings)
        try:
            con.execute(f"CREATE OR REPLACE TEMP TABLE {PARSED} AS SELECT * FROM parsed_ratings")
        finally:
            con.unregister("parsed_ratings")
    parsed.staged_table, parsed.ratings = PARSED, None


def in_memory(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the connection's store lives in memory (no file: no other program can wait on its lock)."""
    rows = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchall()
    return bool(rows) and rows[0][0] is None


def input_view(con: duckdb.DuckDBPyConnection, parsed: Parsed) -> None:
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
            f" of {limits.MAX_FIELD_CHARS:,}; {limits.SHORTEN}'",
        )
        for col in ("task_id", "rater_id", "comment", "submission_id")
    ),
)


def _combo_join(alias: str = "c") -> str:
    """The join of input rows s to their checked combination."""
    return f"{alias}.combo_key = s.combo_key"


def find_duplicates(con: duckdb.DuckDBPyConnection) -> int:
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


def has_duplicates(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(
        con.execute("SELECT (SELECT count(*) FROM stage_dups) + (SELECT count(*) FROM stage_earlier)").fetchall()[0][0]
    )


def stage_view(con: duckdb.DuckDBPyConnection) -> None:
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
                coalesce({first_failing(ROW_CHECKS, "reason")}, c.combo_problem,
                    CASE WHEN dup.task_id IS NOT NULL THEN 'rater ' || s.rater_id || ' rated ' || c.rubric || '/'
                         || c.dimension || ' of task ' || s.task_id
                         || CASE WHEN c.target <> '' THEN ' (' || c.target || ')' ELSE '' END
                         || ' more than once in this file' || coalesce(' (lines ' || dup.lines || ')', '') END,
                    CASE WHEN earlier.task_id IS NOT NULL THEN 'rater ' || s.rater_id || ' already rated '
                         || c.rubric || '/' || c.dimension || ' of task ' || s.task_id
                         || ' in an earlier file (' || earlier.file_name || ')' END) AS problem,
                coalesce({first_failing(ROW_CHECKS, "field")}, c.combo_field,
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


def insert_rows(
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
