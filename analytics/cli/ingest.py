"""`ingest`: load files (and a scales file's declarations) into the store, or hand them to the dashboard that
holds it (analytics/cli/handover.py), and report one result per file."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from analytics import store
from analytics.cli.flags import (
    DEFAULT_WAIT_S,
    add_engine,
    add_format_options,
    format_options,
    read_scales,
    wait_seconds,
)
from analytics.cli.json_out import json_text
from analytics.cli.terminal import fail, terminal_line
from analytics.ingest import FORMATS


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `ingest` subcommand and its flags."""
    p = sub.add_parser("ingest", help="load files (and declared scales) into the store")
    p.add_argument("files", nargs="*", help="rating files to load (none: only declare --scales)")
    p.add_argument("--scales", default=None, metavar="PATH", help="a scales file declaring dimensions' scales (JSON)")
    p.add_argument("--db", default=None, help="DuckDB store (default $CONCORD_DB or data/concord.duckdb)")
    p.add_argument("--format", default="auto", choices=["auto", *FORMATS])
    p.add_argument("--role", default=None, choices=["contractor", "researcher"], help="declare every row's role")
    p.add_argument(
        "--undated-at",
        default=None,
        metavar="DATE",
        help="the submitted_at of records whose format carries no dates (article Likert); default: the load time",
    )
    add_format_options(p)
    p.add_argument(
        "--wait",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long to wait for another load of the store, or for the dashboard's answer "
        f"(default $CONCORD_LOAD_WAIT or {DEFAULT_WAIT_S:.0f})",
    )
    p.add_argument("--json", action="store_true")
    add_engine(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load files (and a scales file's declarations) into the store and report one result per file.

    When the running dashboard holds the store, the files are handed to it (analytics/cli/handover.py) and the
    result is the same."""
    from analytics.cli import handover
    from analytics.ingest.scales_file import ScalesError

    if not args.files and not args.scales:
        return fail("give at least one FILE to load, or --scales PATH to declare scales")
    if args.undated_at and not _is_iso_time(args.undated_at):
        return fail(f"--undated-at {args.undated_at} is not an ISO 8601 date and time (e.g. 2026-03-20T16:00:00Z)")
    named = [*args.files, *([args.scales] if args.scales else [])]
    missing = [f for f in named if not os.path.exists(f)]
    if missing:
        return fail(f"no such file: {missing[0]}")
    if odd := [f for f in named if not Path(f).is_file()]:
        return fail(f"{odd[0]} is not a regular file (a device, FIFO or folder): give a file of ratings")
    try:
        read_scales(args.scales)  # checked before anything is opened or handed over
        options = format_options(args)
        payload = here_or_hand_over(args, [args.undated_at] * len(args.files) if args.undated_at else None, options)
    except (ScalesError, store.StoreError, handover.HandoverError, ValueError) as e:
        return fail(str(e))
    results = payload["files"]
    declared = payload.get("scales")
    if args.json:
        if declared:
            payload["scales"] = {k: v for k, v in declared.items() if k != "message"}
        print(json_text(payload))
    else:
        if declared:
            print(declared["message"])
        for r in results:
            print(
                f"{r['file']}: {r['status']} ({r['format']}), {r['rows_loaded']} loaded"
                f"{f' ({m} missing)' if (m := r.get('rows_missing')) else ''}, {r['rows_quarantined']} quarantined"
            )
            for err in r["errors"][:10]:
                print(f"  - {err}")
            for note in r.get("notes", []):
                print(f"  note: {note}")
    return 0 if all(r["status"] != "rejected" for r in results) else 1


def _is_iso_time(text: str) -> bool:
    """Whether the text is an ISO 8601 date or date and time ('Z' for UTC)."""
    try:
        dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def load_wait(args: argparse.Namespace) -> float:
    """Seconds to wait for another load of the store, or for the dashboard's answer: --wait, $CONCORD_LOAD_WAIT
    or ten minutes."""
    return wait_seconds(getattr(args, "wait", None))


def here_or_hand_over(
    args: argparse.Namespace, undated_at: list[str | None] | None = None, options: Any = None
) -> dict[str, Any]:
    """The ingest payload of args.files (args.db, .format, .role, .scales, .wait): loaded in this process, or by
    the running dashboard when it holds the store; behind another command-line load of the store, after it.

    `undated_at`, beside args.files: the date each file's load gives records that carry none (article Likert)."""
    from analytics.cli import handover, reading

    db = store.db_path(args.db)
    wait_s = load_wait(args)
    with handover.announce_load(db):
        con, writer = reading.open_or_find_writer(db, wait_s)
        if writer is not None:
            print(
                f"The dashboard (process {writer.pid}) holds {db}: handing the files to it and waiting for the "
                "result (uploads and note saves queue with it).",
                file=sys.stderr,
            )
            return handover.hand_over(
                db, args.files, args.format, args.role, args.scales, wait_s, undated_at, options, writer
            )
        assert con is not None
        try:
            progress = _file_progress if sys.stderr.isatty() else None
            return handover.ingest_job(
                con, args.files, args.format, args.role, args.scales, progress, undated_at, options
            )
        finally:
            con.close()


def _file_progress(path: str) -> Callable[[float, str], None]:
    """Where one file's load progress goes on a terminal: one line on stderr, rewritten as the stages pass."""
    return terminal_line(Path(path).name)
