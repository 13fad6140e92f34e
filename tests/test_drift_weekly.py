"""Drift's weekly sums (analytics/effects/drift.py): the consensus of each contractor-task by hand, and on the demo
equal to a pandas computation from the ratings."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest

from analytics.core.filters import NO_FILTERS, Filters
from analytics.effects import drift
from analytics.ingest.load import ingest_bytes
from tests.kept_tasks import expected_rows


def _csv(rows: list[tuple[str, str, str, str]]) -> bytes:
    lines = ["task_id,rater_id,role,dimension,value,submitted_at"]
    lines += [f"{t},{r},contractor,usefulness,{v},{d}" for t, r, v, d in rows]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def small(con):
    """Three contractors on two tasks in one week, one of them alone on a third task the week after."""
    rows = [
        ("t1", "c1", "Good", "2026-03-02"),
        ("t1", "c2", "Good", "2026-03-02"),
        ("t1", "c3", "Bad", "2026-03-03"),
        ("t2", "c1", "Bad", "2026-03-04"),
        ("t2", "c2", "Good", "2026-03-04"),
        ("t3", "c1", "Good", "2026-03-10"),
    ]
    result = ingest_bytes(con, _csv(rows), "small.csv")
    assert result.status == "loaded", result.errors
    return con


def test_week_sums_by_hand(small):
    """t1: c1 and c2 each agree with one of the two others (1/2), c3 with none (0); t2: c1 and c2 disagree (0);
    t3 has nobody else (no consensus). Week 0 of c1: tasks t1, t2 -> n 2, sum 0.5, sum of squares 0.25."""
    df = drift.week_sums(small, NO_FILTERS).set_index(["rater_id", "week_no"])
    c1 = df.loc[("c1", 0)]
    assert (c1["n_rows"], c1["n"], c1["s1"], c1["s2"]) == (2, 2, pytest.approx(0.5), pytest.approx(0.25))
    assert df.loc[("c3", 0), "s1"] == 0 and df.loc[("c3", 0), "n"] == 1
    later = df.loc[("c1", 1)]
    assert (later["n_rows"], later["n"]) == (1, 0)  # a week with a task but no consensus still counts as a week
    # The team's week: five contractor-tasks with a consensus, 0.5 + 0.5 + 0 + 0 + 0 -> mean 0.2.
    assert c1["team"] == pytest.approx(0.2)
    assert c1["r1"] == pytest.approx(0.5 - 2 * 0.2)
    assert c1["r2"] == pytest.approx((0.5 - 0.2) ** 2 + (0.0 - 0.2) ** 2)


def test_weekly_sums_on_the_demo_equal_pandas_from_the_ratings(demo):
    """Each contractor-task's consensus (over its units another contractor rated, the share of the others who gave
    the same level), summed per contractor, rubric and week, from tests/kept_tasks.py's pandas rows."""
    rows = expected_rows(demo).dropna(subset=["submitted_at"])
    per_task = rows.groupby(["rater_id", "rubric", "task_key"]).agg(
        submitted_at=("submitted_at", "min"), agree_sum=("agree_sum", "sum"), agree_n=("agree_n", "sum")
    )
    per_task["consensus"] = (per_task["agree_sum"] / per_task["agree_n"]).where(per_task["agree_n"] > 0)
    per_task["week"] = per_task["submitted_at"].dt.to_period("W-SUN").dt.start_time
    g = per_task.groupby(["rater_id", "rubric", "week"])["consensus"]
    want = pd.DataFrame({"n_rows": g.size(), "n": g.count(), "s1": g.sum()}).reset_index()
    got = drift.week_sums(demo, NO_FILTERS)
    assert len(got) > 50
    pd.testing.assert_frame_equal(
        got[["rater_id", "rubric", "week", "n_rows", "n", "s1"]].reset_index(drop=True),
        want.sort_values(["rater_id", "rubric", "week"]).reset_index(drop=True),
        check_dtype=False,
        rtol=1e-9,
    )


def test_a_dimension_filter_sums_the_tasks_per_dimension_rows_to_the_same_weeks(demo):
    """Without a dimension filter drift reads one kept row per contractor, rubric and task; with one, it sums the
    task's per-dimension rows. Every dimension chosen gives the same weeks; one dimension gives that one's."""
    every = sorted({d for (d,) in demo.execute("SELECT DISTINCT dimension FROM contractor_tasks").fetchall()})
    all_dims = drift.weekly_query(Filters(dimensions=tuple(every)))
    assert "contractor_tasks" in all_dims.sql and "contractor_rubric_days" in drift.weekly_query(NO_FILTERS).sql
    pd.testing.assert_frame_equal(
        drift.week_sums(demo, Filters(dimensions=tuple(every))), drift.week_sums(demo, NO_FILTERS), rtol=1e-12
    )
    one = drift.week_sums(demo, Filters(dimensions=("usefulness",)))
    rows = expected_rows(demo)
    rows = rows[rows["dimension"] == "usefulness"]
    assert one["n"].sum() == int((rows["agree_n"] > 0).sum())


@pytest.mark.parametrize(
    "filters",
    [
        Filters(date_from=dt.date(2026, 3, 9), date_to=dt.date(2026, 3, 29)),
        Filters(rubric="answer_comparison", date_to=dt.date(2026, 3, 15)),
        Filters(raters=("c01", "c04", "c11"), date_from=dt.date(2026, 3, 16)),
    ],
    ids=["dates", "rubric and dates", "raters and dates"],
)
def test_the_kept_days_give_the_weeks_of_the_tasks_under_filters(demo, filters):
    """Without a dimension filter the weeks are summed from the contractor rubric days kept at ingest; with every
    dimension chosen, from the per-task rows and the pairs one by one. The sidebar's dates select whole days, so
    both give the same weeks, researcher shares included (no demo contractor's task straddles a day)."""
    every = tuple(sorted({d for (d,) in demo.execute("SELECT DISTINCT dimension FROM contractor_tasks").fetchall()}))
    days = drift.week_sums(demo, filters)
    assert "contractor_rubric_days" in drift.weekly_query(filters).sql
    assert len(days) > 10 and days["n_researchers"].sum() > 0
    pd.testing.assert_frame_equal(days, drift.week_sums(demo, filters.but(dimensions=every)), rtol=1e-12)
