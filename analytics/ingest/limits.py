"""Depth and size limits at ingest (docs/limits.md): what one record, line, field or header may hold.

A record past a limit is quarantined with its reason (file, line or record, field); a CSV header past the column
limit refuses the file before DuckDB reads it (sniffing 100,000 columns took minutes). The checks here walk
parsed JSON without recursion, so a record nested thousands of levels deep costs a loop, not the stack.
"""

from __future__ import annotations

import csv
from typing import Any

MAX_JSON_DEPTH = 64  # nesting of objects and arrays in one record (the record itself is level 1)
MAX_FIELD_CHARS = 200_000  # characters in one text value (a comment, an explanation, an id, a rating value)
MAX_COLUMNS = 1_000  # columns in a CSV header
MAX_LINE_BYTES = 1_048_576  # bytes in one line of a CSV or JSONL file (1 MiB)
DOCS = "docs/limits.md"
DELIMITERS = (",", ";", "\t", "|")


def json_problem(value: Any) -> tuple[str | None, str] | None:
    """The first limit a parsed JSON record breaks, as (field, reason), or None when it keeps every limit.

    The field is the record's top-level key the problem sits under (None for the record itself)."""
    # Iterative walk: (value, depth, top-level key). Python's own recursion would stop near 1,000 levels.
    stack: list[tuple[Any, int, str | None]] = [(value, 1, None)]
    while stack:
        node, depth, key = stack.pop()
        if isinstance(node, dict):
            if depth > MAX_JSON_DEPTH:
                return key, f"nested more than {MAX_JSON_DEPTH} levels deep, over the limit ({DOCS})"
            for k, v in node.items():
                top = key if key is not None else str(k)
                if len(k) > MAX_FIELD_CHARS:
                    return top, _too_long("a key", len(k))
                if isinstance(v, dict | list):
                    stack.append((v, depth + 1, top))
                elif isinstance(v, str) and len(v) > MAX_FIELD_CHARS:
                    return top, _too_long("a text value", len(v))
        elif isinstance(node, list):
            if depth > MAX_JSON_DEPTH:
                return key, f"nested more than {MAX_JSON_DEPTH} levels deep, over the limit ({DOCS})"
            for v in node:
                if isinstance(v, dict | list):
                    stack.append((v, depth + 1, key))
                elif isinstance(v, str) and len(v) > MAX_FIELD_CHARS:
                    return key, _too_long("a text value", len(v))
    return None


def _too_long(what: str, n: int) -> str:
    return f"{what} of {n:,} characters, over the limit of {MAX_FIELD_CHARS:,} ({DOCS})"


def line_too_long(n_bytes: int) -> str:
    """The reason for a line over MAX_LINE_BYTES."""
    return f"the line is {n_bytes:,} bytes long, over the limit of {MAX_LINE_BYTES:,} bytes ({DOCS})"


def too_many_columns(n_columns: int) -> str:
    """The reason for a CSV header or Parquet schema with more than MAX_COLUMNS columns."""
    return f"{n_columns:,} columns, over the limit of {MAX_COLUMNS:,} ({DOCS})"


def too_deep_to_read() -> str:
    """The reason for JSON nested so deep that the parser gave up (Python's JSON reader stops near 1,000)."""
    return f"nested far more than {MAX_JSON_DEPTH} levels deep, over the limit ({DOCS})"


def header_names(text: str) -> list[str]:
    """The first line's column names, trimmed; none when the text is not a CSV header (a Parquet file's bytes)."""
    lines = text.lstrip("\ufeff").lstrip().splitlines()
    try:
        return [c.strip() for c in next(csv.reader(lines[:1]), [])]
    except csv.Error:  # binary data: a carriage return or NUL inside what would be a field
        return []


def csv_header(first_line: bytes) -> tuple[str, int]:
    """The delimiter of a CSV header line (the most frequent candidate) and its number of columns."""
    text = first_line.decode("utf-8-sig", errors="replace").rstrip("\r\n")
    delimiter = max(DELIMITERS, key=text.count)
    if text.count(delimiter) + 1 <= MAX_COLUMNS:  # the csv module only for headers that may be over the limit
        return delimiter, text.count(delimiter) + 1
    row = next(csv.reader([text], delimiter=delimiter), [])
    return delimiter, len(row)
