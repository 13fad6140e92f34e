"""Without sign-in the dashboard is for the person at the machine: .streamlit/config.toml serves it on 127.0.0.1
only (a real `streamlit run app.py` listens there and nowhere else), the sidebar says "local, single user" and asks
the name recorded with what the session writes, and a start on another address is refused unless
CONCORD_ALLOW_ANONYMOUS=1 (then a warning in the log and the sidebar)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT, app_test
from ui import identity
from ui.text import md_escape

REFUSAL = (
    "This dashboard has no sign-in configured and is served beyond this machine, so it shows nothing: whoever runs "
    "it must configure sign-in (Streamlit's [auth] settings and CONCORD_ROLES) or serve it on 127.0.0.1."
)


@pytest.fixture
def served_on() -> Iterator[object]:
    """Set server.address for the test (as `--server.address` does) and put the old value back after."""
    old = config.get_option("server.address")

    def serve(address: str | None) -> None:
        config.set_option("server.address", address)

    yield serve
    config.set_option("server.address", old)


def test_the_checkouts_config_serves_on_loopback_only():
    settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert settings["server"]["address"] == "127.0.0.1"


@pytest.mark.parametrize(
    ("address", "local"),
    [("127.0.0.1", True), ("127.0.0.2", True), ("::1", True), ("[::1]", True), ("localhost", True),
     ("0.0.0.0", False), ("::", False), ("192.168.1.10", False), ("", False), (None, False), ("lab.example.org", False)],
)  # fmt: skip
def test_loopback_addresses(address, local):
    assert identity.is_local_address(address) is local


def test_locally_the_sidebar_says_so_and_asks_the_name_once(app_store):
    at = app_test()
    assert not at.exception, at.exception
    assert "Concord: local, single user" in [c.value for c in at.sidebar.caption]
    assert at.sidebar.text_input(key=identity.LOCAL_NAME).label == "Your name"


def test_another_address_without_sign_in_is_refused_and_reads_no_store(served_on, tmp_path, monkeypatch):
    db = tmp_path / "never.duckdb"
    monkeypatch.setenv("CONCORD_DB", str(db))
    monkeypatch.delenv(identity.ALLOW_ANONYMOUS, raising=False)
    for address in ("0.0.0.0", None):  # unset: Streamlit listens on every interface
        served_on(address)
        at = app_test()
        assert [e.value for e in at.error] == [md_escape(REFUSAL)] and not at.button and not at.dataframe
    assert not db.exists()


def test_anonymous_on_another_address_only_when_allowed_with_a_warning(served_on, app_store, monkeypatch, caplog):
    served_on("0.0.0.0")
    monkeypatch.setenv(identity.ALLOW_ANONYMOUS, "1")
    identity._warn_anonymous.cache_clear()
    at = app_test()
    assert not at.exception and not at.error, (at.exception, at.error)
    assert any("without sign-in (CONCORD_ALLOW_ANONYMOUS=1)" in w.value for w in at.sidebar.warning)
    assert "serving 0.0.0.0 without sign-in (CONCORD_ALLOW_ANONYMOUS=1)" in caplog.text


def test_the_owner_key_is_the_email_signed_in_else_this_browser_session():
    script = (
        "import streamlit as st\nfrom ui import identity\n"
        "if st.query_params.get('as'):\n"
        "    st.session_state[identity.KEY] = identity.Identity(role='viewer', email='v@lab.org', signed_in=True)\n"
        "st.write(identity.owner_key())\n"
    )
    local = AppTest.from_string(script, default_timeout=30).run()
    assert local.markdown[0].value.startswith("session:")
    signed = AppTest.from_string(script, default_timeout=30)
    signed.query_params["as"] = "1"
    assert signed.run().markdown[0].value == "user:v@lab.org"


def _listening(port: int) -> set[str]:
    """The local addresses (hex, as /proc/net/tcp* write them) with a socket listening on `port`."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                found.add(local.rsplit(":", 1)[0])
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's socket tables")
def test_a_real_start_without_options_listens_on_loopback_only(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "HOME": str(tmp_path), "CONCORD_DB": str(tmp_path / "s.duckdb")}
    env |= {"STREAMLIT_SERVER_HEADLESS": "true", "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]  # no address given
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "streamlit did not start"
                time.sleep(0.25)
        assert _listening(port) == {"0100007F"}  # 127.0.0.1 only: no 0.0.0.0, no :: (IPv6 any)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
