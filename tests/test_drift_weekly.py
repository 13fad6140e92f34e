"""Drift's weekly sums (analytics/effects/drift.py): the consensus of each contractor-task by hand, the packed
query (level counts in one integer) equal to the exact one, and its fallback when a unit's counts overflow."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.effects import drift
from analytics.filters import NO_FILTERS
from analytics.ingest.load import ingest_bytes


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


def _exact(con, monkeypatch) -> pd.DataFrame:
    with monkeypatch.context() as m:
        m.setattr(drift, "packing_bits", lambda width: 0)
        return drift.week_sums(con, NO_FILTERS)


def test_packed_counts_equal_the_exact_ones_on_the_demo(demo, monkeypatch):
    packed = drift.week_sums(demo, NO_FILTERS)
    assert drift.packing_bits(drift.scale_width(demo)) > 0  # the demo takes the packed form
    pd.testing.assert_frame_equal(packed, _exact(demo, monkeypatch), check_exact=False, rtol=1e-12)


def test_overflowing_packed_counts_fall_back_to_exact_counts(small, monkeypatch):
    """With one bit per level a unit of two ratings cannot be packed: the query asks again without packing."""
    monkeypatch.setattr(drift, "packing_bits", lambda width: 1)
    overflowing = drift.week_sums(small, NO_FILTERS)
    pd.testing.assert_frame_equal(overflowing, _exact(small, monkeypatch))
    assert overflowing["n"].sum() == 5
