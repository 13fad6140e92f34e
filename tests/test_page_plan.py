"""AppTest of the Plan page (issue 52): the plan the command prints, each contractor's interval now and expected,
the three downloads (the plan CSV, the Label Studio import, the assignments), issuing and withdrawing a plan with its
completion, and the Overview's link while some contractor lacks a usable interval."""

from __future__ import annotations

import csv
import io
import json

import pytest

from analytics.core.filters import Filters
from analytics.plan import exports
from analytics.plan.propose import propose
from tests.cli_helpers import run_cli
from tests.conftest import app_test, click_downloads

PAGE = "app_pages/plan.py"
RESEARCHERS = ("r01", "r02", "r03", "r04")
BUDGET = 50


def test_the_page_shows_the_commands_plan_with_its_three_downloads(
    shared_app_store, demo_store, download_buttons, served_files
):
    at = app_test(PAGE)
    assert not at.exception, at.exception
    assert at.multiselect(key="plan_researchers").value == list(RESEARCHERS)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Labels proposed"] == str(BUDGET)
    assert metrics["Without a usable interval"] == "5"
    (chart,) = at.get("arrow_vega_lite_chart") + at.get("vega_lite_chart")
    assert "expected after the plan" in chart.proto.spec
    click_downloads(at, download_buttons)
    # The page's plan is the command's, label for label.
    cli = json.loads(
        run_cli(
            "plan",
            "--db",
            str(demo_store),
            "--budget",
            str(BUDGET),
            "--researchers",
            ",".join(RESEARCHERS),
            "--json",
            check=True,
        ).stdout
    )
    plan_csv = list(csv.DictReader(io.StringIO(served_files["labelling_plan.csv"].decode("utf-8"))))
    assert [(r["task_id"], r["researcher"], r["reason"]) for r in plan_csv] == [
        (r["task_id"], r["researcher"], r["reason"]) for r in cli["plan"]
    ]
    assert [r["contractors"] for r in plan_csv] == ["; ".join(r["contractors"]) for r in cli["plan"]]
    assigned = list(csv.reader(io.StringIO(served_files["labelling_plan_assignments.csv"].decode("utf-8"))))
    assert assigned[0] == ["task_id", "rubric", "researcher"]
    assert [tuple(r) for r in assigned[1:]] == [(r["task_id"], r["rubric"], r["researcher"]) for r in cli["plan"]]
    tasks = json.loads(served_files["labelling_plan_label_studio.json"])
    assert [t["data"]["task_id"] for t in tasks] == list(dict.fromkeys(r["task_id"] for r in cli["plan"]))
    # The contractors' table has every contractor's interval now and expected, as the command gives them.
    table = next(d.value for d in at.dataframe if "half_width_after" in d.value.columns)
    before = {(r["rater_id"], r["rubric"]): r for r in cli["before"]}
    after = {(r["rater_id"], r["rubric"]): r for r in cli["after_expected"]}
    assert len(table) == len(before)
    for row in table.itertuples():
        key = (row.rater_id, row.rubric)
        assert row.n_tasks == before[key]["n_tasks"] and row.n_tasks_after == after[key]["n_tasks"]
        assert row.half_width == pytest.approx(before[key]["half_width"], nan_ok=True)
        assert row.half_width_after == pytest.approx(after[key]["half_width"], nan_ok=True)


def test_a_lead_issues_a_plan_sees_its_completion_and_withdraws_it(app_store):
    at = app_test(PAGE)
    at.number_input(key="plan_budget").set_value(12).run()
    proposed = [d.value for d in at.dataframe if "reason" in d.value.columns][0]
    at.text_input(key="plan_note").input("newcomers first").run()
    at.button(key="plan_issue").click().run()
    assert not at.exception, at.exception
    assert any("Plan 1 issued" in i.value for i in at.info)
    kept = next(d.value for d in at.dataframe if "completion" in d.value.columns)
    assert kept.iloc[0][["plan_id", "status", "labels", "done"]].tolist() == [1, "open", 12, 0]
    # The next plan leaves the issued tasks out.
    shown = [d.value for d in at.dataframe if "reason" in d.value.columns][0]
    assert not set(shown["task_id"]) & set(proposed["task_id"])
    at.selectbox(key="plan_withdraw").select(1)
    at.button(key="plan_withdraw_button").click().run()
    assert any("Plan 1 withdrawn" in i.value for i in at.info)
    kept = next(d.value for d in at.dataframe if "completion" in d.value.columns)
    assert kept.iloc[0]["status"] == "withdrawn"
    again = [d.value for d in at.dataframe if "reason" in d.value.columns][0]
    assert again["task_id"].tolist() == proposed["task_id"].tolist()  # the withdrawn plan's tasks come back
    assert kept.iloc[0][["issued_by", "note"]].tolist() == ["local user", "newcomers first"]


def test_the_overview_links_to_the_plan_while_a_contractor_lacks_a_usable_interval(shared_app_store):
    at = app_test()
    line = [m.value for m in at.markdown if "usable interval" in m.value]
    assert line and line[0].startswith("**5 active contractors lack a usable interval**")
    assert [p.proto.page for p in at.get("page_link")] == ["app_pages/plan.py"] or at.get("page_link")


def test_the_plan_and_its_exports_leave_no_labelled_task(demo):
    plan = propose(demo, Filters(), 200, RESEARCHERS)
    tasks = exports.label_studio_tasks(demo, plan.labels)
    labelled = {t for (t,) in demo.execute("SELECT DISTINCT task_id FROM ratings WHERE role = 'researcher'").fetchall()}
    assert tasks and not {t["data"]["task_id"] for t in tasks} & labelled
