"""Answer comparison rules (analytics/consistency/answer_comparison.py) on submissions in the rubric's own file
format (docs/formats.md section 2), each example taken from the wording of seeds/000_f96e06de9b1c697e.txt."""

from __future__ import annotations

import copy
import json

import pytest

from analytics import store
from analytics.consistency import answer_comparison as ac
from analytics.consistency import results
from analytics.core.rubrics import ABSOLUTE_LEVELS, ANSWER_CATEGORIES, COMPARISON_LEVELS
from analytics.ingest.load import ingest_file

CATEGORIES = tuple(name for name, _ in ANSWER_CATEGORIES)
RULE_IDS = tuple(r.rule_id for r in ac.RULES)


def derived(a: dict, b: dict) -> dict:
    """Comparisons that follow from the absolute ratings (seeds/000: same = Neutral, 1 apart = better, 2+ = much
    better); usefulness follows the same way here, which the rubric allows."""
    out = {}
    for cat in CATEGORIES:
        d = ABSOLUTE_LEVELS.index(b[cat]) - ABSOLUTE_LEVELS.index(a[cat])
        out[cat] = COMPARISON_LEVELS[2 + max(-2, min(2, d))]
    return out


def record(a: dict, b: dict, comparison: dict | None = None, kind: str = "normal", flag: str = "") -> dict:
    """One rated (or flagged) submission with absolute ratings a and b, shown in stored order."""
    return {
        "format": "concord.answer_comparison/v1",
        "submission_id": "ac-1-c01",
        "task_id": "ac-1",
        "rater_id": "c01",
        "role": "contractor",
        "submitted_at": "2026-03-02T14:05:11Z",
        "duration_s": 400,
        "task_kind": kind,
        "question": "Why is processed food significantly cheaper than unprocessed food?",
        "question_flags": {"does_not_make_sense": flag == "does_not_make_sense", "should_not_be_answered": False},
        "display_order": ["A", "B"],
        "options": {
            "A": {"answer_id": "ans-a", "answer": "Processed food is cheaper ...", "ratings": a},
            "B": {"answer_id": "ans-b", "answer": "It is not.", "ratings": b},
        },
        "comparison": derived(a, b) if comparison is None else comparison,
        "comment": "",
    }


GOOD = dict.fromkeys(CATEGORIES, "Good")
NEUTRAL = dict.fromkeys(CATEGORIES, "Neutral")


def found(tmp_path, *records: dict) -> dict[str, tuple[bool, str]]:
    """Load the records as one file into a fresh store; rule id -> (violated, detail) of its submission."""
    path = tmp_path / "ac.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    con = store.open_store(":memory:")
    try:
        ingest_file(con, path)
        df = results.check(con, (ac.RUBRIC,))
    finally:
        con.close()
    return {row.rule_id: (bool(row.violated), row.detail) for row in df.itertuples()}


def broken(res: dict[str, tuple[bool, str]]) -> set[str]:
    """The rules a submission breaks."""
    return {rid for rid, (v, _) in res.items() if v}


def test_a_consistent_submission_breaks_nothing_and_is_checked_by_the_rules_that_apply(tmp_path):
    # A Good on everything, B Neutral: "Better: Absolute ratings differ by 1" -> "A better" on every category.
    res = found(tmp_path, record(GOOD, NEUTRAL))
    assert broken(res) == set()
    assert set(res) == {"ac_comparison_follows_absolute", "ac_good_needs_neutral"}  # no Very good, not flagged


def test_comparison_follows_absolute_ratings(tmp_path):
    # seeds/000: "Much better: Absolute ratings differ by 2 or more" -- Good vs Bad is "A much better".
    a, b = dict(GOOD), dict(NEUTRAL, core="Bad")
    ok = record(a, b)
    assert ok["comparison"]["core"] == "A much better"
    assert not broken(found(tmp_path, ok))
    # "Better: Absolute ratings differ by 1": Good vs Neutral clicked as "A much better" breaks the rule.
    bad = record(GOOD, NEUTRAL, comparison=dict(derived(GOOD, NEUTRAL), core="A much better"))
    res = found(tmp_path, bad)
    assert broken(res) == {"ac_comparison_follows_absolute"}
    assert res["ac_comparison_follows_absolute"][1] == (
        "core_comparison: A Good vs B Neutral should be 'A better', is 'A much better'"
    )


def test_usefulness_comparison_is_not_derived(tmp_path):
    # "For usefulness overall, you should instead go by how convincingly one answer is better than the other."
    res = found(tmp_path, record(GOOD, NEUTRAL, comparison=dict(derived(GOOD, NEUTRAL), usefulness="Equally good")))
    assert not broken(res)


def test_comparison_as_clicked_is_read_in_stored_order(tmp_path):
    # Shown B first: the rater clicks "B better" for the stored A being better; the loader flips it.
    rec = record(GOOD, NEUTRAL)
    rec["display_order"] = ["B", "A"]
    rec["comparison"] = {cat: "B better" for cat in CATEGORIES}
    assert not broken(found(tmp_path, rec))


def test_good_needs_unsupported_and_core_at_least_neutral(tmp_path):
    # "Both 'Unsupported information' and 'Core information' should be at least neutral for a good rating".
    ok = dict(NEUTRAL, usefulness="Good", coherence="Good", side="Good")
    assert not broken(found(tmp_path, record(ok, NEUTRAL)))
    bad = dict(GOOD, core="Bad")
    res = found(tmp_path, record(bad, NEUTRAL))
    assert broken(res) == {"ac_good_needs_neutral"}
    assert res["ac_good_needs_neutral"][1] == "A is Good overall with core Bad"


def test_very_good_needs_unsupported_and_core_at_least_good(tmp_path):
    # "Both 'Unsupported information' and 'Core information' should be at least good for a very good rating".
    ok = dict(GOOD, usefulness="Very good", unsupported="Very good")
    assert not broken(found(tmp_path, record(ok, NEUTRAL)))
    bad = dict(GOOD, usefulness="Very good", core="Neutral")
    res = found(tmp_path, record(bad, NEUTRAL))
    assert broken(res) == {"ac_very_good_needs_good"}
    assert res["ac_very_good_needs_good"][1] == "A is Very good overall with core Neutral"
    assert "ac_good_needs_neutral" not in res  # no option is Good overall: that rule does not check it


def test_fact_checking_absolute_ratings_are_neutral(tmp_path):
    # "Absolute ratings: these should be rare; always mark them as Neutral if you see them."
    ok = found(tmp_path, record(NEUTRAL, NEUTRAL, kind="fact_checking"))
    assert not broken(ok) and "ac_fact_checking_neutral" in ok
    res = found(tmp_path, record(GOOD, NEUTRAL, kind="fact-checking"))
    assert broken(res) == {"ac_fact_checking_neutral"}
    assert res["ac_fact_checking_neutral"][1].startswith("A coherence Good, A core Good")
    assert "ac_fact_checking_neutral" not in found(tmp_path, record(GOOD, NEUTRAL))  # a normal task


def test_fact_checking_comparisons_compare_the_fact_checking_not_the_absolute_ratings(tmp_path):
    # seeds/000, "Fact-checking task": "you will be comparing the quality of the fact-checking, not the actual
    # answers themselves"; the absolute ratings are placeholders (Neutral), so A better on core breaks nothing.
    comparison = dict(derived(NEUTRAL, NEUTRAL), core="A better")
    res = found(tmp_path, record(NEUTRAL, NEUTRAL, comparison=comparison, kind="fact_checking"))
    assert not broken(res) and "ac_comparison_follows_absolute" not in res
    # The same ratings on a normal task break the comparison rule.
    assert broken(found(tmp_path, record(NEUTRAL, NEUTRAL, comparison=comparison))) == {
        "ac_comparison_follows_absolute"
    }


def test_a_flagged_question_has_no_ratings(tmp_path):
    # "If you flag a question, you do not need to do anything else except click the submit button."
    ok = record(GOOD, NEUTRAL, comparison={}, flag="does_not_make_sense")
    for opt in ok["options"].values():
        opt.pop("ratings")
    res = found(tmp_path, ok)
    assert res == {"ac_flagged_no_ratings": (False, "")}
    # Flagged and rated anyway: the loader keeps the ratings out (quarantine) but the clicks stay in details.
    bad = record(GOOD, NEUTRAL, flag="does_not_make_sense")
    res = found(tmp_path, bad)
    assert broken(res) == {"ac_flagged_no_ratings"}
    assert res["ac_flagged_no_ratings"][1] == "8 comparison ratings clicked"


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_a_submission_edited_to_break_one_rule_is_reported_with_that_rule_only(tmp_path, rule_id):
    base = record(GOOD, NEUTRAL)
    if rule_id == "ac_fact_checking_neutral":
        base = record(NEUTRAL, NEUTRAL, kind="fact_checking")
    if rule_id == "ac_flagged_no_ratings":
        base = record(GOOD, NEUTRAL, comparison={}, flag="does_not_make_sense")
        for opt in base["options"].values():
            opt.pop("ratings")
    assert not broken(found(tmp_path, base))
    edited = copy.deepcopy(base)
    if rule_id == "ac_comparison_follows_absolute":
        edited["comparison"]["side"] = "Equally good"
    elif rule_id == "ac_good_needs_neutral":
        edited = record(dict(GOOD, unsupported="Very bad"), NEUTRAL)
    elif rule_id == "ac_very_good_needs_good":
        edited = record(dict(GOOD, usefulness="Very good", unsupported="Neutral"), NEUTRAL)
    elif rule_id == "ac_fact_checking_neutral":
        edited = record(NEUTRAL, dict(NEUTRAL, coherence="Bad"), kind="fact_checking")
    elif rule_id == "ac_flagged_no_ratings":
        edited["comparison"] = {"usefulness": "A better"}
    assert broken(found(tmp_path, edited)) == {rule_id}


def test_every_rule_quotes_the_document_and_names_what_it_reads():
    for r in ac.RULES:
        assert r.rubric == "answer_comparison" and r.flags and r.fields
        assert '"' in r.description  # the document's words, quoted
