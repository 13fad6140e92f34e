"""One task laid out side by side for a reviewer: the task on top, the options in columns in the order the
contractor saw them, every rater's ratings under each option (the contractor beside every researcher, their
differences highlighted), and what each rater wrote. Used for a disagreement (Disagreements page) and for any
submission, with or without a researcher (Consistency page: the case's researcher_id is then "").

Every piece of submission text is shown with st.text or escaped (ui/text.py)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.core import rubrics
from analytics.review import case_view as cv
from ui.tables import table
from ui.text import md_escape, show_text, text_block

DIFFERS = "≠"  # the marker column of a ratings table: the contractor and the researcher differ on this row
SHORT_NOTE = 80  # characters of a note every rater wrote alike that still goes on the shared line
ROW_PX = 35  # a dataframe row's height: ratings tables show every row
DIFFERS_CSS = "background-color: rgba(255, 170, 60, 0.35)"
CASE_CSS = "background-color: rgba(230, 70, 50, 0.35); font-weight: bold"


def role_names(view: cv.CaseView) -> dict[str, str]:
    """The case's rating columns named by role: "contractor", "researcher" (with several, "researcher r1", ...)."""
    names = {view.case_columns[0]: "contractor"}
    many = len(view.researchers) > 1
    for column, researcher in zip(view.case_columns[1:], view.researchers, strict=True):
        names[column] = f"researcher {researcher}" if many else "researcher"
    return names


def ratings_table(rows: pd.DataFrame, view: cv.CaseView, name: str, key: str, narrow: bool = False) -> None:
    """Ratings with the case's contractor beside every researcher (columns named by role, right after the
    dimension, so a narrow column still shows them), the rows where they differ highlighted (the disagreement
    itself strongest); every other rater's column follows. The target is shown when the rows have several."""
    if rows.empty:
        st.caption("No ratings of this.")
        return
    pair = role_names(view)
    with_target = bool(rows["target"].nunique() > 1)
    shown = rows[["target"] * with_target + ["dimension", *view.rater_columns]].rename(columns=pair)
    shown.insert(1 + with_target, DIFFERS, rows["differs"].map({True: DIFFERS, False: ""}))
    styles = pd.DataFrame("", index=shown.index, columns=shown.columns)
    marked = ["dimension", DIFFERS, *pair.values()]
    styles.loc[rows["differs"], marked] = DIFFERS_CSS
    styles.loc[rows["is_case"], marked] = CASE_CSS
    widths = (130, 70) if narrow else (220, 110)
    config = {
        "dimension": st.column_config.TextColumn(width=widths[0]),
        DIFFERS: st.column_config.TextColumn(width=28),
        **{role: st.column_config.TextColumn(width=widths[1]) for role in pair.values()},
    }
    table(shown, name, key=key, height=ROW_PX * (len(shown) + 1) + 3, styles=styles, column_config=config)


def rater_notes(notes: pd.DataFrame, prefix: str = "") -> None:
    """What a rater wrote, label by label, as plain text."""
    for _, n in notes.iterrows():
        text_block(prefix + n["label"], n["text"])


def shared_notes(notes: pd.DataFrame, who: str) -> None:
    """What every rater's submission says alike: short one-line notes together on one line, others as text."""
    if notes.empty:
        return
    short = notes["text"].map(lambda t: len(t) <= SHORT_NOTE and "\n" not in t).astype(bool)
    if short.any():
        alike = "; ".join(f"{n['label']}: {n['text']}" for _, n in notes[short].iterrows())
        st.caption(md_escape(f"{who}: {alike}"))
    rater_notes(notes[~short], prefix=f"{who} · ")


def shown_order(view: cv.CaseView, first: pd.Series) -> str:
    """Which option each of the case's raters was shown first, in words: "Options in the order c1 saw them:
    Option B was shown first; r1 was shown Option A first." (`first`: the option label by rater)."""
    contractor = view.key.contractor_id
    said = f"Options in the order {contractor} saw them"
    if contractor not in first.index:
        return said + "."
    said += f": {first[contractor]} was shown first"
    return said + "".join(f"; {r} was shown {first[r]} first" for r in view.researchers if r in first.index) + "."


def show_case(view: cv.CaseView, catalogued: rubrics.Rubric | None) -> None:
    """The case's task, options, ratings side by side and what the raters wrote."""
    key = view.key
    option_names = dict(zip(view.options["item_id"], view.options["label"], strict=True))
    pair = [key.contractor_id, *view.researchers]  # no researcher: the submission alone
    with st.container(border=True):
        st.markdown(f"**{md_escape(catalogued.prompt_label if catalogued else 'Task')}**")
        show_text(view.prompt or "(no task text was loaded for this task)")
        text_block(catalogued.context_label if catalogued else "Context", view.context)
        shared_notes(view.notes_of(""), "Every rater's submission")

    first = view.shown_first.set_index("rater_id")["label"] if not view.shown_first.empty else pd.Series(dtype=str)
    if view.options.empty:
        st.caption("No options were loaded for this task: every rating is in the table below.")
    else:
        st.caption(md_escape(shown_order(view, first)))
        researchers = ", ".join(view.researchers)
        beside = (
            f"the contractor ({key.contractor_id}) beside the researcher{'s' * (len(view.researchers) > 1)} "
            f"({researchers}), marked {DIFFERS} and highlighted where they differ (the disagreement itself in red), "
            "then the other raters"
            if view.researchers
            else f"the contractor's ({key.contractor_id}), then the other raters' (no researcher rated this task)"
        )
        st.caption(md_escape(f"Under each option, every rater's ratings of it: {beside}."))
    options = list(view.options.itertuples(index=False))
    # Three rows of columns, one column per option, so the texts, the ratings tables and the notes line up.
    for col, item in zip(st.columns(max(len(options), 1)), options, strict=False):
        with col, st.container(border=True):
            st.markdown(f"**{md_escape(item.label)}**")
            show_text(item.text or "(no text)")
            text_block("Sources", item.sources)
    for i, (col, item) in enumerate(zip(st.columns(max(len(options), 1)), options, strict=False)):
        with col:
            ratings_table(
                view.option_ratings(str(item.item_id)),
                view,
                f"ratings of {item.label}",
                f"dl_option_{i}",
                len(options) > 2,
            )
    for col, item in zip(st.columns(max(len(options), 1)), options, strict=False):
        with col:
            for rater in pair:
                rater_notes(view.notes_of(rater, str(item.item_id)), prefix=f"{rater} · ")
            shared_notes(view.notes_of("", str(item.item_id)), "Every rater")

    task_rows = view.task_ratings()
    if not task_rows.empty:
        st.markdown("**Ratings of the whole task**" if not view.options.empty else "**Every rater's ratings**")
        ratings_table(task_rows, view, "ratings of the task", key="dl_task_ratings")

    st.subheader("What the raters wrote")
    roles = ["Contractor", *["Researcher"] * len(view.researchers)]
    for col, rater, role in zip(st.columns(len(pair)), pair, roles, strict=True):
        with col, st.container(border=True):
            st.markdown(f"**{role} {md_escape(rater)}**")
            wrote = view.notes_of(rater)
            rater_notes(wrote)
            if wrote.empty:
                st.caption("Nothing written beyond the ratings.")
    others = view.raters[~view.raters["rater_id"].isin(pair)]
    if not others.empty:
        with st.expander(f"The other {len(others)} rater(s) of this task"):
            for other in others.itertuples(index=False):
                st.markdown(f"**{md_escape(other.rater_id)}** ({md_escape(other.role)})")
                wrote = view.notes[view.notes["rater_id"] == other.rater_id]
                for _, n in wrote.iterrows():
                    about = f"{option_names.get(n['target'], n['target'])} · " if n["target"] else ""
                    text_block(about + n["label"], n["text"])
                if wrote.empty:
                    st.caption("Nothing written beyond the ratings (or only what every rater wrote alike).")
