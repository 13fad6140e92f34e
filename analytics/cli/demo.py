"""`demo`: write the bundled demo inputs, and with --load load them as the first start does."""

from __future__ import annotations

import argparse
from pathlib import Path

from analytics import store
from analytics.cli import first_run
from analytics.cli.flags import add_engine, wait_seconds
from analytics.cli.ingest import here_or_hand_over
from analytics.cli.terminal import fail
from analytics.ingest.load import IngestResult


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `demo` subcommand and its flags."""
    p = sub.add_parser("demo", help="write the demo inputs (data/demo/)")
    p.add_argument("--out", default=str(store.ROOT / "data" / "demo"))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--scale", type=float, default=1.0, help="multiply the number of tasks (a small demo: 0.05)")
    p.add_argument("--load", action="store_true", help="also load them into the store")
    p.add_argument("--db", default=None)
    add_engine(p)
    p.set_defaults(func=run)


def load_lines(plan: list[first_run.DemoFile], payload: dict) -> list[str]:
    """One line per loaded demo file, as the first start says it (first_run.progress_text: the directory's rows
    are people, the other files' ratings), from the ingest payload's `files[]` in the plan's order."""
    keep = ("file", "format", "status", "rows_loaded", "rows_quarantined")
    return [
        first_run.progress_text(demo, IngestResult(**{k: r[k] for k in keep}))
        for demo, r in zip(plan, payload["files"], strict=True)
    ]


def run(args: argparse.Namespace) -> int:
    """Write the bundled demo inputs (and optionally load them)."""
    from demo import write_demo

    out = Path(args.out)
    written = write_demo(out, seed=args.seed, scale=args.scale)
    for path in written["files"]:
        print(path)
    if args.load:
        from analytics.cli import handover

        plan = first_run.demo_plan(out=out)  # article Likert files get the dates they were returned on
        files = [str(f.path) for f in plan]
        dates = [f.undated_at.isoformat() if f.undated_at else None for f in plan]
        load = argparse.Namespace(db=args.db, files=files, format="auto", role=None, scales=None)
        try:
            payload = here_or_hand_over(load, dates)
            print("\n".join(load_lines(plan, payload)))
            print(mark_guideline_changes(store.db_path(args.db), out))
        except (store.StoreError, handover.HandoverError) as e:
            return fail(str(e))
    return 0


def mark_guideline_changes(db: Path, out: Path) -> str:
    """Add the demo's guideline-change markers to the store it was loaded into (first_run.add_demo_markers); the
    line saying so. A dashboard holding the store is not written to: the line says to add them on its Overview."""
    from analytics.cli import reading

    con, _ = reading.open_or_find_writer(db, wait_seconds())
    if con is None:
        return "Guideline changes: not marked, the dashboard holds the store (add them on its Overview page)."
    try:
        added = first_run.add_demo_markers(con, out)
    finally:
        con.close()
    return f"Guideline changes: {added} marked." if added else "Guideline changes: already marked."
