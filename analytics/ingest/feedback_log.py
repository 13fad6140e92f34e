"""Feedback log CSV: feedback given outside Concord, one row per report card or conversation (`rater_id`,
`sent_at`, optional `rubric` and `note`). Not ratings: analytics/store/feedback_log.py keeps each row as a
feedback event, and follow-ups (analytics/feedback/followup.py) measure what came after it.

A bad row (no contractor, a time that is not ISO 8601, a rubric the catalogue does not know, an over-long note, a
row repeated) is quarantined with its line, field and reason; the good rows are loaded. A header with a column the
format does not know rejects the file whole."""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

import duckdb

from analytics.core.queries import Query
from analytics.ingest.base import FileRejected, Parsed, Problem
from analytics.ingest.limits import known_header, lower_header
from analytics.store import feedback_log

NAME = feedback_log.FORMAT
REQUIRED = ("rater_id", "sent_at")
MAX_TEXT = 500  # characters of a rater id, a rubric or a note (feedback events' limit)
RUBRICS = Query("feedback_log_rubrics", "SELECT DISTINCT rubric FROM dimensions")


def detect(head: bytes, file_name: str) -> bool:
    """A CSV whose header names rater_id and sent_at and no task (ratings always name their task)."""
    cols = lower_header(head.decode("utf-8-sig", errors="replace"))
    return all(c in cols for c in REQUIRED) and "task_id" not in cols


def sent_at(text: str) -> dt.datetime:
    """An ISO 8601 date or timestamp as a UTC time without a zone (UTC when it names none); ValueError else."""
    value = text.strip()
    when = dt.datetime.fromisoformat(value)  # Python 3.11 reads dates, 'Z' and offsets
    if when.tzinfo is not None:
        when = when.astimezone(dt.UTC).replace(tzinfo=None)
    return when


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """The log's rows; each bad row a Problem naming its line and field. FileRejected on a wrong header."""
    text = path.read_text(encoding="utf-8-sig")
    cols = known_header(text, file_name, "feedback log", REQUIRED, feedback_log.COLUMNS)
    rubrics = {r for (r,) in RUBRICS.rows(con)}
    reader = csv.DictReader(io.StringIO(text.lstrip()), fieldnames=cols)
    next(reader)  # the header
    rows: list[feedback_log.LoggedFeedback] = []
    problems: list[Problem] = []
    seen: set[tuple[str, dt.datetime, str | None]] = set()
    places: list[str] = []
    for row in reader:
        if not any((v or "").strip() for k, v in row.items() if k is not None and isinstance(v, str)):
            continue  # a blank line
        line = reader.line_num
        places.append(f"line {line}")
        got = _row(row, line, file_name, rubrics)
        if isinstance(got, Problem):
            problems.append(got)
        elif (got.rater_id, got.sent_at, got.rubric) in seen:
            problems.append(_problem(file_name, line, "sent_at", got.sent_at.isoformat(), "repeats an earlier row"))
        else:
            seen.add((got.rater_id, got.sent_at, got.rubric))
            rows.append(got)
    if not places:
        raise FileRejected(f"{file_name}: a feedback log with a header and no row")
    return Parsed(format=NAME, feedback=rows, problems=problems, rows_in_file=len(places))


def _problem(file_name: str, line: int, column: str, raw: str, why: str) -> Problem:
    """A row's problem, its message naming file, line and field."""
    return Problem(f"{file_name}, line {line}, {column}: {why}", line=line, field=column, raw_value=raw[:MAX_TEXT])


def _row(
    row: dict[str | None, str | list[str] | None], line: int, file_name: str, rubrics: set[str]
) -> feedback_log.LoggedFeedback | Problem:
    """One row checked: the event it gives, or the first problem found in it."""
    if None in row:
        return _problem(file_name, line, "rater_id", "", "the row has more fields than the header names")
    values = {k: str(v or "").strip() for k, v in row.items() if k is not None}
    rater, when, rubric, note = (values.get(c, "") for c in feedback_log.COLUMNS)
    if not rater:
        return _problem(file_name, line, "rater_id", rater, "no contractor named")
    for column, value in (("rater_id", rater), ("rubric", rubric), ("note", note)):
        if len(value) > MAX_TEXT:
            return _problem(file_name, line, column, value, f"{len(value)} characters; at most {MAX_TEXT}")
    try:
        sent = sent_at(when)
    except ValueError:
        why = "no time given" if not when else "not an ISO 8601 date or timestamp (2026-03-30 or 2026-03-30T10:00Z)"
        return _problem(file_name, line, "sent_at", when, why)
    if rubric and rubric not in rubrics:
        return _problem(file_name, line, "rubric", rubric, "not a rubric the catalogue knows (leave it empty for all)")
    return feedback_log.LoggedFeedback(line, rater, sent, rubric or None, note or None)
