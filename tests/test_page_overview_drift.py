"""AppTest of the Overview's alarms on the demo: the drifting contractors are named with their evidence, and a
guideline change added from the form is kept, named in the drift alarms whose weeks hold it, and can be removed."""

from __future__ import annotations

import datetime as dt

from analytics import store
from analytics.alarms.review import review
from analytics.alarms.words import alarm_line
from analytics.effects import drift, markers
from analytics.feedback.export import display
from analytics.feedback.report import feedback_report
from tests.conftest import app_test
from tests.old_store import roll_back


def _text(at) -> str:
    return " ".join(m.value for m in at.markdown).replace("\\", "")


def test_drift_alarms_name_the_drifting_contractors(shared_app_store, demo, truth):
    """Each drifting contractor is named with their alarm's line, the very line their report card shows
    (words.alarm_line for both); the drift caption in plain words."""
    at = app_test()
    assert not at.exception, at.exception
    text = _text(at)
    alerts = review(demo).alerts
    for rater in truth["behaviours"]["drifting"]["raters"]:
        assert f"({rater})" in text  # "Name (id)" through the demo's rater directory
        lines = [
            alarm_line(a) for a in alerts[(alerts["rater_id"] == rater) & (alerts["kind"] == "drift")].itertuples()
        ]
        assert lines and all(line.startswith("Drift on ") and line in text for line in lines)
    card = display.alert_lines(feedback_report(demo, rater, n_boot=20))
    assert set(lines) <= set(card)
    assert f"in the {drift.RECENT_WEEKS} weeks since" in text
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    assert drift.WINDOW_WORDS in captions and "relative to the team's" not in captions
    headers = [t.value.columns.tolist() for t in at.dataframe]
    assert any({"kind", "since", "detail", "acknowledged"} <= set(h) for h in headers)


def test_a_guideline_change_is_added_named_and_removed(app_store, truth):
    demo_notes = [m["note"] for m in truth["guideline_markers"]]  # the demo's own, marked when it was loaded
    at = app_test()
    at.date_input(key="mk_date").set_value(dt.date(2026, 3, 24))
    at.selectbox(key="mk_rubric").set_value("answer_comparison")
    at.text_input(key="mk_note").input("rubric v2: <b>stricter</b> core rules")
    at.text_input(key="concord_local_name").input("r01")  # the name given once, in the sidebar
    at.button(key="mk_add").click().run()
    assert not at.exception, at.exception
    assert any("recorded" in i.value for i in at.info)
    assert "Guideline changes marked in these weeks: 2026-03-24 (rubric v2" in _text(at)
    kept = next(t.value for t in at.dataframe if "marked_on" in t.value.columns)
    added = ["rubric v2: <b>stricter</b> core rules"]
    assert kept["note"].tolist() == added + demo_notes  # kept as text, shown as text; by date
    at.selectbox(key="mk_remove").set_value(int(kept["marker_id"].max()))
    at.button(key="mk_remove_button").click().run()
    assert any("removed" in i.value for i in at.info)
    assert next(t.value for t in at.dataframe if "marked_on" in t.value.columns)["note"].tolist() == demo_notes


def test_empty_note_is_refused(con):
    """A marker without words is refused with a readable reason; the store is unchanged."""
    import pytest

    with pytest.raises(ValueError, match="needs a note"):
        markers.add_marker(con, dt.date(2026, 3, 1), "   ")
    assert markers.markers(con).empty
    assert review(con).alerts.empty


def test_a_store_from_before_markers_gains_them(tmp_path):
    """A store at schema 8 (no guideline_markers) gets migration 9 when opened; opened read-only before that it
    reads as having no markers."""
    path = tmp_path / "old.duckdb"
    c = store.open_store(path)
    roll_back(c, 8)
    c.close()
    c = store.open_store(path, read_only=True)
    assert markers.markers(c).empty
    c.close()
    c = store.open_store(path)
    assert store.schema_version(c) == store.MIGRATIONS[-1][0]
    assert markers.add_marker(c, dt.date(2026, 3, 1), "first") == 1
    c.close()
