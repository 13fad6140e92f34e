"""Reading the JSON document formats (docs/formats.md sections 2-5): records, where they are, common fields.

A file is JSONL (one object per line; a malformed line is a problem on that line) or one JSON document (an
array of objects, or a single object). The submission formats share the fields task_id, rater_id, role,
submission_id, submitted_at, duration_s and comment; this module reads those once for all of them.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analytics.ingest import limits
from analytics.ingest.base import FileRejected, Parsed, Problem, ratings_frame

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Record:
    """One JSON object of a file and where it is (line for JSONL, a name such as "topic 4" otherwise)."""

    obj: dict[str, Any]
    line: int | None
    record: str

    @property
    def place(self) -> str:
        """Where the record is: "line 3" in JSONL, else its name ("submission ac-00017-c03", "topic 4")."""
        return f"line {self.line}" if self.line is not None else self.record

    def where(self, file_name: str, field: str | None = None) -> str:
        """The message prefix naming file, line or record, and field."""
        return f"{file_name}, {self.place}" + (f", field {field}" if field else "")

    def problem(self, file_name: str, field: str | None, reason: str, raw: Any = None, counts: bool = True) -> Problem:
        """A Problem located at this record."""
        return Problem(
            reason=f"{self.where(file_name, field)}: {reason}",
            line=self.line,
            record=self.record,
            field=field,
            raw_value=None if raw is None else _short(raw),
            counts_as_row=counts,
        )


@dataclass(frozen=True)
class Document:
    """A file read as JSON: its records, the problems of lines that could not be read, and its top value."""

    records: list[Record]
    problems: list[Problem]
    top: Any = None  # the parsed document when the file is one JSON value (None for JSONL)
    places: list[str] = field(default_factory=list)  # every record counted in the file, readable or not


def has_format_marker(head: bytes, marker: str) -> bool:
    """Whether the first bytes carry `"format": "<marker>"`."""
    pattern = rb'"format"\s*:\s*"' + re.escape(marker.encode()) + rb'"'
    return re.search(pattern, head) is not None


def read_document(path: Path, file_name: str, what: str, name_of: Callable[[dict, int], str]) -> Document:
    """Read JSONL or one JSON document; FileRejected when the file is not JSON at all."""
    data = path.read_bytes()
    if data.startswith(BOM):
        data = data[len(BOM) :]
    first = data.lstrip()[:1]
    if first not in (b"[", b"{"):
        raise FileRejected(
            f"{file_name} is not in the {what} format: expected JSON (a .json array or .jsonl objects), "
            f"but it starts with {_short(data.lstrip()[:40].decode('utf-8', 'replace'))!r}"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        if first == b"{":
            return _read_lines(data, file_name, name_of)
        line = data.count(b"\n", 0, e.start) + 1
        raise FileRejected(
            f"{file_name}, line {line}: not UTF-8 text (byte 0x{data[e.start]:02x}); save the file as UTF-8"
        ) from e
    try:
        top = json.loads(text)
    except json.JSONDecodeError as e:
        if first == b"{":
            return _read_lines(data, file_name, name_of)
        raise FileRejected(f"{file_name}, line {e.lineno}, column {e.colno}: not valid JSON ({e.msg})") from e
    except RecursionError as e:  # one document nested past what the parser reads: no record can be told apart
        if first == b"{" and b"\n" in data.strip():
            return _read_lines(data, file_name, name_of)
        raise FileRejected(f"{file_name}: {limits.too_deep_to_read()}") from e
    if isinstance(top, list):
        records: list[Record] = []
        problems: list[Problem] = []
        places = [name_of(obj, i) if isinstance(obj, dict) else f"record {i}" for i, obj in enumerate(top, start=1)]
        for i, obj in enumerate(top, start=1):
            if isinstance(obj, dict):
                kept = within_limits(Record(obj, None, name_of(obj, i)), file_name, problems)
                if kept is not None:
                    records.append(kept)
            else:
                rec = Record({}, None, f"record {i}")
                problems.append(
                    rec.problem(file_name, None, f"expected a JSON object, found {_kind(obj)}", _short_safe(obj))
                )
        return Document(records, problems, top, places)
    # One object: the caller checks its limits (it may be one record, or topics keyed by id: within_limits).
    return Document([Record(top, None, name_of(top, 1))], [], top, [name_of(top, 1)])


def within_limits(rec: Record, file_name: str, problems: list[Problem]) -> Record | None:
    """The record, or None with its problem added when it breaks a limit of docs/limits.md (depth, field length)."""
    over = limits.json_problem(rec.obj)
    if over is None:
        return rec
    fld, why = over
    problems.append(rec.problem(file_name, fld, why))
    return None


def _short_safe(value: Any) -> Any:
    """A value for _short that cannot be too deep to serialise (containers are left out)."""
    return None if limits.json_problem([value]) is not None else value


def _read_lines(data: bytes, file_name: str, name_of: Callable[[dict, int], str]) -> Document:
    """JSONL: one object per line; a line that is not UTF-8 or not a JSON object is a problem of its own."""
    records, problems, places = [], [], []
    for n, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        places.append(f"line {n}")
        here = Record({}, n, f"line {n}")
        if len(raw.rstrip(b"\r")) > limits.MAX_LINE_BYTES:
            why = limits.line_too_long(len(raw.rstrip(b"\r")))
            problems.append(here.problem(file_name, None, why, raw[:500].decode("utf-8", "replace")))
            continue
        if limits.nesting(raw) > limits.MAX_READ_DEPTH:  # never handed to the recursive JSON reader
            problems.append(
                here.problem(file_name, None, limits.too_deep_to_read(), raw[:500].decode("utf-8", "replace"))
            )
            continue
        try:
            obj = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            problems.append(
                here.problem(file_name, None, f"not UTF-8 text (byte 0x{raw[e.start]:02x}); save the file as UTF-8")
            )
            continue
        except json.JSONDecodeError as e:
            problems.append(here.problem(file_name, None, f"not valid JSON ({e.msg})", raw.decode("utf-8", "replace")))
            continue
        if not isinstance(obj, dict):
            problems.append(
                here.problem(file_name, None, f"expected a JSON object, found {_kind(obj)}", _short_safe(obj))
            )
            continue
        kept = within_limits(Record(obj, n, name_of(obj, n)), file_name, problems)
        if kept is not None:
            records.append(kept)
    return Document(records, problems, places=places)


def check_format(doc: Document, file_name: str, marker: str, fmt: str) -> tuple[list[Record], list[Problem]]:
    """Records of this format; FileRejected when none is, a problem for each record of another format."""
    markers = [r.obj.get("format") for r in doc.records]
    if marker not in markers:
        others = sorted({str(m) for m in markers if m})
        found = f"its records say {', '.join(others)}" if others else f'no record has "format": "{marker}"'
        raise FileRejected(f"{file_name} is not in the {fmt} format: {found} (see the Data page's Formats section)")
    keep, problems = [], []
    for r in doc.records:
        m = r.obj.get("format")
        if m is None or m == marker:
            keep.append(r)
        else:
            problems.append(r.problem(file_name, "format", f"record of format {m}, not {marker}", m))
    return keep, problems


def submission_label(obj: dict, i: int) -> str:
    """How a submission record is named in messages: "submission <id>", else its position."""
    sid = obj.get("submission_id")
    return f"submission {sid}" if sid not in (None, "") else f"record {i}"


@dataclass(frozen=True)
class Common:
    """The fields every submission record shares, already cleaned for the submissions table."""

    submission_id: str
    task_id: str
    rater_id: str
    role: str
    submitted_at: str | None  # ISO text for the rating rows (the raw text when it is not a date)
    submitted_ts: dt.datetime | None
    duration_text: str | None
    duration: float | None
    comment: str | None

    def rating(self, rubric: str, dimension: str, target: str, value: Any, rec: Record) -> dict[str, Any]:
        """One candidate rating row of this submission."""
        return {
            "task_id": self.task_id,
            "rater_id": self.rater_id,
            "role": self.role,
            "rubric": rubric,
            "dimension": dimension,
            "target": target,
            "value": value,
            "submitted_at": self.submitted_at,
            "duration_s": self.duration_text,
            "comment": None,
            "submission_id": self.submission_id,
            "line": rec.line,
            "record": rec.record,
        }

    def submission(self, rubric: str, status: str, **fields: Any) -> dict[str, Any]:
        """The submissions-table row of this record."""
        return {
            "submission_id": self.submission_id,
            "task_id": self.task_id,
            "rubric": rubric,
            "rater_id": self.rater_id,
            "role": self.role,
            "status": status,
            "submitted_at": self.submitted_ts,
            "duration_s": self.duration,
            "comment": self.comment,
            **fields,
        }


def common_fields(
    rec: Record, file_name: str, id_fields: tuple[str, str] = ("task_id", "rater_id")
) -> Common | Problem:
    """The shared fields of a record, or the problem that a required one is missing."""
    o = rec.obj
    task_key, rater_key = id_fields
    task_id, rater_id = text_or_none(o.get(task_key)), text_or_none(o.get(rater_key))
    if task_id is None or rater_id is None:
        key = task_key if task_id is None else rater_key
        return rec.problem(file_name, key, f"missing required field {key}; the record is not used")
    text_at, ts = timestamp(o.get("submitted_at"))
    duration_text = text_or_none(o.get("duration_s"))
    return Common(
        submission_id=text_or_none(o.get("submission_id")) or f"{task_id}-{rater_id}",
        task_id=task_id,
        rater_id=rater_id,
        role=(text_or_none(o.get("role")) or "contractor").lower(),
        submitted_at=text_at,
        submitted_ts=ts,
        duration_text=duration_text,
        duration=non_negative(duration_text),
        comment=text_or_none(o.get("comment")),
    )


def text_or_none(value: Any) -> str | None:
    """A scalar as stripped text; None, empty text and containers are None."""
    if value is None or isinstance(value, dict | list):
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


def timestamp(value: Any) -> tuple[str | None, dt.datetime | None]:
    """ISO text in UTC without offset, and the datetime; unreadable text is kept so validation can name it."""
    text = text_or_none(value)
    if text is None:
        return None, None
    try:
        ts = dt.datetime.fromisoformat(text)
    except ValueError:
        return text, None
    if ts.tzinfo is not None:
        ts = ts.astimezone(dt.UTC).replace(tzinfo=None)
    return ts.isoformat(), ts


def non_negative(text: str | None) -> float | None:
    """A number of seconds, or None when it is not a non-negative finite number."""
    try:
        x = float(text) if text is not None else None
    except ValueError:
        return None
    return x if x is not None and math.isfinite(x) and x >= 0 else None


def withheld(rows: list[dict], rec: Record, file_name: str, status: str, reason: str | None) -> list[Problem]:
    """Ratings found on a submission that was not rated (skipped, rejected, flagged): kept out, each one a row."""
    why = f"{status}" + (f" ({reason})" if reason else "")
    return [
        rec.problem(
            file_name,
            r["dimension"],
            f"the submission was {why}, so its rating {r['value']} for {r['target'] or 'the task'} is not used",
            r["value"],
        )
        for r in rows
    ]


def unique(rows: list[dict], key: Callable[[dict], Any]) -> list[dict]:
    """The rows with the first of each key (tasks and items repeat once per rater)."""
    seen: dict[Any, dict] = {}
    for r in rows:
        seen.setdefault(key(r), r)
    return list(seen.values())


def _kind(value: Any) -> str:
    """What kind of JSON value this is, in words."""
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


def _short(value: Any, limit: int = 500) -> str:
    """A value as text for the quarantine's raw_value, cut at `limit` characters."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text[:limit]


@dataclass(frozen=True)
class SubmissionRead:
    """What one submission record yields: rating rows, task items, its submission and task rows, problems."""

    rows: list[dict]
    items: list[dict]
    submission: dict
    task: dict
    problems: list[Problem]


def parse_submissions(
    path: Path, file_name: str, fmt: str, marker: str, read_one: Callable[[Record, Common], SubmissionRead]
) -> Parsed:
    """The loop shared by the one-object-per-submission formats: read, check the marker, read each record."""
    doc = read_document(path, file_name, fmt, submission_label)
    records, problems = check_format(doc, file_name, marker, fmt)
    problems = doc.problems + problems
    if isinstance(doc.top, dict):  # a document of one submission: read_document left its limits to us
        records = [r for r in records if within_limits(r, file_name, problems) is not None]
    rows: list[dict] = []
    tasks: list[dict] = []
    items: list[dict] = []
    subs: list[dict] = []
    for rec in records:
        base = common_fields(rec, file_name)
        if isinstance(base, Problem):
            problems.append(base)
            continue
        got = read_one(rec, base)
        rows += got.rows
        items += got.items
        problems += got.problems
        subs.append({**got.submission, "place": rec.place})
        tasks.append(got.task)
    return Parsed(
        format=fmt,
        ratings=ratings_frame(rows),
        tasks=unique(tasks, lambda t: t["task_id"]),
        items=unique(items, lambda i: (i["task_id"], i["item_id"])),
        submissions=subs,
        problems=problems,
        record_places=doc.places,
    )
