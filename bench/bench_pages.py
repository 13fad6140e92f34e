"""Page responsiveness: how long a sidebar filter change takes to finish on each page, at benchmark scale.

    .venv/bin/python bench/bench_pages.py --tasks 1000000 [--db /tmp/pages.duckdb] [--repeat 3]

Two measurements per page, both after a warm-up run (so the store's pages are in the OS cache and Streamlit's
caches hold the default view) and then with the date filter changed (every page loader misses its cache):

- `apptest`: AppTest of app.py on the page; the wall time of the `.run()` that follows setting the sidebar's
  date range. This is the whole rerun: router, sidebar, the page's cached loaders on a miss, charts.
- `direct`: the analytics calls each page's cached loaders make on a cache miss, called directly and timed
  one by one, to show where the time goes.

The store is loaded from bench/data/ratings_<tasks>.parquet (written by bench/generate.py if missing) into
--db (kept between runs when given: loading 24M ratings takes about a minute).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

PAGES = {
    "Overview": "app_pages/overview.py",
    "Agreement": "app_pages/agreement.py",
    "Distributions": "app_pages/distributions.py",
    "Disagreements": "app_pages/disagreements.py",
    "Feedback": "app_pages/feedback.py",
}
# The page #11 did not name that reads these ratings, measured beside them by bench/run_all.py against issue 51's
# targets: Raters (its effects sections; its rater model is fitted only when its button is clicked, with progress,
# then cached, and this row does not click it). Consistency would be empty here (its rules are checked on rubric
# documents, not the long format): run_all times it on bench/documents_store.py's store.
OTHER_PAGES = {"Raters": "app_pages/raters.py"}
CHANGED_FROM = dt.date(2026, 1, 12)  # the benchmark's ratings run from 2026-01-05 for 8 weeks


def build_store(n_tasks: int, db: Path) -> None:
    """Load the benchmark Parquet file into a new store at `db` (generating the data when missing)."""
    from analytics import store
    from analytics.ingest.load import ingest_file

    data = HERE / "data" / f"ratings_{n_tasks}.parquet"
    if not data.exists():
        sys.path.insert(0, str(HERE))
        from generate import generate

        generate(n_tasks, HERE / "data")
    con = store.open_store(db)
    t = time.perf_counter()
    r = ingest_file(con, data)
    con.close()
    print(f"loaded {r.rows_loaded:,} ratings in {time.perf_counter() - t:.0f} s ({r.status})", flush=True)


def timed(label: str, fn, out: list) -> object:
    """Run fn(), append (label, seconds) to out, return its result."""
    t = time.perf_counter()
    result = fn()
    out.append((label, time.perf_counter() - t))
    return result


def direct(con, filters, contractor: str) -> dict[str, list[tuple[str, float]]]:
    """Each page's loader calls on a cache miss, timed one by one."""
    from analytics.describe import distributions as dist
    from analytics.describe import overview
    from analytics.feedback import report, team
    from analytics.feedback.export import csv, html, markdown
    from analytics.review import disagreements as dis

    rubric = "answer_comparison"  # the only rubric of the benchmark data (the pages' default)
    out: dict[str, list] = {p: [] for p in PAGES}
    o = out["Overview"]
    timed("activity (summary, volume by rubric, raters)", lambda: overview.activity(con, filters), o)
    timed("volume_by_week", lambda: overview.volume_by_week(con, filters), o)
    timed("submission_status", lambda: overview.submission_status(con, filters), o)
    a = out["Agreement"]  # the page's default view: contractors against researchers, the first rubric
    from analytics import agreement

    timed(
        "agreement_report",
        lambda: agreement.agreement_report(con, agreement.AgreementSpec(filters=filters.but(rubric=rubric))),
        a,
    )
    d = out["Distributions"]
    timed("dimensions", lambda: dist.dimensions(con, rubric), d)
    timed("level_distribution", lambda: dist.level_distribution(con, rubric, filters), d)
    timed("position_bias", lambda: dist.position_bias(con, rubric, filters), d)
    timed("shift_from_researchers", lambda: dist.shift_from_researchers(con, rubric, filters), d)
    primary = dis.primary_dimension(con, rubric)
    timed("rater_levels", lambda: dist.rater_levels(con, rubric, primary, filters), d)
    timed("rater_level_table", lambda: dist.rater_level_table(con, rubric, primary, filters), d)
    g = out["Disagreements"]
    cases = timed("disagreements", lambda: dis.disagreements(con, rubric, filters), g)
    if cases.empty:  # the benchmark has no comparison dimension: time the same query on an absolute one
        cases = timed(
            "disagreements on usefulness (proxy)",
            lambda: dis.disagreements(con, rubric, filters, dimension="usefulness"),
            g,
        )
    key = dis.CaseKey.from_row(cases.iloc[0])
    timed("unit_detail", lambda: dis.unit_detail(con, key.task_id, key.rubric), g)
    timed("notes_for", lambda: dis.notes_for(con, key=key), g)
    f = out["Feedback"]
    ceiling = team.researcher_figures(con, filters.rubric)  # cached by the page: dates do not change it
    figures = timed("team_figures", lambda: team.team_figures(con, filters, ceiling), f)
    rep = timed("feedback_report", lambda: report.feedback_report(con, contractor, filters, figures), f)
    timed("exports", lambda: (markdown.to_markdown(rep), html.to_html(rep), csv.disagreements_csv(rep)), f)
    return out


def feedback_parts(con, filters, contractor: str) -> list[tuple[str, float]]:
    """The pieces of feedback_report, timed one by one (where the Feedback page's time goes)."""
    from analytics import agreement as ag
    from analytics.feedback import cases, durations, levels, scope, team, weekly

    out: list = []
    f_team = scope.team_filter(filters)
    timed(
        "team: rater_agreement contractors (n_boot=0)",
        lambda: ag.rater_agreement(con, ag.AgreementSpec(n_boot=0, filters=f_team)),
        out,
    )
    timed(
        "ceiling: researcher_figures (all dates; cached across date changes, not in the page's total)",
        lambda: team.researcher_figures(con, filters.rubric),
        out,
    )
    timed("team: weekly pairs per contractor", lambda: weekly.weekly_by_contractor(con, f_team), out)
    timed("team: durations", lambda: durations.contractor_durations(con, f_team), out)
    f_one = scope.subject_filter(filters, contractor)
    timed(
        "one: rater_agreement (n_boot=1000)",
        lambda: ag.rater_agreement(con, ag.AgreementSpec(n_boot=1000, filters=f_one)),
        out,
    )
    timed("one: weekly pairs per task", lambda: weekly.weekly_by_task(con, contractor, filters), out)
    timed("one: levels vs researchers", lambda: levels.levels_vs_researchers(con, contractor, filters), out)
    timed("one: severe cases", lambda: cases.severe_cases(con, contractor, filters), out)
    timed(
        "one: span and rubrics",
        lambda: (scope.span_query(contractor, filters).rows(con), scope.contractor_rubrics(con, contractor, filters)),
        out,
    )
    return out


def apptest(page: str, contractor: str, changed_from: dt.date = CHANGED_FROM) -> tuple[float, float, float]:
    """Seconds of the page's first visit (caches cleared; the app's start page shown before it, but for that page
    itself), of a warm rerun, and of the rerun after the sidebar's date range starts at `changed_from`."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()
    t = time.perf_counter()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600).run()
    opened = time.perf_counter() - t
    if not page.endswith("overview.py"):  # the start page
        t = time.perf_counter()
        at.switch_page(page).run()
        opened = time.perf_counter() - t
    if page.endswith("feedback.py"):
        at.selectbox(key="fb_contractor").select(contractor).run()
    t = time.perf_counter()
    at.run()  # warm: every loader answers from its cache
    warm = time.perf_counter() - t
    lo, hi = at.sidebar.date_input(key="f_dates").value
    at.sidebar.date_input(key="f_dates").set_value((changed_from, hi))
    t = time.perf_counter()
    at.run()
    changed = time.perf_counter() - t
    if at.exception:
        raise RuntimeError(f"{page}: {at.exception}")
    return opened, warm, changed


def contractor_with_pairs(con) -> str:
    """The first contractor (by id) who rated a unit a researcher also rated (not every one does here)."""
    return con.execute(
        """SELECT min(c.rater_id) FROM ratings c JOIN ratings x USING (task_id, rubric, dimension, target)
           WHERE c.role = 'contractor' AND x.role = 'researcher'"""
    ).fetchall()[0][0]


def machine() -> str:
    """Cores, memory, CPU model, Python and DuckDB versions."""
    import duckdb

    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    cpu = next(
        (ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines() if "model name" in ln),
        platform.processor(),
    )
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, Python {platform.python_version()}, DuckDB {duckdb.__version__}"


def main() -> None:
    """Build or reuse the store, then print both measurements per page."""
    p = argparse.ArgumentParser()
    p.add_argument("--tasks", type=int, default=1_000_000)
    p.add_argument("--db", default=None, help="store file (kept); default: a new temp file")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--contractor", default=None, help="default: the first contractor sharing units with a researcher")
    args = p.parse_args()
    db = Path(args.db or f"/tmp/concord_bench_pages_{args.tasks}.duckdb")
    if not db.exists():
        build_store(args.tasks, db)
    os.environ["CONCORD_DB"] = str(db)
    os.environ["CONCORD_DEMO_DIR"] = str(db.parent / "no-demo")

    from analytics import store
    from analytics.core.filters import Filters

    print(machine())
    print(f"load average before: {os.getloadavg()}")
    con = store.open_store(db)
    filters = Filters(date_from=CHANGED_FROM)
    args.contractor = args.contractor or contractor_with_pairs(con)
    print(f"Feedback for contractor {args.contractor}")
    runs = [direct(con, filters, args.contractor) for _ in range(args.repeat)]
    parts = [feedback_parts(con, filters, args.contractor) for _ in range(args.repeat)]
    con.close()
    print("\ndirect analytics calls (median of runs, seconds):")
    for page in PAGES:
        steps = [(label, statistics.median(r[page][i][1] for r in runs)) for i, (label, _) in enumerate(runs[0][page])]
        total = statistics.median(sum(s for _, s in r[page]) for r in runs)
        print(f"  {page}: {total:.2f}  (" + ", ".join(f"{label} {s:.2f}" for label, s in steps) + ")")
    print("  Feedback, piece by piece:")
    for i, (label, _) in enumerate(parts[0]):
        print(f"    {label}: {statistics.median(r[i][1] for r in parts):.2f}")
    print("\nAppTest: rerun after changing the sidebar's date range (median of runs, seconds; warm rerun beside):")
    for page, path in PAGES.items():
        results = [apptest(path, args.contractor) for _ in range(args.repeat)]
        print(
            f"  {page}: {statistics.median(c for *_, c in results):.2f} "
            f"(runs {', '.join(f'{c:.2f}' for *_, c in results)}; warm rerun "
            f"{statistics.median(w for _, w, _ in results):.2f}; first visit {statistics.median(o for o, *_ in results):.2f})",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
