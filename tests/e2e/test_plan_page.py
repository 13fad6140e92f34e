"""In a real browser: a lead follows the Overview's link to the Plan page, sees each contractor's interval now and
expected, downloads the Label Studio import and the assignments, issues the plan and finds it among the issued plans,
its tasks no longer proposed."""

from __future__ import annotations

import csv
import io
import json
import os

from playwright.sync_api import expect

from tests.e2e.conftest import ROOT, click_download, screenshot, wait_for_app


def _download(page, name: str) -> tuple[str, str]:
    """Click the download button named `name`; the file's name and text."""
    got = click_download(page, page.get_by_role("button", name=name, exact=True))
    return got.suggested_filename, got.path().read_text(encoding="utf-8")


def test_a_lead_plans_where_researchers_label_next(app_page, external_requests):
    page = app_page
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("active contractors lack a usable interval", exact=False)).to_be_visible(timeout=120_000)
    main.get_by_role("link", name="Plan where researchers label next").click()
    expect(page.get_by_role("heading", name="Plan").first).to_be_visible()
    wait_for_app(page)
    chart = main.get_by_test_id("stVegaLiteChart").first
    expect(chart).to_be_visible()
    expect(chart).to_contain_text("expected after the plan")
    name, text = _download(page, "Download the Label Studio import (JSON)")
    tasks = json.loads(text)
    assert name == "labelling_plan_label_studio.json" and tasks and set(tasks[0]) == {"data", "meta"}
    wait_for_app(page)
    name, text = _download(page, "Download the assignments (CSV)")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert (
        name == "labelling_plan_assignments.csv"
        and len(rows) == 50
        and set(rows[0]) == {"task_id", "rubric", "researcher"}
    )
    wait_for_app(page)
    main.get_by_label("Note for the researchers (optional)").fill("newcomers first")
    main.get_by_role("button", name="Issue this plan").click()
    wait_for_app(page)
    expect(main.get_by_text("issued: its tasks are left out of the next plan", exact=False)).to_be_visible()
    issued = main.get_by_role("heading", name="Issued plans")
    expect(issued).to_be_visible()
    # The next plan proposes none of the issued tasks.
    _, again = _download(page, "Download the assignments (CSV)")
    assert not {r["task_id"] for r in csv.DictReader(io.StringIO(again))} & {r["task_id"] for r in rows}
    wait_for_app(page)

    page.set_viewport_size({"width": 1400, "height": 4200})  # the app scrolls inside stMain: show it all
    wait_for_app(page)
    screenshot(page, "plan")
    if os.environ.get("CONCORD_README_SCREENSHOTS") == "1":  # scripts/screenshots.sh: the top, as a reader sees it
        page.screenshot(path=str(ROOT / "docs" / "plan.png"), clip={"x": 0, "y": 0, "width": 1400, "height": 2000})
    assert external_requests == [], f"requests left loopback: {external_requests[:3]}"
