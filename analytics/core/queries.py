"""Named SQL queries: the text that runs is the text a page shows, with its parameters bound by name."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

import duckdb
import pandas as pd

# The named queries run in the current context (a page run, a cached loader): see `recording`.
_RECORDING: ContextVar[list[Query] | None] = ContextVar("concord_recording", default=None)


@contextmanager
def recording() -> Iterator[list[Query]]:
    """Every named query run (or noted) inside the block, in order; threads started by core.concurrent included.
    Nested recordings each see what ran inside them, and the outer one sees it too."""
    outer = _RECORDING.get()
    ran: list[Query] = []
    token = _RECORDING.set(ran)
    try:
        yield ran
    finally:
        _RECORDING.reset(token)
        if outer is not None:
            outer.extend(ran)


def note(queries: Iterable[Query]) -> None:
    """Count queries that ran earlier as run now (a cached result's queries): the recording in force lists them."""
    ran = _RECORDING.get()
    if ran is not None:
        ran.extend(queries)


@dataclass(frozen=True)
class Query:
    """One named SQL statement and its named parameters (`$name` in the text)."""

    name: str
    sql: str
    params: dict[str, Any] = field(default_factory=dict)
    # Beside an optimised plan (packed counts, task lists): a plain query giving the same result, shown with it
    # on the page's SQL panel; tests/test_readable_queries.py runs both and compares them.
    readable: Query | None = field(default=None, compare=False, repr=False)

    def with_readable(self, readable: Query) -> Query:
        """This plan with `readable`, its plain form, beside it."""
        return replace(self, readable=readable)

    def df(self, con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
        """Run the query and fetch its (small) result as a DataFrame."""
        note((self,))
        return con.execute(self.sql, self.params).df()

    def rows(self, con: duckdb.DuckDBPyConnection) -> list[tuple]:
        """Run the query and fetch its rows."""
        note((self,))
        return con.execute(self.sql, self.params).fetchall()

    def arrow(self, con: duckdb.DuckDBPyConnection) -> Any:
        """Run the query and fetch its result as an Arrow table (nested columns decode without a Python object each)."""
        note((self,))
        return con.sql(self.sql, params=self.params).to_arrow_table()

    def bind(self, **params: Any) -> Query:
        """The same statement with `params` bound (added to those it has)."""
        return replace(self, params={**self.params, **params})

    def run(self, con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
        """Run the statement (a write, or a read the caller fetches its own way)."""
        note((self,))
        return con.execute(self.sql, self.params)

    def run_many(self, con: duckdb.DuckDBPyConnection, rows: list[dict[str, Any]]) -> None:
        """Run the statement once per row of named parameters (its own `params` under each row's)."""
        note((self,))
        con.executemany(self.sql, [{**self.params, **row} for row in rows])


class QueryLog(list):
    """The queries one computation ran, in order. `df` runs a query once per log: the same text with the same
    parameters again reuses the first result (a report's tables often need one statistic under one filter)."""

    def __init__(self) -> None:
        super().__init__()
        self._results: dict[tuple[str, str], pd.DataFrame] = {}
        self._known: dict[tuple[str, str], pd.DataFrame] = {}

    @staticmethod
    def _key(query: Query) -> tuple[str, str]:
        return query.sql, repr(sorted(query.params.items()))

    def know(self, query: Query, result: pd.DataFrame) -> None:
        """Hand the log a result the query gave on the same data (a page runs the queries that depend only on the
        stored data once per dataset version); it is used, and the query logged, if the computation asks for it."""
        self._known[self._key(query)] = result

    def df(self, con: duckdb.DuckDBPyConnection, query: Query) -> pd.DataFrame:
        """The query's result, run (or taken from what the log was handed) and logged on first use."""
        key = self._key(query)
        if key not in self._results:
            if key in self._known:  # its result is behind the figures: it counts as run
                note((query,))
                self._results[key] = self._known[key]
            else:
                self._results[key] = query.df(con)
            self.append(query)
        return self._results[key]


def distinct_queries(queries: list[Query]) -> list[Query]:
    """The queries in order, each text with its parameters once (several computations' logs shown together)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for query in queries:
        key = QueryLog._key(query)
        if key not in seen:
            seen.add(key)
            out.append(query)
    return out


def run(con: duckdb.DuckDBPyConnection, query: Query, queries: list | None) -> pd.DataFrame:
    """Run `query` and log it in `queries` (once per QueryLog, reusing its result; None: not logged)."""
    if isinstance(queries, QueryLog):
        return queries.df(con, query)
    if queries is not None:
        queries.append(query)
    return query.df(con)
