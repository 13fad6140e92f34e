"""Rule results kept per submission and violation rates with the flag rule (analytics/consistency), on a rule made
for the test: which submissions it checks and breaks is set here, so every count and flag is known."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact

from analytics import store
from analytics.agreement import intervals as iv
from analytics.alarms import budget
from analytics.consistency import catalogue, rates, results
from analytics.core import significance, stats
from analytics.core.filters import Filters
from analytics.core.rater_ids import is_anonymous

RUBRIC = "answer_comparison"
START = dt.datetime(2026, 3, 2, 9)


def _breaks(con) -> pd.DataFrame:
    """The test rule: every rated submission is checked; it is broken where the comment says 'break'."""
    df = con.execute(
        """SELECT submission_id, coalesce(comment = 'break', false) AS violated,
                  CASE WHEN comment = 'break' THEN 'said break' ELSE '' END AS detail
           FROM submissions WHERE rubric = $rubric AND status = 'rated'""",
        {"rubric": RUBRIC},
    ).df()
    return df


TEST_RULE = catalogue.Rule("test_no_break", RUBRIC, 'A comment never says "break".', ("submissions.comment",), _breaks)
REPORTED = catalogue.Rule("test_reported", RUBRIC, "Reported only.", ("submissions.comment",), _breaks, flags=False)


@pytest.fixture
def con(monkeypatch):
    monkeypatch.setattr(catalogue, "rules", lambda: (TEST_RULE, REPORTED))
    c = store.open_store(":memory:")
    # (rater, role, submissions, broken): c01 breaks half of 40; c02-c04 never; c05 breaks 8 of 10 (small n);
    # the researcher breaks some too (researchers are in the rule counts, never in the contractors' rates).
    plan = [("c01", "contractor", 40, 20), ("c02", "contractor", 40, 0), ("c03", "contractor", 40, 0)]
    plan += [("c04", "contractor", 40, 1), ("c05", "contractor", 10, 8), ("r1", "researcher", 40, 10)]
    rows = []
    for rater, role, n, broken in plan:
        for i in range(n):
            rows.append(
                (
                    f"{rater}-{i}",
                    f"t{i}",
                    RUBRIC,
                    rater,
                    role,
                    "rated",
                    START + dt.timedelta(days=i % 14),
                    "break" if i < broken else "ok",
                    1,
                )
            )
    c.executemany(
        """INSERT INTO submissions (submission_id, task_id, rubric, rater_id, role, status, submitted_at, comment,
                                    ingest_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        rows,
    )
    return c


def test_newcombe_reference_example():
    """Newcombe (1998), Statistics in Medicine 17:873-890, Table II example (56/70 vs 48/80), method 10: the
    difference 0.2000 has the interval 0.0524 to 0.3339."""
    lo, hi = iv.newcombe(48 / 80, 80, 56 / 70, 70)
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)


def test_rates_counts_and_the_flag_rule(con):
    found = rates.consistency(con)
    rules = found.rules.set_index("rule_id")
    # Every role counts in the rule table: 40+40+40+40+10+40 checked, 20+0+0+1+8+10 broken.
    assert rules.loc["test_no_break", ["n_checked", "n_violations"]].tolist() == [210, 39]
    raters = found.raters[found.raters["rule_id"] == "test_no_break"].set_index("rater_id")
    assert "r1" not in raters.index  # researchers are not rated here
    c01 = raters.loc["c01"]
    assert (c01["n_checked"], c01["n_violations"], c01["rate"]) == (40, 20, 0.5)
    assert (c01["rate_ci_low"], c01["rate_ci_high"]) == pytest.approx(stats.wilson(0.5, 40))
    # The team of c01 is the other contractors pooled: 9 broken of 130.
    assert (c01["team_rate"], c01["team_checked"]) == (pytest.approx(9 / 130), 130)
    assert (c01["difference_ci_low"], c01["difference_ci_high"]) == pytest.approx(iv.newcombe(9 / 130, 130, 0.5, 40))
    # The alarm test is Fisher's exact one-sided test against the rest of the team (scipy's fisher_exact, an
    # independent implementation); `flagged` waits for the review's one rule over every test.
    others_n, others_v = 130, 9
    expected = fisher_exact([[20, 20], [others_v, others_n - others_v]], alternative="greater").pvalue
    assert c01["p_value"] == pytest.approx(expected)
    assert not found.raters["flagged"].any()
    # Under the review's rule (here over these tests alone): c01 and c05, whose 8 of 10 is small n (under
    # MIN_TASKS checked, said beside it) but credible: the test needs no floor. c04's one slip is within the team.
    threshold = budget.discovery_threshold(found.raters["p_value"].to_numpy(dtype=float))
    alarmed = raters.index[raters["p_value"] <= threshold].tolist()
    assert alarmed == ["c01", "c05"] and bool(raters.loc["c05", "small_n"])
    # A rule that only reports is never tested, whatever the rate.
    assert found.raters[found.raters["rule_id"] == "test_reported"]["p_value"].isna().all()


def test_violations_and_the_payload(con):
    found = rates.consistency(con, Filters(raters=("c05",)))
    # c05 breaks 8 submissions, each counted by both rules.
    assert len(found.violations) == 2 * 8 and set(found.violations["detail"]) == {"said break"}
    assert set(found.violations["rater_id"]) == {"c05"}
    payload = rates.contract_payload(rates.consistency(con))
    assert set(payload) == {"rules", "raters", "violations"}
    assert set(payload["raters"][0]) == {
        "rater_id",
        "rule_id",
        "n_checked",
        "n_violations",
        "rate",
        "rate_ci_low",
        "rate_ci_high",
        "flagged",
    }
    assert {v["rule_id"] for v in payload["violations"]} == {"test_no_break", "test_reported"}
    assert set(payload["violations"][0]) == {"rule_id", "rater_id", "task_id", "detail"}


def test_weekly_share_counts_each_submission_once_over_flagging_rules(con):
    weekly = rates.consistency(con).weekly
    assert weekly["n_checked"].sum() == 210 and weekly["n_violating"].sum() == 39
    row = weekly.iloc[0]
    assert row["share"] == pytest.approx(row["n_violating"] / row["n_checked"])
    assert (row["share_ci_low"], row["share_ci_high"]) == pytest.approx(stats.wilson(row["share"], row["n_checked"]))


def test_results_are_kept_and_checked_again_when_the_rules_change(con, monkeypatch):
    assert not results.is_current(con)
    assert results.source(con) == "rule_results" and results.is_current(con)
    assert con.execute("SELECT count(*) FROM rule_results").fetchall()[0][0] == 2 * 210
    # Another rule set (a new version of the code): the kept results are outdated and computed again.
    monkeypatch.setattr(catalogue, "rules", lambda: (TEST_RULE,))
    assert not results.is_current(con)
    results.source(con)
    assert con.execute("SELECT DISTINCT rule_id FROM rule_results").fetchall() == [("test_no_break",)]


def test_a_read_only_store_computes_without_writing(con, tmp_path, monkeypatch):
    path = tmp_path / "store.duckdb"
    con.execute(f"ATTACH '{path}' AS copy")
    con.execute("COPY FROM DATABASE memory TO copy")
    con.execute("DETACH copy")
    ro = store.open_store(path, read_only=True)
    assert not results.is_current(ro)
    assert results.source(ro) == results.FOUND
    assert ro.execute("SELECT count(*) FROM rule_results").fetchall()[0][0] == 0
    assert len(rates.consistency(ro).violations) == 2 * 39


def test_the_vectorised_p_values_equal_one_fisher_test_per_row(demo_store):
    """rater_table's p-values (one vectorised call, issue 50 item 9) are significance.fisher_p_value of each row to
    the last bit, on the demo's rules and on counts with the edge cases: a contractor alone on a rule (no team), a
    rule that only reports (no test), nothing broken, everything broken."""
    con = store.open_store(demo_store, read_only=True)
    demo = rates.counts_query(Filters(), results.source(con)).df(con)
    con.close()
    edges = pd.DataFrame(
        [
            ("c01", "contractor", "test_no_break", 12, 12),
            ("c02", "contractor", "test_no_break", 30, 0),
            ("c03", "contractor", "test_no_break", 1, 1),
            ("c01", "contractor", "test_reported", 5, 2),
            ("c02", "contractor", "test_reported", 9, 1),
            ("c09", "contractor", "test_alone", 7, 3),
        ],
        columns=["rater_id", "role", "rule_id", "n_checked", "n_violations"],
    )
    alone = catalogue.Rule("test_alone", RUBRIC, "One contractor only.", ("submissions.comment",), _breaks)
    for counts, rules in ((demo, catalogue.rules()), (edges, (TEST_RULE, REPORTED, alone))):
        table = rates.rater_table(counts, rules)
        flags = {r.rule_id: r.flags for r in rules}
        expected = [
            significance.fisher_p_value(int(r.n_violations), int(r.n_checked), int(tv), int(r.team_checked))
            if flags[r.rule_id]
            else math.nan
            for r, tv in zip(table.itertuples(), _team_violations(counts, table), strict=True)
        ]
        got = table["p_value"].to_numpy()
        assert np.array_equal(got, np.array(expected), equal_nan=True)
        assert np.isfinite(got).any() and np.isnan(got).any()


def _team_violations(counts: pd.DataFrame, table: pd.DataFrame) -> list[int]:
    """Each row's team violations: the rule's other named contractors' (from the counts, not from the rates)."""
    people = counts[(counts["role"] == "contractor") & ~counts["rater_id"].map(is_anonymous)]
    totals = people.groupby("rule_id")["n_violations"].sum()
    return [int(totals[r]) - int(v) for r, v in zip(table["rule_id"], table["n_violations"], strict=True)]
