"""Benchmark: the rubric rules (analytics/consistency) on the demo scaled up, each rule's check timed.

    .venv/bin/python bench/bench_consistency.py [--scale 1.0] [--seed 7]

Writes the demo at `--scale` (demo/), loads it into an in-memory store (rules are checked at ingest),
then times each rule's check on the whole store, a full re-check, and the rates a page reads. Prints one line
per figure; record them in bench/RESULTS.md with the command and the machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analytics import store  # noqa: E402
from analytics.cli.first_run import demo_plan  # noqa: E402
from analytics.consistency import catalogue, rates, results  # noqa: E402
from analytics.ingest.load import ingest_file  # noqa: E402
from demo import write_demo  # noqa: E402


def main() -> None:
    """Run the benchmark and print its figures."""
    p = argparse.ArgumentParser()
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        write_demo(Path(d), seed=args.seed, scale=args.scale)
        con = store.open_store(":memory:")
        t = time.perf_counter()
        for demo in demo_plan(args.seed, Path(d)):
            ingest_file(con, demo.path, undated_at=demo.undated_at)
        print(f"load (rules checked at ingest): {time.perf_counter() - t:.2f} s")
        n = con.execute("SELECT count(*) FROM submissions").fetchall()[0][0]
        print(f"submissions: {n:,}")
        for r in catalogue.rules():
            t = time.perf_counter()
            found = r.check(con)
            print(f"{r.rule_id}: {time.perf_counter() - t:.3f} s, {len(found):,} checked")
        t = time.perf_counter()
        results.recheck(con)
        print(f"full re-check, kept: {time.perf_counter() - t:.2f} s")
        t = time.perf_counter()
        rates.consistency(con)
        print(f"rates, violations and weekly share (the page's one call): {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
