"""A feedback report as one self-contained HTML file: CSS inline, charts as inline SVG and plain HTML bars, no script
and no external request, so it opens anywhere and can be mailed. Every piece of submission or note text is
escaped, so it shows literally (DESIGN.md principle 4)."""

from __future__ import annotations

import datetime as dt
import html

import pandas as pd

from analytics.agreement import headline
from analytics.core.formatting import is_missing
from analytics.feedback.export import display
from analytics.feedback.report import FeedbackReport
from analytics.feedback.scope import rubric_title

# Fits a 1000 px window and an A4 page: text wraps anywhere it must (a long example or an unbroken id), tables take
# the page's width and no more, charts shrink with their cell (tests/e2e/test_export_fits.py measures it).
CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:1280px;
color:#222;padding:0 1rem;line-height:1.4;overflow-wrap:anywhere}
h1{margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.85rem;width:100%;max-width:100%}
th,td{border:1px solid #ddd;padding:.25rem .45rem;text-align:left;vertical-align:top;overflow-wrap:anywhere;
word-wrap:break-word}
th{background:#f5f5f5}td:first-child{min-width:9rem}
svg{max-width:100%;height:auto}td.strip{min-width:150px}
.muted{color:#666;font-size:.85rem}
.legend span{display:inline-block;margin-right:1rem;font-size:.85rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;vertical-align:middle;margin-right:.3rem}
.case{border:1px solid #ddd;border-radius:6px;padding:.5rem .8rem;margin:.8rem 0}
.case h3{margin:.2rem 0 .4rem 0;font-size:1rem}
.text{white-space:pre-wrap;background:#fafafa;border-left:3px solid #ccc;padding:.3rem .6rem;margin:.2rem 0 .5rem 0;
font-size:.85rem}
.dims{display:flex;flex-wrap:wrap;gap:.6rem}
.dim{border:1px solid #eee;border-radius:6px;padding:.3rem .5rem;max-width:100%;box-sizing:border-box}
.dim p{margin:.1rem 0 .3rem 0;font-size:.85rem}
.bars{display:flex;flex-wrap:wrap;gap:.3rem;align-items:flex-end}
.lvl{text-align:center;font-size:.68rem;width:4.2rem}
.pair{display:flex;gap:2px;align-items:flex-end;justify-content:center;height:50px;border-bottom:1px solid #ccc}
.bar{width:1rem}
.provenance{margin-top:2rem;border-top:1px solid #ddd;padding-top:.5rem}
@page{size:A4;margin:1.5cm}
@media print{body{margin:0;max-width:none;padding:0;font-size:9pt}table{font-size:7pt}
th,td{padding:1px 3px}td:first-child{min-width:6rem}td.strip{min-width:80px}
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
    researcher-researcher agreement (orange tick) on a 0..1 strip; the card's words instead where exact agreement
    is no headline figure (a fine interval or ratio scale, analytics.agreement.headline)."""
    if not headline("exact_agreement", str(row["level"]), int(row["n_levels"])):
        return _e(display.NOT_HEADLINE)
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
    rows = display.card_rows(report)
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
            f"<tr><td>{_e(r['Dimension'])}</td><td class='strip'>{agreement_strip(c)}</td>"
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

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'role="img">'
    ]
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
        f'<p class="muted">{_e(display.WEEKLY_EXPLAIN)}</p><p class="legend">'
        f'<span><i class="swatch" style="background:{YOU}"></i>your exact agreement (band: 95% interval)</span>'
        f'<span><i class="swatch" style="background:{TEAM}"></i>team median (dashed)</span></p>'
    ]
    rows = display.weekly_rows(report)
    for rubric in report.weekly["rubric"].drop_duplicates():
        sel = report.weekly["rubric"] == rubric
        out.append(f"<h3>{_e(rubric_title(rubric))}</h3>{weekly_svg(report.weekly[sel])}")
        out.append(_html_table(rows[sel.to_numpy()].drop(columns="rubric")))
    if not report.trend.empty:
        out.append("<p>First against second half of your weeks (change with its 95% interval):</p>")
        out.append(_html_table(display.trend_rows(report)))
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
        for (_, lvl), share in display.level_shares(g).items():
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
        body = [
            f"<h3>{_e(display.case_heading(case))}</h3><div>{_e(display.case_values(case, report.contractor_id))}</div>"
        ]
        for col, label in display.CASE_TEXTS:
            if not is_missing(case[col]):
                body.append(f'<div class="muted">{_e(label)}</div><div class="text">{_e(case[col])}</div>')
        body.append(f"<div><b>{_e(display.note_line(case))}</b></div>")
        out.append(f'<div class="case">{"".join(body)}</div>')
    return "".join(out)


def _effects_html(report: FeedbackReport) -> str:
    """Each effect that applies as a box (evidence and advice), then the effects checked and not seen."""
    out = [f'<p class="muted">{_e(display.EFFECTS_EXPLAIN)}</p>']
    for _, effect in display.shown_effects(report).iterrows():
        out.append(
            f'<div class="case"><h3>{_e(display.effect_heading(effect))}</h3><div>{_e(effect["evidence"])}</div>'
            f"<div><b>What to do:</b> {_e(effect['advice'])}</div></div>"
        )
    if display.shown_effects(report).empty:
        out.append("<p>No rater effect shows clearly in your ratings.</p>")
    out += [f'<p class="muted">{_e(line)}</p>' for line in display.effects_summary(report)]
    return "".join(out)


def _rules_html(report: FeedbackReport) -> str:
    """The rules broken credibly more often than the rest of the team (flagged), and a count of the others."""
    flagged = display.flagged_rule_rows(report)
    table = _html_table(flagged) if len(flagged) else f"<p>{_e(display.NO_FLAGGED_RULE)}</p>"
    others = display.unflagged_rules_line(report)
    return f'<p class="muted">{_e(display.FLAGGED_RULES_EXPLAIN)}</p>{table}' + (
        f"<p>{_e(others)}</p>" if others else ""
    )


def to_html(report: FeedbackReport, generated_at: dt.datetime | None = None) -> str:
    """The report as one self-contained HTML page: inline CSS and SVG, no script, no external request."""
    title, covers, generated = display.head_lines(report, generated_at, _e)
    highlights = "".join(f"<li>{_e(h)}</li>" for h in report.highlights) or "<li>No figures yet.</li>"
    durations = (
        _html_table(display.duration_rows(report))
        if not report.durations.empty
        else "<p>No durations were recorded.</p>"
    )
    sections = [
        f"<h1>{title}</h1>",
        f'<p class="muted">{" ".join(filter(None, (covers, generated)))}</p>',
        f"<h2>Highlights</h2><ul>{highlights}</ul>",
        f"<h2>What to change</h2>{_effects_html(report)}",
        "<h2>Alarms</h2>"
        + (
            "<ul>" + "".join(f"<li>{_e(line)}</li>" for line in display.alert_lines(report)) + "</ul>"
            if len(report.alerts)
            else f"<p>{_e(display.NO_ALARM)}</p>"
        ),
        f"<h2>Rubric rules you broke</h2>{_rules_html(report)}",
        "<h2>Agreement with researchers, per dimension</h2>"
        f'<p class="muted">{_e(display.EXPLAIN)}</p>{_card_html(report)}',
        f"<h2>Agreement week by week</h2>{_weekly_html(report)}",
        f"<h2>Levels you use, against researchers on the same units</h2>{_levels_html(report.levels)}",
        f"<h2>Time per submission</h2>{durations}",
        "<h2>Most severe disagreements</h2><p class='muted'>On each rubric's primary dimension, most severe first; "
        f"every case a reviewer noted is listed too.</p>{_cases_html(report)}",
        f'<p class="muted provenance">{_e(display.provenance_line(report))}</p>',
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        'img-src data:">'
        f"<title>{title}</title><style>{CSS}</style></head><body>\n" + "\n".join(sections) + "\n</body></html>\n"
    )
