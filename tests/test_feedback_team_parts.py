"""The team's figures in two parts (issue 50 item 9): the Feedback page computes the part without alarms
(team.team_parts) beside the alarm review and joins them (team.with_alarms); the result is team_figures'."""

from __future__ import annotations

import datetime as dt
from dataclasses import fields

import pandas as pd
import pytest

from analytics.alarms import review as rv
from analytics.core.filters import Filters
from analytics.feedback import team as fteam


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
