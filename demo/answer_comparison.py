"""Simulated answer-comparison submissions (docs/formats.md section 2, rubric seeds/000).

Each task pairs two answers (answer_options.py) whose contents fix their true absolute ratings. Raters
read those through their behaviour, then follow the rubric: comparison ratings come from their own
absolute ratings (same = equal, 1 apart = better, 2+ = much better) except usefulness, which goes by how
convincingly one answer is better; an overall Good needs unsupported and core at least Neutral, Very good both
at least Good; on fact-checking tasks every absolute rating is Neutral. Only the raters whose planted behaviour
breaks a rule on purpose (behaviours.RULE_BREAKING) break one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from analytics.core.rubrics import ABSOLUTE_LEVELS, ANSWER_CATEGORIES, COMPARISON_LEVELS
from demo import answer_notes, schedule
from demo.answer_options import Option, build_pair
from demo.behaviours import Rater, impression, perceive, staff, to_level
from demo.content import phrases
from demo.content.answers import QUESTIONS, Question

FORMAT = "concord.answer_comparison/v1"
N_TASKS = 450
# Calibration tasks: the share of tasks researchers also label, the contractors each goes to, and the share of
# them labelled by two researchers (behaviours.staff).
CALIBRATION = (0.22, 18, 0.5)
P_ABSOLUTE = 0.55  # share of tasks with the Option tabs enabled; the rest are comparison only
P_FACT_CHECKING = 0.08  # share of fact-checking tasks (seeds/000: their absolute ratings are all Neutral)
FACT_CHECKING, NORMAL = "fact_checking", "normal"
COMPARISON_RULE = "ac_comparison_follows_absolute"  # analytics/consistency/answer_comparison.py
MEDIAN_SECONDS = {True: 480.0, False: 240.0}  # by whether absolute ratings are asked for
CATEGORIES = tuple(name for name, _ in ANSWER_CATEGORIES)
NEUTRAL, GOOD, VERY_GOOD = (ABSOLUTE_LEVELS.index(lvl) for lvl in ("Neutral", "Good", "Very good"))
QUICK_CATEGORIES = ("unsupported", "core", "usefulness")  # comparisons asked on comparison-only tasks
EQUAL_BELOW, MUCH_FROM = 0.45, 1.4  # usefulness difference thresholds for equal / much better


@dataclass
class Task:
    """One comparison task: a question, options A and B, and when and how it was labelled."""

    task_id: str
    question: Question
    options: dict[str, Option]
    week: int
    absolute: bool
    kind: str = NORMAL


def _screen(index: int, order: list[str]) -> int:
    """A comparison level index as clicked on screen, given the stored-id level index."""
    return index if order == ["A", "B"] else 4 - index


def _from_difference(d: float) -> int:
    """Comparison level index (0 = A much better .. 4 = B much better) from B minus A usefulness."""
    size = 0 if abs(d) < EQUAL_BELOW else (1 if abs(d) < MUCH_FROM else 2)
    return 2 + size if d > 0 else 2 - size


def true_comparison(task: Task) -> str:
    """The usefulness comparison a noiseless rater would give (stored ids)."""
    d = task.options["B"].true["usefulness"] - task.options["A"].true["usefulness"]
    return COMPARISON_LEVELS[_from_difference(d)]


def _perceive_option(rater: Rater, option: Option, week: int, shared: float, rng: random.Random) -> dict[str, float]:
    """The rater's continuous reading of every category of one option."""
    return {cat: perceive(rater, option.true[cat], week, rng, shared=shared) for cat in CATEGORIES}


def _absolute_levels(rater: Rater, seen: dict[str, float], kind: str, rng: random.Random) -> dict[str, int]:
    """Absolute levels from the readings, with the rubric's consistency rules applied."""
    if kind == FACT_CHECKING:
        return {cat: NEUTRAL for cat in seen}  # seeds/000: "always mark them as Neutral if you see them"
    levels = {cat: to_level(v, 5) for cat, v in seen.items()}
    for strong, whole in (("strong_core", "core"), ("strong_side", "side")):
        if levels[strong] > levels[whole] and rng.random() >= rater.p_violate:
            levels[strong] = levels[whole]  # strongly-supported information is part of all supported information
    basis = min(levels["unsupported"], levels["core"])
    if levels["usefulness"] == VERY_GOOD and basis < GOOD:
        levels["usefulness"] = GOOD  # seeds/000: a Very good overall needs unsupported and core at least Good
        seen["usefulness"] = min(seen["usefulness"], 3.4)
    if levels["usefulness"] == GOOD and basis < NEUTRAL:
        levels["usefulness"] = NEUTRAL  # seeds/000: a Good overall needs unsupported and core at least Neutral
        seen["usefulness"] = min(seen["usefulness"], 2.4)
    return levels


def _comparisons(
    rater: Rater,
    levels: dict[str, dict[str, int]],
    seen: dict[str, dict[str, float]],
    order: list[str],
    absolute: bool,
    week: int,
    rng: random.Random,
) -> dict[str, str]:
    """Comparison ratings as clicked on screen (A = the option shown first). With absolute ratings, every category
    but usefulness follows from them, except for raters who break that rule on purpose."""
    asked = CATEGORIES if absolute else QUICK_CATEGORIES
    follows = absolute and not rater.breaks(COMPARISON_RULE)
    equal = rng.random() < rater.p_equal
    out = {}
    for cat in asked:
        if follows and cat != "usefulness":
            stored = 2 + max(-2, min(2, levels["B"][cat] - levels["A"][cat]))
            out[cat] = COMPARISON_LEVELS[_screen(stored, order)]
            continue
        if equal:
            out[cat] = "Equally good"
            continue
        if rng.random() < rater.p_random_in(week):
            out[cat] = COMPARISON_LEVELS[rng.randrange(5)]
            continue
        if cat == "usefulness":
            d = seen["B"][cat] - seen["A"][cat]
            d_screen = (d if order == ["A", "B"] else -d) - rater.first_bias
            out[cat] = COMPARISON_LEVELS[_from_difference(d_screen * rater.contrast_in(week))]
            continue
        diff = levels["B"][cat] - levels["A"][cat]
        if rng.random() < rater.p_violate:
            diff += rng.choice((-1, 1))
        stored = 2 + max(-2, min(2, diff))
        out[cat] = COMPARISON_LEVELS[_screen(stored, order)]
    return out


def _flagged(rater: Rater, q: Question, week: int, rng: random.Random) -> str:
    """The flag a rater ticks, or '' when they go on to rate the answers."""
    if q.flag:
        p = 1.0 if rater.role == "researcher" else 0.9 * (1 - rater.p_random_in(week))
        return q.flag if rng.random() < p else ""
    return "does_not_make_sense" if rng.random() < 0.004 + 0.03 * rater.p_random_in(week) else ""


def submission(task: Task, rater: Rater, rng: random.Random) -> dict:
    """One rater's submission for a task, as the comparisons site exports it."""
    when, week = schedule.submitted_at(task.week, rng, lag_days=2 if rater.role == "researcher" else 0)
    order = ["A", "B"] if rater.role == "researcher" or rng.random() < 0.5 else ["B", "A"]
    flag = _flagged(rater, task.question, week, rng)
    rec: dict[str, Any] = {
        "format": FORMAT,
        "submission_id": f"{task.task_id}-{rater.rater_id}",
        "task_id": task.task_id,
        "rater_id": rater.rater_id,
        "role": rater.role,
        "submitted_at": when,
        "duration_s": schedule.duration(rater, MEDIAN_SECONDS[task.absolute] * (0.3 if flag else 1.0), rng),
        "task_kind": task.kind,
        "question": task.question.text,
        "question_flags": {
            "does_not_make_sense": flag == "does_not_make_sense",
            "should_not_be_answered": flag == "should_not_be_answered",
        },
        "display_order": order,
    }
    if flag:
        rec["options"] = {k: _option_text(o) for k, o in task.options.items()}
        rec["comparison"] = {}
        rec["comment"] = phrases.FLAG_COMMENTS[flag] if rng.random() < 0.5 else ""
        return rec
    shared = impression(rater, week, rng)
    seen = {k: _perceive_option(rater, o, week, shared, rng) for k, o in task.options.items()}
    levels = {k: _absolute_levels(rater, seen[k], task.kind, rng) for k in seen}
    rec["options"] = {k: _option_record(task, k, rater, levels[k], seen[k], week, rng) for k in task.options}
    rec["comparison"] = _comparisons(rater, levels, seen, order, task.absolute, week, rng)
    rec["comment"] = answer_notes.comment(rater, task.options, rng)
    if rater.role == "researcher":
        rec["explanations"] = answer_notes.explanations(task.options, rec["comparison"], rng)
    return rec


def _option_text(option: Option) -> dict:
    """The option as the task shows it: answer id, answer and sources."""
    return {"answer_id": option.answer_id, "answer": option.text, "sources": option.sources}


def _option_record(
    task: Task, key: str, rater: Rater, levels: dict[str, int], seen: dict[str, float], week: int, rng: random.Random
) -> dict:
    """The option tab: text and sources, plus the rater's annotations and absolute ratings when asked."""
    option = task.options[key]
    rec = _option_text(option)
    if not task.absolute:
        return rec
    careless = rater.p_random_in(week)
    rec["sources"] = [_rated_source(s, careless, rng) for s in option.sources]
    rec["claims"] = [_rated_claim(c, careless, rng) for c in option.claims]
    rec["ratings"] = {cat: ABSOLUTE_LEVELS[levels[cat]] for cat in CATEGORIES}
    better = seen["usefulness"] > 1.0 if rng.random() >= careless else rng.random() < 0.5
    rec["better_than_nothing"] = "Better than nothing" if better else "Worse than nothing"
    rec["citation_errors"] = sum(c["support"] == "Citation error" for c in rec["claims"])
    writes = 0.95 if rater.role == "researcher" else (0.5 if careless < 0.3 else 0.03)
    strengths, weaknesses = answer_notes.critique(option, rng) if rng.random() < writes else ("", "")
    rec["strengths"], rec["weaknesses"] = strengths, weaknesses
    return rec


def _rated_source(src: dict, careless: float, rng: random.Random) -> dict:
    """A source with the rater's trustworthiness label (usually the true one)."""
    if rng.random() < 0.04 + careless * 0.6:
        return {**src, "trustworthiness": rng.choice(("Trustworthy", "Neutral", "Suspicious"))}
    return src


def _rated_claim(claim: dict, careless: float, rng: random.Random) -> dict:
    """A claim with the rater's support label (usually the true one)."""
    if claim["support"] == "Citation error":
        return claim
    if rng.random() < 0.06 + careless * 0.6:
        return {**claim, "support": rng.choice(("Strong support", "Weak support", "No support"))}
    return claim


def make_tasks(rng: random.Random, n_tasks: int = N_TASKS) -> list[Task]:
    """The comparison tasks: a question and two answers of related quality, spread over the weeks."""
    normal = [q for q in QUESTIONS if not q.flag]
    flagged = [q for q in QUESTIONS if q.flag]
    tasks = []
    for t in range(n_tasks):
        q = rng.choice(flagged) if rng.random() < 0.015 else rng.choice(normal)
        tid = f"ac-{t + 1:05d}"
        opts = build_pair(q, f"ans-{t + 1:05d}", rng)
        absolute = rng.random() < P_ABSOLUTE
        kind = FACT_CHECKING if not q.flag and rng.random() < P_FACT_CHECKING else NORMAL
        tasks.append(Task(tid, q, opts, week=t * schedule.WEEKS // n_tasks, absolute=absolute, kind=kind))
    return tasks


def simulate(raters: list[Rater], seed: int, n_tasks: int = N_TASKS) -> tuple[list[dict], dict]:
    """All submissions (contractors and researchers) and the latent truth per task; every contractor works here."""
    rng = random.Random(f"{seed}-answer-comparison")
    contractors = [r for r in raters if r.role == "contractor"]
    researchers = [r for r in raters if r.role == "researcher"]
    records: list[dict] = []
    truth: dict = {}
    for task in make_tasks(rng, n_tasks):
        chosen = staff(rng, contractors, researchers, task.week, CALIBRATION, p_three=0.55)
        records.extend(submission(task, r, rng) for r in chosen)
        truth[task.task_id] = {
            "A": round(task.options["A"].true["usefulness"], 2),
            "B": round(task.options["B"].true["usefulness"], 2),
            "usefulness_comparison": true_comparison(task),
        }
    records.sort(key=lambda r: (r["submitted_at"], r["submission_id"]))
    return export_once(records), truth


def export_once(records: list[dict]) -> list[dict]:
    """Answer text and sources only with the first submission of each task in the file (keeps the demo small).

    Later submissions keep the answer id and, where the rater labelled sources, just their labels; the
    loader takes a task's text from its first record.
    """
    seen: set[str] = set()
    for rec in records:
        if rec["task_id"] not in seen:
            seen.add(rec["task_id"])
            continue
        for opt in rec["options"].values():
            opt.pop("answer", None)
            labels = [{"n": s["n"], "trustworthiness": s["trustworthiness"]} for s in opt.pop("sources", [])]
            if "ratings" in opt:
                opt["sources"] = labels
    return records
