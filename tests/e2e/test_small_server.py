"""A real `streamlit run app.py` on loopback over a one-rating store: the anti-framing headers (ui/headers.py) on its
responses, and Explore's one slot per browser (ui/identity.owner_key) across two tabs."""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from analytics import store
from analytics.ingest.load import ingest_bytes
from tests.e2e.conftest import FIRST_HEADERS, run_streamlit, wait_for_app

WANT = {"content-security-policy": "frame-ancestors 'none'", "x-frame-options": "DENY"}


@pytest.fixture(scope="module")
def small_server(tmp_path_factory) -> Iterator[str]:
    """A server on a store with one rating (no demo to load at its first start)."""
    d = tmp_path_factory.mktemp("headers")
    con = store.open_store(d / "s.duckdb")
    assert ingest_bytes(con, b"task_id,rater_id,dimension,value\nt1,c1,q,1\n", "one.csv").rows_loaded == 1
    con.close()
    env = {"CONCORD_DB": str(d / "s.duckdb"), "CONCORD_DEMO_DIR": str(d / "no-demo")}
    with run_streamlit(env, d) as url:
        yield url


def _headers(url: str) -> dict[str, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return {k.lower(): v for k, v in response.headers.items()}


def test_every_response_forbids_framing(small_server, browser):
    """Protection: ui/headers.py adds the headers to every HTTP response, the server's very first answer included
    (started as scripts/dashboard.sh does, through ui/serve.py); before, none had them."""
    first = FIRST_HEADERS[small_server]
    assert {k: first.get(k) for k in WANT} == WANT, "the first answer, before any session ran app.py"
    page = browser.new_page()
    page.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda route: route.abort())
    page.goto(small_server)
    wait_for_app(page)
    again = page.goto(small_server)  # the browser's own view of the page's response
    assert again is not None
    wait_for_app(page)
    seen = {k.lower(): v for k, v in again.all_headers().items()}
    assert {k: seen.get(k) for k in WANT} == WANT
    script = re.search(r'src="(\./)?(static/js/[^"]+\.js)"', urllib.request.urlopen(small_server).read().decode())
    assert script, "no script in the page"
    for path in ("/", "/_stcore/health", "/" + script.group(2)):
        got = _headers(small_server + path)
        assert {k: got.get(k) for k in WANT} == WANT, path
    page.close()


SLOW = "SELECT levenshtein(repeat('a', 30000) || range::VARCHAR, repeat('b', 30000)) AS d FROM range(1000)"


def _explore(page, url: str, query: str) -> None:
    """Open Explore in `page` with `query` in the editor."""
    page.goto(url + "/explore")
    wait_for_app(page)
    page.get_by_role("textbox", name="SQL").fill(query)
    page.get_by_role("textbox", name="SQL").blur()  # the text reaches the server before Run is clicked
    wait_for_app(page)


def test_two_tabs_of_one_browser_share_one_explore_slot(small_server, browser):
    """Protection: the page passes owner_key() (the browser's XSRF token): a second tab's query waits for the
    first tab's, although the server has a second slot; each tab used to take a slot of its own."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda route: route.abort())
    first, second = context.new_page(), context.new_page()
    _explore(first, small_server, SLOW)
    _explore(second, small_server, "SELECT 42 AS answer")
    first.get_by_role("button", name="Run", exact=True).click()
    expect(first.get_by_text("Running...")).to_be_visible()
    second.get_by_role("button", name="Run", exact=True).click()
    expect(second.get_by_text("your other Explore query is still running")).to_be_visible()
    expect(first.get_by_text("was stopped")).to_be_visible(timeout=60_000)  # its 15 s limit
    expect(second.get_by_text("1 rows, 1 columns")).to_be_visible(timeout=60_000)
    context.close()
