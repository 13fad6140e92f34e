"""What a reading command computes on: its FILEs loaded into a store in memory, or the --db store read-only."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from analytics import store
from analytics.cli.flags import format_options
from analytics.ingest import FORMATS


def add_reader_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, text: str
) -> argparse.ArgumentParser:
    """The subcommand `name` with the flags of a command that reads FILEs or the store (the format's settings and
    the engine follow whatever flags the command adds of its own)."""
    p = sub.add_parser(name, help=text)
    p.add_argument("files", nargs="*", help="read these files alone (in memory); none: the store")
    p.add_argument("--format", default="auto", choices=["auto", *FORMATS])
    p.add_argument(
        "--db", default=None, help="DuckDB store when no file is given (default $CONCORD_DB or data/concord.duckdb)"
    )
    p.add_argument("--rubric", default=None, help="only this rubric")
    p.add_argument("--json", action="store_true")
    return p


def load_files(con: Any, files: list[str], fmt: str, options: Any) -> str | None:
    """Load the FILEs of a command that computes on files alone (quarantined rows said on stderr); the first
    rejected file's message, or None."""
    from analytics.ingest.load import ingest_file

    for f in files:
        r = ingest_file(con, f, fmt=fmt, options=options)
        if r.status == "rejected":
            return r.errors[0] if r.errors else f"{f}: rejected"
        if r.rows_quarantined:
            print(f"{r.file}: {r.rows_quarantined} row(s) not used, e.g. {r.errors[0]}", file=sys.stderr)
    return None


def files_or_store(args: argparse.Namespace) -> tuple[Any, str | None]:
    """The store a command reads: its FILEs loaded into memory, else the --db store read-only; (None, the
    message) when a file is missing, rejected or the store cannot be opened."""
    missing = [f for f in args.files if not Path(f).is_file()]
    if missing:
        return None, f"no such file: {missing[0]}"
    try:
        options = format_options(args)
        con = store.open_store(":memory:" if args.files else args.db, read_only=not args.files)
    except (store.StoreError, ValueError) as e:
        return None, str(e)
    rejected = load_files(con, args.files, args.format, options)
    if rejected:
        con.close()
        return None, rejected
    return con, None
