"""Contractor days kept at ingest: per contractor, dimension and day, the sums over their contractor tasks
(analytics/store/derived/contractor_tasks.py) that central tendency and leniency (from researchers or the other contractors)
read; per contractor, rubric and day, those that drift's weekly agreement and halo read.

Those figures are means over a contractor's tasks of a per-task figure, with the tasks' standard error
(effects/rows.task_means), or weekly sums of one: count, sum and sum of squares over tasks are enough, and they
add up over days. A filter change then groups these tables (about 119,000 and 24,000 rows at 1M tasks) instead of
the contractor tasks (14.5M and 2.9M rows). The sidebar's dates select whole days, so a day's row is kept or dropped
whole, as its tasks would be: `submitted_at` is the day (midnight) of the tasks' submission time, NULL for tasks
without one, and the filters read it and the other columns as on the ratings.

The figures read from the kept pairs (a task's mean difference from the researchers on a dimension; a rubric day's
share of pairs that agree exactly, drift's second line) are over all the task's pairs: a task is in or out of a
date range whole, where the pairs read one by one could split a task whose ratings straddle the range's edge.

The rows are sums of contractor task rows (and of the kept pairs of their tasks), so every change of those
recomputes the days it touched, inside its transaction: contractor_tasks.redo calls `touched` before its deletes
and `redo` after its fill, and every change of the kept pairs redoes the contractor tasks of its tasks
(analytics/store/derived/refresh.py).
"""

from __future__ import annotations

import duckdb

CREATE = """CREATE TABLE contractor_days (
    dim_key INTEGER NOT NULL, rater_key INTEGER NOT NULL, rater_id VARCHAR NOT NULL, role VARCHAR NOT NULL,
    rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, submitted_at TIMESTAMP, tasks BIGINT NOT NULL,
    n_ratings BIGINT NOT NULL, v_sum DOUBLE, v_sq DOUBLE, inner_s1 DOUBLE NOT NULL, inner_s2 DOUBLE NOT NULL,
    shift_tasks BIGINT NOT NULL, shift_s1 DOUBLE, shift_s2 DOUBLE, researcher_tasks BIGINT NOT NULL,
    researcher_s1 DOUBLE, researcher_s2 DOUBLE)"""
# Per row, over the contractor's tasks of the dimension submitted that day (contractor_tasks rows):
#   tasks, n_ratings, v_sum, v_sq   their number, and the sums of their ratings, values and squared values;
#   inner_s1, inner_s2              the sum and sum of squares of each task's share of inner levels
#                                   (inner_n / n_ratings);
#   shift_tasks, shift_s1, shift_s2 over tasks with a unit another contractor rated (agree_n > 0): their number and
#                                   the sum and sum of squares of the task's mean difference from the others
#                                   (diff_sum / agree_n); NULL sums when there is none;
#   researcher_tasks, researcher_s1, researcher_s2
#                                   over tasks with a kept pair (analytics/store/derived/reference_pairs.py): their number and the
#                                   sum and sum of squares of the task's mean value minus the researcher's, over all
#                                   the task's pairs on the dimension (leniency against researchers).

CREATE_RUBRIC = """CREATE TABLE contractor_rubric_days (
    rater_key INTEGER NOT NULL, rater_id VARCHAR NOT NULL, role VARCHAR NOT NULL, rubric VARCHAR NOT NULL,
    submitted_at TIMESTAMP, tasks BIGINT NOT NULL, consensus_n BIGINT NOT NULL, consensus_s1 DOUBLE,
    consensus_s2 DOUBLE, researchers_n BIGINT NOT NULL, researchers_s1 DOUBLE, halo_n BIGINT NOT NULL,
    halo_s1 DOUBLE, halo_s2 DOUBLE)"""
# Per row, over the contractor's tasks of the rubric submitted that day (contractor_rubric_tasks rows):
#   tasks                                   their number;
#   consensus_n, consensus_s1, consensus_s2 over tasks with a unit another contractor rated: their number and the
#                                           sum and sum of squares of the share of the others who agreed;
#   researchers_n, researchers_s1           over tasks with a kept pair: their number and the sum of the share of
#                                           their pairs that agree exactly;
#   halo_n, halo_s1, halo_s2                over tasks with an item rated on three ordered dimensions or more: their
#                                           number and the sum and sum of squares of the mean spread of an item.

DAY = "date_trunc('day', submitted_at)"
# A day to stand for "no submission time" in the scope of a change (NULL would not match itself in a join).
NO_DAY = "TIMESTAMP '0001-01-01'"
_VALUE = "coalesce(d.level_values[{i} + 1], {i})"  # a level's number on the scale, else its position
_SUMS = f"""WITH t AS (SELECT t.* FROM contractor_tasks t{{days}}),
ref AS (
    SELECT p.rater_key, p.dim_key, p.task_key,
           avg({_VALUE.format(i="p.value_index")} - {_VALUE.format(i="p.reference_index")}) AS difference
    FROM reference_pairs p{{of_t}}
         JOIN (SELECT k.dim_key, d.level_values FROM dimensions d JOIN dimension_keys k USING (rubric, dimension)) d
         ON d.dim_key = p.dim_key
    GROUP BY p.rater_key, p.dim_key, p.task_key)
SELECT t.dim_key, t.rater_key, t.rater_id, t.role, t.rubric, t.dimension, {DAY} AS submitted_at, count(*) AS tasks,
       sum(n_ratings) AS n_ratings, sum(v_sum) AS v_sum, sum(v_sq) AS v_sq,
       sum(inner_n / n_ratings) AS inner_s1, sum((inner_n / n_ratings) ** 2) AS inner_s2,
       count(*) FILTER (WHERE agree_n > 0) AS shift_tasks,
       sum(diff_sum / agree_n) FILTER (WHERE agree_n > 0) AS shift_s1,
       sum((diff_sum / agree_n) ** 2) FILTER (WHERE agree_n > 0) AS shift_s2,
       count(ref.difference) AS researcher_tasks, sum(ref.difference) AS researcher_s1,
       sum(ref.difference ** 2) AS researcher_s2
FROM t LEFT JOIN ref USING (rater_key, dim_key, task_key)
GROUP BY t.dim_key, t.rater_key, t.rater_id, t.role, t.rubric, t.dimension, {DAY}"""
_CONSENSUS = "agree_sum / nullif(agree_n, 0)"
_HALO = "CASE WHEN items > 0 THEN spread_sum / items END"
_RUBRIC_SUMS = f"""WITH t AS (SELECT t.* FROM contractor_rubric_tasks t{{days}}),
res AS (
    SELECT p.rater_key, p.rubric, p.task_key,
           avg(CASE WHEN p.value_index = p.reference_index THEN 1.0 ELSE 0.0 END) AS agreement
    FROM reference_pairs p{{of_t}}
    GROUP BY p.rater_key, p.rubric, p.task_key)
SELECT t.rater_key, t.rater_id, t.role, t.rubric, {DAY} AS submitted_at, count(*) AS tasks,
       count({_CONSENSUS}) AS consensus_n, sum({_CONSENSUS}) AS consensus_s1, sum(({_CONSENSUS}) ** 2) AS consensus_s2,
       count(res.agreement) AS researchers_n, sum(res.agreement) AS researchers_s1,
       count({_HALO}) AS halo_n, sum({_HALO}) AS halo_s1, sum(({_HALO}) ** 2) AS halo_s2
FROM t LEFT JOIN res USING (rater_key, rubric, task_key)
GROUP BY t.rater_key, t.rater_id, t.role, t.rubric, {DAY}"""
# Per table: its key besides the rater and the day, the rows it sums, and its SELECT of them
_KEYED = {
    "contractor_days": ("dim_key", "contractor_tasks", _SUMS),
    "contractor_rubric_days": ("rubric", "contractor_rubric_tasks", _RUBRIC_SUMS),
}
_DAYS = f"SELECT DISTINCT rater_key, {{key}}, coalesce({DAY}, {NO_DAY}) AS day FROM {{source}} WHERE {{scope}}"
# A day row's group among those noted (the kept days are few: a correlated EXISTS is fine there) ...
_IN_SCOPE = f"""EXISTS (SELECT 1 FROM {{table}}_scope s WHERE s.rater_key = {{table}}.rater_key
                AND s.{{key}} = {{table}}.{{key}} AND s.day = coalesce({{table}}.submitted_at, {NO_DAY}))"""
# ... and the contractor task rows of those groups, by a semi-join (a correlated EXISTS over every task row is
# much slower).
_OF_DAYS = f""" SEMI JOIN {{table}}_scope s ON s.rater_key = t.rater_key AND s.{{key}} = t.{{key}}
    AND s.day = coalesce(date_trunc('day', t.submitted_at), {NO_DAY})"""


def _sums(table: str, days: str = "") -> str:
    """The SELECT of `table`'s rows summed from the contractor task rows (alias t) and their kept pairs: all, or
    those of the days noted (`days`: _OF_DAYS). Only then are the pairs cut to those of the rows' tasks (a semi-join
    building on every task row was most of a rebuild)."""
    key, _, sql = _KEYED[table]
    of_t = (
        f" SEMI JOIN t ON p.rater_key = t.rater_key AND p.{key} = t.{key} AND p.task_key = t.task_key" if days else ""
    )
    return sql.format(days=days, of_t=of_t)


def rebuild(con: duckdb.DuckDBPyConnection) -> None:
    """Every row again, from the contractor tasks kept now."""
    for table in _KEYED:
        con.execute(f"DELETE FROM {table}")
        con.execute(f"INSERT INTO {table} " + _sums(table))


def touched(con: duckdb.DuckDBPyConnection, scope: str, params: dict) -> None:
    """Note the days of the contractor tasks `scope` selects, before a change deletes them (temporary tables
    <table>_scope of the connection, read by `redo`; the scope TRUE rebuilds every row instead)."""
    if scope != "TRUE":
        for table, (key, source, _) in _KEYED.items():
            days = _DAYS.format(key=key, source=source, scope=scope)
            con.execute(f"CREATE OR REPLACE TEMP TABLE {table}_scope AS {days}", params)


def redo(con: duckdb.DuckDBPyConnection, scope: str, params: dict) -> None:
    """Recompute the days noted by `touched` and those of the contractor tasks `scope` selects now (after the
    change's fill): a day whose tasks all went is deleted."""
    if scope == "TRUE":
        rebuild(con)
        return
    for table, (key, source, _) in _KEYED.items():
        con.execute(f"INSERT INTO {table}_scope " + _DAYS.format(key=key, source=source, scope=scope), params)
        con.execute(f"DELETE FROM {table} WHERE " + _IN_SCOPE.format(table=table, key=key))
        con.execute(f"INSERT INTO {table} " + _sums(table, _OF_DAYS.format(table=table, key=key)))
        con.execute(f"DROP TABLE {table}_scope")


def migration_steps() -> list:
    """Migration 15: the tables, filled from the contractor tasks (and kept pairs) already kept."""
    return [CREATE, CREATE_RUBRIC, rebuild]
