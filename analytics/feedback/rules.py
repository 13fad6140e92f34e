"""The rubric rules a contractor broke (analytics/consistency), with their rate against the rest of the team's and a
few of the tasks where it happened."""

from __future__ import annotations

import pandas as pd

from analytics.consistency import rates as cons
from analytics.feedback.team import TeamFigures

RULE_COLUMNS = [*cons.RULE_COLUMNS, "rate", "rate_ci_low", "rate_ci_high", "team_rate", "flagged", "examples"]
RULE_EXAMPLES = 3  # violations quoted per rule


def broken_rules(contractor: str, team: TeamFigures) -> pd.DataFrame:
    """The rubric rules the contractor broke (flagged ones first), each with its words, the contractor's rate and
    the rest of the team's, and a few of the tasks where it happened."""
    rows = team.rules.raters[(team.rules.raters["rater_id"] == contractor) & (team.rules.raters["n_violations"] > 0)]
    if rows.empty:
        return pd.DataFrame(columns=RULE_COLUMNS)
    words = team.rules.rules.set_index("rule_id")
    seen = team.rules.violations[team.rules.violations["rater_id"] == contractor]
    examples = {
        rule: "; ".join(f"task {t}: {d}" for t, d in zip(g["task_id"], g["detail"], strict=True))
        for rule, g in seen.groupby("rule_id")
        for g in [g.head(RULE_EXAMPLES)]
    }
    out = rows.assign(
        rubric=rows["rule_id"].map(words["rubric"]),
        description=rows["rule_id"].map(words["description"]),
        examples=rows["rule_id"].map(examples).fillna(""),
    )
    return out.sort_values(["flagged", "rate"], ascending=False)[RULE_COLUMNS].reset_index(drop=True)
