"""Ratings read by Spark, and a connection that runs the named queries where the data is.

What runs where:
- Spark reads the canonical files (or a table) and keeps the `ratings` view, the `reference_pairs` built from it
  by the store's own pairing SQL (analytics/store/derived/reference_pairs.py), the `reference_tasks` built from those
  (analytics/store/derived/reference_tasks.py), the `rater_tasks` (analytics/store/derived/rater_tasks.py) and the `level_counts`
  (analytics/store/derived/level_counts.py), and every named query that reads any of them. Only
  their small results (value counts per unit pattern, confusion counts per pair) come back to this process.
- This process keeps the catalogue: the distinct scale combinations of the input (rubric, dimension, target,
  role, value; a few hundred rows whatever the number of ratings) go through the same checks, scale inference
  and key assignment as a load into the store (analytics/ingest/combinations.py), in an in-memory DuckDB store.
  Queries that read only the catalogue (dimensions, meta) run there.

Rows are kept or refused as a load into the store keeps them: the combination checks, the row checks
(ROW_CHECKS, transpiled), and duplicates (a unit a rater rated twice in one file keeps neither; a unit rated in
an earlier file keeps the earlier rating). Task and rater keys are the ids themselves: Spark groups text ids
without the store's integer key tables.
"""

from __future__ import annotations

import decimal
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
from sqlglot import exp

from analytics import store
from analytics.agreement.engine import DataFrameEngine
from analytics.core.queries import Query
from analytics.engines.spark import dialect, session
from analytics.ingest import canonical, combinations, staging
from analytics.store.derived import level_counts, rater_tasks, reference_pairs, reference_tasks

# Tables that live on Spark; a query naming none of them reads only the catalogue and runs in DuckDB.
SPARK_TABLES = frozenset(
    {
        "ratings",
        "reference_pairs",
        "reference_tasks",
        "rater_tasks",
        "level_counts",
        "rater_keys",
        "task_keys",
        "spark_input",
    }
)
# Every view one input keeps on Spark. Each input's views carry a suffix of their own, so that a second input
# read in the same Spark session (a test, a notebook) does not replace the first one's.
COMBOS = "spark_combos"
VIEWS = (*sorted(SPARK_TABLES), "spark_raw", COMBOS, "dimensions", "dimension_keys", "target_keys")
CANONICAL = (*canonical.REQUIRED, *(c for c in canonical.OPTIONAL if c != "shown_first"), "submission_id")


class SparkInputError(ValueError):
    """An input Spark cannot compute on as the store would (a missing column, a clicked comparison)."""


@dataclass
class Loaded:
    """What the input held: rows read, kept as ratings, and refused (with the first reasons)."""

    rows_read: int
    rows_loaded: int
    rows_refused: int
    reasons: list[str]


class SparkResult:
    """One query's rows, fetched from Spark as rows (never through pandas: pyspark does not fully support pandas 3)."""

    def __init__(self, columns: list[str], rows: list[tuple]) -> None:
        self.columns, self.rows = columns, rows

    def df(self) -> pd.DataFrame:
        """The rows as a DataFrame, typed as DuckDB's would be (ints, floats, lists, tuples for structs)."""
        frame = pd.DataFrame.from_records(self.rows, columns=self.columns)
        return frame.infer_objects()

    def fetchall(self) -> list[tuple]:
        """The rows."""
        return self.rows


class Fetched:
    """A result already fetched as a DataFrame, served again (for wrappers that read results on their way: the
    parity tests' recorder, bench/bench_spark.py's timer)."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def df(self) -> pd.DataFrame:
        """The frame."""
        return self.frame

    def fetchall(self) -> list[tuple]:
        """The frame's rows."""
        return list(self.frame.itertuples(index=False, name=None))


class SparkConnection(DataFrameEngine):
    """The subset of a DuckDB connection the agreement computation uses: `execute(sql, params)`, routed to Spark
    when the query reads the ratings, else to the in-memory catalogue store; the pairing's Engine
    (analytics/agreement/engine.py) over it."""

    def __init__(self, spark: Any, catalogue: duckdb.DuckDBPyConnection, views: dict[str, str]) -> None:
        self.spark, self.catalogue, self.views = spark, catalogue, views

    def execute(self, sql: str, params: dict | Sequence | None = None) -> Any:
        """Run a DuckDB statement on the engine that holds its tables."""
        if not reads_spark(sql):
            return self.catalogue.execute(sql, params) if params is not None else self.catalogue.execute(sql)
        bound = params if params is None or isinstance(params, dict) else list(params)
        spark_sql = dialect.to_spark(sql, bound, self.views)
        try:
            frame = self.spark.sql(spark_sql)
            rows = frame.collect()
        except Exception as e:  # noqa: BLE001 - AnalysisException, Py4JJavaError, their Connect twins
            raise dialect.SparkSqlError(f"Spark could not run a query: {session.first_line(e)}") from e
        return SparkResult(list(frame.columns), [tuple(plain(v) for v in row) for row in rows])

    def close(self) -> None:
        """Close the catalogue store (the Spark session stays for the process)."""
        self.catalogue.close()


def reads_spark(sql: str) -> bool:
    """Whether the statement reads a table that lives on Spark."""
    tree = dialect.parse(sql)
    ctes = {c.alias for c in tree.find_all(exp.CTE)}
    return any(t.name in SPARK_TABLES and t.name not in ctes for t in tree.find_all(exp.Table))


def plain(v: Any) -> Any:
    """A value from a Spark row as DuckDB's Python client gives it: structs as tuples, DECIMAL(38, 0) (packed
    counts) as int, arrays as lists."""
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, tuple):  # pyspark's Row is a tuple
        return tuple(plain(x) for x in v)
    return v


def open_files(
    spark: Any, files: list[str], catalogue: duckdb.DuckDBPyConnection | None = None
) -> tuple[SparkConnection, Loaded]:
    """Spark reads canonical Parquet, CSV or JSONL files; the connection computes on their ratings."""
    frames = []
    for i, f in enumerate(files):
        try:
            frames.append(_read(spark, f, i))
        except SparkInputError:
            raise
        except Exception as e:  # noqa: BLE001 - AnalysisException (no such path, unreadable) and its Connect twin
            raise SparkInputError(f"{f}: Spark cannot read it: {session.first_line(e)}") from e
    frame = frames[0]
    for other in frames[1:]:
        frame = frame.unionByName(other)
    return _open_checked(spark, frame, catalogue, ", ".join(files))


def open_table(
    spark: Any, table: str, catalogue: duckdb.DuckDBPyConnection | None = None
) -> tuple[SparkConnection, Loaded]:
    """A table Spark knows (a lakehouse or warehouse table of canonical ratings) as the input."""
    try:
        frame = spark.table(table)
        frame.columns  # noqa: B018 - Spark Connect resolves a table only when asked for its columns
    except Exception as e:  # noqa: BLE001 - AnalysisException and its Connect twin
        raise SparkInputError(f"Spark has no table {table}: {session.first_line(e)}") from e
    return _open_checked(spark, _canonical_columns(frame, table).selectExpr("*", "0 AS file_index"), catalogue, table)


def _open_checked(spark: Any, frame: Any, catalogue: duckdb.DuckDBPyConnection | None, name: str) -> tuple:
    """`_open`, with what Spark raises while reading (lazily: a file that went away, a malformed Parquet) as one
    SparkInputError naming the input."""
    try:
        return _open(spark, frame, catalogue or store.open_store(":memory:"))
    except (SparkInputError, duckdb.Error):
        raise
    except Exception as e:  # noqa: BLE001 - Py4JJavaError, AnalysisException, SparkConnectGrpcException, ...
        raise SparkInputError(f"{name}: Spark could not read it: {session.first_line(e)}") from e


def _read(spark: Any, path: str, index: int) -> Any:
    """One canonical file as a Spark frame of text columns, with its place in the order of the files."""
    kind = _kind(path)
    if kind == "parquet":
        frame = spark.read.parquet(path)
    elif kind == "jsonl":
        frame = spark.read.option("primitivesAsString", "true").json(path)
    else:
        frame = spark.read.option("header", "true").option("multiLine", "true").option("escape", '"').csv(path)
    return _canonical_columns(frame, path).selectExpr("*", f"{index} AS file_index")


def _kind(path: str) -> str:
    """parquet, jsonl or csv: a local file by its first bytes (as a load into the store decides), a URL that only
    Spark can open (hdfs://, s3a://, ...) by its name."""
    if "://" not in path:
        return canonical._kind(Path(path))
    name = path.lower().rstrip("/")
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    return "csv" if name.endswith((".csv", ".tsv", ".txt")) else "parquet"  # a folder of part files: Parquet


def _canonical_columns(frame: Any, name: str) -> Any:
    """The canonical columns as text (absent optional ones NULL); SparkInputError names a missing one."""
    have = {c.lower(): c for c in frame.columns}
    missing = [c for c in canonical.REQUIRED if c not in have]
    if missing:
        raise SparkInputError(
            f"{name}: missing required column {missing[0]}; a canonical file has the columns {', '.join(canonical.REQUIRED)}"
        )
    if "shown_first" in have:
        raise SparkInputError(
            f"{name}: the shown_first column (clicked left/right comparisons) is read by the DuckDB engine only"
        )
    cols = [f"CAST(`{have[c]}` AS STRING) AS {c}" if c in have else f"CAST(NULL AS STRING) AS {c}" for c in CANONICAL]
    return frame.selectExpr(*cols)


def _open(spark: Any, frame: Any, cat: duckdb.DuckDBPyConnection) -> tuple[SparkConnection, Loaded]:
    """Check the input's scale combinations here, then build the ratings and their pairs on Spark."""
    suffix = uuid.uuid4().hex[:12]
    views = {name: f"{name}_{suffix}" for name in VIEWS}

    def run(sql: str) -> Any:
        return spark.sql(dialect.spark_sql(sql, views))

    frame.createOrReplaceTempView(views["spark_raw"])
    run(INPUT_SQL).createOrReplaceTempView(views["spark_input"])
    combos = run(
        "SELECT file_index, raw_role, raw_rubric, raw_dimension, raw_target, raw_value, count(*) AS n "
        "FROM spark_input GROUP BY ALL ORDER BY file_index"
    ).collect()
    clicked = set(canonical.clicked_spellings())
    for row in combos:
        if row["raw_value"] is not None and " ".join(row["raw_value"].split()).lower() in clicked:
            raise SparkInputError(
                f"value {row['raw_value']!r} is a clicked comparison (left/right), which the DuckDB engine "
                "puts in A/B terms: use --engine duckdb for this file"
            )
    checked = _check_combos(cat, combos)
    spark.createDataFrame(checked, COMBO_SCHEMA).createOrReplaceTempView(views[COMBOS])
    _share_catalogue(spark, cat, views)
    ratings = run(_ratings_sql()).persist()
    ratings.createOrReplaceTempView(views["ratings"])
    kept = ratings.count()
    run("SELECT DISTINCT rater_id AS rater_key, rater_id FROM ratings").createOrReplaceTempView(views["rater_keys"])
    run("SELECT DISTINCT task_id AS task_key, task_id FROM ratings").createOrReplaceTempView(views["task_keys"])
    # The store's own statements filling its kept pairs and the cells per contractor task from them.
    _kept_view(spark, views, "reference_pairs", reference_pairs.CREATE, reference_pairs.migration_statements()[1])
    _kept_view(spark, views, "reference_tasks", reference_tasks.CREATE, reference_tasks.migration_statements()[1])
    _kept_view(spark, views, "rater_tasks", rater_tasks.CREATE, rater_tasks.migration_statements()[1])
    _kept_view(spark, views, "level_counts", level_counts.CREATE, level_counts.migration_statements()[1])
    read = sum(int(r["n"]) for r in combos)
    reasons = [r[0] for r in run(REASONS_SQL).collect()]
    return SparkConnection(spark, cat, views), Loaded(read, kept, read - kept, reasons)


def _kept_view(spark: Any, views: dict[str, str], table: str, create: str, fill: str) -> None:
    """Keep on Spark, as the view of `table`, the SELECT of the store's statement filling it (INSERT INTO `table`
    SELECT ...), named as the table's columns (an INSERT is positional; Spark refuses a view with two columns of
    one name)."""
    names = [c.name for c in dialect.parse(create).find_all(exp.ColumnDef)]
    select = dialect.rename(dialect.transpile(dialect.parse(fill).expression), views).sql(dialect="spark")
    spark.sql(select).toDF(*names).persist().createOrReplaceTempView(views[table])


# The input rows as the store's staging reads them (staging.input_view): ids trimmed, empty as NULL, times parsed.
# Spark's cast of text to TIMESTAMP converts a time with a zone to UTC and reads one without as written (the
# session time zone is UTC), as staging._submitted_ts_sql does.
INPUT_SQL = """SELECT nullif(trim(task_id), '') AS task_id, nullif(trim(rater_id), '') AS rater_id,
    role AS raw_role, rubric AS raw_rubric, dimension AS raw_dimension, target AS raw_target, value AS raw_value,
    submitted_at, try_cast(trim(submitted_at) AS TIMESTAMP) AS submitted_ts, duration_s,
    try_cast(duration_s AS DOUBLE) AS duration, comment, submission_id, file_index
FROM spark_raw"""

COMBO_SCHEMA = (
    "file_index INT, raw_role STRING, raw_rubric STRING, raw_dimension STRING, raw_target STRING, raw_value STRING, "
    "role STRING, rubric STRING, dimension STRING, target STRING, value STRING, value_index INT, value_num DOUBLE, "
    "dim_key INT, target_key INT, combo_problem STRING"
)


STAGE_INPUT_INSERT = Query(
    "stage_input_insert", f"INSERT INTO stage_input VALUES ({', '.join(f'${c}' for c in combinations.COMBO_COLUMNS)})"
)


def _check_combos(cat: duckdb.DuckDBPyConnection, combos: list) -> list[tuple]:
    """Each file's combinations through the store's checks, in file order (a later file can widen an inferred
    scale, as a later load does); value positions are then read on the final scales, as the store updates them."""
    out: list[tuple] = []
    for index in sorted({int(r["file_index"]) for r in combos}):
        rows = [{c: r[c] for c in combinations.COMBO_COLUMNS} for r in combos if int(r["file_index"]) == index]
        cat.execute(
            f"CREATE OR REPLACE TEMP TABLE stage_input ({', '.join(f'{c} VARCHAR' for c in combinations.COMBO_COLUMNS)})"
        )
        STAGE_INPUT_INSERT.run_many(cat, rows)
        cat.execute(
            "CREATE OR REPLACE TEMP TABLE stage_input AS SELECT *, "
            f"hash({', '.join(combinations.COMBO_COLUMNS)}) AS combo_key FROM stage_input"
        )
        combinations.check_combinations(cat, None)
        out += [
            (index, *r)
            for r in cat.execute(
                f"""SELECT {", ".join(combinations.COMBO_COLUMNS)}, role, rubric, dimension, target, value, value_index,
                           value_num, dim_key, target_key, combo_problem FROM stage_combos"""
            ).fetchall()
        ]
    final = {
        (r, d): list(levels)
        for r, d, levels in cat.execute("SELECT rubric, dimension, levels FROM dimensions").fetchall()
    }
    fixed = []
    for row in out:
        rubric, dimension, value, value_index = row[7], row[8], row[10], row[11]
        levels = final.get((rubric, dimension))
        if value_index is not None and levels is not None and value in levels:
            row = (*row[:11], levels.index(value), *row[12:])
        fixed.append(row)
    return fixed


def _share_catalogue(spark: Any, cat: duckdb.DuckDBPyConnection, views: dict[str, str]) -> None:
    """The catalogue tables the aggregation queries join (dimensions and their keys) as Spark views."""
    for table, schema in (
        ("dimension_keys", "dim_key INT, rubric STRING, dimension STRING"),
        ("target_keys", "target_key INT, target STRING"),
        (
            "dimensions",
            "rubric STRING, dimension STRING, label STRING, kind STRING, levels ARRAY<STRING>, "
            "coarse ARRAY<STRING>, targets ARRAY<STRING>, dim_group STRING, is_primary BOOLEAN, "
            "is_comparison BOOLEAN, source STRING, measure STRING, level_values ARRAY<DOUBLE>, missing ARRAY<STRING>",
        ),
    ):
        cols = ", ".join(part.split()[0] for part in schema.split(", "))
        rows = cat.execute(f"SELECT {cols} FROM {table}").fetchall()
        spark.createDataFrame(rows, schema).createOrReplaceTempView(views[table])


def _row_problem_sql() -> str:
    """A condition true for a row with a problem of its own (staging.ROW_CHECKS, the store's own checks)."""
    return " OR ".join(f"({cond})" for _, cond, _ in staging.ROW_CHECKS)


def _ratings_sql() -> str:
    """The kept input rows in the store's ratings columns (keys: the ids themselves; ingest_id: file order)."""
    row_bad = dialect.to_spark(f"SELECT 1 FROM spark_input s WHERE {_row_problem_sql()}").split(" WHERE ", 1)[1]
    on = " AND ".join(f"s.{c} <=> c.{c}" for c in combinations.COMBO_COLUMNS)
    return f"""WITH candidates AS (
    SELECT s.*, c.role, c.rubric, c.dimension, c.target, c.value, c.value_index, c.value_num, c.dim_key,
           c.target_key, ({row_bad}) AS row_bad,
           count(*) OVER (PARTITION BY s.file_index, s.task_id, s.rater_id, c.dim_key, c.target_key) AS n_in_file
    FROM spark_input s JOIN {COMBOS} c ON s.file_index = c.file_index AND {on}
    WHERE c.combo_problem IS NULL AND s.task_id IS NOT NULL AND s.rater_id IS NOT NULL
), valid AS (
    SELECT *, min(file_index) OVER (PARTITION BY task_id, rater_id, dim_key, target_key) AS first_file
    FROM candidates WHERE NOT coalesce(row_bad, false) AND n_in_file = 1
)
SELECT task_id, rater_id, role, rubric, dimension, target, value, value_index, value_num,
       submitted_ts AS submitted_at, duration AS duration_s, comment, submission_id, file_index + 1 AS ingest_id,
       task_id AS task_key, rater_id AS rater_key, dim_key, target_key
FROM valid WHERE file_index = first_file"""


# The first reasons rows were refused for, for the message on stderr (the store's quarantine holds them all).
REASONS_SQL = f"SELECT DISTINCT combo_problem FROM {COMBOS} WHERE combo_problem IS NOT NULL ORDER BY 1 LIMIT 5"
