"""`datasets`: the real public datasets Concord reads, where each file is, and whether it is present and loaded."""

from __future__ import annotations

import argparse
import sys

from analytics import store
from analytics.cli.flags import add_engine
from analytics.cli.json_out import json_text


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `datasets` subcommand and its flags."""
    p = sub.add_parser("datasets", help="the real public datasets Concord reads, present and loaded")
    p.add_argument("--db", default=None, help="DuckDB store (default $CONCORD_DB or data/concord.duckdb)")
    p.add_argument("--json", action="store_true", help='print {"datasets": [{"name", "path", "format", "loaded"}]}')
    add_engine(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List the real public datasets Concord reads: where each file is, its format, whether it is on this
    machine and loaded in the store."""
    from analytics.cli.reading import open_for_reading
    from analytics.ingest import datasets

    con = None
    note = None
    if store.db_path(args.db).is_file():
        try:
            con = open_for_reading(args.db)
        except store.StoreError as e:
            note = f"loaded is unknown: {e}"
    try:
        rows = datasets.listing(con)
    finally:
        if con is not None:
            con.close()
    if note:
        print(note, file=sys.stderr)
        rows = [{**r, "loaded": None} for r in rows]
    if args.json:
        print(json_text({"datasets": rows}))
        return 0
    if not rows:
        print("No dataset adapter is installed.")
    for r in rows:
        state = "loaded" if r["loaded"] else "present" if r["present"] else "absent"
        print(f"{r['name']}: {state} ({r['format']}) {r['path']}")
    print(f"Real-data folder: {datasets.real_data_dir()} (set CONCORD_REAL_DATA to use another)")
    return 0
