"""Depth and size limits at ingest (docs/limits.md), NaN and infinity, line numbers, staging tables, the content
hash of exactly the loaded bytes, the upload limit, a damaged store, and rendering of stored JSON."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from analytics import store
from analytics.ingest import FORMATS, canonical, checks, limits
from analytics.ingest.load import ingest_bytes, ingest_file
from analytics.review import disagreements
from tests.cli_helpers import run_cli
from tests.conftest import ROOT, app_test

HEADER = b"task_id,rater_id,rubric,dimension,value,comment,duration_s\n"


def rows(prefix: str, n: int, start: int = 1) -> bytes:
    return b"".join(f"{prefix}{i},r1,pilot,clarity,{i % 3 + 1},ok,5\n".encode() for i in range(start, start + n))


@pytest.fixture(scope="module")
def ac_record(demo_inputs) -> dict:
    """One valid answer-comparison record (from the run's demo)."""
    with open(demo_inputs / "answer_comparison.jsonl") as f:
        return json.loads(f.readline())


def staging_objects(con) -> list[str]:
    """Temp tables and views on this connection, and any load view left in the store's main schema."""
    tables = con.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
    views = con.execute(
        "SELECT view_name FROM duckdb_views() WHERE NOT internal AND (temporary OR schema_name = 'main')"
    ).fetchall()
    return sorted(r[0] for r in tables + views)


# --- column count, line length, field length -------------------------------------------------------------------


def test_a_100k_column_csv_is_refused_before_duckdb_sniffs_it(con, monkeypatch):
    """Regression: DuckDB's sniffer took 66 s (137 s here) on a 100,000-column header before any check. The
    header is counted first, and the file refused without DuckDB reading it."""
    wide = ",".join(["task_id", "rater_id", "dimension", "value", *(f"c{i}" for i in range(100_000))]).encode()
    data = wide + b"\n" + b",".join([b"t1", b"r1", b"clarity", b"3", *([b"x"] * 100_000)]) + b"\n"
    sniffed: list = []
    sniff = canonical._csv_query
    monkeypatch.setattr(canonical, "_csv_query", lambda *args: sniffed.append(args) or sniff(*args))
    r = ingest_bytes(con, data, "wide.csv")
    assert sniffed == []
    assert r.status == "rejected"
    assert r.errors == [
        f"wide.csv, line 1 (header): 100,004 columns, over the limit of {limits.MAX_COLUMNS:,}; "
        "leave out the columns not needed or split the file into files of fewer columns"
    ]
    assert store.table_counts(con)["ingest_log"] == 0


def test_a_parquet_file_past_the_column_limit_is_refused_from_its_footer(con, tmp_path):
    """Parquet had no column limit (a CSV's header did): 5,000 columns are refused, nothing stored."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = ["task_id", "rater_id", "rubric", "dimension", "value", *(f"c{i}" for i in range(4_996))]
    pq.write_table(pa.table({n: ["x"] for n in names}), tmp_path / "wide.parquet")
    r = ingest_file(con, tmp_path / "wide.parquet")
    assert r.status == "rejected"
    assert r.errors == [
        f"wide.parquet (Parquet schema): 5,001 columns, over the limit of {limits.MAX_COLUMNS:,}; "
        "leave out the columns not needed or split the file into files of fewer columns"
    ]
    assert store.table_counts(con)["ingest_log"] == 0


def test_an_overlong_csv_line_is_quarantined_with_its_real_line_number(con):
    """Regression: a line over the limit inside the sniffer's sample failed the whole file, naming the server's
    temp path and no line."""
    long_line = b"t999,r1,pilot,clarity,2," + b"x" * (limits.MAX_LINE_BYTES + 10) + b",5\n"
    data = HEADER + rows("t", 40) + long_line + rows("u", 40)
    r = ingest_bytes(con, data, "long.csv")
    assert r.status == "loaded", r.errors
    assert (r.rows_loaded, r.rows_quarantined) == (80, 1)
    assert r.errors[0].startswith("long.csv, line 42")
    assert "over the limit of 1,048,576 bytes; shorten its longest text" in r.errors[0]
    assert "/tmp" not in " ".join(r.errors)


def test_a_csv_field_over_the_limit_is_quarantined_naming_the_field(con):
    too_long = "y" * (limits.MAX_FIELD_CHARS + 1)
    data = HEADER + rows("t", 3) + f"t9,r1,pilot,clarity,2,{too_long},5\n".encode()
    r = ingest_bytes(con, data, "field.csv")
    assert (r.status, r.rows_loaded, r.rows_quarantined) == ("loaded", 3, 1)
    assert r.errors == [
        f"field.csv, line 5, field comment: comment is {limits.MAX_FIELD_CHARS + 1:,} characters long, over the limit of "
        f"{limits.MAX_FIELD_CHARS:,}; shorten the text or leave it out of the file"
    ]


def test_an_overlong_value_never_becomes_a_level(con):
    too_long = "v" * (limits.MAX_FIELD_CHARS + 1)
    data = HEADER + rows("t", 3) + f"t9,r1,pilot,clarity,{too_long},ok,5\n".encode()
    r = ingest_bytes(con, data, "value.csv")
    assert (r.rows_loaded, r.rows_quarantined) == (3, 1)
    assert f"field value: value is {limits.MAX_FIELD_CHARS + 1:,} characters long" in r.errors[0]
    levels = con.execute("SELECT levels FROM dimensions WHERE rubric = 'pilot'").fetchall()[0][0]
    assert levels == ["1", "2", "3"]


def test_a_jsonl_line_over_the_limit_is_quarantined(con):
    good = [{"task_id": f"t{i}", "rater_id": "r1", "dimension": "clarity", "value": 2} for i in range(3)]
    big = {
        "task_id": "t9",
        "rater_id": "r1",
        "dimension": "clarity",
        "value": 2,
        "comment": "z" * limits.MAX_LINE_BYTES,
    }
    data = "\n".join(json.dumps(o) for o in [*good, big]).encode()
    r = ingest_bytes(con, data, "big.jsonl")
    assert (r.status, r.rows_loaded, r.rows_quarantined) == ("loaded", 3, 1)
    assert r.errors[0].startswith("big.jsonl, line 4: the line is ")
    assert "over the limit of 1,048,576 bytes; shorten its longest text" in r.errors[0]


# --- JSON nesting depth ----------------------------------------------------------------------------------------


def deep(levels: int) -> object:
    value: object = "bottom"
    for _ in range(levels):
        value = {"k": value}
    return value


def test_a_4kb_record_nested_975_levels_is_quarantined_at_ingest(con, ac_record):
    """Regression: it loaded, and the Disagreements page then failed for every user with a RecursionError."""
    bad = json.loads(json.dumps(ac_record))
    bad["submission_id"], bad["rater_id"] = "ac-deep", "c99"
    bad["options"]["A"]["extra"] = "DEEP"
    deep_line = json.dumps(bad).replace('"DEEP"', "[" * 975 + "]" * 975)
    data = (json.dumps(ac_record) + "\n" + deep_line + "\n").encode()
    assert len(deep_line) - len(json.dumps(ac_record)) < 4096  # the attack itself is under 4 KB
    r = ingest_bytes(con, data, "deep.jsonl")
    assert r.status == "loaded", r.errors
    assert r.rows_quarantined == 1
    # Python's reader may give up first at this depth ("far more"), else the walk names the field.
    assert any(
        e.startswith("deep.jsonl, line 2") and "levels deep, over the limit; store the record with fewer" in e
        for e in r.errors
    ), r.errors
    assert con.execute("SELECT count(*) FROM submissions WHERE submission_id = 'ac-deep'").fetchall() == [(0,)]
    q = con.execute("SELECT line, reason FROM quarantine").fetchall()
    assert q[0][0] == 2 and "over the limit; store the record with fewer levels of nesting" in q[0][1]


def test_a_record_at_the_depth_limit_loads_and_one_past_it_does_not(con, ac_record):
    ok = json.loads(json.dumps(ac_record))
    ok["options"]["A"]["extra"] = deep(limits.MAX_JSON_DEPTH - 3)  # record, options, A: three levels already
    past = json.loads(json.dumps(ac_record))
    past["submission_id"], past["rater_id"] = "ac-past", "c98"
    past["options"]["A"]["extra"] = deep(limits.MAX_JSON_DEPTH - 2)
    data = json.dumps([ok, past]).encode()
    r = ingest_bytes(con, data, "edge.json")
    assert r.status == "loaded", r.errors
    assert r.rows_quarantined == 1
    assert r.errors[0].startswith("edge.json, submission ac-past, field options: nested more than 64 levels")


def test_a_document_too_deep_for_the_json_reader_is_refused_without_a_crash(con):
    data = ("[" * 200_000 + "]" * 200_000).encode()
    r = ingest_bytes(con, data, "abyss.json", fmt="answer_comparison")
    assert r.status == "rejected"
    assert r.errors == [
        "abyss.json, line 1: JSON nested 200,000 levels deep, over the limit of 64 levels; nothing was loaded; "
        "store its records with fewer levels of nesting"
    ]


def test_a_canonical_jsonl_line_too_deep_is_quarantined(con):
    lines = [
        json.dumps({"task_id": "t1", "rater_id": "r1", "dimension": "clarity", "value": 2}),
        '{"task_id": "t2", "rater_id": "r1", "dimension": "clarity", "value": 2, "x": '
        + "[" * 100_000
        + "]" * 100_000
        + "}",
        json.dumps({"task_id": "t3", "rater_id": "r1", "dimension": "clarity", "value": 2, "x": deep(70)}),
    ]
    r = ingest_bytes(con, "\n".join(lines).encode(), "deep.jsonl")
    assert (r.status, r.rows_loaded, r.rows_quarantined) == ("loaded", 1, 2), r.errors
    assert r.errors[0] == (
        "deep.jsonl, line 2: nested far more than 64 levels deep, over the limit; "
        "store the record with fewer levels of nesting"
    )
    assert r.errors[1].startswith("deep.jsonl, line 3, field x: nested more than 64 levels deep")


def test_stored_json_is_rendered_without_recursion():
    """Regression: the Disagreements page rendered details recursively; a value stored before the limit (or
    any deep one) broke the page. Rendering is iterative and cut at a depth."""
    text = '{"options": {"A": ' + '{"k": ' * 300 + '"bottom"' + "}" * 300 + "}}"
    shown = disagreements._plain(text)
    assert shown is not None and "not shown" in shown and shown.count("\n") < 40
    unparsable = "[" * 100_000 + "]" * 100_000  # too deep even for json.loads: shown as (cut) text
    assert len(disagreements._plain(unparsable) or "") <= disagreements.MAX_SHOWN_CHARS
    assert disagreements.sources_text(unparsable) == unparsable[: disagreements.MAX_SHOWN_CHARS]
    # the usual shapes are shown as before
    assert disagreements._plain('{"a": 1, "b": [1, {"c": 2}], "e": {"f": {"g": "h"}}}') == (
        "a: 1\nb:\n  - 1\n  c: 2\ne:\n  f:\n    g: h"
    )


# --- NaN and infinity ------------------------------------------------------------------------------------------


def test_nan_and_infinity_are_refused_with_their_reason(con):
    """Regression: NaN and inf were stored, and accepted as levels on rubrics the catalogue does not know."""
    data = HEADER + rows("t", 3) + b"t7,r1,pilot,clarity,NaN,ok,5\nt8,r1,pilot,clarity,-inf,ok,5\n"
    data += b"t9,r1,pilot,clarity,2,ok,nan\nt10,r1,pilot,clarity,2,ok,Infinity\n"
    r = ingest_bytes(con, data, "nan.csv")
    assert (r.rows_loaded, r.rows_quarantined) == (3, 4)
    assert r.errors == [
        "nan.csv, line 5, field value: value NaN is not a finite number (NaN and infinity are not ratings)",
        "nan.csv, line 6, field value: value -inf is not a finite number (NaN and infinity are not ratings)",
        "nan.csv, line 7, field duration_s: duration_s nan is not a non-negative number of seconds "
        "(NaN and infinity are not numbers of seconds)",
        "nan.csv, line 8, field duration_s: duration_s Infinity is not a non-negative number of seconds "
        "(NaN and infinity are not numbers of seconds)",
    ]
    assert con.execute("SELECT levels FROM dimensions WHERE rubric = 'pilot'").fetchall() == [(["1", "2", "3"],)]
    assert con.execute("SELECT count(*) FROM ratings WHERE NOT isfinite(duration_s)").fetchall() == [(0,)]


def test_nan_in_json_is_refused_not_read_as_missing(con):
    lines = [
        '{"task_id": "t1", "rater_id": "r1", "dimension": "clarity", "value": 2}',
        '{"task_id": "t2", "rater_id": "r1", "dimension": "clarity", "value": NaN}',
        '{"task_id": "t3", "rater_id": "r1", "dimension": "clarity", "value": Infinity}',
        '{"task_id": "t4", "rater_id": "r1", "dimension": "clarity", "value": 3, "duration_s": NaN}',
    ]
    r = ingest_bytes(con, "\n".join(lines).encode(), "nan.jsonl")
    assert (r.rows_loaded, r.rows_quarantined) == (1, 3)
    assert "line 2, field value: value NaN is not a finite number" in r.errors[0]
    assert "line 3, field value: value inf is not a finite number" in r.errors[1]
    assert "line 4, field duration_s: duration_s NaN is not a non-negative number" in r.errors[2]


def test_nan_in_a_submission_record_is_refused_and_its_json_stays_valid(con, ac_record):
    rec = json.loads(json.dumps(ac_record))
    rec["duration_s"] = float("nan")
    rec["options"]["A"]["score_hint"] = float("inf")  # lands in the submission's details JSON
    r = ingest_bytes(con, json.dumps(rec).encode(), "nan_ac.jsonl")  # json.dumps writes NaN and Infinity
    assert r.status == "loaded", r.errors
    assert r.rows_loaded == 0 and r.rows_quarantined > 0
    assert all("duration_s nan is not a non-negative number of seconds" in e for e in r.errors)
    assert "inf" in con.execute("SELECT details FROM submissions").fetchall()[0][0]  # valid JSON, as text
    assert con.execute("SELECT duration_s FROM submissions").fetchall() == [(None,)]


# --- staging tables --------------------------------------------------------------------------------------------


def test_no_staging_table_or_view_is_left_after_a_load(con):
    """Regression: a CSV load left stage_canonical (a full copy of the file) and the CSV reject tables on the
    connection."""
    assert staging_objects(con) == []
    r = ingest_bytes(con, HEADER + rows("t", 50) + b"t99,r1\n", "a.csv")
    assert r.status == "loaded" and r.rows_quarantined == 1
    assert staging_objects(con) == []
    shown = b"task_id,rater_id,rubric,dimension,target,value,shown_first\nac-1,c1,answer_comparison,"
    shown += b"usefulness_comparison,comparison,Left better,B\n"
    assert ingest_bytes(con, shown, "shown.csv").status == "loaded"
    assert staging_objects(con) == []
    assert ingest_bytes(con, b"task_id,rater_id,dimension,value\n" + b"\x00", "bin.csv").status == "rejected"
    assert ingest_bytes(con, b"task_id,rater_id\nt1,r1\n", "cols.csv").status == "rejected"
    assert staging_objects(con) == []
    jsonl = b'{"task_id": "t1", "rater_id": "r9", "dimension": "clarity", "value": 2}\n'
    assert ingest_bytes(con, jsonl, "a.jsonl").status == "loaded"
    assert staging_objects(con) == []


# --- the content hash is that of the loaded bytes ----------------------------------------------------------------


def test_a_file_changed_while_loading_is_recorded_under_the_bytes_loaded(con, tmp_path, monkeypatch):
    """Regression: the hash was taken, then the file read again; a file changed in between was recorded under the
    other bytes' hash, and the later real load said already_loaded, its rows lost."""
    path = tmp_path / "batch.csv"
    first, second = HEADER + rows("a", 5), HEADER + rows("b", 7)
    path.write_bytes(first)
    real_parse = FORMATS["canonical"].parse

    def parse_after_a_change(p, name, c):
        path.write_bytes(second)  # the source is rewritten while the load is under way
        return real_parse(p, name, c)

    monkeypatch.setattr(FORMATS["canonical"], "parse", parse_after_a_change)
    r = ingest_file(con, path)
    monkeypatch.setattr(FORMATS["canonical"], "parse", real_parse)
    assert (r.status, r.rows_loaded) == ("loaded", 5)  # the bytes that were hashed
    assert con.execute("SELECT DISTINCT left(task_id, 1) FROM ratings").fetchall() == [("a",)]
    again = ingest_bytes(con, second, "batch.csv")
    assert (again.status, again.rows_loaded) == ("loaded", 7)
    assert ingest_bytes(con, first, "batch.csv").status == "already_loaded"


def test_a_file_that_changes_while_it_is_read_is_refused(con, tmp_path, monkeypatch):
    path = tmp_path / "growing.csv"
    path.write_bytes(HEADER + rows("a", 5))
    calls = []
    real = checks.signature

    def signature(p):
        calls.append(p)
        size, mtime = real(p)
        return (size + len(calls) - 1, mtime)  # differs before and after the copy

    monkeypatch.setattr(checks, "signature", signature)
    r = ingest_file(con, path)
    assert r.status == "rejected"
    assert r.errors == [
        "growing.csv changed while it was being loaded (its size or modification time differs); nothing was "
        "written. Load it again once it is complete."
    ]
    assert store.table_counts(con)["ratings"] == 0


# --- the upload limit ------------------------------------------------------------------------------------------


def test_one_upload_limit_in_the_server_config():
    """Regression: the uploader advertised 2 GB while the server refused more than 200 MB with a raw 413."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] == "none"
    limit = config["server"]["maxUploadSize"]
    assert isinstance(limit, int) and limit > 0
    from streamlit import config as st_config

    st_config.get_config_options(force_reparse=True)
    assert st_config.get_option("server.maxUploadSize") == limit


def test_an_upload_over_the_limit_is_refused_naming_the_command_line(con):
    data = HEADER + rows("t", 3) + b"#" * (2 * 2**20)
    r = ingest_bytes(con, data, "big.csv", upload_limit_mb=2)
    assert r.status == "rejected"
    assert r.errors == [
        "big.csv is 2.0 MB, over the upload limit of 2 MB; load larger files with the command line: "
        "python -m analytics ingest FILE"
    ]


def test_the_uploader_shows_and_enforces_the_server_limit(app_store):
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    limit = config["server"]["maxUploadSize"]
    at = app_test("app_pages/data.py")
    assert not at.exception
    uploader = at.get("file_uploader")[0]
    assert uploader.proto.max_upload_size_mb == limit
    assert f"Up to {limit} MB per file" in uploader.proto.help
    assert "python -m analytics ingest FILE" in uploader.proto.help


# --- a damaged store -------------------------------------------------------------------------------------------


@pytest.fixture
def cut_store(demo_store, tmp_path) -> Path:
    """The demo store cut to 80% of its bytes: it opens, but its blocks are missing."""
    raw = demo_store.read_bytes()
    path = tmp_path / "cut.duckdb"
    path.write_bytes(raw[: int(len(raw) * 0.8)])
    return path


def test_a_truncated_store_says_what_happened_and_what_to_do(cut_store):
    """Regression: the store opened and every page then failed with a raw IO error naming block offsets."""
    with pytest.raises(store.StoreError) as caught:
        store.open_store(cut_store)
    msg = str(caught.value)
    assert msg.startswith(f"The store {cut_store} is not a readable DuckDB file (truncated)")
    assert msg.endswith(store.DAMAGED_HINT)
    assert "CONCORD_DB" in msg and "backup" in msg


def test_the_command_line_exits_2_with_the_same_sentence(cut_store, tmp_path):
    upload = tmp_path / "x.csv"
    upload.write_bytes(HEADER + rows("t", 2))
    out = run_cli("ingest", str(upload), "--db", str(cut_store))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith(store.DAMAGED_HINT) and "(truncated)" in lines[0]


def test_the_app_shows_one_page_for_a_damaged_store(cut_store, monkeypatch, tmp_path):
    import streamlit as st

    monkeypatch.setenv("CONCORD_DB", str(cut_store))
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "no-demo"))
    st.cache_resource.clear()
    st.cache_data.clear()
    at = app_test()
    assert not at.exception
    assert len(at.error) == 1 and at.error[0].value.endswith(store.DAMAGED_HINT)


def test_a_damage_found_by_a_query_shows_the_sentence_not_a_traceback(app_store, monkeypatch):
    """A cut the open check cannot see fails in a query: app.py turns it into the same sentence."""
    import duckdb
    import streamlit as st

    from analytics.describe import overview

    def broken(*args, **kwargs):
        raise duckdb.IOException(
            'IO Error: Could not read enough bytes from file "/srv/secret/concord.duckdb": attempted to read 262144'
        )

    monkeypatch.setattr(overview, "activity", broken)  # the Overview page's first query
    st.cache_data.clear()
    monkeypatch.setenv("CONCORD_GUARD_UNDER_TEST", "1")
    at = app_test()
    assert not at.exception
    shown = " ".join(e.value for e in at.error)
    assert store.DAMAGED_HINT in shown
    assert "/srv/secret" not in shown and "Traceback" not in shown


def test_an_unexpected_error_on_a_page_is_one_sentence(app_store, monkeypatch):
    import streamlit as st

    from analytics.describe import overview

    def boom(*args, **kwargs):
        raise RuntimeError("/srv/secret/path/module.py exploded")

    monkeypatch.setattr(overview, "activity", boom)
    st.cache_data.clear()
    monkeypatch.setenv("CONCORD_GUARD_UNDER_TEST", "1")
    at = app_test()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "This page could not be shown because of an unexpected error; the details are in the server's log. "
        "Try another page or reload, and report it if it persists."
    ]
    page_text = " ".join(str(getattr(e, "value", "")) for e in at.main)
    assert "/srv/secret" not in page_text


def test_limits_are_documented():
    text = (ROOT / "docs" / "limits.md").read_text()
    for number in (limits.MAX_JSON_DEPTH, limits.MAX_FIELD_CHARS, limits.MAX_COLUMNS, limits.MAX_LINE_BYTES):
        assert f"{number:,}" in text, number
    assert "maxUploadSize" in text and "python -m analytics ingest" in text
    assert (
        "docs/limits.md" in (ROOT / "docs" / "formats.md").read_text()
        or "limits.md" in (ROOT / "docs" / "formats.md").read_text()
    )


def test_a_load_reports_its_progress_in_order(con, tmp_path):
    """Long loads show progress (Data page bar, command line on a terminal): the stages come in order, the
    share never goes back, and a loaded file ends at 1.0 with its status."""
    path = tmp_path / "ok.csv"
    path.write_bytes(HEADER + rows("t", 50))
    seen: list[tuple[float, str]] = []
    r = ingest_file(con, path, on_progress=lambda share, stage: seen.append((share, stage)))
    assert r.status == "loaded"
    shares = [s for s, _ in seen]
    assert shares == sorted(shares) and shares[-1] == 1.0
    assert [st for _, st in seen] == ["reading", "checking rows", "writing", "committing", "loaded"]
    rejected: list[tuple[float, str]] = []
    bad = tmp_path / "empty.csv"
    bad.write_bytes(b"")
    assert ingest_file(con, bad, on_progress=lambda s, st: rejected.append((s, st))).status == "rejected"
    assert all(s < 1.0 for s, _ in rejected)


def test_the_command_line_shows_progress_on_a_terminal(tmp_path):
    """On a terminal `ingest` rewrites one line per file on stderr; piped (as here) it prints none."""
    path = tmp_path / "ok.csv"
    path.write_bytes(HEADER + rows("t", 20))
    done = run_cli("ingest", str(path), "--db", str(tmp_path / "s.duckdb"), terminal=True)  # stderr is a terminal
    assert done.returncode == 0
    text = done.stderr
    assert "ok.csv: reading (25%)" in text and "ok.csv: loaded (100%)" in text
    piped = run_cli("ingest", str(path), "--db", str(tmp_path / "t.duckdb"))
    assert piped.returncode == 0 and "(25%)" not in piped.stderr
