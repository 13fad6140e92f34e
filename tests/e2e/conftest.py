"""Browser tests: a real Streamlit server on loopback driven by Playwright in Debian's Chromium.

Recipe: ../shared/notes/browser-tests.md. `playwright install` is never needed: Chromium comes from apt.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROME_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not os.path.exists(CHROMIUM):
    if os.environ.get("E2E_REQUIRED") == "1":
        raise RuntimeError(f"{CHROMIUM} is missing: run scripts/setup.sh --dev")
    pytest.skip("no chromium on this machine", allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

expect.set_options(timeout=30_000)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server_env(tmp_path_factory, demo_inputs) -> dict:
    """A store of the tests' own, so the server starts empty and loads the demo (the run's demo inputs, generated
    once for every test: tests/test_first_run.py checks that a first start generates missing inputs)."""
    d = tmp_path_factory.mktemp("e2e")
    return {
        "CONCORD_DB": str(d / "concord.duckdb"),
        "CONCORD_DEMO_DIR": str(demo_inputs),
    }


FIRST_HEADERS: dict[str, dict[str, str]] = {}


@contextlib.contextmanager
def run_streamlit(extra_env: dict, log_dir: Path) -> Iterator[str]:
    """Run the dashboard as scripts/dashboard.sh does (`python -m ui.serve run app.py`) with `extra_env` on a free
    loopback port; yield its URL, then stop it. FIRST_HEADERS[url] keeps the headers of its first answer."""
    port = _free_port()
    log = open(log_dir / "server.log", "w+")
    env = {
        **os.environ,
        **extra_env,
        "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
        "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none",
        "STREAMLIT_CLIENT_TOOLBAR_MODE": "minimal",
    }
    cmd = [sys.executable, "-m", "ui.serve", "run", "app.py", "--server.headless", "true"]
    cmd += ["--server.port", str(port), "--server.address", "127.0.0.1"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 90
    try:
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(log.read())
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as first:
                    if first.read() == b"ok":
                        FIRST_HEADERS[url] = {k.lower(): v for k, v in first.headers.items()}
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError("streamlit did not answer /_stcore/health")
            time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="session")
def streamlit_url(server_env, tmp_path_factory, browser):
    """Start `streamlit run app.py` on a free loopback port, open it once so that its first start loads the demo
    into the empty store (here, not inside the first test's time), and yield its URL."""
    with run_streamlit(server_env, tmp_path_factory.mktemp("st")) as url:
        first = browser.new_page()
        first.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda route: route.abort())
        first.goto(url)
        wait_for_app(first, 600_000)
        first.close()
        yield url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium instead of a downloaded browser."""
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROME_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    """A wide viewport keeps the sidebar expanded."""
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1000}}


def wait_for_app(page, timeout: float = 120_000) -> None:
    """Wait until the app is connected and no script is running."""
    page.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]', timeout=timeout)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout)
    page.get_by_test_id("stStatusWidget").wait_for(state="hidden", timeout=timeout)


def open_tab(page, name: str, timeout: float = 120_000) -> None:
    """Open one of the Feedback card's tabs and wait for its section: a tab click reruns the page (only the open
    tab's section is drawn, app_pages/feedback.py), and a click while a run is still drawing can be lost, so the app
    is idle first and the click is made again if the tab did not open."""
    wait_for_app(page, timeout)
    tab = page.get_by_test_id("stMain").get_by_role("tab", name=name, exact=True)
    tab.click()
    try:
        expect(tab).to_have_attribute("aria-selected", "true", timeout=10_000)
    except AssertionError:
        wait_for_app(page, timeout)
        tab.click()
        expect(tab).to_have_attribute("aria-selected", "true", timeout=timeout)
    wait_for_app(page, timeout)


def click_download(page, button, timeout: float = 120_000):
    """Click a download button (a locator of the button itself) once the app is idle, and return the Download. The
    app's download buttons do not rerun the page (ui/tables.py: a rerun raced the download)."""
    wait_for_app(page, timeout)
    with page.expect_download(timeout=timeout) as got:
        button.click()
    return got.value


@pytest.fixture
def external_requests() -> list[str]:
    """Requests that tried to leave loopback (they are aborted)."""
    return []


@pytest.fixture
def app_page(page, streamlit_url, external_requests):
    """A page on the app, with every request off loopback aborted and recorded."""
    page.set_default_timeout(60_000)

    def block(route):
        external_requests.append(route.request.url)
        route.abort()

    page.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), block)
    page.goto(streamlit_url)
    wait_for_app(page)
    return page


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under tests/artifacts/ and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
