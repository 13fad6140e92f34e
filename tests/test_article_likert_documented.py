"""Article-Likert files exactly as seeds/004 describes them: only the document's keys, no `topic` field.

Topics are then keyed by their reference's hash (docs/formats.md section 5), so the same reference in two
annotators' files is one task, or, without a reference, by their position in the file."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from conftest import shared_path

from analytics.ingest import detect_format
from analytics.ingest.load import ingest_bytes

SEED = "004_036f9224cbaf4c66.txt"
REFERENCES = (
    "The final of the 2019 ICC Cricket World Cup was played on 14 July 2019 at Lord's, London.",
    "Apollo 11 was the spaceflight that first landed humans on the Moon, on 20 July 1969.",
)


@pytest.fixture(scope="module")
def documented_keys() -> list[str]:
    """The keys of one topic as the document lists them: its backticked key names, placeholders left out."""
    text = shared_path("seeds", SEED).read_text()
    # "`reference`", "`first_prediction`, `second_prediction`, `third_prediction`", "`best_prediction_reference`
    # and `best_prediction_topic`", "`first_prediction_likert`, `second_prediction_likert`, ..." (seeds/004)
    names = dict.fromkeys(re.findall(r"`([a-z_]+)`", text))
    keys = [k for k in names if not k.startswith("n_") and not k.endswith("_x")]
    assert keys == [
        "reference",
        "first_prediction",
        "second_prediction",
        "third_prediction",
        "best_prediction_reference",
        "best_prediction_topic",
        "first_prediction_likert",
        "second_prediction_likert",
        "third_prediction_likert",
    ]
    assert "topic" not in keys  # the document never names a topic key
    return keys


def topic(keys: list[str], reference: str | None, scores: tuple[int, int, int], best: str = "first_prediction"):
    """One topic with exactly the documented keys (the reference left out when None)."""
    values = {
        "reference": reference,
        "first_prediction": "Prediction one.",
        "second_prediction": "Prediction two.",
        "third_prediction": "Prediction three.",
        "best_prediction_reference": best,
        "best_prediction_topic": best,
        "first_prediction_likert": scores[0],
        "second_prediction_likert": scores[1],
        "third_prediction_likert": scores[2],
    }
    return {k: values[k] for k in keys if not (k == "reference" and reference is None)}


def ref_id(reference: str) -> str:
    """The task id docs/formats.md promises for a topic keyed by its reference."""
    return "ref-" + hashlib.sha256(reference.encode("utf-8")).hexdigest()[:12]


def loaded_cleanly(result, rows: int) -> None:
    assert result.status == "loaded", result.errors
    assert (result.format, result.rows_loaded, result.rows_quarantined) == ("article_likert", rows, 0), result.errors


def test_a_documented_file_loads_without_quarantine(con, documented_keys):
    data = json.dumps([topic(documented_keys, ref, (4, 3, 5)) for ref in REFERENCES], indent=2).encode()
    assert detect_format(data[:65536], "preference_json_1_completed.json") == "article_likert"
    result = ingest_bytes(con, data, "preference_json_1_completed.json")  # auto-detected
    loaded_cleanly(result, 10)  # 2 topics x (3 Likert + 2 best predictions)
    tasks = con.execute("SELECT task_id, prompt, context FROM tasks ORDER BY context").fetchall()
    assert tasks == [(ref_id(REFERENCES[1]), None, REFERENCES[1]), (ref_id(REFERENCES[0]), None, REFERENCES[0])]
    likert = con.execute(
        "SELECT target, value FROM ratings WHERE task_id = ? AND dimension = 'likert' ORDER BY target",
        [ref_id(REFERENCES[0])],
    ).fetchall()
    assert likert == [("first", "4"), ("second", "3"), ("third", "5")]
    assert con.execute("SELECT count(*) FROM quarantine").fetchall()[0][0] == 0


def test_the_same_reference_in_two_annotators_files_is_one_task(con, documented_keys):
    first = [topic(documented_keys, ref, (4, 3, 5)) for ref in REFERENCES]
    # Annotator 2 lists the topics in the other order and adds white space around one reference.
    second = [
        topic(documented_keys, REFERENCES[1], (2, 2, 2)),
        topic(documented_keys, f"  {REFERENCES[0]}\n", (4, 1, 5)),
    ]
    loaded_cleanly(ingest_bytes(con, json.dumps(first).encode(), "preference_json_1_completed.json"), 10)
    loaded_cleanly(ingest_bytes(con, json.dumps(second).encode(), "preference_json_2_completed.json"), 10)
    assert con.execute("SELECT count(*) FROM tasks").fetchall()[0][0] == 2
    # Every unit (task, dimension, target) is rated by both annotators, so their scores are compared.
    units = con.execute(
        """SELECT task_id, dimension, target, list(rater_id ORDER BY rater_id), list(value ORDER BY rater_id)
           FROM ratings GROUP BY ALL ORDER BY ALL"""
    ).fetchall()
    assert len(units) == 10
    assert all(raters == ["annotator_1", "annotator_2"] for _, _, _, raters, _ in units)
    scores = {(t, tg): v for t, d, tg, _, v in units if d == "likert"}
    assert scores[(ref_id(REFERENCES[0]), "second")] == ["3", "1"]


def test_without_reference_and_topic_topics_are_keyed_by_position(con, documented_keys):
    topics = [topic(documented_keys, None, (4, 3, 5)), topic(documented_keys, None, (1, 2, 3))]
    loaded_cleanly(ingest_bytes(con, json.dumps(topics).encode(), "preference_json_1_completed.json"), 10)
    loaded_cleanly(ingest_bytes(con, json.dumps(topics[::-1]).encode(), "preference_json_2_completed.json"), 10)
    rows = con.execute(
        "SELECT task_id, rater_id, value FROM ratings WHERE dimension = 'likert' AND target = 'first' ORDER BY ALL"
    ).fetchall()
    # Position is all there is: annotator 2's first topic is topic-1 whatever its text.
    assert rows == [
        ("topic-1", "annotator_1", "4"),
        ("topic-1", "annotator_2", "1"),
        ("topic-2", "annotator_1", "1"),
        ("topic-2", "annotator_2", "4"),
    ]


def test_jsonl_topics_without_reference_are_keyed_by_line(con, documented_keys):
    lines = [
        json.dumps(topic(documented_keys, None, (4, 3, 5))),
        "",
        json.dumps(topic(documented_keys, None, (1, 2, 3))),
    ]
    result = ingest_bytes(con, "\n".join(lines).encode(), "preference_json_1_completed.jsonl")
    loaded_cleanly(result, 10)
    assert con.execute("SELECT DISTINCT task_id FROM ratings ORDER BY 1").fetchall() == [("topic-1",), ("topic-3",)]


def test_an_explicit_topic_is_kept(con, documented_keys):
    with_topic = [{"topic": "Apollo 11", **topic(documented_keys, REFERENCES[1], (4, 3, 5))}]
    loaded_cleanly(ingest_bytes(con, json.dumps(with_topic).encode(), "preference_json_1_completed.json"), 5)
    assert con.execute("SELECT task_id, prompt FROM tasks").fetchall() == [("Apollo 11", "Apollo 11")]


def test_a_long_reference_is_still_detected(documented_keys):
    # The reference comes first; at 100 kB it pushes every other key past the 64 KiB the detector reads.
    data = json.dumps([topic(documented_keys, "word " * 20000, (4, 3, 5))]).encode()
    assert b"_prediction" not in data[:65536]
    assert detect_format(data[:65536], "preference_json_1_completed.json") == "article_likert"
    assert detect_format(data[:65536], "notes.json") is None


def test_defaults_mean_not_annotated_yet(con, documented_keys):
    # "The default value for each summary is 0, meaning you have not yet annotated the likert judgment" (seeds/004)
    untouched = [topic(documented_keys, REFERENCES[0], (0, 0, 0), best="")]
    result = ingest_bytes(con, json.dumps(untouched).encode(), "preference_json_1_completed.json")
    assert (result.status, result.rows_loaded, result.rows_quarantined) == ("loaded", 0, 0), result.errors
    status = con.execute("SELECT task_id, status FROM submissions").fetchall()
    assert status == [(ref_id(REFERENCES[0]), "incomplete")]


def test_one_reference_twice_in_a_file_is_a_duplicate(con, documented_keys):
    topics = [topic(documented_keys, REFERENCES[0], (4, 3, 5)), topic(documented_keys, REFERENCES[0], (1, 2, 3))]
    result = ingest_bytes(con, json.dumps(topics).encode(), "preference_json_1_completed.json")
    assert (result.status, result.rows_loaded, result.rows_quarantined) == ("loaded", 0, 10)
    assert any("more than once in this file" in e for e in result.errors)
