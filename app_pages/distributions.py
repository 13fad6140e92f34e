"""Distributions: how contractors and researchers use each dimension's scale, rater by rater, position bias
on comparison dimensions, and each contractor's shift from the researchers."""

from __future__ import annotations

import streamlit as st

from analytics.core.filters import Filters
from analytics.describe import distributions
from ui import charts, identity, query_log, sidebar, state
from ui.tables import table
from ui.text import md_escape, visible

identity.require("page:distributions")  # the navigation hides it too; a page run directly stops here

SMALL_N = 20  # below this many decided comparisons, the position-bias interval is too wide to read much into


@query_log.loader(max_entries=16, show_spinner="Counting levels...")
def load(version: tuple, filters: Filters, rubric: str) -> dict:
    """The page's figures for one rubric, filter and dataset version."""
    con = state.cursor()
    return {
        "dimensions": distributions.dimensions(con, rubric),
        "levels": distributions.level_distribution(con, rubric, filters),
        "bias": distributions.position_bias(con, rubric, filters),
        "bias_note": distributions.position_bias_note(con, rubric, filters),
        "shift": distributions.shift_from_researchers(con, rubric, filters),
    }


@query_log.loader(max_entries=32)
def load_raters(version: tuple, filters: Filters, rubric: str, dimension: str) -> dict:
    """Rater x level counts of one dimension (long for the heatmap, wide for the table)."""
    con = state.cursor()
    return {
        "long": distributions.rater_levels(con, rubric, dimension, filters),
        "wide": distributions.rater_level_table(con, rubric, dimension, filters),
    }


filters = sidebar.current()
st.title("Distributions")
st.markdown(
    "How raters use each scale: the share of each level per dimension, contractors beside researchers, and each "
    "rater's own spread. **Next:** a rater whose levels lean one way (or who uses one level only) is worth a look "
    "on the Raters page (leniency, central tendency) before reading their agreement."
)
rubric = sidebar.rubric_or_first(filters, key="dist_rubric")
if rubric is None:
    st.info("The store holds no ratings yet. Load files on the Data page.")
    st.stop()

data = load(state.version(), filters, rubric)
levels, dims = data["levels"], data["dimensions"]
st.caption(f"{md_escape(sidebar.rubric_title(rubric))}. Everything below follows the filters in the sidebar.")
if levels.empty:
    st.info("No ratings of this rubric match the filters. Widen the filters in the sidebar.")
    st.stop()

labels = dict(zip(dims["dimension"], dims["label"], strict=True))
used = levels["dimension"].drop_duplicates().tolist()
primary = dims.loc[dims["is_primary"], "dimension"].tolist()

st.subheader("Levels per dimension")
st.caption("Share of each role's ratings at each level, levels in scale order; hover a bar for its count.")
charts.show(st, charts.level_distribution(levels), width="content")
table(levels.drop(columns=["dimension_order"]), "level distribution", key="dl_levels")

st.subheader("Raters by level")
st.caption(
    "Each rater's share of ratings at each level (count in the cell). A lenient, severe or always-middle rater "
    "shows as a dark column at one end or in the middle; raters are sorted by their mean level."
)
dimension = st.selectbox(
    "Dimension",
    used,
    index=used.index(primary[0]) if primary and primary[0] in used else 0,
    key="dist_dimension",
    format_func=lambda d: visible(labels.get(d, d)),
)
raters = load_raters(state.version(), filters, rubric, dimension)
named = raters["long"].assign(rater_id=raters["long"]["rater_id"].map(sidebar.rater_name))  # "Hal K. (c35)"
charts.show(st, charts.rater_level_heatmap(named, labels.get(dimension, dimension)), width="stretch")
table(raters["wide"], f"raters by level {dimension}", key="dl_raters")

comparison = dims.loc[dims["is_comparison"] & dims["dimension"].isin(used), "dimension"].tolist()
if comparison:
    st.subheader("Position bias")
    st.caption(
        "Of the comparisons each rater decided (ties left out), the share where the option shown first was "
        "rated better, with its Wilson 95% interval. Display order is randomised, so an unbiased rater sits "
        "near 0.5; an interval clear of 0.5 suggests the rater favours one screen position."
    )
    bias, note = data["bias"], data["bias_note"]
    if note:  # say why comparisons are left out, never show nothing silently
        st.info(note)
    if bias.empty:
        if not note:
            st.info("The comparison ratings under these filters are all missing values: nothing to measure.")
    else:
        choices = [d for d in comparison if d in set(bias["dimension"])]
        bias_dim = st.selectbox(
            "Comparison dimension",
            choices,
            index=choices.index(primary[0]) if primary and primary[0] in choices else 0,
            key="dist_bias_dimension",
            format_func=lambda d: visible(labels.get(d, d)),
        )
        shown = bias[bias["dimension"] == bias_dim]
        small = shown[(~shown["pooled"]) & (shown["n"] < SMALL_N)]
        if not small.empty:
            st.warning(
                f"{len(small)} rater(s) decided fewer than {SMALL_N} comparisons here: "
                "their intervals are wide; read the n before the share."
            )
        named_bias = shown.assign(rater_id=shown["rater_id"].map(sidebar.rater_name))
        charts.show(st, charts.position_bias(named_bias, labels.get(bias_dim, bias_dim)), width="stretch")
        table(shown, f"position bias {bias_dim}", key="dl_bias")

st.subheader("Shift from researchers")
st.caption(
    "How each contractor uses the scale compared with researchers, on the tasks both rated (the sidebar's rater "
    "filter picks whose rows are shown, its dates pick the contractor's ratings; every researcher rating counts). "
    "Mean level: the average level chosen, counting the scale's first level as 1. Difference: the contractor's mean "
    "level minus the researchers'; above 0 the contractor picks levels further along the scale than researchers "
    "do, below 0 earlier ones. Total variation: how differently the two spread their ratings over the levels, from "
    "0 (the same share of every level) to 1 (no level in common). Each figure comes with the range it surely lies "
    "in (the 95% interval, low and high columns; interval_method names how it was drawn), and n counts tasks. "
    "Largest shift first, by the smallest shift the data surely show (the low end of the total variation's "
    f"range). Contractors with fewer than {distributions.MIN_TASKS} tasks shared with researchers (small_n) come "
    "last whatever their figures: with so few tasks, read their ranges rather than their place in the list."
)
shift = data["shift"]
if shift.empty:
    st.info("No contractor rated a unit that a researcher also rated, under these filters.")
else:
    table(shift, "shift from researchers", key="dl_shift")
