"""`consistency`: the rubric documents' rules checked on every submission, from FILEs or the store."""

from __future__ import annotations

import argparse
import json

from analytics.cli.flags import add_engine, add_format_options
from analytics.cli.inputs import add_reader_parser, files_or_store
from analytics.cli.terminal import fail


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `consistency` subcommand and its flags."""
    p = add_reader_parser(sub, "consistency", "the rubric documents' rules checked on every submission")
    add_format_options(p)
    add_engine(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The rubric documents' rules checked on every submission: per rule, per contractor and every violation."""
    from analytics.consistency import rates
    from analytics.consistency.text import consistency_text
    from analytics.core.filters import Filters

    con, error = files_or_store(args)
    if error:
        return fail(error)
    try:
        payload = rates.contract_payload(rates.consistency(con, Filters(rubric=args.rubric)))
        print(json.dumps(payload, indent=2) if args.json else consistency_text(payload))
    finally:
        con.close()
    return 0
