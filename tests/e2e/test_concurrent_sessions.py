"""In real browsers: three sessions read (Overview, Distributions, Disagreements) while a fourth uploads a file
on the Data page. No session shows an exception, and afterwards every session sees the new file.

Protection checked: one shared connection with a cursor per query (ui/state.py), one transaction per ingest,
page caches keyed by the dataset version (tests/test_concurrency.py checks the same below the UI).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from analytics import store
from analytics.ingest.load import ingest_file
from tests.e2e.conftest import run_streamlit, wait_for_app
from tests.test_concurrency import write_files


@pytest.fixture(scope="module")
def shared_url(tmp_path_factory):
    """A server on a store holding three batches; the other batches are left for uploads."""
    d = tmp_path_factory.mktemp("sessions")
    files = write_files(d)
    con = store.open_store(d / "shared.duckdb")
    for f in files[:3]:
        assert ingest_file(con, f).status == "loaded"
    con.close()
    env = {"CONCORD_DB": str(d / "shared.duckdb"), "CONCORD_DEMO_DIR": str(d / "no-demo")}
    with run_streamlit(env, d) as url:
        yield url, files


def open_page(browser, url: str, title: str):
    """A new browser session on one page of the app."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(60_000)
    page.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda r: r.abort())
    page.goto(url)
    wait_for_app(page)
    if title != "Overview":
        go_to(page, title)
    return page


def go_to(page, title: str) -> None:
    """Open a page from the sidebar navigation and wait until it has run."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    expect(page.get_by_role("heading", name=title).first).to_be_visible()
    wait_for_app(page)
    assert page.get_by_test_id("stException").count() == 0, f"{title}: an exception is shown"


def files_loaded(page) -> int:
    """The Overview's "Files loaded" figure."""
    box = page.get_by_test_id("stMetric").filter(has=page.get_by_text("Files loaded", exact=True))
    return int(re.search(r"(\d+)\s*$", box.inner_text()).group(1))


@pytest.mark.timeout(300)  # four browser sessions at once: 70 s on a quiet machine, over 120 s on a busy one
def test_three_readers_and_an_upload(browser, shared_url):
    url, files = shared_url
    readers = [open_page(browser, url, t) for t in ("Overview", "Distributions", "Disagreements")]
    uploader = open_page(browser, url, "Data")
    assert files_loaded(readers[0]) == 3

    # The ratings uploader (several files at once), not whichever uploader the DOM lists first: on a busy
    # machine the scales file's single-file uploader was picked and refused the list.
    uploader.locator('[data-testid="stFileUploaderDropzoneInput"][multiple]').set_input_files(
        [str(f) for f in files[3:]]
    )
    uploader.get_by_role("button", name="Load files").click()
    for _ in range(2):  # the readers keep working while the upload runs
        for page, title in zip(readers, ("Distributions", "Disagreements", "Overview"), strict=True):
            page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
        for page, title in zip(readers, ("Overview", "Distributions", "Disagreements"), strict=True):
            go_to(page, title)
    # The load itself may take over the default 30 s while another xdist worker shares the 2 cores.
    expect(uploader.get_by_test_id("stMain")).to_contain_text(f"{files[-1].name} (canonical): loaded", timeout=120_000)
    wait_for_app(uploader)

    for page in [*readers, uploader]:
        go_to(page, "Overview")  # no exception (go_to checks), and the new files are seen
        expect(
            page.get_by_test_id("stMetric").filter(has=page.get_by_text("Files loaded", exact=True))
        ).to_contain_text(str(len(files)))
    for page in [*readers, uploader]:
        page.context.close()
