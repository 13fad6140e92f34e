"""In a real browser: the Consistency page on the demo data names the contractors the simulator made break rules
(truth.json), draws its charts, and opens a violation side by side."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from playwright.sync_api import expect

from tests.e2e.conftest import ROOT, screenshot, wait_for_app


def test_consistency_page_flags_the_planted_rule_breakers(app_page, server_env, external_requests):
    page = app_page
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Consistency", exact=True).click()
    expect(page.get_by_role("heading", name="Consistency").first).to_be_visible()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Rules by violation rate")).to_be_visible(timeout=120_000)
    wait_for_app(page)

    truth = json.loads((Path(server_env["CONCORD_DEMO_DIR"]) / "truth.json").read_text())["rule_breaking"]
    # The sentence that starts "Flagged:" (the rules chart's axis says "Reported, never flagged: ..." too).
    flagged = main.get_by_text(re.compile(r"^Flagged:")).first
    expect(flagged).to_be_visible()
    for rater in truth:
        expect(flagged).to_contain_text(f"({rater})")  # named "Name (id)" by the demo's rater directory

    charts = main.get_by_test_id("stVegaLiteChart")
    expect(charts.filter(has_text="Rules by violation rate").first).to_be_visible()
    expect(charts.filter(has_text="Contractors on").first).to_be_visible()
    expect(main.get_by_text("Rule broken:", exact=False)).to_be_visible()
    expect(main.get_by_text("Options in the order", exact=False).first).to_be_visible()

    page.set_viewport_size({"width": 1400, "height": 5000})  # the app scrolls inside stMain: show it all
    wait_for_app(page)
    screenshot(page, "consistency")
    if os.environ.get("CONCORD_README_SCREENSHOTS") == "1":  # scripts/screenshots.sh: the top, as a reader sees it
        page.screenshot(
            path=str(ROOT / "docs" / "consistency.png"), clip={"x": 0, "y": 0, "width": 1400, "height": 1800}
        )
    assert external_requests == [], f"requests left loopback: {external_requests[:3]}"
