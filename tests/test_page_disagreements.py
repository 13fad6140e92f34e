"""AppTest of the Disagreements page: filters, the ranked cases (one per contractor rating, every researcher
inside), the unit detail as plain text, A and B naming the options, review notes by the reviewer named once."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from analytics import store
from analytics.ingest.load import ingest_bytes
from analytics.review import disagreements as dis
from analytics.review.case_view import case_view
from tests.conftest import app_test, built_once
from ui import case_panel
from ui.text import md_escape

PAGE = "app_pages/disagreements.py"
CASE = "dis_case"  # the case picker's key prefix (app_pages/disagreements.py)
HOSTILE = "Cheaper <script>alert(1)</script> [click](http://evil.example) ![img](http://evil.example/x.png)"


def _record(
    task: str, rater: str, role: str, clicked: str, order: tuple = ("A", "B"), absolute: tuple = (), **extra
) -> dict:
    """An answer comparison submission; `absolute` is the usefulness of A and B, `order` the display order."""
    options: dict[str, dict] = {
        "A": {
            "answer": "Answer A **bold** <b>html</b>",
            "sources": [{"n": 1, "title": "Source one", "domain": "www.npr.org", "quote": "efficient"}],
        },
        "B": {"answer": "Answer B", "sources": []},
    }
    for option, value in zip("AB", absolute, strict=False):
        options[option]["ratings"] = {"usefulness": value, "coherence": "Good"}
    rec = {
        "format": "concord.answer_comparison/v1",
        "submission_id": f"{task}-{rater}",
        "task_id": task,
        "rater_id": rater,
        "role": role,
        "submitted_at": "2026-03-02T14:05:11Z",
        "question": f"{task}: {HOSTILE}",
        "display_order": list(order),
        "options": options,
        "comparison": {"usefulness": clicked},
    }
    rec.update(extra)
    return rec


def _cases_store(folder: Path) -> None:
    """Three tasks: an opposite-direction case (c1), a "very" case (c1) and a two-step case (c2, who saw option B
    first, with a second researcher r2 one step from c2: still one case); on q1 c1 and r1 also rated each
    option's usefulness, in opposite directions."""
    records = [
        _record("q1", "c1", "contractor", "A much better", absolute=("Very good", "Bad"), comment=f"c1 says {HOSTILE}"),
        _record(
            "q1",
            "r1",
            "researcher",
            "B better",
            absolute=("Bad", "Good"),
            explanations={"usefulness": "A's core claim is unsupported."},
        ),
        _record("q2", "c1", "contractor", "A better"),
        _record("q2", "r1", "researcher", "A much better"),
        _record("q3", "c2", "contractor", "Equally good", order=("B", "A")),
        _record("q3", "r1", "researcher", "B much better"),
        _record("q3", "r2", "researcher", "B better"),
    ]
    con = store.open_store(folder / "page.duckdb")
    data = ("\n".join(json.dumps(r) for r in records) + "\n").encode()
    assert ingest_bytes(con, data, "cases.jsonl", fmt="answer_comparison").status == "loaded"
    con.close()


@pytest.fixture(scope="session")
def cases_store(tmp_path_factory) -> Path:
    """The three tasks' store, loaded once per run (the tests write notes: each takes a copy, see `app_store`)."""
    return built_once(tmp_path_factory, "page-disagreements-cases", _cases_store) / "page.duckdb"


@pytest.fixture
def app_store(cases_store, tmp_path, monkeypatch):
    """A private copy of the three tasks' store, selected for the app."""
    path = tmp_path / "page.duckdb"
    shutil.copy(cases_store, path)
    monkeypatch.setenv("CONCORD_DB", str(path))
    st.cache_data.clear()  # page caches are keyed by dataset version, which another test's store may share
    st.cache_resource.clear()
    return path


def _app() -> AppTest:
    """A new session opened on the page."""
    at = app_test(PAGE, timeout=60)
    assert not at.exception, at.exception
    return at


def _cases(at: AppTest):
    return at.dataframe[0].value


def _ratings_tables(at: AppTest) -> list:
    """The case's ratings tables: one under each option in display order, then the whole task's."""
    return [d.value for d in at.dataframe if list(d.value.columns[:2]) in (["dimension", "≠"], ["target", "dimension"])]


def _option_headers(at: AppTest) -> list[str]:
    """The headings of the option columns, left to right."""
    heads = [c.markdown[0].value for c in at.columns if c.markdown and c.text]
    return [h for h in heads if h.startswith("**Option")]


def _as_shown(elements) -> list[str]:
    """Markdown elements' text as shown: markdown escapes resolved."""
    return [re.sub(r"\\(.)", r"\1", e.value) for e in elements]


def _picker(at: AppTest):
    """The case picker (its key changes with the data, so found by its label)."""
    return next(b for b in at.selectbox if b.label == "Case")


def _case_label(at: AppTest) -> str:
    """The label the case picker shows for its current choice."""
    box = _picker(at)
    return box.format_func(box.value)


def _case_index(at: AppTest) -> int:
    """The position of the case picker's choice in its list."""
    return _picker(at).options.index(_case_label(at))


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
    assert len(_picker(at).options) == 1
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
    # Under each option, its ratings: the contractor beside the researcher, the difference marked.
    option_a, option_b, task = _ratings_tables(at)
    assert list(option_a.columns) == ["dimension", "≠", "contractor", "researcher"]
    assert option_a.set_index("dimension").loc["Usefulness overall"].tolist() == ["≠", "Very good", "Bad"]
    assert option_a.set_index("dimension").loc["Coherence"].tolist() == ["", "Good", "Good"]
    assert option_b.set_index("dimension").loc["Usefulness overall"].tolist() == ["≠", "Bad", "Good"]
    assert task.values.tolist() == [["Usefulness overall (comparison)", "≠", "A much better", "B better"]]


def test_note_is_saved_and_found_again(app_store):
    at = _app()
    at.selectbox(key="note_status").select("feedback given")
    at.text_area(key="note_text").input("Read the rubric on usefulness direction.")
    at.text_input(key="concord_local_name").input("lead")  # the name given once, in the sidebar
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
    labels = _picker(at).options
    assert labels[0].startswith("1. opposite direction · task q1 [comparison] · c1: A much better vs r1: B better")
    _picker(at).select_index(labels.index(next(o for o in labels if "q3" in o))).run()
    assert not at.exception
    assert at.text_area(key="note_text").value == ""
    assert any(t.value.startswith("q3: ") for t in at.text)


def test_one_case_per_contractor_rating_with_every_researcher_inside(app_store):
    """c2's rating of q3, which r1 and r2 both rated on other levels, is one case with both researchers in it."""
    at = _app()
    cases = _cases(at)
    assert cases["task_id"].tolist() == ["q1", "q3", "q2"]
    assert cases.set_index("task_id").loc["q3", "researchers"] == "r1: B much better; r2: B better"
    assert "· c2: Equally good vs r1: B much better, r2: B better · open" in _picker(at).options[1]
    at.button(key="dis_next").click().run()
    assert not at.exception, at.exception
    (task,) = _ratings_tables(at)  # q3 has comparisons only: the whole task's table
    assert list(task.columns) == ["dimension", "≠", "contractor", "researcher r1", "researcher r2"]
    assert task.values.tolist() == [
        ["Usefulness overall (comparison)", "≠", "Equally good", "B much better", "B better"]
    ]
    said = _as_shown(at.markdown)
    assert any(
        "contractor c2 rated Equally good; researchers r1 rated B much better, r2 rated B better." in m for m in said
    )


def test_a_and_b_name_the_options_and_the_screen_position_is_said_in_words(app_store):
    at = _app()
    intro = " ".join(c.value for c in at.caption)
    assert "seeds/000" not in intro and "researcher-labeled tasks" not in intro
    assert "each case is one contractor rating" in intro
    at.button(key="dis_next").click().run()  # q3: c2 saw B first, r1 and r2 saw A first
    texts = [t.value for t in at.text]
    assert "Option B was shown first" in texts  # c2's
    # r1 clicked "B much better" with A on the left: option B, the one shown second.
    assert "Usefulness overall: Option B much better (the option shown second)" in texts
    shown = _as_shown([*at.caption, *at.markdown])
    assert not any("A = the option shown first" in c or "Saw first" in c for c in shown)


def test_the_reviewer_is_named_once_and_kept_across_cases(app_store):
    """The reviewer is who is here (locally, the name given once in the sidebar): no field per case to clear."""
    at = _app()
    assert "Reviewer" not in [t.label for t in at.text_input]
    at.text_input(key="concord_local_name").input("Ana Lead")
    at.selectbox(key="note_status").select("feedback given")
    at.button(key="note_save_next").click().run()
    assert not at.exception, at.exception
    assert _case_index(at) == 1
    assert "Saved by Ana Lead." in _as_shown(at.caption)  # the next case's form names her too
    at.selectbox(key="note_status").select("guideline unclear")
    at.button(key="note_save").click().run()
    assert not at.exception, at.exception
    reviewed = _cases(at).set_index("task_id").loc[["q1", "q3"], ["status", "reviewer"]]
    assert reviewed.values.tolist() == [["feedback given", "Ana Lead"], ["guideline unclear", "Ana Lead"]]
    # A second note on q1 keeps the first: the latest is the case's, the earlier one folded under it.
    at.button(key="dis_prev").click().run()
    at.selectbox(key="note_status").select("researcher was wrong")
    at.button(key="note_save").click().run()
    assert not at.exception, at.exception
    assert _cases(at).set_index("task_id").loc["q1", "status"] == "researcher was wrong"
    assert [e.label for e in at.expander if e.label.startswith("Earlier notes")] == ["Earlier notes on this case (1)"]
    assert any(c.endswith("by Ana Lead: feedback given") for c in _as_shown(at.caption))


def test_no_case_explains(app_store):
    at = app_test(PAGE, timeout=60)
    at.multiselect(key="dis_severities").select(dis.CATEGORY).run()  # no nominal scale in this store
    assert not at.exception
    assert [i.value for i in at.info] == ["No disagreements match these filters."]


def test_the_feedback_card_hands_its_contractor_over(app_store):
    """The Feedback card's "Review ... disagreements" button opens this page on that contractor's cases, from the
    first, whatever severity or status filter was left set (issue #50: no dead end between the two pages)."""
    at = _app()
    at.multiselect(key="dis_severities").select(dis.VERY).run()
    at.session_state["disagreements_for"] = "c2"
    at.run()
    assert at.multiselect(key="dis_contractors").value == ["c2"]
    assert at.multiselect(key="dis_severities").value == []
    assert _cases(at)["task_id"].tolist() == ["q3"]
    assert "disagreements_for" not in at.session_state


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


def test_options_side_by_side_in_the_order_the_contractor_saw_them(app_store):
    at = _app()
    assert _option_headers(at) == ["**Option A**", "**Option B**"]  # c1 saw A first
    _picker(at).select_index(1).run()  # q3: c2 saw B first
    assert not at.exception, at.exception
    assert any(t.value.startswith("q3: ") for t in at.text)
    assert _option_headers(at) == ["**Option B**", "**Option A**"]
    captions = [re.sub(r"\\(.)", r"\1", c.value) for c in at.caption]  # as shown: markdown escapes resolved
    shown = (
        "in the order c2 saw them: Option B was shown first; r1 was shown Option A first; r2 was shown Option A first"
    )
    assert any(shown in c for c in captions)


def test_dimension_filter_lists_that_dimensions_cases(app_store):
    at = _app()
    box = at.selectbox(key="dis_dimension")
    assert box.value == "usefulness_comparison"  # the primary dimension first
    box.set_value("usefulness").run()
    assert not at.exception, at.exception
    cases = _cases(at)
    assert cases[["task_id", "target", "severity"]].values.tolist() == [
        ["q1", "A", dis.OPPOSITE],
        ["q1", "B", dis.OPPOSITE],
    ]
    # The case is about option A: its row is in the table under option A.
    assert _ratings_tables(at)[0].set_index("dimension").loc["Usefulness overall", "contractor"] == "Very good"
    at.multiselect(key="dis_severities").select(dis.VERY).run()
    assert [i.value for i in at.info] == ["No disagreements match these filters."]


def test_saving_a_note_updates_the_case_list_and_picker_in_the_same_run(app_store):
    at = _app()
    assert _case_label(at).endswith("· open")
    assert at.metric[1].value == "3"  # open cases
    at.selectbox(key="note_status").select("feedback given")
    at.button(key="note_save").click().run()
    assert not at.exception, at.exception
    assert _cases(at).iloc[0]["status"] == "feedback given"
    assert _case_label(at).endswith("· feedback given")
    assert at.metric[1].value == "2"
    assert _case_index(at) == 0  # still on that case


def test_next_case_and_save_and_next(app_store):
    at = _app()
    at.button(key="dis_next").click().run()
    assert _case_index(at) == 1
    assert any(t.value.startswith("q3: ") for t in at.text)
    at.button(key="dis_prev").click().run()
    assert _case_index(at) == 0
    assert at.button(key="dis_prev").disabled
    # Save and go on: the note is kept on the first case and the picker is on the second.
    at.selectbox(key="note_status").select("researcher was wrong")
    at.button(key="note_save_next").click().run()
    assert not at.exception, at.exception
    assert _cases(at)["status"].tolist() == ["researcher was wrong", "open", "open"]
    assert _case_index(at) == 1
    assert at.selectbox(key="note_status").value == "open"  # the second case's (empty) note
    at.button(key="dis_next").click().run()
    assert _case_index(at) == 2
    assert at.button(key="dis_next").disabled and at.button(key="note_save_next").disabled


def test_a_reviewed_case_leaves_the_open_list_for_the_next_one(app_store):
    at = _app()
    at.multiselect(key="dis_statuses").select("open").run()
    after = _picker(at).options[1]
    at.selectbox(key="note_status").select("feedback given")
    at.button(key="note_save").click().run()
    assert not at.exception, at.exception
    assert _cases(at)["task_id"].tolist() == ["q3", "q2"]
    assert _case_label(at) == after.replace("2. ", "1. ", 1)  # the case that followed the reviewed one
    assert any("Saved: feedback given" in s.value for s in at.success)


@pytest.fixture
def demo_app_store(demo_store, tmp_path, monkeypatch):
    """A private copy of the whole demo store (tests/conftest.py), selected for the app."""
    path = tmp_path / "demo.duckdb"
    shutil.copy(demo_store, path)
    monkeypatch.setenv("CONCORD_DB", str(path))
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "no-demo"))
    st.cache_data.clear()
    st.cache_resource.clear()
    return path


def test_every_demo_rubric_side_by_side(demo_app_store, demo_store):
    """All four rubrics: the options in columns in the contractor's display order, a ratings table under each
    with the contractor beside the researcher, and the case's own row among them marked as differing."""
    at = _app()
    # The demo's four rubrics (the catalogue also holds the real datasets', which the demo does not load).
    for rubric in ("answer_comparison", "instruction_following", "preference_ranking", "article_likert"):
        at.sidebar.selectbox(key="f_rubric").set_value(rubric).run()
        assert not at.exception, (rubric, at.exception)
        with duckdb.connect(str(demo_store), read_only=True) as con:
            first = dis.disagreements(con, rubric).iloc[0]
            key = dis.CaseKey.from_row(first)
            view = case_view(dis.unit_detail(con, key.task_id, rubric), key)
        assert _cases(at).iloc[0][["task_id", "contractor_id", "researchers"]].tolist() == [
            key.task_id,
            key.contractor_id,
            first["researchers"],
        ]
        options = view.options
        heads = [c.markdown[0].value for c in at.columns if c.markdown and c.text]
        assert heads[: len(options)] == [f"**{md_escape(label)}**" for label in options["label"]], rubric
        tables = _ratings_tables(at)
        if key.target in set(options["item_id"]):  # a case about one option: a table under each option
            assert len(tables) >= len(options), rubric
        names = case_panel.role_names(view)
        researcher = names[view.case_columns[1]]  # the case's own researcher, beside the contractor
        for t in tables:
            assert list(t.columns).index("contractor") + 1 == list(t.columns).index(researcher), rubric
        case_rows = [r for t in tables for _, r in t.iterrows() if r.get("≠") == "≠"]
        assert case_rows, rubric
        assert any(
            (r["contractor"], r[researcher]) == (first["contractor_value"], first["researcher_value"])
            for r in case_rows
        ), rubric
        assert md_escape(key.task_id) in "".join(s.value for s in at.subheader)
        assert len(options) >= 2, rubric


def test_a_rerun_reads_the_dataset_version_a_few_times_not_once_per_named_rater(demo_app_store):
    """Case labels and rater pickers name every rater: the names are read once a run (sidebar.render), so a
    click on the page does not query the store's version once per name (2.3 s a rerun at 1M tasks before)."""
    from unittest import mock

    at = app_test(PAGE)
    assert not at.exception
    named = len(at.sidebar.multiselect(key="f_raters").options)
    named += len(at.selectbox(key=next(k for k in at.session_state if str(k).startswith(f"{CASE}@"))).options)
    assert named > 20  # the run names raters more often than the bound below
    with mock.patch.object(store, "dataset_version", wraps=store.dataset_version) as version:
        at.run()
    assert not at.exception
    assert version.call_count <= 12, version.call_count
