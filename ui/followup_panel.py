"""The Overview's line on whether feedback worked, with a button per contractor that opens their Feedback card on
its follow-ups."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from analytics.feedback.followup import Tally
from ui.text import md_escape

FEEDBACK_PAGE = "app_pages/feedback.py"
HANDOFF = "feedback_for"  # read once by app_pages/feedback.py
SECTION = "fb_section"  # the Feedback card's open tab (app_pages/feedback.py draws only its section)
AFTER = "After feedback"  # the card's follow-up tab, one of app_pages/feedback.py's SECTIONS


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
