"""The Feedback page's follow-up chart: a contractor's figure in the window before each feedback and the window
after, beside the team's over the same days (analytics/feedback/followup.py)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from analytics.feedback import measures as ms
from ui.charts import layer, legend, tip

TEAM = "team (others, same days)"


def panels(followups: pd.DataFrame) -> list[tuple[str, str | None, pd.DataFrame]]:
    """The follow-ups in one chart each per measure and rubric: (measure, rubric, rows), agreement first (a
    follow-up of feedback about every rubric with no task yet has no rubric: it has no point to draw either)."""
    order = {m: i for i, m in enumerate(ms.MEASURES)}
    rubric = followups["rubric"].fillna("")
    keys = sorted(set(zip(followups["measure"], rubric, strict=True)), key=lambda k: (order.get(k[0], 99), k[1]))
    return [(m, r or None, followups[(followups["measure"] == m) & (rubric == r)]) for m, r in keys]


def _points(rows: pd.DataFrame, who: str) -> pd.DataFrame:
    """Each event's before and after figures of the contractor and of the team, placed mid-window."""
    sent = pd.to_datetime(rows["sent_at"]).dt.normalize()
    start, end = pd.to_datetime(rows["before_from"]), pd.to_datetime(rows["after_to"])
    base = pd.DataFrame({"event": "feedback of " + sent.dt.strftime("%Y-%m-%d"), "verdict": rows["verdict"]})
    sides = []
    for side, when in (("before", start + (sent - start) / 2), ("after", sent + (end - sent) / 2)):
        n = rows[f"n_tasks_{side}"]
        sides.append(base.assign(side=side, when=when, who=who, value=rows[side], tasks=n))
        sides.append(base.assign(side=side, when=when, who=TEAM, value=rows[f"team_{side}"], tasks=None))
    return pd.concat(sides, ignore_index=True).dropna(subset=["value"])


def before_after(rows: pd.DataFrame, who: str) -> alt.LayerChart:
    """One measure on one rubric: for each feedback (a dashed rule on its day), the contractor's mean over the
    window before and the window after, joined by a line, beside the team's; hover for the tasks and verdict."""
    measure = ms.MEASURES[str(rows["measure"].iloc[0])]
    data = _points(rows, who)
    unit = {"share": ".0%", "seconds": ".0f", "levels": ".2f"}[measure.unit]
    colour = alt.Color(
        "who:N", title=None, scale=alt.Scale(domain=[who, TEAM], range=["#1f77b4", "#9e9e9e"]),
        legend=legend(2, orient="top"),
    )  # fmt: skip
    y = alt.Y("value:Q", title=measure.title, axis=alt.Axis(format=unit))
    x = alt.X("when:T", title=None)
    lines = alt.Chart(data).mark_line(point=alt.OverlayMarkDef(filled=True, size=70)).encode(
        x=x, y=y, color=colour, detail="event:N",
        strokeDash=alt.StrokeDash("who:N", scale=alt.Scale(domain=[who, TEAM], range=[[1, 0], [5, 3]]), legend=None),
        tooltip=[tip("event"), tip("who", "who"), tip("side", "window"), alt.Tooltip("value:Q", format=unit,
                 title=measure.title), alt.Tooltip("tasks:Q", title="tasks"), tip("verdict")],
    )  # fmt: skip
    sent = pd.DataFrame({"day": pd.to_datetime(rows["sent_at"]).dt.normalize().drop_duplicates()})
    rules = alt.Chart(sent).mark_rule(strokeDash=[2, 2], color="#555555").encode(x=alt.X("day:T", title=None))
    return layer(lines, rules).properties(height=220)
