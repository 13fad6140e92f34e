"""The seeded demo-data simulator: realistic inputs in every format, with planted rater behaviours.

`write_demo(out_dir, seed)` writes an eight-week labelling project: answer comparisons, instruction
following, preference ranking and article Likert files (docs/formats.md sections 2-5), a small canonical
CSV, a batch with deliberately bad rows (the last of the ratings, for the quarantine browser), a feedback log
(section 15: report cards six contractors got on the Monday of week 4, half of whom improved) and truth.json:
which contractor has which planted behaviour, who got feedback and who improved, the guideline change of the same
week (a marker the loads add), and the latent qualities the ratings were drawn from. The same seed always gives
the same bytes.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

from analytics.consistency import catalogue
from analytics.core.rubrics import COMPARISON_FLIP
from analytics.ingest.base import CANONICAL_COLUMNS
from analytics.store import people
from demo import (
    answer_comparison,
    article_likert,
    canonical,
    directory,
    feedback,
    instruction_following,
    preference_ranking,
    schedule,
    writers,
)
from demo.behaviours import NEWCOMER_WEEK, PLANTED, RULE_BREAKING, Rater, roster

TRUTH_FILE = "truth.json"
ERRORS_FILE = "contractor_batch_with_errors.csv"
NOTES = (
    "Each JSON export carries a task's text (question, answers and sources; instruction and outputs; "
    "conversation and responses) with the first submission of that task in the file only.",
    "Contractors see answer-comparison options in a random display_order; researchers in stored order (A, B).",
    "Article annotator N is contractor cNN, or researcher rNN when N is 100 + NN (see aliases).",
    "Article Likert files carry no dates (seeds/004): each files[] entry of one has the submitted_at its load is "
    "given (the ingest's undated_at; analytics/cli/first_run.py does this at first start and `demo --load` too), "
    "so the annotators' submissions fall in the weeks they returned their files. Loaded without it, a file's "
    "topics get the load time, and the load's notes say which.",
    "Latent qualities are on the rating scale's own units: answer usefulness 0 (Very bad) .. 4 (Very good), "
    "instruction outputs 1-7, article predictions 1-5.",
    "Issue 53 (feedback): six typical contractors got a report card on 2026-03-30 (feedback_log.csv, loaded last); "
    "truth.json feedback names the improvers and the non-improvers. The same day a guideline change reached every "
    "contractor (guideline_markers, which first_run.add_demo_markers adds to the store): the whole team's agreement "
    "with researchers rises from then on, so a follow-up must compare each contractor with the team's own change.",
)
# The submission formats whose volume truth.json describes, with the module that staffs their tasks.
PROJECTS = {
    "answer_comparison": answer_comparison,
    "instruction_following": instruction_following,
    "preference_ranking": preference_ranking,
}
MIN_TASKS = 30  # analytics.agreement.MIN_TASKS: fewer tasks shared with researchers is small n, not ranked
# Where each planted behaviour can be seen (docs/formats.md sections); all show in answer comparison.
SHOWS_IN = {
    "careful": ("answer_comparison", "instruction_following", "preference_ranking", "article_likert"),
    "lenient": ("answer_comparison", "instruction_following", "preference_ranking", "article_likert"),
    "severe": ("answer_comparison", "instruction_following", "preference_ranking", "article_likert"),
    "always_equal": ("answer_comparison", "instruction_following", "preference_ranking"),
    "first_position": ("answer_comparison", "instruction_following", "preference_ranking", "article_likert"),
    "fast_careless": ("answer_comparison", "instruction_following", "preference_ranking", "article_likert"),
    "drifting": ("answer_comparison", "instruction_following", "preference_ranking"),
}


def write_demo(out_dir: Path, seed: int = 7, scale: float = 1.0) -> dict:
    """Write every demo file into out_dir; returns {"files": paths in load order, "truth": truth.json path}.

    `scale` multiplies the number of tasks of the three submission formats (tests load a small demo).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _remove_previous(out)
    raters = roster(seed)
    planned, latent, extra = _simulate(raters, seed, scale)
    volume = {fmt: payload for _, fmt, payload in planned if fmt in PROJECTS}
    files = [(_write(out / name, fmt, payload), fmt, len(payload)) for name, fmt, payload in planned]
    # The directory loads first: every later file's annotator ids become their person's as it loads.
    people_file, n_people = directory.write(out, raters, extra["aliases"], schedule.START.date())
    files.insert(0, (people_file, people.FORMAT, n_people))
    log_file, n_sent = feedback.write(out, raters)
    files.append((log_file, feedback.FORMAT, n_sent))  # last, after the ratings it follows up
    returned = extra.pop("returned")
    truth = {
        "seed": seed,
        "scale": scale,
        "generator": "demo",
        "start": schedule.START.date().isoformat(),
        "weeks": schedule.WEEKS,
        "files": [{"file": p.name, "format": fmt, "records": n, **_dated(returned.get(p.name))} for p, fmt, n in files],
        "notes": NOTES,
        "behaviours": _behaviours(raters),
        "volume": _volume(raters, volume),
        "rule_breaking": _rule_breaking(raters, volume),
        "raters": {r.rater_id: {"role": r.role, "behaviour": r.behaviour, "params": r.params()} for r in raters},
        "feedback": feedback.truth(raters),
        "guideline_markers": [feedback.guideline_marker()],
        **extra,
        "latent": latent,
    }
    return {"files": [p for p, _, _ in files], "truth": writers.write_truth(out / TRUTH_FILE, truth)}


def _simulate(raters: list[Rater], seed: int, scale: float) -> tuple[list[tuple[str, str, list]], dict, dict]:
    """Every file to write as (name, format, records) in load order, the latent truth, and the rest of truth."""
    ac_records, ac_truth = answer_comparison.simulate(raters, seed, _scaled(answer_comparison.N_TASKS, scale))
    if_records, if_truth = instruction_following.simulate(raters, seed, _scaled(instruction_following.N_TASKS, scale))
    pr_records, pr_truth = preference_ranking.simulate(raters, seed, _scaled(preference_ranking.N_TASKS, scale))
    likert_files, likert_truth = article_likert.simulate(raters, seed)
    pilot_rows, pilot_truth = canonical.pilot(raters, seed)
    bad_rows, planted = canonical.with_errors(raters, seed)
    planned = [
        ("answer_comparison.jsonl", "answer_comparison", ac_records),
        ("instruction_following.jsonl", "instruction_following", if_records),
        ("preference_ranking.json", "preference_ranking", pr_records),
        *[(name, "article_likert", topics) for name, topics in likert_files.items()],
        ("pilot_usefulness.csv", "canonical", pilot_rows),
        (ERRORS_FILE, "canonical", bad_rows),
    ]
    latent = {
        "answer_comparison": ac_truth,
        "answer_comparison_pilot": pilot_truth,
        "instruction_following": if_truth,
        "preference_ranking": pr_truth,
        "article_likert": likert_truth["topics"],
        "article_likert_unfinished": likert_truth["unfinished"],
    }
    extra = {
        "returned": likert_truth["returned"],
        "aliases": likert_truth["annotators"],
        "researcher_agreement": _researcher_agreement(ac_records),
        "errors": {"file": ERRORS_FILE, "bad_rows": len(planted), "rows": planted},
    }
    return planned, latent, extra


def _dated(submitted_at: str | None) -> dict[str, str]:
    """The submitted_at a file's load is given, for files whose format carries no dates."""
    return {"submitted_at": submitted_at} if submitted_at else {}


def _write(path: Path, fmt: str, records: list) -> Path:
    """Write one file in the shape its format's exports have."""
    if path.suffix == ".jsonl":
        return writers.write_jsonl(path, records)
    if path.suffix == ".csv":
        return writers.write_csv(path, CANONICAL_COLUMNS, records)
    return writers.write_json_array(path, records, indent=4 if fmt == "article_likert" else None)


def _scaled(n_tasks: int, scale: float) -> int:
    """A format's task count at the given scale (at least ten tasks)."""
    return max(10, round(n_tasks * scale))


def _remove_previous(out: Path) -> None:
    """Delete the files an earlier run listed in its truth.json (another seed names article files differently)."""
    old = out / TRUTH_FILE
    if not old.is_file():
        return
    try:
        names = [f["file"] for f in json.loads(old.read_text(encoding="utf-8")).get("files", [])]
    except (ValueError, AttributeError, KeyError, TypeError):
        return
    for name in names:
        p = out / Path(name).name
        if p.is_file():
            p.unlink()


def _behaviours(raters: list[Rater]) -> dict:
    """Planted behaviour -> description, raters, formats where it shows, and each rater's parameters."""
    out = {}
    for behaviour, (_, description) in PLANTED.items():
        members = [r for r in raters if r.behaviour == behaviour]
        out[behaviour] = {
            "description": description,
            "raters": [r.rater_id for r in members],
            "shows_in": list(SHOWS_IN[behaviour]),
            "params": {r.rater_id: r.params() for r in members},
        }
    return out


def _rule_breaking(raters: list[Rater], records: dict[str, list[dict]]) -> dict[str, list[str]]:
    """Contractor -> the rubric rules they break on purpose (behaviours.RULE_BREAKING), on rubrics they work on."""
    worked = {fmt: {r["rater_id"] for r in recs} for fmt, recs in records.items()}
    out = {}
    for r in raters:
        broken = [
            rid
            for rid in RULE_BREAKING.get(r.behaviour, ())
            if r.rater_id in worked.get(catalogue.rule(rid).rubric, ())
        ]
        if broken:
            out[r.rater_id] = broken
    return out


def _volume(raters: list[Rater], records: dict[str, list[dict]]) -> dict:
    """Who works on which project, how tasks are staffed, and each contractor's tasks shared with researchers."""
    projects = {}
    for fmt, recs in records.items():
        by_task: dict[str, set[str]] = defaultdict(set)
        for r in recs:
            by_task[r["task_id"]].add(r["rater_id"])
        researched = [who for who in by_task.values() if any(rid.startswith("r") for rid in who)]
        shared = Counter(rid for who in researched for rid in who if not rid.startswith("r"))
        share, per_task, p_second = PROJECTS[fmt].CALIBRATION
        projects[fmt] = {
            "tasks": len(by_task),
            "calibration_tasks": len(researched),
            "calibration": {"share": share, "contractors_per_task": per_task, "p_second_researcher": p_second},
            "contractors": sorted({r["rater_id"] for r in recs if r["role"] == "contractor"}),
            "tasks_shared_with_researchers": dict(sorted(shared.items())),
            "ranked": sorted(rid for rid, n in shared.items() if n >= MIN_TASKS),
        }
    return {
        "description": (
            f"A contractor is ranked on a rubric when they share at least {MIN_TASKS} tasks with researchers on its "
            "primary dimension (analytics.agreement.MIN_TASKS; fewer is small n). Researchers label a share of "
            "each project's tasks (calibration tasks), and each calibration task goes to many contractors (on "
            "instruction following and preference ranking to the whole team), so every contractor who was there "
            "from the start is ranked on the projects they work on. tasks_shared_with_researchers counts "
            "submissions on tasks a researcher also labelled; a flagged, skipped or rejected submission has no "
            "primary rating, so the Agreement page's n_tasks can be a little lower."
        ),
        "min_tasks": MIN_TASKS,
        "newcomers": {
            "raters": [r.rater_id for r in raters if r.joined_week > 0],
            "joined_week": NEWCOMER_WEEK,
            "why": "join in the last weeks: too few tasks with researchers to be ranked (small n)",
        },
        "projects": projects,
        "article_likert": (
            "every annotator gets the same ten topics (seeds/004), fewer than min_tasks: no annotator is ranked "
            "on article Likert; each file is dated when the annotator returned it (files[].submitted_at)"
        ),
    }


def _researcher_agreement(records: list[dict]) -> dict:
    """How often two researchers on the same task agree on coarse usefulness (seeds/000 says about 80%)."""
    by_task: dict[str, list[str]] = defaultdict(list)
    for r in records:
        if r["role"] == "researcher" and r["comparison"].get("usefulness"):
            v = r["comparison"]["usefulness"]
            v = COMPARISON_FLIP[v] if r["display_order"] == ["B", "A"] else v
            by_task[r["task_id"]].append(v.replace("much ", ""))
    pairs = Counter(v[0] == v[1] for v in by_task.values() if len(v) == 2)
    n = pairs[True] + pairs[False]
    return {
        "dimension": "usefulness_comparison (coarse)",
        "pairs": n,
        "agreement": round(pairs[True] / n, 3) if n else None,
        "target": 0.8,
    }
