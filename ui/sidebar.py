"""The shared sidebar: rubric, role, rater and date filters that every page reads."""

from __future__ import annotations

import datetime as dt
from typing import cast

import streamlit as st

from analytics.core.filters import Filters
from analytics.core.rubrics import RUBRICS
from analytics.describe import overview
from analytics.store import people
from ui import identity, query_log, state
from ui.text import md_escape, visible

ALL = "All rubrics"
ROLES = ("contractor", "researcher")


@query_log.loader(max_entries=8)
def _options(version: tuple) -> dict:
    return overview.filter_options(state.cursor())


def options() -> dict:
    """Filter choices for the current dataset version."""
    return _options(state.version())


@query_log.loader(max_entries=8)
def _names(version: tuple) -> dict[str, str]:
    return people.display_names(state.cursor())


NAMES = "rater_names"  # session state: this run's display names, read once by render()


def rater_name(rater_id: str) -> str:
    """How pages name a rater to people: "Dana K. (c13)" when a rater directory names them, else the id."""
    names = st.session_state.get(NAMES)
    if names is None:  # a page run without the sidebar (render() keeps them for the run)
        names = _names(state.version())
    return visible(people.who(rater_id, names))


def rubric_title(name: str) -> str:
    """A rubric's display title from the catalogue (its name when uncatalogued, hidden characters made
    visible)."""
    return visible(RUBRICS[name].title if name in RUBRICS else name)


def render() -> Filters:
    """Draw the filters in the sidebar and return what they select."""
    version = state.version()
    opts = _options(version)
    # Pages name hundreds of raters a run (options, case labels): the store's version is read once, here.
    st.session_state[NAMES] = _names(version)
    with st.sidebar:
        st.subheader("Filters")
        rubric = st.selectbox(
            "Rubric",
            [ALL, *opts["rubrics"]],
            key="f_rubric",
            format_func=lambda r: r if r == ALL else rubric_title(r),
        )
        roles = st.multiselect("Role", ROLES, key="f_roles", placeholder="All roles")
        raters = (  # a list naming every rater: not for a contractor (analytics/access/roles.py)
            st.multiselect("Raters", opts["raters"], key="f_raters", placeholder="All raters", format_func=rater_name)
            if identity.allowed("other_raters")
            else []
        )
        dates: tuple[dt.date, ...] = ()
        if opts["date_min"] and opts["date_max"]:
            follow_data_range(opts["date_min"], opts["date_max"])
            dates = cast(  # a range: the session state holds a tuple (follow_data_range)
                tuple[dt.date, ...],
                st.date_input(
                    "Submitted between", min_value=opts["date_min"], max_value=opts["date_max"], key="f_dates"
                ),
            )
    date_from, date_to = (dates[0], dates[1]) if isinstance(dates, tuple) and len(dates) == 2 else (None, None)
    filters = Filters(
        rubric=None if rubric == ALL else rubric,
        roles=tuple(roles),
        raters=tuple(raters),
        date_from=date_from if date_from != opts["date_min"] else None,
        date_to=date_to if date_to != opts["date_max"] else None,
    )
    st.session_state["filters"] = filters
    return filters


def follow_data_range(low: dt.date, high: dt.date) -> None:
    """Keep the date filter on the data's whole range while the user has not narrowed it, also when files are
    loaded (or unloaded) while this session is open; a narrowed range stays, clipped to the data."""
    full, before = (low, high), st.session_state.get("f_dates_full")
    chosen = st.session_state.get("f_dates")
    if not isinstance(chosen, tuple | list) or not chosen or tuple(chosen) == before:
        st.session_state["f_dates"] = full
    else:  # a narrowed range, or the first date of one being picked
        st.session_state["f_dates"] = tuple(min(max(d, low), high) for d in chosen)
    st.session_state["f_dates_full"] = full


def current() -> Filters:
    """The filters the sidebar selected on this run."""
    return st.session_state.get("filters", Filters())


def rubric_or_first(filters: Filters, label: str = "Rubric", key: str = "page_rubric") -> str | None:
    """The sidebar's rubric, or (when it says all) the first rubric with ratings, the page saying so; None when no
    data. The sidebar's Rubric is the one rubric control (a second on the page could disagree with it); `label`
    and `key` are kept for the pages that still pass them."""
    if filters.rubric:
        return filters.rubric
    rubrics = options()["rubrics"]
    if rubrics:
        st.caption(ONE_RUBRIC.format(title=md_escape(rubric_title(rubrics[0]))))
    return rubrics[0] if rubrics else None


ONE_RUBRIC = (
    "This page shows one rubric at a time: {title}, the first. Choose another with the sidebar's Rubric filter."
)
