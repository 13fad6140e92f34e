"""bench/bench_plan.py at a tiny size: its simulated project has the shape its docstring claims, the plan it measures
proposes only candidate tasks (contractors rated them, no researcher labelled them), and one seed yields the
figures the table prints (the benchmark itself, at 4,000 tasks and five seeds, is in bench/RESULTS.md)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import bench_plan as bp  # noqa: E402

from analytics.core.filters import Filters  # noqa: E402
from analytics.plan.propose import propose  # noqa: E402

TASKS = 300


def test_the_simulated_project_has_the_documented_shape() -> None:
    project = bp.simulate(TASKS, 3)
    rows = project.rows
    assert set(rows["rubric"]) == {bp.RUBRIC} and set(rows["dimension"]) == {bp.DIMENSION}
    assert set(rows["target"]) == {"comparison"} and set(rows["value"]) <= set(bp.levels())
    contractor = rows[rows["role"] == "contractor"]
    per_task = contractor.groupby("task_id")["rater_id"].nunique()
    assert len(per_task) == TASKS and per_task.between(2, 3).all()
    researcher = rows[rows["role"] == "researcher"]
    assert set(researcher["rater_id"]) <= set(bp.RESEARCHERS)
    assert researcher["task_id"].nunique() == round(TASKS * bp.RESEARCHER_SHARE)
    first = pd.to_datetime(contractor.groupby("rater_id")["submitted_at"].min())
    last = pd.to_datetime(contractor.groupby("rater_id")["submitted_at"].max())
    end = pd.Timestamp(project.end)
    new = [c.rater_id for c in project.contractors if c.kind == "new"]
    left = [c.rater_id for c in project.contractors if c.kind == "left"]
    assert (first[new] >= end - pd.Timedelta(days=14)).all()
    assert (last[left] < end - pd.Timedelta(days=28)).all()


def test_the_plan_proposes_only_unlabelled_candidate_tasks(tmp_path: Path) -> None:
    project = bp.simulate(TASKS, 3)
    rows = project.rows
    rated = set(rows.loc[rows["role"] == "contractor", "task_id"])
    labelled = set(rows.loc[rows["role"] == "researcher", "task_id"])
    con = bp.load(rows, tmp_path, "base")
    try:
        plan = propose(con, Filters(), 20, bp.RESEARCHERS)
        drawn, n_candidates = bp.random_labels(con, 20, 3)
    finally:
        con.close()
    assert n_candidates == len(rated - labelled) and len(plan.labels) == 20
    firsts = plan.labels[~plan.labels["second_label"]]
    assert set(plan.labels["task_id"]) <= rated - labelled and firsts["task_id"].is_unique
    seconds = plan.labels[plan.labels["second_label"]]
    for task, researcher in zip(seconds["task_id"], seconds["researcher"], strict=True):
        (first,) = firsts.loc[firsts["task_id"] == task, "researcher"]
        assert researcher != first  # a task's second label goes to the other researcher
    assert len(drawn) == 20 and {t for t, _ in drawn} <= rated - labelled and {r for _, r in drawn} == {"r1"}
    added = bp.added_labels(project, bp.plan_labels(plan))
    assert len(added) == 20 and (added["role"] == "researcher").all()
    assert (pd.to_datetime(added["submitted_at"]) > pd.Timestamp(project.end)).all()


def test_one_seed_gives_the_figures_the_table_prints(tmp_path: Path) -> None:
    result = bp.run_seed(3, TASKS, 20, tmp_path)
    assert result.labels == 20 and result.candidates == TASKS - round(TASKS * bp.RESEARCHER_SHARE)
    for m in (result.before, result.plan, result.random):
        assert 0 < m.widest <= bp.NO_INTERVAL and 0 <= m.unusable <= m.active == result.before.active
        assert len(m.short) == m.unusable
    assert result.plan.unusable <= result.before.unusable and result.random.unusable <= result.before.unusable
    assert set(result.margins) == {"narrower", "usable"} and math.isfinite(result.narrower)
    lines = bp.table([result]).splitlines()
    assert len(lines) == 3 and lines[2].startswith("| 3 | ")
    assert "margins:" in bp.summary([result])
