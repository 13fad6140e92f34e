"""A feedback report as Markdown that reads cleanly as plain text: every piece of submission or note text escaped
(analytics.formatting.md_escape) or quoted, so a question or comment holding markdown, HTML or links shows
literally (DESIGN.md principle 4)."""

from __future__ import annotations

import datetime as dt

import pandas as pd

from analytics.core.formatting import is_missing, md_escape
from analytics.feedback.export.display import (
    CASE_TEXTS,
    EFFECTS_EXPLAIN,
    EXPLAIN,
    RULES_EXPLAIN,
    WEEKLY_EXPLAIN,
    alert_lines,
    card_rows,
    case_heading,
    case_values,
    duration_rows,
    effect_heading,
    effects_summary,
    filters_text,
    level_summary,
    note_line,
    period_text,
    rule_rows,
    shown_effects,
    trend_rows,
    weekly_rows,
)
from analytics.feedback.report import FeedbackReport
from analytics.feedback.scope import rubric_title
from analytics.store.stamp import stamp_line


def _md_table(df: pd.DataFrame) -> list[str]:
    """A Markdown table of display text, every cell escaped."""
    lines = ["| " + " | ".join(md_escape(c) for c in df.columns) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(md_escape(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return lines


def _md_quote(text: object) -> list[str]:
    """Untrusted multi-line text as an escaped Markdown block quote."""
    return [f"> {line}" if line.strip() else ">" for line in md_escape(text, lines=True).splitlines()]


def to_markdown(report: FeedbackReport, generated_at: dt.datetime | None = None) -> str:
    """The report as Markdown (every piece of submission text escaped or quoted)."""
    who = md_escape(report.name or report.contractor_id)
    out = [f"# Feedback for {who}", ""]
    out.append(f"{md_escape(period_text(report))}. Covers {md_escape(filters_text(report))}.")
    if generated_at:
        out.append(f"Generated {generated_at:%Y-%m-%d %H:%M}.")
    out.append(f"Computed on: {md_escape(stamp_line(report.stamp))}")
    out += ["", "## Highlights", ""]
    out += [f"- {md_escape(h)}" for h in report.highlights] or ["- No figures yet."]
    out += ["", "## What to change", "", md_escape(EFFECTS_EXPLAIN)]
    for _, effect in shown_effects(report).iterrows():
        out += ["", f"### {md_escape(effect_heading(effect))}", "", md_escape(effect["evidence"])]
        out += ["", f"What to do: {md_escape(effect['advice'])}"]
    if shown_effects(report).empty:
        out += ["", "No rater effect shows clearly in your ratings."]
    out += ["", *[f"- {md_escape(line)}" for line in effects_summary(report)]]
    out += ["", "## Drift alerts", ""]
    out += [f"- {md_escape(line)}" for line in alert_lines(report)] or ["No drift alert: your agreement held."]
    out += ["", "## Rubric rules you broke", "", md_escape(RULES_EXPLAIN), ""]
    out += _md_table(rule_rows(report)) if not report.rules.empty else ["No rubric rule broken."]
    out += ["", "## Agreement with researchers, per dimension", "", md_escape(EXPLAIN)]
    rows = card_rows(report)
    for rubric, g in rows.groupby("rubric", sort=False):
        out += ["", f"### {md_escape(rubric_title(str(rubric)))}", ""]
        out += _md_table(g.drop(columns="rubric"))
    if rows.empty:
        out += ["", "No unit shared with a researcher."]
    out += ["", "## Agreement week by week", "", md_escape(WEEKLY_EXPLAIN)]
    weekly = weekly_rows(report)
    for rubric, g in weekly.groupby("rubric", sort=False):
        out += ["", f"### {md_escape(rubric_title(str(rubric)))}", ""]
        out += _md_table(g.drop(columns="rubric"))
    if not report.trend.empty:
        out += ["", "First against second half of your weeks (change with its 95% interval):", ""]
        out += _md_table(trend_rows(report))
    out += ["", "## Levels you use, against researchers on the same units", ""]
    levels = level_summary(report.levels)
    for rubric, g in levels.groupby("rubric", sort=False):
        out += [f"### {md_escape(rubric_title(str(rubric)))}", ""]
        out += [*_md_table(g.drop(columns="rubric")), ""]
    out += ["## Time per submission", ""]
    out += _md_table(duration_rows(report)) if not report.durations.empty else ["No durations were recorded."]
    out += ["", "## Most severe disagreements", ""]
    out.append("On each rubric's primary dimension, most severe first; every case a reviewer noted is listed too.")
    for _, case in report.disagreements.iterrows():
        out += ["", f"### {md_escape(case_heading(case))}", "", md_escape(case_values(case, report.contractor_id))]
        for col, label in CASE_TEXTS:
            if not is_missing(case[col]):
                out += ["", f"{md_escape(label)}:", "", *_md_quote(case[col])]
        out += ["", md_escape(note_line(case))]
    if report.disagreements.empty:
        out += ["", "No disagreement with a researcher."]
    return "\n".join(out) + "\n"
