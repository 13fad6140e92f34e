"""`agreement`: agreement among all raters per dimension and of each contractor against researcher labels, on
FILEs alone (in memory), on the store, or on Spark (docs/scale-out.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from analytics import store
from analytics.cli.flags import add_engine, add_format_options, format_options, read_scales
from analytics.cli.inputs import load_files, store_or_memory
from analytics.cli.json_out import json_text
from analytics.cli.terminal import fail, progress_on_terminal
from analytics.ingest import FORMATS


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `agreement` subcommand and its flags."""
    p = sub.add_parser("agreement", help="agreement per dimension and per contractor (files alone, or the store)")
    p.add_argument("files", nargs="*", help="compute on these files alone (in memory); none: on the store")
    p.add_argument("--format", default="auto", choices=["auto", *FORMATS])
    p.add_argument("--scales", default=None, metavar="PATH", help="a scales file declaring scales for the FILEs")
    p.add_argument(
        "--level",
        default=None,
        choices=["nominal", "ordinal", "interval", "ratio"],
        help="level of measurement for every dimension (default: by scale kind)",
    )
    p.add_argument(
        "--db", default=None, help="DuckDB store when no file is given (default $CONCORD_DB or data/concord.duckdb)"
    )
    p.add_argument("--rubric", default=None, help="only this rubric")
    p.add_argument("--dimension", action="append", help="only this dimension (repeatable)")
    p.add_argument("--coarse", action="store_true", help="on the catalogue's coarse scale")
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for the 95%% intervals (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--pairs",
        action="store_true",
        help="also each pair of raters on their shared units (rater_pairs[]; grows with the square of the raters)",
    )
    p.add_argument(
        "--min-shared",
        type=int,
        default=None,
        metavar="N",
        help="with --pairs: only pairs of raters sharing at least N units (default 1)",
    )
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--csv",
        default=None,
        metavar="PATH",
        help="also write raters[] (each contractor against researchers) as CSV; cells a spreadsheet would run "
        "as formulas get a leading apostrophe",
    )
    p.add_argument("--raw", action="store_true", help="with --csv: write cells exactly as they are")
    add_format_options(p)
    add_engine(p)
    p.add_argument(
        "--spark-master", default=None, metavar="URL", help="--engine spark: local[*] (default), spark://HOST:PORT, ..."
    )
    p.add_argument(
        "--spark-table", default=None, metavar="NAME", help="--engine spark: read this table of canonical ratings"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Agreement among all raters per dimension and of each contractor against researcher labels."""
    from analytics.ingest.scales_file import ScalesError

    # Spark reads URLs (hdfs://, s3a://, ...) itself; everything else is a local file that must be there.
    local = [f for f in args.files if not (args.engine == "spark" and "://" in f)]
    missing = [f for f in [*local, *([args.scales] if args.scales else [])] if not Path(f).is_file()]
    if missing:
        return fail(f"no such file: {missing[0]}")
    if args.raw and not args.csv:
        return fail("--raw applies to the --csv file: give --csv PATH")
    if args.min_shared is not None and not args.pairs:
        return fail("--min-shared applies to rater pairs: add --pairs")
    if args.min_shared is not None and args.min_shared < 1:
        return fail(f"--min-shared must be 1 or more, not {args.min_shared}")
    if args.scales and not args.files and args.engine == "duckdb":
        return fail(
            "--scales applies to the FILEs given (the store is only read here); to declare scales for the store, "
            "load them with: python -m analytics ingest --scales PATH"
        )
    if args.engine == "spark" or args.spark_master or args.spark_table:
        return _on_spark(args)
    try:
        scales = read_scales(args.scales)
        options = format_options(args)
        con = store_or_memory(args.db, bool(args.files))
    except (ScalesError, store.StoreError, ValueError) as e:
        return fail(str(e))
    try:
        return _on_duckdb(con, args, scales, options)
    finally:
        con.close()


def _on_duckdb(con: Any, args: argparse.Namespace, scales: Any, options: Any) -> int:
    """The agreement on the store `con` opened for it: the FILEs (and their --scales) loaded into it first."""
    from analytics.ingest.scales_file import ScalesError, declare_scales
    from analytics.store.derived import refresh

    if scales:
        try:
            declare_scales(con, scales)  # into the in-memory store, before the files
        except (ScalesError, store.StoreError, ValueError) as e:
            return fail(str(e))
    # the in-memory store lives for this command, which reads no other kept table
    with refresh.only(*refresh.AGREEMENT):
        rejected = load_files(con, args.files, args.format, options)
    if rejected:
        return fail(rejected)
    try:
        return _figures_out(con, args)
    except ValueError as e:
        return fail(str(e))


def _figures_out(con: Any, args: argparse.Namespace) -> int:
    """Compute the agreement on `con` (a DuckDB connection, or the Spark engine's, which routes each statement) and
    print it, and write --csv; ValueError says why it cannot be computed."""
    from analytics import agreement
    from analytics.core.filters import Filters
    from analytics.core.queries import Query

    filters = Filters(rubric=args.rubric, dimensions=tuple(args.dimension or ()))
    where, params = filters.where_named()
    if not Query("ratings_to_compare", f"SELECT count(*) FROM ratings WHERE {where}", params).rows(con)[0][0]:
        return fail("no ratings to compare" + (f" for rubric {args.rubric}" if args.rubric else ""))
    progress = progress_on_terminal("agreement")  # long on a large store
    payload = agreement.contract_payload(
        con,
        agreement.AgreementSpec(
            coarse=args.coarse, level=args.level, n_boot=args.n_boot, seed=args.seed, filters=filters
        ),
        progress=progress,
        pairs=args.pairs,
        min_shared=args.min_shared or 1,
    )
    payload["engine"] = args.engine
    if args.csv:
        try:
            _write_raters_csv(payload, args.csv, args.raw)
        except OSError as e:
            return fail(f"cannot write {args.csv}: {e.strerror or e}")
    print(json_text(payload) if args.json else agreement.contract_text(payload))
    return 0


def _on_spark(args: argparse.Namespace) -> int:
    """`agreement --engine spark`: Spark reads the FILEs (or --spark-table) and computes the sufficient statistics;
    the figures come from the same Python as on DuckDB (docs/scale-out.md)."""
    from analytics.ingest.scales_file import ScalesError, declare_scales

    if args.engine != "spark":
        return fail("--spark-master and --spark-table apply to --engine spark")
    if bool(args.files) == bool(args.spark_table):
        return fail("--engine spark reads canonical FILEs or --spark-table NAME (one of them; the store is DuckDB's)")
    if args.format not in ("auto", "canonical"):
        return fail(f"--engine spark reads the canonical format only, not --format {args.format}")
    try:
        from analytics.engines.spark import engine, session
    except ImportError as e:
        return fail(
            f"--engine spark needs the Spark extra, which is not installed ({e.name}): pip install -r requirements-spark.txt"
        )
    try:
        catalogue = store.open_store(":memory:")
        scales = read_scales(args.scales)
        if scales:
            declare_scales(catalogue, scales)
        spark = session.start(args.spark_master)
        if args.spark_table:
            con, loaded = engine.open_table(spark, args.spark_table, catalogue)
        else:
            con, loaded = engine.open_files(spark, args.files, catalogue)
        if loaded.rows_refused:
            example = f", e.g. {loaded.reasons[0]}" if loaded.reasons else ""
            print(f"{loaded.rows_refused} row(s) not used{example}", file=sys.stderr)
        return _figures_out(con, args)
    except (ScalesError, store.StoreError, ValueError, session.SparkUnavailable) as e:
        return fail(str(e))  # SparkSqlError and SparkInputError are ValueErrors


def _write_raters_csv(payload: dict[str, Any], path: str, raw: bool) -> None:
    """The payload's raters[] as CSV at `path` through the one writer (analytics.csv_out; neutralised for
    spreadsheets unless `raw`): one column per key, the interval ends as their own numeric columns (the JSON's
    ci95 pair is cohen_kappa_ci_low and cohen_kappa_ci_high)."""
    import pandas as pd

    from analytics.core import csv_out

    rows = pd.DataFrame([{k: v for k, v in r.items() if k not in ("ci95", "ci95_of")} for r in payload["raters"]])
    Path(path).write_bytes(csv_out.to_csv_bytes(rows, raw=raw))
