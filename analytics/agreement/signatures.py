"""Each group's task signatures of a pairing: `pair_signatures` runs the plan that fits
(analytics/agreement/pair_plans.py) and decodes its result, fetched as Arrow (no Python object per entry) or as a
DataFrame, into Signatures per group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs (pyarrow-stubs is not a dependency)
import pyarrow.compute as pc  # type: ignore[import-untyped]

from analytics.agreement import pairing as pg
from analytics.agreement import sides as sd
from analytics.agreement.engine import Engine, engine_of
from analytics.agreement.pair_plans import KEPT_GRAINS, pair_query, summed_query, summed_rater_pair_query
from analytics.agreement.sides import Sides
from analytics.core import packing as pk
from analytics.core.packing import PackingOverflow, split_codes, unpack_codes
from analytics.core.queries import Query, run


@dataclass(frozen=True)
class Signatures:
    """One group's tasks as distinct confusion-cell signatures over the full scale; or, `summed` (point
    estimates only), its cells summed over every task as one row of weight 1."""

    cells: np.ndarray  # (signatures x q*q) counts of (subject level, reference level) pairs
    n_tasks: np.ndarray  # (signatures,) tasks with each signature
    n_units: int  # distinct units with a pair
    summed_tasks: int | None = None  # set when the tasks were summed in SQL: how many there were

    @property
    def tasks(self) -> int:
        """Number of tasks with a pair."""
        return int(self.n_tasks.sum()) if self.summed_tasks is None else self.summed_tasks

    @property
    def summed(self) -> bool:
        """Whether the tasks were summed (no interval can resample them)."""
        return self.summed_tasks is not None

    def table(self, q: int) -> np.ndarray:
        """The (q x q) confusion counts summed over every task."""
        return (self.n_tasks @ self.cells).reshape(q, q)


class TaskItemsOverflow(PackingOverflow):
    """A rater holds more ratings of a task than the rater-pair grain's task items (`_rater_pair_query`): two
    at most, on two targets. The list form pairs such tasks."""


def signatures(
    result: pd.DataFrame | pa.Table, grain: str, width: int, q_of: Callable[[tuple], int | None]
) -> dict[tuple, Signatures]:
    """Decode a `pair_query` result (`fetch`'s Arrow table, or a DataFrame) into each group's Signatures (groups
    whose scale is unknown are left out).

    Decoded per scale size at once (not group by group: pairs of raters are tens of thousands of groups)."""
    keys = list(pg.GRAINS[grain])
    out: dict[tuple, Signatures] = {}
    if not len(result):
        return out
    names = result.column_names if isinstance(result, pa.Table) else list(result.columns)
    form = next(c for c in ("sides", "pair_sums", "units", "cells") if c in names)
    missing = result.column(form).null_count if isinstance(result, pa.Table) else int(result[form].isna().sum())
    if missing:  # only the task items leave a signature out (a task they cannot pair)
        raise TaskItemsOverflow(f"{missing} group(s) hold tasks the task items cannot pair")
    found = entries(result, form, form)
    if isinstance(result, pa.Table):
        n_units = pc.cast(result.column("n_units"), pa.float64())  # a HUGEINT sum: Decimal objects in pandas
        rest = result.drop_columns([form])
        df = rest.set_column(rest.schema.get_field_index("n_units"), "n_units", n_units).to_pandas()
    else:
        df = result
    gid = df.groupby(keys, sort=True).ngroup().to_numpy()
    order = np.argsort(gid, kind="stable")
    df, gid = df.iloc[order].reset_index(drop=True), gid[order]
    found = found.moved(np.argsort(order))
    starts = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]])
    ends = np.r_[starts[1:], len(df)]
    group_keys = list(df.loc[starts, keys].itertuples(index=False, name=None))
    qs = [q_of(k) for k in group_keys]
    q_row = np.repeat([q or 0 for q in qs], ends - starts)
    n_tasks_all, n_units_all = df["n_tasks"].to_numpy(float), df["n_units"].to_numpy(float)
    for q in sorted({q for q in qs if q}):
        rows = np.flatnonzero(q_row == q)
        decoded = _decode(form, found.of_rows(rows, len(df)), len(rows), q, width)
        cells, n_tasks, group = _distinct(decoded, n_tasks_all[rows], gid[rows])
        mine = np.flatnonzero([k == q for k in qs])  # the groups of this scale size
        los, his = np.searchsorted(group, mine, side="left"), np.searchsorted(group, mine, side="right")
        for g, lo, hi in zip(mine, los, his, strict=True):
            n_units = int(n_units_all[starts[g] : ends[g]].sum())
            out[group_keys[g]] = Signatures(cells[lo:hi], n_tasks[lo:hi], n_units)
    return out


def summed_signatures(
    result: pa.Table, grain: str, width: int, q_of: Callable[[tuple], int | None]
) -> dict[tuple, Signatures]:
    """Decode a `summed_query` or `summed_rater_pair_query` result into each group's summed Signatures (groups
    whose scale is unknown are left out; cells off a group's scale are dropped, as `_decode` drops them)."""
    keys = list(pg.GRAINS[grain])
    if not result.num_rows:
        return {}
    if "n_over" in result.column_names and pc.max(result.column("n_over")).as_py():
        raise TaskItemsOverflow("some group(s) hold tasks the task items cannot pair")
    cells = result.column("cells").combine_chunks()
    row = pc.list_parent_indices(cells).to_numpy().astype(np.int64)
    code = _ints(pc.list_flatten(cells))
    count = _ints(pc.list_flatten(result.column("counts").combine_chunks())).astype(float)
    group_keys = list(zip(*(result.column(k).to_pylist() for k in keys), strict=True))
    q = np.array([q_of(k) or 0 for k in group_keys], dtype=np.int64)
    start = np.r_[0, np.cumsum(q * q)]  # each group's q*q cells laid end to end
    ok, at = _cell_at(code, width, q[row])
    flat = np.bincount(start[row[ok]] + at[ok], weights=count[ok], minlength=int(start[-1]))
    n_tasks, n_units = (_ints(result.column(c).combine_chunks()) for c in ("n_tasks", "n_units"))
    return {
        key: Signatures(flat[start[i] : start[i + 1]][None, :], np.ones(1), int(n_units[i]), int(n_tasks[i]))
        for i, key in sorted(enumerate(group_keys), key=lambda ik: ik[1])
        if q[i]
    }


@dataclass(frozen=True)
class Entries:
    """A signature column flattened: per entry (a cell, a unit or a unit's sides), its result row and its fields;
    a packed code is an (entries x 2) uint64 array of its low and high 64 bits."""

    row: np.ndarray
    fields: tuple[np.ndarray, ...]

    def moved(self, new_row: np.ndarray) -> Entries:
        """The entries of rows renumbered by `new_row` (old row -> new row)."""
        return Entries(new_row[self.row], self.fields)

    def of_rows(self, rows: np.ndarray, n_rows: int) -> Entries:
        """The entries of `rows` only, their rows numbered by position in `rows`."""
        at = np.full(n_rows, -1)
        at[rows] = np.arange(len(rows))
        keep = at[self.row] >= 0
        return Entries(at[self.row[keep]], tuple(f[keep] for f in self.fields))


# Per signature form, the positions of its fields that are packed level counts (Packing's codes).
CODE_FIELDS = {"cells": (), "units": (1,), "sides": (0, 2, 4), "pair_sums": (0, 2), "patterns": (0,)}


def entries(result: pd.DataFrame | pa.Table, column: str, form: str) -> Entries:
    """The entries of `result`'s list column `column` (signatures of `form`), from Arrow or a DataFrame."""
    if isinstance(result, pa.Table):
        return _arrow_entries(form, result.column(column))
    return _object_entries(form, result[column].to_numpy())


def _arrow_entries(form: str, column: pa.ChunkedArray) -> Entries:
    """The entries of a signature column fetched as Arrow (no Python object per entry)."""
    lists = column.combine_chunks()
    row = pc.list_parent_indices(lists).to_numpy().astype(np.int64)
    flat = pc.list_flatten(lists)
    parts = [flat] if form == "cells" else flat.flatten()
    fields = tuple(_codes(p) if i in CODE_FIELDS[form] else _ints(p) for i, p in enumerate(parts))
    return Entries(row, fields)


def _ints(values: pa.Array) -> np.ndarray:
    """An Arrow integer (or integral decimal) array as int64."""
    return pc.cast(values, pa.int64()).to_numpy(zero_copy_only=False)


def _codes(values: pa.Array) -> np.ndarray:
    """Packed codes (DuckDB's HUGEINT arrives as decimal128(38, 0): 16-byte little-endian integers; a BIGINT as
    int64, never negative) as their (low, high) 64-bit halves."""
    if pa.types.is_int64(values.type) and not values.null_count:
        return np.column_stack([values.to_numpy().astype(np.uint64), np.zeros(len(values), np.uint64)])
    if not pa.types.is_decimal128(values.type) or values.type.scale != 0 or values.null_count:
        return split_codes([int(v) for v in values.to_pylist()])
    words = np.frombuffer(values.buffers()[1], dtype="<u8").reshape(-1, 2)
    return words[values.offset : values.offset + len(values)]


def _object_entries(form: str, values: np.ndarray) -> Entries:
    """The entries of a signature column of Python objects (lists of cells, or of tuples or dicts)."""
    if form == "cells":
        lens = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        flat = np.concatenate([np.asarray(v, dtype=np.int64) for v in values]) if len(values) else np.zeros(0, np.int64)
        return Entries(np.repeat(np.arange(len(values)), lens), (flat,))
    n_fields = {"units": 3, "sides": 6, "pair_sums": 3, "patterns": 2}[form]
    rows = [(i, *(u.values() if isinstance(u, dict) else u)) for i, units in enumerate(values) for u in units]
    cols = list(zip(*rows, strict=True)) if rows else [()] * (n_fields + 1)
    fields = tuple(
        split_codes(c) if i in CODE_FIELDS[form] else np.asarray(c, dtype=np.int64).reshape(-1)
        for i, c in enumerate(cols[1:])
    )
    return Entries(np.asarray(cols[0], dtype=np.int64).reshape(-1), fields)


def _distinct(cells: np.ndarray, n_tasks: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each group's distinct cells rows with their summed task counts, sorted by group then cells (np.unique's
    order): packed units that differ can give the same cells, and every query form's signatures come out in one
    order, so a resample draws the same tasks whichever form ran."""
    order, keys = _row_order(cells, group)
    if keys is None:
        sorted_cells, sorted_group = cells[order], group[order]
        new = np.r_[True, (sorted_group[1:] != sorted_group[:-1]) | (sorted_cells[1:] != sorted_cells[:-1]).any(axis=1)]
    else:  # rows compared as their sort keys' bytes: a fraction of the float cells' memory
        new = np.r_[True, keys[order[1:]] != keys[order[:-1]]]
    which = np.cumsum(new) - 1
    first = order[new]
    return cells[first], np.bincount(which, weights=n_tasks[order]), group[first]


def _row_order(cells: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The stable order of rows by group, then cells (np.lexsort's), and the rows' sort keys: each row's group
    and cells as big-endian bytes, one sort of those (a lexsort makes a pass per cell); None beside np.lexsort's
    order where values do not fit below 2**32."""
    n = len(cells)
    if not n or min(cells.min(), group.min()) < 0 or max(cells.max(), group.max()) >= 2**32:
        return np.lexsort([*cells.T[::-1], group]), None
    parts = [_big_endian(group).reshape(n, -1), _big_endian(cells).reshape(n, -1)]
    keys = np.ascontiguousarray(np.concatenate(parts, axis=1))
    rows = keys.view(np.dtype((np.void, keys.shape[1]))).ravel()
    return np.argsort(rows, kind="stable"), rows


def _big_endian(values: np.ndarray) -> np.ndarray:
    """Non-negative integers below 2**32 as the bytes of the narrowest big-endian unsigned type holding them all."""
    top = int(values.max())
    width = ">u1" if top < 2**8 else ">u2" if top < 2**16 else ">u4"
    return values.astype(width).view(np.uint8)


def _decode(form: str, entries: Entries, n_rows: int, q: int, width: int) -> np.ndarray:
    """(rows x q*q) confusion cells of `pair_query` rows of one scale size, from their entries."""
    row = entries.row
    if form == "cells":
        ok, at = _cell_at(entries.fields[0], width, q)
        return _summed(n_rows, q, row[ok] * q * q + at[ok])
    if not len(row):
        return np.zeros((n_rows, q * q))
    bits = pk.packing(width).bits  # type: ignore[union-attr]  # a packed form ran: the width packs
    if form == "units":  # (subject level, packed reference counts, their number)
        a, code, m = entries.fields
        on = a < q
        counts = unpack_codes(code[on], m[on], bits, q)
        return _summed(n_rows, q, (row[on] * q * q + a[on] * q)[:, None] + np.arange(q), counts)
    f = entries.fields
    if form == "pair_sums":  # a unit's kept pairs summed per side (S, n, R): its cells are S x R / n
        pair_s, pair_r = (unpack_codes(f[i], f[1], bits, q) for i in (0, 2))
        cells = pair_s[:, :, None] * pair_r[:, None, :] / f[1][:, None, None]
        return _summed(n_rows, q, row[:, None] * q * q + np.arange(q * q), cells.reshape(len(row), q * q))
    # (S, R, B) codes and counts
    subject, reference = (unpack_codes(f[i], f[i + 1], bits, q) for i in (0, 2))
    pairs = subject[:, :, None] * reference[:, None, :]
    if len(f) > 4:
        pairs[:, np.arange(q), np.arange(q)] -= unpack_codes(f[4], f[5], bits, q)
    return _summed(n_rows, q, row[:, None] * q * q + np.arange(q * q), pairs.reshape(len(row), q * q))


def _cell_at(code: np.ndarray, width: int, q: int | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per confusion cell code (a * width + b), whether it lies on a q x q scale and its flat index a * q + b there
    (`q`: one size, or one per code)."""
    a, b = code // width, code % width
    return (a < q) & (b < q), a * q + b


def _summed(n_rows: int, q: int, at: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """(rows x q*q) sums of `weights` (default 1 each) at the flat cell indices `at` (row * q*q + cell). A bincount:
    faster than np.add.at."""
    w = None if weights is None else weights.reshape(-1)
    return (
        np.bincount(at.reshape(-1), weights=w, minlength=n_rows * q * q)
        .astype(float, copy=False)
        .reshape(n_rows, q * q)
    )


def fetch(con: duckdb.DuckDBPyConnection | Engine, query: Query) -> pd.DataFrame | pa.Table:
    """A pair query's result, fetched by the engine behind `con` (engine.Engine.fetch)."""
    return engine_of(con).fetch(query)


def pair_signatures(
    con: duckdb.DuckDBPyConnection,
    sides: Sides,
    grain: str,
    q_of: Callable[[tuple], int | None],
    queries: list | None = None,
    summed: bool = False,
) -> dict[tuple, Signatures]:
    """Run `pair_query` for `sides` at `grain` and decode it (the list form when packed counts overflow);
    the queries that ran are appended to `queries`. With `summed` (no interval will resample the tasks), the
    kept pairs per rater or dimension and the rater-pair task items come summed per group (`summed_query`,
    `summed_rater_pair_query`): the same tables without a row per task signature to fetch and decode."""
    width = pk.scale_width(con, queries)
    # Only the rater-pair grain and the packed rater and dimension grains count one-target dimensions apart; the
    # others need no pass over the ratings to find the dimensions with several targets.
    reads_kept = sd.reads_reference_pairs(sides)
    kept = grain in KEPT_GRAINS and reads_kept  # kept per task: no targets to count apart
    sums = engine_of(con).sums_in_sql
    if summed and sums and grain in ("rater", "dimension") and reads_kept:
        return _logged(
            queries, summed_query(sides, grain, width), lambda q: summed_signatures(fetch(con, q), grain, width, q_of)
        )
    packs = grain in ("rater", "dimension") and pk.packing(width) is not None and not sides.symmetric and not kept
    needs_multi = grain == "rater_pair" or packs
    found = run(con, pg.multi_target_query(), queries) if needs_multi else None
    multi = [] if found is None else found["dimension_key"].tolist()
    packed = True
    if grain == "rater_pair" and multi:
        multi = pg.selected(multi, sides.subject)  # only dimensions the pairs can be on count (both sides share them)
        # the task items serve dimensions of two targets; on wider ones (instruction following rates four
        # outputs) they would only find out and fall back, so those take the list form at once
        two = set(found.loc[found["two"], "dimension_key"]) if found is not None else set()
        packed = all(key in two for key in multi)
    if summed and sums and grain == "rater_pair" and multi and packed:
        try:
            return _logged(
                queries,
                summed_rater_pair_query(sides, width, multi),
                lambda q: summed_signatures(fetch(con, q), grain, width, q_of),
            )
        except TaskItemsOverflow:
            packed = False  # a task the items cannot pair: the list form at once
    query = pair_query(sides, grain, width, multi, packed)
    try:
        result = signatures(fetch(con, query), grain, width, q_of)
    except (PackingOverflow, *pk.OVERFLOWS):
        query = pair_query(sides, grain, width, multi, packed=False)
        result = signatures(fetch(con, query), grain, width, q_of)
    if queries is not None:
        queries.append(query)
    return result


def _logged(queries: list | None, query: Query, decode: Callable[[Query], dict]) -> dict:
    """`decode(query)`, with the query appended to `queries` once it has decoded."""
    result = decode(query)
    if queries is not None:
        queries.append(query)
    return result


def tau_signatures(df: pd.DataFrame, grain: str) -> dict[tuple, tuple[np.ndarray, np.ndarray]]:
    """Decode a `ranking_query` result: per group, (signatures x 5) item-pair counts and tasks per signature."""
    keys = list(pg.GRAINS[grain])
    if df.empty:
        return {}
    # One stable sort and slices: iterating a groupby (a frame per group) cost most of the decode on the demo.
    ids = df.groupby(keys, sort=True).ngroup().to_numpy()  # -1 for a row whose key has a null, as groupby drops
    order = np.argsort(ids, kind="stable")
    order = order[ids[order] >= 0]
    if not len(order):
        return {}
    ids = ids[order]
    taus = df[list(pg.TAU_COLUMNS)].to_numpy(float)[order]
    n_tasks = df["n_tasks"].to_numpy(float)[order]
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    ends = np.r_[starts[1:], len(ids)]
    firsts = df[keys].iloc[order[starts]].itertuples(index=False, name=None)
    return {
        tuple(key): (taus[a:b], n_tasks[a:b]) for key, a, b in zip(firsts, starts.tolist(), ends.tolist(), strict=True)
    }
