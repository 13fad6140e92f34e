"""Tables that can always be downloaded."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from analytics.agreement import LABELS, MIN_TASKS
from analytics.core import csv_out
from analytics.core.formatting import WEEK_MOMENT, is_dates
from analytics.explore import sql
from ui.text import md_escape, visible_cells

# Columns holding ids and file names: shown with control and bidirectional characters made visible.
ID_COLUMNS = {"rubric", "dimension", "label", "dimension_label", "target", "file", "file_name", "rater_a", "rater_b"}


SHORT = {"preference_agreement": "preference agreement", "kendall_tau_b": "tau-b"}  # statistics' headers
# Readable headers for the columns tables share (one place); statistics take their names from the agreement
# catalogue, and any other column reads as its name with spaces.
COLUMN_LABELS = {
    "n": "n",
    "n_units": "units",
    "n_units_rated": "units rated",
    "n_tasks": "tasks",
    "n_raters": "raters",
    "n_ratings": "ratings",
    "n_item_pairs": "item pairs",
    "rater_id": "rater",
    "task_id": "task",
    "contractor_id": "contractor",
    "researcher_id": "researcher",
    "file_name": "file",
    "raw_value": "value as read",
    "duration_s": "duration (s)",
    "submitted_at": "submitted",
    "loaded_at": "loaded",
    "ingest_id": "load #",
    "role_override": "role given at load",
    "rows_read": "rows read",
    "content_hash": "content SHA-256",
    "value_index": "level",
    "small_n": f"fewer than {MIN_TASKS} tasks",
    "rule_id": "rule",
    "team_value": "team (without them)",
    "team_rate": "rest of the team",
    "p_value": "p-value",
    "n_checked": "checked",
    "n_violations": "breaking",
    "n_violating": "breaking",
}


def column_label(name: object) -> str:
    """The header a table shows for a column ("kappa_ci_low" reads "Cohen's kappa 95% low")."""
    if not isinstance(name, str):
        return str(name)
    if name in COLUMN_LABELS:
        return COLUMN_LABELS[name]
    base = name.removesuffix("_ci_low").removesuffix("_ci_high")
    suffix = " 95% low" if name.endswith("_ci_low") else " 95% high" if name.endswith("_ci_high") else ""
    if base in LABELS:
        return SHORT.get(base, LABELS[base]) + suffix
    if base.startswith("ceiling_"):  # the card's researcher-researcher figures (a reference, not a bound)
        return "researcher-researcher " + column_label(base.removeprefix("ceiling_")) + suffix
    if base.startswith("n_"):
        base = base[2:]
    return base.replace("_", " ") + suffix


def is_id_column(name: object) -> bool:
    """Whether a table column holds ids or file names (by name: the ones above and any '..._id')."""
    return isinstance(name, str) and (name in ID_COLUMNS or name.endswith("_id"))


def visible_ids(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with its id and file name columns' text passed through ui.text.visible (other cells as they are)."""
    out = df
    for i, c in enumerate(df.columns):
        s = df.iloc[:, i]
        if not is_id_column(c) or pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
            continue
        if isinstance(s.dtype, pd.CategoricalDtype):
            s = s.astype(object)
        if out is df:
            out = df.copy()
        out.isetitem(i, visible_cells(s).to_numpy())
    return out


# Rows a table draws: every rerun sends them to the browser, and beyond a few thousand nobody scrolls them (1M
# tasks gave the Disagreements page 116,793 cases and a 5.8 s rerun); the CSV download keeps every row. As many as
# the Explore page's query result holds, which says so itself.
MAX_SHOWN = sql.MAX_ROWS


def table(
    df: pd.DataFrame,
    name: str,
    key: str | None = None,
    height: int | None = None,
    download: pd.DataFrame | None = None,
    styles: pd.DataFrame | None = None,
    **kwargs: Any,
) -> None:
    """Show a DataFrame (cells as plain text; ids with hidden characters made visible) with a CSV download
    button under it. The download is `download` when given (the data behind a display table, e.g. numbers and
    interval ends instead of "0.64 [0.58, 0.70]"), else `df`, written by analytics.csv_out (the one writer).
    `name` may hold data, e.g. a dimension name: the button label is markdown, so it is escaped. `styles` is CSS
    per cell (a frame with df's index and some of its columns; "" or missing for none), e.g. to highlight."""
    if height is not None:
        kwargs["height"] = height
    # Every column gets a readable header unless the caller configured it; missing values show as blanks.
    config = dict(kwargs.pop("column_config", None) or {})
    kwargs["column_config"] = {c: column_label(c) for c in df.columns if c not in config} | dates(df, config) | config
    kwargs.setdefault("placeholder", "")
    shown = visible_ids(df.head(MAX_SHOWN))
    data = shown if styles is None else shown.style.apply(lambda _: styles.reindex_like(shown).fillna(""), axis=None)
    st.dataframe(data, hide_index=True, width="stretch", **kwargs)
    if len(df) > MAX_SHOWN:
        st.caption(f"Showing the first {MAX_SHOWN:,} of {len(df):,} rows; the download below holds them all.")
    st.download_button(
        f"Download {md_escape(name)} (CSV)",
        csv_data(df if download is None else download),
        file_name=f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)[:100]}.csv",
        mime="text/csv",
        key=key or f"download_{name}",
        # A click that also reran the page raced the download: the rerun could drop the button's deferred file before
        # Streamlit wrote it (Streamlit's docs say so), and the download never came (seen twice under a loaded test
        # run). Nothing on a page depends on a download having been clicked.
        on_click="ignore",
    )


def dates(df: pd.DataFrame, configured: dict) -> dict:
    """Date columns (weeks, days: datetimes at midnight) shown as dates in the one week format
    (analytics.core.formatting), never "2026-03-30 00:00:00"; columns the caller configured are left alone."""
    return {
        c: st.column_config.DateColumn(column_label(c), format=WEEK_MOMENT)
        for c in df.columns
        if c not in configured and is_dates(df[c])
    }


def csv_data(frame: pd.DataFrame) -> Callable[[], bytes]:
    """A download's CSV (analytics.csv_out), written when its button is clicked (Streamlit runs the callable on its
    own thread), not on every rerun: 1.3 s for the Disagreements page's 116,793 cases at 1M tasks, and on every
    page a table's CSV that nobody downloads. The frame is held as it is now (a shallow copy: pandas copies on
    write), whatever the page does with it afterwards."""
    held = frame.copy(deep=False)
    return lambda: csv_out.to_csv_bytes(held)


def number_columns(df: pd.DataFrame, percent: tuple[str, ...] = (), labels: dict[str, str] | None = None) -> dict:
    """Two decimals for every float column of a table, the `percent` ones as percentages (the CSV download
    keeps full precision); `labels` head the columns they name (float or not), in place of column_label."""
    heads = labels or {}
    floats = {
        c: st.column_config.NumberColumn(heads.get(c, column_label(c)), format="percent" if c in percent else "%.2f")
        for c in df.columns
        if pd.api.types.is_float_dtype(df[c])
    }
    return {c: h for c, h in heads.items() if c in df.columns} | floats
