"""The labelling plan's speed (issue 52: "the command, the page and its three downloads ... on a loaded store of 100k
tasks within 10 s").

    .venv/bin/python bench/bench_plan_speed.py [--tasks 100000] [--budget 500] [--db /tmp/stores/plan_100000.duckdb]

The store holds bench/data/ratings_<tasks>_full.parquet (bench/generate.py's full shape: 200 contractors, 10% of tasks
labelled by a researcher, 17 weeks), loaded once into --db and kept. Measured, each `--repeat` times:

- `command`: `python -m analytics plan --db DB --budget N --researchers r00,r01,r02 --json` as a new process (Python's
  start and imports included), wall time;
- `propose`: the analytics call alone (analytics.plan.propose.propose), in this process;
- `page, first visit`: AppTest of app.py switched to the Plan page with Streamlit's caches cleared;
- `page, date changed`: the rerun after the sidebar's date range starts later (every loader misses);
- `download: ...`: each of the page's three download buttons clicked (its file written as Streamlit writes it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

RESEARCHERS = ("r00", "r01", "r02")
CHANGED_FROM = dt.date(2026, 3, 2)  # the full shape's ratings run from 2026-01-05 for 17 weeks
TARGET_S = 10.0


def build(n_tasks: int, db: Path) -> None:
    """Load the benchmark's full-shape Parquet file into a new store at `db` (generating the data when missing)."""
    from generate import generate

    from analytics import store
    from analytics.ingest.load import ingest_file

    data = HERE / "data" / f"ratings_{n_tasks}_full.parquet"
    if not data.exists():
        generate(n_tasks, HERE / "data", "full")
    db.parent.mkdir(parents=True, exist_ok=True)
    building = db.with_name(db.name + ".building")
    building.unlink(missing_ok=True)
    con = store.open_store(building)
    t = time.perf_counter()
    r = ingest_file(con, data)
    con.close()
    building.rename(db)
    print(f"loaded {r.rows_loaded:,} ratings in {time.perf_counter() - t:.0f} s ({r.status})", flush=True)


def command(db: Path, budget: int) -> float:
    """Wall seconds of the plan command as a new process."""
    args = [sys.executable, "-m", "analytics", "plan", "--db", str(db), "--budget", str(budget)]
    t = time.perf_counter()
    done = subprocess.run([*args, "--researchers", ",".join(RESEARCHERS), "--json"], capture_output=True, cwd=ROOT)
    if done.returncode:
        raise RuntimeError(f"the plan command exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return time.perf_counter() - t


def propose_once(db: Path, budget: int) -> tuple[float, int, int]:
    """Seconds of propose() in this process, the labels proposed and the candidate tasks."""
    from analytics import store
    from analytics.core.filters import Filters
    from analytics.plan.propose import propose

    con = store.open_store(db)  # as the page's connection in this process is opened: DuckDB refuses a second mode
    try:
        t = time.perf_counter()
        plan = propose(con, Filters(), budget, RESEARCHERS)
        return time.perf_counter() - t, len(plan.labels), plan.n_candidates
    finally:
        con.close()


def page(db: Path, budget: int) -> dict[str, float]:
    """Seconds of the Plan page's first visit, of its rerun after a date change, and of each download's click."""
    import streamlit as st
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.testing.v1 import AppTest

    os.environ["CONCORD_DB"] = str(db)
    os.environ["CONCORD_DEMO_DIR"] = str(db.parent / "no-demo")
    managers: dict = {}
    original = MediaFileManager.add_deferred

    def record(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        file_id = original(self, *args, **kwargs)
        managers[file_id] = self
        return file_id

    MediaFileManager.add_deferred = record  # type: ignore[method-assign]
    try:
        st.cache_data.clear()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        at.switch_page("app_pages/plan.py")
        at.session_state["plan_budget"] = budget
        t = time.perf_counter()
        at.run()
        out = {"page, first visit": time.perf_counter() - t}
        if at.exception:
            raise RuntimeError(str(at.exception))
        for button in at.get("download_button"):
            deferred = button.proto.deferred_file_id
            t = time.perf_counter()
            managers[deferred].execute_deferred(deferred)
            out[f"download: {button.label}"] = time.perf_counter() - t
        lo, hi = at.sidebar.date_input(key="f_dates").value
        at.sidebar.date_input(key="f_dates").set_value((CHANGED_FROM, hi))
        t = time.perf_counter()
        at.run()
        out["page, date changed"] = time.perf_counter() - t
        if at.exception:
            raise RuntimeError(str(at.exception))
        return out
    finally:
        MediaFileManager.add_deferred = original  # type: ignore[method-assign]


def main() -> None:
    """Build the store when missing, measure, print a Markdown table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", type=int, default=100_000)
    p.add_argument("--budget", type=int, default=500)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--db", default=None, help="the store (built when missing; default /tmp/stores/plan_<tasks>.duckdb)")
    args = p.parse_args()
    db = Path(args.db or f"/tmp/stores/plan_{args.tasks}.duckdb")
    if not db.exists():
        build(args.tasks, db)
    runs: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        runs.setdefault("command", []).append(command(db, args.budget))
        seconds, labels, candidates = propose_once(db, args.budget)
        runs.setdefault("propose", []).append(seconds)
        for name, s in page(db, args.budget).items():
            runs.setdefault(name, []).append(s)
    print(f"{args.tasks:,} tasks, budget {args.budget} labels: {labels} proposed from {candidates:,} candidates")
    print("| step | median (s) | runs (s) | within 10 s |")
    print("|---|---:|---|---|")
    for name, xs in runs.items():
        med = statistics.median(xs)
        print(
            f"| {name} | {med:.2f} | {', '.join(f'{x:.2f}' for x in xs)} | {'yes' if max(xs) <= TARGET_S else 'NO'} |"
        )


if __name__ == "__main__":
    main()
