"""The wide layout: one row per item, one column per rater (R's irr, Krippendorff's examples, most papers'
supplementary data). Never detected: choose it with --format wide (docs/formats.md, section "The wide layout").

The first column is the item id when its header is one of ID_NAMES (any case) or the column named by
--id-column; otherwise items are numbered by row. Every other column is a rater, every non-blank cell a rating
on one dimension (--wide-dimension, else the file's stem); an empty or blank cell is missing. A column named
twice or a row with more or fewer cells than the header is quarantined cell by cell or line by line.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

import duckdb

from analytics.ingest import limits
from analytics.ingest.base import FileRejected, FormatOptions, Parsed, Problem, ratings_frame

NAME = "wide"
TAKES_OPTIONS = True
ID_NAMES = ("id", "item", "unit", "units", "subject", "group", "task_id")


def detect(head: bytes, file_name: str) -> bool:
    """Never: a table of numbers under rater names looks like many other things (choose --format wide)."""
    return False


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection, options: FormatOptions) -> Parsed:
    """One candidate rating per non-blank cell; duplicated columns and ragged rows quarantined."""
    rows = _read_rows(path, file_name)
    if not rows:
        raise FileRejected(f"{file_name} holds no header")
    header_line, header = rows[0]
    names = [h.strip() for h in header]
    id_at = id_column(names, options.id_column, file_name)
    raters = [i for i in range(len(names)) if i != id_at]
    unknown = [r for r in options.researchers if r not in [names[i] for i in raters]]
    if unknown:
        raise FileRejected(
            f"{file_name}, line {header_line} (header): researcher column(s) {', '.join(unknown)} not found; the "
            f"rater columns are {', '.join(names[i] for i in raters)[:300]}"
        )
    counts = Counter(names[i] for i in raters)
    dimension = options.wide_dimension or Path(file_name).stem
    out: list[dict] = []
    problems: list[Problem] = []
    notes = []
    twice = sorted(n for n, k in counts.items() if k > 1)
    if twice:
        notes.append(
            f"{file_name}: column(s) {', '.join(twice)} appear more than once in the header; their cells are "
            "quarantined (which copy is the rater cannot be told)"
        )
    places = []
    for n_row, (line, cells) in enumerate(rows[1:], start=1):
        if not any(c.strip() for c in cells):
            continue  # a blank line
        places.append(f"line {line}")
        bad = limits.not_utf8(cells)
        if bad is not None:
            problems.append(Problem(f"{file_name}, line {line}: {bad}; the row is not used", line=line))
            continue
        if len(cells) > len(names) and not any(c.strip() for c in cells[len(names) :]):
            cells = cells[: len(names)]  # trailing empty cells, as spreadsheets write them
        if len(cells) != len(names):
            problems.append(
                Problem(
                    f"{file_name}, line {line}: {len(cells)} cells where the header names {len(names)} columns; "
                    "which cell belongs to which rater cannot be told, so the row is not used",
                    line=line,
                    raw_value=",".join(cells)[:500],
                )
            )
            continue
        item = cells[id_at].strip() if id_at is not None else str(n_row)
        for i in raters:
            value = cells[i].strip()
            if not value:
                continue  # an empty or blank cell is missing
            rater = names[i]
            if not rater or counts[rater] > 1:
                why = (
                    f"column {i + 1} has no name in the header"
                    if not rater
                    else f"column {rater} appears {counts[rater]} times in the header (columns "
                    f"{', '.join(str(j + 1) for j in raters if names[j] == rater)})"
                )
                problems.append(
                    Problem(
                        f"{file_name}, line {line}, field {rater or f'column {i + 1}'}: {why}; its cell is not used",
                        line=line,
                        field=rater or None,
                        raw_value=value[:500],
                    )
                )
                continue
            out.append(
                {
                    "task_id": item or None,
                    "rater_id": rater,
                    "role": "researcher" if rater in options.researchers else "contractor",
                    "dimension": dimension,
                    "value": value,
                    "line": line,
                }
            )
    return Parsed(format=NAME, ratings=ratings_frame(out), problems=problems, notes=notes, record_places=places)


def id_column(names: list[str], chosen: str | None, file_name: str) -> int | None:
    """The index of the item id column: the chosen one, else a first column named as in ID_NAMES, else None."""
    if chosen:
        for match in (lambda n: n == chosen.strip(), lambda n: n.lower() == chosen.strip().lower()):
            found = [i for i, n in enumerate(names) if match(n)]
            if found:
                return found[0]
        raise FileRejected(
            f"{file_name}, line 1 (header): no column {chosen} for the item id; the columns are "
            f"{', '.join(names)[:300]}"
        )
    return 0 if names and names[0].lower() in ID_NAMES else None


def _read_rows(path: Path, file_name: str) -> list[tuple[int, list[str]]]:
    """Each row's first physical line and cells, the header first."""
    text = limits.text_of(path.read_bytes())  # a record with a byte that is not UTF-8 is quarantined alone
    header_bad = limits.not_utf8([text.split("\n", 1)[0]])
    if header_bad is not None:
        raise FileRejected(f"{file_name}, line 1 (header): {header_bad}")
    first = text.split("\n", 1)[0].encode()
    if len(first) > limits.MAX_LINE_BYTES:
        raise FileRejected(f"{file_name}, line 1 (header): {limits.line_too_long(len(first))}")
    delimiter, n_columns = limits.csv_header(first)
    if n_columns > limits.MAX_COLUMNS:
        raise FileRejected(f"{file_name}, line 1 (header): {limits.too_many_columns(n_columns)}")
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows = []
    start = 1
    try:
        for cells in reader:
            rows.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as e:
        raise FileRejected(f"{file_name}, line {reader.line_num}: cannot be read as CSV ({e})") from e
    return rows
