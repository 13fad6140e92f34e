"""Data page: the wide layout's and Label Studio's options appear when their format is chosen and reach the load
(#13 parts 2, 3); the Formats section documents every format with a sample file (#50 item 2; AppTest)."""

from __future__ import annotations

import json

import duckdb

from analytics.ingest.samples import GUIDES
from tests.conftest import app_test, click_downloads
from tests.test_ingest_label_studio import CONFIG, _annotation, _result
from ui import identity
from ui.text import md_escape


def _stored(app_store, sql: str) -> list[tuple]:
    con = duckdb.connect(str(app_store))  # as the app has it open in this process
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_wide_options_shown_for_wide_and_used(app_store):
    at = app_test("app_pages/data.py")
    assert not [w for w in at.text_input if w.key == "upload_id_column"]  # auto: no wide options
    at.selectbox(key="upload_format").select("wide").run()
    at.text_input(key="upload_id_column").input("case")
    at.text_input(key="upload_wide_dimension").input("fluency")
    at.text_input(key="upload_researchers").input("lead, other_lead")
    data = b"r1,case,lead,other_lead\n1,c1,2,2\n3,c2,3,\n"
    at.file_uploader(key="upload_files").upload("sheet.csv", data, "text/csv")
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert "sheet.csv (wide): loaded, 5 rows loaded, 0 quarantined" in " ".join(s.value for s in at.success).replace(
        "\\", ""
    )
    rows = _stored(app_store, "SELECT task_id, rater_id, role, dimension FROM ratings WHERE dimension = 'fluency'")
    assert sorted(rows) == [
        ("c1", "lead", "researcher", "fluency"),
        ("c1", "other_lead", "researcher", "fluency"),
        ("c1", "r1", "contractor", "fluency"),
        ("c2", "lead", "researcher", "fluency"),
        ("c2", "r1", "contractor", "fluency"),
    ]


def test_label_studio_options_shown_for_label_studio_and_used(app_store):
    at = app_test("app_pages/data.py")
    at.selectbox(key="upload_format").select("label_studio").run()
    assert not [w for w in at.text_input if w.key == "upload_id_column"]
    at.checkbox(key="upload_include_predictions").check()
    at.text_input(key="upload_researchers").input("2")
    res = [_result("sentiment", "choices", {"choices": ["pos"]})]
    task = {"id": 1, "data": {"text": "t"}, "annotations": [_annotation(1, 1, res), _annotation(2, 2, res)],
            "predictions": [{"model_version": "m1", "result": res}]}  # fmt: skip
    at.file_uploader(key="upload_ls_config").upload("config.xml", CONFIG.encode(), "text/xml")
    at.file_uploader(key="upload_files").upload("project.json", json.dumps([task]).encode(), "application/json")
    at.button[0].click().run()
    assert not at.exception, at.exception
    rows = _stored(app_store, "SELECT rater_id, role, value_index FROM ratings WHERE rubric = 'label_studio'")
    assert sorted(rows) == [("1", "contractor", 2), ("2", "researcher", 2), ("prediction:m1", "contractor", 2)]


def test_formats_section_documents_every_format_with_its_sample(shared_app_store, download_buttons, served_files):
    """The Data page itself describes each format (its choice, when to use it, its fields) and offers its sample
    file, the bytes analytics/ingest/samples.py defines; on 6e56436 the page only said "docs/formats.md"."""
    at = app_test("app_pages/data.py")
    assert not at.exception, at.exception
    assert any(e.label.startswith("Formats") for e in at.expander)
    shown = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    for guide in GUIDES.values():
        assert f"Format `{guide.name}`" in shown, guide.name
        assert md_escape(guide.when) in shown, guide.name
        assert all(f"`{f.name}`" in shown for f in guide.fields), guide.name
    labels = [b.label for b in at.get("download_button")]
    assert all(f"Download a sample ({g.file_name})" in labels for g in GUIDES.values()), labels
    click_downloads(at, download_buttons)
    assert {g.file_name: g.sample.encode() for g in GUIDES.values()}.items() <= served_files.items()
    assert not [e for e in at.get("selectbox") if "docs/" in (e.help or "")]  # no repository path as help


def test_formats_section_shown_to_a_viewer(shared_app_store, monkeypatch):
    """Someone who may not upload still reads what each format holds."""
    monkeypatch.setattr(identity, "allowed", lambda action: action != "upload")
    at = app_test("app_pages/data.py")
    assert not at.exception, at.exception
    assert not [w for w in at.selectbox if w.key == "upload_format"]
    labels = [b.label for b in at.get("download_button")]
    assert all(f"Download a sample ({g.file_name})" in labels for g in GUIDES.values()), labels
