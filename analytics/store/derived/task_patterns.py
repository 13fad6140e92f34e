"""Task patterns kept at ingest: per dimension and task, its units' packed level counts, what the multi-rater
figures of all raters group instead of every rating.

Krippendorff's alpha, Fleiss' kappa and Gwet's AC per dimension read each task's units as level counts
(analytics/agreement/counts.py). Without a filter but a rubric or dimensions (the command line's full agreement, the
reports of a whole store) that query grouped every rating twice: 2.7 s of the 4.6 s of the full agreement at 1M
tasks (bench/RESULTS.md). This table holds its middle step, one row per dimension and task with the task's units
as a sorted list of (code, m), each unit's level counts packed in a BIGINT at the store's packing, so the reader
groups 5M rows at 1M tasks instead of 24M ratings, and gets exactly the rows the live query gets.

Kept only while the store's packing is a BIGINT one (every rated scale of up to 7 levels, analytics/core/packing.py):
its sums cannot overflow in SQL, so a fill never fails a load. The packing's bits are in `meta` (BITS_KEY); a load
that changes them (a wider scale) refills every row, a store whose packing is not a BIGINT one keeps no row, and a
scratch store filled with `refresh.only` forgets the key. Readers use the rows only while the key holds the
store's packing (`usable_bits`); otherwise they read the ratings. A unit with 2^bits ratings of one level has a
carried code: its decoded counts do not add up, and the reader falls back as on the ratings.

Every change of stored ratings recomputes the rows of the tasks it touches (analytics/store/derived/refresh.py).
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from analytics.core import packing as pk

BITS_KEY = "task_patterns_bits"

CREATE = """CREATE TABLE task_patterns (
    task_key INTEGER NOT NULL, dim_key INTEGER NOT NULL, rubric VARCHAR NOT NULL,
    units STRUCT(code BIGINT, m BIGINT)[] NOT NULL)"""
# Per row, over the task's ratings with a level on the dimension (any rater, role and date):
#   units  each unit's (code, m): its level counts packed $bits bits a level, and its number of ratings; sorted.
# One or two units (every dimension with one or two targets) take min and max, not a sorted list: as the live
# query (analytics/agreement/counts.py), and twice as fast to fill. TRY_CAST: a sum past 2^63 is NULL, never an
# error inside a load's transaction (a NULL code fails the decoding's count check, and the reader falls back).
_ONE = pk.Packing(0, "BIGINT").one("value_index")  # the codec's SQL for one rating ($bits is bound at the fill)
_FILL = f"""INSERT INTO task_patterns
WITH units AS (
    SELECT task_key, dim_key, rubric, count(*) AS m,
           TRY_CAST(sum({_ONE}) AS BIGINT) AS code
    FROM ratings
    WHERE value_index IS NOT NULL AND {{scope}}
    GROUP BY task_key, dim_key, target_key, rubric
), per_task AS (
    SELECT task_key, dim_key, rubric, min((code, m)) AS lo, max((code, m)) AS hi, count(*) AS n_items
    FROM units
    GROUP BY ALL
)
SELECT task_key, dim_key, rubric, CASE WHEN n_items = 1 THEN [lo] ELSE [lo, hi] END
FROM per_task WHERE n_items <= 2
UNION ALL
SELECT task_key, dim_key, rubric, list((code, m) ORDER BY code, m)
FROM units SEMI JOIN (SELECT task_key, dim_key FROM per_task WHERE n_items > 2) USING (task_key, dim_key)
GROUP BY ALL"""


def bits_of(pack: pk.Packing | None) -> int:
    """The bits a level of `pack` takes when it is a BIGINT packing, the only one kept (0: none kept)."""
    return pack.bits if pack is not None and pack.sql_type == "BIGINT" else 0


def store_bits(con: duckdb.DuckDBPyConnection) -> int:
    """The bits a level of the store's packing takes when it is a BIGINT one (0: the rows are not kept)."""
    return bits_of(pk.packing(pk.scale_width(con)))


def kept_bits(con: duckdb.DuckDBPyConnection) -> int:
    """The bits the kept rows were packed with (0: none kept, or forgotten)."""
    rows = con.execute("SELECT value FROM meta WHERE key = $key", {"key": BITS_KEY}).fetchall()
    return int(rows[0][0]) if rows else 0


def usable_bits(con: duckdb.DuckDBPyConnection, pack: pk.Packing | None = None) -> int:
    """The bits of the kept rows when they hold the store's packing (`pack` when the caller has it, else read) and
    may be read (0: read the ratings)."""
    kept = kept_bits(con)
    return kept if kept and kept == (bits_of(pack) if pack is not None else store_bits(con)) else 0


def redo(con: duckdb.DuckDBPyConnection, scope: str, params: dict) -> None:
    """Recompute the rows of the tasks `scope` (refresh.SCOPE or refresh.RUBRIC) selects; every row when the
    store's packing changed since the rows were packed, none when it is not a BIGINT one."""
    bits = store_bits(con)
    if not bits:
        forget(con)
        return
    if bits != kept_bits(con):
        scope, params = "TRUE", {}
    con.execute(f"DELETE FROM task_patterns WHERE {scope}", params)
    con.execute(_FILL.format(scope=scope), {**params, "bits": bits})
    con.execute("INSERT OR REPLACE INTO meta VALUES ($key, $bits)", {"key": BITS_KEY, "bits": str(bits)})


def forget(con: duckdb.DuckDBPyConnection) -> None:
    """Mark the rows unusable and drop them (a change that does not follow them: `refresh.only`, a wide scale)."""
    con.execute("DELETE FROM meta WHERE key = $key", {"key": BITS_KEY})
    con.execute("DELETE FROM task_patterns")


def migration_steps() -> list[str | Callable[[duckdb.DuckDBPyConnection], None]]:
    """Migration 20: the table, filled from the ratings already stored."""
    return [CREATE, lambda con: redo(con, "TRUE", {})]
