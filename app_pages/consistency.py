"""Consistency: the rubric documents' own rules checked on every submission, with or without a researcher label.
Rules by violation rate, contractors by rule (flagged only when credibly above the rest of the team), and every
violation, each opening its submission side by side.

Every piece of submission text is shown with st.text or escaped."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.alarms import budget
from analytics.alarms.review import reviewed_rules
from analytics.consistency import rates, results
from analytics.core import rubrics
from analytics.core.filters import Filters
from analytics.review import case_view as cv
from analytics.review import disagreements as dis
from ui import alarm_panel, case_panel, identity, query_log, sidebar, state
from ui import consistency_charts as cc
from ui.charts import show
from ui.tables import number_columns, table
from ui.text import md_escape, visible

identity.require("page:consistency")  # the navigation hides it too; a page run directly stops here

MAX_LISTED = 500  # violations the picker lists (the table and its download hold all)
RATES = ("rate", "rate_ci_low", "rate_ci_high", "team_rate", "difference_ci_low", "difference_ci_high")


@query_log.loader(max_entries=8, show_spinner="Checking the rubric rules...")
def load(version: tuple, filters: Filters) -> rates.Consistency:
    """Every rule figure for one filter and dataset version."""
    return reviewed_rules(state.cursor(), filters, alarm_panel.review_of(version, filters))


@query_log.loader(max_entries=32)
def load_case(version: tuple, rubric: str, task_id: str, rater_id: str) -> cv.CaseView:
    """A submission laid out side by side, beside the task's researcher when one rated it."""
    con = state.cursor()
    key = rates.case_key(con, rubric, task_id, rater_id)
    return cv.case_view(dis.unit_detail(con, task_id, rubric), key)


def check_again() -> None:
    """Button callback: every submission checked against every rule again."""
    kept = results.recheck(state.cursor())
    st.session_state["rules_checked"] = f"Checked again: {kept:,} rule results kept."


def rule_label(rules: pd.DataFrame) -> dict[str, str]:
    """How each rule reads in a picker: its words, its id after them (the rubric documents' and downloads' name)."""
    return {str(r): f"{d} ({r})" if d else str(r) for r, d in zip(rules["rule_id"], rules["description"], strict=True)}


filters = sidebar.current()
st.title("Consistency")
st.markdown(
    "Which rubric rules are broken, by whom, and each case side by side. **Next:** pick a rule with a flagged "
    "contractor below, open one of their violations, and take it to the Feedback page."
)
st.caption(
    "Rules the rubric documents state that one submission can break on its own, checked on every submission, "
    "whether or not a researcher labelled it. A contractor is flagged on a rule when Fisher's exact test finds "
    "them breaking it more often than the rest of the team, within the review's one false-alarm budget (at most "
    f"{budget.FALSE_ALARMS_PER_REVIEW:g} false alarms expected per review, all kinds and contractors together; "
    "the Overview lists every alarm and what each kind can find). The test needs no minimum of submissions: "
    "23 breaks in 23 is credible, 2 in 2 is not. Rules marked as reported only are there to read, never to flag. "
    "The sidebar's rubric, role, rater and date filters apply (dimensions do not: a rule reads a whole "
    "submission); contractors are tested against the whole team under the rubric and dates."
)
data = load(state.version(), filters)
if "rules_checked" in st.session_state:
    st.success(st.session_state.pop("rules_checked"))
if data.rules["n_checked"].sum() == 0:
    st.info("No submission under these filters belongs to a rubric with rules. Load rubric files on the Data page.")
    if identity.allowed("recheck"):
        st.button("Check every submission again", key="cons_recheck", on_click=check_again)
    st.stop()
labels = rule_label(data.rules)

st.subheader("Rules by violation rate")
show(st, cc.rule_rates(data.rules))
table(data.rules, "rules", key="cons_dl_rules", column_config=number_columns(data.rules, RATES))
if identity.allowed("recheck"):  # it rewrites the kept rule results under the write lock
    st.button(
        "Check every submission again",
        key="cons_recheck",
        on_click=check_again,
        help="Rules are checked when files are loaded; this checks everything again now.",
    )

st.subheader("Contractors by rule")
raters = data.raters
if raters.empty:
    st.info("No contractor submission was checked under these filters.")
else:
    flagged = raters[raters["flagged"]]
    if flagged.empty:
        st.markdown("No contractor breaks a rule credibly more often than the rest of the team.")
    else:
        st.markdown(
            md_escape(
                "Flagged: "
                + "; ".join(
                    f"{sidebar.rater_name(str(r))} on {', '.join(labels[str(x)] for x in g['rule_id'])}"
                    for r, g in flagged.groupby("rater_id", sort=True)
                )
            )
        )
    ruled = data.rules[data.rules["n_checked"] > 0].sort_values(["flags", "rate"], ascending=False)["rule_id"]
    rule_id = st.selectbox("Rule", ruled.tolist(), key="cons_rule", format_func=lambda r: visible(labels[r]))
    shown = raters[raters["rule_id"] == rule_id]
    show(st, cc.rater_rates(shown.assign(rater_id=shown["rater_id"].map(sidebar.rater_name)), labels[rule_id]))
    table(shown, f"contractors on {rule_id}", key="cons_dl_raters", column_config=number_columns(shown, RATES))

st.subheader("Violations")
violations = data.violations
c1, c2 = st.columns(2)
pick_rules = c1.multiselect(
    "Rules", list(labels), key="cons_v_rules", placeholder="Every rule", format_func=lambda r: visible(labels[r])
)
pick_raters = c2.multiselect(
    "Raters",
    sorted(violations["rater_id"].unique()),
    key="cons_v_raters",
    placeholder="Every rater",
    format_func=sidebar.rater_name,
)
if pick_rules:
    violations = violations[violations["rule_id"].isin(pick_rules)]
if pick_raters:
    violations = violations[violations["rater_id"].isin(pick_raters)]
if violations.empty:
    st.info("No violation under these filters.")
    st.stop()
table(violations.reset_index(drop=True), "violations", key="cons_dl_violations", height=280)

listed = violations.head(MAX_LISTED).reset_index(drop=True)
if len(violations) > MAX_LISTED:
    st.caption(f"The picker lists the {MAX_LISTED} newest violations; narrow the filters to reach others.")
names = [
    visible(f"{rule} · task {task} · {sidebar.rater_name(str(rater))}")
    for rule, task, rater in zip(listed["rule_id"], listed["task_id"], listed["rater_id"], strict=True)
]
at: int = st.selectbox("Open a violation", range(len(listed)), key="cons_violation", format_func=names.__getitem__) or 0
v = listed.iloc[at]
st.divider()
st.subheader(f"Task {md_escape(v['task_id'])}: {md_escape(sidebar.rater_name(v['rater_id']))}'s submission")
st.markdown(f"**Rule broken:** {md_escape(labels.get(v['rule_id'], v['rule_id']))}")
st.markdown(f"**What was found:** {md_escape(v['detail'])}")
view = load_case(state.version(), str(v["rubric"]), str(v["task_id"]), str(v["rater_id"]))
case_panel.show_case(view, rubrics.get_rubric(str(v["rubric"])))
