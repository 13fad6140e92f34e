"""analytics.core.concurrent.side_by_side, and the Feedback team figures it computes: the same as one after the other."""

from __future__ import annotations

import datetime as dt
import threading

import pandas as pd
import pytest

from analytics import agreement as ag
from analytics.alarms.review import review
from analytics.core.concurrent import side_by_side
from analytics.core.filters import Filters
from analytics.describe import distributions as dist
from analytics.describe.overview import rated_rubrics
from analytics.feedback import durations, scope, weekly
from analytics.feedback import team as fteam


def test_results_come_in_the_jobs_order_each_on_its_own_cursor_and_thread(demo):
    seen: list[tuple[int, object]] = []

    def job(n: int):
        def run(con):
            seen.append((threading.get_ident(), con))
            return n, con.execute("SELECT count(*) FROM ratings").fetchall()[0][0]

        return run

    out = side_by_side(demo, job(1), job(2), job(3))
    ratings = demo.execute("SELECT count(*) FROM ratings").fetchall()[0][0]
    assert out == [(1, ratings), (2, ratings), (3, ratings)]
    assert len({id(con) for _, con in seen}) == 3 and all(con is not demo for _, con in seen)
    assert threading.get_ident() not in {t for t, _ in seen}


def test_one_job_runs_on_the_connection_itself(demo):
    assert side_by_side(demo, lambda con: con) == [demo]
    assert side_by_side(demo) == []


def test_a_failing_job_raises_its_own_error(demo):
    def bad(con):
        raise ValueError("job two failed")

    with pytest.raises(ValueError, match="job two failed"):
        side_by_side(demo, lambda con: 1, bad, lambda con: 3)


def positions_as_they_were(con, filters: Filters) -> pd.DataFrame:
    """The team's position rows as team_parts read them before the review shared its own (position_bias of every
    rubric rated under the filter, every role)."""
    frames = [dist.position_bias(con, r, filters).assign(rubric=r) for r in rated_rubrics(con, filters)]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["rubric", "rater_id", "dimension"])


@pytest.mark.parametrize(
    "filters",
    [Filters(), Filters(rubric="answer_comparison"), Filters(date_from=dt.date(2026, 4, 6))],
    ids=["all", "one rubric", "late dates"],
)
def test_team_figures_equal_the_parts_computed_one_after_the_other(demo, filters):
    team = fteam.team_figures(demo, filters)
    f = scope.team_filter(filters)
    alarms = review(demo, f)
    contractors = ag.rater_agreement(demo, ag.AgreementSpec(comparison="contractor_vs_researcher", n_boot=0, filters=f))
    expected = {
        "contractors": fteam.with_kappa(contractors[contractors["role"] == "contractor"]),
        "researchers": fteam.researcher_figures(demo, f.rubric),
        "weekly": weekly.weekly_by_contractor(demo, f),
        "durations": durations.contractor_durations(demo, f)[["rater_id", "rubric", "submissions", "median_s"]],
        "positions": positions_as_they_were(demo, f),
        "effects": alarms.effects,
        "alerts": alarms.alerts,
        "power": alarms.power,
    }
    assert len(team.contractors) > 0 and len(team.effects) > 0
    for name, frame in expected.items():
        pd.testing.assert_frame_equal(getattr(team, name), frame, obj=name)
    rules = alarms.rules
    pd.testing.assert_frame_equal(team.rules.raters, rules.raters, obj="rules")
    pd.testing.assert_frame_equal(team.rules.rules, rules.rules, obj="rule rates")
