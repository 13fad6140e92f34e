"""Charts of drift alarms: each contractor's agreement week by week beside the team's, with the start of the recent
weeks a drift alarm tested and the guideline changes marked."""

from __future__ import annotations

import altair as alt
import pandas as pd

from analytics.core.formatting import WEEK_D3
from ui.charts import layer, legend, tip, week_axis

SUBTITLE = (
    "Each panel: a contractor on a rubric. Up: agreement with the other contractors (share); across: the week it "
    "starts. Red rule: where the recent weeks a drift alarm tested begin; grey dashes: guideline changes."
)
LINES = alt.Scale(domain=["contractor", "team"], range=["#d62728", "#9e9e9e"])


def alert_panels(
    weekly: pd.DataFrame,
    alerts: pd.DataFrame,
    marks: pd.DataFrame,
    names: dict[str, str],
    title: str = "Drift alarms: agreement with the other contractors, week by week",
) -> alt.TopLevelMixin:
    """One small multiple per contractor and rubric of `weekly`: the contractor's weekly agreement with the other
    contractors and the team's mean, where a drift alarm's recent weeks begin (red rule; `alerts`: the review's
    alarms, any kind) and the guideline changes marked for the rubric (grey dashed rules)."""

    def panel(r: str, rubric: str) -> str:
        return f"{names.get(r, r)}: {rubric}"

    long = pd.concat(
        [
            weekly.assign(line="contractor", value=weekly["agreement"]),
            weekly.assign(line="team", value=weekly["team"]),
        ]
    )
    long = long.assign(panel=[panel(r, b) for r, b in zip(long["rater_id"], long["rubric"], strict=True)])
    drifted = alerts[alerts["kind"] == "drift"]
    rules = drifted.assign(panel=[panel(r, b) for r, b in zip(drifted["rater_id"], drifted["rubric"], strict=True)])
    panels = long[["panel", "rubric"]].drop_duplicates()
    rows = [
        {"panel": p, "marked_on": m.marked_on, "note": m.note}
        for p, rubric in zip(panels["panel"], panels["rubric"], strict=True)
        for m in marks.itertuples()
        if not isinstance(m.rubric, str) or m.rubric == rubric
    ]
    # One data set for every layer (a faceted chart facets one data set): rows told apart by `kind`.
    data = pd.concat(
        [
            long[["panel", "week", "value", "line", "n_tasks"]].assign(kind="line"),
            rules[["panel", "since", "detail"]].rename(columns={"since": "week"}).assign(kind="alert"),
            pd.DataFrame(rows, columns=["panel", "marked_on", "note"])
            .rename(columns={"marked_on": "week"})
            .assign(kind="mark"),
        ],
        ignore_index=True,
    )
    data["week"] = pd.to_datetime(data["week"])
    base = alt.Chart(data)
    # No axis titles in the panels: repeated in every small multiple they overlapped; the chart's title and
    # subtitle say what the axes are, once.
    x = alt.X("week:T", timeUnit="utcyearmonthdate", title=None, axis=week_axis(data["week"]))
    week_tip = alt.Tooltip("week:T", title="week starting", format=WEEK_D3, formatType="utc")
    lines = (
        base.transform_filter(alt.datum.kind == "line")
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("value:Q", title=None, axis=alt.Axis(format="%")),
            color=alt.Color("line:N", scale=LINES, title=None, legend=legend(2, orient="top")),
            tooltip=[week_tip, alt.Tooltip("value:Q", format=".0%", title="agreement"), tip("n_tasks")],
        )
    )
    alert = (
        base.transform_filter(alt.datum.kind == "alert")
        .mark_rule(color="#d62728", strokeWidth=2)
        .encode(x=x, tooltip=[tip("detail")])
    )
    marked = (
        base.transform_filter(alt.datum.kind == "mark")
        .mark_rule(color="gray", strokeDash=[4, 4])
        .encode(
            x=x,
            tooltip=[alt.Tooltip("week:T", title="guideline change", format=WEEK_D3, formatType="utc"), tip("note")],
        )
    )
    return (
        layer(lines, alert, marked)
        .properties(width=300, height=160)
        .facet(facet=alt.Facet("panel:N", title=None, header=alt.Header(labelLimit=300)), columns=2)
        .properties(title=alt.TitleParams(title, subtitle=SUBTITLE, anchor="start"))
    )
