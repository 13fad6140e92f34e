"""Canonical long ratings: CSV, Parquet or JSONL with one rating per row (DESIGN.md, canonical data).

CSV and Parquet are staged as views over DuckDB's readers, so tens of millions of rows never pass through
Python and are never copied before the checks: the load scans the file a few times instead (a CSV scan of
25M ratings costs seconds, a copy of them gigabytes). A CSV row's line number is computed as it streams
past (a running count of the physical lines, which also counts the lines inside quoted multi-line fields),
shifted past the rejected lines that DuckDB's rejects table names. JSONL is read line by line so that a
malformed line is quarantined with its line number.

The optional `shown_first` column names the option a rater saw first (on the left). Comparisons entered as
clicked ("Left better", ...) are put in the catalogue's A/B terms with it, and it is kept as one submission
per task and rater so that position bias can be measured (analytics/describe/distributions.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from analytics.core import rubrics
from analytics.core.queries import Query
from analytics.ingest import csv_scan, limits
from analytics.ingest.base import RATING_COLUMNS, ROLES, FileRejected, Parsed, Problem, ratings_frame

NAME = "canonical"
REQUIRED = ("task_id", "rater_id", "dimension", "value")
OPTIONAL = ("role", "rubric", "target", "submitted_at", "duration_s", "comment", "shown_first")
STAGE = "stage_canonical"
SHOWN = "stage_canonical_shown"  # the staged rows with their shown_first checks
STAGE_CHECKED = "stage_canonical_checked"  # the rows that pass them, left/right values in A/B terms
PARQUET_MAGIC = b"PAR1"
# The options a comparison level names ("A much better" .. "B much better"): what shown_first may say there.
OPTIONS = (rubrics.COMPARISON_LEVELS[0].split()[0], rubrics.COMPARISON_LEVELS[-1].split()[0])
SIDES = ("left", "right")  # as clicked on screen; the left option is the one shown first
# A value as compared with the clicked spellings: trimmed, runs of white space as one space, lower case (only
# for values naming a side: the regular expression on every row of a large file would cost seconds).
CLICKED_KEY = r"""CASE WHEN CAST(value AS VARCHAR) ILIKE '%left%' OR CAST(value AS VARCHAR) ILIKE '%right%'
                      THEN lower(regexp_replace(trim(CAST(value AS VARCHAR)), '\s+', ' ', 'g')) END"""


def detect(head: bytes, file_name: str) -> bool:
    """Whether the file looks like canonical long ratings (a header naming the required columns)."""
    if head.startswith(PARQUET_MAGIC):
        return True
    text = head.decode("utf-8-sig", errors="replace")
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("{"):
        if limits.nesting(first.encode()) > limits.MAX_READ_DEPTH:
            return False
        try:
            keys = set(json.loads(first))
        except ValueError:
            return False
        return set(REQUIRED) <= keys
    return all(col in first for col in REQUIRED)


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """Stage the file's rows, reject it when columns are missing, then put left/right values in A/B terms."""
    kind = _kind(path)
    for name in (STAGE, SHOWN, STAGE_CHECKED):
        _drop(con, name)
    records: int | None
    if kind == "jsonl":
        problems, has_shown_first, records = _parse_jsonl(path, file_name, con)
        check_shown_first = has_shown_first or _has_clicked(con)
    else:
        problems, check_shown_first, records = _stage_table(path, file_name, con, kind)
    if not check_shown_first:
        return Parsed(format=NAME, staged_table=STAGE, problems=problems, rows_in_file=records)
    parsed = _apply_shown_first(con, file_name, problems)
    parsed.rows_in_file = records
    return parsed


def _stage_table(
    path: Path, file_name: str, con: duckdb.DuckDBPyConnection, kind: str
) -> tuple[list[Problem], bool, int | None]:
    """Stage a CSV or Parquet file as the view STAGE; its malformed rows, whether the shown_first checks must run
    (it has shown_first or a left/right value), and its records as counted in the file (CSV: csv_scan.py)."""
    try:
        if kind == "parquet":
            _check_parquet_columns(path, file_name)
            rel = con.read_parquet(str(path), file_row_number=True)
        else:
            csv_sql, scan, read_path = _read_csv(con, path, file_name)
            rel = con.sql(csv_sql)
        raw = rel.columns
    except duckdb.Error as e:
        raise FileRejected(
            f"{file_name} cannot be read as a {kind.upper()} file: {_first_line(e, path, file_name)}"
        ) from e
    columns = [c.lstrip("\ufeff").strip() for c in raw]
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        found = ", ".join(c for c in columns if c != "file_row_number")[:300] or "no columns"
        raise FileRejected(
            f"{file_name}, line 1 (header): missing required column(s) {', '.join(missing)}; found {found}"
        )
    if kind == "parquet":
        rel.create_view("canonical_input", replace=True)
    else:
        con.execute(f"CREATE OR REPLACE TEMP VIEW canonical_input AS {csv_sql}")
    pick = []
    for col in (*RATING_COLUMNS, "shown_first"):
        if col in ("line", "record", "submission_id"):
            continue
        # Columns keep their own types here (a Parquet timestamp stays a timestamp); staging.py casts what it needs.
        quoted = _quote(raw[columns.index(col)]) if col in columns else None
        pick.append(f"{quoted} AS {col}" if quoted else f"CAST(NULL AS VARCHAR) AS {col}")
    select = ", ".join(pick) + ", CAST(NULL AS VARCHAR) AS submission_id"
    if kind == "parquet":
        con.execute(
            f"""CREATE OR REPLACE TEMP VIEW {STAGE} AS SELECT {select}, CAST(NULL AS BIGINT) AS line,
                    'row ' || CAST(file_row_number + 1 AS VARCHAR) AS record FROM canonical_input"""
        )
        return [], "shown_first" in columns or _has_clicked(con), None
    try:
        multiline, clicked = _scan_csv(con, select, [_quote(c) for c in raw], read_path)
    except duckdb.Error as e:
        raise FileRejected(
            f"{file_name} cannot be read as a {kind.upper()} file: {_first_line(e, path, file_name)}"
        ) from e
    by_duckdb = _rejected_lines(con, read_path, multiline)
    rejected = sorted([*by_duckdb, *(Rejected(n, n, h) for n, h in scan.skipped)], key=lambda r: r.line)
    positioned = f"(SELECT *, {_position_sql([_quote(c) for c in raw], multiline)} AS {POSITION} FROM canonical_input)"
    if len(rejected) <= MAX_CASE_STEPS:
        source, line = positioned, _line_sql(rejected)
    else:  # many rows set aside (a file of short rows under a wide header): a join, not a CASE of that size
        _line_shifts(con, rejected)
        source = f"{positioned} p ASOF LEFT JOIN {SHIFTS} s ON p.{POSITION} >= s.{SHIFT_START}"
        line = f"{POSITION} + coalesce({SHIFT}, 0)"
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW {STAGE} AS SELECT {select}, {line} AS line, CAST(NULL AS VARCHAR) AS record
            FROM {source}"""
    )
    problems = _csv_rejects(con, file_name, {r.duckdb_line: r.line for r in by_duckdb})
    problems = sorted([*problems, *scan.problems], key=lambda p: p.line or 0)
    return problems, "shown_first" in columns or clicked, scan.records


# The column of a CSV row's physical line counted as if no line had been rejected (named so that no CSV header
# is likely to hold it).
POSITION = "__concord_position"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _newlines_sql(quoted: list[str]) -> str:
    """SQL for the line breaks inside a CSV row's fields (quoted multi-line fields): extra physical lines."""
    return " + ".join(f"coalesce(length({q}) - length(replace({q}, chr(10), '')), 0)" for q in quoted)


def _scan_csv(con: duckdb.DuckDBPyConnection, select: str, quoted: list[str], path: Path) -> tuple[bool, bool]:
    """One pass over the CSV (which also fills csv_rejects): whether any field holds a line break, and whether
    any value is a left/right spelling (the shown_first checks then run).

    Only a quoted field can hold a line break: a file without quote characters is not searched for them
    (reading every field costs more than the scan itself). Values are checked once per distinct value."""
    breaks = " OR ".join(f"contains({q}, chr(10))" for q in quoted) if _has_quotes(path) else "false"
    row = Query(
        "csv_scan",
        f"""SELECT coalesce(bool_or(breaks), false), coalesce(bool_or(list_contains($clicked, {CLICKED_KEY})), false)
            FROM (SELECT value, bool_or({breaks}) AS breaks
                  FROM (SELECT {select}, {", ".join(quoted)} FROM canonical_input) GROUP BY value)""",
        {"clicked": clicked_spellings()},
    ).rows(con)[0]
    return bool(row[0]), bool(row[1])


def _has_quotes(path: Path) -> bool:
    """Whether the file holds a character DuckDB's sniffer may take as the quote (" or ')."""
    with open(path, "rb") as f:
        return any(b'"' in chunk or b"'" in chunk for chunk in iter(lambda: f.read(1 << 22), b""))


def _position_sql(quoted: list[str], multiline: bool) -> str:
    """SQL for a row's physical line if no line were rejected: the header is line 1, and a row after a quoted
    multi-line field sits further down by that field's line breaks. Streams: a running count, no copy."""
    if not multiline:
        return "row_number() OVER () + 1"
    height = f"1 + {_newlines_sql(quoted)}"
    return f"2 + sum({height}) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - ({height})"


@dataclass(frozen=True)
class Rejected:
    """A CSV row DuckDB rejected: the line DuckDB names (it does not count line breaks inside quoted fields),
    its physical line and how many lines it spans."""

    duckdb_line: int
    line: int
    height: int


def _rejected_lines(con: duckdb.DuckDBPyConnection, read_path: Path, multiline: bool) -> list[Rejected]:
    """The rejected rows in line order. DuckDB's line is the physical one unless a quoted field before it holds
    a line break; then the physical line is counted from the row's byte offset in the file that was read."""
    try:
        rows = con.execute(
            """SELECT line, min(line_byte_position), any_value(csv_line) FROM csv_rejects
               GROUP BY line ORDER BY line"""
        ).fetchall()
    except duckdb.Error:
        return []
    heights = [1 + (text or "").count("\n") for _, _, text in rows]
    if not multiline and all(h == 1 for h in heights):
        return [Rejected(int(n), int(n), 1) for n, _, _ in rows]
    lines = _lines_at(read_path, [int(pos) - 1 if pos else None for _, pos, _ in rows])
    return [
        Rejected(int(n), physical if physical is not None else int(n), h)
        for (n, _, _), physical, h in zip(rows, lines, heights, strict=True)
    ]


def _lines_at(path: Path, offsets: list[int | None]) -> list[int | None]:
    """The line (1-based) holding each byte offset of the file, in one pass over it."""
    order = sorted((o, i) for i, o in enumerate(offsets) if o is not None)
    out: list[int | None] = [None] * len(offsets)
    breaks, start, k = 0, 0, 0
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            end = start + len(chunk)
            while k < len(order) and order[k][0] < end:
                offset, i = order[k]
                out[i] = breaks + chunk.count(b"\n", 0, max(offset - start, 0)) + 1
                k += 1
            if k == len(order):
                break
            breaks += chunk.count(b"\n")
            start = end
    return out


def _line_sql(rejected: list[Rejected]) -> str:
    """SQL for a row's physical line: its position shifted past the rejected rows before it.

    A rejected row at physical line P spanning h lines moves every later row down by h. In positions (lines
    counted without rejected rows) the i-th rejected row sits at P_i minus the heights of those before it; a
    row at or after that position is shifted by the heights of the rejected rows up to it. The shift is a step
    function of the position, written as a balanced CASE (a binary search: log2(rejected) comparisons a row)."""
    if not rejected:
        return POSITION
    starts, shifts, shift = [], [0], 0
    for r in rejected:
        starts.append(r.line - shift)
        shift += r.height
        shifts.append(shift)

    def step(lo: int, hi: int) -> str:  # the shift of a row with between lo and hi rejected rows before it
        if lo == hi:
            return str(shifts[lo])
        mid = (lo + hi + 1) // 2
        return f"CASE WHEN {POSITION} < {starts[mid - 1]} THEN {step(lo, mid - 1)} ELSE {step(mid, hi)} END"

    return f"{POSITION} + {step(0, len(rejected))}"


MAX_CASE_STEPS = 256
SHIFTS = "canonical_line_shifts"
SHIFT_START, SHIFT = "__concord_shift_start", "__concord_shift"  # named so that no CSV header is likely to hold them


def _line_shifts(con: duckdb.DuckDBPyConnection, rejected: list[Rejected]) -> None:
    """The step function of _line_sql as the temp table SHIFTS: from each start position on, the shift."""
    steps: dict[int, int] = {}
    shift = 0
    for r in rejected:
        start = r.line - shift
        shift += r.height
        steps[start] = shift  # rows set aside one after another share a start: the last shift counts
    frame = pd.DataFrame({SHIFT_START: list(steps), SHIFT: list(steps.values())}, dtype="int64")
    con.register("canonical_shift_frame", frame)
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {SHIFTS} AS SELECT * FROM canonical_shift_frame")
    finally:
        con.unregister("canonical_shift_frame")


def _check_parquet_columns(path: Path, file_name: str) -> None:
    """Refuse a Parquet file with more than MAX_COLUMNS columns, from its footer alone (no data is read)."""
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    try:
        n_columns = len(pq.read_schema(path).names)
    except Exception:  # noqa: BLE001 - not readable as Parquet: DuckDB's reader gives the message that follows
        return
    if n_columns > limits.MAX_COLUMNS:
        raise FileRejected(f"{file_name} (Parquet schema): {limits.too_many_columns(n_columns)}")


def _read_csv(con: duckdb.DuckDBPyConnection, path: Path, file_name: str) -> tuple[str, csv_scan.CsvScan, Path]:
    """The CSV as a query (SELECT * FROM read_csv(...), bound once here to see that it can be read), its
    pre-scan (csv_scan.py: the records counted, those set aside) and the file read (the file, or the pre-scan's
    copy without the set-aside records); its other malformed rows go to csv_rejects when it is scanned.

    The query names the pre-scan's dialect and header (delimiter, standard quoting, every column as text) with
    DuckDB's sniffer off: the view is bound by every statement that reads it, and each bind sniffed the file again
    (3-7 s a time for 1,000 columns). A header DuckDB cannot take as given (repeated or empty names) is sniffed.
    The load's joins read the rows copied into a temp table (load.py), so DuckDB's row estimate for a file read
    with the sniffer off (about 42 rows) no longer sizes them.

    The header is checked first, in Python: over MAX_COLUMNS columns or MAX_LINE_BYTES bytes refuses the file
    before DuckDB's dialect sniffer (which took minutes on 100,000 columns). When the sniffer gives up, the
    file is read again with the header's delimiter and standard quoting."""
    with open(path, "rb") as f:
        first = f.readline(limits.MAX_LINE_BYTES + 1)
    if len(first) > limits.MAX_LINE_BYTES:
        raise FileRejected(f"{file_name}, line 1 (header): {limits.line_too_long(len(first))}")
    delimiter, n_columns = limits.csv_header(first)
    if n_columns > limits.MAX_COLUMNS:
        raise FileRejected(f"{file_name}, line 1 (header): {limits.too_many_columns(n_columns)}")
    scan = csv_scan.scan(path, file_name, delimiter)
    read_path = scan.read_path or path
    options: dict[str, Any] = {
        "all_varchar": True,
        "header": True,
        "store_rejects": True,
        "rejects_table": "csv_rejects",
        "rejects_scan": "csv_reject_scans",
        "max_line_size": limits.MAX_LINE_BYTES,
    }
    dialect: dict[str, Any] = {"delim": delimiter, "quote": '"', "escape": '"'}
    names = scan.raw_header
    if names and all(n.strip() for n in names) and len(set(names)) == len(names):
        given = {**dialect, **options, "auto_detect": False, "columns": {n: "VARCHAR" for n in names}}
        given.pop("all_varchar")
        try:
            return _csv_query(con, read_path, given), scan, read_path
        except duckdb.Error:
            pass  # read as DuckDB's sniffer reads it
    try:
        return _csv_query(con, read_path, options), scan, read_path
    except duckdb.Error as e:
        if "sniffing" not in str(e) and "line size" not in str(e).lower():
            raise
    return _csv_query(con, read_path, {**dialect, **options}), scan, read_path


def _csv_query(con: duckdb.DuckDBPyConnection, path: Path, options: dict[str, Any]) -> str:
    """SELECT * FROM read_csv(path, options), bound once (DuckDB's sniffer raises here if it cannot read it).

    Bound on a cursor of its own: an error there does not abort the load's transaction, so the next attempt
    can run in it."""
    args = "".join(f", {name} = {_literal(value)}" for name, value in options.items())
    sql = f"SELECT * FROM read_csv({_literal(str(path))}{args})"
    cursor = con.cursor()
    try:
        cursor.execute(f"DESCRIBE {sql}")
    finally:
        cursor.close()
    return sql


def _literal(value: Any) -> str:
    """A SQL literal of a read_csv option."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


TEMP_RELATION_KIND = Query(
    "temp_relation_kind",
    """SELECT 'VIEW' FROM duckdb_views() WHERE view_name = $name AND temporary
       UNION ALL SELECT 'TABLE' FROM duckdb_tables() WHERE table_name = $name AND temporary""",
)


def _drop(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Drop the temp table or view `name`, whichever it is (DROP TABLE on a view is an error, and an error
    inside the load's transaction would abort it)."""
    found = TEMP_RELATION_KIND.bind(name=name).rows(con)
    for (kind,) in found:
        con.execute(f"DROP {kind} {name}")


# --- shown_first: the option a rater saw first (on the left) ------------------------------------------------------


def clicked_levels() -> dict[tuple[str, str], str]:
    """(clicked spelling in lower case, option shown first) -> its level on the catalogue's comparison scale.

    "Left much better" with A shown first is "A much better"; with B shown first it is the flipped level."""
    out = {}
    for level in rubrics.COMPARISON_LEVELS:
        option, _, rest = level.partition(" ")
        if option not in OPTIONS:
            continue  # "Equally good" needs no side
        spelling = f"{SIDES[OPTIONS.index(option)]} {rest}".lower()
        out[(spelling, OPTIONS[0])] = level
        out[(spelling, OPTIONS[1])] = rubrics.COMPARISON_FLIP[level]
    return out


def clicked_spellings() -> list[str]:
    """The accepted left/right spellings in lower case ("left much better", ..., "right much better")."""
    return list(dict.fromkeys(spelling for spelling, _ in clicked_levels()))


HAS_CLICKED = Query(
    "staged_clicked_value", f"SELECT 1 FROM {STAGE} WHERE list_contains($clicked, {CLICKED_KEY}) LIMIT 1"
)


def _has_clicked(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether any staged value is a left/right spelling."""
    return bool(HAS_CLICKED.bind(clicked=clicked_spellings()).rows(con))


# Checks of a staged row's shown_first on table SHOWN, first failing one wins: (field, condition, reason).
SHOWN_FIRST_CHECKS = (
    (
        "shown_first",
        "is_clicked AND sf IS NULL",
        "'value ' || trim(CAST(value AS VARCHAR)) || ' names the left or right option, but the row has no"
        " shown_first: shown_first is needed to say which option (' || array_to_string($options::VARCHAR[], ' or ')"
        " || ') was on the left'",
    ),
    (
        "shown_first",
        "sf IS NOT NULL AND allowed IS NOT NULL AND NOT list_contains(allowed, sf)",
        "'shown_first ' || sf || ' is not one of ' || array_to_string(allowed, ', ') || ', the options of '"
        " || rubric_key || '/' || dimension_key",
    ),
    (
        "shown_first",
        "is_clicked AND clicked_level IS NULL",
        "'shown_first ' || sf || ' is not ' || array_to_string($options::VARCHAR[], ' or ') || ', so value '"
        " || trim(CAST(value AS VARCHAR)) || ' cannot be put in A/B terms'",
    ),
    (
        "shown_first",
        "sf IS NOT NULL AND sf_min <> sf_max",
        "'rater ' || rater_key || ' saw task ' || task_key || ' in two orders: shown_first is ' || sf_min"
        " || ' on some of its rows and ' || sf_max || ' on others'",
    ),
    (
        "shown_first",
        "sf <> stored",
        "'shown_first ' || sf || ' contradicts ' || stored || ', stored for rater ' || rater_key || ' on task '"
        " || task_key || ' by an earlier file'",
    ),
)


def _apply_shown_first(con: duckdb.DuckDBPyConnection, file_name: str, problems: list[Problem]) -> Parsed:
    """Check shown_first, put left/right values in A/B terms, and keep shown_first as submissions."""
    _check_shown_first(con)
    problems = problems + _shown_first_problems(con, file_name)
    cols = ["coalesce(clicked_level, CAST(value AS VARCHAR)) AS value" if c == "value" else c for c in RATING_COLUMNS]
    con.execute(f"CREATE TEMP TABLE {STAGE_CHECKED} AS SELECT {', '.join(cols)} FROM {SHOWN} WHERE sf_problem IS NULL")
    submissions = _shown_first_submissions(con)
    _drop(con, SHOWN)
    return Parsed(format=NAME, staged_table=STAGE_CHECKED, submissions=submissions, problems=problems)


def _check_shown_first(con: duckdb.DuckDBPyConnection) -> None:
    """SHOWN: every staged row with its shown_first (sf), its left/right value in A/B terms and its first problem."""
    levels = clicked_levels()
    reason = "CASE " + " ".join(f"WHEN {cond} THEN {why}" for _, cond, why in SHOWN_FIRST_CHECKS) + " END"
    field = "CASE " + " ".join(f"WHEN {cond} THEN '{f}'" for f, cond, _ in SHOWN_FIRST_CHECKS) + " END"
    Query(
        "shown_first_checked",
        f"""CREATE TEMP TABLE {SHOWN} AS
            WITH s AS (SELECT *, nullif(trim(CAST(shown_first AS VARCHAR)), '') AS sf, {CLICKED_KEY} AS clicked,
                              nullif(trim(CAST(task_id AS VARCHAR)), '') AS task_key,
                              nullif(trim(CAST(rater_id AS VARCHAR)), '') AS rater_key,
                              coalesce(nullif(trim(CAST(rubric AS VARCHAR)), ''), 'unspecified') AS rubric_key,
                              nullif(trim(CAST(dimension AS VARCHAR)), '') AS dimension_key
                       FROM {STAGE}),
                 k AS (SELECT unnest($level_clicked) AS clicked, unnest($level_sf) AS sf, unnest($level) AS level),
                 earlier AS (SELECT task_id, rater_id, rubric, min(shown_first) AS stored FROM submissions
                             WHERE shown_first IS NOT NULL GROUP BY ALL),
                 a AS (SELECT s.*, list_contains($clicked, s.clicked) AS is_clicked, k.level AS clicked_level,
                              CASE WHEN d.is_comparison THEN $options::VARCHAR[]
                                   WHEN len(d.targets) > 0 THEN d.targets END AS allowed,
                              e.stored, min(s.sf) OVER w AS sf_min, max(s.sf) OVER w AS sf_max
                       FROM s LEFT JOIN dimensions d ON d.rubric = s.rubric_key AND d.dimension = s.dimension_key
                       LEFT JOIN k ON k.clicked = s.clicked AND k.sf = s.sf
                       LEFT JOIN earlier e ON e.task_id = s.task_key AND e.rater_id = s.rater_key
                            AND e.rubric = s.rubric_key
                       WINDOW w AS (PARTITION BY s.task_key, s.rater_key, s.rubric_key))
            SELECT *, {reason} AS sf_problem, {field} AS sf_field FROM a""",
        {
            "level_clicked": [c for c, _ in levels],
            "level_sf": [o for _, o in levels],
            "level": list(levels.values()),
            "clicked": clicked_spellings(),
            "options": list(OPTIONS),
        },
    ).run(con)


def _shown_first_problems(con: duckdb.DuckDBPyConnection, file_name: str) -> list[Problem]:
    """The rows SHOWN quarantines, each located by line (CSV, JSONL) or row (Parquet)."""
    rows = con.execute(
        f"""SELECT line, record, sf_field, coalesce(sf, CAST(value AS VARCHAR)), sf_problem FROM {SHOWN}
            WHERE sf_problem IS NOT NULL ORDER BY line NULLS LAST, record"""
    ).fetchall()
    return [
        Problem(
            reason=f"{file_name}, {f'line {line}' if line is not None else record}, field {fld}: {why}",
            line=line,
            record=record,
            field=fld,
            raw_value=(raw or "")[:500],
        )
        for line, record, fld, raw, why in rows
    ]


def _shown_first_submissions(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """One submission per rubric, task and rater whose rows say which option came first (for position bias).

    Ratings keep no submission id and the submission no duration, so times per submission still come from the
    ratings (analytics/feedback.py) and are not counted twice."""
    rows = con.execute(
        f"""SELECT rubric_key, task_key, rater_key, any_value(sf),
                   lower(coalesce(nullif(trim(CAST(any_value(role) AS VARCHAR)), ''), 'contractor'))
            FROM {SHOWN} WHERE sf_problem IS NULL AND sf IS NOT NULL AND task_key IS NOT NULL
              AND rater_key IS NOT NULL AND dimension_key IS NOT NULL
            GROUP BY rubric_key, task_key, rater_key ORDER BY ALL"""
    ).fetchall()
    return [
        {
            "submission_id": f"{rubric}/{task}/{rater}",
            "task_id": task,
            "rubric": rubric,
            "rater_id": rater,
            "role": role,
            "status": "rated",
            "shown_first": shown_first,
        }
        for rubric, task, rater, shown_first, role in rows
        if role in ROLES
    ]


def _kind(path: Path) -> str:
    with open(path, "rb") as f:
        head = f.read(4096)
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json") or head.lstrip(b"\xef\xbb\xbf \r\n\t").startswith(b"{"):
        return "jsonl"
    return "csv"


def _csv_rejects(con: duckdb.DuckDBPyConnection, file_name: str, physical: dict[int, int]) -> list[Problem]:
    """The rows DuckDB rejected, one problem per line, in line order; lines over MAX_LINE_BYTES say so.

    `physical` maps DuckDB's line of a rejected row to its line in the file (_rejected_lines)."""
    try:
        rows = con.execute("SELECT line, column_name, error_type, csv_line, error_message FROM csv_rejects").fetchall()
    except duckdb.Error:
        rows = []
    # DuckDB may report one row several times (once per missing column): one row, one problem
    first_per_line: dict[int, tuple] = {}
    for line, col, err_type, csv_line, msg in rows:
        first_per_line.setdefault(physical.get(int(line), int(line)), (col, err_type, csv_line, msg))
    problems: dict[int, Problem] = {}
    for line, (col, err_type, csv_line, msg) in first_per_line.items():
        size = re.search(r"Actual Size:\s*(\d+)", msg or "") if err_type == "LINE SIZE OVER MAXIMUM" else None
        why = limits.line_too_long(int(size.group(1))) if size else f"malformed CSV row ({err_type.lower()}): {msg}"
        problems[line] = Problem(
            reason=f"{file_name}, line {line}{f', field {col}' if col and not size else ''}: {why}",
            line=line,
            field=None if size else col,
            raw_value=(csv_line or "")[:500],
        )
    return [problems[n] for n in sorted(problems)]


def _parse_jsonl(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> tuple[list[Problem], bool, int]:
    """Stage a JSONL file's objects as STAGE; the lines that cannot be read, whether any has shown_first, and the
    file's records (its lines that are not blank)."""
    rows, problems, shown_first = [], [], []
    records = 0
    with open(path, "rb") as f:
        for n, raw in enumerate(f, start=1):
            records += bool(raw.strip())
            if len(raw.rstrip(b"\r\n")) > limits.MAX_LINE_BYTES:
                size = len(raw.rstrip(b"\r\n"))
                problems.append(
                    Problem(f"{file_name}, line {n}: {limits.line_too_long(size)}", n, raw_value=_head(raw))
                )
                continue
            try:  # decoded line by line, so that one line in another encoding is one problem, not a failed file
                text = raw.decode("utf-8-sig" if n == 1 else "utf-8")
            except UnicodeDecodeError as e:
                reason = f"{file_name}, line {n}: not UTF-8 text (byte 0x{raw[e.start]:02x}); save the file as UTF-8"
                problems.append(Problem(reason, n, raw_value=raw[:500].decode("utf-8", "replace")))
                continue
            if not text.strip():
                continue
            if limits.nesting(raw) > limits.MAX_READ_DEPTH:  # never handed to the recursive JSON reader
                reason = f"{file_name}, line {n}: {limits.too_deep_to_read()}"
                problems.append(Problem(reason, n, raw_value=text[:500]))
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as e:
                problems.append(Problem(f"{file_name}, line {n}: not valid JSON ({e.msg})", n, raw_value=text[:500]))
                continue
            if not isinstance(obj, dict):
                problems.append(Problem(f"{file_name}, line {n}: expected a JSON object", n, raw_value=text[:500]))
                continue
            over = limits.json_problem(obj)
            if over is not None:
                fld, why = over
                where = f"{file_name}, line {n}" + (f", field {fld}" if fld else "")
                problems.append(Problem(f"{where}: {why}", n, field=fld, raw_value=text[:500]))
                continue
            rows.append({**{k: obj.get(k) for k in RATING_COLUMNS if k not in ("line", "record")}, "line": n})
            shown_first.append(obj.get("shown_first"))
    if not rows and not problems:
        raise FileRejected(f"{file_name} holds no rows")
    if rows and not any(set(REQUIRED) <= {k for k, v in r.items() if v is not None} for r in rows):
        raise FileRejected(f"{file_name}: no line has the required fields {', '.join(REQUIRED)}")
    frame = ratings_frame(rows)
    frame["shown_first"] = ratings_frame([{"value": v} for v in shown_first])["value"]
    con.register("canonical_jsonl_rows", frame)
    try:
        con.execute(f"CREATE TEMP TABLE {STAGE} AS SELECT * FROM canonical_jsonl_rows")
    finally:
        con.unregister("canonical_jsonl_rows")
    return problems, any(v is not None for v in shown_first), records


def _head(raw: bytes) -> str:
    """The first 500 characters of a raw line, for the quarantine's raw_value."""
    return raw[:500].decode("utf-8", "replace")


def _first_line(e: Exception, path: Path | None = None, file_name: str = "") -> str:
    """The first line of an engine message, the server's path to the file replaced by the file's name."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    if path is None:
        return text
    return re.sub(re.escape(str(path.parent)) + r"/[^\s\"']*", lambda _: file_name, text.replace(str(path), file_name))
