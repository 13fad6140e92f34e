"""`demo`: write the bundled demo inputs, and with --load load them as the first start does."""

from __future__ import annotations

import argparse
from pathlib import Path

from analytics import store
from analytics.cli.flags import add_engine
from analytics.cli.ingest import here_or_hand_over
from analytics.cli.terminal import fail


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `demo` subcommand and its flags."""
    p = sub.add_parser("demo", help="write the demo inputs (data/demo/)")
    p.add_argument("--out", default=str(store.ROOT / "data" / "demo"))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--load", action="store_true", help="also load them into the store")
    p.add_argument("--db", default=None)
    add_engine(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the bundled demo inputs (and optionally load them)."""
    from demo import write_demo

    out = Path(args.out)
    written = write_demo(out, seed=args.seed)
    for path in written["files"]:
        print(path)
    if args.load:
        from analytics.cli import first_run, handover

        plan = first_run.demo_plan(out=out)  # article Likert files get the dates they were returned on
        files = [str(f.path) for f in plan]
        dates = [f.undated_at.isoformat() if f.undated_at else None for f in plan]
        load = argparse.Namespace(db=args.db, files=files, format="auto", role=None, scales=None)
        try:
            payload = here_or_hand_over(load, dates)
        except (store.StoreError, handover.HandoverError) as e:
            return fail(str(e))
        for r in payload["files"]:
            print(f"{r['file']}: {r['status']}, {r['rows_loaded']} loaded, {r['rows_quarantined']} quarantined")
    return 0
