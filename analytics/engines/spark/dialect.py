"""The named DuckDB queries as Spark SQL: sqlglot's transpiler plus the rewrites it lacks, one definition per query.

sqlglot turns most of DuckDB's SQL into Spark's, but some of what it emits fails only when Spark runs it, and
some it changes silently (a list aggregate's ORDER BY is dropped). The rewrites below cover what the named
queries use; a form they recognise but cannot carry over exactly (an ORDER BY that is not the value's own order)
raises SparkSqlError instead of running different SQL, and SQL Spark refuses is reported as one line. The
parity tests (tests/test_spark_parity.py) run every named aggregation query on both engines and compare rows,
because the transpiler's silence cannot be trusted.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

# Spark has no 128-bit integer; DECIMAL(38, 0) holds every packed code below 2^126 (analytics/core/packing.py,
# packing_bits: at most 126 bits), since 10^38 > 2^126.
PACKED = exp.DataType.build("DECIMAL(38, 0)")
MAX_SHIFT = 126


class SparkSqlError(ValueError):
    """A query uses SQL that has no rewrite to Spark here (say which, rather than run something else)."""


def to_spark(
    sql: str, params: dict[str, Any] | list | tuple | None = None, tables: dict[str, str] | None = None
) -> str:
    """The Spark SQL of a DuckDB statement, its parameters (`$name` or `?`) bound as literals and its tables
    renamed by `tables` (each input's views on Spark carry a suffix of their own)."""
    if isinstance(params, list | tuple):
        sql, params = _named(sql, list(params))
    return rename(transpile(parse(sql), params), tables or {}).sql(dialect="spark")


def rename(tree: exp.Expr, tables: dict[str, str]) -> exp.Expr:
    """The tree with its table references renamed (not a CTE's own name, not a table in a database)."""
    ctes = {c.alias for c in tree.find_all(exp.CTE)}
    for t in tree.find_all(exp.Table):
        if not t.db and t.name in tables and t.name not in ctes:
            t.set("this", exp.to_identifier(tables[t.name]))
    return tree


def spark_sql(sql: str, tables: dict[str, str]) -> str:
    """Spark SQL with its tables renamed by `tables`."""
    return rename(sqlglot.parse_one(sql, read="spark"), tables).sql(dialect="spark")


def parse(sql: str) -> exp.Expr:
    """A DuckDB statement's syntax tree (SparkSqlError when sqlglot cannot read it)."""
    try:
        return sqlglot.parse_one(sql, read="duckdb")
    except sqlglot.errors.ParseError as e:
        raise SparkSqlError(f"cannot read the query: {e}") from e


def transpile(tree: exp.Expr, params: dict[str, Any] | None = None) -> exp.Expr:
    """A DuckDB syntax tree rewritten for Spark, its `$name` parameters bound."""
    tree = tree.transform(lambda node: _bind(node, params or {}))
    for rewrite in REWRITES:
        tree = tree.transform(rewrite)
    return tree


def literal(value: Any) -> exp.Expr:
    """A parameter's value as a SQL literal (lists as arrays, dates and times as casts)."""
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int):
        return exp.Literal.number(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return exp.cast(exp.Literal.string(repr(value)), "DOUBLE")
        return exp.cast(exp.Literal.number(repr(value)), "DOUBLE")
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, dt.datetime):
        return exp.cast(exp.Literal.string(value.isoformat(sep=" ")), "TIMESTAMP")
    if isinstance(value, dt.date):
        return exp.cast(exp.Literal.string(value.isoformat()), "DATE")
    if isinstance(value, list | tuple):
        if not value:
            return exp.cast(exp.Array(expressions=[]), "ARRAY<STRING>")
        return exp.Array(expressions=[literal(v) for v in value])
    raise SparkSqlError(f"a parameter of type {type(value).__name__} has no Spark literal here")


def _named(sql: str, params: list) -> tuple[str, dict[str, Any]]:
    """`?` markers -> `$p0`, `$p1`, ... in text order (found by sqlglot's tokenizer, not inside strings)."""
    tokens = [t for t in sqlglot.tokenize(sql, read="duckdb") if t.token_type == TokenType.PLACEHOLDER]
    if len(tokens) != len(params):
        raise SparkSqlError(f"{len(tokens)} ? markers for {len(params)} parameters")
    out, at = [], 0
    for i, t in enumerate(tokens):
        out += [sql[at : t.start], f"$p{i}"]
        at = t.end + 1
    return "".join(out) + sql[at:], {f"p{i}": v for i, v in enumerate(params)}


def _bind(node: exp.Expr, params: dict[str, Any]) -> exp.Expr:
    """`$name` -> its value (a missing parameter is an error, as in DuckDB)."""
    if isinstance(node, exp.Placeholder | exp.Parameter):
        name = node.name
        if name not in params:
            raise SparkSqlError(f"parameter ${name} is not bound")
        return literal(params[name])
    return node


def _ordered_list(node: exp.Expr) -> exp.Expr:
    """`list(x ORDER BY ...)` -> `array_sort(collect_list(x))`, when the order is x's own order: sqlglot drops the
    ORDER BY without a word, and Spark's collect_list has no order."""
    if not (isinstance(node, exp.ArrayAgg) and isinstance(node.this, exp.Order)):
        return node
    value, keys = node.this.this, [o.this for o in node.this.expressions]
    if any(o.args.get("desc") for o in node.this.expressions):
        raise SparkSqlError(f"list(... ORDER BY ... DESC) has no Spark form here: {node.sql('duckdb')}")
    fields = value.expressions if isinstance(value, exp.Tuple) else [value]
    if [k.sql() for k in keys] != [f.sql() for f in fields] and not _packs(value, keys):
        raise SparkSqlError(f"list(x ORDER BY y) needs y to be x's own order on Spark: {node.sql('duckdb')}")
    return exp.ArraySort(this=exp.ArrayAgg(this=value))


def _packs(value: exp.Expr, keys: list[exp.Expr]) -> bool:
    """Whether `value` is `a * width + b` ordered by (a, b): the same order when b < width (confusion cells)."""
    if not (isinstance(value, exp.Add) and isinstance(value.this, exp.Mul)) or len(keys) != 2:
        return False
    return value.this.this.sql() == keys[0].sql() and value.expression.sql() == keys[1].sql()


def _shift(node: exp.Expr) -> exp.Expr:
    """`CAST(1 AS HUGEINT) << e` -> the e-th power of two as DECIMAL(38, 0), looked up (Spark shifts 64 bits);
    `CAST(1 AS BIGINT) << e` stays a shift (Spark's shiftleft of a BIGINT)."""
    if not isinstance(node, exp.BitwiseLeftShift):
        return node
    one = node.this
    kind = one.to.this if isinstance(one, exp.Cast) and one.this.sql() == "1" else None
    if kind not in (exp.DataType.Type.INT128, exp.DataType.Type.BIGINT):
        raise SparkSqlError(f"only CAST(1 AS HUGEINT or BIGINT) << n has a Spark form here: {node.sql('duckdb')}")
    if kind == exp.DataType.Type.BIGINT:
        return node
    powers = exp.Array(expressions=[exp.cast(exp.Literal.string(str(1 << k)), PACKED) for k in range(MAX_SHIFT)])
    index = exp.Add(this=exp.Paren(this=node.expression), expression=exp.Literal.number(1))
    return exp.func("element_at", powers, index)


def _hugeint(node: exp.Expr) -> exp.Expr:
    """Other casts to HUGEINT -> DECIMAL(38, 0)."""
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.INT128:
        return PACKED.copy()
    return node


def _struct(node: exp.Expr) -> exp.Expr:
    """A row value `(a, b)` -> struct(a, b); Spark reads a bare parenthesised list as something else."""
    if isinstance(node, exp.Tuple) and not isinstance(node.parent, exp.In | exp.Values):
        return exp.Struct(expressions=list(node.expressions))
    return node


def _unmaterialized(node: exp.Expr) -> exp.Expr:
    """`WITH x AS MATERIALIZED (...)` -> `WITH x AS (...)`: a DuckDB planning hint Spark cannot read."""
    if isinstance(node, exp.CTE) and node.args.get("materialized") is not None:
        node.set("materialized", None)
    return node


def _isfinite(node: exp.Expr) -> exp.Expr:
    """isfinite(x) -> NOT (isnan(x) OR x IN (inf, -inf)); NULL stays NULL, as in DuckDB."""
    if isinstance(node, exp.Anonymous) and node.name.lower() == "isfinite":
        x = node.expressions[0]
        infinite = exp.In(
            this=x.copy(),
            expressions=[
                exp.cast(exp.Literal.string("Infinity"), "DOUBLE"),
                exp.cast(exp.Literal.string("-Infinity"), "DOUBLE"),
            ],
        )
        return exp.Not(this=exp.Paren(this=exp.Or(this=exp.func("isnan", x.copy()), expression=infinite)))
    return node


# Not rewritten: DuckDB's len() of a list, which sqlglot reads as a string's LENGTH (Spark: size()). Without types
# the two cannot be told apart, so the named queries spell a list's length array_length() (sqlglot: SIZE).
REWRITES = (_ordered_list, _shift, _hugeint, _struct, _unmaterialized, _isfinite)
