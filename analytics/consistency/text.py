"""The `consistency` command's plain-text output."""

from __future__ import annotations

from analytics.core.formatting import fmt_ci


def consistency_text(payload: dict) -> str:
    """Rules with their violation counts, then the flagged contractors, as lines for a terminal."""
    lines = ["Rules (submissions checked, breaking the rule):"]
    for r in payload["rules"]:
        lines.append(f"  {r['rule_id']} [{r['rubric']}]: {r['n_violations']} of {r['n_checked']}  {r['description']}")
    flagged = [r for r in payload["raters"] if r["flagged"]]
    lines.append("Contractors flagged (rate credibly above the team's):" if flagged else "No contractor flagged.")
    for r in flagged:
        lines.append(
            f"  {r['rater_id']} on {r['rule_id']}: rate {fmt_ci(r['rate'], r['rate_ci_low'], r['rate_ci_high'])} "
            f"of {r['n_checked']} submissions"
        )
    lines.append(f"{len(payload['violations'])} violations (--json lists them).")
    return "\n".join(lines)
