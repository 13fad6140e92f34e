"""In a real browser, on a store whose every text field is hostile (tests/hostile.py): no page turns
submission text into an element (<img>, <script>, <a>, <b>, a KaTeX formula) and no request leaves for the
payloads' host. Protection checked: untrusted text stays text (DESIGN.md principle 4): md_escape in markdown,
st.text / dataframes for submission text, escaped file names and messages on the Data page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests import hostile
from tests.e2e.conftest import run_streamlit, screenshot, wait_for_app

EVIL = hostile.EVIL_HOST
# Elements the payloads would create if rendered as HTML or markdown.
INJECTED = {
    "img": f"img[src*='{EVIL}'], img[src*='pwn']",
    "a": f"a[href*='{EVIL}'], a[href*='pwn'], a[href^='javascript']",
    "b": "b:text-is('bold')",
}
SCRIPTS = f"[...document.scripts].filter(s => (s.src + s.textContent).includes('{EVIL}')).length"
# A formula KaTeX rendered from a payload (pages may render formulas of their own).
FORMULAS = (
    "[...document.querySelectorAll('.katex annotation')]"
    ".filter(a => a.textContent.includes('\\frac{1}{2}') || a.textContent.includes('x^2')).length"
)


@pytest.fixture(scope="module")
def hostile_url(tmp_path_factory):
    """A Streamlit server on a prepared hostile store (not the demo)."""
    d = tmp_path_factory.mktemp("hostile_e2e")
    results = hostile.build_store(d / "hostile.duckdb")
    assert all(r.status == "loaded" for r in results), [r.errors for r in results]
    env = {"CONCORD_DB": str(d / "hostile.duckdb"), "CONCORD_DEMO_DIR": str(d / "no-demo")}
    with run_streamlit(env, d) as url:
        yield url


@pytest.fixture
def hostile_page(page, hostile_url):
    """The app on the hostile store, with every request recorded (and any off loopback aborted)."""
    page.set_default_timeout(60_000)
    page.requests = []
    page.on("request", lambda r: page.requests.append(r.url))
    page.route(r"**/*", lambda route: route.abort() if EVIL in route.request.url else route.continue_())
    page.goto(hostile_url)
    wait_for_app(page)
    return page


def assert_inert(page, where: str) -> None:
    """No element made from a payload, and no request to the payloads' host or files."""
    for what, selector in INJECTED.items():
        assert page.locator(selector).count() == 0, f"{where}: a {what} element was created from submission text"
    assert page.evaluate(SCRIPTS) == 0, f"{where}: a script element was created from submission text"
    assert page.evaluate(FORMULAS) == 0, f"{where}: a formula was rendered from submission text"
    leaked = [u for u in page.requests if EVIL in u or "pwn" in u or u.startswith("javascript:")]
    assert not leaked, f"{where}: requests left for the payloads' host: {leaked[:3]}"


def go_to(page, title: str) -> None:
    """Open a page from the sidebar navigation and wait until it has run."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    expect(page.get_by_role("heading", name=title).first).to_be_visible()
    wait_for_app(page)


@pytest.mark.timeout(300)  # every page and choice in one browser session: 57-92 s measured
def test_every_page_keeps_hostile_text_inert(hostile_page, tmp_path):
    page = hostile_page
    main = page.get_by_test_id("stMain")
    nav = page.get_by_test_id("stSidebarNav")
    # all_inner_texts does not wait: read the links once the navigation is drawn (a whole-suite run once read none)
    expect(nav.get_by_role("link", name="Data", exact=True)).to_be_visible()
    titles = [t.strip() for t in nav.get_by_role("link").all_inner_texts()]
    assert {"Overview", "Disagreements", "Data"} <= set(titles), titles
    for title in titles:
        go_to(page, title)
        assert_inert(page, title)

    go_to(page, "Disagreements")  # the detail view of the first case: question, answers, sources, comments
    expect(main).to_contain_text(hostile.SCRIPT)  # shown verbatim, as text
    expect(main).to_contain_text(hostile.MD_IMAGE)
    page.get_by_text("other 1 rater(s)", exact=False).click()  # the long-id rater's texts
    wait_for_app(page)
    assert_inert(page, "disagreement detail")
    screenshot(page, "hostile_disagreements")

    # The uncatalogued rubric whose name and dimension are hostile: chart titles, labels, downloads.
    page.get_by_test_id("stSidebar").get_by_role("combobox", name="Rubric").click()
    page.get_by_role("option", name=f"rubric {hostile.HTML}", exact=True).click()
    expect(page.get_by_text("<b>bold</b><img src=http:").first).to_be_visible()  # the rubric's name, escaped
    expect(page.get_by_text(", primary dimension dim [click](http:").first).to_be_visible()
    wait_for_app(page)
    assert_inert(page, "disagreements on the hostile rubric")
    go_to(page, "Distributions")
    expect(page.get_by_text("<b>bold</b><img src=http:").first).to_be_visible()
    assert_inert(page, "distributions on the hostile rubric")

    go_to(page, "Data")  # uploads whose names and headers are hostile
    names = {f"{hostile.FILE_STEM} rejected.csv": hostile.rejected_file(), f"{hostile.FILE_STEM} new.csv": b"x"}
    names[f"{hostile.FILE_STEM} new.csv"] = hostile.canonical_file().replace(b"k1", b"k8")
    paths = []
    for name, data in names.items():
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    # The ratings uploader (several files at once), not whichever uploader the DOM lists first: on a busy
    # machine the scales file's single-file uploader was picked and refused the list.
    page.locator('[data-testid="stFileUploaderDropzoneInput"][multiple]').set_input_files(paths)
    page.get_by_role("button", name="Load files").click()
    expect(main).to_contain_text("rejected.csv was rejected, nothing was written")
    expect(main).to_contain_text(f"{hostile.FILE_STEM} new.csv (canonical): loaded")
    wait_for_app(page)
    assert_inert(page, "data page after hostile uploads")
    screenshot(page, "hostile_data")
