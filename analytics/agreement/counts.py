"""Value counts for multi-rater coefficients, grouped by task, and each rater's level counts.

Krippendorff's alpha, Fleiss' kappa, Gwet's AC1/AC2 and percent agreement need only each unit's vector of
counts per level. Units are grouped by task (a task's units share its difficulty), and tasks with the same
multiset of unit vectors form one signature; intervals resample tasks over these signatures.

Filter rules are those of analytics/agreement/sides.py: figures per dimension ignore the rater filter (they
describe the team); dates select ratings by when they were submitted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]

from analytics.agreement.pairing import MULTI, multi_target
from analytics.agreement.sides import team_filters
from analytics.agreement.signatures import entries, fetch
from analytics.agreement.task_lists import task_lists
from analytics.core import packing as pk
from analytics.core.filters import Filters
from analytics.core.packing import OVERFLOWS, Packing, PackingOverflow, unpack_codes
from analytics.core.queries import Query, run
from analytics.store.derived import task_patterns as kept_patterns

# The last SELECT of the pattern queries: groups keyed by dim_key, named (analytics/store/keys.py).
_NAMED = """
SELECT rubric, dimension, units, n_tasks
FROM grouped JOIN dimension_keys USING (dim_key)
ORDER BY ALL"""


def dimension_filter(filters: Filters, role: str | None) -> Filters:
    """The ratings a dimension's multi-rater figures use: the filter without raters, with the comparison's role."""
    return team_filters(filters).but(roles=() if role is None else (role,))


def task_patterns_query(filters: Filters, multi: list[str] | None = None, pack: Packing | None = None) -> Query:
    """Per dimension, each distinct task (its units' level counts) and how many tasks have it.

    With `pack`, a unit's level counts are packed in one integer (analytics/core/packing.py) and a task of a
    dimension with one target is its one unit, so tasks are counted without listing them; otherwise a task is
    the sorted value lists of its units (the readable form, shown beside the packed plan)."""
    if pack is None:
        return _task_patterns_plan(filters)
    return _task_patterns_plan(filters, multi, pack).with_readable(_task_patterns_plan(filters))


def _task_patterns_plan(filters: Filters, multi: list[str] | None = None, pack: Packing | None = None) -> Query:
    """`task_patterns_query`'s text: packed with `pack`, else the value lists."""
    where, params = filters.where_named()
    if pack is None:
        sql = f"""WITH units AS (
    SELECT dim_key, task_key, target_key, list(value_index ORDER BY value_index) AS vals
    FROM ratings
    WHERE value_index IS NOT NULL AND {where}
    GROUP BY ALL
), tasks AS (
    SELECT dim_key, task_key, list(vals ORDER BY vals) AS units
    FROM units
    GROUP BY ALL
), grouped AS (
    SELECT dim_key, units, count(*) AS n_tasks
    FROM tasks
    GROUP BY ALL
){_NAMED}"""
        return Query("task_value_patterns", sql, params)
    units = f"""WITH units AS (
    SELECT dim_key, task_key, count(*) AS m, {pack.total("value_index")} AS code
    FROM ratings
    WHERE value_index IS NOT NULL AND {where}
    GROUP BY dim_key, task_key, target_key
)"""
    if not multi:  # every dimension has one target: a task is its one unit
        sql = f"""{units}, grouped AS (
    SELECT dim_key, [(code, m)] AS units, count(*) AS n_tasks
    FROM units
    GROUP BY dim_key, code, m
){_NAMED}"""
        return Query("task_value_patterns", sql, {**params, "bits": pack.bits})
    # a task of a dimension with several targets: its units' (code, m) listed, as the pairings list theirs
    # min and max over the (code, m) tuples: two fields take no longer than arg_min and arg_max per field
    # (unit_lists)
    listed = task_lists("dim_key", "units", MULTI, "(code, m)", "code, m", "units", None)
    sql = f"""{units}{listed}, grouped AS (
    SELECT dim_key, [(code, m)] AS units, count(*) AS n_tasks
    FROM units
    WHERE NOT {MULTI}
    GROUP BY dim_key, code, m
    UNION ALL
    SELECT dim_key, units, n_tasks FROM by_list
){_NAMED}"""
    return Query("task_value_patterns", sql, {**params, "bits": pack.bits, "multi": multi})


def kept_task_patterns_query(filters: Filters) -> Query:
    """`task_patterns_query`'s packed result from the task patterns kept at ingest
    (analytics/store/derived/task_patterns.py): the same rows, for a filter on rubric and dimensions only."""
    where, params = filters.where_named()
    sql = f"""WITH grouped AS (
    SELECT dim_key, units, count(*) AS n_tasks
    FROM task_patterns
    WHERE dim_key IN (SELECT dim_key FROM dimension_keys WHERE {where})
    GROUP BY ALL
){_NAMED}"""
    return Query("task_value_patterns_kept", sql, params).with_readable(_task_patterns_plan(filters))


def reads_kept_patterns(con: duckdb.DuckDBPyConnection | object, filters: Filters, pack: Packing | None = None) -> int:
    """The bits of the kept task patterns when they answer `filters` on this connection (0: read the ratings): a
    DuckDB store (not another engine) whose kept rows hold its packing (`pack`, when the caller has it), under a
    filter on rubric and dimensions only (the kept rows count every rater, role and date)."""
    only_items = not (filters.roles or filters.raters or filters.date_from or filters.date_to)
    if not only_items or not isinstance(con, duckdb.DuckDBPyConnection):
        return 0
    return kept_patterns.usable_bits(con, pack)


def task_patterns_for(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    q_of: Callable[[tuple[str, str]], int | None],
    queries: list | None = None,
) -> dict[tuple[str, str], TaskPatterns]:
    """Run `task_patterns_query` (from the kept task patterns where they answer the filter, packed where the scales
    allow, the list form when counts overflow) and decode it; the queries that ran are appended to `queries`."""
    pack = pk.packing(pk.scale_width(con, queries))
    kept = reads_kept_patterns(con, filters, pack)
    if kept:
        query = kept_task_patterns_query(filters)
    else:
        query = task_patterns_query(filters, multi_target(con, queries), pack)
    bits = kept or (pack.bits if pack else 0)
    try:
        result = task_patterns(fetch(con, query) if bits else query.df(con), q_of, bits)
    except (PackingOverflow, *OVERFLOWS):
        query = task_patterns_query(filters)
        result = task_patterns(query.df(con), q_of)
    if queries is not None:
        queries.append(query)
    return result


def rater_level_counts_query(filters: Filters) -> Query:
    """Per dimension x rater (and role), how many ratings fell on each level (rater marginals, totals), from the
    level counts kept at ingest (analytics/store/derived/level_counts.py)."""
    where, params = filters.where_named()
    sql = f"""WITH grouped AS (
    SELECT dim_key, rater_key, role, value_index, CAST(sum(n) AS BIGINT) AS n
    FROM level_counts
    WHERE value_index IS NOT NULL AND {where}
    GROUP BY ALL
)
SELECT rubric, dimension, rater_id, role, value_index, n
FROM grouped JOIN dimension_keys USING (dim_key) JOIN rater_keys USING (rater_key)
ORDER BY ALL"""
    return Query("rater_level_counts", sql, params)


def rater_level_counts(con: duckdb.DuckDBPyConnection, filters: Filters, queries: list) -> pd.DataFrame:
    """Run `rater_level_counts_query` (once per QueryLog: a report's tables ask for it under one filter)."""
    return run(con, rater_level_counts_query(filters), queries)


@dataclass(frozen=True)
class TaskPatterns:
    """One dimension's units as distinct level-count patterns, and its tasks as signatures over them."""

    counts: np.ndarray  # (patterns x q) ratings per level on a unit
    membership: np.ndarray  # (signatures x patterns) units of each pattern in a task with that signature
    n_tasks: np.ndarray  # (signatures,) tasks with each signature

    @property
    def unit_weights(self) -> np.ndarray:
        """Units with each pattern over all tasks."""
        return self.n_tasks @ self.membership

    @property
    def tasks(self) -> int:
        """Number of tasks."""
        return int(self.n_tasks.sum())


def task_patterns(
    result: pd.DataFrame | pa.Table, q_of: Callable[[tuple[str, str]], int | None], bits: int = 0
) -> dict[tuple[str, str], TaskPatterns]:
    """Decode a `task_patterns_query` result per dimension (values off the dimension's scale are dropped; packed
    with `bits`, where a packed count that does not add up raises PackingOverflow)."""
    if bits:
        return _packed_patterns(result, q_of, bits)
    out: dict[tuple[str, str], TaskPatterns] = {}
    df = cast(pd.DataFrame, result)
    for key, g in df.groupby(["rubric", "dimension"], sort=True) if not df.empty else []:
        q = q_of(cast(tuple[str, str], key))  # pandas-stubs: a groupby key is Hashable (see below)
        if q is None:
            continue
        index: dict[tuple, int] = {}
        rows: list[dict[int, int]] = []
        for units in g["units"]:
            row: dict[int, int] = {}
            for vals in units:
                v = np.asarray(vals, dtype=np.int64)
                p = index.setdefault(tuple(np.bincount(v[v < q], minlength=q)[:q].tolist()), len(index))
                row[p] = row.get(p, 0) + 1
            rows.append(row)
        membership = np.zeros((len(rows), len(index)))
        for i, row in enumerate(rows):
            for p, k in row.items():
                membership[i, p] = k
        counts = np.array(list(index), dtype=float).reshape(len(index), q)
        # pandas-stubs types groupby keys as Hashable; these are the two text columns (rubric, dimension)
        out[cast(tuple[str, str], key)] = TaskPatterns(counts, membership, g["n_tasks"].to_numpy(float))
    return out


def _packed_patterns(
    result: pd.DataFrame | pa.Table, q_of: Callable[[tuple[str, str]], int | None], bits: int
) -> dict[tuple[str, str], TaskPatterns]:
    """`task_patterns` of packed (code, m) units, unpacked per dimension at once (no Python object per unit
    from Arrow); patterns are numbered in order of first appearance, as the list form numbers them."""
    out: dict[tuple[str, str], TaskPatterns] = {}
    if not len(result):
        return out
    units = entries(result, "units", "patterns")
    frame = result.drop_columns(["units"]).to_pandas() if isinstance(result, pa.Table) else result
    n_tasks = frame["n_tasks"].to_numpy(float)
    for key, rows in sorted(frame.groupby(["rubric", "dimension"], sort=True).indices.items()):
        q = q_of(key)
        if q is None:
            continue
        mine = units.of_rows(rows, len(frame))
        counts = unpack_codes(mine.fields[0], mine.fields[1], bits, q)
        distinct, first, inverse = np.unique(counts, axis=0, return_index=True, return_inverse=True)
        order = np.argsort(first)
        number = np.empty_like(order)
        number[order] = np.arange(len(order))
        membership = np.zeros((len(rows), len(order)))
        np.add.at(membership, (mine.row, number[inverse.reshape(-1)]), 1)
        out[cast(tuple[str, str], key)] = TaskPatterns(distinct[order], membership, n_tasks[rows])
    return out
