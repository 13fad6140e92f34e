"""AppTest of the Distributions page on a small store of answer-comparison submissions."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from analytics import store
from analytics.ingest.load import ingest_bytes
from tests.conftest import app_test

PAGE = "app_pages/distributions.py"


def _record(task: str, rater: str, role: str, order: list[str], clicked: str, absolute: str) -> dict:
    return {
        "format": "concord.answer_comparison/v1",
        "submission_id": f"{task}-{rater}",
        "task_id": task,
        "rater_id": rater,
        "role": role,
        "submitted_at": "2026-03-02T14:05:11Z",
        "question": f"Question {task}?",
        "display_order": order,
        "options": {
            "A": {"answer": "a", "sources": [], "ratings": {"usefulness": absolute}},
            "B": {"answer": "b", "sources": [], "ratings": {"usefulness": "Neutral"}},
        },
        "comparison": {"usefulness": clicked, "coherence": "Equally good"},
    }


@pytest.fixture
def app_store(tmp_path, monkeypatch):
    """A store with two contractors and a researcher on 12 tasks; the app is pointed at it."""
    path = tmp_path / "page.duckdb"
    records = []
    for i in range(12):
        order = ["A", "B"] if i % 2 == 0 else ["B", "A"]
        records.append(_record(f"t{i}", "c1", "contractor", order, "A better", "Good"))  # always the first shown
        records.append(_record(f"t{i}", "c2", "contractor", order, "Equally good", "Neutral"))  # always the middle
        if i < 6:
            records.append(_record(f"t{i}", "r1", "researcher", order, "B much better", "Bad"))
    con = store.open_store(path)
    data = ("\n".join(json.dumps(r) for r in records) + "\n").encode()
    assert ingest_bytes(con, data, "page.jsonl", fmt="answer_comparison").status == "loaded"
    con.close()
    monkeypatch.setenv("CONCORD_DB", str(path))
    st.cache_data.clear()  # page caches are keyed by dataset version, which another test's store may share
    st.cache_resource.clear()
    return path


def _app() -> AppTest:
    """A new session opened on the page."""
    at = app_test(PAGE, timeout=60)
    assert not at.exception, at.exception
    return at


def _frame(at: AppTest, title_part: str):
    """The data of the chart whose title contains `title_part` (charts have no typed AppTest element)."""
    for chart in at.get("arrow_vega_lite_chart") + at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        title = json.dumps(spec.get("title", "")) + json.dumps(spec.get("layer", ""))
        if title_part in title:
            return pa.ipc.open_stream(chart.proto.datasets[0].data.data).read_pandas()
    raise AssertionError(f"no chart titled {title_part!r}")


def test_page_renders_every_section(app_store):
    at = _app()
    assert [s.value for s in at.main.subheader] == [
        "Levels per dimension",
        "Raters by level",
        "Position bias",
        "Shift from researchers",
    ]
    levels = at.dataframe[0].value
    uc = levels[(levels["dimension"] == "usefulness_comparison") & (levels["role"] == "researcher")]
    assert uc["level"].tolist() == ["A much better", "A better", "Equally good", "B better", "B much better"]
    # r1 clicked "B much better" on 6 tasks, 3 of them with B shown first: stored 3 x "B much better", 3 x "A much".
    assert uc["n"].tolist() == [3, 0, 0, 0, 3]


def test_position_bias_and_dimension_choice(app_store):
    at = _app()
    bias = at.dataframe[2].value
    c1 = bias[(bias["rater_id"] == "c1") & (bias["dimension"] == "usefulness_comparison")].iloc[0]
    assert c1["share_first_better"] == pytest.approx(1.0)
    assert c1["n"] == 12
    assert at.warning  # fewer than 20 decided comparisons per rater
    raters = at.dataframe[1].value.set_index("rater_id")
    assert raters.loc["c2", "Equally good"] == pytest.approx(1.0)  # the always-middle contractor stands out
    at.selectbox(key="dist_dimension").select("usefulness").run()
    assert not at.exception
    raters = at.dataframe[1].value.set_index("rater_id")
    # Absolute usefulness pools options A (c1: always Good) and B (always Neutral).
    assert (raters.loc["c1", "Good"], raters.loc["c1", "Neutral"]) == (pytest.approx(0.5), pytest.approx(0.5))
    at.selectbox(key="dist_bias_dimension").select("coherence_comparison").run()
    assert not at.exception


def test_sidebar_filters_narrow_the_page(app_store):
    at = _app()
    at.sidebar.multiselect(key="f_roles").select("contractor").run()
    assert not at.exception
    levels = at.dataframe[0].value
    assert set(levels["role"]) == {"contractor"}
    shift = [s.value for s in at.main.subheader]
    assert "Shift from researchers" in shift  # still drawn: the shift pairs contractors with researchers anyway


def test_downloads_offered(app_store):
    at = _app()
    labels = [b.label for b in at.get("download_button")]
    assert labels == [
        "Download level distribution (CSV)",
        "Download raters by level usefulness\\_comparison (CSV)",  # labels are markdown: data in them is escaped
        "Download position bias usefulness\\_comparison (CSV)",
        "Download shift from researchers (CSV)",
    ]


def _shift_table(at: AppTest):
    heads = [s.value for s in at.main.subheader]
    assert "Shift from researchers" in heads
    return next(d.value for d in at.dataframe if "total_variation" in d.value.columns)


def test_shift_shows_n_in_tasks_and_ranks_small_n_last(app_store):
    at = _app()
    shift = _shift_table(at)
    # Each contractor shares 6 tasks with r1: n in tasks beside the figures, every row flagged small_n.
    assert {"rank", "n_tasks", "total_variation_ci_low", "mean_difference_ci_high", "small_n"} <= set(shift.columns)
    assert set(shift["n_tasks"]) == {6}
    assert shift["small_n"].all()
    assert shift["rank"].tolist() == list(range(1, len(shift) + 1))
    assert any("fewer than 30 tasks" in c.value for c in at.caption)


def test_shift_rater_filter_chooses_whose_rows_are_shown(app_store):
    at = _app()
    at.sidebar.multiselect(key="f_raters").select("c2").run()
    assert not at.exception, at.exception
    assert set(_shift_table(at)["contractor_id"]) == {"c2"}
    at.sidebar.multiselect(key="f_raters").unselect("c2").select("r1").run()
    assert not at.exception, at.exception
    # A researcher in the rater filter does not list every contractor paired with it (nor anything else).
    assert all("total_variation" not in d.value.columns for d in at.dataframe)
    assert any("No contractor rated a unit" in i.value for i in at.info)
