"""The agreement on Spark local mode beside DuckDB, on the same canonical Parquet file (issue #16).

    .venv/bin/python bench/bench_spark.py --tasks 1000000      # bench/data/ratings_1000000_full.parquet
    .venv/bin/python bench/bench_spark.py --tasks 20000 --n-boot 0

Each engine in a child process of its own (its peak RSS is its own; Spark's JVM is a child of that child, so its
memory shows in the driver's figures only through what comes back). For each: the time to read the file and keep
the ratings (DuckDB: `ingest_file` into an in-memory store; Spark: `engine.open_files`), the time of the agreement
(`contract_payload`, split into the queries on the ratings and the Python that turns their results into figures),
and the bytes that came back from the queries on the ratings (their rows pickled: what crosses to the driver).
The figures must be equal; the run says so.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analytics.agreement.engine import DataFrameEngine  # noqa: E402


def child(engine_name: str, path: str, n_boot: int, master: str) -> dict:
    """One engine's figures on the file (run in its own process)."""
    from analytics import agreement, store
    from analytics.core.filters import Filters

    t0 = time.perf_counter()
    if engine_name == "duckdb":
        from analytics.ingest.load import ingest_file

        con = store.open_store(":memory:")
        ingest_file(con, path)
        started = 0.0
    else:
        from analytics.engines.spark import engine, session

        spark = session.start(master)
        started = time.perf_counter() - t0
        con, _ = engine.open_files(spark, [path])
    loaded = time.perf_counter() - t0 - started
    timed = Timed(con)
    t1 = time.perf_counter()
    payload = agreement.contract_payload(
        timed, agreement.AgreementSpec(coarse=False, level=None, n_boot=n_boot, seed=0, filters=Filters())
    )
    total = time.perf_counter() - t1
    payload.pop("stamp")
    return {
        "engine": engine_name,
        "start_s": round(started, 2),
        "load_s": round(loaded, 2),
        "agreement_s": round(total, 2),
        "queries_s": round(timed.seconds, 2),
        "queries": timed.count,
        "bytes_back": timed.bytes,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "payload": payload,
    }


class Timed(DataFrameEngine):
    """A connection that times the queries on the ratings and weighs their results (an Engine that lists every
    pairing's task signatures, as the Spark engine does)."""

    def __init__(self, con) -> None:
        self.con, self.seconds, self.count, self.bytes = con, 0.0, 0, 0

    def execute(self, sql, params=None):
        from analytics.engines.spark.engine import Fetched, reads_spark

        t = time.perf_counter()
        result = self.con.execute(sql, params) if params is not None else self.con.execute(sql)
        if not reads_spark(sql):
            return result
        frame = result.df()
        self.seconds += time.perf_counter() - t
        self.count += 1
        self.bytes += len(pickle.dumps(frame.to_numpy(dtype=object).tolist()))
        return Fetched(frame)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", type=int, default=1_000_000)
    p.add_argument("--shape", default="full")
    p.add_argument("--n-boot", type=int, default=0, help="resamples (the Python part, the same on both engines)")
    p.add_argument("--master", default="local[*]")
    p.add_argument("--child", nargs=2, metavar=("ENGINE", "FILE"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], args.n_boot, args.master)))
        return 0
    path = ROOT / "bench" / "data" / f"ratings_{args.tasks}_{args.shape}.parquet"
    if not path.exists():
        gen = [sys.executable, str(ROOT / "bench" / "generate.py"), "--tasks", str(args.tasks), "--shape", args.shape]
        subprocess.run(gen, check=True)
    results = {}
    for name in ("duckdb", "spark"):
        cmd = [
            sys.executable,
            __file__,
            "--child",
            name,
            str(path),
            "--n-boot",
            str(args.n_boot),
            "--master",
            args.master,
        ]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env={**os.environ}).stdout
        results[name] = json.loads(out.strip().splitlines()[-1])
    from analytics.agreement.contract import differences

    same = not differences(results["duckdb"].pop("payload"), results["spark"].pop("payload"))
    print(f"file: {path.name} ({path.stat().st_size / 2**20:.0f} MiB), n_boot {args.n_boot}, master {args.master}")
    for r in results.values():
        print(
            f"{r['engine']:>6}: start {r['start_s']} s, read and keep {r['load_s']} s, agreement {r['agreement_s']} s "
            f"({r['queries']} queries on the ratings {r['queries_s']} s, {r['bytes_back'] / 1024:.0f} KiB back), "
            f"peak RSS {r['peak_rss_mb']} MB"
        )
    print(f"figures equal: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
