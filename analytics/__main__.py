"""The command line: python -m analytics {ingest,demo,agreement,...} (contract in ../shared/DESIGN.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from analytics import store
from analytics.ingest import FORMATS


def _fail(message: str) -> int:
    print(message, file=sys.stderr)
    return 2


def cmd_ingest(args: argparse.Namespace) -> int:
    """Load files into the store and report one result per file."""
    from analytics.ingest.load import ingest_file

    missing = [f for f in args.files if not Path(f).is_file()]
    if missing:
        return _fail(f"no such file: {missing[0]}")
    try:
        con = store.open_store(args.db)
    except store.StoreError as e:
        return _fail(str(e))
    results = [ingest_file(con, f, fmt=args.format, role=args.role).as_dict() for f in args.files]
    con.close()
    if args.json:
        print(json.dumps({"files": results}, indent=2))
    else:
        for r in results:
            print(
                f"{r['file']}: {r['status']} ({r['format']}), {r['rows_loaded']} loaded, {r['rows_quarantined']} quarantined"
            )
            for e in r["errors"][:10]:
                print(f"  - {e}")
    return 0 if all(r["status"] != "rejected" for r in results) else 1


def cmd_demo(args: argparse.Namespace) -> int:
    """Write the bundled demo inputs (and optionally load them)."""
    from analytics.demo import write_demo

    out = Path(args.out)
    written = write_demo(out, seed=args.seed)
    for path in written["files"]:
        print(path)
    if args.load:
        from analytics.ingest.load import ingest_file

        con = store.open_store(args.db)
        for path in written["files"]:
            r = ingest_file(con, path)
            print(f"{Path(path).name}: {r.status}, {r.rows_loaded} loaded, {r.rows_quarantined} quarantined")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="python -m analytics", description="Concord: rating-data quality")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="load files into the store")
    p.add_argument("files", nargs="+")
    p.add_argument("--db", default=None, help="DuckDB store (default $CONCORD_DB or data/concord.duckdb)")
    p.add_argument("--format", default="auto", choices=["auto", *FORMATS])
    p.add_argument("--role", default=None, choices=["contractor", "researcher"], help="declare every row's role")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("demo", help="write the demo inputs (data/demo/)")
    p.add_argument("--out", default=str(store.ROOT / "data" / "demo"))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--load", action="store_true", help="also load them into the store")
    p.add_argument("--db", default=None)
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; exit code 2 with one clear line on bad input."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
