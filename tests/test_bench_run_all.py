"""bench/run_all.py writes its figures into the marked section of RESULTS.md and leaves the rest of the file as
it was (fake figures: no benchmark runs here)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import run_all  # noqa: E402

HEAD = "# Benchmark and robustness results\n\nMeasured on the project machine kind.\n\n"
TAIL = "## Page responsiveness at 1M tasks\n\nHand-written figures | with a pipe.\n\n## Ingest\n\nMore.\n"
META = {
    "command": ".venv/bin/python bench/run_all.py --tasks 1000",
    "date": "2026-01-01 00:00 UTC",
    "minutes": 1.5,
    "machine": "2 cores (test CPU), 24 GiB, Python 3.11.7, DuckDB 2.0.0",
    "load_before": "(0.1, 0.2, 0.3)",
    "load_after": "(0.4, 0.5, 0.6)",
    "data": "fake.",
    "skipped": ["naive"],
}


def figures(parquet_s: float) -> list[run_all.Figure]:
    floor = run_all.Figure(name="One-pass floor", data="1k-task store, full shape", seconds=0.5, runs=[0.5], peak_mb=90)
    page = run_all.Figure(name="Overview page", data="1k-task store, full shape", seconds=0.25, runs=[0.2, 0.25, 0.3])
    page.target = "<= the one-pass floor"
    run_all.against_floor(page, floor)
    page.met = True
    load = run_all.Figure(
        name="Parquet load",
        data="1k tasks",
        seconds=parquet_s,
        peak_mb=5000,
        ref_name="DuckDB read_parquet",
        ref_seconds=1.0,
        ref_peak_mb=100,
        target="<= 2x DuckDB's",
        met=parquet_s <= 2,
    )
    return [load, floor, page]


def test_section_replaced_rest_kept(tmp_path):
    path = tmp_path / "RESULTS.md"
    path.write_text(HEAD + run_all.BEGIN + "\nold generated figures\n" + run_all.END + "\n\n" + TAIL)

    run_all.write_results(path, figures(3.0), META)
    text = path.read_text()
    assert text.startswith(HEAD + run_all.BEGIN) and text.endswith(run_all.END + "\n\n" + TAIL)
    assert "old generated figures" not in text
    assert text.count(run_all.BEGIN) == 1 and text.count(run_all.END) == 1
    assert f"Command: `{META['command']}`" in text and "(0.1, 0.2, 0.3)" in text and "(0.4, 0.5, 0.6)" in text
    row = next(line for line in text.splitlines() if line.startswith("| Parquet load |"))
    assert "3.00 s" in row and "DuckDB read_parquet: 1.00 s" in row and "3.00x" in row and "**missed**" in row
    assert "5,000 MB / 100 MB" in row
    row = next(line for line in text.splitlines() if line.startswith("| Overview page |"))
    assert "0.25 s (0.20, 0.25, 0.30)" in row and "0.50x" in row and "| met |" in row
    assert "Not run this time (`--skip`): naive." in text

    run_all.write_results(path, figures(1.5), META)  # a second run replaces the first
    again = path.read_text()
    assert again.startswith(HEAD + run_all.BEGIN) and again.endswith(run_all.END + "\n\n" + TAIL)
    assert again.count(run_all.BEGIN) == 1 and "1.50x" in again and "3.00x" not in again


def test_section_inserted_before_first_heading_without_markers(tmp_path):
    path = tmp_path / "RESULTS.md"
    path.write_text(HEAD + TAIL)
    run_all.write_results(path, figures(1.0), META)
    text = path.read_text()
    assert text.startswith(HEAD + run_all.BEGIN) and text.endswith(run_all.END + "\n\n" + TAIL)

    missing = tmp_path / "new.md"
    run_all.write_results(missing, figures(1.0), META)
    assert missing.read_text().startswith(run_all.BEGIN) and missing.read_text().endswith(run_all.END + "\n")


def test_page_rows_judge_the_rerun_against_the_floor_and_the_first_visit_against_three_times_it():
    floor = run_all.Figure(name="One-pass floor", data="store", seconds=1.0, runs=[1.0], peak_mb=90)
    runs = {"runs": [0.9, 0.8, 1.0], "opened": [2.5, 2.9, 2.0], "warm": [0.1], "peak_mb": 1500.0}
    rerun, first = run_all.page_figures("Raters", runs, "store", floor, opened=True, note="; a note")
    assert (rerun.seconds, rerun.met, rerun.note) == (0.9, True, "warm rerun 0.10 s; a note")
    assert (first.seconds, first.met, first.note) == (2.5, True, "")
    assert first.target == "<= 3x the one-pass floor, peak < 2 GB"
    heavy = {**runs, "peak_mb": 5000.0}
    assert [f.met for f in run_all.page_figures("Consistency", heavy, "store", floor, opened=True)] == [False, False]
    # #11's pages have no memory target and no first-visit row
    (only,) = run_all.page_figures("Overview", {**heavy, "runs": [1.2]}, "store", floor, opened=False)
    assert (only.met, only.target) == (False, "<= the one-pass floor")
