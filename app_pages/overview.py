"""Overview: what is in the store, per rubric and over time, and what could not be used."""

from __future__ import annotations

import datetime as dt

import streamlit as st

from analytics.consistency import rates
from analytics.core.filters import Filters
from analytics.describe import overview
from analytics.effects import drift, markers
from analytics.feedback import events as fb_events
from analytics.feedback import followup
from analytics.plan import needs as plan_needs
from ui import alarm_panel, charts, followup_panel, identity, plan_panel, query_log, sidebar, state
from ui import consistency_charts as cc
from ui import drift_charts as dc
from ui.tables import table
from ui.text import md_escape

identity.require("page:overview")  # the navigation hides it too; a page run directly stops here


@query_log.loader(max_entries=16, show_spinner="Summarising the store...")
def load(version: tuple, filters: Filters) -> dict:
    """All the Overview's figures for one dataset version and filter."""
    con = state.cursor()
    activity = overview.activity(con, filters)
    return {
        "summary": activity.summary,
        "by_rubric": activity.by_rubric,
        "by_week": overview.volume_by_week(con, filters),
        "raters": activity.raters,
        "status": activity.status,
        "rules_weekly": rates.weekly_share(con, filters),
        "lacking": plan_needs.lacking(con, filters),
    }


@query_log.loader(max_entries=16, show_spinner="Testing every contractor for alarms...")
def load_alarms(version: tuple, filters: Filters) -> dict:
    """The review's alarms and power, the drift-alarmed contractors' weeks and the guideline-change markers."""
    con = state.cursor()
    found = alarm_panel.review_of(version, filters)
    drifting = found.alerts[found.alerts["kind"] == "drift"]
    return {
        "alerts": found.alerts,
        "power": found.power,
        "weekly": drift.contractor_weeks(con, drifting, filters),
        "markers": markers.markers(con, filters.rubric),
    }


def add_marker() -> None:
    """Form callback: record a guideline change from the form's fields."""
    ss = st.session_state
    rubric = None if ss["mk_rubric"] == ALL_RUBRICS else ss["mk_rubric"]
    try:
        markers.add_marker(state.cursor(), ss["mk_date"], ss["mk_note"], rubric, identity.author())
        ss["mk_done"] = "Guideline change recorded."
    except ValueError as e:
        ss["mk_done"] = f"Not recorded: {e}"


def remove_marker() -> None:
    """Button callback: delete the chosen marker."""
    markers.remove_marker(state.cursor(), int(st.session_state["mk_remove"]))
    st.session_state["mk_done"] = "Guideline change removed."


ALL_RUBRICS = "every rubric"


filters = sidebar.current()
data = load(state.version(), filters)
s = data["summary"]

st.title("Overview")
st.markdown(
    "What the store holds under the sidebar's filters, how it moves week by week, and which contractors need "
    "attention. **Next:** follow the line below to the alarms, or open Agreement to see how far raters agree."
)
if s.ratings:  # the review's alarms, summed up on the first screen (listed in the Alarms section below)
    found = load_alarms(state.version(), filters)
    alerts = found["alerts"]
    st.markdown(alarm_panel.attention_line(alerts, sidebar.rater_name))
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
if len(data["lacking"]) and identity.allowed("page:plan"):
    st.markdown(plan_panel.lacking_line(data["lacking"], sidebar.rater_name))
    st.page_link("app_pages/plan.py", label="Plan where researchers label next", icon=":material/assignment:")
if fb_events.signature(state.cursor())[0] and identity.allowed("page:feedback") and identity.allowed("other_raters"):
    tally = followup.tally(followup_panel.followups(filters.rubric))
    st.markdown(followup_panel.line(tally, sidebar.rater_name))
    with st.expander("Open a follow-up"):
        followup_panel.open_buttons(tally, sidebar.rater_name)

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

st.subheader("Alarms")
st.caption(alarm_panel.BUDGET_NOTE)
alarm_panel.show_alarms(
    alerts, "ov_alarms", sidebar.rater_name, "No alarm: no contractor is credibly beyond the rest of the team."
)
if (alerts["kind"] == "drift").any():
    names = {r: sidebar.rater_name(r) for r in alerts["rater_id"]}
    charts.show(st, dc.alert_panels(found["weekly"], alerts, found["markers"], names), width="stretch")
    st.caption(
        f"Drift: {drift.WINDOW_WORDS}; the window moves with the "
        "project, so a long project does not pile up alarms. Mark guideline changes below to read a fall against them."
    )
alarm_panel.show_power(found["power"], "ov_alarms")
with st.expander("Guideline changes"):
    if "mk_done" in st.session_state:
        st.info(md_escape(st.session_state.pop("mk_done")))
    marks = found["markers"]
    if len(marks):
        table(marks, "guideline changes", key="ov_dl_markers")
    if identity.allowed("marker"):
        if len(marks):
            st.selectbox(
                "Marker to remove",
                marks["marker_id"].tolist(),
                key="mk_remove",
                format_func=lambda i: md_escape(str(marks.loc[marks["marker_id"] == i, "note"].iloc[0])),
            )
            st.button("Remove", key="mk_remove_button", on_click=remove_marker)
        f = st.columns([1, 1, 2])
        f[0].date_input("Date", value=dt.date.today(), key="mk_date")
        f[1].selectbox("Rubric", [ALL_RUBRICS, *sidebar.options()["rubrics"]], key="mk_rubric")
        f[2].text_input("What changed", key="mk_note", max_chars=markers.MAX_NOTE)
        st.caption(md_escape(f"Recorded by {identity.author()}."))
        st.button("Add guideline change", key="mk_add", on_click=add_marker)

st.subheader("Raters")
if s.anonymous_positions:
    st.caption(
        f"{s.anonymous_positions:,} label positions of files without rater ids (named crowd label 1, 2, ...) are "
        "not people: they are left out of the rater counts and of this table; their ratings count above."
    )
table(data["raters"], "raters")
st.subheader("Volume per rubric and role")
table(data["by_rubric"], "volume per rubric")
