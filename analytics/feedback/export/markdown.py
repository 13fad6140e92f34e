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
    return _md_rows(list(df.columns), list(zip(*(df.iloc[:, k].tolist() for k in range(df.shape[1])), strict=True)))


def _md_rows(columns: list, rows: list[tuple]) -> list[str]:
    """A Markdown table of display text from its column names and rows, every cell escaped."""
    lines = ["| " + " | ".join(md_escape(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(md_escape(v) for v in row) + " |" for row in rows]
    return lines


def _per_rubric(df: pd.DataFrame) -> list[tuple[str, list[str]]]:
    """Display rows with a `rubric` column as one Markdown table per rubric without it, in the order the rubrics
    first appear (a row without a rubric left out, as a pandas groupby leaves it)."""
    columns = [c for c in df.columns if c != "rubric"]
    groups: dict[object, list[tuple]] = {}
    for rubric, *row in zip(df["rubric"].tolist(), *(df[c].tolist() for c in columns), strict=True):
        if not is_missing(rubric):
            groups.setdefault(rubric, []).append(tuple(row))
    return [(str(rubric), _md_rows(columns, rows)) for rubric, rows in groups.items()]


def _records(df: pd.DataFrame) -> list[dict]:
    """The frame's rows as dicts of Python values (what iterrows' rows hold, without a Series per row)."""
    columns = list(df.columns)
    return [dict(zip(columns, row, strict=True)) for row in zip(*(df[c].tolist() for c in columns), strict=True)]


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
    shown = display.shown_effects(report)
    for effect in _records(shown):
        out += ["", f"### {md_escape(display.effect_heading(effect))}", "", md_escape(effect["evidence"])]
        out += ["", f"What to do: {md_escape(effect['advice'])}"]
    if shown.empty:
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
    for rubric, table in _per_rubric(rows):
        out += ["", f"### {md_escape(rubric_title(rubric))}", "", *table]
    if rows.empty:
        out += ["", "No unit shared with a researcher."]
    out += ["", "## Agreement week by week", "", md_escape(display.WEEKLY_EXPLAIN)]
    for rubric, table in _per_rubric(display.weekly_rows(report)):
        out += ["", f"### {md_escape(rubric_title(rubric))}", "", *table]
    if not report.trend.empty:
        out += ["", "First against second half of your weeks (change with its 95% interval):", ""]
        out += _md_table(display.trend_rows(report))
    out += ["", "## Levels you use, against researchers on the same units", ""]
    for rubric, table in _per_rubric(display.level_summary(report.levels)):
        out += [f"### {md_escape(rubric_title(rubric))}", "", *table, ""]
    out += ["## Time per submission", ""]
    out += _md_table(display.duration_rows(report)) if not report.durations.empty else ["No durations were recorded."]
    out += ["", "## Most severe disagreements", ""]
    out.append("On each rubric's primary dimension, most severe first; every case a reviewer noted is listed too.")
    for case in _records(report.disagreements):
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
