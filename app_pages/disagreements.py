"""Disagreements: where a contractor rated a dimension (the primary one unless another is chosen) on another level
than a researcher did, one case per contractor rating (every researcher's rating of the unit inside it), most
severe first, and one case at a time side by side: the task on top, the options in columns in the order the
contractor saw them, every rater's ratings under each option with the differences highlighted, what each rater
wrote, and the case's review notes (its status is the latest one's; the reviewer is identity.author()).

Every piece of submission text is shown with st.text (never parsed as markdown or HTML) or escaped."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.core import rubrics
from analytics.core.filters import Filters
from analytics.describe import distributions
from analytics.review import case_view as cv
from analytics.review import disagreements as dis
from ui import case_panel, charts, identity, query_log, sidebar, state
from ui.tables import table
from ui.text import md_escape, text_block, visible

identity.require("page:disagreements")  # the navigation hides it too; a page run directly stops here

MAX_CASES_LISTED = 500
CASE_COLUMNS = [
    "rank",
    "severity",
    "steps",
    "task_id",
    "target",
    "contractor_id",
    "contractor_value",
    "researchers",
    "status",
    "submitted_at",
    "note",
    "reviewer",
]
CASE, CASE_AT = "dis_case", "dis_case_at"  # the chosen case's id and its place in the list, kept across reruns
HANDOFF = "disagreements_for"  # set by the Feedback page before st.switch_page to this one


@query_log.loader(max_entries=16)
def load_dimensions(version: tuple, rubric: str) -> pd.DataFrame:
    """The rubric's dimensions (name, label), its primary one first."""
    con = state.cursor()
    dims = distributions.dimensions(con, rubric)
    primary = dis.primary_dimension(con, rubric)
    return dims.sort_values("dimension", key=lambda d: d != primary, kind="stable")[["dimension", "label"]]


@query_log.loader(max_entries=16, show_spinner="Finding disagreements...")
def load_cases(
    version: tuple,
    filters: Filters,
    rubric: str,
    dimension: str,
    contractors: tuple,
    severities: tuple,
    statuses: tuple,
) -> pd.DataFrame:
    """Ranked cases on one dimension for one filter and dataset version."""
    return dis.disagreements(state.cursor(), rubric, filters, contractors, severities, statuses, dimension)


@query_log.loader(max_entries=32)
def load_case(version: tuple, key: dis.CaseKey) -> cv.CaseView:
    """One case laid out side by side: everything about its task a reviewer reads."""
    return cv.case_view(dis.unit_detail(state.cursor(), key.task_id, key.rubric), key)


def case_id(row: pd.Series) -> str:
    """A stable identity of a case for the picker (its key fields)."""
    return "\x1f".join(dis.CaseKey.from_row(row).params())


def researchers_said(row: pd.Series) -> str:
    """Every researcher's rating of the case's unit, by name: "Ana R. (r1): B better, r2: A better"."""
    pairs = zip(row["researcher_ids"], row["researcher_values"], strict=True)
    return ", ".join(f"{sidebar.rater_name(r)}: {v}" for r, v in pairs)


def case_label(row: pd.Series) -> str:
    """How a case reads in the picker."""
    target = f" [{row['target']}]" if row["target"] else ""
    return (
        f"{row['rank']}. {row['severity']} · task {row['task_id']}{target} · {sidebar.rater_name(row['contractor_id'])}: "
        f"{row['contractor_value']} vs {researchers_said(row)} · {row['status']}"
    )


def researchers_rated(row: pd.Series) -> str:
    """What the case's researchers rated, in a sentence: "researcher r1 rated B better, r2 rated A better"."""
    pairs = zip(row["researcher_ids"], row["researcher_values"], strict=True)
    said = ", ".join(f"{r} rated {v}" for r, v in pairs)
    return f"researcher{'s' if int(row['n_researchers']) > 1 else ''} {said}"


def keep_choice(key: str, options: list[str], fallback: str) -> None:
    """Before a select box is drawn: keep its choice when still offered, else choose `fallback`."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = fallback


def picker_key(version: tuple) -> str:
    """The case picker's widget key, new whenever the data changes (a note saved): a browser's select box keeps
    showing the old label of a choice whose label changed ("open" after the note), a new one shows the new label.
    The chosen case itself is kept under CASE."""
    return f"{CASE}@{version[1]}"


def step_case(widget: str, ids: list[str], step: int) -> None:
    """Callback of the previous/next buttons: move the case picker `step` cases along the list."""
    i = ids.index(st.session_state[widget]) if st.session_state.get(widget) in ids else 0
    st.session_state[widget] = ids[max(0, min(len(ids) - 1, i + step))]


def save_note(key: dis.CaseKey, next_case: str | None) -> None:
    """Callback of the note form: save the note (the case list is read again in the run that follows) and, with
    `next_case`, move the picker on to it."""
    status = st.session_state["note_status"]
    dis.save_note(state.cursor(), key, status, st.session_state["note_text"], identity.author())
    case = md_escape(f"task {key.task_id}, {key.contractor_id}'s rating")
    st.session_state["note_saved"] = f"Saved: {status} ({case})"  # markdown: the ids are escaped
    st.session_state.pop("note_case", None)  # the form reloads the saved note
    if next_case is not None:
        st.session_state[CASE] = next_case  # the saved note changes the data, so the picker starts from CASE


def note_said(note: pd.Series) -> str:
    """One saved note's heading: when, by whom, its status and, for a note from before cases were per rating, the
    researcher it was written against."""
    against = f" (written against researcher {note['researcher_id']})" if pd.notna(note["researcher_id"]) else ""
    return f"{note['updated_at']:%Y-%m-%d %H:%M} by {note['reviewer'] or 'someone'}: {note['status']}{against}"


def note_history(existing: pd.DataFrame) -> None:
    """The case's saved notes: the latest (whose status is the case's), the earlier ones folded below it."""
    if existing.empty:
        return
    st.caption(md_escape(f"Saved {note_said(existing.iloc[0])}"))
    text_block("Saved note", existing.iloc[0]["note"])
    if len(existing) > 1:
        with st.expander(f"Earlier notes on this case ({len(existing) - 1})"):
            for _, n in existing.iloc[1:].iterrows():
                st.caption(md_escape(note_said(n)))
                text_block("Note", n["note"])


def note_form(key: dis.CaseKey, existing: pd.DataFrame, next_case: str | None) -> None:
    """The review note of this case: status and note, prefilled with the latest saved; the reviewer is who is
    signed in (or the name given once in the sidebar), never a field to fill per case."""
    case = "\x1f".join(key.params())
    if st.session_state.get("note_case") != case:  # a new case: load its saved note into the form
        st.session_state["note_case"] = case
        saved = existing.iloc[0] if not existing.empty else None
        st.session_state["note_status"] = saved["status"] if saved is not None else dis.NOTE_STATUSES[0]
        st.session_state["note_text"] = (saved["note"] or "") if saved is not None else ""
    note_history(existing)
    if not identity.allowed("note"):
        return
    with st.form("note_form"):
        st.selectbox("Status", dis.NOTE_STATUSES, key="note_status")
        st.text_area("Note (feedback for the contractor, or why the researcher was wrong)", key="note_text")
        st.caption(md_escape(f"Saved by {identity.author()}."))
        save, save_next = st.columns(2)
        save.form_submit_button("Save note", key="note_save", on_click=save_note, args=(key, None))
        save_next.form_submit_button(
            "Save and go to the next case",
            key="note_save_next",
            on_click=save_note,
            args=(key, next_case),
            disabled=next_case is None,
        )


filters = sidebar.current()
st.title("Disagreements")
rubric = sidebar.rubric_or_first(filters, key="dis_rubric")
if rubric is None:
    st.info("The store holds no ratings yet. Load files on the Data page.")
    st.stop()
catalogued = rubrics.get_rubric(rubric)

roles = sidebar.options()["rater_roles"]
# Every contractor-side rater, label positions of files without rater ids too: each case is a real label.
all_contractors = sorted(r for r, role in roles.items() if role == "contractor")
if (handed := st.session_state.pop(HANDOFF, None)) in all_contractors:  # the Feedback card's "Review" button
    st.session_state.update(dis_contractors=[handed], dis_severities=[], dis_statuses=[], **{CASE_AT: 0})
    st.session_state.pop(CASE, None)
dims = load_dimensions(state.version(), rubric)
dim_labels = dict(zip(dims["dimension"], dims["label"], strict=True))
c1, c2, c3, c4 = st.columns(4)
contractors = c1.multiselect(
    "Contractors", all_contractors, key="dis_contractors", placeholder="All contractors", format_func=sidebar.rater_name
)
severities = c2.multiselect("Severity", dis.SEVERITIES, key="dis_severities", placeholder="All severities")
keep_choice("dis_dimension", list(dim_labels), next(iter(dim_labels), ""))
dimension = c3.selectbox(
    "Dimension", list(dim_labels), key="dis_dimension", format_func=lambda d: visible(dim_labels.get(d, d))
)
statuses = c4.multiselect("Review status", dis.NOTE_STATUSES, key="dis_statuses", placeholder="All statuses")

cases = load_cases(state.version(), filters, rubric, dimension, tuple(contractors), tuple(severities), tuple(statuses))
st.caption(
    md_escape(
        f"{sidebar.rubric_title(rubric)}, {'primary ' * (dimension == next(iter(dim_labels), None))}dimension "
        f"{dim_labels.get(dimension, dimension)}: each case is one contractor rating that a researcher rated on "
        "another level, with every researcher's rating of the same unit."
    )
    + " Opposite directions come first (e.g. A better vs B better, Good vs Bad), then two or more steps apart, "
    "then one step across a coarse level, then differences only in the \u201cvery\u201d, as the rubric's guidance "
    "for researcher-labelled tasks ranks them. The sidebar's rater filter chooses whose disagreements are listed "
    "(contractors) and its dates the contractor's ratings; every researcher label counts, whatever its date (the "
    "pairing of the Agreement page)."
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
# The picker keeps its case; a new picker (the data changed) starts from the case chosen before, and a case that
# left the list (a note changed its status under a status filter) gives way to the one after it.
widget = picker_key(state.version())
before = st.session_state.get(CASE)
keep_choice(widget, ids, before if before in ids else ids[min(st.session_state.get(CASE_AT, 0), len(ids) - 1)])
pick, back, forward = st.columns([8, 1, 1], vertical_alignment="bottom")
chosen = pick.selectbox("Case", ids, key=widget, format_func=lambda i: visible(labels.get(i, i)))
at = ids.index(chosen)
st.session_state[CASE], st.session_state[CASE_AT] = chosen, at
next_case = ids[at + 1] if at + 1 < len(ids) else None
back.button("Previous", key="dis_prev", on_click=step_case, args=(widget, ids, -1), disabled=at == 0, width="stretch")
forward.button(
    "Next case", key="dis_next", on_click=step_case, args=(widget, ids, 1), disabled=next_case is None, width="stretch"
)

row = listed.iloc[at]
key = dis.CaseKey.from_row(row)
view = load_case(state.version(), key)
option_names = dict(zip(view.options["item_id"], view.options["label"], strict=True))

st.divider()
st.subheader(f"Case {at + 1} of {len(cases):,}: task {md_escape(key.task_id)}")
st.markdown(
    f"**{md_escape(row['severity'])}** on {md_escape(dim_labels.get(key.dimension, key.dimension))}"
    + (md_escape(f" of {option_names[key.target]}") if key.target in option_names else "")
    + md_escape(f": contractor {key.contractor_id} rated {row['contractor_value']}; ")
    + md_escape(f"{researchers_rated(row)}.")
)
case_panel.show_case(view, catalogued)

st.subheader("Review note")
note_form(key, dis.notes_for(state.cursor(), key=key), next_case)
if st.button(f"Open {md_escape(key.contractor_id)}'s feedback report", key="dis_to_feedback"):
    st.session_state["feedback_for"] = key.contractor_id  # read once by app_pages/feedback.py
    st.switch_page("app_pages/feedback.py")
