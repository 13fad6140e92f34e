"""The alarm layer (analytics/alarms): the one step-up rule against its paper and statsmodels, the rule test
against scipy's Fisher exact test, steady and planted simulated teams (bench/bench_alarms.py's, few of them: the
budget's own figures are the benchmark's), acknowledgements, and `alerts --json` listing exactly what the
Overview shows under the same filters."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact
from statsmodels.stats.multitest import multipletests

from analytics import store
from analytics.alarms import acks, budget
from analytics.alarms.review import ALERT_COLUMNS, review
from analytics.core import significance
from analytics.core.filters import Filters
from tests.cli_helpers import run_cli
from tests.conftest import app_test

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import bench_alarms  # noqa: E402


def _rejected(p: np.ndarray, rate: float) -> np.ndarray:
    """Which p-values the review's rule alarms on at this rate."""
    return p <= budget.discovery_threshold(p, rate)


def test_step_up_rule_on_the_papers_example():
    """Benjamini & Hochberg 1995, section 4.1: 15 p-values of a trial at q = 0.05; the step-up rule rejects the
    four smallest (Bonferroni, 0.05 / 15 = 0.0033, only three)."""
    p = np.array([0.0201, 0.0001, 0.0004, 0.0019, 0.0095, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719,
                  0.6528, 0.7590, 1.000])  # fmt: skip
    assert sorted(p[_rejected(p, 0.05)]) == [0.0001, 0.0004, 0.0019, 0.0095]


def test_step_up_rule_equals_statsmodels():
    """The same rejections as statsmodels' fdr_bh on mixtures of true and false nulls, NaN left out."""
    rng = np.random.default_rng(48)
    for _ in range(50):
        p = np.concatenate([rng.random(200), rng.random(rng.integers(0, 20)) * 1e-4])
        want = multipletests(p, alpha=budget.DISCOVERY_RATE, method="fdr_bh")[0]
        assert (_rejected(np.append(p, np.nan), budget.DISCOVERY_RATE)[:-1] == want).all()
    assert not _rejected(np.array([0.5, 0.9]), 0.08).any() and budget.discovery_threshold(np.array([])) < 0


def test_rule_test_is_fishers_exact_and_needs_no_floor():
    """scipy's one-sided Fisher test; 23 breaks in 23 against the team's 11.4% is credible, 2 in 2 is not."""
    assert significance.fisher_p_value(7, 20, 30, 400) == pytest.approx(
        fisher_exact([[7, 13], [30, 370]], alternative="greater").pvalue
    )
    assert significance.fisher_p_value(23, 23, 46, 404) < 1e-15
    assert significance.fisher_p_value(2, 2, 46, 404) > 0.01


def test_steady_teams_see_almost_no_alarm_and_planted_habits_are_found():
    """Simulated as the benchmark does (40 contractors, 26 weeks of 10 tasks, about 2,000 tests a review): 8
    steady teams see at most 1 alarm in all (the benchmark measures about 0.01 a review over 200); a planted
    lenient contractor (half a scale point) and rule breaker (15% against 5%) are found."""
    rng = np.random.default_rng(7)
    steady = [bench_alarms.review_once(rng, 26, 10) for _ in range(8)]
    assert steady[0]["tests"] > 1500 and sum(r["alarms"] for r in steady) <= 1
    for kind in ("leniency", "rule"):
        assert sum(bench_alarms.review_once(rng, 26, 10, kind)["found"] for _ in range(3)) >= 2, kind


@pytest.fixture(scope="module")
def demo_review(demo):
    """The demo's review under no filter."""
    return review(demo)


def test_demo_alarms_are_the_planted_contractors_each_by_its_kind(demo_review, truth):
    """Every planted contractor has an alarm of its own kind; no typical or careful contractor has any."""
    kinds = {"lenient": "leniency", "severe": "severity", "always_equal": "ties", "first_position": "position_bias",
             "fast_careless": "haste", "drifting": "drift"}  # fmt: skip
    alerts = demo_review.alerts
    for behaviour, kind in kinds.items():
        for rater in truth["behaviours"][behaviour]["raters"]:
            assert ((alerts["rater_id"] == rater) & (alerts["kind"] == kind)).any(), (rater, kind)
    quiet = {r for r, v in truth["raters"].items() if v.get("behaviour") in ("typical", "careful")}
    assert not set(alerts["rater_id"]) & quiet
    assert list(alerts.columns) == list(ALERT_COLUMNS)
    assert set(demo_review.power["kind"]) == set(budget.KINDS)


def test_alerts_json_is_the_reviews_list_under_the_same_filters(demo_store, demo_review):
    """`alerts --json`: the contract's keys, every alarm of the review; --rater and --rubric narrow the list the
    way the pages' filters do; exit 2 on a bad date."""
    out = json.loads(run_cli("alerts", "--db", str(demo_store), "--json", check=True).stdout)
    assert set(out) == {"alerts", "budget", "power"}
    assert out["budget"]["false_alarms_per_review"] == budget.FALSE_ALARMS_PER_REVIEW
    assert list(out["alerts"][0])[:9] == ["kind", "rater_id", "rubric", "dimension", "since", "estimate",
                                          "estimate_ci_low", "estimate_ci_high", "detail"]  # fmt: skip
    listed = [(a["kind"], a["rater_id"], a["rubric"], a["dimension"]) for a in out["alerts"]]
    a = demo_review.alerts
    assert listed == list(zip(a["kind"], a["rater_id"], a["rubric"], a["dimension"], strict=True))
    assert {p["kind"] for p in out["power"]} == set(budget.KINDS)
    assert {"kind", "effect_size", "unit", "n", "detection_rate"} <= set(out["power"][0])
    one = json.loads(run_cli("alerts", "--db", str(demo_store), "--json", "--rater", "c06", check=True).stdout)
    assert [x for x in out["alerts"] if x["rater_id"] == "c06"] == one["alerts"]
    assert run_cli("alerts", "--db", str(demo_store), "--from", "2026-13-01").returncode == 2


def test_the_overview_lists_what_alerts_prints(shared_app_store, demo_store):
    """The Overview's alarm table under the sidebar's default filters holds the rows `alerts --json` prints."""
    at = app_test()
    assert not at.exception, at.exception
    shown = next(t.value for t in at.dataframe if {"kind", "detail", "acknowledged"} <= set(t.value.columns))
    out = json.loads(run_cli("alerts", "--db", str(demo_store), "--json", check=True).stdout)["alerts"]
    assert list(zip(shown["kind"], shown["rater_id"], shown["dimension"], strict=True)) == [
        (x["kind"], x["rater_id"], x["dimension"]) for x in out
    ]


def test_an_acknowledged_alarm_leaves_the_headline_and_stays_listed(demo_store, tmp_path):
    """A lead acknowledges c06's drift alarm (who and why kept); it leaves the headline, stays in the list and in
    `alerts --json` marked; withdrawn, it is back. No name or no reason is refused."""
    path = tmp_path / "acks.duckdb"
    path.write_bytes(demo_store.read_bytes())
    con = store.open_store(path)
    first = review(con)
    drift = first.alerts[(first.alerts["kind"] == "drift") & (first.alerts["rater_id"] == "c06")].iloc[0]
    key = (str(drift["kind"]), str(drift["rater_id"]), str(drift["rubric"]), str(drift["dimension"]))
    with pytest.raises(ValueError, match="reason"):
        acks.acknowledge(con, *key, by="Lee", reason=" ")
    acks.acknowledge(con, *key, by="Lee", reason="talked to them on Monday")
    after = review(con)
    assert len(after.alerts) == len(first.alerts) and len(after.headline) == len(first.headline) - 1
    row = after.alerts[(after.alerts["rater_id"] == "c06") & (after.alerts["rubric"] == key[2])]
    row = row[row["kind"] == "drift"].iloc[0]
    assert (row["acknowledged"], row["acknowledged_by"], row["reason"]) == (True, "Lee", "talked to them on Monday")
    acks.withdraw(con, *key)
    assert len(review(con).headline) == len(first.headline)
    con.close()
    out = review(store.open_store(path, read_only=True), Filters(raters=("c06",))).alerts
    assert isinstance(out, pd.DataFrame) and not out["acknowledged"].any()


def test_a_lead_acknowledges_an_alarm_on_the_overview(app_store):
    """Through the Overview's form: the chosen alarm leaves the headline, is listed as acknowledged with who and
    why, and the same form withdraws it; without a reason nothing is recorded."""
    at = app_test()
    table = next(t.value for t in at.dataframe if {"kind", "detail", "acknowledged"} <= set(t.value.columns))
    first = table.iloc[0]
    at.selectbox(key="ov_alarms_pick").set_value(0)
    at.text_input(key="concord_local_name").input("Lee")  # the name given once, in the sidebar
    at.button(key="ov_alarms_ack").click().run()
    assert any("Not recorded: an acknowledgement needs a reason" in i.value.replace("\\", "") for i in at.info)
    at.text_input(key="ov_alarms_why").input("talked to them on Monday")
    at.button(key="ov_alarms_ack").click().run()
    assert not at.exception, at.exception
    assert any("Acknowledged" in i.value for i in at.info)
    assert any(
        "Acknowledged (out of the headline)" in c.value and "talked to them on Monday" in c.value.replace("\\", "")
        for c in at.caption
    )
    listed = next(t.value for t in at.dataframe if {"kind", "detail", "acknowledged"} <= set(t.value.columns))
    row = listed[(listed["kind"] == first["kind"]) & (listed["rater_id"] == first["rater_id"])]
    row = row[row["dimension"] == first["dimension"]].iloc[0]
    assert (bool(row["acknowledged"]), row["acknowledged_by"]) == (True, "Lee")
    at.selectbox(key="ov_alarms_pick").set_value(0)
    at.button(key="ov_alarms_ack").click().run()
    assert any("withdrawn" in i.value for i in at.info)
