"""Canonical long ratings: CSV, Parquet or JSONL with one rating per row (DESIGN.md, canonical data).

CSV and Parquet are read by DuckDB straight into a staging table, so tens of millions of rows never pass
through Python. JSONL is read line by line so that a malformed line is quarantined with its line number.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from analytics.ingest.base import RATING_COLUMNS, FileRejected, Parsed, Problem, ratings_frame

NAME = "canonical"
REQUIRED = ("task_id", "rater_id", "dimension", "value")
OPTIONAL = ("role", "rubric", "target", "submitted_at", "duration_s", "comment")
STAGE = "stage_canonical"
PARQUET_MAGIC = b"PAR1"


def detect(head: bytes, file_name: str) -> bool:
    """Whether the file looks like canonical long ratings (a header naming the required columns)."""
    if head.startswith(PARQUET_MAGIC):
        return True
    text = head.decode("utf-8-sig", errors="replace")
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("{"):
        try:
            keys = set(json.loads(first))
        except ValueError:
            return False
        return set(REQUIRED) <= keys
    return all(col in first for col in REQUIRED)


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """Stage the file's rows (a view for Parquet, a temp table for CSV); reject it when columns are missing."""
    kind = _kind(path)
    if kind == "jsonl":
        return _parse_jsonl(path, file_name)
    try:
        if kind == "parquet":
            rel = con.read_parquet(str(path), file_row_number=True)
        else:
            con.execute("DROP TABLE IF EXISTS csv_rejects")
            con.execute("DROP TABLE IF EXISTS csv_reject_scans")
            rel = con.read_csv(
                str(path),
                all_varchar=True,
                header=True,
                store_rejects=True,
                rejects_table="csv_rejects",
                rejects_scan="csv_reject_scans",
            )
        raw = rel.columns
    except duckdb.Error as e:
        raise FileRejected(f"{file_name} cannot be read as a {kind.upper()} file: {_first_line(e)}") from e
    columns = [c.lstrip("\ufeff").strip() for c in raw]
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        found = ", ".join(c for c in columns if c != "file_row_number")[:300] or "no columns"
        raise FileRejected(
            f"{file_name}, line 1 (header): missing required column(s) {', '.join(missing)}; found {found}"
        )
    rel.create_view("canonical_input", replace=True)
    con.execute(f"DROP TABLE IF EXISTS {STAGE}")
    con.execute(f"DROP VIEW IF EXISTS {STAGE}")
    pick = []
    for col in RATING_COLUMNS:
        if col in ("line", "record", "submission_id"):
            continue
        # Columns keep their own types here (a Parquet timestamp stays a timestamp); load.py casts what it needs.
        quoted = '"' + raw[columns.index(col)].replace('"', '""') + '"' if col in columns else None
        pick.append(f"{quoted} AS {col}" if quoted else f"CAST(NULL AS VARCHAR) AS {col}")
    select = ", ".join(pick) + ", CAST(NULL AS VARCHAR) AS submission_id"
    try:
        if kind == "parquet":
            con.execute(
                f"""CREATE OR REPLACE TEMP VIEW {STAGE} AS SELECT {select}, CAST(NULL AS BIGINT) AS line,
                        'row ' || CAST(file_row_number + 1 AS VARCHAR) AS record FROM canonical_input"""
            )
            return Parsed(format=NAME, staged_table=STAGE)
        con.execute(
            f"""CREATE TEMP TABLE {STAGE} AS SELECT {select}, row_number() OVER () + 1 AS line,
                    CAST(NULL AS VARCHAR) AS record FROM canonical_input"""
        )
    except duckdb.Error as e:
        raise FileRejected(f"{file_name} cannot be read as a {kind.upper()} file: {_first_line(e)}") from e
    problems = _csv_rejects(con, file_name)
    for r in sorted(p.line for p in problems if p.line):
        # Good rows after a rejected row sit one physical line further down.
        con.execute(f"UPDATE {STAGE} SET line = line + 1 WHERE line >= ?", [r])
    return Parsed(format=NAME, staged_table=STAGE, problems=problems)


def _kind(path: Path) -> str:
    with open(path, "rb") as f:
        head = f.read(4096)
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json") or head.lstrip(b"\xef\xbb\xbf \r\n\t").startswith(b"{"):
        return "jsonl"
    return "csv"


def _csv_rejects(con: duckdb.DuckDBPyConnection, file_name: str) -> list[Problem]:
    try:
        rows = con.execute("SELECT line, column_name, error_type, csv_line, error_message FROM csv_rejects").fetchall()
    except duckdb.Error:
        return []
    first_per_line = {}  # DuckDB may report one row several times (once per missing column): one row, one problem
    for line, col, err_type, csv_line, msg in rows:
        first_per_line.setdefault(int(line), (col, err_type, csv_line, msg))
    return [
        Problem(
            reason=f"{file_name}, line {line}{f', field {col}' if col else ''}: malformed CSV row ({err_type.lower()}): {msg}",
            line=line,
            field=col,
            raw_value=(csv_line or "")[:500],
        )
        for line, (col, err_type, csv_line, msg) in sorted(first_per_line.items())
    ]


def _parse_jsonl(path: Path, file_name: str) -> Parsed:
    rows, problems = [], []
    with open(path, "rb") as f:
        for n, raw in enumerate(f, start=1):
            try:  # decoded line by line, so that one line in another encoding is one problem, not a failed file
                text = raw.decode("utf-8-sig" if n == 1 else "utf-8")
            except UnicodeDecodeError as e:
                reason = f"{file_name}, line {n}: not UTF-8 text (byte 0x{raw[e.start]:02x}); save the file as UTF-8"
                problems.append(Problem(reason, n, raw_value=raw[:500].decode("utf-8", "replace")))
                continue
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except ValueError as e:
                problems.append(Problem(f"{file_name}, line {n}: not valid JSON ({e.msg})", n, raw_value=text[:500]))
                continue
            if not isinstance(obj, dict):
                problems.append(Problem(f"{file_name}, line {n}: expected a JSON object", n, raw_value=text[:500]))
                continue
            rows.append({**{k: obj.get(k) for k in RATING_COLUMNS if k not in ("line", "record")}, "line": n})
    if not rows and not problems:
        raise FileRejected(f"{file_name} holds no rows")
    if rows and not any(set(REQUIRED) <= {k for k, v in r.items() if v is not None} for r in rows):
        raise FileRejected(f"{file_name}: no line has the required fields {', '.join(REQUIRED)}")
    return Parsed(format=NAME, ratings=ratings_frame(rows), problems=problems)


def _first_line(e: Exception) -> str:
    return str(e).strip().splitlines()[0]
