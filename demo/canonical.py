"""Canonical long CSV demo files (docs/formats.md section 1): a pilot batch and a batch with planted errors.

The pilot is a week of comparison-only answer-comparison tasks run before the project, exported from the
old spreadsheet one rating per row. The error batch is a late contractor batch with a handful of rows a
loader must quarantine (off-scale value, half score, unknown dimension, ...), for the quarantine browser.
"""

from __future__ import annotations

import random
from typing import Any

from analytics.core.rubrics import COMPARISON_FLIP
from demo import answer_comparison as ac
from demo import schedule
from demo.answer_options import build_pair
from demo.behaviours import Rater, pick
from demo.content.answers import QUESTIONS

N_PILOT_TASKS = 40
N_LATE_TASKS = 6


def _tasks(prefix: str, n: int, week: int, absolute: bool, rng: random.Random) -> list[ac.Task]:
    """Comparison tasks for a canonical batch, built like the main answer-comparison tasks."""
    questions = [q for q in QUESTIONS if not q.flag]
    tasks = []
    for t in range(n):
        q = rng.choice(questions)
        opts = build_pair(q, f"{prefix}-{t + 1:03d}", rng)
        tasks.append(ac.Task(f"{prefix}-{t + 1:03d}", q, opts, week=week, absolute=absolute))
    return tasks


def _rows(sub: dict, with_absolute: bool) -> list[dict]:
    """A submission as canonical rows: the usefulness comparison on stored ids, and optionally absolute usefulness."""
    if not sub["comparison"]:
        return []
    base = {k: sub[k] for k in ("task_id", "rater_id", "role", "submitted_at", "duration_s")}
    base["rubric"] = "answer_comparison"
    clicked = sub["comparison"]["usefulness"]
    stored = COMPARISON_FLIP.get(clicked, clicked) if sub["display_order"] == ["B", "A"] else clicked
    rows = [
        {
            **base,
            "dimension": "usefulness_comparison",
            "target": "comparison",
            "value": stored,
            "comment": sub.get("comment", ""),
        }
    ]
    if with_absolute:
        for oid, opt in sub["options"].items():
            if "ratings" in opt:
                rows.append(
                    {
                        **base,
                        "dimension": "usefulness",
                        "target": oid,
                        "value": opt["ratings"]["usefulness"],
                        "comment": "",
                    }
                )
    return rows


def pilot(raters: list[Rater], seed: int) -> tuple[list[dict], dict]:
    """The pilot week's usefulness comparisons, one row per rating, and their true comparisons."""
    rng = random.Random(f"{seed}-pilot")
    contractors = [r for r in raters if r.role == "contractor" and r.active_in(-1)]
    researchers = [r for r in raters if r.role == "researcher"]
    rows, truth = [], {}
    for task in _tasks("ac-pilot", N_PILOT_TASKS, schedule.PILOT_WEEK, False, rng):
        chosen = pick(rng, contractors, 3) + (pick(rng, researchers, 1) if rng.random() < 0.3 else [])
        for rater in chosen:
            rows += _rows(ac.submission(task, rater, rng), with_absolute=False)
        truth[task.task_id] = ac.true_comparison(task)
    rows.sort(key=lambda r: (r["submitted_at"], r["task_id"], r["rater_id"]))
    return rows, truth


def with_errors(raters: list[Rater], seed: int) -> tuple[list[dict], list[dict]]:
    """A late batch (last week) with planted bad rows; returns the rows and where each bad row is."""
    rng = random.Random(f"{seed}-late-batch")
    contractors = [r for r in raters if r.role == "contractor"]
    rows = []
    for task in _tasks("ac-late", N_LATE_TASKS, 7, True, rng):
        for rater in pick(rng, contractors, 2):
            rows += _rows(ac.submission(task, rater, rng), with_absolute=True)
    rows = [r for r in rows if r["dimension"] != "usefulness" or r["target"] == "A"]
    return _plant_errors(rows, rng)


def _plant_errors(rows: list[dict], rng: random.Random) -> tuple[list[dict], list[dict]]:
    """Spoil a few rows the way real exports go wrong; each spoiled row is recorded with its CSV line."""
    spoil = [
        ("value", "Excellent", "value off the scale"),
        ("dimension", "helpfulness", "unknown dimension on a known rubric"),
        ("submitted_at", "last Tuesday", "submitted_at is not a date"),
        ("duration_s", "-45", "negative duration"),
        ("role", "reviewer", "role is neither contractor nor researcher"),
        ("value", "", "missing value"),
        ("target", "C", "target not allowed for the dimension"),
    ]
    picks = rng.sample(range(len(rows)), len(spoil))
    planted: list[dict[str, Any]] = []
    for i, (fld, raw, what) in zip(picks, spoil, strict=True):
        rows[i] = {**rows[i], fld: raw}
        planted.append({"row": i, "field": fld, "value": raw, "problem": what})
    clean = [i for i in range(len(rows)) if i not in picks and rows[i]["dimension"] == "usefulness_comparison"]
    half = {
        **rows[clean[0]],
        "rubric": "preference_ranking",
        "task_id": "pr-late-001",
        "dimension": "accuracy",
        "target": "55120",
        "value": "3.5",
        "comment": "Between a 3 and a 4",
    }
    rows.append(half)
    planted.append({"row": len(rows) - 1, "field": "value", "value": "3.5", "problem": "half score"})
    dup_src = clean[1]
    rows.append({**rows[dup_src], "comment": "resubmitted"})
    planted.append(
        {
            "row": len(rows) - 1,
            "field": "rater_id",
            "value": rows[dup_src]["rater_id"],
            "problem": "the same rater rated the same unit twice in one file",
        }
    )
    planted.append(
        {
            "row": dup_src,
            "field": "rater_id",
            "value": rows[dup_src]["rater_id"],
            "problem": "the same rater rated the same unit twice in one file",
        }
    )
    for p in planted:
        p["line"] = p.pop("row") + 2  # header is line 1
    return rows, sorted(planted, key=lambda p: p["line"])
