"""The rater tasks kept at ingest (analytics/store/derived/rater_tasks.py): the Overview's activity, volume per week and
researcher coverage read them, and give the figures of reading the ratings, under every filter; a task rated at
two times is kept in two rows, so a date between them keeps the ratings it should. The kept rows follow every
change of the ratings (tests/test_contractor_tasks.py checks them with the other kept tables)."""

from __future__ import annotations

import datetime as dt
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from analytics import store
from analytics.agreement import pairing as pg
from analytics.agreement import sides as sd
from analytics.core.filters import Filters
from analytics.describe import overview
from analytics.effects import haste
from analytics.ingest.load import ingest_bytes
from analytics.store import keys
from tests.kept_tasks import assert_rater_tasks_are_the_ratings, expected_rater_tasks, kept_rater_tasks
from tests.old_store import roll_back
from tests.test_reference_pairs import FILES, csv

FILTERS = [
    Filters(),
    Filters(date_from=dt.date(2026, 3, 9), date_to=dt.date(2026, 3, 20)),
    Filters(roles=("contractor",), raters=("c1", "c3", "r1")),
    Filters(rubric="study", date_to=dt.date(2026, 3, 4)),
    Filters(dimensions=("quality",)),  # not answerable from the kept rows: the ratings are read
]


def _same_from_kept_and_ratings(con, filters: Filters) -> None:
    """activity_query and volume_by_week_query give the same rows from the kept rows as from the ratings."""
    for build in (overview.activity_query, overview.volume_by_week_query):
        bound = keys.task_key_bound(con)
        kept, ratings = build(filters, bound), build(filters, bound, kept=False)
        assert ("FROM rater_tasks" in kept.sql) == (not filters.dimensions), build.__name__
        assert "FROM ratings" in ratings.sql and "rater_tasks" not in ratings.sql
        want = _in_order(ratings.df(con))  # the activity's four readings come in no set order
        assert len(want), (build.__name__, filters)
        pd.testing.assert_frame_equal(_in_order(kept.df(con)), want, check_dtype=False)


def _in_order(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(list(df.columns)).reset_index(drop=True)


@pytest.fixture
def loaded(con):
    for name, data in FILES.items():
        assert ingest_bytes(con, data, name).status == "loaded"
    return con


@pytest.mark.parametrize("filters", FILTERS, ids=["none", "dates", "raters", "rubric", "dimension"])
def test_the_overview_from_the_kept_rows_equals_the_overview_from_the_ratings(loaded, filters):
    assert_rater_tasks_are_the_ratings(loaded)
    _same_from_kept_and_ratings(loaded, filters)


def test_the_researcher_coverage_from_the_kept_rows_equals_the_self_join(loaded):
    for filters in FILTERS:
        sides = sd.comparison_sides(filters, "contractor_vs_researcher")
        kept = pg.shared_tasks_query(sides, keys.task_key_bound(loaded))
        with mock.patch.object(sd, "reads_reference_pairs", return_value=False):
            joined = pg.shared_tasks_query(sides, keys.task_key_bound(loaded))
        assert ("FROM rater_tasks" in kept.sql) == (not filters.dimensions)
        pd.testing.assert_frame_equal(kept.df(loaded), joined.df(loaded), check_dtype=False)


def test_the_demo_overview_is_the_same_from_the_kept_rows(demo):
    assert_rater_tasks_are_the_ratings(demo)
    first = demo.execute("SELECT min(submitted_at) FROM ratings").fetchall()[0][0].date()
    for filters in (Filters(), Filters(date_from=first + dt.timedelta(days=7)), Filters(roles=("researcher",))):
        _same_from_kept_and_ratings(demo, filters)


def test_a_task_rated_at_two_times_counts_only_the_ratings_a_date_range_keeps(con):
    """c1 rates target A of t1 on 3 March (with a duration of 30 s) and target B on 12 March (90 s): two kept rows;
    from 10 March the Overview counts one rating of t1, first and last on 12 March, its duration 90 s."""
    rows = [("t1", t, "c1", "contractor", "quality", "2", f"2026-03-{d:02d}") for t, d in (("A", 3), ("B", 12))]
    data = csv(rows).decode().splitlines()
    data = [data[0] + ",duration_s"] + [data[1] + ",30", data[2] + ",90"]
    assert ingest_bytes(con, ("\n".join(data) + "\n").encode(), "two.csv").status == "loaded"
    assert kept_rater_tasks(con)["one_row"].tolist() == [False, False]
    assert_rater_tasks_are_the_ratings(con)
    later = Filters(date_from=dt.date(2026, 3, 10))
    raters = overview.activity(con, later).raters.set_index("rater_id")
    assert raters.loc["c1", "ratings"] == 1 and raters.loc["c1", "tasks"] == 1
    assert raters.loc["c1", "median_duration_s"] == 90
    assert pd.Timestamp(raters.loc["c1", "first_rating"]) == pd.Timestamp("2026-03-12")
    _same_from_kept_and_ratings(con, later)


def test_a_store_from_before_the_table_gains_it_when_opened(tmp_path):
    path = tmp_path / "old.duckdb"
    con = store.open_store(path)
    for name, data in FILES.items():
        ingest_bytes(con, data, name)
    want = expected_rater_tasks(con)
    roll_back(con, 12)
    con.close()
    con = store.open_store(path)
    assert store.schema_version(con) >= 13
    pd.testing.assert_frame_equal(kept_rater_tasks(con), want, check_dtype=False)
    con.close()


def _timed_csv() -> bytes:
    """Two contractors and a researcher on twelve tasks, two dimensions (one with targets A and B), durations
    varying per rating (some zero, negative or missing), some tasks rated at two times."""
    rng = np.random.default_rng(11)
    lines = ["task_id,rater_id,role,rubric,dimension,target,value,submitted_at,duration_s"]
    for t in range(12):
        for rater, role in (("c1", "contractor"), ("c2", "contractor"), ("r1", "researcher")):
            for dim, target in (("clarity", ""), ("quality", "A"), ("quality", "B")):
                day = 9 + (t % 3) + (target == "B" and t % 4 == 0)  # task 0, 4, 8: target B a day later
                seconds = rng.choice(["", "0", "-5", str(int(rng.integers(20, 400)))])
                lines.append(
                    f"t{t},{rater},{role},study,{dim},{target},{int(rng.integers(1, 6))},2026-03-{day:02d},{seconds}"
                )
    return ("\n".join(lines) + "\n").encode()


def test_haste_durations_from_the_kept_rows_equal_those_from_the_ratings(con):
    """Without submission durations, haste's seconds per task come from the kept rater tasks: the same rows as
    the ratings give (the longest positive duration of a contractor's ratings of the task), under every filter."""
    assert ingest_bytes(con, _timed_csv(), "timed.csv").status == "loaded"
    days = Filters(date_from=dt.date(2026, 3, 10), date_to=dt.date(2026, 3, 10))
    for filters in (
        Filters(),
        days,
        Filters(raters=("c1", "r1")),
        Filters(rubric="study", date_to=dt.date(2026, 3, 9)),
    ):
        kept, ratings = (haste.durations_query(filters, kept=k).df(con) for k in (True, False))
        assert len(ratings), filters
        pd.testing.assert_frame_equal(_in_order(kept), _in_order(ratings), check_dtype=False)
    with mock.patch.object(haste, "durations_query", wraps=haste.durations_query) as built:
        haste.durations(con, Filters())
        haste.durations(con, Filters(dimensions=("quality",)))
    assert [c.kwargs["kept"] for c in built.call_args_list] == [True, False]


def test_haste_durations_without_any_duration_are_none(con):
    """No submission and no rating carries a positive duration: no rows, with the query's columns, on the kept rows
    and on the ratings (the agreement side is then skipped by its EXISTS, not by a special case)."""
    untimed = b"\n".join(
        line.rsplit(b",", 1)[0] + (b",duration_s" if i == 0 else b",0")
        for i, line in enumerate(_timed_csv().splitlines())
    )
    assert ingest_bytes(con, untimed + b"\n", "untimed.csv").status == "loaded"
    for filters in (Filters(), Filters(dimensions=("quality",))):
        got = haste.durations(con, filters)
        assert got.empty and list(got.columns) == ["rater_id", "rubric", "task_key", "duration_s", "agreement"]
    # (with durations: test_haste_durations_from_the_kept_rows_equal_those_from_the_ratings)


def test_haste_durations_read_the_ratings_when_submissions_carry_durations(demo):
    assert demo.execute("SELECT count(*) FROM submissions WHERE duration_s IS NOT NULL").fetchall()[0][0] > 0
    with mock.patch.object(haste, "durations_query", wraps=haste.durations_query) as built:
        haste.durations(demo, Filters())
    assert built.call_args.kwargs["kept"] is False
