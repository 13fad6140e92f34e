"""Ingest benchmark: canonical Parquet and CSV into a fresh store, time and peak memory per run.

    .venv/bin/python bench/bench_ingest.py --tasks 100000 1000000

Each measurement runs in its own process so that its peak RSS is its own. Data comes from bench/generate.py.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from analytics import store
from analytics.ingest.load import ingest_file
con = store.open_store({db!r})
t = time.perf_counter()
r = ingest_file(con, {path!r})
elapsed = time.perf_counter() - t
con.close()
print(json.dumps({{"status": r.status, "rows": r.rows_loaded, "quarantined": r.rows_quarantined,
                  "seconds": elapsed, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "errors": r.errors[:2]}}))
"""


def measure(path: Path) -> dict:
    """Load one file into a new store in a child process; return its figures."""
    with tempfile.TemporaryDirectory() as d:
        code = CHILD.format(root=str(ROOT), db=os.path.join(d, "bench.duckdb"), path=str(path))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    """Generate the data if needed and print one line per (size, format)."""
    p = argparse.ArgumentParser()
    p.add_argument("--tasks", type=int, nargs="+", default=[100_000])
    args = p.parse_args()
    sys.path.insert(0, str(HERE))
    from generate import generate

    print(
        f"machine: {os.cpu_count()} cores, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB"
    )
    for n in args.tasks:
        paths = {k: HERE / "data" / f"ratings_{n}.{k}" for k in ("parquet", "csv")}
        if not all(p.exists() for p in paths.values()):
            paths = generate(n, HERE / "data")
        for fmt, path in paths.items():
            r = measure(path)
            print(
                f"ingest {fmt:8s} {n:>9,} tasks {r['rows']:>12,} ratings  {r['seconds']:6.1f} s  "
                f"peak {r['peak_mb']:7.0f} MB  status {r['status']} quarantined {r['quarantined']} {r['errors']}"
            )


if __name__ == "__main__":
    main()
