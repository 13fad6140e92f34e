"""`report`: feedback report cards (analytics.feedback, exported by analytics.feedback.export) of one contractor or of every
contractor with ratings in the dates, from the store: to stdout, or one file per contractor in --out."""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import secrets
import sys
from pathlib import Path
from typing import Any

from analytics import store
from analytics.cli.flags import add_engine
from analytics.cli.inputs import date_option
from analytics.cli.json_out import json_text
from analytics.cli.terminal import fail, progress_on_terminal

REPORT_SUFFIX = {"html": ".html", "md": ".md", "csv": ".csv"}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `report` subcommand and its flags."""
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
    add_engine(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Feedback report cards of one contractor or of every contractor with ratings in the dates, from the store:
    to stdout, or one file per contractor in --out."""
    from analytics.cli.reading import open_for_reading
    from analytics.core.filters import Filters

    if args.all and not args.out:
        return fail("--all writes one file per contractor: give --out DIR")
    if args.json and not args.out:
        return fail("--json lists the files written: give --out DIR")
    try:
        dates = [date_option(flag, text) for flag, text in (("--from", args.date_from), ("--to", args.date_to))]
    except ValueError as e:
        return fail(str(e))
    if dates[0] and dates[1] and dates[0] > dates[1]:
        return fail(f"--from {dates[0]} is after --to {dates[1]}")
    filters = Filters(rubric=args.rubric, date_from=dates[0], date_to=dates[1])
    try:
        con = open_for_reading(args.db)
    except store.StoreError as e:
        return fail(str(e))
    try:
        return _reports_out(con, filters, args)
    finally:
        con.close()


def _reports_out(con: Any, filters: Any, args: argparse.Namespace) -> int:
    """Write the reports of the chosen contractors and list the files (exit 2 with the reason when none can be)."""
    try:
        raters = _report_raters(con, args.rater, filters)
    except ValueError as e:
        return fail(str(e))
    out = Path(args.out) if args.out else None
    try:
        if out:
            out.mkdir(parents=True, exist_ok=True)
        written = _write_reports(con, raters, filters, args, out)
    except OSError as e:
        return fail(f"cannot write to {args.out}: {e.strerror or e}")
    if args.json:
        print(json_text({"reports": written}))
    elif out:
        for w in written:
            print(f"{w['rater_id']}: {w['file']}")
    return 0


def _report_raters(con: Any, rater: str | None, filters: Any) -> list[str]:
    """The contractors to report on: `rater` (ValueError when no contractor has that id, or no ratings under the
    filter), else every contractor with ratings under the filter (ValueError when none has)."""
    from analytics.core.queries import Query

    def contractors(where: str, params: dict[str, Any]) -> Query:
        sql = f"SELECT DISTINCT rater_id FROM ratings WHERE role = 'contractor' AND {where} ORDER BY 1"
        return Query("report_contractors", sql, params)

    period = _period(filters)
    where, params = filters.where_named()
    if rater is not None:
        if not contractors("rater_id = $rater", {"rater": rater}).rows(con):
            raise ValueError(f"unknown contractor {rater!r}: no contractor with that id has ratings in the store")
        if not contractors(f"rater_id = $rater AND {where}", {**params, "rater": rater}).rows(con):
            raise ValueError(f"contractor {rater!r} has no ratings {period}")
        return [rater]
    found = [r for (r,) in contractors(where, params).rows(con)]
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


def _write_reports(
    con: Any, raters: list[str], filters: Any, args: argparse.Namespace, out: Path | None
) -> list[dict[str, str]]:
    """Each contractor's report in the chosen format, to stdout or one file each in `out`; the files written."""
    from analytics import feedback
    from analytics.feedback import export as report

    render = {"html": report.to_html, "md": report.to_markdown, "csv": lambda rep, _: report.to_csv(rep)}[args.format]
    say = progress_on_terminal("report") or (lambda share, what: None)  # minutes for --all on a large store
    say(0.0, "the team's figures")
    team = feedback.team_figures(con, filters)
    generated = dt.datetime.now()
    written: list[dict[str, str]] = []
    used: set[str] = set()
    reports = feedback.feedback_reports(con, raters, filters, team, n_boot=args.n_boot, seed=args.seed)
    for i, (rater, rep) in enumerate(zip(raters, reports, strict=True)):
        say(i / len(raters), f"{rater}, {i + 1} of {len(raters)}")
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
        write_unfollowed(path, text)
        written.append({"rater_id": rater, "file": str(path)})
    say(1.0, f"{len(raters)} report(s) written")
    return written


def write_unfollowed(path: Path, text: str) -> None:
    """Write `text` to `path` without following a link: into a new file of a random name in the same folder
    (created exclusively, never through a link), then renamed over `path`, which replaces a link planted under
    that name instead of writing where it points."""
    tmp = path.with_name(f".{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
