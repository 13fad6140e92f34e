"""In a real browser: the Agreement page opens from the sidebar on the demo data and draws its charts."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import screenshot, wait_for_app


def test_agreement_page_draws_its_charts(app_page, external_requests):
    page = app_page
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Agreement", exact=True).click()
    expect(page.get_by_role("heading", name="Agreement").first).to_be_visible()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Each contractor against researchers")).to_be_visible(timeout=120_000)
    wait_for_app(page)

    charts = main.get_by_test_id("stVegaLiteChart")
    expect(charts.first).to_be_visible()
    # rater intervals, confusion matrix, rater x rater; the kappa-paradox marginals when a dimension shows one
    paradox = main.get_by_role("heading", name="Kappa paradox").count()
    assert charts.count() >= 3 + paradox
    intervals = charts.filter(has_text="each contractor against researchers").first
    expect(intervals).to_contain_text("Researcher ceiling")  # the yardstick labels are SVG text
    expect(intervals).to_contain_text("Team median")
    expect(charts.filter(has_text="contractor level vs researcher level").first).to_be_visible()
    expect(main.get_by_test_id("stDataFrame").first).to_be_visible()

    page.set_viewport_size({"width": 1400, "height": 6500})  # the app scrolls inside stMain: show it all
    wait_for_app(page)
    screenshot(page, "agreement")
    assert external_requests == [], f"requests left loopback: {external_requests[:3]}"
