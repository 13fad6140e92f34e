"""Instruction following submissions (docs/formats.md section 3, seeds/002): several outputs per instruction.

Each output gets a 1-7 rating and yes/no labels; the outputs are ranked in tie groups, best first, and each
output's rank (its group's position) loads as the dimension `rank`.
"""

from __future__ import annotations

from pathlib import Path

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

NAME = "instruction_following"
MARKER = "concord.instruction_following/v1"
RUBRIC = "instruction_following"
STATUSES = ("rated", "skipped", "rejected", "flagged", "incomplete")
NOT_RATED = ("skipped", "rejected", "flagged")
KNOWN_KEYS = {
    "format",
    "submission_id",
    "task_id",
    "rater_id",
    "role",
    "submitted_at",
    "duration_s",
    "status",
    "skip_reason",
    "instruction",
    "instruction_labels",
    "outputs",
    "ranking",
    "comment",
}
OUTPUT_KEYS = {"output_id", "text", "rating", "labels"}


def detect(head: bytes, file_name: str) -> bool:
    """Whether the first bytes carry this format's marker."""
    return has_format_marker(head, MARKER)


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """Candidate ratings and ranks, tasks, outputs and submissions of an instruction following export."""
    return parse_submissions(path, file_name, NAME, MARKER, lambda rec, base: _read_submission(rec, base, file_name))


def _read_submission(rec: Record, base: Common, file_name: str) -> SubmissionRead:
    """One submission: its ratings and ranks, its outputs as task items, its submission and task rows."""
    declared, status_problems = _declared_status(rec, file_name)
    outputs, r_items, out_problems = _outputs(rec, base.task_id, file_name)
    r_rows = [row for oid, out in outputs.items() for row in _output_rows(rec, base, oid, out)]
    complete = declared in (None, "rated")  # only a rated submission must rank every output
    rank_rows, ranking, rank_problems = _rank_rows(rec, base, list(outputs), file_name, complete)
    r_rows += rank_rows
    sub = _submission(rec, base, declared or ("rated" if r_rows else "incomplete"), ranking, outputs)
    if sub["status"] in NOT_RATED:
        status_problems += withheld(r_rows, rec, file_name, sub["status"], sub["reason"])
        r_rows = []
    task = {
        "task_id": base.task_id,
        "rubric": RUBRIC,
        "prompt": text_or_none(rec.obj.get("instruction")),
        "context": None,
        "metadata": None,
    }
    return SubmissionRead(r_rows, r_items, sub, task, out_problems + rank_problems + status_problems)


def _outputs(rec: Record, task_id: str, file_name: str) -> tuple[dict[str, dict], list[dict], list[Problem]]:
    """The record's outputs by id, as task items too; an output without an id is a problem."""
    raw = rec.obj.get("outputs")
    if raw is None:
        return {}, [], []
    if not isinstance(raw, list):
        return {}, [], [rec.problem(file_name, "outputs", "expected a list of outputs", raw)]
    outputs: dict[str, dict] = {}
    items, problems = [], []
    for i, out in enumerate(raw, start=1):
        oid = text_or_none(out.get("output_id")) if isinstance(out, dict) else None
        if oid is None:
            problems.append(rec.problem(file_name, f"outputs[{i}].output_id", "output without an output_id", out))
            continue
        if oid in outputs:
            problems.append(rec.problem(file_name, f"outputs[{i}].output_id", f"output {oid} appears twice", oid))
            continue
        outputs[oid] = out
        items.append(
            {
                "task_id": task_id,
                "rubric": RUBRIC,
                "item_id": oid,
                "position": i,
                "label": oid,
                "text": text_or_none(out.get("text")),
                "sources": None,
                "metadata": None,
            }
        )
    return outputs, items, problems


def _output_rows(rec: Record, base: Common, oid: str, out: dict) -> list[dict]:
    """The output's 1-7 rating and labels; "Not applicable" where the document allows it is missing."""
    rows = []
    if out.get("rating") is not None:
        rows.append(base.rating(RUBRIC, "rating", oid, out["rating"], rec))
    labels = got if isinstance(got := out.get("labels"), dict) else {}
    rubric = rubrics.RUBRICS[RUBRIC]
    for name, value in labels.items():
        missing = rubric.dimension(name).missing_values if rubric.has_dimension(name) else ()
        if value is None or value in missing:
            continue
        rows.append(base.rating(RUBRIC, name, oid, value, rec))
    return rows


def _rank_rows(
    rec: Record, base: Common, output_ids: list[str], file_name: str, complete: bool
) -> tuple[list[dict], list[list[str]] | None, list[Problem]]:
    """Each output's rank from the tie groups; missing, doubly ranked or unknown outputs are problems."""
    raw = rec.obj.get("ranking")
    if raw is None or raw == []:
        return [], None, []
    if not isinstance(raw, list):
        return [], None, [rec.problem(file_name, "ranking", "expected a list of tie groups, best first", raw)]
    groups = [[str(x) for x in g] if isinstance(g, list) else [str(g)] for g in raw]
    positions: dict[str, list[int]] = {}
    for rank, group in enumerate(groups, start=1):
        for oid in group:
            positions.setdefault(oid, []).append(rank)
    rows, problems = [], []
    known = ", ".join(output_ids) or "none"
    for oid, ranks in positions.items():
        if oid not in output_ids:
            problems.append(
                rec.problem(file_name, "ranking", f"ranking names output {oid}, which is not one of {known}", oid)
            )
        elif len(ranks) > 1:
            where = ", ".join(str(r) for r in ranks)
            problems.append(rec.problem(file_name, "ranking", f"output {oid} is ranked twice (groups {where})", oid))
        else:
            rows.append(base.rating(RUBRIC, "rank", oid, ranks[0], rec))
    for oid in output_ids if complete else ():
        if oid not in positions:
            problems.append(rec.problem(file_name, "ranking", f"output {oid} is missing from the ranking", oid))
    return rows, groups, problems


def _declared_status(rec: Record, file_name: str) -> tuple[str | None, list[Problem]]:
    """The record's status when it is a known one; an unknown status is noted (and read from the ratings)."""
    status = text_or_none(rec.obj.get("status"))
    if status is None or status in STATUSES:
        return status, []
    reason = f"status {status} is not one of {', '.join(STATUSES)}; taken from whether there are ratings"
    return None, [rec.problem(file_name, "status", reason, status, counts=False)]


def _submission(rec: Record, base: Common, status: str, ranking: list | None, outputs: dict[str, dict]) -> dict:
    """The submissions row, with the instruction labels and anything else the rater left in details."""
    o = rec.obj
    output_details = {
        oid: {k: v for k, v in out.items() if k not in OUTPUT_KEYS}
        for oid, out in outputs.items()
        if set(out) - OUTPUT_KEYS
    }
    details = {
        "instruction_labels": o.get("instruction_labels"),
        "outputs": output_details or None,
        "extra": {k: v for k, v in o.items() if k not in KNOWN_KEYS} or None,
    }
    return base.submission(
        RUBRIC,
        status,
        reason=text_or_none(o.get("skip_reason")),
        ranking=ranking,
        details={k: v for k, v in details.items() if v is not None},
    )
