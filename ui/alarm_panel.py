"""The alarms of a review on a page (Overview, Feedback): the headline (alarms not yet acknowledged), the
acknowledged ones still listed, every alarm's figures, what each kind can find, and the form a lead acknowledges
an alarm with. Every text from the data is escaped."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from analytics.alarms import acks, budget
from analytics.alarms.review import KIND_TITLES, Review, narrowed, scope, team_review
from analytics.alarms.words import alarm_line, dimension_words
from analytics.core import significance
from analytics.core.filters import Filters
from analytics.core.formatting import WEEK_MOMENT
from ui import identity, query_log, state
from ui.sidebar import rubric_title
from ui.tables import column_label, number_columns, table
from ui.text import md_escape

BUDGET_NOTE = (
    f"Every alarm (drift, rubric rules, rater effects) is decided by one rule over every test of the review, all "
    f"kinds and contractors together: on a steady team at most {budget.FALSE_ALARMS_PER_REVIEW:g} false alarms "
    "are expected per review, whatever the team's size, the number of rules or the project's length "
    "(measured on simulated steady teams)."
)


@query_log.loader(max_entries=16, show_spinner="Testing every contractor for alarms...")
def _team_review(version: tuple, team: Filters) -> Review:
    """The alarm review of one team (review.scope of the sidebar's filters) and dataset version."""
    return team_review(state.cursor(), team)


def review_of(version: tuple, filters: Filters) -> Review:
    """The alarm review under the sidebar's filters: one per team and dataset version, shared by every page
    (Overview, Raters, Feedback, Consistency), narrowed to the filter's raters."""
    return narrowed(_team_review(version, scope(filters)), filters)


def _label(a: Any, names: Callable[[str], str]) -> str:
    """How an alarm reads in a list or picker: kind, contractor, rubric and dimension or rule, in words (`a`: an
    ALERT_COLUMNS row as a named tuple, itertuples')."""
    rubric, dimension = str(a.rubric), str(a.dimension or "")
    where = f", {dimension_words(rubric, dimension)}" if dimension else ""
    return f"{KIND_TITLES.get(a.kind, a.kind)}: {names(str(a.rater_id))} ({rubric_title(rubric)}{where})"


def _where(by_rubric: dict[str, list]) -> str:
    """The rubrics of one contractor's alarms of one kind, each with its dimensions or rules when they have any."""
    parts = []
    for rubric, dimensions in by_rubric.items():
        dims = [dimension_words(rubric, str(d)) for d in dimensions if d]
        title = rubric_title(rubric)
        parts.append(f"{title} ({', '.join(dims)})" if dims else title)
    return "; ".join(parts)


def _headline(open_: pd.DataFrame, names: Callable[[str], str]) -> str:
    """One line per contractor with alarms not yet acknowledged: each kind and where (the evidence is listed
    below, each alarm's figures in the table)."""
    # Grouped in plain dicts, in order of first appearance (a frame per contractor and kind cost 50 ms on the demo).
    grouped: dict[str, dict[str, dict[str, list]]] = {}
    columns = (open_[c] for c in ("rater_id", "kind", "rubric", "dimension"))
    for rater, kind, rubric, dimension in zip(*columns, strict=True):
        grouped.setdefault(str(rater), {}).setdefault(str(kind), {}).setdefault(str(rubric), []).append(dimension)
    lines = []
    for rater, kinds in grouped.items():
        said = [f"{KIND_TITLES.get(k, k)} on {_where(by_rubric)}" for k, by_rubric in kinds.items()]
        lines.append(f"- **{md_escape(names(rater))}**: {md_escape('; '.join(said))}")
    return f"{len(open_)} alarm(s) on {len(grouped)} contractor(s):\n\n" + "\n".join(lines)


ATTENTION_NAMES = 3  # contractors named in the one-line summary; the rest are counted


def attention_line(alerts: pd.DataFrame, names: Callable[[str], str]) -> str:
    """One line saying what needs attention from a review's alarms (those not yet acknowledged): how many, on whom
    (the contractors with most alarms first) and where to go next; Markdown-safe."""
    open_ = alerts[~alerts["acknowledged"].astype(bool)] if len(alerts) else alerts
    if open_.empty:
        acked = f" ({len(alerts)} acknowledged)" if len(alerts) else ""
        return f"**Needs attention:** nothing: no open alarm on any contractor under these filters{acked}."
    counts = open_.groupby("rater_id", sort=False).size().sort_values(ascending=False, kind="stable")
    who = [md_escape(names(str(r))) for r in counts.index[:ATTENTION_NAMES]]
    more = len(counts) - len(who)
    people = ", ".join(who) + (f" and {more} more" if more else "")
    kinds = ", ".join(md_escape(KIND_TITLES.get(str(k), str(k)).lower()) for k in open_["kind"].drop_duplicates())
    return (
        f"**Needs attention:** {len(open_)} open alarm(s) ({kinds}) on {len(counts)} contractor(s): {people}. "
        "Next: the Alarms section below has the evidence; the Feedback page ranks who needs feedback first."
    )


def evidence_list(alerts: pd.DataFrame, names: Callable[[str], str]) -> str:
    """Every alarm's line (words.alarm_line, as report cards word it) under its contractor's name, as Markdown."""
    return "\n".join(
        f"- **{md_escape(names(str(a.rater_id)))}**: {md_escape(alarm_line(a))}" for a in alerts.itertuples(index=False)
    )


def _acknowledge(key: str, alerts: pd.DataFrame) -> None:
    """Form callback: record or withdraw the chosen alarm's acknowledgement from the form's fields."""
    ss = st.session_state
    a = alerts.iloc[int(ss[f"{key}_pick"])]
    ids = (str(a["kind"]), str(a["rater_id"]), str(a["rubric"]), str(a["dimension"]))
    try:
        if bool(a["acknowledged"]):
            acks.withdraw(state.cursor(), *ids)
            ss[f"{key}_done"] = "Acknowledgement withdrawn: the alarm is back in the headline."
        else:
            acks.acknowledge(state.cursor(), *ids, by=identity.author(), reason=ss[f"{key}_why"])
            ss[f"{key}_done"] = "Acknowledged: the alarm left the headline and stays listed."
    except ValueError as e:
        ss[f"{key}_done"] = f"Not recorded: {e}"


def show_alarms(alerts: pd.DataFrame, key: str, names: Callable[[str], str], empty: str) -> None:
    """The headline, the acknowledged alarms, the table of every alarm and the acknowledgement form."""
    if f"{key}_done" in st.session_state:
        st.info(md_escape(st.session_state.pop(f"{key}_done")))
    if alerts.empty:
        st.markdown(md_escape(empty))
        return
    open_, acked = alerts[~alerts["acknowledged"].astype(bool)], alerts[alerts["acknowledged"].astype(bool)]
    st.markdown(_headline(open_, names) if len(open_) else "Every alarm is acknowledged.")
    with st.expander(f"Every alarm's evidence ({len(alerts)})"):
        st.markdown(evidence_list(alerts, names))
    if len(acked):
        st.caption(
            "Acknowledged (out of the headline): "
            + "; ".join(
                md_escape(f"{_label(a, names)}, by {a.acknowledged_by}: {a.reason}")
                for a in acked.itertuples(index=False)
            )
        )
    # "since" is a week's Monday for most kinds, a first break's time for rules: shown as its day, one format.
    since = {"since": st.column_config.DateColumn(column_label("since"), format=WEEK_MOMENT)}
    table(alerts, "alarms", key=f"{key}_dl", column_config=number_columns(alerts) | since)
    if not identity.allowed("acknowledge"):
        return
    with st.expander("Acknowledge an alarm"):
        labels = [
            _label(a, names) + (" (acknowledged)" if a.acknowledged else "") for a in alerts.itertuples(index=False)
        ]
        st.selectbox("Alarm", range(len(alerts)), key=f"{key}_pick", format_func=lambda i: md_escape(labels[i]))
        st.text_input("Why (talked to them, a known cause, ...)", key=f"{key}_why", max_chars=acks.MAX_TEXT)
        st.caption(md_escape(f"Recorded by {identity.author()}."))
        st.button(
            "Acknowledge, or withdraw an acknowledgement", key=f"{key}_ack", on_click=_acknowledge, args=(key, alerts)
        )


def show_power(power: pd.DataFrame, key: str) -> None:
    """What silence means: the effect each kind finds 80% of the time at the team's n."""
    st.markdown(
        "**What silence means.** "
        + " ".join(
            md_escape(f"{KIND_TITLES.get(k, k)}: {s}") for k, s in zip(power["kind"], power["sentence"], strict=True)
        )
    )
    st.caption(
        f"Each at {significance.POWER:.0%} detection, at the team's median tasks (or submissions) under these filters, and "
        "at the level a test is held to when nothing else alarms: with other alarms found the rule loosens, so these "
        "are found at least as often."
    )
    table(power, "alarm power", key=f"{key}_dl_power", column_config=number_columns(power))
