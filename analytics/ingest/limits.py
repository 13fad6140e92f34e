"""Depth and size limits at ingest (docs/limits.md): what one record, line, field or header may hold.

A record past a limit is quarantined with its reason (file, line or record, field); a CSV header past the column
limit refuses the file before DuckDB reads it (sniffing 100,000 columns took minutes). The checks here walk
parsed JSON without recursion, so a record nested thousands of levels deep costs a loop, not the stack.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analytics.ingest.base import FileRejected

MAX_JSON_DEPTH = 64  # nesting of objects and arrays in one record (the record itself is level 1)
# Nesting past which JSON text is never handed to Python's (recursive) JSON reader: a document is refused whole,
# a JSONL line quarantined. Between MAX_JSON_DEPTH and this, the record is read and quarantined naming its field.
MAX_READ_DEPTH = 256
MAX_FIELD_CHARS = 200_000  # characters in one text value (a comment, an explanation, an id, a rating value)
MAX_COLUMNS = 1_000  # columns in a CSV header
MAX_LINE_BYTES = 1_048_576  # bytes in one line of a CSV or JSONL file (1 MiB)
# What to do past each limit, said in the reason itself: whoever reads it (a Data page user) has no repository.
FLATTEN = "store the record with fewer levels of nesting"
SHORTEN = "shorten the text or leave it out of the file"
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
                return key, f"nested more than {MAX_JSON_DEPTH} levels deep, over the limit; {FLATTEN}"
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
                return key, f"nested more than {MAX_JSON_DEPTH} levels deep, over the limit; {FLATTEN}"
            for v in node:
                if isinstance(v, dict | list):
                    stack.append((v, depth + 1, key))
                elif isinstance(v, str) and len(v) > MAX_FIELD_CHARS:
                    return key, _too_long("a text value", len(v))
    return None


def _too_long(what: str, n: int) -> str:
    return f"{what} of {n:,} characters, over the limit of {MAX_FIELD_CHARS:,}; {SHORTEN}"


def line_too_long(n_bytes: int) -> str:
    """The reason for a line over MAX_LINE_BYTES."""
    return (
        f"the line is {n_bytes:,} bytes long, over the limit of {MAX_LINE_BYTES:,} bytes; "
        "shorten its longest text or leave that text out of the file"
    )


def too_many_columns(n_columns: int) -> str:
    """The reason for a CSV header or Parquet schema with more than MAX_COLUMNS columns."""
    return (
        f"{n_columns:,} columns, over the limit of {MAX_COLUMNS:,}; leave out the columns not needed "
        "or split the file into files of fewer columns"
    )


def too_deep_to_read() -> str:
    """The reason for JSON nested so deep that the parser gave up (Python's JSON reader stops near 1,000)."""
    return f"nested far more than {MAX_JSON_DEPTH} levels deep, over the limit; {FLATTEN}"


def header_names(text: str) -> list[str]:
    """The first line's column names, trimmed; none when the text is not a CSV header (a Parquet file's bytes)."""
    lines = text.lstrip("\ufeff").lstrip().splitlines()
    try:
        return [c.strip() for c in next(csv.reader(lines[:1]), [])]
    except csv.Error:  # binary data: a carriage return or NUL inside what would be a field
        return []


def lower_header(text: str) -> list[str]:
    """The first line's column names, trimmed and lower-cased (header_names)."""
    return [c.lower() for c in header_names(text)]


def known_header(
    text: str, file_name: str, kind: str, required: tuple[str, ...], columns: tuple[str, ...]
) -> list[str]:
    """The first line's column names, trimmed and lower-cased; FileRejected naming line 1 when one of `required` is
    missing or a column is not one of `columns` (a small CSV of one `kind`, read all of a piece)."""
    cols = lower_header(text)
    if missing := [c for c in required if c not in cols]:
        raise FileRejected(f"{file_name}, line 1: a {kind} needs the column(s) {', '.join(missing)}")
    if unknown := [c for c in cols if c not in columns]:
        raise FileRejected(
            f"{file_name}, line 1: unknown column(s) {', '.join(unknown)}; a {kind} has {', '.join(columns)}"
        )
    return cols


def csv_header(first_line: bytes) -> tuple[str, int]:
    """The delimiter of a CSV header line (the most frequent candidate) and its number of columns."""
    text = first_line.decode("utf-8-sig", errors="replace").rstrip("\r\n")
    delimiter = max(DELIMITERS, key=text.count)
    if text.count(delimiter) + 1 <= MAX_COLUMNS:  # the csv module only for headers that may be over the limit
        return delimiter, text.count(delimiter) + 1
    row = next(csv.reader([text], delimiter=delimiter), [])
    return delimiter, len(row)


# A JSON string (JSON strings never hold a raw line break), possessive so that a scan is linear whatever the
# quotes and backslashes; an unclosed string runs to the end of its line (the JSON reader stops there too).
_STRING = re.compile(rb'"(?:[^"\\\n]++|\\.)*+"?')
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b"[]{}\n")
_STEP = np.zeros(256, dtype=np.int8)
_STEP[list(b"[{")], _STEP[list(b"]}")] = 1, -1
SCAN_CHUNK = 16 << 20


def nesting(text: bytes) -> int:
    """The deepest nesting of arrays and objects in JSON text, counted without parsing it (strings skipped)."""
    return _scan(text, 0)[0]


@dataclass(frozen=True)
class Nesting:
    """The nesting of a JSON file: its deepest point, the line where it first passes MAX_READ_DEPTH, and whether
    each line closes what it opens (JSONL: then a deep line is that line's problem, not the file's)."""

    depth: int
    line: int | None
    by_line: bool


def json_nesting(path: Path) -> Nesting:
    """The nesting of a JSON or JSONL file, read in chunks that end at a line break (no string spans one)."""
    depth, deepest, line, by_line, lines = 0, 0, None, True, 0
    with open(path, "rb") as f:
        while chunk := f.read(SCAN_CHUNK):
            chunk += f.readline()
            top, over, closed, depth = _scan(chunk, depth)
            if over is not None and line is None:
                line = lines + over
            deepest, by_line = max(deepest, top), by_line and closed
            lines += chunk.count(b"\n")
    return Nesting(deepest, line, by_line)


def _scan(text: bytes, start: int) -> tuple[int, int | None, bool, int]:
    """(deepest, line of text first past MAX_READ_DEPTH, every line ends at depth `start`... 0, depth at the end)."""
    kept = _STRING.sub(b"", text).translate(None, _NOT_STRUCTURE)
    if not kept:
        return start, None, start == 0, start
    codes = np.frombuffer(kept, dtype=np.uint8)
    depth = np.cumsum(_STEP[codes], dtype=np.int64) + start
    breaks = codes == ord("\n")
    past = np.flatnonzero(depth > MAX_READ_DEPTH)
    line = int(np.count_nonzero(breaks[: past[0]])) + 1 if past.size else None
    closed = not np.any(depth[breaks])
    return max(int(depth.max()), start), line, closed, int(depth[-1])


def too_deep_document(depth: int) -> str:
    """The reason for a JSON document nested past MAX_READ_DEPTH (it is not read at all)."""
    return (
        f"JSON nested {depth:,} levels deep, over the limit of {MAX_JSON_DEPTH} levels; nothing was loaded; "
        "store its records with fewer levels of nesting"
    )


NOT_UTF8 = re.compile("[\udc80-\udcff]")  # a byte that was not UTF-8, as surrogateescape decodes it


def text_of(data: bytes) -> str:
    """A file's bytes as text, a leading BOM dropped; a byte that is not UTF-8 is kept as a surrogate so the record
    holding it can be quarantined alone (not_utf8) instead of failing the file."""
    return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "surrogateescape")


def not_utf8(cells: list[str]) -> str | None:
    """The reason a record read from text_of holds a byte that is not UTF-8, or None."""
    for cell in cells:
        m = NOT_UTF8.search(cell)
        if m:
            return f"not UTF-8 text (byte 0x{ord(m.group()) - 0xDC00:02x}); save the file as UTF-8"
    return None
