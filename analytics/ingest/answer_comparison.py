"""Answer comparison submissions (docs/formats.md section 2, seeds/000): options A and B rated and compared.

Comparison ratings are stored on the task's own option ids: a rater who saw B first clicked "A better" for
stored option B, so the clicked value is flipped. The submission keeps what was clicked and which option was
shown first, for position-bias analysis.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from analytics.core import rubrics
from analytics.ingest.base import Parsed, Problem
from analytics.ingest.json_records import (
    Common,
    Record,
    SubmissionRead,
    has_format_marker,
    parse_submissions,
    text_or_none,
    withheld,
)

NAME = "answer_comparison"
MARKER = "concord.answer_comparison/v1"
RUBRIC = "answer_comparison"
OPTION_IDS = ("A", "B")
KNOWN_KEYS = {
    "format",
    "submission_id",
    "task_id",
    "rater_id",
    "role",
    "submitted_at",
    "duration_s",
    "task_kind",
    "question",
    "question_flags",
    "display_order",
    "options",
    "comparison",
    "comment",
    "explanations",
}
ITEM_KEYS = {"answer_id", "answer", "sources", "ratings", "better_than_nothing"}


def detect(head: bytes, file_name: str) -> bool:
    """Whether the first bytes carry this format's marker."""
    return has_format_marker(head, MARKER)


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """Candidate ratings, tasks, options and submissions of an answer comparison export."""

    def read_one(rec: Record, base: Common) -> SubmissionRead:
        rows, items, sub, problems = _read_submission(rec, base, file_name)
        return SubmissionRead(rows, items, sub, _task(rec.obj, base.task_id), problems)

    return parse_submissions(path, file_name, NAME, MARKER, read_one)


def _read_submission(
    rec: Record, base: Common, file_name: str
) -> tuple[list[dict], list[dict], dict[str, Any], list[Problem]]:
    """One submission: its rating rows, its options as task items, its submissions row and its problems."""
    o = rec.obj
    rows: list[dict] = []
    problems: list[Problem] = []
    items: list[dict] = []
    option_details: dict[str, Any] = {}
    options = o.get("options")
    if isinstance(options, dict):
        for oid, opt in options.items():
            if not isinstance(opt, dict):
                problems.append(rec.problem(file_name, f"options.{oid}", "expected an object (the option)", opt))
                continue
            rows += _absolute_rows(rec, base, str(oid), opt)
            items.append(_item(base.task_id, str(oid), opt))
            option_details[str(oid)] = _option_details(opt)
    elif options is not None:
        problems.append(rec.problem(file_name, "options", "expected an object keyed by option id A and B", options))

    order = o.get("display_order")
    comparison = got if isinstance(got := o.get("comparison"), dict) else {}
    if o.get("comparison") is not None and not isinstance(o.get("comparison"), dict):
        problems.append(rec.problem(file_name, "comparison", "expected an object keyed by category", o["comparison"]))
    if order is None or order in (list(OPTION_IDS), list(reversed(OPTION_IDS))):
        flip = order == list(reversed(OPTION_IDS))
        rows += _comparison_rows(rec, base, comparison, flip)
    else:
        problems += [
            rec.problem(
                file_name,
                "display_order",
                f'display_order {order} is neither ["A", "B"] nor ["B", "A"], so the clicked {cat} comparison '
                f"{clicked} cannot be placed on the stored options",
                clicked,
            )
            for cat, clicked in comparison.items()
            if clicked is not None
        ]

    flags = got if isinstance(got := o.get("question_flags"), dict) else {}
    raised = [k for k, v in flags.items() if v is True]
    status = "flagged" if raised else ("rated" if rows else "incomplete")
    reason = ", ".join(raised) or None
    if status == "flagged" and rows:
        problems += withheld(rows, rec, file_name, status, reason)
        rows = []
    explanations = got if isinstance(got := o.get("explanations"), dict) else None
    details = {
        "task_kind": o.get("task_kind"),
        "display_order": order,
        "comparison_clicked": o.get("comparison"),
        "options": option_details,
        "explanations": explanations,
        "extra": {k: v for k, v in o.items() if k not in KNOWN_KEYS} or None,
    }
    sub = base.submission(
        RUBRIC,
        status,
        reason=reason,
        flags=o.get("question_flags"),
        explanation=_explanation_text(explanations) if explanations else text_or_none(o.get("explanations")),
        shown_first=order[0] if isinstance(order, list) and order and isinstance(order[0], str) else None,
        details={k: v for k, v in details.items() if v is not None},
    )
    return rows, items, sub, problems


def _absolute_rows(rec: Record, base: Common, oid: str, opt: dict) -> list[dict]:
    """The option's absolute ratings and its better-than-nothing judgment, with the option id as target."""
    ratings = got if isinstance(got := opt.get("ratings"), dict) else {}
    rows = [base.rating(RUBRIC, cat, oid, v, rec) for cat, v in ratings.items() if v is not None]
    if opt.get("better_than_nothing") is not None:
        rows.append(base.rating(RUBRIC, "better_than_nothing", oid, opt["better_than_nothing"], rec))
    return rows


def _comparison_rows(rec: Record, base: Common, comparison: dict, flip: bool) -> list[dict]:
    """Comparison ratings on the stored option ids (a value off the scale is kept as clicked for validation)."""
    rows = []
    for cat, clicked in comparison.items():
        if clicked is None:
            continue
        value = rubrics.COMPARISON_FLIP.get(clicked, clicked) if flip and isinstance(clicked, str) else clicked
        rows.append(base.rating(RUBRIC, f"{cat}_comparison", "comparison", value, rec))
    return rows


def _item(task_id: str, oid: str, opt: dict) -> dict[str, Any]:
    """The option as a task item: the answer and its sources (the rater's trustworthiness labels left out)."""
    sources = got if isinstance(got := opt.get("sources"), list) else []
    return {
        "task_id": task_id,
        "rubric": RUBRIC,
        "item_id": oid,
        "position": OPTION_IDS.index(oid) + 1 if oid in OPTION_IDS else None,
        "label": f"Option {oid}",
        "text": text_or_none(opt.get("answer")),
        "sources": [
            {k: v for k, v in s.items() if k != "trustworthiness"} if isinstance(s, dict) else s for s in sources
        ],
        "metadata": {"answer_id": opt.get("answer_id")},
    }


def _option_details(opt: dict) -> dict[str, Any]:
    """What the rater wrote about one option besides the ratings: claims, source labels, edits, notes."""
    sources = got if isinstance(got := opt.get("sources"), list) else []
    labels = [
        {"n": s.get("n"), "trustworthiness": s.get("trustworthiness")}
        for s in sources
        if isinstance(s, dict) and s.get("trustworthiness") is not None
    ]
    details = {"answer_id": opt.get("answer_id"), "trustworthiness": labels or None}
    details.update({k: v for k, v in opt.items() if k not in ITEM_KEYS})
    return {k: v for k, v in details.items() if v is not None}


def _task(o: dict, task_id: str) -> dict[str, Any]:
    """The task row: the question and its kind."""
    kind = o.get("task_kind")
    return {
        "task_id": task_id,
        "rubric": RUBRIC,
        "prompt": text_or_none(o.get("question")),
        "context": None,
        "metadata": {"task_kind": kind} if kind is not None else None,
    }


def _explanation_text(explanations: dict) -> str | None:
    """A researcher's explanations as readable lines, one per category."""
    lines = [f"{k}: {v}" for k, v in explanations.items() if text_or_none(v)]
    return "\n".join(lines) or None
