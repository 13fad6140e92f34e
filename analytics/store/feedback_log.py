"""Feedback logs: feedback given outside Concord (an email, a call), loaded from a CSV of `rater_id, sent_at`
with an optional `rubric` and `note` (docs/formats.md). Each row becomes a feedback event (migration 18's table)
that remembers its load, so unloading the file removes exactly its events; follow-ups read them like the events
marked as sent on the Feedback page (analytics/feedback/events.py)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics.core.queries import Query

FORMAT = "feedback_log"
COLUMNS = ("rater_id", "sent_at", "rubric", "note")
SENT_BY = "feedback log"  # who sent it, as the events' table says for a log's rows


@dataclass(frozen=True)
class LoggedFeedback:
    """One row of a feedback log, checked: sent_at in UTC without a zone."""

    line: int
    rater_id: str
    sent_at: dt.datetime
    rubric: str | None
    note: str | None


LOG_INSERT = Query(
    "feedback_log_insert",
    """INSERT INTO feedback_events (rater_id, sent_by, sent_at, report, rubric, date_from, date_to, dataset_version,
    effects, ingest_id, note)
SELECT coalesce((SELECT min(a.rater_id) FROM rater_aliases a WHERE a.alias = f.rater_id), f.rater_id), $sent_by, sent_at, $file_name || ', line ' || line, rubric, NULL, NULL, $dataset_version,
       []::VARCHAR[], $ingest_id, note
FROM feedback_log_frame f""",
)
KNOWN = Query("feedback_log_known", "SELECT rater_id FROM rater_keys WHERE list_contains($ids, rater_id)")
LOG_DELETE = Query("feedback_log_delete", "DELETE FROM feedback_events WHERE ingest_id = $ingest_id")


def add(
    con: duckdb.DuckDBPyConnection,
    ingest_id: int,
    rows: list[LoggedFeedback],
    file_name: str,
    dataset_version: int,
) -> int:
    """Store a log's rows as feedback events of load `ingest_id` (inside its transaction); how many."""
    frame = pd.DataFrame(
        [(r.line, r.rater_id, r.sent_at, r.rubric, r.note) for r in rows],
        columns=["line", "rater_id", "sent_at", "rubric", "note"],
    ).astype({"line": "int64", "rater_id": object, "sent_at": "datetime64[us]", "rubric": object, "note": object})
    con.register("feedback_log_frame", frame)
    try:
        LOG_INSERT.bind(sent_by=SENT_BY, file_name=file_name, dataset_version=dataset_version, ingest_id=ingest_id).run(
            con
        )
    finally:
        con.unregister("feedback_log_frame")
    return len(rows)


def known(con: duckdb.DuckDBPyConnection, rater_ids: list[str]) -> set[str]:
    """Those of `rater_ids` the store knows as raters (an id of a rating ever loaded)."""
    return {r for (r,) in KNOWN.bind(ids=rater_ids).rows(con)}


def unload(con: duckdb.DuckDBPyConnection, ingest_id: int) -> int:
    """Inside an unload's transaction: remove the events load `ingest_id` brought; how many."""
    return int(LOG_DELETE.bind(ingest_id=ingest_id).run(con).fetchall()[0][0])
