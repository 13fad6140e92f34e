"""A feedback report as Markdown that reads cleanly as plain text: every piece of submission or note text escaped
(analytics.formatting.md_escape) or quoted, so a question or comment holding markdown, HTML or links shows
literally (DESIGN.md principle 4)."""

from __future__ import annotations

import datetime as dt

import pandas as pd

from analytics.core.formatting import is_missing, md_escape
from analytics.feedback.export import display
from analytics.feedback.report import FeedbackReport
from analytics.feedback.scope import rubric_title


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
    title, covers, generated = display.head_lines(report, generated_at, md_escape)
    out = [f"# {title}", "", *filter(None, (covers, generated))]
    out += ["", "## Highlights", ""]
    out += [f"- {md_escape(h)}" for h in report.highlights] or ["- No figures yet."]
    out += ["", "## What to change", "", md_escape(display.EFFECTS_EXPLAIN)]
    for _, effect in display.shown_effects(report).iterrows():
        out += ["", f"### {md_escape(display.effect_heading(effect))}", "", md_escape(effect["evidence"])]
        out += ["", f"What to do: {md_escape(effect['advice'])}"]
    if display.shown_effects(report).empty:
        out += ["", "No rater effect shows clearly in your ratings."]
    out += ["", *[f"- {md_escape(line)}" for line in display.effects_summary(report)]]
    out += ["", "## Alarms", ""]
    out += [f"- {md_escape(line)}" for line in display.alert_lines(report)] or [md_escape(display.NO_ALARM)]
    out += ["", "## Rubric rules you broke", "", md_escape(display.FLAGGED_RULES_EXPLAIN), ""]
    flagged = display.flagged_rule_rows(report)
    out += _md_table(flagged) if len(flagged) else [md_escape(display.NO_FLAGGED_RULE)]
    if others := display.unflagged_rules_line(report):
        out += ["", md_escape(others)]
    out += ["", "## Agreement with researchers, per dimension", "", md_escape(display.EXPLAIN)]
    rows = display.card_rows(report)
    for rubric, g in rows.groupby("rubric", sort=False):
        out += ["", f"### {md_escape(rubric_title(str(rubric)))}", ""]
        out += _md_table(g.drop(columns="rubric"))
    if rows.empty:
        out += ["", "No unit shared with a researcher."]
    out += ["", "## Agreement week by week", "", md_escape(display.WEEKLY_EXPLAIN)]
    weekly = display.weekly_rows(report)
    for rubric, g in weekly.groupby("rubric", sort=False):
        out += ["", f"### {md_escape(rubric_title(str(rubric)))}", ""]
        out += _md_table(g.drop(columns="rubric"))
    if not report.trend.empty:
        out += ["", "First against second half of your weeks (change with its 95% interval):", ""]
        out += _md_table(display.trend_rows(report))
    out += ["", "## Levels you use, against researchers on the same units", ""]
    levels = display.level_summary(report.levels)
    for rubric, g in levels.groupby("rubric", sort=False):
        out += [f"### {md_escape(rubric_title(str(rubric)))}", ""]
        out += [*_md_table(g.drop(columns="rubric")), ""]
    out += ["## Time per submission", ""]
    out += _md_table(display.duration_rows(report)) if not report.durations.empty else ["No durations were recorded."]
    out += ["", "## Most severe disagreements", ""]
    out.append("On each rubric's primary dimension, most severe first; every case a reviewer noted is listed too.")
    for _, case in report.disagreements.iterrows():
        out += [
            "",
            f"### {md_escape(display.case_heading(case))}",
            "",
            md_escape(display.case_values(case, report.contractor_id)),
        ]
        for col, label in display.CASE_TEXTS:
            if not is_missing(case[col]):
                out += ["", f"{md_escape(label)}:", "", *_md_quote(case[col])]
        out += ["", md_escape(display.note_line(case))]
    if report.disagreements.empty:
        out += ["", "No disagreement with a researcher."]
    out += ["", "---", "", md_escape(display.provenance_line(report))]
    return "\n".join(out) + "\n"
