"""AppTest of the Feedback page's "Who needs feedback next" (issue 50): the ranked list it opens on, the picker in
the list's order following the sidebar's filters, an empty state that names the filter emptying it and clears it
in one click (no dead end), the card's sections folded into tabs, and a lead marking a report card as sent (a
viewer has no such button)."""

from __future__ import annotations

import re

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from analytics import store
from analytics.core.filters import Filters
from analytics.feedback import events
from analytics.feedback import next as who_next
from analytics.store import people
from tests.conftest import app_test
from tests.test_page_roles import ROLES, buttons, signed_in
from ui.text import visible

PAGE = "app_pages/feedback.py"
SECTIONS = [
    "What to change",
    "Agreement",
    "Week by week",
    "Levels and time",
    "Disagreements",
    "Alarms and rules",
    "After feedback",
]


@pytest.fixture
def roles_file(tmp_path, monkeypatch):
    """A roles file named by CONCORD_ROLES (tests/test_page_roles.py's lines)."""
    path = tmp_path / "roles.csv"
    path.write_text(ROLES, encoding="utf-8")
    monkeypatch.setenv("CONCORD_ROLES", str(path))
    return path


@pytest.fixture(scope="module")
def expected(demo_store) -> tuple[list[str], tuple[str, ...], dict[str, str]]:
    """The demo's ranked contractors (no feedback sent yet), those with too few tasks, and display names."""
    con = store.open_store(demo_store, read_only=True)
    try:
        ranking = who_next.ranking(con, Filters())
        ranked = who_next.with_events(ranking, events.last_events(con), events.now())["rater_id"].tolist()
        return ranked, ranking.too_few, people.display_names(con)
    finally:
        con.close()


def _list(at):
    """The ranked list's table as shown."""
    return next(d.value for d in at.dataframe if "Rank" in d.value.columns)


def _plain(markdown: str) -> str:
    """Markdown as it reads: escapes undone, the word joiners that keep addresses from linking removed."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def _name(names: dict[str, str], rater: str) -> str:
    return visible(people.who(rater, names))


def test_opens_on_the_ranked_list_and_picking_one_opens_their_card(shared_app_store, expected):
    ranked, too_few, names = expected
    at = app_test(PAGE)
    assert not at.exception, at.exception
    assert "Who needs feedback next" in [s.value for s in at.subheader]
    shown = _list(at)
    assert shown["Contractor"].tolist() == [_name(names, r) for r in ranked]
    assert shown["Rank"].tolist() == list(range(1, len(ranked) + 1))
    assert shown["Alarms"].str.startswith("⚠").sum() == (shown["Alarms"] != "").sum() > 0  # alarms marked apart
    assert not shown["Other reasons (not alarms)"].str.contains("alarm").any()
    picker = at.selectbox(key="fb_contractor")
    assert picker.value == ranked[0]
    assert list(picker.options) == [_name(names, r) for r in [*ranked, *too_few]]  # the list's order, then too few
    at = picker.select(ranked[2]).run()
    assert not at.exception, at.exception
    assert f"Report card: {_name(names, ranked[2])}" in [_plain(s.value) for s in at.subheader]


def test_the_list_and_picker_follow_the_sidebar_filters(shared_app_store, expected):
    ranked, _, _ = expected
    chosen = [ranked[4], ranked[1]]
    at = app_test(PAGE)
    at = at.sidebar.multiselect(key="f_raters").select(chosen[0]).select(chosen[1]).run()
    assert not at.exception, at.exception
    assert list(at.selectbox(key="fb_contractor").options) and at.selectbox(key="fb_contractor").value == ranked[1]
    assert len(_list(at)) == 2  # in the list's order: ranked[1] before ranked[4]


def test_an_empty_list_names_the_filter_and_one_click_clears_it(shared_app_store, expected):
    ranked, _, _ = expected
    at = app_test(PAGE)
    at = at.sidebar.multiselect(key="f_roles").select("researcher").run()
    assert not at.exception, at.exception
    said = _plain(" ".join(i.value for i in at.info))
    assert "No contractor has ratings under the Role filter (researcher)." in said, said
    assert "fb_contractor" not in {s.key for s in at.selectbox}
    at = at.button(key="fb_widen").click().run()
    assert not at.exception, at.exception
    assert at.sidebar.multiselect(key="f_roles").value == []
    assert at.selectbox(key="fb_contractor").value == ranked[0] and len(_list(at)) == len(ranked)


def test_the_cards_sections_are_folded_into_tabs(shared_app_store):
    at = app_test(PAGE)
    assert not at.exception, at.exception
    assert [t.label for t in at.tabs] == SECTIONS
    inside: set[str] = set()
    for section in SECTIONS:  # each tab reachable, one at a time
        at.session_state["fb_section"] = section
        at.run()
        assert not at.exception, (section, at.exception)
        inside |= {s.value for t in at.tabs for s in t.subheader}
        outside = [s.value for s in at.main.subheader if s.value not in inside]
        # Only the list and the card's heading and highlights stand outside the tabs; the rest is one tab at a time.
        assert outside[0] == "Who needs feedback next" and _plain(outside[1]).startswith("Report card: ")
        assert outside[2:] == ["Highlights"]
    assert "Agreement week by week" in inside and "Most severe disagreements" in inside


def test_only_the_open_tab_is_drawn(shared_app_store):
    """The card draws the open tab's section alone (issue 50 item 9: the six sections' charts and tables cost a run
    about a second); another tab's click reruns the page and draws that one (the follow-ups too)."""
    at = app_test(PAGE)
    assert not at.exception, at.exception
    drawn = [[s.value for s in t.subheader] for t in at.tabs]
    assert drawn == [["What to change"], [], [], [], [], [], []]
    assert not (at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"))
    at.session_state["fb_section"] = "Week by week"
    at.run()
    assert not at.exception, at.exception
    drawn = [[s.value for s in t.subheader] for t in at.tabs]
    assert drawn == [[], [], ["Agreement week by week"], [], [], [], []]
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    at.session_state["fb_section"] = "After feedback"
    at.run()
    assert not at.exception, at.exception
    assert [[s.value for s in t.subheader] for t in at.tabs][-1] == ["After feedback"]


def test_a_lead_marks_a_card_as_sent_and_a_viewer_cannot(roles_file, app_store, expected):
    ranked, _, _ = expected
    viewer = signed_in("view@lab.org", PAGE)
    assert not viewer.exception, viewer.exception
    assert "fb_mark_sent" not in buttons(viewer) and _list(viewer) is not None
    at = signed_in("lead@lab.org", PAGE)
    assert not at.exception, at.exception
    assert at.selectbox(key="fb_contractor").value == ranked[0]
    at = at.button(key="fb_mark_sent").click().run()
    assert not at.exception, at.exception
    said = [_plain(s.value) for s in at.success]
    assert any(s.startswith(f"Recorded: feedback_{ranked[0]}, all rubrics, all dates sent to ") for s in said), said
    assert any(" by lead@lab.org on " in s for s in said), said
    with duckdb.connect(str(app_store)) as con:  # read-write as the app's own (one mode per process)
        recorded = events.events(con).to_dict("records")
    (event,) = [e for e in recorded if e["sent_by"] != "feedback log"]  # beside the demo's feedback log's events
    assert event["rater_id"] == ranked[0] and event["sent_by"] == "lead@lab.org"
    assert event["report"].startswith(f"feedback_{ranked[0]}, ")
    # the list now says so and puts them last, waiting for follow-up
    shown = _list(at)
    assert shown["Feedback"].iloc[-1].startswith("Waiting for follow-up until ")
    assert at.selectbox(key="fb_contractor").value == ranked[0]  # the card stays open on them


def test_marking_as_sent_is_refused_to_a_viewer_even_without_the_button():
    """The callback checks the role again (a stale page or a crafted rerun cannot record an event)."""
    at = AppTest.from_string(
        "import streamlit as st\n"
        "from analytics.core.filters import Filters\n"
        "from ui import feedback_next as fn, identity\n"
        "st.session_state[identity.KEY] = identity.Identity(role='viewer', email='v@lab.org', signed_in=True)\n"
        "fn.mark_sent('c06', 'feedback_c06', (), Filters())\n"
        "st.text(st.session_state[fn.SENT])\n",
        default_timeout=30,
    ).run()
    assert not at.exception, at.exception
    assert [t.value for t in at.text] == ["Your role (viewer) cannot record a feedback event."]


def test_the_cards_disagreements_open_on_the_disagreements_page(shared_app_store, expected):
    """The card's Disagreements tab hands the contractor to the Disagreements page (its "Review ..." button), which
    opens on their cases: no dead end between the two pages."""
    ranked, _, names = expected
    at = app_test(PAGE)
    at.session_state["fb_section"] = "Disagreements"
    review = at.run().button(key="fb_to_disagreements")
    assert _plain(review.label) == f"Review {_name(names, ranked[0])}'s disagreements"
    review.click().run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Disagreements"]  # AppTest follows st.switch_page
    assert at.multiselect(key="dis_contractors").value == [ranked[0]]
    assert "disagreements_for" not in at.session_state
