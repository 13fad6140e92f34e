"""The contractor-researcher pairs kept at ingest (analytics/store/derived/reference_pairs.py): whatever order files arrive and
leave in, the kept pairs are exactly the pairs the ratings make, and the figures read from them equal the
figures of pairing the ratings themselves."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from analytics import agreement, store
from analytics.agreement import pair_plans as pp
from analytics.agreement import pair_rows as prw
from analytics.agreement import pairing as pg
from analytics.agreement import report as rp
from analytics.agreement import rows as rw
from analytics.agreement import sides as sd
from analytics.agreement import signatures as sg
from analytics.core import packing as pk
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.ingest import unload
from analytics.ingest.load import ingest_bytes
from analytics.store import keys
from tests.conftest import connect_copy, loaded_store
from tests.kept_tasks import assert_reference_tasks_are_the_ratings
from tests.old_store import roll_back
from tests.signatures import assert_same_signatures

RNG = np.random.default_rng(7)
LEVELS = ["1", "2", "3", "4"]


def csv(rows: list[tuple]) -> bytes:
    """A canonical CSV of (task_id, target, rater_id, role, dimension, value, submitted_at) rows, rubric 'study'."""
    cols = ["task_id", "target", "rater_id", "role", "dimension", "value", "submitted_at"]
    buf = io.StringIO()
    pd.DataFrame(rows, columns=cols).assign(rubric="study").to_csv(buf, index=False)
    return buf.getvalue().encode()


def ratings(role: str, raters: list[str], tasks: range, day: int) -> list[tuple]:
    """Random ratings of two dimensions (one of them with targets A and B) by each rater on each task."""
    rows = []
    for t in tasks:
        for r in raters:
            date = f"2026-03-{day + t % 3:02d}"
            rows.append((f"t{t}", "", r, role, "clarity", str(RNG.choice(LEVELS)), date))
            for target in ("A", "B"):
                rows.append((f"t{t}", target, r, role, "quality", str(RNG.choice(LEVELS)), date))
    return rows


FILES = {
    "researchers.csv": csv(ratings("researcher", ["r1", "r2"], range(0, 30, 2), 2)),
    "contractors_1.csv": csv(ratings("contractor", ["c1", "c2"], range(0, 20), 3)),
    "contractors_2.csv": csv(ratings("contractor", ["c3"], range(10, 40), 9)),
    "researcher_late.csv": csv(ratings("researcher", ["r3"], range(15, 35), 20)),
}


@pytest.fixture(scope="module")
def all_files(tmp_path_factory) -> Path:
    """A store file with every file of FILES loaded in order, built once per module: copy it to write."""
    return loaded_store(tmp_path_factory.mktemp("all-files") / "all.duckdb", FILES)


@pytest.fixture(scope="module")
def loaded(all_files) -> Iterator:
    """A read-only connection to `all_files`, for the tests that only read it."""
    con = store.open_store(all_files, read_only=True)
    yield con
    con.close()


def kept_equals_listed(con) -> None:
    """Kept pairs are the self-join's pairs; the figures from them equal the listed pairs' signatures."""
    kept = con.execute(
        "SELECT task_key, dim_key, target_key, rater_key, reference_key FROM reference_pairs ORDER BY ALL"
    ).fetchall()
    joined = con.execute(
        """SELECT s.task_key, s.dim_key, s.target_key, s.rater_key, r.rater_key FROM ratings s
           JOIN ratings r USING (task_key, dim_key, target_key)
           WHERE s.role = 'contractor' AND r.role = 'researcher' AND s.value_index IS NOT NULL
             AND r.value_index IS NOT NULL ORDER BY ALL"""
    ).fetchall()
    assert kept == joined
    assert_reference_tasks_are_the_ratings(con)
    width = pk.scale_width(con)
    multi = pg.multi_target(con)
    q_of = lambda key: len(LEVELS)  # noqa: E731
    for filters in (Filters(), Filters(raters=("c1", "c3")), Filters(date_from=pd.Timestamp("2026-03-10").date())):
        for comparison in ("contractor_vs_researcher",):
            for grain in ("rater", "dimension"):
                sides = sd.comparison_sides(filters, comparison)
                kept_q = pp.pair_query(sides, grain, width, multi)
                assert ("reference_tasks" if grain == "rater" else "reference_pairs") in kept_q.sql
                got = sg.signatures(kept_q.df(con), grain, width, q_of)
                with mock.patch.object(sd, "reads_reference_pairs", return_value=False):  # the self-join
                    listed_q = pp.pair_query(sides, grain, width, multi, packed=False)
                assert "reference_pairs" not in listed_q.sql
                want = sg.signatures(listed_q.df(con), grain, width, q_of)
                assert got.keys() == want.keys(), (filters, grain)
                for key, sig in want.items():
                    q = int(math.isqrt(sig.cells.shape[1]))
                    assert got[key].tasks == sig.tasks and got[key].n_units == sig.n_units, key
                    assert np.array_equal(got[key].table(q), sig.table(q)), key
                # summed per rater or dimension in SQL (point estimates): the same tables, tasks and units
                summed = sg.pair_signatures(con, sides, grain, q_of, summed=True)
                assert summed.keys() == want.keys(), filters
                for key, sig in want.items():
                    assert summed[key].summed and not sig.summed
                    assert (summed[key].tasks, summed[key].n_units) == (sig.tasks, sig.n_units), key
                    assert np.array_equal(summed[key].table(len(LEVELS)), sig.table(len(LEVELS))), key


@pytest.mark.parametrize(
    "order",
    [
        ["researchers.csv", "contractors_1.csv", "contractors_2.csv", "researcher_late.csv"],
        ["contractors_1.csv", "researcher_late.csv", "contractors_2.csv", "researchers.csv"],
    ],
    ids=["researchers first", "researchers last"],
)
def test_kept_pairs_follow_loads_and_unloads_in_any_order(con, order):
    for name in order:
        assert ingest_bytes(con, FILES[name], name).status == "loaded"
        kept_equals_listed(con)
    ids = dict(con.execute("SELECT file_name, ingest_id FROM ingest_log").fetchall())
    for name in ("researchers.csv", "contractors_2.csv"):
        removed = unload.unload_file(con, ids[name], "test")
        assert removed["reference_pairs"] > 0
        kept_equals_listed(con)
    assert ingest_bytes(con, FILES["researchers.csv"], "researchers.csv").status == "loaded"
    kept_equals_listed(con)


def test_quarantined_ratings_make_no_pairs(con):
    ingest_bytes(con, FILES["researchers.csv"], "researchers.csv")
    twice = [("t0", "", "c9", "contractor", "clarity", "1", "2026-03-04")] * 2  # a duplicate: both copies quarantined
    result = ingest_bytes(con, csv(ratings("contractor", ["c8"], range(0, 4), 3) + twice), "contractors_dup.csv")
    assert result.status == "loaded" and result.rows_quarantined == 2
    kept_equals_listed(con)
    raters = {r[0] for r in con.execute("SELECT DISTINCT rater_id FROM reference_pairs").fetchall()}
    assert raters == {"c8"}


def test_a_contractor_task_rated_at_two_times_is_kept_in_two_rows_and_merged_when_both_are_read(con):
    """c1 rates target A of tasks 0-5 on 3 March and target B on 12 March: reference_tasks keeps two rows of each
    task (one_row false); with no date filter both are merged into the task's signature, from 10 March only B's
    row counts, and both give the self-join's signatures (kept_equals_listed)."""
    ingest_bytes(con, FILES["researchers.csv"], "researchers.csv")
    rows = [
        (f"t{t}", target, "c1", "contractor", "quality", str(1 + (t + k) % 4), f"2026-03-{day:02d}")
        for t in range(0, 6)
        for k, (target, day) in enumerate((("A", 3), ("B", 12)))
    ]
    assert ingest_bytes(con, csv(rows), "two_times.csv").status == "loaded"
    split = con.execute("SELECT count(*) FROM reference_tasks WHERE NOT one_row").fetchall()[0][0]
    assert split == 6  # tasks 0, 2, 4 have researcher labels: two rows each
    kept_equals_listed(con)
    raters = agreement.rater_agreement(
        con, agreement.AgreementSpec(comparison="contractor_vs_researcher", n_boot=0, filters=Filters())
    ).set_index("rater_id")
    assert raters.loc["c1", "n_tasks"] == 3 and raters.loc["c1", "n"] == 12  # 3 tasks x 2 targets x 2 researchers


def pairs_queries(sides: sd.Sides, con) -> list[Query]:
    """The queries over the pairing other modules build: every pair, pairs with submission times, shared tasks."""
    head, params = pg.pair_ctes(sides, carry=("submitted_at",))
    carried = Query("carried", f"{head}\nSELECT * FROM pairs ORDER BY ALL", params)
    return [pg.unit_pairs_query(sides), pg.shared_tasks_query(sides, keys.task_key_bound(con)), carried]


def test_every_pairs_query_of_contractors_against_researchers_equals_the_self_join(loaded):
    """pair_ctes, unit_pairs_query and shared_tasks_query read the kept pairs; their rows are the self-join's."""
    con = loaded
    for filters in (Filters(), Filters(raters=("c2",), date_to=pd.Timestamp("2026-03-12").date())):
        sides = sd.comparison_sides(filters, "contractor_vs_researcher")
        with mock.patch.object(sd, "reads_reference_pairs", return_value=False):
            self_joins = pairs_queries(sides, con)
        for kept, self_join in zip(pairs_queries(sides, con), self_joins, strict=True):
            assert "reference_" in kept.sql and "reference_" not in self_join.sql, kept.name  # kept pairs or cells
            pd.testing.assert_frame_equal(kept.df(con), self_join.df(con), check_dtype=False)


def test_pairs_on_their_keys_alone_are_the_named_pairs(loaded):
    """pair_ctes(named=False) skips naming the kept pairs (no join of the key tables); every key column, carried
    column and level is the named pairing's, under each filter."""
    con = loaded
    cols = "rubric, dimension, task_key, dim_key, target_key, key_a, key_b, index_a, index_b, submitted_at_a"
    for filters in (Filters(), Filters(raters=("c2",), date_to=pd.Timestamp("2026-03-12").date())):
        sides = sd.comparison_sides(filters, "contractor_vs_researcher")
        frames = []
        for named in (True, False):
            head, params = pg.pair_ctes(sides, carry=("submitted_at",), named=named)
            assert ("JOIN task_keys" in head) == named
            frames.append(con.execute(f"{head}\nSELECT {cols} FROM pairs ORDER BY ALL", params).df())
        assert len(frames[0]) > 0
        pd.testing.assert_frame_equal(frames[1], frames[0])


def test_the_report_reads_kept_pairs_and_shows_that_sql(loaded):
    con = loaded
    report = agreement.agreement_report(
        con, agreement.AgreementSpec(comparison="contractor_vs_researcher", n_boot=0, filters=Filters())
    )
    shown = [q.sql for q in report.queries if q.name.startswith("pairs_")]
    assert any("FROM reference_tasks" in sql for sql in shown)
    assert set(report.raters["rater_id"]) == {"c1", "c2", "c3"}


@pytest.mark.parametrize("coarse", [False, True])
def test_rater_rows_without_intervals_from_summed_cells_equal_those_from_task_signatures(demo, coarse):
    """Without intervals, the per-rater rows of contractors against researchers come from their cells summed in
    SQL (pairs.summed_query): every column equals the rows from the task signatures, on the demo's scales
    (rankings with their item pairs, four targets, nominal and ordinal levels), under rubric, date and dimension
    filters; with intervals the signatures are fetched as before."""

    def by_signatures(*args, **kwargs):
        return pair_set(*args, **{**kwargs, "summed": False})

    pair_set = rp.pair_set
    filters = [Filters(), Filters(date_from=pd.Timestamp("2026-03-02").date()), Filters(raters=("c01", "c02"))]
    filters += [Filters(rubric=r) for r in ("preference_ranking", "instruction_following", "article_likert")]
    filters += [Filters(rubric="answer_comparison", dimensions=("usefulness",))]
    for f in filters:
        log: list[Query] = []
        got = agreement.rater_agreement(
            demo,
            agreement.AgreementSpec(comparison="contractor_vs_researcher", coarse=coarse, n_boot=0, filters=f),
            queries=log,
        )
        assert [q.name for q in log if q.name.startswith("pairs_")] == [
            "pairs_contractor_vs_researcher_by_rater_summed"
        ]
        with mock.patch.object(rp, "pair_set", by_signatures):
            want = agreement.rater_agreement(
                demo, agreement.AgreementSpec(comparison="contractor_vs_researcher", coarse=coarse, n_boot=0, filters=f)
            )
        assert not got.empty
        pd.testing.assert_frame_equal(got, want)
    log = []
    agreement.rater_agreement(
        demo,
        agreement.AgreementSpec(
            comparison="contractor_vs_researcher", n_boot=20, filters=Filters(rubric="article_likert")
        ),
        queries=log,
    )
    assert [q.name for q in log if q.name.startswith("pairs_")] == ["pairs_contractor_vs_researcher_by_rater"]


def test_an_interval_is_refused_cells_summed_over_tasks(demo):
    """A bootstrap resamples tasks: a group whose cells were summed in SQL has none to resample."""
    key = ("answer_comparison", "usefulness")
    scale = rp.scales(demo, Filters(rubric=key[0]), None, False, [])[key]
    q = scale.full_size
    summed = sg.Signatures(np.eye(q).reshape(1, -1), np.ones(1), 4, summed_tasks=3)
    args = (scale, [("c01", *key)], [summed], [None])
    with pytest.raises(ValueError, match="tasks apart"):
        prw.pair_rows(*args, [100], 0, "researchers", rw.RATER_STATS)
    base, coefs = prw.pair_rows(*args, [0], 0, "researchers", rw.RATER_STATS)[0]
    assert (base["n_tasks"], base["n"], base["n_units"]) == (3, q, 4)
    assert {c["statistic"]: c["value"] for c in coefs}["exact_agreement"] == 1.0


def kept_values_equal_joined(con) -> None:
    """Every kept pair carries the positions its two ratings hold now (not those of the scale they were kept on)."""
    kept = con.execute(
        """SELECT task_key, dim_key, target_key, rater_key, value_index, reference_key, reference_index
           FROM reference_pairs ORDER BY ALL"""
    ).fetchall()
    joined = con.execute(
        """SELECT s.task_key, s.dim_key, s.target_key, s.rater_key, s.value_index, r.rater_key, r.value_index
           FROM ratings s JOIN ratings r USING (task_key, dim_key, target_key)
           WHERE s.role = 'contractor' AND r.role = 'researcher' AND s.value_index IS NOT NULL
             AND r.value_index IS NOT NULL ORDER BY ALL"""
    ).fetchall()
    assert kept == joined


def test_a_later_load_that_widens_an_inferred_scale_moves_the_kept_pairs_positions(con):
    """Levels 1 and 3 are positions 0 and 1 until a load brings 2: then 3 is position 2, in the pairs too (they
    kept 1 against 3 as one step apart, and an ordinal or interval coefficient read a smaller disagreement)."""
    first = [(t, "", r, role, "clarity", v, "2026-03-02") for t, r, role, v in [
        ("t1", "c1", "contractor", "1"), ("t1", "r1", "researcher", "3"),
        ("t2", "c1", "contractor", "3"), ("t2", "r1", "researcher", "3")]]  # fmt: skip
    ingest_bytes(con, csv(first), "first.csv")
    assert con.execute("SELECT value_index, reference_index FROM reference_pairs ORDER BY ALL").fetchall() == [
        (0, 1),
        (1, 1),
    ]
    later = [("t3", "", "c1", "contractor", "clarity", "2", "2026-03-03")]
    ingest_bytes(con, csv(later), "later.csv")
    assert con.execute("SELECT levels FROM dimensions WHERE dimension = 'clarity'").fetchall()[0][0] == ["1", "2", "3"]
    kept_values_equal_joined(con)
    assert con.execute("SELECT value_index, reference_index FROM reference_pairs ORDER BY ALL").fetchall() == [
        (0, 2),
        (2, 2),
    ]
    kept_equals_listed(con)


def test_a_declared_scale_rereads_the_kept_pairs_positions_and_drops_pairs_of_missing_values(all_files, tmp_path):
    from analytics.ingest.scales_file import declare_scales, parse_scales

    con = connect_copy(all_files, tmp_path / "store.duckdb")
    entry = {"rubric": "study", "dimension": "quality", "level": "ordinal", "levels": ["2", "3", "4"], "missing": ["1"]}
    scales = parse_scales(json.dumps({"scales": [entry]}).encode(), "s.json")
    assert declare_scales(con, scales).ratings_reindexed > 0
    kept_values_equal_joined(con)
    n_missing = con.execute("SELECT count(*) FROM reference_pairs WHERE dimension = 'quality' AND value_index IS NULL")
    assert n_missing.fetchall()[0][0] == 0
    assert con.execute("SELECT count(*) FROM reference_pairs WHERE dimension = 'quality'").fetchall()[0][0] > 0


def test_a_store_whose_pairs_kept_old_positions_is_mended_when_opened(all_files, tmp_path):
    """Migration 10 recomputes the kept pairs of a store written before redo_dimension."""
    path = tmp_path / "old.duckdb"
    con = connect_copy(all_files, path)
    con.execute("UPDATE reference_pairs SET reference_index = 3 - reference_index WHERE dimension = 'clarity'")
    roll_back(con, 9)
    con.close()
    con = store.open_store(path)
    assert store.schema_version(con) == store.MIGRATIONS[-1][0]
    kept_values_equal_joined(con)
    con.close()


def _q_of(con):
    """Each (rubric, dimension)'s number of levels, from the catalogue."""
    sizes = {(r, d): n for r, d, n in con.execute("SELECT rubric, dimension, len(levels) FROM dimensions").fetchall()}
    return lambda key: sizes.get(key[-2:])


@pytest.mark.parametrize(
    "filters",
    [Filters(), Filters(rubric="answer_comparison"), Filters(date_from=pd.Timestamp("2026-03-10").date())],
    ids=["all", "comparison rubric", "from a date"],
)
def test_pooled_pairs_summed_per_unit_equal_the_pairs_per_researcher_label(demo, filters):
    """The pooled pairing over the kept pairs sums each unit's pairs in one pass (S x R / n, "pair_sums"); the
    per-label form it replaced, still used where a level has under NARROW_BITS bits, gives the same signatures
    on the demo (rankings, two-target and one-target dimensions)."""
    sides, q_of = sd.pooled_sides(filters), _q_of(demo)
    log: list = []
    got = sg.pair_signatures(demo, sides, "dimension", q_of, log)
    assert "pair_sums" in log[-1].sql and "reference_pairs" in log[-1].sql
    with mock.patch.object(pk, "NARROW_BITS", 99):  # every packing's levels count as narrow
        log = []
        want = sg.pair_signatures(demo, sides, "dimension", q_of, log)
    assert "pair_sums" not in log[-1].sql and "reference_pairs" in log[-1].sql
    assert_same_signatures(got, want)


def test_a_unit_whose_pair_sums_overflow_a_level_is_paired_from_lists(con):
    """16 contractors and 16 researchers all giving one level to a unit make 256 pairs there, one more than a
    level of 8 bits holds: the packed sums carry into the next level, the decoding finds their total wrong, and
    the list form pairs the store (the same tables as pairing the ratings themselves)."""
    rows = [("t0", "", f"c{i:02d}", "contractor", "clarity", "1", "2026-03-02") for i in range(16)]
    rows += [("t0", "", f"r{i:02d}", "researcher", "clarity", "1", "2026-03-02") for i in range(16)]
    rows += [("t1", "", "c00", "contractor", "clarity", "2", "2026-03-02")]
    rows += [("t1", "", "r00", "researcher", "clarity", "3", "2026-03-02")]
    assert ingest_bytes(con, csv(rows), "crowd.csv").status == "loaded"
    width = pk.scale_width(con)
    sides, q_of = sd.pooled_sides(Filters()), _q_of(con)
    with mock.patch.object(pk, "packing", return_value=pk.Packing(8, "BIGINT")):  # 255 pairs a level at most
        q = pp.pair_query(sides, "dimension", width, pg.multi_target(con))
        assert "pair_sums" in q.sql
        with pytest.raises(pk.PackingOverflow):
            sg.signatures(sg.fetch(con, q), "dimension", width, q_of)
        log: list = []
        got = sg.pair_signatures(con, sides, "dimension", q_of, log)
    assert "pair_sums" not in log[-1].sql  # the list form ran
    key = ("study", "clarity")
    assert got.keys() == {key}
    q = q_of(key)
    table = np.zeros((q, q))
    table[0, 0], table[1, 2] = 256, 1
    assert np.array_equal(got[key].table(q), table)
    assert got[key].tasks == 2 and got[key].n_units == 2
