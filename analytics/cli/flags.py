"""Flags several commands share: the settings of the formats that take some, the engine, and --scales."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from analytics.ingest.scales_file import Scales

DEFAULT_WAIT_S = 600.0  # ten minutes: a large load (or a queue of them) finishes well within it


def wait_seconds(given: float | None = None) -> float:
    """Seconds to wait for another load of the store, or for the dashboard's answer: `given` (--wait),
    $CONCORD_LOAD_WAIT or ten minutes; ValueError names a bad value."""
    if given is None:
        env = os.environ.get("CONCORD_LOAD_WAIT")
        try:
            given = float(env) if env else DEFAULT_WAIT_S
        except ValueError:
            raise ValueError(f"CONCORD_LOAD_WAIT={env} is not a number of seconds") from None
    if given < 0:
        raise ValueError(f"--wait {given:g} is negative: give a number of seconds")
    return float(given)


def add_format_options(p: argparse.ArgumentParser) -> None:
    """The flags of the formats that take settings (docs/formats.md: the wide layout, Label Studio)."""
    p.add_argument("--id-column", default=None, metavar="NAME", help="wide: the column holding the item id")
    p.add_argument("--wide-dimension", default=None, metavar="NAME", help="wide: the dimension (default: file stem)")
    p.add_argument(
        "--researchers",
        default=None,
        metavar="A,B",
        help="wide: rater columns, Label Studio: annotator ids, that are researchers",
    )
    p.add_argument("--include-predictions", action="store_true", help="Label Studio: predictions as further raters")
    p.add_argument("--ls-config", default=None, metavar="PATH", help="Label Studio: the labelling config (XML)")


def format_options(args: argparse.Namespace) -> Any:
    """The wide layout's and Label Studio's settings from the flags (ValueError when --ls-config cannot be read)."""
    from analytics.ingest.base import FormatOptions

    config = None
    if args.ls_config:
        try:
            config = Path(args.ls_config).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(f"--ls-config {args.ls_config} cannot be read: {getattr(e, 'strerror', None) or e}") from e
    return FormatOptions(
        id_column=args.id_column,
        wide_dimension=args.wide_dimension,
        researchers=FormatOptions.names(args.researchers),
        include_predictions=args.include_predictions,
        ls_config=config,
    )


def add_engine(p: argparse.ArgumentParser) -> None:
    """--engine: where the heavy aggregation runs (docs/scale-out.md)."""
    p.add_argument(
        "--engine",
        default="duckdb",
        choices=["duckdb", "spark"],
        help="duckdb (default, in this process) or spark (local mode, a cluster or $SPARK_REMOTE)",
    )


def read_scales(path: str | None) -> Scales | None:
    """The --scales file parsed and checked (None without --scales); ScalesError names the file and the key."""
    from analytics.ingest.scales_file import read_scales_file

    return read_scales_file(path) if path else None
