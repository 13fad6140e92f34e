"""In a real browser: the Raters page on the demo data names the contractors the simulator planted with a
position bias (truth.json), draws the effect grid, one contractor's effects and, fitted when asked, the model
beside agreement."""

from __future__ import annotations

import json
import os
from pathlib import Path

from playwright.sync_api import expect

from tests.e2e.conftest import ROOT, screenshot, wait_for_app


def test_raters_page_shows_effects_and_model(app_page, server_env, external_requests):
    page = app_page
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Raters", exact=True).click()
    expect(page.get_by_role("heading", name="Raters").first).to_be_visible()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Who shows which effect")).to_be_visible(timeout=120_000)
    wait_for_app(page)

    truth = json.loads((Path(server_env["CONCORD_DEMO_DIR"]) / "truth.json").read_text())
    flagged = main.get_by_text("Flagged:", exact=False).first
    for rater in truth["behaviours"]["first_position"]["raters"]:
        expect(flagged).to_contain_text(f"({rater})")  # named "Name (id)" by the demo's rater directory

    charts = main.get_by_test_id("stVegaLiteChart")
    expect(charts.filter(has_text="Who shows which effect").first).to_be_visible()
    expect(charts.filter(has_text="each effect against the team").first).to_be_visible()
    main.get_by_role("button", name="Fit the rater model").click()  # issue #51: the model is fitted when asked
    expect(charts.filter(has_text="model accuracy and agreement").first).to_be_visible(timeout=120_000)
    expect(main.get_by_role("heading", name="Consensus labels")).to_be_visible()

    page.set_viewport_size({"width": 1400, "height": 5000})  # the app scrolls inside stMain: show it all
    wait_for_app(page)
    screenshot(page, "raters")
    if os.environ.get("CONCORD_README_SCREENSHOTS") == "1":  # scripts/screenshots.sh: the top, as a reader sees it
        page.screenshot(path=str(ROOT / "docs" / "raters.png"), clip={"x": 0, "y": 0, "width": 1400, "height": 2200})
    assert external_requests == [], f"requests left loopback: {external_requests[:3]}"
