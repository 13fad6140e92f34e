"""What every adapter returns, and the errors an adapter raises.

An adapter turns one file into a `Parsed`: candidate rating rows (a DuckDB staging table or a DataFrame, all
text), task text, submissions, and the problems it met on the way. Validation against the rubric catalogue
and the load itself are shared (analytics/ingest/load.py and its modules), so every format gets the same checks.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

# A rating's columns in a canonical long file (docs/formats.md section 1), in the order the demo writes them.
CANONICAL_COLUMNS = (
    "task_id",
    "rater_id",
    "role",
    "rubric",
    "dimension",
    "target",
    "value",
    "submitted_at",
    "duration_s",
    "comment",
)
# Columns of the candidate ratings every adapter produces (all text until validated): a rating's, and where it came
# from.
RATING_COLUMNS = (*CANONICAL_COLUMNS, "submission_id", "line", "record")
SUBMISSION_COLUMNS = (
    "submission_id",
    "task_id",
    "rubric",
    "rater_id",
    "role",
    "status",
    "reason",
    "submitted_at",
    "duration_s",
    "flags",
    "comment",
    "explanation",
    "justification",
    "ranking",
    "shown_first",
    "details",
)
TASK_COLUMNS = ("task_id", "rubric", "prompt", "context", "metadata")
ITEM_COLUMNS = ("task_id", "rubric", "item_id", "position", "label", "text", "sources", "metadata")
ROLES = ("contractor", "researcher")


@dataclass(frozen=True)
class FormatOptions:
    """Settings only some formats read (docs/formats.md): the wide layout's and Label Studio's."""

    id_column: str | None = None  # wide: the column holding the item id (else a recognised first column)
    wide_dimension: str | None = None  # wide: the dimension the ratings are on (else the file's stem)
    researchers: tuple[str, ...] = ()  # wide columns / Label Studio annotators that are researchers
    include_predictions: bool = False  # Label Studio: predictions as further raters
    ls_config: str | None = None  # Label Studio: the labelling config's XML text (scales from its tags)

    def as_json(self) -> dict[str, Any]:
        """The options as a JSON object (for a hand-over to the dashboard)."""
        return {**self.__dict__, "researchers": list(self.researchers)}

    @staticmethod
    def names(text: str | None) -> tuple[str, ...]:
        """A comma-separated list of names ("a, b") as names (--researchers, the Data page's field)."""
        return tuple(n.strip() for n in (text or "").split(",") if n.strip())

    @classmethod
    def from_json(cls, obj: dict[str, Any] | None) -> FormatOptions:
        """Options from as_json's object (None: the defaults)."""
        if not obj:
            return cls()
        return cls(**{**obj, "researchers": tuple(obj.get("researchers") or ())})


class FileRejected(ValueError):
    """The whole file cannot be read as the chosen format; nothing of it is loaded."""


@dataclass(frozen=True)
class Problem:
    """A row or field that cannot be used, with where it is and why."""

    reason: str
    line: int | None = None
    record: str | None = None
    field: str | None = None
    raw_value: str | None = None
    counts_as_row: bool = True  # False when the problem is about a row already counted elsewhere


@dataclass
class Parsed:
    """One file read by an adapter, before validation and loading."""

    format: str
    ratings: pd.DataFrame | None = None  # RATING_COLUMNS; None when the adapter staged them in SQL
    staged_table: str | None = None  # name of a temp table holding RATING_COLUMNS
    tasks: list[dict[str, Any]] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    submissions: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    directory: list[Any] | None = None  # a rater directory's entries (analytics/store/people.py), instead of ratings
    feedback: list[Any] | None = None  # a feedback log's events (analytics/store/feedback_log.py), instead of ratings
    rows_in_file: int | None = None  # the rows (records) counted in the file itself, when the adapter counts them
    # Where each record counted in the file itself is ("line 3", "submission ac-1", "task 7"), in file order, by a
    # count that does not depend on the record being readable (account_records).
    record_places: list[str] | None = None
    records: RecordCounts | None = None  # set by account_records
    scales: Any = None  # scales the file declares (a Label Studio config's), declared in the load's transaction


@dataclass(frozen=True)
class RecordCounts:
    """A file's records: counted in the file itself = used + quarantined whole (docs/formats.md, "Counting")."""

    read: int  # records counted in the file (Parsed.record_places)
    used: int  # records that gave at least one candidate rating, a submission or a task kept for them
    quarantined: int  # records that gave none of these: each has a quarantine row with its place and reason


def place(line: Any, record: Any) -> str | None:
    """Where a record is, as record_places names it: "line N" when it has a line, else its record name."""
    if line is not None and not (isinstance(line, float) and math.isnan(line)) and line is not pd.NA:
        return f"line {int(line)}"
    return None if record is None or record is pd.NA else str(record)


def account_records(parsed: Parsed, file_name: str) -> None:
    """The one counting rule for every format with records: each record counted in the file that gave no candidate
    rating, submission or kept task (a dict with its "place") and no problem is quarantined here with its place,
    so no record is ever dropped without a word; then sets parsed.records."""
    if parsed.record_places is None:
        return
    used = _places_of(parsed)
    named = {_head(p) for p in (place(q.line, q.record) for q in parsed.problems) if p is not None}
    named |= {p for p in (place(q.line, q.record) for q in parsed.problems) if p is not None}
    quarantined = 0
    for where in parsed.record_places:
        if where in used:
            continue
        quarantined += 1
        if where not in named:
            line = int(where[5:]) if where.startswith("line ") and where[5:].isdigit() else None
            parsed.problems.append(
                Problem(
                    f"{file_name}, {where}: the record holds nothing this format reads (no rating, no submission); "
                    "it is not used",
                    line=line,
                    record=None if line is not None else where,
                )
            )
    read = len(parsed.record_places)
    parsed.records = RecordCounts(read=read, used=read - quarantined, quarantined=quarantined)


def _places_of(parsed: Parsed) -> set[str]:
    """The places of the records that gave a candidate rating, a submission or a kept task (and their heads)."""
    found: set[str | None] = set()
    if parsed.ratings is not None and len(parsed.ratings):
        where = parsed.ratings[["line", "record"]].drop_duplicates()  # many ratings per record: each place once
        found |= {place(line, rec) for line, rec in zip(where["line"], where["record"], strict=True)}
    found |= {d.get("place") for d in (*parsed.submissions, *parsed.tasks)}
    return {p for p in found if p is not None} | {_head(p) for p in found if p is not None}


def _head(where: str) -> str:
    """A record's place without what an adapter adds to it ("instance 3 (id x)", "task 7, annotation 2": the
    record is instance 3, task 7)."""
    return where.split(" (", 1)[0].split(", ", 1)[0]


def ratings_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Candidate rating rows as a DataFrame with every RATING_COLUMNS column, as text."""
    # Column by column from plain lists: mapping each cell through pandas took seconds per 100,000 rows.
    data: dict[str, pd.api.extensions.ExtensionArray | pd.Series] = {}
    for col in RATING_COLUMNS:
        values = [r.get(col) for r in rows]
        if col == "line":
            data[col] = pd.array(values, dtype="Int64")
        else:
            data[col] = pd.Series([v if type(v) is str else _as_text(v) for v in values], dtype="object")
    return pd.DataFrame(data, columns=list(RATING_COLUMNS))


def _as_text(value: Any) -> str | None:
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return "NaN"  # a NaN in the data is a value the load refuses with its reason, not a missing one
    if isinstance(value, bool):
        return "Yes" if value else "No"
    return str(value)


def as_json(value: Any) -> str | None:
    """A value as JSON text for a JSON column (None stays NULL; NaN and infinity, which JSON cannot hold, as
    text)."""
    if value is None:
        return None
    try:
        return json.dumps(value, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(value), ensure_ascii=False, default=str, allow_nan=False)


def _finite(value: Any) -> Any:
    """The value with non-finite numbers as their text (records are at most MAX_JSON_DEPTH deep here)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


@dataclass(frozen=True)
class Dataset:
    """One real dataset file: its name, path inside the real-data folder, adapter format, title and source."""

    name: str
    path: str
    format: str
    title: str
    source: str
