"""The `effects --json` object and its terminal text (the command line's contract for rater effects)."""

from __future__ import annotations

import pandas as pd

from analytics.agreement.contract import records
from analytics.core.formatting import fmt_ci
from analytics.effects.rows import EFFECT_COLUMNS

# The keys `python -m analytics effects --json` prints for each effect, in this order (issue #15's contract): the
# effects table's first columns; the rest of the table follows them.
CONTRACT_KEYS = EFFECT_COLUMNS[:10]


def payload(effects: pd.DataFrame) -> dict:
    """{"effects": [...]}: every row of the effects table, the contract's keys first."""
    cols = [*CONTRACT_KEYS, *(c for c in effects.columns if c not in CONTRACT_KEYS)]
    return {"effects": records(effects.reindex(columns=cols))}


def text(found: dict) -> str:
    """The flagged effects, one line each, for a terminal."""
    rows = found["effects"]
    flagged = [r for r in rows if r["flagged"]]
    lines = [
        f"{len(rows)} effect estimates; {len(flagged)} flagged (interval wholly beyond the team by the effect's margin):"
    ]
    for r in flagged:
        where = f"{r['rubric']}/{r['dimension']}" if r["dimension"] else r["rubric"]
        lines.append(
            f"  {r['rater_id']} {r['effect']} on {where}: own estimate {fmt_ci(r['raw'], None, None)} over "
            f"{r['n_tasks']} tasks, shrunk toward the team "
            f"{fmt_ci(r['estimate'], r['estimate_ci_low'], r['estimate_ci_high'])}, team's "
            f"{fmt_ci(r['team_value'], None, None)}"
        )
    lines.append("--json lists every estimate.")
    return "\n".join(lines)
