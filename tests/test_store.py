"""The store: migrations, the catalogue tables, the dataset version and readable errors."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from analytics import store
from analytics.core import rubrics
from tests.conftest import ROOT
from tests.old_store import roll_back


def test_migrations_create_every_table_once(tmp_path):
    path = tmp_path / "s.duckdb"
    con = store.open_store(path)
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert {"tasks", "task_items", "submissions", "ratings", "dimensions", "quarantine", "ingest_log"} <= tables
    version = store.schema_version(con)
    con.close()
    con = store.open_store(path)  # opening again applies nothing new
    assert store.schema_version(con) == version == store.MIGRATIONS[-1][0]


def test_each_store_gets_an_identity_once_and_an_old_store_gets_one_when_opened(tmp_path):
    """Migration 17: a random id per store, kept across opens; a store from before it gains one when opened."""
    first, second = (store.open_store(tmp_path / f"{n}.duckdb") for n in ("a", "b"))
    ids = [store.store_identity(c) for c in (first, second)]
    assert None not in ids and ids[0] != ids[1]
    roll_back(second, 16)
    assert store.store_identity(second) is None  # an old store opened read-only: no identity to read
    for c in (first, second):
        c.close()
    again = store.open_store(tmp_path / "a.duckdb")
    old = store.open_store(tmp_path / "b.duckdb")
    assert store.store_identity(again) == ids[0]
    assert store.store_identity(old) not in (None, ids[0], ids[1])
    assert old.execute("SELECT count(*) FROM store_identity").fetchall() == [(1,)]
    again.close()
    old.close()


def test_catalogue_is_in_the_store(con):
    rows = con.execute("SELECT rubric, dimension, levels, coarse, is_primary FROM dimensions").fetchall()
    by_key = {(r[0], r[1]): r for r in rows}
    assert len(rows) == len(rubrics.catalogue_rows())
    usefulness = by_key[("answer_comparison", "usefulness_comparison")]
    assert usefulness[2] == list(rubrics.COMPARISON_LEVELS)
    assert usefulness[3] == ["A better", "A better", "Equally good", "B better", "B better"]
    assert usefulness[4] is True
    assert by_key[("article_likert", "likert")][2] == ["1", "2", "3", "4", "5"]


def test_dataset_version_changes_with_each_ingest(con, tmp_path):
    from analytics.ingest.load import ingest_bytes

    v0 = store.dataset_version(con)
    ingest_bytes(con, b"task_id,rater_id,dimension,value\nt1,a,q,1\n", "a.csv")
    v1 = store.dataset_version(con)
    ingest_bytes(con, b"task_id,rater_id,dimension,value\nt1,a,q,1\n", "a.csv")  # already loaded
    assert v1 > v0
    assert store.dataset_version(con) == v1


def test_missing_store_read_only_is_a_clear_error(tmp_path):
    with pytest.raises(store.StoreError, match="does not exist yet"):
        store.open_store(tmp_path / "nope.duckdb", read_only=True)


def test_corrupt_store_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.duckdb"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(store.StoreError, match="bad.duckdb"):
        store.open_store(bad)
    assert bad.read_bytes() == b"this is not a database" * 100  # nothing overwritten


def test_store_locked_by_another_process_is_a_clear_error(tmp_path):
    path = tmp_path / "locked.duckdb"
    store.open_store(path).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
                import sys, time, duckdb
                con = duckdb.connect({str(path)!r})
                print("ready", flush=True)
                sys.stdin.readline()
            """),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(store.StoreError, match="in use by another program"):
            store.open_store(path)
    finally:
        holder.communicate("\n", timeout=30)


def test_engine_never_imports_streamlit():
    code = "import sys, analytics.store, analytics.core.rubrics, analytics.ingest.load, analytics.describe.overview, analytics.core.filters, analytics.cli.first_run, analytics.__main__; import pkgutil, importlib, analytics\n"
    code += "for m in pkgutil.walk_packages(analytics.__path__, 'analytics.'): importlib.import_module(m.name)\n"
    code += "print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_a_memory_limit_set_by_whoever_runs_it_bounds_duckdb(tmp_path, monkeypatch):
    """CONCORD_MEMORY_LIMIT sets DuckDB's memory budget on every store opened (DuckDB's own default, 80% of the
    machine, when unset); a malformed amount is a StoreError naming the setting."""
    from analytics.store.connection import MEMORY_LIMIT_ENV

    monkeypatch.delenv(MEMORY_LIMIT_ENV, raising=False)
    con = store.open_store(tmp_path / "a.duckdb")
    default = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    con.close()
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "1500MB")
    con = store.open_store(tmp_path / "a.duckdb")
    limited = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    con.close()
    assert limited == "1.3 GiB" != default  # 1,500,000,000 bytes, as DuckDB prints it
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "lots'; DROP TABLE ratings; --")
    with pytest.raises(store.StoreError, match="CONCORD_MEMORY_LIMIT must be an amount like 3GB or 2500MB"):
        store.open_store(tmp_path / "a.duckdb")
