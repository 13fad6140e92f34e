"""Article Likert files (docs/formats.md section 5, seeds/004): one annotator's topics, three predictions each.

The annotator is taken from the file name `preference_json_N_completed.json`. A Likert score of 0 is the
document's default, "you have not yet annotated": missing, never a score, and the topic is incomplete.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import duckdb

from analytics.ingest.base import FileRejected, Parsed, Problem, ratings_frame
from analytics.ingest.json_records import Common, Record, read_document, text_or_none, unique

NAME = "article_likert"
RUBRIC = "article_likert"
PREDICTIONS = ("first", "second", "third")
BEST_KEYS = ("best_prediction_reference", "best_prediction_topic")
FILE_NAME = re.compile(r"preference_json_(\d+)", re.IGNORECASE)
LIKERT_KEY = re.compile(r"^(\w+)_prediction_likert$")
LIKERT_KEY_IN_HEAD = re.compile(rb'"(first|second|third)_prediction_likert"\s*:')
# "Please do not use half scores (1.5, 2.5, etc)" (seeds/004).
HALF_SCORE = "half scores are not allowed"
KNOWN_KEYS = {"topic", "reference", "role", *(f"{p}_prediction" for p in PREDICTIONS)}


def detect(head: bytes, file_name: str) -> bool:
    """Whether the file is JSON holding topics with prediction Likert keys."""
    return head.lstrip(b"\xef\xbb\xbf \r\n\t")[:1] in (b"[", b"{") and LIKERT_KEY_IN_HEAD.search(head) is not None


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """Candidate Likert and best-prediction ratings, topics, predictions and one submission per topic."""
    doc = read_document(path, file_name, NAME, lambda obj, i: f"topic {i}")
    records = _topics(doc.top, doc.records)
    if not any(LIKERT_KEY.match(str(k)) for r in records for k in r.obj):
        raise FileRejected(
            f"{file_name} is not in the {NAME} format: no topic has first_prediction_likert, second_prediction_likert "
            "or third_prediction_likert (see docs/formats.md, section 5)"
        )
    annotator = _annotator(file_name)
    problems = list(doc.problems)
    rows: list[dict] = []
    tasks: list[dict] = []
    items: list[dict] = []
    subs: list[dict] = []
    for rec in records:
        topic = text_or_none(rec.obj.get("topic"))
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
        subs.append(_submission(rec, base, missing))
        tasks.append(
            {
                "task_id": topic,
                "rubric": RUBRIC,
                "prompt": topic,
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


def _topics(top: Any, records: list[Record]) -> list[Record]:
    """The topic records: an array of topics as read, or an object keyed by topic id turned into topics."""
    if not isinstance(top, dict) or "topic" in top or any(LIKERT_KEY.match(str(k)) for k in top):
        return records
    topics = []
    for i, (key, value) in enumerate(top.items(), start=1):
        obj = {"topic": key, **value} if isinstance(value, dict) else {"topic": key, "value": value}
        topics.append(Record(obj, None, f"topic {i}"))
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
