"""First start: an empty store is filled with the demo data; a filled store is left alone."""

from __future__ import annotations

from analytics import first_run
from analytics.ingest.load import ingest_file


def test_empty_store_gets_the_demo_files_in_order(con, tmp_path, monkeypatch):
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "demo"))
    assert first_run.store_is_empty(con)
    files = first_run.demo_files()
    assert files[0].name == "answer_comparison.jsonl"
    assert files[-1].name == "contractor_batch_with_errors.csv"  # quarantine has something to show, last
    assert all(f.exists() for f in files)
    results = [ingest_file(con, f) for f in files]
    assert {r.status for r in results} == {"loaded"}
    assert sum(r.rows_quarantined for r in results[:-1]) == 0
    assert results[-1].rows_quarantined > 0
    assert not first_run.store_is_empty(con)
    assert first_run.demo_files() == files  # generated once, then reused
