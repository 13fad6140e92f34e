"""Command-line loads while the dashboard holds the store (issue: hardening round two, item 3).

DuckDB lets one process hold a store read-write. Before the hand-over, `python -m analytics ingest` into the
store a running dashboard held exited 2 "in use by another program"; now the files are handed to the dashboard's
writer (analytics/cli/handover.py) and the command line prints the same result as a direct load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analytics import store
from analytics.cli import handover
from tests.cli_helpers import run_cli
from tests.conftest import ROOT, app_test, demo_written

DATA_PAGE = "app_pages/data.py"


def cli(*args: str, db: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `python -m analytics ARGS --db DB` in its own process, as a scheduled load would: the hand-over is
    between two processes (tests that need no second process use tests.cli_helpers.run_cli)."""
    env = {**os.environ, "CONCORD_DB": str(db)}
    env.pop("PYTEST_CURRENT_TEST", None)
    return subprocess.run(
        [sys.executable, "-m", "analytics", *args, "--db", str(db)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def demo_inputs(demo_inputs) -> list[Path]:
    """The demo's input files (canonical CSVs, JSONL, JSON): the run's shared demo, read only."""
    return demo_written(demo_inputs)["files"]


@pytest.fixture(scope="module")
def small_demo(tmp_path_factory) -> list[Path]:
    """A tenth of the demo's tasks (write_demo's scale), written once per module: its files in load order. What
    the hand-over tests assert does not depend on the files' size, and every format, the rater directory and the
    deliberately broken file are still there; the whole demo took a load four times over (about 20 s each)."""
    from demo import write_demo

    return write_demo(tmp_path_factory.mktemp("small-demo"), seed=7, scale=0.1)["files"]


@pytest.fixture
def held(tmp_path, monkeypatch):
    """A store held read-write by this process (as the dashboard holds it) with its inbox served."""
    db = tmp_path / "held.duckdb"
    monkeypatch.setenv("CONCORD_DB", str(db))
    con = store.open_store(db)
    server = handover.serve(con.cursor, db)
    yield db, con
    assert server is not None
    server.stop.set()
    con.close()


def test_cli_load_into_a_store_the_dashboard_holds_is_handed_over(held, small_demo, tmp_path):
    """Fails before: exit 2 "in use by another program". Now the dashboard loads it; the JSON of a direct load,
    content-free (no text from the files)."""
    db, con = held
    files = [str(f) for f in small_demo if f.suffix in (".csv", ".jsonl")]
    out = cli("ingest", *files, "--json", db=db)
    assert out.returncode == 0, out.stderr
    assert "handing the files to it" in out.stderr
    handed = json.loads(out.stdout)
    assert [r["status"] for r in handed["files"]] == ["loaded"] * len(files)
    # A rater directory's rows are people and a feedback log's feedback events, not ratings (the demo ships both
    # among its CSV files).
    loaded = sum(r["rows_loaded"] for r in handed["files"] if r["format"] not in ("rater_directory", "feedback_log"))
    assert con.execute("SELECT count(*) FROM ratings").fetchone()[0] == loaded > 0

    direct = run_cli("ingest", *files, "--json", "--db", str(tmp_path / "direct.duckdb"))  # nobody holds this one
    assert direct.returncode == 0, direct.stderr
    assert "handing" not in direct.stderr
    # The same result, with what may quote a file (errors' reasons, notes) withheld: content_free.
    assert handover.content_free(json.loads(direct.stdout)) == handed

    again = cli("ingest", files[0], db=db)  # the text form, and the store's dedup, through the hand-over
    assert again.returncode == 0, again.stderr
    assert "already_loaded" in again.stdout


def test_handed_over_scales_file_the_store_refuses_changes_nothing(held, demo_inputs, tmp_path):
    """A scales file is checked before anything is handed over; one the store refuses exits 2, nothing stored."""
    db, con = held
    bad = tmp_path / "bad-scales.json"
    bad.write_text("{not json")
    out = run_cli("ingest", str(demo_inputs[0]), "--scales", str(bad), "--db", str(db))  # refused in this process
    assert out.returncode == 2 and "bad-scales.json" in out.stderr
    contradicting = tmp_path / "contradicting.json"  # reorders a catalogue scale: the store refuses it
    contradicting.write_text(
        json.dumps(
            {
                "scales": [
                    {
                        "rubric": "answer_comparison",
                        "dimension": "usefulness",
                        "measure": "ordinal",
                        "levels": ["Very good", "Good", "Neutral", "Bad", "Very bad"],
                    }
                ]
            }
        )  # fmt: skip
    )
    out = cli("ingest", str(demo_inputs[0]), "--scales", str(contradicting), db=db)
    assert out.returncode == 2, out.stdout
    assert "contradicting.json" in out.stderr
    assert con.execute("SELECT count(*) FROM ingest_log").fetchone()[0] == 0


def test_a_store_held_without_a_serving_dashboard_is_still_a_clear_error(tmp_path):
    """Another program holding the file (no heartbeat in the inbox): exit 2 naming the cause, as before."""
    db = tmp_path / "locked.duckdb"
    store.open_store(db).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, sys; c = duckdb.connect({str(db)!r}); print('ready', flush=True); sys.stdin.readline()",
        ],  # fmt: skip
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        out = run_cli("ingest", __file__, "--db", str(db))  # the other process holds the lock, nobody serves
        assert out.returncode == 2
        assert "in use by another program" in out.stderr and "Traceback" not in out.stderr
    finally:
        holder.communicate("\n", timeout=30)


def test_the_command_line_stops_waiting_when_the_dashboard_stops_answering(tmp_path, monkeypatch):
    """A heartbeat that goes stale while waiting (the dashboard was stopped) ends the wait with what to do.
    The heartbeat is this process's, which holds the store (a heartbeat is believed only from the holder)."""
    monkeypatch.setattr(handover, "STALE_S", 0.6)
    db = tmp_path / "s.duckdb"
    con = store.open_store(db)
    inbox = handover.Inbox.of(db)
    inbox.make()
    handover.write_private(inbox.heartbeat, {"pid": os.getpid(), "token": "t", "at": time.time()})
    try:
        with pytest.raises(handover.HandoverError, match="stopped answering.*already_loaded"):
            handover.hand_over(db, [__file__])
    finally:
        con.close()
    assert not list(inbox.requests.glob("*.json"))  # its request is withdrawn


def test_handed_over_loads_queue_with_note_saves(held, small_demo):
    """The dashboard's writer takes the one write lock: notes saved while a handed-over load runs all succeed."""
    from analytics.review.disagreements import CaseKey, save_note

    db, con = held
    env = {**os.environ, "CONCORD_DB": str(db)}
    load = subprocess.Popen(
        [sys.executable, "-m", "analytics", "ingest", *[str(f) for f in small_demo], "--json", "--db", str(db)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    cur, saved = con.cursor(), 0
    while load.poll() is None or saved < 20:  # notes keep coming for as long as the load runs
        save_note(cur, CaseKey(f"t{saved}", "answer_comparison", "usefulness", "", "c1", "r1"), "feedback given")
        saved += 1
        time.sleep(0.02)
    out, err = load.communicate(timeout=300)
    assert load.returncode in (0, 1), err  # 1: the demo's deliberately broken file has rejected rows
    assert "handing the files to it" in err
    assert con.execute("SELECT count(*) FROM review_notes").fetchone()[0] == saved
    statuses = {r["status"] for r in json.loads(out)["files"]}
    assert "loaded" in statuses


def test_the_dashboard_serves_its_store_and_shows_a_handed_over_file(app_store, demo_inputs, tmp_path):
    """The app's connection starts the writer: a command-line load appears on the Data page's ingest log."""
    at = app_test(DATA_PAGE)
    assert not at.exception
    assert handover.writer_pid(app_store) == os.getpid()
    extra = tmp_path / "extra.csv"
    extra.write_text(
        "task_id,rater_id,role,rubric,dimension,target,value\n"
        "handover-1,c99,contractor,answer_comparison,usefulness,A,Good\n"
        "handover-1,r99,researcher,answer_comparison,usefulness,A,Bad\n"
    )
    out = cli("ingest", str(extra), db=app_store)
    assert out.returncode == 0, out.stderr
    assert "extra.csv: loaded" in out.stdout
    at.run()
    assert not at.exception
    shown = " ".join(str(df.value.to_dict()) for df in at.dataframe)
    assert "extra.csv" in shown


def test_the_store_stays_locked_after_an_explore_query(held):
    """Fails before: Explore's snapshot copied the store file in the dashboard's process, closing a handle on
    it, and the system dropped DuckDB's lock: a command-line load then opened the store itself and its rows
    were lost when the dashboard next wrote (found by bench/bench_load.py)."""
    from analytics.explore.worker import ExploreService

    db, con = held
    svc = ExploreService()
    try:
        result = svc.run(con.cursor(), "SELECT count(*) AS n FROM ratings")
        assert result.error is None, result.error
    finally:
        svc.close()
    probe = subprocess.run(
        [sys.executable, "-c", f"import duckdb; duckdb.connect({str(db)!r})"], capture_output=True, text=True
    )
    assert probe.returncode != 0 and "lock" in probe.stderr.lower(), probe.stderr


def test_a_serving_dashboard_gets_the_files_even_when_the_lock_is_gone(held, demo_inputs):
    """The heartbeat, not the file lock, decides: with the lock dropped (a handle closed in the dashboard's
    process), the command line still hands the files over instead of writing the store beside it."""
    db, con = held
    open(db, "rb").close()  # drops this process's POSIX lock on the store, as the old snapshot copy did
    out = cli("ingest", str(demo_inputs[0]), "--json", db=db)
    assert out.returncode == 0, out.stderr
    assert "handing the files to it" in out.stderr
    assert con.execute("SELECT count(*) FROM ingest_log").fetchone()[0] == 1


def test_loading_the_store_file_itself_is_refused(con, tmp_path):
    """Reading the open store file as input would close a handle on it (and drop its lock): refused."""
    from analytics.ingest.load import ingest_file

    path = con.execute("SELECT path FROM duckdb_databases() WHERE NOT internal").fetchone()[0]
    r = ingest_file(con, path)
    assert r.status == "rejected" and r.errors == ["store.duckdb is the store itself, not a file of ratings"]


def _load_later_ratings(db: Path, day: str, name: str) -> None:
    """Load two ratings of a new unit submitted on `day` (after everything in the demo) into the store `db`."""
    from analytics.ingest.load import ingest_bytes

    data = (
        "task_id,rater_id,role,rubric,dimension,target,value,submitted_at\n"
        f"late-1,c98,contractor,answer_comparison,usefulness,A,Good,{day} 10:00\n"
        f"late-1,r98,researcher,answer_comparison,usefulness,A,Bad,{day} 11:00\n"
    ).encode()
    con = store.open_store(db)
    try:
        assert ingest_bytes(con, data, name).status == "loaded"
    finally:
        con.close()


def test_an_open_session_sees_files_loaded_after_it_opened(app_store):
    """Found by the load test: an open session kept the date range of the data it first saw, so a file loaded
    later (from the command line or another session) with later dates stayed out of its pages. The range
    follows the data while the user has not narrowed it; a narrowed range stays."""
    import datetime as dt

    at = app_test()
    assert not at.exception
    first = at.sidebar.date_input(key="f_dates").value
    _load_later_ratings(app_store, "2027-02-01", "later.csv")
    at.run()
    assert not at.exception
    assert tuple(at.sidebar.date_input(key="f_dates").value) == (first[0], dt.date(2027, 2, 1))
    narrowed = (first[0], first[0] + dt.timedelta(days=7))
    at.sidebar.date_input(key="f_dates").set_value(narrowed).run()
    _load_later_ratings(app_store, "2027-03-01", "even-later.csv")
    at.run()
    assert tuple(at.sidebar.date_input(key="f_dates").value) == narrowed


def test_demo_load_is_handed_over_too(held, tmp_path):
    """`demo --load` into a store the dashboard holds goes through the same hand-over as `ingest`."""
    db, con = held
    out = cli("demo", "--out", str(tmp_path / "demo"), "--load", db=db)
    assert out.returncode == 0, out.stderr
    assert "handing the files to it" in out.stderr and "answer_comparison.jsonl: loaded" in out.stdout
    assert con.execute("SELECT count(*) FROM ingest_log").fetchone()[0] > 5
