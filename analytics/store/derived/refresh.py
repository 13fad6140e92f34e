"""The tables kept beside the ratings at ingest (analytics/store/derived/reference_pairs.py, analytics/store/derived/level_counts.py,
analytics/store/derived/reference_tasks.py, analytics/store/derived/contractor_tasks.py, analytics/store/derived/rater_tasks.py,
analytics/store/derived/task_patterns.py): every change of stored
ratings calls one function here, inside its transaction, and each kept table follows it. A new kept table is added
here once, not at every place that changes ratings. An unload takes the file's rows out of the tables kept per load
(remove_load) and reads its tasks (tasks_of_load) before its deletes (analytics/ingest/unload.py), then calls after_unload.
reference_tasks is made from the kept pairs, so it follows reference_pairs; contractor_days is summed from
contractor_tasks, whose redo recomputes the days it touched (analytics/store/derived/contractor_days.py)."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from types import ModuleType

import duckdb

from analytics.store.derived import (
    contractor_tasks,
    level_counts,
    rater_tasks,
    reference_pairs,
    reference_tasks,
    task_patterns,
)

# The tables kept per load (their rows carry the loads of their ratings): a change adds, takes out or redoes the
# rows of the loads it touched.
PER_LOAD = (reference_pairs, level_counts)

# The tables kept per task: a change recomputes their rows of the tasks it touched.
PER_TASK = (reference_tasks, contractor_tasks, rater_tasks, task_patterns)
# The tasks a change touched, held once per change in a temporary table of the connection. A semi-join on it
# is cheaper than re-reading the load's ratings in each statement, and the fills run a dozen statements for a
# large load (contractor_tasks fills in ranges of tasks).
SCOPE = "task_key IN (SELECT task_key FROM kept_scope)"
# The other scope, closed under items (an item's ratings meet all or none) on a column the ratings and every
# per-task table have: one rubric (a scale re-read; contractor_tasks' rubric rows span the rubric's dimensions).
RUBRIC = "rubric = $rubric"
LOAD_TASKS = "SELECT DISTINCT task_key FROM ratings WHERE ingest_id = $id"  # the tasks one load rated
# What the agreement reads of them (analytics/agreement/pair_plans.py; the kept pairs are always kept).
AGREEMENT = (reference_tasks,)
_ONLY: contextvars.ContextVar[tuple | None] = contextvars.ContextVar("kept_only", default=None)


@contextlib.contextmanager
def only(*tables: ModuleType) -> Iterator[None]:
    """Within the block, changes of ratings fill only these per-task kept tables: for a scratch store that one
    command reads and throws away (`agreement FILE` reads AGREEMENT alone; contractor_tasks is 40% of a load),
    never for a store that is kept."""
    token = _ONLY.set(tables)
    try:
        yield
    finally:
        _ONLY.reset(token)


def _per_task(con: duckdb.DuckDBPyConnection) -> tuple:
    """The per-task kept tables this change fills (all of PER_TASK outside `only`); a table left out that its
    readers would trust (task_patterns: they read it when its packing is the store's) is forgotten."""
    chosen = _ONLY.get()
    if chosen is None:
        return PER_TASK
    if task_patterns not in chosen:
        task_patterns.forget(con)
    return tuple(t for t in PER_TASK if t in chosen)


def _redo_tasks(con: duckdb.DuckDBPyConnection, tasks_sql: str, params: dict) -> None:
    """Recompute every per-task kept table's rows of the tasks `tasks_sql` (a SELECT of task_key) gives."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE kept_scope AS {tasks_sql}", params)
    for table in _per_task(con):
        table.redo(con, SCOPE, {})
    con.execute("DROP TABLE kept_scope")


def after_load(con: duckdb.DuckDBPyConnection, ingest_id: int) -> None:
    """Load `ingest_id`'s ratings are in (already renamed by a rater directory)."""
    for table in PER_LOAD:
        table.add_load(con, ingest_id)
    others = con.execute("SELECT 1 FROM ratings WHERE ingest_id <> $id LIMIT 1", {"id": ingest_id}).fetchall()
    if not others:  # the store's first ratings (a large first load, typically): every row, with no scope to read
        for table in _per_task(con):
            table.redo(con, "TRUE", {})
        return
    _redo_tasks(con, LOAD_TASKS, {"id": ingest_id})


def after_renames(con: duckdb.DuckDBPyConnection, ingest_ids: list[int]) -> None:
    """A rater directory merged or split ids in these loads' ratings."""
    if not ingest_ids:
        return
    for table in PER_LOAD:
        table.redo_loads(con, ingest_ids)
    ids = {"ids": list(ingest_ids)}
    _redo_tasks(con, "SELECT DISTINCT task_key FROM ratings WHERE list_contains($ids, ingest_id)", ids)


def after_rescale(con: duckdb.DuckDBPyConnection, rubric: str, dimension: str) -> None:
    """A dimension's stored ratings were re-read on a wider or declared scale: their positions and values moved
    (contractor_tasks' rubric rows span the rubric's dimensions; a declared scale can leave ratings without a
    level, which rater_tasks counts)."""
    for kept_per_load in PER_LOAD:
        kept_per_load.redo_dimension(con, rubric, dimension)
    for table in _per_task(con):
        table.redo(con, RUBRIC, {"rubric": rubric})


def remove_load(con: duckdb.DuckDBPyConnection, ingest_id: int) -> dict[str, int]:
    """Take load `ingest_id`'s rows out of the tables kept per load (an unload, before its deletes); the rows
    removed per table."""
    return {table.__name__.rsplit(".", 1)[-1]: table.remove_load(con, ingest_id) for table in PER_LOAD}


def tasks_of_load(con: duckdb.DuckDBPyConnection, ingest_id: int) -> list[int]:
    """The tasks load `ingest_id` rated: an unload reads them before it deletes the ratings, to redo them after."""
    rows = con.execute(LOAD_TASKS, {"id": ingest_id}).fetchall()
    return [k for (k,) in rows]


def after_unload(con: duckdb.DuckDBPyConnection, task_keys: list[int]) -> None:
    """A file's ratings and its kept pairs are gone: the rows of the tasks it rated (tasks_of_load, read before the
    deletes) again, as the other raters' figures on its units change too."""
    if task_keys:
        _redo_tasks(con, "SELECT unnest($tasks) AS task_key", {"tasks": list(task_keys)})
