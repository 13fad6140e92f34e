"""Ad hoc SQL over the store for the Explore page: one read-only SELECT, row and time limits, readable errors.

Why a sandbox of layers (facts measured with DuckDB 2.0; tests/test_explore_sandbox.py keeps them true):

- The app holds ONE read-write connection to the store file (DESIGN.md). A second DuckDB instance on the same
  file is refused inside the same process, both `duckdb.connect(path, read_only=True)` ("different
  configuration") and `ATTACH ... (READ_ONLY)` from an in-memory instance ("unique file handle conflict").
- `enable_external_access=false` would close files and network at the engine level, but it is a GLOBAL
  setting: set on a cursor it also stops our own ingest (`read_csv` of an upload fails with "file system
  operations are disabled") and it cannot be switched back on while the database runs. DuckDB 2.0 has no
  per-connection or per-query form (its LOCAL settings are profiling, progress bar, search path, streaming
  buffer and operator memory only). Copying the data into a locked-down instance is no option at 25M ratings.
- A macro stored in the file shadows the built-in of the same name, even in our own SQL: every function this
  module calls itself is written `system.main.<name>` so a stored `json_serialize_sql` cannot fake the check.
- Binding alone already touches files (`read_csv` sniffs at bind time, `FROM 'x.csv'` is a replacement scan,
  a plain name can resolve to a Python variable), so every check must run before DuckDB binds the query.

So the query passes four layers, each refusing with one readable line:

1. Statement (`extract_statements`): exactly one statement, of type SELECT (which covers FROM-first, VALUES,
   DESCRIBE and SUMMARIZE). COPY, ATTACH, INSTALL/LOAD, DDL, DML, PRAGMA, SET, CALL, EXPORT, ... are refused
   by type, and a second statement after `;` is refused whatever hides it.
2. Syntax tree (`json_serialize_sql`, walked node by node against allow-lists): base tables only from the
   store's own tables (not views, whose SQL this check never sees), or CTEs in scope exactly as DuckDB scopes
   them (a CTE does not see itself or later CTEs, so `WITH "x.csv" AS (FROM "x.csv")` cannot smuggle a file
   name); table functions only TABLE_FUNCTIONS; scalar, aggregate and window functions only those in
   functions.txt and never one redefined by a macro stored in the file; no schema or catalog other
   than `main`; only the node and expression kinds listed below (anything new is refused).
3. Execution: a fresh cursor (its own connection on the instance: it sees committed data only and none of the
   app's temp tables) inside `BEGIN TRANSACTION READ ONLY` (the engine refuses any write), with a per-cursor
   operator memory limit, a streaming fetch of at most `max_rows + 1` rows, and a timer that calls
   `cursor.interrupt()` when the time limit passes.
4. Instance: extension auto-install and auto-load are switched off (ingest needs none: CSV, Parquet and JSON
   are built in), so no query can pull in httpfs even if layer 2 had a gap.
"""

from __future__ import annotations

import functools
import json
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa  # type: ignore[import-untyped]  # no stubs (pyarrow-stubs is not a dependency)

from analytics.core.queries import Query
from analytics.store import tx

MAX_ROWS = 10_000
MAX_RESULT_BYTES = 32 * 2**20  # the result as Arrow data (text bytes, offsets, validity): what the page receives
TIMEOUT_S = 15.0
MAX_SQL_CHARS = 20_000
OPERATOR_MEMORY = "4GB"

# Bookkeeping tables of the store that hold nothing to explore.
HIDDEN_TABLES = frozenset({"meta", "schema_migrations", "store_identity"})
# Table functions that compute from their arguments only (no files, no catalog, no SQL in strings).
TABLE_FUNCTIONS = frozenset({"range", "generate_series", "unnest", "json_each", "json_tree"})
# Built-in functions left out of functions.txt on purpose, with the reason shown to the user.
REFUSED_FUNCTIONS = {
    "current_setting": "it reads the database's settings",
    "getvariable": "it reads session variables",
    "write_log": "it writes to the database log",
    "parse_duckdb_log_message": "it belongs to the database log",
    "nextval": "it changes a sequence",
    "currval": "it reads a sequence",
    "setval": "it changes a sequence",
    "setseed": "it changes the random seed of the connection",
    "pg_sleep": "it holds the connection without doing work",
    "sleep_ms": "it holds the connection without doing work",
    "json_serialize_plan": "it plans SQL held in a string",
    "json_serialize_sql": "it parses SQL held in a string",
    "json_deserialize_sql": "it builds SQL from a string",
    "get_block_size": "it reads storage internals",
    "index_key": "it reads index internals",
    "current_query": "it reads the query text",
    "current_query_id": "it reads query internals",
}
STATEMENT_REASONS = {
    "COPY": "COPY reads and writes files",
    "COPY_DATABASE": "COPY FROM DATABASE writes another database",
    "EXPORT": "EXPORT DATABASE writes files",
    "ATTACH": "ATTACH opens other database files",
    "DETACH": "DETACH changes the attached databases",
    "LOAD": "INSTALL and LOAD bring in extensions",
    "PRAGMA": "PRAGMA and IMPORT DATABASE read or change settings and files",
    "SET": "SET, RESET and USE change settings",
    "VARIABLE_SET": "SET VARIABLE changes settings",
    "CALL": "CALL runs table functions and maintenance",
    "TRANSACTION": "transactions are managed by Explore",
    "PREPARE": "prepared statements are not available here",
    "EXECUTE": "prepared statements are not available here",
    "EXPLAIN": "EXPLAIN is not available here",
    "MULTI": "PIVOT statements are not available here (write the pivot with GROUP BY and FILTER)",
}
WRITE_STATEMENTS = frozenset(
    {"CREATE", "CREATE_FUNC", "INSERT", "UPDATE", "DELETE", "DROP", "ALTER", "MERGE_INTO", "VACUUM", "ANALYZE"}
)
# Node kinds of json_serialize_sql's tree: query nodes, table references, modifiers and order types.
NODE_TYPES = frozenset(
    {
        "SELECT_NODE",
        "SET_OPERATION_NODE",
        "RECURSIVE_CTE_NODE",
        "BASE_TABLE",
        "EMPTY",
        "EXPRESSION_LIST",
        "JOIN",
        "PIVOT",
        "SHOW_REF",
        "SUBQUERY",
        "TABLE_FUNCTION",
        "DISTINCT_MODIFIER",
        "LIMIT_MODIFIER",
        "LIMIT_PERCENT_MODIFIER",
        "ORDER_MODIFIER",
        "ASCENDING",
        "DESCENDING",
        "ORDER_DEFAULT",
    }
)
EXPRESSION_CLASSES = frozenset(
    {
        "BETWEEN",
        "CASE",
        "CAST",
        "COLLATE",
        "COLUMN_REF",
        "COMPARISON",
        "CONJUNCTION",
        "CONSTANT",
        "DEFAULT",
        "FUNCTION",
        "LAMBDA",
        "LAMBDA_REF",
        "OPERATOR",
        "PARAMETER",
        "POSITIONAL_REFERENCE",
        "STAR",
        "SUBQUERY",
        "TYPE",
        "WINDOW",
    }
)
PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
FUNCTIONS_FILE = Path(__file__).with_name("functions.txt")


class QueryRefused(ValueError):
    """The query cannot run in Explore; the message says why in one line."""


@dataclass(frozen=True)
class QueryResult:
    """What a query returned: at most max_rows rows, whether more existed, the time it took, or an error.

    `truncated_by` says which cap cut the rows ("rows" or "bytes"); `peak_memory` is the worker's peak resident
    memory in bytes when the query ran in a worker process (analytics/explore/sql/worker.py), else 0."""

    columns: tuple[str, ...]
    frame: pd.DataFrame
    truncated: bool
    elapsed: float
    error: str | None = None
    truncated_by: str | None = None
    peak_memory: int = 0

    @property
    def ok(self) -> bool:
        """Whether the query ran."""
        return self.error is None


@functools.cache
def allowed_functions() -> frozenset[str]:
    """The scalar, aggregate and window functions a query may call (functions.txt)."""
    lines = FUNCTIONS_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().lower() for line in lines if line.strip() and not line.startswith("#"))


def explorable_tables(con: duckdb.DuckDBPyConnection) -> tuple[str, ...]:
    """The store's base tables a query may read (everything in `main` but bookkeeping)."""
    rows = con.execute(_TABLES_SQL).fetchall()
    return tuple(name for (name,) in rows if name not in HIDDEN_TABLES and PLAIN_NAME.match(name))


# Base tables only: a view's own SQL is not checked by layer 2 and may read a file (the canonical adapter
# leaves a view over read_csv of the last file it loaded in the store).
_TABLES_SQL = """
    SELECT table_name FROM system.main.duckdb_tables()
    WHERE database_name = system.main.current_database() AND schema_name = 'main' AND NOT temporary
    ORDER BY table_name"""


TABLE_COLUMNS = Query(
    "table_columns",
    """SELECT table_name AS "table", column_name AS "column", data_type AS "type"
       FROM system.main.duckdb_columns()
       WHERE database_name = system.main.current_database() AND schema_name = 'main'
         AND system.main.list_contains($tables, table_name)
       ORDER BY table_name, column_index""",
)


def schema(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """The explorable tables and their columns, one row per column: table, column, type."""
    tables = explorable_tables(con)
    frame = TABLE_COLUMNS.bind(tables=list(tables)).df(con)
    return frame.reset_index(drop=True)


def check_query(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Raise QueryRefused unless `sql` is one SELECT that reads only the store's tables and allowed functions."""
    if not sql.strip():
        raise QueryRefused("Type a query first.")
    if len(sql) > MAX_SQL_CHARS:
        raise QueryRefused(f"The query is {len(sql):,} characters long; the limit is {MAX_SQL_CHARS:,}.")
    _check_statement(con, sql)
    try:
        tree = _syntax_tree(con, sql)
        _Checker(frozenset(explorable_tables(con)), _user_functions(con)).walk(tree, frozenset())
    except RecursionError as e:
        raise QueryRefused(
            "The query is nested too deeply to be checked; write it with fewer levels (CTEs help)."
        ) from e


def run_query(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    max_rows: int = MAX_ROWS,
    timeout_s: float = TIMEOUT_S,
    max_bytes: int = MAX_RESULT_BYTES,
) -> QueryResult:
    """Check and run one read-only SELECT in this process; never raises for a bad query, the error says why.

    In this process the time limit is DuckDB's interrupt, which is only checked between chunks, and memory is
    the process's own: the page runs queries through analytics/explore/sql/worker.py, which calls run_arrow() in a
    process of its own that can be stopped for certain."""
    started = time.perf_counter()
    table, meta = run_arrow(con, sql, max_rows, timeout_s, max_bytes)
    if meta.get("error"):
        return _failed(str(meta["error"]), started)
    frame = to_frame(table)
    return QueryResult(
        tuple(str(c) for c in frame.columns),
        frame,
        bool(meta["truncated_by"]),
        time.perf_counter() - started,
        truncated_by=meta["truncated_by"],
    )


def to_frame(table: pa.Table) -> pd.DataFrame:
    """A result as pandas, converted by DuckDB as `.df()` would (decimals as floats, lists as lists)."""
    con = duckdb.connect()
    try:
        frame = con.from_arrow(table).df()
    finally:
        con.close()
    return frame


def run_arrow(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    max_rows: int = MAX_ROWS,
    timeout_s: float = TIMEOUT_S,
    max_bytes: int = MAX_RESULT_BYTES,
    configured: bool = False,
) -> tuple[pa.Table | None, dict]:
    """Check and run one read-only SELECT: (the result as Arrow, {"error", "truncated_by"}); never raises.

    `configured`: the instance was opened with its limits and extension settings locked (the worker's), so
    layer 3 and 4 set nothing."""
    cur = con.cursor()
    try:
        try:
            check_query(cur, sql)
        except QueryRefused as e:
            return None, {"error": str(e)}
        except duckdb.Error as e:
            return None, {"error": _one_line(e)}
        except (KeyError, TypeError) as e:  # a syntax tree of a shape this module does not know
            return None, {"error": f"Refused: Explore could not check this query ({type(e).__name__}: {e})."}
        return _execute(cur, sql, max_rows, timeout_s, max_bytes, configured)
    finally:
        cur.close()


def refusal(con: duckdb.DuckDBPyConnection, sql: str) -> str | None:
    """Why check_query refuses `sql` in one line, or None when it passes (for a quick answer before a worker)."""
    cur = con.cursor()
    try:
        check_query(cur, sql)
    except QueryRefused as e:
        return str(e)
    except duckdb.Error as e:
        return _one_line(e)
    except (KeyError, TypeError) as e:
        return f"Refused: Explore could not check this query ({type(e).__name__}: {e})."
    finally:
        cur.close()
    return None


def _failed(message: str, started: float) -> QueryResult:
    return QueryResult((), pd.DataFrame(), False, time.perf_counter() - started, message)


def _one_line(e: Exception) -> str:
    """The first line of a DuckDB error, without the traceback or the caret display."""
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _check_statement(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Layer 1: exactly one statement, and a SELECT."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as e:
        raise QueryRefused(_one_line(e)) from e
    if not statements:
        raise QueryRefused("Type a query first (the text holds only comments).")
    if len(statements) > 1:
        raise QueryRefused(f"One statement at a time: this text holds {len(statements)} (separated by ';').")
    try:
        kind = statements[0].type.name
    except ValueError as e:  # a statement type the Python client has no name for (e.g. UPDATE EXTENSIONS)
        raise QueryRefused("Refused: this kind of statement is not available here; Explore runs one SELECT.") from e
    if kind == "SELECT":
        return
    if kind in WRITE_STATEMENTS:
        raise QueryRefused(f"Explore is read-only: {kind.replace('_', ' ')} statements cannot run here.")
    reason = STATEMENT_REASONS.get(kind, f"{kind} statements are not available here")
    raise QueryRefused(f"Refused: {reason}. Explore runs one read-only SELECT over the store's tables.")


SYNTAX_TREE = Query("syntax_tree", "SELECT system.main.json_serialize_sql($sql)")


def _syntax_tree(con: duckdb.DuckDBPyConnection, sql: str) -> dict:
    """DuckDB's own parse of the query as a JSON tree (parsing touches nothing outside the text)."""
    raw = SYNTAX_TREE.bind(sql=sql).rows(con)[0][0]
    tree = json.loads(raw)
    if tree.get("error"):
        message = str(tree.get("error_message") or "the query cannot be checked")
        if "Only SELECT" in message:
            message = "this form of SELECT (e.g. PIVOT) cannot be checked, so it is not available here"
        raise QueryRefused(f"Refused: {message}.")
    statements = tree.get("statements") or []
    if len(statements) != 1:
        raise QueryRefused(f"One statement at a time: this text holds {len(statements)}.")
    return statements[0]["node"]


def _user_functions(con: duckdb.DuckDBPyConnection) -> frozenset[str]:
    """Functions and macros defined in the store or on the connection; they shadow built-ins of the same name."""
    rows = con.execute("SELECT DISTINCT function_name FROM system.main.duckdb_functions() WHERE NOT internal")
    return frozenset(name.lower() for (name,) in rows.fetchall())


class _Checker:
    """Layer 2: walks the syntax tree; raises QueryRefused at the first node outside the allow-lists."""

    def __init__(self, tables: frozenset[str], user_functions: frozenset[str]) -> None:
        self.tables = tables
        self.user_functions = user_functions
        self.functions = allowed_functions()

    def walk(self, node: object, ctes: frozenset[str]) -> None:
        """Check `node` and everything below it; `ctes` are the CTE names in scope."""
        if isinstance(node, list):
            for item in node:
                self.walk(item, ctes)
            return
        if not isinstance(node, dict):
            return
        self._check_kind(node)
        kind = node.get("type")
        if node.get("class") in ("FUNCTION", "WINDOW"):
            self._check_function(node, self.functions)
        elif kind == "BASE_TABLE":
            self._check_table(node, ctes)
        elif kind == "SHOW_REF" and (node.get("table_name") or not node.get("query")):
            raise QueryRefused("Refused: SHOW lists the database; use the table list beside the editor.")
        elif kind == "TABLE_FUNCTION":
            function = node.get("function") or {}
            self._check_kind(function)
            self._check_function(function, TABLE_FUNCTIONS)
            self._walk_children(function, ctes)
            self._walk_children(node, ctes, skip=("function",))
            return
        if isinstance(node.get("cte_map"), dict):
            ctes = self._walk_ctes(node["cte_map"].get("map") or [], ctes)
        self._walk_children(node, ctes, skip=("cte_map",))

    def _walk_children(self, node: dict, ctes: frozenset[str], skip: tuple[str, ...] = ()) -> None:
        for key, value in node.items():
            if key not in skip and isinstance(value, dict | list):
                self.walk(value, ctes)

    def _walk_ctes(self, entries: list, ctes: frozenset[str]) -> frozenset[str]:
        """Check each CTE body with the names DuckDB lets it see; return the scope of the query that follows."""
        for entry in entries:
            name = str(entry.get("key", ""))
            if not PLAIN_NAME.match(name):
                raise QueryRefused(f'Name the CTE "{name}" with letters, digits and underscores only.')
            value = entry.get("value") or {}
            self._walk_children(value, ctes, skip=("query_node",))
            body = value.get("query_node") or {}
            if body.get("type") == "RECURSIVE_CTE_NODE":
                # Only the recursive term may refer to the CTE itself: DuckDB resolves a self-reference
                # anywhere else as a table name, which could be a file (`WITH "x.csv" AS (FROM "x.csv")`).
                self._check_kind(body)
                self._walk_children(body, ctes, skip=("right",))
                self.walk(body.get("right"), ctes | {name.lower()})
            else:
                self.walk(body, ctes)
            ctes = ctes | {name.lower()}
        return ctes

    def _check_kind(self, node: dict) -> None:
        cls, kind = node.get("class"), node.get("type")
        if cls is not None and cls not in EXPRESSION_CLASSES:
            raise QueryRefused(f"Refused: {cls} expressions are not available here.")
        if cls is None and isinstance(kind, str) and kind not in NODE_TYPES:
            raise QueryRefused(f"Refused: {kind.replace('_', ' ').lower()} is not available here.")

    def _check_function(self, node: dict, allowed: frozenset[str]) -> None:
        name = str(node.get("function_name", "")).lower()
        what = "table function" if allowed is TABLE_FUNCTIONS else "function"
        if node.get("schema") or node.get("catalog"):
            path = ".".join(str(p) for p in (node.get("qualified_name") or {}).get("path", [name]))
            raise QueryRefused(f"Refused: call {name} without a schema or catalog (not {path}).")
        if name in self.user_functions:
            # A macro in the store named like a built-in runs instead of it, and its body is not checked here.
            raise QueryRefused(f"Refused: {name} is redefined in this store, so Explore cannot tell what it reads.")
        if name in allowed:
            return
        if allowed is TABLE_FUNCTIONS:
            why = _table_function_reason(name)
            raise QueryRefused(
                f"Refused: the {what} {name} is not available ({why}); only {', '.join(sorted(TABLE_FUNCTIONS))} are."
            )
        why = REFUSED_FUNCTIONS.get(name) or _table_function_reason(name)
        raise QueryRefused(f"Refused: the {what} {name} is not available here ({why}).")

    def _check_table(self, node: dict, ctes: frozenset[str]) -> None:
        name = str(node.get("table_name", ""))
        schema_name, catalog = str(node.get("schema_name", "")), str(node.get("catalog_name", ""))
        if catalog or schema_name.lower() not in ("", "main"):
            qualified = ".".join(p for p in (catalog, schema_name, name) if p)
            raise QueryRefused(f"Refused: {qualified} is not one of the store's tables (write the table name alone).")
        if name.lower() in ctes and not schema_name:
            return
        if name.lower() in self.tables:
            return
        if "/" in name or "." in name or "\\" in name or ":" in name:
            raise QueryRefused(f"Refused: {name} looks like a file or address; Explore reads only the store's tables.")
        raise QueryRefused(f"Refused: {name} is not one of the store's tables ({', '.join(sorted(self.tables))}).")


def _table_function_reason(name: str) -> str:
    """Why a function outside the allow-lists is refused, in words (files, database internals, or unknown)."""
    if name.startswith(("read_", "parquet_", "sniff_", "glob")) or name in ("parquet_scan", "seq_scan"):
        return "it reads files"
    if name in ("query", "query_table", "json_execute_serialized_sql"):
        return "it runs SQL held in a string"
    if name.startswith(("duckdb_", "pragma_", "which_secret")) or name in ("checkpoint", "force_checkpoint"):
        return "it reads or changes the database itself"
    if name == "getenv":
        return "it reads the environment"
    return "it is not on Explore's list of functions"


def _harden_instance(cur: duckdb.DuckDBPyConnection) -> None:
    """Layer 4: no extension may be installed or loaded behind a query's back (ingest needs none)."""
    cur.execute("SET GLOBAL autoinstall_known_extensions = false")
    cur.execute("SET GLOBAL autoload_known_extensions = false")


def _execute(
    cur: duckdb.DuckDBPyConnection,
    sql: str,
    max_rows: int,
    timeout_s: float,
    max_bytes: int = MAX_RESULT_BYTES,
    configured: bool = False,
) -> tuple[pa.Table | None, dict]:
    """Layer 3: run in a read-only transaction, stream Arrow batches up to the row and byte caps, interrupt at the
    time limit (between chunks only: a worker process adds the hard stop)."""
    timed_out = threading.Event()

    def stop() -> None:
        timed_out.set()
        cur.interrupt()

    timer = threading.Timer(timeout_s, stop)
    timer.daemon = True
    try:
        if not configured:
            _harden_instance(cur)
            cur.execute(f"SET operator_memory_limit = '{OPERATOR_MEMORY}'")
        with tx.read_only(cur):  # ended (rolled back) however the query ends
            timer.start()
            relation = cur.sql(sql)
            if relation is None:  # not a query after all (layers 1 and 2 let only SELECTs through)
                return None, {"error": "Refused: Explore runs one SELECT."}
            table, truncated_by = _fetch(relation.to_arrow_reader(FETCH_ROWS), max_rows, max_bytes)
            timer.cancel()
    # pandas conversions raise ValueError and the like; Arrow's reader raises OSError (out of memory)
    except (duckdb.Error, ValueError, TypeError, OverflowError, pa.ArrowException, OSError, MemoryError) as e:
        timer.cancel()
        if timed_out.is_set():
            return None, {
                "error": f"The query ran longer than {timeout_s:g} s and was stopped. "
                "Narrow it (filters, fewer joins, LIMIT) and run it again."
            }
        return None, {"error": _one_line(e)}
    finally:
        timer.cancel()
    return table, {"error": None, "truncated_by": truncated_by}


FETCH_ROWS = 2048  # rows per Arrow batch (DuckDB's vector size)


def _fetch(reader: pa.RecordBatchReader, max_rows: int, max_bytes: int) -> tuple[pa.Table, str | None]:
    """Read batches until more than max_rows rows or max_bytes bytes arrived or the result ends; keep what fits."""
    schema = reader.schema
    batches: list[pa.RecordBatch] = []
    rows = size = 0
    truncated_by = None
    for batch in reader:
        if rows + batch.num_rows > max_rows:
            batch, truncated_by = batch.slice(0, max_rows - rows), "rows"
        if size + batch.nbytes > max_bytes:
            batch, truncated_by = _slice_to_bytes(batch, max_bytes - size), "bytes"
        batches.append(batch)
        rows, size = rows + batch.num_rows, size + batch.nbytes
        if truncated_by:
            break
    reader.close()
    return pa.Table.from_batches(batches, schema=schema), truncated_by


def _slice_to_bytes(batch: pa.RecordBatch, budget: int) -> pa.RecordBatch:
    """The longest head of `batch` whose Arrow size is within `budget` bytes (binary search on the row count)."""
    lo, hi = 0, batch.num_rows
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if batch.slice(0, mid).nbytes <= budget:
            lo = mid
        else:
            hi = mid - 1
    return batch.slice(0, lo)


EXAMPLE_QUERIES: dict[str, str] = {
    "Agreement with researchers by ISO week": """\
-- Share of contractor ratings equal to a researcher's rating of the same unit
-- (task, rubric, dimension, target), per ISO week of the contractor's submission.
SELECT strftime(c.submitted_at, '%G-W%V') AS iso_week,
       count(*) AS pairs,
       count(DISTINCT c.rater_id) AS contractors,
       round(avg(CASE WHEN c.value = r.value THEN 1.0 ELSE 0.0 END), 3) AS share_equal
FROM ratings AS c
JOIN ratings AS r USING (task_id, rubric, dimension, target)
WHERE c.role = 'contractor' AND r.role = 'researcher' AND c.submitted_at IS NOT NULL
GROUP BY iso_week
ORDER BY iso_week""",
    "One contractor against researchers on the primary dimension": """\
-- Replace the rater id in the WHERE clause; by default the contractor with the most ratings.
SELECT c.rater_id AS contractor, c.task_id, c.rubric, c.dimension, c.target,
       c.value AS contractor_value, r.rater_id AS researcher, r.value AS researcher_value,
       c.value_index - r.value_index AS steps_apart
FROM ratings AS c
JOIN ratings AS r USING (task_id, rubric, dimension, target)
JOIN dimensions AS d USING (rubric, dimension)
WHERE d.is_primary AND c.role = 'contractor' AND r.role = 'researcher'
  AND c.rater_id = (SELECT rater_id FROM ratings WHERE role = 'contractor'
                    GROUP BY rater_id ORDER BY count(*) DESC, rater_id LIMIT 1)
ORDER BY abs(c.value_index - r.value_index) DESC NULLS LAST, c.task_id""",
    "Tasks flagged as not making sense": """\
-- Submissions with status 'flagged' or a true does_not_make_sense / should_not_be_answered flag.
SELECT s.task_id, s.rubric,
       count(*) AS flagged_submissions,
       string_agg(DISTINCT s.rater_id, ', ' ORDER BY s.rater_id) AS raters,
       bool_or(coalesce(json_extract_string(s.flags, '$.does_not_make_sense') = 'true', false)) AS does_not_make_sense,
       bool_or(coalesce(json_extract_string(s.flags, '$.should_not_be_answered') = 'true', false)) AS should_not_be_answered,
       any_value(left(t.prompt, 200)) AS prompt
FROM submissions AS s
LEFT JOIN tasks AS t USING (task_id, rubric)
WHERE s.status = 'flagged'
   OR json_extract_string(s.flags, '$.does_not_make_sense') = 'true'
   OR json_extract_string(s.flags, '$.should_not_be_answered') = 'true'
GROUP BY s.task_id, s.rubric
ORDER BY flagged_submissions DESC, s.task_id""",
    "Ratings per rubric, dimension and role": """\
SELECT rubric, dimension, role, count(*) AS ratings, count(DISTINCT rater_id) AS raters,
       count(DISTINCT task_id) AS tasks
FROM ratings
GROUP BY ALL
ORDER BY rubric, dimension, role""",
}
