"""The team's figures behind a feedback report: every contractor's, computed once per filter and shared by every
contractor's report, which shows them only as medians (the team median: the median of every *other* contractor's
own figure, never a single other contractor's value), and the researcher ceiling (analytics.agreement.team)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import duckdb
import numpy as np
import pandas as pd

from analytics import agreement as ag
from analytics.alarms.review import Review, narrowed, review
from analytics.consistency import rates as cons
from analytics.core.concurrent import side_by_side
from analytics.core.filters import Filters
from analytics.feedback import next as who_next
from analytics.feedback.durations import contractor_durations
from analytics.feedback.scope import NO_FILTERS, against_researchers, team_filter
from analytics.feedback.weekly import weekly_by_contractor

KAPPA_NAMES = {"none": "Cohen's kappa", "linear": "weighted kappa (linear)", "quadratic": "weighted kappa (quadratic)"}


@dataclass(frozen=True)
class TeamFigures:
    """Everyone's figures for one filter, computed once and shared by every contractor's report.

    Holds other contractors' individual figures, so it is never shown: reports take medians from it."""

    filters: Filters
    contractors: pd.DataFrame  # rater_agreement rows of every contractor (intervals on primary dimensions at most)
    researchers: pd.DataFrame  # the researcher ceiling per dimension (agreement.ceiling_table, all dates)
    weekly: pd.DataFrame  # rater_id, rubric, week, n_pairs, agree
    durations: pd.DataFrame  # rater_id, rubric, submissions, median_s
    positions: pd.DataFrame  # distributions.position_bias rows of every rubric (with `rubric`), raters and roles
    rules: cons.Consistency  # the rubric rules' rates of every contractor, their violations and alarms
    effects: pd.DataFrame  # analytics.effects.estimate_effects: every contractor's effects, shrunk, with alarms
    alerts: pd.DataFrame  # analytics.alarms.review's alarms of every contractor (ALERT_COLUMNS)
    power: pd.DataFrame  # what each alarm kind finds at the team's n (analytics.alarms.power)


def researcher_figures(con: duckdb.DuckDBPyConnection, rubric: str | None = None) -> pd.DataFrame:
    """The researcher ceiling per dimension (analytics.agreement.team): researcher pairs on the same units over
    all dates, so a page can keep it while the dates change."""
    return with_kappa(ag.ceiling_table(con, against_researchers(Filters(rubric=rubric))))


@dataclass(frozen=True)
class TeamParts:
    """The part of TeamFigures that needs no alarm review (team_parts), so a page can compute it while the review
    is computed, and join them (with_alarms)."""

    filters: Filters
    contractors: pd.DataFrame
    researchers: pd.DataFrame
    weekly: pd.DataFrame
    durations: pd.DataFrame
    ranked: pd.DataFrame | None = None  # next.primary_agreement (with ranked=True): the ranking's agreement gaps


def team_parts(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTERS,
    researchers: pd.DataFrame | None = None,
    ranked: bool = False,
) -> TeamParts:
    """Every contractor's agreement, weeks and durations under the filter, and the ceiling (`researchers`:
    researcher_figures of the filter's rubric, computed here when not given). The agreement has no intervals; with
    `ranked`, it has them on each rubric's primary dimension, which give the ranking's primary_agreement from the
    same call (next.ranking's gaps: one call costs about 0.1 s less than two on the demo)."""
    f = team_filter(filters)
    primary = who_next.primary_pairs(con, f) if ranked else frozenset()
    spec = against_researchers(f, who_next.N_BOOT, 0) if primary else against_researchers(f)

    def rest(c: duckdb.DuckDBPyConnection) -> dict:
        return {
            "researchers": researcher_figures(c, f.rubric) if researchers is None else researchers,
            "weekly": weekly_by_contractor(c, f),
            "durations": contractor_durations(c, f)[["rater_id", "rubric", "submissions", "median_s"]],
        }

    agreement = partial(ag.rater_agreement, spec=spec, interval_dimensions=primary or None)
    rows, others = side_by_side(con, agreement, rest)
    contractors = with_kappa(rows[rows["role"] == "contractor"])
    ranked_rows = who_next.primary_rows(rows, primary) if ranked else None
    return TeamParts(filters=f, contractors=contractors, ranked=ranked_rows, **others)


def with_alarms(parts: TeamParts, alarms: Review) -> TeamFigures:
    """The team's figures: `parts` and the alarm review of the same team (analytics.alarms.review)."""
    found = narrowed(alarms, parts.filters)
    return TeamFigures(
        filters=parts.filters,
        contractors=parts.contractors,
        researchers=parts.researchers,
        weekly=parts.weekly,
        durations=parts.durations,
        positions=found.positions,
        effects=found.effects,
        rules=found.rules,
        alerts=found.alerts,
        power=found.power,
    )


def team_figures(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTERS,
    researchers: pd.DataFrame | None = None,
    alarms: Review | None = None,
) -> TeamFigures:
    """Every contractor's figures under the filter and the ceiling (no intervals: only medians are shown).

    Pass `researchers` (researcher_figures of the filter's rubric) and `alarms` (the review of the filter's team,
    analytics.alarms.review.team_review) to reuse them; the review is computed beside the rest otherwise."""
    f = team_filter(filters)
    if alarms is not None:
        return with_alarms(team_parts(con, f, researchers), alarms)
    parts, found = side_by_side(con, lambda c: team_parts(c, f, researchers), lambda c: review(c, f))
    return with_alarms(parts, found)


def with_kappa(rows: pd.DataFrame) -> pd.DataFrame:
    """Rater rows with `kappa`: weighted kappa where the scale has weights, else Cohen's kappa."""
    weighted = rows["weights"] != "none"
    out = rows.copy()
    for suffix in ("", "_ci_low", "_ci_high"):
        out[f"kappa{suffix}"] = np.where(weighted, rows[f"weighted_kappa{suffix}"], rows[f"cohen_kappa{suffix}"])
    out["kappa_statistic"] = rows["weights"].map(KAPPA_NAMES).fillna("Cohen's kappa")
    return out
