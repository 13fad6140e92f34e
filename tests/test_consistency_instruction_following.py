"""Instruction following rules (analytics/consistency/instruction_following.py) on submissions in the rubric's own
file format (docs/formats.md section 3), each example taken from the wording of seeds/002_3b314b218f9d5567.txt."""

from __future__ import annotations

import copy
import json

import pytest

from analytics import store
from analytics.consistency import instruction_following as inf
from analytics.consistency import results
from analytics.core.rubrics import INSTRUCTION_LABELS, OUTPUT_LABELS
from analytics.ingest.load import ingest_file

RULE_IDS = tuple(r.rule_id for r in inf.RULES)


def labels(**given: str) -> dict[str, str]:
    """An output's yes/no labels: "No" unless given ("yes" marks something undesirable, seeds/002)."""
    return {name: given.get(name, "No") for name, _, _ in OUTPUT_LABELS}


def record(
    closed_domain: bool = True,
    constraint: bool = True,
    ranking: list | None = None,
    hallucination: str = "No",
    follows: str = "Yes",
) -> dict:
    """One rated submission: the seeds/002 closed-domain example (email and bullet points -> reply), an explicit
    constraint ("your answer should be 2 paragraphs long"), o1 rated 6 and o2 rated 3."""
    instruction_labels = {name: False for name in INSTRUCTION_LABELS}
    instruction_labels.update(tag="Generation", closed_domain=closed_domain, explicit_constraint=constraint)
    outs = [("o1", 6), ("o2", 3)]
    return {
        "format": "concord.instruction_following/v1",
        "submission_id": "if-1-c01",
        "task_id": "if-1",
        "rater_id": "c01",
        "role": "contractor",
        "submitted_at": "2026-03-04T09:12:40Z",
        "duration_s": 288,
        "status": "rated",
        "skip_reason": None,
        "instruction": "Reply to this email using only the bullet points; your answer should be 2 paragraphs long.",
        "instruction_labels": instruction_labels,
        "outputs": [
            {
                "output_id": oid,
                "text": f"Reply {oid}",
                "rating": rating,
                "labels": labels(hallucination=hallucination, follows_constraint=follows),
            }
            for oid, rating in outs
        ],
        "ranking": [["o1"], ["o2"]] if ranking is None else ranking,
        "comment": "",
    }


def found(tmp_path, rec: dict) -> dict[str, tuple[bool, str]]:
    """Load the record into a fresh store; rule id -> (violated, detail) of its submission."""
    path = tmp_path / "if.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    con = store.open_store(":memory:")
    try:
        ingest_file(con, path)
        df = results.check(con, (inf.RUBRIC,))
    finally:
        con.close()
    return {row.rule_id: (bool(row.violated), row.detail) for row in df.itertuples()}


def broken(res: dict[str, tuple[bool, str]]) -> set[str]:
    """The rules a submission breaks."""
    return {rid for rid, (v, _) in res.items() if v}


def test_a_consistent_closed_domain_submission_is_checked_only_on_its_ranking(tmp_path):
    res = found(tmp_path, record())
    assert res == {"if_ranking_follows_ratings": (False, "")}


def test_hallucination_only_on_closed_domain_instructions(tmp_path):
    # "Hallucinations (yes/no): Only applies if the instruction is closed domain." Not applicable is no rating.
    ok = found(tmp_path, record(closed_domain=False, hallucination="Not applicable"))
    assert ok["if_hallucination_closed_domain"] == (False, "")
    res = found(tmp_path, record(closed_domain=False, hallucination="No"))
    assert broken(res) == {"if_hallucination_closed_domain"}
    assert res["if_hallucination_closed_domain"][1] == (
        "hallucination labelled on o1 No, o2 No though the instruction is marked not closed_domain"
    )


def test_constraint_label_only_where_the_instruction_has_one(tmp_path):
    # "Output follows explicit constraint in the instruction: Only applies if the instruction contains an explicit
    # constraint."
    ok = found(tmp_path, record(constraint=False, follows="Not applicable"))
    assert ok["if_constraint_needs_constraint"] == (False, "")
    res = found(tmp_path, record(constraint=False, follows="Yes"))
    assert broken(res) == {"if_constraint_needs_constraint"}
    assert "follows_constraint labelled on o1 Yes, o2 Yes" in res["if_constraint_needs_constraint"][1]


def test_ranking_agrees_with_the_ratings_ties_allowed(tmp_path):
    # "Rank them from best to worst, including ties ... If the outputs are close in quality, don't hesitate to mark
    # them as a tie": a tie of o1 (6) and o2 (3) ranks neither below the other.
    assert not broken(found(tmp_path, record(ranking=[["o1", "o2"]])))
    res = found(tmp_path, record(ranking=[["o2"], ["o1"]]))
    assert broken(res) == {"if_ranking_follows_ratings"}
    assert res["if_ranking_follows_ratings"][1] == "o1 rated 6 is ranked 2, below o2 rated 3 ranked 1"


def test_ranking_of_equally_rated_outputs_is_not_checked(tmp_path):
    rec = record(ranking=[["o2"], ["o1"]])
    rec["outputs"][1]["rating"] = 6
    assert "if_ranking_follows_ratings" not in found(tmp_path, rec)


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_a_submission_edited_to_break_one_rule_is_reported_with_that_rule_only(tmp_path, rule_id):
    base = record(closed_domain=False, constraint=False, hallucination="Not applicable", follows="Not applicable")
    assert set(found(tmp_path, base)) == set(RULE_IDS) and not broken(found(tmp_path, base))
    edited = copy.deepcopy(base)
    if rule_id == "if_hallucination_closed_domain":
        edited["outputs"][1]["labels"]["hallucination"] = "Yes"
    elif rule_id == "if_constraint_needs_constraint":
        edited["outputs"][0]["labels"]["follows_constraint"] = "No"
    elif rule_id == "if_ranking_follows_ratings":
        edited["ranking"] = [["o2"], ["o1"]]
    assert broken(found(tmp_path, edited)) == {rule_id}


def test_skipped_submissions_are_not_checked(tmp_path):
    rec = record(closed_domain=False)
    rec.update(status="skipped", skip_reason="foreign language", ranking=[])
    for out in rec["outputs"]:
        out.pop("rating")
        out.pop("labels")
    assert found(tmp_path, rec) == {}


def test_every_rule_quotes_the_document_and_names_what_it_reads():
    for r in inf.RULES:
        assert r.rubric == "instruction_following" and r.flags and r.fields
        assert '"' in r.description
