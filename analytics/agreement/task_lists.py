"""SQL that groups tasks by signature: per group, each distinct list of a task's items with its tasks and units.

Tasks of one or two items take min and max (or the picks of two units) instead of a list: grouping on lists is
slow and most tasks hold one or two units. The pairing's plans (analytics/agreement/pair_plans.py) and the task
patterns (analytics/agreement/counts.py) build their signatures with these.
"""

from __future__ import annotations


def task_lists(keys: str, source: str, where: str, item: str, order: str, name: str, unit: str | None) -> str:
    """CTEs (ending in `by_list`) giving per group of `keys` each distinct task signature, the sorted list `name`
    of the task's `item`s (rows of `source` passing `where`), with n_tasks and n_units (the distinct values of the
    column `unit` on the task; None: each item is a unit). Tasks of one or two items take min and max, not a
    list: grouping on lists is slow and most tasks hold one or two units; their units are counted from min and
    max too (a count(DISTINCT) per task is slow)."""
    spread = f", min({unit}) AS unit_lo, max({unit}) AS unit_hi" if unit else ""
    few_units = "sum(CASE WHEN unit_lo = unit_hi THEN 1 ELSE 2 END)" if unit else "sum(n_items)"
    few = f"""per_task AS (
    SELECT {keys}, task_key, min({item}) AS lo, max({item}) AS hi, count(*) AS n_items{spread}
    FROM {source}
    WHERE {where}
    GROUP BY ALL
), few AS (
    SELECT {keys}, CASE WHEN n_items = 1 THEN [lo] ELSE [lo, hi] END AS {name}, n_tasks, n_units
    FROM (SELECT {keys}, lo, hi, n_items, count(*) AS n_tasks, {few_units} AS n_units
          FROM per_task WHERE n_items <= 2 GROUP BY ALL)
)"""
    units = f"count(DISTINCT {unit})" if unit else "count(*)"
    return _with_listed(few, "n_items > 2", keys, source, where, f"list({item} ORDER BY {order})", name, units)


def unit_lists(keys: str, source: str, where: str, fields: tuple[str, ...], name: str, ident: str) -> str:
    """`task_lists` of units whose items are the tuples of `fields` (one row of `source` per unit), sorted as
    tuples. A task of one unit, or of two told apart by the column `ident`, takes each field of the unit with
    the lowest and the highest `ident` (arg_min and arg_max) and orders the two in SQL: faster than min and max
    over many-field tuples (for two fields they are no faster: task_patterns_query keeps `task_lists`). Other
    tasks (more units, or two with one `ident`) are listed."""
    n = range(len(fields))
    picks = ", ".join(f"arg_min({f}, {ident}) AS a_{i}, arg_max({f}, {ident}) AS b_{i}" for i, f in enumerate(fields))
    first = f"a_{n[-1]} <= b_{n[-1]}"  # whether the lowest `ident`'s unit sorts first, field by field
    for i in reversed(n[:-1]):
        first = f"(a_{i} < b_{i} OR (a_{i} = b_{i} AND {first}))"
    lo, hi = (", ".join(f"{p}_{i}" for i in n) for p in ("lo", "hi"))
    ordered = ", ".join(
        f"CASE WHEN a_first THEN a_{i} ELSE b_{i} END AS lo_{i}, CASE WHEN a_first THEN b_{i} ELSE a_{i} END AS hi_{i}"
        for i in n
    )
    item = f"({', '.join(fields)})"
    named = {p: ", ".join(f"{p}_{i} AS {f}" for i, f in enumerate(fields)) for p in ("lo", "hi")}
    few = f"""per_task AS (
    SELECT {keys}, task_key, count(*) AS n_items, min({ident}) < max({ident}) AS apart, {picks}
    FROM {source}
    WHERE {where}
    GROUP BY ALL
), few_units AS (
    SELECT {keys}, {lo}, {hi}, n_items, count(*) AS n_tasks, sum(n_items) AS n_units
    FROM (SELECT {keys}, n_items, {ordered}
          FROM (SELECT *, {first} AS a_first FROM per_task WHERE n_items = 1 OR (n_items = 2 AND apart)))
    GROUP BY ALL
), few AS (
    -- each tuple made from columns named as its fields: Spark names a struct's fields after its columns
    SELECT {keys}, CASE WHEN n_items = 1 THEN [lo] ELSE [lo, {item}] END AS {name}, n_tasks, n_units
    FROM (SELECT {keys}, n_items, n_tasks, n_units, lo, {named["hi"]}
          FROM (SELECT {keys}, n_items, n_tasks, n_units, {hi}, {item} AS lo
                FROM (SELECT {keys}, n_items, n_tasks, n_units, {hi}, {named["lo"]} FROM few_units)))
)"""
    # two units with one `ident` are listed, so a list can come from both kinds of task: merged
    listed = "n_items > 2 OR (n_items = 2 AND NOT apart)"
    agg = f"list({item} ORDER BY {', '.join(fields)})"
    return _with_listed(few, listed, keys, source, where, agg, name, "count(*)", merge=True)


def _with_listed(
    few: str, listed_when: str, keys: str, source: str, where: str, agg: str, name: str, units: str, merge: bool = False
) -> str:
    """The CTEs of `few` (per_task, and few: the tasks it lists itself) followed by `listed` (the tasks of
    per_task passing `listed_when`, their items aggregated by `agg`) and `by_list`, both kinds grouped; with
    `merge`, a list both kinds give is one row (grouping the few distinct lists, not the tasks)."""
    both = f"""SELECT * FROM few
    UNION ALL
    SELECT {keys}, {name}, count(*) AS n_tasks, sum(n_units) AS n_units
    FROM listed
    GROUP BY ALL"""
    if merge:
        both = f"""SELECT {keys}, {name}, sum(n_tasks) AS n_tasks, sum(n_units) AS n_units
    FROM ({both})
    GROUP BY ALL"""
    return f""", {few}, listed AS (
    SELECT {keys}, task_key, {agg} AS {name}, {units} AS n_units
    FROM {source} SEMI JOIN (SELECT {keys}, task_key FROM per_task WHERE {listed_when}) USING ({keys}, task_key)
    WHERE {where}
    GROUP BY ALL
), by_list AS (
    {both}
)"""
