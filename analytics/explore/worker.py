"""Explore queries in a process of their own, so that the limits hold whatever the query calls.

Why a process (measured with DuckDB 2.0 on 2 cores; docs/explore.md and bench/bench_explore.py have figures):

- DuckDB checks an interrupt only between chunks of 2,048 rows, so a slow scalar function (levenshtein of long
  strings) runs on for minutes after `interrupt()`. Only ending the process stops it for certain.
- `memory_limit` and `operator_memory_limit` bound DuckDB's buffer manager, not the strings a scalar function
  builds nor the conversion of a result: `SELECT repeat('x', 1000000) FROM range(10001)` reached 4.2 GB in a
  process with `memory_limit = 1GB`. The kernel's RLIMIT_DATA does hold (DuckDB then fails with "Out of Memory
  Error"), and the memory of an ended process goes back to the system.
- The app holds the store file read-write (ui/state.py), and DuckDB then refuses any other process, even
  read-only ("Could not set lock on file"). So the worker reads a SNAPSHOT: a copy of the store file made once
  per dataset version, beside the store (`<stem>.explore-v<version>.duckdb`), which any number of workers open
  read-only. The copy is the file itself after a CHECKPOINT (quick), checked unchanged during the copy; if
  writes keep landing, `COPY FROM DATABASE` in one transaction instead (slow: it rewrites every table).

Each query, in `ExploreService.run`:

1. The sandbox's checks (analytics/explore/sql.py, layers 1-2) run on the app's cursor for a quick refusal.
2. A slot: at most `max_concurrent` queries run at once across the server, and at most `per_owner` of one owner
   (the signed-in person, or one browser when local: two tabs are one owner); others wait (the page says so).
3. A warm worker (`python -m analytics.explore_worker`, started ahead, one query per process) gets the
   request on stdin. It lowers its priority (nice 10), sets RLIMIT_DATA to the memory cap and RLIMIT_CPU to
   the time limit plus 3 s (the kernel ends it even if this process is gone), opens the snapshot read-only
   with `enable_external_access = false` (no file or network for the whole instance, possible here because
   nothing else uses that instance), `memory_limit` below the cap, one thread, no spilling to disk, and runs
   all four layers again (sql.run_arrow), stopping at the row cap and the byte cap. It writes the result
   as Arrow IPC on stdout and exits.
4. This process waits in steps of 50 ms and kills the worker (SIGKILL) when the time limit passes, when its
   resident memory passes the cap, when the result it sends is larger than the byte cap allows, or when
   `cancelled()` says the asker has gone (the page passes Streamlit's rerun/stop request of the session) or a
   newer query of the same session arrives.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

import duckdb
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs (pyarrow-stubs is not a dependency)

from analytics import store
from analytics.core.queries import Query
from analytics.explore import sql

ROOT = Path(__file__).resolve().parents[2]
MAX_CONCURRENT = 2  # queries at once across the server (2 cores: each worker uses one thread at nice 10)
PER_OWNER = 1  # queries at once of one owner: one visitor with two tabs cannot take every slot
MEMORY_BYTES = 4 * 2**30  # per query: RLIMIT_DATA of the worker, and the resident size at which it is killed
DUCKDB_MEMORY_SHARE = 0.75  # DuckDB's own memory_limit as a share of the cap (the rest: strings, Arrow, Python)
WAIT_LIMIT_S = 120.0  # how long a query waits for a free slot before giving up
NICE = 10
TICK_S = 0.05
RSS_MARGIN = 256 * 2**20  # shared libraries count in RSS but not in RLIMIT_DATA
HEADER_MAX = 1 << 20
STARTUP_LIMIT_S = 60.0  # a worker that has not finished its imports by then is taken for broken
READY = b"R"


@dataclass(frozen=True)
class Limits:
    """What one Explore query may use, and how many run at once."""

    timeout_s: float = sql.TIMEOUT_S
    max_rows: int = sql.MAX_ROWS
    max_bytes: int = sql.MAX_RESULT_BYTES
    memory_bytes: int = MEMORY_BYTES
    max_concurrent: int = MAX_CONCURRENT
    per_owner: int = PER_OWNER
    wait_limit_s: float = WAIT_LIMIT_S


def describe(limits: Limits) -> str:
    """The limits in words, for the page."""
    return (
        f"at most {limits.max_rows:,} rows and {_size(limits.max_bytes)} returned, stopped after "
        f"{limits.timeout_s:g} s or {_size(limits.memory_bytes)} of memory, "
        f"{limits.max_concurrent} {'query' if limits.max_concurrent == 1 else 'queries'} at once across the server "
        f"and {limits.per_owner} per person"
    )


def describe_bytes(limits: Limits) -> str:
    """The byte cap in words."""
    return _size(limits.max_bytes)


def _size(n: int) -> str:
    return f"{n / 2**30:g} GB" if n >= 2**30 else f"{n / 2**20:g} MB"


# ---------------------------------------------------------------------------------------------- snapshots


class Snapshots:
    """Read-only copies of a store, one per store identity and dataset version, that worker processes can open."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made: set[Path] = set()  # copies this process made: one left by an earlier run is made again

    def get(self, con: duckdb.DuckDBPyConnection, on_status: Callable[[str], None] | None = None) -> Path:
        """The snapshot of `con`'s database at its current identity and dataset version (made when missing)."""
        cur = con.cursor()
        try:
            version = store.dataset_version(cur)
            identity = store.store_identity(cur)
            source = _database_file(cur)
            folder, stem = (source.parent, source.stem) if source else (Path(tempfile.gettempdir()), "memory")
            path = folder / snapshot_name(stem, identity, version)
            if self._reusable(path, identity):
                return path
            with self._lock:
                if self._reusable(path, identity):
                    return path
                if on_status:
                    on_status("Preparing a read-only copy of the store for Explore (once per data version)...")
                built = _build_snapshot(cur, source, version, path)
                self._made.add(built)
                for old in folder.glob(f"{glob.escape(stem)}.explore-*.duckdb"):
                    if old != built:
                        self._made.discard(old)
                        with contextlib.suppress(OSError):
                            old.unlink()  # a worker still reading it keeps its open file
                return built
        finally:
            cur.close()

    def _reusable(self, path: Path, identity: str | None) -> bool:
        """Whether the copy at `path` is this store's: made by this process (a backup of the same store restored
        while the dashboard was stopped, then changed, may reach the version of a copy an earlier run left), for
        a store with an identity (one not yet migrated cannot be told from another at its path)."""
        return identity is not None and path in self._made and path.exists()


def snapshot_name(stem: str, identity: str | None, version: int) -> str:
    """The file name of a store's snapshot: keyed by the store's identity and dataset version, so a file put in the
    store's place (a backup restored, another store) never finds the old one's copy (the file name did before)."""
    return f"{stem}.explore-{identity or 'unknown'}-v{version}.duckdb"


def _database_file(cur: duckdb.DuckDBPyConnection) -> Path | None:
    rows = cur.execute(
        "SELECT path FROM system.main.duckdb_databases() WHERE database_name = system.main.current_database()"
    ).fetchall()
    return Path(rows[0][0]) if rows and rows[0][0] else None


def _copy_in_child(source: Path, target: Path) -> None:
    """Copy the store file from another process. DuckDB holds its file with a POSIX lock, and the system
    drops a process's POSIX locks on a file when that process closes ANY handle on it: a copy made here
    (shutil.copyfile) unlocked the store, a command-line load then opened it too, and rows were lost when
    both wrote. A child process's handles do not touch this process's locks."""
    done = subprocess.run(["cp", "--", str(source), str(target)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OSError(done.stderr.strip() or f"cp exited {done.returncode}")


SNAPSHOT_ATTACH = Query("snapshot_attach", "ATTACH $path AS concord_explore_snapshot")


def _build_snapshot(cur: duckdb.DuckDBPyConnection, source: Path | None, version: int, path: Path) -> Path:
    """Copy the file after a CHECKPOINT when nothing changed it meanwhile; else COPY FROM DATABASE."""
    identity = store.store_identity(cur)
    tmp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(OSError):
        tmp.unlink()
    if source is not None:
        for _ in range(3):
            try:
                cur.execute("CHECKPOINT")
            except duckdb.Error:
                time.sleep(0.2)
                continue
            before = store.file_state(source)
            if before[2] == 0:  # all committed data is in the main file
                _copy_in_child(source, tmp)
                if store.file_state(source) == before and store.copy_key(tmp) == (identity, version):
                    os.replace(tmp, path)
                    return path
            with contextlib.suppress(OSError):
                tmp.unlink()
            time.sleep(0.2)
    # One transaction: consistent whatever else writes, but it rewrites every table (slow on a large store).
    database = cur.execute("SELECT system.main.current_database()").fetchall()[0][0]
    SNAPSHOT_ATTACH.bind(path=str(tmp)).run(cur)
    try:
        cur.execute(f'COPY FROM DATABASE "{database}" TO concord_explore_snapshot')
    finally:
        cur.execute("DETACH concord_explore_snapshot")
    key = store.copy_key(tmp)
    copied = key[1] if key else version  # the version the transaction saw (a load may have landed since)
    built = tmp.with_name(snapshot_name(path.name.split(".explore-")[0], identity, copied))
    os.replace(tmp, built)
    return built


# ----------------------------------------------------------------------------------------- the service


class _Job:
    def __init__(self) -> None:
        self.cancel = threading.Event()


class ExploreService:
    """Runs Explore queries in worker processes under `limits`; one per server process (see `service()`)."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.snapshots = Snapshots()
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)  # notified when a slot is given back
        self._running = 0
        self._owners: dict[str, int] = {}  # running queries per owner
        self._sessions: dict[str, _Job] = {}
        self._spares: list[subprocess.Popen] = []
        self._filling = False
        self.last_pid: int | None = None  # the last worker's process id (tests check that it has ended)

    @property
    def running(self) -> int:
        """Queries running now."""
        return self._running

    def warm_up(self) -> None:
        """Start spare workers in the background so the next queries skip the interpreter start."""
        threading.Thread(target=self._fill_spares, daemon=True).start()

    def close(self) -> None:
        """End the spare workers (running queries end with their own calls)."""
        with self._lock:
            spares, self._spares = self._spares, []
        for proc in spares:
            _end(proc)

    def run(
        self,
        con: duckdb.DuckDBPyConnection,
        query: str,
        *,
        session: str | None = None,
        owner: str | None = None,
        cancelled: Callable[[], bool] | None = None,
        on_status: Callable[[str], None] | None = None,
    ) -> sql.QueryResult:
        """Check and run one query in a worker; never raises for a bad or stopped query, the error says why.
        `session`: a newer query of it stops the older; `owner`: whose slots it takes (None: only the global limit)."""
        started = time.perf_counter()
        refused = sql.refusal(con, query)
        if refused:
            return _failed(refused, started)
        job = _Job()
        if session is not None:
            with self._lock:
                previous = self._sessions.get(session)
                self._sessions[session] = job
            if previous is not None:
                previous.cancel.set()

        def stopping() -> bool:
            return job.cancel.is_set() or (cancelled is not None and cancelled())

        try:
            if not self._acquire(owner, stopping, on_status):
                if stopping():
                    return _failed(_CANCELLED, started)
                return _failed(
                    f"Explore is busy: {self._running} queries have run for over {self.limits.wait_limit_s:g} s. "
                    "Try again in a moment.",
                    started,
                )
            try:
                snapshot = self.snapshots.get(con, on_status)
                if stopping():
                    return _failed(_CANCELLED, started)
                return self._run_in_worker(snapshot, query, stopping)
            finally:
                self._release(owner)
        finally:
            if session is not None:
                with self._lock:
                    if self._sessions.get(session) is job:
                        del self._sessions[session]

    def _blocked(self, owner: str | None) -> str | None:
        """Why a query of `owner` cannot start now ("server", "owner"), None when it can (under the lock)."""
        if self._running >= self.limits.max_concurrent:
            return "server"
        if owner is not None and self._owners.get(owner, 0) >= self.limits.per_owner:
            return "owner"
        return None

    def _acquire(
        self, owner: str | None, stopping: Callable[[], bool], on_status: Callable[[str], None] | None
    ) -> bool:
        """Take a slot of the server and of `owner`, waiting up to the wait limit; False when none came."""
        deadline = time.monotonic() + self.limits.wait_limit_s
        told: str | None = None
        with self._freed:
            while (why := self._blocked(owner)) is not None:
                if on_status and why != told:
                    told = why
                    on_status(self._waiting(why))
                if time.monotonic() >= deadline or stopping():
                    return False
                self._freed.wait(TICK_S * 2)
            self._running += 1
            if owner is not None:
                self._owners[owner] = self._owners.get(owner, 0) + 1
        return True

    def _release(self, owner: str | None) -> None:
        """Give back the slots `_acquire` took."""
        with self._freed:
            self._running -= 1
            if owner is not None:
                left = self._owners.pop(owner) - 1
                if left:
                    self._owners[owner] = left
            self._freed.notify_all()

    def _waiting(self, why: str) -> str:
        """The page's line while a query waits for a slot."""
        if why == "owner":
            n = self.limits.per_owner
            return (
                f"Waiting: your other Explore {'query is' if n == 1 else 'queries are'} still running (at most {n} "
                "per person at once, also from another tab). This query starts when it ends."
            )
        n = self.limits.max_concurrent
        return (
            f"Waiting for a free slot: {n} Explore {'query is' if n == 1 else 'queries are'} running "
            f"(at most {n} at once across the server). This query starts when one ends."
        )

    def _take_worker(self) -> subprocess.Popen:
        with self._lock:
            while self._spares:
                proc = self._spares.pop()
                if proc.poll() is None:
                    break
            else:
                proc = None
        threading.Thread(target=self._fill_spares, daemon=True).start()
        return proc or _spawn()

    def _fill_spares(self) -> None:
        with self._lock:
            if self._filling:
                return
            self._filling = True
        try:
            while True:
                with self._lock:
                    self._spares = [p for p in self._spares if p.poll() is None]
                    if len(self._spares) >= self.limits.max_concurrent:
                        return
                proc = _spawn()
                with self._lock:
                    self._spares.append(proc)
        finally:
            with self._lock:
                self._filling = False

    def _run_in_worker(self, snapshot: Path, query: str, stopping: Callable[[], bool]) -> sql.QueryResult:
        limits = self.limits
        proc = self._take_worker()
        self.last_pid = proc.pid
        request = {
            "snapshot": str(snapshot),
            "sql": query,
            "max_rows": limits.max_rows,
            "max_bytes": limits.max_bytes,
            "memory_bytes": limits.memory_bytes,
            "timeout_s": limits.timeout_s,
        }
        reply: dict = {}
        reader = threading.Thread(target=_read_reply, args=(proc, limits.max_bytes, reply), daemon=True)
        started = taken = time.perf_counter()
        peak = 0
        stop: str | None = None
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.flush()
            reader.start()
            while reader.is_alive():
                reader.join(TICK_S)
                rss, hwm = _memory(proc.pid)
                peak = max(peak, hwm, rss)
                if not reader.is_alive():
                    break
                ready = reply.get("ready_at")
                if ready is None:  # a worker started just now is still importing: the clock has not started
                    started = time.perf_counter()
                    if time.perf_counter() - taken > STARTUP_LIMIT_S:
                        stop = "crashed"
                if ready is not None and time.perf_counter() - ready > limits.timeout_s:
                    stop = "time"
                elif rss > limits.memory_bytes + RSS_MARGIN:
                    stop = "memory"
                elif stopping():
                    stop = "cancelled"
                if stop:
                    break
        except (BrokenPipeError, OSError):
            stop = stop or "crashed"
        finally:
            _end(proc)
            reader.join(5)
        started = reply.get("ready_at", started)
        elapsed = time.perf_counter() - started
        header = reply.get("header") or {}
        peak = max(peak, int(header.get("peak_memory") or 0))
        if stop == "time" or header.get("timed_out"):
            return _failed(
                f"The query ran longer than {limits.timeout_s:g} s and was stopped. "
                "Narrow it (filters, fewer joins, LIMIT) and run it again.",
                started,
                peak,
            )
        if stop == "memory" or _out_of_memory(header.get("error")):
            return _failed(
                f"The query needed more than {_size(limits.memory_bytes)} of memory and was stopped. "
                "Aggregate, filter or select fewer columns and run it again.",
                started,
                peak,
            )
        if stop == "cancelled":
            return _failed(_CANCELLED, started, peak)
        if reply.get("too_large"):
            return _failed(f"The result was larger than {_size(limits.max_bytes)} and was not returned.", started)
        if not header:
            code = proc.returncode
            why = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            if code == -signal.SIGXCPU or code == -signal.SIGKILL:
                return _failed(f"The query ran longer than {limits.timeout_s:g} s and was stopped.", started, peak)
            return _failed(f"The query's worker process ended without a result ({why}).", started, peak)
        if header.get("error"):
            return _failed(str(header["error"]), started, peak)
        table = pa.ipc.open_stream(reply["body"]).read_all()
        frame = sql.to_frame(table)
        return sql.QueryResult(
            tuple(str(c) for c in frame.columns),
            frame,
            bool(header.get("truncated_by")),
            elapsed,
            truncated_by=header.get("truncated_by"),
            peak_memory=peak,
        )


_CANCELLED = "The query was stopped because the page changed or a newer query started; run it again."
_SERVICE: ExploreService | None = None
_SERVICE_LOCK = threading.Lock()


def service() -> ExploreService:
    """The server's one Explore service (its slots are shared by every session of this process)."""
    global _SERVICE
    with _SERVICE_LOCK:
        if _SERVICE is None:
            _SERVICE = ExploreService()
            _SERVICE.warm_up()
        return _SERVICE


def _failed(message: str, started: float, peak: int = 0) -> sql.QueryResult:
    return sql.QueryResult((), pd.DataFrame(), False, time.perf_counter() - started, message, None, peak)


def _out_of_memory(error: object) -> bool:
    return isinstance(error, str) and ("Out of Memory" in error or "MemoryError" in error)


def _spawn() -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.Popen(
        [sys.executable, "-m", "analytics.explore.worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=str(ROOT),
        env=env,
        start_new_session=True,  # Ctrl-C in the server's terminal does not reach it; this process ends it
    )


def _end(proc: subprocess.Popen) -> None:
    """Kill the worker if it still runs and reap it (its memory goes back to the system)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)
    for stream in (proc.stdin, proc.stdout):
        with contextlib.suppress(OSError, ValueError):
            if stream is not None:
                stream.close()


def _memory(pid: int) -> tuple[int, int]:
    """(resident, peak resident) bytes of a process from /proc, (0, 0) when it is gone."""
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return rss, hwm


def _read_exact(stream: IO[bytes], n: int) -> bytes:
    data = stream.read(n)
    if data is None or len(data) != n:
        raise EOFError
    return data


def _read_reply(proc: subprocess.Popen, max_bytes: int, reply: dict) -> None:
    """Read the worker's header and Arrow body, refusing a body beyond what the byte cap allows."""
    try:
        stream = cast(IO[bytes], proc.stdout)  # a pipe (_spawn's stdout=PIPE), never None
        if _read_exact(stream, 1) != READY:
            return
        reply["ready_at"] = time.perf_counter()
        n = int.from_bytes(_read_exact(stream, 4), "big")
        if n > HEADER_MAX:
            return
        header = json.loads(_read_exact(stream, n))
        size = int.from_bytes(_read_exact(stream, 8), "big")
        if size > 2 * max_bytes + HEADER_MAX:  # IPC framing adds a little to the Arrow size
            reply["too_large"] = True
            return
        reply["body"] = _read_exact(stream, size)
        reply["header"] = header
    except (EOFError, OSError, ValueError):
        pass


# ------------------------------------------------------------------------------------------ the worker


def open_snapshot(path: str, memory_bytes: int) -> duckdb.DuckDBPyConnection:
    """The worker's DuckDB: the snapshot read-only, no files or network, one thread, memory below the cap."""
    return duckdb.connect(
        path,
        read_only=True,
        config={
            "enable_external_access": False,
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "threads": 1,
            "memory_limit": f"{int(memory_bytes * DUCKDB_MEMORY_SHARE) // 2**20}MiB",
            "temp_directory": "",  # no spilling to disk: a query that needs more memory fails
            "lock_configuration": True,
        },
    )


def _worker_main() -> None:
    """One query: read the request, set the process limits, run, write header and Arrow IPC, exit."""
    import resource

    sys.stdout.buffer.write(READY)  # imports done: the server starts the query's clock now
    sys.stdout.buffer.flush()
    line = sys.stdin.buffer.readline()
    if not line:
        return  # the server closed the pipe: a spare that was never used
    request = json.loads(line)
    with contextlib.suppress(OSError):
        os.nice(NICE)
    memory = int(request["memory_bytes"])
    resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime + float(request["timeout_s"]) + 3)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    header: dict = {}
    body = b""
    con = None
    try:
        con = open_snapshot(request["snapshot"], memory)
        table, meta = sql.run_arrow(
            con,
            request["sql"],
            int(request["max_rows"]),
            float(request["timeout_s"]),
            int(request["max_bytes"]),
            configured=True,
        )
        header = {"error": meta.get("error"), "truncated_by": meta.get("truncated_by")}
        header["timed_out"] = bool(header["error"] and "ran longer than" in header["error"])
        if table is not None:
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table)
            body = sink.getvalue().to_pybytes()
    except MemoryError:
        header = {"error": "Out of Memory Error: MemoryError"}
    except Exception as e:  # noqa: BLE001 - whatever it is, the server gets one line, not a dead pipe
        header = {"error": sql._one_line(e)}
    finally:
        if con is not None:
            con.close()
    header["peak_memory"] = _memory(os.getpid())[1]  # VmHWM (ru_maxrss would carry the parent's over exec)
    raw = json.dumps(header).encode()
    out = sys.stdout.buffer
    out.write(len(raw).to_bytes(4, "big") + raw + len(body).to_bytes(8, "big"))
    out.write(body)
    out.flush()


if __name__ == "__main__":
    _worker_main()
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown (DuckDB's bindings report leaks at exit)
