"""A store as an older release left it, for tests of the migrations that bring it up to date."""

from __future__ import annotations

# Tables a migration creates (analytics/store/migrations.py's MIGRATIONS), by its version; those of earlier versions stay.
CREATED_BY = {
    9: ("guideline_markers",),
    11: ("contractor_tasks", "contractor_rubric_tasks"),
    12: ("reference_tasks",),
    13: ("rater_tasks",),
    14: ("level_counts",),
    15: ("contractor_days", "contractor_rubric_days"),
    16: ("alarm_acks",),
    17: ("store_identity",),
    18: ("feedback_events",),
}


def roll_back(con, version: int) -> None:
    """Make `con`'s store look like one at schema `version`: drop the tables later migrations created and forget
    those migrations, so the next read-write open runs them again."""
    for created, tables in CREATED_BY.items():
        if created > version:
            for table in tables:
                con.execute(f"DROP TABLE {table}")
    con.execute("DELETE FROM schema_migrations WHERE version > $v", {"v": version})
