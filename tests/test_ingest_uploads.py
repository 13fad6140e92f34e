"""What people actually upload: files over the size limit, archives and binaries named .csv, file names with
path separators, byte order marks, Windows line endings, other delimiters, mixed types in one column, dates in
several spellings. Each rejected file leaves every table and the dataset version as they were and writes no
ingest_log row; each accepted one gives the same ratings as its plain UTF-8/LF/comma twin.
(Empty files, other encodings and malformed rows are in tests/test_ingest_bad_input.py.)
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gzip
import io
import tempfile
import zipfile
from collections.abc import Callable

import duckdb
import pytest

from analytics.ingest.checks import max_bytes
from analytics.ingest.load import ingest_bytes
from tests.conftest import connect_copy
from tests.test_ingest_bad_input import SAMPLES, answer_comparison, canonical_csv, csv_row, jsonl, stored_counts

CANONICAL = SAMPLES["canonical"][0]


def ratings(con) -> list[tuple]:
    """Every stored rating without its ingest id, in a fixed order."""
    return con.execute("SELECT * EXCLUDE (ingest_id) FROM ratings ORDER BY ALL").fetchall()


def assert_rejected_unchanged(con, result, before: dict, *says: str) -> None:
    """The file was rejected with one message naming `says`, and nothing was written."""
    assert result.status == "rejected", result.errors
    assert len(result.errors) == 1 and all(s in result.errors[0] for s in says), result.errors
    assert stored_counts(con) == before


def test_a_file_over_the_size_limit_is_rejected_and_writes_nothing(con, monkeypatch):
    """Protection: the size check in checks.check_file, reading CONCORD_MAX_UPLOAD_MB at each call (not only
    at import), runs before anything is parsed or written."""
    rows = "".join(csv_row("c1", "A better", task=f"t{i:06d}") for i in range(20_000))
    data = canonical_csv(rows)
    assert 1.5 * 2**20 < len(data) < 2 * 2**20
    monkeypatch.setenv("CONCORD_MAX_UPLOAD_MB", "1")
    assert max_bytes() == 2**20
    before = stored_counts(con)
    result = ingest_bytes(con, data, "big.csv")
    assert_rejected_unchanged(con, result, before, "big.csv is 1.", "MB, over the limit of 1 MB")
    monkeypatch.setenv("CONCORD_MAX_UPLOAD_MB", "2")
    assert ingest_bytes(con, data, "big.csv").rows_loaded == 20_002  # the same file under a higher limit


def test_an_unreadable_size_limit_is_a_clear_error(monkeypatch):
    """Protection: a mistyped CONCORD_MAX_UPLOAD_MB is named, not read as some other limit."""
    monkeypatch.setenv("CONCORD_MAX_UPLOAD_MB", "2GB")
    with pytest.raises(ValueError, match="CONCORD_MAX_UPLOAD_MB must be a whole number of megabytes.*'2GB'"):
        max_bytes()


def _zip(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(name, data)
    return buf.getvalue()


BINARIES = {
    "zip": (_zip("ratings.csv", CANONICAL), "is a zip archive, not a ratings file"),
    "xlsx": (_zip("xl/workbook.xml", b"<workbook/>"), "is a zip archive, not a ratings file"),
    "gzip": (gzip.compress(CANONICAL), "is a gzip archive"),
    "pdf": (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", "is a PDF document"),
    "png": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "is a binary file, not text (a NUL byte at offset 8)"),
    "utf16": (CANONICAL.decode().encode("utf-16"), "is UTF-16 text; save it as UTF-8"),
}


@pytest.mark.parametrize(("data", "says"), BINARIES.values(), ids=BINARIES.keys())
def test_archives_and_binaries_named_csv_are_rejected(con, data, says):
    """Protection: the magic-byte, UTF-16 and NUL checks in checks.check_file look at the bytes, not the name."""
    ingest_bytes(con, (CANONICAL.decode() + csv_row("c9", "A better", task="t0")).encode(), "earlier.csv")
    before = stored_counts(con)
    result = ingest_bytes(con, data, "ratings.csv")
    assert_rejected_unchanged(con, result, before, "ratings.csv", says)


NAMES = {
    "../../etc/passwd.csv": "passwd.csv",
    "a\\b.csv": "b.csv",
    "/abs/path/r.csv": "r.csv",
    "C:\\Users\\me\\Desktop\\r.csv": "r.csv",
    "..": "upload",
    "": "upload",
}


@pytest.mark.parametrize(("name", "stored"), NAMES.items(), ids=list(NAMES))
def test_file_names_with_path_separators_keep_only_the_base_name(con, tmp_path, monkeypatch, name, stored):
    """Protection: ingest_bytes keeps the base name only and writes the upload to its own temporary folder
    (as upload<suffix>), so a name cannot place or overwrite a file anywhere."""
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    store_files = {tmp_path / "store.duckdb", tmp_path / "store.duckdb.wal"}  # the `con` fixture's own store
    before = sorted(p for p in tmp_path.rglob("*") if p not in store_files)
    result = ingest_bytes(con, CANONICAL, name)
    assert result.status == "loaded" and result.file == stored, result.errors
    assert con.execute("SELECT file_name FROM ingest_log").fetchall() == [(stored,)]
    assert (
        sorted(p for p in tmp_path.rglob("*") if p not in store_files) == before
    )  # nothing written (the temp folder is gone again)
    assert not (tmp_path / "etc").exists()


VARIANTS = {
    "crlf": lambda b: b.replace(b"\n", b"\r\n"),
    "bom": lambda b: b"\xef\xbb\xbf" + b,
    "bom_crlf": lambda b: b"\xef\xbb\xbf" + b.replace(b"\n", b"\r\n"),
}


Loaded = tuple[tuple[str, int, int], list[tuple]]


@pytest.fixture(scope="module")
def plain_load(empty_store, tmp_path_factory) -> Callable[..., Loaded]:
    """How a plain file loads into a new store: (status, rows loaded, rows quarantined) and its ratings. Each
    plain file is loaded once for the module (its own new store each), however many variants compare with it."""
    folder = tmp_path_factory.mktemp("plain")
    loaded: dict[tuple, Loaded] = {}

    def load(data: bytes, file_name: str, undated_at: dt.datetime | None = None) -> Loaded:
        key = (data, file_name, undated_at)
        if key not in loaded:
            with contextlib.closing(connect_copy(empty_store, folder / f"{len(loaded)}.duckdb")) as plain:
                first = ingest_bytes(plain, data, file_name, undated_at=undated_at)
                loaded[key] = ((first.status, first.rows_loaded, first.rows_quarantined), ratings(plain))
        return loaded[key]

    return load


@pytest.mark.parametrize("variant", VARIANTS.keys())
@pytest.mark.parametrize(("data", "file_name"), SAMPLES.values(), ids=SAMPLES.keys())
def test_bom_and_windows_line_endings_give_the_same_ratings(con, plain_load, data, file_name, variant):
    """Protection: every adapter reads UTF-8 with a byte order mark (utf-8-sig) and CRLF line ends, and no
    value keeps a stray '\\r' or '\\ufeff'."""
    odd = con
    when = dt.datetime(2026, 3, 2, 9, 0)  # undated formats (article Likert) get this, not the load time
    first, plain_ratings = plain_load(data, file_name, undated_at=when)
    second = ingest_bytes(odd, VARIANTS[variant](data), file_name, undated_at=when)
    assert (second.status, second.rows_loaded, second.rows_quarantined) == first, second.errors
    assert ratings(odd) == plain_ratings
    texts = odd.execute("SELECT task_id || rater_id || dimension || target || value FROM ratings").fetchall()
    assert not any("\r" in t or "\ufeff" in t for (t,) in texts)


DELIMITED = [
    ("task_id", "rater_id", "role", "rubric", "dimension", "target", "value", "comment"),
    ("t1", "c1", "contractor", "answer_comparison", "usefulness_comparison", "comparison", "A better", "one, two"),
    ("t1", "c2", "contractor", "answer_comparison", "usefulness_comparison", "comparison", "B better", "three"),
]


def delimited(sep: str) -> bytes:
    """DELIMITED joined by `sep`, fields holding the separator or a comma quoted."""
    quote = lambda f: f'"{f}"' if sep in f or "," in f else f  # noqa: E731
    return "".join(sep.join(quote(f) for f in row) + "\n" for row in DELIMITED).encode()


@pytest.mark.parametrize("sep", [";", "\t", "|"], ids=["semicolon", "tab", "pipe"])
def test_other_csv_delimiters_are_detected(con, plain_load, sep):
    """Protection: DuckDB's CSV sniffer (canonical adapter) finds the delimiter, as docs/formats.md says; a
    comment holding a comma stays one field."""
    odd = con
    (_, plain_loaded, _), plain_ratings = plain_load(delimited(","), "r.csv")
    assert plain_loaded == 2
    result = ingest_bytes(odd, delimited(sep), "r.csv")
    assert (result.status, result.rows_loaded, result.rows_quarantined) == ("loaded", 2, 0), result.errors
    assert ratings(odd) == plain_ratings
    assert sorted(r[0] for r in odd.execute("SELECT comment FROM ratings").fetchall()) == ["one, two", "three"]


def test_a_semicolon_file_whose_header_is_not_split_is_rejected_with_its_columns(con):
    """Protection: when no delimiter splits the header into the required columns, the rejection names the
    columns found instead of loading garbage."""
    before = stored_counts(con)
    data = b"task_id rater_id dimension value\nt1 c1 d 3\n"
    result = ingest_bytes(con, data, "spaces.csv")
    assert_rejected_unchanged(con, result, before, "spaces.csv, line 1 (header): missing required column")


MIXED = ["4", "five", "3.0", " 2 ", "x3", "4.5", "", "5"]
#        ok   text    ok     ok    text  half  missing  ok


def test_mixed_numbers_and_text_in_the_value_column_of_a_known_rubric(con):
    """Protection: values are checked against the catalogue's scale one combination at a time; text on a
    numeric scale is quarantined with its line, field and value, the numbers load."""
    rows = "".join(f"t{i},c1,article_likert,likert,first,{v}\n" for i, v in enumerate(MIXED))
    result = ingest_bytes(con, ("task_id,rater_id,rubric,dimension,target,value\n" + rows).encode(), "mixed.csv")
    assert (result.status, result.rows_loaded, result.rows_quarantined) == ("loaded", 4, 4), result.errors
    assert sorted(r[0] for r in con.execute("SELECT value FROM ratings").fetchall()) == ["2", "3", "4", "5"]
    reasons = dict(con.execute("SELECT line, reason FROM quarantine").fetchall())
    assert "mixed.csv, line 3, field value: value five is not on the scale of article_likert/likert" in reasons[3]
    assert "value x3 is not on the scale" in reasons[6]
    assert "half or fractional scores are not allowed" in reasons[7]
    assert "mixed.csv, line 8, field value: missing required field value" == reasons[8]


def test_mixed_json_types_in_the_value_field_of_a_known_rubric(con):
    """Protection: the same checks for JSONL, where a value may be a number, a string, a bool or a list."""
    values = [4, "five", 3.0, True, [1], {"v": 2}, "2", None]
    records = [{"task_id": f"t{i}", "rater_id": "c1", "rubric": "article_likert", "dimension": "likert",
                "target": "first", "value": v} for i, v in enumerate(values)]  # fmt: skip
    result = ingest_bytes(con, jsonl(*records), "mixed.jsonl")
    assert result.status == "loaded", result.errors
    assert result.rows_loaded + result.rows_quarantined == len(values)
    loaded = sorted(r[0] for r in con.execute("SELECT value FROM ratings").fetchall())
    assert loaded == ["2", "3", "4"]
    lines = {r[0] for r in con.execute("SELECT line FROM quarantine").fetchall()}
    assert lines == {2, 4, 5, 6, 8}, result.errors


UTC_1405 = dt.datetime(2026, 3, 2, 14, 5, 11)
DATES = {
    # accepted: ISO 8601 with or without time, 'T' or space, fractions, a zone (stored in UTC), year first
    "2026-03-02": dt.datetime(2026, 3, 2),
    "2026-03-02T14:05:11": UTC_1405,
    "2026-03-02 14:05": dt.datetime(2026, 3, 2, 14, 5),
    "2026-03-02T14:05:11.250": UTC_1405.replace(microsecond=250_000),
    "2026-03-02T14:05:11Z": UTC_1405,
    "2026-03-02T16:05:11+02:00": UTC_1405,
    "2026-03-02T08:35:11-05:30": UTC_1405,
    "2026/03/02": dt.datetime(2026, 3, 2),
    # quarantined: day or month first is ambiguous (02.03 is 2 March or 3 February), impossible dates, epochs
    "02.03.2026": None,
    "03/02/2026": None,
    "2026-02-30": None,
    "1772460311": None,
    "last Tuesday": None,
}


def test_dates_in_several_spellings_canonical_csv(con):
    """Protection: ingest/staging.py parses submitted_at once per row (converting a zone to UTC, which a plain cast
    to TIMESTAMP would drop) and quarantines what is not a date with a reason that asks for ISO 8601."""
    con.execute("SET TimeZone = 'Asia/Kolkata'")  # the result must not depend on the session's zone
    rows = "".join(f"t{i},c1,d,3,{d}\n" for i, d in enumerate(DATES))
    result = ingest_bytes(con, ("task_id,rater_id,dimension,value,submitted_at\n" + rows).encode(), "dates.csv")
    bad = [d for d, want in DATES.items() if want is None]
    assert (result.status, result.rows_loaded, result.rows_quarantined) == ("loaded", len(DATES) - len(bad), len(bad))
    stored = dict(con.execute("SELECT task_id, submitted_at FROM ratings").fetchall())
    for i, (text, want) in enumerate(DATES.items()):
        if want is not None:
            assert stored[f"t{i}"] == want, text
    # The quarantine keeps the refused field's own value: the date as written, not the rating "3".
    values = {r[0] for r in con.execute("SELECT raw_value FROM quarantine").fetchall()}
    assert values == set(bad)
    quarantined = [r[0] for r in con.execute("SELECT reason FROM quarantine ORDER BY line").fetchall()]
    assert quarantined == [
        f"dates.csv, line {list(DATES).index(d) + 2}, field submitted_at: submitted_at {d} is not a date and time "
        "(use ISO 8601, e.g. 2026-03-01T14:05:00)"
        for d in bad
    ]


def test_dates_in_several_spellings_json_formats_agree_with_csv(con):
    """Protection: the JSON adapters (json_records.timestamp) and the CSV path store the same instant for
    the same text, so files of one project can be compared."""
    records = [
        answer_comparison(f"c{i}", task_id=f"t{i}", submission_id=f"s{i}", submitted_at=d) for i, d in enumerate(DATES)
    ]
    result = ingest_bytes(con, jsonl(*records), "dates.jsonl")
    assert result.status == "loaded", result.errors
    stored = dict(con.execute("SELECT DISTINCT task_id, submitted_at FROM ratings").fetchall())
    for i, (text, want) in enumerate(DATES.items()):
        assert stored.get(f"t{i}") == want, text


def test_parquet_timestamps_with_a_zone_are_stored_in_utc(con, tmp_path):
    """Protection: a TIMESTAMPTZ Parquet column is converted to UTC whatever the session's time zone."""
    path = tmp_path / "tz.parquet"
    w = duckdb.connect()
    w.execute("SET TimeZone = 'America/New_York'")
    w.execute(
        """COPY (SELECT 't1' AS task_id, 'c1' AS rater_id, 'd' AS dimension, '3' AS value,
                        TIMESTAMPTZ '2026-03-02 16:05:11+02:00' AS submitted_at) TO ? (FORMAT parquet)""",
        [str(path)],
    )
    w.close()
    con.execute("SET TimeZone = 'Asia/Kolkata'")  # neither UTC nor the writer's zone
    result = ingest_bytes(con, path.read_bytes(), "tz.parquet")
    assert result.status == "loaded", result.errors
    assert con.execute("SELECT submitted_at FROM ratings").fetchall() == [(UTC_1405,)]
