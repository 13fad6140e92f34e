"""The Overview's line on whether feedback worked, with a button per contractor that opens their Feedback card on
its follow-ups."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from analytics.feedback import events as fb_events
from analytics.feedback import followup
from analytics.feedback.followup import Tally
from ui import query_log, state
from ui.text import md_escape

FEEDBACK_PAGE = "app_pages/feedback.py"
HANDOFF = "feedback_for"  # read once by app_pages/feedback.py
SECTION = "fb_section"  # the Feedback card's open tab (app_pages/feedback.py draws only its section)
AFTER = "After feedback"  # the card's follow-up tab, one of app_pages/feedback.py's SECTIONS


@query_log.loader(max_entries=8, show_spinner="Following up the feedback given...")
def _followups(version: tuple, events: tuple, rubric: str | None) -> pd.DataFrame:
    """followup.followups about the rubric, once per dataset version and set of events."""
    return followup.followups(state.cursor(), rubric)


def followups(rubric: str | None) -> pd.DataFrame:
    """Every feedback event's follow-ups about the rubric, shared by the Overview and the Feedback page (recording
    an event does not move the dataset version: the events' signature keys them too)."""
    return _followups(state.version(), fb_events.signature(state.cursor()), rubric)


def line(tally: Tally, name: Callable[[str], str]) -> str:
    """The Overview's sentence (Markdown, names escaped), naming who improved credibly."""
    text = md_escape(tally.sentence)
    if tally.improved:
        text += " Improved: " + ", ".join(md_escape(name(r)) for r in tally.improved) + "."
    return text


def open_buttons(tally: Tally, name: Callable[[str], str]) -> None:
    """One button per contractor given feedback (those who improved first) opening their card's follow-ups."""
    rest = [r for r in tally.given if r not in tally.improved]
    for i, rater in enumerate([*tally.improved, *rest]):
        label = f"{name(rater)}: {'improved' if rater in tally.improved else 'follow-up'}"
        if st.button(md_escape(label), key=f"ov_followup_{i}"):
            st.session_state[HANDOFF] = rater
            st.session_state[SECTION] = AFTER
            st.switch_page(FEEDBACK_PAGE)
