"""Sign-in through a real OpenID provider (oidc-provider-mock, served by this test on loopback) into a real
`streamlit run app.py` whose `[auth]` secrets point at it, in Chromium: an anonymous browser sees the sign-in page
and no data, an unknown email is refused, and each role sees exactly its pages (docs/deploy.md)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import werkzeug.serving
from oidc_provider_mock import app as oidc_app
from playwright.sync_api import Page, expect

from analytics import store
from analytics.ingest.load import ingest_file
from analytics.store import people
from tests.e2e.conftest import open_tab, run_streamlit, screenshot, wait_for_app

ROLES = "email,role,rater_id\nlead@lab.org,lead,\nres@lab.org,researcher,r01\nview@lab.org,viewer,\neli@lab.org,contractor,c06\n"
EVERY_PAGE = ["Overview", "Agreement", "Distributions", "Disagreements", "Feedback", "Consistency", "Raters", "Plan"]
EVERY_PAGE += ["Explore", "Data"]


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    """A real OpenID Connect provider on a free loopback port (any email signs in as typed); its issuer URL."""
    server = werkzeug.serving.make_server("127.0.0.1", 0, oidc_app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(5)
        server.server_close()


@pytest.fixture(scope="module")
def small_store(demo_inputs, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A store of the demo's pilot file (36 contractors, 4 researchers) and its rater directory, small so that each
    role's first page is quick; with every contractor's id and the name the directory gives them (read here: the
    server holds the store once it runs)."""
    path = tmp_path_factory.mktemp("signin-store") / "concord.duckdb"
    con = store.open_store(path)
    for name in ("raters.csv", "pilot_usefulness.csv"):
        assert ingest_file(con, demo_inputs / name).status == "loaded"
    names = people.display_names(con)
    ids = [r for (r,) in con.execute("SELECT DISTINCT rater_id FROM ratings WHERE role = 'contractor'").fetchall()]
    con.close()
    return path, {r: names.get(r, r) for r in ids}


@pytest.fixture(scope="module")
def signed_url(provider, small_store, tmp_path_factory) -> Iterator[str]:
    """The dashboard with `[auth]` in a temporary HOME's ~/.streamlit/secrets.toml (nothing is written into the
    checkout) and a roles file, on the small store; its URL."""
    d = tmp_path_factory.mktemp("signin")
    (d / ".streamlit").mkdir()
    (d / ".streamlit" / "secrets.toml").write_text(
        "[auth]\n"
        'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        'cookie_secret = "an-e2e-cookie-secret-long-enough"\n'
        'client_id = "concord"\n'
        'client_secret = "concord-secret"\n'
        f'server_metadata_url = "{provider}/.well-known/openid-configuration"\n',
        encoding="utf-8",
    )
    (d / "roles.csv").write_text(ROLES, encoding="utf-8")
    env = {"HOME": str(d), "CONCORD_ROLES": str(d / "roles.csv"), "CONCORD_DB": str(small_store[0])}
    with run_streamlit(env | {"CONCORD_DEMO_DIR": str(d / "no-demo")}, d) as url:
        yield url


@pytest.fixture
def visitor(browser, signed_url) -> Iterator[Page]:
    """A fresh browser (no cookie) on the dashboard's first page, every request off loopback aborted."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda route: route.abort())
    page.goto(signed_url)
    wait_for_app(page)
    yield page
    context.close()


def sign_in(page: Page, email: str) -> None:
    """Sign in through the provider's form as `email`, back on the dashboard."""
    page.get_by_role("button", name="Sign in").click()
    page.locator("input[name=sub]").fill(email)  # the provider's own page
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(re.compile(r"^http://127\.0\.0\.1:\d+/(?!oauth2callback)"))
    page.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]')
    # No wait for the first page's figures: each test waits for what it reads.


def says(text: str) -> re.Pattern[str]:
    """`text` as shown: the page's markdown puts a word joiner after an email's @ (no automatic mail link)."""
    return re.compile(re.escape(text).replace("@", "@\u2060?"))


def nav_titles(page: Page) -> list[str]:
    """The pages the sidebar's navigation offers, once it is drawn."""
    nav = page.get_by_test_id("stSidebarNav")
    expect(nav).to_be_visible()
    return [a.inner_text().strip() for a in nav.get_by_role("link").all()]


def test_an_anonymous_browser_sees_only_the_sign_in_page(visitor):
    main = visitor.get_by_test_id("stMain")
    expect(main).to_contain_text("Sign in to see the dashboard.")
    assert not visitor.get_by_test_id("stSidebarNav").count() and not visitor.get_by_test_id("stSidebar").count()
    assert not visitor.get_by_test_id("stDataFrame").count() and not visitor.get_by_test_id("stVegaLiteChart").count()
    screenshot(visitor, "sign_in_anonymous")


def test_an_unknown_email_is_refused(visitor):
    sign_in(visitor, "stranger@else.org")
    expect(visitor.get_by_test_id("stMain")).to_contain_text(
        says("stranger@else.org is not in this dashboard's roles file: ask its lead to add you.")
    )
    wait_for_app(visitor)
    assert not visitor.get_by_test_id("stSidebarNav").count() and not visitor.get_by_test_id("stDataFrame").count()
    screenshot(visitor, "sign_in_refused")


def test_a_lead_sees_every_page_and_the_roles_in_use_and_logs_out(visitor):
    sign_in(visitor, "lead@lab.org")
    sidebar = visitor.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text(says("Signed in as lead@lab.org (lead)"))
    expect(sidebar).to_contain_text("Roles in use (4)")
    assert nav_titles(visitor) == EVERY_PAGE
    screenshot(visitor, "sign_in_lead")
    sidebar.get_by_role("button", name="Log out").click()
    visitor.get_by_role("button", name="End session").click()  # the provider's own page ends its session too
    expect(visitor.get_by_test_id("stMain")).to_contain_text("Sign in to see the dashboard.")
    assert not visitor.get_by_test_id("stSidebarNav").count()


def test_a_researcher_has_every_page_but_no_unload(visitor):
    sign_in(visitor, "res@lab.org")
    assert nav_titles(visitor) == EVERY_PAGE
    visitor.goto(visitor.url.rstrip("/") + "/data")  # signed in: the cookie opens the page itself
    main = visitor.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Ingest log")).to_be_visible()
    wait_for_app(visitor)
    expect(main.get_by_role("button", name="Load files")).to_be_visible()
    assert not main.get_by_text("Unload a file").count()
    screenshot(visitor, "sign_in_researcher_data")


def test_a_viewer_has_no_explore_and_no_write(visitor):
    sign_in(visitor, "view@lab.org")
    assert nav_titles(visitor) == [p for p in EVERY_PAGE if p != "Explore"]
    visitor.goto(visitor.url.rstrip("/") + "/data")  # signed in: the cookie opens the page itself
    main = visitor.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Ingest log")).to_be_visible()
    wait_for_app(visitor)
    assert not main.get_by_role("button", name="Load files").count() and not main.get_by_text("Unload a file").count()
    screenshot(visitor, "sign_in_viewer_data")


@pytest.mark.timeout(300)  # signs in, then opens each of the card's six tabs
def test_a_contractor_sees_only_their_own_card(visitor, small_store):
    contractors = small_store[1]
    sign_in(visitor, "eli@lab.org")
    main = visitor.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Feedback")).to_be_visible()
    expect(main.get_by_role("heading", name=re.compile(r"^Report card: "))).to_be_visible()
    wait_for_app(visitor)
    assert not visitor.get_by_test_id("stSidebarNav").count()  # one page: no navigation
    shown = visitor.locator("body").inner_text()
    for name in [t.inner_text().strip() for t in main.get_by_role("tab").all()]:  # the card's sections are tabs
        open_tab(visitor, name)  # read each one's text too
        shown += visitor.locator("body").inner_text()
    open_tab(visitor, "Agreement")
    expect(main.get_by_role("heading", name="Agreement with researchers, per dimension")).to_be_visible()
    others = {r: n for r, n in contractors.items() if r != "c06"}
    leaked = [r for r in others if re.search(rf"\b{r}\b", shown)] + [n for n in others.values() if n in shown]
    assert not leaked, leaked
    assert not visitor.get_by_role("combobox", name="Contractor").count()
    screenshot(visitor, "sign_in_contractor")
