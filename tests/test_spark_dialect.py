"""The DuckDB-to-Spark rewrites of analytics/engines/spark/dialect.py, on the text alone (no Spark needed): what sqlglot
would get wrong without them, and what they refuse rather than run differently."""

from __future__ import annotations

import datetime as dt
import decimal
import re

import pytest

pytest.importorskip("sqlglot", reason="the Spark extra is not installed (pip install -r requirements-spark.txt)")

from analytics.core import packing as pk  # noqa: E402
from analytics.engines.spark import dialect, engine  # noqa: E402
from analytics.engines.spark.dialect import SparkSqlError, to_spark  # noqa: E402


def test_named_and_positional_parameters_become_literals():
    sql = to_spark(
        "SELECT * FROM t WHERE a = $a AND list_contains($b, c) AND d >= $d AND e IS NOT DISTINCT FROM $e",
        {"a": "it's a \\ test", "b": ["x\x1fy", "z"], "d": dt.datetime(2026, 3, 1, 14, 5), "e": None},
    )
    assert "ARRAY_CONTAINS(ARRAY('x\\037y', 'z'), c)" in sql  # chr(31) as Spark's octal escape
    assert "CAST('2026-03-01 14:05:00' AS TIMESTAMP)" in sql and "NULL" in sql
    assert "'it\\'s a \\\\ test'" in sql  # Spark reads backslash escapes in string literals
    positional = to_spark("SELECT ?, '?' FROM t WHERE x = ? AND list_contains(?, y)", [1, "b", [2.5]])
    assert positional == "SELECT 1, '?' FROM t WHERE x = 'b' AND ARRAY_CONTAINS(ARRAY(CAST(2.5 AS DOUBLE)), y)"


def test_a_missing_parameter_is_an_error_not_a_null():
    with pytest.raises(SparkSqlError, match=r"\$b is not bound"):
        to_spark("SELECT $a, $b", {"a": 1})
    with pytest.raises(SparkSqlError, match="2 \\? markers for 1 parameters"):
        to_spark("SELECT ?, ?", [1])


def test_an_ordered_list_keeps_its_order_on_spark():
    # sqlglot alone drops the ORDER BY (COLLECT_LIST has none): the rows of a task would come in any order
    assert "ORDER BY" not in to_spark("SELECT list(x ORDER BY x) FROM t", {})
    assert to_spark("SELECT list((a, b) ORDER BY a, b) FROM t", {}) == (
        "SELECT ARRAY_SORT(COLLECT_LIST(STRUCT(a, b))) FROM t"
    )
    # confusion cells a * width + b in (a, b) order: the same order as the cell's own when b < width
    assert "ARRAY_SORT(COLLECT_LIST(a * 5 + b))" in to_spark("SELECT list(a * $w + b ORDER BY a, b) FROM t", {"w": 5})


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT list((a, b) ORDER BY a) FROM t",
        "SELECT list(a ORDER BY b) FROM t",
        "SELECT list(a ORDER BY a DESC) FROM t",
    ],
)
def test_an_order_spark_cannot_keep_is_refused(sql):
    with pytest.raises(SparkSqlError):
        to_spark(sql, {})


def test_packed_counts_are_exact_decimals_below_2_to_the_126():
    sql = to_spark("SELECT sum(CAST(1 AS HUGEINT) << ($bits * value_index)), CAST(0 AS HUGEINT) FROM t", {"bits": 25})
    powers = [int(p) for p in re.findall(r"CAST\('(\d+)' AS DECIMAL\(38, 0\)\)", sql)]
    assert powers == [1 << k for k in range(dialect.MAX_SHIFT)]
    assert "ELEMENT_AT(ARRAY(" in sql and "((25 * value_index)) + 1)" in sql and "CAST(0 AS DECIMAL(38, 0))" in sql
    # the widest packing the pairing uses fits DECIMAL(38, 0): every code is below 2^126 < 10^38
    assert pk.packing_bits(1) * 1 <= 126 and (1 << 126) < 10**38
    with pytest.raises(SparkSqlError, match="CAST\\(1 AS HUGEINT or BIGINT\\)"):
        to_spark("SELECT CAST(2 AS HUGEINT) << 3", {})
    # a BIGINT code (pk.packing of a narrow scale) stays Spark's 64-bit shift, its sum cast back to BIGINT
    narrow = to_spark("SELECT CAST(sum(CAST(1 AS BIGINT) << ($bits * value_index)) AS BIGINT) FROM t", {"bits": 12})
    assert narrow == "SELECT CAST(SUM(SHIFTLEFT(CAST(1 AS BIGINT), (12 * value_index))) AS BIGINT) FROM t"


def test_rows_become_structs_and_planner_hints_go():
    assert to_spark("SELECT min((a, b)), [(c, d)] FROM t WHERE (a, b) IN ((1, 2))", {}).startswith(
        "SELECT MIN(STRUCT(a, b)), ARRAY(STRUCT(c, d))"
    )
    assert "MATERIALIZED" not in to_spark("WITH p AS MATERIALIZED (SELECT 1 AS x) SELECT x FROM p", {})


def test_isfinite_keeps_nulls_null():
    sql = to_spark("SELECT isfinite(x) FROM t", {})
    assert sql == "SELECT NOT (ISNAN(x) OR x IN (CAST('Infinity' AS DOUBLE), CAST('-Infinity' AS DOUBLE))) FROM t"


def test_queries_go_to_the_engine_that_holds_their_tables():
    assert engine.reads_spark("SELECT * FROM ratings")
    assert engine.reads_spark("SELECT * FROM dimensions d JOIN reference_pairs USING (dim_key)")
    assert not engine.reads_spark("SELECT * FROM dimensions WHERE rubric = $r")
    assert not engine.reads_spark("WITH ratings AS (SELECT 1) SELECT * FROM ratings")  # a CTE, not the table


def test_spark_values_come_back_as_duckdb_gives_them():
    row = (decimal.Decimal(1 << 100), decimal.Decimal("2.5"), [(decimal.Decimal(3), 4)], "x", None)
    assert engine.plain(row) == (1 << 100, 2.5, [(3, 4)], "x", None)
    assert isinstance(engine.plain(decimal.Decimal(1 << 100)), int)


def test_each_inputs_views_are_renamed_but_not_ctes_or_other_databases():
    views = {"ratings": "ratings_ab12", "dimensions": "dimensions_ab12"}
    sql = to_spark(
        "SELECT * FROM ratings r JOIN dimensions USING (rubric) JOIN lake.ratings USING (task_id)", {}, views
    )
    assert "FROM ratings_ab12 AS r JOIN dimensions_ab12 USING (rubric) JOIN lake.ratings USING" in sql
    assert to_spark("WITH ratings AS (SELECT 1 AS x) SELECT x FROM ratings", {}, views).endswith("FROM ratings")
