"""Guideline-change markers: dated notes a researcher adds ("rubric v2 sent to contractors") so that a fall in
agreement can be read against what changed. Drawn on the weekly charts; a drift alert after one says so."""

from __future__ import annotations

import datetime as dt

import duckdb
import pandas as pd

from analytics import store
from analytics.core.queries import Query
from analytics.store import tx

# The table is migration 9 of analytics/store/migrations.py.
COLUMNS = ("marker_id", "rubric", "marked_on", "note", "author", "created_at")
MAX_NOTE = 500  # characters: a marker is a label on a chart, not a document


def add_marker(
    con: duckdb.DuckDBPyConnection, marked_on: dt.date, note: str, rubric: str | None = None, author: str = ""
) -> int:
    """Record a guideline change on a date (for one rubric, or every rubric); its id. ValueError on an empty or
    over-long note."""
    text = note.strip()
    if not text:
        raise ValueError("a guideline-change marker needs a note saying what changed")
    if len(text) > MAX_NOTE:
        raise ValueError(f"the note has {len(text)} characters; at most {MAX_NOTE}")
    with tx.write(con):
        marker_id = int(con.execute("SELECT coalesce(max(marker_id), 0) + 1 FROM guideline_markers").fetchall()[0][0])
        con.execute(
            "INSERT INTO guideline_markers (marker_id, rubric, marked_on, note, author) VALUES ($id, $r, $d, $n, $a)",
            {"id": marker_id, "r": rubric or None, "d": marked_on, "n": text, "a": author.strip() or None},
        )
        store.bump_version(con)
    return marker_id


def remove_marker(con: duckdb.DuckDBPyConnection, marker_id: int) -> bool:
    """Delete one marker; whether it existed."""
    with tx.write(con):  # the delete and the version move together
        gone = con.execute("DELETE FROM guideline_markers WHERE marker_id = $id", {"id": marker_id}).fetchall()[0][0]
        if gone:
            store.bump_version(con)
    return bool(gone)


MARKERS_TABLE = Query(
    "guideline_markers_table", "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'guideline_markers'"
)
MARKERS = Query(
    "guideline_markers",
    """SELECT marker_id, rubric, marked_on, note, author, created_at FROM guideline_markers
       WHERE $rubric IS NULL OR rubric IS NULL OR rubric = $rubric ORDER BY marked_on, marker_id""",
)


def markers(con: duckdb.DuckDBPyConnection, rubric: str | None = None) -> pd.DataFrame:
    """The markers that apply to a rubric (its own and those for every rubric), or all, by date (none in a store
    opened read-only before migration 9)."""
    if not MARKERS_TABLE.rows(con)[0][0]:
        return pd.DataFrame(columns=list(COLUMNS))
    return MARKERS.bind(rubric=rubric).df(con)
