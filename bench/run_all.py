"""Every benchmark of issues #11 and 51 in one run, each figure beside its reference measured in the same run.

    .venv/bin/python bench/run_all.py --tasks 1000000            # an hour or more at 1M tasks; writes bench/RESULTS.md
    .venv/bin/python bench/run_all.py --tasks 20000 --cli-tasks 20000 --repeat 1 --results /tmp/results_test.md

What runs (each measurement in a child process of its own, so its peak RSS is its own):

- ingest: the Parquet and the CSV file of --tasks tasks loaded into a new store with `ingest_file`, beside
  DuckDB's own `CREATE TABLE AS SELECT * FROM read_parquet/read_csv` of the same file (bench_ingest.py's
  `measure` and `reference`). Targets: Parquet <= 2x DuckDB's, CSV <= 2.5x and peak < 4 GB. A load commits the
  ratings and every kept table in one transaction: "durable" and "figures ready" are the same moment.
- floor: the one-pass floor, `SELECT rubric, dimension, task_id, count(*) FROM ratings GROUP BY ALL` over the
  store of --tasks tasks (once to warm up, then timed): the reference of every page.
- pages: Overview, Agreement, Distributions, Disagreements, Feedback and Raters through AppTest, the rerun after
  the sidebar's date range changes (bench_pages.py's `apptest`; one child per page). Target: <= the floor; the
  Raters page also its first visit <= 3x the floor and a peak under 2 GB (issue 51; its rater model is fitted on
  demand and not clicked here).
- cli: `python -m analytics agreement FILE --json` (whole process) with the default 1,000-resample intervals and
  with `--n-boot 0`, on the Parquet files of --cli-tasks tasks of --shape and of the many-raters shape, beside the
  naive pandas + scikit-learn + krippendorff script's point estimates on the same file (bench_agreement.py's naive
  child). Targets (issue 51): >= 5x faster with intervals, >= 10x without.
- agreement: the full agreement (`python -m analytics agreement --db STORE --json`) on the store of --tasks tasks,
  whole process and in-process (`contract_payload` alone, after the store is open), and `--pairs` whole process.
  Targets: <= 1.5 s in-process and <= 10 s with --pairs at 1M, each under 2 GB.
- report: `python -m analytics report --all` on the store, every contractor's card, whole process, once. Target:
  <= 2 minutes at 1M.
- consistency: the Consistency page through AppTest, its first visit and its rerun after the date range changes,
  on a store of --tasks tasks in the rubric documents' shape (bench/documents_store.py: the demo copied; built in
  --store-dir when missing, about 10 minutes at 1M), against that store's own one-pass floor. Targets as the
  Raters page's (issue 51 item 4).

Data: bench/generate.py, generated under bench/data/ when missing, of --shape (default full: comparison
dimensions, both answers, two researchers on some tasks, 17 weeks of dates; the flat shape has no comparison
dimension, so the Disagreements page would be empty), and the many-raters shape for the command line. The store is
built in --store-dir (kept and reused when given; a temporary directory otherwise). Times are medians of --repeat
runs.

The results replace the section between `<!-- run_all:begin -->` and `<!-- run_all:end -->` of --results
(default bench/RESULTS.md; inserted before the first section when the markers are missing); the rest of the file
is left as it is. The load test (bench_load.py, a real server for minutes) is not part of this run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

import bench_agreement  # noqa: E402
import bench_ingest  # noqa: E402
import bench_pages  # noqa: E402
import documents_store  # noqa: E402

BEGIN, END = "<!-- run_all:begin -->", "<!-- run_all:end -->"
STEPS = ("ingest", "floor", "pages", "cli", "naive", "agreement", "report", "consistency")
PAGES = bench_pages.PAGES  # the pages #11 names, in the navigation's order
OTHER_PAGES = bench_pages.OTHER_PAGES  # the Raters page, which #11 does not name, timed beside them
MB_TARGET = 2048  # issue 51: the full agreement, --pairs and the Raters page under 2 GB
FLOOR_SQL = "SELECT rubric, dimension, task_id, count(*) FROM ratings GROUP BY ALL"
RUBRIC = "answer_comparison"  # the benchmark data's only rubric
MB_LIMIT = 4096


@dataclass
class Figure:
    """One row of the table: a measurement, its reference from the same run, the #11 target and the verdict."""

    name: str
    data: str
    seconds: float | None
    runs: list[float] = field(default_factory=list)
    peak_mb: float | None = None
    ref_name: str = ""
    ref_seconds: float | None = None
    ref_runs: list[float] = field(default_factory=list)
    ref_peak_mb: float | None = None
    target: str = ""
    met: bool | None = None  # None: no target, or nothing to judge it against
    note: str = ""

    @property
    def ratio(self) -> float | None:
        """The figure over its reference."""
        if self.seconds is None or not self.ref_seconds:
            return None
        return self.seconds / self.ref_seconds


# --- child processes ---------------------------------------------------------------------------------------


def child_store_facts(db: str) -> dict:
    """Ratings in the store, the Feedback page's contractor, and the Disagreements page's cases after the date
    change (to show that page is not timed on an empty result)."""
    from analytics import store
    from analytics.core.filters import Filters
    from analytics.review import disagreements

    con = store.open_store(db, read_only=True)
    ratings = con.execute("SELECT count(*) FROM ratings").fetchall()[0][0]
    contractor = bench_pages.contractor_with_pairs(con)
    cases = len(disagreements.disagreements(con, RUBRIC, Filters(date_from=bench_pages.CHANGED_FROM)))
    con.close()
    return {"ratings": ratings, "contractor": contractor, "cases": cases}


def child_floor(db: str, repeat: int) -> dict:
    """The one-pass floor over the store: one warm-up run, then `repeat` timed runs (all groups aggregated)."""
    import duckdb

    con = duckdb.connect(db, read_only=True)
    query = f"SELECT count(*), sum(n) FROM ({FLOOR_SQL.replace('count(*)', 'count(*) AS n', 1)})"
    groups = con.execute(query).fetchall()[0]
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        con.execute(query).fetchall()
        runs.append(time.perf_counter() - t)
    con.close()
    return {"runs": runs, "groups": groups[0], "ratings": groups[1]}


def child_page(db: str, page: str, contractor: str, repeat: int, changed_from: str) -> dict:
    """One page through AppTest: the rerun after the sidebar's date range starts at `changed_from`, `repeat`
    times (bench_pages.apptest)."""
    os.environ["CONCORD_DB"] = db
    os.environ["CONCORD_DEMO_DIR"] = str(Path(db).parent / "no-demo")
    start = dt.date.fromisoformat(changed_from)
    results = [bench_pages.apptest(page, contractor, start) for _ in range(repeat)]
    return {
        "runs": [changed for *_, changed in results],
        "warm": [warm for _, warm, _ in results],
        "opened": [opened for opened, *_ in results],
    }


def child_documents_facts(db: str) -> dict:
    """Ratings and submissions of the documents store, and the violations the Consistency page lists after the
    date change (to show the page is not timed on an empty result)."""
    from analytics import store
    from analytics.consistency import rates
    from analytics.core.filters import Filters

    con = store.open_store(db, read_only=True)
    facts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in ("ratings", "submissions")}
    facts["violations"] = len(rates.consistency(con, Filters(date_from=documents_store.CHANGED_FROM)).violations)
    con.close()
    return facts


def child_machine() -> dict:
    """Cores, memory, CPU model, Python and DuckDB versions (bench_pages.machine, which imports DuckDB)."""
    return {"machine": bench_pages.machine()}


def child_agreement(db: str) -> dict:
    """The command line's full agreement computation in-process: `contract_payload` on the open store."""
    from analytics import agreement, store
    from analytics.core.filters import Filters

    con = store.open_store(db, read_only=True)
    t = time.perf_counter()
    payload = agreement.contract_payload(
        con, agreement.AgreementSpec(coarse=False, level=None, n_boot=1000, seed=0, filters=Filters())
    )
    seconds = time.perf_counter() - t
    con.close()
    return {"seconds": seconds, "rows": {k: len(v) for k, v in payload.items() if isinstance(v, list)}}


CHILDREN = {
    "ingest": bench_agreement.child_ingest,
    "store_facts": child_store_facts,
    "floor": child_floor,
    "page": child_page,
    "documents_facts": child_documents_facts,
    "agreement": child_agreement,
    "machine": child_machine,
}


def run(cmd: list[str]) -> dict:
    """Run a command to its end; its wall time, peak RSS (of that process alone), load average around it and,
    when it printed a JSON line last, that object.

    Linux carries the peak RSS of the process image a child replaced over exec, and a child started with vfork
    (as subprocess does) replaced its parent's: so a child's peak is at least this process's peak. This process
    therefore stays small (no DuckDB, no pandas, no data generated here)."""
    before = os.getloadavg()[0]
    t = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}):\n{stderr[-3000:]}")
    result: dict = {}
    lines = stdout.strip().splitlines()
    if lines and lines[-1].startswith("{"):
        result = json.loads(lines[-1])
    result.update(
        wall=wall, peak_mb=usage.ru_maxrss / 1024, load=[before, os.getloadavg()[0]], stdout_bytes=len(stdout)
    )
    return result


def child(kind: str, *args) -> dict:
    """One of CHILDREN in a fresh Python process."""
    return run([sys.executable, str(Path(__file__).resolve()), "--child", kind, json.dumps(args)])


# --- measurements ------------------------------------------------------------------------------------------


def data_files(n: int, shape: str) -> dict[str, Path]:
    """The Parquet and CSV files of n tasks of `shape`, generated when missing (by bench/generate.py in a child
    process, like everything heavy here: a child's peak RSS starts at its parent's peak, see `run`)."""
    sys.path.insert(0, str(HERE))
    from generate import SUFFIX

    stem = f"ratings_{n}{SUFFIX[shape]}"
    paths = {k: HERE / "data" / f"{stem}.{k}" for k in ("parquet", "csv")}
    if not all(p.exists() for p in paths.values()):
        print(f"generating {n:,} tasks ({shape} shape) ...", flush=True)
        run([sys.executable, str(HERE / "generate.py"), "--tasks", str(n), "--shape", shape])
    return paths


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def tasks_text(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 1_000_000 and n % 100_000 == 0 else f"{n / 1000:g}k" if n >= 1000 else str(n)


def measure_ingest(paths: dict[str, Path], data: str, repeat: int) -> list[Figure]:
    """Concord's load of each file beside DuckDB's own, `repeat` times each, alternating."""
    reference = getattr(bench_ingest, "reference", None)  # DuckDB's load: bench_ingest.py has it since #11
    figures = []
    for fmt, path in paths.items():
        ours, ref = [], []
        for _ in range(repeat):
            if reference is not None:
                ref.append(reference(path, fmt))
            ours.append(bench_ingest.measure(path))
            print(
                f"  ingest {fmt}: {ours[-1]['seconds']:.2f} s"
                + (f", DuckDB {ref[-1]['seconds']:.2f} s" if ref else ""),
                flush=True,
            )
        reader = "read_parquet" if fmt == "parquet" else "read_csv"
        f = Figure(
            name=f"{'Parquet' if fmt == 'parquet' else 'CSV'} load into a new store (`ingest_file`)",
            data=f"{data}, {ours[0]['rows']:,} ratings, {path.stat().st_size / 1e6:.0f} MB {fmt}",
            seconds=median([r["seconds"] for r in ours]),
            runs=[r["seconds"] for r in ours],
            peak_mb=max(r["peak_mb"] for r in ours),
            target="<= 2x DuckDB's" if fmt == "parquet" else f"<= 2.5x DuckDB's, peak < {MB_LIMIT // 1024} GB",
        )
        if ref:
            f.ref_name = f"DuckDB `CREATE TABLE AS SELECT * FROM {reader}(file)`"
            f.ref_seconds = median([r["seconds"] for r in ref])
            f.ref_runs = [r["seconds"] for r in ref]
            f.ref_peak_mb = max(r["peak_mb"] for r in ref)
            ratio = f.ratio if f.ratio is not None else float("inf")
            f.met = ratio <= 2 if fmt == "parquet" else ratio <= 2.5 and (f.peak_mb or 0) < MB_LIMIT
        else:
            f.note = "DuckDB's load not measured (bench_ingest.py has no `reference` in this checkout)"
        if any(r["status"] != "loaded" or r["quarantined"] for r in ours):
            f.note += f" status {ours[0]['status']}, {ours[0]['quarantined']} quarantined"
        figures.append(f)
    return figures


def measure_floor(db: str, data: str, repeat: int) -> Figure:
    r = child("floor", db, repeat)
    print(f"  floor: {median(r['runs']):.2f} s", flush=True)
    return Figure(
        name="One-pass floor: `" + FLOOR_SQL + "` (reference of the pages)",
        data=f"{data}, {r['groups']:,} groups",
        seconds=median(r["runs"]),
        runs=r["runs"],
        peak_mb=r["peak_mb"],
        note="one warm-up run first",
    )


def against_floor(f: Figure, floor: Figure) -> None:
    """Make the one-pass floor `f`'s reference."""
    f.ref_name, f.ref_seconds, f.ref_runs, f.ref_peak_mb = "one-pass floor", floor.seconds, floor.runs, floor.peak_mb


def measure_pages(db: str, data: str, facts: dict, floor: Figure | None, repeat: int) -> list[Figure]:
    """Every page's rerun after a sidebar date change against the floor (#11's pages, and the Raters page of issue
    51, also its first visit within 3x the floor and its peak under 2 GB)."""
    figures = []
    for page, path in {**PAGES, **OTHER_PAGES}.items():
        r = child("page", db, path, facts["contractor"], repeat, str(bench_pages.CHANGED_FROM))
        notes = {
            "Disagreements": f"; {facts['cases']:,} cases listed",
            "Feedback": f"; contractor {facts['contractor']}",
            "Raters": "; the rater model is fitted on demand (not clicked here)",
        }
        figures += page_figures(page, r, data, floor, page in OTHER_PAGES, notes.get(page, ""))
    return figures


def page_figures(page: str, r: dict, data: str, floor: Figure | None, opened: bool, note: str = "") -> list[Figure]:
    """A page's rerun after the date change (<= the floor; under 2 GB for issue 51's pages, those with `opened`)
    and, with `opened`, its first visit (<= 3x the floor, under 2 GB), from child_page's runs `r`."""
    print(f"  page {page}: {median(r['runs']):.2f} s, first visit {median(r['opened']):.2f} s", flush=True)
    peak = ", peak < 2 GB" if opened else ""
    warm = f"warm rerun {median(r['warm']):.2f} s{note}"
    rows = [("AppTest rerun after a sidebar date change", r["runs"], f"<= the one-pass floor{peak}", 1.0, warm)]
    if opened:
        rows.append(
            ("AppTest first visit (caches cleared)", r["opened"], "<= 3x the one-pass floor, peak < 2 GB", 3, "")
        )
    figures = []
    for what, runs, target, times, remark in rows:
        f = Figure(
            name=f"{page} page: {what}",
            data=data,
            seconds=median(runs),
            runs=runs,
            peak_mb=r["peak_mb"],
            target=target,
            note=remark,
        )
        if floor is not None:
            against_floor(f, floor)
            f.met = f.ratio is not None and f.ratio <= times and (not opened or r["peak_mb"] < MB_TARGET)
        figures.append(f)
    return figures


def measure_consistency(store_dir: Path, n_tasks: int, repeat: int) -> tuple[list[Figure], str]:
    """The Consistency page on a store of n_tasks tasks in the rubric documents' shape (bench/documents_store.py,
    built in `store_dir` when missing), against that store's own one-pass floor; and how the store was made."""
    db = store_dir / f"documents_{n_tasks}.duckdb"
    if not db.exists():
        print(f"building {db} (bench/documents_store.py) ...", flush=True)
        run([sys.executable, str(HERE / "documents_store.py"), "--tasks", str(n_tasks), "--db", str(db)])
    facts = child("documents_facts", str(db))
    data = f"{tasks_text(n_tasks)}-task store, rubric documents"
    floor = measure_floor(str(db), data, repeat)
    r = child("page", str(db), "app_pages/consistency.py", "", repeat, str(documents_store.CHANGED_FROM))
    note = f"; {facts['violations']:,} violations under the changed dates"
    made = (
        f"the Consistency page read a store of {tasks_text(n_tasks)} tasks in the rubric documents' shape "
        f"({facts['ratings']:,} ratings, {facts['submissions']:,} submissions: the demo copied, "
        f"bench/documents_store.py), its date range start moved to {documents_store.CHANGED_FROM}"
    )
    return [floor, *page_figures("Consistency", r, data, floor, True, note)], made


def measure_cli(files: dict[str, Path], repeat: int, naive: bool, args: argparse.Namespace) -> list[Figure]:
    """`agreement FILE --json` whole process, with the default intervals and with --n-boot 0, on each shape's
    file, against the naive script's point estimates on the same file (issue 51 item 2)."""
    figures = []
    for shape, parquet in files.items():
        data = f"{tasks_text(args.cli_tasks)} tasks, {shape} shape ({parquet.name})"
        point = peak = None
        if naive:
            with tempfile.TemporaryDirectory() as d:
                r = bench_agreement.run_child("naive_file", str(parquet), 0, 0, os.path.join(d, "naive"))
            point = sum(v for k, v in r["stages"].items() if "bootstrap" not in k)
            peak = r["peak_mb"]
            print(f"  naive on {parquet.name}: {point:.1f} s point estimates", flush=True)
        for n_boot, share in ((1000, 0.2), (0, 0.1)):
            cmd = [sys.executable, "-m", "analytics", "agreement", str(parquet), "--json", "--n-boot", str(n_boot)]
            runs = [run(cmd) for _ in range(repeat)]
            walls = [r["wall"] for r in runs]
            print(f"  cli on {parquet.name}, --n-boot {n_boot}: {median(walls):.2f} s", flush=True)
            f = Figure(
                name=f"`python -m analytics agreement FILE --json --n-boot {n_boot}`, whole process",
                data=data,
                seconds=median(walls),
                runs=walls,
                peak_mb=max(r["peak_mb"] for r in runs),
                target=f">= {round(1 / share)}x faster than the naive script's point estimates (ratio <= {share})",
                note="default 1,000-resample intervals" if n_boot else "no intervals",
            )
            if point is not None:
                f.ref_name = "naive pandas + scikit-learn + krippendorff script, point estimates"
                f.ref_seconds, f.ref_peak_mb = point, peak
                f.met = f.ratio is not None and f.ratio <= share
            figures.append(f)
    return figures


def measure_report_all(db: str, data: str) -> Figure:
    """`report --all` for every contractor of the store, whole process (issue 51 item 6), once."""
    with tempfile.TemporaryDirectory() as out:
        r = run([sys.executable, "-m", "analytics", "report", "--all", "--format", "md", "--out", out, "--db", db])
        cards = len(os.listdir(out))
    print(f"  report --all: {r['wall']:.1f} s, {cards} cards", flush=True)
    f = Figure(
        name="`python -m analytics report --all --format md --out DIR`, whole process",
        data=data,
        seconds=r["wall"],
        peak_mb=r["peak_mb"],
        target="<= 2 minutes, with a progress line",
        note=f"{cards} report cards; progress on a terminal (tests/test_cli_report.py)",
    )
    f.met = r["wall"] <= 120 and cards > 0
    return f


def measure_agreement(db: str, data: str, floor: Figure | None, repeat: int) -> list[Figure]:
    whole, inproc, pairs = [], [], []
    for _ in range(repeat):  # alternating, so that both see the same load on a shared machine
        whole.append(run([sys.executable, "-m", "analytics", "agreement", "--db", db, "--json"]))
        inproc.append(child("agreement", db))
        pairs.append(run([sys.executable, "-m", "analytics", "agreement", "--db", db, "--json", "--pairs"]))
    print(
        f"  agreement on the store: whole {median([r['wall'] for r in whole]):.2f} s, "
        f"in-process {median([r['seconds'] for r in inproc]):.2f} s",
        flush=True,
    )
    figures = []
    for name, rs, key, limit in (
        ("Full agreement `python -m analytics agreement --db STORE --json`, whole process", whole, "wall", None),
        ("Full agreement in-process (`contract_payload` after the store is open)", inproc, "seconds", 1.5),
        ("Rater pairs `python -m analytics agreement --db STORE --json --pairs`, whole process", pairs, "wall", 10),
    ):
        f = Figure(
            name=name,
            data=data,
            seconds=median([r[key] for r in rs]),
            runs=[r[key] for r in rs],
            peak_mb=max(r["peak_mb"] for r in rs),
            target="" if limit is None else f"<= {limit} s at 1M tasks, peak < 2 GB",
            note="the default output: no rater pairs (issue 51 item 1)" if rs is whole else "",
        )
        if limit is not None:
            f.met = f.seconds is not None and f.seconds <= limit and (f.peak_mb or 0) < MB_TARGET
        if floor is not None:
            against_floor(f, floor)
        figures.append(f)
    return figures


# --- results -----------------------------------------------------------------------------------------------


def _s(x: float | None) -> str:
    return "" if x is None else f"{x:.2f} s" if x < 100 else f"{x:.0f} s"


def _mb(x: float | None) -> str:
    return "" if x is None else f"{x:,.0f} MB"


def _runs(xs: list[float]) -> str:
    return f" ({', '.join(f'{x:.2f}' for x in xs)})" if len(xs) > 1 else ""


def render(figures: list[Figure], meta: dict) -> str:
    """The generated section of RESULTS.md, markers included."""
    load = meta["load_before"], meta["load_after"]
    lines = [
        BEGIN,
        "## All benchmarks in one run (bench/run_all.py)",
        "",
        "Generated by `bench/run_all.py`: everything between the `run_all` markers is replaced by its next run;",
        "the sections below it are written by hand. Each measurement ran in a child process of its own (peak = its",
        "`ru_maxrss`); times are medians of the runs in brackets; every reference was measured in the same run.",
        "",
        f"Command: `{meta['command']}`, at commit {meta.get('commit', 'unknown')}",
        "",
        f"Date: {meta['date']}; the run took {meta['minutes']:.1f} min. Machine: {meta['machine']}. Load average",
        f"(1, 5, 15 min) before {load[0]}, after {load[1]}.",
        "",
        f"Data: {meta['data']}",
        "",
        "| measurement | data | figure | reference (same run) | ratio | target (#11, issue 51) | result | peak memory (figure / reference) | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for f in figures:
        ref = f"{f.ref_name}: {_s(f.ref_seconds)}{_runs(f.ref_runs)}" if f.ref_name else ""
        ratio = (
            "" if f.ratio is None else f"{f.ratio:.2f}x" if f.ratio >= 0.1 else f"{f.ratio:.3f}x (1/{1 / f.ratio:.0f})"
        )
        result = "" if not f.target else "not judged" if f.met is None else "met" if f.met else "**missed**"
        peak = _mb(f.peak_mb) + (f" / {_mb(f.ref_peak_mb)}" if f.ref_peak_mb is not None else "")
        row = [f.name, f.data, f"{_s(f.seconds)}{_runs(f.runs)}", ref, ratio, f.target, result, peak, f.note]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
    if meta.get("skipped"):
        lines += ["", f"Not run this time (`--skip`): {', '.join(meta['skipped'])}."]
    lines += [END]
    return "\n".join(lines) + "\n"


def write_section(path: Path, section: str) -> None:
    """Put `section` (markers included) in place of the marked section of `path`, keeping the rest of the file;
    without markers, insert it before the file's first `## ` heading (or at its end); create the file if needed."""
    text = path.read_text() if path.exists() else ""
    start, end = text.find(BEGIN), text.find(END)
    if start != -1 and end > start:
        after = text[end + len(END) :]
        new = text[:start] + section.rstrip("\n") + after
    else:
        at = text.find("\n## ")
        if at == -1:
            new = text + ("\n" if text and not text.endswith("\n\n") else "") + section
        else:
            new = text[: at + 1] + section + "\n" + text[at + 1 :]
    path.write_text(new)


def write_results(path: Path, figures: list[Figure], meta: dict) -> None:
    """Render the figures and write them into the marked section of `path`."""
    write_section(path, render(figures, meta))


# --- main --------------------------------------------------------------------------------------------------


def loadavg() -> str:
    return "(" + ", ".join(f"{x:.1f}" for x in os.getloadavg()) + ")"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tasks", type=int, default=1_000_000, help="size of the ingest files and of the store")
    p.add_argument("--cli-tasks", type=int, default=300_000, help="size of the command line's (and naive) file")
    p.add_argument(
        "--shape", choices=["full", "flat"], default="full", help="bench/generate.py shape of the store's data"
    )
    p.add_argument("--repeat", type=int, default=3, help="runs per measurement (the naive script runs once)")
    p.add_argument("--skip", default="", help=f"comma-separated steps not to run, of: {', '.join(STEPS)}")
    p.add_argument("--results", default=str(HERE / "RESULTS.md"), help="the file whose marked section is replaced")
    p.add_argument("--store-dir", default=None, help="build the store here and keep it (reused by later runs)")
    p.add_argument("--naive-kappa-resamples", type=int, default=3, help="naive kappa resamples actually run")
    p.add_argument("--naive-alpha-resamples", type=int, default=2, help="naive alpha resamples actually run")
    args = p.parse_args(argv)
    args.skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    unknown = args.skip - set(STEPS)
    if unknown:
        p.error(f"unknown --skip step(s) {', '.join(sorted(unknown))}; choose from {', '.join(STEPS)}")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    start = time.perf_counter()
    meta = {
        "command": shlex.join([".venv/bin/python", "bench/run_all.py", *sys.argv[1:]]),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
        or "unknown",
        "machine": child("machine")["machine"],
        "load_before": loadavg(),
        "skipped": [s for s in STEPS if s in args.skip],
    }
    print(f"{meta['machine']}; load average {meta['load_before']}", flush=True)
    steps = set(STEPS) - args.skip
    shape = f"{args.shape} shape"
    figures: list[Figure] = []
    facts: dict = {}
    described = []

    if steps & {"ingest", "floor", "pages", "agreement", "report"}:
        files = data_files(args.tasks, args.shape)
        data = f"{tasks_text(args.tasks)} tasks, {shape}"
        if "ingest" in steps:
            print("ingest", flush=True)
            figures += measure_ingest(files, data, args.repeat)
        if steps & {"floor", "pages", "agreement", "report"}:
            with tempfile.TemporaryDirectory() as tmp:
                d = Path(args.store_dir or tmp)
                d.mkdir(parents=True, exist_ok=True)
                db = str(d / f"run_all_{args.tasks}_{args.shape}.duckdb")
                built = child("ingest", db, str(files["parquet"]))
                facts = child("store_facts", db)
                print(f"store {db}: {built['status']}, {facts['ratings']:,} ratings", flush=True)
                described.append(
                    f"the store holds {tasks_text(args.tasks)} tasks of the {shape} ({facts['ratings']:,} ratings; "
                    f"{files['parquet'].name} loaded with `ingest_file`)"
                )
                store_data = f"{tasks_text(args.tasks)}-task store, {shape}"
                floor = measure_floor(db, store_data, args.repeat) if "floor" in steps else None
                if floor is not None:
                    figures.append(floor)
                if "pages" in steps:
                    print("pages", flush=True)
                    figures += measure_pages(db, store_data, facts, floor, args.repeat)
                if "agreement" in steps:
                    print("agreement on the store", flush=True)
                    figures += measure_agreement(db, store_data, floor, args.repeat)
                if "report" in steps:
                    print("report --all on the store", flush=True)
                    figures.append(measure_report_all(db, store_data))
        if "ingest" in steps:
            described.append(f"ingest read {files['parquet'].name} and {files['csv'].name} (bench/generate.py)")
    if "consistency" in steps:
        print("the Consistency page on a store of rubric documents", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            found, made = measure_consistency(Path(args.store_dir or tmp), args.tasks, args.repeat)
        figures += found
        described.append(made)
    if "cli" in steps:
        print("command line on a file", flush=True)
        cli_files = {s: data_files(args.cli_tasks, s)["parquet"] for s in (args.shape, "many")}
        described.append(
            f"the command line and the naive script read {' and '.join(p.name for p in cli_files.values())}"
        )
        figures += measure_cli(cli_files, args.repeat, "naive" not in args.skip, args)
    if "pages" in steps:
        described.append(
            f"pages: the sidebar's date range start moved to {bench_pages.CHANGED_FROM} (every page loader misses its "
            "cache)"
        )
    meta["data"] = "; ".join(described) + "."
    meta["load_after"] = loadavg()
    meta["minutes"] = (time.perf_counter() - start) / 60
    write_results(Path(args.results), figures, meta)
    print(render(figures, meta))
    print("json: " + json.dumps({"meta": meta, "figures": [asdict(f) for f in figures]}, default=str))
    print(f"wrote {args.results}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        print(json.dumps(CHILDREN[sys.argv[2]](*json.loads(sys.argv[3]))))
    else:
        main()
