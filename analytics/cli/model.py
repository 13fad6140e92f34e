"""`model`: the rater model, each rater's accuracy against the modelled truth and a consensus label per unit."""

from __future__ import annotations

import argparse
from typing import Any

from analytics.cli.inputs import add_reading_command, on_files_or_store, print_payload
from analytics.cli.terminal import fail, progress_on_terminal
from analytics.core.filters import Filters


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `model` subcommand and its flags."""
    add_reading_command(
        sub, "model", "the rater model: accuracy per rater and a consensus label per unit", run, _seed_flag
    )


def _seed_flag(p: argparse.ArgumentParser) -> None:
    """--seed: the seed of the resamples behind the intervals."""
    p.add_argument("--seed", type=int, default=0, help="seed of the resamples behind the intervals")


def run(args: argparse.Namespace) -> int:
    """The rater model: each rater's accuracy against the modelled truth and a consensus label per unit."""
    from analytics.model import rater_model

    def show(con: Any, filters: Filters) -> int:
        """Fit the model under the filter and print it (exit 2 with the reason when it cannot be fitted)."""
        try:
            progress = progress_on_terminal("rater model")  # long on a large store
            model = rater_model.fit_model(con, filters, seed=args.seed, progress=progress)
        except ValueError as e:
            return fail(str(e))
        return print_payload(args, rater_model.contract_payload(model), rater_model.model_text)

    return on_files_or_store(args, show)
