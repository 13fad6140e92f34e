"""One alarm review per team and dataset version, shared by every page that shows alarms (issue 50 item 9: the
Raters and Feedback pages each ran their own, about 0.8 s of cpu on the demo, after the Overview had run it), and
the narrowed review equal to the one computed for the narrower filter."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics import store
from analytics.alarms import review as rv
from analytics.core.filters import Filters
from tests.conftest import app_test
from ui import alarm_panel


def test_overview_raters_feedback_and_consistency_share_one_review(app_store, monkeypatch):
    teams: list[Filters] = []
    original = alarm_panel.team_review

    def counted(con, team):
        teams.append(team)
        return original(con, team)

    monkeypatch.setattr(alarm_panel, "team_review", counted)
    at = app_test(timeout=300)  # the Overview
    assert not at.exception, at.exception
    for page in ("app_pages/raters.py", "app_pages/feedback.py", "app_pages/consistency.py"):
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
    assert len(teams) == 1, teams


@pytest.mark.parametrize(
    "filters",
    [Filters(), Filters(raters=("c13", "c21")), Filters(rubric="answer_comparison", roles=("contractor",))],
    ids=["none", "raters", "rubric and role"],
)
def test_narrowed_review_equals_the_review_of_the_filter(demo_store, filters):
    con = store.open_store(demo_store, read_only=True)
    try:
        own = rv.review(con, filters)
        shared = rv.narrowed(rv.team_review(con, rv.scope(filters)), filters)
        pd.testing.assert_frame_equal(own.alerts, shared.alerts)
        assert own.filters == shared.filters == filters
        if filters.raters:
            assert set(own.alerts["rater_id"]) <= set(filters.raters)
        rules, shared_rules = rv.reviewed_rules(con, filters), rv.reviewed_rules(con, filters, shared)
        for a, b in ((rules.raters, shared_rules.raters), (rules.violations, shared_rules.violations)):
            pd.testing.assert_frame_equal(a, b)
    finally:
        con.close()


def test_a_review_of_another_team_is_refused(demo_store):
    con = store.open_store(demo_store, read_only=True)
    try:
        found = rv.team_review(con, rv.scope(Filters(rubric="answer_comparison")))
        with pytest.raises(ValueError, match="another team"):
            rv.narrowed(found, Filters(rubric="article_likert"))
    finally:
        con.close()
