"""Round trips of every input format (docs/formats.md): a small file in, the expected canonical rows out."""

from __future__ import annotations

import json

import pytest

from analytics.ingest import FORMATS, detect_format
from analytics.ingest.load import ingest_bytes


def jsonl(*records: dict) -> bytes:
    """Records as JSONL bytes."""
    return "\n".join(json.dumps(r) for r in records).encode()


def ratings(con, extra: str = "") -> set[tuple]:
    """(task, rater, role, dimension, target, value) of every stored rating."""
    rows = con.execute(f"SELECT task_id, rater_id, role, dimension, target, value FROM ratings {extra}").fetchall()
    return set(rows)


def submission(con, submission_id: str) -> dict:
    """One stored submission as a dict, JSON columns parsed."""
    cur = con.execute("SELECT * FROM submissions WHERE submission_id = ?", [submission_id])
    names = [d[0] for d in cur.description]
    row = dict(zip(names, cur.fetchall()[0], strict=True))
    for col in ("flags", "ranking", "details"):
        row[col] = json.loads(row[col]) if row[col] is not None else None
    return row


def loaded_cleanly(result, rows: int) -> None:
    """The file loaded with `rows` ratings and nothing quarantined."""
    assert result.status == "loaded", result.errors
    assert result.errors == []
    assert (result.rows_read, result.rows_loaded, result.rows_quarantined) == (rows, rows, 0)


# --- canonical ------------------------------------------------------------------------------------------------


def test_canonical_csv_round_trip(con):
    data = (
        b"task_id,rater_id,role,rubric,dimension,target,value,submitted_at,duration_s,comment\n"
        b"ac-00017,c03,contractor,answer_comparison,usefulness_comparison,comparison,A better,2026-03-02T14:05:11,412,\n"
        b"ac-00017,r01,researcher,answer_comparison,usefulness_comparison,comparison,A much better,,600,sure\n"
    )
    result = ingest_bytes(con, data, "long.csv")
    loaded_cleanly(result, 2)
    assert result.format == "canonical"
    assert ratings(con) == {
        ("ac-00017", "c03", "contractor", "usefulness_comparison", "comparison", "A better"),
        ("ac-00017", "r01", "researcher", "usefulness_comparison", "comparison", "A much better"),
    }


# --- answer comparison (section 2) ----------------------------------------------------------------------------


def answer_comparison(submission_id: str, rater: str, order: list[str], **overrides) -> dict:
    """The docs/formats.md section 2 example, trimmed to a few categories."""
    record = {
        "format": "concord.answer_comparison/v1",
        "submission_id": submission_id,
        "task_id": "ac-00017",
        "rater_id": rater,
        "role": "contractor",
        "submitted_at": "2026-03-02T14:05:11Z",
        "duration_s": 412.5,
        "task_kind": "normal",
        "question": "Why is processed food significantly cheaper than unprocessed food?",
        "question_flags": {"does_not_make_sense": False, "should_not_be_answered": False},
        "display_order": order,
        "options": {
            "A": {
                "answer_id": "ans-00017-a",
                "answer": "Processed food is cheaper because the industry is enormously efficient [1].",
                "sources": [
                    {
                        "n": 1,
                        "title": "Why Processed Food Is Cheaper",
                        "domain": "www.npr.org",
                        "quote": "efficient",
                        "trustworthiness": "Trustworthy",
                    }
                ],
                "claims": [{"span": "[3]", "support": "Citation error", "relevance": None}],
                "ratings": {"unsupported": "Good", "usefulness": "Good", "coherence": None},
                "better_than_nothing": "Better than nothing",
                "citation_errors": 1,
                "edited_answer": None,
                "strengths": "Explains the economics clearly.",
                "weaknesses": "",
            },
            "B": {
                "answer_id": "ans-00017-b",
                "answer": "No idea.",
                "sources": [],
                "claims": [],
                "ratings": {"usefulness": "Very bad"},
                "better_than_nothing": "Worse than nothing",
            },
        },
        "comparison": {"usefulness": "B much better", "coherence": "Equally good", "core": "A better"},
        "comment": "",
    }
    record.update(overrides)
    return record


def test_answer_comparison_round_trip_flips_comparisons_shown_b_first(con):
    shown_b_first = answer_comparison("ac-00017-c03", "c03", ["B", "A"])
    shown_a_first = answer_comparison(
        "ac-00017-r01",
        "r01",
        ["A", "B"],
        role="researcher",
        explanations={"usefulness": "Option A's transport claim is unsupported core information."},
    )
    result = ingest_bytes(con, jsonl(shown_b_first, shown_a_first), "comparisons.jsonl")
    loaded_cleanly(result, 2 * 8)  # per rater: 3 absolute, 2 better-than-nothing, 3 comparisons; null not rated
    assert (result.format, result.tasks, result.submissions) == ("answer_comparison", 1, 2)
    absolute = {
        ("usefulness", "A", "Good"), ("unsupported", "A", "Good"), ("usefulness", "B", "Very bad"),
        ("better_than_nothing", "A", "Better than nothing"), ("better_than_nothing", "B", "Worse than nothing"),
    }  # fmt: skip
    # c03 saw B first: "B much better" on screen is stored option A much better (docs/formats.md, section 2).
    flipped = {
        ("usefulness_comparison", "comparison", "A much better"),
        ("coherence_comparison", "comparison", "Equally good"),
        ("core_comparison", "comparison", "B better"),
    }
    as_clicked = {
        ("usefulness_comparison", "comparison", "B much better"),
        ("coherence_comparison", "comparison", "Equally good"),
        ("core_comparison", "comparison", "A better"),
    }
    assert ratings(con) == {("ac-00017", "c03", "contractor", *r) for r in absolute | flipped} | {
        ("ac-00017", "r01", "researcher", *r) for r in absolute | as_clicked
    }

    c03 = submission(con, "ac-00017-c03")
    assert (c03["status"], c03["shown_first"], c03["role"], c03["duration_s"]) == ("rated", "B", "contractor", 412.5)
    assert str(c03["submitted_at"]) == "2026-03-02 14:05:11"
    assert c03["details"]["comparison_clicked"]["usefulness"] == "B much better"  # kept as clicked
    assert c03["details"]["display_order"] == ["B", "A"]
    assert c03["details"]["options"]["A"]["trustworthiness"] == [{"n": 1, "trustworthiness": "Trustworthy"}]
    assert c03["details"]["options"]["A"]["claims"][0]["support"] == "Citation error"
    assert c03["details"]["options"]["A"]["citation_errors"] == 1
    assert c03["flags"] == {"does_not_make_sense": False, "should_not_be_answered": False}
    r01 = submission(con, "ac-00017-r01")
    assert (r01["shown_first"], r01["role"]) == ("A", "researcher")
    assert r01["explanation"] == "usefulness: Option A's transport claim is unsupported core information."

    task = con.execute("SELECT rubric, prompt, metadata FROM tasks WHERE task_id = 'ac-00017'").fetchall()
    assert [t[:2] for t in task] == [("answer_comparison", shown_b_first["question"])]
    assert json.loads(task[0][2]) == {"task_kind": "normal"}
    items = con.execute(
        "SELECT item_id, position, label, text, sources, metadata FROM task_items ORDER BY 1"
    ).fetchall()
    assert [i[:3] for i in items] == [("A", 1, "Option A"), ("B", 2, "Option B")]
    assert json.loads(items[0][4]) == [  # the source without the rater's trustworthiness label
        {"n": 1, "title": "Why Processed Food Is Cheaper", "domain": "www.npr.org", "quote": "efficient"}
    ]
    assert json.loads(items[0][5]) == {"answer_id": "ans-00017-a"}


def test_answer_comparison_json_array_and_flagged_question(con):
    flagged = answer_comparison(
        "ac-00018-c04",
        "c04",
        ["A", "B"],
        task_id="ac-00018",
        options={},
        comparison={},
        question_flags={"does_not_make_sense": True, "should_not_be_answered": False},
    )
    rated = answer_comparison("ac-00017-c04", "c04", ["A", "B"])
    result = ingest_bytes(con, json.dumps([flagged, rated]).encode(), "comparisons.json")
    loaded_cleanly(result, 8)
    assert result.submissions == 2
    sub = submission(con, "ac-00018-c04")
    assert (sub["status"], sub["reason"]) == ("flagged", "does_not_make_sense")
    assert con.execute("SELECT count(*) FROM ratings WHERE task_id = 'ac-00018'").fetchall() == [(0,)]


# --- instruction following (section 3) -----------------------------------------------------------------------


def instruction_following(submission_id: str, rater: str, **overrides) -> dict:
    """The docs/formats.md section 3 example with three outputs."""
    labels = {"fails_to_follow": "No", "inappropriate": "Not applicable", "hallucination": True,
              "follows_constraint": "Yes"}  # fmt: skip
    record = {
        "format": "concord.instruction_following/v1",
        "submission_id": submission_id,
        "task_id": "if-00412",
        "rater_id": rater,
        "role": "contractor",
        "submitted_at": "2026-03-04T09:12:40Z",
        "duration_s": 288,
        "status": "rated",
        "skip_reason": None,
        "instruction": "Summarize the following customer complaints in one sentence.",
        "instruction_labels": {"pii": False, "tag": "Summarization", "closed_domain": True},
        "outputs": [
            {"output_id": "o1", "text": "The customers were given an invalid ticket.", "rating": 5, "labels": labels},
            {"output_id": "o2", "text": "I'm sorry, I can't do that for you.", "rating": 2,
             "labels": {"fails_to_follow": "Yes"}},
            {"output_id": "o3", "text": "Complaints.", "rating": "2.0", "labels": {}},
        ],
        "ranking": [["o1"], ["o2", "o3"]],
        "comment": "o3 is too short",
    }  # fmt: skip
    record.update(overrides)
    return record


def test_instruction_following_round_trip_ranks_tie_groups(con):
    rated = instruction_following("if-00412-c11", "c11")
    skipped = instruction_following(
        "if-00412-c12", "c12", status="skipped", skip_reason="foreign language", outputs=[], ranking=[]
    )
    result = ingest_bytes(con, jsonl(rated, skipped), "if.jsonl")
    # 3 ratings, 4 labels ("Not applicable" is missing, not a rating), 3 ranks.
    loaded_cleanly(result, 10)
    assert ratings(con) == {
        ("if-00412", "c11", "contractor", dim, target, value)
        for dim, target, value in [
            ("rating", "o1", "5"), ("rating", "o2", "2"), ("rating", "o3", "2"),
            ("fails_to_follow", "o1", "No"), ("hallucination", "o1", "Yes"), ("follows_constraint", "o1", "Yes"),
            ("fails_to_follow", "o2", "Yes"),
            ("rank", "o1", "1"), ("rank", "o2", "2"), ("rank", "o3", "2"),
        ]
    }  # fmt: skip
    sub = submission(con, "if-00412-c11")
    assert (sub["status"], sub["comment"], sub["ranking"]) == ("rated", "o3 is too short", [["o1"], ["o2", "o3"]])
    assert sub["details"]["instruction_labels"]["tag"] == "Summarization"
    skip = submission(con, "if-00412-c12")
    assert (skip["status"], skip["reason"]) == ("skipped", "foreign language")
    items = con.execute("SELECT item_id, position, text FROM task_items ORDER BY position").fetchall()
    assert [i[:2] for i in items] == [("o1", 1), ("o2", 2), ("o3", 3)]
    assert con.execute("SELECT prompt FROM tasks").fetchall() == [(rated["instruction"],)]


# --- preference ranking (section 4) ---------------------------------------------------------------------------


def preference_ranking(submission_id: str, rater: str, **overrides) -> dict:
    """The docs/formats.md section 4 example."""
    record = {
        "format": "concord.preference_ranking/v1",
        "submission_id": submission_id,
        "task_id": "pr-00981",
        "rater_id": rater,
        "role": "contractor",
        "submitted_at": "2026-03-05T17:40:02Z",
        "duration_s": 530,
        "conversation": [{"role": "user", "text": "I hate my job, how do I find a new one?"}],
        "prompt": "I hate my job, how do I find a new one?",
        "facebook_post_task": False,
        "action": "rate",
        "rejection_reason": None,
        "responses": [
            {"response_id": 48213, "text": "Update your CV ...", "rank": 1,
             "ratings": {"accuracy": 5, "relevance": 4, "citation_correctness": None}},
            {"response_id": "48214", "text": "Quit.", "rank": 3, "ratings": {"accuracy": 2, "relevance": 3}},
        ],
        "ranking_type": "Subjective",
        "justification": "Response 48213 is better because it gives concrete steps.",
    }  # fmt: skip
    record.update(overrides)
    return record


def test_preference_ranking_round_trip_rate_skip_reject(con):
    rated = preference_ranking("pr-00981-c22", "c22")
    rejected = preference_ranking("pr-00981-c23", "c23", action="reject", rejection_reason="PII", responses=[])
    skipped = preference_ranking("pr-00981-c24", "c24", action="skip", responses=[])
    result = ingest_bytes(con, jsonl(rated, rejected, skipped), "pr.jsonl")
    loaded_cleanly(result, 6)  # 2 ratings + rank per response; citation_correctness null is not rated
    assert ratings(con) == {
        ("pr-00981", "c22", "contractor", dim, target, value)
        for dim, target, value in [
            ("accuracy", "48213", "5"), ("relevance", "48213", "4"), ("rank", "48213", "1"),
            ("accuracy", "48214", "2"), ("relevance", "48214", "3"), ("rank", "48214", "3"),
        ]
    }  # fmt: skip
    sub = submission(con, "pr-00981-c22")
    assert (sub["status"], sub["ranking"]) == ("rated", {"48213": 1, "48214": 3})
    assert sub["justification"] == rated["justification"]
    assert sub["details"]["ranking_type"] == "Subjective"
    assert (submission(con, "pr-00981-c23")["status"], submission(con, "pr-00981-c23")["reason"]) == ("rejected", "PII")
    assert submission(con, "pr-00981-c24")["status"] == "skipped"
    task = con.execute("SELECT prompt, context FROM tasks").fetchall()
    assert task == [(rated["prompt"], "user: I hate my job, how do I find a new one?")]


# --- article Likert (section 5) -------------------------------------------------------------------------------


def topic(name: str, first, second, third, best_ref="first_prediction", best_topic="first", **extra) -> dict:
    """One topic of an annotator's file (seeds/004 keys)."""
    return {
        "topic": name,
        "reference": f"The reference article on {name}.",
        "first_prediction": "An article.",
        "second_prediction": "Another article.",
        "third_prediction": "A third article.",
        "best_prediction_reference": best_ref,
        "best_prediction_topic": best_topic,
        "first_prediction_likert": first,
        "second_prediction_likert": second,
        "third_prediction_likert": third,
        **extra,
    }


def test_article_likert_round_trip_zero_is_missing(con):
    topics = [
        topic("2019 Cricket World Cup final", 4, 0, 2),  # 0 = not annotated yet (seeds/004)
        topic("Apollo 11", 5, 3.0, "1", best_ref=2, best_topic="", role="researcher"),
    ]
    result = ingest_bytes(con, json.dumps(topics).encode(), "preference_json_3_completed.json")
    loaded_cleanly(result, 2 + 2 + 3 + 1)
    assert result.format == "article_likert"
    assert ratings(con) == {
        ("2019 Cricket World Cup final", "annotator_3", "contractor", "likert", "first", "4"),
        ("2019 Cricket World Cup final", "annotator_3", "contractor", "likert", "third", "2"),
        ("2019 Cricket World Cup final", "annotator_3", "contractor", "best_prediction_reference", "task", "first"),
        ("2019 Cricket World Cup final", "annotator_3", "contractor", "best_prediction_topic", "task", "first"),
        ("Apollo 11", "annotator_3", "researcher", "likert", "first", "5"),
        ("Apollo 11", "annotator_3", "researcher", "likert", "second", "3"),
        ("Apollo 11", "annotator_3", "researcher", "likert", "third", "1"),
        ("Apollo 11", "annotator_3", "researcher", "best_prediction_reference", "task", "second"),
    }
    cricket = submission(con, "annotator_3/2019 Cricket World Cup final")
    assert cricket["status"] == "incomplete"
    assert cricket["details"]["not_annotated"] == ["second_prediction_likert"]
    assert submission(con, "annotator_3/Apollo 11")["details"]["not_annotated"] == ["best_prediction_topic"]
    items = con.execute("SELECT item_id, label FROM task_items WHERE task_id = 'Apollo 11' ORDER BY position")
    assert items.fetchall() == [
        ("first", "first_prediction"),
        ("second", "second_prediction"),
        ("third", "third_prediction"),
    ]
    assert con.execute("SELECT context FROM tasks WHERE task_id = 'Apollo 11'").fetchall() == [
        ("The reference article on Apollo 11.",)
    ]


def test_article_likert_object_keyed_by_topic_and_complete_topic_is_rated(con):
    keyed = {"Apollo 11": {k: v for k, v in topic("Apollo 11", 5, 4, 3).items() if k != "topic"}}
    result = ingest_bytes(con, json.dumps(keyed).encode(), "preference_json_12_completed.json", fmt="article_likert")
    loaded_cleanly(result, 5)
    assert {r[1] for r in ratings(con)} == {"annotator_12"}
    assert submission(con, "annotator_12/Apollo 11")["status"] == "rated"


# --- detection and role --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "file_name", "expected"),
    [
        (jsonl(answer_comparison("s", "c", ["A", "B"])), "x.jsonl", "answer_comparison"),
        (jsonl(instruction_following("s", "c")), "x.jsonl", "instruction_following"),
        (json.dumps([preference_ranking("s", "c")], indent=2).encode(), "x.json", "preference_ranking"),
        (json.dumps([topic("t", 1, 2, 3)], indent=2).encode(), "preference_json_1_completed.json", "article_likert"),
        (b'{"task_id": "t", "rater_id": "r", "dimension": "d", "value": "1"}\n', "x.jsonl", "canonical"),
        (b'{"task_id": "t", "rater_id": "r", "dimension": "first_prediction_likert", "value": 1}\n', "x.jsonl",
         "canonical"),
        (b"task_id,rater_id,dimension,value\nt,r,d,1\n", "x.csv", "canonical"),
    ],
)  # fmt: skip
def test_auto_detection_picks_the_format(data, file_name, expected):
    assert set(FORMATS) >= {"answer_comparison", "instruction_following", "preference_ranking", "article_likert"}
    assert detect_format(data[:65536], file_name) == expected


def test_role_override_marks_ratings_and_submissions_researcher(con):
    result = ingest_bytes(con, jsonl(preference_ranking("pr-1", "c22")), "pr.jsonl", role="researcher")
    loaded_cleanly(result, 6)
    assert con.execute("SELECT DISTINCT role FROM ratings").fetchall() == [("researcher",)]
    assert submission(con, "pr-1")["role"] == "researcher"
