"""The pre-scan of a CSV file, before DuckDB reads it: every record counted from the file itself, and every record
DuckDB could not read cheaply or would skip set aside with its line and reason.

A record is set aside when a line of it is over MAX_LINE_BYTES, it is not UTF-8 text, or it has another number of
fields than the header. DuckDB keeps one reject row per extra field holding the whole line, so one line of many
fields cost time and memory with the square of its length (6,000 fields: 47 s, 1.1 GB); a line with an invalid
byte it skipped without a word. Here such a record costs one pass of Python's C reader. The file DuckDB reads is a
copy with those records blanked (one empty line per line, which DuckDB skips), so line numbers stay those of the
file and no byte of a refused record reaches DuckDB.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from analytics.ingest import limits
from analytics.ingest.base import FileRejected, Problem

# More set-aside rows than this refuse the file: it is not a CSV of its header, and quarantining each of its rows
# (half a million short rows in 1 MB) would cost what the pre-scan saves.
MAX_SET_ASIDE = 10_000
csv.field_size_limit(limits.MAX_LINE_BYTES * 4)  # a longer field is a malformed record (an unclosed quote)


@dataclass
class CsvScan:
    """What the pre-scan found: the header, the data records, the records set aside, and the file to read."""

    delimiter: str
    columns: int
    records: int = 0  # data records in the file (not the header, not blank lines)
    problems: list[Problem] = field(default_factory=list)  # one per record set aside, in line order
    skipped: list[tuple[int, int]] = field(
        default_factory=list
    )  # (line, lines) DuckDB does not see: set aside or blank
    read_path: Path | None = None  # the copy with the set-aside records blanked, when there are any
    header: list[str] = field(default_factory=list)  # the header's names, trimmed
    raw_header: list[str] = field(default_factory=list)  # as written (DuckDB's column names)


@dataclass
class _Lines:
    """The file's physical lines as text for csv.reader, noting each line that is overlong or not UTF-8."""

    path: Path
    bad: dict[int, str] = field(default_factory=dict)  # line -> reason
    offset: int = 0

    def __iter__(self) -> Iterator[str]:
        with open(self.path, "rb") as f:
            n = 0
            while True:
                raw = f.readline(limits.MAX_LINE_BYTES + 2)
                if not raw:
                    return
                n += 1
                start = self.offset
                self.offset += len(raw)
                if len(raw.rstrip(b"\r\n")) > limits.MAX_LINE_BYTES:
                    size = len(raw.rstrip(b"\r\n"))
                    while not raw.endswith(b"\n"):  # the rest of the overlong line, not kept
                        raw = f.readline(1 << 20)
                        if not raw:
                            break
                        size += len(raw.rstrip(b"\r\n"))
                        self.offset += len(raw)
                    self.bad.setdefault(n, limits.line_too_long(size))
                    yield "\n"
                    continue
                try:
                    text = raw.decode("utf-8-sig" if n == 1 else "utf-8")
                except UnicodeDecodeError as e:
                    self.bad.setdefault(
                        n,
                        f"not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {start + e.start}, a character in another "
                        "encoding); save the file as UTF-8",
                    )
                    text = raw.decode("utf-8", "replace")
                yield text


def scan(path: Path, file_name: str, delimiter: str) -> CsvScan:
    """Count the file's records and set aside those DuckDB should not read (FileRejected for a bad header)."""
    lines = _Lines(path)
    reader = csv.reader(lines, delimiter=delimiter)
    found = CsvScan(delimiter, 0)
    set_aside: list[tuple[int, int]] = []
    done = 0  # physical lines read so far
    while True:
        try:
            row = next(reader, None)
            malformed = None
        except csv.Error as e:
            row, malformed = [], f"malformed CSV record ({e})"
        if row is None:
            break
        first, height, done = done + 1, reader.line_num - done, reader.line_num
        if first == 1:
            _header(found, row, lines.bad.get(1), malformed, file_name)
            continue
        bad = next((lines.bad[n] for n in range(first, first + height) if n in lines.bad), None) or malformed
        if bad is None and not row:  # a blank line: DuckDB skips it, and so does the count
            found.skipped.append((first, height))
            continue
        found.records += 1
        missing = found.header[len(row)] if bad is None and len(row) < found.columns else None
        if bad is None and len(row) != found.columns:
            kind = "missing columns" if missing is not None else "too many columns"
            bad = f"malformed CSV row ({kind}): {len(row):,} fields where the header has {found.columns:,}"
        if bad is not None:
            where = f"{file_name}, line {first}" + (f", field {missing}" if missing else "")
            found.problems.append(Problem(f"{where}: {bad}", first, field=missing, raw_value=_head(row)))
            found.skipped.append((first, height))
            set_aside.append((first, height))
            if len(set_aside) > MAX_SET_ASIDE:
                raise FileRejected(
                    f"{file_name}: more than {MAX_SET_ASIDE:,} rows cannot be read as rows of its header (the first: "
                    f"{found.problems[0].reason.split(', ', 1)[1]}); nothing was loaded"
                )
    if set_aside:
        found.read_path = _blanked(path, set_aside)
    return found


def _header(found: CsvScan, row: list[str], bad: str | None, malformed: str | None, file_name: str) -> None:
    """Check the header record: readable, and at most MAX_COLUMNS columns."""
    if bad or malformed:
        raise FileRejected(f"{file_name}, line 1 (header): {bad or malformed}")
    if len(row) > limits.MAX_COLUMNS:
        raise FileRejected(f"{file_name}, line 1 (header): {limits.too_many_columns(len(row))}")
    found.columns = len(row)
    found.header = [c.strip() for c in row]
    found.raw_header = row


def _head(row: list[str]) -> str:
    """The start of a set-aside record as the quarantine keeps it (500 characters)."""
    text = ",".join(row[:200])
    return text[:500]


def _blanked(path: Path, set_aside: list[tuple[int, int]]) -> Path:
    """A copy of the file with the lines of each set-aside record empty (the same number of lines)."""
    out_path = path.with_name(f"read-{path.name}")
    blank = {n for first, height in set_aside for n in range(first, first + height)}
    with open(path, "rb") as f, open(out_path, "wb") as out:
        n = 0
        while raw := f.readline(1 << 20):
            n += 1
            keep = n not in blank
            while True:  # a line longer than one read is kept or blanked whole
                if keep:
                    out.write(raw)
                ending = b"\r\n" if raw.endswith(b"\r\n") else b"\n"  # kept: DuckDB's sniffer wants one kind
                if raw.endswith(b"\n") or not (raw := f.readline(1 << 20)):
                    break
            if not keep:
                out.write(ending)
    return out_path
