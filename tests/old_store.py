"""A store as an older release left it, for tests of the migrations that bring it up to date."""

from __future__ import annotations

from analytics.store.migrations import MIGRATIONS

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
    20: ("task_patterns",),
    21: ("label_plans", "label_plan_tasks"),
}
# Tables a migration rebuilt in a new shape, by its version: the table and the migration that made its old shape.
REBUILT_BY = {
    19: (("review_notes", 2),),
    22: (("feedback_events", 18),),
}


def roll_back(con, version: int) -> None:
    """Make `con`'s store look like one at schema `version`: drop the tables later migrations created, give the
    tables they rebuilt their earlier shape back (empty), and forget those migrations, so the next read-write open
    runs them again."""
    for created, tables in CREATED_BY.items():
        if created > version:
            for table in tables:
                con.execute(f"DROP TABLE {table}")
    for rebuilt, shapes in REBUILT_BY.items():
        if rebuilt > version:
            for table, made_by in shapes:
                con.execute(f"DROP TABLE IF EXISTS {table}")  # gone already when a later migration made it
                if version >= made_by:
                    con.execute(_created(table, made_by))
    con.execute("DELETE FROM schema_migrations WHERE version > $v", {"v": version})


def _created(table: str, version: int) -> str:
    """The statement of migration `version` that created `table` (in its shape of that release, empty)."""
    steps = dict(MIGRATIONS)[version]
    return next(s for s in steps if isinstance(s, str) and s.startswith(f"CREATE TABLE {table} "))
