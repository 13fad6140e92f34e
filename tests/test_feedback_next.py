"""Who needs feedback next (analytics/feedback/next.py) and feedback events (analytics/feedback/events.py): the
ranking's order by its documented score, the sidebar's filters followed, contractors with too few tasks left out,
"waiting for follow-up" until the window closes, an empty store, and the events' record of who, when, which report
and which effects."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest

from analytics.core.filters import Filters
from analytics.feedback import events
from analytics.feedback import next as who_next
from analytics.ingest.load import ingest_bytes
from tests.conftest import ROOT

AC, UC = "answer_comparison", "usefulness_comparison"
DAY0 = dt.date(2026, 3, 2)
# rater -> (tasks, tasks agreeing with the researcher). c_low agrees on 16 of 40 (the other contractors' median is
# c_mid's 0.70, so c_low's whole interval lies below it); b_few has fewer tasks than the ranking needs.
RATERS = {"a_top": (40, 36), "b_few": (3, 1), "c_low": (40, 16), "c_mid": (40, 28)}
NOW = dt.datetime(2026, 5, 1, 12, 0)


def _csv(agree: dict[str, tuple[int, int]]) -> bytes:
    """Canonical CSV, task i dated DAY0 + i // 10 days: r1 rates every task "A better"; each contractor rates their
    first `tasks` tasks and agrees with r1 on the first `agreeing` of them."""
    lines = ["task_id,rater_id,role,rubric,dimension,target,value,submitted_at"]
    n = max(t for t, _ in agree.values())
    day = [f"{DAY0 + dt.timedelta(days=i // 10)}T10:00:00" for i in range(n)]
    lines += [f"t{i},r1,researcher,{AC},{UC},comparison,A better,{day[i]}" for i in range(n)]
    for rater, (tasks, agreeing) in agree.items():
        for i in range(tasks):
            value = "A better" if i < agreeing else "B better"
            lines.append(f"t{i},{rater},contractor,{AC},{UC},comparison,{value},{day[i]}")
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def team(con):
    """The store holding RATERS' ratings."""
    result = ingest_bytes(con, _csv(RATERS), "ratings.csv")
    assert result.status == "loaded" and result.rows_quarantined == 0, result.errors
    return con


NO_FILTERS = Filters()
NO_ALARMS = pd.DataFrame({"kind": [], "rater_id": [], "acknowledged": []})
NO_RULES = pd.DataFrame({"rater_id": [], "rule_id": [], "n_violations": [], "flagged": []})


def _order(con, filters=NO_FILTERS, alerts=NO_ALARMS, rules=NO_RULES, now=NOW) -> list[str]:
    ranking = who_next.ranking(con, filters, alerts, rules, n_boot=200)
    return who_next.with_events(ranking, events.last_events(con), now)["rater_id"].tolist()


def test_agreement_below_the_team_ranks_first_and_too_few_tasks_are_left_out(team):
    ranking = who_next.ranking(team, Filters(), NO_ALARMS, NO_RULES, n_boot=200)
    assert ranking.too_few == ("b_few",)
    rows = who_next.with_events(ranking, events.last_events(team), NOW)
    assert rows["rater_id"].tolist() == ["c_low", "c_mid", "a_top"]  # then the lower agreement bound
    low = rows.iloc[0]
    assert low["score"] == who_next.AGREEMENT_WEIGHT and low["alarms"] == 0 and low["alarm_reason"] == ""
    assert low["reason"].startswith("Not an alarm: agreement with researchers on ")
    assert "under the other contractors' median of 70%" in low["reason"]
    assert rows["rank"].tolist() == [1, 2, 3] and (rows["n_tasks"] == 40).all()


def test_an_open_alarm_outranks_agreement_and_a_rule_broken_without_alarm_counts_one(team):
    alerts = pd.DataFrame(
        {"kind": ["haste", "ties"], "rater_id": ["a_top", "c_mid"], "acknowledged": [False, True]}
    )  # c_mid's alarm is acknowledged: it no longer counts
    rules = pd.DataFrame(
        {"rater_id": ["c_mid", "c_mid"], "rule_id": ["r_a", "r_b"], "n_violations": [2, 0], "flagged": [False, False]}
    )
    ranking = who_next.ranking(team, Filters(), alerts, rules, n_boot=200)
    rows = who_next.with_events(ranking, events.last_events(team), NOW).set_index("rater_id")
    assert rows.index.tolist() == ["a_top", "c_low", "c_mid"]
    assert rows.loc["a_top", "score"] == who_next.ALARM_WEIGHT
    assert rows.loc["a_top", "reason"] == rows.loc["a_top", "alarm_reason"] == "1 alarm: haste on 1 dimension."
    assert rows.loc["a_top", "other_reason"].startswith("Not an alarm: nothing stands out")
    assert rows.loc["c_mid", "score"] == 1
    assert rows.loc["c_mid", "reason"] == (
        "Not an alarm: broke 1 rubric rule at least once, no more often than the team."
    )
    assert not any("alarm" in r.lower().removeprefix("not an alarm") for r in rows["other_reason"])


def test_the_list_follows_the_raters_role_and_date_filters(team):
    assert _order(team, Filters(raters=("a_top", "c_mid", "r1"))) == ["c_mid", "a_top"]
    assert _order(team, Filters(roles=("researcher",))) == []
    whole = who_next.ranking(team, NO_FILTERS, NO_ALARMS, NO_RULES, n_boot=200)
    for f in (
        Filters(raters=("a_top", "c_mid", "b_few")),
        Filters(roles=("researcher",)),
        Filters(roles=("contractor",)),
    ):
        narrow, direct = who_next.narrowed(whole, f), who_next.ranking(team, f, NO_ALARMS, NO_RULES, n_boot=200)
        pd.testing.assert_frame_equal(narrow.ranked, direct.ranked, check_dtype=False, check_index_type=False)
        assert narrow.too_few == direct.too_few, f
    assert who_next.emptied_by(team, Filters(roles=("researcher",))) == ("roles",)
    assert who_next.emptied_by(team, Filters(raters=("r1",))) == ("raters",)
    assert who_next.emptied_by(team, Filters(rubric="preference_ranking")) == ("rubric",)
    # the first 20 tasks (two days): 20 tasks each, under MIN_TASKS: nobody ranked, every contractor listed as too few
    two_days = Filters(date_to=DAY0 + dt.timedelta(days=1))
    ranking = who_next.ranking(team, two_days, NO_ALARMS, NO_RULES, n_boot=200)
    assert ranking.ranked.empty and set(ranking.too_few) == set(RATERS)
    assert who_next.listed(team, two_days) == sorted(RATERS)
    assert who_next.emptied_by(team, Filters(date_from=DAY0 + dt.timedelta(days=30))) == ("dates",)


def test_a_contractor_sent_feedback_waits_for_follow_up_until_the_window_closes(team):
    sent = NOW - dt.timedelta(days=2)
    event = events.record(team, "c_low", "lead@lab.org", "feedback_c_low", ["Ties"], Filters(rubric=AC), at=sent)
    assert event.dataset_version > 0
    rows = who_next.with_events(
        who_next.ranking(team, Filters(), NO_ALARMS, NO_RULES, n_boot=200), events.last_events(team), NOW
    )
    assert rows["rater_id"].tolist() == ["c_mid", "a_top", "c_low"]  # waiting: listed after the others
    low = rows.set_index("rater_id").loc["c_low"]
    assert low["waiting"] and low["last_feedback"] == pd.Timestamp(sent) and low["last_feedback_by"] == "lead@lab.org"
    closes = sent + dt.timedelta(days=who_next.FOLLOW_UP_DAYS)
    assert who_next.status(low) == f"Waiting for follow-up until {closes.date()} (sent {sent.date()})"
    assert _order(team, now=closes + dt.timedelta(seconds=1))[0] == "c_low"  # the window closed: ranked again
    assert who_next.status(rows.set_index("rater_id").loc["a_top"]) == "No feedback recorded"


def test_an_event_records_who_when_which_report_and_its_effects(team):
    first = NOW - dt.timedelta(days=20)
    events.record(team, "c_low", "lead@lab.org", "feedback_c_low_old", [], Filters(), at=first)
    events.record(
        team, "c_low", " ana@lab.org ", "feedback_c_low", ["Ties", "Haste"], Filters(rubric=AC, date_from=DAY0), at=NOW
    )
    everything = events.events(team)
    assert everything["report"].tolist() == ["feedback_c_low_old", "feedback_c_low"]
    (last,) = events.last_events(team).to_dict("records")
    assert last["sent_by"] == "ana@lab.org" and last["sent_at"] == pd.Timestamp(NOW)
    assert (
        list(last["effects"]) == ["Ties", "Haste"]
        and last["rubric"] == AC
        and pd.Timestamp(last["date_from"]).date() == DAY0
    )
    with pytest.raises(ValueError, match="needs who sent it"):
        events.record(team, "c_low", "  ", "feedback_c_low", [], Filters())
    assert len(events.events(team)) == 2


def test_an_empty_store_ranks_nobody(con):
    ranking = who_next.ranking(con, Filters())
    assert ranking.ranked.empty and ranking.too_few == ()
    assert who_next.with_events(ranking, events.last_events(con), NOW).empty
    assert who_next.listed(con, Filters()) == [] and who_next.emptied_by(con, Filters(rubric=AC)) == ()
    assert events.events(con).empty


def test_docs_give_the_score_and_the_follow_up_window_the_code_uses():
    text = " ".join((ROOT / "docs" / "feedback.md").read_text(encoding="utf-8").split())  # lines joined
    assert f"in the last {who_next.FOLLOW_UP_DAYS} days" in text and "(`feedback.next.FOLLOW_UP_DAYS`)" in text
    for weight in (who_next.ALARM_WEIGHT, who_next.AGREEMENT_WEIGHT, 1):
        assert f" | {weight} |" in text
    assert f"(at most {who_next.RULES_CAP})" in text and f"at least {who_next.MIN_TASKS} tasks" in text
    assert "migration 18" in text and "feedback_events" in text


def _alarms(*rows: tuple[str, bool]) -> pd.DataFrame:
    """Open (False) or acknowledged (True) alarms of the named contractors."""
    return pd.DataFrame(
        {"kind": ["haste"] * len(rows), "rater_id": [r for r, _ in rows], "acknowledged": [a for _, a in rows]}
    )


def test_the_likely_first_is_the_one_with_strictly_the_most_open_alarms(team):
    """who_next.likely_first (the contractor whose figures the page computes while it ranks) is the ranking's first
    when one contractor has the most open alarms; none when several share the most."""
    alerts = _alarms(("a_top", False), ("a_top", False), ("c_mid", False), ("c_low", True), ("c_low", True))
    last = events.last_events(team)
    first = who_next.likely_first(alerts, NO_FILTERS, last, NOW)
    assert first == "a_top" == _order(team, alerts=alerts)[0]
    assert who_next.likely_first(alerts, Filters(raters=("c_mid", "c_low")), last, NOW) == "c_mid"
    assert who_next.likely_first(alerts, Filters(roles=("researcher",)), last, NOW) is None
    assert who_next.likely_first(_alarms(("a_top", False), ("c_mid", False)), NO_FILTERS, last, NOW) is None
    assert who_next.likely_first(NO_ALARMS, NO_FILTERS, last, NOW) is None
    events.record(team, "a_top", "lead@lab.org", "feedback_a_top", [], Filters(), at=NOW - dt.timedelta(days=1))
    waiting = events.last_events(team)
    assert who_next.likely_first(alerts, NO_FILTERS, waiting, NOW) == "c_mid" == _order(team, alerts=alerts)[0]
