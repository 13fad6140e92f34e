"""Format detection on bytes that are not text: a Parquet file's head holds arbitrary bytes (a bare carriage
return in it once made the CSV header readers raise, so a valid Parquet upload failed with a csv error)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.ingest import FORMATS, detect_format
from analytics.ingest.limits import header_names
from analytics.ingest.load import ingest_bytes


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=512))
def test_no_detector_raises_on_arbitrary_bytes(head):
    for name, mod in FORMATS.items():
        assert mod.detect(head, "upload.bin") in (True, False), name


def test_header_names_of_binary_text_is_empty_not_an_error():
    assert header_names("PAR1\x15\x04\x00,a\rb\nc") == ["PAR1\x15\x04\x00", "a"]  # raised csv.Error before
    assert header_names("\ufeff rater_id, display_name \r\nx,y\n") == ["rater_id", "display_name"]


def test_a_parquet_upload_whose_head_holds_a_carriage_return_loads(con, tmp_path):
    path = tmp_path / "cr.parquet"
    # A text column's first value with a bare carriage return lands in the file's first bytes, unquoted.
    con.execute(
        """COPY (SELECT 'task\r1' AS task_id, 'c01' AS rater_id, 'usefulness' AS dimension, 'Good' AS value)
           TO ? (FORMAT parquet, COMPRESSION uncompressed)""",
        [str(path)],
    )
    data = path.read_bytes()
    assert b"\r" in data[:64]
    assert detect_format(data[:65536], "cr.parquet") == "canonical"
    result = ingest_bytes(con, data, "cr.parquet")
    assert result.status == "loaded" and result.rows_loaded == 1, result.errors
