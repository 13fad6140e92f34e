"""Follow-ups on the demo (issue 53): the improvers truth.json names are credited and its non-improvers are not,
although a guideline change lifted the whole team in the same weeks; the Feedback page, the Overview's line, the
report card's mention and `followup --json` agree."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analytics.core.filters import Filters
from analytics.effects import markers
from analytics.feedback import followup as fu
from analytics.feedback import report as fr
from analytics.feedback.export import markdown as md_export
from tests.cli_helpers import run_cli
from tests.conftest import app_test

FEEDBACK = "app_pages/feedback.py"


@pytest.fixture(scope="module")
def followups(demo) -> pd.DataFrame:
    return fu.followups(demo)


def _agreement(followups: pd.DataFrame, truth: dict) -> pd.DataFrame:
    """The agreement follow-ups of the demo's planted feedback, by contractor."""
    planted = truth["feedback"]
    rows = followups[(followups["measure"] == "agreement") & (followups["rubric"] == planted["rubric"])]
    return rows.set_index("rater_id")


def test_the_improvers_are_credited_and_the_non_improvers_are_not(followups, truth):
    planted = truth["feedback"]
    rows = _agreement(followups, truth)
    assert set(rows.index) >= set(planted["improvers"]) | set(planted["non_improvers"])
    assert (rows.loc[planted["improvers"], "verdict"] == "improved").all(), rows.loc[planted["improvers"]]
    assert (rows.loc[planted["non_improvers"], "verdict"] != "improved").all(), rows.loc[planted["non_improvers"]]
    # the whole team moved: a naive before/after would credit the non-improvers too
    team = rows.loc[planted["non_improvers"], "team_change"]
    assert (team > 0.05).all()
    assert (rows.loc[planted["non_improvers"], "change"] > 0).all()
    assert set(rows.loc[planted["improvers"] + planted["non_improvers"], "dimension"]) == {planted["dimension"]}


def test_the_guideline_change_is_a_marker_of_the_demo(demo, truth):
    (change,) = truth["guideline_markers"]
    shown = markers.markers(demo)
    assert (pd.to_datetime(shown["marked_on"]).dt.date.astype(str) == change["marked_on"]).any()


def test_the_command_the_overview_and_the_report_card_agree(demo_store, demo, followups, truth):
    cli = json.loads(run_cli("followup", "--db", str(demo_store), "--json", check=True).stdout)["followups"]
    assert [(r["rater_id"], r["measure"], r["rubric"], r["verdict"]) for r in cli] == list(
        zip(followups["rater_id"], followups["measure"], followups["rubric"], followups["verdict"], strict=True)
    )
    assert [r["difference"] for r in cli] == pytest.approx(followups["difference"].tolist(), nan_ok=True)
    tally = fu.tally(followups)
    assert set(tally.improved) >= set(truth["feedback"]["improvers"])
    assert not set(tally.improved) & set(truth["feedback"]["non_improvers"])
    improver = truth["feedback"]["improvers"][0]
    rep = fr.feedback_report(demo, improver, Filters())
    mention = [h for h in rep.highlights if h.startswith("Last feedback follow-up:")]
    assert mention and mention[0].endswith("improved credibly.")
    assert mention[0] in md_export.to_markdown(rep, pd.Timestamp("2026-05-01").to_pydatetime()).replace("\\", "")


def test_the_feedback_page_and_the_overview_show_the_same_follow_ups(shared_app_store, followups, truth):
    improver = truth["feedback"]["improvers"][0]
    at = app_test()
    assert not at.exception, at.exception
    tally = fu.tally(followups)
    lines = [m.value.replace("\\", "") for m in at.markdown]
    assert any(line.startswith(tally.sentence) for line in lines), lines
    labels = {b.label.replace("\\", ""): b for b in at.button}
    (button,) = [
        b for label, b in labels.items() if f"({improver}): improved" in label or label == f"{improver}: improved"
    ]
    button.click().run()
    assert not at.exception, at.exception
    assert at.session_state["fb_contractor"] == improver
    shown = [m.value.replace("\\", "") for m in at.markdown]
    expected = fu.last_lines(fu.of_contractor(followups, improver))
    assert all(line in shown for line in expected), shown
    charts = at.get("arrow_vega_lite_chart") + at.get("vega_lite_chart")
    assert any("team (others, same days)" in c.proto.spec for c in charts)
