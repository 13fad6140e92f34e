"""What a reading command computes on: its FILEs loaded into a store in memory, or the --db store read-only
(analytics/cli/reading.py: a snapshot of it while the dashboard holds it)."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from analytics import store
from analytics.cli.flags import add_engine, add_format_options, format_options
from analytics.cli.json_out import json_text
from analytics.cli.terminal import fail
from analytics.core.filters import Filters
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


def add_reading_command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    text: str,
    run: Callable[[argparse.Namespace], int],
    own_flags: Callable[[argparse.ArgumentParser], None] | None = None,
) -> None:
    """The subcommand `name` run by `run`: the flags of a command that reads FILEs or the store, the command's
    `own_flags`, the format's settings and the engine."""
    p = add_reader_parser(sub, name, text)
    if own_flags:
        own_flags(p)
    add_format_options(p)
    add_engine(p)
    p.set_defaults(func=run)


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
        con = store_or_memory(args.db, bool(args.files))
    except (store.StoreError, ValueError) as e:
        return None, str(e)
    rejected = load_files(con, args.files, args.format, options)
    if rejected:
        con.close()
        return None, rejected
    return con, None


def store_or_memory(db: str | None, files: bool) -> Any:
    """A new store in memory for a command given FILEs, else the --db store for reading (reading.open_for_reading:
    read-only, or a snapshot while the dashboard holds it); StoreError says why it cannot be had."""
    from analytics.cli.reading import open_for_reading

    return store.open_store(":memory:") if files else open_for_reading(db)


def on_files_or_store(
    args: argparse.Namespace, compute: Callable[[Any, Filters], int], filters: Filters | None = None
) -> int:
    """`compute` on the store the command reads (files_or_store) under `filters` (default: its --rubric), the store
    closed after; exit 2 with the message when it cannot be read."""
    con, error = files_or_store(args)
    if error:
        return fail(error)
    try:
        return compute(con, Filters(rubric=args.rubric) if filters is None else filters)
    finally:
        con.close()


def print_payload(args: argparse.Namespace, payload: dict, as_text: Callable[[dict], str]) -> int:
    """The payload on stdout, as JSON with --json else as text; exit 0."""
    print(json_text(payload) if args.json else as_text(payload))
    return 0


def date_option(flag: str, text: str | None) -> dt.date | None:
    """A date option's value (None when not given); ValueError names the option and the expected form."""
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{flag} {text!r} is not a date: give it as YYYY-MM-DD") from None


def date_range(args: argparse.Namespace) -> tuple[dt.date | None, dt.date | None]:
    """The --from and --to options' dates (None when not given); ValueError names the option, or says the range is
    empty."""
    start, end = (date_option(flag, t) for flag, t in (("--from", args.date_from), ("--to", args.date_to)))
    if start and end and start > end:
        raise ValueError(f"--from {start} is after --to {end}")
    return start, end
