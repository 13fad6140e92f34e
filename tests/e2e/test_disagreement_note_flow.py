"""In a real browser: a reviewer opens the most severe disagreement, records a note and a status (the case picker
says so at once), moves on with "Next case", reloads the app, and finds the note on the contractor's Feedback
page. Screenshots of Distributions, Disagreements and
Feedback go to tests/artifacts/."""

from __future__ import annotations

import re

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.e2e.conftest import open_tab, screenshot, wait_for_app

NOTE = "Check the sources before choosing a side: option B cites a forum post."


def whole_page(page, name: str) -> None:
    """Screenshot the whole page: Streamlit scrolls inside its main block, so grow the viewport to fit it."""
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": min(int(height) + 50, 12_000)})
    page.wait_for_timeout(800)  # charts re-lay out to the new size
    screenshot(page, name)
    page.set_viewport_size(size)


def go_to(page, title: str) -> None:
    """Open a page from the sidebar navigation and wait for its heading."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    expect(page.get_by_role("heading", name=title).first).to_be_visible()
    wait_for_app(page)


def choose(page, label: str, option: str, named: re.Pattern | None = None) -> None:
    """Pick an option of a selectbox by its label: the option `option`, or the one whose name matches `named`
    (found by typing `option`)."""
    box = page.get_by_role("combobox", name=label, exact=True)
    wait_for_app(page)
    for attempt in range(3):  # a rerun that redraws the box between finding and scrolling detaches it: find it again
        try:
            box.scroll_into_view_if_needed()  # a click that has to scroll first closes the popup it opens
            break
        except PlaywrightError:
            if attempt == 2:
                raise
            wait_for_app(page)
    box.click()
    page.keyboard.type(option)  # long option lists are virtualised: filter down to the one wanted
    found = page.get_by_role("option", name=named) if named else page.get_by_role("option", name=option, exact=True)
    found.click()
    wait_for_app(page)


def test_note_on_a_disagreement_shows_in_feedback(app_page, external_requests):
    page = app_page
    main = page.get_by_test_id("stMain")
    go_to(page, "Distributions")
    expect(main.get_by_test_id("stVegaLiteChart").first).to_be_visible()
    whole_page(page, "distributions_demo")

    go_to(page, "Disagreements")
    handover = page.get_by_role("button", name=re.compile(r"^Open \S+'s feedback report$"))
    expect(handover).to_be_visible()  # the case picker opens on the most severe case
    contractor = re.match(r"Open (\S+)'s feedback report", handover.inner_text()).group(1)
    # The name is given once, in the sidebar, and recorded with the note (local mode: docs/deploy.md).
    page.get_by_test_id("stSidebar").get_by_role("textbox", name="Your name").fill("e2e lead")
    page.keyboard.press("Enter")
    expect(main).to_contain_text("Saved by e2e lead")
    wait_for_app(page)
    choose(page, "Status", "feedback given")
    page.get_by_role("textbox", name=re.compile(r"^Note")).fill(NOTE)
    page.get_by_role("button", name="Save note").click()
    expect(main).to_contain_text("Saved: feedback given")
    wait_for_app(page)
    expect(main).to_contain_text(NOTE)
    # The case list and the picker say so at once (they said "open" until the next rerun before).
    picker = page.get_by_role("combobox", name="Case", exact=True)
    expect(picker).to_have_value(re.compile(r"^1\. .* · feedback given$"))
    expect(main.get_by_role("button", name="Previous", exact=True)).to_be_disabled()
    whole_page(page, "disagreements_demo")
    # The next case is one click away, no keyboard.
    page.get_by_role("button", name="Next case", exact=True).click()
    expect(main).not_to_contain_text("Saved: feedback given")  # the new run (while it runs, stale elements stay)
    wait_for_app(page)
    expect(main.get_by_role("button", name="Previous", exact=True)).to_be_enabled()
    expect(picker).to_have_count(1)
    expect(picker).to_have_value(re.compile(r"^2\. .* · open$"))
    expect(page.get_by_role("textbox", name=re.compile(r"^Note"))).to_have_value("")

    page.reload()
    wait_for_app(page)
    go_to(page, "Feedback")
    # The picker names people ("Dana K. (c13)") when a rater directory does, else shows the id.
    choose(page, "Contractor", contractor, re.compile(rf"(^|\(){re.escape(contractor)}\)?$"))
    open_tab(page, "Disagreements")  # the card's sections are tabs (issue 50)
    expect(page.get_by_role("heading", name="Most severe disagreements")).to_be_visible()
    expect(main).to_contain_text(NOTE)
    expect(main).to_contain_text("Review: feedback given by e2e lead")
    open_tab(page, "Agreement")
    expect(main.get_by_test_id("stVegaLiteChart").first).to_be_visible()
    whole_page(page, "feedback_demo")
    assert external_requests == [], f"requests left loopback: {external_requests[:3]}"
