"""Shared fixtures: a fresh store per test and paths to ../shared."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

from analytics import store  # noqa: E402


@pytest.fixture
def con(tmp_path):
    """A new, migrated store in a temp directory."""
    c = store.open_store(tmp_path / "store.duckdb")
    yield c
    c.close()


def shared_path(*parts: str) -> Path:
    """A path under ../shared, skipping the test when that folder is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        if os.environ.get("CI") == "true":  # CI has ../shared beside the checkout: a missing file is a failure
            pytest.fail(f"{p} is missing on CI (../shared should be beside the checkout)")
        pytest.skip(f"{p} is not available (../shared is not beside the checkout)")
    return p


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory) -> Path:
    """A store file holding the whole demo data set, built once per test session."""
    from analytics.cli.first_run import demo_plan
    from analytics.ingest.load import ingest_file
    from demo import write_demo

    d = tmp_path_factory.mktemp("demo")
    write_demo(d / "inputs", seed=7)
    path = d / "demo.duckdb"
    c = store.open_store(path)
    for f in demo_plan(out=d / "inputs"):  # as the first start loads it: article files dated when returned
        ingest_file(c, f.path, undated_at=f.undated_at)
    c.close()
    return path


@pytest.fixture(scope="module")
def demo(demo_store):
    """A read-only connection to the demo store (one per test module)."""
    con = store.open_store(demo_store, read_only=True)
    yield con
    con.close()


@pytest.fixture(scope="session")
def truth(demo_store) -> dict:
    """The demo's truth.json: what the simulator planted."""
    return json.loads((demo_store.parent / "inputs" / "truth.json").read_text())


@pytest.fixture
def app_store(demo_store, tmp_path, monkeypatch) -> Path:
    """A private copy of the demo store, selected for the app through CONCORD_DB."""
    import shutil

    path = tmp_path / "app.duckdb"
    shutil.copy(demo_store, path)
    monkeypatch.setenv("CONCORD_DB", str(path))
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "no-demo"))
    return path


class TerminalStderr(io.StringIO):
    """A stderr that says it is a terminal (the commands show progress there only)."""

    def isatty(self) -> bool:
        return True


def app_test(page: str | None = None):
    """An AppTest of app.py that has run once (and switched to `page`, a path like 'app_pages/data.py')."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    if page:
        at.switch_page(page).run()
    return at


@pytest.fixture
def download_buttons(monkeypatch) -> dict:
    """The media file manager of every download button drawn during the test, by its deferred file id: AppTest
    drops its manager after each run, and a button's file is written only when it is clicked."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    managers: dict = {}
    original = MediaFileManager.add_deferred

    def record(self, *args, **kwargs):
        file_id = original(self, *args, **kwargs)
        managers[file_id] = self
        return file_id

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    return managers


def click_downloads(at, managers: dict, key: str | None = None) -> list[str]:
    """Click the page's download buttons (every one, or the one whose key is `key`) as Streamlit serves a click:
    the button's function runs (ui/tables.csv_data and the Feedback report are written then, not on every rerun)
    and its result is stored as a media file. Returns the files' URLs (their stem is the stored file's id)."""
    urls = []
    for button in at.get("download_button"):
        if key is not None and not button.proto.id.endswith(key):
            continue
        deferred = button.proto.deferred_file_id
        assert deferred, f"{button.label}: written on every rerun, not when clicked"
        urls.append(managers[deferred].execute_deferred(deferred))
    assert urls or key is None, f"no download button {key}"
    return urls
