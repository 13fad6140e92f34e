"""Simulated instruction-following submissions (docs/formats.md section 3, rubric seeds/002).

Each task shows one instruction with three or four outputs in a shuffled order (o1 is shown first). Raters
read each output's true 1-7 quality through their behaviour, label it yes/no (hallucination only for
instructions they marked closed domain, the constraint label only when they marked a constraint) and rank the
outputs in tie groups that follow from their own ratings; only raters who break the ranking rule on purpose
(behaviours.RULE_BREAKING) rank against it.
"""

from __future__ import annotations

import random
from typing import Any

from analytics.core.rubrics import INSTRUCTION_LABELS, OUTPUT_LABELS
from demo import schedule
from demo.behaviours import TEAM_SIZE, Rater, impression, perceive, staff, team, to_level
from demo.content import phrases
from demo.content.instructions import GENERIC_OUTPUTS, INSTRUCTIONS, Instruction, Output
from demo.writers import text_once

FORMAT = "concord.instruction_following/v1"
PROJECT = "instruction_following"
N_TASKS = 120
# Share of tasks researchers label, contractors on each (the whole team: a calibration batch), chance of two
# researchers (behaviours.staff).
CALIBRATION = (0.4, TEAM_SIZE, 0.3)
SCALE = 1.5  # a 1-7 scale spans 1.5 times the levels of a five-point one
TAGS = (
    "Generation",
    "Open QA",
    "Brainstorming",
    "Chat",
    "Rewrite",
    "Summarization",
    "Classification",
    "Closed QA",
    "Extract",
    "Other",
)
LABEL_NAMES = tuple(name for name, _, _ in OUTPUT_LABELS)
RANKING_RULE = "if_ranking_follows_ratings"  # analytics/consistency/instruction_following.py
# An output label that applies only where the rater marked the instruction with this label (seeds/002).
APPLIES_IF = {"hallucination": "closed_domain", "follows_constraint": "explicit_constraint"}
# Labels that take judgment, where careful raters disagree too; the content labels are rarely in doubt.
JUDGMENT_LABELS = {
    "fails_to_follow",
    "inappropriate",
    "hallucination",
    "follows_constraint",
    "harmful_advice",
    "opinion",
    "moral_judgment",
}


def _true_label(out: Output, name: str, marked: dict) -> str:
    """The label a careful rater gives (seeds/002: hallucination only closed domain, constraint only if any), by
    the rater's own labels of the instruction."""
    if name in APPLIES_IF and not marked.get(APPLIES_IF[name]):
        return "Not applicable"
    if name == "follows_constraint":
        return "No" if out.breaks_constraint else "Yes"
    return "Yes" if name in out.yes else "No"


def _labels(out: Output, rater: Rater, marked: dict, week: int, rng: random.Random) -> dict[str, str]:
    """The rater's yes/no labels for one output; judgment labels are the ones raters disagree on."""
    careless = 0.5 * rater.p_random_in(week)
    labels = {}
    for name in LABEL_NAMES:
        value = _true_label(out, name, marked)
        p_flip = (0.05 if name in JUDGMENT_LABELS else 0.002) + careless
        if value != "Not applicable" and rng.random() < p_flip:
            value = "Yes" if value == "No" else "No"
        labels[name] = value
    return labels


def _instruction_labels(instr: Instruction, rater: Rater, week: int, rng: random.Random) -> dict:
    """The rater's labels of the instruction itself (tag, closed domain, asks for ...)."""
    p_flip = 0.03 + 0.4 * rater.p_random_in(week)
    truth = {
        "pii": False,
        "closed_domain": instr.closed_domain,
        "intent_unclear": False,
        "explicit_constraint": instr.explicit_constraint,
        **{name: name in instr.asks for name in INSTRUCTION_LABELS if name.startswith("asks_")},
    }
    labels = {name: (not v) if rng.random() < p_flip else v for name, v in truth.items()}
    tag = instr.tag if rng.random() >= p_flip * 2 else rng.choice(TAGS)
    return {"pii": labels.pop("pii"), "tag": tag, **labels}


def _ranking(seen: dict[str, float], ratings: dict[str, int], rater: Rater, rng: random.Random) -> list[list[str]]:
    """Tie groups best first: outputs with the same rating tie (seeds/002: close outputs may tie)."""
    if rng.random() < rater.p_equal:
        return [list(seen)]
    order = sorted(seen, key=lambda oid: (-ratings[oid], -seen[oid]))
    groups: list[list[str]] = []
    for oid in order:
        if groups and ratings[groups[-1][0]] == ratings[oid]:
            groups[-1].append(oid)
        else:
            groups.append([oid])
    if len(groups) > 1 and rater.breaks(RANKING_RULE) and rng.random() < rater.p_violate:
        i = rng.randrange(len(groups) - 1)
        groups[i], groups[i + 1] = groups[i + 1], groups[i]
    return groups


def _comment(instr: Instruction, outputs: list[tuple[str, Output]], groups: list[list[str]], rng: random.Random) -> str:
    """A comment pointing at a specific output's problem, or at a tie."""
    notes = []
    for oid, out in outputs:
        if "hallucination" in out.yes and instr.closed_domain:
            notes.append(phrases.IF_COMMENTS["hallucination"].format(oid=oid))
        elif out.breaks_constraint and instr.explicit_constraint and out not in GENERIC_OUTPUTS:
            notes.append(phrases.IF_COMMENTS["constraint"].format(oid=oid))
        elif "harmful_advice" in out.yes:
            notes.append(phrases.IF_COMMENTS["harmful"].format(oid=oid))
        elif out in GENERIC_OUTPUTS[:2]:
            notes.append(phrases.IF_COMMENTS["refusal"].format(oid=oid))
    ties = [g for g in groups if len(g) > 1]
    if ties:
        notes.append(phrases.IF_COMMENTS["tie"].format(a=ties[0][0], b=ties[0][1]))
    return rng.choice(notes) if notes else ""


def submission(
    task_id: str, instr: Instruction, outputs: list[tuple[str, Output]], week0: int, rater: Rater, rng: random.Random
) -> dict:
    """One rater's submission for an instruction and its outputs."""
    when, week = schedule.submitted_at(week0, rng, lag_days=2 if rater.role == "researcher" else 0)
    rec: dict[str, Any] = {
        "format": FORMAT,
        "submission_id": f"{task_id}-{rater.rater_id}",
        "task_id": task_id,
        "rater_id": rater.rater_id,
        "role": rater.role,
        "submitted_at": when,
        "duration_s": schedule.duration(rater, 240 + 60 * len(outputs), rng),
        "status": "rated",
        "skip_reason": None,
        "instruction": instr.text,
    }
    if rng.random() < 0.02 + 0.05 * rater.p_random_in(week):
        rec.update(status="skipped", skip_reason=rng.choice(phrases.IF_SKIP_REASONS), instruction_labels=None)
        rec["duration_s"] = round(rec["duration_s"] * 0.2, 1)
        rec["outputs"] = [{"output_id": oid, "text": out.text} for oid, out in outputs]
        rec["ranking"] = []
        rec["comment"] = ""
        return rec
    shared = impression(rater, week, rng)
    seen = {}
    for pos, (oid, out) in enumerate(outputs):
        first = rater.first_bias * SCALE if pos == 0 else 0.0
        seen[oid] = perceive(rater, out.quality - 1, week, rng, scale=SCALE, shared=shared) + first
    ratings = {oid: to_level(x, 7) + 1 for oid, x in seen.items()}
    rec["instruction_labels"] = _instruction_labels(instr, rater, week, rng)
    rec["outputs"] = [
        {
            "output_id": oid,
            "text": out.text,
            "rating": ratings[oid],
            "labels": _labels(out, rater, rec["instruction_labels"], week, rng),
        }
        for oid, out in outputs
    ]
    rec["ranking"] = _ranking(seen, ratings, rater, rng)
    writes = rater.role == "researcher" or (rater.p_random < 0.3 and rng.random() < 0.3)
    rec["comment"] = _comment(instr, outputs, rec["ranking"], rng) if writes else ""
    return rec


def _outputs_for(instr: Instruction, rng: random.Random) -> list[tuple[str, Output]]:
    """Three or four outputs in a shuffled display order, named o1.. in that order."""
    pool = list(instr.outputs)
    chosen = rng.sample(pool, 4 if rng.random() < 0.5 else 3)
    if rng.random() < 0.25:
        chosen[-1] = rng.choice(GENERIC_OUTPUTS)
    rng.shuffle(chosen)
    return [(f"o{i + 1}", out) for i, out in enumerate(chosen)]


def simulate(raters: list[Rater], seed: int, n_tasks: int = N_TASKS) -> tuple[list[dict], dict]:
    """All submissions and each task's true output qualities."""
    rng = random.Random(f"{seed}-instruction-following")
    contractors = team(raters, PROJECT, seed)
    researchers = [r for r in raters if r.role == "researcher"]
    records: list[dict] = []
    truth: dict = {}
    for t in range(n_tasks):
        task_id = f"if-{t + 1:05d}"
        instr = rng.choice(INSTRUCTIONS)
        outputs = _outputs_for(instr, rng)
        week = t * schedule.WEEKS // n_tasks
        chosen = staff(rng, contractors, researchers, week, CALIBRATION, p_three=0.4)
        records.extend(submission(task_id, instr, outputs, week, r, rng) for r in chosen)
        truth[task_id] = {oid: out.quality for oid, out in outputs}
    records.sort(key=lambda r: (r["submitted_at"], r["submission_id"]))
    return text_once(records, "instruction", "outputs"), truth
