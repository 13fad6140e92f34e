"""The rubric documents' own rules as data: each rule's id, rubric, words and check (issue #14).

A rule's check reads the canonical tables and returns one row per submission the rule applies to (its
premise holds: e.g. every rated submission of the rubric, or every flagged one for the flag rule), with
CHECK_COLUMNS: whether the submission breaks the rule and, when it does, a one-line detail naming what.
Checks are SQL (named queries next to the rule) where they can be, Python where they must (near-duplicate
justifications). Each rubric's rules live in a module of this package named for the rubric; RULES collects them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics.queries import Query

# What a check returns: one row per checked submission.
CHECK_COLUMNS = ("submission_id", "violated", "detail")
# The modules that hold rules, one per rubric document (each has a module-level RULES tuple).
RULE_MODULES = ("answer_comparison", "instruction_following", "preference_ranking", "article_likert")


@dataclass(frozen=True)
class Rule:
    """One rule a single submission can break, as its rubric document states it."""

    rule_id: str
    rubric: str
    description: str  # one line quoting the document
    fields: tuple[str, ...]  # what the check reads, in the canonical tables' words
    check: Callable[[duckdb.DuckDBPyConnection], pd.DataFrame]
    flags: bool = True  # False: a rate reported for reading, never a flag on a contractor


def rules() -> tuple[Rule, ...]:
    """Every rule of every rubric, in catalogue order."""
    return tuple(r for name in RULE_MODULES for r in importlib.import_module(f"analytics.consistency.{name}").RULES)


def rule(rule_id: str) -> Rule:
    """The rule with this id."""
    for r in rules():
        if r.rule_id == rule_id:
            return r
    raise KeyError(f"no rule {rule_id!r}")


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
