"""Read commands while the dashboard holds the store (issue 50, item 3).

On main at 6e56436 `report`, `agreement`, `consistency`, `effects`, `model` and `alerts` exited 2 "The store ...
is in use by another program" while the dashboard ran (only `ingest` was handed over), and `datasets` could not
say what was loaded. Now every read command opens the store through analytics/cli/reading.py: while a dashboard
serves the store's inbox it reads a snapshot the dashboard writes under the write lock, with the same output and
exit code. The dashboard is a second process holding the store read-write and serving its inbox, as ui/state.py
does; the commands run in this process (tests.cli_helpers.run_cli)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from analytics import store
from analytics.cli import handover, snapshot
from analytics.cli.main import COMMANDS
from analytics.store import tx
from tests.cli_helpers import run_cli
from tests.conftest import ROOT, connect_copy
from tests.test_cli_damaged import damaged  # noqa: F401  (the module's damaged store, a fixture)
from tests.test_feedback_effects import load_effects_store

READERS = ("agreement", "alerts", "consistency", "effects", "model", "plan", "report", "followup", "datasets")
DASHBOARD = (
    "import sys; from analytics import store; from analytics.cli import handover; "
    "con = store.open_store(sys.argv[1]); handover.serve(con.cursor, sys.argv[1]); "
    "print('ready', flush=True); sys.stdin.readline()"
)


def read_commands(db: Path, out: Path) -> dict[str, list[str]]:
    """Each read command's arguments on the store `db`, as JSON (report writes its cards into `out`)."""
    fast = ["--n-boot", "0"]  # intervals aside: what is read is the point
    return {
        "agreement": ["agreement", "--db", str(db), "--json", *fast],
        "alerts": ["alerts", "--db", str(db), "--json"],
        "consistency": ["consistency", "--db", str(db), "--json"],
        "effects": ["effects", "--db", str(db), "--json"],
        "followup": ["followup", "--db", str(db), "--json"],
        "model": ["model", "--db", str(db), "--json"],
        "plan": ["plan", "--db", str(db), "--budget", "5", "--researchers", "r1,r2", "--json"],
        "report": ["report", "--all", "--format", "csv", "--out", str(out), "--db", str(db), "--json", *fast],
        "datasets": ["datasets", "--db", str(db), "--json"],
    }


@contextlib.contextmanager
def dashboard(db: Path, code: str = DASHBOARD) -> Iterator[subprocess.Popen[str]]:
    """A second process holding the store `db` read-write and serving its inbox, as the dashboard does."""
    env = {**os.environ, "CONCORD_DB": str(db)}
    env.pop("PYTEST_CURRENT_TEST", None)
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(db)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        yield holder
    finally:
        holder.communicate("\n", timeout=60)


def snapshots_left(db: Path) -> list[str]:
    """What is in the store's snapshot folder (nothing once a command has opened its snapshot)."""
    folder = handover.Inbox.of(db).snapshots
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


@pytest.fixture(scope="module")
def small_store(tmp_path_factory) -> Path:
    """A small store with contractors, researchers and rater effects (every read command has something to say)."""
    path = tmp_path_factory.mktemp("read-snapshot") / "store.duckdb"
    con = store.open_store(path)
    load_effects_store(con)
    con.close()
    return path


@pytest.fixture(scope="module")
def alone(small_store, tmp_path_factory) -> dict[str, tuple[int, dict, dict[str, str]]]:
    """Each read command's exit code, JSON and written files on the store while nobody holds it."""
    ran = {}
    for name in READERS:
        out = tmp_path_factory.mktemp(f"alone-{name}")
        ran[name] = _ran(read_commands(small_store, out)[name], out)
    return ran


@pytest.fixture(scope="module")
def held(small_store, alone) -> Iterator[Path]:
    """The same store held by a dashboard in another process (after `alone` has read it)."""
    with dashboard(small_store):
        yield small_store


def _ran(args: list[str], out: Path) -> tuple[int, dict, dict[str, str]]:
    """A command's exit code, its JSON (report's file paths made relative to `out`) and the files in `out`."""
    run = run_cli(*args)
    assert run.returncode == 0, run.stderr
    payload = json.loads(run.stdout)
    for r in payload.get("reports", []):
        r["file"] = str(Path(r["file"]).relative_to(out))
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(out.iterdir())}
    return run.returncode, payload, files


def test_every_read_command_is_checked_here():
    """Each command of the dispatcher but the two that write (ingest, demo) is a read command run below."""
    assert {c.__name__.rsplit(".", 1)[-1] for c in COMMANDS} - {"ingest", "demo"} == set(READERS)


@pytest.mark.parametrize("name", READERS)
def test_a_read_command_gives_the_same_result_while_the_dashboard_holds_the_store(name, held, alone, tmp_path):
    """Fails on 6e56436: exit 2 "in use by another program" (datasets: "loaded" unknown). Now the same exit code,
    JSON and files, and the snapshot it read is gone."""
    probe = subprocess.run([sys.executable, "-c", f"import duckdb; duckdb.connect({str(held)!r}, read_only=True)"])
    assert probe.returncode != 0  # the dashboard really holds the store: nobody else may open it
    assert _ran(read_commands(held, tmp_path)[name], tmp_path) == alone[name]
    assert snapshots_left(held) == []


def test_a_refusal_is_the_same_while_the_dashboard_holds_the_store(held):
    """Bad input read from the store keeps its exit code and message: an unknown contractor is exit 2 both ways."""
    args = ("report", "--rater", "nobody", "--format", "md", "--db", str(held))
    out = run_cli(*args)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr.strip() == "unknown contractor 'nobody': no contractor with that id has ratings in the store"
    assert snapshots_left(held) == []


def test_a_damaged_store_the_dashboard_holds_still_exits_2(damaged, tmp_path):  # noqa: F811
    """A snapshot is the store's bytes: its damaged block gives the one damaged message, naming the store."""
    copy = tmp_path / "s.duckdb"
    shutil.copy(damaged, copy)
    with dashboard(copy):
        out = run_cli("consistency", "--db", str(copy), "--json")
        assert snapshots_left(copy) == []
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip() == store.damaged_message(copy, "corrupt or truncated", "a part of it cannot be read")


def test_a_store_held_by_another_program_is_still_in_use(small_store, tmp_path):
    """No inbox served (another program holds the file): no snapshot, exit 2 naming the cause, as before."""
    db = tmp_path / "other.duckdb"
    shutil.copy(small_store, db)
    code = "import duckdb, sys; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); sys.stdin.readline()"
    with dashboard(db, code):
        out = run_cli("effects", "--db", str(db), "--json")
    assert out.returncode == 2 and "in use by another program" in out.stderr, out.stderr
    assert not handover.Inbox.of(db).root.exists()


# --- the snapshot itself, made by an inbox server in this process (no threads: each test serves it) ------------


@pytest.fixture
def server(small_store, tmp_path) -> Iterator[handover.InboxServer]:
    """A copy of the small store held by this process, as the dashboard holds it, with an unstarted inbox server."""
    con = connect_copy(small_store, tmp_path / "held.duckdb")
    srv = handover.InboxServer(con.cursor, tmp_path / "held.duckdb")
    srv.inbox.make()
    yield srv
    con.close()


def test_the_snapshot_waits_for_a_write_half_done_and_carries_its_version(server):
    """The copy is taken under the write lock: a write begun before the request is in it, with its version."""
    con = server.cursor()
    before = store.dataset_version(con)
    begun, asked = threading.Event(), threading.Event()

    def write() -> None:
        with tx.write(con.cursor()) as w:
            store.bump_version(w)
            begun.set()
            asked.wait(10)  # the write is still half done when the snapshot is asked for

    answers: list[dict] = []
    writer = threading.Thread(target=write)
    writer.start()
    begun.wait(10)
    taker = threading.Thread(target=lambda: answers.append(server.answer({"id": "r1", "kind": "snapshot"})))
    taker.start()
    time.sleep(0.3)  # the request reaches the lock while the write holds it (without the lock it copies at once)
    asked.set()
    writer.join()
    taker.join()
    (result,) = answers
    assert result == {"snapshot": "r1.duckdb", "store_id": store.store_identity(con), "dataset_version": before + 1}
    path = server.inbox.snapshots / "r1.duckdb"
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
    snap = snapshot.open_snapshot(path, result)
    try:
        assert not path.exists()  # deleted once open: the connection reads on
        assert store.dataset_version(snap) == before + 1
        assert (
            snap.execute("SELECT count(*) FROM ratings").fetchone()
            == con.execute("SELECT count(*) FROM ratings").fetchone()
        )
    finally:
        snap.close()


def test_a_snapshot_of_another_version_or_a_link_is_refused_and_removed(server, tmp_path):
    """The command line opens only its own regular file holding the announced version; either way it is gone."""
    result = server.answer({"id": "r2", "kind": "snapshot"})
    path = server.inbox.snapshots / "r2.duckdb"
    with pytest.raises(snapshot.SnapshotError, match="does not hold the version"):
        snapshot.open_snapshot(path, {**result, "dataset_version": result["dataset_version"] + 1})
    assert not path.exists()
    elsewhere = tmp_path / "elsewhere.duckdb"
    duckdb.connect(str(elsewhere)).close()
    path.symlink_to(elsewhere)
    with pytest.raises(snapshot.SnapshotError, match="not this user's regular file"):
        snapshot.open_snapshot(path, result)
    assert not path.is_symlink() and elsewhere.exists()


def test_the_dashboard_does_not_write_through_a_link_at_the_snapshots_name(server, tmp_path):
    """A link planted at the copy's name is not written through (O_EXCL, O_NOFOLLOW): the request fails."""
    target = tmp_path / "target"
    target.write_text("keep")
    (server.inbox.snapshots / "r3.duckdb").symlink_to(target)
    result = server.answer({"id": "r3", "kind": "snapshot"})
    assert result["kind"] == "failure" and target.read_text() == "keep"
    assert server.answer({"id": "../r3", "kind": "snapshot"})["kind"] == "refused"  # ids name no other place


def test_a_snapshot_nobody_collected_is_removed_later(server):
    """A command line stopped before it opened its snapshot leaves it; the dashboard removes it after a while."""
    server.answer({"id": "r4", "kind": "snapshot"})
    path = server.inbox.snapshots / "r4.duckdb"
    snapshot.forget_old_snapshots(server.inbox.snapshots, keep_s=3600)
    assert path.exists()
    old = time.time() - 2 * 3600
    os.utime(path, (old, old))
    snapshot.forget_old_snapshots(server.inbox.snapshots, keep_s=3600)
    assert not path.exists()


def test_a_read_command_beside_an_inbox_open_to_others_reads_the_free_store(small_store, tmp_path):
    """A hand-over folder other users can write is not believed (issue 49), but a store nobody holds is still read
    directly; held, the command says why it cannot ask for a snapshot."""
    db = tmp_path / "s.duckdb"
    shutil.copy(small_store, db)
    folder = handover.Inbox.of(db).root
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    free = run_cli("datasets", "--db", str(db), "--json")
    assert free.returncode == 0 and free.stderr == "", free.stderr
    code = "import duckdb, sys; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); sys.stdin.readline()"
    with dashboard(db, code):
        held = run_cli("effects", "--db", str(db))
    assert held.returncode == 2 and "in use by another program" in held.stderr and "mode 0777" in held.stderr


def test_when_the_file_cannot_be_copied_whole_the_database_is_copied_in_one_transaction(server, monkeypatch):
    """A store file that changed during the copy (or cannot be checkpointed) is copied by COPY FROM DATABASE: the
    same tables, rows, identity and version, and no temp file left."""
    monkeypatch.setattr(snapshot, "_copy_file", lambda *args: False)
    con = server.cursor()
    # a copy that fails half way (here: after COPY FROM DATABASE, reading its version) leaves no file behind
    monkeypatch.setattr(snapshot, "COPY_VERSION", snapshot.Query("bad", "SELECT value FROM no_such_table"))
    assert server.answer({"id": "r6", "kind": "snapshot"})["kind"] == "failure"
    assert snapshots_left(server.db) == []
    monkeypatch.undo()
    monkeypatch.setattr(snapshot, "_copy_file", lambda *args: False)
    result = server.answer({"id": "r5", "kind": "snapshot"})
    assert result["dataset_version"] == store.dataset_version(con)
    assert snapshots_left(server.db) == ["r5.duckdb"]
    path = server.inbox.snapshots / "r5.duckdb"
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
    snap = snapshot.open_snapshot(path, result)
    try:
        tables = "SELECT table_name FROM duckdb_tables() ORDER BY 1"
        assert snap.execute(tables).fetchall() == con.execute(tables).fetchall()
        count = "SELECT count(*) FROM ratings"
        assert snap.execute(count).fetchone() == con.execute(count).fetchone()
    finally:
        snap.close()
    assert snapshots_left(server.db) == []
