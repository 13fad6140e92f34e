"""How a rater effect is told to a contractor: whether it applies (the verdict, read from the effects table's one
flag, analytics/effects/shrink.py under analytics/alarms/budget.py), under which status, and the advice that goes with it.

A report tells a contractor of an effect exactly when the effects table flags them on it in the rubric: their
estimate beyond the rest of the team by the effect's margin (shrink.MARGIN), credibly within the review's
false-alarm budget.
Nothing else decides it, so a page, a report and its exports cannot disagree on whether an effect applies.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

SHOWN, NOT_SHOWN, TOO_FEW, NOT_MEASURED = "shown", "not shown", "too few", "not measured"
STATUS_ORDER = (SHOWN, NOT_SHOWN, TOO_FEW, NOT_MEASURED)
REPORT_EFFECTS = {  # effect as a report names it -> title, in the order a report lists them
    "position_bias": "Position bias",
    "leniency_or_severity": "Leniency or severity",
    "ties": "Ties",
    "central_tendency": "Central tendency",
    "halo": "Halo",
    "haste": "Haste",
    "drift": "Drift",
}
TABLE_EFFECTS = {  # report effect -> the effects table's effects that decide it
    "position_bias": ("position_bias",),
    "leniency_or_severity": ("leniency", "severity"),
    "ties": ("ties",),
    "central_tendency": ("central_tendency",),
    "halo": ("halo",),
    "haste": ("haste",),
    "drift": ("drift",),
}
ADVICE = {  # the effects table's effect -> what to do about it; "{tie}" is the scale's tie level (`advice`)
    "position_bias": "Read both answers in full before choosing, and ask yourself whether you would choose the same "
    "if they were shown the other way round.",
    "leniency": "Keep the upper levels for answers that fully earn them: compare the answer with the rubric's "
    "description of a level before choosing it.",
    "severity": "Give the upper levels when an answer meets the rubric's description of them: note what the answer "
    "does well before looking for faults.",
    "ties": "Choose {tie} only when neither option is better on anything the rubric names; when one is even "
    "slightly better, say which.",
    "haste": "Take the time to read the whole question, both answers and their sources before rating.",
    "drift": "Re-read the rubric and the researchers' explanations of your recent disagreements (listed below): "
    "your recent ratings agree with researchers less than your early ones.",
    "central_tendency": "Use the whole scale: when an answer clearly earns an end level (the best or the worst), give "
    "it rather than a level in the middle.",
    "halo": "Rate each dimension on its own: read the rubric's description of that dimension before choosing, "
    "instead of carrying over your overall impression of the answer.",
}
NO_TIE = "a tie"  # how advice names the tie level of a scale without a middle level


def tie_level(levels: list[str]) -> str:
    """How advice and evidence name a comparison scale's tie: its middle level in quotes ('"Equally good"'), or
    NO_TIE when the scale has an even number of levels."""
    return f'"{levels[len(levels) // 2]}"' if len(levels) % 2 else NO_TIE


def advice(effect: str, tie: str = NO_TIE) -> str:
    """The advice on an effects-table effect, every placeholder filled ("" for an effect without advice)."""
    return ADVICE.get(effect, "").format(tie=tie)


def verdict(table: pd.DataFrame, effect: str, rubric: str) -> str:
    """SHOWN when the effects table flags the contractor on the report effect in the rubric, else NOT_SHOWN
    (`table`: the contractor's rows of analytics.effects.estimate_effects)."""
    rows = table[table["rubric"] == rubric].to_dict("records") if len(table) else []
    return verdict_of_rows(rows, effect)


def verdict_of_rows(rows: Iterable[Mapping[Any, Any]], effect: str) -> str:
    """The verdict on the contractor's effects-table rows of one rubric, as records: SHOWN when one of the rows
    that decide the report effect (TABLE_EFFECTS) is flagged, else NOT_SHOWN."""
    table = TABLE_EFFECTS[effect]
    return SHOWN if any(bool(r["flagged"]) for r in rows if r["effect"] in table) else NOT_SHOWN
