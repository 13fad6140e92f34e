"""AppTest of the Disagreements page: filters, the ranked cases, the unit detail as plain text, review notes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from analytics import disagreements as dis
from analytics import store
from analytics.ingest.load import ingest_bytes

ROOT = Path(__file__).resolve().parent.parent
PAGE = "app_pages/disagreements.py"
HOSTILE = "Cheaper <script>alert(1)</script> [click](http://evil.example) ![img](http://evil.example/x.png)"


def _record(task: str, rater: str, role: str, clicked: str, **extra) -> dict:
    rec = {
        "format": "concord.answer_comparison/v1",
        "submission_id": f"{task}-{rater}",
        "task_id": task,
        "rater_id": rater,
        "role": role,
        "submitted_at": "2026-03-02T14:05:11Z",
        "question": f"{task}: {HOSTILE}",
        "display_order": ["A", "B"],
        "options": {
            "A": {
                "answer": "Answer A **bold** <b>html</b>",
                "sources": [{"n": 1, "title": "Source one", "domain": "www.npr.org", "quote": "efficient"}],
            },
            "B": {"answer": "Answer B", "sources": []},
        },
        "comparison": {"usefulness": clicked},
    }
    rec.update(extra)
    return rec


@pytest.fixture
def app_store(tmp_path, monkeypatch):
    """Three tasks: an opposite-direction case (c1), a "very" case (c1) and a two-step case (c2)."""
    records = [
        _record("q1", "c1", "contractor", "A much better", comment=f"c1 says {HOSTILE}"),
        _record("q1", "r1", "researcher", "B better", explanations={"usefulness": "A's core claim is unsupported."}),
        _record("q2", "c1", "contractor", "A better"),
        _record("q2", "r1", "researcher", "A much better"),
        _record("q3", "c2", "contractor", "Equally good"),
        _record("q3", "r1", "researcher", "B much better"),
    ]
    path = tmp_path / "page.duckdb"
    con = store.open_store(path)
    data = ("\n".join(json.dumps(r) for r in records) + "\n").encode()
    assert ingest_bytes(con, data, "cases.jsonl", fmt="answer_comparison").status == "loaded"
    con.close()
    monkeypatch.setenv("CONCORD_DB", str(path))
    st.cache_data.clear()  # page caches are keyed by dataset version, which another test's store may share
    st.cache_resource.clear()
    return path


def _app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def _cases(at: AppTest):
    return at.dataframe[0].value


def test_ranked_cases_and_filters(app_store):
    at = _app()
    cases = _cases(at)
    assert cases["task_id"].tolist() == ["q1", "q3", "q2"]
    assert cases["severity"].tolist() == [dis.OPPOSITE, dis.TWO_STEPS, dis.VERY]
    at.multiselect(key="dis_severities").select(dis.VERY).run()
    assert _cases(at)["task_id"].tolist() == ["q2"]
    at.multiselect(key="dis_severities").unselect(dis.VERY).run()
    at.multiselect(key="dis_contractors").select("c2").run()
    assert _cases(at)["task_id"].tolist() == ["q3"]
    assert len(at.selectbox(key="dis_case").options) == 1
    # The sidebar's filters apply too.
    at.multiselect(key="dis_contractors").unselect("c2")
    at.sidebar.multiselect(key="f_raters").select("c1").run()
    assert _cases(at)["task_id"].tolist() == ["q1", "q2"]


def test_detail_shows_submission_text_as_plain_text(app_store):
    at = _app()
    texts = [t.value for t in at.text]
    assert f"q1: {HOSTILE}" in texts  # the question, verbatim
    assert "Answer A **bold** <b>html</b>" in texts
    assert any(t.startswith('[1] Source one, www.npr.org: "efficient"') for t in texts)
    assert f"c1 says {HOSTILE}" in texts  # the contractor's comment
    assert any("A's core claim is unsupported." in t for t in texts)  # the researcher's explanation
    # Nothing from a submission reaches markdown unescaped.
    for md in at.markdown:
        assert "](http" not in md.value and "<script>" not in md.value
    ratings = at.dataframe[1].value
    assert list(ratings.columns) == ["dimension", "target", "c1 (contractor)", "r1 (researcher)"]


def test_note_is_saved_and_found_again(app_store):
    at = _app()
    at.selectbox(key="note_status").select("feedback given")
    at.text_area(key="note_text").input("Read the rubric on usefulness direction.")
    at.text_input(key="note_reviewer").input("lead")
    at.button(key="note_save").click().run()
    assert not at.exception, at.exception
    assert any("Saved: feedback given" in s.value for s in at.success)
    assert _cases(at).iloc[0]["status"] == "feedback given"

    fresh = _app()  # a new session: the note comes from the store
    assert _cases(fresh).iloc[0]["note"] == "Read the rubric on usefulness direction."
    assert fresh.text_area(key="note_text").value == "Read the rubric on usefulness direction."
    assert fresh.selectbox(key="note_status").value == "feedback given"
    assert "Read the rubric on usefulness direction." in [t.value for t in fresh.text]
    fresh.multiselect(key="dis_statuses").select("open").run()
    assert _cases(fresh)["task_id"].tolist() == ["q3", "q2"]


def test_choosing_another_case_loads_its_note(app_store):
    at = _app()
    labels = at.selectbox(key="dis_case").options
    assert labels[0].startswith("1. opposite direction · task q1 [comparison] · c1: A much better vs r1: B better")
    at.selectbox(key="dis_case").select_index(labels.index(next(o for o in labels if "q3" in o))).run()
    assert not at.exception
    assert at.text_area(key="note_text").value == ""
    assert any(t.value.startswith("q3: ") for t in at.text)


def test_no_case_explains(app_store):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page(PAGE).run()
    at.multiselect(key="dis_severities").select(dis.CATEGORY).run()  # no nominal scale in this store
    assert not at.exception
    assert [i.value for i in at.info] == ["No disagreements match these filters."]


def test_sidebar_rater_filter_chooses_whose_cases_are_listed(app_store):
    at = _app()
    # A researcher in the rater filter neither lists its pairs with every contractor nor narrows the researchers.
    at.sidebar.multiselect(key="f_raters").select("r1").run()
    assert not at.exception, at.exception
    assert not at.dataframe
    assert any("names no contractor" in i.value for i in at.info)
    at.sidebar.multiselect(key="f_raters").select("c2").run()
    assert _cases(at)["task_id"].tolist() == ["q3"]
    # The role filter is the comparison's: choosing researchers still lists contractors' cases.
    at.sidebar.multiselect(key="f_raters").unselect("r1").unselect("c2")
    at.sidebar.multiselect(key="f_roles").select("researcher").run()
    assert _cases(at)["task_id"].tolist() == ["q1", "q3", "q2"]
