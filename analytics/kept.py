"""The tables kept beside the ratings at ingest (analytics/reference_pairs.py, analytics/reference_tasks.py,
analytics/contractor_tasks.py, analytics/rater_tasks.py): every change of stored ratings calls one function here, inside its transaction,
and each kept table follows it. A new kept table is added here once, not at every place that changes ratings. An
unload takes the file's pairs out and reads its tasks before its deletes (store.unload_file), then calls
after_unload. reference_tasks is made from the kept pairs, so it follows reference_pairs."""

from __future__ import annotations

import duckdb

from analytics import contractor_tasks, rater_tasks, reference_pairs, reference_tasks


def after_load(con: duckdb.DuckDBPyConnection, ingest_id: int) -> None:
    """Load `ingest_id`'s ratings are in (already renamed by a rater directory)."""
    reference_pairs.add_load(con, ingest_id)
    reference_tasks.redo_loads(con, [ingest_id])
    contractor_tasks.add_load(con, ingest_id)
    rater_tasks.redo_loads(con, [ingest_id])


def after_renames(con: duckdb.DuckDBPyConnection, ingest_ids: list[int]) -> None:
    """A rater directory merged or split ids in these loads' ratings."""
    reference_pairs.redo_loads(con, ingest_ids)
    reference_tasks.redo_loads(con, ingest_ids)
    contractor_tasks.redo_loads(con, ingest_ids)
    rater_tasks.redo_loads(con, ingest_ids)


def after_rescale(con: duckdb.DuckDBPyConnection, rubric: str, dimension: str) -> None:
    """A dimension's stored ratings were re-read on a wider or declared scale: their positions and values moved."""
    reference_pairs.redo_dimension(con, rubric, dimension)
    reference_tasks.redo_rubric(con, rubric)
    contractor_tasks.redo_rubric(con, rubric)  # its rubric rows span the rubric's dimensions
    rater_tasks.redo_rubric(con, rubric)  # a declared scale can leave ratings without a level


def after_unload(con: duckdb.DuckDBPyConnection, task_keys: list[int]) -> None:
    """A file's ratings and its kept pairs are gone: the rows of the tasks it rated (contractor_tasks.load_tasks,
    read before the deletes) again, as the other raters' figures on its units change too."""
    reference_tasks.redo_tasks(con, task_keys)
    contractor_tasks.redo_tasks(con, task_keys)
    rater_tasks.redo_tasks(con, task_keys)
