"""`python -m analytics plan` (DESIGN.md's contract): its JSON keys, the budget counted in labels, the options as
filters, files read alone, the text for people, and exit 2 with one line on bad arguments."""

from __future__ import annotations

import json

import pytest

from tests.cli_helpers import run_cli

PLAN_KEYS = ["task_id", "rubric", "researcher", "reason", "contractors", "expected_gain", "priority", "second_label"]
ROW_KEYS = ["rater_id", "rubric", "dimension", "n_tasks", "half_width", "exact_agreement", "active", "usable"]


def test_the_json_has_the_contracts_keys(demo_store):
    out = run_cli("plan", "--db", str(demo_store), "--budget", "30", "--researchers", "r01,r02", "--json", check=True)
    p = json.loads(out.stdout)
    assert list(p)[:3] == ["plan", "before", "after_expected"]
    assert len(p["plan"]) == 30 and p["budget"] == 30 and p["researchers"] == ["r01", "r02"]
    assert all(list(r) == PLAN_KEYS for r in p["plan"])
    assert {r["researcher"] for r in p["plan"]} == {"r01", "r02"}
    assert all(isinstance(r["contractors"], list) and r["contractors"] for r in p["plan"])
    for rows in (p["before"], p["after_expected"]):
        assert all(list(r) == ROW_KEYS for r in rows)
    assert [(r["rater_id"], r["rubric"]) for r in p["before"]] == [
        (r["rater_id"], r["rubric"]) for r in p["after_expected"]
    ]
    assert [b for b, a in zip(p["before"], p["after_expected"], strict=True) if not a["n_tasks"] >= b["n_tasks"]] == []


def test_the_options_filter_the_plan(demo_store):
    args = ["plan", "--db", str(demo_store), "--budget", "15", "--json", "--rubric", "answer_comparison"]
    p = json.loads(run_cli(*args, "--rater", "c09", "--rater", "c31", "--from", "2026-03-01", check=True).stdout)
    assert p["plan"] and {r["rubric"] for r in p["plan"]} == {"answer_comparison"}
    assert all(set(r["contractors"]) <= {"c09", "c31"} for r in p["plan"])
    assert {r["rater_id"] for r in p["before"]} <= {"c09", "c31"}
    assert all(r["researcher"] is None for r in p["plan"])  # nobody named: anyone may label


def test_files_are_planned_alone_and_the_text_names_each_label(tmp_path):
    f = tmp_path / "ratings.csv"
    rows = ["task_id,rater_id,role,rubric,dimension,target,value"]
    rows += [f"t{i},r1,researcher,answer_comparison,usefulness_comparison,comparison,A better" for i in range(3)]
    rows += [f"t{i},c1,contractor,answer_comparison,usefulness_comparison,comparison,A better" for i in range(8)]
    f.write_text("\n".join(rows) + "\n")
    out = run_cli("plan", str(f), "--budget", "10", check=True).stdout
    assert out.startswith("5 of 10 labels proposed from 5 candidate tasks.")
    assert "t3 (answer_comparison): c1 has 3 of the 30 tasks" in out
    assert "c1 (answer_comparison): 3 tasks" in out and "-> 8 tasks" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--budget", "0"], "--budget: the budget is a number of labels from 1 to 10,000, not 0"),
        (["--budget", "5", "--from", "2026-13-01"], "--from '2026-13-01' is not a date"),
        (["--budget", "5", "--from", "2026-05-01", "--to", "2026-04-01"], "--from 2026-05-01 is after --to 2026-04-01"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(demo_store, args, message):
    out = run_cli("plan", "--db", str(demo_store), *args)
    assert out.returncode == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1
