"""Rater directory CSV: one row per person (rater_id, display_name, aliases separated by ";", team,
active_from, active_to). Not ratings: analytics/store/people.py stores it and merges the aliases' ratings.

The file is small and all of a piece: one bad row rejects it whole (a half-read directory would merge some
ids and not others), with the line and field of each problem."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import duckdb

from analytics.ingest.base import FileRejected, Parsed
from analytics.ingest.limits import known_header, lower_header
from analytics.store import people

NAME = people.FORMAT
REQUIRED = ("rater_id", "display_name")


def detect(head: bytes, file_name: str) -> bool:
    """A CSV whose header names rater_id and display_name and no task (ratings always name their task)."""
    cols = lower_header(head.decode("utf-8-sig", errors="replace"))
    return all(c in cols for c in REQUIRED) and "task_id" not in cols


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """The directory's entries; FileRejected naming line and field when any row is wrong."""
    text = path.read_text(encoding="utf-8-sig")
    cols = known_header(text, file_name, "rater directory", REQUIRED, people.COLUMNS)
    reader = csv.DictReader(io.StringIO(text.lstrip()), fieldnames=cols)
    next(reader)  # the header
    rows, lines = [], []
    for row in reader:
        if not any((v or "").strip() for k, v in row.items() if k is not None):
            continue  # a blank line
        if None in row:
            raise FileRejected(f"{file_name}, line {reader.line_num}: more fields than the header names")
        rows.append(row)
        lines.append(reader.line_num)
    if not rows:
        raise FileRejected(f"{file_name}: a rater directory with a header and no person")
    entries, problems = people.read_directory(rows, lines)
    problems += people.stored_conflicts(con, entries)
    if problems:
        more = f" ({len(problems) - 1} more problem(s) in the file)" if len(problems) > 1 else ""
        raise FileRejected(f"{file_name}, {problems[0]}{more}; nothing of the directory was loaded")
    return Parsed(format=NAME, directory=entries)
