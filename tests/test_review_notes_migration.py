"""Migration 19: review notes of a store from before cases were per contractor rating (one note per contractor and
researcher) are kept, each with the researcher it was written against, and a case's status is its latest note's."""

from __future__ import annotations

import datetime as dt

from analytics import store
from analytics.ingest.load import ingest_bytes
from analytics.review import disagreements as dis
from tests.old_store import roll_back

AC, UC = "answer_comparison", "usefulness_comparison"
RATINGS = """task_id,rater_id,role,rubric,dimension,target,value,submitted_at
m1,c10,contractor,answer_comparison,usefulness_comparison,comparison,A better,2026-03-02T10:00:00
m1,r1,researcher,answer_comparison,usefulness_comparison,comparison,B better,2026-03-02T10:00:00
m1,r2,researcher,answer_comparison,usefulness_comparison,comparison,B much better,2026-03-02T10:00:00
m1,r3,researcher,answer_comparison,usefulness_comparison,comparison,A better,2026-03-02T10:00:00
m2,c10,contractor,answer_comparison,usefulness_comparison,comparison,Equally good,2026-03-03T10:00:00
m2,r1,researcher,answer_comparison,usefulness_comparison,comparison,B much better,2026-03-03T10:00:00
"""
# Notes as the release before migration 19 kept them: one per contractor-researcher pair (m1 twice: r1 then r2).
OLD_NOTES = [
    ("m1", "r1", "feedback given", "Told c10 about the direction rule.", "lead", dt.datetime(2026, 3, 10, 9, 0)),
    ("m1", "r2", "researcher was wrong", "r2 misread option B.", "ana", dt.datetime(2026, 3, 11, 9, 0)),
    ("m2", "r1", "guideline unclear", None, None, dt.datetime(2026, 3, 9, 9, 0)),
]
OLD_NOTE_INSERT = """INSERT INTO review_notes (task_id, rubric, dimension, target, contractor_id, researcher_id, status,
                                            note, reviewer, updated_at)
                     VALUES ($task, $rubric, $dim, 'comparison', 'c10', $researcher, $status, $note, $reviewer, $at)"""


def _old_store(path) -> None:
    """A store at schema 18 with OLD_NOTES in the review_notes of that release."""
    con = store.open_store(path)
    assert ingest_bytes(con, RATINGS.encode(), "ratings.csv").status == "loaded"
    roll_back(con, 18)
    for task, researcher, status, note, reviewer, at in OLD_NOTES:
        con.execute(
            OLD_NOTE_INSERT,
            {
                "task": task,
                "rubric": AC,
                "dim": UC,
                "researcher": researcher,
                "status": status,
                "note": note,
                "reviewer": reviewer,
                "at": at,
            },  # fmt: skip
        )
    con.close()


def test_every_old_note_is_kept_with_its_researcher_and_the_latest_is_the_status(tmp_path):
    path = tmp_path / "old.duckdb"
    _old_store(path)
    con = store.open_store(path)  # a read-write open applies migration 19
    assert store.schema_version(con) == store.MIGRATIONS[-1][0]
    m1 = dis.CaseKey("m1", AC, UC, "comparison", "c10")
    notes = dis.notes_for(con, key=m1)
    assert notes[["researcher_id", "status", "note", "reviewer", "updated_at"]].values.tolist() == [
        ["r2", "researcher was wrong", "r2 misread option B.", "ana", dt.datetime(2026, 3, 11, 9, 0)],
        ["r1", "feedback given", "Told c10 about the direction rule.", "lead", dt.datetime(2026, 3, 10, 9, 0)],
    ]
    assert len(dis.notes_for(con)) == len(OLD_NOTES)
    # One case per contractor rating, its status the latest note's: m1 is no longer "feedback given" beside it.
    cases = dis.disagreements(con, AC).set_index("task_id")
    assert cases.index.tolist() == ["m1", "m2"]
    assert cases.loc["m1", ["status", "note", "reviewer"]].tolist() == [
        "researcher was wrong",
        "r2 misread option B.",
        "ana",
    ]
    assert cases.loc["m1", "researchers"] == "r1: B better; r2: B much better; r3: A better"
    assert cases.loc["m2", "status"] == "guideline unclear"
    # A note written after the migration is on the whole case and becomes its status; the old ones stay.
    dis.save_note(con, m1, "guideline unclear", "Both readings are defensible.", "lead")
    after = dis.notes_for(con, key=m1)
    assert after["status"].tolist() == ["guideline unclear", "researcher was wrong", "feedback given"]
    assert after["researcher_id"].isna().tolist() == [True, False, False]
    assert dis.disagreements(con, AC).set_index("task_id").loc["m1", "status"] == "guideline unclear"
    con.close()


def test_a_store_without_notes_migrates_to_an_empty_notes_table(tmp_path):
    path = tmp_path / "empty.duckdb"
    con = store.open_store(path)
    roll_back(con, 18)
    con.close()
    con = store.open_store(path)
    assert dis.notes_for(con).empty
    columns = [r[0] for r in con.execute("DESCRIBE review_notes").fetchall()]
    assert columns[:1] == ["note_id"] and "researcher_id" in columns
    con.close()
