"""The dashboard's process stops quietly (issue 50 item 9): no "nanobind: leaked ..." lines when it exits or is
stopped with Ctrl-C while it serves command-line loads (analytics/cli/handover.py: its daemon threads held a
cursor past DuckDB's teardown), and a prefetching thread logs no "missing ScriptRunContext" (ui/prefetch.py)."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import streamlit as st

from tests.conftest import ROOT
from ui.prefetch import alongside

SERVE = """
import sys, threading, time
from analytics import store
from analytics.cli import handover
con = store.open_store(sys.argv[1])
server = handover.serve(con.cursor, sys.argv[1])
names = sorted(t.name for t in threading.enumerate() if t.name.startswith("concord-inbox"))
print(server is not None, *names, flush=True)
if sys.argv[2] == "wait":
    time.sleep(60)
"""


def serving(empty_store: Path, tmp_path: Path, mode: str) -> subprocess.Popen:
    """A Python process holding a copy of the store read-write with its inbox served, as the dashboard does."""
    db = tmp_path / "held.duckdb"
    shutil.copy(empty_store, db)
    env = {**os.environ, "CONCORD_DB": str(db)}
    return subprocess.Popen(
        [sys.executable, "-c", SERVE, str(db), mode],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_process_serving_the_inbox_exits_without_nanobind_leaks(empty_store, tmp_path):
    proc = serving(empty_store, tmp_path, "exit")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.split() == ["True", "concord-inbox-heartbeat", "concord-inbox-writer"]  # the threads did run
    assert "nanobind: leaked" not in err


def test_ctrl_c_stops_a_serving_process_without_nanobind_leaks(empty_store, tmp_path):
    proc = serving(empty_store, tmp_path, "wait")
    assert proc.stdout is not None
    assert proc.stdout.readline().split()[0] == "True"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "KeyboardInterrupt" in err  # stopped by the signal, not by the end of its script
    assert "nanobind: leaked" not in err


class Records(logging.Handler):
    """Keeps the messages logged to it, with the thread that logged them."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append((record.threadName or "", record.getMessage()))


@pytest.fixture
def context_warnings():
    """What Streamlit logs about threads without a ScriptRunContext during the test."""
    handler = Records()
    logger = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    logger.addHandler(handler)
    yield handler.seen
    logger.removeHandler(handler)


def test_a_prefetched_loader_with_a_spinner_logs_no_missing_context(context_warnings):
    ran: list[str] = []

    @st.cache_data(show_spinner="Computing the contractor's figures...")
    def load_own(contractor: str) -> str:
        ran.append(threading.current_thread().name)
        return contractor

    load_own.clear()
    assert alongside(lambda: "team", lambda: load_own("c01")) == "team"
    assert len(ran) == 1 and ran[0].startswith("concord-warm")  # it ran in the prefetch thread
    assert not [m for thread, m in context_warnings if thread.startswith("concord-warm")]
    assert load_own("c01") == "c01" and len(ran) == 1  # cached there, read here
