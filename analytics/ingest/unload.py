"""Unloading a file: everything one load brought leaves the store in one transaction, and the kept tables and rule
results follow."""

from __future__ import annotations

from typing import Any

import duckdb

from analytics.consistency import results as rule_results
from analytics.core.queries import Query
from analytics.store import feedback_log, people, tx
from analytics.store.derived import refresh
from analytics.store.version import bump_version

LOADED_FILE_NAME = Query("loaded_file_name", "SELECT file_name FROM ingest_log WHERE ingest_id = $ingest_id")
SUBMISSIONS_RECREDIT = Query(
    "submissions_recredit",
    """UPDATE submissions s SET ingest_id = o.first_id
       FROM (SELECT submission_id, min(ingest_id) AS first_id FROM ratings
             WHERE submission_id IS NOT NULL GROUP BY submission_id) o
       WHERE s.ingest_id = $ingest_id AND o.submission_id = s.submission_id""",
)
LOAD_SUBMISSION_RUBRICS = Query(
    "load_submission_rubrics", "SELECT DISTINCT rubric FROM submissions WHERE ingest_id = $ingest_id"
)
UNLOADS_INSERT = Query(
    "unloads_insert",
    """INSERT INTO unloads SELECT ingest_id, file_name, content_hash, format, role_override, rows_read,
              rows_loaded, rows_quarantined, tasks, submissions, loaded_at, $unloaded_by, current_timestamp
       FROM ingest_log WHERE ingest_id = $ingest_id""",
)
INGEST_LOG_DELETE = Query("ingest_log_delete", "DELETE FROM ingest_log WHERE ingest_id = $ingest_id")


def unload_file(con: duckdb.DuckDBPyConnection, ingest_id: int, who: str | None) -> dict[str, int]:
    """Remove one loaded file in one transaction: its ratings, submissions, quarantine rows, and the tasks and
    task items it brought; the ingest_log row moves to `unloads` with who and when; the dataset version moves.

    A task or item another loaded file also uses stays, now credited to the earliest such file. Review notes
    and declared or inferred scales stay. Returns the rows removed per table; KeyError when no such load."""
    with tx.write(con):
        found = LOADED_FILE_NAME.bind(ingest_id=ingest_id).rows(con)
        if not found:
            raise KeyError(f"no loaded file has ingest id {ingest_id}")
        removed = refresh.remove_load(con, ingest_id)
        tasks = refresh.tasks_of_load(con, ingest_id)
        people.unload(con, ingest_id)  # a directory gives renamed rows their own ids back
        removed["feedback_events"] = feedback_log.unload(con, ingest_id)  # a feedback log's events
        for table in ("ratings", "quarantine"):
            removed[table] = _delete(con, table, "ingest_id = $ingest_id", {"ingest_id": ingest_id})
        # Submissions whose id a rating of another file names stay (credited to that file).
        SUBMISSIONS_RECREDIT.bind(ingest_id=ingest_id).run(con)
        ruled = LOAD_SUBMISSION_RUBRICS.bind(ingest_id=ingest_id).rows(con)
        removed["submissions"] = _delete(con, "submissions", "ingest_id = $ingest_id", {"ingest_id": ingest_id})
        checked = tuple(r for (r,) in ruled if r in rule_results.rubrics_with_rules())
        if checked:  # a rule may compare a submission with the contractor's others: the rubric again
            rule_results.refresh(con, checked)
        # Tasks and items are shared by every file rating them: kept while another file's rows use them.
        users = """SELECT task_id, rubric, min(ingest_id) AS first_id FROM (
                       SELECT task_id, rubric, ingest_id FROM ratings
                       UNION ALL SELECT task_id, rubric, ingest_id FROM submissions) GROUP BY ALL"""
        for table in ("tasks", "task_items"):
            Query(
                f"{table}_recredit",
                f"""UPDATE {table} t SET ingest_id = o.first_id FROM ({users}) o
                    WHERE t.ingest_id = $ingest_id AND o.task_id = t.task_id AND o.rubric = t.rubric""",
                {"ingest_id": ingest_id},
            ).run(con)
            removed[table] = _delete(con, table, "ingest_id = $ingest_id", {"ingest_id": ingest_id})
        UNLOADS_INSERT.bind(unloaded_by=(who or "").strip() or None, ingest_id=ingest_id).run(con)
        INGEST_LOG_DELETE.bind(ingest_id=ingest_id).run(con)
        refresh.after_unload(con, tasks)
        bump_version(con)
    return removed


def _delete(con: duckdb.DuckDBPyConnection, table: str, where: str, params: dict[str, Any]) -> int:
    return int(Query(f"{table}_delete", f"DELETE FROM {table} WHERE {where}", params).run(con).fetchall()[0][0])


UNLOADS = Query(
    "unloads",
    """SELECT ingest_id, file_name, rows_loaded, loaded_at, unloaded_by, unloaded_at FROM unloads
       ORDER BY unloaded_at DESC, ingest_id DESC""",
)


def unloads(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """Unloaded files, newest first: (ingest_id, file_name, rows_loaded, loaded_at, unloaded_by, unloaded_at)."""
    return UNLOADS.rows(con)
