"""A contractor's feedback report: how they agree with researchers, against the team and the researchers' own
agreement, week by week, how they use each scale, their most severe disagreements, the rater effects and rubric
rules that apply to them, and their time per task; assembled from the contractor's own figures and the team's."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pandas as pd

from analytics.core.filters import Filters
from analytics.feedback import card as cd
from analytics.feedback import cases as cs
from analytics.feedback import durations as du
from analytics.feedback import followup as fu
from analytics.feedback import highlights as hl
from analytics.feedback import levels as lv
from analytics.feedback import rater_effects as ef
from analytics.feedback import rules as rl
from analytics.feedback import scope
from analytics.feedback import weekly as wk
from analytics.feedback.cases import MAX_CASES
from analytics.feedback.scope import NO_FILTERS
from analytics.feedback.team import TeamFigures, team_figures
from analytics.store import people
from analytics.store.stamp import stamp


@dataclass(frozen=True)
class FeedbackReport:
    """One contractor's report card; every table names this contractor only (others are medians)."""

    contractor_id: str
    filters: Filters
    rubrics: tuple[str, ...]
    first_rating: dt.datetime | None
    last_rating: dt.datetime | None
    n_ratings: int
    card: pd.DataFrame  # CARD_COLUMNS, one row per rubric dimension the contractor rated
    weekly: pd.DataFrame  # WEEK_COLUMNS, one row per rubric and week with pairs
    trend: pd.DataFrame  # per rubric: agreement in the first and second half of the contractor's weeks
    levels: pd.DataFrame  # per dimension, level and side (contractor / researchers) on shared units
    disagreements: pd.DataFrame  # CASE_COLUMNS, most severe first
    effects: pd.DataFrame  # EFFECT_COLUMNS: each rater effect checked per rubric, those shown first
    durations: pd.DataFrame  # per rubric: submissions, median seconds, team median, ratio
    highlights: tuple[str, ...]  # a few plain sentences a lead can start the conversation with
    rules: pd.DataFrame  # RULE_COLUMNS: the rubric rules this contractor broke (analytics/consistency)
    alerts: pd.DataFrame  # this contractor's alarms (analytics.alarms.review.ALERT_COLUMNS)
    stamp: dict  # what the figures were computed on (analytics.stamp)
    name: str = ""  # how the contractor is named to people ("Dana K. (c13)" with a rater directory, else the id)
    # followup.COLUMNS: what came after each feedback the contractor was given, under the filter's rubric
    followups: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(fu.COLUMNS)))


@dataclass(frozen=True)
class OwnFigures:
    """The part of one contractor's report that does not need the team's figures, so that its queries can run
    while the team's do: the Feedback page runs them side by side."""

    contractor: str
    filters: Filters
    n_boot: int
    seed: int
    max_cases: int
    n_ratings: int
    first_rating: dt.datetime | None
    last_rating: dt.datetime | None
    rubrics: tuple[str, ...]
    agreement: pd.DataFrame  # card.own_agreement: rater_agreement rows with intervals
    weeks: pd.DataFrame  # weekly.own_weeks: exact agreement per rubric and week, with intervals
    trend: pd.DataFrame  # weekly.early_late_trend
    stamp: dict  # what the figures were computed on (analytics/store/stamp.py)
    durations: pd.DataFrame  # durations.own_durations: per rubric
    levels: pd.DataFrame  # levels_vs_researchers
    disagreements: pd.DataFrame  # severe_cases

    def made_for(self) -> tuple:
        """What the figures were computed for: contractor, filter, n_boot, seed and max_cases."""
        return self.contractor, self.filters, self.n_boot, self.seed, self.max_cases


@dataclass(frozen=True)
class Shared:
    """What the reports of many contractors under one filter share, computed once (feedback_reports)."""

    agreement: dict[str, pd.DataFrame]  # card.every_own_agreement: each contractor's rows, with intervals
    stamp: dict  # what the figures were computed on (the same filter, resamples and seed for every one)
    names: dict[str, str]  # people.display_names
    weeks: dict[str, pd.DataFrame]  # weekly.every_weekly_by_task: each contractor's pairs per rubric, week and task
    durations: dict[str, pd.DataFrame]  # durations.every_own_durations
    cases: dict[str, pd.DataFrame]  # cases.every_severe_cases: each contractor's (at the reports' max_cases)
    known: dict[str, pd.DataFrame]  # scope.catalogue of every rubric the contractors rated
    levels: dict[str, pd.DataFrame]  # levels.every_levels_vs_researchers
    effects: Mapping[str, ef.EffectRows]  # rater_effects.every_effect_rows: each contractor's effects-table rows
    positions: dict[str, ef.RubricPositions]  # rater_effects.rubric_positions: the team's position_bias rows per rubric
    spans: dict[str, tuple[int, Any, Any]]  # scope.every_span: each contractor's ratings, first and last rating time
    rubrics: dict[str, tuple[str, ...]]  # scope.each_contractors_rubrics
    rules: dict[str, pd.DataFrame]  # rules.every_broken_rules
    alerts: dict[str, pd.DataFrame]  # own_alerts: each contractor's alarms
    cards: dict[str, pd.DataFrame]  # card.every_card_vs_team: each contractor's card beside the team's figures
    week_medians: dict[str, pd.DataFrame]  # weekly.every_team_week_medians
    times: dict[str, pd.DataFrame]  # durations.every_durations_vs_team


def own_figures(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    filters: Filters = NO_FILTERS,
    n_boot: int = 1000,
    seed: int = 0,
    max_cases: int = MAX_CASES,
    shared: Shared | None = None,
    known: scope.Catalogue | None = None,
) -> OwnFigures:
    """The contractor's own figures under the filter (rubric and dates; other raters are ignored); ValueError
    when there is no contractor or they have no ratings under the filter. `shared`: what every contractor's
    figures share, computed once for many (feedback_reports); `known`: scope.catalogue of their rubrics, when read
    beforehand."""
    if not contractor:
        raise ValueError("feedback_report needs a contractor id")
    n, first, last = shared.spans[contractor] if shared else scope.span_query(contractor, filters).rows(con)[0]
    if n == 0:
        raise ValueError(f"contractor {contractor!r} has no ratings under these filters")
    rated = shared.rubrics[contractor] if shared else scope.contractor_rubrics(con, contractor, filters)
    by_task = shared.weeks[contractor] if shared else wk.weekly_by_task(con, contractor, filters)
    cases = shared.cases[contractor] if shared else cs.severe_cases(con, contractor, filters, rated, max_cases)
    return OwnFigures(
        contractor=contractor,
        filters=filters,
        n_boot=n_boot,
        seed=seed,
        max_cases=max_cases,
        n_ratings=int(n),
        first_rating=first,
        last_rating=last,
        rubrics=rated,
        agreement=shared.agreement[contractor] if shared else cd.own_agreement(con, contractor, filters, n_boot, seed),
        weeks=wk.own_weeks(by_task, n_boot, seed),
        trend=wk.early_late_trend(by_task, n_boot, seed),
        stamp=shared.stamp if shared else stamp(con, filters, None, False, n_boot, seed),
        durations=shared.durations[contractor] if shared else du.own_durations(con, contractor, filters),
        levels=shared.levels[contractor] if shared else lv.levels_vs_researchers(con, contractor, filters, known),
        disagreements=cases,
    )


def feedback_report(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    filters: Filters = NO_FILTERS,
    team: TeamFigures | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    max_cases: int = MAX_CASES,
    own: OwnFigures | None = None,
    names: dict[str, str] | None = None,
    known: scope.Catalogue | None = None,
    shared: Shared | None = None,
    followups: pd.DataFrame | None = None,
) -> FeedbackReport:
    """The contractor's whole feedback report under the filter (rubric and dates; other raters are ignored).

    Pass `team` (from team_figures with the same filter) to reuse it across contractors, and `own` (own_figures
    with the same contractor, filter, n_boot, seed and max_cases) when it was computed beforehand; `names`
    (people.display_names) and `known` (scope.catalogue of the contractor's rubrics) when read once for many;
    `shared` (feedback_reports': computed with `team` for many contractors, this one among them) gives those and
    the contractor's card, team medians, times and effects-table rows; `followups` (followup.followups under the
    filter's rubric, this contractor's rows or every contractor's) when computed beforehand."""
    own = own or own_figures(con, contractor, filters, n_boot, seed, max_cases)
    if own.made_for() != (contractor, filters, n_boot, seed, max_cases):
        raise ValueError("feedback_report: `own` was computed for another contractor, filter, bootstrap or limit")
    team = team or team_figures(con, filters)
    names, known = (shared.names, shared.known) if shared else (names, known)
    card = shared.cards[contractor] if shared else cd.card_vs_team(con, own.agreement, contractor, team, known)
    weekly = wk.with_team_weeks(own.weeks, contractor, team.weekly, shared.week_medians[contractor] if shared else None)
    trend = own.trend
    times = shared.times[contractor] if shared else du.durations_vs_team(own.durations, contractor, team.durations)
    mine, positions = (shared.effects[contractor], shared.positions) if shared else (None, None)
    after = fu.followups(con, filters.rubric, contractor) if followups is None else followups
    after = fu.of_contractor(after, contractor)
    return FeedbackReport(
        contractor_id=contractor,
        filters=filters,
        rubrics=own.rubrics,
        first_rating=own.first_rating,
        last_rating=own.last_rating,
        n_ratings=own.n_ratings,
        card=card,
        weekly=weekly,
        trend=trend,
        levels=own.levels,
        disagreements=own.disagreements,
        effects=ef.rater_effects(con, contractor, team, own.rubrics, card, trend, times, known, mine, positions),
        durations=times,
        highlights=hl.highlights(card, trend, times) + fu.last_lines(after),
        rules=shared.rules[contractor] if shared else rl.broken_rules(contractor, team),
        alerts=shared.alerts[contractor] if shared else own_alerts(team.alerts, (contractor,))[contractor],
        stamp=own.stamp,
        name=people.who(contractor, people.display_names(con) if names is None else names),
        followups=after,
    )


def feedback_reports(
    con: duckdb.DuckDBPyConnection,
    contractors: list[str],
    filters: Filters = NO_FILTERS,
    team: TeamFigures | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    max_cases: int = MAX_CASES,
) -> Iterator[FeedbackReport]:
    """feedback_report of each of `contractors` in turn, the figures they share computed once for all of them
    (every contractor's agreement with researchers, weekly pairs, durations, levels and disagreements is one query for
    all of them instead of one each, split per contractor; the rubrics' dimensions are read once, the team medians
    that leave each contractor out are computed in one pass and the effects table is split once)."""
    team = team or team_figures(con, filters)
    who = tuple(contractors)
    known = scope.catalogue(con, scope.every_contractors_rubrics(con, who, filters))
    agreement = cd.every_own_agreement(con, who, filters, n_boot, seed)
    own_durations = du.every_own_durations(con, who, filters)
    shared = Shared(
        agreement=agreement,
        stamp=stamp(con, filters, None, False, n_boot, seed),
        names=people.display_names(con),
        weeks=wk.every_weekly_by_task(con, who, filters),
        durations=own_durations,
        cases=cs.every_severe_cases(con, who, filters, max_cases),
        known=known,
        levels=lv.every_levels_vs_researchers(con, who, filters, known),
        effects=ef.every_effect_rows(team.effects, who),
        positions=ef.rubric_positions(team.positions),
        spans=scope.every_span(con, who, filters),
        rubrics=scope.each_contractors_rubrics(con, who, filters),
        rules=rl.every_broken_rules(who, team),
        alerts=own_alerts(team.alerts, who),
        cards=cd.every_card_vs_team(con, agreement, team, known),
        week_medians=wk.every_team_week_medians(team.weekly, who),
        times=du.every_durations_vs_team(own_durations, team.durations),
    )
    after = fu.followups(con, filters.rubric)
    for c in contractors:
        own = own_figures(con, c, filters, n_boot, seed, max_cases, shared)
        yield feedback_report(con, c, filters, team, n_boot, seed, max_cases, own, shared=shared, followups=after)


def own_alerts(alerts: pd.DataFrame, contractors: tuple[str, ...]) -> dict[str, pd.DataFrame]:
    """Each contractor's rows of the review's alarms (analytics.alarms.review.ALERT_COLUMNS), in the review's order."""
    by_rater = (
        {str(r): g.reset_index(drop=True) for r, g in alerts.groupby("rater_id", sort=False)} if len(alerts) else {}
    )
    none = alerts.iloc[:0].reset_index(drop=True)
    return {c: by_rater[c] if c in by_rater else none for c in contractors}


def weekly_agreement(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    filters: Filters = NO_FILTERS,
    team: TeamFigures | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per rubric and week: the contractor's exact agreement with researchers over every dimension, its 95%
    task-bootstrap interval, coarse agreement, and the median of other contractors' weekly agreement."""
    team = team or team_figures(con, filters)
    by_task = wk.weekly_by_task(con, contractor, filters)
    return wk.with_team_weeks(wk.own_weeks(by_task, n_boot, seed), contractor, team.weekly)


def agreement_trend(
    con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters = NO_FILTERS, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Per rubric: pooled exact agreement in the first and the second half of the contractor's weeks with a
    researcher, and the change (late minus early) with its 95% task-bootstrap interval."""
    return wk.early_late_trend(wk.weekly_by_task(con, contractor, filters), n_boot, seed)


def durations(
    con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters = NO_FILTERS, team: TeamFigures | None = None
) -> pd.DataFrame:
    """Per rubric: the contractor's submissions, median (and quartiles of) seconds per submission, the median
    of other contractors' medians, and the ratio of the two (below 1 = faster than the team)."""
    own = du.own_durations(con, contractor, filters)
    return (
        du.durations_vs_team(own, contractor, (team or team_figures(con, filters)).durations)
        if len(own)
        else du.no_durations()
    )
