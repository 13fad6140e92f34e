"""Follow-ups at scale (issue 53): how long `followup` takes, and how often a steady contractor is credited.

    .venv/bin/python bench/bench_followup.py [--tasks 1000000] [--db /tmp/stores/run_all_1000000_full.duckdb]
                                             [--events 200] [--repeat 3]

--db is a store of bench/generate.py's full shape (200 contractors, 17 weeks; built from its Parquet file as
bench_plan_speed.py builds one when missing). It is copied to a scratch file, and a feedback log is loaded there:
--events rows, contractors in turn, sent on days spread over the project's middle weeks. Nothing in the generated
ratings reacts to feedback, so every `improved` or `worse` among the events whose windows hold enough tasks is a
false credit (the interval is 95%, two-sided: about 2.5% each way expected). Measured:

- `followups`: analytics.feedback.followup.followups on the whole store, in this process (median of --repeat);
- `one contractor`: the same for one contractor (the Feedback card's);
- `command`: `python -m analytics followup --db DB --json` as a new process, wall time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))


def feedback_log(contractors: list[str], n: int, first: dt.date, days: int, path: Path) -> Path:
    """A feedback log of `n` events, contractors in turn, one a day from `first` over `days` days."""
    rows = ["rater_id,sent_at,rubric,note"]
    for i in range(n):
        when = first + dt.timedelta(days=i % days)
        rows.append(f"{contractors[i % len(contractors)]},{when.isoformat()}T10:00:00Z,,bench")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", type=int, default=1_000_000)
    p.add_argument("--db", type=Path, default=None)
    p.add_argument("--events", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()

    from bench_plan_speed import build

    from analytics import store
    from analytics.feedback import followup as fu
    from analytics.ingest.load import ingest_file

    source = args.db or Path(f"/tmp/stores/followup_{args.tasks}.duckdb")
    if not source.exists():
        build(args.tasks, source)
    scratch = source.with_name(source.stem + ".followup.duckdb")
    shutil.copy(source, scratch)
    con = store.open_store(scratch)
    try:
        first, last = con.execute("SELECT min(submitted_at), max(submitted_at) FROM rater_tasks").fetchall()[0]
        contractors = [
            r
            for (r,) in con.execute(
                "SELECT DISTINCT rater_id FROM rater_tasks WHERE role = 'contractor' ORDER BY 1"
            ).fetchall()
        ]
        start = first.date() + dt.timedelta(days=fu.WINDOW_DAYS)
        span = max(1, (last.date() - dt.timedelta(days=fu.WINDOW_DAYS) - start).days)
        log = feedback_log(contractors, args.events, start, span, scratch.with_suffix(".log.csv"))
        print(f"{ingest_file(con, log).rows_loaded} feedback events over {span} days from {start}", flush=True)
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            found = fu.followups(con)
            times.append(time.perf_counter() - t)
        t = time.perf_counter()
        fu.followups(con, rater=contractors[0])
        one = time.perf_counter() - t
    finally:
        con.close()
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "analytics", "followup", "--db", str(scratch), "--json"], capture_output=True, cwd=ROOT
    )
    command = time.perf_counter() - t
    if done.returncode:
        raise RuntimeError(done.stderr.decode()[-2000:])
    judged = found[(found["measure"] == "agreement") & (found["verdict"] != "too_early")]
    credited = judged["verdict"].isin(["improved", "worse"])
    print(f"followups: {statistics.median(times):.2f} s ({len(found)} follow-ups)")
    print(f"one contractor: {one:.2f} s")
    print(f"command: {command:.2f} s")
    print(
        f"verdicts: {judged['verdict'].value_counts().to_dict()}; too early: {int((found['verdict'] == 'too_early').sum())}"
    )
    print(f"false credits on a team that never reacts to feedback: {int(credited.sum())} of {len(judged)} "
          f"({credited.mean():.1%}; 5% expected)")  # fmt: skip
    scratch.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
