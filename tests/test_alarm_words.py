"""Alarm lines a lead reads at a glance (issue 50, "Words"): each kind says what was measured in plain units
(percentage points, levels of the scale, a share of the median time) against the rest of the team, never a bare
figure with its column's unit in brackets ("Drift: 0.159 (agreement) against the rest of the team's -0.00864");
one function words an alarm for the Overview, the Feedback page, report cards and the `alerts` command; the
`demo --load` lines count the directory in people."""

from __future__ import annotations

import argparse
import re

import pandas as pd
import pytest

from analytics.alarms import contract
from analytics.alarms.review import review
from analytics.alarms.words import alarm_line, effect_detail, rule_detail
from analytics.cli import first_run
from analytics.cli.demo import load_lines
from analytics.cli.ingest import here_or_hand_over
from analytics.core.formatting import levels, points
from analytics.effects import drift
from analytics.feedback.export import display
from ui import alarm_panel

RAW_FIGURE = re.compile(r"\d\.\d{3}|\((agreement|levels|share|duration ratio|share of the scale)\)|team's -?\d")


@pytest.mark.parametrize(
    ("difference", "words"),
    [
        (0.11, "11 percentage points above the team's"),
        (-0.13, "13 percentage points below the team's"),
        (0.01, "1 percentage point above the team's"),
        (0.004, "level with the team's"),
    ],
)
def test_a_share_difference_is_said_in_percentage_points(difference, words):
    assert points(difference, "the team's") == words


def test_a_scale_difference_is_said_in_levels():
    assert levels(-0.714, "the researchers") == "0.71 levels below the researchers"
    assert levels(0.001, "them") == "level with them"


@pytest.mark.parametrize(
    ("effect", "own", "team", "basis", "said"),
    [
        ("drift", 0.159, -0.00864, "consensus", "in the last 3 weeks: 16 percentage points below the 6 weeks before"),
        ("leniency", 1.12, -0.562, "consensus", "Rated 1.12 levels above the other contractors on the same items"),
        ("severity", -0.71, 0.02, "researchers", "Rated 0.71 levels below the researchers on the same items"),
        ("central_tendency", 0.92, 0.57, "own ratings", "92% of their ratings at the scale's inner levels"),
        ("ties", 0.94, 0.28, "own ratings", "Called 94% of their comparisons a tie, 66 percentage points above"),
        ("position_bias", 0.92, 0.56, "display order", "won 92% of their decided comparisons, 36 percentage points"),
        ("halo", 0.05, 0.2, "own ratings", "spread over 5% of the scale across its dimensions"),
        ("haste", 0.12, 1.18, "durations", "Took 12% of the rubric's median time per submission"),
    ],
)
def test_each_effect_alarm_says_its_unit_and_the_team(effect, own, team, basis, said):
    text = effect_detail(effect, own, team, 40, basis, "")
    assert said in text
    assert "the rest of the team" in text and "over 40 tasks." in text
    assert not RAW_FIGURE.search(text), text


def test_the_drift_line_says_the_rest_of_the_team_in_points():
    text = effect_detail("drift", 0.159, -0.00864, 82, "consensus", "")
    assert "(the rest of the team: 1 percentage point above the 6 weeks before)" in text
    assert "each week measured against the team's that same week" in text


def test_a_rule_alarm_says_points_above_the_team():
    text = rule_detail("Rank them from best to worst", 5, 20, 0.03)
    assert text == (
        'Broke the rule "Rank them from best to worst" on 5 of 20 submissions (25%), 22 percentage points above the '
        "rest of the team (3%)."
    )


def test_the_drift_window_evidence_says_points_against_the_team_week():
    text = drift.window_words(-0.01, -0.15, pd.Timestamp("2026-04-06"), 52, 30)
    assert text == (
        "Their agreement with the other contractors was 1 percentage point below the team's in the 6 weeks before "
        "06 Apr 2026 (52 tasks) and 15 percentage points below the team's in the 3 weeks since (30 tasks)."
    )


def test_the_demo_alarms_read_in_words_and_the_cli_uses_the_same_line(demo):
    """Every alarm of the demo's review: no raw figure, its since day, the same line on the pages' evidence list,
    a report card and the `alerts` command."""
    found = review(demo)
    alerts = found.alerts
    assert set(alerts["kind"]) >= {"drift", "rule", "severity", "haste"}
    listed = alarm_panel.evidence_list(alerts, str).replace("\\", "")
    for a in alerts.itertuples(index=False):
        line = alarm_line(a)
        assert not RAW_FIGURE.search(line), line
        assert f" since {pd.Timestamp(a.since).strftime('%d %b %Y')}: " in line
        assert line in listed
        assert display.alert_line(a) == line  # not acknowledged: the card's line is the pages' line
    printed = contract.text(contract.payload(found))
    for a in alerts.itertuples(index=False):
        assert f"  {a.rater_id}: {alarm_line(a)}" in printed


def test_demo_load_counts_the_directory_in_people(demo_inputs, empty_store, tmp_path, monkeypatch, capsys):
    """`demo --load`'s lines (load_lines, from the ingest payload) say people for the directory and ratings with
    quarantine for the others, as the first start does; never "44 loaded"."""
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(demo_inputs))
    plan = first_run.demo_plan()
    chosen = [plan[0], plan[-2]]  # the directory and the file with rows set aside (the feedback log is last)
    db = tmp_path / "store.duckdb"
    db.write_bytes(empty_store.read_bytes())
    load = argparse.Namespace(db=str(db), files=[str(f.path) for f in chosen], format="auto", role=None, scales=None)
    payload = here_or_hand_over(load, [None, None])
    lines = load_lines(chosen, payload)
    assert lines[0] == f"raters.csv: loaded, {payload['files'][0]['rows_loaded']} people"
    assert lines[1].startswith(f"{chosen[1].path.name}: loaded, ")
    assert "ratings" in lines[1] and "rows set aside in quarantine" in lines[1]
    assert not any(re.search(r"\d loaded", line) for line in lines)
