"""The command line's JSON and text of a plan (DESIGN.md: `plan --budget N --json`)."""

from __future__ import annotations

import pandas as pd

from analytics.agreement.contract import records
from analytics.core.formatting import plus_minus
from analytics.plan.needs import USABLE_TASKS
from analytics.plan.propose import Plan

PLAN_KEYS = ("task_id", "rubric", "researcher", "reason", "contractors", "expected_gain", "priority", "second_label")
ROW_KEYS = ("rater_id", "rubric", "dimension", "n_tasks", "half_width", "exact_agreement", "active", "usable")


def payload(plan: Plan) -> dict:
    """{"plan": [...], "before": [...], "after_expected": [...]} plus the budget, researchers and candidates."""
    labels = plan.labels.assign(contractors=pd.Series([list(c) for c in plan.labels["contractors"]], dtype=object))
    return {
        "plan": records(labels[list(PLAN_KEYS)]),
        "before": records(plan.before[list(ROW_KEYS)]),
        "after_expected": records(plan.after[list(ROW_KEYS)]),
        "budget": plan.budget,
        "researchers": list(plan.researchers),
        "candidates": plan.n_candidates,
    }


def text(p: dict) -> str:
    """The plan for people: the labels with their reasons, then each contractor's interval now and expected."""
    lines = [f"{len(p['plan'])} of {p['budget']} labels proposed from {p['candidates']:,} candidate tasks."]
    for r in p["plan"]:
        who = f" -> {r['researcher']}" if r["researcher"] else ""
        lines.append(f"{r['priority']:>4}. {r['task_id']} ({r['rubric']}){who}: {r['reason']}")
    lines.append("")
    lines.append(
        f"Contractors' exact agreement with researchers (primary dimension): shared tasks and interval half width; usable from {USABLE_TASKS} tasks."
    )
    for before, after in zip(p["before"], p["after_expected"], strict=True):
        active = "" if before["active"] else " (inactive)"
        lines.append(
            f"  {before['rater_id']} ({before['rubric']}){active}: {before['n_tasks']} tasks {plus_minus(before['half_width'], missing='no interval')}"
            f" -> {after['n_tasks']} tasks {plus_minus(after['half_width'], missing='no interval')}"
        )
    return "\n".join(lines)
