"""Every format counts its records from the file itself (base.account_records, docs/formats.md "Counting"):
records in the file = records used + records quarantined whole, and a record the reader could not read or that
gave nothing (bad encoding, broken JSON, an empty object, a record without the key its format reads) is in the
quarantine with its line or record. Each file here holds one such record among good ones; the count the test
makes of the file is its own (non-blank lines, array elements), never the loader's."""

from __future__ import annotations

import json

import pytest

from analytics.ingest.base import FormatOptions, place
from analytics.ingest.load import IngestResult, ingest_bytes
from tests.test_ingest_bad_input import answer_comparison, instruction_following, preference_ranking, topic

LATIN1 = b"\xe9"  # a byte that is not UTF-8 on its own (Latin-1 e-acute)
PAD = "x" * 70_000  # a good record's text that puts the bad one past the 64 KiB the loader checks up front


def line_of(before: bytes) -> str:
    """The place of the record that follows `before` (whole lines)."""
    return "line " + str(before.count(b"\n") + 1)


def jsonl(*records: dict | bytes) -> bytes:
    """Records (or raw bytes lines) as JSONL bytes."""
    return b"\n".join(r if isinstance(r, bytes) else json.dumps(r).encode() for r in records) + b"\n"


def lines_in(data: bytes, header: int = 0) -> int:
    """The non-blank lines of a file (each one record in these files), less `header` lines."""
    return sum(1 for line in data.split(b"\n") if line.strip()) - header


def counted(con, r: IngestResult, in_file: int, bad_place: str, says: str) -> None:
    """The file loaded; its records as the test counted them = used + one quarantined, named with its place."""
    assert r.status == "loaded", r.errors
    assert r.rows_read == r.rows_loaded + r.rows_quarantined
    rows = con.execute("SELECT line, record, reason FROM quarantine").fetchall()
    assert any(place(line, rec) == bad_place and says in reason for line, rec, reason in rows), rows
    assert r.records is not None, "the format does not count its records"
    assert (r.records.read, r.records.used, r.records.quarantined) == (in_file, in_file - 1, 1)
    assert r.as_dict()["records_read"] == in_file


# --- the JSON document formats (docs/formats.md sections 2-5) ---------------------------------------------------


def test_answer_comparison_line_with_a_latin1_byte(con):
    bad = json.dumps(answer_comparison("c9")).encode().replace(b"Because.", b"Caf" + LATIN1)
    data = jsonl(answer_comparison("c1", question=PAD), answer_comparison("c2"), bad, answer_comparison("c3"))
    counted(con, ingest_bytes(con, data, "ac.jsonl"), lines_in(data), "line 3", "not UTF-8")


def test_instruction_following_empty_object_in_an_array(con):
    records = [instruction_following("c1"), {}, instruction_following("c2")]
    data = json.dumps(records).encode()
    r = ingest_bytes(con, data, "if.json", fmt="instruction_following")
    counted(con, r, len(json.loads(data)), "record 2", "missing required field task_id")


def test_preference_ranking_broken_json_line(con):
    data = jsonl(
        preference_ranking("c1"), b'{"format": "concord.preference_ranking/v1", "task_id": ', preference_ranking("c2")
    )
    counted(con, ingest_bytes(con, data, "pr.jsonl"), lines_in(data), "line 2", "not valid JSON")


def test_article_likert_element_that_is_not_a_topic(con):
    data = json.dumps([topic("Apollo 11"), "a stray string", topic("Cricket final")]).encode()
    r = ingest_bytes(con, data, "preference_json_1_completed.json", fmt="article_likert")
    counted(con, r, len(json.loads(data)), "record 2", "expected a JSON object")


# --- the real-dataset formats -------------------------------------------------------------------------------


def test_qags_summary_without_sentences_was_dropped_silently(con):
    good = {"article": "A", "summary_sentences": [{"sentence": "S", "responses": [{"worker_id": 1, "response": "no"}]}]}
    data = jsonl(good, {"article": "B", "summary_sentences": []}, good)
    counted(con, ingest_bytes(con, data, "mturk_xsum.jsonl"), lines_in(data), "line 2", "holds nothing")


def test_pandalm_comparison_without_verdicts_was_dropped_silently(con):
    records = [{"idx": 0, "annotator1": 1, "annotator2": 2, "annotator3": 1}, {"idx": 1, "instruction": "x"}]
    data = json.dumps(records).encode()
    counted(con, ingest_bytes(con, data, "testset-v1.json"), len(records), "comparison idx 1", "holds nothing")


def _story(passage: str, response: str = "x") -> dict:
    review = {"worker_id": "2", "overall-rating": "40", "overall-rank": "1"}
    return {"passage-id": passage, "questions": {"0": {"bart": {"response": response, "reviews": [review]}}}}


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        (json.dumps({"passage-id": "9", "questions": {}}).encode(), "holds nothing"),  # dropped silently before
        (b'{"passage-id": "9", "questions": {"0": "caf' + LATIN1 + b'"}}', "not UTF-8"),  # failed the file before
    ],
)
def test_squality_story_that_gives_nothing(con, bad, says):
    data = jsonl(_story("1", PAD), bad, _story("2"))
    counted(con, ingest_bytes(con, data, "responses.jsonl", fmt="squality"), lines_in(data), "line 2", says)


def test_judge_bench_instance_with_no_annotations_was_dropped_silently(con):
    scores = {"Score": {"individual_human_scores": [1, 2, 2]}}
    doc = {
        "dataset": "toy",
        "annotations": [{"metric": "Score", "category": "graded", "worst": 1, "best": 5}],
        "instances": [
            {"id": 1, "instance": "a", "annotations": scores},
            {"id": 2, "instance": "b", "annotations": {}},
            {"id": 3, "instance": "c", "annotations": scores},
        ],
    }
    r = ingest_bytes(con, json.dumps(doc).encode(), "toy.json", fmt="judge_bench")
    counted(con, r, len(doc["instances"]), "instance 2", "holds nothing")


SNOW_HEADER = b"!amt_annotation_ids\t!amt_worker_ids\torig_id\tresponse\tgold\n"


def test_snow2008_row_with_a_latin1_byte_failed_the_file(con):
    before = SNOW_HEADER + b"".join(b"a%d\tw%d\t%d\t1\t1\n" % (i, i % 7, i) for i in range(4000))
    data = before + b"b1\tw" + LATIN1 + b"\t1\t0\t1\nb2\tw3\t2\t1\t1\n"
    assert len(before) > 65536
    r = ingest_bytes(con, data, "rte.standardized.tsv")
    counted(con, r, lines_in(data, header=1), line_of(before), "not UTF-8")


CROWD_HEADER = b"query,query-expert,query-cws,alexa-response,alexa-response-expert,alexa-response-cws\n"


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        (b"No labels here?,,,ok,,\n", "holds nothing"),  # dropped silently before
        (b"Caf" + LATIN1 + b"?,Serious,[],ok,No answer,[]\n", "not UTF-8"),  # failed the file before
    ],
)
def test_medical_safety_row_that_gives_nothing(con, bad, says):
    good = b"Is this bad?,Serious,\"['Serious', 'Critical']\"," + PAD.encode() + b",No answer,[]\n"
    data = CROWD_HEADER + good + bad + good.replace(b"this", b"that")
    counted(con, ingest_bytes(con, data, "crowd.csv", fmt="medical_safety"), lines_in(data, header=1), "line 3", says)


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        (b"j2,,\n", "holds nothing"),  # an item row nobody rated: dropped silently before
        (b"j2,3," + LATIN1 + b"\n", "not UTF-8"),  # failed the file before
    ],
)
def test_wide_row_that_gives_nothing(con, bad, says):
    before = b"item,a,b\n" + b"".join(b"i%d,1,2\n" % i for i in range(9000))
    data = before + bad + b"j3,2,2\n"
    assert len(before) > 65536
    r = ingest_bytes(con, data, "sheet.csv", fmt="wide", options=FormatOptions(id_column="item"))
    counted(con, r, lines_in(data, header=1), line_of(before), says)


def test_label_studio_task_that_is_not_an_object(con):
    result = {"id": "r1", "from_name": "sentiment", "to_name": "text", "type": "choices",
              "value": {"choices": ["Positive"]}}  # fmt: skip

    def task(i: int) -> dict:
        return {"id": i, "data": {"text": f"t{i}"}, "annotations": [{"id": i, "completed_by": 1, "result": [result]}]}

    tasks = [task(1), "not a task", task(3)]
    data = json.dumps(tasks).encode()
    counted(con, ingest_bytes(con, data, "export.json", fmt="label_studio"), len(tasks), "task 2", "expected a JSON")


def test_canonical_csv_counts_records_as_its_rows(con):
    before = b"task_id,rater_id,dimension,value\n" + b"".join(b"t%d,r1,score,3\n" % i for i in range(6000))
    data = before + b"u1,r" + LATIN1 + b",score,4\nu2,r1,score,2\n"
    assert len(before) > 65536
    counted(con, ingest_bytes(con, data, "long.csv"), lines_in(data, header=1), line_of(before), "not UTF-8")
