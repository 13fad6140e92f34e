"""Explore's hard limits: queries in a worker process are stopped at the time limit (within 2 s), held to the
memory cap and the result's byte cap, wait for a slot beyond N at once, and stop when their session moves on."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import duckdb
import pytest
from test_explore_sandbox import ESCAPES, MORE_CSV, _fill, _sql

from analytics import store
from analytics.explore import sql
from analytics.explore import worker as explore_worker
from analytics.explore.worker import ExploreService, Limits
from analytics.ingest.load import ingest_bytes, ingest_file

GB = 2**30
# A scalar function slow enough to run for minutes within one chunk (DuckDB checks interrupts between chunks).
SLOW = "SELECT levenshtein(repeat('a', 30000) || range::VARCHAR, repeat('b', 30000)) AS d FROM range(1000)"
# 10,001 strings of 100 kB: 1 GB of result (the query of the issue).
WIDE = "SELECT repeat('x', 100000) AS s FROM range(10001)"
# A first chunk of 2,048 strings of 1 MB: 2 GB before any result is read.
HUGE = "SELECT repeat('x', 1000000) AS s FROM range(10001)"


def _rss(pid: int) -> int:
    return explore_worker._memory(pid)[0]


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in f)
    except OSError:
        return False


@pytest.fixture
def loaded(con, tmp_path):
    return _fill(con, tmp_path)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    folder = tmp_path_factory.mktemp("explore_worker")
    con = _fill(store.open_store(folder / "store.duckdb"), folder)
    yield con, folder
    con.close()


@pytest.fixture
def services():
    made: list[ExploreService] = []

    def make(**limits) -> ExploreService:
        svc = ExploreService(Limits(**limits))
        svc.warm_up()
        made.append(svc)
        return svc

    yield make
    for svc in made:
        svc.close()


def test_worker_returns_the_same_rows_as_the_sandbox(loaded, services):
    svc = services()
    query = (
        "SELECT rater_id, count(*) AS n, 1.5::DECIMAL(4, 2) AS d, [1, 2] AS l FROM ratings GROUP BY ALL ORDER BY ALL"
    )
    result = svc.run(loaded, query)
    assert result.ok, result.error
    inline = sql.run_query(loaded, query)
    assert result.columns == inline.columns == ("rater_id", "n", "d", "l")
    assert result.frame.astype(str).values.tolist() == inline.frame.astype(str).values.tolist()
    assert 0 < result.peak_memory < GB
    assert not _alive(svc.last_pid)


@pytest.mark.parametrize("template", list(ESCAPES.values()), ids=list(ESCAPES))
def test_escapes_are_refused_through_the_service(shared, template):
    loaded, folder = shared
    result = ExploreService().run(loaded, _sql(template, folder))
    assert result.error and "\n" not in result.error and result.frame.empty
    assert result.peak_memory == 0  # refused before any worker


def test_worker_instance_reaches_no_file_and_no_setting(loaded, tmp_path):
    snapshot = explore_worker.Snapshots().get(loaded)
    con = explore_worker.open_snapshot(str(snapshot), GB)
    try:
        with pytest.raises(duckdb.Error, match="disabled"):
            con.execute(f"SELECT * FROM read_csv('{tmp_path}/secret.csv')")
        with pytest.raises(duckdb.Error):
            con.execute("SET enable_external_access = true")
        with pytest.raises(duckdb.Error, match="read-only"):
            con.execute("DELETE FROM ratings")
        # A view in the store that reads a file does not read it in the worker either.
        with pytest.raises(duckdb.Error, match="disabled"):
            con.execute("SELECT * FROM file_view")
    finally:
        con.close()


def test_wide_result_is_cut_at_the_byte_cap(loaded, services):
    svc = services(memory_bytes=GB)
    before = _rss(os.getpid())
    result = svc.run(loaded, WIDE)
    assert result.ok and result.truncated and result.truncated_by == "bytes"
    assert 0 < len(result.frame) < 10_000
    assert len(result.frame) * 100_000 <= sql.MAX_RESULT_BYTES
    assert result.peak_memory < GB + explore_worker.RSS_MARGIN
    assert _rss(os.getpid()) - before < 512 * 2**20  # this process received the cut result only
    assert not _alive(svc.last_pid)


def test_memory_cap_holds_for_huge_strings(loaded, services):
    svc = services(memory_bytes=GB)
    result = svc.run(loaded, HUGE)
    assert result.error and "more than 1 GB of memory" in result.error
    assert 0 < result.peak_memory < GB + explore_worker.RSS_MARGIN
    assert not _alive(svc.last_pid)  # ended, so its memory is back with the system
    again = svc.run(loaded, "SELECT count(*) AS n FROM ratings")
    assert again.frame["n"].tolist() == [6]


def _ended_workers(monkeypatch) -> list:
    """The worker processes the service ends (explore_worker._end), recorded in order."""
    ended: list = []
    end = explore_worker._end

    def record(proc):
        end(proc)
        ended.append(proc)

    monkeypatch.setattr(explore_worker, "_end", record)
    return ended


def test_slow_scalar_function_is_killed_at_the_limit(loaded, services, monkeypatch):
    """A query inside one chunk is stopped by this process killing its worker when the time limit passes (the
    watch looks every TICK_S), not by the worker's own interrupt or the kernel's CPU limit (SIGXCPU, later)."""
    svc = services(timeout_s=1.0)
    ended = _ended_workers(monkeypatch)
    result = svc.run(loaded, SLOW)
    assert result.error and "longer than 1 s" in result.error and "\n" not in result.error
    assert [p.pid for p in ended] == [svc.last_pid] and ended[0].returncode == -signal.SIGKILL
    assert not _alive(svc.last_pid)


def test_the_in_process_interrupt_does_not_stop_it(loaded, monkeypatch):
    """Why the worker exists: in this process, DuckDB's interrupt at the time limit waits for the chunk to end.
    The interrupt arrives while the first row of a one-chunk query is computed, and every other row of the chunk
    is still computed after it (a slow scalar function such as SLOW's runs on far past the limit)."""
    interrupted = threading.Event()

    class Timer(threading.Timer):  # sql._execute's time limit, which says when it has interrupted
        def __init__(self, interval: float, function) -> None:
            super().__init__(interval, lambda: (function(), interrupted.set()))

    after: list[int] = []

    def held_row(i: int) -> int:
        if i == 0:
            assert interrupted.wait(60), "the time limit never interrupted the query"
        elif interrupted.is_set():
            after.append(i)
        return i

    monkeypatch.setattr(sql.threading, "Timer", Timer)
    cur = loaded.cursor()
    try:
        cur.create_function("held_row", held_row, ["BIGINT"], "BIGINT", side_effects=True)
        table, outcome = sql._execute(cur, "SELECT held_row(range) AS n FROM range(4)", 100, 0.05)
    finally:
        cur.close()
    assert after == [1, 2, 3]  # the interrupt did not stop the chunk
    assert table is None and "longer than 0.05 s" in outcome["error"]  # it took effect at the chunk's end


def test_queries_beyond_n_wait_for_a_slot(loaded, services):
    svc = services(max_concurrent=1, timeout_s=2.0)
    ends: dict[str, float] = {}
    messages: list[str] = []

    def slow() -> None:
        svc.run(loaded, SLOW)
        ends["slow"] = time.perf_counter()

    first = threading.Thread(target=slow)
    first.start()
    deadline = time.monotonic() + 10
    while svc.running == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert svc.running == 1
    result = svc.run(loaded, "SELECT 42 AS n", on_status=messages.append)
    ends["quick"] = time.perf_counter()
    first.join()
    assert result.frame["n"].tolist() == [42]
    assert messages and "Waiting for a free slot" in messages[0] and "at most 1 at once" in messages[0]
    assert ends["quick"] > ends["slow"]


def test_a_newer_query_of_the_same_session_stops_the_older(loaded, services):
    svc = services(timeout_s=30.0)
    out: dict = {}

    def older() -> None:
        out["older"] = svc.run(loaded, SLOW, session="s1")

    thread = threading.Thread(target=older)
    thread.start()
    while svc.running == 0:
        time.sleep(0.01)
    time.sleep(0.5)
    newer = svc.run(loaded, "SELECT 1 AS n", session="s1")
    thread.join()
    assert newer.frame["n"].tolist() == [1]
    assert "newer query" in out["older"].error  # stopped by the newer query, not at its 30 s limit


def test_a_query_stops_when_its_session_moves_on(loaded, services, monkeypatch):
    """The watch asks `cancelled` at each tick while the worker runs and kills it on the first yes."""
    svc = services(timeout_s=30.0)
    ended = _ended_workers(monkeypatch)
    answers: list[bool] = []

    def cancelled() -> bool:
        answers.append(len(answers) >= 20)  # the session moves on after about a second of ticks
        return answers[-1]

    result = svc.run(loaded, SLOW, cancelled=cancelled)
    assert "stopped because the page changed" in result.error
    assert answers.count(True) == 1 and answers[-1]  # stopped on the first yes, never asked again
    assert [p.pid for p in ended] == [svc.last_pid] and ended[0].returncode == -signal.SIGKILL
    assert not _alive(svc.last_pid)


def test_snapshot_follows_the_dataset_version(loaded, services, tmp_path):
    svc = services()
    assert svc.run(loaded, "SELECT count(*) AS n FROM ratings").frame["n"].tolist() == [6]
    first = sorted(Path(tmp_path).glob("store.explore-*.duckdb"))
    more = tmp_path / "more.csv"
    more.write_text(MORE_CSV)
    assert ingest_file(loaded, more).rows_loaded == 1
    assert svc.run(loaded, "SELECT count(*) AS n FROM ratings").frame["n"].tolist() == [7]
    second = sorted(Path(tmp_path).glob("store.explore-*.duckdb"))
    assert len(first) == len(second) == 1 and first != second  # the old copy is gone


def _one_store(path: Path, rater: str) -> None:
    """A new store at `path` with one rating by `rater` (dataset version 1 whatever the rater)."""
    con = store.open_store(path)
    data = f"task_id,rater_id,dimension,value\nt1,{rater},q,1\n".encode()
    assert ingest_bytes(con, data, f"{rater}.csv").rows_loaded == 1
    con.close()


def test_a_store_replaced_at_the_same_path_never_shows_the_old_ones_rows(tmp_path, services):
    """Protection: snapshots are keyed by the store's identity (migration 17) and dataset version; keyed by the file
    name and version, a store put in another's place (a backup restored) at the same version got the old rows."""
    svc = services()
    path, other = tmp_path / "store.duckdb", tmp_path / "elsewhere" / "store.duckdb"
    other.parent.mkdir()
    _one_store(path, "from_a")
    _one_store(other, "from_b")
    query = "SELECT rater_id FROM ratings"
    con = store.open_store(path)
    try:
        assert svc.run(con, query).frame["rater_id"].tolist() == ["from_a"]
        version_a, identity_a = store.dataset_version(con), store.store_identity(con)
    finally:
        con.close()
    other.replace(path)  # store B, restored in A's place while the dashboard was stopped
    con = store.open_store(path)
    try:
        assert (store.dataset_version(con), identity_a) == (version_a, identity_a)
        assert store.store_identity(con) not in (None, identity_a)
        assert svc.run(con, query).frame["rater_id"].tolist() == ["from_b"]
    finally:
        con.close()
    assert len(list(tmp_path.glob("store.explore-*.duckdb"))) == 1  # A's copy went when B's was made


def test_a_copy_left_by_an_earlier_run_is_made_again(tmp_path, services):
    """Protection: a server uses only snapshots it made (Snapshots._made); a backup of the same store (same
    identity) restored and changed to the version of a copy left on disk would otherwise get that copy's rows."""
    path = tmp_path / "store.duckdb"
    _one_store(path, "from_a")
    con = store.open_store(path)
    try:
        assert services().run(con, "SELECT rater_id FROM ratings").frame["rater_id"].tolist() == ["from_a"]
        (left,) = tmp_path.glob("store.explore-*.duckdb")
        con.execute("UPDATE ratings SET rater_id = 'changed'")  # the same identity and version, other rows
        assert services().run(con, "SELECT rater_id FROM ratings").frame["rater_id"].tolist() == ["changed"]
        assert list(tmp_path.glob("store.explore-*.duckdb")) == [left]  # made again under the same name
    finally:
        con.close()


def _quick_while_slow(svc: ExploreService, loaded, slow_owner: str, quick_owner: str) -> tuple[list[str], bool]:
    """Run SLOW as `slow_owner` (session tab1) and then a quick query as `quick_owner` (session tab2): the quick
    query's waiting messages, and whether it ended before the slow one."""
    ends: dict[str, float] = {}
    messages: list[str] = []

    def slow() -> None:
        svc.run(loaded, SLOW, session="tab1", owner=slow_owner)
        ends["slow"] = time.perf_counter()

    first = threading.Thread(target=slow)
    first.start()
    deadline = time.monotonic() + 10
    while svc.running == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert svc.running == 1
    result = svc.run(loaded, "SELECT 42 AS n", session="tab2", owner=quick_owner, on_status=messages.append)
    ends["quick"] = time.perf_counter()
    first.join()
    assert result.frame["n"].tolist() == [42]
    return messages, ends["quick"] < ends["slow"]


def test_two_tabs_of_one_owner_hold_one_slot(loaded, services):
    """Protection: per_owner (1) besides the server's limit; two sessions (tabs) of one owner took both slots."""
    messages, first = _quick_while_slow(services(max_concurrent=2, timeout_s=2.0), loaded, "alice", "alice")
    assert not first  # it waited for the other tab's query although a server slot was free
    assert messages and "your other Explore query is still running" in messages[0]


def test_two_owners_run_at_once(loaded, services):
    messages, first = _quick_while_slow(services(max_concurrent=2, timeout_s=2.0), loaded, "alice", "bob")
    assert first and not messages


def test_a_browser_is_one_owner_whatever_the_cookie_text():
    """The XSRF cookie is re-masked on each page load: two tabs' cookies differ in text, not in token."""
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    from ui.explore_owner import browser_token

    token, other = os.urandom(16), os.urandom(16)
    tabs = [generate_xsrf_token_string(token, 1_700_000_000) for _ in range(2)]
    assert tabs[0] != tabs[1]
    assert browser_token(tabs[0]) == browser_token(tabs[1]) == token
    assert browser_token(generate_xsrf_token_string(other)) == other
    assert browser_token("2|zz|00|1") is None
