"""QueryLog: a query runs once per log, and a result the log was handed (QueryLog.know: a page's results that depend
on the stored data only) is used without running the query, and logged only when the computation asks for it."""

from __future__ import annotations

import duckdb
import pandas as pd

from analytics.agreement import pairing as pg
from analytics.core import packing as pk
from analytics.core.queries import Query, QueryLog, run


def test_a_query_runs_once_per_log():
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT 1 AS x")
    log = QueryLog()
    q = Query("count", "SELECT count(*) AS n FROM t WHERE x = $x", {"x": 1})
    assert run(con, q, log)["n"].iloc[0] == 1
    con.execute("INSERT INTO t VALUES (1)")
    assert run(con, q, log)["n"].iloc[0] == 1  # the first result, reused
    assert run(con, Query("count", q.sql, {"x": 2}), log)["n"].iloc[0] == 0  # other parameters run
    assert [x.params for x in log] == [{"x": 1}, {"x": 2}]


def test_a_known_result_is_used_and_logged_only_when_asked():
    con = duckdb.connect()  # no ratings table: running either query would raise
    width, multi = pg.data_queries()
    log = QueryLog()
    log.know(width, pd.DataFrame({"width": [5]}))
    log.know(multi, pd.DataFrame({"dimension_key": ["r\x1fd"]}))
    assert list(log) == []
    assert pk.scale_width(con, log) == 5
    assert list(log) == [width]  # the query behind the figure is listed, as if it had run here
    assert pg.multi_target(con, log) == ["r\x1fd"]
    assert list(log) == [width, multi]


def test_bind_run_and_run_many_bind_by_name():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (k VARCHAR, x INTEGER)")
    insert = Query("insert_t", "INSERT INTO t VALUES ($k, $x)", {"k": "a"})
    insert.run_many(con, [{"x": 1}, {"x": 2}, {"k": "b", "x": 3}])  # a row's parameters override the query's
    count = Query("count_t", "SELECT count(*) FROM t WHERE k = $k AND x >= $x")
    assert count.bind(k="a", x=2).rows(con) == [(1,)]
    assert count.params == {}  # bind leaves the query it was called on as it was
    assert count.bind(k="a").bind(x=0).run(con).fetchall() == [(2,)]
    assert Query("total", "SELECT sum(x) FROM t").rows(con) == [(6,)]
