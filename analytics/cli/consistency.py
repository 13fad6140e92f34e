"""`consistency`: the rubric documents' rules checked on every submission, from FILEs or the store."""

from __future__ import annotations

import argparse
from typing import Any

from analytics.cli.inputs import add_reading_command, on_files_or_store, print_payload
from analytics.core.filters import Filters


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `consistency` subcommand and its flags."""
    add_reading_command(sub, "consistency", "the rubric documents' rules checked on every submission", run)


def run(args: argparse.Namespace) -> int:
    """The rubric documents' rules checked on every submission: per rule, per contractor and every violation."""
    from analytics.alarms.review import reviewed_rules
    from analytics.consistency import rates
    from analytics.consistency.text import consistency_text

    def show(con: Any, filters: Filters) -> int:
        """The rules' rates under the filter, contractors flagged by the review's one alarm rule, printed."""
        return print_payload(args, rates.contract_payload(reviewed_rules(con, filters)), consistency_text)

    return on_files_or_store(args, show)
