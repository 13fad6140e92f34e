"""The private copy of a named file is taken from a descriptor opened without blocking and checked to be a regular
file (analytics/ingest/checks.open_regular): a FIFO, a device or a folder is refused in one sentence, at once."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from analytics import store
from analytics.ingest.load import IngestResult, ingest_file

GOOD = b"task_id,rater_id,dimension,value\nt1,r1,score,3\n"


def _ingest_within(con, path: Path, seconds: float = 20.0) -> IngestResult:
    """ingest_file in a thread: the test fails (instead of hanging) when the load blocks."""
    out: list[IngestResult] = []
    worker = threading.Thread(target=lambda: out.append(ingest_file(con, path)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert out, f"loading {path.name} did not return within {seconds:.0f} s (it blocked or read without end)"
    return out[0]


def test_a_fifo_is_refused_without_waiting_for_a_writer(con, tmp_path):
    fifo = tmp_path / "ratings.csv"
    os.mkfifo(fifo)
    r = _ingest_within(con, fifo)
    assert (r.status, r.errors) == (
        "rejected",
        ["ratings.csv is not a regular file (a named pipe); only files of ratings can be loaded"],
    )
    assert store.table_counts(con)["ratings"] == 0


def test_a_link_to_a_device_is_refused_before_a_byte_is_read(con, tmp_path):
    link = tmp_path / "zeros.csv"
    link.symlink_to("/dev/zero")
    r = _ingest_within(con, link)
    assert (r.status, r.errors) == (
        "rejected",
        ["zeros.csv is not a regular file (a device); only files of ratings can be loaded"],
    )


def test_a_folder_is_refused_in_one_sentence(con, tmp_path):
    folder = tmp_path / "batch.csv"
    folder.mkdir()
    r = _ingest_within(con, folder)
    assert r.errors == ["batch.csv is not a regular file (a folder); only files of ratings can be loaded"]


def test_a_link_to_a_regular_file_still_loads(con, tmp_path):
    target = tmp_path / "real.csv"
    target.write_bytes(GOOD)
    link = tmp_path / "named.csv"
    link.symlink_to(target)
    r = _ingest_within(con, link)
    assert (r.status, r.rows_loaded, r.file) == ("loaded", 1, "named.csv")
