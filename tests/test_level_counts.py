"""The level counts kept at ingest (analytics/store/derived/level_counts.py): the agreement's rater marginals and the
Distributions page's level distribution and rater levels read them, and give the counts of reading the ratings
under every filter, dates included (ratings late and early in a day, undated ones). The kept rows follow every
change of the ratings (tests/test_contractor_tasks.py checks them with the other kept tables)."""

from __future__ import annotations

import datetime as dt
import io

import numpy as np
import pandas as pd
import pytest

from analytics.agreement import counts as ct
from analytics.core.filters import Filters
from analytics.describe import distributions as dist
from analytics.ingest.load import ingest_bytes
from tests.kept_tasks import assert_level_counts_are_the_ratings

LEVELS = ["much worse", "worse", "same", "better", "much better"]
TIMES = ["2026-03-08 23:59:59", "2026-03-09 00:00:00", "2026-03-09 13:30:00", "2026-03-20 23:59:00",
         "2026-03-21 00:00:00", ""]  # fmt: skip
FILTERS = [
    Filters(),
    Filters(date_from=dt.date(2026, 3, 9)),
    Filters(date_to=dt.date(2026, 3, 20)),
    Filters(date_from=dt.date(2026, 3, 9), date_to=dt.date(2026, 3, 9)),
    Filters(roles=("contractor",), raters=("c1", "r1")),
    Filters(dimensions=("quality",), date_from=dt.date(2026, 3, 21)),
]


def _file() -> bytes:
    """Canonical rows of two dimensions by three contractors and a researcher, at times around day boundaries."""
    rng = np.random.default_rng(3)
    rows = [
        (f"t{t}", rater, "researcher" if rater == "r1" else "contractor", dim, str(rng.choice(LEVELS)), TIMES[t % 6])
        for t in range(24)
        for rater in ("c1", "c2", "c3", "r1")
        for dim in ("clarity", "quality")
    ]
    df = pd.DataFrame(rows, columns=["task_id", "rater_id", "role", "dimension", "value", "submitted_at"])
    buf = io.StringIO()
    df.assign(rubric="study").to_csv(buf, index=False)
    return buf.getvalue().encode()


@pytest.fixture
def loaded(con):
    assert ingest_bytes(con, _file(), "levels.csv").status == "loaded"
    assert_level_counts_are_the_ratings(con)
    return con


def _from_ratings(con, filters: Filters) -> pd.DataFrame:
    """Ratings with a level per rubric, dimension, rater, role and level, read from the ratings under `filters`."""
    where, params = filters.where_named("r")
    return con.execute(
        f"""SELECT rubric, dimension, rater_id, role, value_index, count(*) AS n FROM ratings r
            WHERE value_index IS NOT NULL AND {where} GROUP BY ALL ORDER BY ALL""",
        params,
    ).df()


@pytest.mark.parametrize("filters", FILTERS, ids=["none", "from", "to", "one-day", "raters", "dimension"])
def test_the_rater_marginals_from_the_kept_counts_are_the_ratings_counts(loaded, filters):
    got = ct.rater_level_counts_query(filters).df(loaded)
    want = _from_ratings(loaded, filters)
    assert len(want) and "FROM level_counts" in ct.rater_level_counts_query(filters).sql
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_dtype=False)


@pytest.mark.parametrize("filters", FILTERS, ids=["none", "from", "to", "one-day", "raters", "dimension"])
def test_the_level_distribution_and_rater_levels_count_what_the_ratings_hold(loaded, filters):
    want = _from_ratings(loaded, filters)
    levels = dist.level_distribution(loaded, "study", filters)
    by_role = want.groupby(["dimension", "role", "value_index"])["n"].sum()
    shown = levels[levels["n"] > 0].set_index(["dimension", "role", "level_index"])["n"]
    assert shown.sort_index().tolist() == by_role.sort_index().tolist()
    assert levels["n"].sum() == want["n"].sum()
    for dimension in ("clarity", "quality"):  # rater_levels shows the dimension asked, whatever the filter's
        raters = dist.rater_levels(loaded, "study", dimension, filters)
        mine = _from_ratings(loaded, filters.but(dimensions=(dimension,)))
        assert raters["n"].sum() == mine["n"].sum()
        totals = mine.groupby("rater_id")["n"].sum()
        assert raters.drop_duplicates("rater_id").set_index("rater_id")["rater_total"].to_dict() == totals.to_dict()
