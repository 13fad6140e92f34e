"""Article Likert rules (analytics/consistency/article_likert.py) on annotator files in the rubric's own format
(docs/formats.md section 5): the keys, the 1-5 scores and the 0 default are seeds/004_036f9224cbaf4c66.txt's."""

from __future__ import annotations

import copy
import json

import pytest

from analytics import store
from analytics.consistency import article_likert as al
from analytics.consistency import catalogue, results
from analytics.ingest.load import ingest_file

RULE_IDS = tuple(r.rule_id for r in al.RULES)
FLAGGING = tuple(r.rule_id for r in al.RULES if r.flags)


def topic(first: int = 5, second: int = 3, third: int = 2, reference: str = "first", by_topic: str = "first") -> dict:
    """One topic as an annotator returns it (seeds/004 keys); the best predictions as `first_prediction` etc."""
    return {
        "topic": "2019 Mekong flood",
        "reference": "Heavy rain flooded the lower Mekong in September 2019.",
        "first_prediction": "In September 2019 heavy monsoon rain flooded the lower Mekong.",
        "second_prediction": "The Mekong is a river in Asia.",
        "third_prediction": "A flood happened at a time in a place.",
        "first_prediction_likert": first,
        "second_prediction_likert": second,
        "third_prediction_likert": third,
        "best_prediction_reference": f"{reference}_prediction",
        "best_prediction_topic": f"{by_topic}_prediction",
    }


def found(tmp_path, *topics: dict) -> dict[str, tuple[bool, str]]:
    """Load the topics as annotator 7's file into a fresh store; rule id -> (violated, detail) of its first topic."""
    path = tmp_path / "preference_json_7_completed.json"
    path.write_text(json.dumps(list(topics)), encoding="utf-8")
    con = store.open_store(":memory:")
    try:
        ingest_file(con, path)
        df = results.check(con, (al.RUBRIC,))
    finally:
        con.close()
    first = f"annotator_7/{topics[0]['topic']}"
    return {row.rule_id: (bool(row.violated), row.detail) for row in df.itertuples() if row.submission_id == first}


def broken(res: dict[str, tuple[bool, str]], rules: tuple[str, ...] = FLAGGING) -> set[str]:
    """The rules (of `rules`) a topic breaks."""
    return {rid for rid, (v, _) in res.items() if v and rid in rules}


def test_the_best_prediction_has_the_highest_likert_score(tmp_path):
    # "choose the prediction that you think is the best representation": first (5) over second (3) and third (2).
    res = found(tmp_path, topic())
    assert set(res) == set(RULE_IDS) and res["al_best_is_highest"] == (False, "")
    res = found(tmp_path, topic(by_topic="second"))
    assert res["al_best_is_highest"] == (
        True,
        "best_prediction_topic second (Likert 3) is not the highest: first (Likert 5)",
    )
    both = found(tmp_path, topic(reference="third", by_topic="second"))["al_best_is_highest"][1]
    assert both == (
        "best_prediction_reference third (Likert 2) is not the highest: first (Likert 5); "
        "best_prediction_topic second (Likert 3) is not the highest: first (Likert 5)"
    )


def test_a_best_prediction_among_tied_scores_keeps_the_rule(tmp_path):
    # "It is totally fine to give multiple summaries the same score": second ties first at 5.
    res = found(tmp_path, topic(second=5, reference="first", by_topic="second"))
    assert res["al_best_is_highest"] == (False, "")


def test_a_topic_not_yet_annotated_is_not_checked(tmp_path):
    # "The default value for each summary is 0, meaning you have not yet annotated the likert judgment."
    assert found(tmp_path, topic(second=0)) == {}


def test_reference_equal_to_topic_is_reported_and_never_flags(tmp_path):
    # Alex note: "after defining these it feels they are the same": equal is this rule's "violated".
    assert not catalogue.rule("al_reference_equals_topic").flags
    assert found(tmp_path, topic())["al_reference_equals_topic"] == (True, "both best predictions are first")
    different = topic(first=5, second=5, reference="first", by_topic="second")
    assert found(tmp_path, different)["al_reference_equals_topic"] == (False, "")


@pytest.mark.parametrize("rule_id", FLAGGING)
def test_a_topic_edited_to_break_one_rule_is_reported_with_that_rule_only(tmp_path, rule_id):
    base = topic(second=5, by_topic="second")  # best predictions differ, both among the highest
    assert not broken(found(tmp_path, base), RULE_IDS)
    edited = copy.deepcopy(base)
    edited["second_prediction_likert"] = 4  # best_prediction_topic second no longer among the highest
    assert broken(found(tmp_path, edited), RULE_IDS) == {rule_id}
