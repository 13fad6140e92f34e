"""Feedback events: a lead marks a contractor's report card as sent on the Feedback page, and the store keeps who
sent it, when, which report (its name, rubric, dates and the dataset version it was computed on) and the rater
effects it named. Feedback given outside Concord comes from a feedback log file (analytics/store/feedback_log.py), one
event per row, with its note and load. A contractor's last feedback and the follow-up window (analytics/feedback/next.py) read them; a
follow-up measures what came after them.

Recording an event does not bump the dataset version: no figure a page caches depends on it, and a bump would make
every page compute its figures again. Pages read the events on every run instead (one small query)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics import store
from analytics.alarms import acks
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.store import tx

# The table is migration 18 of analytics/store/migrations.py.
COLUMNS = ("rater_id", "sent_by", "sent_at", "report", "rubric", "date_from", "date_to", "dataset_version", "effects")
MAX_TEXT = 500  # characters of a name, a report's name or an effect

EVENTS_TABLE = Query(
    "feedback_events_table", "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'feedback_events'"
)
EVENT_SAVE = Query(
    "feedback_event_save",
    """INSERT INTO feedback_events (rater_id, sent_by, sent_at, report, rubric, date_from, date_to, dataset_version,
    effects)
VALUES ($rater_id, $sent_by, $sent_at, $report, $rubric, $date_from, $date_to, $dataset_version, $effects)""",
)
LOGGED = ("note", "ingest_id")  # migration 22: a feedback log's note and load (NULL for the page's events)
EVENT_COLUMNS = (*COLUMNS, *LOGGED)
EVENTS_SHAPE = Query(
    "feedback_events_shape",
    "SELECT count(*) FROM duckdb_columns() WHERE table_name = 'feedback_events' AND column_name = 'ingest_id'",
)


@dataclass(frozen=True)
class FeedbackEvent:
    """One report card marked as sent."""

    rater_id: str
    sent_by: str
    sent_at: dt.datetime
    report: str
    effects: tuple[str, ...]
    filters: Filters
    dataset_version: int


now = tx.now  # the time an event records (the store's one clock)


def _checked(name: str, text: str) -> str:
    """The stripped text; ValueError when empty or over MAX_TEXT characters."""
    return acks.checked_text("a feedback event", name, text, MAX_TEXT)


def record(
    con: duckdb.DuckDBPyConnection,
    rater_id: str,
    by: str,
    report: str,
    effects: Sequence[str],
    filters: Filters,
    at: dt.datetime | None = None,
) -> FeedbackEvent:
    """Record that `by` sent `rater_id` the report named `report` (under `filters`' rubric and dates), naming
    `effects`; ValueError without a contractor, a sender or a report's name."""
    event = FeedbackEvent(
        rater_id=_checked("a contractor", rater_id),
        sent_by=_checked("who sent it", by),
        sent_at=at or now(),
        report=_checked("the report's name", report),
        effects=tuple(_checked("an effect", e) for e in effects),
        filters=filters,
        dataset_version=store.dataset_version(con),
    )
    with tx.write(con):
        EVENT_SAVE.bind(
            rater_id=event.rater_id,
            sent_by=event.sent_by,
            sent_at=event.sent_at,
            report=event.report,
            rubric=filters.rubric,
            date_from=filters.date_from,
            date_to=filters.date_to,
            dataset_version=event.dataset_version,
            effects=list(event.effects),
        ).run(con)
    return event


def _has_table(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the store has the events' table (a store opened read-only before migration 18 has not)."""
    return bool(EVENTS_TABLE.rows(con)[0][0])


def _selected(con: duckdb.DuckDBPyConnection) -> str:
    """EVENT_COLUMNS as the store's table gives them (NULL for a log's columns before migration 22)."""
    logged = bool(EVENTS_SHAPE.rows(con)[0][0])
    return ", ".join([*COLUMNS, *(c if logged else f"NULL AS {c}" for c in LOGGED)])


SIGNATURE = Query("feedback_events_signature", "SELECT count(*), max(sent_at) FROM feedback_events")


def signature(con: duckdb.DuckDBPyConnection) -> tuple:
    """What changes when an event is recorded (their number and latest time): with the dataset version (a feedback
    log's load or unload moves it), the key of a page's cached follow-ups."""
    return tuple(SIGNATURE.rows(con)[0]) if _has_table(con) else (0, None)


def events(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every feedback event (EVENT_COLUMNS), from the page and from feedback logs, oldest first."""
    if not _has_table(con):
        return pd.DataFrame(columns=list(EVENT_COLUMNS))
    return Query(
        "feedback_events", f"SELECT {_selected(con)} FROM feedback_events ORDER BY sent_at, rater_id, report"
    ).df(con)


def last_events(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Each contractor's latest feedback event (EVENT_COLUMNS), one row per contractor who was sent one."""
    if not _has_table(con):
        return pd.DataFrame(columns=list(EVENT_COLUMNS))
    return Query(
        "feedback_last_events",
        f"""SELECT {_selected(con)} FROM feedback_events
QUALIFY row_number() OVER (PARTITION BY rater_id ORDER BY sent_at DESC, report DESC) = 1
ORDER BY rater_id""",
    ).df(con)
