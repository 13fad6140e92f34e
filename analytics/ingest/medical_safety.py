"""Medical safety files (Abercrombie & Rieser 2022; GavinAbercrombie/medical-safety data/, docs/formats.md).

Two CSV layouts, one rubric (analytics/core/rubrics.py, medical_safety):

- the crowd file (`query, query-expert, query-cws, alexa-response, ...-expert, ...-cws`): the clinician's label
  as text and a Python-list string of crowd labels per query and per response. The crowd labels have no worker
  ids: they load as anonymous raters named by position (anon:crowd_1, ...; analytics/core/rater_ids.py).
- the expert file (`query, query-label-expert, response-dialogpt, response-dialogpt-label-expert, ...`): the
  clinician's labels as codes, mapped to the same labels (EXPERT_QUERY_CODES, EXPERT_RESPONSE_CODES).

The clinician is rater `expert`, researcher role. A query is one task (keyed by its text, so the two files meet);
its seriousness is rated on target `query`, each response's type on the system that wrote it.

The crowd file's `alexa-response` and `dialogpt-response` text columns are swapped relative to the expert file
(the real Alexa answers, "Here's something I found on the web...", sit under dialogpt-response); the labels
travel with the text, so each column is read as the system whose text it holds (CROWD_COLUMNS).
"""

from __future__ import annotations

import ast
import csv
import io
from pathlib import Path

import duckdb

from analytics.ingest import label_lists as ll
from analytics.ingest import limits
from analytics.ingest.base import Dataset, FileRejected, Parsed, Problem, ratings_frame
from analytics.ingest.limits import header_names

NAME = "medical_safety"
RUBRIC = "medical_safety"
EXPERT = "expert"
TASK_PREFIX = "q-"
# The crowd file: system -> the column prefix holding that system's text (alexa and dialogpt swapped, see above).
CROWD_COLUMNS = {"alexa": "dialogpt-response", "dialogpt": "alexa-response", "reddit": "reddit-response"}
# The expert file: system -> its text column (the reddit column's header ends with a space in the file).
EXPERT_COLUMNS = {"alexa": "response-alexa", "dialogpt": "response-dialogpt", "reddit": "response-reddit"}
EXPERT_QUERY_CODES = {"0": "Not medical", "1": "Non-serious", "2": "Serious", "3": "Critical"}
# X is "Irrelevant or nonsensical": the crowd file carries the same clinician's labels as text, and every
# response the expert file codes X is labelled so there (501 of 501 matched by text); the repository's
# notebook treats X as a class of its own beside 0 (no answer) and the risk grades 1-3.
EXPERT_RESPONSE_CODES = {
    "0": "No answer",
    "1": "General information",
    "2": "Recommendations",
    "3": "Treatment or diagnosis",
    "X": "Irrelevant or nonsensical",
}
CROWD_HEADER = ("query", "query-expert", "query-cws")
EXPERT_HEADER = ("query", "query-label-expert")

DATASETS = (
    Dataset(
        name="medical_safety_crowd",
        path="medical_safety/medicheck-crowd.csv",
        format=NAME,
        title="Medical safety: crowd labels (no worker ids) and the clinician's labels",
        source="GavinAbercrombie/medical-safety data/medicheck-crowd.csv; Abercrombie & Rieser 2022, AACL",
    ),
    Dataset(
        name="medical_safety_expert",
        path="medical_safety/medicheck-expert.csv",
        format=NAME,
        title="Medical safety: the clinician's coded labels",
        source="GavinAbercrombie/medical-safety data/medicheck-expert.csv; Abercrombie & Rieser 2022, AACL",
    ),
)


def detect(head: bytes, file_name: str) -> bool:
    """A CSV whose header starts with the crowd file's or the expert file's query columns."""
    cols = header_names(head.decode("utf-8", errors="replace"))
    return tuple(cols[:3]) == CROWD_HEADER or tuple(cols[:2]) == EXPERT_HEADER


def parse(path: Path, file_name: str, con: duckdb.DuckDBPyConnection) -> Parsed:
    """Candidate ratings of the crowd or the expert file, the queries as tasks and the responses as items."""
    text = limits.text_of(path.read_bytes())
    cols = header_names(text)
    reader = csv.reader(io.StringIO(text))
    next(reader)
    lines, places, unread = [], [], []
    for row in reader:
        if any(c.strip() for c in row):
            places.append(f"line {reader.line_num}")
            bad = limits.not_utf8(row)
            if bad is not None:
                n = reader.line_num
                unread.append(Problem(f"{file_name}, line {n}: {bad}; the row is not used", line=n))
                continue
            lines.append((reader.line_num, dict(zip(cols, row, strict=False)), len(row)))
    if tuple(cols[:3]) == CROWD_HEADER:
        rows, problems, texts = _crowd(lines, cols, file_name)
    elif tuple(cols[:2]) == EXPERT_HEADER:
        rows, problems, texts = _expert(lines, file_name)
    else:
        raise FileRejected(
            f"{file_name}, line 1: not a medical safety file: the header must start with "
            f"{', '.join(CROWD_HEADER)} (crowd) or {', '.join(EXPERT_HEADER)} (expert), as in the Data page's Formats section"
        )
    tasks = {t: {"task_id": t, "rubric": RUBRIC, "prompt": q, "context": None, "metadata": None} for t, q, _ in texts}
    items = {
        (t, sysname): {
            "task_id": t,
            "rubric": RUBRIC,
            "item_id": sysname,
            "position": i,
            "label": sysname,
            "text": answers.get(sysname) or None,
            "sources": None,
            "metadata": None,
        }
        for t, _, answers in texts
        for i, sysname in enumerate(CROWD_COLUMNS, start=1)
    }
    return Parsed(
        format=NAME,
        ratings=ratings_frame(rows),
        tasks=list(tasks.values()),
        items=list(items.values()),
        submissions=ll.submissions(rows),
        problems=unread + problems,
        record_places=places,
    )


def _ragged(line: int, n: int, cols: list[str], file_name: str) -> Problem | None:
    if n == len(cols):
        return None
    return Problem(
        f"{file_name}, line {line}: {n} fields where the header names {len(cols)}; the row is not used", line=line
    )


def _crowd(lines: list, cols: list[str], file_name: str) -> tuple[list[dict], list[Problem], list[tuple]]:
    """Rows of the crowd file: the clinician's text labels and the crowd's label lists."""
    rows: list[dict] = []
    problems: list[Problem] = []
    texts = []
    for line, r, n in lines:
        bad = _ragged(line, n, cols, file_name)
        query = (r.get("query") or "").strip()
        if bad is not None or not query:
            problems.append(
                bad or Problem(f"{file_name}, line {line}: empty query; the row is not used", line, None, "query")
            )
            continue
        task = ll.text_key(TASK_PREFIX, query)
        where = (line, None)
        units = [("seriousness", "query", "query")] + [
            ("response_type", sysname, prefix) for sysname, prefix in CROWD_COLUMNS.items()
        ]
        for dimension, target, prefix in units:
            expert = (r.get(f"{prefix}-expert") or "").strip()
            if expert:
                rows.append(ll.rating(task, EXPERT, "researcher", RUBRIC, dimension, target, expert, *where))
            labels = _label_list(r.get(f"{prefix}-cws") or "", line, f"{prefix}-cws", file_name, problems)
            rows += ll.list_ratings(labels, "crowd", "contractor", RUBRIC, dimension, target, task, where)
        texts.append((task, query, {s: (r.get(p) or "").strip() for s, p in CROWD_COLUMNS.items()}))
    return rows, problems, texts


def _label_list(raw: str, line: int, field: str, file_name: str, problems: list[Problem]) -> list[str]:
    """A Python-list string of labels ("['Serious', 'Critical']"); a problem and no labels when it is not one."""
    if not raw.strip():
        return []
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        value = None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(
            Problem(
                f"{file_name}, line {line}, {field}: not a list of labels such as ['Serious', 'Critical']; its "
                "crowd labels are not used",
                line=line,
                field=field,
                raw_value=raw[:500],
            )
        )
        return []
    return [v.strip() for v in value]


def _expert(lines: list, file_name: str) -> tuple[list[dict], list[Problem], list[tuple]]:
    """Rows of the expert file: codes mapped to labels (an unknown code is passed on and quarantined at load)."""
    rows: list[dict] = []
    problems: list[Problem] = []
    texts = []
    for line, r, _ in lines:
        query = (r.get("query") or "").strip()
        if not query:
            problems.append(Problem(f"{file_name}, line {line}: empty query; the row is not used", line, None, "query"))
            continue
        task = ll.text_key(TASK_PREFIX, query)
        code = (r.get("query-label-expert") or "").strip()
        if code:
            value = EXPERT_QUERY_CODES.get(code, code)
            rows.append(ll.rating(task, EXPERT, "researcher", RUBRIC, "seriousness", "query", value, line, None))
        for sysname, column in EXPERT_COLUMNS.items():
            code = (r.get(f"{column}-label-expert") or "").strip()
            if code:  # blank: the clinician gave no label (the response is empty there)
                value = EXPERT_RESPONSE_CODES.get(code.upper(), code)
                rows.append(ll.rating(task, EXPERT, "researcher", RUBRIC, "response_type", sysname, value, line, None))
        texts.append((task, query, {s: (r.get(c) or "").strip() for s, c in EXPERT_COLUMNS.items()}))
    return rows, problems, texts
