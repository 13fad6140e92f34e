"""Uploads whose cost is bounded by their size whatever their shape, every row counted from the file, and one bad
file never taking the others down (#49 items 3, 5 and 7's ingest parts). Sizes and times: bench/bench_ingest.py
(hostile shapes) and bench/RESULTS.md; these tests check the mechanisms."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from analytics.ingest import canonical, limits, private
from analytics.ingest.load import ingest_bytes, ingest_file
from analytics.store import tx
from tests.cli_helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
HEADER = "task_id,rater_id,dimension,value,comment\n"


def rows(n: int, start: int = 0, comment: str = "fine") -> str:
    """n valid canonical rows of one rater on dimension d."""
    return "".join(f"t{i},r1,d,{i % 3},{comment}\n" for i in range(start, start + n))


def read_by_duckdb(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The bytes of every file DuckDB's CSV reader is given during the test."""
    seen: list[bytes] = []
    original = canonical._csv_query

    def record(con, path, options):
        seen.append(Path(path).read_bytes())
        return original(con, path, options)

    monkeypatch.setattr(canonical, "_csv_query", record)
    return seen


def test_a_row_with_more_fields_than_the_header_is_one_quarantined_row_duckdb_never_sees(con, monkeypatch):
    wide_row = "t5,r1,d,1," + ",".join(["x"] * 6_000) + "\n"
    data = (HEADER + rows(5) + wide_row + rows(3, start=6)).encode()
    seen = read_by_duckdb(monkeypatch)
    r = ingest_bytes(con, data, "many.csv")
    assert (r.status, r.rows_loaded, r.rows_quarantined, r.rows_read) == ("loaded", 8, 1, 9), r.errors
    assert r.errors == ["many.csv, line 7: malformed CSV row (too many columns): 6,004 fields where the header has 5"]
    assert con.execute("SELECT line FROM quarantine").fetchall() == [(7,)]
    assert seen and all(wide_row.encode() not in b and b"x,x,x" not in b for b in seen)  # not in DuckDB's rejects


def test_rows_after_a_set_aside_row_keep_their_own_line_numbers(con):
    data = (HEADER + rows(2) + "t2,r1,d,1,a,b,c\n" + "\n" + "t4,r1\n" + "t5,r1,d,9,x\n").encode()
    r = ingest_bytes(con, data, "lines.csv")
    assert (r.rows_read, r.rows_loaded, r.rows_quarantined) == (5, 3, 2), r.errors
    assert con.execute("SELECT task_id FROM ratings WHERE task_id = 't5'").fetchall() == [("t5",)]
    assert [e.split(":")[0] for e in r.errors] == ["lines.csv, line 4", "lines.csv, line 6, field dimension"]


def test_a_row_in_another_encoding_after_the_first_64_kb_is_quarantined_and_counted(con):
    data = (HEADER + rows(800, comment="c" * 100)).encode() + b"t900,r\xe9,d,1,x\nt901,r1,d,2,x\n"
    assert data.index(b"\xe9") > 65536
    r = ingest_bytes(con, data, "latin.csv")
    assert (r.rows_read, r.rows_loaded, r.rows_quarantined) == (802, 801, 1), r.errors
    assert r.errors[0].startswith("latin.csv, line 802: not UTF-8 text (byte 0xe9 at offset ")


@pytest.mark.parametrize(
    "tail",
    [
        b't9,"r1,d,1,x\nt10,r1,d,2,x\nt11,r1,d,2,x\n',  # a quote never closed: the rest of the file is one field
        b't9,r1,d,1,"a ""quoted"" word"\nt10,r1,d,2,"two\nlines"\nt11,r1,d,"1,x\n',
        b"t9,r1,d,1,x\r\nt10,r1,d\r\n\r\nt11,r1,d,2,x,y\r\n",
    ],
    ids=["unclosed quote", "quoted fields", "windows lines"],
)
def test_every_row_of_the_file_is_loaded_or_quarantined(con, tail):
    head = (HEADER + rows(4)).encode()
    data = (head.replace(b"\n", b"\r\n") if b"\r\n" in tail else head) + tail
    r = ingest_bytes(con, data, "quotes.csv")
    assert r.status == "loaded", r.errors
    assert r.rows_read == r.rows_loaded + r.rows_quarantined, r.errors
    assert r.rows_read >= 5
    stored = con.execute("SELECT count(*) FROM quarantine WHERE line IS NOT NULL").fetchall()[0][0]
    assert stored == r.rows_quarantined


def test_jsonl_rows_are_counted_from_the_file(con):
    good = '{"task_id": "t1", "rater_id": "r1", "dimension": "d", "value": 1}\n'
    first = "".join(good.replace("t1", f"t{i}") for i in range(1000)).encode()  # past the first 64 KB
    bad = b'{"task_id": "x", "rater_id": "r\xe9"}\n' + b"{not json\n\n"
    r = ingest_bytes(con, first + bad + good.replace("t1", "y").encode(), "rows.jsonl")
    assert (r.rows_read, r.rows_loaded, r.rows_quarantined) == (1003, 1001, 2), r.errors


# --- nesting: scanned before any JSON reader ----------------------------------------------------------------


def test_the_nesting_scan_skips_strings_and_is_not_fooled_by_escapes():
    assert limits.nesting(b'[{"a": "[[[{{{"}, ["\\"]"]]') == 2
    assert limits.nesting(b'"' + b'\\"' * 100_000) == 0  # an unclosed string of escapes: no nesting, no backtracking
    assert limits.nesting(b"[" * 2_000 + b"]" * 2_000) == 2_000


def test_a_deep_document_is_refused_before_a_json_reader_sees_it(con, monkeypatch):
    import json

    def refuse(*args, **kwargs):
        raise AssertionError("the JSON reader was given the deep document")

    monkeypatch.setattr(json, "loads", refuse)
    r = ingest_bytes(con, b'{"a": ' * 1_000 + b"1" + b"}" * 1_000, "deep.json")
    assert r.status == "rejected"
    assert r.errors == [
        "deep.json, line 1: JSON nested 1,000 levels deep, over the limit of 64 levels; nothing was loaded; "
        "store its records with fewer levels of nesting"
    ]


DEEP = b"[" * 2_000 + b"]" * 2_000  # 4 KB


def test_the_command_line_refuses_a_deep_file_in_one_line_and_loads_the_next(tmp_path):
    deep, ok = tmp_path / "deep.json", tmp_path / "ok.csv"
    deep.write_bytes(DEEP)
    ok.write_text(HEADER + rows(3))
    run = run_cli("ingest", str(deep), str(ok), "--db", str(tmp_path / "s.duckdb"))
    assert run.returncode == 1  # a file was rejected
    assert "Traceback" not in run.stderr + run.stdout
    lines = run.stdout.splitlines()
    assert lines[0] == "deep.json: rejected (auto), 0 loaded, 0 quarantined"
    assert lines[1] == (
        "  - deep.json, line 1: JSON nested 2,000 levels deep, over the limit of 64 levels; nothing was loaded; "
        "store its records with fewer levels of nesting"
    )
    assert lines[2] == "ok.csv: loaded (canonical), 3 loaded, 0 quarantined"


# --- the write lock: held for the insert and refresh only ------------------------------------------------------


def test_the_write_lock_is_free_while_a_file_is_read_and_checked(con, monkeypatch):
    reading, release = threading.Event(), threading.Event()
    original = canonical.parse

    def slow_parse(path, file_name, c):
        reading.set()
        assert release.wait(30)
        return original(path, file_name, c)

    monkeypatch.setattr(canonical, "parse", slow_parse)
    results = []
    loader = threading.Thread(
        target=lambda: results.append(ingest_bytes(con.cursor(), (HEADER + rows(3)).encode(), "a.csv"))
    )
    loader.start()
    try:
        assert reading.wait(30)
        assert tx.WRITE_LOCK.acquire(blocking=False), "the load holds the write lock while it reads the file"
        try:
            with tx.write(con.cursor()) as w:  # another writer (a note save) commits meanwhile
                w.execute("CREATE TABLE note_saved AS SELECT 1 AS x")
        finally:
            tx.WRITE_LOCK.release()
    finally:
        release.set()
        loader.join(60)
    assert results[0].status == "loaded" and results[0].rows_loaded == 3, results[0].errors
    assert con.execute("SELECT x FROM note_saved").fetchall() == [(1,)]


# --- one bad file never takes the others down -------------------------------------------------------------------


def test_an_upload_name_with_a_300_character_extension_is_one_result(con):
    name = "ratings." + "c" * 300
    r = ingest_bytes(con, (HEADER + rows(2)).encode(), name)
    assert r.status == "loaded" and r.rows_loaded == 2, r.errors
    assert private.suffix(name) == "" and private.suffix("a.csv") == ".csv"


def test_an_unexpected_failure_is_one_sentence_without_a_server_path(con, tmp_path, monkeypatch):
    def broken(path, file_name, c):
        raise OSError(f"[Errno 5] Input/output error: '{path}'")

    monkeypatch.setattr(canonical, "parse", broken)
    f = tmp_path / "secret-folder" / "x.csv"
    f.parent.mkdir()
    f.write_text(HEADER + rows(1))
    r = ingest_file(con, f)
    assert r.status == "rejected"
    assert r.errors[0].startswith("x.csv: could not be loaded (OSError: ")
    assert "secret-folder" not in r.errors[0] and str(tmp_path) not in r.errors[0]


def test_the_data_page_loads_the_other_files_of_an_upload(app_store):
    from tests.conftest import app_test

    at = app_test("app_pages/data.py")
    uploader = at.file_uploader(key="upload_files")
    uploader.upload("deep.json", DEEP, "application/json")
    uploader.upload("ok." + "x" * 300, (HEADER + rows(2)).encode(), "text/csv")
    uploader.upload("ok.csv", (HEADER + rows(3, start=10)).encode(), "text/csv")
    at.button[0].click().run()
    assert not at.exception, at.exception
    errors = [e.value.replace("\\", "") for e in at.error]
    assert errors == [
        "deep.json was rejected, nothing was written: deep.json, line 1: JSON nested 2,000 levels deep, over the "
        "limit of 64 levels; nothing was loaded; store its records with fewer levels of nesting"
    ]
    shown = " ".join(s.value for s in at.success).replace("\\", "")
    assert "ok.csv (canonical): loaded, 3 rows loaded" in shown
    assert f"ok.{'x' * 300} (canonical): loaded, 2 rows loaded" in shown


# --- a killed load's private copy ----------------------------------------------------------------------------


KILLED = textwrap.dedent(
    """
    import sys, time
    from analytics import store
    from analytics.ingest import canonical
    from analytics.ingest.load import ingest_file

    def hang(*args):
        print("reading", flush=True)
        time.sleep(600)

    canonical.parse = hang
    ingest_file(store.open_store(sys.argv[1]), sys.argv[2])
    """
)


def test_a_killed_loads_private_copy_is_removed_at_the_next_load_and_a_live_ones_kept(con, tmp_path, monkeypatch):
    temp = tmp_path / "tmp"
    temp.mkdir()
    f = tmp_path / "a.csv"
    f.write_text(HEADER + rows(2))
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED, str(tmp_path / "other.duckdb"), str(f)],
        stdout=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == b"reading"
    child.kill()  # -9: no clean-up runs
    child.wait()
    left = [p.name for p in temp.iterdir()]
    assert len(left) == 1 and left[0].startswith(f"concord-ingest-{child.pid}-")
    live = temp / "concord-ingest-1-keep"  # process 1 runs: its folder is never removed
    live.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    assert ingest_file(con, f).status == "loaded"
    assert sorted(p.name for p in temp.iterdir()) == ["concord-ingest-1-keep"]


def test_rows_after_hundreds_of_set_aside_rows_keep_their_line_numbers(con):
    data = (HEADER + "x\n" * 300 + "t1,r1,d,1,x\n" + ",r1,d,1,x\n" + "x\n" + ",r2,d,2,x\n").encode()
    r = ingest_bytes(con, data, "short.csv")
    assert (r.rows_read, r.rows_loaded, r.rows_quarantined) == (304, 1, 303), r.errors[:3]
    lines = con.execute("SELECT line FROM quarantine WHERE field = 'task_id' ORDER BY line").fetchall()
    assert lines == [(303,), (305,)]


def test_past_ten_thousand_set_aside_rows_the_file_is_refused_in_one_message(con, monkeypatch):
    from analytics.ingest import csv_scan

    monkeypatch.setattr(csv_scan, "MAX_SET_ASIDE", 5)
    r = ingest_bytes(con, (HEADER + rows(2) + "x\n" * 6).encode(), "short.csv")
    assert r.status == "rejected"
    assert r.errors == [
        "short.csv: more than 5 rows cannot be read as rows of its header (the first: line 4, field rater_id: "
        "malformed CSV row (missing columns): 1 fields where the header has 5); nothing was loaded"
    ]


def test_a_label_studio_export_is_decoded_task_by_task(con, monkeypatch):
    import json

    from analytics.ingest import label_studio

    whole = []
    original = json.loads
    monkeypatch.setattr(json, "loads", lambda text, *a, **k: whole.append(len(text)) or original(text, *a, **k))
    tasks = [
        {"id": i, "data": {"text": "x"}, "annotations": [{"id": i, "completed_by": 1, "result": [
            {"from_name": "q", "to_name": "text", "type": "choices", "value": {"choices": ["Good"]}}]}]}
        for i in range(3)
    ]  # fmt: skip
    data = json.dumps(tasks, indent=1).encode()
    decoded = list(label_studio._tasks(data.decode(), 1, "p.json"))
    assert decoded == tasks and not whole  # never json.loads of the whole export
    r = ingest_bytes(con, data, "p.json", fmt="label_studio")
    assert (r.status, r.rows_loaded) == ("loaded", 3), r.errors
    bad = ingest_bytes(con, data[:-3] + b"}} oops]", "bad.json", fmt="label_studio")
    assert bad.status == "rejected" and bad.errors[0].startswith("bad.json, line "), bad.errors


def test_a_scales_file_past_its_limits_is_refused_before_anything_is_declared():
    import json

    from analytics.ingest.scales_file import MAX_LEVELS, MAX_SCALE_ENTRIES, ScalesError, parse_scales

    def doc(entries: int = 1, levels: int = 3) -> str:
        scale = lambda k: {"dimension": f"d{k}", "level": "nominal", "levels": [f"L{j}" for j in range(levels)]}  # noqa: E731
        return json.dumps({"scales": [scale(k) for k in range(entries)]})

    assert len(parse_scales(doc(MAX_SCALE_ENTRIES, MAX_LEVELS), "ok.json").scales) == MAX_SCALE_ENTRIES
    with pytest.raises(ScalesError, match=f"declares {MAX_SCALE_ENTRIES + 1} scales, over the limit of"):
        parse_scales(doc(MAX_SCALE_ENTRIES + 1), "s.json")
    with pytest.raises(ScalesError, match=r"scales\[0\].levels: 1,001 levels, over the limit of 1,000"):
        parse_scales(doc(levels=MAX_LEVELS + 1), "s.json")
    with pytest.raises(ScalesError, match="7.0 MB is too large for a scales file"):
        parse_scales(b" " * (7 * 2**20), "s.json")
    with pytest.raises(ScalesError, match="nested too deeply"):
        parse_scales('{"scales": ' + "[" * 5_000 + "]" * 5_000 + "}", "s.json")


def test_a_file_over_the_copy_size_is_read_by_the_transaction_as_before(con, monkeypatch):
    from analytics.ingest import staging

    monkeypatch.setattr(staging, "COPY_UP_TO_BYTES", 0)  # as a file over 256 MB: staged as a view, not copied
    data = (HEADER + rows(3) + "t3,r1,d,1,a,b\n" + ",r1,d,1,x\n").encode()
    r = ingest_bytes(con, data, "big.csv")
    assert (r.rows_read, r.rows_loaded, r.rows_quarantined) == (5, 3, 2), r.errors
    assert con.execute("SELECT line FROM quarantine ORDER BY line").fetchall() == [(5,), (6,)]


def test_a_parquet_file_in_a_store_in_memory_is_read_in_place_with_the_same_rows(con, tmp_path, monkeypatch):
    """The command line's FILE store (in memory) reads a Parquet file in each pass instead of copying it first
    (staging.keep_parsed's `rereads`); the rows kept and quarantined are those of a store in a file, which copies."""
    import duckdb

    from analytics import store as st
    from analytics.ingest import staging
    from analytics.ingest.load import ingest_file

    path = tmp_path / "ratings.parquet"
    duckdb.sql(
        """SELECT 't' || (i % 7) AS task_id, 'r' || (i % 3) AS rater_id, CASE WHEN i % 5 = 0 THEN 'researcher'
                  ELSE 'contractor' END AS role, 'study' AS rubric, 'd' || (i % 2) AS dimension,
                  CAST(1 + i % 4 AS VARCHAR) AS value, CASE WHEN i = 11 THEN 'not a date' ELSE '2026-03-02' END
                  AS submitted_at
           FROM range(40) AS x(i)"""
    ).write_parquet(str(path))
    calls: list[bool] = []
    keep = staging.keep_parsed
    monkeypatch.setattr(
        staging, "keep_parsed", lambda c, p, b=0, rereads=False: calls.append(rereads) or keep(c, p, b, rereads)
    )
    memory = st.open_store(":memory:")
    got = [ingest_file(c, str(path)) for c in (memory, con)]
    assert calls == [True, False]  # in memory: read in place; the store in a file: copied
    assert [(r.status, r.rows_loaded, r.rows_quarantined) for r in got] == [
        (got[1].status, got[1].rows_loaded, got[1].rows_quarantined)
    ] * 2
    assert got[0].rows_quarantined >= 1  # the row whose date is not a date
    query = "SELECT task_id, rater_id, role, dimension, value, submitted_at FROM ratings ORDER BY ALL"
    assert memory.execute(query).fetchall() == con.execute(query).fetchall()
    reasons = "SELECT line, record, field, reason FROM quarantine ORDER BY ALL"
    assert memory.execute(reasons).fetchall() == con.execute(reasons).fetchall()
    memory.close()
