"""A feedback report made to stress the exports: the hand-built store's c1 report (tests/test_feedback.py) with one
flagged and one unflagged broken rule, a long example cell and an unbroken token in a case's text."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd

from analytics.feedback import report as fr
from analytics.feedback.rules import RULE_COLUMNS
from analytics.store import open_store

FLAGGED, UNFLAGGED = "ac_flagged_rule", "ac_unflagged_rule"
LONG_EXAMPLE = "; ".join(
    f"task ac-{n:05d}: coherence_comparison: A Very bad vs B Good should be 'B much better', is 'A better'"
    for n in range(40)
)
UNBROKEN = "x" * 3000  # one token no line breaking rule can split at a space


def stressed_report(store: Path) -> fr.FeedbackReport:
    """c1's report on the hand-built store, with the stress rows above put in its rules and first case."""
    con = open_store(store, read_only=True)
    try:
        rep = fr.feedback_report(con, "c1", n_boot=50)
    finally:
        con.close()
    rules = pd.DataFrame(
        [
            (FLAGGED, "answer_comparison", "A rule broken often.", 33, 33, 1.0, 0.9, 1.0, 0.11, True, LONG_EXAMPLE),
            (UNFLAGGED, "answer_comparison", "A rule broken once.", 33, 1, 0.03, 0.01, 0.15, 0.02, False, UNBROKEN),
        ],
        columns=RULE_COLUMNS,
    )
    cases = rep.disagreements.copy()
    cases.loc[cases.index[0], "prompt"] = UNBROKEN
    return dataclasses.replace(rep, rules=rules, disagreements=cases)
