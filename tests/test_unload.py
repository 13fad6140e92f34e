"""Unloading a file (store.unload_file, the Data page's confirmation), and who/when on review notes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from analytics import store
from analytics.ingest import unload
from analytics.ingest.load import ingest_bytes
from analytics.review import disagreements as dis
from tests.conftest import app_test, demo_written

FIRST = (
    b"task_id,rater_id,rubric,dimension,value\nt1,c1,pilot,clarity,3\nt2,c1,pilot,clarity,4\nt3,c1,pilot,clarity,9\n"
)
SECOND = b"task_id,rater_id,rubric,dimension,value\nt1,c2,pilot,clarity,3\nt9,c2,pilot,clarity,2\n"


def counts(con) -> dict[str, int]:
    return store.table_counts(con)


def ingest_ids(con) -> dict[str, int]:
    return dict(con.execute("SELECT file_name, ingest_id FROM ingest_log").fetchall())


def test_unload_removes_one_file_in_one_transaction_and_records_who_and_when(con):
    assert ingest_bytes(con, FIRST, "first.csv").rows_loaded == 3
    assert ingest_bytes(con, SECOND, "second.csv").rows_loaded == 2
    first_id = ingest_ids(con)["first.csv"]
    version = store.dataset_version(con)
    before = dt.datetime.now()
    removed = unload.unload_file(con, first_id, "  Ana  ")
    assert removed["ratings"] == 3
    assert con.execute("SELECT count(*) FROM ratings WHERE ingest_id = ?", [first_id]).fetchall() == [(0,)]
    assert con.execute("SELECT count(*) FROM ratings").fetchall() == [(2,)]
    assert store.dataset_version(con) == version + 1
    assert list(ingest_ids(con)) == ["second.csv"]
    (row,) = unload.unloads(con)
    assert row[0] == first_id and row[1] == "first.csv" and row[4] == "Ana"
    assert row[5] >= before.replace(microsecond=0) - dt.timedelta(seconds=5)
    # the same content can be loaded again, under a new id
    again = ingest_bytes(con, FIRST, "first.csv")
    assert again.status == "loaded" and again.rows_loaded == 3
    assert ingest_ids(con)["first.csv"] > first_id


def test_unload_removes_quarantine_submissions_tasks_and_items(con, demo_inputs):
    # a JSON format brings tasks, items, submissions; a CSV with errors brings quarantine rows (the run's demo)
    written = demo_written(demo_inputs)
    ac = next(Path(f) for f in written["files"] if Path(f).name == "answer_comparison.jsonl")
    bad = next(Path(f) for f in written["files"] if Path(f).name == "contractor_batch_with_errors.csv")
    r1 = ingest_bytes(con, ac.read_bytes(), ac.name)
    r2 = ingest_bytes(con, bad.read_bytes(), bad.name)
    assert r1.submissions > 0 and r1.tasks > 0 and r2.rows_quarantined > 0
    ids = ingest_ids(con)
    before = counts(con)
    unload.unload_file(con, ids[ac.name], "Bo")
    after = counts(con)
    for table in ("submissions", "task_items"):
        assert con.execute(f"SELECT count(*) FROM {table} WHERE ingest_id = ?", [ids[ac.name]]).fetchall() == [(0,)]
    assert after["ratings"] == before["ratings"] - r1.rows_loaded
    assert after["submissions"] < before["submissions"]
    unload.unload_file(con, ids[bad.name], "Bo")
    assert counts(con)["quarantine"] == 0 and counts(con)["ratings"] == 0 and counts(con)["tasks"] == 0
    assert counts(con)["ingest_log"] == 0 and len(unload.unloads(con)) == 2


def test_a_failed_unload_changes_nothing(con, monkeypatch):
    ingest_bytes(con, FIRST, "first.csv")
    before, version = counts(con), store.dataset_version(con)

    def fail(c):
        raise RuntimeError("disk full")

    monkeypatch.setattr(unload, "bump_version", fail)  # as the unload calls it
    with pytest.raises(RuntimeError):
        unload.unload_file(con, ingest_ids(con)["first.csv"], "Ana")
    monkeypatch.undo()
    assert counts(con) == before and store.dataset_version(con) == version and unload.unloads(con) == []


def test_unloading_an_unknown_id_is_a_key_error(con):
    with pytest.raises(KeyError):
        unload.unload_file(con, 42, "Ana")


def test_the_data_page_unloads_after_a_confirmation_with_the_session_reviewer(app_store):
    con = store.open_store(app_store)
    assert ingest_bytes(con, FIRST, "first.csv").status == "loaded"
    first_id = ingest_ids(con)["first.csv"]
    n_files = counts(con)["ingest_log"]
    con.close()
    at = app_test("app_pages/data.py")
    assert not at.exception
    at.text_input(key="concord_local_name").input("Ana").run()  # the name this session gave, in the sidebar
    at.selectbox(key="unload_pick").select(first_id).run()
    at.button(key="unload_ask").click().run()
    assert not at.exception
    assert any("Unloading first.csv deletes its 3 ratings" in w.value.replace("\\", "") for w in at.warning)
    assert any("unloaded by Ana" in c.value for c in at.caption)  # recorded without asking again
    # nothing happens before the confirmation
    con = store.open_store(app_store)
    assert counts(con)["ingest_log"] == n_files
    con.close()
    at.button(key="unload_yes").click().run()
    assert not at.exception
    assert any("Unloaded first.csv: 3 ratings" in s.value.replace("\\", "") for s in at.success)
    con = store.open_store(app_store)
    assert counts(con)["ingest_log"] == n_files - 1
    assert unload.unloads(con)[0][1] == "first.csv" and unload.unloads(con)[0][4] == "Ana"
    con.close()


def test_the_data_page_cancel_keeps_the_file(app_store):
    at = app_test("app_pages/data.py")
    at.button(key="unload_ask").click().run()
    at.button(key="unload_no").click().run()
    assert not at.exception
    con = store.open_store(app_store)
    assert unload.unloads(con) == []
    con.close()


def test_a_store_emptied_by_unloading_does_not_reload_the_demo(tmp_path, monkeypatch):
    import streamlit as st

    path = tmp_path / "s.duckdb"
    con = store.open_store(path)
    ingest_bytes(con, FIRST, "first.csv")
    unload.unload_file(con, ingest_ids(con)["first.csv"], "Ana")
    con.close()
    monkeypatch.setenv("CONCORD_DB", str(path))
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "no-demo"))
    st.cache_resource.clear()
    st.cache_data.clear()
    at = app_test()
    assert not at.exception
    st.cache_resource.clear()
    con = store.open_store(path)
    assert counts(con)["ingest_log"] == 0
    con.close()


def test_review_notes_record_who_and_when(con):
    key = dis.CaseKey("t1", "pilot", "clarity", "", "c1", "r1")
    dis.save_note(con, key, "feedback given", "told them", "  Ana ")
    first = dis.notes_for(con, key=key).iloc[0]
    assert first["reviewer"] == "Ana" and first["status"] == "feedback given"
    assert abs((first["updated_at"] - dt.datetime.now()).total_seconds()) < 24 * 3600  # stored, server clock
    dis.save_note(con, key, "guideline unclear", "", "Bo")
    second = dis.notes_for(con, key=key)
    assert len(second) == 2 and second.iloc[0]["reviewer"] == "Bo"  # every note kept, newest first
    assert second.iloc[0]["updated_at"] >= first["updated_at"]
