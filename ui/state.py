"""The one store connection of this process, a cursor per query, and the dataset version for caches."""

from __future__ import annotations

import duckdb
import streamlit as st

from analytics import handover, store


@st.cache_resource(show_spinner=False)
def _connection(path: str) -> duckdb.DuckDBPyConnection:
    con = store.open_store(path)
    # This process now holds the store read-write: command-line loads are handed to it (analytics/handover.py).
    handover.serve(con.cursor, path)
    return con


def connection() -> duckdb.DuckDBPyConnection:
    """The process-wide connection to the store; stops the page with a readable error when it cannot open."""
    try:
        return _connection(str(store.db_path()))
    except store.StoreError as e:
        st.error(str(e))
        st.stop()


def cursor() -> duckdb.DuckDBPyConnection:
    """A fresh cursor on the shared connection (cursors are safe to use from concurrent sessions)."""
    return connection().cursor()


def version() -> tuple[str, int]:
    """The store's identity and dataset version: the first argument of every cached page loader."""
    return str(store.db_path()), store.dataset_version(cursor())
