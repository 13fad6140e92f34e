"""Fuzzing the loaders (hypothesis): random bytes, and valid files of every format mutated byte by byte, value by
value and in their structure, never make ingest_bytes raise. Whatever comes in, the store stays consistent:
a rejected (or already loaded) file changes no table's row count and not the dataset version; a loaded file
adds exactly one ingest_log row, its rows_loaded ratings, and satisfies loaded + quarantined == read.

Protection checked: ingest_file's contract ("never raises for bad input") and its one-transaction-per-file
rollback, across all six inputs (canonical CSV and JSONL, the four JSON document formats).
"""

from __future__ import annotations

import copy
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytics import store
from analytics.ingest.load import IngestResult, ingest_bytes
from tests.test_ingest_bad_input import (
    AC,
    AL_FILE,
    IF,
    PR,
    answer_comparison,
    instruction_following,
    likert_file,
    preference_ranking,
    topic,
)

# CONCORD_FUZZ_EXAMPLES raises the examples per test for a longer hunt (the default keeps the file ~30 s).
EXAMPLES = int(os.environ.get("CONCORD_FUZZ_EXAMPLES", "20"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

EXTRA = {"submitted_at": "2026-03-02T14:05:11Z", "duration_s": 412.5, "comment": "fine"}
CANONICAL_ROWS = [
    {"task_id": "t1", "rater_id": "c1", "role": "contractor", "rubric": "answer_comparison",
     "dimension": "usefulness_comparison", "target": "comparison", "value": "A better", **EXTRA},
    {"task_id": "t1", "rater_id": "r1", "role": "researcher", "rubric": "answer_comparison",
     "dimension": "usefulness_comparison", "target": "comparison", "value": "A much better", **EXTRA},
    {"task_id": "t2", "rater_id": "c1", "rubric": "pilot", "dimension": "clarity", "value": 3},
]  # fmt: skip
CSV_COLUMNS = ["task_id", "rater_id", "role", "rubric", "dimension", "target", "value", "submitted_at", "duration_s"]


def csv_bytes(rows: list[dict]) -> bytes:
    """Rows as a canonical CSV (missing fields empty)."""
    lines = [",".join(CSV_COLUMNS)] + [",".join(str(r.get(c, "")) for c in CSV_COLUMNS) for r in rows]
    return ("\n".join(lines) + "\n").encode()


def jsonl_bytes(records: list) -> bytes:
    """Records as JSON lines."""
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


# Each format: its file name, its valid records, and how records become bytes.
DOCS = {
    "canonical_jsonl": ("ratings.jsonl", CANONICAL_ROWS, jsonl_bytes),
    "answer_comparison": (AC, [answer_comparison("c1", **EXTRA), answer_comparison("r1", role="researcher")],
                          jsonl_bytes),
    "instruction_following": (IF, [instruction_following("c1", **EXTRA), instruction_following("c2")], jsonl_bytes),
    "preference_ranking": (PR, [preference_ranking("c1", **EXTRA), preference_ranking("c2", accuracy=3)],
                           jsonl_bytes),
    "article_likert": (AL_FILE, [topic("Apollo 11"), topic("Cricket final", second=0)],
                       lambda records: json.dumps(records, indent=1).encode()),
}  # fmt: skip
FILES = {name: (file_name, encode(records)) for name, (file_name, records, encode) in DOCS.items()}
FILES["canonical_csv"] = ("ratings.csv", csv_bytes(CANONICAL_ROWS))
FILES["article_likert_classic"] = (AL_FILE, likert_file())


def all_counts(con) -> dict[str, int]:
    """Row counts of every table in the store, and the dataset version."""
    tables = [r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE'"
    ).fetchall()]  # fmt: skip
    # Every table counted in one query (it runs twice per example: one query per table cost more than the load).
    counts = dict(con.execute(" UNION ALL ".join(f"SELECT '{t}', count(*) FROM \"{t}\"" for t in tables)).fetchall())
    return {**counts, "version": store.dataset_version(con)}


def check(con, data: bytes, file_name: str, fmt: str = "auto") -> IngestResult:
    """Load `data` and check the store's invariants around it."""
    before = all_counts(con)
    result = ingest_bytes(con, data, file_name, fmt=fmt)  # must not raise
    after = all_counts(con)
    assert isinstance(result, IngestResult)
    assert all(isinstance(e, str) and e for e in result.errors), result.errors
    if result.status in ("rejected", "already_loaded"):
        assert after == before, (result.status, result.errors)
        assert result.rows_loaded == result.rows_quarantined == 0
        assert result.errors  # a reason is always given
    else:
        assert result.status == "loaded", result.status
        assert result.rows_loaded + result.rows_quarantined == result.rows_read
        assert after["ingest_log"] == before["ingest_log"] + 1
        assert after["ratings"] == before["ratings"] + result.rows_loaded
        assert after["quarantine"] >= before["quarantine"] + result.rows_quarantined
        assert after["version"] == before["version"] + 1
        logged = con.execute(
            "SELECT rows_read, rows_loaded, rows_quarantined FROM ingest_log ORDER BY ingest_id DESC LIMIT 1"
        ).fetchall()[0]
        assert logged == (result.rows_read, result.rows_loaded, result.rows_quarantined)
    return result


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory):
    """One store for the module that already holds every valid sample, so mutants also meet earlier files'
    ratings (the checks compare each load with the state just before it)."""
    con = store.open_store(tmp_path_factory.mktemp("fuzz") / "fuzz.duckdb")
    for file_name, data in FILES.values():
        assert ingest_bytes(con, data, file_name).status == "loaded"
    yield con
    # Whatever was thrown at it, the store still takes a new valid file.
    fresh = csv_bytes([{**CANONICAL_ROWS[0], "task_id": "after-fuzz"}])
    assert ingest_bytes(con, fresh, "after.csv").status == "loaded"
    con.close()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def paths(obj, prefix=()) -> list[tuple]:
    """Every path (keys and indices) into a JSON document, the root first."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, (*prefix, i))
    return out


def mutate_json(data: st.DataObject, records: list) -> list:
    """The records with one to four values replaced, removed, retyped or duplicated."""
    doc = copy.deepcopy(records)
    for _ in range(data.draw(st.integers(1, 4))):
        inner = paths(doc)[1:]
        if not inner:
            break
        path = data.draw(st.sampled_from(inner))
        *parent_path, last = path
        parent = doc
        for key in parent_path:
            parent = parent[key]
        op = data.draw(st.sampled_from(["replace", "delete", "stringify", "duplicate", "add_key"]))
        if op == "replace":
            parent[last] = data.draw(json_values)
        elif op == "delete":
            del parent[last]
        elif op == "stringify":
            parent[last] = json.dumps(parent[last])
        elif op == "duplicate" and isinstance(parent, list):
            parent.insert(last, copy.deepcopy(parent[last]))
        elif isinstance(parent[last], dict):
            parent[last][data.draw(st.text(max_size=12))] = data.draw(json_values)
    return doc


@pytest.mark.parametrize("name", DOCS.keys())
@FUZZ
@given(data=st.data())
def test_mutated_json_values(fuzz_store, name, data):
    """Any value of a valid document replaced, removed, retyped or duplicated."""
    file_name, records, encode = DOCS[name]
    mutated = mutate_json(data, records)
    try:
        raw = encode(mutated)
    except (TypeError, ValueError):  # e.g. a dict key that is not a string: not a file anyone can write
        return
    fmt = data.draw(st.sampled_from(["auto", "canonical" if name == "canonical_jsonl" else name]))
    check(fuzz_store, raw, file_name, fmt)


STRUCTURES = {
    "array": lambda records: json.dumps(records).encode(),
    "one_record": lambda records: json.dumps(records[0]).encode(),
    "keyed": lambda records: json.dumps({str(i): r for i, r in enumerate(records)}).encode(),
    "nested": lambda records: json.dumps([records]).encode(),
    "wrapped": lambda records: json.dumps({"data": records}).encode(),
    "jsonl_of_arrays": lambda records: jsonl_bytes([[r] for r in records]),
    "scalars": lambda records: jsonl_bytes([1, "two", None, True]),
    "no_marker": lambda records: jsonl_bytes([{k: v for k, v in r.items() if k != "format"} for r in records]),
    "empty_objects": lambda records: jsonl_bytes([{}, {}]),
}


@pytest.mark.parametrize("structure", STRUCTURES.keys())
@pytest.mark.parametrize("name", DOCS.keys())
def test_other_structures(fuzz_store, name, structure):
    """The same records in another shape: one document, keyed, nested, wrapped, scalars, no format marker."""
    file_name, records, _ = DOCS[name]
    raw = STRUCTURES[structure](records)
    for k, fmt in enumerate(("auto", "canonical" if name == "canonical_jsonl" else name)):
        check(fuzz_store, raw + b"\n" * k, file_name, fmt)  # other bytes, so the second is not already loaded


def mutate_bytes(data: st.DataObject, raw: bytes) -> bytes:
    """The bytes with one to five flips, deletions, insertions, duplications or a truncation."""
    b = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 5))):
        if not b:
            break
        i = data.draw(st.integers(0, len(b) - 1))
        j = data.draw(st.integers(i, min(len(b), i + 40)))
        op = data.draw(st.sampled_from(["flip", "delete", "insert", "duplicate", "truncate", "special"]))
        if op == "flip":
            b[i] = data.draw(st.integers(0, 255))
        elif op == "delete":
            del b[i:j]
        elif op == "insert":
            b[i:i] = data.draw(st.binary(min_size=1, max_size=20))
        elif op == "duplicate":
            b[i:i] = b[i:j]
        elif op == "truncate":
            del b[i:]
        else:  # bytes that parsers treat specially
            b[i:i] = data.draw(st.sampled_from([b'"', b",", b";", b"\t", b"\r", b"\n", b"\\", b"{", b"]", b"\xef\xbb\xbf",
                                                b"\xff", b"\x00", b"\xe2\x80\xa8", b"NaN", b"1e309"]))  # fmt: skip
    return bytes(b)


@pytest.mark.parametrize("name", FILES.keys())
@FUZZ
@given(data=st.data())
def test_mutated_bytes(fuzz_store, name, data):
    """A valid file of each format with a few bytes flipped, cut, inserted or duplicated."""
    file_name, raw = FILES[name]
    check(fuzz_store, mutate_bytes(data, raw), file_name)


cells = st.text(max_size=12) | st.sampled_from(['"', '""', "a,b", "x\ny", "\r", "5", "-1", "1e400", "2026-13-45", ""])


@FUZZ
@given(data=st.data())
def test_mutated_csv_cells(fuzz_store, data):
    """Canonical CSV rows whose cells hold quotes, delimiters, newlines, odd numbers and dates."""
    rows = copy.deepcopy(CANONICAL_ROWS) * data.draw(st.integers(1, 3))
    for _ in range(data.draw(st.integers(1, 6))):
        row = data.draw(st.sampled_from(rows))
        row[data.draw(st.sampled_from(CSV_COLUMNS))] = data.draw(cells)
    check(fuzz_store, csv_bytes(rows), "ratings.csv")


@settings(max_examples=2 * EXAMPLES, deadline=None)
@given(
    raw=st.binary(max_size=600) | st.text(max_size=300).map(str.encode),
    file_name=st.sampled_from([f for f, _ in FILES.values()] + ["x.parquet", "x.txt", ""]),
)
def test_random_input(fuzz_store, raw, file_name):
    """Arbitrary bytes or text under every format's file name."""
    check(fuzz_store, raw, file_name)
