"""Writes from many sessions of one dashboard process (hardening round two, item 3, in-process part).

The app's sessions write through cursors of one shared connection (ui/state.py). DuckDB's transactions are
optimistic, so before the write lock (analytics/tx.py WRITE_LOCK) a note saved during an upload failed the
upload, one of two simultaneous uploads was rejected and 37 of 40 simultaneous note saves failed.
"""

from __future__ import annotations

import threading

from analytics import disagreements as dis
from analytics import store
from analytics.ingest.load import ingest_bytes


def _csv(prefix: str, n_tasks: int) -> bytes:
    """A canonical CSV of n_tasks tasks, each rated by a contractor and a researcher."""
    lines = ["task_id,rater_id,role,rubric,dimension,value"]
    for t in range(n_tasks):
        lines.append(f"{prefix}{t},c1,contractor,study,score,{t % 5 + 1}")
        lines.append(f"{prefix}{t},r1,researcher,study,score,{(t + 1) % 5 + 1}")
    return ("\n".join(lines) + "\n").encode()


def _run(targets) -> list[BaseException]:
    """Start every target in its own thread at once; the exceptions they raised."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(targets))

    def wrap(fn):
        def go():
            barrier.wait()
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 - collected for the assertion
                errors.append(e)

        return go

    threads = [threading.Thread(target=wrap(fn)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    return errors


def _key(i: int) -> dis.CaseKey:
    return dis.CaseKey(f"t{i}", "study", "score", "", "c1", "r1")


def test_forty_simultaneous_note_saves_all_succeed(tmp_path):
    con = store.open_store(tmp_path / "s.duckdb")
    cursors = [con.cursor() for _ in range(40)]
    errors = _run(
        [
            lambda c=c, i=i: dis.save_note(c, _key(i), "feedback given", f"note {i}", "lead")
            for i, c in enumerate(cursors)
        ]
    )
    assert errors == []
    assert con.execute("SELECT count(*) FROM review_notes").fetchall()[0][0] == 40


def test_a_note_saved_during_an_upload_and_two_uploads_at_once_all_succeed(tmp_path):
    con = store.open_store(tmp_path / "s.duckdb")
    results: dict[str, str] = {}
    a, b, c = con.cursor(), con.cursor(), con.cursor()

    def upload(cur, name: str, prefix: str) -> None:
        results[name] = ingest_bytes(cur, _csv(prefix, 60_000), name).status

    errors = _run(
        [
            lambda: upload(a, "one.csv", "a"),
            lambda: upload(b, "two.csv", "b"),
            lambda: dis.save_note(c, _key(1), "feedback given", "during the uploads", "lead"),
        ]
    )
    assert errors == []
    assert results == {"one.csv": "loaded", "two.csv": "loaded"}
    assert con.execute("SELECT count(*) FROM ratings").fetchall()[0][0] == 240_000
    assert con.execute("SELECT count(*) FROM review_notes").fetchall()[0][0] == 1
