"""Shared by the adapters of published datasets whose files give per-item label lists (medical safety, JUDGE-BENCH)
and per-item labels: candidate rating rows, one submission per task and rater, and a task id from a text."""

from __future__ import annotations

import hashlib
from typing import Any

from analytics.core.rater_ids import anonymous_id


def text_key(prefix: str, text: str) -> str:
    """A task id from a text: the prefix and the first 12 hex digits of the SHA-256 of the stripped text."""
    return prefix + hashlib.sha256(text.strip().encode("utf-8")).hexdigest()[:12]


def rating(
    task_id: str,
    rater_id: str,
    role: str,
    rubric: str,
    dimension: str,
    target: str,
    value: Any,
    line: int | None,
    record: str | None,
) -> dict[str, Any]:
    """One candidate rating row (base.RATING_COLUMNS) with its submission id task/rater."""
    return {
        "task_id": task_id,
        "rater_id": rater_id,
        "role": role,
        "rubric": rubric,
        "dimension": dimension,
        "target": target,
        "value": value,
        "submission_id": f"{task_id}/{rater_id}",
        "line": line,
        "record": record,
    }


def list_ratings(
    labels: list[Any], kind: str, role: str, rubric: str, dimension: str, target: str, task_id: str, where: tuple
) -> list[dict[str, Any]]:
    """A list of labels without rater ids as ratings of anonymous raters named by position (anon:<kind>_1, ...)."""
    line, record = where
    return [
        rating(task_id, anonymous_id(kind, i), role, rubric, dimension, target, v, line, record)
        for i, v in enumerate(labels, start=1)
    ]


def submissions(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One rated submission per task and rater of the rows (these files carry no dates or durations)."""
    seen: dict[str, dict[str, Any]] = {}
    for r in rows:
        seen.setdefault(
            r["submission_id"],
            {
                "submission_id": r["submission_id"],
                "task_id": r["task_id"],
                "rubric": r["rubric"],
                "rater_id": r["rater_id"],
                "role": r["role"],
                "status": "rated",
            },
        )
    return list(seen.values())
