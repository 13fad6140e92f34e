"""The Feedback page's "Who needs feedback next" list, its empty states (each names the sidebar filter that
empties it and offers one click to clear it) and the "Mark this report card as sent" button of a lead."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from analytics.core.filters import Filters
from analytics.feedback import events
from analytics.feedback import next as who_next
from ui import identity, sidebar, state
from ui.text import md_escape

LABELS = {"roles": "Role", "raters": "Raters", "dates": "Submitted between", "rubric": "Rubric"}
SENT = "fb_sent_done"  # session state: the sentence the mark-as-sent callback leaves for the next run
TABLE_KEY = "fb_next_table"
PICKED = "fb_next_picked"  # session state: the table row last applied to the picker


def filter_text(name: str, filters: Filters) -> str:
    """One sidebar filter as the sidebar names it, with what it selects ("the Role filter (researcher)")."""
    if name == "roles":
        chosen = ", ".join(filters.roles)
    elif name == "raters":
        chosen = ", ".join(sidebar.rater_name(r) for r in filters.raters[:5]) + (
            f" and {len(filters.raters) - 5} more" if len(filters.raters) > 5 else ""
        )
    elif name == "dates":
        chosen = f"{filters.date_from or 'the start'} to {filters.date_to or 'the end'}"
    else:
        chosen = sidebar.rubric_title(filters.rubric or "")
    return f"the {LABELS[name]} filter ({chosen})"


def clear_filters(names: Sequence[str], hand: str | None = None) -> None:
    """Button callback: clear the named sidebar filters (the dates to the data's whole range), and hand `hand` to
    the Feedback page again (it is taken on the run that found it filtered out)."""
    ss = st.session_state
    for name in names:
        if name == "roles":
            ss["f_roles"] = []
        elif name == "raters":
            ss["f_raters"] = []
        elif name == "dates" and ss.get("f_dates_full"):
            ss["f_dates"] = ss["f_dates_full"]
        elif name == "rubric":
            ss["f_rubric"] = sidebar.ALL
    if hand:
        ss["feedback_for"] = hand


def widen_offer(start: str, names: Sequence[str], filters: Filters, key: str, hand: str | None = None) -> None:
    """An empty state: `start` and the filters that empty it, with one button clearing them (a plain sentence
    when no filter is to blame)."""
    if not names:
        st.info(md_escape(f"{start}."))
        return
    said = " and ".join(filter_text(n, filters) for n in names)
    st.info(md_escape(f"{start} under {said}."))
    cleared = " and ".join(LABELS[n] for n in names)
    st.button(
        f"Clear the sidebar's {cleared} filter{'s' if len(names) > 1 else ''}",
        key=key,
        on_click=clear_filters,
        args=(tuple(names), hand),
        type="primary",
    )


def list_rows(rows: pd.DataFrame, names: Callable[[str], str]) -> pd.DataFrame:
    """The list as the page shows it: rank, contractor, alarms apart from other reasons, tasks, last feedback."""
    return pd.DataFrame(
        {
            "Rank": rows["rank"].astype(int),
            "Contractor": [names(r) for r in rows["rater_id"]],
            "Alarms": [f"⚠ {a}" if a else "" for a in rows["alarm_reason"]],
            "Other reasons (not alarms)": rows["other_reason"].str.removeprefix("Not an alarm: "),
            "Tasks": rows["n_tasks"].astype(int),
            "Feedback": [who_next.status(r) for _, r in rows.iterrows()],
        }
    )


def show_list(rows: pd.DataFrame, names: Callable[[str], str]) -> str | None:
    """The ranked list as a table whose row a click picks; the contractor of a newly clicked row, else None."""
    shown = st.dataframe(
        list_rows(rows, names),
        hide_index=True,
        width="stretch",
        height=min(38 + 35 * len(rows), 320),
        on_select="rerun",
        selection_mode="single-row",
        key=TABLE_KEY,
    )
    picked = list(shown.selection.rows) if shown is not None and hasattr(shown, "selection") else []
    row = picked[0] if picked else None
    if row == st.session_state.get(PICKED):
        return None  # the same selection as before: the picker below may have chosen another since
    st.session_state[PICKED] = row
    return str(rows.iloc[row]["rater_id"]) if row is not None and row < len(rows) else None


def mark_sent(contractor: str, report: str, effects: tuple[str, ...], filters: Filters) -> None:
    """Button callback: record a feedback event by the signed-in lead (refused to any other role)."""
    if not identity.allowed("feedback_event"):
        st.session_state[SENT] = f"Your role ({identity.current().role}) cannot record a feedback event."
        return
    event = events.record(state.cursor(), contractor, identity.author(), report, effects, filters)
    until = (event.sent_at + pd.Timedelta(days=who_next.FOLLOW_UP_DAYS)).date()
    st.session_state[SENT] = (
        f"Recorded: {report} sent to {sidebar.rater_name(contractor)} by {event.sent_by} on {event.sent_at.date()}; "
        f"they wait for follow-up until {until}."
    )


def mark_sent_button(contractor: str, report: str, effects: tuple[str, ...], filters: Filters) -> None:
    """The lead's "Mark this report card as sent" button (other roles see none), and what the last click did."""
    if SENT in st.session_state:
        st.success(md_escape(st.session_state.pop(SENT)))
    if identity.allowed("feedback_event"):
        st.button(
            "Mark this report card as sent",
            key="fb_mark_sent",
            on_click=mark_sent,
            args=(contractor, report[: events.MAX_TEXT], effects, filters),
            help="Records who sent which report, when, and the effects it names. The contractor then waits for "
            f"follow-up for {who_next.FOLLOW_UP_DAYS} days and moves to the end of the list.",
        )
