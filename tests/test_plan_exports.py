"""The plan's three downloads (analytics/plan/exports.py): the Label Studio import in Label Studio's documented import
format (a JSON list of tasks, each with a `data` object of the values a labelling config names as $key and an optional
`meta` object; https://labelstud.io/guide/task_format), whose labels, once annotated and exported by Label Studio, come
home to the plan's tasks through the label_studio reader; the assignment CSV `task_id,rubric,researcher`; and the plan CSV, written by the
one CSV writer (formula-like ids neutralised)."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from collections.abc import Callable

from analytics import store
from analytics.core.filters import Filters
from analytics.ingest.base import FormatOptions
from analytics.ingest.load import ingest_bytes
from analytics.plan import exports, issued
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


def _annotated(tasks: list[dict], results: Callable[[dict], list[dict]]) -> bytes:
    """What Label Studio exports after importing `tasks` and each named researcher annotating them (`results` of a
    task): its own task ids, the data and meta kept, one annotation per researcher."""
    exported = []
    for i, task in enumerate(tasks, start=1):
        annotations = [
            {"id": 100 * i + j, "completed_by": who, "result": results(task), "was_cancelled": False, "lead_time": 30.5}
            for j, who in enumerate(task["meta"]["researchers"])
        ]
        exported.append({"id": i, **task, "annotations": annotations})
    return json.dumps(exported, ensure_ascii=False).encode("utf-8")


def _choice(dimension: str, level: str, to_name: str = "prompt") -> dict:
    """One Choices result."""
    return {"from_name": dimension, "to_name": to_name, "type": "choices", "value": {"choices": [level]}}


def test_label_studios_export_of_a_plan_comes_home_and_completes_it(demo_store, tmp_path):
    """The researchers' labels made in Label Studio on the plan's import load back onto the plan's own tasks and
    rubric (a comparison's one target; a per-answer dimension's target named by to_name), complete the issued plan,
    and leave its tasks out of the next plan."""
    path = tmp_path / "store.duckdb"
    shutil.copy(demo_store, path)
    con = store.open_store(path)
    try:
        filters = Filters(rubric="answer_comparison")
        plan = propose(con, filters, 20, RESEARCHERS)
        plan_id = issued.issue(con, plan.labels, "lead", filters, 20)
        tasks = exports.label_studio_tasks(con, plan.labels)
        body = _annotated(
            tasks,
            lambda t: [
                _choice("usefulness_comparison", "A better"),
                _choice("coherence", "Good", "item_A"),
                _choice("coherence", "Bad", "item_B"),
            ],
        )
        result = ingest_bytes(
            con, body, "plan_annotated.json", fmt="label_studio", options=FormatOptions(researchers=RESEARCHERS)
        )
        assert result.status == "loaded" and not result.rows_quarantined, result.errors
        labels = sum(len(t["meta"]["researchers"]) for t in tasks)
        assert result.rows_loaded == 3 * labels
        home = con.execute(
            """SELECT task_id, dimension, target, value FROM ratings
               WHERE rubric = 'answer_comparison' AND rater_id IN ('r01', 'r02') AND ingest_id = $i""",
            {"i": con.execute("SELECT max(ingest_id) FROM ingest_log").fetchall()[0][0]},
        ).fetchall()
        assert {t for t, *_ in home} == {t["data"]["task_id"] for t in tasks}
        assert {(d, g, v) for _, d, g, v in home} == {
            ("usefulness_comparison", "comparison", "A better"),
            ("coherence", "A", "Good"),
            ("coherence", "B", "Bad"),
        }
        kept = issued.plans(con).set_index("plan_id")
        assert kept.loc[plan_id, "done"] == kept.loc[plan_id, "labels"] == 20
        assert kept.loc[plan_id, "status"] == "complete"
        issued.withdraw(con, plan_id, "lead")
        again = propose(con, filters, 20, RESEARCHERS)
        assert not set(again.labels["task_id"]) & {t["data"]["task_id"] for t in tasks}
    finally:
        con.close()


def test_a_plan_tasks_result_it_cannot_place_is_quarantined_with_its_reason(demo, con):
    plan = propose(demo, Filters(rubric="answer_comparison"), 2, RESEARCHERS)
    tasks = exports.label_studio_tasks(demo, plan.labels)
    body = _annotated(tasks, lambda t: [_choice("coherence", "Good"), _choice("no_such_dimension", "Good")])
    result = ingest_bytes(con, body, "plan.json", fmt="label_studio", options=FormatOptions(researchers=RESEARCHERS))
    assert result.rows_loaded == 0 and result.rows_quarantined == 2 * len(tasks)
    assert any("coherence is rated per item: its to_name must name one (item_A, item_B)" in e for e in result.errors)
    assert any("rubric answer_comparison has no dimension no_such_dimension" in e for e in result.errors)


def test_any_other_label_studio_task_stays_in_the_label_studio_rubric(con):
    """A task whose data names no catalogued rubric is read as before: Label Studio's id, the label_studio rubric."""
    task = {"id": 7, "data": {"text": "hello", "task_id": "t1", "rubric": "not_a_rubric"}}
    body = _annotated([{**task, "meta": {"researchers": ["r01"]}}], lambda t: [_choice("sentiment", "Positive")])
    result = ingest_bytes(con, body, "ls.json", fmt="label_studio", options=FormatOptions(researchers=RESEARCHERS))
    assert result.status == "loaded" and result.rows_loaded == 1, result.errors
    assert con.execute("SELECT task_id, rubric, target FROM ratings").fetchall() == [("7", "label_studio", "")]


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
