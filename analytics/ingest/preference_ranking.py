"""Preference ranking submissions (docs/formats.md section 4, seeds/003): two responses rated 1-5 and ranked.

The rater rates, skips or rejects a task; a rejection names its reason from the cheat sheet. Skipped and
rejected submissions keep their reason and have no ratings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

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

NAME = "preference_ranking"
MARKER = "concord.preference_ranking/v1"
RUBRIC = "preference_ranking"
ACTIONS = {"rate": "rated", "skip": "skipped", "reject": "rejected"}
KNOWN_KEYS = {
    "format",
    "submission_id",
    "task_id",
    "rater_id",
    "role",
    "submitted_at",
    "duration_s",
    "conversation",
    "prompt",
    "facebook_post_task",
    "action",
    "rejection_reason",
    "skip_reason",
    "responses",
    "ranking_type",
    "justification",
    "comment",
}
RESPONSE_KEYS = {"response_id", "text", "rank", "ratings"}


def detect(head: bytes, file_name: str) -> bool:
    """Whether the first bytes carry this format's marker."""
    return has_format_marker(head, MARKER)


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """Candidate ratings and rank buckets, tasks, responses and submissions of a preference ranking export."""
    return parse_submissions(path, file_name, NAME, MARKER, lambda rec, base: _read_submission(rec, base, file_name))


def _read_submission(rec: Record, base: Common, file_name: str) -> SubmissionRead:
    """One submission: its ratings and ranks, its responses as task items, its submission and task rows."""
    responses, r_items, r_problems = _responses(rec, base.task_id, file_name)
    r_rows = [row for rid, resp in responses.items() for row in _response_rows(rec, base, rid, resp)]
    status, reason, s_problems = _status(rec, bool(r_rows), file_name)
    if status in ("skipped", "rejected"):
        s_problems += withheld(r_rows, rec, file_name, status, reason)
        r_rows = []
    sub = _submission(rec, base, status, reason, responses)
    return SubmissionRead(r_rows, r_items, sub, _task(rec.obj, base.task_id), r_problems + s_problems)


def _responses(rec: Record, task_id: str, file_name: str) -> tuple[dict[str, dict], list[dict], list[Problem]]:
    """The record's responses by id, as task items too; a response without an id is a problem."""
    raw = rec.obj.get("responses")
    if raw is None:
        return {}, [], []
    if not isinstance(raw, list):
        return {}, [], [rec.problem(file_name, "responses", "expected a list of responses", raw)]
    responses: dict[str, dict] = {}
    items, problems = [], []
    for i, resp in enumerate(raw, start=1):
        rid = text_or_none(resp.get("response_id")) if isinstance(resp, dict) else None
        if rid is None:
            problems.append(
                rec.problem(file_name, f"responses[{i}].response_id", "response without a response_id", resp)
            )
            continue
        if rid in responses:
            problems.append(rec.problem(file_name, f"responses[{i}].response_id", f"response {rid} appears twice", rid))
            continue
        responses[rid] = resp
        items.append(
            {
                "task_id": task_id,
                "rubric": RUBRIC,
                "item_id": rid,
                "position": i,
                "label": f"Response {rid}",
                "text": text_or_none(resp.get("text")),
                "sources": None,
                "metadata": None,
            }
        )
    return responses, items, problems


def _response_rows(rec: Record, base: Common, rid: str, resp: dict) -> list[dict]:
    """The response's 1-5 ratings (null is not rated) and its rank bucket, with the response id as target."""
    ratings = got if isinstance(got := resp.get("ratings"), dict) else {}
    rows = [base.rating(RUBRIC, dim, rid, v, rec) for dim, v in ratings.items() if v is not None]
    if resp.get("rank") is not None:
        rows.append(base.rating(RUBRIC, "rank", rid, resp["rank"], rec))
    return rows


def _status(rec: Record, has_ratings: bool, file_name: str) -> tuple[str, str | None, list[Problem]]:
    """Status and reason from the action; a rejection without its reason or an unknown action is a problem."""
    o = rec.obj
    action = text_or_none(o.get("action"))
    problems = []
    if action is not None and action not in ACTIONS:
        note = f"action {action} is not one of {', '.join(ACTIONS)}; taken from whether there are ratings"
        problems.append(rec.problem(file_name, "action", note, action, counts=False))
        action = None
    status = ACTIONS[action] if action else ("rated" if has_ratings else "incomplete")
    reason = text_or_none(o.get("rejection_reason")) if status == "rejected" else text_or_none(o.get("skip_reason"))
    if status == "rejected" and reason is None:
        # The submission is kept as rejected; the missing reason is one unusable row of its own.
        problems.append(rec.problem(file_name, "rejection_reason", "a rejected task needs its rejection_reason"))
    return status, reason, problems


def _submission(rec: Record, base: Common, status: str, reason: str | None, responses: dict[str, dict]) -> dict:
    """The submissions row: justification, the rank of each response, and the rest in details."""
    o = rec.obj
    ranks = {rid: r.get("rank") for rid, r in responses.items() if r.get("rank") is not None}
    response_details = {
        rid: {k: v for k, v in r.items() if k not in RESPONSE_KEYS}
        for rid, r in responses.items()
        if set(r) - RESPONSE_KEYS
    }
    details = {
        "action": o.get("action"),
        "ranking_type": o.get("ranking_type"),
        "facebook_post_task": o.get("facebook_post_task"),
        "responses": response_details or None,
        "extra": {k: v for k, v in o.items() if k not in KNOWN_KEYS} or None,
    }
    return base.submission(
        RUBRIC,
        status,
        reason=reason,
        justification=text_or_none(o.get("justification")),
        ranking=ranks or None,
        details={k: v for k, v in details.items() if v is not None},
    )


def _task(o: dict, task_id: str) -> dict[str, Any]:
    """The task row: the latest prompt, the conversation before it as readable context."""
    conversation = got if isinstance(got := o.get("conversation"), list) else []
    turns = [f"{t.get('role', '?')}: {t.get('text', '')}" for t in conversation if isinstance(t, dict)]
    metadata = {"conversation": conversation or None, "facebook_post_task": o.get("facebook_post_task")}
    return {
        "task_id": task_id,
        "rubric": RUBRIC,
        "prompt": text_or_none(o.get("prompt")),
        "context": "\n".join(turns) or None,
        "metadata": {k: v for k, v in metadata.items() if v is not None} or None,
    }
