"""Preference ranking rules (analytics/consistency/preference_ranking.py) on submissions in the rubric's own file
format (docs/formats.md section 4). The responses, their ids and the generic justification are the document's own
(seeds/003_473367030d0e3705.txt, "Bad Justification Examples": Set A and Set B, "Why it's bad: Too Generic")."""

from __future__ import annotations

import copy
import json

import pandas as pd
import pytest

from analytics import store
from analytics.consistency import preference_ranking as pr
from analytics.consistency import results
from analytics.ingest.load import ingest_file

RULE_IDS = tuple(r.rule_id for r in pr.RULES)
# seeds/003, Set A (prom) and Set B (lab results): each response's numerical id and text.
SET_A = {
    "2468013579246801": "Hey! Sooo, prom's coming up, and I'm kinda freaking out about what to wear. Got any ideas?",
    "8024680135792468": "Hey! Can't believe prom's almost here! Any thoughts on what we're wearing? I'm kinda lost tbh.",
}
SET_B = {
    "5792468013579246": "Hello! Your recent blood lab results are available. Everything looks good overall.",
    "0135792468024680": "Good day! Your latest blood lab results are in. Overall, things are looking positive.",
}
A1, A2 = SET_A
B1, B2 = SET_B
# A specific justification of Set A: ids, evidence quoted, subjective noted; three sentences.
JUSTIFY_A = (
    f"{A1} is better because it keeps the excited tone of the chat and asks straight out for outfit ideas and tips. "
    f'{A2} is just as casual but admits "I\'m kinda lost tbh", which gives the friend less to work with. '
    f"The ranking is subjective, and another person could reasonably prefer {A2}."
)
JUSTIFY_B = (
    f'{B1} is better because it says the lab results "look good overall" and asks when to review them together. '
    f'{B2} opens with "Good day!" and promises "a few points we should chat about", which is friendly but vaguer. '
    "Both avoid medical advice, so the ranking is subjective."
)


def too_generic(first: str, second: str, word: str = "well") -> str:
    """seeds/003's "Too Generic" justification, with the response ids put in (two sentences)."""
    return (
        f"{first} and {second} are equally good because they match the tone and conversation history {word}. They "
        "are nearly identical with slight variations in word choice, but nothing that makes a huge difference in the "
        "quality of the response."
    )


def ratings(accuracy: int = 5, grammar: int = 5, tone: int = 5, citation: int | None = None) -> dict:
    """A response's 1-5 ratings: High (4-5) unless given."""
    return {
        "accuracy": accuracy,
        "instruction_following": 5,
        "relevance": 4,
        "comprehensiveness": 4,
        "logical_reasoning": 5,
        "grammar_presentation": grammar,
        "tone_style": tone,
        "citation_correctness": citation,
    }


def record(
    task: str = "A",
    rater: str = "c01",
    justification: str = JUSTIFY_A,
    first: dict | None = None,
    second: dict | None = None,
    ranks: tuple[int, int] = (1, 2),
) -> dict:
    """One rated submission of Set A (or B): the first response Best with every dimension High, the second Rank 2
    with the critical dimensions High and two non-critical Medium ("A maximum of 2 Non-Critical Dimensions")."""
    responses = SET_A if task == "A" else SET_B
    given = [first or ratings(), second or ratings(grammar=3, tone=3)]
    return {
        "format": "concord.preference_ranking/v1",
        "submission_id": f"pr-{task}-{rater}",
        "task_id": f"pr-{task}",
        "rater_id": rater,
        "role": "contractor",
        "submitted_at": "2026-03-04T09:12:40Z",
        "duration_s": 420,
        "conversation": [{"role": "user", "text": "Help me write a message."}],
        "prompt": f"Write the message for set {task}.",
        "action": "rate",
        "responses": [
            {"response_id": rid, "text": text, "rank": rank, "ratings": r}
            for (rid, text), rank, r in zip(responses.items(), ranks, given, strict=True)
        ],
        "ranking_type": "Subjective",
        "justification": justification,
    }


def found_all(tmp_path, *recs: dict) -> dict[str, dict[str, tuple[bool, str]]]:
    """Load the records into a fresh store; submission id -> rule id -> (violated, detail)."""
    path = tmp_path / "pr.json"
    path.write_text(json.dumps(list(recs)), encoding="utf-8")
    con = store.open_store(":memory:")
    try:
        ingest_file(con, path)
        df = results.check(con, (pr.RUBRIC,))
    finally:
        con.close()
    out: dict[str, dict[str, tuple[bool, str]]] = {r["submission_id"]: {} for r in recs}
    for row in df.itertuples():
        out[row.submission_id][row.rule_id] = (bool(row.violated), row.detail)
    return out


def found(tmp_path, rec: dict) -> dict[str, tuple[bool, str]]:
    """Rule id -> (violated, detail) of one submission loaded alone."""
    return found_all(tmp_path, rec)[rec["submission_id"]]


def broken(res: dict[str, tuple[bool, str]]) -> set[str]:
    """The rules a submission breaks."""
    return {rid for rid, (v, _) in res.items() if v}


def test_the_catalogue_holds_the_documents_bands_and_groups():
    # seeds/003 tables: "1-2 (Low) | 3 (Medium) | 4-5 (High)"; five critical and three non-critical dimensions.
    assert (pr.LOW, pr.MEDIUM, pr.HIGH) == ("Low", "Medium", "High")
    assert pr.CRITICAL == ("accuracy", "instruction_following", "relevance", "comprehensiveness", "logical_reasoning")
    assert pr.NON_CRITICAL == ("grammar_presentation", "tone_style", "citation_correctness")


def test_a_submission_following_the_document_keeps_every_rule(tmp_path):
    res = found(tmp_path, record())
    assert set(res) == set(RULE_IDS) and not broken(res)


def test_best_needs_every_dimension_high(tmp_path):
    # "Rank 1 (Best) ... All critical and non-critical dimensions must be rated High": both Best, one tone Medium.
    res = found(tmp_path, record(ranks=(1, 1)))
    assert broken(res) == {"pr_rank1_needs_all_high"}
    assert res["pr_rank1_needs_all_high"][1] == (
        f"response {A2} in rank 1: 2 non-critical Medium (at most 0): grammar_presentation 3, tone_style 3"
    )
    assert "pr_rank2_needs_critical_high" not in res  # no response in rank 2: not checked


def test_rank_2_allows_two_non_critical_medium_but_no_critical_below_high(tmp_path):
    # "All critical dimensions must be rated High; A maximum of 2 Non-Critical Dimensions are rated Medium."
    # Accuracy 3: "Central claims are correct; up to one supporting claim may be incorrect" is Medium.
    res = found(tmp_path, record(second=ratings(accuracy=3, grammar=3)))
    assert broken(res) == {"pr_rank2_needs_critical_high"}
    assert res["pr_rank2_needs_critical_high"][1] == f"response {A2} in rank 2: critical not High: accuracy 3 (Medium)"
    three = found(tmp_path, record(second=ratings(grammar=3, tone=3, citation=3)))
    assert three["pr_rank2_needs_critical_high"] == (
        True,
        f"response {A2} in rank 2: 3 non-critical Medium (at most 2): grammar_presentation 3, tone_style 3, "
        "citation_correctness 3",
    )
    # A non-critical Low is below what rank 2 allows (only Medium is).
    low = found(tmp_path, record(second=ratings(grammar=2)))
    assert low["pr_rank2_needs_critical_high"] == (
        True,
        f"response {A2} in rank 2: non-critical Low: grammar_presentation 2 (Low)",
    )


def test_a_critical_dimension_not_rated_is_not_high_and_citation_not_rated_is_not_applicable(tmp_path):
    first = ratings()
    first["accuracy"] = None  # null: not rated
    res = found(tmp_path, record(first=first))
    assert res["pr_rank1_needs_all_high"] == (True, f"response {A1} in rank 1: critical not High: accuracy not rated")
    # "Citation Correctness (Rare)": the base record leaves it unrated and keeps every rule.
    assert record()["responses"][0]["ratings"]["citation_correctness"] is None


def test_worst_bucket_is_not_checked_by_these_rules(tmp_path):
    res = found(tmp_path, record(ranks=(3, 3)))
    assert "pr_rank1_needs_all_high" not in res and "pr_rank2_needs_critical_high" not in res


def test_justification_names_the_response_ids_not_response_1(tmp_path):
    # "Avoid referring to responses as 'Response 1' or 'Response 2.' Always use the unique response IDs."
    positional = JUSTIFY_A.replace(A1, "Response 1").replace(A2, "Response 2")
    res = found(tmp_path, record(justification=positional))
    assert broken(res) == {"pr_justification_names_ids"}
    assert res["pr_justification_names_ids"][1] == (
        f'calls a response "Response 1", "Response 2"; does not name response {A1}, {A2}'
    )
    one_id = JUSTIFY_A.replace(A2, "the other one")
    assert found(tmp_path, record(justification=one_id))["pr_justification_names_ids"] == (
        True,
        f"does not name response {A2}",
    )


def test_response_ids_inside_longer_numbers_or_words_are_not_names():
    assert pr.names_ids_problem(f"Response {A1}5 beats x{A2}.", [A1, A2]) == f"does not name response {A1}, {A2}"
    assert pr.names_ids_problem(f"Response {A1} beats Response {A2}.", [A1, A2]) == ""  # "Response 2468..." is an id


@pytest.mark.parametrize(
    ("text", "n"),
    [
        (JUSTIFY_A, 3),
        (too_generic(A1, A2), 2),
        ("One. Two! Three? Four...", 4),
        ('It says "Hey! Sooo, prom\'s coming up. Got any ideas?" and stops. Next.', 2),  # a quote is one unit
        ("It cites e.g. the date, i.e. the 3.5 figure, etc. and more.", 1),
        ("Is it right? No. It is wrong", 3),  # "No." is an answer, and a last sentence needs no full stop
        ("", 0),
        ("  ...  ", 0),
    ],
)
def test_sentences_are_counted_as_documented(text, n):
    assert pr.sentence_count(text) == n


def test_justification_runs_about_three_to_four_sentences(tmp_path):
    # "Keep justifications concise, typically 3-4 sentences, unless the responses are complex or very similar."
    one = found(tmp_path, record(justification=f"{A1} is better than {A2}."))
    assert broken(one) == {"pr_justification_length"}
    assert one["pr_justification_length"][1] == "1 sentences (typically 3-4; 2-6 tolerated)"
    seven = " ".join([JUSTIFY_A, JUSTIFY_A.replace("better", "stronger"), "Both are short."])
    assert found(tmp_path, record(justification=seven))["pr_justification_length"][0]
    six = " ".join([JUSTIFY_A, JUSTIFY_A.replace("better", "stronger")])
    assert not broken(found(tmp_path, record(justification=six)))


def test_an_empty_justification_names_no_id_and_has_no_sentence(tmp_path):
    res = found(tmp_path, record(justification=""))
    assert res["pr_justification_names_ids"] == (True, "no justification")
    assert res["pr_justification_length"][0]
    assert "pr_boilerplate_justification" not in res  # nothing to compare


def test_the_threshold_separates_different_justifications_from_a_reused_template():
    # Two genuinely different justifications (Set A, Set B) score below it; the document's "Too Generic"
    # justification reused on Set B with the ids swapped and one word changed scores above it.
    def pair(a: str, b: str) -> list[str]:
        df = pd.DataFrame(
            {
                "submission_id": ["s1", "s2"],
                "task_id": ["pr-A", "pr-B"],
                "rater_id": ["c01", "c01"],
                "justification": [a, b],
                "task_text": ["set A", "set B"],
                "response_ids": [[A1, A2], [B1, B2]],
            }
        )
        return pr.near_duplicates(df)

    assert pair(JUSTIFY_A, JUSTIFY_B) == ["", ""]
    assert pair(JUSTIFY_A, too_generic(B1, B2)) == ["", ""]
    reused = pair(too_generic(A1, A2), too_generic(B2, B1, word="closely"))
    assert reused[0].startswith("near-duplicate (cosine 0.9") and reused[0].endswith("on task pr-B")
    assert reused[1].endswith("on task pr-A")


def test_boilerplate_is_a_near_duplicate_of_the_same_contractors_justification_on_another_task(tmp_path):
    # "You should avoid writing justifications that could apply to multiple tasks."
    a = record("A", "c01", too_generic(A1, A2))
    b = record("B", "c01", too_generic(B2, B1))
    res = found_all(tmp_path, a, b)
    assert broken(res[a["submission_id"]]) == {"pr_boilerplate_justification"}
    assert broken(res[b["submission_id"]]) == {"pr_boilerplate_justification"}
    assert res[a["submission_id"]]["pr_boilerplate_justification"][1] == (
        "near-duplicate (cosine 1.00) of this contractor's justification on task pr-B"
    )
    # The same template from two contractors is each one's first use; specific justifications are no boilerplate.
    other = found_all(tmp_path, a, record("B", "c02", too_generic(B2, B1)))
    assert not any(broken(r) for r in other.values())
    specific = found_all(tmp_path, record("A", "c01", JUSTIFY_A), record("B", "c01", JUSTIFY_B))
    assert not any(broken(r) for r in specific.values())


def test_the_same_conversation_in_two_tasks_may_get_the_same_reasons(tmp_path):
    a = record("A", "c01", too_generic(A1, A2))
    b = copy.deepcopy(a)
    b.update(submission_id="pr-A2-c01", task_id="pr-A2")
    res = found_all(tmp_path, a, b)
    assert res[a["submission_id"]]["pr_boilerplate_justification"] == (False, "")


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_a_submission_edited_to_break_one_rule_is_reported_with_that_rule_only(tmp_path, rule_id):
    base = [record("A", "c01"), record("B", "c01", JUSTIFY_B)]
    assert all(set(r) == set(RULE_IDS) and not broken(r) for r in found_all(tmp_path, *base).values())
    edited = copy.deepcopy(base)
    if rule_id == "pr_rank1_needs_all_high":
        edited[0]["responses"][0]["ratings"]["tone_style"] = 3
    elif rule_id == "pr_rank2_needs_critical_high":
        edited[0]["responses"][1]["ratings"]["relevance"] = 2
    elif rule_id == "pr_justification_names_ids":
        edited[0]["justification"] = JUSTIFY_A.replace(A1, "Response 1")
    elif rule_id == "pr_justification_length":
        edited[0]["justification"] = JUSTIFY_A + " It also uses emojis. Both are short. Neither is rude. Done."
    elif rule_id == "pr_boilerplate_justification":
        edited[0]["justification"] = too_generic(A1, A2)
        edited[1]["justification"] = too_generic(B1, B2)
    res = found_all(tmp_path, *edited)
    assert broken(res[edited[0]["submission_id"]]) == {rule_id}


def test_skipped_and_rejected_submissions_are_not_checked(tmp_path):
    rec = record()
    rec.update(action="reject", rejection_reason="Personal Identifiable Information (PII)", justification="PII.")
    for resp in rec["responses"]:
        resp.pop("rank")
        resp.pop("ratings")
    assert found(tmp_path, rec) == {}
