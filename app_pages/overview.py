"""Overview: what is in the store, per rubric and over time, and what could not be used."""

from __future__ import annotations

import streamlit as st

from analytics import overview
from analytics.consistency import rates
from ui import charts, sidebar, state
from ui import consistency_charts as cc
from ui.tables import table


@st.cache_data(max_entries=16, show_spinner="Summarising the store...")
def load(version: tuple, filters) -> dict:
    """All the Overview's figures for one dataset version and filter."""
    con = state.cursor()
    return {
        "summary": overview.summary(con, filters),
        "by_rubric": overview.volume_by_rubric(con, filters),
        "by_week": overview.volume_by_week(con, filters),
        "raters": overview.raters(con, filters),
        "status": overview.submission_status(con, filters),
        "rules_weekly": rates.weekly_share(con, filters),
    }


filters = sidebar.current()
data = load(state.version(), filters)
s = data["summary"]

st.title("Overview")
st.caption(
    "Every figure follows the sidebar's rubric, role, rater and date filters, with two exceptions. Files loaded "
    "and quarantined rows are store-wide: a row that could not be read has no rubric, rater or date to trust (the "
    "Data page lists them by file). The researcher-labelled share is of contractors' tasks whatever the role "
    "filter, and counts researcher labels of any date: it asks whether the contractors shown can be checked."
)
if s.first_rating:
    st.markdown(f"Ratings submitted from **{s.first_rating:%d %b %Y}** to **{s.last_rating:%d %b %Y}**.")
# Four metrics a row: at the wide layout's narrower widths six labels or a date range no longer fit a column.
c = st.columns(4)
c[0].metric("Ratings", f"{s.ratings:,}")
c[1].metric("Tasks", f"{s.tasks:,}")
c[2].metric("Contractors", s.contractors)
c[3].metric("Researchers", s.researchers)
c2 = st.columns(4)
c2[0].metric(
    "Researcher-labelled",
    "n/a" if s.researcher_share is None else f"{s.researcher_share:.0%}",
    help=f"Share of tasks: of the {s.contractor_tasks:,} tasks the contractors rated, the {s.paired_tasks:,} where "
    "a researcher rated a same unit (the tasks agreement is measured on; the Agreement page's pairing: the rater "
    "filter chooses the contractors, dates their ratings, researcher labels count whatever their date).",
)
c2[1].metric(
    "Not completed",
    f"{s.incomplete_submissions:,}",
    help="Submissions left incomplete or skipped (the status chart below shows each status).",
)
c2[2].metric("Quarantined rows", f"{s.quarantined_rows:,}", help="Rows that could not be used; see the Data page.")
c2[3].metric("Files loaded", s.files_loaded)

if s.ratings == 0:
    st.info("No ratings match these filters. Load files on the Data page or widen the filters.")
    st.stop()

# One chart a row: side by side, the rubric titles and legends left the bars no room at narrower widths.
charts.show(st, charts.volume_by_rubric(data["by_rubric"]), width="stretch")
if not data["status"].empty:
    charts.show(st, charts.submission_status(data["status"]), width="stretch")
if not data["by_week"].empty:
    charts.show(st, charts.volume_by_week(data["by_week"]), width="stretch")

if not data["rules_weekly"].empty:
    charts.show(st, cc.weekly_share(data["rules_weekly"]), width="stretch")
    st.caption(
        "Submissions breaking at least one of their rubric document's own rules (the Consistency page lists the "
        "rules, who breaks them and each case), with 95% Wilson intervals."
    )

st.subheader("Raters")
if s.anonymous_positions:
    st.caption(
        f"{s.anonymous_positions:,} label positions of files without rater ids (named crowd label 1, 2, ...) are "
        "not people: they are left out of the rater counts and of this table; their ratings count above."
    )
table(data["raters"], "raters")
st.subheader("Volume per rubric and role")
table(data["by_rubric"], "volume per rubric")
