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


def every_broken_rules(contractors: tuple[str, ...], team: TeamFigures) -> dict[str, pd.DataFrame]:
    """broken_rules of each of `contractors`, their rows and examples read from the team's tables at once and put
    in order by contractor first."""
    raters = team.rules.raters
    rows = raters[raters["rater_id"].isin(contractors) & (raters["n_violations"] > 0)]
    if rows.empty:
        return {c: pd.DataFrame(columns=RULE_COLUMNS) for c in contractors}
    words = team.rules.rules.set_index("rule_id")
    seen = team.rules.violations[team.rules.violations["rater_id"].isin(contractors)]
    examples = {
        key: "; ".join(f"task {t}: {d}" for t, d in zip(g["task_id"], g["detail"], strict=True))
        for key, g in seen.groupby(["rater_id", "rule_id"])
        for g in [g.head(RULE_EXAMPLES)]
    }
    out = rows.assign(
        rubric=rows["rule_id"].map(words["rubric"]),
        description=rows["rule_id"].map(words["description"]),
        examples=[examples.get(key, "") for key in zip(rows["rater_id"], rows["rule_id"], strict=True)],
    )
    out = out.sort_values(["rater_id", "flagged", "rate"], ascending=[True, False, False])
    by_rater = {str(r): g[RULE_COLUMNS].reset_index(drop=True) for r, g in out.groupby("rater_id", sort=False)}
    return {c: by_rater[c] if c in by_rater else pd.DataFrame(columns=RULE_COLUMNS) for c in contractors}
