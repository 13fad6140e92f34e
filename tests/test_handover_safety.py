"""The hand-over folder holds no power beyond the requester's own (issue 49, item 4), and two command-line loads of
one store queue instead of failing (item 8).

Each test drives the mechanism that refuses one finding measured on main at 6e56436: the inbox adopted whatever
folder it found, served any user's request (a request naming /etc/shadow was loaded), wrote a result outside the
inbox for an id with `../`, followed a link at its predictable temp name, read /dev/zero, a FIFO or an 800 MB file
linked as a request, echoed a refused file's first line into its result, and the command line believed any fresh
heartbeat. Tests acting as another user run the writing step as `nobody` (CI runs as root)."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from analytics import store
from analytics.cli import handover, inbox
from analytics.ingest.load import ingest_bytes
from tests.cli_helpers import run_cli
from tests.conftest import ROOT, app_test, connect_copy

SECRET = "s3cr3t-0f-r00t"
GOOD_CSV = (
    "task_id,rater_id,role,rubric,dimension,target,value\n"
    "t1,c1,contractor,answer_comparison,usefulness,A,Good\n"
    "t1,r1,researcher,answer_comparison,usefulness,A,Bad\n"
)


def other_user() -> pwd.struct_passwd:
    """The unprivileged user the tests act as; skipped only where that is impossible outside CI (not root)."""
    if os.geteuid() != 0:
        if os.environ.get("CI") == "true":
            pytest.fail("acting as another user needs root, and CI runs as root")
        pytest.skip("acting as another user needs root (CI runs as root)")
    try:
        return pwd.getpwnam("nobody")
    except KeyError:  # a system without `nobody`: make a throwaway user with no home and no shell
        subprocess.run(["useradd", "-M", "-r", "-s", "/usr/sbin/nologin", "concord-probe"], check=True)
        return pwd.getpwnam("concord-probe")


def as_other_user(script: str, *args: str) -> None:
    """Run a shell script as the other user (no Python: the test's interpreter may sit where they cannot read)."""
    who = other_user()
    subprocess.run(
        ["/bin/sh", "-c", script, "sh", *args], user=who.pw_uid, group=who.pw_gid, extra_groups=[], cwd="/", check=True
    )


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder every user may write, as a team's shared folder is (pytest's own temp folders are root's alone)."""
    d = Path(tempfile.mkdtemp(prefix="concord-shared-", dir="/tmp"))
    d.chmod(0o777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def server(empty_store, tmp_path) -> Iterator[handover.InboxServer]:
    """A store held by this process, as the dashboard holds it, with an inbox server whose threads are not
    started: each test answers the requests itself (serve_pending), so nothing races it."""
    db = tmp_path / "held.duckdb"
    con = connect_copy(empty_store, db)
    srv = handover.InboxServer(con.cursor, db)
    srv.inbox.make()
    yield srv
    con.close()


def request(srv: handover.InboxServer, files: list[str], **extra: object) -> str:
    """Write a request as the command line does (this user's); its id."""
    request_id = uuid.uuid4().hex
    body = {"id": request_id, "files": files, "format": "auto", **extra}
    handover.write_private(srv.inbox.requests / f"{request_id}.json", body)
    return request_id


def result_text(srv: handover.InboxServer, request_id: str) -> str:
    """The raw text of a result file, as anyone able to read it would see it."""
    return (srv.inbox.results / f"{request_id}.json").read_text(encoding="utf-8")


def loaded_files(srv: handover.InboxServer) -> int:
    return int(srv.cursor().execute("SELECT count(*) FROM ingest_log").fetchone()[0])


def serve_within(srv: handover.InboxServer, seconds: float = 60) -> int:
    """serve_pending in a thread, failing the test when it does not return (a FIFO opened blocking on main)."""
    done: list[int] = []
    worker = threading.Thread(target=lambda: done.append(srv.serve_pending()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, f"serving the inbox did not return within {seconds} s"
    return done[0]


# --- the folder -----------------------------------------------------------------------------------------------


def test_the_inbox_and_its_files_are_private_to_the_dashboards_user(server):
    """Fails on main: the folders took the umask's mode (0755) and the heartbeat and results 0644."""
    server._beat()
    rid = request(server, [])
    server.serve_pending()
    for folder in server.inbox.folders():
        st = folder.lstat()
        assert stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.geteuid(), folder
    for f in (server.inbox.heartbeat, server.inbox.results / f"{rid}.json"):
        assert stat.S_IMODE(f.lstat().st_mode) == 0o600, f


@pytest.mark.parametrize("which", ["root", "requests", "results"])
def test_an_inbox_open_to_others_is_refused_by_the_dashboard_and_the_command_line(empty_store, tmp_path, which):
    """Fails on main: a folder (or subfolder) anyone may write was adopted and served."""
    db = tmp_path / "s.duckdb"
    shutil.copy(empty_store, db)
    box = handover.Inbox.of(db)
    box.make()
    getattr(box, which).chmod(0o777)
    con = store.open_store(db)
    try:
        assert handover.serve(con.cursor, db) is None  # not served; the reason goes to the log
    finally:
        con.close()
    assert not box.heartbeat.exists()
    out = run_cli("ingest", str(write(tmp_path / "a.csv", GOOD_CSV)), "--db", str(db))
    assert out.returncode == 2
    assert "can be used by other users (mode 0777, not 0700)" in out.stderr and "chmod 700" in out.stderr


def test_an_inbox_another_user_made_is_refused(empty_store, shared_dir, tmp_path):
    """Fails on main: a second local user pre-created the inbox in a shared folder and the dashboard adopted it."""
    db = shared_dir / "s.duckdb"
    shutil.copy(empty_store, db)
    box = handover.Inbox.of(db)
    as_other_user('mkdir -m 700 "$1"', str(box.root))
    con = store.open_store(db)
    try:
        assert handover.serve(con.cursor, db) is None
    finally:
        con.close()
    assert box.root.stat().st_uid == other_user().pw_uid and not box.heartbeat.exists()
    out = run_cli("ingest", str(write(tmp_path / "a.csv", GOOD_CSV)), "--db", str(db))
    assert out.returncode == 2 and "belongs to another user" in out.stderr and "Traceback" not in out.stderr


# --- requests -------------------------------------------------------------------------------------------------


def test_another_users_request_is_refused_and_reads_nothing(server, shared_dir, tmp_path):
    """Fails on main: a request naming a file only the dashboard's user may read (/etc/shadow) was loaded. The
    request file here is written by `nobody`, then put in the inbox (only root could: the folder is private)."""
    secret = write(tmp_path / "only-root.csv", GOOD_CSV.replace("Good", SECRET))
    secret.chmod(0o600)
    request_id = uuid.uuid4().hex
    body = json.dumps({"id": request_id, "files": [str(secret)], "format": "canonical"})
    planted = shared_dir / "req.json"
    as_other_user('printf %s "$1" > "$2"', body, str(planted))
    dest = server.inbox.requests / f"{request_id}.json"
    shutil.move(planted, dest)  # rename keeps the owner when both are on one file system; chown makes sure
    os.chown(dest, other_user().pw_uid, other_user().pw_gid)
    assert server.serve_pending() == 1
    answer = json.loads(result_text(server, request_id))
    assert answer["kind"] == "refused" and "written by another user" in answer["error"]
    assert SECRET not in result_text(server, request_id) and loaded_files(server) == 0
    assert not dest.exists()


def test_a_request_id_that_is_not_a_plain_name_writes_nothing_outside(server, tmp_path):
    """Fails on main: a request id with `../` wrote its result outside the inbox."""
    good = write(tmp_path / "a.csv", GOOD_CSV)
    rid = uuid.uuid4().hex
    handover.write_private(server.inbox.requests / f"{rid}.json", {"id": "../../escaped", "files": [str(good)]})
    handover.write_private(server.inbox.requests / "bad.name.json", {"id": "bad.name", "files": [str(good)]})
    assert server.serve_pending() == 1  # the one with a valid file name is answered, the other removed
    assert json.loads(result_text(server, rid))["kind"] == "refused"
    assert not list(tmp_path.rglob("escaped*")) and not list(server.inbox.requests.iterdir())
    assert loaded_files(server) == 0


def test_a_link_planted_at_a_result_name_is_replaced_not_written_through(server, tmp_path):
    """Fails on main: a link at the predictable temp name `.ID.json.PID.tmp` made the result overwrite its target."""
    victim = write(tmp_path / "victim.txt", "untouched")
    rid = request(server, [str(write(tmp_path / "a.csv", GOOD_CSV))])
    (server.inbox.results / f".{rid}.json.{os.getpid()}.tmp").symlink_to(victim)  # main's temp name
    (server.inbox.results / f"{rid}.json").symlink_to(victim)
    server.serve_pending()
    assert victim.read_text() == "untouched"
    assert not (server.inbox.results / f"{rid}.json").is_symlink()
    assert json.loads(result_text(server, rid))["payload"]["files"][0]["status"] == "loaded"


def test_write_private_never_opens_an_existing_name(tmp_path, monkeypatch):
    """The temp file is created new (O_EXCL, no link followed): a name already taken is an error, not a write."""
    victim = write(tmp_path / "victim.txt", "untouched")
    monkeypatch.setattr(inbox.secrets, "token_hex", lambda n: "fixed")
    (tmp_path / ".out.json.fixed.tmp").symlink_to(victim)
    with pytest.raises(FileExistsError):
        handover.write_private(tmp_path / "out.json", {"a": 1})
    assert victim.read_text() == "untouched" and not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("kind", ["fifo", "folder", "link", "large", "not-json"])
def test_a_bad_entry_named_like_a_request_never_blocks_the_ones_after_it(server, tmp_path, kind):
    """Fails on main: a FIFO named like a request stopped every later hand-over, a folder raised out of the loop,
    and a request linked to a large file was read whole (800 MB took the dashboard from 190 MB to 1.83 GB).
    Each is answered with its reason (its name is a valid id) and removed; unreadable JSON likewise."""
    bad_id = "0" * 32  # sorts first; made before the good request so it is older too
    bad = server.inbox.requests / f"{bad_id}.json"
    if kind == "fifo":
        os.mkfifo(bad, 0o600)
    elif kind == "folder":
        bad.mkdir(mode=0o700)
    elif kind == "link":  # to a well-formed request of this user's, elsewhere: links are not followed at all
        elsewhere = write(tmp_path / "elsewhere.json", json.dumps({"id": bad_id, "files": [str(tmp_path)]}))
        bad.symlink_to(elsewhere)
    elif kind == "not-json":
        handover.write_private(bad, {"id": bad_id})
        bad.write_bytes(b"\xff{not json")
    else:
        with open(bad, "wb") as f:
            f.truncate(64 * 1024 * 1024)  # sparse: 64 MB on paper, none on disk; refused by its size unread
    time.sleep(0.01)
    good = request(server, [str(write(tmp_path / "a.csv", GOOD_CSV))])
    assert serve_within(server) == 2  # the bad one is answered with its reason too, then removed
    assert json.loads(result_text(server, bad_id))["error"].startswith(f"the request was refused: {bad_id}.json")
    assert json.loads(result_text(server, good))["payload"]["files"][0]["status"] == "loaded"
    assert not bad.exists() and not bad.is_symlink()


@pytest.mark.parametrize("kind", ["device", "fifo", "folder"])
def test_only_regular_files_are_loaded(server, tmp_path, kind):
    """Fails on main: a request for /dev/zero filled the temporary file system (and a FIFO never returned)."""
    named = {"device": Path("/dev/zero"), "fifo": tmp_path / "pipe.csv", "folder": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(named)
    rid = request(server, [str(named)])
    serve_within(server)
    answer = json.loads(result_text(server, rid))
    assert answer["kind"] == "refused" and "is not a regular file" in answer["error"]
    assert loaded_files(server) == 0


def test_a_file_whose_private_copy_would_not_fit_is_refused(server, tmp_path, monkeypatch):
    """Fails on main: nothing compared the file with the free space where its private copy goes."""
    good = write(tmp_path / "a.csv", GOOD_CSV)
    real = shutil.disk_usage

    def full(path: str) -> object:
        usage = real(path)
        return type(usage)(usage.total, usage.total - 10, 10)  # 10 bytes free where the copy would go

    monkeypatch.setattr(inbox.shutil, "disk_usage", full)
    rid = request(server, [str(good)])
    server.serve_pending()
    answer = json.loads(result_text(server, rid))
    assert answer["kind"] == "refused" and "does not fit on the disk of the temporary folder" in answer["error"]
    assert loaded_files(server) == 0


# --- results --------------------------------------------------------------------------------------------------


def test_no_byte_of_a_refused_or_loaded_file_goes_into_a_result(server, tmp_path):
    """Fails on main: with format canonical, the rejection copied the file's first line into the result file."""
    first_line = f"root:{SECRET}:19000:0:99999:7:::"
    refused = write(tmp_path / "shadow", f"{first_line}\ndaemon:*:19000:0:99999:7:::\n")
    quarantined = write(tmp_path / "q.csv", GOOD_CSV + f"t2,c1,contractor,answer_comparison,usefulness,A,{SECRET}\n")
    rid = request(server, [str(refused), str(quarantined)], format="canonical")
    server.serve_pending()
    text = result_text(server, rid)
    assert SECRET not in text and "root:" not in text
    shadow, q = json.loads(text)["payload"]["files"]
    assert shadow["status"] == "rejected" and shadow["errors"] == [
        "shadow, line 1 (header): reason withheld (see the note)"
    ]
    assert q["status"] == "loaded" and q["rows_quarantined"] == 1
    assert q["errors"] == ["q.csv, line 4: reason withheld (see the note)"]
    assert "Data page" in q["notes"][0]


# --- the command line's side ----------------------------------------------------------------------------------


def test_a_fake_heartbeat_and_made_up_results_are_not_believed(empty_store, tmp_path):
    """Fails on main: with no dashboard running, a fake heartbeat (pid 1) and a made-up result made the command
    line print "loaded, 1000 loaded" and exit 0 with nothing in the store. pid 1 does not hold the store: the
    command line loads the file itself."""
    db = tmp_path / "s.duckdb"
    shutil.copy(empty_store, db)
    box = handover.Inbox.of(db)
    box.make()
    stop = threading.Event()

    def forger() -> None:  # keeps a heartbeat fresh and answers every request with a made-up success
        while not stop.is_set():
            handover.write_private(box.heartbeat, {"pid": 1, "token": "forged", "at": time.time()})
            for req in box.requests.glob("*.json"):
                fake = {"file": "a.csv", "format": "canonical", "status": "loaded", "rows_loaded": 1000}
                fake |= {"rows_quarantined": 0, "errors": [], "notes": []}
                payload = {"payload": {"files": [fake]}, "token": "forged", "served_by": 1}
                handover.write_private(box.results / req.name, payload)
                req.unlink()
            stop.wait(0.05)

    thread = threading.Thread(target=forger, daemon=True)
    thread.start()
    try:
        out = run_cli("ingest", str(write(tmp_path / "a.csv", GOOD_CSV)), "--db", str(db))
    finally:
        stop.set()
        thread.join()
    assert out.returncode == 0, out.stderr
    assert "handing" not in out.stderr and "a.csv: loaded (canonical), 2 loaded" in out.stdout
    con = store.open_store(db)
    try:
        assert con.execute("SELECT count(*) FROM ratings").fetchone()[0] == 2
    finally:
        con.close()


def test_a_heartbeat_is_believed_from_the_lock_holder_where_open_files_cannot_be_seen(server, monkeypatch):
    """Without /proc the only proof is DuckDB's lock: the heartbeat's pid must be the pid its refusal names."""
    server._beat()
    db = server.db
    assert handover.serving_writer(db) == handover.Writer(os.getpid(), server.token)
    monkeypatch.setattr(handover, "holds_open", lambda pid, path: None)
    assert handover.serving_writer(db) is None
    assert handover.serving_writer(db, lock_holder=os.getpid() + 1) is None
    assert handover.serving_writer(db, lock_holder=os.getpid()) == handover.Writer(os.getpid(), server.token)


def test_an_answer_without_the_heartbeats_token_is_not_believed(server, tmp_path):
    """A result that does not carry the serving dashboard's token is refused, not printed as loaded."""
    server._beat()
    writer = handover.Writer(os.getpid(), server.token)

    def answer_forged() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (reqs := list(server.inbox.requests.glob("*.json"))):
            time.sleep(0.02)
        for req in reqs:
            handover.write_private(server.inbox.results / req.name, {"payload": {"files": []}, "token": "other"})

    thread = threading.Thread(target=answer_forged, daemon=True)
    thread.start()
    with pytest.raises(handover.HandoverError, match="does not come from the dashboard that holds the store"):
        handover.hand_over(db=server.db, files=[str(write(tmp_path / "a.csv", GOOD_CSV))], writer=writer)
    thread.join()


def test_the_command_line_waits_for_the_dashboard_with_a_time_limit(server, tmp_path, monkeypatch):
    """Fails on main: the command line waited for its result with no time limit (and had no --wait)."""
    monkeypatch.setenv("CONCORD_DB", str(server.db))
    server._beat()  # a dashboard that beats (this process holds the store) but never answers
    out = run_cli("ingest", str(write(tmp_path / "a.csv", GOOD_CSV)), "--db", str(server.db), "--wait", "1")
    assert out.returncode == 2
    assert "no answer from the dashboard within 1 s" in out.stderr and "--wait" in out.stderr
    assert not list(server.inbox.requests.iterdir())  # the request is withdrawn


def test_a_device_or_folder_named_on_the_command_line_is_refused_before_anything_opens(tmp_path):
    """The command line's own check names a device as such (main said "no such file"); the store is not made."""
    out = run_cli("ingest", "/dev/zero", "--db", str(tmp_path / "s.duckdb"))
    assert out.returncode == 2 and "/dev/zero is not a regular file" in out.stderr
    assert not (tmp_path / "s.duckdb").exists()


# --- two command-line loads at once (item 8) ------------------------------------------------------------------

HOLDER = """
import sys
from analytics import store
from analytics.cli import handover
with handover.announce_load(sys.argv[1]):
    con = store.open_store(sys.argv[1])
    print("ready", flush=True)
    sys.stdin.readline()
    con.close()
"""


@pytest.fixture
def first_load(empty_store, tmp_path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """A store held by a command-line load in another process (announced as ingest announces its loads),
    until a line is written to its stdin."""
    db = tmp_path / "s.duckdb"
    shutil.copy(empty_store, db)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
    yield db, holder
    if holder.poll() is None:
        holder.communicate("\n", timeout=60)


def test_a_second_command_line_load_waits_for_the_first_and_then_loads(first_load, tmp_path):
    """Fails on main: the second load failed at once, "in use by another program"."""
    db, holder = first_load
    env = {**os.environ, "CONCORD_DB": str(db)}
    env.pop("PYTEST_CURRENT_TEST", None)
    second = subprocess.Popen(
        [sys.executable, "-m", "analytics", "ingest", str(write(tmp_path / "a.csv", GOOD_CSV)), "--db", str(db)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert second.stderr is not None
    said = second.stderr.readline()  # it says so before waiting (nothing else goes to stderr first)
    assert f"another load of this store (pid {holder.pid})" in said and "up to 600 s" in said
    assert second.poll() is None  # still waiting while the first holds the store
    holder.communicate("\n", timeout=60)
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert "a.csv: loaded (canonical), 2 loaded" in out


def test_the_wait_for_another_load_has_a_time_limit(first_load, tmp_path, monkeypatch):
    """--wait (or CONCORD_LOAD_WAIT) bounds the wait; then one message, exit 2, nothing loaded."""
    db, holder = first_load
    with pytest.raises(store.StoreInUse) as refused:
        store.open_store(db)
    assert inbox.lock_holder(refused.value) == holder.pid  # DuckDB's refusal names the holder
    monkeypatch.setenv("CONCORD_LOAD_WAIT", "0.5")
    started = time.monotonic()
    out = run_cli("ingest", str(write(tmp_path / "a.csv", GOOD_CSV)), "--db", str(db))
    assert out.returncode == 2 and time.monotonic() - started < 30
    assert f"Another load of {db} (process {holder.pid}) is still running after 0.5 s" in out.stderr
    assert "--wait SECONDS" in out.stderr and "Traceback" not in out.stderr


def write(path: Path, text: str) -> Path:
    """Write `text` to `path`; the path."""
    path.write_text(text, encoding="utf-8")
    return path


def test_a_refused_inbox_is_said_on_the_data_page(empty_store, tmp_path, monkeypatch):
    """Fails before: the dashboard's refusal of an inbox open to others went to the server's log only, so a lead
    saw nothing while every command-line load failed."""
    db = tmp_path / "s.duckdb"
    con = connect_copy(empty_store, db)
    assert ingest_bytes(con, GOOD_CSV.encode(), "one.csv").rows_loaded > 0  # not empty: no demo to load first
    con.close()
    box = handover.Inbox.of(db)
    box.make()
    box.root.chmod(0o777)
    monkeypatch.setenv("CONCORD_DB", str(db))
    at = app_test("app_pages/data.py")
    assert not at.exception, at.exception
    said = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "Command-line loads are not handed over" in said and "mode 0777, not 0700" in said
    assert handover.refusal(db) is not None
    box.root.chmod(0o700)
    con = store.open_store(db)
    try:
        assert handover.serve(con.cursor, db) is not None and handover.refusal(db) is None
    finally:
        con.close()
