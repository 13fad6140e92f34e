"""Tables that can always be downloaded."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from ui.text import md_escape


def table(df: pd.DataFrame, name: str, key: str | None = None, height: int | None = None, **kwargs) -> None:
    """Show a DataFrame (cells as plain text) with a CSV download button under it (`name` may hold data, e.g. a
    dimension name: the button label is markdown, so it is escaped)."""
    if height is not None:
        kwargs["height"] = height
    st.dataframe(df, hide_index=True, width="stretch", **kwargs)
    st.download_button(
        f"Download {md_escape(name)} (CSV)",
        df.to_csv(index=False).encode("utf-8"),
        file_name=f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)[:100]}.csv",
        mime="text/csv",
        key=key or f"download_{name}",
    )
