"""A file no format recognises gets a message naming the closest formats and the choice to make (issue #50, item
2; analytics/ingest/closest.py). On 6e56436 every such file got "unknown format; expected one of ... (see
docs/formats.md)": no hint that wide was the choice, and a repository path as help. Each advice is followed here
and the file then loads."""

from __future__ import annotations

import json
import re

import pytest

from analytics.ingest.base import FormatOptions
from analytics.ingest.closest import unknown_format
from analytics.ingest.load import ingest_bytes

ITEMS_BY_RATERS = b"item,r1,r2,r3\n1,4,4,5\n2,2,3,2\n3,5,5,5\n4,1,2,1\n"
RESULT = {"from_name": "sentiment", "to_name": "text", "type": "choices", "value": {"choices": ["Positive"]}}
LABEL_STUDIO_WITHOUT_DATA = json.dumps(
    [
        {"id": i, "annotations": [{"id": 10 * i + w, "completed_by": w, "result": [RESULT]} for w in (1, 2)]}
        for i in (1, 2)
    ]
).encode()
QUESTIONS = b"question;alice;bob\nWhy is the sky blue?;3;4\nWhat is two and two?;5;5\n"
REPOSITORY_PATH = re.compile(r"\b(docs|analytics|tests|app_pages)/|\.md\b|\.py\b")


def rejected(con, data: bytes, name: str) -> str:
    """The one message of a file refused under auto-detection (nothing written)."""
    r = ingest_bytes(con, data, name)
    assert r.status == "rejected", r
    assert con.execute("SELECT count(*) FROM ratings").fetchone() == (0,)
    return r.errors[0]


def test_items_by_raters_table_says_choose_wide_with_its_id_column(con) -> None:
    says = rejected(con, ITEMS_BY_RATERS, "scores.csv")
    assert "Format: wide" in says
    assert "column item as the item id" in says
    assert "r1, r2, r3" in says
    followed = ingest_bytes(con, ITEMS_BY_RATERS, "scores.csv", fmt="wide")
    assert (followed.status, followed.rows_loaded, followed.rows_quarantined) == ("loaded", 12, 0)
    assert con.execute("SELECT count(DISTINCT task_id) FROM ratings").fetchone() == (4,)


def test_wide_table_with_an_unnamed_id_column_names_the_option_to_give() -> None:
    """A first column of distinct text (not one of the recognised id names) is offered as Item id column."""
    says = unknown_format(QUESTIONS, "q.csv")
    assert "Format: wide" in says and "give question as its Item id column" in says
    assert "alice, bob" in says


def test_wide_table_followed_with_the_named_id_column_loads(con) -> None:
    rejected(con, QUESTIONS, "q.csv")
    r = ingest_bytes(con, QUESTIONS, "q.csv", fmt="wide", options=FormatOptions(id_column="question"))
    assert (r.status, r.rows_loaded, r.rows_quarantined) == ("loaded", 4, 0)


def test_label_studio_list_without_data_names_label_studio_and_what_is_missing(con) -> None:
    says = rejected(con, LABEL_STUDIO_WITHOUT_DATA, "project.json")
    assert "Label Studio" in says
    assert "no data field" in says
    assert "Format: label_studio" in says
    followed = ingest_bytes(con, LABEL_STUDIO_WITHOUT_DATA, "project.json", fmt="label_studio")
    assert (followed.status, followed.rows_loaded, followed.rows_quarantined) == ("loaded", 4, 0)


def test_near_miss_of_the_long_format_names_the_columns_it_lacks(con) -> None:
    says = rejected(con, b"task,rater,dimension,value\nt1,c1,helpfulness,4\nt1,c2,helpfulness,5\n", "long.csv")
    assert "Format: canonical" in says
    assert "needs task_id, rater_id" in says
    assert "task, rater, dimension, value" in says


def test_unknown_json_format_value_names_the_ones_read(con) -> None:
    data = json.dumps({"format": "concord.something_else/v9", "task_id": "t"}).encode()
    says = rejected(con, data, "other.jsonl")
    assert "concord.something_else/v9" in says and "concord.answer_comparison/v1" in says


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (ITEMS_BY_RATERS, "scores.csv"),
        (LABEL_STUDIO_WITHOUT_DATA, "project.json"),
        (b"Dear team,\nhere are the ratings.\n", "notes.txt"),
        (b"task,rater,dimension,value\nt1,c1,helpfulness,4\n", "long.csv"),
        (json.dumps({"dataset": "x", "items": []}).encode(), "bench.json"),
        (json.dumps({"format": "concord.something_else/v9"}).encode(), "other.jsonl"),
    ],
    ids=["wide", "label_studio", "prose", "long", "json_object", "format_value"],
)
def test_no_message_names_a_repository_path(con, data: bytes, name: str) -> None:
    says = rejected(con, data, name)
    assert REPOSITORY_PATH.search(says) is None, says
    assert "Formats section" in says or "Format: " in says  # where to look, or what to choose


@pytest.mark.parametrize(
    ("data", "name", "fmt"),
    [
        (json.dumps({"dataset": "x", "metric": "m", "instances": 3}).encode(), "bench.json", "judge_bench"),
        (json.dumps([{"reference": "An article."}]).encode(), "preference_json_1_completed.json", "article_likert"),
        (b"a,b\n1,2\n", "crowd.csv", "medical_safety"),
        (
            json.dumps({"format": "concord.instruction_following/v1", "task_id": "t"}).encode(),
            "x.jsonl",
            "answer_comparison",
        ),
    ],
    ids=["judge_bench", "article_likert", "medical_safety", "json_records"],
)
def test_a_chosen_format_that_does_not_fit_names_no_repository_path(con, data: bytes, name: str, fmt: str) -> None:
    """These messages said "see docs/formats.md" on 6e56436; they now point to the Data page."""
    r = ingest_bytes(con, data, name, fmt=fmt)
    assert r.status == "rejected", r
    assert REPOSITORY_PATH.search(r.errors[0]) is None, r.errors[0]
    assert "Formats section" in r.errors[0]


def test_left_or_right_without_shown_first_is_quarantined_without_a_repository_path(con) -> None:
    data = b"task_id,rater_id,rubric,dimension,target,value\nt1,c1,answer_comparison,usefulness_comparison,comparison,Left better\n"
    r = ingest_bytes(con, data, "clicked.csv")
    assert (r.status, r.rows_quarantined) == ("loaded", 1), r.errors
    (reason,) = con.execute("SELECT reason FROM quarantine").fetchone()
    assert "was on the left" in reason and REPOSITORY_PATH.search(reason) is None, reason


def test_a_record_with_the_long_formats_keys_past_the_head_is_named_with_its_keys_in_order() -> None:
    """A JSON line longer than the head: its keys are read from the first bytes, in the file's order, and few."""
    head = '{"task_id": "t", "rater_id": "r", "dimension": "d", "value": 1, ' + ", ".join(
        f'"k{i}": {i}' for i in range(9000)
    )
    says = unknown_format(head.encode()[:65536], "keys.jsonl")
    assert "keys are task_id, rater_id, dimension, value, k0, k1" in says and "more" in says
    assert "Format: canonical" in says and len(says) < 600


def test_empty_records_are_named_as_empty() -> None:
    says = unknown_format(b"{}\n{}\n", "empty.jsonl")
    assert "its first record is empty" in says
