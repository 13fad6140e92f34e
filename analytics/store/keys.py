"""Integer keys of tasks, raters, dimensions and targets: the one way rating rows enter the store.

Heavy queries join and group ratings by unit (task, rubric, dimension, target). On text ids that costs a hash
and a comparison of strings per rating; each id is therefore given a dense integer key once, when its first
rating is loaded, and the ratings carry the keys (task_key, rater_key, dim_key, target_key) beside the ids.
Key tables only grow: an unloaded file's keys stay, unused, and come back if its ids are loaded again.
DuckDB ENUM types cannot grow, hence tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from analytics.core.queries import Query


@dataclass(frozen=True)
class Key:
    """One key table: the integer key column and the id columns it stands for."""

    table: str
    key: str
    ids: tuple[str, ...]


KEYS = (
    Key("task_keys", "task_key", ("task_id",)),
    Key("rater_keys", "rater_key", ("rater_id",)),
    Key("dimension_keys", "dim_key", ("rubric", "dimension")),
    Key("target_keys", "target_key", ("target",)),
)

# The ratings table's own columns, in order (migration 1); the key columns follow them (migration 5).
# Migration 5 is built from KEYS and these columns: changing either needs a new migration, not an edit.
RATING_COLUMNS = (
    "task_id",
    "rater_id",
    "role",
    "rubric",
    "dimension",
    "target",
    "value",
    "value_index",
    "value_num",
    "submitted_at",
    "duration_s",
    "comment",
    "submission_id",
    "ingest_id",
)
KEY_COLUMNS = tuple(k.key for k in KEYS)

# The dimension keys of the catalogue's ranking scales, for a semi-join on dim_key: a filter by (rubric, dimension)
# name let DuckDB read (and group) every rating of the filter before dropping all but the ranking ones.
RANKING_DIM_KEYS = "SELECT dim_key FROM dimension_keys JOIN dimensions USING (rubric, dimension) WHERE kind = 'ranking'"


@dataclass(frozen=True)
class KeyIds:
    """Key tables read into memory: per key column, its keys in order and their ids, to name keyed rows."""

    keys: dict[str, np.ndarray]
    ids: dict[str, pd.Index]

    @classmethod
    def read(cls, con: duckdb.DuckDBPyConnection, columns: tuple[str, ...]) -> KeyIds:
        """The tables of the key `columns` (keys of one id each: task, rater, target)."""
        tables = {
            k.key: Query(f"{k.table}_ids", f"SELECT {k.key}, {k.ids[0]} FROM {k.table} ORDER BY {k.key}").df(con)
            for k in KEYS
            if k.key in columns and len(k.ids) == 1
        }
        keys = {key: df.iloc[:, 0].to_numpy() for key, df in tables.items()}
        return cls(keys, {key: pd.Index(df.iloc[:, 1].astype(object)) for key, df in tables.items()})

    def of(self, key: str, values: np.ndarray) -> pd.Categorical:
        """The ids of `values` of the key column `key`, as a categorical over every id of its table."""
        return pd.Categorical.from_codes(np.searchsorted(self.keys[key], values), categories=self.ids[key])


def create_statements() -> list[str]:
    """DDL of the key tables (migration 5)."""
    return [
        f"CREATE TABLE {k.table} ({k.key} INTEGER NOT NULL, {', '.join(f'{c} VARCHAR NOT NULL' for c in k.ids)})"
        for k in KEYS
    ]


def register_sql(k: Key, source: str) -> str:
    """SQL adding a key to `k`'s table for every id in `source` (a table, view or subquery with the id columns)
    that has none; new keys follow the largest key in use, in the ids' order."""
    ids = ", ".join(k.ids)
    present = " AND ".join(f"{c} IS NOT NULL" for c in k.ids)
    return f"""INSERT INTO {k.table}
SELECT (SELECT coalesce(max({k.key}), 0) FROM {k.table}) + row_number() OVER (ORDER BY {ids}), {ids}
FROM (SELECT DISTINCT {ids} FROM {source} WHERE {present}) AS new_ids
ANTI JOIN {k.table} USING ({ids})"""


def register_statements(source: str) -> list[str]:
    """`register_sql` of every key table from one source."""
    return [register_sql(k, source) for k in KEYS]


def keyed_select(rows: str, given: tuple[str, ...] = ()) -> str:
    """SELECT of `rows` (a relation with the rating columns by RATING_COLUMNS' names, and the key columns
    `given`) with their keys, for INSERT INTO ratings. Left joins: an id without a key gives a NULL key, which
    the NOT NULL key columns refuse (an error, never a lost row)."""
    joins = "".join(f"\nLEFT JOIN {k.table} USING ({', '.join(k.ids)})" for k in KEYS if k.key not in given)
    return f"""SELECT {", ".join(RATING_COLUMNS)}, {", ".join(KEY_COLUMNS)}
FROM {rows} AS src{joins}"""


def register(con: duckdb.DuckDBPyConnection, key: str, source: str) -> None:
    """Add a key (column `key`) for every id of `source` that has none (inside the load's transaction)."""
    con.execute(register_sql(next(k for k in KEYS if k.key == key), source))


def insert_ratings(
    con: duckdb.DuckDBPyConnection,
    rows: str,
    params: dict[str, Any] | None = None,
    sources: dict[str, str] | None = None,
    given: tuple[str, ...] = (),
) -> int:
    """Insert `rows` (a relation with the rating columns by name, `params` bound) into ratings with their keys,
    first registering the ids of `sources` (default: of `rows`); return the rows inserted. Inside the load's
    transaction; `sources` lets a load register ids from small tables it already has instead of rescanning,
    and key columns `given` in `rows` (registered by the load) are taken as they are. The caller then adds the
    load's kept tables (refresh.after_load), as analytics/ingest/load.py does."""
    by_table = {k.table: (sources or {}).get(k.table, rows) for k in KEYS if k.key not in given}
    temps = []
    for n, source in enumerate(dict.fromkeys(by_table.values()) if sources else []):
        shared = [k for k in KEYS if by_table.get(k.table) == source]
        if len(shared) < 2:
            continue
        # The ids of one relation in one pass (a staged file is re-read by every pass over it).
        temp = f"key_candidates_{n}"
        sets = ", ".join(f"({', '.join(k.ids)})" for k in shared)
        columns = ", ".join(dict.fromkeys(c for k in shared for c in k.ids))
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {temp} AS SELECT {columns} FROM {source} GROUP BY GROUPING SETS ({sets})"
        )
        by_table |= {k.table: temp for k in shared}
        temps.append(temp)
    for k in KEYS:
        if k.table in by_table:
            con.execute(register_sql(k, by_table[k.table]), {} if sources else params or {})
    for temp in temps:
        con.execute(f"DROP TABLE {temp}")
    return int(con.execute(f"INSERT INTO ratings {keyed_select(rows, given)}", params or {}).fetchall()[0][0])


def migration_statements() -> list[str]:
    """Migration 5: key tables filled from the ratings already stored, and the ratings table rebuilt with keys."""
    fill = register_statements("ratings")
    keyed = keyed_select(f"(SELECT {', '.join(RATING_COLUMNS)} FROM ratings)")
    return [
        *create_statements(),
        *fill,
        """CREATE TABLE ratings_keyed (
                task_id VARCHAR NOT NULL, rater_id VARCHAR NOT NULL, role VARCHAR NOT NULL,
                rubric VARCHAR NOT NULL, dimension VARCHAR NOT NULL, target VARCHAR NOT NULL DEFAULT '',
                value VARCHAR NOT NULL, value_index INTEGER, value_num DOUBLE, submitted_at TIMESTAMP,
                duration_s DOUBLE, comment VARCHAR, submission_id VARCHAR, ingest_id INTEGER NOT NULL,
                task_key INTEGER NOT NULL, rater_key INTEGER NOT NULL, dim_key INTEGER NOT NULL,
                target_key INTEGER NOT NULL)""",
        f"INSERT INTO ratings_keyed {keyed}",
        "DROP TABLE ratings",
        "ALTER TABLE ratings_keyed RENAME TO ratings",
    ]


# Distinct tasks of a group as a bitmap over the dense task keys (one bit a key) rather than a hash table of keys:
# faster for the few large groups of a count per rubric, role or week.
# A group costs (largest key) / 8 bytes, 125 kB at a million tasks: only for groups bounded by rubric, role and week.
TASK_KEY_MAX = "task_key_max"
BOUND_RETRIES = 3  # loads committing between every read and query, before the last try lets the error through


def distinct_tasks(column: str) -> str:
    """SQL counting a group's distinct task keys in `column`; binds $task_key_max (task_key_bound's)."""
    return f"coalesce(bit_count(bitstring_agg({column}, 1, ${TASK_KEY_MAX})), 0)"


TASK_KEY_TOP = Query("task_key_top", "SELECT coalesce(max(task_key), 1) FROM task_keys")


def task_key_bound(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """distinct_tasks' parameter: the largest task key given (keys count from 1; at least 1 in an empty store)."""
    (top,) = TASK_KEY_TOP.rows(con)[0]
    return {TASK_KEY_MAX: int(top)}


def counted_tasks(con: duckdb.DuckDBPyConnection, build: Callable[[dict[str, int]], Query]) -> pd.DataFrame:
    """The result of the query `build(bound)` makes with distinct_tasks. A load committing between reading the
    bound and running the query brings task keys beyond it (an out-of-range error): the bound is read again."""
    for _ in range(BOUND_RETRIES):
        try:
            return build(task_key_bound(con)).df(con)
        except duckdb.OutOfRangeException:
            continue
    return build(task_key_bound(con)).df(con)
