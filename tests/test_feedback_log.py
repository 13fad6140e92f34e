"""Feedback logs (docs/formats.md section 15): feedback given outside Concord loads as feedback events, bad rows
go to quarantine with line, field and reason while the good rows load, and unloading the file removes exactly its
events."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from analytics.feedback import events as fb_events
from analytics.ingest import detect_format
from analytics.ingest.load import ingest_file
from analytics.ingest.unload import unload_file
from analytics.store import people
from tests.cli_helpers import run_cli
from tests.conftest import connect_copy

GOOD_AND_BAD = """rater_id,sent_at,rubric,note
c05,2026-03-30T10:00:00Z,answer_comparison,sent by email
c06,2026-03-31,,
c07,yesterday,,
,2026-03-30,,
c08,2026-03-30T12:00+02:00,no_such_rubric,
c05,2026-03-30T10:00:00Z,answer_comparison,again
c08,2026-04-01T12:00+02:00,,"a call, then an email"
"""


def _write(tmp_path: Path, text: str, name: str = "log.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def store_con(demo_store, tmp_path):
    """A writable copy of the demo store."""
    c = connect_copy(demo_store, tmp_path / "store.duckdb")
    yield c
    c.close()


def test_detected_by_its_header():
    assert detect_format(b"rater_id,sent_at,rubric,note\n", "log.csv") == "feedback_log"
    assert detect_format(b"sent_at,rater_id\n", "log.csv") == "feedback_log"
    assert detect_format(b"task_id,rater_id,sent_at,dimension,value\n", "x.csv") != "feedback_log"


def test_good_rows_load_and_bad_rows_are_quarantined_with_line_field_and_reason(store_con, tmp_path):
    before = len(fb_events.events(store_con))
    r = ingest_file(store_con, _write(tmp_path, GOOD_AND_BAD))
    assert (r.status, r.format, r.rows_read, r.rows_loaded, r.rows_quarantined) == ("loaded", "feedback_log", 7, 3, 4)
    assert r.errors == [
        "log.csv, line 4, sent_at: not an ISO 8601 date or timestamp (2026-03-30 or 2026-03-30T10:00Z)",
        "log.csv, line 5, rater_id: no contractor named",
        "log.csv, line 6, rubric: not a rubric the catalogue knows (leave it empty for all)",
        "log.csv, line 7, sent_at: repeats an earlier row",
    ]
    q = store_con.execute(
        "SELECT line, field, raw_value FROM quarantine WHERE file_name = 'log.csv' ORDER BY line"
    ).fetchall()
    assert q == [(4, "sent_at", "yesterday"), (5, "rater_id", ""), (6, "rubric", "no_such_rubric"),
                 (7, "sent_at", "2026-03-30T10:00:00")]  # fmt: skip
    ev = fb_events.events(store_con)
    assert len(ev) == before + 3
    mine = ev[ev["report"].str.startswith("log.csv")].sort_values("sent_at")
    assert mine["rater_id"].tolist() == ["c05", "c06", "c08"]
    # UTC when no zone is named; an offset is turned into UTC; a date is its midnight
    assert mine["sent_at"].tolist() == [
        dt.datetime(2026, 3, 30, 10),
        dt.datetime(2026, 3, 31),
        dt.datetime(2026, 4, 1, 10),
    ]
    assert mine["rubric"].tolist()[0] == "answer_comparison" and mine["rubric"].isna().tolist()[1:] == [True, True]
    assert mine["note"].fillna("").tolist() == ["sent by email", "", "a call, then an email"]
    assert set(mine["sent_by"]) == {"feedback log"}
    assert mine["report"].tolist() == ["log.csv, line 2", "log.csv, line 3", "log.csv, line 8"]
    assert all(len(e) == 0 for e in mine["effects"])


def test_unloading_the_file_removes_its_events_and_nothing_else(store_con, tmp_path):
    fb_events.record(store_con, "c10", "lead@example.org", "feedback_c10, all", [], fb_events.Filters())
    before = fb_events.events(store_con)
    r = ingest_file(store_con, _write(tmp_path, GOOD_AND_BAD))
    ingest_id = store_con.execute("SELECT max(ingest_id) FROM ingest_log").fetchall()[0][0]
    assert len(fb_events.events(store_con)) == len(before) + 3 and r.rows_loaded == 3
    removed = unload_file(store_con, ingest_id, "lead")
    assert removed["feedback_events"] == 3
    left = fb_events.events(store_con)
    assert left.drop(columns="effects").equals(before.drop(columns="effects"))
    assert "c10" in set(left.loc[left["ingest_id"].isna(), "rater_id"])


def test_an_unknown_column_rejects_the_whole_file(store_con, tmp_path):
    r = ingest_file(store_con, _write(tmp_path, "rater_id,sent_at,mood\nc05,2026-03-30,fine\n"))
    assert r.status == "rejected"
    assert r.errors == ["log.csv, line 1: unknown column(s) mood; a feedback log has rater_id, sent_at, rubric, note"]
    assert not fb_events.events(store_con)["report"].str.startswith("log.csv").any()


def test_an_unknown_id_loads_with_a_note_and_an_alias_is_its_person(con, tmp_path):
    people_csv = _write(tmp_path, "rater_id,display_name,aliases\nc13,Dana K.,annotator_13\n", "people.csv")
    assert ingest_file(con, people_csv).status == "loaded", people.FORMAT
    r = ingest_file(con, _write(tmp_path, "rater_id,sent_at\nannotator_13,2026-03-30\nc99,2026-03-30\n"))
    assert r.rows_loaded == 2
    assert any("no rater the store knows is called" in n and "annotator_13" in n for n in r.notes)
    assert sorted(fb_events.events(con)["rater_id"]) == ["c13", "c99"]


def test_the_command_line_loads_a_log(demo_store, tmp_path, monkeypatch):
    db = tmp_path / "cli.duckdb"
    connect_copy(demo_store, db).close()
    path = _write(tmp_path, "rater_id,sent_at,rubric\nc05,2026-03-30T10:00:00Z,answer_comparison\n")
    out = run_cli("ingest", str(path), "--format", "feedback_log", "--db", str(db), "--json", check=True)
    (loaded,) = json.loads(out.stdout)["files"]
    assert (loaded["format"], loaded["status"], loaded["rows_loaded"], loaded["rows_quarantined"]) == (
        "feedback_log",
        "loaded",
        1,
        0,
    )
    con = connect_copy(db, tmp_path / "read.duckdb")
    ev = fb_events.events(con)
    assert ev.loc[ev["report"] == "log.csv, line 2", ["rater_id", "rubric"]].values.tolist() == [
        ["c05", "answer_comparison"]
    ]
    con.close()
