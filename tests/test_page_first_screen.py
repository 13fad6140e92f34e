"""What a lead reads first on a page (#50 parts 2 and 8): the Overview's one-line summary of what needs attention,
each page saying what it tells and what to do next, one rubric control, and the Agreement page fitting its width
(the coefficient for each scale first, every other on request), naming raters as people and, on data without
researcher labels, opening on agreement among the raters and saying why."""

from __future__ import annotations

import random

import pytest

from analytics import agreement, store
from analytics.alarms.review import review
from analytics.core.filters import Filters
from analytics.core.rubrics import RUBRICS
from analytics.describe import distributions
from analytics.ingest.load import ingest_file
from analytics.store import people
from tests.conftest import app_test
from ui import agreement_view as view
from ui import sidebar
from ui.text import md_escape

AGREEMENT = "app_pages/agreement.py"


@pytest.fixture
def wide_store(tmp_path, monkeypatch):
    """A store holding one uploaded items x raters table (item, r1, r2, r3): three contractors rated every unit,
    no researcher."""
    rnd = random.Random(5)
    rows = []
    for i in range(40):
        v = rnd.randint(1, 5)
        rows.append(f"i{i},{v},{min(5, v + rnd.randint(0, 1))},{max(1, v - rnd.randint(0, 1))}")
    path = tmp_path / "scores.csv"
    path.write_text("item,r1,r2,r3\n" + "\n".join(rows) + "\n")
    db = tmp_path / "app.duckdb"
    con = store.open_store(db)
    assert ingest_file(con, path, fmt="wide").status == "loaded"
    con.close()
    monkeypatch.setenv("CONCORD_DB", str(db))
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "no-demo"))
    return db


def test_agreement_without_researchers_opens_on_agreement_among_raters_and_says_why(wide_store):
    at = app_test(AGREEMENT)
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="agr_comparison").value == "among_contractors"
    infos = [i.value for i in at.info]
    _, why = view.default_comparison(40, 0, 0)
    assert why in infos and "no researcher labels" in why
    assert not any("No unit was rated by two raters" in i for i in infos)
    headlines = next(df.value for df in at.dataframe if view.HEADLINE_VALUE in df.value.columns)
    assert len(headlines) == 1 and headlines[view.HEADLINE_VALUE].iloc[0] != view.NOT_SHOWN

    at.selectbox(key="agr_comparison").select("contractor_vs_researcher").run()  # the lead asks for it anyway
    assert not at.exception
    assert view.empty_note("contractor_vs_researcher", 40, 0) in [i.value for i in at.info]
    assert "Among contractors" in view.empty_note("contractor_vs_researcher", 40, 0)  # the choice that fixes it


def test_agreement_leads_with_the_coefficient_for_each_scale(shared_app_store, demo_store):
    at = app_test(AGREEMENT)
    assert not at.exception
    assert at.selectbox(key="agr_comparison").value == "contractor_vs_researcher"  # researchers labelled the demo
    rubric = "answer_comparison"
    first = at.dataframe[0].value
    assert list(first.columns) == [
        "dimension",
        "label",
        "level",
        "tasks",
        view.HEADLINE_COLUMN,
        view.HEADLINE_VALUE,
        "percent agreement",
        "notes",
    ]
    con = store.open_store(demo_store, read_only=True)
    dims = agreement.dimension_agreement(con, agreement.AgreementSpec(filters=Filters(rubric=rubric)))
    names = people.display_names(con)
    con.close()
    row = first.set_index("dimension").loc["usefulness_comparison"]
    want = dims.set_index("dimension").loc["usefulness_comparison"]
    assert row[view.HEADLINE_COLUMN] == "Krippendorff's alpha (ordinal)"
    assert row[view.HEADLINE_VALUE] == view.with_interval(
        want["krippendorff_alpha"], want["krippendorff_alpha_ci_low"], want["krippendorff_alpha_ci_high"]
    )
    assert not any("Cohen's kappa" in df.value.columns for df in at.dataframe)  # the rest only on request
    at.toggle(key="agr_every_coefficient").set_value(True).run()
    assert any("Cohen's kappa" in df.value.columns for df in at.dataframe)
    # Raters are named as on the other pages ("Hal K. (c35)"), in the table and the chart.
    raters = next(df.value for df in at.dataframe if "weighted_kappa" in df.value.columns)
    assert names and all(r == people.who(r.rsplit("(", 1)[-1].rstrip(")"), names) for r in raters["rater_id"])
    assert any(r.endswith(")") and "(" in r for r in raters["rater_id"])


def test_a_ranking_dimension_leads_with_its_rank_correlation(demo):
    report = agreement.dimension_report(
        demo, agreement.AgreementSpec(n_boot=0, filters=Filters(rubric="instruction_following"))
    )
    dims = agreement.dimension_agreement(
        demo, agreement.AgreementSpec(n_boot=0, filters=Filters(rubric="instruction_following"))
    )
    table = view.headline_table(report, distributions.dimensions(demo, "instruction_following")).set_index("dimension")
    assert table.loc["rank", view.HEADLINE_COLUMN] == "Kendall's tau-b"
    assert set(table.index) == set(dims["dimension"])


def test_one_rubric_control_the_sidebars(shared_app_store):
    """A page that shows one rubric draws no picker of its own (it could disagree with the sidebar's): it says which
    it shows and follows the sidebar."""
    at = app_test(AGREEMENT)
    assert not [s for s in at.selectbox if s.key == "agr_rubric"]
    first = sidebar.ONE_RUBRIC.format(title=md_escape(RUBRICS["answer_comparison"].title))
    assert first in [c.value for c in at.caption]
    at.sidebar.selectbox(key="f_rubric").select("preference_ranking").run()
    assert not at.exception
    assert not any(c.value.startswith("This page shows one rubric at a time") for c in at.caption)
    assert "Preference ranking" in " ".join(c.value for c in at.caption)


def test_overview_says_what_needs_attention_first(shared_app_store, demo_store):
    at = app_test()
    assert not at.exception
    con = store.open_store(demo_store, read_only=True)
    alerts = review(con, Filters()).alerts
    con.close()
    open_ = alerts[~alerts["acknowledged"].astype(bool)]
    assert len(open_)  # the demo's planted behaviours
    lines = [m.value for m in at.markdown]
    summary = next(i for i, line in enumerate(lines) if line.startswith("**Needs attention:**"))
    assert summary <= 1  # on the first screen: under the page's one-line intro
    assert f"{len(open_)} open alarm(s)" in lines[summary]
    assert f"on {open_['rater_id'].nunique()} contractor(s)" in lines[summary] and "Feedback" in lines[summary]


@pytest.mark.parametrize("page", ["overview", "agreement", "consistency", "distributions", "raters"])
def test_each_page_says_what_it_tells_and_what_to_do_next(shared_app_store, page):
    at = app_test(f"app_pages/{page}.py")
    assert not at.exception
    intro = at.markdown[0].value
    assert "**Next:**" in intro and len(intro.split(". ")) >= 2
