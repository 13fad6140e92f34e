"""Explore: ad hoc read-only SQL over the store's tables, with examples; the result directly under Run, the table
list folded beside the editor.

The sandbox (one SELECT, no files, no network) is analytics/explore/sql.py; each query runs in a worker process
under hard time, memory and result limits (analytics/explore/worker.py, docs/explore.md). This page collects
the text, runs it and shows what came back. Error messages and cells are shown as plain text.

A query stops when this session's script run is asked to stop or rerun: another click (Run again, a widget),
leaving the page, or closing the tab (Streamlit asks the run to stop when the browser disconnects)."""

from __future__ import annotations

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.scriptrunner import get_script_run_ctx

from analytics.core import csv_out
from analytics.explore import sql
from analytics.explore import worker as explore_worker
from ui import charts, identity, query_log, state
from ui.tables import table
from ui.text import md_escape

identity.require("page:explore")  # the navigation hides it too; a page run directly stops here

NO_EXAMPLE = "Write your own"
DEFAULT_SQL = "SELECT rubric, dimension, role, count(*) AS ratings\nFROM ratings\nGROUP BY ALL\nORDER BY ALL"


@query_log.loader(max_entries=4)
def load_schema(version: tuple) -> pd.DataFrame:
    """The explorable tables and their columns for one dataset version."""
    return sql.schema(state.cursor())


def use_example() -> None:
    """Put the chosen example into the editor."""
    name = st.session_state["explore_example"]
    if name in sql.EXAMPLE_QUERIES:
        st.session_state["explore_sql"] = sql.EXAMPLE_QUERIES[name]


def shown(frame: pd.DataFrame) -> pd.DataFrame:
    """The result with nested values (lists, structs, maps) as their JSON text in full, so any result can be drawn."""
    return csv_out.nested_as_text(frame)


def run_in_worker(query: str, status: DeltaGenerator) -> sql.QueryResult:
    """Run the query in a worker under this visitor's slots; stop it when Streamlit asks this session's run to stop
    or rerun."""
    ctx = get_script_run_ctx()
    requests = getattr(ctx, "script_requests", None)

    def cancelled() -> bool:
        # ScriptRequests has no public getter; its state leaves CONTINUE on a rerun or stop request.
        state_now = getattr(requests, "_state", None)
        return state_now is not None and getattr(state_now, "name", "CONTINUE") != "CONTINUE"

    return explore_worker.service().run(
        state.cursor(),
        query,
        session=getattr(ctx, "session_id", None),
        owner=identity.owner_key(),  # two tabs of one visitor share its slot (analytics/explore/worker.py)
        cancelled=cancelled,
        on_status=lambda message: status.info(message),  # type: ignore[arg-type]  # what on_status returns is ignored
    )


def show_result(result: sql.QueryResult) -> None:
    """The query's result (or its error in one sentence), what was cut from it, and a quick chart of it."""
    if result.error:
        st.error(md_escape(result.error))
        return
    st.caption(f"{len(result.frame):,} rows, {len(result.columns)} columns in {result.elapsed:.2f} s")
    limits = explore_worker.service().limits
    if result.truncated_by == "bytes":
        st.warning(
            f"Only the first {len(result.frame):,} rows are shown: the result passed "
            f"{explore_worker.describe_bytes(limits)}. Select fewer or shorter columns, or aggregate."
        )
    elif result.truncated:
        st.warning(
            f"Only the first {sql.MAX_ROWS:,} rows are shown; the query returned more. "
            "Aggregate, filter or add a LIMIT to see the rest."
        )
    table(shown(result.frame), "query result", key="explore_download", download=result.frame)
    if len(result.frame) and len(result.columns):
        quick_chart(shown(result.frame))


def quick_chart(data: pd.DataFrame) -> None:
    """A chart of the result: mark, x, y and colour chosen from its columns."""
    st.subheader("Chart")
    cols = list(data.columns)
    c = st.columns(4)
    mark = c[0].selectbox("Mark", charts.QUICK_MARKS, key="chart_mark")
    x = c[1].selectbox("x", cols, key="chart_x")
    y = c[2].selectbox("y", ["(count of rows)", *cols], index=min(2, len(cols)), key="chart_y")
    color = c[3].selectbox("Colour", ["(none)", *cols], key="chart_color")
    chart = charts.quick_chart(
        data, x, None if y == "(count of rows)" else y, None if color == "(none)" else color, mark
    )
    charts.show(st, chart, width="stretch")


st.title("Explore")
service = explore_worker.service()
st.caption(
    "Read-only SQL over the store's tables, one SELECT at a time: "
    f"{explore_worker.describe(service.limits)}. A query also stops when you run another or leave the page. "
    "Files, the network and settings are out of reach; the data is as of the last load (a read-only copy); "
    "the sidebar filters do not apply here."
)
st.session_state.setdefault("explore_sql", DEFAULT_SQL)

schema = load_schema(state.version())
editor, tables = st.columns([3, 1])
with tables, st.expander(f"Tables ({schema['table'].nunique()})"):
    st.caption("The tables a query may read; choose one to see its columns.")
    name = st.selectbox("Table", sorted(schema["table"].unique()), key="explore_table")
    st.dataframe(schema.loc[schema["table"] == name, ["column", "type"]], hide_index=True, width="stretch")

with editor:
    st.selectbox(
        "Start from an example",
        [NO_EXAMPLE, *sql.EXAMPLE_QUERIES],
        key="explore_example",
        on_change=use_example,
    )
    query = st.text_area("SQL", key="explore_sql", height=260)
    if st.button("Run", key="explore_run", type="primary"):
        status = st.empty()
        with st.spinner("Running..."):
            st.session_state["explore_result"] = run_in_worker(query, status)
        status.empty()
    # The result right under Run, where the eye is after a click; the table list stays folded beside it.
    result: sql.QueryResult | None = st.session_state.get("explore_result")
    if result is not None:
        show_result(result)
