"""Crash safety: a process loading a large canonical CSV (about 960,000 ratings) is killed with SIGKILL in the middle
of the load, at several points. Each time the store opens again with exactly what it held before (no rating,
quarantine row, task or ingest_log row of the killed load, the same dataset version), and afterwards the same
file loads completely.

Protection checked: one transaction per file (load.ingest_file) and DuckDB's write-ahead log, which replays
only committed transactions when the store is opened after a crash.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from analytics import store
from analytics.ingest.load import ingest_bytes, ingest_file
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from generate import DIMENSIONS, LEVELS, RATINGS_SQL  # noqa: E402

N_TASKS = 40_000  # about 960,000 ratings: a load of a few seconds on this machine
# Where to kill: after the child prints this marker, wait this long. "loading": the CSV is being read;
# "staged": the ratings are being inserted; "logged": ratings, quarantine and the ingest_log row are written
# and the transaction is about to commit (the child waits there, so the kill always lands before COMMIT).
KILL_POINTS = (("loading", 0.3), ("staged", 0.2), ("logged", 0.0))

CHILD = """
import sys, time
sys.path.insert(0, {root!r})
from analytics import store
from analytics.ingest import load, staging

stage_view, bump_version = staging.stage_view, store.bump_version

def staged(con):
    stage_view(con)
    print("staged", flush=True)

def logged(con):  # the last step inside the transaction
    bump_version(con)
    print("logged", flush=True)
    time.sleep(60)

staging.stage_view, store.bump_version = staged, logged
con = store.open_store({db!r})
print("loading", flush=True)
result = load.ingest_file(con, {path!r})
print("finished", result.status, flush=True)
"""


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory) -> tuple[Path, int]:
    """The benchmark generator's ratings for N_TASKS tasks as one canonical CSV, and its row count."""
    path = tmp_path_factory.mktemp("crash") / "big.csv"
    con = duckdb.connect()
    con.execute(f"CREATE TABLE r AS {RATINGS_SQL}", [N_TASKS, DIMENSIONS, DIMENSIONS, LEVELS])
    con.execute("COPY r TO ? (FORMAT csv, HEADER)", [str(path)])
    n = con.execute("SELECT count(*) FROM r").fetchall()[0][0]
    con.close()
    return path, n


def state(path: Path) -> dict:
    """Every table's row count, the dataset version and the files in the log, read by a fresh open."""
    con = store.open_store(path)
    try:
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()]  # fmt: skip
        counts = {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0] for t in tables}
        files = sorted(r[0] for r in con.execute("SELECT file_name FROM ingest_log").fetchall())
        return {**counts, "version": store.dataset_version(con), "files": files}
    finally:
        con.close()


def test_a_load_killed_half_way_leaves_no_trace(big_csv, tmp_path):
    path, n_rows = big_csv
    db = tmp_path / "store.duckdb"
    con = store.open_store(db)
    earlier = b"task_id,rater_id,dimension,value\nt1,c1,clarity,3\nt2,c1,clarity,4\n"
    assert ingest_bytes(con, earlier, "earlier.csv").status == "loaded"
    con.close()
    before = state(db)

    for marker, delay in KILL_POINTS:
        code = CHILD.format(root=str(ROOT), db=str(db), path=str(path))
        child = subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            for line in child.stdout:
                assert not line.startswith("finished"), f"the load finished before {marker}: nothing was interrupted"
                if line.strip() == marker:
                    break
            else:
                pytest.fail(f"the child ended before {marker}: {child.stderr.read()}")
            time.sleep(delay)
            assert child.poll() is None, f"the load finished within {delay} s after {marker}"
            os.kill(child.pid, signal.SIGKILL)
        finally:
            child.kill()  # no-op when already killed; never leave the child running
            child.wait(timeout=60)
        assert child.returncode == -signal.SIGKILL
        after = state(db)  # opening replays the write-ahead log: only committed work comes back
        assert after == before, f"killed {delay} s after {marker}: {after} != {before}"

    con = store.open_store(db)
    result = ingest_file(con, path)
    assert (result.status, result.rows_loaded, result.rows_quarantined) == ("loaded", n_rows, 0), result.errors
    con.close()
    final = state(db)
    assert final["ratings"] == before["ratings"] + n_rows
    assert final["files"] == ["big.csv", "earlier.csv"]
    assert final["version"] == before["version"] + 1
