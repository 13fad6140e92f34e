"""The command line's JSON and text of follow-ups (`python -m analytics followup --json`, docs/feedback.md)."""

from __future__ import annotations

import pandas as pd

from analytics.agreement.contract import records
from analytics.feedback import followup as fu


def payload(followups: pd.DataFrame) -> dict:
    """{"followups": [...]}: each follow-up with the contract's keys, then its team figures, windows and reason."""
    extra = ("team_before", "team_after", "team_contractors", "before_from", "after_to", "reason")
    rows = followups[[*fu.CONTRACT_KEYS, *extra]].copy()
    for c in ("before_from", "after_to"):
        rows[c] = rows[c].map(lambda d: d.isoformat() if hasattr(d, "isoformat") else None)
    return {"followups": records(rows)}


def text(p: dict) -> str:
    """Follow-ups for people: one line per event, rubric and measure."""
    if not p["followups"]:
        return "No feedback recorded: mark a report card as sent on the Feedback page or load a feedback log."
    lines = [
        f"Follow-ups: each contractor's change in the {fu.WINDOW_DAYS} days after feedback against the {fu.WINDOW_DAYS} "
        "days before, minus the team's change over the same days (95% interval, tasks)."
    ]
    for r in p["followups"]:
        lines.append(f"  {r['rater_id']}: {fu.describe(pd.Series(r))}")
    return "\n".join(lines)
