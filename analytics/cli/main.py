"""The dispatcher: the parser of every subcommand, and `main`, which parses the arguments and runs one command."""

from __future__ import annotations

import argparse

from analytics import store
from analytics.cli import (
    agreement,
    alerts,
    consistency,
    datasets,
    demo,
    effects,
    followup,
    ingest,
    model,
    plan,
    report,
)
from analytics.cli.terminal import fail

# In the order `python -m analytics -h` lists them.
COMMANDS = (ingest, demo, agreement, alerts, consistency, effects, model, plan, report, followup, datasets)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="python -m analytics", description="Concord: rating-data quality")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; exit code 2 with one clear line on bad input or a damaged store."""
    args = build_parser().parse_args(argv)
    if args.engine == "spark" and args.command != "agreement":
        return fail(
            f"--engine spark is supported by 'agreement' only for now; run '{args.command}' with --engine duckdb"
        )
    try:
        code: int = args.func(args)
    except Exception as e:
        # A store that opens but has an unreadable block fails in whichever query reaches it, in any command.
        if store.is_damage(e) or (e.__cause__ is not None and store.is_damage(e.__cause__)):
            return fail(damaged(args))
        raise
    return code


def damaged(args: argparse.Namespace) -> str:
    """The one message for a damaged store (the pages give the same), naming the store the command used."""
    from analytics.cli.reading import damaged as damaged_store

    return damaged_store(getattr(args, "db", None))
