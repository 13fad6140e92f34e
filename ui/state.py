"""The one store connection of this process, a cursor per query, the dataset version for caches, and a QueryLog
that knows the results depending on the stored data only."""

from __future__ import annotations

import duckdb
import pandas as pd
import streamlit as st

from analytics import store
from analytics.agreement.pairing import data_queries
from analytics.cli import handover
from analytics.core.queries import Query, QueryLog


@st.cache_resource(show_spinner=False)
def _connection(path: str) -> duckdb.DuckDBPyConnection:
    con = store.open_store(path)
    # This process now holds the store read-write: command-line loads are handed to it (analytics/cli/handover.py).
    handover.serve(con.cursor, path)
    return con


def connection() -> duckdb.DuckDBPyConnection:
    """The process-wide connection to the store; stops the page with a readable error when it cannot open."""
    try:
        return _connection(str(store.db_path()))
    except store.StoreError as e:
        st.error(str(e))
        st.stop()


def handover_refusal() -> str | None:
    """Why command-line loads are not handed to this dashboard (its inbox folder refused), or None."""
    connection()
    return handover.refusal(store.db_path())


def cursor() -> duckdb.DuckDBPyConnection:
    """A fresh cursor on the shared connection (cursors are safe to use from concurrent sessions)."""
    return connection().cursor()


def version() -> tuple[str, int]:
    """The store's identity and dataset version: the first argument of every cached page loader (a store replaced
    at the same path, a backup restored, has another identity and so never gets the old one's cached figures)."""
    path = str(store.db_path())
    return f"{path}#{_identity(path)}", store.dataset_version(cursor())


@st.cache_resource(show_spinner=False)
def _identity(path: str) -> str | None:
    """The store's identity, read once per connection: the process holds that file open, so it cannot change."""
    return store.store_identity(_connection(path).cursor())


@st.cache_data(max_entries=4, show_spinner=False)
def _data_results(version: tuple[str, int]) -> list[tuple[Query, pd.DataFrame]]:
    """The results of the queries that depend on the stored ratings only (pairs.data_queries), per version."""
    con = cursor()
    return [(query, query.df(con)) for query in data_queries()]


def query_log() -> QueryLog:
    """A QueryLog for one analytics call, handed this dataset version's results of pairs.data_queries: each reads
    every rating, and the Agreement page's loaders asked for them on every filter change (0.2-0.25 s at 1M tasks)."""
    log = QueryLog()
    for query, result in _data_results(version()):
        log.know(query, result)
    return log
