"""AppTest of the Agreement page on labels without rater ids (the medical safety crowd file from ../shared): the page
says which figures need rater ids, shows alpha per dimension, and offers no anonymous position as a rater."""

from __future__ import annotations

import pytest

from analytics import agreement, store
from analytics.ingest.load import ingest_file
from tests.conftest import app_test, shared_path
from ui import agreement_view as view

PAGE = "app_pages/agreement.py"


@pytest.fixture
def crowd_store(tmp_path, monkeypatch):
    path = tmp_path / "app.duckdb"
    con = store.open_store(path)
    assert ingest_file(con, shared_path("real-data", "medical_safety", "medicheck-crowd.csv")).status == "loaded"
    expected = agreement.dimension_agreement(
        con, agreement.AgreementSpec(comparison="contractor_vs_researcher", n_boot=0)
    )
    con.close()
    monkeypatch.setenv("CONCORD_DB", str(path))
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "no-demo"))
    return expected


def test_page_names_the_figures_that_need_rater_ids(crowd_store):
    at = app_test(PAGE)
    assert not at.exception
    infos = " ".join(i.value for i in at.info)
    assert "came without rater ids" in infos and "Query seriousness" in infos and "Response type" in infos
    assert "rater pairs" in infos and "need real rater ids" in infos
    # The dimension table has both dimensions with the pooled crowd-clinician kappa the analytics API computes
    # (among every coefficient, shown on request).
    at.toggle(key="agr_every_coefficient").set_value(True).run()
    table = next(df.value for df in at.dataframe if "Cohen's kappa" in df.value.columns)
    assert len(table) == len(crowd_store) == 2
    kappa = crowd_store.set_index("dimension").loc["seriousness", "cohen_kappa"]
    assert any(f"{kappa:.3f}" in str(v) for v in table.astype(str).to_numpy().ravel())
    # No anonymous position is offered as a contractor to look at.
    pickers = [s for s in at.selectbox if s.key == "agr_confusion_rater"]
    assert pickers and not any(str(o).startswith("anon:") for o in pickers[0].options)
    # The per-rater and rater-pair sections say why they are empty, not that nobody shares a unit (the rater x
    # rater section once opened).
    assert sum(i.value == view.NO_IDS_HERE for i in at.info) == 1
    at.session_state[view.PAIRS_PANEL] = True
    at.run()
    assert sum(i.value == view.NO_IDS_HERE for i in at.info) == 2


def test_feedback_offers_no_position_as_a_contractor(crowd_store):
    """The crowd file's only contractors are positions: Feedback has nobody to report on and says why."""
    at = app_test("app_pages/feedback.py")
    assert not at.exception
    assert not [s for s in at.selectbox if s.key == "fb_contractor"]
    assert any("without rater ids" in i.value for i in at.info)


def test_overview_counts_people_not_positions(crowd_store):
    """Positions are left out of the contractor count and the raters table, and the page says how many."""
    at = app_test("app_pages/overview.py")
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Contractors"] == "0" and metrics["Researchers"] == "1"
    raters = next(df.value for df in at.dataframe if "rater_id" in df.value.columns or "Rater" in df.value.columns)
    assert not raters.astype(str).apply(lambda c: c.str.startswith("anon:")).to_numpy().any()
    assert any("label positions of files without rater ids" in c.value for c in at.caption)


def test_disagreements_name_positions_as_labels(crowd_store):
    """Each case is a real label against the clinician's; its position is named as a label, not as a person."""
    at = app_test("app_pages/disagreements.py")
    assert not at.exception
    picker = next(m for m in at.multiselect if m.key == "dis_contractors")
    assert picker.options and all("label" in o and "(no rater id)" in o for o in picker.options)
