"""Exports of a contractor's feedback report (analytics.feedback): Markdown, a self-contained HTML file and the
disagreements as CSV.

Untrusted text stays text (DESIGN.md principle 4): every piece of submission or note text is escaped, so a
question or comment holding markdown, HTML or links shows literally. The HTML file has its CSS inline, charts
as inline SVG and plain HTML bars, no script and no external request, so it opens anywhere and can be mailed.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any

import pandas as pd

from analytics.core import csv_out
from analytics.core.formatting import fmt, fmt_ci, is_missing
from analytics.feedback import NOT_MEASURED, NOT_SHOWN, SHOWN, TOO_FEW, FeedbackReport, rubric_title
from analytics.store.stamp import stamp_line

# Markdown escaping (CommonMark and GitHub-flavoured): a backslash only where a character would start markup, so
# ordinary prose ("0.41 [0.21, 0.63]", "usefulness_comparison", "n = 30.") reads as written in plain text.
# Anywhere in a line: code spans, emphasis, strikethrough, table cells and math (` * ~ | $), "_" unless inside a
# word, a backslash before punctuation, an HTML tag or autolink start ("<b", "</", "<!", "<?", "<h"), an entity
# ("&amp;"), and on a line holding a link, image or reference definition ("](", "][", "]:") its brackets and the
# "!" before them. At the start of a line: headings (#), quotes (>), list markers ("- ", "+ ", "1. ", "1) ") and
# thematic breaks or heading underlines ("---", "===").
_MD_ANYWHERE = re.compile(r"[`*~|$]|\\(?=[!-/:-@\[-`{-~])|(?<![^\W_])_|_(?![^\W_])|<(?=[A-Za-z/!?])|&(?=#?\w+;)")
_MD_LINK = re.compile(r"\](?=[(\[:])")
_MD_BRACKETS = re.compile(r"!(?=\[)|[\[\]]")
_MD_LINE_START = re.compile(r"^(\s*)(?:([#>])|([-+])(?=\s|$)|(\d{1,9})([.)])(?=\s|$)|([-=])(?=[-=\s]*$))")
# GitHub-flavoured Markdown links bare URLs and e-mail addresses after backslash escapes are resolved, so
# escaping stops nothing there; an invisible word joiner breaks the pattern ("http:\u2060//", "www\u2060.",
# "a@\u2060b"), as ui/text.py does for the pages.
_AUTOLINK = re.compile(r"(?i)(?<=https:)|(?<=http:)|(?<=www)(?=\.)|(?<=@)")
WORD_JOINER = "\u2060"

EXPLAIN = (
    "Agreement is measured on the units (task, dimension and answer) that you and a researcher both rated. "
    "Team median: the median of the other contractors' own figures. Researchers: the median of each "
    "researcher's agreement with the other researchers over all dates, the most one can expect. Brackets hold 95% "
    "intervals; n is the number of rating pairs. Mean difference is in scale steps, positive when your "
    "rating is later on the scale than the researcher's."
)
KAPPA_WEIGHTS = {
    "Cohen's kappa": "none (Cohen's)",
    "weighted kappa (linear)": "linear",
    "weighted kappa (quadratic)": "quadratic",
}
WEEKLY_EXPLAIN = (
    "Exact agreement with researchers over every dimension of the rubric, per week (weeks start on Monday), "
    "with a 95% interval from resampling the week's tasks (no interval with fewer than two tasks)."
)


# --- formatting ----------------------------------------------------------------------------------------------


def md_escape(text: object, lines: bool = False) -> str:
    """Text as Markdown that shows it literally and reads cleanly as plain text: only what would become markup
    is backslash-escaped, bare URLs are kept from becoming links; on one line (table cells, headings, sentences)
    unless `lines`, which keeps the line breaks (each line escaped as the start of a line)."""
    parts = str(text).splitlines() if lines else [" ".join(str(text).split())]
    return "\n".join(_md_line(_AUTOLINK.sub(WORD_JOINER, p)) for p in parts)


def _md_line(line: str) -> str:
    """One line of md_escape."""
    out = _MD_ANYWHERE.sub(lambda m: "\\" + m[0], line)
    if _MD_LINK.search(line):
        out = _MD_BRACKETS.sub(lambda m: "\\" + m[0], out)
    return _MD_LINE_START.sub(_escape_line_start, out, count=1)


def _escape_line_start(m: re.Match) -> str:
    """A backslash before the character that would make a line a heading, quote, list item or rule."""
    indent, mark, bullet, number, delimiter, rule = m.groups()
    if number:
        return f"{indent}{number}\\{delimiter}"
    return f"{indent}\\{mark or bullet or rule}"


def _fmt_time(t: Any) -> str:
    """A timestamp to the minute ("–" when missing)."""
    return "–" if is_missing(t) else f"{pd.Timestamp(t):%Y-%m-%d %H:%M}"


def filters_text(report: FeedbackReport) -> str:
    """What the report covers: rubric and dates."""
    f = report.filters
    rubric = rubric_title(f.rubric) if f.rubric else "all rubrics"
    if f.date_from or f.date_to:
        dates = f"{f.date_from or 'the start'} to {f.date_to or 'the end'}"
    else:
        dates = "all dates"
    return f"{rubric}, {dates}"


def period_text(report: FeedbackReport) -> str:
    """The contractor's first and last rating dates and their number of ratings ("no dates" when the files
    gave none)."""
    first_at, last_at = report.first_rating, report.last_rating
    first = None if first_at is None or is_missing(first_at) else f"{pd.Timestamp(first_at):%Y-%m-%d}"
    last = None if last_at is None or is_missing(last_at) else f"{pd.Timestamp(last_at):%Y-%m-%d}"
    if first is None and last is None:
        return f"{report.n_ratings:,} ratings, no dates"
    if first is None or last is None:
        return f"{report.n_ratings:,} ratings, dated {first or last}"
    return f"{report.n_ratings:,} ratings from {first} to {last}"


def card_rows(report: FeedbackReport) -> pd.DataFrame:
    """The report card as display text, one row per dimension (the columns both exports show)."""
    c = report.card
    out = pd.DataFrame(
        {
            "rubric": c["rubric"],
            "Dimension": c["dimension_label"] + c["is_primary"].map({True: " (primary)", False: ""}),
            "n": c["n_tasks"].astype(int).astype(str)
            + " tasks, "
            + c["n"].astype(int).astype(str)
            + " pairs"
            + c["small_n"].map({True: " (small)", False: ""}),
        }
    )
    for s, name in (
        ("exact_agreement", "Exact"),
        ("coarse_agreement", "Coarse"),
        ("kappa", "Kappa"),
        ("mean_difference", "Mean difference"),
    ):
        out[name] = [fmt_ci(v, lo, hi) for v, lo, hi in zip(c[s], c[f"{s}_ci_low"], c[f"{s}_ci_high"], strict=True)]
    out["Kappa weights"] = c["kappa_statistic"].map(KAPPA_WEIGHTS).fillna(c["kappa_statistic"])
    out["Team exact / coarse / kappa"] = [
        " / ".join(fmt(v) for v in vals)
        for vals in zip(c["team_exact_agreement"], c["team_coarse_agreement"], c["team_kappa"], strict=True)
    ]
    out["Researchers exact / coarse / kappa"] = [
        " / ".join(fmt(v) for v in vals)
        for vals in zip(c["ceiling_exact_agreement"], c["ceiling_coarse_agreement"], c["ceiling_kappa"], strict=True)
    ]
    return out


def weekly_rows(report: FeedbackReport) -> pd.DataFrame:
    """Weekly agreement as display text."""
    w = report.weekly
    return pd.DataFrame(
        {
            "rubric": w["rubric"],
            "Week": [f"{pd.Timestamp(x):%Y-%m-%d}" for x in w["week"]],
            "Tasks": w["n_tasks"].astype(int).astype(str),
            "Pairs": w["n_pairs"].astype(int).astype(str),
            "Exact": [
                fmt_ci(v, lo, hi) for v, lo, hi in zip(w["exact_agreement"], w["ci_low"], w["ci_high"], strict=True)
            ],
            "Coarse": [fmt(v) for v in w["coarse_agreement"]],
            "Team median exact": [fmt(v) for v in w["team_exact_agreement"]],
        }
    )


def level_summary(levels: pd.DataFrame) -> pd.DataFrame:
    """Per dimension, "level you% / researchers%" for every level in scale order."""
    rows = []
    for (rubric, _, label), g in levels.groupby(["rubric", "dimension", "dimension_label"], sort=False):
        wide = g.pivot_table(index=["level_index", "level"], columns="role", values="share", aggfunc="first")
        wide = wide.reindex(columns=["contractor", "researcher"]).fillna(0.0)
        cells = [f"{lvl} {you:.0%} / {res:.0%}" for (_, lvl), (you, res) in zip(wide.index, wide.values, strict=True)]
        n = int(g.loc[g["role"] == "contractor", "n"].sum())
        rows.append(
            {"rubric": rubric, "Dimension": label, "Pairs": str(n), "Levels (you / researchers)": " · ".join(cells)}
        )
    return pd.DataFrame(rows, columns=["rubric", "Dimension", "Pairs", "Levels (you / researchers)"])


def duration_rows(report: FeedbackReport) -> pd.DataFrame:
    """Time per submission as display text."""
    d = report.durations
    return pd.DataFrame(
        {
            "Rubric": [rubric_title(r) for r in d["rubric"]],
            "Submissions": d["submissions"].astype(int).astype(str),
            "Median seconds": [fmt(v, 0) for v in d["median_s"]],
            "Middle half": [f"{fmt(a, 0)} to {fmt(b, 0)}" for a, b in zip(d["q1_s"], d["q3_s"], strict=True)],
            "Team median seconds": [fmt(v, 0) for v in d["team_median_s"]],
            "Yours / team": [fmt(v) for v in d["ratio"]],
        }
    )


def trend_rows(report: FeedbackReport) -> pd.DataFrame:
    """Early-versus-late agreement as display text."""
    t = report.trend
    return pd.DataFrame(
        {
            "Rubric": [rubric_title(r) for r in t["rubric"]],
            "Early weeks": t["early_weeks"],
            "Early exact": [fmt(v) for v in t["early"]],
            "Late weeks": t["late_weeks"],
            "Late exact": [fmt(v) for v in t["late"]],
            "Change": [
                fmt_ci(v, lo, hi)
                for v, lo, hi in zip(t["change"], t["change_ci_low"], t["change_ci_high"], strict=True)
            ],
        }
    )


RULES_EXPLAIN = (
    "Rules the rubric documents state that one submission can break on its own, checked on every submission "
    "whether or not a researcher labelled it. Flagged: your rate is credibly above the rest of the team's (at "
    "least 30 checked submissions and the 95% interval of the difference above zero)."
)


def rule_rows(report: FeedbackReport) -> pd.DataFrame:
    """The rubric rules the contractor broke as display text: the rule's words, rates and where it happened."""
    r = report.rules
    return pd.DataFrame(
        {
            "Rule": [f"{i}: {d}" for i, d in zip(r["rule_id"], r["description"], strict=True)],
            "Broken in": [f"{v} of {n}" for v, n in zip(r["n_violations"], r["n_checked"], strict=True)],
            "Your rate": [
                fmt_ci(v, lo, hi) for v, lo, hi in zip(r["rate"], r["rate_ci_low"], r["rate_ci_high"], strict=True)
            ],
            "Rest of the team": [fmt(v) for v in r["team_rate"]],
            "Flagged": ["yes" if f else "" for f in r["flagged"]],
            "For example": r["examples"],
        }
    )


def alert_lines(report: FeedbackReport) -> list[str]:
    """Each drift alert of the contractor as a plain sentence: rubric, week and evidence."""
    return [
        f"{rubric_title(r)}, week of {pd.Timestamp(w).date()}: {e}"
        for r, w, e in zip(report.alerts["rubric"], report.alerts["alert_week"], report.alerts["evidence"], strict=True)
    ]


def case_heading(case: pd.Series) -> str:
    """One disagreement's heading (plain text): rank, severity, rubric, task, dimension and target."""
    target = f", {case['target']}" if not is_missing(case["target"]) else ""
    return (
        f"Case {case['rank']}, {case['severity']}: {rubric_title(case['rubric'])}, task {case['task_id']} "
        f"({case['dimension']}{target})"
    )


def case_values(case: pd.Series, contractor: str) -> str:
    """Both ratings of a case in one line (plain text)."""
    return (
        f"{contractor} (you): {case['contractor_value']} · researcher {case['researcher_id']}: "
        f"{case['researcher_value']} · {int(case['steps'])} step(s) apart · rated {_fmt_time(case['submitted_at'])}"
    )


def note_line(case: pd.Series) -> str:
    """The review status, reviewer and date of a case (plain text)."""
    who = f" by {case['reviewer']}" if not is_missing(case["reviewer"]) else ""
    when = f" on {_fmt_time(case['note_updated_at'])}" if not is_missing(case["note_updated_at"]) else ""
    return f"Review: {case['status']}{who}{when}"


CASE_TEXTS = (
    ("prompt", "Question"),
    ("contractor_comment", "Your comment"),
    ("researcher_explanation", "Researcher's explanation"),
    ("note", "Reviewer's note"),
)
EFFECTS_EXPLAIN = (
    "Each rater effect is checked on every rubric where your ratings can show it. One is listed here only with "
    "at least 30 of the things it counts and when its whole 95% interval lies clearly past no effect."
)


def effect_heading(effect: pd.Series) -> str:
    """One shown effect's heading (plain text): its title and rubric."""
    return f"{effect['title']}: {rubric_title(effect['rubric'])}"


def effects_summary(report: FeedbackReport) -> list[str]:
    """Plain sentences naming the effects checked and not seen, and those with too few ratings to judge."""
    e = report.effects
    out = []
    for status, lead in (
        (NOT_SHOWN, "Checked and not seen"),
        (TOO_FEW, "Too few ratings to judge"),
        (NOT_MEASURED, "Not measurable from these files"),
    ):
        rows = e[e["status"] == status] if len(e) else e
        if len(rows):
            named = "; ".join(f"{t} ({rubric_title(r)})" for t, r in zip(rows["title"], rows["rubric"], strict=True))
            out.append(f"{lead}: {named}.")
    return out


def shown_effects(report: FeedbackReport) -> pd.DataFrame:
    """The effects that apply to the contractor (status shown), in report order."""
    e = report.effects
    return e[e["status"] == SHOWN] if len(e) else e


# --- Markdown ------------------------------------------------------------------------------------------------


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


# --- HTML ----------------------------------------------------------------------------------------------------

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:1280px;
color:#222;padding:0 1rem;line-height:1.4}
h1{margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.85rem}
th,td{border:1px solid #ddd;padding:.25rem .45rem;text-align:left;vertical-align:top}
th{background:#f5f5f5}td{white-space:nowrap}td:first-child{white-space:normal;min-width:11rem}
.muted{color:#666;font-size:.85rem}
.legend span{display:inline-block;margin-right:1rem;font-size:.85rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;vertical-align:middle;margin-right:.3rem}
.case{border:1px solid #ddd;border-radius:6px;padding:.5rem .8rem;margin:.8rem 0}
.case h3{margin:.2rem 0 .4rem 0;font-size:1rem}
.text{white-space:pre-wrap;background:#fafafa;border-left:3px solid #ccc;padding:.3rem .6rem;margin:.2rem 0 .5rem 0;
font-size:.85rem}
.dims{display:flex;flex-wrap:wrap;gap:.6rem}
.dim{border:1px solid #eee;border-radius:6px;padding:.3rem .5rem}
.dim p{margin:.1rem 0 .3rem 0;font-size:.85rem}
.bars{display:flex;gap:.3rem;align-items:flex-end}
.lvl{text-align:center;font-size:.68rem;width:4.2rem;overflow-wrap:anywhere}
.pair{display:flex;gap:2px;align-items:flex-end;justify-content:center;height:50px;border-bottom:1px solid #ccc}
.bar{width:1rem}
@page{margin:1.5cm}
@media print{body{margin:0;max-width:none;padding:0;font-size:9pt}table{font-size:7pt;width:100%}
th,td{white-space:normal;padding:1px 3px}td:first-child{min-width:0}td svg{width:80px;height:auto}
h2,h3{break-after:avoid}.case,.dim,tr,svg{break-inside:avoid}}
"""
YOU, TEAM, CEILING = "#4c78a8", "#888888", "#f58518"


def _e(text: object) -> str:
    """HTML-escaped text."""
    return html.escape(str(text), quote=True)


def _html_table(df: pd.DataFrame) -> str:
    """An HTML table of display text, every cell escaped."""
    head = "".join(f"<th>{_e(c)}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{_e(v)}</td>" for v in row) + "</tr>" for row in df.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _x(v: float, width: float, pad: float = 6) -> float:
    """Position of a share (0..1) on a strip `width` pixels wide."""
    return pad + max(0.0, min(1.0, v)) * (width - 2 * pad)


def agreement_strip(row: pd.Series, width: int = 200, height: int = 20) -> str:
    """Inline SVG: the contractor's exact agreement (dot and 95% interval), team median (grey tick) and the
    researcher ceiling (orange tick) on a 0..1 strip."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">',
        f'<line x1="{_x(0, width)}" y1="{height / 2}" x2="{_x(1, width)}" y2="{height / 2}" stroke="#e3e3e3" '
        'stroke-width="6" stroke-linecap="round"/>',
    ]
    for v in (0.5,):
        parts.append(f'<line x1="{_x(v, width)}" y1="3" x2="{_x(v, width)}" y2="{height - 3}" stroke="#ccc"/>')
    ceil, team = row["ceiling_exact_agreement"], row["team_exact_agreement"]
    if not is_missing(ceil):
        parts.append(f'<rect x="{_x(ceil, width) - 1.5:.1f}" y="1" width="3" height="{height - 2}" fill="{CEILING}"/>')
    if not is_missing(team):
        parts.append(f'<rect x="{_x(team, width) - 1.5:.1f}" y="1" width="3" height="{height - 2}" fill="{TEAM}"/>')
    value, lo, hi = row["exact_agreement"], row["exact_agreement_ci_low"], row["exact_agreement_ci_high"]
    if not is_missing(lo) and not is_missing(hi):
        parts.append(
            f'<line x1="{_x(lo, width):.1f}" y1="{height / 2}" x2="{_x(hi, width):.1f}" y2="{height / 2}" '
            f'stroke="{YOU}" stroke-width="2"/>'
        )
    if not is_missing(value):
        parts.append(f'<circle cx="{_x(value, width):.1f}" cy="{height / 2}" r="4.5" fill="{YOU}"/>')
    return "".join(parts) + "</svg>"


def _card_html(report: FeedbackReport) -> str:
    """The per-dimension tables of every rubric, each row with its agreement strip."""
    rows = card_rows(report)
    out = [
        '<p class="legend">'
        f'<span><i class="swatch" style="background:{YOU}"></i>your exact agreement and 95% interval</span>'
        f'<span><i class="swatch" style="background:{TEAM}"></i>team median</span>'
        f'<span><i class="swatch" style="background:{CEILING}"></i>researchers with each other</span>'
        "<span>strip runs from 0 to 1, line at 0.5</span></p>"
    ]
    for rubric in rows["rubric"].drop_duplicates():
        sel = (rows["rubric"] == rubric).to_numpy()
        g, raw = rows[sel].drop(columns="rubric"), report.card[sel]
        head = "".join(f"<th>{_e(c)}</th>" for c in ["Dimension", "Exact agreement (0 to 1)", *g.columns[1:]])
        body = "".join(
            f"<tr><td>{_e(r['Dimension'])}</td><td>{agreement_strip(c)}</td>"
            + "".join(f"<td>{_e(r[k])}</td>" for k in g.columns[1:])
            + "</tr>"
            for (_, r), (_, c) in zip(g.iterrows(), raw.iterrows(), strict=True)
        )
        out.append(
            f"<h3>{_e(rubric_title(rubric))}</h3><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )
    return "".join(out) if not rows.empty else "<p>No unit shared with a researcher.</p>"


def weekly_svg(weekly: pd.DataFrame, width: int = 640, height: int = 190) -> str:
    """Inline SVG of one rubric's weekly exact agreement: line, 95% band, team median dashed."""
    left, right, top, bottom = 40, 28, 10, 34
    w = weekly.sort_values("week").reset_index(drop=True)
    n = len(w)

    def px(i: int) -> float:
        return left + (i * (width - left - right) / (n - 1) if n > 1 else (width - left - right) / 2)

    def py(v: float) -> float:
        return top + (1 - v) * (height - top - bottom)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">']
    for v in (0, 0.25, 0.5, 0.75, 1):
        parts.append(f'<line x1="{left}" y1="{py(v):.1f}" x2="{width - right}" y2="{py(v):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 4}" y="{py(v) + 4:.1f}" font-size="10" text-anchor="end">{v:g}</text>')
    for i, week in enumerate(w["week"]):
        label = _e(f"{pd.Timestamp(week):%m-%d}")
        parts.append(
            f'<text x="{px(i):.1f}" y="{height - bottom + 14}" font-size="10" text-anchor="middle">{label}</text>'
        )
    # the interval of each week as a vertical band segment (w has a RangeIndex: i is the position)
    for i, (_, r) in enumerate(w.iterrows()):
        if not is_missing(r["ci_low"]):
            parts.append(
                f'<line x1="{px(i):.1f}" y1="{py(r["ci_low"]):.1f}" x2="{px(i):.1f}" y2="{py(r["ci_high"]):.1f}" '
                f'stroke="{YOU}" stroke-opacity="0.3" stroke-width="10"/>'
            )
    team = [(px(i), py(v)) for i, v in enumerate(w["team_exact_agreement"]) if not is_missing(v)]
    if len(team) > 1:
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in team)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{TEAM}" stroke-dasharray="4 3"/>')
    pts = " ".join(f"{px(i):.1f},{py(v):.1f}" for i, v in enumerate(w["exact_agreement"]))
    parts.append(f'<polyline points="{pts}" fill="none" stroke="{YOU}" stroke-width="2"/>')
    for i, (_, r) in enumerate(w.iterrows()):  # w has a RangeIndex: i is the position
        fill = "white" if r["small_n"] else YOU
        parts.append(
            f'<circle cx="{px(i):.1f}" cy="{py(r["exact_agreement"]):.1f}" r="3.5" fill="{fill}" stroke="{YOU}"/>'
        )
    parts.append(
        f'<text x="{left}" y="{height - 4}" font-size="10" fill="#666">week starting (month-day); hollow dot: '
        "fewer than two tasks</text>"
    )
    return "".join(parts) + "</svg>"


def _weekly_html(report: FeedbackReport) -> str:
    """Per rubric the weekly chart and table, then the early/late comparison."""
    if report.weekly.empty:
        return "<p>No week has a unit shared with a researcher.</p>"
    out = [
        f'<p class="muted">{_e(WEEKLY_EXPLAIN)}</p><p class="legend">'
        f'<span><i class="swatch" style="background:{YOU}"></i>your exact agreement (band: 95% interval)</span>'
        f'<span><i class="swatch" style="background:{TEAM}"></i>team median (dashed)</span></p>'
    ]
    rows = weekly_rows(report)
    for rubric in report.weekly["rubric"].drop_duplicates():
        sel = report.weekly["rubric"] == rubric
        out.append(f"<h3>{_e(rubric_title(rubric))}</h3>{weekly_svg(report.weekly[sel])}")
        out.append(_html_table(rows[sel.to_numpy()].drop(columns="rubric")))
    if not report.trend.empty:
        out.append("<p>First against second half of your weeks (change with its 95% interval):</p>")
        out.append(_html_table(trend_rows(report)))
    return "".join(out)


def _levels_html(levels: pd.DataFrame) -> str:
    """Per dimension, paired bars of the contractor's and the researchers' share of each level."""
    if levels.empty:
        return "<p>No unit shared with a researcher.</p>"
    out = [
        '<p class="legend">'
        f'<span><i class="swatch" style="background:{YOU}"></i>you</span>'
        f'<span><i class="swatch" style="background:{CEILING}"></i>researchers, on the same units</span></p>'
    ]
    current = None
    for (rubric, _, label), g in levels.groupby(["rubric", "dimension", "dimension_label"], sort=False):
        if rubric != current:
            out.append(
                ("</div>" if current is not None else "")
                + f"<h3>{_e(rubric_title(str(rubric)))}</h3><div class='dims'>"
            )
            current = rubric
        n = int(g.loc[g["role"] == "contractor", "n"].sum())
        cells = []
        for (_, lvl), lg in g.groupby(["level_index", "level"], sort=True):
            share = dict(zip(lg["role"], lg["share"].fillna(0.0), strict=True))
            you, res = share.get("contractor", 0.0), share.get("researcher", 0.0)
            cells.append(
                f'<div class="lvl"><div class="pair" title="you {you:.0%}, researchers {res:.0%}">'
                f'<div class="bar" style="height:{you * 50:.0f}px;background:{YOU}"></div>'
                f'<div class="bar" style="height:{res * 50:.0f}px;background:{CEILING}"></div></div>'
                f"{_e(lvl)}<br>{you:.0%} / {res:.0%}</div>"
            )
        out.append(
            f"<div class='dim'><p><b>{_e(label)}</b> <span class='muted'>({n} pairs)</span></p>"
            f"<div class='bars'>{''.join(cells)}</div></div>"
        )
    return "".join(out) + "</div>"


def _cases_html(report: FeedbackReport) -> str:
    """Each disagreement as a box: heading, both ratings, the texts (escaped, line breaks kept), the review."""
    if report.disagreements.empty:
        return "<p>No disagreement with a researcher.</p>"
    out = []
    for _, case in report.disagreements.iterrows():
        body = [f"<h3>{_e(case_heading(case))}</h3><div>{_e(case_values(case, report.contractor_id))}</div>"]
        for col, label in CASE_TEXTS:
            if not is_missing(case[col]):
                body.append(f'<div class="muted">{_e(label)}</div><div class="text">{_e(case[col])}</div>')
        body.append(f"<div><b>{_e(note_line(case))}</b></div>")
        out.append(f'<div class="case">{"".join(body)}</div>')
    return "".join(out)


def _effects_html(report: FeedbackReport) -> str:
    """Each effect that applies as a box (evidence and advice), then the effects checked and not seen."""
    out = [f'<p class="muted">{_e(EFFECTS_EXPLAIN)}</p>']
    for _, effect in shown_effects(report).iterrows():
        out.append(
            f'<div class="case"><h3>{_e(effect_heading(effect))}</h3><div>{_e(effect["evidence"])}</div>'
            f"<div><b>What to do:</b> {_e(effect['advice'])}</div></div>"
        )
    if shown_effects(report).empty:
        out.append("<p>No rater effect shows clearly in your ratings.</p>")
    out += [f'<p class="muted">{_e(line)}</p>' for line in effects_summary(report)]
    return "".join(out)


def to_html(report: FeedbackReport, generated_at: dt.datetime | None = None) -> str:
    """The report as one self-contained HTML page: inline CSS and SVG, no script, no external request."""
    who = _e(report.name or report.contractor_id)
    generated = f" Generated {generated_at:%Y-%m-%d %H:%M}." if generated_at else ""
    highlights = "".join(f"<li>{_e(h)}</li>" for h in report.highlights) or "<li>No figures yet.</li>"
    durations = (
        _html_table(duration_rows(report)) if not report.durations.empty else "<p>No durations were recorded.</p>"
    )
    sections = [
        f"<h1>Feedback for {who}</h1>",
        f'<p class="muted">{_e(period_text(report))}. Covers {_e(filters_text(report))}.{_e(generated)}</p>',
        f'<p class="muted">Computed on: {_e(stamp_line(report.stamp))}</p>',
        f"<h2>Highlights</h2><ul>{highlights}</ul>",
        f"<h2>What to change</h2>{_effects_html(report)}",
        "<h2>Drift alerts</h2>"
        + (
            "<ul>" + "".join(f"<li>{_e(line)}</li>" for line in alert_lines(report)) + "</ul>"
            if len(report.alerts)
            else "<p>No drift alert: your agreement held.</p>"
        ),
        f'<h2>Rubric rules you broke</h2><p class="muted">{_e(RULES_EXPLAIN)}</p>'
        + (_html_table(rule_rows(report)) if not report.rules.empty else "<p>No rubric rule broken.</p>"),
        f'<h2>Agreement with researchers, per dimension</h2><p class="muted">{_e(EXPLAIN)}</p>{_card_html(report)}',
        f"<h2>Agreement week by week</h2>{_weekly_html(report)}",
        f"<h2>Levels you use, against researchers on the same units</h2>{_levels_html(report.levels)}",
        f"<h2>Time per submission</h2>{durations}",
        "<h2>Most severe disagreements</h2><p class='muted'>On each rubric's primary dimension, most severe first; "
        f"every case a reviewer noted is listed too.</p>{_cases_html(report)}",
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        'img-src data:">'
        f"<title>Feedback for {who}</title><style>{CSS}</style></head><body>\n"
        + "\n".join(sections)
        + "\n</body></html>\n"
    )


# --- CSV -----------------------------------------------------------------------------------------------------


def disagreements_csv(report: FeedbackReport) -> str:
    """The listed disagreements as CSV through the one writer (analytics.csv_out: one row per case, text that a
    spreadsheet would read as a formula prefixed with an apostrophe), each row stamped with the dataset version, seed and code version."""
    s = report.stamp
    cases = report.disagreements.assign(
        stamp_dataset_version=s["dataset_version"], stamp_seed=s["seed"], stamp_code_version=s["code_version"]
    )
    return csv_out.to_csv(cases)


CSV_SECTIONS = (
    ("agreement", "card"),
    ("effect", "effects"),
    ("rule", "rules"),
    ("alert", "alerts"),
    ("week", "weekly"),
    ("trend", "trend"),
    ("time", "durations"),
    ("disagreement", "disagreements"),
)


def to_csv(report: FeedbackReport) -> str:
    """The whole report as one CSV through the one writer (analytics.csv_out): the tables of each part one under
    the other, `section` naming the part (CSV_SECTIONS) and a column only filled where it applies; a case's
    review status is `review_status`. Every row names the contractor and carries the stamp."""
    frames = []
    for section, field in CSV_SECTIONS:
        part: pd.DataFrame = getattr(report, field)
        if len(part):
            part = part.rename(columns={"status": "review_status"}) if section == "disagreement" else part
            frames.append(part.assign(section=section))
    s = report.stamp
    body = (
        pd.concat(frames, ignore_index=True).convert_dtypes()
        if frames
        else pd.DataFrame({"section": pd.Series(dtype=str)})
    )
    body = body.assign(
        contractor=report.contractor_id,
        stamp_dataset_version=s["dataset_version"],
        stamp_seed=s["seed"],
        stamp_code_version=s["code_version"],
    )
    first = ["section", "contractor", "rubric"]
    return csv_out.to_csv(body[[*first, *[c for c in body.columns if c not in first]]])


def file_stem(report: FeedbackReport) -> str:
    """A safe file name stem for the report's downloads."""
    return "feedback_" + re.sub(r"[^A-Za-z0-9_.-]+", "_", report.contractor_id)
