"""Concord: the router. Page config, first-run demo load, the shared sidebar, then the chosen page."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

import streamlit as st

import ui.headers  # noqa: F401 - anti-framing headers on every response (ui/headers.py)
from analytics import store
from analytics.cli import first_run
from analytics.core.queries import recording
from analytics.ingest import unload
from analytics.ingest.load import ingest_file
from ui import identity, query_log, sidebar, state

st.set_page_config(page_title="Concord", layout="wide")

PAGES = {  # page name (analytics/access/roles.py's page:NAME) and title, in the navigation's order
    "overview": "Overview",
    "agreement": "Agreement",
    "distributions": "Distributions",
    "disagreements": "Disagreements",
    "feedback": "Feedback",
    "consistency": "Consistency",
    "raters": "Raters",
    "plan": "Plan",
    "explore": "Explore",
    "data": "Data",
}
UNEXPECTED = (
    "This page could not be shown because of an unexpected error; the details are in the server's log. "
    "Try another page or reload, and report it if it persists."
)
log = logging.getLogger("concord")


def load_demo_if_empty() -> None:
    """On first start with an empty store, load the bundled demo data with a progress bar.

    A store emptied by unloading its files (Data page) stays empty: it is not a first start."""
    con = state.cursor()
    if not first_run.store_is_empty(con) or unload.unloads(con):
        return
    with st.status("First start: loading the demo data into an empty store...", expanded=True) as status:
        st.write("Generating the demo inputs (seeded simulator)...")
        files = first_run.demo_plan()
        bar = st.progress(0.0)
        for i, demo in enumerate(files, start=1):
            result = ingest_file(state.cursor(), demo.path, undated_at=demo.undated_at)
            bar.progress(i / len(files), text=first_run.progress_text(demo, result))
        first_run.add_demo_markers(state.cursor())
        status.update(label="Demo data loaded", state="complete", expanded=False)
    st.cache_data.clear()


def run_guarded(run: Callable[[], object]) -> None:
    """Run a step of the page; an unexpected exception becomes one readable sentence (never a server path or a
    traceback: those go to the server's log). A damaged store says what happened and what to do."""
    try:
        run()
    except Exception as e:  # st.stop and st.rerun are BaseExceptions and pass through
        log.exception("page failed")
        if store.is_damage(e):
            st.error(store.damaged_message(store.db_path(), "corrupt or truncated", "a part of it cannot be read"))
        else:
            st.error(UNEXPECTED)
        if os.environ.get("PYTEST_CURRENT_TEST") and not os.environ.get("CONCORD_GUARD_UNDER_TEST"):
            raise  # under the test suite a failing page still fails its test


def navigation() -> list[st.Page]:
    """The pages this run's identity may see; the first of them opens by default."""
    names = [name for name in PAGES if identity.allowed(f"page:{name}")]
    return [st.Page(f"app_pages/{n}.py", title=PAGES[n], default=i == 0) for i, n in enumerate(names)]


identity.gate()  # before anything reads the store: the sign-in page or a refusal stop the run here
run_guarded(load_demo_if_empty)
page = st.navigation(navigation())
identity.sidebar()
with recording() as ran:  # every query behind the page's figures, cached or not (ui/query_log.py)
    run_guarded(sidebar.render)
    run_guarded(page.run)
if identity.allowed("other_raters"):  # the SQL's parameters can name raters
    query_log.show(ran)
