"""Each contractor's rule rates from arrays (issue 50 item 9): rates.rater_table computes the Wilson intervals,
Newcombe's difference intervals and the team's rates on arrays, equal to the last bit to the row-at-a-time code it
replaced (stats.wilson and intervals.newcombe on floats; every review computed it, 0.06 s on the demo)."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

from analytics.agreement import intervals as iv
from analytics.agreement.rows import MIN_TASKS
from analytics.consistency import catalogue, rates, results
from analytics.core import rater_ids as an
from analytics.core import stats
from analytics.core.filters import Filters
from analytics.core.queries import run


def rater_table_as_it_was(counts: pd.DataFrame, rules: tuple) -> pd.DataFrame:
    """The former rater_table: one row at a time."""
    people = counts[(counts["role"] == "contractor") & ~counts["rater_id"].map(an.is_anonymous)]
    flags = {r.rule_id: r.flags for r in rules}
    rows, tests = [], []
    for rule_id, g in people.groupby("rule_id", sort=False):
        total_n, total_v = int(g["n_checked"].sum()), int(g["n_violations"].sum())
        for rater, n, v in zip(g["rater_id"], g["n_checked"].astype(int), g["n_violations"].astype(int), strict=True):
            team_n, team_v = total_n - n, total_v - v
            rate = v / n if n else math.nan
            team = team_v / team_n if team_n else math.nan
            low, high = stats.wilson(rate, n)
            d_low, d_high = iv.newcombe(team, team_n, rate, n) if n and team_n else (math.nan, math.nan)
            rows.append(
                {
                    "rater_id": str(rater),
                    "rule_id": str(rule_id),
                    "n_checked": n,
                    "n_violations": v,
                    "rate": rate,
                    "rate_ci_low": low,
                    "rate_ci_high": high,
                    "team_rate": team,
                    "team_checked": team_n,
                    "difference_ci_low": d_low,
                    "difference_ci_high": d_high,
                    "small_n": n < MIN_TASKS,
                    "p_value": math.nan,
                    "flagged": False,
                }
            )
            tests.append((v, n, team_v, team_n, flags.get(str(rule_id), False)))
    out = pd.DataFrame(rows, columns=list(rates.RATER_COLUMNS))
    a = np.array(tests, dtype=np.int64)
    out["p_value"] = rates.fisher_p_values(a[:, 0], a[:, 1], a[:, 2], a[:, 3], a[:, 4].astype(bool))
    order = {r.rule_id: i for i, r in enumerate(rules)}
    return out.sort_values(
        ["rule_id", "rater_id"], key=lambda c: c.map(order) if c.name == "rule_id" else c, ignore_index=True
    )


@pytest.mark.parametrize(
    "filters",
    [Filters(), Filters(rubric="instruction_following"), Filters(date_from=dt.date(2026, 4, 13))],
    ids=["all", "one rubric", "last weeks"],
)
def test_rater_table_equals_the_row_at_a_time_table(demo, filters: Filters) -> None:
    rules = catalogue.rules()
    counts = run(demo, rates.counts_query(filters, results.source(demo)), [])
    want = rater_table_as_it_was(counts, rules)
    got = rates.rater_table(counts, rules)
    assert len(want) > 20 and want["difference_ci_low"].notna().any() and want["p_value"].notna().any()
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_no_contractor_rows_give_an_empty_table() -> None:
    empty = pd.DataFrame(columns=["rater_id", "role", "rule_id", "n_checked", "n_violations"])
    assert rates.rater_table(empty, catalogue.rules()).empty
