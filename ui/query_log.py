"""The queries behind a page: every cached loader keeps the named queries it ran with its result, so a cache hit
lists them as well as a miss, and the page's SQL panel lists every query of the run, once each, as it ran."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import streamlit as st

from analytics.core.queries import Query, distinct_queries, note, recording
from ui.text import md_escape

P = ParamSpec("P")
T = TypeVar("T")


def loader(**cache: Any) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """st.cache_data (with `cache`'s options) for a page loader, keeping the queries it ran beside its result: each
    call, hit or miss, counts them as run in the page's recording."""

    def decorate(fn: Callable[P, T]) -> Callable[P, T]:
        @functools.wraps(fn)  # the cache keys on the loader's own name and source, not this wrapper's
        def logged(*args: P.args, **kwargs: P.kwargs) -> tuple[T, tuple[Query, ...]]:
            with recording() as ran:
                value = fn(*args, **kwargs)
            return value, tuple(ran)

        cached = st.cache_data(**{"show_spinner": False, **cache})(logged)

        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> T:
            value, ran = cached(*args, **kwargs)
            note(ran)
            return value

        return call

    return decorate


HOW = (
    "Every figure on this page comes from these queries, exactly as they ran on DuckDB (`$name` are bound "
    "parameters, listed under each query: the filters and choices above); everything else is arithmetic on their "
    "small results. Where a query is an optimised plan, the readable query beside it gives the same result."
)


READABLE = (
    "The same result in plain SQL, **{name}** (slower, so not run here; the project's tests run both and compare them):"
)


PANEL = "sql_panel"  # the SQL panel's open state (session state)


def show(ran: list[Query]) -> None:
    """The SQL panel: each distinct query of the page run with its name, text and parameters, drawn only while it
    is open (opening it reruns the page, whose cached loaders list the queries their results came from): drawing
    every query's text cost each run of the Feedback page about 0.05 s on the demo (issue 50 item 9)."""
    queries = distinct_queries(ran)
    if not queries:
        return
    # One label whatever the count: Streamlit keys the panel's open state on its label too.
    panel = st.expander("SQL behind this page", key=PANEL, on_change="rerun")
    if not panel.open:
        return
    with panel:
        st.caption(f"{len(queries)} queries. {HOW}")
        for query in queries:
            st.markdown(f"**{md_escape(query.name)}**")
            st.code(query.sql, language="sql")
            if query.params:
                st.caption(md_escape(f"parameters: {query.params}"))
            if query.readable is not None:
                st.caption(READABLE.format(name=md_escape(query.readable.name)))
                st.code(query.readable.sql, language="sql")
                st.caption(md_escape(f"parameters: {query.readable.params}"))
