"""The quarantine keeps, for each refused row, the field it was refused for and that field's value as read
(not the rating's value when another field is wrong): checked on the demo's planted bad rows, whose truth file
lists line, field and value of each."""

from __future__ import annotations

import json

from analytics import store
from analytics.cli import first_run
from analytics.ingest.load import ingest_file


def test_each_planted_bad_row_is_quarantined_with_its_field_and_value(tmp_path, demo_inputs, monkeypatch):
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(demo_inputs))  # the run's demo, not data/demo
    truth = json.loads((first_run.demo_dir() / "truth.json").read_text())["errors"]
    con = store.open_store(tmp_path / "s.duckdb")
    r = ingest_file(con, first_run.demo_dir() / truth["file"])
    assert r.rows_quarantined == truth["bad_rows"]
    got = {
        (line, field): value
        for line, field, value in con.execute("SELECT line, field, raw_value FROM quarantine").fetchall()
    }
    for row in truth["rows"]:
        key = (row["line"], row["field"])
        assert key in got, (row, got)
        assert (got[key] or "") == row["value"], (row, got[key])
