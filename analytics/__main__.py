"""The command line: python -m analytics {ingest,demo,agreement,...} (contract in ../shared/DESIGN.md)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from analytics import store
from analytics.ingest import FORMATS
from analytics.scales_file import Scales


def _fail(message: str) -> int:
    print(message, file=sys.stderr)
    return 2


def _read_scales(path: str | None) -> Scales | None:
    """The --scales file parsed and checked (None without --scales); ScalesError names the file and the key."""
    from analytics.scales_file import read_scales_file

    return read_scales_file(path) if path else None


def _format_options(args: argparse.Namespace) -> Any:
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


def _add_format_options(p: argparse.ArgumentParser) -> None:
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


def cmd_ingest(args: argparse.Namespace) -> int:
    """Load files (and a scales file's declarations) into the store and report one result per file.

    When the running dashboard holds the store, the files are handed to it (analytics/handover.py) and the
    result is the same."""
    from analytics import handover
    from analytics.scales_file import ScalesError

    if not args.files and not args.scales:
        return _fail("give at least one FILE to load, or --scales PATH to declare scales")
    if args.undated_at and not _is_iso_time(args.undated_at):
        return _fail(f"--undated-at {args.undated_at} is not an ISO 8601 date and time (e.g. 2026-03-20T16:00:00Z)")
    missing = [f for f in [*args.files, *([args.scales] if args.scales else [])] if not Path(f).is_file()]
    if missing:
        return _fail(f"no such file: {missing[0]}")
    try:
        _read_scales(args.scales)  # checked before anything is opened or handed over
        options = _format_options(args)
        payload = _ingest_here_or_hand_over(
            args, [args.undated_at] * len(args.files) if args.undated_at else None, options
        )
    except (ScalesError, store.StoreError, handover.HandoverError, ValueError) as e:
        return _fail(str(e))
    results = payload["files"]
    declared = payload.get("scales")
    if args.json:
        if declared:
            payload["scales"] = {k: v for k, v in declared.items() if k != "message"}
        print(json.dumps(payload, indent=2))
    else:
        if declared:
            print(declared["message"])
        for r in results:
            print(
                f"{r['file']}: {r['status']} ({r['format']}), {r['rows_loaded']} loaded"
                f"{f' ({m} missing)' if (m := r.get('rows_missing')) else ''}, {r['rows_quarantined']} quarantined"
            )
            for err in r["errors"][:10]:
                print(f"  - {err}")
            for note in r.get("notes", []):
                print(f"  note: {note}")
    return 0 if all(r["status"] != "rejected" for r in results) else 1


def _is_iso_time(text: str) -> bool:
    """Whether the text is an ISO 8601 date or date and time ('Z' for UTC)."""
    try:
        dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _ingest_here_or_hand_over(
    args: argparse.Namespace, undated_at: list[str | None] | None = None, options: Any = None
) -> dict[str, Any]:
    """The ingest payload: loaded in this process, or by the running dashboard when it holds the store.

    `undated_at`, beside args.files: the date each file's load gives records that carry none (article Likert)."""
    from analytics import handover

    db = store.db_path(args.db)
    # A serving dashboard gets the files even if the store could be opened: two processes writing one DuckDB
    # file lose rows, and the file lock alone is not a sure sign (docs/limits.md).
    pid = handover.writer_pid(db)
    if pid is None:
        try:
            con = store.open_store(db)
        except store.StoreInUse:
            pid = handover.writer_pid(db)  # a dashboard that started serving meanwhile
            if pid is None:
                raise
    if pid is not None:
        print(
            f"The dashboard (process {pid}) holds {db}: handing the files to it and waiting for the result "
            "(uploads and note saves queue with it).",
            file=sys.stderr,
        )
        return handover.hand_over(
            db, args.files, args.format, args.role, args.scales, undated_at=undated_at, options=options
        )
    try:
        progress = _terminal_progress if sys.stderr.isatty() else None
        return handover.ingest_job(con, args.files, args.format, args.role, args.scales, progress, undated_at, options)
    finally:
        con.close()


def _terminal_progress(path: str) -> Callable[[float, str], None]:
    """Where one file's load progress goes on a terminal: one line on stderr, rewritten as the stages pass."""
    return _terminal_line(Path(path).name)


def _terminal_line(name: str) -> Callable[[float, str], None]:
    """A progress callback (share done, stage) that rewrites one line on stderr, "name: stage (share)"."""

    def show(share: float, stage: str) -> None:
        end = "\n" if share >= 1.0 else ""
        print(f"\r{name}: {stage} ({share:.0%})\033[K", end=end, file=sys.stderr, flush=True)

    return show


def cmd_demo(args: argparse.Namespace) -> int:
    """Write the bundled demo inputs (and optionally load them)."""
    from analytics.demo import write_demo

    out = Path(args.out)
    written = write_demo(out, seed=args.seed)
    for path in written["files"]:
        print(path)
    if args.load:
        from analytics import first_run, handover

        plan = first_run.demo_plan(out=out)  # article Likert files get the dates they were returned on
        files = [str(f.path) for f in plan]
        dates = [f.undated_at.isoformat() if f.undated_at else None for f in plan]
        load = argparse.Namespace(db=args.db, files=files, format="auto", role=None, scales=None)
        try:
            payload = _ingest_here_or_hand_over(load, dates)
        except (store.StoreError, handover.HandoverError) as e:
            return _fail(str(e))
        for r in payload["files"]:
            print(f"{r['file']}: {r['status']}, {r['rows_loaded']} loaded, {r['rows_quarantined']} quarantined")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    """Agreement among all raters per dimension and of each contractor against researcher labels."""
    from analytics.scales_file import ScalesError, declare_scales

    # Spark reads URLs (hdfs://, s3a://, ...) itself; everything else is a local file that must be there.
    local = [f for f in args.files if not (args.engine == "spark" and "://" in f)]
    missing = [f for f in [*local, *([args.scales] if args.scales else [])] if not Path(f).is_file()]
    if missing:
        return _fail(f"no such file: {missing[0]}")
    if args.raw and not args.csv:
        return _fail("--raw applies to the --csv file: give --csv PATH")
    if args.scales and not args.files and args.engine == "duckdb":
        return _fail(
            "--scales applies to the FILEs given (the store is only read here); to declare scales for the store, "
            "load them with: python -m analytics ingest --scales PATH"
        )
    if args.engine == "spark" or args.spark_master or args.spark_table:
        return _agreement_on_spark(args)
    try:
        scales = _read_scales(args.scales)
        options = _format_options(args)
        con = store.open_store(":memory:" if args.files else args.db, read_only=not args.files)
        if scales:
            declare_scales(con, scales)  # into the in-memory store, before the files
    except (ScalesError, store.StoreError, ValueError) as e:
        return _fail(str(e))
    from analytics import kept

    with kept.only(*kept.AGREEMENT):  # the in-memory store lives for this command, which reads no other kept table
        rejected = _load_files(con, args.files, args.format, options)
    if rejected:
        return _fail(rejected)
    try:
        return _agreement_out(con, args)
    except ValueError as e:
        return _fail(str(e))


def _agreement_out(con: Any, args: argparse.Namespace) -> int:
    """Compute the agreement on `con` (a DuckDB connection, or the Spark engine's, which routes each statement) and
    print it, and write --csv; ValueError says why it cannot be computed."""
    from analytics import agreement
    from analytics.filters import Filters
    from analytics.queries import Query

    filters = Filters(rubric=args.rubric, dimensions=tuple(args.dimension or ()))
    where, params = filters.where_named()
    if not Query("ratings_to_compare", f"SELECT count(*) FROM ratings WHERE {where}", params).rows(con)[0][0]:
        return _fail("no ratings to compare" + (f" for rubric {args.rubric}" if args.rubric else ""))
    progress = _terminal_line("agreement") if sys.stderr.isatty() else None  # half a minute at 1M tasks
    payload = agreement.contract_payload(
        con,
        agreement.AgreementSpec(
            coarse=args.coarse, level=args.level, n_boot=args.n_boot, seed=args.seed, filters=filters
        ),
        progress=progress,
    )
    payload["engine"] = args.engine
    if args.csv:
        try:
            _write_raters_csv(payload, args.csv, args.raw)
        except OSError as e:
            return _fail(f"cannot write {args.csv}: {e.strerror or e}")
    print(json.dumps(payload, indent=2) if args.json else agreement.contract_text(payload))
    return 0


def _agreement_on_spark(args: argparse.Namespace) -> int:
    """`agreement --engine spark`: Spark reads the FILEs (or --spark-table) and computes the sufficient statistics;
    the figures come from the same Python as on DuckDB (docs/scale-out.md)."""
    from analytics.scales_file import ScalesError, declare_scales

    if args.engine != "spark":
        return _fail("--spark-master and --spark-table apply to --engine spark")
    if bool(args.files) == bool(args.spark_table):
        return _fail("--engine spark reads canonical FILEs or --spark-table NAME (one of them; the store is DuckDB's)")
    if args.format not in ("auto", "canonical"):
        return _fail(f"--engine spark reads the canonical format only, not --format {args.format}")
    try:
        from analytics.spark import engine, session
    except ImportError as e:
        return _fail(
            f"--engine spark needs the Spark extra, which is not installed ({e.name}): pip install -r requirements-spark.txt"
        )
    try:
        catalogue = store.open_store(":memory:")
        scales = _read_scales(args.scales)
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
        return _agreement_out(con, args)
    except (ScalesError, store.StoreError, ValueError, session.SparkUnavailable) as e:
        return _fail(str(e))  # SparkSqlError and SparkInputError are ValueErrors


def _load_files(con: Any, files: list[str], fmt: str, options: Any) -> str | None:
    """Load the FILEs of a command that computes on files alone (quarantined rows said on stderr); the first
    rejected file's message, or None."""
    from analytics.ingest.load import ingest_file

    for f in files:
        r = ingest_file(con, f, fmt=fmt, options=options)
        if r.status == "rejected":
            return r.errors[0] if r.errors else f"{f}: rejected"
        if r.rows_quarantined:
            print(f"{r.file}: {r.rows_quarantined} row(s) not used, e.g. {r.errors[0]}", file=sys.stderr)
    return None


def _files_or_store(args: argparse.Namespace) -> tuple[Any, str | None]:
    """The store a command reads: its FILEs loaded into memory, else the --db store read-only; (None, the
    message) when a file is missing, rejected or the store cannot be opened."""
    missing = [f for f in args.files if not Path(f).is_file()]
    if missing:
        return None, f"no such file: {missing[0]}"
    try:
        options = _format_options(args)
        con = store.open_store(":memory:" if args.files else args.db, read_only=not args.files)
    except (store.StoreError, ValueError) as e:
        return None, str(e)
    rejected = _load_files(con, args.files, args.format, options)
    return (None, rejected) if rejected else (con, None)


def cmd_consistency(args: argparse.Namespace) -> int:
    """The rubric documents' rules checked on every submission: per rule, per contractor and every violation."""
    from analytics.consistency import rates
    from analytics.consistency.text import consistency_text
    from analytics.filters import Filters

    con, error = _files_or_store(args)
    if error:
        return _fail(error)
    found = rates.consistency(con, Filters(rubric=args.rubric))
    payload = rates.contract_payload(found)
    print(json.dumps(payload, indent=2) if args.json else consistency_text(payload))
    return 0


def cmd_effects(args: argparse.Namespace) -> int:
    """Rater effects per contractor, rubric and dimension, shrunk toward the team, with the flag of each."""
    from analytics import effects
    from analytics.effects import contract
    from analytics.filters import Filters

    con, error = _files_or_store(args)
    if error:
        return _fail(error)
    table = effects.estimate_effects(con, Filters(rubric=args.rubric))
    payload = contract.payload(table)
    print(json.dumps(payload, indent=2) if args.json else contract.text(payload))
    return 0


def cmd_model(args: argparse.Namespace) -> int:
    """The rater model: each rater's accuracy against the modelled truth and a consensus label per unit."""
    from analytics import rater_model
    from analytics.filters import Filters

    con, error = _files_or_store(args)
    if error:
        return _fail(error)
    try:
        progress = _terminal_line("rater model") if sys.stderr.isatty() else None  # minutes at 1M tasks
        model = rater_model.fit_model(con, Filters(rubric=args.rubric), seed=args.seed, progress=progress)
    except ValueError as e:
        return _fail(str(e))
    payload = rater_model.contract_payload(model)
    print(json.dumps(payload, indent=2) if args.json else rater_model.model_text(payload))
    return 0


def _write_raters_csv(payload: dict, path: str, raw: bool) -> None:
    """The payload's raters[] as CSV at `path` through the one writer (analytics.csv_out; neutralised for
    spreadsheets unless `raw`): one column per key, the interval ends as their own numeric columns (the JSON's
    ci95 pair is cohen_kappa_ci_low and cohen_kappa_ci_high)."""
    import pandas as pd

    from analytics import csv_out

    rows = pd.DataFrame([{k: v for k, v in r.items() if k not in ("ci95", "ci95_of")} for r in payload["raters"]])
    Path(path).write_bytes(csv_out.to_csv_bytes(rows, raw=raw))


REPORT_SUFFIX = {"html": ".html", "md": ".md", "csv": ".csv"}


def cmd_report(args: argparse.Namespace) -> int:
    """Feedback report cards (analytics.feedback, exported by analytics.report) of one contractor or of every
    contractor with ratings in the dates, from the store: to stdout, or one file per contractor in --out."""
    from analytics.filters import Filters

    if args.all and not args.out:
        return _fail("--all writes one file per contractor: give --out DIR")
    if args.json and not args.out:
        return _fail("--json lists the files written: give --out DIR")
    try:
        dates = [_date(flag, text) for flag, text in (("--from", args.date_from), ("--to", args.date_to))]
    except ValueError as e:
        return _fail(str(e))
    if dates[0] and dates[1] and dates[0] > dates[1]:
        return _fail(f"--from {dates[0]} is after --to {dates[1]}")
    filters = Filters(rubric=args.rubric, date_from=dates[0], date_to=dates[1])
    try:
        con = store.open_store(args.db, read_only=True)
    except store.StoreError as e:
        return _fail(str(e))
    try:
        raters = _report_raters(con, args.rater, filters)
    except ValueError as e:
        return _fail(str(e))
    out = Path(args.out) if args.out else None
    try:
        if out:
            out.mkdir(parents=True, exist_ok=True)
        written = _write_reports(con, raters, filters, args, out)
    except OSError as e:
        return _fail(f"cannot write to {args.out}: {e.strerror or e}")
    if args.json:
        print(json.dumps({"reports": written}, indent=2))
    elif out:
        for w in written:
            print(f"{w['rater_id']}: {w['file']}")
    return 0


def _date(flag: str, text: str | None) -> Any:
    """A date option's value (None when not given); ValueError names the option and the expected form."""
    import datetime as dt

    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{flag} {text!r} is not a date: give it as YYYY-MM-DD") from None


def _report_raters(con: Any, rater: str | None, filters: Any) -> list[str]:
    """The contractors to report on: `rater` (ValueError when no contractor has that id, or no ratings under the
    filter), else every contractor with ratings under the filter (ValueError when none has)."""
    period = _period(filters)
    ids = "SELECT DISTINCT rater_id FROM ratings WHERE role = 'contractor' AND {} ORDER BY 1"
    where, params = filters.where_named()
    if rater is not None:
        if not con.execute(ids.format("rater_id = $rater"), {"rater": rater}).fetchall():
            raise ValueError(f"unknown contractor {rater!r}: no contractor with that id has ratings in the store")
        if not con.execute(ids.format(f"rater_id = $rater AND {where}"), {**params, "rater": rater}).fetchall():
            raise ValueError(f"contractor {rater!r} has no ratings {period}")
        return [rater]
    found = [r for (r,) in con.execute(ids.format(where), params).fetchall()]
    if not found:
        raise ValueError(f"no contractor has ratings {period}")
    return found


def _period(filters: Any) -> str:
    """The filter's rubric and dates in words ("from 2026-03-02 to 2026-03-08 in rubric x")."""
    if filters.date_from or filters.date_to:
        text = f"from {filters.date_from or 'the start'} to {filters.date_to or 'the end'}"
    else:
        text = "at any date"
    return text + (f" in rubric {filters.rubric}" if filters.rubric else "")


def _write_reports(con: Any, raters: list[str], filters: Any, args: argparse.Namespace, out: Path | None) -> list:
    """Each contractor's report in the chosen format, to stdout or one file each in `out`; the files written."""
    import datetime as dt

    from analytics import feedback, report

    render = {"html": report.to_html, "md": report.to_markdown, "csv": lambda rep, _: report.to_csv(rep)}[args.format]
    team = feedback.team_figures(con, filters)
    generated = dt.datetime.now()
    written: list[dict[str, str]] = []
    used: set[str] = set()
    for rater in raters:
        rep = feedback.feedback_report(con, rater, filters, team, n_boot=args.n_boot, seed=args.seed)
        text = render(rep, generated)
        if out is None:
            sys.stdout.write(text)
            continue
        stem = report.file_stem(rep)
        name, i = stem, 1
        while name in used:  # two ids that differ only in characters a file name cannot hold
            i += 1
            name = f"{stem}_{i}"
        used.add(name)
        path = out / f"{name}{REPORT_SUFFIX[args.format]}"
        path.write_text(text, encoding="utf-8")
        written.append({"rater_id": rater, "file": str(path)})
    return written


def cmd_datasets(args: argparse.Namespace) -> int:
    """List the real public datasets Concord reads: where each file is, its format, whether it is on this
    machine and loaded in the store."""
    from analytics import datasets

    con = None
    note = None
    if store.db_path(args.db).is_file():
        try:
            con = store.open_store(args.db, read_only=True)
        except store.StoreError as e:
            note = f"loaded is unknown: {e}"
    rows = datasets.listing(con)
    if con is not None:
        con.close()
    if note:
        print(note, file=sys.stderr)
        rows = [{**r, "loaded": None} for r in rows]
    if args.json:
        print(json.dumps({"datasets": rows}, indent=1))
        return 0
    if not rows:
        print("No dataset adapter is installed.")
    for r in rows:
        state = "loaded" if r["loaded"] else "present" if r["present"] else "absent"
        print(f"{r['name']}: {state} ({r['format']}) {r['path']}")
    print(f"Real-data folder: {datasets.real_data_dir()} (set CONCORD_REAL_DATA to use another)")
    return 0


def _add_engine(p: argparse.ArgumentParser) -> None:
    """--engine: where the heavy aggregation runs (docs/scale-out.md)."""
    p.add_argument(
        "--engine",
        default="duckdb",
        choices=["duckdb", "spark"],
        help="duckdb (default, in this process) or spark (local mode, a cluster or $SPARK_REMOTE; docs/scale-out.md)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="python -m analytics", description="Concord: rating-data quality")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="load files (and declared scales) into the store")
    p.add_argument("files", nargs="*", help="rating files to load (none: only declare --scales)")
    p.add_argument("--scales", default=None, metavar="PATH", help="a scales file declaring dimensions' scales (JSON)")
    p.add_argument("--db", default=None, help="DuckDB store (default $CONCORD_DB or data/concord.duckdb)")
    p.add_argument("--format", default="auto", choices=["auto", *FORMATS])
    p.add_argument("--role", default=None, choices=["contractor", "researcher"], help="declare every row's role")
    p.add_argument(
        "--undated-at",
        default=None,
        metavar="DATE",
        help="the submitted_at of records whose format carries no dates (article Likert); default: the load time",
    )
    _add_format_options(p)
    p.add_argument("--json", action="store_true")
    _add_engine(p)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("demo", help="write the demo inputs (data/demo/)")
    p.add_argument("--out", default=str(store.ROOT / "data" / "demo"))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--load", action="store_true", help="also load them into the store")
    p.add_argument("--db", default=None)
    _add_engine(p)
    p.set_defaults(func=cmd_demo)

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
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--csv",
        default=None,
        metavar="PATH",
        help="also write raters[] (each contractor against researchers) as CSV; cells a spreadsheet would run "
        "as formulas get a leading apostrophe",
    )
    p.add_argument("--raw", action="store_true", help="with --csv: write cells exactly as they are")
    _add_format_options(p)
    _add_engine(p)
    p.add_argument(
        "--spark-master", default=None, metavar="URL", help="--engine spark: local[*] (default), spark://HOST:PORT, ..."
    )
    p.add_argument(
        "--spark-table", default=None, metavar="NAME", help="--engine spark: read this table of canonical ratings"
    )
    p.set_defaults(func=cmd_agreement)

    for name, func, text in (
        ("consistency", cmd_consistency, "the rubric documents' rules checked on every submission"),
        ("effects", cmd_effects, "rater effects per contractor (leniency, ties, position bias, ...) with flags"),
        ("model", cmd_model, "the rater model: accuracy per rater and a consensus label per unit"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("files", nargs="*", help="read these files alone (in memory); none: the store")
        p.add_argument("--format", default="auto", choices=["auto", *FORMATS])
        p.add_argument(
            "--db", default=None, help="DuckDB store when no file is given (default $CONCORD_DB or data/concord.duckdb)"
        )
        p.add_argument("--rubric", default=None, help="only this rubric")
        p.add_argument("--json", action="store_true")
        if name == "model":
            p.add_argument("--seed", type=int, default=0, help="seed of the resamples behind the intervals")
        _add_format_options(p)
        _add_engine(p)
        p.set_defaults(func=func)

    p = sub.add_parser("report", help="feedback report cards of contractors, from the store")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--rater", default=None, metavar="ID", help="the contractor to report on")
    who.add_argument("--all", action="store_true", help="every contractor with ratings in the dates (needs --out)")
    p.add_argument("--format", required=True, choices=["html", "md", "csv"], help="the report's file format")
    p.add_argument("--out", default=None, metavar="DIR", help="write one file per contractor here (default: stdout)")
    p.add_argument("--from", dest="date_from", default=None, metavar="DATE", help="first day (YYYY-MM-DD)")
    p.add_argument("--to", dest="date_to", default=None, metavar="DATE", help="last day, included (YYYY-MM-DD)")
    p.add_argument("--rubric", default=None, help="only this rubric")
    p.add_argument("--db", default=None, help="DuckDB store (default $CONCORD_DB or data/concord.duckdb)")
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for the 95%% intervals (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help='print {"reports": [{"rater_id", "file"}]} (needs --out)')
    _add_engine(p)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("datasets", help="the real public datasets Concord reads, present and loaded")
    p.add_argument("--db", default=None, help="DuckDB store (default $CONCORD_DB or data/concord.duckdb)")
    p.add_argument("--json", action="store_true", help='print {"datasets": [{"name", "path", "format", "loaded"}]}')
    _add_engine(p)
    p.set_defaults(func=cmd_datasets)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; exit code 2 with one clear line on bad input."""
    args = build_parser().parse_args(argv)
    if args.engine == "spark" and args.command != "agreement":
        return _fail(
            f"--engine spark is supported by 'agreement' only for now; run '{args.command}' with --engine duckdb"
        )
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
