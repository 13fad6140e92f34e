"""SQuALITY human evaluation (Wang et al. 2022; nyu-mll/SQuALITY data/human-eval/all-responses.jsonl).

One JSON object per story (`passage-id`), its questions in `questions` ({"0": {system: {response, reviews}}}).
Each review is one trained writer's (`worker_id`) correctness, selection and overall rating (0-100) and rank
(1-3 among the three systems of the question) of one system's summary. A question is a task
(`<passage-id>-q<question>`), a system (bart, bart-dpr, human) the target; the writer is rater `writer_<id>`.
The `overall` block holds the authors' means and is not a rating. The highlighted spans and the writer's notes on
them go to the review's comment.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb

from analytics.core.rubrics import SQUALITY_PROPERTIES
from analytics.ingest import label_lists as ll
from analytics.ingest.base import Dataset, FileRejected, Parsed, Problem, ratings_frame
from analytics.ingest.json_records import BOM

NAME = "squality"
RUBRIC = "squality"
HEAD = re.compile(rb'^\s*\{\s*"passage-id"\s*:')

DATASETS = (
    Dataset(
        name="squality_human_eval",
        path="squality/all-responses.jsonl",
        format=NAME,
        title="SQuALITY: writers' ratings and ranks of story summaries",
        source="nyu-mll/SQuALITY data/human-eval/all-responses.jsonl; Wang et al. 2022 (arXiv 2205.11465)",
    ),
)


def detect(head: bytes, file_name: str) -> bool:
    """JSON lines whose first object starts with `passage-id` and holds `questions`."""
    return HEAD.match(head.lstrip(b"\xef\xbb\xbf")) is not None and b'"questions"' in head


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """Ratings and ranks per review, a task per question, the three summaries as items."""
    rows: list[dict] = []
    problems: list[Problem] = []
    tasks: list[dict] = []
    items: list[dict] = []
    comments: dict[str, str] = {}
    places: list[str] = []
    with open(path, "rb") as f:
        for line, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            places.append(f"line {line}")
            try:
                story = json.loads(raw.removeprefix(BOM).decode("utf-8") if line == 1 else raw.decode("utf-8"))
            except UnicodeDecodeError as e:
                why = f"not UTF-8 text (byte 0x{raw[e.start]:02x}); the story is not used"
                problems.append(Problem(f"{file_name}, line {line}: {why}", line))
                continue
            except json.JSONDecodeError as e:
                problems.append(Problem(f"{file_name}, line {line}: not JSON ({e.msg}); the story is not used", line))
                continue
            if not isinstance(story, dict) or not isinstance(story.get("questions"), dict):
                problems.append(
                    Problem(
                        f"{file_name}, line {line}: no questions object; the story is not used", line, None, "questions"
                    )
                )
                continue
            passage = str(story.get("passage-id") or f"line{line}")
            for q, systems in story["questions"].items():
                task = f"{passage}-q{q}"
                tasks.append({"task_id": task, "rubric": RUBRIC, "prompt": f"Story {passage}, question {q}",
                              "context": None, "metadata": None})  # fmt: skip
                for pos, (system, block) in enumerate((systems or {}).items(), start=1):
                    block = block if isinstance(block, dict) else {}
                    items.append({"task_id": task, "rubric": RUBRIC, "item_id": system, "position": pos,
                                  "label": system, "text": block.get("response"), "sources": None, "metadata": None})  # fmt: skip
                    for i, review in enumerate(block.get("reviews") or [], start=1):
                        record = f"passage {passage}, question {q}, {system}, review {i}"
                        rows += _review(review, task, system, line, record, file_name, problems, comments)
    if not rows and not problems:
        raise FileRejected(f"{file_name}: no review in any question; not a SQuALITY human-evaluation file")
    subs = ll.submissions(rows)
    for s in subs:
        s["comment"] = comments.get(s["submission_id"])
    return Parsed(
        format=NAME,
        ratings=ratings_frame(rows),
        tasks=tasks,
        items=items,
        submissions=subs,
        problems=problems,
        record_places=places,
    )


def _review(
    review: Any, task: str, system: str, line: int, record: str, file_name: str, problems: list, comments: dict
) -> list[dict]:
    """The six rating rows of one review (a review without a worker id is a problem, not rows)."""
    if not isinstance(review, dict) or str(review.get("worker_id") or "").strip() == "":
        problems.append(
            Problem(
                f"{file_name}, line {line}, {record}: no worker_id; the review is not used", line, record, "worker_id"
            )
        )
        return []
    rater = f"writer_{str(review['worker_id']).strip()}"
    rows = [
        ll.rating(task, rater, "contractor", RUBRIC, f"{p}_{kind}", system, review.get(f"{p}-{kind}"), line, record)
        for p in SQUALITY_PROPERTIES
        for kind in ("rating", "rank")
        if f"{p}-{kind}" in review
    ]
    notes = [
        f"{system}: \u201c{a.get('selection', '')}\u201d: {' '.join(map(str, a.get('annotation') or []))}"
        for a in review.get("annotations") or []
        if isinstance(a, dict)
    ]
    if notes:
        key = f"{task}/{rater}"
        comments[key] = "\n".join(filter(None, [comments.get(key), *notes]))
    return rows
