"""The plan's three downloads (analytics/plan/exports.py): the Label Studio import in Label Studio's documented import
format (a JSON list of tasks, each with a `data` object of the values a labelling config names as $key and an optional
`meta` object; https://labelstud.io/guide/task_format), which Label Studio's own export of it, once annotated, loads
back through the label_studio reader; the assignment CSV `task_id,rubric,researcher`; and the plan CSV, written by the
one CSV writer (formula-like ids neutralised)."""

from __future__ import annotations

import csv
import io
import json
import re

from analytics.core.filters import Filters
from analytics.ingest.base import FormatOptions
from analytics.ingest.load import ingest_bytes
from analytics.plan import exports
from analytics.plan.propose import propose

RESEARCHERS = ("r01", "r02")
KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # a data key a labelling config can name as $key


def test_the_label_studio_import_follows_label_studios_task_format(demo):
    plan = propose(demo, Filters(), 120, RESEARCHERS)
    tasks = json.loads(exports.label_studio_json(demo, plan.labels))
    assert isinstance(tasks, list) and len(tasks) == plan.labels.drop_duplicates(["task_id", "rubric"]).shape[0]
    prompts = dict(demo.execute("SELECT task_id || '/' || rubric, prompt FROM tasks").fetchall())
    for task in tasks:
        assert set(task) == {"data", "meta"}  # no id: Label Studio numbers the tasks it imports
        data, meta = task["data"], task["meta"]
        assert all(KEY.match(k) for k in data), list(data)
        assert all(isinstance(v, str) for v in data.values())  # flat text values, as a Text tag reads them
        assert data["prompt"] == (prompts.get(f"{data['task_id']}/{data['rubric']}") or "")
        assert meta["source"] == exports.SOURCE and meta["researchers"] and meta["contractors"]
    # A task with a second label is one task naming both researchers.
    seconds = plan.labels[plan.labels["second_label"]]
    if len(seconds):
        by_id = {t["data"]["task_id"]: t for t in tasks}
        assert all(len(set(by_id[t]["meta"]["researchers"])) == 2 for t in seconds["task_id"])
    # Items are named for the labelling config: a comparison's answers as item_A and item_B with their labels.
    comparison = next(t for t in tasks if t["data"]["rubric"] == "answer_comparison")
    assert {"item_A", "item_A_label", "item_B", "item_B_label"} <= set(comparison["data"])


def test_label_studios_export_of_the_imported_tasks_loads_back(demo, con):
    """What Label Studio gives back after import and annotation (its task ids, the data and meta kept, each
    researcher's annotation) is a Label Studio export the label_studio reader loads: every task, its text kept."""
    plan = propose(demo, Filters(rubric="answer_comparison"), 20, RESEARCHERS)
    tasks = exports.label_studio_tasks(demo, plan.labels)
    exported = []
    for i, task in enumerate(tasks, start=1):
        annotations = [
            {
                "id": 100 * i + j,
                "completed_by": researcher,
                "result": [
                    {
                        "from_name": "usefulness_comparison",
                        "to_name": "prompt",
                        "type": "choices",
                        "value": {"choices": ["A better"]},
                    }
                ],
                "was_cancelled": False,
                "lead_time": 30.5,
            }
            for j, researcher in enumerate(task["meta"]["researchers"])
        ]
        exported.append({"id": i, **task, "annotations": annotations})
    body = json.dumps(exported, ensure_ascii=False).encode("utf-8")
    result = ingest_bytes(
        con, body, "plan_annotated.json", fmt="label_studio", options=FormatOptions(researchers=RESEARCHERS)
    )
    assert result.status == "loaded", result.errors
    assert result.rows_loaded == sum(len(t["meta"]["researchers"]) for t in tasks) and not result.rows_quarantined
    kept = con.execute(
        "SELECT metadata FROM tasks WHERE rubric = 'label_studio' ORDER BY CAST(task_id AS INT)"
    ).fetchall()
    assert [json.loads(m)["data"]["task_id"] for (m,) in kept] == [t["data"]["task_id"] for t in tasks]
    roles = {r for (r,) in con.execute("SELECT DISTINCT role FROM ratings").fetchall()}
    assert roles == {"researcher"}


def test_the_csvs_name_every_label_and_neutralise_formulas(con):
    lines = ["task_id,rater_id,role,rubric,dimension,target,value,submitted_at"]
    for i in range(12):
        lines.append(
            f"t{i},r1,researcher,answer_comparison,usefulness_comparison,comparison,A better,2026-03-02T10:00:00"
        )
    for i in range(30):
        for rater in ('=HYPERLINK("http://x","y")', "c2"):
            lines.append(
                f'"t{i}","{rater.replace(chr(34), chr(34) * 2)}",contractor,answer_comparison,usefulness_comparison,'
                "comparison,A better,2026-03-02T10:00:00"
            )
    assert ingest_bytes(con, ("\n".join(lines) + "\n").encode(), "p.csv").status == "loaded"
    plan = propose(con, Filters(), 8, ("r1",))
    assigned = list(csv.reader(io.StringIO(exports.assignment_csv(plan.labels).decode("utf-8"))))
    assert assigned[0] == list(exports.ASSIGNMENT_COLUMNS) and len(assigned) == 1 + len(plan.labels)
    assert all(r[2] == "r1" for r in assigned[1:])
    rows = list(csv.DictReader(io.StringIO(exports.plan_csv(plan.labels).decode("utf-8"))))
    assert len(rows) == 8 and all(r["contractors"].startswith("'=HYPERLINK") for r in rows)
