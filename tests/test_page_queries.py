"""Every page lists the queries behind its figures, as they ran: DuckDB's own query log (enable_logging) of the
page run is compared with the page's SQL panel (ui/query_log.py), on a cold cache and again on a warm one."""

from __future__ import annotations

import re

import duckdb
import pytest
import streamlit as st

from analytics import store
from tests.conftest import app_test
from ui import prefetch, query_log

PAGES = [
    "app_pages/overview.py",
    "app_pages/agreement.py",
    "app_pages/distributions.py",
    "app_pages/disagreements.py",
    "app_pages/feedback.py",
    "app_pages/consistency.py",
    "app_pages/raters.py",
    "app_pages/data.py",
]
# Pages whose figures come from packed or task-listed plans (the pairing, the multi-rater task patterns).
PLANS = {"app_pages/agreement.py", "app_pages/raters.py"}
ASKED = {"app_pages/raters.py": "raters_fit_model"}  # a button whose work runs only when clicked (the rater model)
# What a run executes that no figure reads: the dataset version (every cache's key), the router's first-start
# check (analytics/cli/first_run.py), the store's own housekeeping, and the query log being read.
HOUSEKEEPING = re.compile(
    r"^(SET |CALL |SELECT value FROM meta WHERE key = 'dataset_version'|SELECT readonly FROM duckdb_databases|"
    r"SELECT NOT EXISTS \(SELECT 1 FROM ingest_log\)|"
    r"SELECT .* FROM duckdb_logs|BEGIN|COMMIT|ROLLBACK)",
    re.S,
)


def normal(sql: str) -> str:
    """SQL with its whitespace collapsed (DuckDB's log keeps the text as sent)."""
    return " ".join(sql.split())


@pytest.fixture
def logged_store(app_store, monkeypatch):
    """The app's store connections with DuckDB's query log on; yields the list of connections opened."""
    opened: list[duckdb.DuckDBPyConnection] = []
    original = store.open_store

    def open_logged(*args, **kwargs):
        con = original(*args, **kwargs)
        con.execute("CALL enable_logging('QueryLog')")
        opened.append(con)
        return con

    monkeypatch.setattr(store, "open_store", open_logged)
    # Warming the caches of what a user will likely ask next runs queries no figure of this run reads.
    monkeypatch.setattr(prefetch, "alongside", lambda main, *likely: main())
    yield opened


def executed(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The statements DuckDB ran since the log was last emptied, but housekeeping."""
    rows = con.cursor().execute("SELECT message FROM duckdb_logs() WHERE type = 'QueryLog'").fetchall()
    return {normal(m) for (m,) in rows if not HOUSEKEEPING.match(normal(m))}


def panel(at) -> tuple[set[str], set[str]]:
    """The SQL the page's panel lists as run, and the readable queries it shows beside optimised plans (each after
    a caption saying so, ui/query_log.READABLE); the panel is open (app_test opens it, as a user clicks it)."""
    ran, readable = set(), set()
    for p in (e for e in at.expander if e.label.startswith("SQL behind this page")):
        beside = False
        for element in p.children.values():
            if element.type == "caption":
                beside = element.value.startswith("The same result in plain SQL")
            elif element.type == "code":
                (readable if beside else ran).add(normal(element.value))
                beside = False
    return ran, readable


def listed(at) -> set[str]:
    """The SQL the page's panel lists as run."""
    return panel(at)[0]


@pytest.mark.parametrize("page", PAGES)
def test_the_page_lists_every_query_that_ran_and_only_those(page, logged_store):
    at = app_test()
    at.session_state[query_log.PANEL] = True  # the panel draws its queries only while open
    (con,) = logged_store
    st.cache_data.clear()  # the first run filled the Overview's caches: every page starts cold
    con.execute("CALL truncate_duckdb_logs()")
    at.switch_page(page).run()
    if page in ASKED:
        at.button(key=ASKED[page]).click().run()
    assert not at.exception
    cold_ran, cold_listed = executed(con), listed(at)
    assert cold_listed, f"{page} lists no query"
    assert not cold_ran - cold_listed, "ran but not listed:\n" + "\n".join(
        s[:150] for s in sorted(cold_ran - cold_listed)
    )
    assert not cold_listed - cold_ran, "listed but did not run:\n" + "\n".join(
        s[:150] for s in sorted(cold_listed - cold_ran)
    )

    # An optimised plan shows its readable twin, which did not run here (tests/test_readable_queries.py runs it).
    readable = panel(at)[1]
    assert not readable & cold_ran
    if page in PLANS:
        assert readable, f"{page} shows no readable query beside its plans"

    con.execute("CALL truncate_duckdb_logs()")
    at.run()  # the same page again: its loaders' caches hit
    assert not at.exception
    warm_ran, warm_listed = executed(con), listed(at)
    assert warm_ran <= warm_listed, "ran but not listed on a warm run"
    assert warm_listed - warm_ran, "a cache hit lists the queries its result came from"
    # The same page again needs at most what it needed cold (the Feedback page no longer asks whom to open on).
    assert warm_listed <= cold_listed


def test_the_panel_draws_its_queries_only_when_opened(app_store):
    """Closed (as every page opens), the panel shows its label and draws no query; opened, it lists them and says
    how many."""
    at = app_test("app_pages/feedback.py")
    (closed,) = [e for e in at.expander if e.label == "SQL behind this page"]
    assert not listed(at) and not list(closed.children.values())
    at.session_state[query_log.PANEL] = True
    at.run()
    assert not at.exception
    (opened,) = [e for e in at.expander if e.label == "SQL behind this page"]
    children = list(opened.children.values())
    count = int(re.match(r"(\d+) queries\.", children[0].value).group(1))
    readable = sum(c.type == "caption" and c.value.startswith("The same result in plain SQL") for c in children)
    assert sum(c.type == "code" for c in children) - readable == count > 0
    assert listed(at)
