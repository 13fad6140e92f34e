"""Contractor days kept at ingest: per contractor, dimension and day, the sums over their contractor tasks
(analytics/contractor_tasks.py) that the central tendency and consensus shift effects read.

Those effects are means over a contractor's tasks of a per-task figure, with the tasks' standard error
(effects/rows.task_stats_sql): count, sum and sum of squares over tasks are enough, and they add up over days. A
filter change then groups this table (tens of thousands of rows at 1M tasks) instead of the contractor tasks
(14.5M rows, 0.25-0.35 s a query). The sidebar's dates select whole days, so a day's row is kept or dropped whole,
as its tasks would be: `submitted_at` is the day (midnight) of the tasks' submission time, NULL for tasks
without one, and the filters read it and the other columns as on the ratings.

The rows are sums of contractor_tasks rows, so every change of those recomputes the days it touched, inside its
transaction (contractor_tasks.redo calls `touched` before its deletes and `redo` after its fill).
"""

from __future__ import annotations

import duckdb

CREATE = """CREATE TABLE contractor_days (
    dim_key INTEGER NOT NULL, rater_key INTEGER NOT NULL, rater_id VARCHAR NOT NULL, role VARCHAR NOT NULL,
    rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, submitted_at TIMESTAMP, tasks BIGINT NOT NULL,
    n_ratings BIGINT NOT NULL, v_sum DOUBLE, v_sq DOUBLE, inner_s1 DOUBLE NOT NULL, inner_s2 DOUBLE NOT NULL,
    shift_tasks BIGINT NOT NULL, shift_s1 DOUBLE, shift_s2 DOUBLE)"""
# Per row, over the contractor's tasks of the dimension submitted that day (contractor_tasks rows):
#   tasks, n_ratings, v_sum, v_sq   their number, and the sums of their ratings, values and squared values;
#   inner_s1, inner_s2              the sum and sum of squares of each task's share of inner levels (inner_n / n_ratings);
#   shift_tasks, shift_s1, shift_s2 over tasks with a unit another contractor rated (agree_n > 0): their number and
#                                   the sum and sum of squares of the task's mean difference from the others (diff_sum /
#                                   agree_n); NULL sums when there is none.

DAY = "date_trunc('day', submitted_at)"
# A day to stand for "no submission time" in the scope of a change (NULL would not match itself in a join).
NO_DAY = "TIMESTAMP '0001-01-01'"
_SUMS = f"""SELECT dim_key, rater_key, rater_id, role, rubric, dimension, {DAY} AS submitted_at, count(*) AS tasks,
       sum(n_ratings) AS n_ratings, sum(v_sum) AS v_sum, sum(v_sq) AS v_sq,
       sum(inner_n / n_ratings) AS inner_s1, sum((inner_n / n_ratings) ** 2) AS inner_s2,
       count(*) FILTER (WHERE agree_n > 0) AS shift_tasks,
       sum(diff_sum / agree_n) FILTER (WHERE agree_n > 0) AS shift_s1,
       sum((diff_sum / agree_n) ** 2) FILTER (WHERE agree_n > 0) AS shift_s2
FROM contractor_tasks t WHERE {{scope}}
GROUP BY dim_key, rater_key, rater_id, role, rubric, dimension, {DAY}"""
_DAYS = f"SELECT DISTINCT rater_key, dim_key, coalesce({DAY}, {NO_DAY}) AS day FROM contractor_tasks WHERE {{scope}}"
_IN_SCOPE = f"""EXISTS (SELECT 1 FROM days_scope s WHERE s.rater_key = {{t}}.rater_key AND s.dim_key = {{t}}.dim_key
                AND s.day = coalesce({{day}}, {NO_DAY}))"""


def rebuild(con: duckdb.DuckDBPyConnection) -> None:
    """Every row again, from the contractor tasks kept now."""
    con.execute("DELETE FROM contractor_days")
    con.execute("INSERT INTO contractor_days " + _SUMS.format(scope="TRUE"))


def touched(con: duckdb.DuckDBPyConnection, scope: str, params: dict) -> None:
    """Note the days of the contractor tasks `scope` selects, before a change deletes them (temporary table
    days_scope of the connection, read by `redo`; the scope TRUE rebuilds every row instead)."""
    if scope != "TRUE":
        con.execute("CREATE OR REPLACE TEMP TABLE days_scope AS " + _DAYS.format(scope=scope), params)


def redo(con: duckdb.DuckDBPyConnection, scope: str, params: dict) -> None:
    """Recompute the days noted by `touched` and those of the contractor tasks `scope` selects now (after the
    change's fill): a day whose tasks all went is deleted."""
    if scope == "TRUE":
        rebuild(con)
    else:
        con.execute("INSERT INTO days_scope " + _DAYS.format(scope=scope), params)
        days = _IN_SCOPE.format(t="contractor_days", day="contractor_days.submitted_at")
        con.execute("DELETE FROM contractor_days WHERE " + days)
        con.execute("INSERT INTO contractor_days " + _SUMS.format(scope=_IN_SCOPE.format(t="t", day=DAY)))
    con.execute("DROP TABLE IF EXISTS days_scope")


def migration_steps() -> list:
    """Migration 15: the table, filled from the contractor tasks already kept."""
    return [CREATE, rebuild]
