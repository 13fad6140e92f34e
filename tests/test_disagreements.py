"""Disagreements on the primary dimension: one case per contractor rating with every researcher inside, severity
from the catalogue's scales, ranking, filters, unit detail and review notes (the latest note's status, persistence
across reopen and re-ingest)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from analytics import store as store_mod
from analytics.agreement import pairing as pg
from analytics.agreement import sides as sd
from analytics.core.filters import Filters
from analytics.feedback import cases as feedback_cases
from analytics.ingest.load import ingest_bytes
from analytics.review import disagreements as dis

AC, UC = "answer_comparison", "usefulness_comparison"
HEADER = "task_id,rater_id,role,rubric,dimension,target,value,submitted_at\n"


def _load(con, rows: list[tuple], name: str) -> None:
    """Canonical CSV rows (task, rater, role, rubric, dimension, target, value, day of March 2026)."""
    lines = [
        f"{t},{r},{role},{rb},{dim},{tg},{v},2026-03-{day:02d}T10:00:00" for t, r, role, rb, dim, tg, v, day in rows
    ]
    result = ingest_bytes(con, (HEADER + "\n".join(lines) + "\n").encode(), name)
    assert result.status == "loaded" and result.rows_quarantined == 0, result.errors


def _pair(task, c, cv, x, xv, rubric=AC, dim=UC, target="comparison", day=1, r="r1") -> list[tuple]:
    return [
        (task, c, "contractor", rubric, dim, target, cv, day),
        (task, r, "researcher", rubric, dim, target, xv, day),
    ]


# Hand-built cases on the comparison scale (A much better .. B much better), expected severity and steps.
AC_CASES = {
    "d1": ("A much better", "B better", dis.OPPOSITE, 3),
    "d2": ("A better", "B better", dis.OPPOSITE, 2),
    "d3": ("A much better", "Equally good", dis.TWO_STEPS, 2),
    "d4": ("A better", "Equally good", dis.ONE_STEP, 1),
    "d5": ("A better", "A much better", dis.VERY, 1),
}


@pytest.fixture
def ac_store(con):
    rows = []
    for i, (task, (cv, xv, _, _)) in enumerate(AC_CASES.items(), start=1):
        rows += _pair(task, "c1", cv, "r1", xv, day=i)
    rows += _pair("d6", "c2", "B much better", "r1", "B much better", day=6)  # agreement: not a case
    rows += _pair("d7", "c2", "Equally good", "r1", "B much better", day=7)  # two steps, later than d3
    rows += _pair("d1", "c1", "Very good", "r1", "Very bad", dim="usefulness", target="A")  # not primary
    _load(con, rows, "cases.csv")
    return con


def test_severity_and_ranking_on_comparison_scale(ac_store):
    cases = dis.disagreements(ac_store, AC)
    assert set(cases["dimension"]) == {UC}  # only the primary dimension
    by_task = cases.set_index("task_id")
    for task, (_, _, severity, steps) in AC_CASES.items():
        assert by_task.loc[task, "severity"] == severity, task
        assert by_task.loc[task, "steps"] == steps, task
    assert "d6" not in by_task.index
    # Most severe first; within a severity more steps first, then the most recent contractor rating first.
    assert cases["task_id"].tolist() == ["d1", "d2", "d7", "d3", "d4", "d5"]
    assert cases["rank"].tolist() == [1, 2, 3, 4, 5, 6]
    assert set(cases["status"]) == {"open"}


def test_filters_by_contractor_severity_and_date(ac_store):
    assert dis.disagreements(ac_store, AC, contractors=("c2",))["task_id"].tolist() == ["d7"]
    sev = dis.disagreements(ac_store, AC, severities=(dis.OPPOSITE, dis.VERY))
    assert sev["task_id"].tolist() == ["d1", "d2", "d5"]
    late = dis.disagreements(ac_store, AC, Filters(date_from=dt.date(2026, 3, 4)))
    assert late["task_id"].tolist() == ["d7", "d4", "d5"]
    # The sidebar's rater filter chooses whose disagreements are listed (the contractor side of the one
    # pairing): a researcher in it lists nothing, and never narrows the researcher side.
    assert dis.disagreements(ac_store, AC, Filters(raters=("c2",)))["task_id"].tolist() == ["d7"]
    assert dis.disagreements(ac_store, AC, Filters(raters=("r1",))).empty
    assert dis.disagreements(ac_store, AC, Filters(raters=("nobody",))).empty
    # The role filter is replaced by the comparison's roles.
    assert len(dis.disagreements(ac_store, AC, Filters(roles=("researcher",)))) == 6
    with pytest.raises(ValueError, match="unknown severity"):
        dis.disagreements(ac_store, AC, severities=("bad",))


def test_case_list_is_the_one_pairing_under_rater_and_date_filters(con):
    """The cases are exactly the contractor ratings of pairs.unit_pairs_query's pairs on the primary dimension with
    a pair whose levels differ, each once, with every researcher's rating of the unit."""
    rows = []
    for day, (task, c, cv, xv) in enumerate(
        [
            ("e1", "c1", "A much better", "B better"),
            ("e2", "c1", "A better", "A better"),  # agreement
            ("e3", "c2", "Equally good", "B much better"),  # another contractor: the rater filter drops it
            ("e4", "c1", "B better", "A better"),
            ("e5", "c1", "A better", "Equally good"),
            ("e6", "c1", "B much better", "B better"),
        ],
        start=2,
    ):
        rows += _pair(task, c, cv, "r1", xv, day=day)
    # A second researcher labelled e4 and e5 on 1 March, before the date range: labels count whatever their date.
    rows += [("e4", "r2", "researcher", AC, UC, "comparison", "B much better", 1)]
    rows += [("e5", "r2", "researcher", AC, UC, "comparison", "A better", 1)]  # agrees with c1
    rows += [("e3", "r2", "researcher", AC, UC, "comparison", "A better", 1)]  # r2 disagrees with c2
    rows += [("e1", "c1", "contractor", AC, "usefulness", "A", "Good", 3)]  # not the primary dimension
    rows += [("e1", "r1", "researcher", AC, "usefulness", "A", "Bad", 3)]
    _load(con, rows, "one_pairing.csv")
    # The rater filter names a researcher too: it never adds that researcher's pairs with other contractors.
    f = Filters(raters=("c1", "r2"), roles=("researcher",), date_from=dt.date(2026, 3, 4))
    cases = dis.disagreements(con, AC, f)
    sides = sd.comparison_sides(f.but(rubric=AC, dimensions=(UC,)), "contractor_vs_researcher")
    pairs = pg.unit_pairs_query(sides).df(con)
    unit = ["task_id", "target", "rater_a"]
    differing = pairs.assign(d=pairs["index_a"] != pairs["index_b"]).groupby(unit)["d"].any()
    got = cases.rename(columns={"contractor_id": "rater_a"})
    assert sorted(got[unit].itertuples(index=False, name=None)) == sorted(differing[differing].index.tolist())
    # e1 and e3 are left out (before the dates; another contractor); e4 with r2 (1 March) is in, inside e4's case.
    by_task = cases.set_index("task_id")
    assert by_task.index.tolist() == ["e4", "e5", "e6"]
    assert by_task["researchers"].to_dict() == {
        "e4": "r1: A better; r2: B much better",
        "e5": "r1: Equally good; r2: A better",
        "e6": "r1: B better",
    }
    # The case's researcher is its most severe one: on e4 r1 is on the other side, r2 differs only in the "very".
    assert by_task["researcher_id"].to_dict() == {"e4": "r1", "e5": "r1", "e6": "r1"}
    assert by_task.loc["e4", "severity"] == dis.OPPOSITE
    assert by_task[["n_researchers", "n_disagreeing"]].values.tolist() == [[2, 2], [2, 1], [1, 1]]
    assert (cases["contractor_id"] == "c1").all()


def test_one_case_per_contractor_rating_with_every_researcher_inside(con):
    """A rating three researchers labelled (two disagreeing) is one case, not one per researcher."""
    rows = _pair("m1", "c10", "A better", "r1", "B better", r="r1")
    rows += [("m1", "r2", "researcher", AC, UC, "comparison", "A much better", 1)]
    rows += [("m1", "r3", "researcher", AC, UC, "comparison", "A better", 1)]
    _load(con, rows, "three_researchers.csv")
    cases = dis.disagreements(con, AC)
    assert len(cases) == 1
    case = cases.iloc[0]
    assert (case["contractor_id"], case["researcher_id"], case["severity"]) == ("c10", "r1", dis.OPPOSITE)
    assert list(case["researcher_ids"]) == ["r1", "r2", "r3"]
    assert list(case["researcher_values"]) == ["B better", "A much better", "A better"]
    assert (case["n_researchers"], case["n_disagreeing"]) == (3, 2)
    # Severity filters read the case's own (most severe) severity: r2's "very" does not list it again.
    assert dis.disagreements(con, AC, severities=(dis.VERY,)).empty
    # The lists are one Arrow list column each (a page's cache pickles them as one buffer, not an array per row),
    # and read back the same after the round trip a cache makes.
    import pickle

    assert str(cases["researcher_ids"].dtype) == "list<item: string>[pyarrow]"
    again = pickle.loads(pickle.dumps(cases))
    assert again.iloc[0]["researcher_values"] == ["B better", "A much better", "A better"]


def test_the_case_status_is_the_latest_note_and_reaches_the_report_once(con):
    """Two notes on one rating (as two researchers' cases once had): the case's status is the later one, both
    notes are kept, and the Feedback report lists the rating once, with that status."""
    rows = _pair("m1", "c10", "A better", "r1", "B better", r="r1")
    rows += [("m1", "r2", "researcher", AC, UC, "comparison", "B much better", 1)]
    _load(con, rows, "two_researchers.csv")
    key = dis.CaseKey.from_row(dis.disagreements(con, AC).iloc[0])
    dis.save_note(con, key, "feedback given", "Told c10 about direction.", "lead")
    dis.save_note(con, dis.CaseKey(*key.params(), researcher_id="r2"), "researcher was wrong", "r2 misread", "ana")
    notes = dis.notes_for(con, key=key)
    assert notes[["status", "reviewer"]].values.tolist() == [
        ["researcher was wrong", "ana"],
        ["feedback given", "lead"],
    ]
    cases = dis.disagreements(con, AC)
    assert cases[["task_id", "status", "note"]].values.tolist() == [["m1", "researcher was wrong", "r2 misread"]]
    report = feedback_cases.severe_cases(con, "c10")
    assert report[["task_id", "status"]].values.tolist() == [["m1", "researcher was wrong"]]


def test_severity_counts_lists_every_severity(ac_store):
    counts = dis.severity_counts(dis.disagreements(ac_store, AC)).set_index("severity")["cases"]
    assert counts.to_dict() == {dis.OPPOSITE: 2, dis.CATEGORY: 0, dis.TWO_STEPS: 2, dis.ONE_STEP: 1, dis.VERY: 1}


@pytest.mark.parametrize(
    ("rubric", "dim", "cv", "xv", "severity"),
    [
        # instruction following 1-7, coarse 1-3 / 4 / 5-7 (rubrics.RATING_1_7_COARSE)
        ("instruction_following", "rating", "3", "5", dis.OPPOSITE),
        ("instruction_following", "rating", "1", "3", dis.TWO_STEPS),
        ("instruction_following", "rating", "3", "4", dis.ONE_STEP),
        ("instruction_following", "rating", "6", "7", dis.VERY),
        # preference ranking's primary is the rank bucket 1-3 with no coarse mapping: 2 is the middle
        ("preference_ranking", "rank", "1", "3", dis.OPPOSITE),
        ("preference_ranking", "rank", "1", "2", dis.ONE_STEP),
        # article likert 1-5, coarse 1-2 / 3 / 4-5
        ("article_likert", "likert", "2", "4", dis.OPPOSITE),
        ("article_likert", "likert", "4", "5", dis.VERY),
    ],
)
def test_severity_from_catalogue_scales(con, rubric, dim, cv, xv, severity):
    _load(con, _pair("t1", "c1", cv, "r1", xv, rubric=rubric, dim=dim, target="first"), "one.csv")
    cases = dis.disagreements(con, rubric)
    assert cases["severity"].tolist() == [severity]
    assert cases["dimension"].tolist() == [dim]


def test_binary_dimension_is_opposite(con):
    rows = _pair("t1", "c1", "Worse than nothing", "r1", "Better than nothing", dim="better_than_nothing", target="A")
    _load(con, rows, "btn.csv")
    cases = dis.disagreements(con, AC, dimension="better_than_nothing")
    assert cases["severity"].tolist() == [dis.OPPOSITE]


def test_uncatalogued_rubric_primary_and_severity(con):
    rows = [
        ("u1", "c1", "contractor", "mine", "a_label", "", "x", 1),
        ("u1", "r1", "researcher", "mine", "a_label", "", "y", 1),
        ("u1", "c1", "contractor", "mine", "quality", "", "1", 1),
        ("u1", "r1", "researcher", "mine", "quality", "", "2", 1),
        ("u2", "c1", "contractor", "mine", "quality", "", "3", 1),
    ]
    _load(con, rows, "mine.csv")
    assert dis.primary_dimension(con, "mine") == "quality"  # the first ordered dimension (a_label is nominal)
    cases = dis.disagreements(con, "mine")
    # The inferred scale 1, 2, 3 has no coarse mapping, so each level is its own coarse level and 2 is the
    # middle: 1 vs 2 is one step across a coarse boundary, not opposite sides.
    assert cases["severity"].tolist() == [dis.ONE_STEP]
    nominal = _severities(con, "mine", "a_label")
    assert nominal == [dis.OPPOSITE]  # two text values: binary, and two levels are two sides


def _severities(con, rubric: str, dim: str) -> list[str]:
    return dis.disagreements(con, rubric, dimension=dim)["severity"].tolist()


def test_nominal_scale_with_more_levels_is_a_different_category(con):
    rows = [
        ("u1", "c1", "contractor", "colours", "colour", "", "red", 1),
        ("u1", "r1", "researcher", "colours", "colour", "", "green", 1),
        ("u2", "c1", "contractor", "colours", "colour", "", "blue", 1),
    ]
    _load(con, rows, "colours.csv")
    assert _severities(con, "colours", "colour") == [dis.CATEGORY]


def _ac_record(task: str, rater: str, role: str, clicked: str, **extra) -> dict:
    rec = {
        "format": "concord.answer_comparison/v1",
        "submission_id": f"{task}-{rater}",
        "task_id": task,
        "rater_id": rater,
        "role": role,
        "submitted_at": "2026-03-02T14:05:11Z",
        "question": "Why is processed food cheaper? <script>alert(1)</script>",
        "display_order": ["B", "A"],
        "options": {
            "A": {
                "answer": "Because of [scale](http://evil.example) economies.",
                "sources": [{"n": 1, "title": "Cheap food", "domain": "www.npr.org", "quote": "enormously efficient"}],
                "ratings": {"usefulness": "Good"},
                "strengths": "clear",
                "weaknesses": "unsupported transport claim",
            },
            "B": {"answer": "No idea.", "sources": [], "ratings": {"usefulness": "Bad"}},
        },
        "comparison": {"usefulness": clicked},
    }
    rec.update(extra)
    return rec


@pytest.fixture
def json_store(con):
    records = [
        _ac_record("q1", "c1", "contractor", "A much better", comment="B is clearly better"),
        _ac_record(
            "q1", "r1", "researcher", "B better", explanations={"usefulness": "Option A's claim is unsupported."}
        ),
    ]
    data = ("\n".join(json.dumps(r) for r in records) + "\n").encode()
    result = ingest_bytes(con, data, "q1.jsonl", fmt="answer_comparison")
    assert result.status == "loaded", result.errors
    return con


def test_unit_detail_has_everything_a_reviewer_needs(json_store):
    cases = dis.disagreements(json_store, AC)
    # Clicked "A much better" with B shown first = stored "B much better"; the researcher's "B better" = stored
    # "A better": opposite directions.
    assert cases[["contractor_value", "researcher_value", "severity"]].values.tolist() == [
        ["B much better", "A better", dis.OPPOSITE]
    ]
    d = dis.unit_detail(json_store, "q1", AC)
    assert d.prompt.startswith("Why is processed food cheaper?")
    assert d.items["label"].tolist() == ["Option A", "Option B"]
    assert '[1] Cheap food, www.npr.org: "enormously efficient"' in d.items.loc[0, "sources"]
    assert set(d.ratings["rater_id"]) == {"c1", "r1"}
    assert {"usefulness", UC} <= set(d.ratings["dimension"])
    table = d.ratings_table
    assert list(table.columns) == ["dimension", "target", "c1 (contractor)", "r1 (researcher)"]
    row = table[(table["target"] == "comparison")].iloc[0]
    assert (row["c1 (contractor)"], row["r1 (researcher)"]) == ("B much better", "A better")
    subs = d.submissions.set_index("rater_id")
    assert subs.loc["c1", "comment"] == "B is clearly better"
    assert subs.loc["c1", "shown_first"] == "B"
    assert "unsupported transport claim" in subs.loc["c1", "details"]
    assert "Option A's claim is unsupported." in subs.loc["r1", "explanation"]
    assert d.notes.empty


def test_unit_detail_of_canonical_task_without_text(ac_store):
    d = dis.unit_detail(ac_store, "d1", AC)
    assert d.prompt is None and d.items.empty
    assert set(d.submissions["rater_id"]) == {"c1", "r1"}  # raters known from their ratings
    assert len(d.ratings) == 4


def test_save_note_adds_a_note_and_bumps_version(ac_store):
    key = dis.CaseKey.from_row(dis.disagreements(ac_store, AC).iloc[0])
    before = store_mod.dataset_version(ac_store)
    dis.save_note(ac_store, key, "feedback given", "Explained the rubric's direction rule.", "lead")
    assert store_mod.dataset_version(ac_store) == before + 1
    dis.save_note(ac_store, key, "guideline unclear", "  second thought ", "lead2")
    notes = dis.notes_for(ac_store, key=key)  # every note kept, newest first
    assert notes[["status", "note", "reviewer"]].values.tolist() == [
        ["guideline unclear", "second thought", "lead2"],
        ["feedback given", "Explained the rubric's direction rule.", "lead"],
    ]
    assert notes["researcher_id"].isna().all()  # written on the whole case
    cases = dis.disagreements(ac_store, AC)
    assert cases.iloc[0]["status"] == "guideline unclear"
    assert dis.disagreements(ac_store, AC, statuses=("guideline unclear",))["task_id"].tolist() == ["d1"]
    assert dis.disagreements(ac_store, AC, statuses=("feedback given",)).empty  # only the latest status counts
    assert len(dis.disagreements(ac_store, AC, statuses=("open",))) == 5
    with pytest.raises(ValueError, match="not one of"):
        dis.save_note(ac_store, key, "done")


def test_notes_survive_reopen_and_reingest(tmp_path):
    path = tmp_path / "notes.duckdb"
    con = store_mod.open_store(path)
    _load(con, _pair("n1", "c1", "A better", "r1", "B better"), "first.csv")
    key = dis.CaseKey("n1", AC, UC, "comparison", "c1", "r1")
    dis.save_note(con, key, "researcher was wrong", "r1 misread option B", "lead")
    con.close()
    con = store_mod.open_store(path)  # a restart
    _load(con, _pair("n2", "c1", "A better", "r1", "A much better"), "second.csv")  # another ingest
    notes = dis.notes_for(con, "n1", AC)
    assert notes[["status", "note"]].values.tolist() == [["researcher was wrong", "r1 misread option B"]]
    cases = dis.disagreements(con, AC).set_index("task_id")
    assert cases.loc["n1", "status"] == "researcher was wrong"
    assert cases.loc["n2", "status"] == "open"
    assert len(dis.notes_for(con)) == 1
    con.close()


def test_sources_text_is_plain_and_tolerant():
    assert dis.sources_text(None) == ""
    assert dis.sources_text("not json") == "not json"
    text = dis.sources_text(json.dumps([{"title": "T", "url": "http://x.example", "trust": "high"}, "raw"]))
    assert text.splitlines() == ["[1] T, http://x.example (trust: high)", "[2] raw"]
