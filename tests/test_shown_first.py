"""Canonical `shown_first` (docs/formats.md section 1): comparisons entered as clicked (left/right) are put in
A/B terms, bad or missing orders are quarantined with their reason, and position bias is measured from it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest
import streamlit as st

from analytics import store
from analytics.core import rubrics
from analytics.describe import distributions as dist
from analytics.ingest import canonical
from analytics.ingest.load import ingest_bytes
from tests.conftest import app_test

ROOT = Path(__file__).resolve().parent.parent
AC = "answer_comparison"
UC = "usefulness_comparison"
COLUMNS = ("task_id", "rater_id", "role", "rubric", "dimension", "target", "value", "shown_first")


def row(task: str, rater: str, value: str, shown_first: str | None, dimension: str = UC, target: str = "comparison"):
    """One canonical row on answer_comparison (role from the rater id: r... is a researcher)."""
    role = "researcher" if rater.startswith("r") else "contractor"
    return (task, rater, role, AC, dimension, target, value, shown_first)


def as_csv(rows: list[tuple], columns: tuple[str, ...] = COLUMNS) -> bytes:
    """Rows as canonical CSV (None as an empty field)."""
    lines = [",".join(columns)] + [",".join("" if v is None else v for v in r[: len(columns)]) for r in rows]
    return ("\n".join(lines) + "\n").encode()


def as_jsonl(rows: list[tuple]) -> bytes:
    """Rows as canonical JSONL (None fields left out)."""
    objs = [{k: v for k, v in zip(COLUMNS, r, strict=True) if v is not None} for r in rows]
    return ("\n".join(json.dumps(o) for o in objs) + "\n").encode()


def as_parquet(rows: list[tuple]) -> bytes:
    """Rows as a canonical Parquet file."""
    buf = io.BytesIO()
    pd.DataFrame(rows, columns=list(COLUMNS)).to_parquet(buf, index=False)
    return buf.getvalue()


WRITERS = {"long.csv": as_csv, "long.jsonl": as_jsonl, "long.parquet": as_parquet}


def load(con, data: bytes, name: str = "long.csv"):
    """Ingest and return the result (the file must at least load)."""
    result = ingest_bytes(con, data, name)
    assert result.status == "loaded", result.errors
    return result


def stored(con) -> dict[tuple[str, str, str], str]:
    """(task, rater, target) -> stored value of every rating."""
    rows = con.execute("SELECT task_id, rater_id, target, value FROM ratings").fetchall()
    return {(t, r, tg): v for t, r, tg, v in rows}


def quarantine(con) -> list[tuple]:
    """(line or record, field, raw value, reason) of every quarantined row."""
    return con.execute(
        "SELECT coalesce(CAST(line AS VARCHAR), record), field, raw_value, reason FROM quarantine"
    ).fetchall()


# --- left/right in A/B terms ------------------------------------------------------------------------------------


def test_clicked_spellings_come_from_the_comparison_scale():
    assert canonical.clicked_spellings() == ["left much better", "left better", "right better", "right much better"]
    levels = canonical.clicked_levels()
    for (spelling, shown_first), level in levels.items():
        assert level in rubrics.COMPARISON_LEVELS
        other = "B" if shown_first == "A" else "A"
        # The same click with the other option on the left is the same level read from the other side.
        assert levels[(spelling, other)] == rubrics.COMPARISON_FLIP[level]


@pytest.mark.parametrize("name", WRITERS)
def test_left_right_values_load_as_a_b_levels(con, name):
    rows = [
        row("t1", "c1", "Left much better", "A"),
        row("t2", "c1", "Left much better", "B"),
        row("t3", "c1", "left better", "A"),  # any case
        row("t4", "c1", "LEFT BETTER", "B"),
        row("t5", "c1", "Right better", "A"),
        row("t6", "c1", "  right   better ", "B"),  # extra spaces
        row("t7", "c1", "Right much better", "A"),
        row("t8", "c1", "Right much better", "B"),
        row("t9", "c1", "Equally good", "B"),  # no side: as written
        row("t10", "c1", "A better", "B"),  # already in A/B terms: as written
        row("t1", "c1", "Good", "A", dimension="usefulness", target="A"),
        row("t1", "c1", "Bad", "A", dimension="usefulness", target="B"),
    ]
    result = load(con, WRITERS[name](rows), name)
    assert (result.rows_loaded, result.rows_quarantined) == (12, 0), result.errors
    got = stored(con)
    expected = {
        "t1": "A much better",
        "t2": "B much better",
        "t3": "A better",
        "t4": "B better",
        "t5": "B better",
        "t6": "A better",
        "t7": "B much better",
        "t8": "A much better",
        "t9": "Equally good",
        "t10": "A better",
    }
    assert {t: got[(t, "c1", "comparison")] for t in expected} == expected
    assert (got[("t1", "c1", "A")], got[("t1", "c1", "B")]) == ("Good", "Bad")


def test_shown_first_is_kept_as_one_submission_per_task_and_rater(con):
    rows = [
        row("t1", "c1", "Left better", "B"),
        row("t1", "c1", "Good", "B", dimension="usefulness", target="A"),
        row("t1", "c1", "Good", None, dimension="usefulness", target="B"),  # empty next to a filled one: fine
        row("t1", "r1", "Right better", "A"),
        row("t2", "c1", "B better", None),  # no order known: no submission
    ]
    result = load(con, as_csv(rows))
    assert (result.rows_quarantined, result.submissions) == (0, 2), result.errors
    subs = con.execute(
        "SELECT submission_id, task_id, rater_id, role, status, shown_first, duration_s FROM submissions ORDER BY 1"
    ).fetchall()
    assert subs == [
        (f"{AC}/t1/c1", "t1", "c1", "contractor", "rated", "B", None),
        (f"{AC}/t1/r1", "t1", "r1", "researcher", "rated", "A", None),
    ]


def test_the_documented_example_loads_as_described(con):
    csv = (
        "task_id,rater_id,rubric,dimension,target,value,shown_first\n"
        "ac-00017,c03,answer_comparison,usefulness,A,Good,B\n"
        "ac-00017,c03,answer_comparison,usefulness_comparison,comparison,Left better,B\n"
        "ac-00018,c03,answer_comparison,usefulness_comparison,comparison,Right much better,A\n"
        "ac-00019,c03,answer_comparison,usefulness_comparison,comparison,A better,A\n"
    )
    assert csv in (ROOT / "docs" / "formats.md").read_text()
    result = load(con, csv.encode())
    assert result.rows_quarantined == 0, result.errors
    got = stored(con)
    assert [got[(t, "c03", "comparison")] for t in ("ac-00017", "ac-00018", "ac-00019")] == [
        "B better",
        "B much better",
        "A better",
    ]


# --- what is quarantined ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("with_column", [True, False], ids=["empty_shown_first", "no_shown_first_column"])
def test_left_right_without_shown_first_is_quarantined(con, with_column):
    rows = [row("t1", "c1", "Left better", None), row("t2", "c1", "A better", None)]
    columns = COLUMNS if with_column else COLUMNS[:-1]
    result = load(con, as_csv(rows, columns))
    assert (result.rows_loaded, result.rows_quarantined) == (1, 1)
    [(line, field, raw, reason)] = quarantine(con)
    assert (line, field, raw) == ("2", "shown_first", "Left better")
    assert reason.startswith("long.csv, line 2, field shown_first: value Left better names the left or right option")
    assert "shown_first is needed to say which option (A or B) was on the left" in reason
    assert stored(con) == {("t2", "c1", "comparison"): "A better"}
    assert con.execute("SELECT count(*) FROM submissions").fetchall()[0][0] == 0


def test_shown_first_that_is_not_a_target_is_quarantined(con):
    rows = [
        row("t1", "c1", "A better", "C"),  # comparison: the options are A and B
        row("t2", "c1", "Good", "X", dimension="usefulness", target="A"),  # absolute: targets A, B
        row("t3", "c1", "Left better", "a"),  # targets are matched exactly
        row("t4", "c1", "Left better", "A"),
    ]
    result = load(con, as_csv(rows))
    assert (result.rows_loaded, result.rows_quarantined) == (1, 3)
    problems = {line: (field, raw, reason) for line, field, raw, reason in quarantine(con)}
    assert problems["2"] == (
        "shown_first",
        "C",
        "long.csv, line 2, field shown_first: shown_first C is not one of A, B, the options of "
        "answer_comparison/usefulness_comparison",
    )
    assert "shown_first X is not one of A, B, the options of answer_comparison/usefulness" in problems["3"][2]
    assert "shown_first a is not one of A, B" in problems["4"][2]
    assert stored(con) == {("t4", "c1", "comparison"): "A better"}


def test_left_right_on_a_rubric_without_declared_options_needs_a_or_b(con):
    csv = "task_id,rater_id,rubric,dimension,value,shown_first\nu1,c1,mine,pref,Left better,o1\n"
    result = load(con, csv.encode())
    assert result.rows_quarantined == 1
    assert "shown_first o1 is not A or B, so value Left better cannot be put in A/B terms" in result.errors[0]


def test_two_orders_for_one_task_are_quarantined(con):
    rows = [
        row("t1", "c1", "Left better", "A"),
        row("t1", "c1", "Good", "B", dimension="usefulness", target="A"),
        row("t2", "c1", "Left better", "B"),
    ]
    result = load(con, as_csv(rows))
    assert (result.rows_loaded, result.rows_quarantined) == (1, 2)
    reasons = [r for *_, r in quarantine(con)]
    assert all(
        "rater c1 saw task t1 in two orders: shown_first is A on some of its rows and B on others" in r for r in reasons
    )


def test_shown_first_contradicting_an_earlier_file_is_quarantined(con):
    load(con, as_csv([row("t1", "c1", "Left better", "A")]), "first.csv")
    result = load(con, as_csv([row("t1", "c1", "Bad", "B", dimension="usefulness", target="A")]), "second.csv")
    assert result.rows_quarantined == 1
    assert "shown_first B contradicts A, stored for rater c1 on task t1 by an earlier file" in result.errors[0]
    result = load(con, as_csv([row("t1", "c1", "Good", "A", dimension="usefulness", target="B")]), "third.csv")
    assert (result.rows_loaded, result.rows_quarantined) == (1, 0)


def test_parquet_then_csv_in_one_session(con):
    # The Parquet stage is a view and the CSV stage a table: each load must drop whichever the last one left.
    load(con, as_parquet([row("t1", "c1", "Left better", "A")]), "long.parquet")
    load(con, as_csv([row("t2", "c1", "Left better", "B")]), "long.csv")
    load(con, as_parquet([row("t3", "c1", "A better", None)]), "again.parquet")
    assert stored(con) == {
        ("t1", "c1", "comparison"): "A better",
        ("t2", "c1", "comparison"): "B better",
        ("t3", "c1", "comparison"): "A better",
    }


# --- position bias ----------------------------------------------------------------------------------------------


def biased_rows(n: int = 12) -> list[tuple]:
    """c1 always prefers the left option; c2 prefers A whichever side it was on; r1 always says equal."""
    rows = []
    for i in range(n):
        shown = "A" if i % 2 == 0 else "B"
        rows.append(row(f"t{i}", "c1", "Left better", shown))
        rows.append(row(f"t{i}", "c2", "Left better" if shown == "A" else "Right better", shown))
        rows.append(row(f"t{i}", "r1", "Equally good", shown))
    return rows


def test_position_bias_is_measured_from_shown_first(con):
    result = load(con, as_csv(biased_rows()))
    assert result.rows_quarantined == 0, result.errors
    pb = dist.position_bias(con, AC)
    rows = pb[pb["dimension"] == UC].set_index("rater_id")
    c1 = rows.loc["c1"]
    assert (c1["first_better"], c1["second_better"], c1["n"]) == (12, 0, 12)
    assert c1["share_first_better"] == pytest.approx(1.0)
    assert bool(c1["interval_excludes_half"])
    c2 = rows.loc["c2"]  # always A, shown first half of the time: no position bias
    assert (c2["first_better"], c2["second_better"]) == (6, 6)
    assert not bool(c2["interval_excludes_half"])
    assert rows.loc["r1", "equal"] == 12
    # Stored in A/B terms, c1's ratings are balanced: only shown_first reveals the bias.
    levels = dist.rater_levels(con, AC, UC)
    c1_levels = levels[levels["rater_id"] == "c1"].set_index("level")["n"]
    assert (c1_levels["A better"], c1_levels["B better"]) == (6, 6)
    assert dist.position_bias_note(con, AC) is None


def test_without_shown_first_the_analytics_say_position_bias_cannot_be_measured(con):
    load(con, as_csv([row("t1", "c1", "A better", None), row("t2", "c1", "B better", None)]))
    assert dist.position_bias(con, AC).empty
    note = dist.position_bias_note(con, AC)
    assert note == dist.NO_SHOWN_FIRST
    assert note.startswith("Position bias cannot be measured: these files do not say which option each rater saw first")
    assert "add a shown_first column, A or B" in note and "docs/" not in note


def test_partly_known_orders_are_counted_in_the_note(con):
    load(con, as_csv([row("t1", "c1", "Left better", "A"), row("t2", "c1", "B better", None)]))
    note = dist.position_bias_note(con, AC)
    assert (
        note == "1 of 2 comparison ratings do not say which option the rater saw first (no shown_first) "
        "and are left out of position bias."
    )


def test_no_note_for_a_rubric_without_comparisons(con):
    load(con, as_csv([row("t1", "c1", "Good", None, dimension="usefulness", target="A")]))
    assert dist.position_bias_note(con, AC) is None


def test_distributions_page_says_why_position_bias_is_missing(tmp_path, monkeypatch):
    path = tmp_path / "page.duckdb"
    con = store.open_store(path)
    load(con, as_csv([row(f"t{i}", "c1", "A better", None) for i in range(3)]))
    con.close()
    monkeypatch.setenv("CONCORD_DB", str(path))
    st.cache_data.clear()
    st.cache_resource.clear()
    at = app_test("app_pages/distributions.py", timeout=60)
    assert not at.exception, at.exception
    assert "Position bias" in [s.value for s in at.main.subheader]
    assert dist.NO_SHOWN_FIRST in [i.value for i in at.info]
