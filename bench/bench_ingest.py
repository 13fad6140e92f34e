"""Ingest benchmark: canonical Parquet and CSV into a fresh store, time and peak memory per run, each beside
DuckDB's own load of the same file measured in the same run.

    .venv/bin/python bench/bench_ingest.py --tasks 100000 1000000

Each measurement runs in its own process so that its peak RSS and CPU time (user + system, the whole
process) are its own; on a shared machine the CPU time varies less than the wall time. The reference is DuckDB alone:
`CREATE TABLE t AS SELECT * FROM read_csv(file)` (or read_parquet) into a new database file, no checks, no
transaction of ours; the ratio is Concord's figure over it. Data comes from bench/generate.py.
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
                  "cpu": sum(resource.getrusage(resource.RUSAGE_SELF)[:2]), "errors": r.errors[:2]}}))
"""

# DuckDB's own load of the same file: the reference each Concord figure is compared with.
REFERENCE = """
import json, resource, time
import duckdb
con = duckdb.connect({db!r})
t = time.perf_counter()
con.execute("CREATE TABLE t AS SELECT * FROM {reader}(?)", [{path!r}])
rows = con.execute("SELECT count(*) FROM t").fetchall()[0][0]
elapsed = time.perf_counter() - t
con.close()
print(json.dumps({{"rows": rows, "seconds": elapsed, "cpu": sum(resource.getrusage(resource.RUSAGE_SELF)[:2]),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def _run(template: str, **fields: str) -> dict:
    """Run one child process on a new database file; return the JSON it prints."""
    with tempfile.TemporaryDirectory() as d:
        code = template.format(db=os.path.join(d, "bench.duckdb"), **fields)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])


def measure(path: Path) -> dict:
    """Load one file into a new store with ingest_file in a child process; return its figures."""
    return _run(CHILD, root=str(ROOT), path=str(path))


def reference(path: Path, fmt: str) -> dict:
    """DuckDB's CREATE TABLE AS read_csv/read_parquet of the same file in a child process; its figures."""
    return _run(REFERENCE, reader="read_parquet" if fmt == "parquet" else "read_csv", path=str(path))


def main() -> None:
    """Generate the data if needed and print, per (size, format), Concord's figures, the reference and ratios."""
    import duckdb

    p = argparse.ArgumentParser()
    p.add_argument("--tasks", type=int, nargs="+", default=[100_000])
    args = p.parse_args()
    sys.path.insert(0, str(HERE))
    from generate import generate

    print(
        f"machine: {os.cpu_count()} cores, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB, "
        f"Python {sys.version.split()[0]}, DuckDB {duckdb.__version__}, load average {_load()} at the start"
    )
    for n in args.tasks:
        paths = {k: HERE / "data" / f"ratings_{n}.{k}" for k in ("parquet", "csv")}
        if not all(p.exists() for p in paths.values()):
            paths = generate(n, HERE / "data")
        for fmt, path in paths.items():
            ref = reference(path, fmt)
            r = measure(path)
            print(
                f"ingest {fmt:8s} {n:>9,} tasks {r['rows']:>12,} ratings  "
                f"{r['seconds']:6.1f} s (DuckDB {ref['seconds']:5.1f} s, x{r['seconds'] / ref['seconds']:.2f})  "
                f"peak {r['peak_mb']:6.0f} MB (DuckDB {ref['peak_mb']:5.0f} MB, x{r['peak_mb'] / ref['peak_mb']:.2f})  "
                f"cpu {r['cpu']:6.1f} s (DuckDB {ref['cpu']:5.1f} s, x{r['cpu'] / ref['cpu']:.2f})  "
                f"status {r['status']} quarantined {r['quarantined']} {r['errors']}"
            )
    print(f"load average {_load()} at the end")


def _load() -> str:
    """os.getloadavg() over 1, 5 and 15 minutes (others may be using the machine)."""
    return "(" + ", ".join(f"{x:.1f}" for x in os.getloadavg()) + ")"


if __name__ == "__main__":
    main()
