"""QAGS MTurk judgments (docs/formats.md, QAGS): JSONL, one summary per line, yes/no per summary sentence.

`{article, summary_sentences: [{sentence, responses: [{worker_id, response}]}]}`. The source (cnndm or xsum) is
taken from the file name `mturk_SOURCE.jsonl` and chooses the rubric (qags_cnndm, qags_xsum). A summary is a task
(`SOURCE-N`, N its line), each sentence a unit (target s1, s2, ...). Worker ids are numbered per file, so
worker 0 of the CNN/DM file is not worker 0 of the XSum file: every id is prefixed with the source
(`cnndm:0`, `xsum:0`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import duckdb

from analytics.ingest.base import Dataset, FileRejected, Parsed, Problem, ratings_frame
from analytics.ingest.json_records import Record, read_document, text_or_none

NAME = "qags"
SOURCES = {"cnndm": "qags_cnndm", "xsum": "qags_xsum"}
DIMENSION = "supported"
SOURCE_IN_NAME = re.compile(r"mturk_(cnndm|xsum)", re.IGNORECASE)
ARTICLE_FIRST = re.compile(rb'^\{\s*"article"\s*:')
SENTENCES_IN_HEAD = re.compile(rb'"summary_sentences"\s*:\s*\[\s*\{\s*"sentence"\s*:')
SOURCE = "Wang, Cho & Lewis (2020), ACL, 'Asking and Answering Questions to Evaluate the Factual Consistency of "
DATASETS = tuple(
    Dataset(
        name=f"qags_{s}",
        path=f"qags/mturk_{s}.jsonl",
        format=NAME,
        title=f"QAGS: MTurk yes/no per summary sentence ({label})",
        source=SOURCE + f"Summaries'; W4ngatang/qags data/mturk_{s}.jsonl",
    )
    for s, label in (("cnndm", "CNN/DailyMail, 714 sentences"), ("xsum", "XSum, 239 sentences"))
)


def detect(head: bytes, file_name: str) -> bool:
    """JSON objects with `summary_sentences` holding `sentence` objects (the QAGS MTurk files), or, named
    mturk_cnndm/mturk_xsum, an object starting with `article` (a long article can push the rest past the head)."""
    text = head.lstrip(b"\xef\xbb\xbf \r\n\t")
    if text[:1] != b"{":
        return False
    if SENTENCES_IN_HEAD.search(text) is not None:
        return True
    return SOURCE_IN_NAME.search(file_name) is not None and ARTICLE_FIRST.match(text) is not None


def source_of(file_name: str) -> str:
    """cnndm or xsum, from the file name; FileRejected otherwise (the worker ids are only unique per source)."""
    m = SOURCE_IN_NAME.search(Path(file_name).name)
    if m is None:
        raise FileRejected(
            f"{file_name}: a QAGS file is named mturk_cnndm.jsonl or mturk_xsum.jsonl, because its worker ids are "
            "numbered per file and the source (taken from the name) tells them apart"
        )
    return m.group(1).lower()


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """A yes/no rating per worker and summary sentence; summaries as tasks, sentences as items."""
    source = source_of(file_name)
    rubric = SOURCES[source]
    doc = read_document(path, file_name, NAME, lambda obj, i: f"summary {i}")
    problems = list(doc.problems)
    rows: list[dict] = []
    tasks: list[dict] = []
    items: list[dict] = []
    for i, rec in enumerate(doc.records, start=1):
        sentences = rec.obj.get("summary_sentences")
        if not isinstance(sentences, list):
            problems.append(rec.problem(file_name, "summary_sentences", "missing or not a list of sentences"))
            continue
        task = f"{source}-{rec.line if rec.line is not None else i}"
        tasks.append(
            {
                "task_id": task,
                "rubric": rubric,
                "prompt": " ".join(str(s.get("sentence", "")) for s in sentences if isinstance(s, dict)) or None,
                "context": text_or_none(rec.obj.get("article")),
                "metadata": None,
            }
        )
        for k, sentence in enumerate(sentences, start=1):
            target = f"s{k}"
            if not isinstance(sentence, dict):
                problems.append(rec.problem(file_name, f"summary_sentences[{k}]", "not a sentence object"))
                continue
            items.append(
                {"task_id": task, "rubric": rubric, "item_id": target, "position": k, "label": f"sentence {k}",
                 "text": text_or_none(sentence.get("sentence")), "sources": None, "metadata": None}
            )  # fmt: skip
            rows += _responses(rec, file_name, source, task, target, sentence.get("responses"), problems)
    if not rows and not problems:
        raise FileRejected(f"{file_name} is not in the {NAME} format: no summary sentence has responses")
    return Parsed(
        format=NAME, ratings=ratings_frame(rows), tasks=tasks, items=items, problems=problems, record_places=doc.places
    )


def _responses(
    rec: Record, file_name: str, source: str, task: str, target: str, responses: Any, problems: list[Problem]
) -> list[dict]:
    """One rating per response of one sentence; a response without a worker id is a problem."""
    where = f"summary_sentences[{target[1:]}].responses"
    if not isinstance(responses, list):
        problems.append(rec.problem(file_name, where, "missing or not a list of responses"))
        return []
    rows = []
    for r in responses:
        worker = text_or_none(r.get("worker_id")) if isinstance(r, dict) else None
        if worker is None:
            problems.append(rec.problem(file_name, where, "a response without worker_id", r))
            continue
        rows.append(
            {"task_id": task, "rater_id": f"{source}:{worker}", "role": "contractor", "rubric": SOURCES[source],
             "dimension": DIMENSION, "target": target, "value": text_or_none(r.get("response")), "line": rec.line,
             "record": rec.record}
        )  # fmt: skip
    return rows
