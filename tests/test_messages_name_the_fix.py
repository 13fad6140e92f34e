"""Messages name the fix, never a repository path (issue #50, item 2). On 6e56436 every limit's quarantine reason
ended "(docs/limits.md)", the Distributions page said "add a shown_first column (docs/formats.md)" and the refusal
of an unconfigured dashboard said "configure sign-in (docs/deploy.md)": whoever reads them on the dashboard or from
the command line has no repository. Each message here is made by the code that users meet, and the source is
scanned for any other string that names a file of the repository."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from analytics.describe import distributions
from analytics.engines.spark import engine as spark_engine
from analytics.ingest import limits
from analytics.ingest.load import ingest_bytes
from analytics.ingest.scales_file import ScalesError, parse_scales
from tests.conftest import ROOT

# A file of the repository: under its documentation, benchmarks, tests or seeds, or any Markdown file.
REPOSITORY_PATH = re.compile(r"\b(docs|bench|tests|seeds)/|\b[\w-]+\.md\b")
HEADER = "task_id,rater_id,rubric,dimension,value,comment\n"
ROWS = "".join(f"t{i},r1,pilot,clarity,{i % 3 + 1},ok\n" for i in range(3))


def deep(levels: int) -> object:
    """A value nested `levels` objects deep."""
    value: object = "bottom"
    for _ in range(levels):
        value = {"k": value}
    return value


def jsonl(*extra: dict) -> bytes:
    """Three good canonical JSONL records, then `extra`."""
    good = [{"task_id": f"t{i}", "rater_id": "r1", "dimension": "clarity", "value": 2} for i in range(3)]
    return "\n".join(json.dumps(o) for o in [*good, *extra]).encode()


BAD = {"task_id": "t9", "rater_id": "r1", "dimension": "clarity", "value": 2}
CASES = {  # a file past each limit of analytics/ingest/limits.py, and the fix its message must name
    "columns": (
        ",".join(["task_id", "rater_id", "dimension", "value", *(f"c{i}" for i in range(limits.MAX_COLUMNS))]).encode()
        + b"\n",
        "wide.csv",
        "split the file into files of fewer columns",
    ),
    "line": (
        (HEADER + ROWS + "t9,r1,pilot,clarity,2," + "x" * (limits.MAX_LINE_BYTES + 10) + "\n").encode(),
        "long.csv",
        "shorten its longest text",
    ),
    "field": (
        (HEADER + ROWS + "t9,r1,pilot,clarity,2," + "y" * (limits.MAX_FIELD_CHARS + 1) + "\n").encode(),
        "field.csv",
        "shorten the text or leave it out of the file",
    ),
    "json field": (
        jsonl({**BAD, "comment": "z" * (limits.MAX_FIELD_CHARS + 1)}),
        "field.jsonl",
        "shorten the text or leave it out of the file",
    ),
    "depth": (jsonl({**BAD, "x": deep(limits.MAX_JSON_DEPTH + 5)}), "deep.jsonl", "fewer levels of nesting"),
    "read depth": (
        jsonl({**BAD, "x": "DEEP"}).replace(b'"DEEP"', b"[" * 5_000 + b"]" * 5_000),
        "abyss.jsonl",
        "nesting",
    ),
    "document depth": (b"[" * 2_000 + b"]" * 2_000, "deep.json", "store its records with fewer levels of nesting"),
}


@pytest.mark.parametrize("case", CASES)
def test_every_limit_names_its_fix_and_no_repository_path(con, case: str) -> None:
    data, name, fix = CASES[case]
    r = ingest_bytes(con, data, name)
    reasons = [*r.errors, *(reason for (reason,) in con.execute("SELECT reason FROM quarantine").fetchall())]
    assert reasons, r
    assert [m for m in reasons if REPOSITORY_PATH.search(m)] == []
    assert any(fix in m for m in reasons), reasons


def test_a_file_over_the_size_limit_names_the_setting_and_who_sets_it(con, monkeypatch) -> None:
    monkeypatch.setenv("CONCORD_MAX_UPLOAD_MB", "1")
    r = ingest_bytes(con, (HEADER + ROWS * 20_000).encode(), "big.csv")
    assert r.status == "rejected"
    assert r.errors[0].endswith(
        "over the limit of 1 MB; split the file, or raise CONCORD_MAX_UPLOAD_MB (a setting of whoever runs the "
        "dashboard or the command)"
    ), r.errors


@pytest.mark.parametrize(
    ("scales", "fix"),
    [
        (b'{"scales": []}' + b" " * (2 << 20), "split it into several files"),
        (
            json.dumps({"scales": [{"dimension": f"d{i}", "level": "nominal", "levels": ["a"]} for i in range(101)]}),
            "split it",
        ),
        (
            json.dumps({"scales": [{"dimension": "d", "level": "nominal", "levels": [str(i) for i in range(1_001)]}]}),
            "declare at most",
        ),
    ],
    ids=["size", "scales", "levels"],
)
def test_a_scales_file_past_a_limit_names_its_fix(scales: bytes | str, fix: str) -> None:
    with pytest.raises(ScalesError) as e:
        parse_scales(scales, "scales.json")
    assert fix in str(e.value) and REPOSITORY_PATH.search(str(e.value)) is None, e.value


def test_position_bias_without_shown_first_says_where_the_column_is_described() -> None:
    assert REPOSITORY_PATH.search(distributions.NO_SHOWN_FIRST) is None
    assert "the Data page's Formats section" in distributions.NO_SHOWN_FIRST


def test_a_spark_input_without_a_required_column_names_the_columns() -> None:
    frame = SimpleNamespace(columns=["task_id", "rater_id", "value"])
    with pytest.raises(spark_engine.SparkInputError) as e:
        spark_engine._canonical_columns(frame, "ratings.csv")
    assert str(e.value) == (
        "ratings.csv: missing required column dimension; a canonical file has the columns task_id, rater_id, "
        "dimension, value"
    )


# Strings that name a repository file and are never shown: a rubric's `document` cites its source (read nowhere
# but the catalogue). PENDING: pages still to be reworded (none now).
NEVER_SHOWN = {("analytics/core/rubrics.py", "document"), ("analytics/core/rubrics.py", "doc")}
PENDING: set[tuple[str, str]] = set()  # none left


def shown_strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that name a repository file and can reach a user: docstrings and
    NEVER_SHOWN's values left out."""
    text = path.read_text()
    if not REPOSITORY_PATH.search(text):
        return []
    rel = path.relative_to(ROOT).as_posix()
    nodes = list(ast.walk(ast.parse(text)))
    skip: set[int] = set()
    for node in nodes:
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            skip.add(id(body[0].value))  # a docstring
        if any(f == rel for f, _ in NEVER_SHOWN):
            named = [(kw.arg, kw.value) for kw in getattr(node, "keywords", [])]
            if isinstance(node, ast.Assign):
                named += [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
            skip |= {id(n) for name, value in named if (rel, name) in NEVER_SHOWN for n in ast.walk(value)}
    return [
        (n.lineno, n.value)
        for n in nodes
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and id(n) not in skip
        and REPOSITORY_PATH.search(n.value)
    ]


def test_no_message_in_the_source_names_a_repository_file() -> None:
    """Pages, the command line's messages and help, and the engine's reasons: none points into the repository."""
    modules = [*ROOT.glob("analytics/**/*.py"), *ROOT.glob("ui/*.py"), *ROOT.glob("app_pages/*.py"), ROOT / "app.py"]
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text[:100]!r}"
        for path in modules
        for line, text in shown_strings(path)
        if not any(path.relative_to(ROOT).as_posix() == f and s in text for f, s in PENDING)
    ]
    assert found == []
