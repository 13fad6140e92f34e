"""One rubric rule: its id, rubric, words and check, and the helpers rule checks are built from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics.core.queries import Query

# What a check returns: one row per checked submission.
CHECK_COLUMNS = ("submission_id", "violated", "detail")


@dataclass(frozen=True)
class Rule:
    """One rule a single submission can break, as its rubric document states it."""

    rule_id: str
    rubric: str
    description: str  # one line quoting the document
    fields: tuple[str, ...]  # what the check reads, in the canonical tables' words
    check: Callable[[duckdb.DuckDBPyConnection], pd.DataFrame]
    flags: bool = True  # False: a rate reported for reading, never a flag on a contractor


def sql_check(query: Query) -> Callable[[duckdb.DuckDBPyConnection], pd.DataFrame]:
    """A rule's check that is one named query returning CHECK_COLUMNS."""

    def run(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
        df = query.df(con)
        df["violated"] = df["violated"].astype(bool)
        return df[list(CHECK_COLUMNS)]

    return run


def empty_check() -> pd.DataFrame:
    """A check's result when no submission is checked."""
    return pd.DataFrame(
        {"submission_id": pd.Series(dtype=str), "violated": pd.Series(dtype=bool), "detail": pd.Series(dtype=str)}
    )
