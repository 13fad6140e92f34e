"""Speed on the bundled demo (issue 50 item 9): every page's first visit and a sidebar filter change, the
Agreement page's "every contractor on every dimension", and `python -m analytics report --all`.

    .venv/bin/python bench/bench_demo.py [--store /tmp/demo.duckdb] [--repeat 3] [--pages Raters,Feedback]

The store is the demo as the first start loads it (seed 7, demo/), built into --store when missing. Each page is
measured in a child process of its own (a new interpreter: no module, Streamlit or DuckDB cache is warm), by
AppTest of app.py:

- `first visit`: the app has run once on the Overview (its sidebar cached, as it is when a user clicks through
  the navigation), then the `.run()` that opens the page; the Overview's is the app's first run itself, after the
  pages' libraries are imported as the dashboard's server imports them while it starts (ui/serve.py starting).
- `date change`: the rerun after moving the sidebar's date range start a week later (every page loader misses).
- the Agreement page's toggle "Every contractor on every dimension": the rerun after switching it on.

`report --all` is the whole process (`python -m analytics report --all --format md --out DIR --db STORE`), import
included, as a lead runs it. Target: 2 s per page step and 10 s for report --all on the 2-core machine kind.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

PAGES = {
    "Overview": "app_pages/overview.py",
    "Agreement": "app_pages/agreement.py",
    "Distributions": "app_pages/distributions.py",
    "Disagreements": "app_pages/disagreements.py",
    "Feedback": "app_pages/feedback.py",
    "Consistency": "app_pages/consistency.py",
    "Raters": "app_pages/raters.py",
    "Explore": "app_pages/explore.py",
    "Data": "app_pages/data.py",
}
PAGE_TARGET_S = 2.0
REPORT_TARGET_S = 10.0


def build_demo(path: Path) -> None:
    """The demo store as the first start loads it (tests/conftest.py's demo_store does the same)."""
    from analytics import store
    from analytics.cli.first_run import demo_plan
    from analytics.ingest.load import ingest_file
    from demo import write_demo

    inputs = path.parent / "demo-inputs"
    write_demo(inputs, seed=7)
    con = store.open_store(path)
    for f in demo_plan(out=inputs):
        ingest_file(con, f.path, undated_at=f.undated_at)
    con.close()


def timed_run(at: object, out: dict[str, float], step: str) -> None:
    """Wall and CPU seconds (this process's, every thread) of one AppTest `.run()` into out[step] and
    out[step + " cpu"]; raises when the page raised."""
    t, c = time.perf_counter(), time.process_time()
    at.run()  # type: ignore[attr-defined]
    out[step], out[f"{step} cpu"] = time.perf_counter() - t, time.process_time() - c
    if at.exception:  # type: ignore[attr-defined]
        raise RuntimeError(str(at.exception))  # type: ignore[attr-defined]


def measure_page(name: str) -> dict[str, float]:
    """In this (fresh) process: the page's first visit, its rerun after a date change, and Agreement's toggle."""
    from streamlit.testing.v1 import AppTest

    from ui.serve import starting

    starting().join()  # as the server does while it starts (scripts/dashboard.sh runs it through ui.serve)
    one_script_cache()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    out: dict[str, float] = {}
    if name != "Overview":
        timed_run(at, {}, "")
        at.switch_page(PAGES[name])
    timed_run(at, out, "first visit")
    dates = at.sidebar.date_input(key="f_dates")
    lo, hi = dates.value
    dates.set_value((lo + dt.timedelta(days=7), hi))
    timed_run(at, out, "date change")
    if name == "Agreement":
        at.toggle(key="agr_all_dimensions").set_value(True)
        timed_run(at, out, "every contractor on every dimension")
    return out


def one_script_cache() -> None:
    """Compile each script once per process, as the dashboard's server does (streamlit.runtime.Runtime keeps one
    ScriptCache): AppTest makes a new one on every run, so each run parsed and compiled app.py and the page again
    (about 0.06 s of every Feedback run) where the server compiles a page on its first visit alone."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    shared = ScriptCache()
    app_test.ScriptCache = lambda: shared  # type: ignore[attr-defined,assignment]
    local_script_runner.ScriptCache = lambda: shared  # type: ignore[attr-defined,assignment]


def in_child(name: str, store: Path) -> dict[str, float]:
    """measure_page(name) in a new interpreter on `store`."""
    env = {**as_a_user(), "CONCORD_DB": str(store), "CONCORD_DEMO_DIR": str(store.parent / "no-demo")}
    done = subprocess.run(
        [sys.executable, __file__, "--child", name, "--store", str(store)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"{name}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def as_a_user() -> dict[str, str]:
    """This environment as a user's Python has it: Python keeps compiled modules (__pycache__) unless told not to, and
    a sandbox that sets PYTHONDONTWRITEBYTECODE makes every command compile the project's modules again (about 0.4 s
    of report --all)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def report_all(store: Path) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of the whole `python -m analytics report --all --format md` process on
    `store`."""
    with tempfile.TemporaryDirectory() as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "analytics", "report", "--all", "--format", "md", "--out", out, "--db", str(store)],
            cwd=ROOT,
            env=as_a_user(),
            capture_output=True,
            text=True,
            check=False,
        )
        took = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode:
            raise RuntimeError(f"report --all: {done.stderr[-2000:]}")
        return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    """Build the demo store when missing, then print each page's steps and report --all (medians of --repeat)."""
    p = argparse.ArgumentParser()
    p.add_argument("--store", default="/tmp/concord_bench_demo/demo.duckdb")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--pages", default=",".join(PAGES), help="comma-separated page names")
    p.add_argument("--no-report", action="store_true", help="skip report --all")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    store = Path(args.store)
    if args.child:
        print(json.dumps(measure_page(args.child)))
        return
    if not store.exists():
        store.parent.mkdir(parents=True, exist_ok=True)
        build_demo(store)
    sys.path.insert(0, str(HERE))
    from bench_pages import machine

    print(machine())
    print(f"load average before: {os.getloadavg()}")
    for name in args.pages.split(","):
        runs = [in_child(name, store) for _ in range(args.repeat)]
        for step in (s for s in runs[0] if not s.endswith(" cpu")):
            values = [r[step] for r in runs]
            cpu = statistics.median(r[f"{step} cpu"] for r in runs)
            mark = "" if statistics.median(values) <= PAGE_TARGET_S else "  OVER 2 s"
            print(
                f"  {name}, {step}: {statistics.median(values):.2f} s (runs {', '.join(f'{v:.2f}' for v in values)}; "
                f"cpu {cpu:.2f} s){mark}",
                flush=True,
            )
    if not args.no_report:
        runs = [report_all(store) for _ in range(args.repeat)]
        values = [w for w, _ in runs]
        mark = "" if statistics.median(values) <= REPORT_TARGET_S else "  OVER 10 s"
        print(
            f"  report --all: {statistics.median(values):.2f} s (runs {', '.join(f'{v:.2f}' for v in values)}; "
            f"cpu {statistics.median(c for _, c in runs):.2f} s){mark}"
        )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
