"""One disagreement side by side (analytics.case_view): options in the order the contractor saw them, ratings
with the contractor beside every researcher and their differences marked, what each rater wrote as labelled
plain text (A and B naming the options, the screen position in words); on hand-built submissions and on the first
case of each demo rubric."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analytics import store
from analytics.ingest.load import ingest_bytes
from analytics.review import case_view as cv
from analytics.review import disagreements as dis

AC = "answer_comparison"


def _record(task: str, rater: str, role: str, order: list[str], clicked: str, ratings: dict, **extra) -> dict:
    rec = {
        "format": "concord.answer_comparison/v1",
        "submission_id": f"{task}-{rater}",
        "task_id": task,
        "rater_id": rater,
        "role": role,
        "submitted_at": "2026-03-02T14:05:11Z",
        "question": "Why is processed food cheaper?",
        "question_flags": {"does_not_make_sense": False, "should_not_be_answered": False},
        "task_kind": "normal",
        "display_order": order,
        "options": {
            "A": {
                "answer": "Scale economies.",
                "answer_id": "ans-a",
                "sources": [{"n": 1, "title": "Cheap food", "domain": "www.npr.org", "trustworthiness": "Neutral"}],
                "ratings": {"usefulness": ratings["A"], "coherence": "Good"},
                "claims": [{"span": "Scale economies", "support": "Weak support", "relevance": "Core"}],
                "strengths": f"{rater} likes A",
            },
            "B": {"answer": "No idea.", "answer_id": "ans-b", "sources": [], "ratings": {"usefulness": ratings["B"]}},
        },
        "comparison": {"usefulness": clicked},
    }
    rec.update(extra)
    return rec


@pytest.fixture
def view(con) -> cv.CaseView:
    """c1 saw B first and clicked "A much better" (stored: B much better); r1 and c2 saw A first."""
    records = [
        _record("q1", "c1", "contractor", ["B", "A"], "A much better", {"A": "Bad", "B": "Good"}),
        _record(
            "q1",
            "r1",
            "researcher",
            ["A", "B"],
            "A better",
            {"A": "Good", "B": "Good"},
            explanations={"usefulness": "A answers the question.", "coherence": "Both read well."},
        ),
        _record("q1", "c2", "contractor", ["A", "B"], "Equally good", {"A": "Good", "B": "Good"}, comment="Tie."),
    ]
    data = ("\n".join(json.dumps(r) for r in records) + "\n").encode()
    assert ingest_bytes(con, data, "q1.jsonl", fmt="answer_comparison").status == "loaded"
    cases = dis.disagreements(con, AC, contractors=("c1",))
    key = dis.CaseKey.from_row(cases.iloc[0])
    return cv.case_view(dis.unit_detail(con, "q1", AC), key)


def test_options_in_the_order_the_contractor_saw_them(view):
    assert view.options["item_id"].tolist() == ["B", "A"]
    assert view.options["label"].tolist() == ["Option B", "Option A"]
    first = view.shown_first.set_index("rater_id")["item_id"].to_dict()
    assert first == {"c1": "B", "c2": "A", "r1": "A"}
    assert view.prompt == "Why is processed food cheaper?"
    assert sorted(view.raters.itertuples(index=False, name=None)) == [
        ("c1", "contractor"),
        ("c2", "contractor"),
        ("r1", "researcher"),
    ]


def test_every_researcher_of_the_unit_is_in_the_case(con):
    """A second researcher who agrees with the contractor is beside the first, and the row still differs (from r1)."""
    records = [
        _record("q2", "c1", "contractor", ["B", "A"], "A much better", {"A": "Bad", "B": "Good"}),
        _record("q2", "r1", "researcher", ["A", "B"], "A better", {"A": "Good", "B": "Good"}),
        _record("q2", "r2", "researcher", ["A", "B"], "B much better", {"A": "Bad", "B": "Good"}),
    ]
    data = ("\n".join(json.dumps(r) for r in records) + "\n").encode()
    assert ingest_bytes(con, data, "q2.jsonl", fmt="answer_comparison").status == "loaded"
    cases = dis.disagreements(con, AC)
    assert len(cases) == 1 and cases.iloc[0]["researcher_id"] == "r1"
    view = cv.case_view(dis.unit_detail(con, "q2", AC), dis.CaseKey.from_row(cases.iloc[0]))
    assert view.researchers == ("r1", "r2")
    assert view.case_columns == ("c1 (contractor)", "r1 (researcher)", "r2 (researcher)")
    case = view.ratings[view.ratings["is_case"]].iloc[0]
    assert (case["c1 (contractor)"], case["r1 (researcher)"], case["r2 (researcher)"]) == (
        "B much better",
        "A better",
        "B much better",
    )
    assert bool(case["differs"])
    a = view.option_ratings("A").set_index("dimension_id")
    assert bool(a.loc["usefulness", "differs"])  # c1 Bad, r1 Good (r2 agrees with c1)
    clicked = view.notes_of("r2").set_index("label")["text"]["Comparisons as clicked"]
    assert clicked == "Usefulness overall: Option B much better (the option shown second)"


def test_a_click_without_a_display_order_names_the_screen_position_only():
    assert cv.as_clicked("A better", None, {}) == "The option shown first better"
    assert cv.as_clicked("Equally good", ["B", "A"], {"A": "Option A"}) == "Equally good"
    assert (
        cv.as_clicked("B slightly better", ["B", "A"], {"A": "Option A"})
        == "Option A slightly better (the option shown second)"
    )


def test_display_order_falls_back_to_positions():
    items = pd.DataFrame({"item_id": ["o1", "o2", "o3"], "label": ["o1", "o2", "o3"]})
    assert cv.display_order(items, None)["item_id"].tolist() == ["o1", "o2", "o3"]
    assert cv.display_order(items, "o3")["item_id"].tolist() == ["o3", "o1", "o2"]
    assert cv.display_order(items, "not an option")["item_id"].tolist() == ["o1", "o2", "o3"]


def test_ratings_side_by_side_pair_first_and_differences_marked(view):
    assert view.rater_columns == ("c1 (contractor)", "r1 (researcher)", "c2 (contractor)")
    assert view.case_columns == ("c1 (contractor)", "r1 (researcher)")
    a = view.option_ratings("A").set_index("dimension_id")
    assert a.loc["usefulness", ["c1 (contractor)", "r1 (researcher)", "c2 (contractor)"]].tolist() == [
        "Bad",
        "Good",
        "Good",
    ]
    assert a.loc["usefulness", "dimension"] == "Usefulness overall"  # the catalogue's label
    assert bool(a.loc["usefulness", "differs"]) and not bool(a.loc["coherence", "differs"])
    b = view.option_ratings("B").set_index("dimension_id")
    assert not b["differs"].any()
    task = view.task_ratings()
    assert task["target"].unique().tolist() == ["comparison"]
    case = task[task["is_case"]]
    assert case["dimension_id"].tolist() == ["usefulness_comparison"]
    # Stored in A/B terms: c1 clicked "A much better" with B shown first.
    assert case[["c1 (contractor)", "r1 (researcher)"]].values.tolist() == [["B much better", "A better"]]
    assert case["differs"].tolist() == [True]
    assert int(view.ratings["is_case"].sum()) == 1


def test_what_the_raters_wrote_is_labelled_text_not_a_dump(view):
    c1 = view.notes_of("c1").set_index("label")["text"]
    # A and B name the options; the screen position is said in words.
    assert c1["Order shown"] == "Option B was shown first"
    assert c1["Comparisons as clicked"] == "Usefulness overall: Option B much better (the option shown first)"
    assert view.notes_of("r1").set_index("label")["text"]["Order shown"] == "Option A was shown first"
    r1 = view.notes_of("r1").set_index("label")["text"]
    assert r1["Explanation: Usefulness overall"] == "A answers the question."
    assert r1["Explanation: Coherence"] == "Both read well."
    assert view.notes_of("c2").set_index("label")["text"]["Comment"] == "Tie."
    # What every submission says alike is listed once, not per rater.
    alike = view.notes_of("").set_index("label")["text"]
    assert alike["Flags"] == "No: does not make sense, should not be answered"
    assert alike["Task kind"] == "normal"
    assert "Flags" not in c1.index
    # About one option: under that option, per rater (the strengths differ), the answer id for all alike.
    about_a = view.notes_of("c1", "A").set_index("label")["text"]
    assert about_a["Strengths"] == "c1 likes A"
    alike_a = view.notes_of("", "A").set_index("label")["text"]
    assert alike_a["Claims"] == "• Scale economies · Weak support · Core"
    assert alike_a["Trustworthiness of the sources"] == "• [1] Neutral"
    assert alike_a["Answer id"] == "ans-a"
    for text in view.notes["text"]:
        assert "{" not in text and "_" not in text, text  # no JSON, no stored key names


def test_readable_values():
    assert cv.readable(None) == ""
    assert cv.readable(True) == "yes"
    assert cv.readable(["a", "b", None]) == "a, b"
    assert cv.readable([{"n": 2, "trust": "High"}, {"x": [1, 2]}]) == "• [2] High\n• [1, 2]"
    assert (
        cv.readable({"pii": False, "tag": "Extract", "asks_advice": True}) == "Yes: asks advice\nNo: pii\nTag: Extract"
    )
    assert cv.readable({"usefulness": "Good"}, {"usefulness": "Usefulness overall"}) == "Usefulness overall: Good"
    deep: object = "x"
    for _ in range(200):
        deep = {"k": deep}
    assert len(cv.readable({"top": deep})) <= dis.MAX_SHOWN_CHARS + 10  # nesting below two levels: one line


def test_canonical_task_without_text_has_no_options(con):
    rows = "task_id,rater_id,role,rubric,dimension,target,value\nd1,c1,contractor,answer_comparison,"
    rows += "usefulness_comparison,comparison,A better\nd1,r1,researcher,answer_comparison,usefulness_comparison,"
    rows += "comparison,B better\n"
    assert ingest_bytes(con, rows.encode(), "d1.csv").status == "loaded"
    key = dis.CaseKey.from_row(dis.disagreements(con, AC).iloc[0])
    view = cv.case_view(dis.unit_detail(con, "d1", AC), key)
    assert view.options.empty and view.shown_first.empty
    assert view.task_ratings()["is_case"].tolist() == [True]
    assert view.notes.empty


@pytest.fixture(scope="module")
def demo_con(demo_store):
    c = store.open_store(demo_store, read_only=True)  # shared by every worker of the run
    yield c
    c.close()


# The demo's four rubrics (the catalogue also holds the real datasets', which the demo does not load).
DEMO_RUBRICS = ("answer_comparison", "instruction_following", "preference_ranking", "article_likert")


@pytest.mark.parametrize("rubric", DEMO_RUBRICS)
def test_first_case_of_every_demo_rubric(demo_con, rubric):
    """Every rubric of the demo: options in display order, each option's ratings under it, the case's row
    marked once and differing, the pair first."""
    cases = dis.disagreements(demo_con, rubric)
    assert not cases.empty, rubric
    key = dis.CaseKey.from_row(cases.iloc[0])
    detail = dis.unit_detail(demo_con, key.task_id, rubric)
    view = cv.case_view(detail, key)
    assert len(view.options) >= 2
    first = view.shown_first.set_index("rater_id")["item_id"]
    if key.contractor_id in first.index:  # comparison rubrics: the option the contractor saw first leads
        assert view.options["item_id"].iloc[0] == first[key.contractor_id]
    else:
        assert view.options["item_id"].tolist() == detail.items["item_id"].tolist()
    researchers = set(detail.ratings.loc[detail.ratings["role"] == "researcher", "rater_id"])
    assert view.case_columns[:2] == (f"{key.contractor_id} (contractor)", f"{key.researcher_id} (researcher)")
    assert set(view.case_columns[1:]) == {f"{r} (researcher)" for r in researchers}
    assert set(view.rater_columns) == {
        f"{r} ({role})" for r, role in zip(detail.ratings["rater_id"], detail.ratings["role"], strict=True)
    }
    case = view.ratings[view.ratings["is_case"]]
    assert len(case) == 1 and bool(case["differs"].iloc[0])
    assert case[list(view.case_columns[:2])].values.tolist() == [
        [cases.iloc[0]["contractor_value"], cases.iloc[0]["researcher_value"]]
    ]
    in_options = sum(len(view.option_ratings(i)) for i in view.options["item_id"])
    assert in_options + len(view.task_ratings()) == len(view.ratings)
    if key.target in set(view.options["item_id"]):  # a case about one option is under that option
        assert view.option_ratings(key.target)["is_case"].sum() == 1
