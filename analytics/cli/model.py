"""`model`: the rater model, each rater's accuracy against the modelled truth and a consensus label per unit."""

from __future__ import annotations

import argparse
import json
from typing import Any

from analytics.cli.flags import add_engine, add_format_options
from analytics.cli.inputs import add_reader_parser, files_or_store
from analytics.cli.terminal import fail, progress_on_terminal


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `model` subcommand and its flags."""
    p = add_reader_parser(sub, "model", "the rater model: accuracy per rater and a consensus label per unit")
    p.add_argument("--seed", type=int, default=0, help="seed of the resamples behind the intervals")
    add_format_options(p)
    add_engine(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The rater model: each rater's accuracy against the modelled truth and a consensus label per unit."""
    con, error = files_or_store(args)
    if error:
        return fail(error)
    try:
        return _fit_and_print(con, args)
    finally:
        con.close()


def _fit_and_print(con: Any, args: argparse.Namespace) -> int:
    """Fit the model on `con` and print it (exit 2 with the reason when it cannot be fitted)."""
    from analytics.core.filters import Filters
    from analytics.model import rater_model

    try:
        progress = progress_on_terminal("rater model")  # minutes at 1M tasks
        model = rater_model.fit_model(con, Filters(rubric=args.rubric), seed=args.seed, progress=progress)
    except ValueError as e:
        return fail(str(e))
    payload = rater_model.contract_payload(model)
    print(json.dumps(payload, indent=2) if args.json else rater_model.model_text(payload))
    return 0
