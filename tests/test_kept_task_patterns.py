"""The task patterns kept at ingest (analytics/store/derived/task_patterns.py): the multi-rater figures per
dimension read them under a filter on rubric and dimensions only, and are the figures of reading the ratings, to
the last bit (intervals included); any other filter, another engine, a scale too wide for a BIGINT packing, a
scratch store filled with `refresh.only`, or a unit whose counts overflow the packing read the ratings. The kept
rows follow every change of the ratings (tests/kept_tasks.py checks them after each change in
tests/test_contractor_tasks.py)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from analytics import agreement, store
from analytics.agreement import counts as ct
from analytics.core.filters import Filters
from analytics.core.queries import QueryLog
from analytics.ingest.load import ingest_bytes
from analytics.store.derived import refresh
from analytics.store.derived import task_patterns as tp
from tests.kept_tasks import assert_task_patterns_are_the_ratings
from tests.test_reference_pairs import FILES, csv

Q_OF = lambda _key: 7  # noqa: E731  (every scale here has at most 7 levels)


@pytest.fixture
def loaded(con):
    for name, data in FILES.items():
        assert ingest_bytes(con, data, name).status == "loaded"
    return con


def _read(con, filters: Filters) -> tuple[dict, list[str]]:
    log = QueryLog()
    return ct.task_patterns_for(con, filters, Q_OF, log), [q.name for q in log]


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys() and a
    for key in a:
        for field in ("counts", "membership", "n_tasks"):
            np.testing.assert_array_equal(getattr(a[key], field), getattr(b[key], field), err_msg=f"{key} {field}")


def _live(con, filters: Filters, monkeypatch) -> tuple[dict, list[str]]:
    with monkeypatch.context() as m:
        m.setattr(ct, "reads_kept_patterns", lambda *_: 0)
        return _read(con, filters)


@pytest.mark.parametrize(
    "filters", [Filters(), Filters(rubric="study"), Filters(dimensions=("quality",))], ids=["none", "rubric", "dim"]
)
def test_a_filter_on_items_reads_the_kept_rows_and_gets_the_ratings_patterns(loaded, filters, monkeypatch):
    assert tp.usable_bits(loaded) == tp.store_bits(loaded) > 0
    kept, names = _read(loaded, filters)
    live, live_names = _live(loaded, filters, monkeypatch)
    assert "task_value_patterns_kept" in names and "task_value_patterns" in live_names
    _same(kept, live)


@pytest.mark.parametrize(
    "filters",
    [Filters(date_from=dt.date(2026, 3, 10)), Filters(roles=("contractor",))],
    ids=["dates", "roles"],
)
def test_a_filter_on_dates_or_roles_reads_the_ratings(loaded, filters):
    _, names = _read(loaded, filters)
    assert "task_value_patterns" in names and "task_value_patterns_kept" not in names


def test_every_multi_rater_figure_and_interval_is_the_same_from_the_kept_rows(loaded, monkeypatch):
    spec = agreement.AgreementSpec(comparison="all_raters", n_boot=200, seed=5)
    kept = agreement.dimension_agreement(loaded, spec)
    with monkeypatch.context() as m:
        m.setattr(ct, "reads_kept_patterns", lambda *_: 0)
        live = agreement.dimension_agreement(loaded, spec)
    assert kept["krippendorff_alpha_ci_low"].notna().all()
    pd.testing.assert_frame_equal(kept, live)


def test_a_wider_scale_repacks_every_row_and_one_too_wide_keeps_none(con):
    three = [(f"t{t}", "", r, "contractor", "clarity", str(1 + (t + i) % 3), "2026-03-02") for t in range(6)
             for i, r in enumerate(("c1", "c2"))]  # fmt: skip
    assert ingest_bytes(con, csv(three), "three.csv").status == "loaded"
    first = tp.kept_bits(con)
    assert first == 63 // 3
    assert_task_patterns_are_the_ratings(con)
    seven = [("t1", "", "c3", "contractor", "clarity", "7", "2026-03-03")]  # a fourth level: the scale widens
    assert ingest_bytes(con, csv(seven), "seven.csv").status == "loaded"
    assert tp.kept_bits(con) == tp.store_bits(con) == 63 // 4 != first
    assert_task_patterns_are_the_ratings(con)  # every row repacked, not only t1's
    wide = [("t9", "", "c1", "contractor", "stars", str(v), "2026-03-04") for v in range(1, 11)]
    wide = [(t, tg, f"c{i}", role, d, v, day) for i, (t, tg, _, role, d, v, day) in enumerate(wide)]
    assert ingest_bytes(con, csv(wide), "ten.csv").status == "loaded"  # a 10-level scale: a HUGEINT packing
    assert tp.store_bits(con) == tp.usable_bits(con) == 0
    assert_task_patterns_are_the_ratings(con)  # no row kept
    _, names = _read(con, Filters())
    assert "task_value_patterns_kept" not in names


def test_a_scratch_store_filled_with_refresh_only_reads_the_ratings(empty_store, tmp_path):
    con = store.open_store(":memory:")
    with refresh.only(*refresh.AGREEMENT):
        for name, data in FILES.items():
            assert ingest_bytes(con, data, name).status == "loaded"
    assert tp.store_bits(con) > 0 and tp.usable_bits(con) == 0
    _, names = _read(con, Filters())
    assert "task_value_patterns" in names
    con.close()


def test_a_unit_whose_counts_overflow_the_packing_reads_the_value_lists(con, monkeypatch):
    """A 1..7 scale packs 9 bits a level: 512 ratings of one level on one unit carry into the next level. The kept
    code does not add up to its unit's ratings, and the figures come from the value lists, as from the ratings."""
    rows = [("t1", "", f"c{i:03d}", "contractor", "clarity", "1", "2026-03-02") for i in range(512)]
    rows += [("t1", "", "c999", "contractor", "clarity", "7", "2026-03-02")]
    rows += [(f"t{t}", "", f"c{i:03d}", "contractor", "clarity", str(1 + (t + i) % 7), "2026-03-02")
             for t in range(2, 8) for i in range(3)]  # fmt: skip
    assert ingest_bytes(con, csv(rows), "many.csv").status == "loaded"
    assert tp.usable_bits(con) == 9
    got, names = _read(con, Filters())
    assert names[-1] == "task_value_patterns"  # the value lists, after the kept rows failed their count check
    (patterns,) = got.values()
    assert patterns.counts.max() == 512
    want = ct.task_patterns(ct.task_patterns_query(Filters()).df(con), Q_OF)
    _same(got, want)


def test_another_engine_reads_the_ratings(loaded):
    from analytics.agreement.engine import DataFrameEngine

    class Recorded(DataFrameEngine):
        def __init__(self, con):
            self.con = con

        def execute(self, sql, params=None):
            return self.con.execute(sql, params)

    assert ct.reads_kept_patterns(Recorded(loaded), Filters()) == 0
    assert ct.reads_kept_patterns(loaded, Filters()) > 0
