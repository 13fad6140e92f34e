"""Charts of the rubric rules' violation rates (Consistency page, Overview's weekly share)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from analytics.core.formatting import WEEK_D3
from ui.charts import LABEL_LIMIT, layer, legend, rubric_color, tip, title_lines, week_x, with_rubric_titles

STANDING = alt.Scale(domain=["flagged", "within the team", "small n"], range=["#d62728", "#4c78a8", "#9e9e9e"])
PERCENT = alt.Axis(format="%")
SHARE = alt.Scale(domainMin=0, clamp=True)  # a share: never drawn below 0% (the interval's band nor the axis)
RULE_WORDS = 60  # characters of a rule's words on the chart's axis (the tooltip has them whole)


def rule_names(rules: pd.DataFrame) -> list[str]:
    """How each rule reads on a chart's axis: its words, shortened to RULE_WORDS characters (its id only where
    the words are missing, or to tell two rules with the same words apart)."""
    words = [
        (str(d) if len(str(d)) <= RULE_WORDS else str(d)[: RULE_WORDS - 1].rstrip() + "…") if d else str(r)
        for r, d in zip(rules["rule_id"], rules["description"].fillna(""), strict=True)
    ]
    seen = pd.Series(words).duplicated(keep=False).tolist()
    return [f"{w} ({r})" if twice else w for w, r, twice in zip(words, rules["rule_id"], seen, strict=True)]


def rule_rates(rules: pd.DataFrame) -> alt.TopLevelMixin:
    """Per rule, the share of checked submissions breaking it with its 95% Wilson interval, highest first."""
    df = with_rubric_titles(rules[rules["n_checked"] > 0])
    df = df.assign(rule=rule_names(df))
    order = df.sort_values("rate", ascending=False)["rule"].tolist()
    y = alt.Y("rule:N", title=None, sort=order, axis=alt.Axis(labelLimit=LABEL_LIMIT, labelOverlap=False))
    # Both layers carry the same legend: a layer's legend=None dropped the merged legend of the rubrics.
    color = rubric_color(df, legend=legend(2, orient="top"))
    base = alt.Chart(df)
    bars = base.mark_rule(strokeWidth=2).encode(
        y=y,
        x=alt.X("rate_ci_low:Q", title="Share of checked submissions breaking the rule", axis=PERCENT, scale=SHARE),
        x2=alt.X2("rate_ci_high:Q"),
        color=color,
    )
    points = base.mark_point(filled=True, size=70, opacity=1).encode(
        y=y,
        x=alt.X("rate:Q"),
        color=color,
        tooltip=[
            tip("rule_id", "rule"),
            tip("description"),
            alt.Tooltip("rate:Q", format=".1%", title="rate"),
            alt.Tooltip("rate_ci_low:Q", format=".1%", title="95% interval from"),
            alt.Tooltip("rate_ci_high:Q", format=".1%", title="95% interval to"),
            alt.Tooltip("n_violations:Q", title="breaking"),
            alt.Tooltip("n_checked:Q", title="checked"),
        ],
    )
    return layer(bars, points).properties(title="Rules by violation rate (every role)", height=alt.Step(22))


def rater_rates(raters: pd.DataFrame, rule: str) -> alt.TopLevelMixin:
    """Per contractor on one rule (`rule`: how it reads): the rate with its 95% interval, coloured by standing, and the team's rate
    (all contractors pooled) as a dashed rule."""
    df = raters.assign(
        standing=[
            "flagged" if f else "small n" if s else "within the team"
            for f, s in zip(raters["flagged"], raters["small_n"], strict=True)
        ]
    )
    order = df.sort_values("rate", ascending=False)["rater_id"].tolist()
    y = alt.Y("rater_id:N", title=None, sort=order, axis=alt.Axis(labelOverlap=False))
    base = alt.Chart(df)
    color = alt.Color("standing:N", scale=STANDING, title="Standing", legend=legend(3))
    bars = base.mark_rule(strokeWidth=2).encode(
        y=y,
        x=alt.X("rate_ci_low:Q", title="Share of this contractor's checked submissions breaking it", axis=PERCENT),
        x2=alt.X2("rate_ci_high:Q"),
        color=color,
    )
    points = base.mark_point(filled=True, size=70, opacity=1).encode(
        y=y,
        x=alt.X("rate:Q"),
        color=color,
        tooltip=[
            tip("rater_id", "contractor"),
            alt.Tooltip("rate:Q", format=".1%", title="rate"),
            alt.Tooltip("rate_ci_low:Q", format=".1%", title="95% interval from"),
            alt.Tooltip("rate_ci_high:Q", format=".1%", title="95% interval to"),
            alt.Tooltip("n_violations:Q", title="breaking"),
            alt.Tooltip("n_checked:Q", title="checked"),
            alt.Tooltip("team_rate:Q", format=".1%", title="rest of the team"),
        ],
    )
    n, v = int(raters["n_checked"].sum()), int(raters["n_violations"].sum())
    team = pd.DataFrame({"rate": [v / n if n else 0.0], "label": [f"all contractors {v / n if n else 0:.1%}"]})
    line = (
        alt.Chart(team)
        .mark_rule(strokeDash=[6, 4], strokeWidth=2, color="#555")
        .encode(x=alt.X("rate:Q"), tooltip=[tip("label", "team")])
    )
    return layer(bars, points, line).properties(
        title=title_lines(f"Contractors on the rule: {rule}"), height=alt.Step(16)
    )


def weekly_share(weekly: pd.DataFrame) -> alt.TopLevelMixin:
    """Per week and rubric, the share of checked submissions breaking at least one rule, with its interval."""
    df = with_rubric_titles(weekly)
    x = week_x("week", df["week"])
    color = rubric_color(df, legend=legend(2, orient="top"))
    band = (
        alt.Chart(df)
        .mark_area(opacity=0.18)
        .encode(
            x=x,
            y=alt.Y("share_ci_low:Q", title="Submissions breaking a rule", axis=PERCENT, scale=SHARE),
            y2=alt.Y2("share_ci_high:Q"),
            color=color,
        )
    )
    line = (
        alt.Chart(df)
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("share:Q"),
            color=color,
            tooltip=[
                alt.Tooltip("week:T", title="week starting", format=WEEK_D3, formatType="utc"),
                tip("rubric_title", "rubric"),
                alt.Tooltip("share:Q", format=".1%", title="breaking a rule"),
                alt.Tooltip("n_violating:Q", title="breaking"),
                alt.Tooltip("n_checked:Q", title="checked"),
            ],
        )
    )
    # The title stands clear of whatever is drawn above the chart (offset), its legend between it and the lines.
    title = alt.TitleParams("Share of submissions breaking a rubric rule, per week", offset=12, anchor="start")
    return layer(band, line).properties(title=title)
