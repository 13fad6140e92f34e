"""The contractor tasks kept at ingest (analytics/store/derived/contractor_tasks.py): whatever loads, unloads, rater directories
and scale changes happen, the kept rows equal a pandas computation from the ratings as they are; the effects and
drift read them; the other contractors on a unit count whatever their date."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pandas as pd
import pytest

from analytics import store
from analytics.core.filters import NO_FILTERS, Filters
from analytics.effects import drift, levels
from analytics.ingest import unload
from analytics.ingest.load import ingest_bytes
from analytics.ingest.scales_file import declare_scales, parse_scales
from tests import kept_tasks
from tests.conftest import connect_copy, loaded_store
from tests.kept_tasks import (
    assert_contractor_days_are_the_tasks,
    assert_kept_tasks_are_the_ratings,
    expected_rows,
    expected_rubric_rows,
    expected_tasks_with_researchers,
    kept_rows,
    kept_rubric_rows,
)
from tests.old_store import roll_back
from tests.test_reference_pairs import FILES, csv

# Three ordered dimensions on items A and B of tasks 0-9 by c1, c2 and c4 (halo needs three dimensions or more).
THREE = csv(
    [
        (f"t{t}", target, c, "contractor", dim, str(1 + (t * 7 + i * 3 + k) % 4), f"2026-03-{3 + t % 5:02d}")
        for t in range(10)
        for target in ("A", "B")
        for k, c in enumerate(("c1", "c2", "c4"))
        for i, dim in enumerate(("accuracy", "tone", "depth"))
    ]
)
ALL = {**FILES, "three.csv": THREE}


@pytest.fixture(scope="module")
def all_loaded(tmp_path_factory) -> Path:
    """A store file with every file of ALL loaded in order, built once per module: copy it to write."""
    return loaded_store(tmp_path_factory.mktemp("all-loaded") / "all.duckdb", ALL)


@pytest.fixture(scope="module")
def demo_done(demo) -> dict:
    """kept_tasks.computed_once's results on the read-only demo store, kept for the module."""
    return {}


@pytest.fixture(scope="module")
def demo_tasks(demo, demo_done):
    """expected_tasks_with_researchers of the demo store, computed once per module (each test merges a copy)."""
    with kept_tasks.computed_once(demo_done):
        return expected_tasks_with_researchers(demo)


def test_the_kept_rows_follow_loads_and_unloads_in_any_order(con):
    names = list(ALL)
    for name in [names[1], names[4], names[3], names[2], names[0]]:
        assert ingest_bytes(con, ALL[name], name).status == "loaded"
        assert_kept_tasks_are_the_ratings(con)
    assert len(kept_rows(con)) > 0 and kept_rubric_rows(con)["items"].gt(0).any()
    ids = dict(con.execute("SELECT file_name, ingest_id FROM ingest_log").fetchall())
    unload.unload_file(con, ids["contractors_2.csv"], "test")  # c3 shared tasks 10-19 with c1 and c2
    assert_kept_tasks_are_the_ratings(con)
    unload.unload_file(con, ids["contractors_1.csv"], "test")
    assert_kept_tasks_are_the_ratings(con)
    unload.unload_file(con, ids["three.csv"], "test")
    assert kept_rows(con).empty and kept_rubric_rows(con).empty
    assert ingest_bytes(con, FILES["contractors_2.csv"], "contractors_2.csv").status == "loaded"
    assert_kept_tasks_are_the_ratings(con)


def test_anonymous_raters_are_neither_kept_nor_counted_as_others(con):
    rows = [("t1", "", r, "contractor", "clarity", v, "2026-03-02") for r, v in (("c1", "1"), ("anon:7", "4"))]
    ingest_bytes(con, csv(rows + [("t1", "", "c2", "contractor", "clarity", "2", "2026-03-02")]), "a.csv")
    kept = kept_rows(con)
    assert set(kept["rater_id"]) == {"c1", "c2"}
    assert kept["agree_n"].tolist() == [1, 1]  # each has one other contractor, not two
    assert_kept_tasks_are_the_ratings(con)


def test_a_scale_widened_by_a_later_load_or_declared_moves_the_kept_values(con):
    first = [("t1", "", c, "contractor", "clarity", v, "2026-03-02") for c, v in (("c1", "1"), ("c2", "3"))]
    ingest_bytes(con, csv(first), "first.csv")
    assert kept_rows(con)["v_sum"].tolist() == [1.0, 3.0]  # numeric levels are their own values
    ingest_bytes(con, csv([("t2", "", "c1", "contractor", "clarity", "2", "2026-03-03")]), "later.csv")
    assert_kept_tasks_are_the_ratings(con)
    assert kept_rows(con)["inner_n"].tolist() == [0, 0, 1]  # 1 and 3 are the ends of 1..3, 2 is inside
    entry = {"rubric": "study", "dimension": "clarity", "level": "interval",
             "levels": [{"label": "1", "value": 10}, {"label": "2", "value": 20}, {"label": "3", "value": 40}]}  # fmt: skip
    declare_scales(con, parse_scales(json.dumps({"scales": [entry]}).encode(), "s.json"))
    assert_kept_tasks_are_the_ratings(con)
    assert kept_rows(con)["v_sum"].tolist() == [10.0, 40.0, 20.0]


def test_a_rater_directory_merging_and_unmerging_ids_redoes_the_kept_rows(con):
    from tests.test_people import AS_ANNOTATOR, AS_C13, DIRECTORY, RESEARCHER

    for name, data in (("r.csv", RESEARCHER), ("c13.csv", AS_C13), ("ann.csv", AS_ANNOTATOR)):
        ingest_bytes(con, data, name)
    assert set(kept_rows(con)["rater_id"]) == {"c13", "annotator_13"}
    result = ingest_bytes(con, DIRECTORY, "people.csv")
    assert result.status == "loaded", result.errors
    assert set(kept_rows(con)["rater_id"]) == {"c13"}
    assert_kept_tasks_are_the_ratings(con)
    directory_id = con.execute("SELECT ingest_id FROM ingest_log WHERE file_name = 'people.csv'").fetchall()[0][0]
    unload.unload_file(con, directory_id, "test")
    assert set(kept_rows(con)["rater_id"]) == {"c13", "annotator_13"}
    assert_kept_tasks_are_the_ratings(con)


def test_the_demo_store_keeps_the_rows_the_ratings_give(demo, demo_done):
    assert len(kept_rows(demo)) > 1000
    with kept_tasks.computed_once(demo_done):
        assert_kept_tasks_are_the_ratings(demo)


def test_a_store_from_before_the_table_gains_it_when_opened(all_loaded, tmp_path):
    path = tmp_path / "old.duckdb"
    con = connect_copy(all_loaded, path)
    want, want_rubric = expected_rows(con), expected_rubric_rows(con)
    assert len(want) and want_rubric["items"].gt(0).any()
    roll_back(con, 10)
    con.close()
    con = store.open_store(path)
    assert store.schema_version(con) >= 11
    pd.testing.assert_frame_equal(kept_rows(con), want, check_dtype=False, rtol=1e-9)
    pd.testing.assert_frame_equal(kept_rubric_rows(con), want_rubric, check_dtype=False, rtol=1e-9)
    assert_contractor_days_are_the_tasks(con)  # migration 15 fills the days from the migrated tasks
    con.close()


@pytest.fixture
def two_dates(con):
    """c1 rates t1 and t2 on 2 March; c2 rates t1 on 20 March (a different level) and t2 on 2 March (the same)."""
    rows = [
        ("t1", "", "c1", "contractor", "clarity", "1", "2026-03-02"),
        ("t2", "", "c1", "contractor", "clarity", "3", "2026-03-02"),
        ("t1", "", "c2", "contractor", "clarity", "4", "2026-03-20"),
        ("t2", "", "c2", "contractor", "clarity", "3", "2026-03-02"),
    ]
    assert ingest_bytes(con, csv(rows), "dates.csv").status == "loaded"
    return con


def test_the_other_contractors_on_a_unit_count_whatever_their_date(two_dates):
    """A filter to the first ten days of March reads c1's tasks t1 and t2; c2's later rating of t1 is still the
    one c1 is compared with: leniency (1 - 4 + 3 - 3) / 2 = -1.5 on the value scale 1..4, consensus 1/2."""
    early = Filters(date_to=dt.date(2026, 3, 10))
    shift = levels.consensus_stats(levels.kept_levels_query(early).df(two_dates)).set_index("rater_id")
    assert shift.loc["c1", "raw"] == pytest.approx(-1.5) and shift.loc["c1", "n_tasks"] == 2
    assert shift.loc["c2", "n_tasks"] == 1  # c2's rating of t1 is after the filter: only t2 is read
    weeks = drift.week_sums(two_dates, early).set_index("rater_id")
    assert weeks.loc["c1", "n"] == 2 and weeks.loc["c1", "s1"] == pytest.approx(1.0)
    # A rater filter does not shrink the others either: c1 alone is still compared with c2.
    alone = levels.consensus_stats(levels.kept_levels_query(Filters(raters=("c1",))).df(two_dates))
    assert alone["rater_id"].tolist() == ["c1"] and alone["raw"].iloc[0] == pytest.approx(-1.5)
    assert drift.week_sums(two_dates, NO_FILTERS)["n"].sum() == 4


def test_central_tendency_variances_from_the_kept_sums_equal_pandas(demo):
    """The own and team variances read from kept sums equal pandas' sample variances of the values."""
    got = levels.central_stats(levels.kept_levels_query(NO_FILTERS).df(demo))
    assert len(got) > 0
    ratings = demo.execute(
        """SELECT r.rater_id, r.rubric, r.dimension, coalesce(d.level_values[r.value_index + 1], r.value_index) AS v
           FROM ratings r JOIN dimensions d USING (rubric, dimension)
           WHERE r.role = 'contractor' AND r.value_index IS NOT NULL AND r.rater_id NOT LIKE 'anon:%'"""
    ).df()
    own = ratings.groupby(["rater_id", "rubric", "dimension"])["v"].var()
    team = ratings.groupby(["rubric", "dimension"])["v"].var()
    for row in got.itertuples():
        want = own[(row.rater_id, row.rubric, row.dimension)]
        assert row.variance == pytest.approx(want, rel=1e-9, abs=1e-12) or (pd.isna(want) and pd.isna(row.variance))
        assert row.team_variance == pytest.approx(team[(row.rubric, row.dimension)], rel=1e-9)


def test_the_packed_and_the_exact_form_keep_the_same_rows(all_loaded, tmp_path, monkeypatch):
    """Level counts packed in one integer per unit, or counted per unit level (wide scales, many raters)."""
    from analytics.store.derived import contractor_tasks

    con = connect_copy(all_loaded, tmp_path / "s.duckdb")
    assert contractor_tasks.packing(con) > 0
    packed = kept_rows(con)
    monkeypatch.setattr(contractor_tasks, "packing", lambda con: 0)
    con.execute("DELETE FROM contractor_tasks; DELETE FROM contractor_rubric_tasks")
    contractor_tasks.fill(con)
    pd.testing.assert_frame_equal(kept_rows(con), packed, check_dtype=False, rtol=1e-12)
    assert_kept_tasks_are_the_ratings(con)
    con.close()


def test_packing_is_off_when_a_unit_could_overflow_its_bits(con, monkeypatch):
    from analytics.core import packing as pk
    from analytics.store.derived import contractor_tasks

    ingest_bytes(con, FILES["contractors_1.csv"], "c.csv")
    monkeypatch.setattr(pk, "packing_bits", lambda width: 1)  # 2 raters: a level count of 2 needs 2 bits
    assert contractor_tasks.packing(con) == 0


def test_a_fill_in_many_task_ranges_keeps_the_same_rows(con, monkeypatch):
    """A large load fills in ranges of task keys (CHUNK_RATINGS ratings each); units never straddle two."""
    from analytics.store.derived import contractor_tasks

    monkeypatch.setattr(contractor_tasks, "CHUNK_RATINGS", 7)
    for name in ALL:
        ingest_bytes(con, ALL[name], name)
    assert_kept_tasks_are_the_ratings(con)
    con.execute("DELETE FROM contractor_tasks; DELETE FROM contractor_rubric_tasks")
    contractor_tasks.fill(con)
    assert_kept_tasks_are_the_ratings(con)


def test_halo_reads_every_ordered_dimension_of_the_rubric_whatever_the_dimension_filter(con):
    ingest_bytes(con, THREE, "three.csv")
    every = levels.halo_query(NO_FILTERS).df(con)
    assert len(every) == 3 and every["n_tasks"].tolist() == [10, 10, 10]
    one = levels.halo_query(Filters(dimensions=("accuracy",))).df(con)
    pd.testing.assert_frame_equal(one, every)
    early = levels.halo_query(Filters(date_to=dt.date(2026, 3, 4))).df(con)
    assert early["n_tasks"].tolist() == [4, 4, 4]  # tasks 0, 1, 5, 6 on 3 and 4 March


@pytest.mark.parametrize(
    "filters",
    [
        NO_FILTERS,
        Filters(date_from=dt.date(2026, 3, 9), date_to=dt.date(2026, 3, 20)),
        Filters(rubric="answer_comparison", date_to=dt.date(2026, 3, 12)),
        Filters(raters=("c01", "c05"), date_from=dt.date(2026, 3, 14)),
        Filters(dimensions=("core", "accuracy")),
    ],
    ids=["all", "dates", "rubric and dates", "raters and dates", "one dimension"],
)
def test_the_days_answer_a_filter_as_the_tasks_would(demo, demo_tasks, filters):
    """Central tendency, the consensus shift and the shift from researchers summed per day
    (analytics/store/derived/contractor_days.py) equal pandas' task means and standard errors over the kept contractor tasks the
    filter selects (the sidebar's dates select whole days, so a day's sums are kept or dropped whole, as its tasks)."""
    from analytics.effects.rows import task_means

    got = levels.kept_levels_query(filters).df(demo).set_index(["rater_id", "rubric", "dimension"])
    ordered = demo.execute(
        "SELECT rubric, dimension FROM dimensions WHERE NOT is_comparison AND measure <> 'nominal' "
        "AND kind <> 'ranking' AND len(levels) >= 3"
    ).df()
    tasks = demo_tasks.merge(ordered, on=["rubric", "dimension"])
    when = tasks["submitted_at"]
    keep = pd.Series(True, tasks.index)
    if filters.date_from:
        keep &= when.isna() | (when >= pd.Timestamp(filters.date_from))
    if filters.date_to:
        keep &= when.isna() | (when < pd.Timestamp(filters.date_to + dt.timedelta(days=1)))
    if filters.rubric:
        keep &= tasks["rubric"] == filters.rubric
    if filters.raters:
        keep &= tasks["rater_id"].isin(filters.raters)
    if filters.dimensions:
        keep &= tasks["dimension"].isin(filters.dimensions)
    tasks = tasks[keep].assign(
        inner=lambda t: t["inner_n"] / t["n_ratings"],
        shift=lambda t: (t["diff_sum"] / t["agree_n"]).where(t["agree_n"] > 0),
    )
    central = task_means(tasks, "inner").set_index(["rater_id", "rubric", "dimension"])
    shifted = task_means(tasks.dropna(subset=["shift"]), "shift").set_index(["rater_id", "rubric", "dimension"])
    assert len(central) > 0 and sorted(got.index) == sorted(central.index)
    pd.testing.assert_series_equal(got["n_tasks"], central["n_tasks"].loc[got.index], check_dtype=False)
    for col in ("raw", "se"):
        pd.testing.assert_series_equal(got[col], central[col].loc[got.index], check_dtype=False, rtol=1e-9, atol=1e-12)
    by_researchers = levels.researcher_shift_query(filters).df(demo).set_index(["rater_id", "rubric", "dimension"])
    want = task_means(tasks.dropna(subset=["researcher"]), "researcher").set_index(["rater_id", "rubric", "dimension"])
    assert len(want) > 0 and sorted(by_researchers.index) == sorted(want.index)
    for col in ("raw", "se", "n_tasks"):
        pd.testing.assert_series_equal(
            by_researchers[col], want[col].loc[by_researchers.index], check_dtype=False, rtol=1e-9, atol=1e-12
        )
    has = got[got["shift_n_tasks"] > 0]
    assert len(has) > 0 and sorted(has.index) == sorted(shifted.index)
    for col in ("raw", "se", "n_tasks"):
        pd.testing.assert_series_equal(
            has[f"shift_{col}"],
            shifted[col].loc[has.index],
            check_dtype=False,
            check_names=False,
            rtol=1e-9,
            atol=1e-12,
        )
