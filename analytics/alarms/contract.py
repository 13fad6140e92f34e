"""The `alerts --json` object and its terminal text (the command line's contract for alarms, DESIGN.md)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analytics.agreement.contract import records
from analytics.alarms import budget
from analytics.alarms.review import ALERT_COLUMNS, KIND_TITLES, Review
from analytics.alarms.words import alarm_line

CONTRACT_KEYS = ALERT_COLUMNS[:9]  # the keys DESIGN.md names, first; the rest of the alarm follows
POWER_KEYS = ("kind", "effect_size", "unit", "n", "detection_rate")


def payload(found: Review) -> dict:
    """{"alerts": [...], "budget": {...}, "power": [...]}: every alarm the pages show under the same filters
    (acknowledged ones too, saying so), the budget and what each kind finds."""
    alerts = found.alerts.copy()
    for c in ("since", "acknowledged_at"):
        alerts[c] = pd.Series([_day(s) for s in alerts[c]], index=alerts.index, dtype=object)
    cols = [*CONTRACT_KEYS, *(c for c in alerts.columns if c not in CONTRACT_KEYS)]
    power = found.power[[*POWER_KEYS, *(c for c in found.power.columns if c not in POWER_KEYS)]]
    return {
        "alerts": records(alerts[cols]),
        "budget": {
            "false_alarms_per_review": budget.FALSE_ALARMS_PER_REVIEW,
            "discovery_rate": budget.DISCOVERY_RATE,
            "tests": found.n_tests,
            "threshold_p_value": found.threshold if found.threshold >= 0 else None,
        },
        "power": records(power),
    }


def _day(value: Any) -> str | None:
    """A timestamp as an ISO date (None when missing)."""
    return None if value is None or pd.isna(value) else str(pd.Timestamp(value).date())


def text(found: dict) -> str:
    """The alarms, one line each, and what silence means, for a terminal."""
    rows = found["alerts"]
    open_ = [r for r in rows if not r["acknowledged"]]
    b = found["budget"]
    lines = [
        f"{len(open_)} alarm(s), {len(rows) - len(open_)} acknowledged; {b['tests']} tests, at most "
        f"{b['false_alarms_per_review']:g} false alarms expected per review on a steady team:"
    ]
    for r in rows:
        acked = f" [acknowledged by {r['acknowledged_by']}]" if r["acknowledged"] else ""
        lines.append(f"  {r['rater_id']}{acked}: {alarm_line(pd.Series(r))}")
    lines.append("What silence means (80% detection at the team's n):")
    lines += [f"  {KIND_TITLES.get(p['kind'], p['kind'])}: {p['sentence']}" for p in found["power"]]
    return "\n".join(lines)
