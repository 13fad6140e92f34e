"""Command-line loads into a store the running dashboard holds: the files are handed to the dashboard's writer.

DuckDB lets one process open a store read-write, or many read-only, never both (docs/limits.md). While the
dashboard runs it holds the store read-write, so `python -m analytics ingest` cannot open it. Instead the
dashboard keeps an inbox folder beside the store (`<store>.inbox/`, private to its user: analytics/cli/inbox.py):
it writes a heartbeat there every second (its pid and a random token), and its writer thread loads each request
it finds through the same path as an upload (under tx.WRITE_LOCK, so loads, uploads and note saves queue, never
fail each other). The command line believes a heartbeat only from a process of its own user that holds the
store, writes a request naming the files by absolute path, waits (with a time limit) for the result carrying
the heartbeat's token and prints it as if it had loaded the files itself.

Read commands (report, agreement, consistency, ...) ask the dashboard the same way for a consistent snapshot of
the store, which they open read-only (analytics/cli/snapshot.py, analytics/cli/reading.py).

The hand-over gives no one more than their own rights: only requests written by the dashboard's own user are
served, only regular files are loaded, and no byte of a file goes into a result (errors and notes are passed
back as their place in the file, the reasons stay in the store: content_free).
"""

from __future__ import annotations

import atexit
import contextlib
import datetime as dt
import logging
import os
import re
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from analytics import store
from analytics.cli.inbox import (
    REQUEST_ID,
    InboxRefused,
    NotOwnFile,
    check_private_folder,
    ensure_private_folder,
    holds_open,
    is_own_process,
    loadable_problem,
    read_private,
    remove_entry,
    write_private,
)
from analytics.cli.snapshot import SnapshotError, forget_old_snapshots, snapshot_file, write_snapshot
from analytics.ingest.base import FormatOptions
from analytics.ingest.load import Progress, ingest_file, quiet
from analytics.ingest.scales_file import ScalesError, declare_scales, read_scales_file

HEARTBEAT_S = 1.0  # how often the dashboard says it is alive
STALE_S = 10.0  # a heartbeat older than this means no dashboard is serving the inbox
POLL_S = 0.25  # how often the writer looks for requests, and the command line for its result
KEEP_RESULTS_S = 24 * 3600  # results nobody collected (the command line was stopped) are removed after a day

log = logging.getLogger(__name__)

# What a load's wait says when the dashboard stops beating, and when the time is up; then a snapshot's.
LOAD_WAIT_ENDS = (
    "the dashboard stopped answering before the load finished; run the same command again "
    "(a file that was loaded reports already_loaded)",
    "no answer from the dashboard within {timeout_s:g} s; it may still be loading the files (the Data page's "
    "ingest log shows it): run the same command again later, or wait longer with --wait",
)
SNAPSHOT_WAIT_ENDS = (
    "the dashboard stopped answering before its snapshot of the store was ready; run the same command again",
    "no snapshot of the store from the dashboard within {timeout_s:g} s (it answers requests one at a time, and "
    "a long load may be ahead of this one): run the same command again later, or wait longer with "
    "CONCORD_LOAD_WAIT=SECONDS",
)


class HandoverError(RuntimeError):
    """A hand-over could not be made or finished; the message says why and what to do."""


class HandoverRefused(HandoverError, InboxRefused):
    """The store's hand-over folder is not the user's private folder: nothing is handed over through it."""


@dataclass(frozen=True)
class Inbox:
    """The inbox folder of one store: heartbeat, requests, results, the command line's running loads and the
    snapshots read commands asked for."""

    root: Path

    @classmethod
    def of(cls, db: str | os.PathLike) -> Inbox:
        """The inbox beside the store file `db`."""
        p = Path(db).resolve()
        return cls(p.with_name(p.name + ".inbox"))

    @property
    def heartbeat(self) -> Path:
        return self.root / "writer.json"

    @property
    def requests(self) -> Path:
        return self.root / "requests"

    @property
    def results(self) -> Path:
        return self.root / "results"

    @property
    def loads(self) -> Path:
        return self.root / "loads"

    @property
    def snapshots(self) -> Path:
        return self.root / "snapshots"

    def folders(self) -> tuple[Path, ...]:
        """The inbox and its subfolders, outermost first."""
        return (self.root, self.requests, self.results, self.loads, self.snapshots)

    def make(self) -> None:
        """Create the private folders (0700); HandoverRefused when one exists and is not this user's alone."""
        try:
            for folder in self.folders():
                ensure_private_folder(folder)
        except InboxRefused as e:
            raise HandoverRefused(str(e)) from None

    def check(self) -> bool:
        """Whether the inbox exists; HandoverRefused when it, or a subfolder, is not this user's alone."""
        try:
            for folder in self.folders():
                if folder.exists() or folder.is_symlink():
                    check_private_folder(folder)
                elif folder == self.root:
                    return False
        except InboxRefused as e:
            raise HandoverRefused(str(e)) from None
        return True


# --- the work itself: one function for the command line and for the dashboard's writer ----------------------


def ingest_job(
    con: duckdb.DuckDBPyConnection,
    files: list[str],
    fmt: str = "auto",
    role: str | None = None,
    scales: str | None = None,
    progress: Callable[[str], Progress] | None = None,
    undated_at: list[str | None] | None = None,
    options: FormatOptions | None = None,
) -> dict[str, Any]:
    """Declare a scales file (alone, first) then load each file: the command line's JSON payload.

    ScalesError (a scales file that cannot be read or that the store refuses) leaves the store unchanged.
    `progress`, given a file's name, returns where that file's progress goes. `undated_at`, beside `files`, is
    the ISO 8601 date each file's load gives records that carry none (ingest_file's undated_at). `options`:
    the wide layout's and Label Studio's settings (ingest_file's options)."""
    payload: dict[str, Any] = {}
    if scales:
        declared = declare_scales(con, read_scales_file(scales))
        payload["scales"] = {
            "file": declared.file_name,
            "declared": declared.changed,
            "unchanged": declared.unchanged,
            "ratings_reindexed": declared.ratings_reindexed,
            "message": declared.message,
        }
    dates = [_when(d) for d in undated_at] if undated_at else [None] * len(files)
    payload["files"] = [
        ingest_file(
            con,
            f,
            fmt=fmt,
            role=role,
            on_progress=progress(f) if progress else quiet,
            undated_at=when,
            options=options,
        ).as_dict()
        for f, when in zip(files, dates, strict=True)
    ]
    return payload


def _when(text: str | None) -> dt.datetime | None:
    """An ISO 8601 date and time ('Z' for UTC) as a datetime, or None."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


# --- what a result may carry: our own words, the file's name as given, line and record numbers --------------

WITHHELD = (
    "a handed-over load passes back no text from the file, so the reasons stay with the dashboard: its Data page "
    "lists each quarantined row's reason, and an upload there (or this command while the dashboard is stopped) "
    "shows why a file is refused"
)


def _place(message: str, name: str) -> str:
    """The part of an error message that says where: the file's name, then line or record and its number."""
    found = re.match(rf"{re.escape(name)}(?:,? (?:line|record|row) \d+)?(?: \(header\))?", message)
    return found.group(0) if found and name else name or "the file"


def content_free(payload: dict[str, Any]) -> dict[str, Any]:
    """The ingest payload with every message that may quote a loaded or refused file replaced by its place in
    the file (errors) or a count (notes, declared scales): what a hand-over's result may carry."""
    files = []
    for r in payload["files"]:
        name = str(r["file"])
        kept = {k: v for k, v in r.items() if k not in ("errors", "notes")}
        kept["errors"] = [f"{_place(str(m), name)}: reason withheld (see the note)" for m in r["errors"]]
        kept["notes"] = [f"{name}: {WITHHELD}"] if r["errors"] else []
        if r.get("notes"):
            kept["notes"].append(f"{name}: {len(r['notes'])} note(s) on this load withheld likewise")
        files.append(kept)
    out: dict[str, Any] = {"files": files}
    if declared := payload.get("scales"):
        n, m = len(declared["declared"]), len(declared["unchanged"])
        out["scales"] = {
            "file": declared["file"],
            "declared": [],
            "unchanged": [],
            "declared_count": n,
            "unchanged_count": m,
            "ratings_reindexed": declared["ratings_reindexed"],
            "message": f"{declared['file']}: {n} scale(s) declared, {m} already declared exactly so "
            "(the Data page lists them; a handed-over load passes back no names from the file).",
        }
    return out


# --- the dashboard's side ------------------------------------------------------------------------------------


class InboxServer:
    """The dashboard's writer for command-line loads: a heartbeat thread and a thread loading requests."""

    def __init__(self, cursor: Callable[[], duckdb.DuckDBPyConnection], db: str | os.PathLike) -> None:
        self.cursor = cursor
        self.db = Path(db).resolve()
        self.inbox = Inbox.of(self.db)
        self.stop = threading.Event()
        self.token = secrets.token_hex(16)  # results carry it: the command line knows who answered
        self.threads: tuple[threading.Thread, ...] = ()

    def start(self) -> InboxServer:
        """Create the private inbox and start both threads (daemons: they end with the process or the store
        file); HandoverRefused, and nothing started, when the folder is not this user's alone."""
        self.inbox.make()
        self._beat()
        self.threads = (
            threading.Thread(target=self._heartbeat_loop, name="concord-inbox-heartbeat", daemon=True),
            threading.Thread(target=self._serve_loop, name="concord-inbox-writer", daemon=True),
        )
        for t in self.threads:
            t.start()
        return self

    def close(self, timeout: float = 10.0) -> None:
        """Stop both threads and wait for them: a daemon thread still running at interpreter exit keeps its
        cursor alive past DuckDB's teardown, which then prints "nanobind: leaked ..." on every Ctrl-C."""
        self.stop.set()
        for t in self.threads:
            t.join(timeout)

    def _alive(self) -> bool:
        """Whether to keep serving: not stopped, the store still exists and is still this process's store
        (CONCORD_DB; in the test suite each test points it at its own store, and old servers must end)."""
        return not self.stop.is_set() and self.db.exists() and store.db_path().resolve() == self.db

    def _beat(self) -> None:
        write_private(self.inbox.heartbeat, {"pid": os.getpid(), "token": self.token, "at": time.time()})

    def _heartbeat_loop(self) -> None:
        while self._alive():
            try:
                self._beat()
            except OSError:
                pass  # a full or vanished folder: the command line then finds no fresh heartbeat and says so
            self.stop.wait(HEARTBEAT_S)

    def _serve_loop(self) -> None:
        said = ""  # a lasting problem (a folder made public meanwhile) is logged once, not four times a second
        while self._alive():
            try:
                self.serve_pending()
                said = ""
            except (OSError, InboxRefused) as e:
                if str(e) != said:
                    log.warning("command-line hand-over: %s", e)
                    said = str(e)
            self.stop.wait(POLL_S)

    def _pending(self) -> list[Path]:
        """The entries named like requests, oldest first (looked at without following links)."""
        found = []
        with os.scandir(self.inbox.requests) as entries:
            for entry in entries:
                if entry.name.endswith(".json"):
                    try:
                        found.append((entry.stat(follow_symlinks=False).st_mtime_ns, Path(entry.path)))
                    except OSError:
                        continue
        return [p for _, p in sorted(found)]

    def serve_pending(self) -> int:
        """Answer every request waiting in the inbox, oldest first; the number answered. A bad one (a link, FIFO
        or folder, another user's, not JSON, a bad id) is removed and, when its name is a valid id, answered
        with the reason; it never stops the ones after it."""
        self.inbox.check()
        done = 0
        for path in self._pending():
            request_id = path.name.removesuffix(".json")
            if not REQUEST_ID.match(request_id):
                remove_entry(path)
                continue
            try:
                request = read_private(path)
            except FileNotFoundError:
                continue
            except (NotOwnFile, ValueError, OSError) as e:
                remove_entry(path)
                why = str(e) if isinstance(e, NotOwnFile) else f"{path.name} is not a readable JSON request"
                self._answer(request_id, {"error": f"the request was refused: {why}", "kind": "refused"})
                done += 1
                continue
            remove_entry(path)
            if request.get("id") != request_id:
                result = {"error": "the request was refused: its id is not its file's name", "kind": "refused"}
            else:
                result = self.answer(request)
            self._answer(request_id, result)
            done += 1
        if done:  # results nobody collected go when the next ones are written, not on every poll
            self._forget_old_results()
        return done

    def _answer(self, request_id: str, result: dict[str, Any]) -> None:
        write_private(self.inbox.results / f"{request_id}.json", {**result, "token": self.token})

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The result of one request: a snapshot for a read command, the content-free ingest payload of a load, or
        the one message that stopped it."""
        if request.get("kind") == "snapshot":
            try:
                return write_snapshot(self.cursor(), self.inbox.snapshots, str(request["id"]))
            except Exception as e:  # a request must always get an answer, or the command line waits for nothing
                return {"error": f"the dashboard could not copy the store ({type(e).__name__})", "kind": "failure"}
        files, scales = request.get("files", []), request.get("scales")
        if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
            return {"error": "the request was refused: its files are not a list of names", "kind": "refused"}
        if scales is not None and not isinstance(scales, str):
            return {"error": "the request was refused: its scales file is not a name", "kind": "refused"}
        for f in [*files, *([scales] if scales else [])]:
            if problem := loadable_problem(f):
                return {"error": problem, "kind": "refused"}
        try:
            payload = ingest_job(
                self.cursor(),
                files,
                fmt=str(request.get("format") or "auto"),
                role=request.get("role"),
                scales=scales,
                undated_at=request.get("undated_at"),
                options=FormatOptions.from_json(request.get("options")),
            )
        except ScalesError:
            name = Path(str(scales)).name
            return {
                "error": f"{name}: the store refuses this scales file; nothing was changed ({WITHHELD})",
                "kind": "scales",
            }
        except Exception as e:  # a request must always get an answer, or the command line waits for nothing
            return {"error": f"the dashboard could not load the files ({type(e).__name__})", "kind": "failure"}
        return {"payload": content_free(payload), "served_by": os.getpid()}

    def _forget_old_results(self) -> None:
        if self.inbox.snapshots.is_dir():
            forget_old_snapshots(self.inbox.snapshots)
        cutoff = time.time() - KEEP_RESULTS_S
        with os.scandir(self.inbox.results) as entries:
            for entry in entries:
                try:
                    if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        remove_entry(Path(entry.path))
                except OSError:
                    pass


_servers: dict[Path, InboxServer] = {}
_servers_lock = threading.Lock()
_refusals: dict[Path, str] = {}  # the inboxes this process refused to serve, and why


@atexit.register
def close_all() -> None:
    """Stop every inbox server of this process (at exit: atexit runs before daemon threads are abandoned)."""
    with _servers_lock:
        servers = list(_servers.values())
    for server in servers:
        server.close()


def serve(cursor: Callable[[], duckdb.DuckDBPyConnection], db: str | os.PathLike) -> InboxServer | None:
    """Start (once per store and process) serving the store's inbox; None for an in-memory store, or when the
    inbox is not the user's private folder (the reason goes to the server's log and stderr)."""
    if str(db) == ":memory:":
        return None
    key = Path(db).resolve()
    with _servers_lock:
        server = _servers.get(key)
        if server is None or not server._alive():
            try:
                server = _servers[key] = InboxServer(cursor, key).start()
            except (InboxRefused, OSError) as e:
                _servers.pop(key, None)
                _refusals[key] = str(e)
                log.warning("command-line loads are not handed over: %s", e)
                return None
        _refusals.pop(key, None)
        return server


def refusal(db: str | os.PathLike) -> str | None:
    """Why this process does not serve the store's inbox (its folder refused), or None when it does or was not
    asked to: the Data page shows it to those who load files."""
    if str(db) == ":memory:":
        return None
    with _servers_lock:
        return _refusals.get(Path(db).resolve())


# --- the command line's side ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Writer:
    """A dashboard serving a store's inbox: its pid and the token its heartbeat and results carry."""

    pid: int
    token: str


def serving_writer(db: str | os.PathLike, lock_holder: int | None = None) -> Writer | None:
    """The dashboard serving this store's inbox, believed only when its heartbeat is fresh and comes from a
    running process of this user that holds the store: it has the store file open (its /proc fd list), or it is
    `lock_holder`, the pid DuckDB named when it refused to open the store. HandoverRefused: the inbox is not the
    user's private folder."""
    if str(db) == ":memory:":
        return None
    inbox = Inbox.of(db)
    if not inbox.check():
        return None
    try:
        beat = read_private(inbox.heartbeat)
    except (OSError, NotOwnFile, ValueError):
        return None
    pid, token, at = beat.get("pid"), beat.get("token"), beat.get("at")
    if not isinstance(pid, int) or not isinstance(token, str) or not isinstance(at, int | float):
        return None
    if time.time() - at > STALE_S or not is_own_process(pid):
        return None
    if pid == lock_holder or holds_open(pid, Path(db).resolve()):
        return Writer(pid, token)
    return None


def writer_pid(db: str | os.PathLike) -> int | None:
    """The pid of the dashboard serving this store's inbox (serving_writer), if any."""
    writer = serving_writer(db)
    return writer.pid if writer else None


def _still_serving(db: str | os.PathLike, writer: Writer) -> bool:
    """Whether the dashboard a request went to still beats: a fresh heartbeat with the same pid and token."""
    try:
        beat = read_private(Inbox.of(db).heartbeat)
    except (OSError, NotOwnFile, ValueError):
        return False
    at = beat.get("at")
    fresh = isinstance(at, int | float) and time.time() - at <= STALE_S
    return fresh and beat.get("pid") == writer.pid and beat.get("token") == writer.token


def hand_over(
    db: str | os.PathLike,
    files: list[str],
    fmt: str = "auto",
    role: str | None = None,
    scales: str | None = None,
    timeout_s: float | None = None,
    undated_at: list[str | None] | None = None,
    options: FormatOptions | None = None,
    writer: Writer | None = None,
) -> dict[str, Any]:
    """Ask the running dashboard (`writer`, else serving_writer's) to load the files, wait for it, and return
    the ingest payload (content_free's form).

    HandoverError when no dashboard serves the store, when it stops answering (its heartbeat goes stale), when
    an answer does not carry its token, or after `timeout_s`; ScalesError as the direct path raises it."""
    request = {
        "files": [str(Path(f).resolve()) for f in files],
        "format": fmt,
        "role": role,
        "scales": str(Path(scales).resolve()) if scales else None,
        "undated_at": undated_at,
        "options": options.as_json() if options else None,
    }
    result = _ask(db, request, timeout_s, writer, "nothing is reported as loaded")
    if "error" in result:
        raise (ScalesError if result.get("kind") == "scales" else HandoverError)(str(result["error"]))
    return dict(result["payload"])


def _ask(
    db: str | os.PathLike,
    request: dict[str, Any],
    timeout_s: float | None,
    writer: Writer | None,
    unsaid: str,
    ends: tuple[str, str] = LOAD_WAIT_ENDS,
) -> dict[str, Any]:
    """Write `request` (given an id) to the dashboard serving the store (`writer`, else serving_writer's) and its
    result, checked to carry the dashboard's token; `unsaid` is what a result from anyone else leaves unsaid,
    `ends` what the wait says when it ends without one (_wait_for_result)."""
    inbox = Inbox.of(db)
    writer = writer or serving_writer(db)
    if writer is None:
        raise HandoverError("no running dashboard serves this store's inbox")
    inbox.make()
    request_id = uuid.uuid4().hex
    request_path = inbox.requests / f"{request_id}.json"
    write_private(request_path, {"id": request_id, **request, "from_pid": os.getpid()})
    try:
        result = _wait_for_result(db, inbox.results / f"{request_id}.json", request_path, writer, timeout_s, ends)
    except HandoverError:
        remove_entry(inbox.snapshots / snapshot_file(request_id))  # a snapshot made just too late
        raise
    if result.get("token") != writer.token:
        raise HandoverError(
            f"the answer in {inbox.results} does not come from the dashboard that holds the store; "
            f"{unsaid}: run the same command again"
        )
    return {**result, "id": request_id}


def ask_snapshot(
    db: str | os.PathLike, timeout_s: float | None = None, writer: Writer | None = None
) -> tuple[Path, dict[str, Any]]:
    """Ask the running dashboard for a snapshot of the store (analytics/cli/snapshot.py): the copy's path in the
    inbox and the result (its store identity and dataset version). HandoverError as for hand_over; the result's
    error, when the dashboard could not make one, as HandoverError (SnapshotError when the store is damaged)."""
    result = _ask(db, {"kind": "snapshot"}, timeout_s, writer, "nothing was read", SNAPSHOT_WAIT_ENDS)
    if "error" in result:
        if result.get("kind") == "damaged":
            raise SnapshotError(str(result["error"]), damaged=True)
        raise HandoverError(f"the dashboard could not make a snapshot of the store: {result['error']}")
    name = snapshot_file(result["id"])
    if result.get("snapshot") != name:  # an older dashboard answers a snapshot request as an empty load
        raise HandoverError(
            "the dashboard holding the store does not make snapshots for read commands (an older version): "
            "restart it, or stop it to read the store directly"
        )
    return Inbox.of(db).snapshots / name, result


def _wait_for_result(
    db: str | os.PathLike,
    result_path: Path,
    request_path: Path,
    writer: Writer,
    timeout_s: float | None,
    ends: tuple[str, str] = LOAD_WAIT_ENDS,
) -> dict[str, Any]:
    """The result of a request, read as soon as it is there; HandoverError when the dashboard stops beating or
    after `timeout_s` (the request is then withdrawn), saying `ends` (stopped, late)."""
    started = time.monotonic()
    while True:
        try:
            result = read_private(result_path)
        except FileNotFoundError:
            pass
        except (NotOwnFile, ValueError, OSError) as e:
            remove_entry(result_path)
            raise HandoverError(
                f"the dashboard's answer cannot be read safely ({e}); run the same command again"
            ) from None
        else:
            remove_entry(result_path)
            return result
        if not _still_serving(db, writer):
            remove_entry(request_path)
            raise HandoverError(ends[0])
        if timeout_s is not None and time.monotonic() - started > timeout_s:
            remove_entry(request_path)
            raise HandoverError(ends[1].format(timeout_s=timeout_s))
        time.sleep(POLL_S)


# --- two command-line loads of one store: the second waits for the first ------------------------------------


@contextlib.contextmanager
def announce_load(db: str | os.PathLike) -> Iterator[None]:
    """While the block runs, the inbox says this process is loading the store (`loads/<pid>.json`), so a second
    command-line load that finds the store locked by it waits instead of failing. HandoverRefused when the inbox
    is not the user's private folder; a folder that cannot be made (a read-only place) just goes unannounced."""
    if str(db) == ":memory:":
        yield
        return
    inbox = Inbox.of(db)
    mine = inbox.loads / f"{os.getpid()}.json"
    try:
        Path(db).resolve().parent.mkdir(parents=True, exist_ok=True)
        inbox.make()
        write_private(mine, {"pid": os.getpid(), "at": time.time()})
    except OSError:
        pass
    try:
        yield
    finally:
        remove_entry(mine)


def load_running(db: str | os.PathLike, pid: int) -> bool:
    """Whether `pid` is a running command-line load of this store (announce_load), of this user."""
    try:
        mark = read_private(Inbox.of(db).loads / f"{pid}.json")
    except (OSError, NotOwnFile, ValueError):
        return False
    return mark.get("pid") == pid and is_own_process(pid)
