"""`alerts`: every alarm the pages show under the same filters (drift, rubric rules, rater effects), from one
false-alarm budget per review, with what each kind can find."""

from __future__ import annotations

import argparse

from analytics.cli.inputs import add_reading_command, date_range, on_files_or_store, print_payload
from analytics.cli.terminal import fail


def _flags(p: argparse.ArgumentParser) -> None:
    """The rater and date options."""
    p.add_argument("--rater", default=None, metavar="ID", help="only this contractor's alarms")
    p.add_argument("--from", dest="date_from", default=None, metavar="DATE", help="first day (YYYY-MM-DD)")
    p.add_argument("--to", dest="date_to", default=None, metavar="DATE", help="last day, included (YYYY-MM-DD)")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `alerts` subcommand and its flags."""
    add_reading_command(
        sub, "alerts", "every alarm (drift, rules, rater effects) under one false-alarm budget", run, _flags
    )


def run(args: argparse.Namespace) -> int:
    """The review's alarms under the rubric, rater and dates given; exit 0 with or without alarms, 2 on bad
    arguments."""
    from analytics.alarms import contract
    from analytics.alarms.review import review
    from analytics.core.filters import Filters

    try:
        start, end = date_range(args)
    except ValueError as e:
        return fail(str(e))
    filters = Filters(rubric=args.rubric, raters=(args.rater,) if args.rater else (), date_from=start, date_to=end)
    return on_files_or_store(
        args, lambda con, f: print_payload(args, contract.payload(review(con, f)), contract.text), filters
    )
