"""The sample files the Data page offers (analytics/ingest/samples.py): one per format, each loading with its format
without a quarantined row or record, and each found by auto-detection except the wide layout, which is never
detected (issue #50, item 2)."""

from __future__ import annotations

import pytest

from analytics.ingest import FORMATS
from analytics.ingest.load import ingest_bytes
from analytics.ingest.samples import GUIDES, Guide


def test_every_format_has_one_guide() -> None:
    assert set(GUIDES) == set(FORMATS)
    assert all(g.name == name for name, g in GUIDES.items())


@pytest.mark.parametrize("guide", GUIDES.values(), ids=GUIDES.keys())
def test_sample_loads_as_its_format_without_quarantine(con, guide: Guide) -> None:
    """Auto-detected as its format (the wide layout chosen, as the page says), every row and record used."""
    fmt = "wide" if guide.name == "wide" else "auto"
    r = ingest_bytes(con, guide.sample.encode(), guide.file_name, fmt=fmt)
    assert (r.status, r.format) == ("loaded", guide.name), r.errors
    assert r.rows_quarantined == 0
    assert r.records is None or r.records.quarantined == 0
    assert con.execute("SELECT count(*) FROM quarantine").fetchone() == (0,)
    if guide.name != "rater_directory":  # a directory holds people, not ratings
        assert r.rows_loaded > 0


@pytest.mark.parametrize("guide", GUIDES.values(), ids=GUIDES.keys())
def test_sample_has_every_required_field(guide: Guide) -> None:
    """A field the Data page calls required is in the sample (the column, or a key somewhere in the document)."""
    for name in guide.required:
        first = name.split(",")[0].split(" ")[0]
        if guide.name == "wide":
            continue  # its fields describe columns by role, not by name
        assert first in guide.sample, (guide.name, name)
