"""Every download of every page goes through the one CSV writer (analytics/core/csv_out.py): on the demo store with
a contractor whose id, comment and a rejected value are spreadsheet formulas (=HYPERLINK...) and a file named
like one, each page is opened with AppTest, every offered CSV is collected, and no cell starts with a character
a spreadsheet would run unless it is a plain number. The Agreement page's per-dimension download has each
coefficient and its interval as three numeric columns. And an id holding a bidirectional override (U+202E) is
shown escaped in the sidebar, the pickers and the tables."""

from __future__ import annotations

import csv
import io
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
import streamlit as st
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from analytics import store
from analytics.core.csv_out import FORMULA_START, PLAIN_NUMBER
from analytics.ingest.load import ingest_bytes
from tests.conftest import ROOT, app_test, click_downloads, served_read_only

PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "app_pages").glob("*.py"))
LINK = '=HYPERLINK("http://127.0.0.2:9/x","y")'
CONTRACTOR = LINK  # a contractor id a spreadsheet would run
BIDI = "c\u202e99"  # shows as "c99" reversed after the override without escaping
FILE_NAME = '=HYPERLINK("f","f") planted.csv'  # file names cannot hold a slash
LEVELS = ["A much better", "A better", "Equally good", "B better", "B much better"]


def _planted_csv(con) -> bytes:
    """Ratings of the demo's researcher-labelled answer comparisons by two planted contractors (the formula id,
    whose comments are formulas too, and the U+202E id), plus one rating whose value is a formula (quarantined)."""
    units = con.execute(
        """SELECT task_id, target, any_value(value) FROM ratings WHERE rubric = 'answer_comparison'
           AND dimension = 'usefulness_comparison' AND role = 'researcher' GROUP BY ALL ORDER BY ALL LIMIT 12"""
    ).fetchall()
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["task_id", "rater_id", "role", "rubric", "dimension", "target", "value", "submitted_at", "comment"])
    for i, (task, target, value) in enumerate(units):
        other = LEVELS[(LEVELS.index(value) + 2) % 5] if i % 2 else value  # every other one a disagreement
        for rater in (CONTRACTOR, BIDI):
            w.writerow([task, rater, "contractor", "answer_comparison", "usefulness_comparison", target, other,
                        "2026-03-03 10:00", f"{LINK} -1+2 @SUM(A1) {i}"])  # fmt: skip
    task, target, _ = units[0]
    w.writerow([task, CONTRACTOR, "contractor", "answer_comparison", "usefulness_comparison", target, LINK,
                "2026-03-03 10:00", LINK])  # fmt: skip
    return out.getvalue().encode()


@pytest.fixture(scope="module")
def _planted_file(demo_store, tmp_path_factory) -> Path:
    """The demo store (a copy) with the planted ratings loaded, built once for this module: its tests only read it,
    and sharing one file lets the pages' caches (keyed by the store's path and dataset version) hit from one test
    to the next, as they do for `shared_app_store`."""
    path = tmp_path_factory.mktemp("planted") / "app.duckdb"
    shutil.copy(demo_store, path)
    con = store.open_store(path)
    try:
        result = ingest_bytes(con, _planted_csv(con), FILE_NAME)
    finally:
        con.close()
    assert result.status == "loaded" and result.rows_loaded == 24 and result.rows_quarantined == 1, result.errors
    st.cache_data.clear()
    st.cache_resource.clear()
    return path


@pytest.fixture
def planted_store(_planted_file, tmp_path, monkeypatch) -> Iterator[Path]:
    """The planted demo store, selected for the app through CONCORD_DB; shared read-only by this module's tests,
    so a test that writes to it fails (as `shared_app_store` does)."""
    with served_read_only(_planted_file, tmp_path, monkeypatch, "give it a copy of its own") as path:
        yield path


@pytest.fixture
def csv_downloads(monkeypatch) -> dict[str, bytes]:
    """Every CSV a download button offered during the test, by file name (the last one under each name)."""
    seen: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        if mimetype == "text/csv":
            seen[str(filename)] = path_or_data if isinstance(path_or_data, bytes) else str(path_or_data).encode()
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    return seen


def dangerous_cells(data: bytes) -> list[str]:
    """Cells (headers included) a spreadsheet would run: starting with = + - @ tab CR LF, not a plain number."""
    rows = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
    return [c for row in rows for c in row if c.startswith(FORMULA_START) and not PLAIN_NUMBER.fullmatch(c)]


def _open_everything(buttons: dict) -> None:
    """Every page once, the Explore page with a query on the planted rows, the Disagreements and Feedback pages
    on the planted contractor, and every download button clicked (`buttons`: the download_buttons fixture)."""
    for page in PAGES:
        at = app_test(page)
        assert not at.exception, f"{page}: {at.exception}"
        if page.endswith("explore.py"):
            at.text_area(key="explore_sql").set_value(
                "SELECT rater_id, comment, -1 - value_num AS negative, value FROM ratings WHERE rater_id LIKE '=%'"
            )
            at.button(key="explore_run").click().run()
        elif page.endswith("agreement.py"):  # the tables shown on demand
            at.toggle(key="agr_long_form").set_value(True)
            at.toggle(key="agr_all_dimensions").set_value(True).run()
        elif page.endswith("disagreements.py"):
            at.multiselect(key="dis_contractors").select(CONTRACTOR).run()
        elif page.endswith("feedback.py"):
            at.selectbox(key="fb_contractor").select(CONTRACTOR).run()
        assert not at.exception, f"{page}: {at.exception}"
        click_downloads(at, buttons)


def test_every_download_is_neutralised_and_carries_numbers(planted_store, csv_downloads, download_buttons):
    _open_everything(download_buttons)
    names = set(csv_downloads)
    for expected in ("quarantine.csv", "ingest_log.csv", "raters.csv", "disagreements.csv", "query_result.csv",
                     "agreement_coefficients_answer_comparison.csv"):  # fmt: skip
        assert expected in names, sorted(names)
    assert any(n.startswith("feedback_") and n.endswith(".csv") for n in names), sorted(names)  # the Feedback CSV
    for name, data in csv_downloads.items():
        assert not dangerous_cells(data), f"{name}: {dangerous_cells(data)[:3]}"
    # the test means something: the planted formulas reached the downloads, neutralised
    text = {name: data.decode("utf-8") for name, data in csv_downloads.items()}

    def neutral(value: str) -> str:
        return "'" + value.replace('"', '""')

    for name in ("quarantine.csv", "disagreements.csv", "query_result.csv", "raters.csv"):
        assert neutral(LINK) in text[name], name
    for name in ("quarantine.csv", "ingest_log.csv"):
        assert neutral(FILE_NAME) in text[name], name
    query = pd.read_csv(io.StringIO(text["query_result.csv"]))
    assert pd.api.types.is_numeric_dtype(query["negative"]) and (query["negative"].dropna() < 0).all()

    agreement = [n for n in names if n.startswith("agreement_per_dimension_")]
    assert agreement, sorted(names)
    dims = pd.read_csv(io.StringIO(text[agreement[0]]))
    stats = [c.removesuffix("_ci_low") for c in dims.columns if c.endswith("_ci_low")]
    assert "krippendorff_alpha" in stats and "percent_agreement" in stats, list(dims.columns)
    for s in stats:
        for col in (s, f"{s}_ci_low", f"{s}_ci_high"):
            assert pd.api.types.is_float_dtype(dims[col]), (col, dims[col].tolist())
        both = dims[[s, f"{s}_ci_low", f"{s}_ci_high"]].dropna()
        assert ((both[f"{s}_ci_low"] <= both[s] + 1e-9) & (both[s] <= both[f"{s}_ci_high"] + 1e-9)).all(), s
    interval_text = re.compile(r"-?\d\.\d+ \[")
    assert not any(interval_text.search(str(v)) for v in dims.to_numpy().ravel()), "a display string was downloaded"


def test_an_id_with_a_bidi_override_is_shown_escaped(planted_store):
    shown = "c⟨U+202E⟩99"
    at = app_test()
    assert not at.exception, at.exception
    options = at.sidebar.multiselect(key="f_raters").options
    assert shown in options and not any("\u202e" in o for o in options)
    tables = [d.value for d in at.dataframe if {"rater_id", "role"} <= set(d.value.columns)]
    assert tables, "the Overview lists raters"
    ids = set(tables[0]["rater_id"])
    assert shown in ids and BIDI not in ids
    at = app_test("app_pages/feedback.py")
    box = at.selectbox(key="fb_contractor")
    assert shown in box.options and not any("\u202e" in o for o in box.options)
    at = box.select(BIDI).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="fb_contractor").value == BIDI  # the value is the id itself; only the label escapes
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [s.value for s in at.subheader]
    assert not any("\u202e" in t for t in texts)
    at = app_test("app_pages/disagreements.py")
    options = at.multiselect(key="dis_contractors").options
    assert shown in options and not any("\u202e" in o for o in options)


def _protos(node) -> list:
    """Every element proto under an AppTest node (blocks recursed)."""
    found = [node.proto] if getattr(node, "proto", None) is not None and not hasattr(node, "children") else []
    for child in getattr(node, "children", {}).values():
        found += _protos(child)
    return found


@pytest.mark.parametrize("page", PAGES)
def test_no_page_sends_a_raw_bidi_override_anywhere(planted_store, page):
    """Charts' data and titles, plain text, tables, pickers: no element of any page carries a raw U+202E (the
    id is shown as c⟨U+202E⟩99), checked on the serialised elements the browser would receive."""
    at = app_test(page)
    assert not at.exception, at.exception
    if page.endswith("feedback.py"):
        at = at.selectbox(key="fb_contractor").select(BIDI).run()
    raw = "\u202e".encode()
    sent = [p for p in _protos(at._tree) if raw in p.SerializeToString()]
    assert not sent, [type(p).__name__ for p in sent]
