"""Overview's submission figures (the status chart and the incomplete count) follow the sidebar's rubric, role,
rater and date filters, like its rating figures (issue #12, part 5); article Likert files, which carry no dates,
are dated at load (docs/formats.md section 5)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from analytics.core.filters import Filters
from analytics.describe import overview
from analytics.ingest.load import ingest_bytes

UTC = dt.UTC


def _topics(scores: list[int]) -> bytes:
    """An article Likert file: one topic per score, all three predictions scored it (0: not annotated yet)."""
    topics = [
        {
            "topic": f"topic {i}",
            "reference": f"reference text {i}",
            "first_prediction": "a",
            "second_prediction": "b",
            "third_prediction": "c",
            "best_prediction_reference": "first_prediction" if s else "",
            "best_prediction_topic": "first_prediction" if s else "",
            "first_prediction_likert": s,
            "second_prediction_likert": s,
            "third_prediction_likert": s,
        }
        for i, s in enumerate(scores, start=1)
    ]
    return json.dumps(topics).encode()


@pytest.fixture
def loaded(con):
    """Three annotators: annotator_3 finished (2 March), annotator_4 (16 March) and annotator_5 (20 March) each
    left two of their four topics unscored (incomplete submissions)."""
    files = [
        ("preference_json_3_completed.json", [4, 3, 5, 2], dt.datetime(2026, 3, 2, 10, tzinfo=UTC)),
        ("preference_json_4_completed.json", [4, 3, 0, 0], dt.datetime(2026, 3, 16, 10, tzinfo=UTC)),
        ("preference_json_5_completed.json", [2, 2, 0, 0], dt.datetime(2026, 3, 20, 10, tzinfo=UTC)),
    ]
    results = [ingest_bytes(con, _topics(scores), name, undated_at=when) for name, scores, when in files]
    assert [r.status for r in results] == ["loaded"] * 3, [r.errors for r in results]
    return con, results


def _status(con, filters: Filters) -> dict[str, int]:
    df = overview.submission_status(con, filters)
    return dict(zip(df["status"], df["submissions"], strict=True))


def test_incomplete_count_and_status_chart_follow_the_rater_filter(loaded):
    con, _ = loaded
    assert overview.summary(con, Filters()).incomplete_submissions == 4
    assert _status(con, Filters()) == {"rated": 8, "incomplete": 4}
    only_4 = Filters(raters=("annotator_4",))
    assert overview.summary(con, only_4).incomplete_submissions == 2
    assert _status(con, only_4) == {"rated": 2, "incomplete": 2}
    assert _status(con, Filters(raters=("annotator_3",))) == {"rated": 4}


def test_incomplete_count_and_status_chart_follow_the_date_filter(loaded):
    con, _ = loaded
    late = Filters(date_from=dt.date(2026, 3, 18))  # annotator_5's file only
    assert overview.summary(con, late).incomplete_submissions == 2
    assert _status(con, late) == {"rated": 2, "incomplete": 2}
    early = Filters(date_to=dt.date(2026, 3, 8))  # annotator_3's file only
    assert overview.summary(con, early).incomplete_submissions == 0
    assert _status(con, early) == {"rated": 4}


def test_incomplete_count_and_status_chart_follow_the_role_and_rubric_filters(loaded):
    con, _ = loaded
    assert overview.summary(con, Filters(roles=("researcher",))).incomplete_submissions == 0
    assert _status(con, Filters(roles=("researcher",))) == {}
    assert _status(con, Filters(rubric="answer_comparison")) == {}
    assert overview.summary(con, Filters(rubric="article_likert")).incomplete_submissions == 4


def test_undated_article_files_get_the_given_date_or_the_load_time_and_say_which(con):
    given = ingest_bytes(
        con, _topics([4, 3]), "preference_json_3_completed.json", undated_at=dt.datetime(2026, 3, 2, 10, tzinfo=UTC)
    )
    assert given.notes == [
        "article_likert files carry no dates: every topic is dated 2026-03-02 10:00 UTC, the date given at load"
    ]
    before = dt.datetime.now(UTC).replace(tzinfo=None, microsecond=0)
    at_load = ingest_bytes(con, _topics([2, 2]), "preference_json_4_completed.json")
    after = dt.datetime.now(UTC).replace(tzinfo=None)
    assert len(at_load.notes) == 1 and at_load.notes[0].endswith("the load time (no date was given)")
    assert at_load.as_dict()["notes"] == at_load.notes
    dates = dict(con.execute("SELECT rater_id, any_value(submitted_at) FROM ratings GROUP BY 1").fetchall())
    assert dates["annotator_3"] == dt.datetime(2026, 3, 2, 10)
    assert before <= dates["annotator_4"] <= after
    subs = dict(con.execute("SELECT rater_id, max(submitted_at) FROM submissions GROUP BY 1").fetchall())
    assert subs == dates
    # Weekly volumes now have the article topics (they were left out undated).
    weeks = overview.volume_by_week(con, Filters(raters=("annotator_3",)))
    assert weeks[["rubric", "ratings", "tasks"]].values.tolist() == [["article_likert", 10, 2]]
