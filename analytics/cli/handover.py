"""Command-line loads into a store the running dashboard holds: the files are handed to the dashboard's writer.

DuckDB lets one process open a store read-write, or many read-only, never both (docs/limits.md). While the
dashboard runs it holds the store read-write, so `python -m analytics ingest` cannot open it. Instead the
dashboard keeps an inbox folder beside the store (`<store>.inbox/`): it writes a heartbeat there every second,
and its writer thread loads each request it finds through the same path as an upload (under tx.WRITE_LOCK,
so loads, uploads and note saves queue, never fail each other). The command line writes a request naming the
files by absolute path, waits for the result file and prints it exactly as if it had loaded the files itself.

Whoever can write the store's folder can already replace the store, so the inbox adds no new power; the
dashboard reads the named files with its own permissions.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from analytics import store
from analytics.ingest.base import FormatOptions
from analytics.ingest.load import Progress, ingest_file, quiet
from analytics.ingest.scales_file import ScalesError, declare_scales, read_scales_file

HEARTBEAT_S = 1.0  # how often the dashboard says it is alive
STALE_S = 10.0  # a heartbeat older than this means no dashboard is serving the inbox
POLL_S = 0.25  # how often the writer looks for requests, and the command line for its result
KEEP_RESULTS_S = 24 * 3600  # results nobody collected (the command line was stopped) are removed after a day


class HandoverError(RuntimeError):
    """A hand-over could not be made or finished; the message says why and what to do."""


@dataclass(frozen=True)
class Inbox:
    """The inbox folder of one store: heartbeat, requests and results."""

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


def _write_json(path: Path, payload: dict[str, Any]) -> None:
    """Write JSON so that a reader sees the whole file or none (a temp file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(payload), encoding="utf-8")
    os.replace(tmp, path)


def _read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object at `path`, or None when it is missing or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


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


# --- the dashboard's side ------------------------------------------------------------------------------------


class InboxServer:
    """The dashboard's writer for command-line loads: a heartbeat thread and a thread loading requests."""

    def __init__(self, cursor: Callable[[], duckdb.DuckDBPyConnection], db: str | os.PathLike) -> None:
        self.cursor = cursor
        self.db = Path(db).resolve()
        self.inbox = Inbox.of(self.db)
        self.stop = threading.Event()

    def start(self) -> InboxServer:
        """Create the inbox and start both threads (daemons: they end with the process or the store file)."""
        self.inbox.requests.mkdir(parents=True, exist_ok=True)
        self.inbox.results.mkdir(parents=True, exist_ok=True)
        self._beat()
        threading.Thread(target=self._heartbeat_loop, name="concord-inbox-heartbeat", daemon=True).start()
        threading.Thread(target=self._serve_loop, name="concord-inbox-writer", daemon=True).start()
        return self

    def _alive(self) -> bool:
        """Whether to keep serving: not stopped, the store still exists and is still this process's store
        (CONCORD_DB; in the test suite each test points it at its own store, and old servers must end)."""
        return not self.stop.is_set() and self.db.exists() and store.db_path().resolve() == self.db

    def _beat(self) -> None:
        _write_json(self.inbox.heartbeat, {"pid": os.getpid(), "at": time.time()})

    def _heartbeat_loop(self) -> None:
        while self._alive():
            try:
                self._beat()
            except OSError:
                pass  # a full or vanished folder: the command line then finds no fresh heartbeat and says so
            self.stop.wait(HEARTBEAT_S)

    def _serve_loop(self) -> None:
        while self._alive():
            try:
                self.serve_pending()
            except OSError:
                pass
            self.stop.wait(POLL_S)

    def serve_pending(self) -> int:
        """Answer every request waiting in the inbox, oldest first; the number answered."""
        done = 0
        pending = sorted(self.inbox.requests.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        for path in pending:
            request = _read_json(path)
            path.unlink(missing_ok=True)
            if request is None or not isinstance(request.get("id"), str):
                continue
            _write_json(self.inbox.results / f"{request['id']}.json", self.answer(request))
            done += 1
        if done:  # results nobody collected go when the next ones are written, not on every poll
            self._forget_old_results()
        return done

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The result of one request: the ingest payload, or the one message that stopped it."""
        try:
            payload = ingest_job(
                self.cursor(),
                [str(f) for f in request.get("files", [])],
                fmt=str(request.get("format") or "auto"),
                role=request.get("role"),
                scales=request.get("scales"),
                undated_at=request.get("undated_at"),
                options=FormatOptions.from_json(request.get("options")),
            )
        except ScalesError as e:
            return {"error": str(e), "kind": "scales"}
        except Exception as e:  # a request must always get an answer, or the command line waits for nothing
            return {"error": f"the dashboard could not load the files ({type(e).__name__}: {e})", "kind": "failure"}
        return {"payload": payload, "served_by": os.getpid()}

    def _forget_old_results(self) -> None:
        cutoff = time.time() - KEEP_RESULTS_S
        for path in self.inbox.results.glob("*.json"):
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
            except OSError:
                pass


_servers: dict[Path, InboxServer] = {}
_servers_lock = threading.Lock()


def serve(cursor: Callable[[], duckdb.DuckDBPyConnection], db: str | os.PathLike) -> InboxServer | None:
    """Start (once per store and process) serving the store's inbox; None for an in-memory store."""
    if str(db) == ":memory:":
        return None
    key = Path(db).resolve()
    with _servers_lock:
        server = _servers.get(key)
        if server is None or not server._alive():
            server = _servers[key] = InboxServer(cursor, key).start()
        return server


# --- the command line's side ---------------------------------------------------------------------------------


def writer_pid(db: str | os.PathLike) -> int | None:
    """The pid of the dashboard serving this store's inbox, if its heartbeat is fresh."""
    beat = _read_json(Inbox.of(db).heartbeat)
    if not beat or not isinstance(beat.get("at"), int | float) or time.time() - beat["at"] > STALE_S:
        return None
    pid = beat.get("pid")
    return pid if isinstance(pid, int) else None


def hand_over(
    db: str | os.PathLike,
    files: list[str],
    fmt: str = "auto",
    role: str | None = None,
    scales: str | None = None,
    timeout_s: float | None = None,
    undated_at: list[str | None] | None = None,
    options: FormatOptions | None = None,
) -> dict[str, Any]:
    """Ask the running dashboard to load the files, wait for it, and return the ingest payload.

    HandoverError when no dashboard serves the store, when it stops answering (its heartbeat goes stale) or
    after `timeout_s`; ScalesError as the direct path raises it."""
    inbox = Inbox.of(db)
    pid = writer_pid(db)
    if pid is None:
        raise HandoverError("no running dashboard serves this store's inbox")
    request_id = uuid.uuid4().hex
    request = {
        "id": request_id,
        "files": [str(Path(f).resolve()) for f in files],
        "format": fmt,
        "role": role,
        "scales": str(Path(scales).resolve()) if scales else None,
        "undated_at": undated_at,
        "options": options.as_json() if options else None,
        "from_pid": os.getpid(),
    }
    _write_json(inbox.requests / f"{request_id}.json", request)
    result_path = inbox.results / f"{request_id}.json"
    started = time.monotonic()
    while True:
        result = _read_json(result_path)
        if result is not None:
            result_path.unlink(missing_ok=True)
            break
        if writer_pid(db) is None:
            (inbox.requests / f"{request_id}.json").unlink(missing_ok=True)
            raise HandoverError(
                "the dashboard stopped answering before the load finished; run the same command again "
                "(a file that was loaded reports already_loaded)"
            )
        if timeout_s is not None and time.monotonic() - started > timeout_s:
            raise HandoverError(f"no answer from the dashboard within {timeout_s:.0f} s")
        time.sleep(POLL_S)
    if "error" in result:
        raise (ScalesError if result.get("kind") == "scales" else HandoverError)(str(result["error"]))
    return dict(result["payload"])
