"""The team's figures in two parts (issue 50 item 9): the Feedback page computes the part without alarms
(team.team_parts) beside the alarm review and joins them (team.with_alarms); the result is team_figures'."""

from __future__ import annotations

import datetime as dt
from dataclasses import fields

import pandas as pd
import pytest

from analytics.alarms import review as rv
from analytics.core.filters import Filters
from analytics.feedback import next as who_next
from analytics.feedback import scope
from analytics.feedback import team as fteam

RUBRICS = ("answer_comparison", "article_likert", "instruction_following", "preference_ranking")


@pytest.mark.parametrize(
    "filters",
    [Filters(), Filters(rubric="answer_comparison", date_from=dt.date(2026, 3, 20), raters=("c03",))],
    ids=["all", "rubric, dates and a rater"],
)
def test_parts_joined_with_the_shared_review_equal_team_figures(demo, filters: Filters) -> None:
    whole = fteam.team_figures(demo, filters)
    team = fteam.team_filter(filters)
    shared = rv.narrowed(rv.team_review(demo, rv.scope(team)), team)  # the review the pages share
    joined = fteam.with_alarms(fteam.team_parts(demo, team, fteam.researcher_figures(demo, team.rubric)), shared)
    assert joined.filters == whole.filters == team and len(joined.contractors) and len(joined.weekly)
    for field in fields(fteam.TeamFigures):
        a, b = getattr(joined, field.name), getattr(whole, field.name)
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, obj=field.name)
        elif field.name == "rules":
            for part in ("rules", "raters", "violations", "weekly"):
                pd.testing.assert_frame_equal(getattr(a, part), getattr(b, part), obj=part)
        else:
            assert a == b, field.name


@pytest.mark.parametrize(
    "filters",
    [Filters(), Filters(rubric="preference_ranking", date_from=dt.date(2026, 3, 20))],
    ids=["all", "a ranking rubric and dates"],
)
def test_the_ranked_parts_give_the_rankings_gaps_from_the_same_call(demo, filters: Filters) -> None:
    """With `ranked`, the team's agreement call also gives the ranking's primary_agreement (its intervals on each
    rubric's primary dimension): equal to the separate call's to the last bit, the team's figures unchanged, and
    the ranking from those gaps equal to the ranking computing them."""
    team = fteam.team_filter(filters)
    plain, ranked = fteam.team_parts(demo, team), fteam.team_parts(demo, team, ranked=True)
    assert plain.ranked is None and ranked.ranked is not None and len(ranked.ranked)
    pd.testing.assert_frame_equal(ranked.ranked, who_next.primary_agreement(demo, team, who_next.N_BOOT, 0))
    points = [c for c in plain.contractors.columns if "_ci_" not in c and c != "notes"]  # notes speak of intervals
    pd.testing.assert_frame_equal(ranked.contractors[points], plain.contractors[points])
    found = rv.team_review(demo, rv.scope(team))
    alerts, rules = found.alerts, found.rules.raters
    by_gaps = who_next.ranking(demo, filters, alerts, rules, gaps=ranked.ranked, known=scope.catalogue(demo, RUBRICS))
    pd.testing.assert_frame_equal(by_gaps.ranked, who_next.ranking(demo, filters, alerts, rules).ranked)
