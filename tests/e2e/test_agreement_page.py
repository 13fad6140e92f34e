"""In a real browser: the Agreement page opens from the sidebar on the demo data, draws its charts, and a table's
CSV download (written when its button is clicked) arrives whole."""

from __future__ import annotations

import csv
import io
import re

from playwright.sync_api import expect

from tests.e2e.conftest import click_download, screenshot, wait_for_app


def test_agreement_page_draws_its_charts(app_page, external_requests):
    page = app_page
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Agreement", exact=True).click()
    expect(page.get_by_role("heading", name="Agreement").first).to_be_visible()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Each contractor against researchers")).to_be_visible(timeout=120_000)
    wait_for_app(page)

    charts = main.get_by_test_id("stVegaLiteChart")
    expect(charts.first).to_be_visible()
    # rater intervals, confusion matrix; the kappa-paradox marginals when a dimension shows one
    paradox = main.get_by_role("heading", name="Kappa paradox").count()
    assert charts.count() >= 2 + paradox
    # The rater x rater section is computed when opened (DESIGN.md: rater pairs on request): its heatmap then
    pairs = main.get_by_test_id("stExpander").filter(has_text="Each pair of raters on their shared units")
    expect(pairs).to_have_count(1)
    before = charts.count()
    pairs.get_by_text("Each pair of raters on their shared units").click()
    wait_for_app(page)
    expect(charts.filter(has_text="pair by pair").first).to_be_visible(timeout=60_000)
    assert charts.count() == before + 1
    intervals = charts.filter(has_text="each contractor against researchers").first
    expect(intervals).to_contain_text("Researcher-researcher agreement")  # the yardstick labels are SVG text
    expect(intervals).to_contain_text("Team median")
    expect(charts.filter(has_text="contractor level vs researcher level").first).to_be_visible()
    expect(main.get_by_test_id("stDataFrame").first).to_be_visible()

    # The per-dimension CSV: Streamlit writes it on the click (ui/tables.csv_data), the browser saves it.
    button = main.get_by_test_id("stDownloadButton").filter(has_text=re.compile(r"^Download agreement per dimension"))
    download = click_download(page, button.first.get_by_role("button"))
    assert download.suggested_filename.startswith("agreement_per_dimension_")
    rows = list(csv.DictReader(io.StringIO(download.path().read_text(encoding="utf-8"))))
    assert rows and {"dimension", "tasks", "krippendorff_alpha", "krippendorff_alpha_ci_low"} <= set(rows[0])
    assert all(int(r["tasks"]) > 0 for r in rows) and len({r["dimension"] for r in rows}) == len(rows)

    page.set_viewport_size({"width": 1400, "height": 6500})  # the app scrolls inside stMain: show it all
    wait_for_app(page)
    screenshot(page, "agreement")
    assert external_requests == [], f"requests left loopback: {external_requests[:3]}"
