"""`python -m analytics report`: report cards from the store, to stdout or one file per contractor, the --json
listing, date filters and bad input (exit 2, one line), on the hand-built store of tests/test_feedback_effects.py
(researcher r1; contractors cx_first, cx_careful, cx_ties, cx_fast on tasks t00-t39 and cx_few on t00-t11; ten tasks a week from Monday
2026-03-02, task i on day i % 5 of its week)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from analytics import store
from analytics.cli.main import main
from analytics.feedback.export.display import STEM_ID_CHARS
from analytics.ingest.load import ingest_bytes
from tests.test_feedback_effects import CONTRACTORS, load_effects_store

FAST = ["--n-boot", "50"]


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("cli_report") / "store.duckdb"
    con = store.open_store(path)
    load_effects_store(con)
    con.close()
    return str(path)


def _others(rater: str) -> re.Pattern:
    """Any contractor id but `rater`."""
    return re.compile(r"\b(" + "|".join(c for c in CONTRACTORS if c != rater) + r")\b")


def test_one_contractor_to_stdout(db, capsys):
    assert main(["report", "--rater", "cx_first", "--format", "md", "--db", db, *FAST]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Feedback for cx_first\n")
    assert "40 ratings from 2026-03-02 to 2026-03-27" in out  # t00 on Monday 03-02, t39 on Friday 03-27
    assert "### Position bias: Answer comparison" in out
    assert not _others("cx_first").search(out)


def test_all_writes_one_file_per_contractor_and_lists_them(db, tmp_path, capsys):
    out_dir = tmp_path / "cards"
    assert main(["report", "--all", "--format", "html", "--out", str(out_dir), "--db", db, "--json", *FAST]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert list(payload) == ["reports"]
    assert [set(r) for r in payload["reports"]] == [{"rater_id", "file"}] * len(CONTRACTORS)
    assert sorted(r["rater_id"] for r in payload["reports"]) == sorted(CONTRACTORS)
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(f"feedback_{c}.html" for c in CONTRACTORS)
    for r in payload["reports"]:
        html = (out_dir / f"feedback_{r['rater_id']}.html").read_text(encoding="utf-8")
        assert r["file"] == str(out_dir / f"feedback_{r['rater_id']}.html")
        assert html.startswith("<!DOCTYPE html>") and f"Feedback for {r['rater_id']}" in html
        assert not re.search(r"\b(src|href)\s*=", html)  # self-contained
        assert not _others(r["rater_id"]).search(html)


def test_all_shows_its_progress_on_a_terminal_only(db, tmp_path):
    """`report --all` takes minutes on a large store: on a terminal one stderr line names each contractor as its
    card is written, ending on a new line; piped, stderr stays empty."""
    from tests.cli_helpers import run_cli

    args = ("report", "--all", "--format", "md", "--out", str(tmp_path / "cards"), "--db", db, *FAST)
    shown = run_cli(*args, terminal=True, check=True)
    lines = [line.split(" (")[0] for line in shown.stderr.split("\r")[1:]]
    n = len(CONTRACTORS)
    assert lines[0] == "report: the team's figures"
    assert lines[1:-1] == [f"report: {c}, {i + 1} of {n}" for i, c in enumerate(sorted(CONTRACTORS))]
    assert lines[-1] == f"report: {n} report(s) written" and shown.stderr.endswith("(100%)\x1b[K\n")
    assert run_cli(*args, check=True).stderr == ""


def test_csv_and_readable_listing(db, tmp_path, capsys):
    assert main(["report", "--all", "--format", "csv", "--out", str(tmp_path), "--db", db, *FAST]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{c}: {tmp_path / f'feedback_{c}.csv'}" for c in sorted(CONTRACTORS)]
    text = (tmp_path / "feedback_cx_ties.csv").read_bytes().decode("utf-8")  # rows end in CRLF
    assert text.startswith("section,contractor,rubric,")
    assert "\r\neffect,cx_ties,answer_comparison," in text and not _others("cx_ties").search(text)


def test_dates_choose_the_ratings_and_the_contractors(db, tmp_path, capsys):
    week3 = ["--from", "2026-03-16", "--to", "2026-03-22"]  # tasks t20-t29: cx_few rated none of them
    assert main(["report", "--all", "--format", "md", "--out", str(tmp_path), "--db", db, "--json", *week3, *FAST]) == 0
    listed = [r["rater_id"] for r in json.loads(capsys.readouterr().out)["reports"]]
    assert listed == sorted(set(CONTRACTORS) - {"cx_few"})
    md = (tmp_path / "feedback_cx_first.md").read_text(encoding="utf-8")
    assert "10 ratings from 2026-03-16 to 2026-03-20. Covers all rubrics, 2026-03-16 to 2026-03-22." in md
    assert main(["report", "--rater", "cx_few", "--format", "md", "--db", db, *week3]) == 2
    err = capsys.readouterr().err
    assert err == "contractor 'cx_few' has no ratings from 2026-03-16 to 2026-03-22\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rater", "nobody"], "unknown contractor 'nobody': no contractor with that id has ratings in the store"),
        (["--rater", "r1"], "unknown contractor 'r1': no contractor with that id has ratings in the store"),
        (["--all"], "--all writes one file per contractor: give --out DIR"),
        (["--rater", "cx_first", "--json"], "--json lists the files written: give --out DIR"),
        (["--rater", "cx_first", "--from", "2026-02-30"], "--from '2026-02-30' is not a date: give it as YYYY-MM-DD"),
        (
            ["--rater", "cx_first", "--from", "2026-03-20", "--to", "2026-03-02"],
            "--from 2026-03-20 is after --to 2026-03-02",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(db, capsys, args, message):
    assert main(["report", *args, "--format", "md", "--db", db]) == 2
    captured = capsys.readouterr()
    assert captured.err == message + "\n" and captured.out == ""


def test_module_entry_point(db):
    """As a weekly batch runs it: the module, an unknown rater, exit code 2 and one line on stderr."""
    run = subprocess.run(
        [sys.executable, "-m", "analytics", "report", "--rater", "c99", "--format", "html", "--db", db],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.splitlines() == ["unknown contractor 'c99': no contractor with that id has ratings in the store"]


LONG = "c" * 300  # two ids that agree on their first 300 characters, and one with characters a name cannot hold
LONG_IDS = (LONG, LONG + "x", "a/../../b")


@pytest.fixture(scope="module")
def long_ids_db(tmp_path_factory) -> str:
    """A small store whose contractors have the ids of LONG_IDS (and a researcher)."""
    path = tmp_path_factory.mktemp("cli_report_long") / "store.duckdb"
    rows = [f"t{i},{rater},q,{i % 3 + 1}" for rater in (*LONG_IDS, "r1") for i in range(6)]
    con = store.open_store(path)
    data = ("task_id,rater_id,dimension,value\n" + "\n".join(rows) + "\n").encode()
    assert ingest_bytes(con, data, "long.csv").rows_loaded == len(rows)
    con.execute("UPDATE ratings SET role = 'researcher' WHERE rater_id = 'r1'")
    con.close()
    return str(path)


def test_long_rater_ids_get_bounded_distinct_names_and_every_card_is_written(long_ids_db, tmp_path, capsys):
    """Protection: file_stem keeps at most STEM_ID_CHARS of the id and adds a hash of the whole id; a 300-character
    id used to stop --all at its first card (the name was too long for the file system)."""
    out = tmp_path / "cards"
    assert main(["report", "--all", "--format", "md", "--out", str(out), "--db", long_ids_db, "--json", *FAST]) == 0
    written = json.loads(capsys.readouterr().out)["reports"]
    assert sorted(r["rater_id"] for r in written) == sorted(LONG_IDS)
    names = [Path(r["file"]).name for r in written]
    assert len(set(names)) == len(LONG_IDS) and sorted(p.name for p in out.iterdir()) == sorted(names)
    for name in names:
        assert len(name.encode()) <= len("feedback_") + STEM_ID_CHARS + 13 + len(".md")
        assert re.fullmatch(r"feedback_[A-Za-z0-9_.-]+\.md", name) and Path(out / name).parent == out
    for r in written:
        assert f"Feedback for {r['rater_id']}" in Path(r["file"]).read_text(encoding="utf-8")


def test_a_link_planted_in_the_out_folder_is_not_followed(long_ids_db, tmp_path, capsys):
    """Protection: write_unfollowed writes a new file and renames it over the link; the file the link pointed to
    keeps its bytes (path.write_text wrote through the link)."""
    out, outside = tmp_path / "cards", tmp_path / "outside.txt"
    out.mkdir()
    outside.write_text("keep me", encoding="utf-8")
    planted = out / "feedback_a_.._.._b.md"
    planted.symlink_to(outside)
    assert main(["report", "--rater", "a/../../b", "--format", "md", "--out", str(out), "--db", long_ids_db]) == 0
    assert outside.read_text(encoding="utf-8") == "keep me"
    assert not planted.is_symlink() and "Feedback for a/../../b" in planted.read_text(encoding="utf-8")
    assert sorted(p.name for p in out.iterdir()) == [planted.name]  # no temporary file left behind
    assert capsys.readouterr().out == f"a/../../b: {planted}\n"
