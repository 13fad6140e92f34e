"""`agreement --engine spark`: the same figures as DuckDB's, to 1e-9, on every reference case and the demo.

One Spark session (local mode) serves the whole module. Two checks over the same input, the reference cases of
../shared/reference (each its own rubric) and a sixth of the demo store's tasks (all their ratings, every rubric)
written out as canonical Parquet:
- every named query the DuckDB computation ran against the ratings gives the same rows on Spark (the
  transpiler's silence is not trusted: a dropped ORDER BY or a changed type shows here);
- the command line's JSON (every dimension, coefficient, rater, pair and interval) is the same, key for key.
Outside CI the module skips when pyspark or Java is missing; on CI it fails instead (CI installs both).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import shared_path

from analytics import agreement, store
from analytics.agreement.contract import differences
from analytics.agreement.engine import DataFrameEngine
from analytics.cli.main import main
from analytics.core.filters import Filters
from analytics.ingest.load import ingest_file

if os.environ.get("CI") != "true":
    pytest.importorskip("pyspark", reason="the Spark extra is not installed (pip install -r requirements-spark.txt)")
    if not shutil.which("java") and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java for Spark here (apt-get install openjdk-17-jre-headless)", allow_module_level=True)

from analytics.engines.spark import dialect, engine, session  # noqa: E402

# Each query runs on Spark's JVM as well as DuckDB: the whole payload took over 120 s with the machine's load
# average at 16 (other work running), so the module's tests have 600 s.
pytestmark = pytest.mark.timeout(600)

COLS = ["task_id", "rater_id", "role", "rubric", "dimension", "target", "value"]
# Units x raters files (first column the unit, empty cell missing); the first rater is made the researcher so
# that the contractor-researcher figures are compared too.
UNITS_BY_RATERS = (
    "krippendorff2011_A_binary_2coders_10units.csv",
    "krippendorff2011_B_nominal_2coders_12units.csv",
    "krippendorff2011_CDEF_4coders_12units_missing.csv",
    "wikipedia_krippendorff_3coders_15units_missing.csv",
    "fleiss1971_diagnoses_30patients_6raters.csv",
    "irr_anxiety_20subjects_3raters.csv",
    "irrcac/cac.raw4raters.csv",
)
# Contingency tables: rater 1's labels down, rater 2's across.
TABLES = (
    "artstein_poesio_2008_table1_2x2.csv",
    "sas_example_3x3_table.csv",
    "wikipedia_cohen_2x2_50proposals.csv",
    "irrcac/cont3x3abstractors.csv",
    "irrcac/cont4x4diagnosis.csv",
)
COUNTS = ("fleiss_wikipedia_10subjects_14raters_counts.csv",)  # subjects x categories, cell = raters
# The demo's ratings on one task in DEMO_SHARE (every rubric, dimension, target and role is still there): the
# JVM's time grows with the pairs it forms, and parity is a property of each query, not of the data's size.
DEMO_SHARE = 6
# The test JVMs (the module's session, the Spark Connect server) compile with the client JIT only and collect with
# one thread: a third less CPU on these short runs, beside the other worker's tests, for the same results.
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
EXPORT = """COPY (SELECT task_id, rater_id, role, rubric, dimension, target, value, submitted_at, duration_s,
                         comment, submission_id FROM ratings WHERE hash(task_id) % {share} = 0 ORDER BY ALL)
      TO '{path}' (FORMAT parquet)"""


def _csv(name: str) -> tuple[list[str], list[list[str]]]:
    with open(shared_path("reference", *name.split("/")), newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    return rows[0], rows[1:]


def reference_rows() -> list[list]:
    """Every reference case as canonical rows, one rubric per source file."""
    out: list[list] = []
    for name in UNITS_BY_RATERS:
        head, lines = _csv(name)
        rubric = "ref_" + Path(name).stem.replace(".", "_")
        for line in lines:
            for i, (rater, v) in enumerate(zip(head[1:], line[1:], strict=True)):
                if v.strip():
                    out.append(
                        [line[0], rater, "researcher" if i == 0 else "contractor", rubric, "score", "", v.strip()]
                    )
    for name in TABLES:
        head, lines = _csv(name)
        rubric = "ref_" + Path(name).stem.replace(".", "_")
        for i, line in enumerate(lines):
            for j, n in enumerate(line[1:]):
                for k in range(int(float(n))):
                    unit = f"{i}-{j}-{k}"
                    out.append([unit, "r1", "contractor", rubric, "category", "", line[0]])
                    out.append([unit, "r2", "researcher", rubric, "category", "", head[j + 1]])
    for name in COUNTS:
        head, lines = _csv(name)
        rubric = "ref_" + Path(name).stem
        for line in lines:
            labels = [cat for cat, n in zip(head[1:], line[1:], strict=True) for _ in range(int(n))]
            out += [[line[0], f"p{r}", "contractor", rubric, "category", "", v] for r, v in enumerate(labels)]
    return out


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, demo_store) -> list[str]:
    """The reference cases as a canonical CSV and a share of the demo store's tasks as canonical Parquet."""
    d = tmp_path_factory.mktemp("spark_inputs")
    ref = d / "reference_cases.csv"
    with open(ref, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLS)
        w.writerows(reference_rows())
    demo = d / "demo.parquet"
    con = store.open_store(demo_store, read_only=True)
    con.execute(EXPORT.format(path=demo, share=DEMO_SHARE))
    rubrics = "SELECT DISTINCT rubric FROM {} ORDER BY 1"
    assert con.execute(rubrics.format(f"'{demo}'")).fetchall() == con.execute(rubrics.format("ratings")).fetchall()
    con.close()
    return [str(ref), str(demo)]


@pytest.fixture(scope="module")
def spark():
    """One local Spark session for the module (two cores, few shuffle partitions: the inputs are small; the JVM
    with JVM_OPTIONS)."""
    os.environ.setdefault("CONCORD_SPARK_PARTITIONS", "2")
    os.environ.setdefault("JDK_JAVA_OPTIONS", JVM_OPTIONS)
    s = session.start("local[2]")
    yield s


@pytest.fixture(scope="module")
def both(spark, inputs):
    """The inputs on both engines: (DuckDB connection, Spark connection, what Spark kept)."""
    con = store.open_store(":memory:")
    for f in inputs:
        result = ingest_file(con, f)
        assert result.status == "loaded" and result.rows_quarantined == 0, result.errors
    sc, loaded = engine.open_files(spark, inputs)
    yield con, sc, loaded
    con.close()
    sc.close()


class Recorder(DataFrameEngine):
    """A connection that keeps every statement's result rows, by statement and parameters (an Engine that lists
    every pairing's task signatures, as the Spark engine does)."""

    def __init__(self, con) -> None:
        self.con, self.results = con, {}

    def execute(self, sql, params=None):
        result = self.con.execute(sql, params) if params is not None else self.con.execute(sql)
        if not engine.reads_spark(sql):
            return result
        frame = result.df()
        rows = _plain(frame)
        if dialect.parse(sql).args.get("order") is None:  # a set of rows (the stamp's dimensions used)
            rows = sorted(rows, key=json.dumps)
        self.results[(sql, repr(params))] = rows
        return engine.Fetched(frame)


def _plain(df) -> list:
    """A result frame as comparable rows (numpy arrays and scalars as Python lists and numbers)."""
    return json.loads(df.to_json(orient="values", double_precision=15))


def test_the_kept_rows_are_the_stores(both):
    con, sc, loaded = both
    assert loaded.rows_refused == 0
    assert loaded.rows_loaded == con.execute("SELECT count(*) FROM ratings").fetchall()[0][0]
    q = "SELECT rubric, dimension, target, value_index, count(*) AS n FROM ratings GROUP BY ALL ORDER BY ALL"
    assert sc.execute(q).fetchall() == con.execute(q).fetchall()
    pairs = "SELECT rubric, dimension, count(*) AS n FROM reference_pairs GROUP BY ALL ORDER BY ALL"
    assert sc.execute(pairs).fetchall() == con.execute(pairs).fetchall()


def test_every_named_query_and_the_whole_payload_are_the_same_on_spark(both):
    con, sc, _ = both
    duck_queries, spark_queries = Recorder(con), Recorder(sc)
    duck = agreement.contract_payload(
        duck_queries,
        agreement.AgreementSpec(coarse=False, level=None, n_boot=200, seed=3, filters=Filters()),
        pairs=True,
    )
    spark = agreement.contract_payload(
        spark_queries,
        agreement.AgreementSpec(coarse=False, level=None, n_boot=200, seed=3, filters=Filters()),
        pairs=True,
    )
    # every named query the computation ran against the ratings gave the same rows on Spark
    assert len(duck_queries.results) >= 12  # value patterns, level counts, every pairing grain, rankings, anonymous
    assert duck_queries.results.keys() == spark_queries.results.keys()
    for key, rows in duck_queries.results.items():
        assert not differences(rows, spark_queries.results[key]), (
            key[0][:300],
            differences(rows, spark_queries.results[key])[:5],
        )
    # and every figure of the command line's JSON, intervals included (same seed, same resamples)
    duck.pop("stamp"), spark.pop("stamp")
    assert len(duck["dimensions"]) >= 20 and duck["raters"] and duck["ceiling"] and duck["rater_pairs"]
    assert not differences(duck, spark), differences(duck, spark)[:10]


# Two reference cases for the tests of the command line's own path (the payload test above compares every case).
CLI_RUBRICS = {"ref_krippendorff2011_CDEF_4coders_12units_missing", "ref_artstein_poesio_2008_table1_2x2"}


def test_the_command_line_prints_the_duckdb_figures(spark, tmp_path, capsys):
    rows = [row for row in reference_rows() if row[3] in CLI_RUBRICS]
    assert {row[3] for row in rows} == CLI_RUBRICS
    path = tmp_path / "cases.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([COLS, *rows, ["t1", "x", "contractor", "ref_bad", "score", "", "NaN"]])
    assert main(["agreement", str(path), "--json", "--n-boot", "100"]) == 0
    duck = json.loads(capsys.readouterr().out)
    assert main(["agreement", str(path), "--json", "--n-boot", "100", "--engine", "spark"]) == 0
    out = capsys.readouterr()
    on_spark = json.loads(out.out)
    assert on_spark.pop("engine") == "spark" and duck.pop("engine") == "duckdb"
    duck.pop("stamp"), on_spark.pop("stamp")
    assert not differences(duck, on_spark)
    assert "1 row(s) not used, e.g. value NaN is not a finite number" in out.err


def test_a_spark_table_is_read_as_the_files_are(spark, inputs, both, capsys):
    con, sc, _ = both
    spark.read.parquet(inputs[1]).createOrReplaceTempView("lakehouse_ratings")
    table, loaded = engine.open_table(spark, "lakehouse_ratings")
    q = "SELECT rubric, dimension, value_index, count(*) AS n FROM ratings WHERE rubric NOT LIKE 'ref_%' GROUP BY ALL ORDER BY ALL"
    assert loaded.rows_refused == 0 and table.execute(q).fetchall() == con.execute(q).fetchall()
    assert main(["agreement", "--engine", "spark", "--spark-table", "no_such_table"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("Spark has no table no_such_table") and len(err.splitlines()) == 1


def test_a_url_is_read_by_spark_with_the_filters_and_a_missing_one_is_one_line(spark, inputs, capsys):
    only = ["--rubric", "ref_irr_anxiety_20subjects_3raters", "--dimension", "score", "--json", "--n-boot", "50"]
    assert main(["agreement", inputs[0], *only]) == 0
    duck = json.loads(capsys.readouterr().out)
    assert main(["agreement", f"file://{inputs[0]}", "--engine", "spark", *only]) == 0
    on_spark = json.loads(capsys.readouterr().out)
    duck.pop("stamp"), on_spark.pop("stamp"), duck.pop("engine"), on_spark.pop("engine")
    assert [d["rubric"] for d in duck["dimensions"]] == ["ref_irr_anxiety_20subjects_3raters"]
    assert not differences(duck, on_spark)
    assert main(["agreement", "file:///no/such/ratings.parquet", "--engine", "spark"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("file:///no/such/ratings.parquet: Spark cannot read it: [PATH_NOT_FOUND]"), err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("header", "row", "message"),
    [
        (["task_id", "rater_id", "value"], ["t1", "r1", "3"], "missing required column dimension"),
        (
            ["task_id", "rater_id", "dimension", "value", "shown_first"],
            ["t1", "r1", "usefulness_comparison", "Left better", "A"],
            "shown_first column",
        ),
        (
            ["task_id", "rater_id", "dimension", "value"],
            ["t1", "r1", "usefulness_comparison", "Left better"],
            "clicked",
        ),
    ],
)
def test_input_spark_cannot_read_as_the_store_does_is_one_line_and_exit_2(
    spark, tmp_path, capsys, header, row, message
):
    path = tmp_path / "in.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([header, row])
    assert main(["agreement", str(path), "--engine", "spark"]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def connect_server(tmp_path_factory):
    """A Spark Connect server in local mode, started from the pinned pyspark's own spark-submit (docs/scale-out.md
    starts one the same way on a cluster's driver host)."""
    import pyspark

    home = Path(pyspark.__file__).parent
    port = _free_port()
    log = tmp_path_factory.mktemp("connect") / "server.log"
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "JDK_JAVA_OPTIONS": JVM_OPTIONS}
    with open(log, "w") as out:
        server = subprocess.Popen(
            [str(home / "bin" / "spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
             "--master", "local[2]", "--conf", f"spark.connect.grpc.binding.port={port}",
             "--conf", "spark.sql.session.timeZone=UTC", "--conf", "spark.ui.enabled=false",
             "--conf", "spark.sql.shuffle.partitions=2"],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )  # fmt: skip
    try:
        for _ in range(240):
            if "Spark Connect server started" in log.read_text():
                break
            assert server.poll() is None, log.read_text()[-2000:]
            time.sleep(0.5)
        else:
            pytest.fail(f"the Spark Connect server did not start in 120 s: {log.read_text()[-2000:]}")
        yield f"sc://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


@pytest.mark.slow
def test_spark_connect_gives_the_same_figures(connect_server, inputs, tmp_path):
    """SPARK_REMOTE: the whole command in its own process, against a server, as on a cluster."""
    one = ["--rubric", "ref_krippendorff2011_CDEF_4coders_12units_missing"]  # each query is a round trip
    run = [sys.executable, "-m", "analytics", "agreement", inputs[0], *one, "--json", "--n-boot", "50"]
    env = {**os.environ, "SPARK_REMOTE": connect_server}
    remote = subprocess.run([*run, "--engine", "spark"], capture_output=True, text=True, env=env, timeout=600)
    assert remote.returncode == 0, remote.stderr[-2000:]
    local = subprocess.run(run, capture_output=True, text=True, timeout=600)
    on_spark, duck = json.loads(remote.stdout), json.loads(local.stdout)
    assert on_spark.pop("engine") == "spark" and duck.pop("engine") == "duckdb"
    on_spark.pop("stamp"), duck.pop("stamp")
    assert duck["dimensions"] and not differences(duck, on_spark)


def test_results_come_back_as_rows_never_through_pandas_conversion(both, monkeypatch):
    """pyspark does not fully support pandas 3 (pinned here): no result may pass through toPandas."""
    from pyspark.sql import DataFrame

    def refuse(self):
        raise AssertionError("a Spark result went through toPandas")

    monkeypatch.setattr(DataFrame, "toPandas", refuse)
    con, sc, _ = both
    q = "SELECT rubric, count(*) AS n FROM ratings GROUP BY ALL ORDER BY ALL"
    frame = sc.execute(q).df()
    assert frame["n"].dtype.kind == "i" and frame.values.tolist() == con.execute(q).df().values.tolist()
