"""Article Likert files (docs/formats.md section 5, seeds/004): one annotator's topics, three predictions each.

The annotator is taken from the file name `preference_json_N_completed.json`. A Likert score of 0 is the
document's default, "you have not yet annotated": missing, never a score, and the topic is incomplete.

The document names no topic key (only reference, the three predictions, their Likert scores and the two best
predictions), so a file without `topic` fields keys each topic by its reference text's hash, so that the same
reference in two annotators' files is one task, or, without a reference, by its position in the file.

The document has no dates either: every topic of a file is dated at load (`dated`), with the date given to
the load or else the load time, and the load's result says which.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import math
import re
from pathlib import Path
from typing import Any

import duckdb

from analytics.ingest.base import FileRejected, Parsed, Problem, ratings_frame
from analytics.ingest.json_records import Common, Document, Record, read_document, text_or_none, unique, within_limits

NAME = "article_likert"
RUBRIC = "article_likert"
PREDICTIONS = ("first", "second", "third")
BEST_KEYS = ("best_prediction_reference", "best_prediction_topic")
FILE_NAME = re.compile(r"preference_json_(\d+)", re.IGNORECASE)
LIKERT_KEY = re.compile(r"^(\w+)_prediction_likert$")
# Any key the document names for a topic (seeds/004), as it appears in the file's first bytes.
DOCUMENTED_KEY_IN_HEAD = re.compile(
    rb'"(?:(?:first|second|third)_prediction(?:_likert)?|best_prediction_(?:reference|topic))"\s*:'
)
REFERENCE_KEY_IN_HEAD = re.compile(rb'"reference"\s*:')
REFERENCE_KEY = "ref-"  # task id of a topic keyed by its reference: ref- and 12 hex digits of its SHA-256
POSITION_KEY = "topic-"  # task id of a topic keyed by its position in the file: topic-<n>
# "Please do not use half scores (1.5, 2.5, etc)" (seeds/004).
HALF_SCORE = "half scores are not allowed"
KNOWN_KEYS = {"topic", "reference", "role", *(f"{p}_prediction" for p in PREDICTIONS)}


def detect(head: bytes, file_name: str) -> bool:
    """Whether the file is JSON holding topics with the document's keys (or, named preference_json_N, with a
    reference first: a long reference can push the other keys past the first bytes)."""
    if head.lstrip(b"\xef\xbb\xbf \r\n\t")[:1] not in (b"[", b"{"):
        return False
    if DOCUMENTED_KEY_IN_HEAD.search(head) is not None:
        return True
    return FILE_NAME.search(file_name) is not None and REFERENCE_KEY_IN_HEAD.search(head) is not None


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """Candidate Likert and best-prediction ratings, topics, predictions and one submission per topic."""
    doc = read_document(path, file_name, NAME, lambda obj, i: f"topic {i}")
    problems = list(doc.problems)
    records = _topics(doc.top, doc.records, file_name, problems)
    if not any(LIKERT_KEY.match(str(k)) for r in records for k in r.obj):
        raise FileRejected(
            f"{file_name} is not in the {NAME} format: no topic has first_prediction_likert, second_prediction_likert "
            "or third_prediction_likert (see the Data page's Formats section)"
        )
    annotator = _annotator(file_name)
    rows: list[dict] = []
    tasks: list[dict] = []
    items: list[dict] = []
    subs: list[dict] = []
    has_topics = any("topic" in r.obj for r in records)  # then every topic needs one
    for rec in records:
        topic = text_or_none(rec.obj.get("topic")) if has_topics else topic_key(rec)
        if topic is None:
            problems.append(rec.problem(file_name, "topic", "missing required field topic; the topic is not used"))
            continue
        base = Common(
            submission_id=f"{annotator}/{topic}",
            task_id=topic,
            rater_id=annotator,
            role=(text_or_none(rec.obj.get("role")) or "contractor").lower(),
            submitted_at=None,
            submitted_ts=None,
            duration_text=None,
            duration=None,
            comment=None,
        )
        t_rows, t_problems, missing = _topic_rows(rec, base, file_name)
        rows += t_rows
        problems += t_problems
        subs.append({**_submission(rec, base, missing), "place": rec.place})
        tasks.append(
            {
                "task_id": topic,
                "rubric": RUBRIC,
                "prompt": topic if has_topics else None,
                "context": text_or_none(rec.obj.get("reference")),
                "metadata": None,
            }
        )
        items += [
            {
                "task_id": topic,
                "rubric": RUBRIC,
                "item_id": p,
                "position": i,
                "label": f"{p}_prediction",
                "text": text_or_none(rec.obj.get(f"{p}_prediction")),
                "sources": None,
                "metadata": None,
            }
            for i, p in enumerate(PREDICTIONS, start=1)
            if f"{p}_prediction" in rec.obj
        ]
    return Parsed(
        format=NAME,
        ratings=ratings_frame(rows),
        tasks=unique(tasks, lambda t: t["task_id"]),
        items=unique(items, lambda i: (i["task_id"], i["item_id"])),
        submissions=subs,
        problems=problems,
        record_places=_places(doc),
    )


def dated(parsed: Parsed, given: dt.datetime | None) -> Parsed:
    """The parsed topics with every submission and rating dated `given` (UTC), or the load time when no date is
    given, and a note saying which: the document carries no dates (seeds/004)."""
    when = given or dt.datetime.now(dt.UTC)
    if when.tzinfo is not None:
        when = when.astimezone(dt.UTC).replace(tzinfo=None)
    when = when.replace(microsecond=0)
    source = "the date given at load" if given is not None else "the load time (no date was given)"
    ratings = parsed.ratings.assign(submitted_at=when.isoformat()) if parsed.ratings is not None else None
    return dataclasses.replace(
        parsed,
        ratings=ratings,
        submissions=[{**s, "submitted_at": when} for s in parsed.submissions],
        notes=[
            *parsed.notes,
            f"{NAME} files carry no dates: every topic is dated {when:%Y-%m-%d %H:%M} UTC, {source}",
        ],
    )


def _annotator(file_name: str) -> str:
    """The rater id from `preference_json_N_completed.json`."""
    m = FILE_NAME.search(file_name)
    if m is None:
        raise FileRejected(
            f"{file_name}: an {NAME} file must be named preference_json_N_completed.json, "
            "because the annotator number N is taken from the file name"
        )
    return f"annotator_{int(m.group(1))}"


def topic_key(rec: Record) -> str:
    """The task id of a topic in a file without topic fields: `ref-` and the first 12 hex digits of the SHA-256
    of its reference text (stripped, UTF-8), else `topic-<n>`, n its position as messages name it."""
    reference = text_or_none(rec.obj.get("reference"))
    if reference is not None:
        return REFERENCE_KEY + hashlib.sha256(reference.encode("utf-8")).hexdigest()[:12]
    position = rec.line if rec.line is not None else int(rec.record.rsplit(" ", 1)[-1])
    return f"{POSITION_KEY}{position}"


def _places(doc: Document) -> list[str]:
    """Every topic counted in the file: an object keyed by topic id has one per key, else the document's records."""
    top = doc.top
    if isinstance(top, dict) and not ("topic" in top or any(LIKERT_KEY.match(str(k)) for k in top)):
        return [f"topic {i}" for i in range(1, len(top) + 1)]
    return doc.places


def _topics(top: Any, records: list[Record], file_name: str, problems: list[Problem]) -> list[Record]:
    """The topic records: an array of topics as read, or an object keyed by topic id turned into topics.

    A topic past a limit of docs/limits.md (nesting depth, field length) is left out with its problem."""
    if not isinstance(top, dict):
        return records
    if "topic" in top or any(LIKERT_KEY.match(str(k)) for k in top):
        return [r for r in records if within_limits(r, file_name, problems) is not None]
    topics = []
    for i, (key, value) in enumerate(top.items(), start=1):
        obj = {"topic": key, **value} if isinstance(value, dict) else {"topic": key, "value": value}
        kept = within_limits(Record(obj, None, f"topic {i}"), file_name, problems)
        if kept is not None:
            topics.append(kept)
    return topics


def _topic_rows(rec: Record, base: Common, file_name: str) -> tuple[list[dict], list[Problem], list[str]]:
    """Likert and best-prediction rows of one topic, half-score problems, and the keys not annotated yet."""
    rows, problems, missing = [], [], []
    o = rec.obj
    for p in PREDICTIONS:
        if f"{p}_prediction_likert" not in o:
            missing.append(f"{p}_prediction_likert")
    for key, value in o.items():
        m = LIKERT_KEY.match(str(key))
        if m:
            score = _number(value)
            if value is None or value == "" or score == 0:
                missing.append(key)
            elif score is not None and not math.isfinite(score):
                problems.append(rec.problem(file_name, key, f"Likert score {value} is not a finite number", str(value)))
            elif score is not None and not score.is_integer():
                kind = HALF_SCORE if (score * 2).is_integer() else "fractional scores are not allowed"
                problems.append(
                    Problem(
                        reason=f"Likert score {value} in {file_name}, {rec.place}, {key}: {kind}",
                        line=rec.line,
                        record=rec.record,
                        field=key,
                        raw_value=str(value),
                    )
                )
            else:
                rows.append(base.rating(RUBRIC, "likert", m.group(1), value, rec))
        elif str(key).startswith("best_prediction_"):
            best = _prediction_name(value)
            if best is None:
                missing.append(key)
            else:
                rows.append(base.rating(RUBRIC, key, "task", best, rec))
        elif str(key).endswith("_likert"):
            rows.append(base.rating(RUBRIC, key, "", value, rec))  # not in the rubric: quarantined as unknown
    missing += [k for k in BEST_KEYS if k not in o]
    return rows, problems, missing


def _prediction_name(value: Any) -> Any:
    """`first_prediction`, `first` or 1 as `first`; empty (and 0, the default) as None; anything else as is."""
    if value is None or value == "" or _number(value) == 0:
        return None
    n = _number(value)
    if n is not None and n.is_integer() and 1 <= n <= len(PREDICTIONS):
        return PREDICTIONS[int(n) - 1]
    text = str(value).strip()
    name = text.removesuffix("_prediction")
    return name if name in PREDICTIONS else text


def _number(value: Any) -> float | None:
    """A JSON number or numeric text as a float; None for anything else (booleans included)."""
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _submission(rec: Record, base: Common, missing: list[str]) -> dict[str, Any]:
    """One submission per annotator and topic: rated when every slot is filled, else incomplete."""
    extra = {k: v for k, v in rec.obj.items() if k not in KNOWN_KEYS and not _is_rating_key(k)}
    details = {"not_annotated": sorted(set(missing)) or None, "extra": extra or None}
    return base.submission(
        RUBRIC,
        "incomplete" if missing else "rated",
        reason="not annotated yet: " + ", ".join(sorted(set(missing))) if missing else None,
        details={k: v for k, v in details.items() if v is not None},
    )


def _is_rating_key(key: Any) -> bool:
    """Whether a topic key holds a rating (a Likert score or a best prediction)."""
    return str(key).endswith("_likert") or str(key).startswith("best_prediction_")
