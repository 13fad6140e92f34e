"""Load test of the real dashboard server: simulated users browsing and querying while a large file loads.

    .venv/bin/python bench/bench_load.py [--users 20] [--explore-users 4] [--duration 60] [--load-rows 1000000]
                                         [--base-tasks 100000] [--store PATH] [--port 0] [--seed 0]

What it does, in order:

1. Prepares a new store (--store, or one in a temporary folder): the demo data (`python -m analytics demo
   --load`) and --base-tasks of benchmark data (bench/data/ratings_<N>.parquet from bench/generate.py, loaded
   with `python -m analytics ingest`). Writes the file to load during the test: bench/generate.py's ratings for
   about --load-rows ratings (24 per task), task ids renamed so they are new tasks, as canonical CSV (--format).
2. Starts the real server: `streamlit run app.py --server.headless true` with CONCORD_DB set to the store.
3. Warm-up: one user opens every page once and, when there are Explore users, runs one query (cold caches;
   shown in its own table).
4. The timed test, all users on one asyncio event loop in this process. No browsers: each user is a websocket
   session speaking Streamlit's own protocol (/_stcore/stream; BackMsg rerun_script with a ClientState naming
   the page by its page_script_hash from the navigation message; ForwardMsg new_session, delta,
   script_finished). A browsing user picks one of the pages Overview, Agreement, Distributions, Disagreements,
   Feedback and Data (with chance --filter-change, 0.2, also a random choice in the sidebar's Rubric filter, so
   views are not all of one cached default), asks for a run of it, times it until script_finished, scans every
   element for an st.exception, an st.error or the app's "could not be shown because of an unexpected error"
   sentence, waits a think time (--think, 5-20 s: a person reads a page before the next click; 1-5 s is a
   stress test of 20 people clicking without reading) and moves on. An Explore user opens Explore, finds the SQL text area and the Run button in the
   elements and runs ordinary queries (GROUP BY over ratings, a join with submissions) by sending the text
   area's value and the button's trigger; a query counts when its result (the "N rows, M columns" caption and
   a table after it) appears without an error.
   Phases: --duration seconds before the load; during the load (`python -m analytics ingest FILE --db STORE
   --json` as a subprocess while the server holds the store, until it exits); --duration seconds after it.
   A page view belongs to the phase it overlaps (one that spans the load's start or end counts as during).
5. Prints Markdown tables per phase (p50, p90, p99 and max per page and overall; nearest-rank percentiles),
   the load's wall time and result, and every failure: an error shown on a page, no answer within --timeout
   (60 s), a lost connection, an Explore query without its result, and for the load: not loaded, not handed
   to the dashboard (the command line says so on stderr when it hands a file over), or rows the dashboard does
   not show afterwards (the Overview's Ratings figure in a new session must be the store's count plus the rows
   loaded). Exit code 1 when any failure occurred, 0 otherwise.

Streamlit 1.67 serves with Starlette/uvicorn; the client side uses the `websockets` package Streamlit depends
on. The simulated users send no cached-message hashes, so the server sends every message in full (a browser
would get references to messages it already has): slightly more work for the server than real browsers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException
from websockets.typing import Subprotocol

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
STREAMLIT = ROOT / ".venv" / "bin" / "streamlit"
sys.path.insert(0, str(HERE))

from generate import generate  # noqa: E402

BROWSE_PAGES = ("Overview", "Agreement", "Distributions", "Disagreements", "Feedback", "Data")
EXPLORE = "Explore"
EXPLORE_QUERY = "Explore query"
UNEXPECTED = "could not be shown because of an unexpected error"
RESULT_CAPTION = re.compile(r"^[\d,]+ rows, \d+ columns in [\d.]+ s$")
RATINGS_PER_TASK = 24.0  # bench/generate.py: about 3 raters x 8 dimensions per task
PHASES = ("before", "during", "after")
PHASE_TITLES = {"before": "Before the load", "during": "During the load", "after": "After the load"}

# Ordinary Explore use: every result well under the 10,000-row cap, no query near a limit.
QUERIES: dict[str, str] = {
    "ratings per rubric, dimension, role": (
        "SELECT rubric, dimension, role, count(*) AS ratings, count(DISTINCT rater_id) AS raters\n"
        "FROM ratings\nGROUP BY ALL\nORDER BY ALL"
    ),
    "busiest raters": (
        "SELECT rater_id, role, count(*) AS ratings, count(DISTINCT task_id) AS tasks,\n"
        "       min(submitted_at) AS first_rating, max(submitted_at) AS last_rating\n"
        "FROM ratings\nGROUP BY ALL\nORDER BY ratings DESC\nLIMIT 100"
    ),
    "level counts per dimension": (
        "SELECT rubric, dimension, value, count(*) AS ratings\nFROM ratings\nGROUP BY ALL\nORDER BY ALL"
    ),
    "ratings per week and rubric": (
        "SELECT date_trunc('week', submitted_at) AS week, rubric, count(*) AS ratings\n"
        "FROM ratings\nWHERE submitted_at IS NOT NULL\nGROUP BY ALL\nORDER BY ALL"
    ),
    "submissions joined with their ratings": (
        "SELECT s.rubric, s.status, s.role, count(DISTINCT s.submission_id) AS submissions,\n"
        "       count(r.value) AS ratings, round(avg(s.duration_s), 1) AS mean_duration_s\n"
        "FROM submissions AS s\nLEFT JOIN ratings AS r USING (submission_id)\nGROUP BY ALL\nORDER BY ALL"
    ),
    "agreement with researchers by week": (
        "SELECT date_trunc('week', c.submitted_at) AS week, count(*) AS pairs,\n"
        "       round(avg(CASE WHEN c.value = r.value THEN 1.0 ELSE 0.0 END), 3) AS share_equal\n"
        "FROM ratings AS c\nJOIN ratings AS r USING (task_id, rubric, dimension, target)\n"
        "WHERE c.role = 'contractor' AND r.role = 'researcher' AND c.submitted_at IS NOT NULL\n"
        "GROUP BY ALL\nORDER BY ALL"
    ),
}


@dataclass(frozen=True)
class Visit:
    """One page view or Explore query as a user saw it."""

    user: str
    page: str
    started: float
    elapsed: float
    received_bytes: int
    error: str | None = None
    detail: str = ""


@dataclass(frozen=True)
class Rendered:
    """What the server sent for one script run."""

    elapsed: float
    elements: list[Element]
    received_bytes: int
    problems: list[str]
    sidebar: list[Element]


@dataclass
class LoadResult:
    """The command-line load run during the test."""

    started: float = math.inf
    ended: float = math.inf
    exit_code: int | None = None
    status: str = ""
    rows_loaded: int = 0
    rows_quarantined: int = 0
    errors: list[str] = field(default_factory=list)
    stderr: str = ""
    shown: int | None = None  # ratings the dashboard's Overview shows after the load (a new session)
    shown_error: str | None = None

    @property
    def handed_over(self) -> bool:
        """Whether the command line said it handed the file to the dashboard (analytics/cli/ingest.py)."""
        return "handing the files" in self.stderr


@dataclass
class Timeline:
    """Shared state of the timed test: the visits, the load and the stop signal."""

    visits: list[Visit] = field(default_factory=list)
    load: LoadResult = field(default_factory=LoadResult)
    stop: asyncio.Event = field(default_factory=asyncio.Event)  # users start no new page view
    done: asyncio.Event = field(default_factory=asyncio.Event)  # the last page view has ended
    samples: list[tuple[float, int, float]] = field(default_factory=list)  # time, server RSS, server CPU s
    bench_cpu: float = 0.0  # CPU seconds of this process (the simulated users) during the timed test
    load_cpu: float = 0.0  # CPU seconds of the load's command line


class PageError(Exception):
    """A run that did not finish properly (timeout, lost connection, odd end)."""


# --- one simulated browser tab -------------------------------------------------------------------------------


def problems_in(element: Element) -> list[str]:
    """The error text an element shows: st.exception, st.error, or the app's unexpected-error sentence."""
    kind = element.WhichOneof("type")
    found: list[str] = []
    if kind == "exception":
        found.append(f"exception {element.exception.type}: {element.exception.message}")
    elif kind == "alert" and element.alert.format == element.alert.ERROR:
        found.append(f"error: {element.alert.body}")
    for text in (element.markdown.body, element.text.body, element.alert.body):
        if UNEXPECTED in text and not any(UNEXPECTED in f for f in found):
            found.append(f"{kind}: {text}")
    return found


class Session:
    """One simulated browser tab: a websocket session speaking Streamlit's protocol."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self.ws: ClientConnection | None = None
        self.pages: dict[str, str] = {}
        self.rubric: tuple[str, list[str]] | None = None  # the sidebar's rubric filter: widget id, options

    async def open(self) -> Rendered:
        """Connect and run the default page, which also tells the pages' script hashes."""
        await self.close()
        self.ws = await connect(
            self.url, subprotocols=[Subprotocol("streamlit")], max_size=None, ping_interval=None, open_timeout=60
        )
        return await self.run("")

    async def close(self) -> None:
        """Close the websocket (the server then ends the session)."""
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
            self.ws = None

    async def run(self, page_hash: str, widgets: Iterable[tuple[str, str, object]] = ()) -> Rendered:
        """Ask for a run of a page with widget values (id, field, value); wait for script_finished."""
        if self.ws is None:
            raise PageError("not connected")
        msg = BackMsg()
        msg.rerun_script.query_string = ""
        msg.rerun_script.page_script_hash = page_hash
        states = msg.rerun_script.widget_states
        for widget_id, name, value in widgets:
            state = states.widgets.add()
            state.id = widget_id
            setattr(state, name, value)
        started = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        try:
            elements, sidebar, size, problems = await asyncio.wait_for(self._until_finished(), self.timeout)
        except TimeoutError:
            await self.close()  # its late messages must not count for the next run
            raise PageError(f"no answer within {self.timeout:.0f} s") from None
        except WebSocketException as e:
            await self.close()
            raise PageError(f"connection lost: {e!r}") from None
        rendered = Rendered(time.perf_counter() - started, elements, size, problems, sidebar)
        box = next(
            (e.selectbox for e in sidebar if e.WhichOneof("type") == "selectbox" and e.selectbox.label == "Rubric"),
            None,
        )
        self.rubric = (box.id, list(box.options)) if box else None
        return rendered

    async def _until_finished(self) -> tuple[list[Element], list[Element], int, list[str]]:
        """Read messages until the run's script_finished; collect elements (all, sidebar) and problems."""
        assert self.ws is not None
        elements: list[Element] = []
        sidebar: list[Element] = []
        problems: list[str] = []
        size = 0
        while True:
            raw = await self.ws.recv()
            size += len(raw)
            msg = ForwardMsg()
            msg.ParseFromString(raw if isinstance(raw, bytes) else raw.encode())
            kind = msg.WhichOneof("type")
            if kind == "navigation":
                self.pages = {p.page_name: p.page_script_hash for p in msg.navigation.app_pages}
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                elements.append(msg.delta.new_element)
                if msg.metadata.delta_path[:1] == [1]:  # root container 1 is the sidebar
                    sidebar.append(msg.delta.new_element)
                problems.extend(problems_in(msg.delta.new_element))
            elif kind == "page_not_found":
                problems.append(f"page not found: {msg.page_not_found.page_name}")
            elif kind == "script_finished":
                status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
                if msg.script_finished != ForwardMsg.FINISHED_SUCCESSFULLY:
                    problems.append(f"script finished with {status}")
                return elements, sidebar, size, problems

    async def visit(
        self, user: str, page: str, widgets: Sequence[tuple[str, str, object]] = (), detail: str = ""
    ) -> tuple[Visit, Rendered | None]:
        """Open a page by its title (with widget values) and time it; reconnect after a failure."""
        started = time.perf_counter()
        try:
            if self.ws is None:
                await self.open()
            rendered = await self.run(self.pages[page], widgets)
        except PageError as e:
            await self.close()
            return Visit(user, page, started, time.perf_counter() - started, 0, str(e), detail), None
        error = "; ".join(rendered.problems) or None
        return Visit(user, page, started, rendered.elapsed, rendered.received_bytes, error, detail), rendered


# --- the users ---------------------------------------------------------------------------------------------


def widget_ids(elements: Sequence[Element]) -> tuple[str, str] | None:
    """The Explore page's SQL text area and Run button ids, as the elements carry them."""
    area = next((e.text_area.id for e in elements if e.WhichOneof("type") == "text_area"), None)
    button = next((e.button.id for e in elements if e.WhichOneof("type") == "button" and e.button.label == "Run"), None)
    return (area, button) if area and button else None


def query_outcome(rendered: Rendered) -> str | None:
    """None when a query's result appeared (its caption, then a table) with no error; else what went wrong."""
    if rendered.problems:
        return "; ".join(rendered.problems)
    kinds = [(e.WhichOneof("type"), e.markdown.body) for e in rendered.elements]
    caption = next((i for i, (k, body) in enumerate(kinds) if k == "markdown" and RESULT_CAPTION.match(body)), None)
    if caption is None:
        return "no result shown (no 'N rows, M columns' caption)"
    if not any(k == "dataframe" for k, _ in kinds[caption + 1 :]):
        return "no result table after the caption"
    return None


async def pause(rng: random.Random, think: tuple[float, float], stop: asyncio.Event) -> None:
    """A user's think time, cut short when the test stops."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), rng.uniform(*think))


def filter_change(session: Session, rng: random.Random, chance: float) -> tuple[list[tuple[str, str, object]], str]:
    """Now and then a user picks another rubric in the sidebar (as part of the next page view)."""
    if session.rubric is None or rng.random() >= chance:
        return [], ""
    widget_id, options = session.rubric
    choice = rng.choice(options)
    return [(widget_id, "string_value", choice)], f"rubric filter: {choice}"


async def browse_user(name: str, url: str, args: argparse.Namespace, rng: random.Random, tl: Timeline) -> None:
    """Loop over random pages (sometimes changing the rubric filter) until the test stops."""
    session = Session(url, args.timeout)
    await pause(rng, (0, args.think[1]), tl.stop)  # users arrive spread out
    while not tl.stop.is_set():
        widgets, detail = filter_change(session, rng, args.filter_change)
        visit, _ = await session.visit(name, rng.choice(BROWSE_PAGES), widgets, detail)
        tl.visits.append(visit)
        await pause(rng, args.think, tl.stop)
    await session.close()


async def explore_user(name: str, url: str, args: argparse.Namespace, rng: random.Random, tl: Timeline) -> None:
    """Open Explore, then run random ordinary queries until the test stops."""
    session = Session(url, args.timeout)
    await pause(rng, (0, args.think[1]), tl.stop)
    ids: tuple[str, str] | None = None
    while not tl.stop.is_set():
        if ids is None:  # first time, or after a reconnect
            visit, rendered = await session.visit(name, EXPLORE)
            ids = widget_ids(rendered.elements) if rendered else None
            if rendered and ids is None and visit.error is None:
                visit = Visit(name, EXPLORE, visit.started, visit.elapsed, visit.received_bytes, "no SQL editor found")
            tl.visits.append(visit)
            await pause(rng, args.think, tl.stop)
            continue
        title, sql = rng.choice(list(QUERIES.items()))
        widgets = [(ids[0], "string_value", sql), (ids[1], "trigger_value", True)]
        started = time.perf_counter()
        try:
            rendered = await session.run(session.pages[EXPLORE], widgets)
            error = query_outcome(rendered)
            tl.visits.append(
                Visit(name, EXPLORE_QUERY, started, rendered.elapsed, rendered.received_bytes, error, title)
            )
        except PageError as e:
            await session.close()
            ids = None
            tl.visits.append(Visit(name, EXPLORE_QUERY, started, time.perf_counter() - started, 0, str(e), title))
        await pause(rng, args.think, tl.stop)
    await session.close()


# --- the store, the file, the server, the load ---------------------------------------------------------------


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m analytics ...` from the checkout; stop on failure with its output."""
    done = subprocess.run([str(PYTHON), "-m", "analytics", *argv], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"analytics {' '.join(argv)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def prepare_store(db: Path, work: Path, base_tasks: int) -> int:
    """A new store with the demo data and --base-tasks of benchmark data; returns its number of ratings."""
    run_cli("demo", "--out", str(work / "demo"), "--load", "--db", str(db))
    if base_tasks:
        base = HERE / "data" / f"ratings_{base_tasks}.parquet"
        if not base.exists():
            with contextlib.redirect_stdout(sys.stderr):
                generate(base_tasks, HERE / "data")
        run_cli("ingest", str(base), "--db", str(db), "--json")
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute("SELECT count(*) FROM ratings").fetchone()
    return int(row[0]) if row else 0


def write_load_file(tasks: int, work: Path, fmt: str) -> tuple[Path, int]:
    """bench/generate.py's ratings for `tasks` tasks, renamed to new task ids, as one canonical file."""
    with contextlib.redirect_stdout(sys.stderr):
        generated = generate(tasks, work / "generated")["parquet"]
    out = work / f"load_{tasks}_tasks.{fmt}"
    options = "FORMAT csv, HEADER" if fmt == "csv" else "FORMAT parquet"
    with duckdb.connect() as con:
        con.execute(
            f"COPY (SELECT 'ld' || substr(task_id, 3) AS task_id, * EXCLUDE (task_id) FROM read_parquet(?)) "
            f"TO '{out}' ({options})",
            [str(generated)],
        )
        row = con.execute("SELECT count(*) FROM read_parquet(?)", [str(generated)]).fetchone()
    shutil.rmtree(work / "generated")
    return out, int(row[0]) if row else 0


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """The real dashboard: `streamlit run app.py` on the store, answering /_stcore/health."""
    env = {**os.environ, "CONCORD_DB": str(db)}
    env.pop("PYTEST_CURRENT_TEST", None)
    cmd = [str(STREAMLIT), "run", "app.py", "--server.headless", "true", "--server.port", str(port)]
    cmd += ["--browser.gatherUsageStats", "false"]
    server = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"the server exited ({server.returncode}); see {log}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return server
        time.sleep(0.5)
    server.kill()
    sys.exit(f"the server did not answer within 60 s; see {log}")


def rss_of(pid: int) -> int:
    """Resident memory of a process in bytes (0 when gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cpu_of(pid: int) -> float:
    """CPU seconds of a process and its reaped children (the server's Explore workers), 0 when gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime, stime, cutime, cstime


def own_cpu(who: int = resource.RUSAGE_SELF) -> float:
    """CPU seconds of this process (or of its reaped children)."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


async def sample_server(pid: int, tl: Timeline) -> None:
    """The server process's resident memory and CPU time once a second until the test stops."""
    while True:
        tl.samples.append((time.perf_counter(), rss_of(pid), cpu_of(pid)))
        if tl.done.is_set():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(tl.done.wait(), 1.0)


async def run_load(file: Path, db: Path, tl: Timeline) -> None:
    """`python -m analytics ingest FILE --db STORE --json` while the server runs; record time and result."""
    load = tl.load
    load.started = time.perf_counter()
    children_before = own_cpu(resource.RUSAGE_CHILDREN)
    proc = await asyncio.create_subprocess_exec(
        str(PYTHON),
        "-m",
        "analytics",
        "ingest",
        str(file),
        "--db",
        str(db),
        "--json",
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    load.ended = time.perf_counter()
    tl.load_cpu = own_cpu(resource.RUSAGE_CHILDREN) - children_before
    load.exit_code = proc.returncode
    load.stderr = err.decode(errors="replace").strip()
    try:
        result = json.loads(out)["files"][0]
    except (ValueError, KeyError, IndexError):
        load.status = "no JSON result"
        return
    load.status = result["status"]
    load.rows_loaded = result["rows_loaded"]
    load.rows_quarantined = result["rows_quarantined"]
    load.errors = [str(e) for e in result.get("errors", [])]


async def warm_up(url: str, timeout: float, query: bool) -> list[Visit]:
    """One user opens every page once and (when there are Explore users) runs one query: cold caches."""
    session = Session(url, timeout)
    visits = []
    for page in (*BROWSE_PAGES, EXPLORE):
        visit, rendered = await session.visit("warm-up", page)
        visits.append(visit)
    ids = widget_ids(rendered.elements) if rendered else None
    if ids and query:
        title, sql = next(iter(QUERIES.items()))
        started = time.perf_counter()
        try:
            done = await session.run(
                session.pages[EXPLORE], [(ids[0], "string_value", sql), (ids[1], "trigger_value", True)]
            )
            visits.append(
                Visit("warm-up", EXPLORE_QUERY, started, done.elapsed, done.received_bytes, query_outcome(done), title)
            )
        except PageError as e:
            visits.append(Visit("warm-up", EXPLORE_QUERY, started, time.perf_counter() - started, 0, str(e), title))
    await session.close()
    return visits


async def ratings_shown(url: str, timeout: float, load: LoadResult) -> None:
    """The Overview's Ratings figure in a new session (default filters: everything), into load.shown."""
    session = Session(url, timeout)
    visit, rendered = await session.visit("check", "Overview")
    await session.close()
    if rendered is None or visit.error:
        load.shown_error = visit.error
        return
    figures = [
        e.metric.body for e in rendered.elements if e.WhichOneof("type") == "metric" and e.metric.label == "Ratings"
    ]
    if figures:
        load.shown = int(figures[0].replace(",", ""))
    else:
        load.shown_error = "no Ratings figure on the Overview"


def load_failures(load: LoadResult, expected: int, separate: bool) -> list[str]:
    """What went wrong with the load: exit code, status, no hand-over, rows the dashboard does not show."""
    found = []
    if load.exit_code != 0 or load.status != "loaded":
        found.append(f"the load ended with exit code {load.exit_code}, status {load.status!r}")
    if not separate and not load.handed_over:
        found.append(
            "the command line did not hand the file to the dashboard: it could open the store the dashboard holds "
            "(DuckDB's file lock was gone) and loaded it itself, so two DuckDB instances wrote one file"
        )
    if not separate and load.shown != expected:
        seen = f"{load.shown:,}" if load.shown is not None else f"no figure ({load.shown_error})"
        found.append(
            f"after the load the dashboard's Overview (new session) shows {seen} ratings, expected {expected:,}"
        )
    return found


async def timed_test(args: argparse.Namespace, url: str, db: Path, file: Path, server_pid: int) -> Timeline:
    """All users on one event loop: --duration s, the load until it exits, --duration s; then stop."""
    tl = Timeline()
    users = [
        asyncio.create_task(browse_user(f"b{i:02d}", url, args, random.Random(args.seed * 1000 + i), tl))
        for i in range(args.users)
    ]
    users += [
        asyncio.create_task(explore_user(f"e{i:02d}", url, args, random.Random(args.seed * 1000 + 500 + i), tl))
        for i in range(args.explore_users)
    ]
    sampler = asyncio.create_task(sample_server(server_pid, tl))
    cpu_before = own_cpu()
    print(f"timed test: {args.users} browsing + {args.explore_users} Explore users", file=sys.stderr, flush=True)
    await asyncio.sleep(args.duration)
    print("starting the load", file=sys.stderr, flush=True)
    await run_load(file, db, tl)
    print(f"load ended ({tl.load.ended - tl.load.started:.1f} s): {tl.load.status}", file=sys.stderr, flush=True)
    check = asyncio.create_task(ratings_shown(url, args.timeout, tl.load))
    await asyncio.sleep(args.duration)
    await check
    tl.stop.set()
    await asyncio.gather(*users)  # runs in flight finish (or time out); no new ones start
    tl.done.set()
    await sampler
    tl.bench_cpu = own_cpu() - cpu_before
    return tl


# --- figures -------------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def phase_of(visit: Visit, load: LoadResult) -> str:
    """before, during or after the load: a view overlapping the load's run counts as during."""
    if visit.started + visit.elapsed <= load.started:
        return "before"
    if visit.started >= load.ended:
        return "after"
    return "during"


def row(label: str, visits: Sequence[Visit]) -> str:
    """One Markdown table row of latency figures."""
    times = [v.elapsed for v in visits]
    failures = sum(v.error is not None for v in visits)
    mb = sorted(v.received_bytes for v in visits)[len(visits) // 2] / 2**20
    cells = [f"{percentile(times, p):.2f}" for p in (50, 90, 99)] + [f"{max(times):.2f}"]
    return f"| {label} | {len(visits)} | {' | '.join(cells)} | {failures} | {mb:.2f} |"


def table(visits: Sequence[Visit]) -> list[str]:
    """Latency per page, all browsing pages, Explore and everything, as Markdown lines."""
    lines = [
        "| page | views | p50 s | p90 s | p99 s | max s | failures | median MB sent |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for page in BROWSE_PAGES:
        if chosen := [v for v in visits if v.page == page]:
            lines.append(row(page, chosen))
    if browsing := [v for v in visits if v.page in BROWSE_PAGES]:
        lines.append(row("**all browsing pages**", browsing))
    for page, label in ((EXPLORE, "Explore (opening the page)"), (EXPLORE_QUERY, "Explore query (Run)")):
        if chosen := [v for v in visits if v.page == page]:
            lines.append(row(label, chosen))
    if visits:
        lines.append(row("**everything**", visits))
    return lines


def server_use(tl: Timeline, start: float, end: float) -> str:
    """The server's peak resident memory and average CPU use (cores) between two moments, from the samples."""
    inside = [s for s in tl.samples if start <= s[0] <= end]
    if len(inside) < 2:
        return "server: too short to sample"
    peak = max(r for _, r, _ in inside) / 2**30
    cores = (inside[-1][2] - inside[0][2]) / (inside[-1][0] - inside[0][0])
    return f"server process: peak RSS {peak:.2f} GB, {cores:.2f} cores busy on average"


def report(
    args: argparse.Namespace, setup: dict[str, object], warm: list[Visit], tl: Timeline, load_problems: list[str]
) -> list[Visit]:
    """Print the figures as Markdown (load problems among the failures); return the failed visits."""
    load, t0 = tl.load, min((v.started for v in tl.visits), default=tl.load.started)
    print(f"Store before the test: {setup['store_ratings']:,} ratings (demo + {args.base_tasks:,} benchmark tasks).")
    print(
        f"Users: {args.users} browsing (rubric filter changed in {args.filter_change:.0%} of views), "
        f"{args.explore_users} on Explore; think time {args.think[0]:g}-{args.think[1]:g} s;"
        f" timeout {args.timeout:g} s; seed {args.seed}. Machine: {os.cpu_count()} cores; load average before "
        f"{setup['loadavg_before']}, after {tuple(round(x, 1) for x in os.getloadavg())}."
    )
    print(
        f"\nLoad: `{setup['load_file_name']}` ({setup['load_ratings']:,} ratings, {setup['load_mb']:.0f} MB {args.format}) "
        f"with `python -m analytics ingest FILE --db STORE --json` into "
        f"{'a separate store (NOT the dashboard store)' if args.separate_load_store else 'the store the dashboard holds'}: "
        f"**{load.ended - load.started:.1f} s** wall, exit code {load.exit_code}, status `{load.status}`, "
        f"{load.rows_loaded:,} rows loaded, {load.rows_quarantined:,} quarantined."
    )
    if load.stderr:
        print(f"The command line said (stderr): {' '.join(load.stderr.split())[-600:]}")
    if load.errors:
        print(f"Load errors: {'; '.join(load.errors)}")
    if not args.separate_load_store:
        shown = f"{load.shown:,}" if load.shown is not None else f"no figure ({load.shown_error})"
        print(
            f"Handed to the dashboard: {'yes' if load.handed_over else '**no**'}. Ratings on the Overview of a new "
            f"session right after the load: {shown} (expected {setup['store_ratings']:,} + {load.rows_loaded:,})."
        )
    print("\n### Warm-up: one user, cold caches, nobody else busy\n")
    print("| page | s | failure |\n|---|---|---|")
    for v in warm:
        print(f"| {v.page}{f' ({v.detail})' if v.detail else ''} | {v.elapsed:.2f} | {v.error or ''} |")
    bounds = {
        "before": (t0, load.started),
        "during": (load.started, load.ended),
        "after": (load.ended, max((v.started + v.elapsed for v in tl.visits), default=load.ended)),
    }
    for phase in PHASES:
        chosen = [v for v in tl.visits if phase_of(v, load) == phase]
        start, end = bounds[phase]
        print(
            f"\n### {PHASE_TITLES[phase]} ({end - start:.0f} s, {len(chosen)} page views and queries; "
            f"{server_use(tl, start, end)})\n"
        )
        print("\n".join(table(chosen)) if chosen else "No page views in this phase.")
    wall = tl.samples[-1][0] - tl.samples[0][0] if tl.samples else 0.0
    server_cpu = tl.samples[-1][2] - tl.samples[0][2] if tl.samples else 0.0
    print(
        f"\nCPU over the timed test ({wall:.0f} s wall, {os.cpu_count()} cores): server process and its Explore "
        f"workers {server_cpu:.0f} s ({server_cpu / max(wall, 1):.2f} cores), the load's command line "
        f"{tl.load_cpu:.1f} s, the simulated users (this process) {tl.bench_cpu:.0f} s "
        f"({tl.bench_cpu / max(wall, 1):.2f} cores)."
    )
    queries = [v for v in tl.visits if v.page == EXPLORE_QUERY]
    if queries:
        print("\n### Explore queries, all phases\n\n| query | runs | p50 s | max s | failures |\n|---|---|---|---|---|")
        for title in QUERIES:
            if runs := [v.elapsed for v in queries if v.detail == title]:
                fails = sum(v.error is not None for v in queries if v.detail == title)
                print(f"| {title} | {len(runs)} | {percentile(runs, 50):.2f} | {max(runs):.2f} | {fails} |")
    failed = [v for v in (*warm, *tl.visits) if v.error is not None]
    print(f"\n### Failures: {len(failed) + len(load_problems)}\n")
    for problem in load_problems:
        print(f"- the load: {problem}")
    for v in failed:
        phase = "warm-up" if v.user == "warm-up" else phase_of(v, load)
        print(
            f"- {phase}, {v.page}{f' ({v.detail})' if v.detail else ''}, user {v.user}, at {v.started - t0:+.1f} s: {v.error}"
        )
    return failed


def server_log_problems(log: Path) -> list[str]:
    """Tracebacks and 'page failed' lines in the server's log."""
    lines = log.read_text(errors="replace").splitlines()
    return [line for line in lines if "Traceback" in line or "page failed" in line]


# --- main ----------------------------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--users", type=int, default=20, help="browsing users (default 20)")
    p.add_argument("--explore-users", type=int, default=4, help="users running Explore queries (default 4)")
    p.add_argument("--duration", type=float, default=60, help="seconds before and after the load (default 60)")
    p.add_argument("--load-rows", type=int, default=1_000_000, help="about this many ratings in the loaded file")
    p.add_argument("--tasks", type=int, help="tasks in the loaded file instead of --load-rows (24 ratings each)")
    p.add_argument("--format", choices=("csv", "parquet"), default="csv", help="the loaded file's format")
    p.add_argument("--base-tasks", type=int, default=100_000, help="benchmark tasks in the store beside the demo")
    p.add_argument("--store", type=Path, help="where to create the store (must not exist); default a temp folder")
    p.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--think", type=float, nargs=2, default=(5.0, 20.0), metavar=("MIN", "MAX"), help="seconds between views"
    )
    p.add_argument(
        "--filter-change", type=float, default=0.2, help="chance that a page view also picks a rubric in the sidebar"
    )
    p.add_argument("--timeout", type=float, default=60, help="a page with no answer in this many s is a failure")
    p.add_argument(
        "--separate-load-store",
        action="store_true",
        help="load into a separate new store, not the dashboard's (for when the command line cannot load into a "
        "store the dashboard holds)",
    )
    args = p.parse_args()
    if args.store and (args.store.exists() or Path(f"{args.store}.wal").exists()):
        p.error(f"{args.store} exists: give a new path (the test loads a fixed file, a second load would be a no-op)")
    return args


def main() -> int:
    """Prepare, start the server, run the test, print the figures; 1 when anything failed."""
    args = parse_args()
    work = Path(tempfile.mkdtemp(prefix="concord-load-"))
    db = args.store.resolve() if args.store else work / "store.duckdb"
    db.parent.mkdir(parents=True, exist_ok=True)
    tasks = args.tasks or round(args.load_rows / RATINGS_PER_TASK)
    print(f"preparing {db} and the load file ({tasks:,} tasks) in {work}", file=sys.stderr, flush=True)
    store_ratings = prepare_store(db, work, args.base_tasks)
    load_file, load_ratings = write_load_file(tasks, work, args.format)
    load_db = work / "separate-load-store.duckdb" if args.separate_load_store else db
    setup: dict[str, object] = {
        "store_ratings": store_ratings,
        "load_ratings": load_ratings,
        "load_mb": load_file.stat().st_size / 2**20,
        "load_file_name": load_file.name,
    }
    port = args.port or free_port()
    log = work / "server.log"
    server = start_server(db, port, log)
    url = f"ws://127.0.0.1:{port}/_stcore/stream"
    try:
        print("warm-up", file=sys.stderr, flush=True)
        warm = asyncio.run(warm_up(url, args.timeout, query=args.explore_users > 0))
        setup["loadavg_before"] = tuple(round(x, 1) for x in os.getloadavg())
        tl = asyncio.run(timed_test(args, url, load_db, load_file, server.pid))
        alive = server.poll() is None
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
    expected = store_ratings + tl.load.rows_loaded
    load_problems = load_failures(tl.load, expected, args.separate_load_store)
    failed = report(args, setup, warm, tl, load_problems)
    logged = server_log_problems(log)
    print(f"\nServer log: {len(logged)} error or traceback lines{'' if alive else '; THE SERVER HAD EXITED'}.")
    for line in logged[:20]:
        print(f"    {line}")
    if logged or load_problems or failed:
        print(f"(server log and files kept in {work})")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed or load_problems or not alive else 0


if __name__ == "__main__":
    sys.exit(main())
