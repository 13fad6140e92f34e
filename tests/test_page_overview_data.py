"""AppTest of the Overview and Data pages on the demo store."""

from __future__ import annotations

from tests.conftest import app_test


def metric_values(at) -> dict[str, str]:
    """Metric label -> shown value."""
    return {m.label: m.value for m in at.metric}


def test_overview_shows_the_demo_volumes(shared_app_store):
    at = app_test()
    assert not at.exception
    m = metric_values(at)
    assert int(m["Files loaded"]) >= 5
    assert int(m["Contractors"]) >= 30
    assert int(m["Researchers"]) >= 3
    assert m["Researcher-labelled"].endswith("%")
    assert int(m["Quarantined rows"].replace(",", "")) > 0  # the demo's deliberate error file
    charts = at.get("vega_lite_chart") or at.get("arrow_vega_lite_chart")
    assert len(charts) >= 2
    raters = next(t.value for t in at.dataframe if "role" in t.value.columns)  # after the drift alerts' table
    assert {"rater_id", "role", "tasks", "ratings"} <= set(raters.columns)


def test_overview_follows_the_sidebar_filters(shared_app_store):
    at = app_test()
    total = int(metric_values(at)["Ratings"].replace(",", ""))
    at.multiselect(key="f_roles").select("researcher").run()
    assert not at.exception
    m = metric_values(at)
    assert int(m["Contractors"]) == 0
    assert 0 < int(m["Ratings"].replace(",", "")) < total


def test_data_page_uploads_and_reports_each_file(app_store):
    at = app_test("app_pages/data.py")
    assert not at.exception
    good = b"task_id,rater_id,rubric,dimension,value\nu1,new_rater,pilot,clarity,3\nu2,new_rater,pilot,clarity,4\n"
    bad = b"\x00\x01binary"
    at.file_uploader(key="upload_files").upload("good.csv", good, "text/csv").upload("bad.csv", bad, "text/csv")
    at.button[0].click().run()
    assert not at.exception
    text = (" ".join(e.value for e in at.success) + " ".join(e.value for e in at.error)).replace("\\", "")  # escaped
    assert "good.csv (canonical): loaded, 2 rows loaded, 0 quarantined" in text
    assert "bad.csv was rejected" in text
    log = at.dataframe[1].value
    assert "good.csv" in set(log["file_name"])
    assert "bad.csv" not in set(log["file_name"])


def test_data_page_quarantine_browser_filters_by_file(shared_app_store):
    at = app_test("app_pages/data.py")
    names = at.selectbox(key="quarantine_file").options
    assert names[0] == "All files" and len(names) >= 2
    at.selectbox(key="quarantine_file").select(names[1]).run()
    q = at.dataframe[-1].value
    assert len(q) > 0 and set(q["file_name"]) == {names[1]}
    assert q["reason"].str.contains(names[1]).all()


def test_researcher_share_follows_the_one_pairing(shared_app_store):
    at = app_test()
    everyone = metric_values(at)["Researcher-labelled"]
    # One contractor in the rater filter: the share of its tasks a researcher also rated, not 0%.
    at.sidebar.multiselect(key="f_raters").select("c06").run()
    assert not at.exception, at.exception
    share = metric_values(at)["Researcher-labelled"]
    assert share.endswith("%") and share != "0%", (everyone, share)


def test_overview_incomplete_count_follows_the_rater_and_date_filters(shared_app_store):
    """Issue #12 part 5: the incomplete count and the status chart followed only the rubric filter."""
    import datetime as dt

    at = app_test()
    everyone = int(metric_values(at)["Not completed"].replace(",", ""))
    assert everyone > 0
    at.sidebar.multiselect(key="f_raters").select("c06").run()
    assert not at.exception, at.exception
    one = int(metric_values(at)["Not completed"].replace(",", ""))
    assert one < everyone
    at.sidebar.multiselect(key="f_raters").unselect("c06").run()
    low, high = at.sidebar.date_input(key="f_dates").value
    at.sidebar.date_input(key="f_dates").set_value((low, low + dt.timedelta(days=6))).run()
    assert not at.exception, at.exception
    first_week = int(metric_values(at)["Not completed"].replace(",", ""))
    assert first_week < everyone


def test_data_page_dates_an_undated_article_file_with_the_day_given(app_store):
    import datetime as dt
    import json

    topic = {
        "topic": "upload test topic",
        "reference": "a reference",
        "first_prediction": "a",
        "second_prediction": "b",
        "third_prediction": "c",
        "best_prediction_reference": "first_prediction",
        "best_prediction_topic": "first_prediction",
        "first_prediction_likert": 4,
        "second_prediction_likert": 3,
        "third_prediction_likert": 2,
    }
    at = app_test("app_pages/data.py")
    at.date_input(key="upload_undated").set_value(dt.date(2026, 3, 11))
    at.file_uploader(key="upload_files").upload(
        "preference_json_77_completed.json", json.dumps([topic]).encode(), "application/json"
    )
    at.button[0].click().run()
    assert not at.exception
    notes = " ".join(e.value for e in at.info).replace("\\", "")
    assert "every topic is dated 2026-03-11 00:00 UTC, the date given at load" in notes
    results = at.dataframe[0].value
    assert results["notes"].str.contains("the date given at load").all()
