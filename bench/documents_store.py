"""A store of N tasks in the shape of the rubric documents, for the Consistency page at scale (bench/run_all.py).

    .venv/bin/python bench/documents_store.py --tasks 1000000 --db /tmp/stores/documents_1000000.duckdb

bench/generate.py writes the canonical long format, on which no rubric rule applies. This store is the demo
instead (`python -m analytics demo --load`: the four rubric formats from their documents, with the rule-breaking
contractors the demo plants), copied until it holds N tasks: copy k of a task, its items, submissions and
ratings gets the ids `<id>~k`, the same raters, dates and values, as if the same project had run N / 736 times over.
Every kept table and every rule result is then computed again from the ratings stored, as a load would.

At a million tasks that is 117M ratings and 6.2M submissions (the demo's 117 ratings a task: two options of many
dimensions, several raters each), five times bench/generate.py's full shape; run_all measures this store's own
one-pass floor beside the page.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEMO_SEED = 7
# The date a page's date range starts at after the benchmark's filter change: a week into the demo's ratings
# (demo/schedule.py START, 2026-03-02; a few contractors start earlier).
CHANGED_FROM = dt.date(2026, 3, 9)
BATCH_RATINGS = 10_000_000  # ratings copied per statement: bounds the memory of a copy


def build(n_tasks: int, db: Path, say=print) -> dict:
    """Write the store at `db` (replacing one there) and return its counts. It is built under another name and
    renamed when complete, so that an interrupted build is never taken for a store (run_all reuses one that
    exists)."""
    from analytics import store
    from analytics.cli.first_run import demo_plan
    from analytics.consistency import results
    from analytics.ingest.load import ingest_file
    from analytics.store import keys, tx
    from analytics.store.derived import refresh
    from demo import write_demo

    building = db.with_name(db.name + ".building")
    for p in (db, building, building.with_name(building.name + ".wal")):
        p.unlink(missing_ok=True)
    t0 = time.perf_counter()
    con = store.open_store(building)
    with tempfile.TemporaryDirectory() as d:
        write_demo(Path(d), seed=DEMO_SEED)
        for demo in demo_plan(DEMO_SEED, Path(d)):
            ingest_file(con, demo.path, undated_at=demo.undated_at)
    demo_tasks = con.execute("SELECT count(DISTINCT task_id) FROM ratings").fetchall()[0][0]
    per_task = con.execute("SELECT count(*) FROM ratings").fetchall()[0][0] / demo_tasks
    copies = max(1, round(n_tasks / demo_tasks))
    say(f"demo loaded: {demo_tasks} tasks; {copies - 1} copies to make ({time.perf_counter() - t0:.0f} s)")
    with tx.write(con):
        for table in ("ratings", "submissions", "tasks", "task_items"):
            con.execute(f"CREATE TEMP TABLE original_{table} AS SELECT * FROM {table}")
        step = max(1, int(BATCH_RATINGS / per_task / demo_tasks))
        for lo in range(1, copies, step):
            bounds = {"lo": lo, "hi": min(copies, lo + step)}
            copy = "range($lo, $hi) AS c(k)"
            renamed = "task_id || '~' || k AS task_id"
            for table, more in (
                ("submissions", ", submission_id || '~' || k AS submission_id"),
                ("tasks", ""),
                ("task_items", ""),
            ):
                con.execute(
                    f"INSERT INTO {table} SELECT o.* REPLACE ({renamed}{more}) FROM original_{table} o, {copy}", bounds
                )
            keys.insert_ratings(
                con,
                f"""(SELECT o.* EXCLUDE (task_key) REPLACE ({renamed}, submission_id || '~' || k AS submission_id)
                     FROM original_ratings o, {copy})""",
                bounds,
                given=("rater_key", "dim_key", "target_key"),
            )
            say(f"  copies {lo}-{bounds['hi'] - 1} ({time.perf_counter() - t0:.0f} s)")
        loads = [i for (i,) in con.execute("SELECT DISTINCT ingest_id FROM ratings ORDER BY 1").fetchall()]
        refresh.after_renames(con, loads)  # every kept table of every load, from the ratings stored now
        say(f"kept tables ({time.perf_counter() - t0:.0f} s)")
        results.refresh(con)
        store.bump_version(con)
    counts = {
        table: con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
        for table in ("ratings", "submissions", "rule_results")
    }
    counts["tasks"] = con.execute("SELECT count(*) FROM task_keys").fetchall()[0][0]
    con.close()
    building.rename(db)
    say(f"rule results; done in {time.perf_counter() - t0:.0f} s: {counts}")
    return counts


def main() -> None:
    """Build the store the options name."""
    p = argparse.ArgumentParser()
    p.add_argument("--tasks", type=int, default=1_000_000)
    p.add_argument("--db", type=Path, required=True)
    args = p.parse_args()
    build(args.tasks, args.db)


if __name__ == "__main__":
    main()
