"""Simulated preference-ranking submissions (docs/formats.md section 4, rubric seeds/003).

Each task shows a conversation and two responses with numeric ids. Raters first decide whether the task
must be rejected (cheat sheet) or can be rated, then rate each response 1-5 on the critical and
non-critical dimensions, place it in a rank bucket that follows from those ratings (seeds/003: Best needs
every dimension High; Rank 2 needs the critical ones High and at most two non-critical Medium) and
justify the ranking by response id.
"""

from __future__ import annotations

import random
from typing import cast

from demo import schedule
from demo.behaviours import TEAM_SIZE, Rater, impression, perceive, staff, team, to_level
from demo.content import phrases
from demo.content.chats import CHATS, REJECTION_REASONS, SCORED_DIMENSIONS, SKIP_REASONS, Chat, Response
from demo.writers import text_once

FORMAT = "concord.preference_ranking/v1"
PROJECT = "preference_ranking"
N_TASKS = 120
# Share of tasks researchers label, contractors on each (the whole team: a calibration batch), chance of two
# researchers (behaviours.staff).
CALIBRATION = (0.4, TEAM_SIZE, 0.3)
P_REJECTABLE = 0.08  # share of tasks whose conversation should be rejected under the cheat sheet
CRITICAL = SCORED_DIMENSIONS[:5]
NON_CRITICAL = SCORED_DIMENSIONS[5:]
# Rules of the rubric (analytics/consistency/preference_ranking.py) a planted habit breaks on purpose.
RANK1_RULE = "pr_rank1_needs_all_high"
JUSTIFICATION_RULES = ("pr_justification_names_ids", "pr_justification_length", "pr_boilerplate_justification")


def rank_bucket(ratings: dict[str, int | None]) -> int:
    """The rank bucket the ratings call for (seeds/003 bucket table): High = 4-5, Medium = 3, Low = 1-2."""
    critical = [cast(int, ratings[d]) for d in CRITICAL]  # always rated: only citation_correctness may be None
    non_critical = [v for d in NON_CRITICAL if (v := ratings.get(d)) is not None]
    if all(v >= 4 for v in critical + non_critical):
        return 1
    if all(v >= 4 for v in critical) and all(v >= 3 for v in non_critical) and sum(v == 3 for v in non_critical) <= 2:
        return 2
    return 3


def tied(ranks: dict[str, int], rater: Rater) -> dict[str, int]:
    """Both responses in one bucket (the always-equal habit): Best when the better one is Best and the rater breaks
    the Best rule (behaviours.RULE_BREAKING), else the worse one's bucket, which breaks no rule of the table."""
    best, worst = min(ranks.values()), max(ranks.values())
    return dict.fromkeys(ranks, best if best == 1 and rater.breaks(RANK1_RULE) else worst)


def _ratings(resp: Response, first: bool, rater: Rater, week: int, shared: float, rng: random.Random) -> dict:
    """The rater's 1-5 ratings of one response (citation correctness only when it cites)."""
    bonus = rater.first_bias if first else 0.0
    out: dict[str, int | None] = {
        dim: to_level(perceive(rater, score - 1, week, rng, shared=shared) + bonus, 5) + 1
        for dim, score in zip(SCORED_DIMENSIONS, resp.scores, strict=True)
    }
    out["citation_correctness"] = to_level(perceive(rater, 3, week, rng, shared=shared), 5) + 1 if resp.cites else None
    return out


def _action(chat: Chat, rater: Rater, week: int, rng: random.Random) -> tuple[str, str | None]:
    """rate, skip or reject, with the reason (seeds/003: if unsure, skip rather than reject)."""
    careless = rater.p_random_in(week)
    if chat.reject:
        if rng.random() < (0.95 if rater.role == "researcher" else 0.85 * (1 - careless)):
            wrong = rng.random() < 0.1 + careless
            return "reject", rng.choice(REJECTION_REASONS) if wrong else chat.reject
        return "rate", None
    if rng.random() < 0.02 + 0.05 * careless:
        return "skip", rng.choice(SKIP_REASONS)
    if not chat.facebook and rng.random() < 0.004 + 0.04 * careless:
        return "reject", rng.choice(REJECTION_REASONS)
    return "rate", None


def _justification(
    chat: Chat, shown: list[tuple[str, Response]], ranks: dict[str, int], rater: Rater, rng: random.Random
) -> str:
    """A justification naming the response ids (seeds/003), or, at their p_violate, a lazy one from raters who break
    the justification rules (one short sentence naming one id, reused across tasks)."""
    (id1, r1), (id2, r2) = shown
    best, other = (id1, id2) if ranks[id1] <= ranks[id2] else (id2, id1)
    if all(rater.breaks(rule) for rule in JUSTIFICATION_RULES) and rng.random() < rater.p_violate:
        return rng.choice(phrases.JUSTIFY_LAZY).format(best=best)
    resp = dict(shown)
    if ranks[id1] == ranks[id2]:
        text = phrases.JUSTIFY_TIE.format(
            best=best, other=other, strength=resp[best].strength, strength_other=resp[other].strength
        )
    else:
        text = phrases.JUSTIFY_BETTER.format(
            best=best, other=other, strength=resp[best].strength, weakness=resp[other].weakness
        )
    return text + (phrases.JUSTIFY_OBJECTIVE if chat.objective else phrases.JUSTIFY_SUBJECTIVE)


def submission(
    task_id: str, chat: Chat, shown: list[tuple[str, Response]], week0: int, rater: Rater, rng: random.Random
) -> dict:
    """One rater's submission for a conversation and its two responses."""
    when, week = schedule.submitted_at(week0, rng, lag_days=2 if rater.role == "researcher" else 0)
    action, reason = _action(chat, rater, week, rng)
    rec = {
        "format": FORMAT,
        "submission_id": f"{task_id}-{rater.rater_id}",
        "task_id": task_id,
        "rater_id": rater.rater_id,
        "role": rater.role,
        "submitted_at": when,
        "duration_s": schedule.duration(rater, 420 if action == "rate" else 90, rng),
        "conversation": [{"role": role, "text": text} for role, text in chat.turns],
        "prompt": chat.prompt,
        "facebook_post_task": chat.facebook,
        "action": action,
        "rejection_reason": reason if action == "reject" else None,
    }
    if action != "rate":
        if action == "skip":
            rec["skip_reason"] = reason
        rec["responses"] = [{"response_id": rid, "text": resp.text} for rid, resp in shown]
        rec["justification"] = (
            phrases.JUSTIFY_REJECT.format(reason=reason, quote=chat.prompt[:80]) if action == "reject" else ""
        )
        return rec
    shared = impression(rater, week, rng)
    ratings = {rid: _ratings(resp, i == 0, rater, week, shared, rng) for i, (rid, resp) in enumerate(shown)}
    ranks = {rid: rank_bucket(r) for rid, r in ratings.items()}
    if rng.random() < rater.p_equal:
        ranks = tied(ranks, rater)
    rec["responses"] = [
        {"response_id": rid, "text": resp.text, "rank": ranks[rid], "ratings": ratings[rid]} for rid, resp in shown
    ]
    flip = rng.random() < 0.1
    rec["ranking_type"] = "Objective" if chat.objective != flip else "Subjective"
    rec["justification"] = _justification(chat, shown, ranks, rater, rng)
    return rec


def simulate(raters: list[Rater], seed: int, n_tasks: int = N_TASKS) -> tuple[list[dict], dict]:
    """All submissions and each task's true rank bucket per response."""
    rng = random.Random(f"{seed}-preference-ranking")
    contractors = team(raters, PROJECT, seed)
    researchers = [r for r in raters if r.role == "researcher"]
    normal = [c for c in CHATS if not c.reject]
    rejectable = [c for c in CHATS if c.reject]
    ids = rng.sample(range(10000, 99999), 2 * n_tasks)
    records: list[dict] = []
    truth: dict = {}
    for t in range(n_tasks):
        task_id = f"pr-{t + 1:05d}"
        chat = rng.choice(rejectable) if rng.random() < P_REJECTABLE else rng.choice(normal)
        shown = list(zip((str(ids[2 * t]), str(ids[2 * t + 1])), rng.sample(chat.responses, 2), strict=True))
        week = t * schedule.WEEKS // n_tasks
        chosen = staff(rng, contractors, researchers, week, CALIBRATION, p_three=0.4)
        records.extend(submission(task_id, chat, shown, week, r, rng) for r in chosen)
        truth[task_id] = {
            "reject": chat.reject or None,
            "rank": {
                rid: rank_bucket(dict(zip(SCORED_DIMENSIONS, map(round, r.scores), strict=True))) for rid, r in shown
            },
        }
    records.sort(key=lambda r: (r["submitted_at"], r["submission_id"]))
    return text_once(records, "conversation", "responses"), truth
