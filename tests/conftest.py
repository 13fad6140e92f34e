"""Shared fixtures: a fresh store per test, the demo built once per run, paths to ../shared, and the markers and
xdist groups every test gets from where it lives (pytest_collection_modifyitems)."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import io
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
sys.path.insert(0, str(ROOT))

from analytics import store  # noqa: E402
from analytics.ingest.load import ingest_bytes  # noqa: E402

try:
    from xdist.scheduler import LoadGroupScheduling
except ImportError:  # without pytest-xdist the tests run in one process
    LoadGroupScheduling = None

# Slow tests (measured 15-60 s each on a busy 2-core machine: the Monte Carlo coverage checks, and the AppTest
# sweeps of every page and choice), by file and function, every parameter; the fast lane
# (`scripts/test.sh --fast`, `-m "not e2e and not spark and not slow"`) leaves them to the full run.
SLOW = {
    "test_agreement_honest.py::test_task_bootstrap_covers_95_percent_with_several_targets_and_two_researcher_labels",
    "test_agreement_honest.py::test_delta_method_covers_95_percent_from_delta_min_tasks",
    "test_distributions.py::test_large_groups_take_the_multiplier_bootstrap_with_the_multinomial_intervals",
    "test_hostile_text.py::test_every_page_and_choice_keeps_hostile_text_inert",
    "test_page_downloads.py::test_no_page_sends_a_raw_bidi_override_anywhere",
    "test_chart_specs.py::test_every_chart_a_page_sends_is_valid_vega_lite",
    # quick calls on a module fixture of every demo contractor's report (about 25 s, paid by the first of them)
    "test_feedback_effects.py::test_planted_behaviours_are_reported_where_there_are_enough_ratings",
    "test_feedback_effects.py::test_position_bias_is_told_to_the_planted_contractors_on_the_demo",
    "test_feedback_effects.py::test_careful_contractors_are_told_of_no_effect",
}
SPARK_FILES = {"test_spark_parity.py", "test_spark_errors.py"}
# Each test's time measured in a whole run on this 2-core machine (scripts/record_durations.py writes it): the
# longest work starts first, and the fast lane also leaves out every test measured over FAST_LIMIT_S.
DURATIONS_FILE = Path(__file__).with_name("durations.json")
FAST_LIMIT_S = 0.8
UNMEASURED_S = 0.5  # a test the file does not know yet (new since it was recorded)


def durations() -> dict[str, float]:
    """Each test's measured seconds by node id (empty when the file is missing)."""
    return json.loads(DURATIONS_FILE.read_text()) if DURATIONS_FILE.exists() else {}


def xdist_group(nodeid: str) -> str | None:
    """The xdist group of a test by where it lives: e2e (tests/e2e: a browser and a Streamlit server), spark (a
    JVM or a Spark Connect server); each group runs on one worker, one test after another."""
    path = nodeid.split("::", 1)[0]
    if path.startswith("tests/e2e/"):
        return "e2e"
    if Path(path).name in SPARK_FILES:
        return "spark"
    return None


def work_unit(nodeid: str) -> str:
    """What one xdist worker runs as a whole: a group, else the test's file (its module fixtures built once)."""
    return xdist_group(nodeid) or nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test by where it lives: e2e and spark (with their xdist group), and slow for SLOW and for a
    measured time over FAST_LIMIT_S; then order the work units longest first (each unit's tests kept together)."""
    measured = durations()
    unit_of: dict[str, str] = {}
    cost: dict[str, float] = {}  # each work unit's measured seconds
    first: dict[str, int] = {}  # where each work unit first appears in the collection
    for i, item in enumerate(items):
        group = xdist_group(item.nodeid)
        if group:
            item.add_marker(getattr(pytest.mark, group))
            item.add_marker(pytest.mark.xdist_group(group))
        named = f"{Path(str(item.fspath)).name}::{getattr(item, 'originalname', item.name)}"
        if named in SLOW or measured.get(item.nodeid, 0.0) > FAST_LIMIT_S:
            item.add_marker(pytest.mark.slow)
        unit = unit_of[item.nodeid] = work_unit(item.nodeid)
        cost[unit] = cost.get(unit, 0.0) + measured.get(item.nodeid, UNMEASURED_S)
        first.setdefault(unit, i)
    items.sort(key=lambda item: (-cost[unit_of[item.nodeid]], first[unit_of[item.nodeid]]))


if LoadGroupScheduling is not None:

    class GroupScheduling(LoadGroupScheduling):
        """`--dist loadgroup` with the work units of work_unit(): the groups of xdist_group() (pytest 9.2 ignores
        the "@group" suffix xdist 3.8 gives the node ids of xdist_group-marked tests, so its own loadgroup runs
        them anywhere), and otherwise one file each."""

        def _split_scope(self, nodeid: str) -> str:
            return super()._split_scope(nodeid) if "@" in nodeid else work_unit(nodeid)

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
        """GroupScheduling for `--dist loadgroup` (its units in the collection's order: longest first, see
        pytest_collection_modifyitems); xdist's own scheduler otherwise."""
        if config.getvalue("dist") != "loadgroup":
            return None
        config.option.loadscopereorder = False
        return GroupScheduling(config, log)


def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every xdist worker of this run shares (each worker's basetemp is a child of the run's)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The folder `name` of this run, filled by `build` once: the first worker to ask builds it under a file lock,
    the others wait and reuse it. What is in it is shared read-only; a test that writes copies it first."""
    folder = run_dir(tmp_path_factory) / name
    with _locked(folder.with_suffix(".lock")):
        done = folder / ".built"
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


def loaded_store(path: Path, files: dict[str, bytes]) -> Path:
    """A new store at `path` with `files` (name -> contents) loaded in order, each whole; returns `path`."""
    con = store.open_store(path)
    try:
        for name, data in files.items():
            result = ingest_bytes(con, data, name)
            assert result.status == "loaded", (name, result.errors)
    finally:
        con.close()
    return path


def _empty_store(folder: Path) -> None:
    store.open_store(folder / "store.duckdb").close()


@pytest.fixture(scope="session")
def empty_store(tmp_path_factory) -> Path:
    """A new, migrated store file, migrated once per run (copy it: see `con`)."""
    return built_once(tmp_path_factory, "empty-store", _empty_store) / "store.duckdb"


def connect_copy(source: Path, path: Path) -> duckdb.DuckDBPyConnection:
    """A read-write connection to a copy of the store `source` at `path`, set as store.open_store sets its own
    (the copy is already migrated and its catalogue synced: opening it through open_store would redo both)."""
    shutil.copy(source, path)
    c = duckdb.connect(str(path))
    c.execute("SET enable_progress_bar = false")
    return c


@pytest.fixture
def con(empty_store, tmp_path):
    """A new, migrated store in a temp directory (a copy of `empty_store`)."""
    c = connect_copy(empty_store, tmp_path / "store.duckdb")
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


def _demo(folder: Path) -> None:
    from analytics.cli.first_run import add_demo_markers, demo_plan
    from analytics.ingest.load import ingest_file
    from demo import write_demo

    write_demo(folder / "inputs", seed=7)
    c = store.open_store(folder / "demo.duckdb")
    for f in demo_plan(out=folder / "inputs"):  # as the first start loads it: article files dated when returned
        ingest_file(c, f.path, undated_at=f.undated_at)
    add_demo_markers(c, folder / "inputs")
    c.close()


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory) -> Path:
    """A store file holding the whole demo data set (seed 7, loaded as the first start loads it), built once per
    run and shared by every worker: open it read-only, or copy it to write."""
    return built_once(tmp_path_factory, "demo", _demo) / "demo.duckdb"


@pytest.fixture(scope="session")
def demo_inputs(demo_store) -> Path:
    """The folder of the demo's input files and truth.json (write_demo(seed=7)), shared read-only."""
    return demo_store.parent / "inputs"


def demo_written(inputs: Path) -> dict:
    """What write_demo returned for the demo in `inputs`: its files in load order and truth.json."""
    truth = inputs / "truth.json"
    return {"files": [inputs / f["file"] for f in json.loads(truth.read_text())["files"]], "truth": truth}


@pytest.fixture(scope="module")
def demo(demo_store):
    """A read-only connection to the demo store (one per test module)."""
    con = store.open_store(demo_store, read_only=True)
    yield con
    con.close()


@pytest.fixture(scope="session")
def truth(demo_inputs) -> dict:
    """The demo's truth.json: what the simulator planted."""
    return json.loads((demo_inputs / "truth.json").read_text())


@pytest.fixture
def app_store(demo_store, tmp_path, monkeypatch) -> Path:
    """A private copy of the demo store, selected for the app through CONCORD_DB."""
    path = tmp_path / "app.duckdb"
    shutil.copy(demo_store, path)
    monkeypatch.setenv("CONCORD_DB", str(path))
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "no-demo"))
    return path


@pytest.fixture(scope="session")
def _worker_app_store(demo_store, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("shared-app") / "app.duckdb"
    shutil.copy(demo_store, path)
    return path


def _contents(path: Path) -> list[tuple]:
    """Every table's row count, and the rows themselves of the small ones (notes, markers, meta...)."""
    with duckdb.connect(str(path)) as c:  # read-write as the app's own: DuckDB refuses both modes in one process
        tables = [t for (t,) in c.execute("SELECT table_name FROM duckdb_tables() ORDER BY ALL").fetchall()]
        out = []
        for t in tables:
            (n,) = c.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0]
            rows = sorted(map(repr, c.execute(f'SELECT * FROM "{t}"').fetchall())) if n <= 2_000 else []
            out.append((t, n, rows))
        return out


@pytest.fixture
def shared_app_store(_worker_app_store, tmp_path, monkeypatch) -> Iterator[Path]:
    """The demo store for page tests that only read, selected for the app through CONCORD_DB: one copy per worker,
    so the pages' caches (keyed by the store's path and dataset version) hit from one test to the next. A test
    that writes to the store, or patches what a cached loader computes, takes `app_store` (a private copy); one
    that writes here fails. Read expected figures from `demo_store` (the same data, opened read-only)."""
    with served_read_only(_worker_app_store, tmp_path, monkeypatch, "give it app_store") as path:
        yield path


@contextlib.contextmanager
def served_read_only(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, advice: str) -> Iterator[Path]:
    """The store `path` selected for the app through CONCORD_DB (and no demo folder), shared by tests that only
    read it: a test that wrote to it fails, with `advice`."""
    monkeypatch.setenv("CONCORD_DB", str(path))
    monkeypatch.setenv("CONCORD_DEMO_DIR", str(tmp_path / "no-demo"))
    before = _contents(path)
    yield path
    assert _contents(path) == before, f"the test wrote to the shared store {path.name}: {advice}"


class TerminalStderr(io.StringIO):
    """A stderr that says it is a terminal (the commands show progress there only)."""

    def isatty(self) -> bool:
        return True


def app_test(page: str | None = None, timeout: float = 90):
    """An AppTest of app.py that has run once, opened on `page` (a path like 'app_pages/data.py') as a link to it
    opens it; on the Overview without one."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    return (at.switch_page(page) if page else at).run()


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


@pytest.fixture(scope="session", autouse=True)
def components_scanned_once() -> Iterator[None]:
    """Streamlit's scan of every installed package for components (manifest_scanner.scan_component_manifests),
    which each new AppTest runs (about 0.25 s of CPU reading package metadata), done once per worker, when first
    asked: the installed packages do not change during a run."""
    from streamlit.components.v2 import manifest_scanner

    scan = functools.cache(manifest_scanner.scan_component_manifests)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(manifest_scanner, "scan_component_manifests", lambda *args, **kwargs: list(scan(*args, **kwargs)))
        yield


@pytest.fixture
def served_files(monkeypatch) -> dict[str, bytes]:
    """Every file a download button served during the test, by file name."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    seen: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        seen[str(filename)] = path_or_data if isinstance(path_or_data, bytes) else str(path_or_data).encode()
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    return seen
