"""`followup`: did the feedback work? Each feedback event's follow-up, the contractor's change against the team's in
the same weeks (docs/feedback.md)."""

from __future__ import annotations

import argparse

from analytics import store
from analytics.cli.flags import add_engine
from analytics.cli.inputs import print_payload
from analytics.cli.terminal import fail


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `followup` subcommand: the store's feedback events (--db), one rubric (--rubric), JSON (--json)."""
    p = sub.add_parser("followup", help="each contractor's change after feedback against the team's in the same weeks")
    p.add_argument("--db", default=None, help="DuckDB store (default $CONCORD_DB or data/concord.duckdb)")
    p.add_argument("--rubric", default=None, help="only feedback about this rubric (or about every rubric)")
    p.add_argument("--json", action="store_true")
    add_engine(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print every follow-up; exit 0, 2 when the store cannot be read."""
    from analytics.cli.reading import open_for_reading
    from analytics.feedback import followup_contract as contract
    from analytics.feedback.followup import followups

    try:
        con = open_for_reading(args.db)
    except store.StoreError as e:
        return fail(str(e))
    try:
        return print_payload(args, contract.payload(followups(con, rubric=args.rubric)), contract.text)
    finally:
        con.close()
