"""Independent computations over one store run side by side, each on its own cursor.

DuckDB releases the GIL while a query runs, so one computation's Python work (decoding, pandas, shrinkage) goes on
while another's query runs."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import duckdb

Job = Callable[[duckdb.DuckDBPyConnection], Any]


def side_by_side(con: duckdb.DuckDBPyConnection, *jobs: Job) -> list[Any]:
    """Each job's result, in order; each job runs in its own thread on a fresh cursor of `con` (a cursor sees the
    committed data, not `con`'s temporary tables), in this context (the queries it runs count as run here). The first
    job's exception, if any, is raised."""
    if len(jobs) <= 1:
        return [job(con) for job in jobs]
    with ThreadPoolExecutor(max_workers=len(jobs), thread_name_prefix="concord-side") as pool:
        futures = [pool.submit(contextvars.copy_context().run, job, con.cursor()) for job in jobs]
        return [f.result() for f in futures]
