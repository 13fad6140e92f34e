"""Chart builders: each takes a tidy DataFrame and returns an alt.Chart."""

from __future__ import annotations

import altair as alt
import pandas as pd

ROLE_COLORS = alt.Scale(domain=["contractor", "researcher"], range=["#4c78a8", "#f58518"])


def volume_by_rubric(df: pd.DataFrame) -> alt.Chart:
    """Stacked bars of ratings per rubric, coloured by role."""
    return (
        alt.Chart(df, title="Ratings per rubric")
        .mark_bar()
        .encode(
            y=alt.Y("rubric:N", title=None, sort="-x"),
            x=alt.X("ratings:Q", title="Ratings"),
            color=alt.Color("role:N", scale=ROLE_COLORS, title="Role"),
            tooltip=["rubric", "role", "ratings", "tasks", "raters"],
        )
    )


def volume_by_week(df: pd.DataFrame) -> alt.Chart:
    """Weekly ratings per rubric as stacked bars, one row of bars per role."""
    return (
        alt.Chart(df, title="Ratings per week")
        .mark_bar()
        .encode(
            x=alt.X("week:T", title="Week"),
            y=alt.Y("sum(ratings):Q", title="Ratings"),
            color=alt.Color("rubric:N", title="Rubric"),
            tooltip=["week:T", "rubric", "role", "ratings", "tasks"],
        )
        .properties(height=220)
    )


def submission_status(df: pd.DataFrame) -> alt.Chart:
    """Submissions per status and rubric."""
    return (
        alt.Chart(df, title="Submissions by status")
        .mark_bar()
        .encode(
            x=alt.X("submissions:Q", title="Submissions"),
            y=alt.Y("rubric:N", title=None),
            color=alt.Color("status:N", title="Status"),
            tooltip=["rubric", "status", "submissions"],
        )
    )


def quarantine_by_field(df: pd.DataFrame) -> alt.Chart:
    """Quarantined rows per file and field."""
    return (
        alt.Chart(df, title="Quarantined rows by file and field")
        .mark_bar()
        .encode(
            x=alt.X("rows:Q", title="Rows"),
            y=alt.Y("file_name:N", title=None),
            color=alt.Color("field:N", title="Field"),
            tooltip=["file_name", "field", "rows"],
        )
    )
