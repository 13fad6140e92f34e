"""The Overview's line about contractors whose interval is not yet usable, which links to the Plan page."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from analytics.plan.needs import USABLE_TASKS
from ui.text import md_escape

NAMED = 5  # contractors named in the line; the rest are counted


def lacking_line(lacking: pd.DataFrame, name: Callable[[str], str]) -> str:
    """One Markdown line: how many active contractors lack a usable interval, the first few by name with their
    shared tasks (escaped), and what the Plan page does about it."""
    rows = lacking.sort_values(["n_tasks", "rater_id"]).drop_duplicates("rater_id")
    named = ", ".join(
        f"{md_escape(name(r))} ({n} in {md_escape(b)})"
        for r, b, n in rows[["rater_id", "rubric", "n_tasks"]].head(NAMED).itertuples(index=False)
    )
    more = f" and {len(rows) - NAMED} more" if len(rows) > NAMED else ""
    people = "contractor lacks" if len(rows) == 1 else "contractors lack"
    return (
        f"**{len(rows)} active {people} a usable interval** (fewer than {USABLE_TASKS} tasks shared with "
        f"researchers): {named}{more}. The Plan page proposes where researchers should label next."
    )
