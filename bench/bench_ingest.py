"""Ingest benchmark: canonical Parquet and CSV into a fresh store, time and peak memory per run, each beside
DuckDB's own load of the same file measured in the same run.

    .venv/bin/python bench/bench_ingest.py --tasks 100000 1000000
    .venv/bin/python bench/bench_ingest.py --hostile [--label-studio-mb 10]

--hostile loads files of at most 1 MB shaped to be expensive (issue 49 item 3: many fields, one huge line, many
tiny rows, deep JSON, many columns, a scales file at its limits, a Label Studio export) and prints, per shape, the
time spent reading and checking the file (outside the write lock), the time under the write lock (insert and
refresh), the process's CPU time for the load, and the memory the load added to the process (its peak RSS,
VmHWM reset just before the load, less the RSS in use then).

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


# One hostile file loaded in a fresh store: the time outside and inside the write lock, and the memory added.
HOSTILE = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from contextlib import contextmanager
from analytics import store
from analytics.ingest.load import ingest_file
from analytics.store import tx
con = store.open_store({db!r})
locked = [0.0]
plain_write = tx.write

@contextmanager
def timed_write(c):
    t = time.perf_counter()
    with plain_write(c) as w:
        yield w
    locked[0] += time.perf_counter() - t

tx.write = timed_write
def status_mb(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":")) / 1024

with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) starts again from what is in use now: imports and migrations are not the load's
before = status_mb("VmRSS")
cpu = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
t = time.perf_counter()
r = ingest_file(con, {path!r}, scales={scales!r} or None)
elapsed = time.perf_counter() - t
con.close()
print(json.dumps({{"status": r.status, "rows": r.rows_loaded, "quarantined": r.rows_quarantined, "read": r.rows_read,
                  "seconds": elapsed, "locked": locked[0], "errors": [e[:150] for e in r.errors[:1]],
                  "cpu": sum(resource.getrusage(resource.RUSAGE_SELF)[:2]) - cpu,
                  "added_mb": status_mb("VmHWM") - before}}))
"""

MB = 2**20
CSV_HEAD = "task_id,rater_id,dimension,value,comment\n"


def _fill(head: str, unit: str, size: int = MB) -> bytes:
    """`head` then `unit` repeated up to `size` bytes."""
    return (head + unit * ((size - len(head)) // len(unit))).encode()


def _label_studio(size: int) -> bytes:
    """A Label Studio JSON export of about `size` bytes: tasks with two annotators' choices and a text."""
    tasks, n = [], 0
    while n < size:
        i = len(tasks)
        anns = [
            {"id": 2 * i + k, "completed_by": k + 1, "lead_time": 12.5, "created_at": "2026-03-01T10:00:00Z",
             "result": [{"from_name": "quality", "to_name": "text", "type": "choices",
                         "value": {"choices": ["Good" if (i + k) % 3 else "Bad"]}}]}
            for k in range(2)
        ]  # fmt: skip
        tasks.append({"id": i, "data": {"text": f"answer {i} " * 8}, "annotations": anns})
        n += len(json.dumps(tasks[-1])) + 2
    return json.dumps(tasks).encode()


def _scales_file() -> bytes:
    """A scales file at its limits: MAX_SCALE_ENTRIES entries whose levels fill 1 MB."""
    sys.path.insert(0, str(ROOT))
    from analytics.ingest.scales_file import MAX_LEVELS, MAX_SCALE_ENTRIES

    per = min(MAX_LEVELS, (MB - 1000) // MAX_SCALE_ENTRIES // 12)
    entries = [
        {"rubric": "bench", "dimension": f"d{k}", "level": "nominal", "levels": [f"L{j:05d}" for j in range(per)]}
        for k in range(MAX_SCALE_ENTRIES)
    ]
    return json.dumps({"scales": entries}).encode()


def hostile_shapes() -> dict[str, tuple[str, bytes]]:
    """name -> (file name, bytes): files of at most 1 MB shaped to cost the most per byte."""
    wide_header = "task_id,rater_id,dimension,value,comment," + ",".join(f"c{i}" for i in range(995)) + "\n"
    many_columns = "t{i},r1,d,1,x," + ",".join(["y"] * 995) + "\n"
    return {
        "one row of 500,000 fields": ("fields.csv", _fill(CSV_HEAD + "t1,r1,d,1,", "x,")),
        "rows of 6,000 fields (46.7 s on main)": ("fields6k.csv", _fill(CSV_HEAD, "t1,r1,d,1," + "x," * 5996 + "\n")),
        "one 1 MB line (one field)": ("line.csv", _fill(CSV_HEAD + "t1,r1,d,1,", "c")),
        "81,500 tiny valid rows": (
            "tiny.csv",
            (CSV_HEAD + "".join(f"{i},r,d,1,\n" for i in range(90_000))).encode()[:MB].rsplit(b"\n", 1)[0] + b"\n",
        ),
        "1,000-column header, 500,000 one-field rows": ("short.csv", _fill(wide_header, "x\n")),
        "1,000 columns, 500 full rows": (
            "columns.csv",
            (wide_header + "".join(many_columns.format(i=i) for i in range(500))).encode()[:MB],
        ),
        "an unclosed quote at line 2": ("quote.csv", _fill(CSV_HEAD + 't1,"r1,d,1,x\n', "t2,r1,d,1,x\n")),
        "350,000 empty JSONL objects": ("empty.jsonl", _fill("", "{}\n")),
        "JSON nested 524,288 deep": ("deep.json", b"[" * (MB // 2) + b"]" * (MB // 2)),
        "JSONL lines nested 300 deep": ("deep.jsonl", _fill("", "[" * 300 + "]" * 300 + "\n")),
        "one JSON object of 60,000 keys": (
            "keys.jsonl",
            (
                '{"task_id": "t", "rater_id": "r", "dimension": "d", "value": 1, '
                + ", ".join(f'"k{i}": {i}' for i in range(60_000))
                + "}\n"
            ).encode(),
        ),  # fmt: skip
        "Label Studio export, 1 MB": ("project.json", _label_studio(MB - 600)),
    }


def hostile(label_studio_mb: list[int]) -> None:
    """Load each hostile shape in a fresh store and print its figures (and a scales file at its limits)."""
    with tempfile.TemporaryDirectory() as d:
        shapes = hostile_shapes()
        for mb in label_studio_mb:
            shapes[f"Label Studio export, {mb} MB"] = ("big-project.json", _label_studio(mb * MB))
        scales = Path(d) / "scales.json"
        scales.write_bytes(_scales_file())
        runs = [(name, file_name, data, "") for name, (file_name, data) in shapes.items()]
        runs.append(
            (f"scales file at its limits ({scales.stat().st_size:,} bytes)", "one.csv", b"t,r,d,1\n", str(scales))
        )
        for name, file_name, data, scales_path in runs:
            path = Path(d) / file_name
            path.write_bytes(data if not file_name == "one.csv" else CSV_HEAD.encode() + b"t1,r1,d0,L00001,\n")
            r = _run(HOSTILE, root=str(ROOT), path=str(path), scales=scales_path)
            print(
                f"{name:45s} {len(data) if not scales_path else scales.stat().st_size:>9,} B  "
                f"read+check {r['seconds'] - r['locked']:5.2f} s  locked {r['locked']:5.2f} s  cpu {r['cpu']:5.2f} s  "
                f"added {r['added_mb']:6.0f} MB  {r['status']}: {r['rows']:,} loaded, {r['quarantined']:,} quarantined "
                f"of {r['read']:,}  {r['errors']}"
            )


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
    p.add_argument("--hostile", action="store_true", help="files of at most 1 MB shaped to be expensive")
    p.add_argument("--label-studio-mb", type=int, nargs="*", default=[], help="with --hostile: larger exports")
    args = p.parse_args()
    if args.hostile:
        print(_machine(duckdb.__version__))
        hostile(args.label_studio_mb)
        print(f"load average {_load()} at the end")
        return
    sys.path.insert(0, str(HERE))
    from generate import generate

    print(_machine(duckdb.__version__))
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


def _machine(duckdb_version: str) -> str:
    """The machine, the versions and the load at the start."""
    return (
        f"machine: {os.cpu_count()} cores, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB, "
        f"Python {sys.version.split()[0]}, DuckDB {duckdb_version}, load average {_load()} at the start"
    )


def _load() -> str:
    """os.getloadavg() over 1, 5 and 15 minutes (others may be using the machine)."""
    return "(" + ", ".join(f"{x:.1f}" for x in os.getloadavg()) + ")"


if __name__ == "__main__":
    main()
