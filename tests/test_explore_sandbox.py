"""The Explore sandbox: escapes refused in one readable line, limits enforced, store and ingest untouched."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from analytics import store
from analytics.explore import sql
from analytics.explore.sql import QueryRefused, check_query, run_query
from analytics.ingest.load import ingest_file

# Ratings made for these tests (expected figures below are counted from these rows by hand).
RATINGS_CSV = """\
task_id,rater_id,role,rubric,dimension,target,value,submitted_at
t1,r1,researcher,article_likert,likert,first,4,2026-03-02T09:00:00
t1,c1,contractor,article_likert,likert,first,4,2026-03-02T10:00:00
t1,c2,contractor,article_likert,likert,first,3,2026-03-03T10:00:00
t2,r1,researcher,article_likert,likert,first,2,2026-03-09T09:00:00
t2,c1,contractor,article_likert,likert,first,5,2026-03-09T10:00:00
t3,c1,contractor,article_likert,likert,first,3,2026-03-10T10:00:00
"""
MORE_CSV = """\
task_id,rater_id,role,rubric,dimension,target,value
t4,c3,contractor,article_likert,likert,first,2
"""
SECRET = "concord-secret-marker"


def _fill(con: duckdb.DuckDBPyConnection, folder: Path) -> duckdb.DuckDBPyConnection:
    """Load the ratings above, add two submissions (one flagged) and put a secret file beside the store."""
    path = folder / "ratings.csv"
    path.write_text(RATINGS_CSV)
    assert ingest_file(con, path).rows_loaded == 6
    flags_raised = json.dumps({"does_not_make_sense": True, "should_not_be_answered": False})
    flags_clear = json.dumps({"does_not_make_sense": False, "should_not_be_answered": False})
    con.executemany(
        "INSERT INTO submissions (submission_id, task_id, rubric, rater_id, role, status, flags, ingest_id) "
        "VALUES (?, ?, 'answer_comparison', ?, 'contractor', ?, ?, 1)",
        [("s1", "t9", "c1", "flagged", flags_raised), ("s2", "t1", "c2", "rated", flags_clear)],
    )
    (folder / "secret.csv").write_text(f"a,b\n{SECRET},1\n")
    (folder / "secret.parquet").write_bytes(b"")
    # A view in the store whose own SQL reads a file (the canonical adapter leaves one like it behind).
    con.execute(f"CREATE OR REPLACE VIEW file_view AS SELECT * FROM read_csv('{folder}/secret.csv')")
    return con


@pytest.fixture
def loaded(con, tmp_path):
    """A store of its own with the test data, for tests that change it."""
    return _fill(con, tmp_path)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One store with the test data for the tests that only read (the escapes must leave it as it was)."""
    folder = tmp_path_factory.mktemp("explore")
    con = _fill(store.open_store(folder / "store.duckdb"), folder)
    yield con, folder
    con.close()


# Each escape is refused before DuckDB binds it. {dir} is the test's temp folder (holding secret.csv).
ESCAPES = {
    "read_csv": "SELECT * FROM read_csv('{dir}/secret.csv')",
    "read_csv_etc_passwd": "SELECT * FROM read_csv('/etc/passwd')",
    "read_csv_auto_list": "SELECT * FROM read_csv_auto(['{dir}/secret.csv'])",
    "replacement_scan_string": "FROM '{dir}/secret.csv'",
    "replacement_scan_select": "SELECT * FROM '/etc/passwd'",
    "replacement_scan_quoted_identifier": 'SELECT * FROM "{dir}/secret.csv"',
    "replacement_scan_in_join": "SELECT * FROM ratings, '{dir}/secret.csv'",
    "replacement_scan_url": "FROM 'https://example.com/x.csv'",
    "dotted_file_name": "SELECT * FROM secret.csv",
    "copy_to": "COPY ratings TO '{dir}/out.csv'",
    "copy_query_to": "COPY (SELECT * FROM ratings) TO '{dir}/out.csv' (FORMAT csv)",
    "copy_from": "COPY ratings FROM '{dir}/secret.csv'",
    "copy_from_database": "COPY FROM DATABASE store TO other",
    "export_database": "EXPORT DATABASE '{dir}/export'",
    "import_database": "IMPORT DATABASE '{dir}/export'",
    "attach": "ATTACH '{dir}/other.duckdb' AS other",
    "detach": "DETACH store",
    "install_httpfs": "INSTALL httpfs",
    "load_httpfs": "LOAD httpfs",
    "update_extensions": "UPDATE EXTENSIONS",
    "create_table": "CREATE TABLE x AS SELECT 1",
    "create_temp_table": "CREATE TEMP TABLE x (a INTEGER)",
    "create_view": "CREATE VIEW v AS SELECT * FROM ratings",
    "create_macro": "CREATE MACRO m() AS TABLE SELECT * FROM read_csv('{dir}/secret.csv')",
    "create_secret": "CREATE SECRET s (TYPE s3)",
    "insert": "INSERT INTO ratings (task_id, rater_id, role, rubric, dimension, value, ingest_id) VALUES ('x', 'x', 'contractor', 'x', 'x', 'x', 1)",
    "update": "UPDATE meta SET value = '999'",
    "delete": "DELETE FROM ratings",
    "truncate": "TRUNCATE ratings",
    "drop": "DROP TABLE ratings",
    "alter": "ALTER TABLE ratings ADD COLUMN x INTEGER",
    "comment_on": "COMMENT ON TABLE ratings IS 'x'",
    "merge_into": "MERGE INTO ratings USING ratings AS r ON true WHEN MATCHED THEN DELETE",
    "vacuum": "VACUUM",
    "checkpoint": "CHECKPOINT",
    "pragma": "PRAGMA database_list",
    "pragma_setting": "PRAGMA enable_profiling",
    "set": "SET threads = 1",
    "set_external_access": "SET enable_external_access = false",
    "reset": "RESET threads",
    "set_variable": "SET VARIABLE f = '{dir}/secret.csv'",
    "use": "USE memory",
    "call_table_function": "CALL pragma_version()",
    "begin": "BEGIN TRANSACTION",
    "prepare": "PREPARE p AS SELECT 1",
    "explain_analyze": "EXPLAIN ANALYZE SELECT * FROM ratings",
    "pivot_statement": "PIVOT ratings ON dimension USING count(*)",
    "second_statement": "SELECT 1; DROP TABLE ratings",
    "second_statement_after_line_comment": "SELECT 1 -- ;\n; DELETE FROM ratings",
    "second_statement_after_block_comment": "SELECT 1; /* harmless */ DELETE FROM ratings",
    "semicolon_inside_comment": "SELECT 1 /* ; */ ; COPY ratings TO '{dir}/out.csv'",
    "comment_before_copy": "/* SELECT */ COPY ratings TO '{dir}/out.csv'",
    "comment_before_read": "-- SELECT 1\nSELECT * FROM read_csv('{dir}/secret.csv')",
    "read_text": "SELECT content FROM read_text('/etc/passwd')",
    "read_blob": "SELECT content FROM read_blob('{dir}/secret.csv')",
    "read_parquet": "SELECT * FROM read_parquet('{dir}/secret.parquet')",
    "read_json": "SELECT * FROM read_json('{dir}/secret.csv')",
    "read_ndjson_objects": "SELECT * FROM read_ndjson_objects('{dir}/secret.csv')",
    "parquet_metadata": "SELECT * FROM parquet_metadata('{dir}/secret.parquet')",
    "sniff_csv": "SELECT * FROM sniff_csv('{dir}/secret.csv')",
    "glob": "SELECT * FROM glob('/etc/*')",
    "getenv": "SELECT getenv('HOME')",
    "current_setting": "SELECT current_setting('temp_directory')",
    "getvariable": "SELECT getvariable('f')",
    "write_log": "SELECT write_log('x')",
    "nextval": "SELECT nextval('seq')",
    "sleep": "SELECT sleep_ms(100000)",
    "json_serialize_plan": "SELECT json_serialize_plan('SELECT * FROM read_csv(''{dir}/secret.csv'')')",
    "query_function": "SELECT * FROM query('SELECT * FROM read_csv(''{dir}/secret.csv'')')",
    "query_table": "SELECT * FROM query_table('meta')",
    "execute_serialized_sql": "SELECT * FROM json_execute_serialized_sql('{{}}')",
    "duckdb_settings": "SELECT * FROM duckdb_settings()",
    "duckdb_secrets": "SELECT * FROM duckdb_secrets()",
    "duckdb_extensions": "FROM duckdb_extensions()",
    "system_catalog_function": "SELECT * FROM system.main.duckdb_settings()",
    "schema_qualified_function": "SELECT main.upper('x')",
    "information_schema": "SELECT * FROM information_schema.tables",
    "system_view": "SELECT * FROM duckdb_tables",
    "other_catalog": "SELECT * FROM memory.main.x",
    "temp_catalog": "SELECT * FROM temp.main.stage_ratings",
    "bookkeeping_table": "SELECT * FROM meta",
    "migrations_table": "TABLE schema_migrations",
    "cte_wrapping_read_parquet": "WITH p AS (SELECT * FROM read_parquet('{dir}/secret.parquet')) SELECT * FROM p",
    "subquery_wrapping_read_json": "SELECT * FROM (SELECT * FROM read_json('{dir}/secret.csv')) AS s",
    "scalar_subquery_read": "SELECT (SELECT max(a) FROM read_csv('{dir}/secret.csv'))",
    "in_subquery_read": "SELECT * FROM ratings WHERE task_id IN (FROM read_csv('{dir}/secret.csv') SELECT a)",
    "lateral_table_function": "SELECT * FROM ratings AS r, LATERAL read_csv(r.comment)",
    "table_function_in_join": "SELECT * FROM ratings JOIN read_csv_auto('{dir}/secret.csv') AS s ON true",
    "union_with_read": "SELECT task_id FROM ratings UNION ALL SELECT content FROM read_text('{dir}/secret.csv')",
    "order_by_subquery_read": "SELECT * FROM ratings ORDER BY (SELECT count(*) FROM read_csv('{dir}/secret.csv'))",
    "lambda_with_read": "SELECT list_transform([1], x -> (SELECT count(*) FROM read_csv('{dir}/secret.csv')))",
    "columns_lambda_read": "SELECT COLUMNS(c -> c IN (SELECT a FROM read_csv('{dir}/secret.csv'))) FROM ratings",
    "mixed_case": "SELECT * FROM ReAd_CsV('{dir}/secret.csv')",
    "quoted_function": "SELECT * FROM \"read_csv\"('{dir}/secret.csv')",
    "quoted_mixed_case_function": "SELECT * FROM \"ReAd_CsV\"('{dir}/secret.csv')",
    "read_csv_as_scalar": "SELECT read_csv('{dir}/secret.csv')",
    "describe_file": "DESCRIBE '{dir}/secret.csv'",
    "summarize_read": "SUMMARIZE SELECT * FROM read_csv('{dir}/secret.csv')",
    "show_tables": "SHOW TABLES",
    "cte_named_like_file": 'WITH "{dir}/secret.csv" AS (FROM "{dir}/secret.csv") FROM "{dir}/secret.csv"',
    "cte_forward_reference": "WITH a AS (FROM secret_frame), secret_frame AS (SELECT 1) FROM a",
    "cte_out_of_scope": "SELECT * FROM (WITH secret_frame AS (SELECT 1) SELECT 1) AS x, secret_frame",
    "cte_self_reference": "WITH secret_frame AS (FROM secret_frame) FROM secret_frame",
    "recursive_cte_anchor_self_reference": "WITH RECURSIVE secret_frame AS (FROM secret_frame UNION ALL SELECT 1) FROM secret_frame",
    "python_variable_scan": "SELECT * FROM secret_frame",
    "view_reading_a_file": "SELECT * FROM file_view",
    "nested_too_deep_to_check": "SELECT 1 FROM " + "(SELECT 1 FROM " * 400 + "ratings" + ")" * 400,
    "ingest_view": "SELECT * FROM canonical_input",
}


def _sql(template: str, tmp_path: Path) -> str:
    return template.replace("{dir}", str(tmp_path)).replace("{{}}", "{}")


@pytest.mark.parametrize("template", list(ESCAPES.values()), ids=list(ESCAPES))
def test_escape_is_refused_in_one_line(shared, template):
    loaded, folder = shared
    secret_frame = pd.DataFrame({"a": [SECRET]})  # a Python replacement scan would find this local
    query = _sql(template, folder)
    with pytest.raises(QueryRefused):
        check_query(loaded.cursor(), query)
    result = run_query(loaded, query)
    assert result.error and "\n" not in result.error and "Traceback" not in result.error
    assert result.frame.empty and SECRET not in result.error
    assert secret_frame is not None


def test_refusals_say_why(shared):
    """A few messages, read as a user reads them."""
    loaded, tmp_path = shared
    assert "reads files" in run_query(loaded, f"SELECT * FROM read_csv('{tmp_path}/secret.csv')").error
    assert "looks like a file" in run_query(loaded, "FROM '/etc/passwd'").error
    assert "read-only" in run_query(loaded, "DELETE FROM ratings").error
    assert "One statement at a time" in run_query(loaded, "SELECT 1; SELECT 2").error
    assert "COPY" in run_query(loaded, f"COPY ratings TO '{tmp_path}/out.csv'").error
    assert "not one of the store's tables" in run_query(loaded, "SELECT * FROM meta").error
    assert "Type a query" in run_query(loaded, "  -- nothing\n").error


def test_store_is_unchanged_and_nothing_written(loaded, tmp_path):
    before = (store.dataset_version(loaded), store.table_counts(loaded))
    for template in ESCAPES.values():
        run_query(loaded, _sql(template, tmp_path))
    for query in sql.EXAMPLE_QUERIES.values():
        run_query(loaded, query)
    assert (store.dataset_version(loaded), store.table_counts(loaded)) == before
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "export").exists()
    assert not (tmp_path / "other.duckdb").exists()
    assert loaded.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'x'").fetchall() == [(0,)]


def test_macros_in_the_store_that_shadow_built_ins_are_refused(loaded, tmp_path):
    secret = tmp_path / "secret.csv"
    loaded.execute(f"CREATE MACRO lower(x) AS (SELECT max(a) FROM read_csv('{secret}'))")
    loaded.execute(f"CREATE MACRO range(x) AS TABLE SELECT * FROM read_csv('{secret}')")
    # A stored macro that would fake the syntax tree, and one that would fake the table list.
    loaded.execute("""CREATE MACRO json_serialize_sql(x) AS '{"error": false, "statements": [{"node": {}}]}'""")
    loaded.execute("CREATE MACRO current_database() AS 'system'")
    assert "reads files" in run_query(loaded, f"FROM read_csv('{secret}')").error
    for query in ["SELECT lower('X')", "SELECT * FROM range(3)", "SELECT current_database()"]:
        result = run_query(loaded, query)
        assert "redefined in this store" in result.error and result.frame.empty
    assert run_query(loaded, "SELECT upper('x') AS u").frame["u"].tolist() == ["X"]


def test_good_queries_return_rows(shared):
    loaded, _ = shared
    result = run_query(loaded, "SELECT rater_id, count(*) AS n FROM ratings GROUP BY rater_id ORDER BY rater_id")
    assert result.ok and not result.truncated
    assert result.columns == ("rater_id", "n")
    assert result.frame.to_dict("list") == {"rater_id": ["c1", "c2", "r1"], "n": [3, 1, 2]}
    assert result.elapsed >= 0


@pytest.mark.parametrize(
    "query",
    [
        "WITH c AS (SELECT * FROM ratings WHERE role = 'contractor') SELECT count(*) FROM c",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r",
        "FROM ratings SELECT DISTINCT task_id ORDER BY ALL",
        "SELECT task_id, row_number() OVER (PARTITION BY task_id ORDER BY rater_id) FROM ratings",
        "SELECT * FROM range(3) AS r, unnest([1, 2]) AS u(x)",
        "SELECT unnest(levels) FROM dimensions WHERE is_primary",
        "SELECT s.task_id, j.key, j.value FROM submissions AS s, json_each(s.flags) AS j",
        "SELECT upper(rater_id), value::INTEGER + 1, extract(year FROM submitted_at) FROM ratings",
        "SELECT list_transform([1, 2], lambda x: x * 2), {'a': 1}.a, [1, 2, 3][1:2], coalesce(NULL, 1)",
        "SELECT median(value_num), quantile_cont(value_num, 0.5), count(*) FILTER (WHERE value = '4') FROM ratings",
        "SELECT task_id FROM ratings WHERE task_id IN (SELECT task_id FROM tasks) OR EXISTS (SELECT 1 FROM quarantine)",
        "SELECT * FROM ratings AS a JOIN ratings AS b USING (task_id) WHERE a.rater_id < b.rater_id",
        "DESCRIBE ratings",
        "SUMMARIZE ratings",
        "SELECT * FROM main.ratings",
        "VALUES (1, 'a'), (2, 'b')",
        "SELECT 1; -- a trailing comment is fine",
        "SELECT 1 /* ; */",
        "SELECT * FROM review_notes",
    ],
)
def test_ordinary_queries_pass_the_checks(shared, query):
    loaded, _ = shared
    result = run_query(loaded, query)
    assert result.ok, result.error


def test_row_limit_truncates_and_keeps_order(shared):
    loaded, _ = shared
    result = run_query(loaded, "SELECT range AS n FROM range(25000) ORDER BY n DESC", max_rows=10_000)
    assert result.truncated and len(result.frame) == 10_000
    assert result.frame["n"].iloc[0] == 24_999 and result.frame["n"].iloc[-1] == 15_000
    exact = run_query(loaded, "SELECT * FROM range(10000)", max_rows=10_000)
    assert not exact.truncated and len(exact.frame) == 10_000
    empty = run_query(loaded, "SELECT * FROM ratings WHERE false")
    assert empty.ok and empty.frame.empty and list(empty.frame.columns) == list(empty.columns)


def test_time_limit_interrupts_a_slow_query(loaded):
    slow = "SELECT sum(a.range * b.range) FROM range(1000000) AS a, range(1000000) AS b"
    result = run_query(loaded, slow, timeout_s=0.5)
    assert result.error and "longer than 0.5 s" in result.error and "\n" not in result.error
    assert run_query(loaded, "SELECT count(*) AS n FROM ratings").frame["n"].tolist() == [6]
    assert loaded.execute("SELECT count(*) FROM ratings").fetchall() == [(6,)]


def test_query_errors_come_back_as_one_line(shared):
    loaded, _ = shared
    result = run_query(loaded, "SELECT no_such_column FROM ratings")
    assert result.error.startswith("Binder Error") and "\n" not in result.error
    syntax = run_query(loaded, "SELEC 1")
    assert syntax.error.startswith("Parser Error") and "\n" not in syntax.error
    assert "Conversion Error" in run_query(loaded, "SELECT 'x'::INTEGER").error


def test_ingest_still_works_after_explore(loaded, tmp_path):
    for query in [
        "SELECT * FROM ratings",
        f"FROM '{tmp_path}/secret.csv'",
        "SELECT sleep_ms(1)",
        "DELETE FROM ratings",
    ]:
        run_query(loaded, query)
    run_query(loaded, "SELECT sum(a.range * b.range) FROM range(1000000) AS a, range(1000000) AS b", timeout_s=0.2)
    more = tmp_path / "more.csv"
    more.write_text(MORE_CSV)
    result = ingest_file(loaded, more)
    assert result.status == "loaded" and result.rows_loaded == 1
    assert loaded.execute("SELECT count(*) FROM read_csv(?)", [str(more)]).fetchall() == [(1,)]
    assert run_query(loaded, "SELECT count(*) AS n FROM ratings").frame["n"].tolist() == [7]


def test_execution_layer_alone_refuses_writes(loaded):
    """Layer 3 without layers 1 and 2: the read-only transaction stops a write that got past the checks."""
    cur = loaded.cursor()
    table, meta = sql._execute(cur, "DELETE FROM ratings", 100, 5.0)
    cur.close()
    assert table is None and "read-only" in meta["error"] and "\n" not in meta["error"]
    assert loaded.execute("SELECT count(*) FROM ratings").fetchall() == [(6,)]


def test_instance_cannot_pull_extensions_after_a_query(shared):
    loaded, _ = shared
    run_query(loaded, "SELECT 1")
    settings = dict(
        loaded.execute(
            "SELECT name, value FROM duckdb_settings() WHERE name IN "
            "('autoinstall_known_extensions', 'autoload_known_extensions')"
        ).fetchall()
    )
    assert settings == {"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"}


def test_explore_sees_only_committed_data(loaded, tmp_path):
    loaded.execute("BEGIN TRANSACTION")
    loaded.execute("DELETE FROM ratings")
    loaded.execute("CREATE TEMP TABLE stage_ratings AS SELECT 1 AS a")
    assert run_query(loaded, "SELECT count(*) AS n FROM ratings").frame["n"].tolist() == [6]
    assert run_query(loaded, "SELECT * FROM stage_ratings").error
    loaded.execute("ROLLBACK")


def test_example_queries(shared):
    """Expected figures are counted by hand from RATINGS_CSV and the two submissions of the fixture."""
    loaded, _ = shared
    results = {name: run_query(loaded, query) for name, query in sql.EXAMPLE_QUERIES.items()}
    assert all(r.ok for r in results.values()), {n: r.error for n, r in results.items()}
    weekly = results["Agreement with researchers by ISO week"].frame
    # 2026-W10: c1 equals r1 on t1, c2 does not -> 1 of 2 pairs; 2026-W11: c1 differs on t2 -> 0 of 1.
    assert weekly["iso_week"].tolist() == ["2026-W10", "2026-W11"]
    assert weekly["pairs"].tolist() == [2, 1]
    assert weekly["share_equal"].tolist() == pytest.approx([0.5, 0.0])
    one = results["One contractor against researchers on the primary dimension"].frame
    # c1 rated most; on t2 it said 5 against r1's 2 (3 steps), on t1 both said 4.
    assert one["contractor"].unique().tolist() == ["c1"]
    assert one["task_id"].tolist() == ["t2", "t1"] and one["steps_apart"].tolist() == [3, 0]
    flagged = results["Tasks flagged as not making sense"].frame
    assert flagged["task_id"].tolist() == ["t9"] and flagged["does_not_make_sense"].tolist() == [True]


def test_schema_lists_store_tables_without_bookkeeping(shared):
    loaded, _ = shared
    frame = sql.schema(loaded)
    assert list(frame.columns) == ["table", "column", "type"]
    tables = set(frame["table"])
    assert {"ratings", "tasks", "task_items", "submissions", "dimensions", "quarantine", "ingest_log"} <= tables
    assert not tables & {"meta", "schema_migrations", "file_view", "canonical_input"}
    ratings = frame[frame["table"] == "ratings"]
    assert ratings["column"].iloc[0] == "task_id" and "value" in ratings["column"].tolist()


def test_function_allow_list_is_builtin_and_excludes_refused(con):
    names = {
        r[0].lower()
        for r in con.execute(
            "SELECT function_name FROM duckdb_functions() WHERE internal AND function_type IN "
            "('scalar', 'aggregate', 'window', 'macro')"
        ).fetchall()
    }
    table_functions = {
        r[0]
        for r in con.execute("SELECT function_name FROM duckdb_functions() WHERE function_type = 'table'").fetchall()
    }
    allowed = sql.allowed_functions()
    assert allowed - names <= {"unnest", "unlist"}  # the parser's own names for UNNEST
    assert not allowed & set(sql.REFUSED_FUNCTIONS)
    assert not {n for n in allowed if n.startswith(("read_", "parquet_", "glob", "sniff_", "duckdb_"))}
    assert sql.TABLE_FUNCTIONS <= table_functions


# Facts about DuckDB 2.0 that the module's design rests on (see its docstring).


def test_fact_no_second_instance_on_the_store_file(con, tmp_path):
    path = str(tmp_path / "store.duckdb")
    with pytest.raises(duckdb.Error):
        duckdb.connect(path, read_only=True)
    other = duckdb.connect()
    with pytest.raises(duckdb.Error):
        other.execute(f"ATTACH '{path}' AS s (READ_ONLY)")
    other.close()


def test_fact_external_access_is_instance_wide_and_final(tmp_path):
    csv = tmp_path / "x.csv"
    csv.write_text("a\n1\n")
    main = duckdb.connect(str(tmp_path / "fact.duckdb"))
    main.cursor().execute("SET enable_external_access = false")
    with pytest.raises(duckdb.Error, match="disabled"):
        main.execute("SELECT * FROM read_csv(?)", [str(csv)])
    with pytest.raises(duckdb.Error, match="Cannot enable external access"):
        main.execute("SET enable_external_access = true")
    scopes = dict(main.execute("SELECT name, scope FROM duckdb_settings()").fetchall())
    assert scopes["enable_external_access"] == "GLOBAL"
    main.close()
