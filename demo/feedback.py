"""Issue 53, "did the feedback work?": the report cards six contractors got, as a feedback log (docs/formats.md
section 15), and the guideline change of the same week, as a marker the demo store gets (analytics/cli/first_run.py).

Who got feedback and how they rate before and after it is the rater model's (behaviours.py: FEEDBACK_WEEK,
GUIDELINE_WEEK); this module dates it and describes it for truth.json.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from demo import schedule, writers
from demo.behaviours import (
    FEEDBACK_WEEK,
    GUIDELINE_CONTRAST,
    GUIDELINE_NOISE_FACTOR,
    GUIDELINE_WEEK,
    Rater,
    feedback_recipients,
)

FILE = "feedback_log.csv"
FORMAT = "feedback_log"  # analytics.ingest.FORMATS
HEADER = ("rater_id", "sent_at", "rubric", "note")
RUBRIC, DIMENSION = "answer_comparison", "usefulness_comparison"
SENT_AT = (schedule.START + timedelta(weeks=FEEDBACK_WEEK, hours=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
NOTE = "Report card sent by email: usefulness comparisons"
WINDOW_DAYS = 28  # before the day of the feedback, and from the day after it
GUIDELINE_NOTE = (
    "Rubric v2 sent to contractors: worked examples, and when two answers are about the same or much better"
)


def guideline_marker() -> dict:
    """The guideline change of GUIDELINE_WEEK, for every rubric, as a marker (analytics/effects/markers.py)."""
    marked_on = (schedule.START + timedelta(weeks=GUIDELINE_WEEK)).date().isoformat()
    return {"marked_on": marked_on, "note": GUIDELINE_NOTE, "rubric": None}


def write(out: Path, raters: list[Rater]) -> tuple[Path, int]:
    """Write the feedback log, one row per contractor who got a report card; its path and row count."""
    improvers, others = feedback_recipients(raters)
    rows = [{"rater_id": rid, "sent_at": SENT_AT, "rubric": RUBRIC, "note": NOTE} for rid in sorted(improvers + others)]
    return writers.write_csv(out / FILE, HEADER, rows), len(rows)


def truth(raters: list[Rater]) -> dict:
    """truth.json's "feedback": when it was sent, to whom, who improved, and the guideline change beside it."""
    improvers, others = feedback_recipients(raters)
    return {
        "sent_at": SENT_AT,
        "rubric": RUBRIC,
        "dimension": DIMENSION,
        "improvers": improvers,
        "non_improvers": others,
        "window_days": WINDOW_DAYS,
        "guideline_change": guideline_marker(),
        "description": (
            f"Six typical contractors there from the start got a report card on {SENT_AT[:10]} (the feedback log). "
            "Before it they were noisier than the team and clicked at random more often (raters[].params: noise, "
            "p_random). From that week the improvers rate like careful contractors (noise_after, p_random_after); "
            "the non-improvers change only as the whole team does. The same week a clearer rubric reached every "
            f"contractor (guideline_change): each contractor's own noise is {GUIDELINE_NOISE_FACTOR:g} times what "
            f"it was, and they no longer read a difference between two answers {GUIDELINE_CONTRAST:g} times as "
            "large as it is (calling one 'much better' too readily); researchers do not change. So the team's "
            f"agreement with researchers on {DIMENSION} rises, and so does a non-improver's naive before/after: "
            "only against the team's own change does it show no improvement. Compare the "
            f"{WINDOW_DAYS} days before the day of the feedback with the {WINDOW_DAYS} days from the day after it."
        ),
    }
