"""The engine a pairing runs on: what the pairing needs of DuckDB and of the Spark engine (analytics/engines/spark/engine.py).

Both run every named query through `execute` (Query.df); a pair query's nested result comes back through
`fetch`, in the form the signatures decode fastest from (Arrow on DuckDB, a DataFrame on Spark).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import duckdb
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs (pyarrow-stubs is not a dependency)

from analytics.core.queries import Query, note


@runtime_checkable
class Engine(Protocol):
    """What the pairing needs of an engine besides running named queries."""

    @property
    def sums_in_sql(self) -> bool:
        """Whether the summed plans run (point estimates summed over tasks in SQL); else every pairing lists its
        task signatures."""
        ...

    def fetch(self, query: Query) -> pd.DataFrame | pa.Table:
        """A pair query's result, as Arrow or a DataFrame (analytics/agreement/signatures.py decodes both)."""
        ...


@dataclass(frozen=True)
class DuckDBEngine:
    """The DuckDB connection as an Engine: results fetched as Arrow (nested signatures then decode without a
    Python object per entry), summed plans run."""

    con: duckdb.DuckDBPyConnection

    @property
    def sums_in_sql(self) -> bool:
        """DuckDB runs the summed plans."""
        return True

    def fetch(self, query: Query) -> pa.Table:
        """The query's result as an Arrow table."""
        return query.arrow(self.con)


class DataFrameEngine:
    """An Engine whose results come as DataFrames from its own `execute` (the Spark engine, and wrappers that record
    or time a connection's queries on their way); it runs no summed plan, so every pairing lists its task
    signatures (the queries the Spark parity tests compare)."""

    sums_in_sql = False

    def execute(self, sql: str, params: dict | Sequence | None = None) -> Any:
        """Run a statement; its result has `df()` (what each engine defines)."""
        raise NotImplementedError

    def fetch(self, query: Query) -> pd.DataFrame:
        """The query's result as a DataFrame."""
        note((query,))
        return self.execute(query.sql, query.params).df()


def engine_of(con: duckdb.DuckDBPyConnection | Engine) -> Engine:
    """The engine behind a connection: the connection itself when it is an Engine (the Spark engine's), else
    DuckDB's."""
    return con if isinstance(con, Engine) else DuckDBEngine(con)
