"""Explore's hard limits measured: time to stop after the limit, peak memory, what the app process keeps.

    .venv/bin/python bench/bench_explore.py --db /tmp/explore.duckdb [--tasks 1000000] [--repeat 3]

The store is bench/data/ratings_<tasks>.parquet (bench/generate.py) inserted straight into a new store (the
data volume is what matters here, not the ingest path); an existing --db is reused. The app's connection holds
the store read-write, as ui/state.py does. Figures are medians of --repeat runs; the tables are printed as
Markdown for bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analytics import store  # noqa: E402
from analytics.explore import sql  # noqa: E402
from analytics.explore import worker as explore_worker  # noqa: E402
from analytics.store import keys  # noqa: E402

GB = 2**30
CASES = {
    "repeat() 1 GB result (the issue's query)": "SELECT repeat('x', 100000) FROM range(10001)",
    "repeat() 2 GB in the first chunk": "SELECT repeat('x', 1000000) FROM range(10001)",
    "list() of every task id (24M)": "SELECT list(task_id) FROM ratings",
    "levenshtein of long strings": (
        "SELECT levenshtein(repeat('a', 30000) || range::VARCHAR, repeat('b', 30000)) FROM range(1000)"
    ),
    "ordinary: ratings per rubric, dimension, role": (
        "SELECT rubric, dimension, role, count(*) AS n FROM ratings GROUP BY ALL ORDER BY ALL"
    ),
}
PAGE_QUERY = "SELECT dimension, value, count(*) FROM ratings GROUP BY ALL"  # a page loader's kind of pass


def rss(pid: int | None = None) -> int:
    return explore_worker._memory(pid or os.getpid())[0]


def build(db: Path, tasks: int) -> None:
    parquet = ROOT / "bench" / "data" / f"ratings_{tasks}.parquet"
    if not parquet.exists():
        sys.exit(f"{parquet} is missing: run bench/generate.py first")
    con = store.open_store(db)
    started = time.perf_counter()
    # The generator's columns; the others are NULL, as an INSERT BY NAME would leave them (Explore reads text).
    given = ("task_id", "rater_id", "role", "rubric", "dimension", "target", "value", "submitted_at")
    types = {"value_index": "INTEGER", "value_num": "DOUBLE", "duration_s": "DOUBLE", "ingest_id": "INTEGER"}
    columns = ", ".join(
        c if c in given else ("1" if c == "ingest_id" else f"NULL::{types.get(c, 'VARCHAR')}") + f" AS {c}"
        for c in keys.RATING_COLUMNS
    )
    keys.insert_ratings(con, f"(SELECT {columns} FROM read_parquet('{parquet}'))")
    store.bump_version(con)
    print(f"built {db} in {time.perf_counter() - started:.1f} s")
    con.close()


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", type=Path, default=Path("/tmp/explore.duckdb"))
    p.add_argument("--tasks", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--timeout", type=float, default=sql.TIMEOUT_S)
    args = p.parse_args()
    if not args.db.exists():
        build(args.db, args.tasks)
    con = store.open_store(args.db)  # read-write, as the app holds it
    n = con.execute("SELECT count(*) FROM ratings").fetchall()[0][0]
    print(f"store {args.db}: {n:,} ratings, {args.db.stat().st_size / 2**20:.0f} MB; {os.cpu_count()} cores")

    # 1. Snapshots: the file copy after a CHECKPOINT, and the COPY FROM DATABASE fallback.
    copies = []
    for _ in range(args.repeat):
        for old in args.db.parent.glob(f"{args.db.stem}.explore-*.duckdb"):
            old.unlink()
        started = time.perf_counter()
        explore_worker.Snapshots().get(con)
        copies.append(time.perf_counter() - started)
    cur = con.cursor()
    version = store.dataset_version(cur)
    target = args.db.with_name(f"{args.db.stem}.explore-fallback.duckdb")
    target.unlink(missing_ok=True)
    started = time.perf_counter()
    explore_worker._build_snapshot(cur, None, version, target)
    fallback = time.perf_counter() - started
    for leftover in args.db.parent.glob(f"{args.db.stem}.explore-fallback*"):
        leftover.unlink()
    print("\n| snapshot | time |\n|---|---|")
    print(f"| file copy after CHECKPOINT (median of {args.repeat}) | {median(copies):.2f} s |")
    print(f"| COPY FROM DATABASE (fallback, once) | {fallback:.1f} s |")

    # 2. Each case through the worker, with the default limits (time limit --timeout).
    limits = explore_worker.Limits(timeout_s=args.timeout)
    svc = explore_worker.ExploreService(limits)
    svc.warm_up()
    svc.run(con, "SELECT 1")  # makes the snapshot
    print(f"\nLimits: {explore_worker.describe(limits)}.\n")
    print(
        "| query | outcome | wall time | stopped after the limit | worker peak memory | app process RSS after - before |"
    )
    print("|---|---|---|---|---|---|")
    for name, query in CASES.items():
        walls, clocks, peaks, growth, outcome = [], [], [], [], ""
        for _ in range(args.repeat):
            time.sleep(2.0)  # let the spare worker finish its imports
            before = rss()
            started = time.perf_counter()
            result = svc.run(con, query)
            walls.append(time.perf_counter() - started)
            clocks.append(result.elapsed)
            peaks.append(result.peak_memory)
            growth.append(rss() - before)
            cut = f", cut at the {result.truncated_by} cap" if result.truncated_by else ""
            outcome = (result.error or f"{len(result.frame):,} rows{cut}")[:70]
        past = median(clocks) - limits.timeout_s  # from the worker's ready byte, as the limit counts
        print(
            f"| {name} | {outcome} | {median(walls):.2f} s | {f'{past:+.2f} s' if past > -1 else ''} | "
            f"{median(peaks) / GB:.2f} GB | {median(growth) / 2**20:+.0f} MB |"
        )

    # 3. The in-process interrupt on the same slow query, for comparison (one run, 1 s limit, 4 calls).
    cur = con.cursor()
    started = time.perf_counter()
    sql._execute(cur, CASES["levenshtein of long strings"].replace("range(1000)", "range(4)"), 100, 1.0)
    inline = time.perf_counter() - started
    cur.close()
    print(f"\nIn-process DuckDB interrupt, 1 s limit, 4 levenshtein calls: returned after {inline:.1f} s.")

    # 4. Concurrency: a page-like query on the app's connection, alone and while Explore is full.
    def page_time() -> float:
        times = []
        for _ in range(args.repeat):
            c = con.cursor()
            started = time.perf_counter()
            c.execute(PAGE_QUERY).fetchall()
            times.append(time.perf_counter() - started)
            c.close()
        return median(times)

    alone = page_time()
    slow = CASES["levenshtein of long strings"]
    busy = [threading.Thread(target=svc.run, args=(con, slow)) for _ in range(limits.max_concurrent + 2)]
    waited: list[str] = []
    for t in busy:
        t.start()
    time.sleep(3.0)
    with_explore = page_time()
    running = svc.running
    extra = svc.run(con, "SELECT 1 AS n", on_status=waited.append)
    for t in busy:
        t.join()
    print("\n| page-like query on the app connection | time |\n|---|---|")
    print(f"| alone (median of {args.repeat}) | {alone:.2f} s |")
    print(
        f"| while {len(busy)} Explore queries were asked for ({running} running, at most "
        f"{limits.max_concurrent}; each 1 thread at nice {explore_worker.NICE}) | {with_explore:.2f} s |"
    )
    print(f"\nA further query waited: {bool(waited)} ({extra.elapsed:.1f} s run after its wait).")
    svc.close()
    con.close()


if __name__ == "__main__":
    main()
