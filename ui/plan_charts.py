"""The Plan page's chart: each contractor's interval half width now and expected once the plan is labelled."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ui.charts import layer, legend, tip

MOMENTS = alt.Scale(domain=["now", "expected after the plan"], range=["#9e9e9e", "#1f77b4"])


def widths_now_and_after(before: pd.DataFrame, after: pd.DataFrame, names: dict[str, str]) -> alt.LayerChart:
    """One row per active contractor and rubric (named by its short name: titles would crowd the axis), widest now first: the half width of their exact agreement's 95%
    interval now and expected after the plan, joined by a line (a contractor without a shared task has no point now)."""
    keys = ["rater_id", "rubric"]
    both = before[before["active"]].merge(after[keys + ["n_tasks", "half_width"]], on=keys, suffixes=("", "_after"))
    several = both["rubric"].nunique() > 1
    both = both.assign(
        who=[
            f"{names.get(r, r)} · {b}" if several else names.get(r, r)
            for r, b in zip(both["rater_id"], both["rubric"], strict=True)
        ],
        order=both["half_width"].fillna(1.0),
    ).sort_values(["order", "who"], ascending=[False, True])
    order = both["who"].tolist()
    long = pd.concat(
        [
            both.assign(moment="now", width=both["half_width"], tasks=both["n_tasks"]),
            both.assign(moment="expected after the plan", width=both["half_width_after"], tasks=both["n_tasks_after"]),
        ]
    ).dropna(subset=["width"])
    y = alt.Y("who:N", title=None, sort=order, axis=alt.Axis(labelOverlap=False, labelLimit=260))
    x_title = "Half width of the 95% interval of exact agreement with researchers (±)"
    lines = (
        alt.Chart(both.dropna(subset=["half_width", "half_width_after"]))
        .mark_rule(color="#bbbbbb", strokeWidth=2)
        .encode(y=y, x=alt.X("half_width:Q", title=x_title), x2=alt.X2("half_width_after:Q"))
    )
    points = (
        alt.Chart(long)
        .mark_point(filled=True, size=70, opacity=1)
        .encode(
            y=y,
            x=alt.X("width:Q", title=x_title, scale=alt.Scale(domainMin=0)),
            color=alt.Color("moment:N", scale=MOMENTS, title=None, legend=legend(2, orient="top")),
            tooltip=[
                tip("who", "contractor"),
                tip("moment"),
                alt.Tooltip("width:Q", format=".3f", title="half width"),
                alt.Tooltip("tasks:Q", title="tasks shared with researchers"),
            ],
        )
    )
    return layer(lines, points).properties(height=alt.Step(16))
