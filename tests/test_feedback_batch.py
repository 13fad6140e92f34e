"""report --all's batched path (analytics.feedback.feedback_reports: every contractor's agreement with researchers
in one rater_agreement call, the stamp and names once) gives each contractor the report feedback_report gives
them alone (issue 50 item 9: the speed is measured in bench/bench_demo.py)."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from analytics import feedback
from analytics.core.filters import Filters
from analytics.feedback import card, cases, durations, levels, scope, weekly

# c13 and c23 have an interval whose delta-method probes (numerical derivatives) differ by about 1e-11 between the
# two paths (a block of raters shares its levels); c01 is an ordinary one.
CONTRACTORS = ["c01", "c13", "c23"]


def same_frame(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Equal columns and values, floats to 1e-8 (far below the three decimals any figure is shown with)."""
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_exact=False, atol=1e-8)


@pytest.fixture(scope="module")
def team(demo) -> feedback.TeamFigures:
    return feedback.team_figures(demo, Filters())


def test_every_own_agreement_is_each_contractors_own(demo):
    f = Filters(date_from=pd.Timestamp("2026-03-09").date())
    every = card.every_own_agreement(demo, (*CONTRACTORS, "nobody"), f, 1000, 0)
    assert set(every) == {*CONTRACTORS, "nobody"} and every["nobody"].empty
    for c in CONTRACTORS:
        own = card.own_agreement(demo, c, f, 1000, 0)
        assert len(own) > 0
        same_frame(every[c], own)


def test_batched_reports_equal_the_reports_made_one_by_one(demo, team):
    batched = list(feedback.feedback_reports(demo, CONTRACTORS[:2], Filters(), team))
    assert [r.contractor_id for r in batched] == CONTRACTORS[:2]
    for rep in batched:
        alone = feedback.feedback_report(demo, rep.contractor_id, Filters(), team)
        for field in dataclasses.fields(rep):
            mine, theirs = getattr(rep, field.name), getattr(alone, field.name)
            if isinstance(mine, pd.DataFrame):
                same_frame(mine, theirs)
            else:
                assert mine == theirs, field.name


def test_every_weekly_by_task_is_each_contractors_own(demo):
    f = Filters(date_from=pd.Timestamp("2026-03-09").date())
    every = weekly.every_weekly_by_task(demo, (*CONTRACTORS, "nobody"), f)
    assert every["nobody"].empty
    for c in CONTRACTORS:
        own = weekly.weekly_by_task(demo, c, f)
        assert len(own) > 0
        same_frame(every[c], own)


def test_every_own_durations_is_each_contractors_own(demo):
    every = durations.every_own_durations(demo, (*CONTRACTORS, "nobody"), Filters())
    assert every["nobody"].empty
    for c in CONTRACTORS:
        own = durations.own_durations(demo, c, Filters())
        assert len(own) > 0
        same_frame(every[c], own)


def test_cases_from_every_case_rows_are_each_contractors_severe_cases(demo):
    every = cases.every_case_rows(demo, (*CONTRACTORS, "nobody"), Filters())
    assert every["nobody"].empty
    for c in CONTRACTORS:
        own = cases.severe_cases(demo, c, Filters(), limit=3)
        assert len(own) > 0
        same_frame(cases.cases_of(demo, c, every[c], 3), own)


def test_the_catalogue_read_once_gives_what_the_store_gives(demo):
    rubrics = scope.every_contractors_rubrics(demo, tuple(CONTRACTORS), Filters())
    assert len(rubrics) > 1
    known = scope.catalogue(demo, rubrics)
    same_frame(scope.dimension_info(demo, rubrics, known), scope.dimension_info(demo, rubrics))
    for c in CONTRACTORS:
        same_frame(levels.levels_vs_researchers(demo, c, Filters(), known), levels.levels_vs_researchers(demo, c))


def test_every_levels_vs_researchers_is_each_contractors_own(demo):
    f = Filters(date_from=pd.Timestamp("2026-03-09").date())
    every = levels.every_levels_vs_researchers(demo, (*CONTRACTORS, "nobody"), f)
    assert every["nobody"].empty
    for c in CONTRACTORS:
        own = levels.levels_vs_researchers(demo, c, f)
        assert len(own) > 0
        same_frame(every[c], own)
