"""Acknowledged alarms: a lead records who looked at an alarm, when and why (talked to the contractor, a known
cause); the alarm leaves the headline and stays listed. Keyed by kind, contractor, rubric and dimension, so an alarm
that persists stays acknowledged and one that clears and comes back does too, until the acknowledgement is withdrawn."""

from __future__ import annotations

import duckdb
import pandas as pd

from analytics import store
from analytics.core.queries import Query
from analytics.store import tx

# The table is migration 16 of analytics/store/migrations.py.
KEY = ("kind", "rater_id", "rubric", "dimension")
COLUMNS = (*KEY, "acknowledged_by", "acknowledged_at", "reason")
MAX_TEXT = 500  # characters of a name or a reason

ACKS_TABLE = Query("alarm_acks_table", "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'alarm_acks'")
ACKS = Query("alarm_acks", f"SELECT {', '.join(COLUMNS)} FROM alarm_acks ORDER BY acknowledged_at, {', '.join(KEY)}")
ACK_SAVE = Query(
    "alarm_ack_save",
    """INSERT OR REPLACE INTO alarm_acks (kind, rater_id, rubric, dimension, acknowledged_by, reason)
VALUES ($kind, $rater_id, $rubric, $dimension, $by, $reason)""",
)
ACK_DELETE = Query(
    "alarm_ack_delete",
    """DELETE FROM alarm_acks
WHERE kind = $kind AND rater_id = $rater_id AND rubric = $rubric AND dimension = $dimension""",
)


def checked_text(what: str, name: str, text: str, limit: int = MAX_TEXT) -> str:
    """`text` stripped; ValueError ("`what` needs `name`") when empty, or when over `limit` characters."""
    value = str(text).strip()
    if not value:
        raise ValueError(f"{what} needs {name}")
    if len(value) > limit:
        raise ValueError(f"{name} has {len(value)} characters; at most {limit}")
    return value


def acknowledge(
    con: duckdb.DuckDBPyConnection, kind: str, rater_id: str, rubric: str, dimension: str, by: str, reason: str
) -> None:
    """Record (or replace) a lead's acknowledgement of an alarm; ValueError without a name or a reason."""
    params = {"kind": kind, "rater_id": rater_id, "rubric": rubric, "dimension": dimension}
    who = checked_text("an acknowledgement", "who acknowledges it", by)
    why = checked_text("an acknowledgement", "a reason", reason)
    with tx.write(con):
        ACK_SAVE.bind(**params, by=who, reason=why).run(con)
        store.bump_version(con)


def withdraw(con: duckdb.DuckDBPyConnection, kind: str, rater_id: str, rubric: str, dimension: str) -> None:
    """Withdraw an acknowledgement: the alarm counts in the headline again."""
    with tx.write(con):
        ACK_DELETE.bind(kind=kind, rater_id=rater_id, rubric=rubric, dimension=dimension).run(con)
        store.bump_version(con)


def acks(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every acknowledgement (COLUMNS); none in a store opened read-only before migration 16."""
    if not ACKS_TABLE.rows(con)[0][0]:
        return pd.DataFrame(columns=list(COLUMNS))
    return ACKS.df(con)
