"""Chart builders of the Feedback page: each takes a tidy DataFrame and returns an Altair chart."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ui.charts import LABEL_LIMIT, layer, legend, tip

RESEARCHERS = "Researchers with each other (pooled; a reference, not a bound)"
WHO_COLORS = alt.Scale(
    domain=["This contractor", "Team median", RESEARCHERS],
    range=["#4c78a8", "#888888", "#f58518"],
)


def agreement_vs_team(card: pd.DataFrame, statistic: str, label: str) -> alt.LayerChart:
    """Per dimension: the contractor's value of `statistic` with its 95% interval, the team median and the
    researcher-researcher agreement as ticks (rows in the card's order)."""
    order = card["dimension_label"].tolist()
    has_ceiling = f"ceiling_{statistic}" in card
    long = pd.concat(
        [
            pd.DataFrame(
                {
                    "dimension_label": card["dimension_label"],
                    "who": "This contractor",
                    "value": card[statistic],
                    "ci_low": card[f"{statistic}_ci_low"],
                    "ci_high": card[f"{statistic}_ci_high"],
                    "n": card["n"],
                    "n_tasks": card["n_tasks"],
                }
            ),
            pd.DataFrame(
                {
                    "dimension_label": card["dimension_label"],
                    "who": "Team median",
                    "value": card[f"team_{statistic}"],
                    "n": card["team_contractors"],
                }
            ),
            *(
                [
                    pd.DataFrame(
                        {
                            "dimension_label": card["dimension_label"],
                            "who": RESEARCHERS,
                            "value": card[f"ceiling_{statistic}"],
                            "n": card["ceiling_tasks"],
                        }
                    )
                ]
                if has_ceiling
                else []
            ),
        ],
        ignore_index=True,
    )
    lo = min(0.0, float(pd.concat([long["value"], long["ci_low"]]).min(skipna=True) or 0.0))
    hi = max(1.0, float(pd.concat([long["value"], long["ci_high"]]).max(skipna=True) or 1.0))
    x = alt.X("value:Q", title=label, scale=alt.Scale(domain=[lo, hi]))
    y = alt.Y("dimension_label:N", title=None, sort=order, axis=alt.Axis(labelLimit=LABEL_LIMIT))
    color = alt.Color("who:N", scale=WHO_COLORS, title=None, legend=legend(2, orient="top"))
    base = alt.Chart(long)
    interval = (
        base.transform_filter("datum.who == 'This contractor'")
        .mark_rule(strokeWidth=2)
        .encode(
            y=y, x=alt.X("ci_low:Q", scale=alt.Scale(domain=[lo, hi]), title=label), x2=alt.X2("ci_high:Q"), color=color
        )
    )
    ticks = (
        base.transform_filter("datum.who != 'This contractor'")
        .mark_tick(thickness=3, size=16)
        .encode(
            y=y,
            x=x,
            color=color,
            tooltip=[
                tip("dimension_label", "dimension"),
                tip("who", "who"),
                tip("value:Q", label, format=".2f"),
                tip("n"),
            ],
        )
    )
    points = (
        base.transform_filter("datum.who == 'This contractor'")
        .mark_point(filled=True, size=70)
        .encode(
            y=y,
            x=x,
            color=color,
            tooltip=[
                tip("dimension_label", "dimension"),
                tip("value:Q", label, format=".2f"),
                tip("ci_low:Q", "95% low", format=".2f"),
                tip("ci_high:Q", "95% high", format=".2f"),
                alt.Tooltip("n_tasks:Q", title="tasks"),
                alt.Tooltip("n:Q", title="pairs"),
            ],
        )
    )
    return layer(interval, ticks, points).properties(height=alt.Step(22))


def weekly_agreement(weekly: pd.DataFrame) -> alt.LayerChart:
    """Weekly exact agreement (point size: rating pairs) with its 95% interval as a bar, and the team median as
    a dashed line."""
    df = weekly.assign(week=pd.to_datetime(weekly["week"]))
    x = alt.X("week:T", title="Week (starting Monday)", axis=alt.Axis(format="%b %d", tickCount="week"))
    y_scale = alt.Scale(domain=[0, 1])
    interval = (
        alt.Chart(df)
        .mark_rule(strokeWidth=8, opacity=0.3, color="#4c78a8")
        .encode(x=x, y=alt.Y("ci_low:Q", scale=y_scale, title="Exact agreement"), y2=alt.Y2("ci_high:Q"))
    )
    team = (
        alt.Chart(df)
        .mark_line(strokeDash=[5, 4], color="#888888")
        .encode(x=x, y=alt.Y("team_exact_agreement:Q", scale=y_scale))
    )
    line = alt.Chart(df).mark_line(color="#4c78a8").encode(x=x, y=alt.Y("exact_agreement:Q", scale=y_scale))
    points = (
        alt.Chart(df)
        .mark_circle(color="#4c78a8", opacity=1)
        .encode(
            x=x,
            y=alt.Y("exact_agreement:Q", scale=y_scale),
            size=alt.Size("n_pairs:Q", title="Rating pairs", scale=alt.Scale(range=[30, 300])),
            tooltip=[
                tip("week:T", format="%Y-%m-%d"),
                tip("n_tasks"),
                tip("n_pairs", "rating pairs"),
                tip("exact_agreement:Q", format=".2f"),
                tip("ci_low:Q", "95% low", format=".2f"),
                tip("ci_high:Q", "95% high", format=".2f"),
                tip("team_exact_agreement:Q", "team median", format=".2f"),
            ],
        )
    )
    return layer(interval, team, line, points).properties(height=320)
