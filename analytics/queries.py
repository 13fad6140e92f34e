"""Named SQL queries: the text that runs is the text a page shows, with its parameters bound by name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb
import pandas as pd


@dataclass(frozen=True)
class Query:
    """One named SQL statement and its named parameters (`$name` in the text)."""

    name: str
    sql: str
    params: dict[str, Any] = field(default_factory=dict)

    def df(self, con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
        """Run the query and fetch its (small) result as a DataFrame."""
        return con.execute(self.sql, self.params).df()

    def rows(self, con: duckdb.DuckDBPyConnection) -> list[tuple]:
        """Run the query and fetch its rows."""
        return con.execute(self.sql, self.params).fetchall()
