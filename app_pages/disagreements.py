"""Disagreements: where a contractor and a researcher rated the primary dimension differently, most severe
first, with the whole unit side by side and a review note per case.

Every piece of submission text is shown with st.text (never parsed as markdown or HTML)."""

from __future__ import annotations

from typing import cast

import pandas as pd
import streamlit as st

from analytics import disagreements as dis
from ui import charts, sidebar, state
from ui.tables import table
from ui.text import md_escape, show_text, text_block, visible

MAX_CASES_LISTED = 500
CASE_COLUMNS = [
    "rank",
    "severity",
    "steps",
    "task_id",
    "target",
    "contractor_id",
    "contractor_value",
    "researcher_id",
    "researcher_value",
    "status",
    "submitted_at",
    "note",
    "reviewer",
]


@st.cache_data(max_entries=16, show_spinner="Finding disagreements...")
def load_cases(version: tuple, filters, rubric: str, contractors: tuple, severities: tuple, statuses: tuple) -> dict:
    """Ranked cases on the rubric's primary dimension for one filter and dataset version."""
    con = state.cursor()
    return {
        "primary": dis.primary_dimension(con, rubric),
        "cases": dis.disagreements(con, rubric, filters, contractors, severities, statuses),
    }


@st.cache_data(max_entries=32, show_spinner=False)
def load_detail(version: tuple, task_id: str, rubric: str) -> dis.UnitDetail:
    """Everything about one task a reviewer reads."""
    return dis.unit_detail(state.cursor(), task_id, rubric)


def case_id(row: pd.Series) -> str:
    """A stable identity of a case for the picker (its key fields)."""
    return "\x1f".join(dis.CaseKey.from_row(row).params())


def case_label(row: pd.Series) -> str:
    """How a case reads in the picker."""
    target = f" [{row['target']}]" if row["target"] else ""
    return (
        f"{row['rank']}. {row['severity']} · task {row['task_id']}{target} · {row['contractor_id']}: "
        f"{row['contractor_value']} vs {row['researcher_id']}: {row['researcher_value']} · {row['status']}"
    )


def rater_texts(sub: pd.Series, shown_first_label: bool = True) -> None:
    """What one rater wrote: submission comment, per-rating comments, explanation, justification, details."""
    status = sub.get("status")
    if status and status != "rated":
        text_block("Submission status", f"{status}" + (f" ({sub['reason']})" if sub.get("reason") else ""))
    if shown_first_label:
        text_block("Option shown first", sub.get("shown_first"))
    text_block("Comment", sub.get("comment"))
    text_block("Comments on ratings", sub.get("rating_comments"))
    text_block("Explanation", sub.get("explanation"))
    text_block("Justification", sub.get("justification"))
    text_block("Flags", sub.get("flags"))
    text_block("Other details (critique, claims, edits)", sub.get("details"))


def note_form(key: dis.CaseKey, existing: pd.DataFrame) -> None:
    """The review note of this case: status, note and reviewer, prefilled with what was saved before."""
    case = "\x1f".join(key.params())
    if st.session_state.get("note_case") != case:  # a new case: load its saved note into the form
        st.session_state["note_case"] = case
        saved = existing.iloc[0] if not existing.empty else None
        st.session_state["note_status"] = saved["status"] if saved is not None else dis.NOTE_STATUSES[0]
        st.session_state["note_text"] = (saved["note"] or "") if saved is not None else ""
        st.session_state["note_reviewer"] = (saved["reviewer"] or "") if saved is not None else ""
    if not existing.empty:
        n = existing.iloc[0]
        st.caption(md_escape(f"Saved {n['updated_at']:%Y-%m-%d %H:%M} by {n['reviewer'] or 'someone'}: {n['status']}"))
        text_block("Saved note", n["note"])
    with st.form("note_form"):
        status = st.selectbox("Status", dis.NOTE_STATUSES, key="note_status")
        note = st.text_area("Note (feedback for the contractor, or why the researcher was wrong)", key="note_text")
        reviewer = st.text_input("Reviewer", key="note_reviewer")
        if st.form_submit_button("Save note", key="note_save"):
            dis.save_note(state.cursor(), key, status, note, reviewer)
            st.session_state["note_saved"] = f"Saved: {status}"
            st.session_state.pop("note_case", None)
            st.rerun()


filters = sidebar.current()
st.title("Disagreements")
rubric = sidebar.rubric_or_first(filters, key="dis_rubric")
if rubric is None:
    st.info("The store holds no ratings yet. Load files on the Data page.")
    st.stop()

roles = sidebar.options()["rater_roles"]
all_contractors = sorted(r for r, role in roles.items() if role == "contractor")
c1, c2, c3 = st.columns(3)
contractors = c1.multiselect(
    "Contractors",
    all_contractors,
    key="dis_contractors",
    placeholder="All contractors",
    format_func=visible,
)
severities = c2.multiselect("Severity", dis.SEVERITIES, key="dis_severities", placeholder="All severities")
statuses = c3.multiselect("Review status", dis.NOTE_STATUSES, key="dis_statuses", placeholder="All statuses")

data = load_cases(state.version(), filters, rubric, tuple(contractors), tuple(severities), tuple(statuses))
cases: pd.DataFrame = data["cases"]
st.caption(
    md_escape(
        f"{sidebar.rubric_title(rubric)}, primary dimension {data['primary']}: a contractor and a researcher "
        "rated the same unit differently."
    )
    + " Opposite directions first (e.g. A better vs B better, Good vs Bad), then two or more steps apart, then "
    "one step across a coarse level, then differences only in the \u201cvery\u201d (seeds/000, researcher-labeled tasks). "
    "The sidebar's rater filter chooses whose disagreements are listed (contractors) and its dates the "
    "contractor's ratings; every researcher label counts, whatever its date (the pairing of the Agreement page)."
)
if filters.raters and not set(filters.raters) & set(all_contractors):
    st.info(
        "The sidebar's rater filter names no contractor: disagreements are listed for the contractors it names. "
        "Add a contractor to the rater filter, or clear it to list every contractor's."
    )
    st.stop()
if saved := st.session_state.pop("note_saved", None):
    st.success(saved)
if cases.empty:
    st.info("No disagreements match these filters.")
    st.stop()

left, right = st.columns([1, 2])
left.metric("Cases", f"{len(cases):,}")
left.metric("Open", f"{int((cases['status'] == dis.NO_NOTE).sum()):,}")
charts.show(right, charts.severity_counts(dis.severity_counts(cases)), width="stretch")
table(cases[CASE_COLUMNS], "disagreements", key="dl_cases", height=280)

listed = cases.head(MAX_CASES_LISTED)
ids = [case_id(row) for _, row in listed.iterrows()]
labels = {i: case_label(row) for i, (_, row) in zip(ids, listed.iterrows(), strict=True)}
if len(cases) > MAX_CASES_LISTED:
    st.caption(f"The picker lists the {MAX_CASES_LISTED} most severe cases; narrow the filters to reach others.")
chosen = st.selectbox("Case", ids, key="dis_case", format_func=lambda i: visible(labels.get(i, i)))
row = listed.iloc[ids.index(chosen)]
key = dis.CaseKey.from_row(row)
detail = load_detail(state.version(), key.task_id, key.rubric)

st.divider()
st.subheader(f"Task {md_escape(key.task_id)}")
st.markdown(
    md_escape(f"{row['severity']}: {key.contractor_id} rated {row['contractor_value']}, ")
    + md_escape(f"{key.researcher_id} rated {row['researcher_value']} ({data['primary']}")
    + (md_escape(f", {key.target})") if key.target else md_escape(")"))
)
subs = detail.submissions.set_index("rater_id", drop=False)
q, r = st.columns(2)
with q:
    st.markdown("**Question / instruction**")
    show_text(detail.prompt or "(no task text was loaded for this task)")
    text_block("Context", detail.context)
    for _, item in detail.items.iterrows():
        with st.container(border=True):
            st.markdown(f"**{md_escape(item['label'])}**")
            show_text(item["text"] or "(no text)")
            text_block("Sources", item["sources"])
with r:
    st.markdown("**Every rater's ratings**")
    pair = [f"{key.contractor_id} (contractor)", f"{key.researcher_id} (researcher)"]
    rest = [c for c in detail.ratings_table.columns if c not in pair]
    st.dataframe(detail.ratings_table, hide_index=True, width="stretch", column_order=[*rest[:2], *pair, *rest[2:]])

cc, rc = st.columns(2)
for col, rater, role in ((cc, key.contractor_id, "Contractor"), (rc, key.researcher_id, "Researcher")):
    with col, st.container(border=True):
        st.markdown(f"**{role} {md_escape(rater)}**")
        if rater in subs.index:
            rater_texts(cast(pd.Series, subs.loc[rater]))  # one submission per rater: the index is unique
        else:
            st.caption("No submission text was loaded for this rater.")
others = subs[~subs["rater_id"].isin([key.contractor_id, key.researcher_id])]
if not others.empty:
    with st.expander(f"The other {len(others)} rater(s) of this task"):
        for _, sub in others.iterrows():
            st.markdown(f"**{md_escape(sub['rater_id'])}** ({md_escape(sub['role'])})")
            rater_texts(sub)

st.subheader("Review note")
note_form(key, dis.notes_for(state.cursor(), key=key))
if st.button(f"Open {md_escape(key.contractor_id)}'s feedback report", key="dis_to_feedback"):
    st.session_state["feedback_for"] = key.contractor_id  # read once by app_pages/feedback.py
    st.switch_page("app_pages/feedback.py")
