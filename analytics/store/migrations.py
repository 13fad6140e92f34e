"""The store's schema as data: every migration in order, applied once each, and the rubric catalogue's rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import duckdb

from analytics.core import rubrics
from analytics.core.queries import Query
from analytics.store import keys, people, tx
from analytics.store.derived import (
    contractor_days,
    contractor_tasks,
    level_counts,
    rater_tasks,
    reference_pairs,
    reference_tasks,
    rule_results,
    task_patterns,
)

# Each migration is (version, statements). Never edit a released migration: append a new one.
# Each migration: SQL statements, or functions of the connection for steps that choose their SQL.
MIGRATIONS: list[tuple[int, Sequence[str | Callable[[duckdb.DuckDBPyConnection], None]]]] = [
    (
        1,
        [
            """CREATE TABLE ingest_log (
                ingest_id INTEGER PRIMARY KEY, file_name VARCHAR NOT NULL, content_hash VARCHAR NOT NULL UNIQUE,
                format VARCHAR NOT NULL, role_override VARCHAR, rows_read INTEGER NOT NULL,
                rows_loaded INTEGER NOT NULL, rows_quarantined INTEGER NOT NULL, tasks INTEGER NOT NULL,
                submissions INTEGER NOT NULL, loaded_at TIMESTAMP NOT NULL DEFAULT current_timestamp)""",
            """CREATE TABLE tasks (
                task_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL, prompt VARCHAR, context VARCHAR,
                metadata JSON, ingest_id INTEGER NOT NULL, PRIMARY KEY (task_id, rubric))""",
            """CREATE TABLE task_items (
                task_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL, item_id VARCHAR NOT NULL,
                position INTEGER, label VARCHAR, text VARCHAR, sources JSON, metadata JSON,
                ingest_id INTEGER NOT NULL, PRIMARY KEY (task_id, rubric, item_id))""",
            """CREATE TABLE submissions (
                submission_id VARCHAR PRIMARY KEY, task_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL,
                rater_id VARCHAR NOT NULL, role VARCHAR NOT NULL, status VARCHAR NOT NULL,
                reason VARCHAR, submitted_at TIMESTAMP, duration_s DOUBLE, flags JSON, comment VARCHAR,
                explanation VARCHAR, justification VARCHAR, ranking JSON, shown_first VARCHAR,
                details JSON, ingest_id INTEGER NOT NULL)""",
            """CREATE TABLE ratings (
                task_id VARCHAR NOT NULL, rater_id VARCHAR NOT NULL, role VARCHAR NOT NULL,
                rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, target VARCHAR NOT NULL DEFAULT '',
                value VARCHAR NOT NULL, value_index INTEGER, value_num DOUBLE, submitted_at TIMESTAMP,
                duration_s DOUBLE, comment VARCHAR, submission_id VARCHAR, ingest_id INTEGER NOT NULL)""",
            """CREATE TABLE dimensions (
                rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, label VARCHAR, kind VARCHAR NOT NULL,
                levels VARCHAR[] NOT NULL, coarse VARCHAR[] NOT NULL, targets VARCHAR[],
                dim_group VARCHAR, is_primary BOOLEAN NOT NULL, is_comparison BOOLEAN NOT NULL,
                source VARCHAR NOT NULL, PRIMARY KEY (rubric, dimension))""",
            """CREATE TABLE quarantine (
                ingest_id INTEGER NOT NULL, file_name VARCHAR NOT NULL, line INTEGER, record VARCHAR,
                field VARCHAR, raw_value VARCHAR, reason VARCHAR NOT NULL)""",
            """CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR)""",
            "INSERT INTO meta VALUES ('dataset_version', '0')",
        ],
    ),
    (
        2,
        [
            # Reviewers' notes on contractor-researcher disagreements (analytics/review/disagreements.py). Keyed by ids,
            # not by ingest, so a note survives re-ingests; status values are checked in save_note().
            """CREATE TABLE review_notes (
                task_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL,
                target VARCHAR NOT NULL DEFAULT '', contractor_id VARCHAR NOT NULL, researcher_id VARCHAR NOT NULL,
                status VARCHAR NOT NULL, note VARCHAR, reviewer VARCHAR,
                updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
                PRIMARY KEY (task_id, rubric, dimension, target, contractor_id, researcher_id))""",
        ],
    ),
    (
        3,
        [
            # Declared scales (DESIGN.md, canonical data): every dimension's level of measurement, each level's
            # number (NULL where a level has none; same length and order as levels) and its missing codes.
            "ALTER TABLE dimensions ADD COLUMN measure VARCHAR",
            "ALTER TABLE dimensions ADD COLUMN level_values DOUBLE[]",
            "ALTER TABLE dimensions ADD COLUMN missing VARCHAR[]",
            # Catalogue rows are rewritten by sync_catalogue(); inferred rows: numbers are values, text nominal.
            """UPDATE dimensions SET
                 measure = CASE WHEN len(levels) > 0 AND list_bool_and(
                                    list_transform(levels, lambda x: isfinite(TRY_CAST(x AS DOUBLE)))) IS TRUE
                                THEN 'ordinal' ELSE 'nominal' END,
                 level_values = list_transform(levels, lambda x: CASE WHEN isfinite(TRY_CAST(x AS DOUBLE))
                                                                    THEN TRY_CAST(x AS DOUBLE) END),
                 missing = []""",
            # Scales declared by scales files, as declared; rubric '*' applies to that dimension in every rubric
            # the catalogue does not know (also rubrics loaded later).
            """CREATE TABLE scale_declarations (
                rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, measure VARCHAR NOT NULL,
                levels VARCHAR[] NOT NULL, level_values DOUBLE[] NOT NULL, missing VARCHAR[] NOT NULL,
                file_name VARCHAR, declared_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
                PRIMARY KEY (rubric, dimension))""",
        ],
    ),
    (
        4,
        [
            # Files unloaded from the Data page (unload_file): the ingest_log row as it was, who and when. The
            # ingest_log row itself goes, so the same content can be loaded again.
            """CREATE TABLE unloads (
                ingest_id INTEGER PRIMARY KEY, file_name VARCHAR NOT NULL, content_hash VARCHAR NOT NULL,
                format VARCHAR NOT NULL, role_override VARCHAR, rows_read INTEGER NOT NULL,
                rows_loaded INTEGER NOT NULL, rows_quarantined INTEGER NOT NULL, tasks INTEGER NOT NULL,
                submissions INTEGER NOT NULL, loaded_at TIMESTAMP NOT NULL, unloaded_by VARCHAR,
                unloaded_at TIMESTAMP NOT NULL DEFAULT current_timestamp)""",
        ],
    ),
    # Integer keys of tasks, raters, dimensions and targets on every rating (analytics/store/keys.py): the ratings
    # table is rebuilt with them, so a store loaded before keys existed gets them once, when it is opened.
    (5, keys.migration_statements()),
    # Contractor-researcher pairs kept at ingest (analytics/store/derived/reference_pairs.py), filled from the stored ratings.
    (6, reference_pairs.migration_statements()),
    # The rater directory (analytics/store/people.py): people, their aliases and the rows renamed to them.
    (7, people.MIGRATION),
    # The rubric documents' rules checked per submission (analytics/consistency/results.py).
    (8, rule_results.MIGRATION),
    # Guideline-change markers researchers add to read drift against (analytics/effects/markers.py); rubric NULL:
    # the marker applies to every rubric.
    (
        9,
        [
            """CREATE TABLE guideline_markers (
                marker_id INTEGER PRIMARY KEY, rubric VARCHAR, marked_on DATE NOT NULL, note VARCHAR NOT NULL,
                author VARCHAR, created_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"""
        ],
    ),
    # The kept pairs recomputed: a scale widened by a later load or declared over stored ratings left old positions
    # in them before reference_pairs.redo_dimension.
    (10, reference_pairs.rebuild_statements()),
    # Per contractor, task and dimension, the sums the rater effects and drift read (analytics/store/derived/contractor_tasks.py).
    (11, contractor_tasks.migration_steps()),
    # Per contractor, task and dimension, the confusion cells of the kept pairs (analytics/store/derived/reference_tasks.py).
    (12, reference_tasks.migration_statements()),
    # Per rater, role, rubric, task and submission time, the counts the Overview reads (analytics/store/derived/rater_tasks.py).
    (13, rater_tasks.migration_statements()),
    # Per load, rater, role, dimension, level and day, the counts the level distributions read
    # (analytics/store/derived/level_counts.py).
    (14, level_counts.migration_statements()),
    # Per contractor, dimension and day, the sums over tasks that central tendency and the consensus shift read
    # (analytics/store/derived/contractor_days.py), from the contractor tasks of migration 11.
    (15, contractor_days.migration_steps()),
    # Alarms a lead acknowledged (analytics/alarms/acks.py): who, when and why; an acknowledged alarm leaves the
    # headline and stays listed.
    (
        16,
        [
            """CREATE TABLE alarm_acks (
                kind VARCHAR NOT NULL, rater_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL,
                acknowledged_by VARCHAR NOT NULL, reason VARCHAR NOT NULL,
                acknowledged_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
                PRIMARY KEY (kind, rater_id, rubric, dimension))"""
        ],
    ),
    # The store's identity (analytics/store/version.py's store_identity): a random id written once, when the store
    # is made (or first opened by this release), so a file put in another's place (a backup restored) is told
    # apart from it at the same path and dataset version (Explore's snapshots are keyed by it).
    (
        17,
        [
            """CREATE TABLE store_identity (
                store_id VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL DEFAULT current_timestamp)""",
            "INSERT INTO store_identity (store_id) VALUES (CAST(uuid() AS VARCHAR))",
        ],
    ),
    # Report cards marked as sent on the Feedback page (analytics/feedback/events.py): who sent which report, when,
    # and the rater effects it named; a contractor's last feedback and the follow-up window read them.
    (
        18,
        [
            """CREATE TABLE feedback_events (
                rater_id VARCHAR NOT NULL, sent_by VARCHAR NOT NULL, sent_at TIMESTAMP NOT NULL,
                report VARCHAR NOT NULL, rubric VARCHAR, date_from DATE, date_to DATE,
                dataset_version BIGINT NOT NULL, effects VARCHAR[] NOT NULL)"""
        ],
    ),
    # Review notes per case (analytics/review/disagreements.py): a case is one contractor rating with every
    # researcher's rating of the unit inside it, and every save adds a note (the case's status is the latest one).
    # The notes written before, one per contractor-researcher pair, are kept in the order they were written, each
    # with the researcher it was written against (researcher_id; NULL on notes written on a whole case since).
    (
        19,
        [
            """CREATE TABLE case_notes (
                note_id INTEGER PRIMARY KEY, task_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL,
                dimension VARCHAR NOT NULL, target VARCHAR NOT NULL DEFAULT '', contractor_id VARCHAR NOT NULL,
                researcher_id VARCHAR, status VARCHAR NOT NULL, note VARCHAR, reviewer VARCHAR,
                updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp)""",
            """INSERT INTO case_notes
               SELECT row_number() OVER (ORDER BY updated_at, task_id, rubric, dimension, target, contractor_id,
                                                  researcher_id),
                      task_id, rubric, dimension, target, contractor_id, nullif(researcher_id, ''), status, note,
                      reviewer, updated_at
               FROM review_notes""",
            "DROP TABLE review_notes",
            "ALTER TABLE case_notes RENAME TO review_notes",
        ],
    ),
    # Per dimension and task, its units' packed level counts, what the multi-rater figures of all raters group
    # (analytics/store/derived/task_patterns.py), filled from the ratings already stored.
    (20, task_patterns.migration_steps()),
    # Labelling plans a lead issued (analytics/plan/issued.py): who, when, under which filter, each label's task and
    # researcher; an open plan's tasks are left out of the next plan.
    (
        21,
        [
            """CREATE TABLE label_plans (
                plan_id INTEGER PRIMARY KEY, issued_by VARCHAR NOT NULL, issued_at TIMESTAMP NOT NULL,
                budget INTEGER NOT NULL, rubric VARCHAR, date_from DATE, date_to DATE, raters VARCHAR[], note VARCHAR,
                withdrawn_by VARCHAR, withdrawn_at TIMESTAMP)""",
            """CREATE TABLE label_plan_tasks (
                plan_id INTEGER NOT NULL, priority INTEGER NOT NULL, task_id VARCHAR NOT NULL, rubric VARCHAR NOT NULL,
                researcher VARCHAR, reason VARCHAR NOT NULL, expected_gain DOUBLE)""",
        ],
    ),
    # Feedback given outside Concord, loaded from a feedback log (analytics/store/feedback_log.py): each event keeps
    # the load it came from (NULL: marked as sent on the Feedback page), so unloading the file removes its events,
    # and the log's note.
    (
        22,
        [
            "ALTER TABLE feedback_events ADD COLUMN ingest_id INTEGER",
            "ALTER TABLE feedback_events ADD COLUMN note VARCHAR",
        ],
    ),
]

# The dimensions table's columns in order (migrations 1 and 3); write rows by these names.
DIMENSION_COLUMNS = (
    "rubric",
    "dimension",
    "label",
    "kind",
    "levels",
    "coarse",
    "targets",
    "dim_group",
    "is_primary",
    "is_comparison",
    "source",
    "measure",
    "level_values",
    "missing",
)
ALL_RUBRICS = "*"  # scale_declarations.rubric of a declaration without a rubric


def schema_version(con: duckdb.DuckDBPyConnection) -> int:
    """The highest migration applied to this store (0 for an empty file)."""
    con.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMP)")
    row = con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchall()
    return int(row[0][0])


def migrate(con: duckdb.DuckDBPyConnection) -> None:
    """Apply every migration the store has not seen yet, each in its own transaction."""
    with tx.WRITE_LOCK:  # one migrator at a time: the versions read are those still to apply
        _migrate(con)
    sync_catalogue(con)


SCHEMA_MIGRATIONS_INSERT = Query(
    "schema_migrations_insert", "INSERT INTO schema_migrations VALUES ($version, current_timestamp)"
)


def _migrate(con: duckdb.DuckDBPyConnection) -> None:
    """The migrations the store has not seen yet (under the write lock)."""
    current = schema_version(con)
    for version, statements in MIGRATIONS:
        if version <= current:
            continue
        with tx.write(con):
            for step in statements:
                step(con) if callable(step) else con.execute(step)
            SCHEMA_MIGRATIONS_INSERT.bind(version=version).run(con)


CATALOGUE_ROWS = Query(
    "catalogue_rows",
    f"SELECT {', '.join(DIMENSION_COLUMNS)} FROM dimensions WHERE source = 'catalogue' ORDER BY rubric, dimension",
)
CATALOGUE_DELETE = Query("catalogue_delete", "DELETE FROM dimensions WHERE source = 'catalogue'")


def sync_catalogue(con: duckdb.DuckDBPyConnection) -> None:
    """Write the catalogued rubrics into the dimensions table (declared and inferred dimensions are left alone)."""
    rows = sorted(((*row[:10], "catalogue", *row[10:]) for row in rubrics.catalogue_rows()), key=lambda r: r[:2])
    if CATALOGUE_ROWS.rows(con) == rows:  # already in step: a read-write open writes nothing
        return
    with tx.write(con):
        CATALOGUE_DELETE.run(con)
        save_dimensions(con, rows)


# One statement for every row (executemany runs one INSERT per row: about a second for the catalogue's 75).
DIMENSION_SAVE = Query(
    "dimension_save",
    f"INSERT OR REPLACE INTO dimensions ({', '.join(DIMENSION_COLUMNS)}) "
    f"SELECT {', '.join(DIMENSION_COLUMNS)} FROM (SELECT unnest($rows, recursive := true))",
)


def save_dimensions(con: duckdb.DuckDBPyConnection, rows: Sequence[Sequence[Any]]) -> None:
    """INSERT OR REPLACE dimensions rows, each given in DIMENSION_COLUMNS order."""
    if rows:
        DIMENSION_SAVE.bind(rows=[dict(zip(DIMENSION_COLUMNS, row, strict=True)) for row in rows]).run(con)
