"""Alarms in the Feedback report: a drifting demo contractor's report carries their drift alarm (from the review,
analytics/alarms) on the page data and in the Markdown, HTML and CSV exports; a careful contractor's has none."""

from __future__ import annotations

import pytest

from analytics.feedback import report as fr
from analytics.feedback import team as fteam
from analytics.feedback.export import csv as csv_export
from analytics.feedback.export import display
from analytics.feedback.export import html as html_export
from analytics.feedback.export import markdown as md_export


@pytest.fixture(scope="module")
def team(demo):
    return fteam.team_figures(demo)


def test_drifting_contractor_report_has_the_alert(demo, truth, team):
    rater = truth["behaviours"]["drifting"]["raters"][0]
    rep = fr.feedback_report(demo, rater, team=team, n_boot=0)
    assert (rep.alerts["kind"] == "drift").any() and set(rep.alerts["rater_id"]) == {rater}
    assert rep.alerts.equals(team.alerts[team.alerts["rater_id"] == rater].reset_index(drop=True))
    md = md_export.to_markdown(rep)
    assert "## Alarms" in md and "- Drift on " in md and "in the 3 weeks since" in md
    assert "<h2>Alarms</h2><ul><li>" in html_export.to_html(rep)
    assert "\\r\\nalert," + rater in csv_export.to_csv(rep).replace("\r\n", "\\r\\n")


def test_careful_contractor_report_has_no_alert(demo, truth, team):
    rater = truth["behaviours"]["careful"]["raters"][0]
    rep = fr.feedback_report(demo, rater, team=team, n_boot=0)
    assert rep.alerts.empty
    assert display.NO_ALARM in md_export.to_markdown(rep)
