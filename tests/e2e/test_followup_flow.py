"""In a real browser: a lead reads on the Overview how many contractors given feedback improved credibly, opens an
improver's follow-up, and sees the before/after chart beside the team's line and the verdict on the card."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, wait_for_app


def test_a_lead_sees_whether_the_feedback_worked(app_page, external_requests, truth):
    improver = truth["feedback"]["improvers"][0]
    page = app_page
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("contractors given feedback since", exact=False)).to_be_visible(timeout=120_000)
    main.get_by_text("Open a follow-up").click()
    main.get_by_role("button", name=f"({improver}): improved", exact=False).or_(
        main.get_by_role("button", name=f"{improver}: improved", exact=False)
    ).first.click()
    expect(page.get_by_role("heading", name="Feedback").first).to_be_visible(timeout=120_000)
    wait_for_app(page)
    expect(main.get_by_role("heading", name="After feedback")).to_be_visible(timeout=120_000)
    expect(main.get_by_text("Last feedback follow-up:", exact=False).first).to_be_visible()
    expect(main.get_by_text("improved credibly", exact=False).first).to_be_visible()
    chart = main.get_by_test_id("stVegaLiteChart").first
    expect(chart).to_be_visible()
    expect(chart).to_contain_text("team (others, same days)")
    page.set_viewport_size({"width": 1400, "height": 3000})
    wait_for_app(page)
    screenshot(page, "followup")
    assert external_requests == [], f"requests left loopback: {external_requests[:3]}"
