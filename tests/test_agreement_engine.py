"""The engine interface the pairing runs on (analytics/agreement/engine.py): DuckDB and a DataFrame engine (the
Spark engine's kind) give the same signatures and the same report."""

from __future__ import annotations

import io

import pandas as pd
import pyarrow as pa
import pytest

from analytics import agreement, store
from analytics.agreement import engine as eng
from analytics.agreement import sides as sd
from analytics.agreement import signatures as sg
from analytics.agreement.spec import AgreementSpec
from analytics.core import packing as pk
from analytics.core.filters import Filters
from analytics.ingest.load import ingest_bytes
from tests.signatures import assert_same_signatures


@pytest.fixture(scope="module")
def small():
    rows = [
        (f"t{t}", "", rater, role, "overall", str((t * 7 + k) % 3 + 1))
        for t in range(12)
        for k, (rater, role) in enumerate((("c1", "contractor"), ("c2", "contractor"), ("r1", "researcher")))
    ]
    buf = io.StringIO()
    cols = ["task_id", "target", "rater_id", "role", "dimension", "value"]
    pd.DataFrame(rows, columns=cols).assign(rubric="study").to_csv(buf, index=False)
    con = store.open_store(":memory:")
    assert ingest_bytes(con, buf.getvalue().encode(), "study.csv").status == "loaded"
    yield con
    con.close()


class Listing(eng.DataFrameEngine):
    """A DuckDB connection seen through `execute` only, as the Spark engine is."""

    def __init__(self, con) -> None:
        self.con = con

    def execute(self, sql, params=None):
        return self.con.execute(sql, params)


def test_duckdb_and_a_dataframe_engine_are_engines_of_one_interface(small):
    duck = eng.engine_of(small)
    assert isinstance(duck, eng.DuckDBEngine) and duck.sums_in_sql
    listing = Listing(small)
    assert eng.engine_of(listing) is listing and not listing.sums_in_sql
    query = pk.scale_width_query()
    assert isinstance(duck.fetch(query), pa.Table) and isinstance(listing.fetch(query), pd.DataFrame)
    assert duck.fetch(query).to_pandas().equals(listing.fetch(query))


@pytest.mark.parametrize("grain", ["rater", "dimension", "rater_pair"])
def test_the_pairing_gives_the_same_signatures_on_either_engine(small, grain):
    sides = sd.comparison_sides(Filters(), "contractor_vs_researcher")
    if grain == "rater_pair":
        sides = sd.rater_pair_sides(Filters())
    got = sg.pair_signatures(Listing(small), sides, grain, lambda _k: 3)
    assert got
    assert_same_signatures(got, sg.pair_signatures(small, sides, grain, lambda _k: 3))


def test_the_report_is_the_same_on_either_engine(small):
    spec = AgreementSpec(n_boot=20, filters=Filters(rubric="study"))
    duck, listing = agreement.agreement_report(small, spec), agreement.agreement_report(Listing(small), spec)
    for name in ("dimensions", "raters", "ceiling", "coefficients"):
        pd.testing.assert_frame_equal(getattr(listing, name), getattr(duck, name))


def test_the_spark_engine_is_a_dataframe_engine():
    engine = pytest.importorskip("analytics.engines.spark.engine")
    assert issubclass(engine.SparkConnection, eng.DataFrameEngine)
