"""`plan`: the tasks researchers should label next, within a budget of labels, and each contractor's interval now
and expected after (docs/plan.md)."""

from __future__ import annotations

import argparse
from typing import Any

from analytics.cli.flags import add_engine
from analytics.cli.inputs import add_reader_parser, date_range, on_files_or_store, print_payload
from analytics.cli.terminal import fail


def _flags(p: argparse.ArgumentParser) -> None:
    """The budget, researchers, rater and date options."""
    p.add_argument("--budget", type=int, required=True, metavar="N", help="labels to propose (a task two label: two)")
    p.add_argument(
        "--researchers",
        dest="plan_researchers",
        default="",
        metavar="A,B",
        help="spread the labels over these researchers",
    )
    p.add_argument("--rater", action="append", default=[], metavar="ID", help="only these contractors (repeatable)")
    p.add_argument("--from", dest="date_from", default=None, metavar="DATE", help="first day (YYYY-MM-DD)")
    p.add_argument("--to", dest="date_to", default=None, metavar="DATE", help="last day, included (YYYY-MM-DD)")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `plan` subcommand and its flags: a reading command's, but --researchers names the researchers to plan
    for (DESIGN.md), so FILEs take the formats' settings at their defaults (a wide or Label Studio file's researchers
    come from its rows' role)."""
    p = add_reader_parser(sub, "plan", "the tasks researchers should label next, within a budget of labels")
    _flags(p)
    add_engine(p)
    p.set_defaults(
        func=run, id_column=None, wide_dimension=None, researchers=None, include_predictions=False, ls_config=None
    )


def run(args: argparse.Namespace) -> int:
    """The plan under the options; exit 0, 2 on bad arguments."""
    from analytics.core.filters import Filters
    from analytics.plan import contract
    from analytics.plan.propose import check_budget, propose

    try:
        check_budget(args.budget)
    except ValueError as e:
        return fail(f"--budget: {e}")
    try:
        start, end = date_range(args)
    except ValueError as e:
        return fail(str(e))
    filters = Filters(rubric=args.rubric, raters=tuple(args.rater), date_from=start, date_to=end)
    researchers = [r for r in args.plan_researchers.split(",") if r.strip()]

    def show(con: Any, f: Filters) -> int:
        """The plan under the options, printed."""
        return print_payload(args, contract.payload(propose(con, f, args.budget, researchers)), contract.text)

    return on_files_or_store(args, show, filters)
