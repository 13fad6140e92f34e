"""Simulated article-Likert annotator files (docs/formats.md section 5, rubric seeds/004).

Every annotator gets the same ten topics and returns `preference_json_N_completed.json`, where N becomes
the rater id `annotator_N`. Contractor cNN is annotator NN; researcher rNN is annotator 100+NN and marks
each topic `"role": "researcher"`. One annotator has not finished: their last topics still hold the
default 0 ("not annotated yet") and empty best-prediction slots.

The document has no dates, so each file's return date is kept beside it (truth.json `files[].submitted_at`)
and given to the load (analytics/cli/first_run.py): the annotators return their files over the project's weeks.
"""

from __future__ import annotations

import random

from demo import schedule
from demo.behaviours import Rater, impression, perceive, to_level
from demo.content.articles import TOPICS

PREDICTIONS = ("first", "second", "third")
# Which contractors annotate articles: one of each behaviour that shows on a Likert scale, plus typical ones.
ANNOTATOR_BEHAVIOURS = ("careful", "lenient", "severe", "first_position", "fast_careless", "typical", "typical")
N_RESEARCHER_ANNOTATORS = 2
UNFINISHED_TOPICS = 2  # topics the unfinished annotator has not scored yet


def annotator_number(rater: Rater) -> int:
    """The N of the annotator's file name."""
    n = int(rater.rater_id[1:])
    return n if rater.role == "contractor" else 100 + n


def annotators(raters: list[Rater], rng: random.Random) -> list[Rater]:
    """The contractors and researchers who annotate the article topics."""
    chosen: list[Rater] = []
    for behaviour in ANNOTATOR_BEHAVIOURS:
        pool = [r for r in raters if r.behaviour == behaviour and r.joined_week == 0 and r not in chosen]
        chosen.append(rng.choice(pool))
    chosen += [r for r in raters if r.role == "researcher"][:N_RESEARCHER_ANNOTATORS]
    return chosen


def _topic(rater: Rater, index: int, unfinished: bool, rng: random.Random) -> dict:
    """One topic as the annotator returns it: scores and best predictions filled in (or 0 and empty)."""
    t = TOPICS[index]
    rec: dict = {"role": "researcher"} if rater.role == "researcher" else {}
    rec.update(topic=t.topic, reference=t.reference)
    rec.update({f"{p}_prediction": text for p, text in zip(PREDICTIONS, t.predictions, strict=True)})
    if unfinished:
        rec.update(best_prediction_reference="", best_prediction_topic="")
        rec.update({f"{p}_prediction_likert": 0 for p in PREDICTIONS})
        return rec
    shared = impression(rater, 0, rng)
    seen = [
        perceive(rater, q - 1, 0, rng, shared=shared) + (rater.first_bias if i == 0 else 0.0)
        for i, q in enumerate(t.quality)
    ]
    ranked = sorted(range(3), key=lambda i: -seen[i])
    scores = [to_level(x, 5) + 1 for x in seen]
    rec["best_prediction_reference"] = f"{PREDICTIONS[ranked[0]]}_prediction"
    # Both best predictions are among the highest scored (al_best_is_highest); the topic judgement sometimes
    # picks another of a tie, so the two are not always equal (al_reference_equals_topic, reported).
    tied = [i for i in ranked if scores[i] == scores[ranked[0]]]
    topic_pick = ranked[0] if len(tied) == 1 or rng.random() < 0.8 else rng.choice(tied[1:])
    rec["best_prediction_topic"] = f"{PREDICTIONS[topic_pick]}_prediction"
    rec.update({f"{p}_prediction_likert": s for p, s in zip(PREDICTIONS, scores, strict=True)})
    return rec


def returned(rng: random.Random, i: int, n_files: int) -> str:
    """When the i-th of n annotators returned their file: spread over the project's weeks (ISO, UTC)."""
    when, _ = schedule.submitted_at(i * schedule.WEEKS // n_files, rng)
    return when


def simulate(raters: list[Rater], seed: int) -> tuple[dict[str, list[dict]], dict]:
    """Annotator file name -> its topics, and the truth (true scores, who is which annotator, when each file was
    returned)."""
    rng = random.Random(f"{seed}-article-likert")
    chosen = annotators(raters, rng)
    unfinished = next(r for r in chosen if r.behaviour == "typical")
    files = {}
    for rater in chosen:
        n_topics = len(TOPICS)
        topics = [
            _topic(rater, i, rater is unfinished and i >= n_topics - UNFINISHED_TOPICS, rng) for i in range(n_topics)
        ]
        files[f"preference_json_{annotator_number(rater)}_completed.json"] = topics
    dates = random.Random(f"{seed}-article-likert-returned")
    truth = {
        "returned": {name: returned(dates, i, len(files)) for i, name in enumerate(files)},
        "topics": {t.topic: dict(zip(PREDICTIONS, t.quality, strict=True)) for t in TOPICS},
        "annotators": {f"annotator_{annotator_number(r)}": r.rater_id for r in chosen},
        "unfinished": f"annotator_{annotator_number(unfinished)}",
    }
    return files, truth
