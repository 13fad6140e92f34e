"""Untrusted text stays text (DESIGN.md principle 4), checked page by page on a store whose every text field is
hostile (tests/hostile.py): each page and each choice on it runs without an exception, and no element that
Streamlit renders as markdown (text, captions, alerts, headings, widget and metric labels) holds a payload
unescaped. Submission text itself belongs in st.text / st.code / dataframes, where it is never parsed.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1.element_tree import TESTING_KEY

from tests import hostile
from tests.conftest import ROOT, app_test

PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "app_pages").glob("*.py"))
MARKDOWN_TYPES = {"markdown", "caption", "latex", "title", "header", "subheader", "error", "warning", "info"}
MARKDOWN_TYPES |= {"success", "toast", "exception"}
# Each is live markup when markdown renders it. md_escape puts a backslash before every control character,
# so an escaped payload never matches: "\<img" fails the look-behind, "\]\(" holds no "](".
LIVE = re.compile(
    r"(?<!\\)<(?:b>|/b>|img|script)"  # HTML (Streamlit drops raw HTML, but only while unsafe_allow_html is off)
    r"|\]\("  # a markdown link or image
    r"|\$\\frac|\$x\^2\$"  # LaTeX
    r"|javascript:"
)
# GFM links bare URLs and e-mail addresses even when their characters are backslash-escaped (the browser
# test saw "http\://127\.0\.0\.2" become a link), so these are looked for in the unescaped text.
AUTOLINK = re.compile(r"(?i)https?://|www\.|[\w.+-]@[\w-]+\.")


def live_markup(text: str) -> bool:
    """Whether markdown would turn part of this text into an element or a link."""
    return bool(LIVE.search(text) or AUTOLINK.search(re.sub(r"\\(.)", r"\1", text)))


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory) -> Path:
    """The hostile store, built once for this module."""
    path = tmp_path_factory.mktemp("hostile") / "hostile.duckdb"
    results = hostile.build_store(path)
    assert [r.status for r in results] == ["loaded"] * len(results), [r.errors for r in results]
    assert all(r.rows_quarantined for r in results)  # the quarantine holds hostile values too
    return path


@pytest.fixture
def app_store(hostile_store, tmp_path, monkeypatch) -> Path:
    """A private copy of the hostile store, selected for the app through CONCORD_DB."""
    path = tmp_path / "app.duckdb"
    shutil.copy(hostile_store, path)
    monkeypatch.setenv("CONCORD_DB", str(path))
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "no-demo"))
    st.cache_data.clear()
    st.cache_resource.clear()
    return path


def markdown_texts(at) -> list[tuple[str, str]]:
    """(element type, text) of every element whose text Streamlit renders as markdown, main and sidebar."""
    found = []
    for block in (at.main, at.sidebar):
        for node in block:
            kind = getattr(node, "type", "")
            value = getattr(node, "value", None) if kind in MARKDOWN_TYPES else None
            for text in (value, getattr(node, "label", None), getattr(node, "help", None)):
                if isinstance(text, str) and text:
                    found.append((kind, text))
    return found


def assert_safe(at, where: str) -> None:
    """No exception and no live payload in any markdown-rendered text."""
    assert not at.exception, f"{where}: {at.exception[0].value if at.exception else ''}"
    live = [(kind, text[:300]) for kind, text in markdown_texts(at) if live_markup(text)]
    assert not live, f"{where}: submission text rendered as markdown: {live[:3]}"


def selectbox(at, key: str):
    """The main area's select box with this key, or None when the page does not show it (any more)."""
    return next((b for b in at.main.selectbox if b.key == key), None)


def choose(box, i: int):
    """Select the i-th option by its label, as the browser does (AppTest's select_index needs a format_func
    that maps a label to itself, which a dict lookup does not)."""
    box.root.session_state[TESTING_KEY][box.id] = str
    return box.set_value(box.options[i])


def test_the_payload_reaches_the_pages_as_plain_text(app_store):
    """The test means something: the hostile text is on screen, verbatim, in st.text (never parsed)."""
    at = app_test("app_pages/disagreements.py")
    assert_safe(at, "disagreements")
    texts = [t.value for t in at.text]
    assert any(hostile.HTML in t and hostile.MD_IMAGE in t and hostile.LONG in t for t in texts)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_and_choice_keeps_hostile_text_inert(app_store, page):
    """Protection: pages escape submission text (ui.text.md_escape) or show it as plain text, on every
    choice of every select box (rubrics with hostile names, every disagreement case's detail view)."""
    at = app_test(page)
    assert_safe(at, page)
    for key in [b.key for b in at.main.selectbox if b.key]:
        i = 1
        while (box := selectbox(at, key)) is not None and i < len(box.options):
            choose(box, i).run()
            assert_safe(at, f"{page}, {key} = option {i}")
            i += 1
    # The Feedback card draws only its open tab (issue 50 item 9): open each in turn.
    tabs = [t.label for t in at.tabs] if page == "app_pages/feedback.py" else []
    assert len(tabs) == 7 or page != "app_pages/feedback.py", tabs
    for label in tabs:
        at.session_state["fb_section"] = label
        at.run()
        assert_safe(at, f"{page}, tab {label}")


def test_disagreement_review_note_with_hostile_text(app_store):
    """Protection: a saved note and reviewer name are shown escaped or as plain text."""
    at = app_test("app_pages/disagreements.py")
    at.text_area(key="note_text").input(hostile.HOSTILE)
    at.text_input(key="concord_local_name").input(hostile.HTML)  # the local name, recorded as the reviewer
    at.button(key="note_save").click().run()
    assert_safe(at, "after saving a hostile note")
    assert hostile.HOSTILE in [t.value for t in at.text]


def test_explore_results_and_errors_with_hostile_text(app_store):
    """Protection: query results are a dataframe and a query error (which quotes the query) is escaped."""
    at = app_test("app_pages/explore.py")
    at.text_area(key="explore_sql").set_value("SELECT prompt, context FROM tasks").run()
    at.button(key="explore_run").click().run()
    assert_safe(at, "explore result")
    result = at.main.columns[0].dataframe[0].value  # under Run, in the editor's column
    assert result["prompt"].str.contains(hostile.MD_IMAGE, regex=False).any()
    at.text_area(key="explore_sql").set_value(
        f'SELECT * FROM "{hostile.MD_IMAGE} <img src=http://{hostile.EVIL_HOST}:9/x> {hostile.LATEX}"'
    ).run()
    at.button(key="explore_run").click().run()
    assert at.error, "the query should fail"
    assert_safe(at, "explore error")


def test_uploads_with_hostile_names_and_headers(app_store):
    """Protection: the Data page's per-file messages escape the file name and the rejection reason (which
    quotes the file's header)."""
    at = app_test("app_pages/data.py")
    uploader = at.file_uploader(key="upload_files")
    uploader.upload(f"{hostile.FILE_STEM} more.csv", hostile.canonical_file().replace(b"k1", b"k7"), "text/csv")
    uploader.upload(f"{hostile.FILE_STEM} rejected.csv", hostile.rejected_file(), "text/csv")
    uploader.upload(f"{hostile.FILE_STEM} comparisons.jsonl", hostile.answer_comparison_file(), "application/json")
    at.button[0].click().run()
    assert_safe(at, "data page after the upload")
    alerts = [e.value for e in (*at.success, *at.warning, *at.error, *at.info)]
    assert len(alerts) == 3, alerts
    assert any("rejected" in a and "missing required column" in a for a in alerts), alerts
    assert any("loaded before" in a for a in alerts), alerts
