"""Tables that can always be downloaded."""

from __future__ import annotations

import pandas as pd
import streamlit as st


def table(df: pd.DataFrame, name: str, key: str | None = None, height: int | None = None, **kwargs) -> None:
    """Show a DataFrame (cells as plain text) with a CSV download button under it."""
    if height is not None:
        kwargs["height"] = height
    st.dataframe(df, hide_index=True, width="stretch", **kwargs)
    st.download_button(
        f"Download {name} (CSV)",
        df.to_csv(index=False).encode("utf-8"),
        file_name=f"{name.replace(' ', '_')}.csv",
        mime="text/csv",
        key=key or f"download_{name}",
    )
