"""A few plain sentences a lead can start the conversation with: agreement on each primary dimension against the
team and researcher-researcher agreement, scale shifts, falls in weekly agreement, and time per submission."""

from __future__ import annotations

import math

import pandas as pd

from analytics.agreement import headline
from analytics.feedback.scope import rubric_title


def _num(x: float, digits: int = 2) -> str:
    """A number for a sentence ("n/a" when undefined)."""
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _shift_sentence(rubric: str, shifted: pd.DataFrame) -> str:
    """One rubric's dimensions whose mean difference from researchers is clear of zero, in plain words: how many
    lean toward the scale's last level and how many toward its first, and the largest lean in levels."""
    later = int((shifted["mean_difference"] > 0).sum())
    top = shifted.loc[shifted["mean_difference"].abs().idxmax()]  # type: ignore[call-overload]  # pandas-stubs: idxmax is Hashable
    toward = "last" if top["mean_difference"] > 0 else "first"
    n = len(shifted)
    return (
        f"{rubric_title(rubric)}: on {n} dimension{'' if n == 1 else 's'} your ratings lean one way compared with "
        f"researchers' on the same tasks, more than chance would explain: {later} toward the scale's last level, "
        f"{n - later} toward its first. The largest lean is on {top['dimension_label']}: on average "
        f"{abs(top['mean_difference']):.2f} levels toward the {toward} level."
    )


PRIMARY_COLUMNS = [  # what a primary dimension's sentence reads from the card
    "rubric",
    "dimension_label",
    "is_primary",
    "n",
    "n_tasks",
    "level",
    "n_levels",
    "kappa_statistic",
    *(f"{s}{q}" for s in ("exact_agreement", "kappa") for q in ("", "_ci_low", "_ci_high")),
    *(f"{p}{s}" for s in ("exact_agreement", "kappa") for p in ("team_", "ceiling_")),
]


def _records(frame: pd.DataFrame, columns: list[str]) -> list[dict]:
    """The frame's rows as dicts of the given columns (Python values), in order (none of a frame without rows,
    whatever its columns)."""
    if not len(frame):
        return []
    return [dict(zip(columns, row, strict=True)) for row in zip(*(frame[c].tolist() for c in columns), strict=True)]


def highlights(card: pd.DataFrame, trend: pd.DataFrame, times: pd.DataFrame) -> tuple[str, ...]:
    """Plain sentences: agreement on each primary dimension against team and researcher-researcher agreement
    (exact agreement, or on a fine interval or ratio scale, where it is no headline figure, the card's weighted
    kappa), scale shifts and falls in weekly agreement whose 95% interval excludes zero, and time per submission
    against the team."""
    out = []
    for r in _records(card[card["is_primary"]], PRIMARY_COLUMNS):
        where = f"{rubric_title(r['rubric'])}, {r['dimension_label']}"
        if r["n"] == 0:
            out.append(f"{where}: no unit shared with a researcher yet.")
            continue
        s = "exact_agreement" if headline("exact_agreement", str(r["level"]), int(r["n_levels"])) else "kappa"
        name = "exact agreement" if s == "exact_agreement" else str(r["kappa_statistic"])
        out.append(
            f"{where}: {name} with researchers {_num(r[s])} (95% interval "
            f"{_num(r[f'{s}_ci_low'])} to {_num(r[f'{s}_ci_high'])}, "
            f"{int(r['n_tasks'])} tasks, {int(r['n'])} pairs); "
            f"team median {_num(r[f'team_{s}'])}; researchers with each other (pooled) "
            f"{_num(r[f'ceiling_{s}'])}."
        )
    shifted = card[(card["mean_difference_ci_low"] > 0) | (card["mean_difference_ci_high"] < 0)]
    for rubric, g in shifted.groupby("rubric", sort=True):
        out.append(_shift_sentence(str(rubric), g))
    falls = trend[trend["change_ci_high"] < 0]
    for t in _records(
        falls, ["rubric", "early", "late", "early_weeks", "late_weeks", "change_ci_low", "change_ci_high"]
    ):
        out.append(
            f"{rubric_title(t['rubric'])}: exact agreement fell from {_num(t['early'])} ({t['early_weeks']}) to "
            f"{_num(t['late'])} ({t['late_weeks']}); the 95% interval of the change, {_num(t['change_ci_low'])} "
            f"to {_num(t['change_ci_high'])}, is below zero."
        )
    for d in _records(times, ["rubric", "median_s", "submissions", "team_median_s", "ratio"]):
        if not math.isnan(d["ratio"]):
            out.append(
                f"{rubric_title(d['rubric'])}: median {d['median_s']:.0f} s per submission over {int(d['submissions'])} "
                f"submissions; team median {d['team_median_s']:.0f} s ({d['ratio']:.2f} times the team's)."
            )
    return tuple(out)
