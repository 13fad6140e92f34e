"""The anti-framing headers (ui/headers.py) on the real server's responses: `streamlit run app.py` on loopback, one
browser session to run app.py, then the page, a static asset and the health check fetched again."""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Iterator

import pytest

from analytics import store
from analytics.ingest.load import ingest_bytes
from tests.e2e.conftest import run_streamlit, wait_for_app

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
    """Protection: ui/headers.py adds the headers to every HTTP response once app.py has run; before, none had them."""
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
