"""`effects`: rater effects per contractor, rubric and dimension, shrunk toward the team, with their flags."""

from __future__ import annotations

import argparse
from typing import Any

from analytics.cli.inputs import add_reading_command, on_files_or_store, print_payload
from analytics.core.filters import Filters


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `effects` subcommand and its flags."""
    add_reading_command(
        sub, "effects", "rater effects per contractor (leniency, ties, position bias, ...) with flags", run
    )


def run(args: argparse.Namespace) -> int:
    """Rater effects per contractor, rubric and dimension, shrunk toward the team, with the flag of each."""
    from analytics.alarms.review import review
    from analytics.effects import contract

    def show(con: Any, filters: Filters) -> int:
        """The effects under the filter, flagged by the review's one alarm rule (the rater filter chooses the rows
        printed), printed."""
        table = review(con, filters).effects
        if filters.raters:
            table = table[table["rater_id"].isin(filters.raters)].reset_index(drop=True)
        return print_payload(args, contract.payload(table), contract.text)

    return on_files_or_store(args, show)
