"""First start: an empty store is filled with the demo data; a filled store is left alone."""

from __future__ import annotations

import json

from analytics.cli import first_run
from analytics.ingest.load import ingest_file


def test_empty_store_gets_the_demo_files_in_order(con, tmp_path, monkeypatch):
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "demo"))
    assert first_run.store_is_empty(con)
    files = first_run.demo_files()
    assert [f.name for f in files[:2]] == ["raters.csv", "answer_comparison.jsonl"]  # people first
    assert files[-2].name == "contractor_batch_with_errors.csv"  # quarantine has something to show, last of ratings
    assert files[-1].name == "feedback_log.csv"  # after the ratings it follows up
    assert all(f.exists() for f in files)
    results = [ingest_file(con, f) for f in files]
    assert {r.status for r in results} == {"loaded"}
    assert sum(r.rows_quarantined for r in results[:-2] + results[-1:]) == 0
    assert results[-2].rows_quarantined > 0
    assert not first_run.store_is_empty(con)
    assert first_run.demo_files() == files  # generated once, then reused


def test_article_files_load_with_the_dates_they_were_returned(con, demo_inputs, monkeypatch):
    """First start gives each article Likert file (no dates in the document) its date from truth.json, so
    the annotators' submissions fall in the project's weeks rather than at the load time."""
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(demo_inputs))  # generated: the test above checks that
    plan = first_run.demo_plan()
    assert [f.path for f in plan] == first_run.demo_files()
    articles = [f for f in plan if f.path.name.startswith("preference_json_")]
    assert articles and all(f.undated_at is not None for f in articles)
    assert all(f.undated_at is None for f in plan if f not in articles)
    for f in articles:
        result = ingest_file(con, f.path, undated_at=f.undated_at)
        assert result.status == "loaded" and "the date given at load" in result.notes[0]
    dates = con.execute(
        "SELECT min(submitted_at), max(submitted_at), count(*) FILTER (WHERE submitted_at IS NULL) FROM ratings"
    ).fetchall()[0]
    first = min(f.undated_at for f in articles if f.undated_at)
    assert dates[0] == first.replace(tzinfo=None) and dates[2] == 0
    assert (dates[1] - dates[0]).days >= 21  # spread over the weeks


def test_progress_counts_the_directory_in_people_and_the_rest_in_ratings(con, demo_inputs, monkeypatch):
    """The first start's progress line says what each demo file holds: the directory's rows are people, the
    feedback log's feedback events, the other files' rows ratings, and rows set aside are said to be in quarantine."""
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(demo_inputs))
    plan = first_run.demo_plan()
    directory, errors = plan[0], plan[-2]
    truth = json.loads((demo_inputs / "truth.json").read_text())
    people_line = first_run.progress_text(directory, ingest_file(con, directory.path))
    assert people_line == f"raters.csv: loaded, {truth['files'][0]['records']} people"
    result = ingest_file(con, errors.path)
    assert result.rows_quarantined > 0
    assert first_run.progress_text(errors, result) == (
        f"{errors.path.name}: loaded, {result.rows_loaded} ratings, {result.rows_quarantined} rows set aside in "
        "quarantine"
    )
    again = first_run.progress_text(directory, ingest_file(con, directory.path))
    assert again == "raters.csv: already loaded, nothing changed"
    log = plan[-1]
    assert first_run.progress_text(log, ingest_file(con, log.path)) == (
        f"feedback_log.csv: loaded, {truth['files'][-1]['records']} feedback events"
    )
