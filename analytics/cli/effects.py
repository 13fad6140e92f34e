"""`effects`: rater effects per contractor, rubric and dimension, shrunk toward the team, with their flags."""

from __future__ import annotations

import argparse
import json

from analytics.cli.flags import add_engine, add_format_options
from analytics.cli.inputs import add_reader_parser, files_or_store
from analytics.cli.terminal import fail


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `effects` subcommand and its flags."""
    p = add_reader_parser(
        sub, "effects", "rater effects per contractor (leniency, ties, position bias, ...) with flags"
    )
    add_format_options(p)
    add_engine(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Rater effects per contractor, rubric and dimension, shrunk toward the team, with the flag of each."""
    from analytics import effects
    from analytics.core.filters import Filters
    from analytics.effects import contract

    con, error = files_or_store(args)
    if error:
        return fail(error)
    try:
        payload = contract.payload(effects.estimate_effects(con, Filters(rubric=args.rubric)))
        print(json.dumps(payload, indent=2) if args.json else contract.text(payload))
    finally:
        con.close()
    return 0
