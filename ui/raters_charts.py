"""Charts of the Raters page: who shows which rater effect, one contractor's effects against the team, and the
rater model's accuracy beside agreement with researchers."""

from __future__ import annotations

import altair as alt
import pandas as pd

from analytics.model.raters import NOT_MEASURED
from ui.charts import layer, legend, tip, title_lines
from ui.consistency_charts import STANDING

PANEL_WIDTH = 240  # pixels per small multiple: two (with their dimension labels) fit a laptop window


# The standings' colours, and a pale one for an effect not measured on a contractor (a blank cell would look
# like a drawing fault).
GRID_STANDING = alt.Scale(
    domain=[*STANDING.to_dict()["domain"], NOT_MEASURED], range=[*STANDING.to_dict()["range"], "#e8e8e8"]
)


def effect_grid(grid: pd.DataFrame) -> alt.TopLevelMixin:
    """Contractors (rows) by effect (columns): red where the effect is flagged on at least one dimension, with
    the number of flagged dimensions; blue where it was measured and not flagged; grey where only small n; pale
    where it was not measured."""
    base = alt.Chart(grid).encode(
        x=alt.X("effect_title:N", title=None, sort=None, axis=alt.Axis(orient="top", labelAngle=0)),
        y=alt.Y("rater_name:N", title=None, sort=None, axis=alt.Axis(labelOverlap=False, labelLimit=260)),
    )
    cells = base.mark_rect(stroke="white", strokeWidth=1).encode(
        color=alt.Color("standing:N", scale=GRID_STANDING, title="Standing", legend=legend(4)),
        tooltip=[
            tip("rater_name", "contractor"),
            tip("effect_title", "effect"),
            tip("standing"),
            alt.Tooltip("n_flagged:Q", title="dimensions flagged"),
            alt.Tooltip("n_measured:Q", title="dimensions measured"),
        ],
    )
    counts = (
        base.transform_filter(alt.datum.n_flagged > 0)
        .mark_text(color="white", fontWeight="bold")
        .encode(text=alt.Text("n_flagged:Q"))
    )
    return layer(cells, counts).properties(
        title="Who shows which effect (number of dimensions flagged)", height=alt.Step(18)
    )


def contractor_effects(rows: pd.DataFrame, title: str) -> alt.TopLevelMixin:
    """One panel per effect: on each dimension the effect is measured on (labelled with the tasks behind it), the
    contractor's shrunk estimate (filled point) and its 95% interval (bar), their own raw estimate (hollow ring)
    and the team's value without them (black tick)."""
    base = alt.Chart(rows)
    y = alt.Y("where_n:N", title=None, sort=None, axis=alt.Axis(labelLimit=220, labelOverlap=False))
    x_title = "estimate (the panel title gives its unit)"
    details = [
        tip("effect_title", "effect"),
        tip("where", "dimension"),
        alt.Tooltip("n_tasks:Q", title="tasks behind it"),
        alt.Tooltip("raw:Q", format=".3f", title="own estimate (their tasks alone)"),
        alt.Tooltip("estimate:Q", format=".3f", title="shrunk toward the team"),
        alt.Tooltip("estimate_ci_low:Q", format=".3f", title="shrunk 95% interval from"),
        alt.Tooltip("estimate_ci_high:Q", format=".3f", title="shrunk 95% interval to"),
        alt.Tooltip("team_value:Q", format=".3f", title="team (without them)"),
        tip("basis"),
        tip("evidence"),
    ]
    bars = base.mark_rule(strokeWidth=2).encode(
        y=y,
        x=alt.X("estimate_ci_low:Q", title=x_title, scale=alt.Scale(zero=False)),
        x2=alt.X2("estimate_ci_high:Q"),
        color=alt.Color("standing:N", scale=STANDING, legend=None),
    )
    points = base.mark_point(filled=True, size=70, opacity=1).encode(
        y=y,
        x=alt.X("estimate:Q"),
        color=alt.Color("standing:N", scale=STANDING, title="Standing", legend=legend(3)),
        tooltip=details,
    )
    own = base.mark_point(filled=False, size=90, strokeWidth=1.5, opacity=1).encode(
        y=y, x=alt.X("raw:Q"), color=alt.Color("standing:N", scale=STANDING, legend=None), tooltip=details
    )
    team = base.mark_tick(color="black", thickness=2, size=14).encode(
        y=y, x=alt.X("team_value:Q"), tooltip=[alt.Tooltip("team_value:Q", format=".3f", title="team (without them)")]
    )
    return (
        layer(bars, own, points, team)
        .properties(width=PANEL_WIDTH, height=alt.Step(18))
        .facet(
            facet=alt.Facet(
                "panel:N",
                title=None,
                sort=list(dict.fromkeys(rows["panel"])),
                header=alt.Header(labelLimit=PANEL_WIDTH),
            ),
            columns=2,
        )
        .resolve_scale(x="independent", y="independent")
        .properties(title=title_lines(title))
    )


def model_vs_agreement(df: pd.DataFrame, title: str) -> alt.TopLevelMixin:
    """Per contractor: the rater model's accuracy (with its 95% interval) against exact agreement with
    researchers on shared tasks; the diagonal is where the two say the same."""
    base = alt.Chart(df)
    unit = alt.Scale(domain=[0, 1])
    x = alt.X("exact_agreement:Q", title="Exact agreement with researchers (shared tasks)", scale=unit)
    bars = base.mark_rule(strokeWidth=2, opacity=0.6).encode(
        x=x,
        y=alt.Y("accuracy_ci_low:Q", title="Model accuracy (all tasks)", scale=unit),
        y2=alt.Y2("accuracy_ci_high:Q"),
    )
    points = base.mark_point(filled=True, size=70, opacity=1).encode(
        x=x,
        y=alt.Y("accuracy:Q"),
        tooltip=[
            tip("rater_name", "contractor"),
            alt.Tooltip("accuracy:Q", format=".3f", title="model accuracy"),
            alt.Tooltip("accuracy_ci_low:Q", format=".3f", title="95% interval from"),
            alt.Tooltip("accuracy_ci_high:Q", format=".3f", title="95% interval to"),
            alt.Tooltip("n_tasks:Q", title="tasks (model)"),
            alt.Tooltip("exact_agreement:Q", format=".3f", title="exact agreement"),
            alt.Tooltip("n_shared:Q", title="tasks shared with researchers"),
        ],
    )
    diagonal = (
        alt.Chart(pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, 1.0]}))
        .mark_line(strokeDash=[6, 4], color="gray")
        .encode(x=alt.X("x:Q"), y=alt.Y("y:Q"))
    )
    return layer(diagonal, bars, points).properties(title=title_lines(title), width=420, height=360)
