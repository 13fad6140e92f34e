"""The level-count codec: a unit's level counts packed into one integer, `bits` bits per level.

The pairing's packed plans (analytics/agreement/pair_plans.py), the task patterns (analytics/agreement/counts.py)
and the rater x contractor task table (analytics/store/derived/contractor_tasks.py) sum one code per rating in SQL; the codes come
back as (low, high) 64-bit halves and unpack here. A ground-floor module: it imports nothing from analytics.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import duckdb
import numpy as np

from analytics.core.queries import Query, run

MIN_BITS = 4  # packed level counts need at least this many bits per level (else the list form is used)


def packing_bits(width: int) -> int:
    """Bits per level when a unit's level counts are packed into one 126-bit integer (0: do not pack)."""
    bits = 126 // max(width, 1)
    return bits if bits >= MIN_BITS else 0


# A pairing packs into a BIGINT when that leaves every level this many bits (255 ratings of one level on a unit;
# more raise PackingOverflow and take the list form): BIGINT codes group faster than HUGEINT ones.
NARROW_BITS = 8


@dataclass(frozen=True)
class Packing:
    """A unit's level counts packed into one SQL integer of `sql_type`, `bits` bits per level."""

    bits: int
    sql_type: str  # BIGINT (63 bits) or HUGEINT (126 bits)

    def one(self, level: str) -> str:
        """SQL: the code of one rating at level index `level` (the parameter $bits bound to `bits`)."""
        return f"CAST(1 AS {self.sql_type}) << ($bits * {level})"

    def total(self, level: str, where: str = "") -> str:
        """SQL: the code of a group's ratings (their level counts), optionally of those passing `where`; NULL when
        none does. A BIGINT sum is a HUGEINT in DuckDB, cast back (an out-of-range code is an overflow)."""
        only = f" FILTER (WHERE {where})" if where else ""
        return f"CAST(sum({self.one(level)}){only} AS {self.sql_type})"


def packing(width: int) -> Packing | None:
    """How a pairing packs the level counts of scales of up to `width` levels (None: the list form)."""
    narrow = 63 // max(width, 1)
    if narrow >= NARROW_BITS:
        return Packing(narrow, "BIGINT")
    bits = packing_bits(width)
    return Packing(bits, "HUGEINT") if bits else None


# Errors of a packed query whose codes cannot hold the counts (as PackingOverflow is, once decoded).
OVERFLOWS = (duckdb.ConversionException, duckdb.OutOfRangeException)


class PackingOverflow(RuntimeError):
    """A unit holds more ratings of one level than its packed counts can: use the list form."""


def unpack(code: int, m: int, bits: int, q: int) -> np.ndarray:
    """The level counts packed in `code` (`bits` bits per level), checked against their number `m`."""
    return unpack_codes(split_codes([code]), np.array([m], dtype=np.int64), bits, q)[0]


def split_codes(codes: Iterable[int]) -> np.ndarray:
    """Python integers below 2**128 as their (low, high) 64-bit halves."""
    low = (1 << 64) - 1
    return np.array([(c & low, c >> 64) for c in codes], dtype=np.uint64).reshape(-1, 2)


def unpack_codes(codes: np.ndarray, m: np.ndarray, bits: int, q: int) -> np.ndarray:
    """The level counts packed in each of `codes` ((low, high) 64-bit halves, `bits` bits per level) as
    (units x q), checked against their numbers `m` (PackingOverflow when a unit holds more ratings of one level
    than the bits can count)."""
    low, high = codes[:, 0], codes[:, 1]
    mask = np.uint64((1 << min(bits, 64)) - 1)  # a count above 2**64 cannot be: m's check would catch it
    counts = np.empty((len(codes), q))
    for k in range(q):
        at = bits * k
        if at >= 64:
            word = high >> np.uint64(at - 64)
        else:
            word = low >> np.uint64(at)
            if 0 < at < 64 < at + bits:  # the level's bits straddle the two halves
                word = word | (high << np.uint64(64 - at))
        counts[:, k] = word & mask
    if len(codes) and not np.array_equal(counts.sum(axis=1), m.astype(float)):
        bad = int(np.flatnonzero(counts.sum(axis=1) != m)[0])
        raise PackingOverflow(f"packed level counts {counts[bad].tolist()} do not add up to {int(m[bad])} ratings")
    return counts


def scale_width_query() -> Query:
    """The largest number of levels of any dimension with ratings (the packing width of confusion cells); a
    catalogued scale nobody rated (e.g. a real dataset's -100..100) must not turn packing off for the rest."""
    return Query(
        "scale_width",
        """SELECT coalesce(max(array_length(d.levels)), 1) AS width FROM dimensions d
JOIN dimension_keys k USING (rubric, dimension)
WHERE k.dim_key IN (SELECT DISTINCT dim_key FROM ratings)""",
    )


def scale_width(con: duckdb.DuckDBPyConnection, queries: list | None = None) -> int:
    """scale_width_query's width (logged in `queries`; a QueryLog shared by several computations runs it once)."""
    return int(run(con, scale_width_query(), queries)["width"].iloc[0])
