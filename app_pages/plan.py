"""Plan: where researchers should label next. A budget of labels spent where the contractors' intervals need them
(docs/plan.md), with each contractor's interval now and expected after, three downloads, and the plans issued.

Every id and piece of text from the data is shown escaped or as plain text."""

from __future__ import annotations

import streamlit as st

from analytics.core.filters import Filters
from analytics.core.formatting import plus_minus
from analytics.plan import exports, issued
from analytics.plan.needs import ACTIVE_DAYS, USABLE_TASKS
from analytics.plan.propose import MAX_BUDGET, Plan, propose, side_by_side, summary
from ui import identity, query_log, sidebar, state
from ui import plan_charts as pc
from ui.charts import show
from ui.tables import number_columns, table
from ui.text import md_escape

identity.require("page:plan")  # the navigation hides it too; a page run directly stops here

DEFAULT_BUDGET = 50


@query_log.loader(max_entries=16, show_spinner="Choosing where researchers label next...")
def load(version: tuple, open_plans: tuple, filters: Filters, budget: int, researchers: tuple) -> Plan:
    """The plan for one dataset version, set of open plans, filter, budget and researchers."""
    return propose(state.cursor(), filters, budget, researchers)


@query_log.loader(max_entries=16, show_spinner="Writing the Label Studio import...")
def label_studio(version: tuple, open_plans: tuple, filters: Filters, budget: int, researchers: tuple) -> bytes:
    """The plan's Label Studio import file (the same key as `load`: the same plan)."""
    plan = load(version, open_plans, filters, budget, researchers)
    return exports.label_studio_json(state.cursor(), plan.labels)


def issue_plan() -> None:
    """Button callback: keep the plan on screen as issued by the signed-in person."""
    ss = st.session_state
    try:
        plan_id = issued.issue(
            state.cursor(),
            ss["plan_shown"].labels,
            identity.author(),
            sidebar.current(),
            ss["plan_shown"].budget,
            ss.get("plan_note", ""),
        )
        ss["plan_done"] = f"Plan {plan_id} issued: its tasks are left out of the next plan until they are labelled."
    except ValueError as e:
        ss["plan_done"] = f"Not issued: {e}"


def withdraw_plan() -> None:
    """Button callback: withdraw the chosen open plan."""
    ss = st.session_state
    issued.withdraw(state.cursor(), int(ss["plan_withdraw"]), identity.author())
    ss["plan_done"] = f"Plan {ss['plan_withdraw']} withdrawn: its tasks not yet labelled may be proposed again."


filters = sidebar.current()
st.title("Plan")
st.markdown(
    "Where researchers should label next: a budget of labels spent on the tasks that narrow the contractors' "
    "intervals most. First every active contractor (rated in the last "
    f"{ACTIVE_DAYS} days of the data) gets the {USABLE_TASKS} tasks shared with researchers a usable interval needs; "
    "then the widest intervals narrow most per label; tasks where contractors disagree and recent tasks count for "
    "more; every dimension keeps coverage, and some tasks get a second researcher so that researcher-researcher "
    "agreement stays measured. Only tasks inside the sidebar's filters that no researcher labelled are proposed."
)
options = sidebar.options()
known = sorted(r for r, role in options["rater_roles"].items() if role == "researcher")
c = st.columns([1, 3])
budget = int(
    c[0].number_input(
        "Labels",
        min_value=1,
        max_value=MAX_BUDGET,
        value=DEFAULT_BUDGET,
        step=10,
        key="plan_budget",
        help="Researcher labels to propose: a task two researchers label counts two.",
    )
)
researchers = tuple(
    c[1].multiselect(
        "Researchers",
        known,
        default=known,
        key="plan_researchers",
        format_func=sidebar.rater_name,
        help="The labels are spread over them; with two "
        "or more, some tasks get a second label for researcher-researcher agreement.",
    )
)
con = state.cursor()
open_plans = issued.open_key(con)
plan = load(state.version(), open_plans, filters, budget, researchers)
st.session_state["plan_shown"] = plan

before, after, head = plan.before, plan.after, summary(plan)
m = st.columns(4)
m[0].metric(
    "Labels proposed",
    f"{len(plan.labels):,}",
    help=f"Of a budget of {plan.budget:,} labels: a task two researchers label counts two.",
)
m[1].metric(
    "Candidate tasks",
    f"{plan.n_candidates:,}",
    help="Rated by contractors under the filters, labelled by no researcher, in no open plan.",
)
m[2].metric(
    "Without a usable interval",
    head.short_now,
    delta=head.short_change(),
    delta_color="inverse",
    help=f"Active contractors with fewer than {USABLE_TASKS} tasks shared with researchers; the change is what the "
    "plan is expected to do.",
)
widest_change = head.widest_change()
m[3].metric(
    "Widest interval (active)",
    plus_minus(head.widest_now),
    delta=None if widest_change is None else f"{widest_change:+.2f}",
    delta_color="inverse",
    help="Half width of the widest 95% interval of exact agreement with researchers among active contractors (±0.50 "
    "without a shared task); the change is what the plan is expected to do.",
)

if before.empty:
    st.info("No contractor rated a task under these filters: there is nothing to plan. Widen the sidebar's filters.")
    st.stop()
if plan.labels.empty:
    st.info(
        "No task is left to propose under these filters: every task contractors rated is labelled by a "
        "researcher or assigned in an open plan (withdraw one below to propose its tasks again)."
    )

names = {r: sidebar.rater_name(r) for r in before["rater_id"]}
show(st, pc.widths_now_and_after(before, after, names))
st.caption(
    "Each active contractor's exact agreement with researchers on the rubric's primary dimension: the half width of "
    "its 95% interval now (grey) and expected once the plan's labels are in (blue: the same agreement, pulled a little "
    "toward the rubric's while a contractor shares few tasks, and the same units per task). Widest first."
)

st.subheader("Proposed labels")
shown = exports.plan_frame(plan.labels)
table(shown, "labelling plan", key="plan_dl_plan", column_config=number_columns(shown))
d = st.columns(2)
d[0].download_button(
    "Download the Label Studio import (JSON)",
    lambda: label_studio(state.version(), open_plans, filters, budget, researchers),
    file_name="labelling_plan_label_studio.json",
    mime="application/json",
    key="plan_dl_ls",
    on_click="ignore",  # no rerun racing the download (ui/tables.py)
    help="Tasks in Label Studio's import format: each task's text under `data`, the plan's researchers and reason under `meta`.",
)
d[1].download_button(
    "Download the assignments (CSV)",
    lambda: exports.assignment_csv(plan.labels),
    file_name="labelling_plan_assignments.csv",
    mime="text/csv",
    key="plan_dl_assign",
    on_click="ignore",
    help="task_id, rubric, researcher: one line per label.",
)

st.subheader("Contractors' intervals now and expected")
beside = side_by_side(plan)
table(beside, "contractor intervals now and expected", key="plan_dl_contractors", column_config=number_columns(beside))

st.subheader("Issued plans")
if "plan_done" in st.session_state:
    st.info(md_escape(st.session_state.pop("plan_done")))
if identity.allowed("labelling_plan") and not plan.labels.empty:
    st.text_input("Note for the researchers (optional)", key="plan_note", max_chars=issued.MAX_NOTE)
    st.caption(md_escape(f"Issued by {identity.author()}."))
    st.button("Issue this plan", key="plan_issue", on_click=issue_plan, type="primary")
kept = issued.plans(con)
if kept.empty:
    st.caption(
        "No plan issued yet. An issued plan's tasks are left out of the next plan until they are labelled or "
        "the plan is withdrawn, and its completion shows here."
    )
else:
    table(
        kept,
        "issued plans",
        key="plan_dl_issued",
        column_config={
            "completion": st.column_config.ProgressColumn("completion", format="percent", min_value=0, max_value=1)
        },
    )
    open_ids = kept.loc[kept["status"] == "open", "plan_id"].tolist()
    if identity.allowed("labelling_plan") and open_ids:
        w = st.columns([1, 3])
        w[0].selectbox("Open plan", open_ids, key="plan_withdraw")
        w[1].button("Withdraw", key="plan_withdraw_button", on_click=withdraw_plan)
    with st.expander("Every issued label and whether it is done"):
        table(issued.labels(con), "issued labels", key="plan_dl_labels")
