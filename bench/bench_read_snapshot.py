"""What a read command pays while the dashboard holds the store: the snapshot the dashboard writes for it
(analytics/cli/snapshot.py), by file copy and by COPY FROM DATABASE, and a whole command free and held.

Usage: .venv/bin/python bench/bench_read_snapshot.py --db STORE [--repeat 3] [--command effects]
(a demo store: .venv/bin/python -m analytics demo --out /tmp/demo --load --db /tmp/demo.duckdb). The store is
copied to a temp folder first; nothing is written to STORE. Prints one Markdown table."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analytics import store  # noqa: E402
from analytics.cli import handover, snapshot  # noqa: E402

HOLDER = (
    "import sys; from analytics import store; from analytics.cli import handover; "
    "con = store.open_store(sys.argv[1]); handover.serve(con.cursor, sys.argv[1]); "
    "print('ready', flush=True); sys.stdin.readline()"
)


def timed(run: Callable[[], object], repeat: int) -> list[float]:
    """Wall times of `repeat` runs."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return times


def snapshot_times(db: Path, repeat: int) -> tuple[list[float], list[float]]:
    """Seconds to write a snapshot in the dashboard's process: the file copy, then COPY FROM DATABASE."""
    con = store.open_store(db)
    server = handover.InboxServer(con.cursor, db)
    server.inbox.make()
    folder = server.inbox.snapshots
    ids = iter(range(10_000))

    def by_file() -> None:
        result = server.answer({"id": f"f{next(ids)}", "kind": "snapshot"})
        assert "snapshot" in result, result
        (folder / result["snapshot"]).unlink()

    def by_database() -> None:
        target = folder / f"d{next(ids)}.duckdb"
        with store.WRITE_LOCK:
            snapshot._copy_database(con.cursor(), folder, target)
        target.unlink()

    try:
        return timed(by_file, repeat), timed(by_database, repeat)
    finally:
        con.close()


def command_times(db: Path, command: str, repeat: int) -> tuple[list[float], list[float]]:
    """Seconds of `python -m analytics COMMAND --db STORE --json` on the free store, then while held."""
    env = {**os.environ, "CONCORD_DB": str(db)}
    args = [sys.executable, "-m", "analytics", command, "--db", str(db), "--json"]

    def run() -> None:
        subprocess.run(args, cwd=ROOT, env=env, check=True, capture_output=True)

    free = timed(run, repeat)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"ready"
        held = timed(run, repeat)
    finally:
        holder.communicate(b"\n", timeout=60)
    return free, held


def cell(times: list[float]) -> str:
    """The median and the runs, as the bench tables print them."""
    return f"{statistics.median(times):.2f} s ({', '.join(f'{t:.2f}' for t in times)})"


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--command", default="effects")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "store.duckdb"
        shutil.copy(args.db, db)
        size = db.stat().st_size
        by_file, by_database = snapshot_times(db, args.repeat)
        free, held = command_times(db, args.command, args.repeat)
    print(f"Store: {size / 1e6:.1f} MB. Command: `python -m analytics {args.command} --db STORE --json`.\n")
    print("| measurement | median (runs) |\n|---|---|")
    print(f"| snapshot by CHECKPOINT and file copy (in the dashboard, under the write lock) | {cell(by_file)} |")
    print(f"| snapshot by COPY FROM DATABASE (the fallback, under the write lock) | {cell(by_database)} |")
    print(f"| whole command, store free | {cell(free)} |")
    print(f"| whole command, store held by a dashboard (snapshot) | {cell(held)} |")


if __name__ == "__main__":
    main()
