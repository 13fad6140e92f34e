"""AppTest of the Explore page: the result directly under Run with the table list folded beside it, examples, a good
query, a refused one, truncation and odd column types."""

from __future__ import annotations

import json

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from analytics import store
from analytics.explore import sql
from analytics.ingest.load import ingest_bytes
from tests.conftest import app_test

PAGE = "app_pages/explore.py"
RATINGS = b"""\
task_id,rater_id,role,rubric,dimension,target,value,submitted_at
t1,r1,researcher,article_likert,likert,first,4,2026-03-02T09:00:00
t1,c1,contractor,article_likert,likert,first,4,2026-03-02T10:00:00
t2,r1,researcher,article_likert,likert,first,2,2026-03-09T09:00:00
t2,c1,contractor,article_likert,likert,first,5,2026-03-09T10:00:00
"""


@pytest.fixture
def app_store(tmp_path, monkeypatch):
    """A store with four ratings; the app is pointed at it."""
    path = tmp_path / "page.duckdb"
    con = store.open_store(path)
    assert ingest_bytes(con, RATINGS, "ratings.csv").rows_loaded == 4
    con.close()
    monkeypatch.setenv("CONCORD_DB", str(path))
    st.cache_data.clear()
    st.cache_resource.clear()
    return path


def _app() -> AppTest:
    """A new session opened on the page."""
    at = app_test(PAGE, timeout=60)
    assert not at.exception, at.exception
    return at


def _result(at: AppTest):
    """The query's result: the table in the editor's column (the table list's columns are in the other)."""
    return at.main.columns[0].dataframe[0].value


def _in_order(node) -> list:
    """A page's elements and blocks in the order they are drawn (top to bottom, left column before right)."""
    kids = getattr(node, "children", None) or {}
    return [node, *(n for child in kids.values() for n in _in_order(child))]


def _run(at: AppTest, query: str) -> AppTest:
    at.text_area(key="explore_sql").set_value(query)
    at.button(key="explore_run").click().run()
    assert not at.exception, at.exception
    return at


def test_page_lists_tables_and_runs_the_default_query(app_store):
    at = _app()
    tables = at.selectbox(key="explore_table")
    assert set(tables.options) >= {"ratings", "tasks", "submissions", "dimensions", "quarantine"}
    assert "meta" not in tables.options
    tables.select("quarantine").run()
    assert "reason" in at.main.columns[1].dataframe[0].value["column"].tolist()  # the chosen table's columns
    at.button(key="explore_run").click().run()
    assert not at.exception and not at.error
    result = _result(at)
    assert result[["rubric", "role", "ratings"]].values.tolist() == [
        ["article_likert", "contractor", 2],
        ["article_likert", "researcher", 2],
    ]
    assert [b.label for b in at.get("download_button")] == ["Download query result (CSV)"]


def test_example_fills_the_editor_and_runs(app_store):
    at = _app()
    name = "Agreement with researchers by ISO week"
    at.selectbox(key="explore_example").select(name).run()
    assert at.text_area(key="explore_sql").value == sql.EXAMPLE_QUERIES[name]
    at.button(key="explore_run").click().run()
    assert not at.exception and not at.error
    weekly = _result(at)
    # c1 agreed with r1 on t1 (2026-W10) and not on t2 (2026-W11).
    assert weekly["iso_week"].tolist() == ["2026-W10", "2026-W11"]
    assert weekly["share_equal"].tolist() == pytest.approx([1.0, 0.0])


def test_refused_query_shows_one_plain_error(app_store):
    at = _run(_app(), "SELECT * FROM read_csv('/etc/passwd')")
    assert len(at.error) == 1
    assert "read\\_csv" in at.error[0].value and "reads files" in at.error[0].value
    assert not at.get("download_button")


def test_truncated_result_warns_and_odd_types_draw(app_store):
    at = _run(_app(), "SELECT range AS n, [range, 1] AS l, {'a': range} AS s FROM range(20000)")
    assert not at.error
    assert any("first 10,000 rows" in w.value for w in at.warning)
    assert len(_result(at)) == sql.MAX_ROWS


def test_chart_builder_draws_the_result(app_store):
    """The quick chart builder turns a result into an Altair chart with the chosen mark and fields."""
    import json

    at = _run(_app(), "SELECT role, dimension, count(*) AS n FROM ratings GROUP BY ALL ORDER BY ALL")
    at.selectbox(key="chart_mark").select("point").run()
    at.selectbox(key="chart_x").select("dimension").run()
    at.selectbox(key="chart_y").select("n").run()
    at.selectbox(key="chart_color").select("role").run()
    assert not at.exception
    spec = json.loads(at.get("vega_lite_chart")[-1].proto.spec)
    assert spec["mark"]["type"] == "point"
    assert spec["encoding"]["x"]["field"] == "dimension" and spec["encoding"]["y"]["field"] == "n"
    assert spec["encoding"]["color"]["field"] == "role"


def test_limits_are_shown_and_hold_on_the_page(app_store, monkeypatch):
    """The caption states the limits; a slow query stops at the time limit; a wide one is cut at the byte cap."""
    from analytics.explore import worker as explore_worker

    svc = explore_worker.ExploreService(explore_worker.Limits(timeout_s=3.0, memory_bytes=2**30))
    monkeypatch.setattr(explore_worker, "_SERVICE", svc)
    try:
        at = _app()
        caption = " ".join(c.value for c in at.caption)
        assert "stopped after 3 s or 1 GB of memory" in caption and "2 queries at once" in caption
        assert "10,000 rows and 32 MB" in caption
        slow = "SELECT levenshtein(repeat('a', 30000) || range::VARCHAR, repeat('b', 30000)) FROM range(100)"
        at = _run(at, slow)
        assert len(at.error) == 1 and "longer than 3 s" in at.error[0].value, at.error[0].value
        at = _run(at, "SELECT repeat('x', 100000) AS s FROM range(10001)")
        assert not at.error, at.error[0].value
        assert any("passed 32 MB" in w.value for w in at.warning)
        assert 0 < len(_result(at)) < 10_000
    finally:
        svc.close()


def test_list_cells_are_shown_in_full(app_store):
    """Protection: the page shows a list cell as its JSON text (csv_out.nested_as_text), not numpy's summary
    `[0 1 2 ... 1999]`; its CSV download is the query's own frame through the same writer (tests/test_csv_out.py)."""
    at = _run(_app(), "SELECT range(2000) AS l")
    assert not at.error
    assert json.loads(_result(at)["l"][0]) == list(range(2000))


def test_the_result_is_directly_under_run_and_the_table_list_is_folded(app_store):
    """After Run the result is the next thing below the button (its size line first); the table list is one folded
    expander drawn after it, not a column of one expander per table pushing the result down the page."""
    at = _app()
    (folded,) = [e for e in at.expander if e.label.startswith("Tables (")]
    assert folded.label == f"Tables ({len(at.selectbox(key='explore_table').options)})"
    assert not [e for e in at.expander if e.label in at.selectbox(key="explore_table").options]
    at.button(key="explore_run").click().run()
    assert not at.exception and not at.error
    drawn = _in_order(at.main)
    run = next(i for i, n in enumerate(drawn) if getattr(n, "key", None) == "explore_run")
    result = next(i for i, n in enumerate(drawn) if i > run and n.type == "dataframe")
    table_list = next(i for i, n in enumerate(drawn) if n.type == "expander" and n.label == folded.label)
    assert run < result < table_list
    between = {n.type for n in drawn[run + 1 : result]}
    assert between <= {"empty", "caption"}, between  # nothing but the result's size line in between
    assert drawn[result].value["ratings"].sum() == 4
