"""Concord: the router. Page config, first-run demo load, the shared sidebar, then the chosen page."""

from __future__ import annotations

import streamlit as st

from analytics import first_run
from analytics.ingest.load import ingest_file
from ui import sidebar, state

st.set_page_config(page_title="Concord", layout="wide")

PAGES = [
    st.Page("app_pages/overview.py", title="Overview", default=True),
    st.Page("app_pages/agreement.py", title="Agreement"),
    st.Page("app_pages/distributions.py", title="Distributions"),
    st.Page("app_pages/disagreements.py", title="Disagreements"),
    st.Page("app_pages/feedback.py", title="Feedback"),
    st.Page("app_pages/explore.py", title="Explore"),
    st.Page("app_pages/data.py", title="Data"),
]


def load_demo_if_empty() -> None:
    """On first start with an empty store, load the bundled demo data with a progress bar."""
    con = state.cursor()
    if not first_run.store_is_empty(con):
        return
    with st.status("First start: loading the demo data into an empty store...", expanded=True) as status:
        st.write("Generating the demo inputs (seeded simulator)...")
        files = first_run.demo_files()
        bar = st.progress(0.0)
        for i, path in enumerate(files, start=1):
            result = ingest_file(state.cursor(), path)
            bar.progress(i / len(files), text=f"{path.name}: {result.status}, {result.rows_loaded} ratings")
        status.update(label="Demo data loaded", state="complete", expanded=False)
    st.cache_data.clear()


load_demo_if_empty()
page = st.navigation(PAGES)
sidebar.render()
page.run()
