"""`--engine spark` when Spark cannot run: one clear line and exit 2, never a JVM stack trace; other commands
refuse it until they support it. None of these start Spark."""

from __future__ import annotations

import csv
import sys

import pytest

from analytics.cli.main import main


@pytest.fixture
def ratings(tmp_path) -> str:
    path = tmp_path / "ratings.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([["task_id", "rater_id", "dimension", "value"], ["t1", "r1", "score", "3"]])
    return str(path)


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "Py4J" not in err, err
    return err


def test_without_pyspark_it_says_how_to_install_it(ratings, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)  # import fails as when pyspark is not installed
    assert main(["agreement", ratings, "--engine", "spark"]) == 2
    assert "pip install -r requirements-spark.txt" in _one_line(capsys)


def test_without_the_spark_extra_at_all_it_says_so(ratings, capsys, monkeypatch):
    for name in [m for m in sys.modules if m.startswith("analytics.engines.spark")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "sqlglot", None)
    assert main(["agreement", ratings, "--engine", "spark"]) == 2
    assert "requirements-spark.txt" in _one_line(capsys)


def test_without_java_it_says_how_to_install_it(ratings, capsys, monkeypatch, tmp_path):
    pytest.importorskip("pyspark", reason="the Spark extra is not installed")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-java"))
    assert main(["agreement", ratings, "--engine", "spark"]) == 2
    err = _one_line(capsys)
    assert "needs Java" in err and "openjdk-17-jre-headless" in err


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--spark-master", "spark://127.0.0.1:9"], {}, "cannot reach the Spark master spark://127.0.0.1:9"),
        ([], {"SPARK_REMOTE": "sc://127.0.0.1:9"}, "cannot reach the Spark Connect server sc://127.0.0.1:9"),
    ],
)
def test_an_unreachable_master_is_one_line(ratings, capsys, monkeypatch, args, env, message):
    pytest.importorskip("pyspark", reason="the Spark extra is not installed")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert main(["agreement", ratings, "--engine", "spark", *args]) == 2
    assert message in _one_line(capsys)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ingest", "x.csv", "--engine", "spark"], "supported by 'agreement' only"),
        (["demo", "--engine", "spark"], "supported by 'agreement' only"),
        (["datasets", "--engine", "spark"], "supported by 'agreement' only"),
        (["consistency", "--engine", "spark"], "supported by 'agreement' only"),
        (["effects", "--engine", "spark"], "supported by 'agreement' only"),
        (["model", "--engine", "spark"], "supported by 'agreement' only"),
        (["report", "--rater", "c1", "--format", "md", "--engine", "spark"], "supported by 'agreement' only"),
        (["agreement", "--spark-table", "t"], "apply to --engine spark"),
        (["agreement", "--engine", "spark"], "canonical FILEs or --spark-table NAME"),
        (["agreement", "--engine", "spark", "--format", "wide", "x.csv"], "no such file"),
    ],
)
def test_what_the_spark_engine_does_not_do_is_refused_in_one_line(capsys, argv, message):
    assert main(argv) == 2
    assert message in _one_line(capsys)


def test_a_format_other_than_canonical_is_refused(ratings, capsys):
    assert main(["agreement", ratings, "--engine", "spark", "--format", "wide"]) == 2
    assert "canonical format only" in _one_line(capsys)
