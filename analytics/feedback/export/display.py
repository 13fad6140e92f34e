"""A feedback report's parts as display text, shared by every export and the Feedback page: what it covers, the
card, weeks, levels, times, trend, rules, alerts, disagreements and effects as words and tables of text."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pandas as pd

from analytics.agreement import headline
from analytics.alarms.words import alarm_line
from analytics.core.formatting import fmt, fmt_ci, is_missing
from analytics.effects.verdicts import NOT_MEASURED, NOT_SHOWN, SHOWN, TOO_FEW
from analytics.feedback.report import FeedbackReport
from analytics.feedback.scope import rubric_title

Row = pd.Series | Mapping[str, Any]  # one row of a report's table: a Series, or a dict of its values

EXPLAIN = (
    "Agreement is measured on the units (task, dimension and answer) that you and a researcher both rated. "
    "Team median: the median of the other contractors' own figures. Researchers with each other: agreement "
    "pooled over every pair of researchers on the same units, all dates; a reference for how hard the rubric is, "
    "not a bound (a contractor can agree with researchers more than they agree with each other). Brackets hold "
    "95% intervals; n is the number of rating pairs. Mean difference is in scale steps, positive when your "
    "rating is later on the scale than the researcher's."
)
NOT_HEADLINE = "not shown (exact matches on a fine scale)"  # analytics.agreement.headline: the card's words
KAPPA_WEIGHTS = {
    "Cohen's kappa": "none (Cohen's)",
    "weighted kappa (linear)": "linear",
    "weighted kappa (quadratic)": "quadratic",
}
WEEKLY_EXPLAIN = (
    "Exact agreement with researchers over every dimension of the rubric, per week (weeks start on Monday), "
    "with a 95% interval from resampling the week's tasks (no interval with fewer than two tasks)."
)


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


def head_lines(
    report: FeedbackReport, generated_at: dt.datetime | None, escape: Callable[[object], str]
) -> tuple[str, str, str]:
    """The top of an export: its title, what it covers and when it was generated ("" when not said), every piece
    taken from the data escaped with the export's `escape`. What the figures were computed on comes last
    (provenance_line)."""
    return (
        f"Feedback for {escape(report.name or report.contractor_id)}",
        f"{escape(period_text(report))}. Covers {escape(filters_text(report))}.",
        f"Generated {generated_at:%Y-%m-%d %H:%M}." if generated_at else "",
    )


def provenance_line(report: FeedbackReport) -> str:
    """What the figures were computed on, in plain words for the end of an export: the program, the data's version,
    what was covered, and how the intervals were drawn (so the same data give the same figures again)."""
    s = report.stamp
    scales = len(s.get("scales", []))
    n_boot = int(s.get("n_boot", 0))
    intervals = (
        f"the 95% intervals come from {n_boot:,} random resamples of the tasks, drawn the same way every time "
        f"(seed {s.get('seed')}), so the same data always give the same figures"
        if n_boot
        else "no 95% intervals were computed"
    )
    return (
        f"How these figures were made: Concord {s.get('code_version')} computed them from version "
        f"{s.get('dataset_version')} of the loaded data (the number goes up each time files are loaded or removed), "
        f"covering {filters_text(report)} and {scales} rating scale{'' if scales == 1 else 's'}; {intervals}."
    )


def card_rows(report: FeedbackReport) -> pd.DataFrame:
    """The report card as display text, one row per dimension (the columns both exports show)."""
    c = {k: report.card[k].tolist() for k in report.card.columns}
    out: dict[str, list] = {
        "rubric": c["rubric"],
        "Dimension": [
            f"{label}{' (primary)' if p else ''}"
            for label, p in zip(c["dimension_label"], c["is_primary"], strict=True)
        ],
        "n": [
            f"{int(t)} tasks, {int(n)} pairs{' (small)' if small else ''}"
            for t, n, small in zip(c["n_tasks"], c["n"], c["small_n"], strict=True)
        ],
    }
    for s, name in (
        ("exact_agreement", "Exact"),
        ("coarse_agreement", "Coarse"),
        ("kappa", "Kappa"),
        ("mean_difference", "Mean difference"),
    ):
        out[name] = [
            fmt_ci(v, lo, hi) if headline(s, str(lvl), int(k)) else NOT_HEADLINE
            for v, lo, hi, lvl, k in zip(
                c[s], c[f"{s}_ci_low"], c[f"{s}_ci_high"], c["level"], c["n_levels"], strict=True
            )
        ]
    out["Kappa weights"] = [KAPPA_WEIGHTS.get(k, k) for k in c["kappa_statistic"]]
    out["Team exact / coarse / kappa"] = [
        " / ".join(fmt(v) for v in vals)
        for vals in zip(c["team_exact_agreement"], c["team_coarse_agreement"], c["team_kappa"], strict=True)
    ]
    out["Researchers with each other (pooled) exact / coarse / kappa"] = [
        " / ".join(fmt(v) for v in vals)
        for vals in zip(c["ceiling_exact_agreement"], c["ceiling_coarse_agreement"], c["ceiling_kappa"], strict=True)
    ]
    return pd.DataFrame(out, columns=CARD_ROW_COLUMNS)


CARD_ROW_COLUMNS = [
    "rubric",
    "Dimension",
    "n",
    "Exact",
    "Coarse",
    "Kappa",
    "Mean difference",
    "Kappa weights",
    "Team exact / coarse / kappa",
    "Researchers with each other (pooled) exact / coarse / kappa",
]


def weekly_rows(report: FeedbackReport) -> pd.DataFrame:
    """Weekly agreement as display text."""
    w = report.weekly
    return pd.DataFrame(
        {
            "rubric": w["rubric"].tolist(),
            "Week": [f"{pd.Timestamp(x):%Y-%m-%d}" for x in w["week"]],
            "Tasks": [str(int(n)) for n in w["n_tasks"]],
            "Pairs": [str(int(n)) for n in w["n_pairs"]],
            "Exact": [
                fmt_ci(v, lo, hi) for v, lo, hi in zip(w["exact_agreement"], w["ci_low"], w["ci_high"], strict=True)
            ],
            "Coarse": [fmt(v) for v in w["coarse_agreement"]],
            "Team median exact": [fmt(v) for v in w["team_exact_agreement"]],
        }
    )


def level_shares(g: pd.DataFrame) -> dict[tuple, dict]:
    """Per (level_index, level) in scale order, each role's share of that level (a role without one is left out:
    read it as 0), for both exports' level sections."""
    return _shares(zip(g["level_index"], g["level"], g["role"], g["share"], strict=True))


def _shares(rows: Iterable[tuple]) -> dict[tuple, dict]:
    """level_shares of (level_index, level, role, share) rows: a row with a missing field is left out, a role's
    first share of a level is kept."""
    shares: dict[tuple, dict] = {}
    for key in rows:
        if not any(pd.isna(k) for k in key):
            shares.setdefault(key[:2], {}).setdefault(key[2], key[3])
    return dict(sorted(shares.items()))


LEVEL_KEYS = ("rubric", "dimension", "dimension_label")  # a level summary's row
LEVEL_FIELDS = ("level_index", "level", "role", "share", "n")


def level_summary(levels: pd.DataFrame) -> pd.DataFrame:
    """Per dimension, "level you% / researchers%" for every level in scale order (the dimensions in the order they
    first appear; a row missing its rubric, dimension or label is left out, as a pandas groupby leaves it)."""
    groups: dict[tuple, list[tuple]] = {}
    for row in zip(*(levels[c].tolist() for c in (*LEVEL_KEYS, *LEVEL_FIELDS)), strict=True):
        if not any(pd.isna(k) for k in row[:3]):
            groups.setdefault(row[:3], []).append(row[3:])
    rows = []
    for (rubric, _, label), g in groups.items():
        cells = [
            f"{lvl} {float(s.get('contractor', 0.0)):.0%} / {float(s.get('researcher', 0.0)):.0%}"
            for (_, lvl), s in _shares(r[:4] for r in g).items()
        ]
        n = int(sum(r[4] for r in g if isinstance(r[2], str) and r[2] == "contractor"))
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
            "Submissions": [str(int(n)) for n in d["submissions"]],
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
            "Early weeks": t["early_weeks"].tolist(),
            "Early exact": [fmt(v) for v in t["early"]],
            "Late weeks": t["late_weeks"].tolist(),
            "Late exact": [fmt(v) for v in t["late"]],
            "Change": [
                fmt_ci(v, lo, hi)
                for v, lo, hi in zip(t["change"], t["change_ci_low"], t["change_ci_high"], strict=True)
            ],
        }
    )


FLAGGED_RULES_EXPLAIN = (
    "Rules of the rubric that a single submission can break, checked on every submission you made, whether or not "
    "a researcher rated it. Listed here are the rules you broke clearly more often than the rest of the team, "
    "more often than chance would explain."
)
NO_FLAGGED_RULE = "No rubric rule broken more often than the rest of the team."


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


def flagged_rule_rows(report: FeedbackReport) -> pd.DataFrame:
    """The exports' "Rubric rules you broke": only the flagged rules (broken credibly more often than the rest of
    the team), without the Flagged column that would say yes on every row."""
    rows = rule_rows(report)
    flagged = report.rules["flagged"].astype(bool).to_numpy() if len(rows) else rows.index.notna()
    return rows.loc[flagged].drop(columns="Flagged").reset_index(drop=True)


def unflagged_rules_line(report: FeedbackReport) -> str:
    """One sentence counting the rules broken now and then but not flagged ("" when none), so an export that lists
    only flagged rules does not hide that others were broken."""
    n = int((~report.rules["flagged"].astype(bool)).sum()) if len(report.rules) else 0
    if not n:
        return ""
    return (
        f"You also broke {n} other rule{'' if n == 1 else 's'} now and then, no more often than the rest of the team."
    )


NO_ALARM = "No alarm: nothing credibly beyond the rest of the team under the review's false-alarm budget."


def alert_lines(report: FeedbackReport) -> list[str]:
    """Each alarm of the contractor as a plain sentence: kind, rubric and dimension or rule, since when, the
    evidence, and who acknowledged it."""
    return [alert_line(a) for a in report.alerts.itertuples(index=False)] if len(report.alerts) else []


def alert_line(a: Any) -> str:
    """One alarm (an ALERT_COLUMNS row) as a plain sentence: the pages' own line (words.alarm_line), and who
    acknowledged it."""
    acked = f" Acknowledged by {a.acknowledged_by}: {a.reason}" if a.acknowledged else ""
    return f"{alarm_line(a)}{acked}"


def case_heading(case: Row) -> str:
    """One disagreement's heading (plain text): rank, severity, rubric, task, dimension and target."""
    target = f", {case['target']}" if not is_missing(case["target"]) else ""
    return (
        f"Case {case['rank']}, {case['severity']}: {rubric_title(case['rubric'])}, task {case['task_id']} "
        f"({case['dimension']}{target})"
    )


def case_values(case: Row, contractor: str) -> str:
    """The contractor's rating of a case and every researcher's rating of the unit in one line (plain text); the
    steps are to the furthest researcher."""
    several = int(case["n_researchers"]) > 1
    researchers = f"researchers {case['researchers']}" if several else f"researcher {case['researchers']}"
    furthest = f" from researcher {case['researcher_id']}" if several else ""
    return (
        f"{contractor} (you): {case['contractor_value']} · {researchers} · {int(case['steps'])} step(s) apart"
        f"{furthest} · rated {_fmt_time(case['submitted_at'])}"
    )


def note_line(case: Row) -> str:
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
    "Each rater effect is checked on every rubric where your ratings can show it. One is listed here only when "
    "the review raises an alarm on it: your own figure credibly beyond the rest of the team's by more than the "
    "effect's margin, within one false-alarm budget for every alarm of the review."
)


def effect_heading(effect: Row) -> str:
    """One shown effect's heading (plain text): its title and rubric."""
    return f"{effect['title']}: {rubric_title(effect['rubric'])}"


def effects_summary(report: FeedbackReport) -> list[str]:
    """Plain sentences naming the effects checked and not seen, and those with too few ratings to judge."""
    e = report.effects
    rows = list(zip(e["status"].tolist(), e["title"].tolist(), e["rubric"].tolist(), strict=True)) if len(e) else []
    out = []
    for status, lead in (
        (NOT_SHOWN, "Checked and not seen"),
        (TOO_FEW, "Too few ratings to judge"),
        (NOT_MEASURED, "Not measurable from these files"),
    ):
        if named := [f"{t} ({rubric_title(r)})" for s, t, r in rows if s == status]:
            out.append(f"{lead}: {'; '.join(named)}.")
    return out


def shown_effects(report: FeedbackReport) -> pd.DataFrame:
    """The effects that apply to the contractor (status shown), in report order."""
    e = report.effects
    return e[e["status"] == SHOWN] if len(e) else e


# Characters of a rater id kept in a file name: a name of at most 255 bytes fits every common file system, with
# room for the prefix, a hash, a "_2" and the suffix.
STEM_ID_CHARS = 80


def file_stem(report: FeedbackReport) -> str:
    """A safe file name stem for the report's downloads: the id's safe characters, bounded; a long id's first
    characters and a short hash of the whole id (two long ids that start alike get different names)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", report.contractor_id)
    if len(safe) > STEM_ID_CHARS:
        digest = hashlib.sha256(report.contractor_id.encode("utf-8")).hexdigest()[:12]
        safe = f"{safe[:STEM_ID_CHARS]}_{digest}"
    return "feedback_" + safe
