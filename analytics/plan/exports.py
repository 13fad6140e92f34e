"""A plan's three downloads: the plan as CSV (every label with its reason), a Label Studio import (tasks JSON in
Label Studio's documented import format: a list of tasks, each with its `data` and `meta`; https://labelstud.io/guide/task_format)
and an assignment CSV `task_id,rubric,researcher`. CSV through analytics.core.csv_out, the one writer."""

from __future__ import annotations

import json
import re
from typing import Any

import duckdb
import pandas as pd

from analytics.core import csv_out
from analytics.core.queries import Query
from analytics.ingest.label_studio import ITEM_PREFIX

ASSIGNMENT_COLUMNS = ("task_id", "rubric", "researcher")
SOURCE = "Concord labelling plan"
_PLANNED = "planned AS (SELECT DISTINCT unnest($task_ids) AS task_id, unnest($rubrics) AS rubric)"
TASK_TEXTS = Query(
    "plan_task_texts",
    f"""WITH {_PLANNED}
SELECT t.task_id, t.rubric, t.prompt, t.context FROM tasks t JOIN planned USING (task_id, rubric)""",
)
ITEM_TEXTS = Query(
    "plan_item_texts",
    f"""WITH {_PLANNED}
SELECT i.task_id, i.rubric, i.item_id, i.label, i.text FROM task_items i JOIN planned USING (task_id, rubric)
ORDER BY i.task_id, i.rubric, i.position NULLS LAST, i.item_id""",
)


def plan_frame(labels: pd.DataFrame) -> pd.DataFrame:
    """The plan's labels as a flat table (contractors joined by '; ')."""
    return labels.assign(contractors=["; ".join(c) for c in labels["contractors"]])


def plan_csv(labels: pd.DataFrame) -> bytes:
    """The plan as CSV."""
    return csv_out.to_csv_bytes(plan_frame(labels))


def assignment_frame(labels: pd.DataFrame) -> pd.DataFrame:
    """One row per label: the task, its rubric and the researcher asked to label it (blank: anyone)."""
    return labels[list(ASSIGNMENT_COLUMNS)].reset_index(drop=True)


def assignment_csv(labels: pd.DataFrame) -> bytes:
    """The assignment CSV `task_id,rubric,researcher`."""
    return csv_out.to_csv_bytes(assignment_frame(labels))


def data_key(item_id: str, taken: set[str]) -> str:
    """A `data` key for an item's text that a labelling config can name as $key (letters, digits, underscores),
    made unique among `taken`."""
    base = ITEM_PREFIX + (re.sub(r"[^A-Za-z0-9_]+", "_", item_id).strip("_") or "x")
    key, i = base, 2
    while key in taken or f"{key}_label" in taken:
        key, i = f"{base}_{i}", i + 1
    taken.update({key, f"{key}_label"})
    return key


def label_studio_tasks(con: duckdb.DuckDBPyConnection, labels: pd.DataFrame) -> list[dict[str, Any]]:
    """One Label Studio task per planned task (a task two researchers label is one task naming both): `data` holds
    the task's id, rubric, prompt, context and each item's label and text (as stored: plain text, which Label
    Studio's Text tag shows as text); `meta` the plan's researchers, priority, reason and contractors."""
    if labels.empty:
        return []
    firsts = labels.drop_duplicates(["task_id", "rubric"])
    params = {"task_ids": firsts["task_id"].tolist(), "rubrics": firsts["rubric"].tolist()}
    texts = {(t, r): (p, c) for t, r, p, c in TASK_TEXTS.bind(**params).rows(con)}
    items: dict[tuple[str, str], list[tuple[str, str | None, str | None]]] = {}
    for t, r, item, label, text in ITEM_TEXTS.bind(**params).rows(con):
        items.setdefault((t, r), []).append((item, label, text))
    researchers: dict[tuple[str, str], list[str]] = {}
    for task_id, rubric, researcher in labels[["task_id", "rubric", "researcher"]].itertuples(index=False, name=None):
        if isinstance(researcher, str):
            researchers.setdefault((str(task_id), str(rubric)), []).append(researcher)
    out = []
    for task_id, rubric, priority, why, contractors in firsts[
        ["task_id", "rubric", "priority", "reason", "contractors"]
    ].itertuples(index=False, name=None):
        key = (str(task_id), str(rubric))
        prompt, context = texts.get(key, (None, None))
        data: dict[str, Any] = {
            "task_id": key[0],
            "rubric": key[1],
            "prompt": prompt or "",
            "context": context or "",
        }
        taken = set(data)
        for item, label, text in items.get(key, []):
            k = data_key(str(item), taken)
            data[k], data[f"{k}_label"] = text or "", label or str(item)
        meta = {
            "source": SOURCE,
            "researchers": researchers.get(key, []),
            "priority": int(priority),
            "reason": str(why),
            "contractors": list(contractors),
        }
        out.append({"data": data, "meta": meta})
    return out


def label_studio_json(con: duckdb.DuckDBPyConnection, labels: pd.DataFrame) -> bytes:
    """The Label Studio import file: the tasks as a JSON list (UTF-8)."""
    return json.dumps(label_studio_tasks(con, labels), ensure_ascii=False, indent=1).encode("utf-8")
