"""The dispatcher: the parser of every subcommand, and `main`, which parses the arguments and runs one command."""

from __future__ import annotations

import argparse

from analytics.cli import agreement, alerts, consistency, datasets, demo, effects, ingest, model, report
from analytics.cli.terminal import fail

# In the order `python -m analytics -h` lists them.
COMMANDS = (ingest, demo, agreement, alerts, consistency, effects, model, report, datasets)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="python -m analytics", description="Concord: rating-data quality")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; exit code 2 with one clear line on bad input."""
    args = build_parser().parse_args(argv)
    if args.engine == "spark" and args.command != "agreement":
        return fail(
            f"--engine spark is supported by 'agreement' only for now; run '{args.command}' with --engine duckdb"
        )
    code: int = args.func(args)
    return code
