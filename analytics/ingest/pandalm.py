"""PandaLM test set and its LLM-judge files (docs/formats.md, PandaLM): a JSON array, one object per comparison.

`testset-v1.json` holds `idx`, the instruction, input, response1 and response2, and three annotators' verdicts
`annotator1..3` (0 = tie, 1 = response1 better, 2 = response2 better): the annotators are researchers. A judge
file (`gpt-3.5-turbo-testset-v1.json` with `gpt_result` "1", "2", "Tie" or "garbage"; `pandalm-7b-testset-v1.json`
with `pandalm_result` 0/1/2) adds one contractor per file, named by the file (`gpt-3.5-turbo`, `pandalm-7b`),
joined to the test set by `idx`: load it to include that judge, leave it out to leave the judge out. A verdict
that is none of these (the judge's "garbage") is quarantined with its reason; the judge's reason is the comment.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import duckdb

from analytics.ingest.base import Dataset, FileRejected, Parsed, Problem, ratings_frame
from analytics.ingest.json_records import Record, read_document, text_or_none

NAME = "pandalm"
RUBRIC = "pandalm"
DIMENSION = "preference"
TARGET = "comparison"
ANNOTATORS = ("annotator1", "annotator2", "annotator3")
# The file's verdicts as the catalogue's levels (analytics/core/rubrics.py PANDALM_LEVELS).
VERDICTS = {"1": "Response 1 better", "0": "Tie", "tie": "Tie", "2": "Response 2 better"}
JUDGE_KEY = re.compile(r"^([a-z0-9]+)_result$")
IN_HEAD = re.compile(rb'^\[\s*\{\s*"idx"\s*:[^{}]*?"(?:annotator1|motivation_app|[a-z0-9]+_result)"\s*:', re.DOTALL)
TASK_PREFIX = "pandalm-"
SOURCE = "Wang et al. (2023), 'PandaLM: An Automatic Evaluation Benchmark for LLM Instruction Tuning Optimization'"
DATASETS = (
    Dataset(
        name="pandalm_testset",
        path="pandalm/testset-v1.json",
        format=NAME,
        title="PandaLM test set: 999 pairwise comparisons, 3 annotators",
        source=SOURCE + ", arXiv 2306.05087; WeOpenML/PandaLM data/testset-v1.json",
    ),
    Dataset(
        name="pandalm_judge_gpt35",
        path="pandalm/gpt-3.5-turbo-testset-v1.json",
        format=NAME,
        title="PandaLM test set: GPT-3.5-turbo as a judge (further rater)",
        source=SOURCE + "; WeOpenML/PandaLM data/gpt-3.5-turbo-testset-v1.json",
    ),
    Dataset(
        name="pandalm_judge_pandalm7b",
        path="pandalm/pandalm-7b-testset-v1.json",
        format=NAME,
        title="PandaLM test set: PandaLM-7B as a judge (further rater)",
        source=SOURCE + "; WeOpenML/PandaLM data/pandalm-7b-testset-v1.json",
    ),
)


def detect(head: bytes, file_name: str) -> bool:
    """A JSON array whose first object starts with `idx` and holds annotator1 or a `<judge>_result`."""
    return IN_HEAD.search(head.lstrip(b"\xef\xbb\xbf \r\n\t")) is not None


def judge_name(file_name: str, key: str) -> str:
    """The judge's rater id: the file name before `-testset` (gpt-3.5-turbo), else the key's prefix (gpt)."""
    stem = Path(file_name).name.split("-testset", 1)[0]
    if stem and stem != Path(file_name).name:
        return stem
    m = JUDGE_KEY.match(key)
    return m.group(1) if m else key


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """The annotators' verdicts (researchers) or one judge's (contractor), per comparison `pandalm-<idx>`."""
    doc = read_document(
        path, file_name, NAME, lambda obj, i: f"comparison idx {obj['idx']}" if "idx" in obj else f"comparison {i}"
    )
    problems = list(doc.problems)
    records = [r for r in doc.records if "idx" in r.obj]
    problems += [
        r.problem(file_name, "idx", "a comparison without idx is not used") for r in doc.records if "idx" not in r.obj
    ]
    judge_keys = sorted({k for r in records for k in r.obj if JUDGE_KEY.match(str(k))})
    humans = any(a in r.obj for r in records for a in ANNOTATORS)
    if not humans and not judge_keys:
        raise FileRejected(
            f"{file_name} is not in the {NAME} format: no comparison has annotator1..3 or a judge's <name>_result"
        )
    rows: list[dict] = []
    tasks: list[dict] = []
    items: list[dict] = []
    for rec in records:
        task = f"{TASK_PREFIX}{rec.obj['idx']}"
        if humans:
            tasks.append(
                {"task_id": task, "rubric": RUBRIC, "prompt": text_or_none(rec.obj.get("instruction")),
                 "context": text_or_none(rec.obj.get("input")), "metadata": _metadata(rec.obj)}
            )  # fmt: skip
            items += [
                {"task_id": task, "rubric": RUBRIC, "item_id": f"response{k}", "position": k, "label": f"Response {k}",
                 "text": text_or_none(rec.obj.get(f"response{k}")), "sources": None, "metadata": None}
                for k in (1, 2)
            ]  # fmt: skip
            for a in ANNOTATORS:
                if a in rec.obj:
                    rows += _verdict(rec, file_name, task, a, a, "researcher", None, problems)
        for key in judge_keys:
            if key in rec.obj:
                prefix = key.removesuffix("_result")
                comment = text_or_none(rec.obj.get(f"{prefix}_reason"))
                name = judge_name(file_name, key)
                rows += _verdict(rec, file_name, task, key, name, "contractor", comment, problems)
    return Parsed(
        format=NAME, ratings=ratings_frame(rows), tasks=tasks, items=items, problems=problems, record_places=doc.places
    )


def _verdict(
    rec: Record,
    file_name: str,
    task: str,
    key: str,
    rater: str,
    role: str,
    comment: str | None,
    problems: list[Problem],
) -> list[dict]:
    """One rating for a verdict 0/1/2/Tie, or a problem naming the comparison and the value."""
    raw: Any = rec.obj.get(key)
    level = VERDICTS.get(str(raw).strip().lower()) if raw is not None and not isinstance(raw, bool) else None
    if level is None:
        problems.append(
            rec.problem(
                file_name,
                key,
                f"verdict {raw!r} of {rater} is not 1 (response1 better), 2 (response2 better) or 0/Tie; "
                "not used as a rating",
                raw,
            )
        )
        return []
    return [
        {"task_id": task, "rater_id": rater, "role": role, "rubric": RUBRIC, "dimension": DIMENSION,
         "target": TARGET, "value": level, "comment": comment, "line": rec.line, "record": rec.record}
    ]  # fmt: skip


def _metadata(obj: dict) -> dict | None:
    """The comparison's own keys (the models compared, the app's motivation) kept as task metadata."""
    keep = {k: obj[k] for k in ("idx", "cmp_key", "motivation_app") if k in obj}
    return keep or None
