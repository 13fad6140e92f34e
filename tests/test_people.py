"""The rater directory (analytics/store/people.py): one person, one id. Loading a directory merges the ratings and
submissions of each alias into its person, everywhere; unloading it gives every row its own id back; a file
loaded later is merged in its own load; nothing that would make a person rate a unit twice gets in."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from analytics import agreement, store
from analytics.core.filters import Filters
from analytics.ingest import detect_format, unload
from analytics.ingest.load import ingest_bytes
from analytics.store import people
from tests.cli_helpers import run_cli


def csv(rows: list[tuple]) -> bytes:
    """A canonical CSV of (task_id, rater_id, role, value) rows on one dimension of rubric 'study'."""
    buf = io.StringIO()
    frame = pd.DataFrame(rows, columns=["task_id", "rater_id", "role", "value"])
    frame.assign(rubric="study", dimension="quality", submitted_at="2026-03-03").to_csv(buf, index=False)
    return buf.getvalue().encode()


def directory(*lines: str) -> bytes:
    """A directory CSV with the standard header and the given rows."""
    return ("rater_id,display_name,aliases,team,active_from,active_to\n" + "\n".join(lines) + "\n").encode()


RESEARCHER = csv([(f"t{t}", "r1", "researcher", str(1 + t % 4)) for t in range(12)])
# The same contractor under two ids, on different tasks (two exports of one person).
AS_C13 = csv([(f"t{t}", "c13", "contractor", str(1 + t % 4)) for t in range(0, 6)])
AS_ANNOTATOR = csv([(f"t{t}", "annotator_13", "contractor", str(1 + (t + 1) % 4)) for t in range(6, 12)])
DIRECTORY = directory("c13,Dana K.,annotator_13,north,2026-03-01,2026-06-30", "r1,Rae O.,,research,,")


@pytest.fixture
def con(tmp_path):
    c = store.open_store(tmp_path / "s.duckdb")
    yield c
    c.close()


def load(con, data: bytes, name: str):
    return ingest_bytes(con, data, name)


def state(con) -> list:
    """Every rating as stored (ids and keys), in a fixed order."""
    return con.execute("SELECT * FROM ratings ORDER BY ALL").fetchall()


def kept_pairs_are_the_join(con) -> None:
    """The kept contractor-researcher pairs equal the pairs of the ratings as they now are."""
    kept = con.execute(
        "SELECT task_key, dim_key, target_key, rater_key, rater_id, reference_key FROM reference_pairs ORDER BY ALL"
    ).fetchall()
    joined = con.execute(
        """SELECT s.task_key, s.dim_key, s.target_key, s.rater_key, s.rater_id, r.rater_key FROM ratings s
           JOIN ratings r USING (task_key, dim_key, target_key)
           WHERE s.role = 'contractor' AND r.role = 'researcher' ORDER BY ALL"""
    ).fetchall()
    assert kept == joined


def test_a_directory_csv_is_detected_by_its_header():
    assert detect_format(DIRECTORY, "people.csv") == "rater_directory"
    assert detect_format(AS_C13, "ratings.csv") == "canonical"


def test_loading_a_directory_merges_an_alias_into_its_person_everywhere(con):
    for name, data in (("r.csv", RESEARCHER), ("c13.csv", AS_C13), ("a13.csv", AS_ANNOTATOR)):
        assert load(con, data, name).status == "loaded"
    before = agreement.agreement_report(con, agreement.AgreementSpec(n_boot=0, filters=Filters(rubric="study"))).raters
    assert set(before["rater_id"]) == {"c13", "annotator_13"}

    r = load(con, DIRECTORY, "people.csv")
    assert (r.status, r.format, r.rows_loaded) == ("loaded", "rater_directory", 2)
    assert "6 ratings renamed" in r.notes[0]
    after = agreement.agreement_report(con, agreement.AgreementSpec(n_boot=0, filters=Filters(rubric="study"))).raters
    assert list(after["rater_id"]) == ["c13"]
    assert int(after["n_units"].iloc[0]) == 12  # both exports' tasks, one person
    assert con.execute("SELECT count(*) FROM ratings WHERE rater_id = 'annotator_13'").fetchall() == [(0,)]
    assert con.execute("SELECT count(DISTINCT rater_key) FROM ratings WHERE rater_id = 'c13'").fetchall() == [(1,)]
    kept_pairs_are_the_join(con)
    d = people.directory(con).set_index("rater_id")
    assert d.loc["c13", "display_name"] == "Dana K." and d.loc["c13", "aliases"] == "annotator_13"
    assert (d.loc["c13", "ratings"], d.loc["c13", "ratings_renamed"]) == (12, 6)
    assert people.who("c13", people.display_names(con)) == "Dana K. (c13)"
    assert people.who("c99", people.display_names(con)) == "c99"


def test_unloading_the_directory_gives_every_row_its_own_id_back(con):
    for name, data in (("r.csv", RESEARCHER), ("c13.csv", AS_C13), ("a13.csv", AS_ANNOTATOR)):
        load(con, data, name)
    before = state(con)
    pairs_before = con.execute("SELECT * FROM reference_pairs ORDER BY ALL").fetchall()
    load(con, DIRECTORY, "people.csv")
    assert state(con) != before
    directory_id = con.execute("SELECT ingest_id FROM ingest_log WHERE format = 'rater_directory'").fetchall()[0][0]
    unload.unload_file(con, directory_id, "lead")
    assert state(con) == before
    assert con.execute("SELECT * FROM reference_pairs ORDER BY ALL").fetchall() == pairs_before
    for table in ("rater_directory", "rater_aliases", "renamed_ratings", "renamed_submissions"):
        assert con.execute(f"SELECT count(*) FROM {table}").fetchall() == [(0,)], table


def test_a_file_loaded_after_the_directory_is_merged_in_its_own_load(con):
    load(con, RESEARCHER, "r.csv")
    load(con, DIRECTORY, "people.csv")
    load(con, AS_C13, "c13.csv")
    r = load(con, AS_ANNOTATOR, "a13.csv")
    assert (r.rows_loaded, r.rows_quarantined) == (6, 0)
    assert con.execute("SELECT DISTINCT rater_id FROM ratings WHERE role = 'contractor'").fetchall() == [("c13",)]
    kept_pairs_are_the_join(con)
    # Unloading that file forgets its renamed rows; the directory can still go and leaves the rest as loaded.
    a13 = con.execute("SELECT ingest_id FROM ingest_log WHERE file_name = 'a13.csv'").fetchall()[0][0]
    unload.unload_file(con, a13, "lead")
    assert con.execute("SELECT count(*) FROM renamed_ratings").fetchall() == [(0,)]
    directory_id = con.execute("SELECT ingest_id FROM ingest_log WHERE format = 'rater_directory'").fetchall()[0][0]
    unload.unload_file(con, directory_id, "lead")
    assert con.execute("SELECT DISTINCT rater_id FROM ratings WHERE role = 'contractor'").fetchall() == [("c13",)]
    kept_pairs_are_the_join(con)


def test_a_later_rating_that_would_make_a_person_rate_a_unit_twice_is_quarantined(con):
    load(con, DIRECTORY, "people.csv")
    load(con, AS_C13, "c13.csv")  # c13 rated t0..t5
    clash = csv([("t5", "annotator_13", "contractor", "1"), ("t6", "annotator_13", "contractor", "2")])
    r = load(con, clash, "a13.csv")
    assert (r.status, r.rows_loaded, r.rows_quarantined) == ("loaded", 1, 1)
    assert any("annotator_13 is c13 in the rater directory" in e and "c13.csv" in e for e in r.errors), r.errors
    q = con.execute("SELECT field, raw_value FROM quarantine WHERE file_name = 'a13.csv'").fetchall()
    assert q == [("rater_id", "annotator_13")]
    assert con.execute("SELECT value FROM ratings WHERE task_id = 't5'").fetchall() == [
        ("2",)
    ]  # c13's, not the clash's 1


def test_a_directory_that_would_merge_two_ratings_of_one_unit_is_refused_whole(con):
    load(con, AS_C13, "c13.csv")
    load(con, csv([("t2", "annotator_13", "contractor", "1")]), "a13.csv")
    before = state(con)
    r = load(con, DIRECTORY, "people.csv")
    assert r.status == "rejected"
    assert "annotator_13 and c13 would both be c13" in r.errors[0] and "task t2" in r.errors[0]
    assert state(con) == before
    assert con.execute("SELECT count(*) FROM rater_directory").fetchall() == [(0,)]


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ((",Nobody,,,,",), "line 2, field rater_id: missing"),
        (("c1,Ann,,,March,",), "line 2, field active_from: 'March' is not a date"),
        (("c1,Ann,,,2026-05-01,2026-04-01",), "line 2, field active_to: 2026-04-01 is before active_from"),
        (("c1,Ann,,,,", "c1,Ann B.,,,,"), "line 3, field rater_id: c1 is already on line 2"),
        (("c1,Ann,x7,,,", "c2,Bo,x7,,,"), "line 3, field aliases: x7 is already an alias of c1 (line 2)"),
        (("c1,Ann,c2,,,", "c2,Bo,,,,"), "line 2, field aliases: c2 is a person of its own (line 3)"),
        (("c1,Ann,,,,,extra",), "line 2: more fields than the header names"),
        ((), "a rater directory with a header and no person"),
    ],
)
def test_a_bad_directory_is_refused_whole_naming_line_and_field(con, rows, expected):
    r = load(con, directory(*rows), "people.csv")
    assert r.status == "rejected"
    assert r.errors[0].startswith("people.csv") and expected in r.errors[0], r.errors
    assert con.execute("SELECT count(*) FROM rater_directory").fetchall() == [(0,)]


def test_an_unknown_column_is_named(con):
    r = load(con, b"rater_id,display_name,email\nc1,Ann,a@b\n", "people.csv")
    assert r.status == "rejected" and "line 1: unknown column(s) email" in r.errors[0]


def test_a_second_directory_cannot_move_an_alias_to_another_person(con):
    load(con, DIRECTORY, "people.csv")
    r = load(con, directory("c14,Eli,annotator_13,,,"), "people2.csv")
    assert r.status == "rejected"
    assert "annotator_13 is c13 in a directory loaded before" in r.errors[0]


def test_submissions_follow_the_merge(con, tmp_path, demo_inputs, monkeypatch):
    # The demo's article-Likert documents carry submissions under annotator ids.
    from analytics.cli import first_run

    monkeypatch.setenv("CONCORD_DEMO_DIR", str(demo_inputs))  # the run's demo, not data/demo
    files = [f for f in first_run.demo_files() if f.name.startswith("preference_json_13_")]
    from analytics.ingest.load import ingest_file

    assert ingest_file(con, files[0]).status == "loaded"
    assert con.execute("SELECT DISTINCT rater_id FROM submissions").fetchall() == [("annotator_13",)]
    load(con, DIRECTORY, "people.csv")
    assert con.execute("SELECT DISTINCT rater_id FROM submissions").fetchall() == [("c13",)]
    assert con.execute("SELECT DISTINCT rater_id FROM ratings").fetchall() == [("c13",)]
    directory_id = con.execute("SELECT ingest_id FROM ingest_log WHERE format = 'rater_directory'").fetchall()[0][0]
    unload.unload_file(con, directory_id, "lead")
    assert con.execute("SELECT DISTINCT rater_id FROM submissions").fetchall() == [("annotator_13",)]


def test_the_command_line_loads_a_directory(tmp_path):
    path = tmp_path / "people.csv"
    path.write_bytes(DIRECTORY)
    out = run_cli("ingest", str(path), "--db", str(tmp_path / "s.duckdb"), "--json")
    assert out.returncode == 0, out.stderr
    (f,) = json.loads(out.stdout)["files"]
    assert (f["format"], f["status"], f["rows_loaded"]) == ("rater_directory", "loaded", 2)
