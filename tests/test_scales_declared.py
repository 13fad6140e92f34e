"""Declared scales (DESIGN.md, canonical data): scales files, their checks, declaring them in the store, ingest
with and without declarations, missing values, migration 3 and the command line's --scales."""

from __future__ import annotations

import json

import duckdb
import pytest

from analytics import store
from analytics.agreement import AgreementSpec
from analytics.cli.main import main
from analytics.ingest.load import ingest_bytes
from analytics.ingest.scales_file import ScalesError, declare_scales, declared_scales, parse_scales

SERIOUSNESS = ["Not medical", "Non-serious", "Serious", "Critical"]
HEADER = "task_id,rater_id,role,rubric,dimension,value\n"


def scales_json(*entries: dict) -> bytes:
    return json.dumps({"scales": list(entries)}).encode()


def csv_rows(*rows: tuple) -> bytes:
    """A canonical CSV from (task_id, rater_id, role, rubric, dimension, value) tuples."""
    return (HEADER + "".join(",".join(str(x) for x in r) + "\n" for r in rows)).encode()


def dimension(con, rubric: str, dim: str) -> dict:
    row = con.execute(
        """SELECT kind, measure, levels, level_values, missing, source FROM dimensions
           WHERE rubric = ? AND dimension = ?""",
        [rubric, dim],
    ).fetchall()
    assert row, f"{rubric}/{dim} has no stored scale"
    return dict(zip(("kind", "measure", "levels", "level_values", "missing", "source"), row[0], strict=True))


def snapshot(con) -> dict:
    """Every table's content (sorted), to show that a refusal changed nothing."""
    tables = ("dimensions", "scale_declarations", "ratings", "quarantine", "ingest_log", "meta")
    return {t: sorted(map(repr, con.execute(f"SELECT * FROM {t}").fetchall())) for t in tables}


def seriousness_csv() -> bytes:
    return csv_rows(
        ("t1", "c1", "contractor", "med", "seriousness", "Serious"),
        ("t1", "c2", "contractor", "med", "seriousness", "Critical"),
        ("t2", "c1", "contractor", "med", "seriousness", "Not medical"),
        ("t2", "c2", "contractor", "med", "seriousness", "Non-serious"),
    )


def test_declared_ordinal_labels_are_stored_in_declared_order_not_alphabetically(con):
    scales = parse_scales(
        scales_json({"dimension": "seriousness", "level": "ordinal", "levels": SERIOUSNESS}), "s.json"
    )
    result = ingest_bytes(con, seriousness_csv(), "med.csv", scales=scales)
    assert (result.status, result.rows_loaded, result.rows_quarantined) == ("loaded", 4, 0), result.errors
    d = dimension(con, "med", "seriousness")
    assert d["levels"] == SERIOUSNESS != sorted(SERIOUSNESS)
    assert (d["measure"], d["kind"], d["source"]) == ("ordinal", "ordinal", "declared")
    index = dict(con.execute("SELECT value, value_index FROM ratings").fetchall())
    assert index == {"Not medical": 0, "Non-serious": 1, "Serious": 2, "Critical": 3}


def test_undeclared_text_is_nominal_and_never_presented_as_ordered(con):
    result = ingest_bytes(con, seriousness_csv(), "med.csv")
    assert result.status == "loaded"
    d = dimension(con, "med", "seriousness")
    assert (d["measure"], d["source"]) == ("nominal", "inferred")
    assert d["level_values"] == [None] * 4


def test_a_value_off_a_declared_scale_is_quarantined_with_its_reason(con):
    scales = parse_scales(
        scales_json({"dimension": "seriousness", "level": "ordinal", "levels": SERIOUSNESS}), "s.json"
    )
    data = seriousness_csv() + b"t3,c1,contractor,med,seriousness,Severe\n"
    result = ingest_bytes(con, data, "med.csv", scales=scales)
    assert (result.rows_loaded, result.rows_quarantined) == (4, 1)
    reason = con.execute("SELECT reason FROM quarantine").fetchall()[0][0]
    assert reason == (
        "med.csv, line 6, field value: value Severe is not on the scale of med/seriousness "
        "(Not medical, Non-serious, Serious, Critical)"
    )


def test_na_tokens_are_missing_ratings_not_levels_and_a_numeric_dimension_stays_numeric(con):
    values = ["3", "NA", "n/a", "null", "5", "1"]
    data = csv_rows(*[(f"t{i}", "c1", "contractor", "pilot", "score", v) for i, v in enumerate(values)])
    result = ingest_bytes(con, data, "pilot.csv")
    assert (result.rows_loaded, result.rows_quarantined, result.rows_missing) == (6, 0, 3), result.errors
    d = dimension(con, "pilot", "score")
    assert (d["measure"], d["kind"], d["levels"], d["level_values"]) == (
        "ordinal",
        "ordinal",
        ["1", "3", "5"],
        [1, 3, 5],
    )
    missing = sorted(r[0] for r in con.execute("SELECT value FROM ratings WHERE value_index IS NULL").fetchall())
    assert missing == ["NA", "n/a", "null"]
    assert con.execute(
        "SELECT count(*) FROM ratings WHERE value_index IS NULL AND value_num IS NOT NULL"
    ).fetchall() == [(0,)]


def test_an_empty_value_is_never_a_level(con):
    data = csv_rows(("t1", "c1", "contractor", "pilot", "score", "2"), ("t2", "c1", "contractor", "pilot", "score", ""))
    result = ingest_bytes(con, data, "pilot.csv")
    assert (result.rows_loaded, result.rows_quarantined) == (1, 1)
    assert dimension(con, "pilot", "score")["levels"] == ["2"]
    assert "missing required field value" in result.errors[0]


def test_declared_and_catalogue_missing_codes_are_missing(con):
    entry = {"dimension": "seriousness", "level": "ordinal", "levels": SERIOUSNESS, "missing": ["unsure", -99]}
    data = seriousness_csv() + b"t3,c1,contractor,med,seriousness,Unsure\nt4,c1,contractor,med,seriousness,-99.0\n"
    result = ingest_bytes(con, data, "med.csv", scales=parse_scales(scales_json(entry), "s.json"))
    assert (result.rows_loaded, result.rows_quarantined, result.rows_missing) == (6, 0, 2), result.errors
    assert dimension(con, "med", "seriousness")["missing"] == ["unsure", "-99"]
    # The catalogue's own missing code ("Not applicable" on instruction_following/hallucination) is missing too.
    data = csv_rows(("if-1", "c1", "contractor", "instruction_following", "hallucination", "Not applicable"))
    result = ingest_bytes(
        con, data.replace(b"value\n", b"value,target\n").replace(b"applicable\n", b"applicable,o1\n"), "if.csv"
    )
    assert (result.rows_loaded, result.rows_missing) == (1, 1), result.errors


def test_a_gapped_numeric_scale_keeps_its_values(con):
    declared = scales_json({"rubric": "gap", "dimension": "score", "level": "interval", "levels": [1, 2, 4, 5]})
    rows = [(f"t{i}", "c1", "contractor", "gap", "score", v) for i, v in enumerate(["1", "2.0", "4", "5"])]
    ingest_bytes(con, csv_rows(*rows), "gap.csv", scales=parse_scales(declared, "s.json"))
    d = dimension(con, "gap", "score")
    assert (d["measure"], d["levels"], d["level_values"]) == ("interval", ["1", "2", "4", "5"], [1, 2, 4, 5])
    # Undeclared, the same numbers are values too: 1, 2, 4, 5 (never positions 0..3).
    ingest_bytes(con, csv_rows(*[(t, r, ro, "gap2", dim, v) for t, r, ro, _, dim, v in rows]), "gap2.csv")
    assert dimension(con, "gap2", "score")["level_values"] == [1, 2, 4, 5]
    nums = dict(con.execute("SELECT value, value_num FROM ratings WHERE rubric = 'gap2'").fetchall())
    assert nums == {"1": 1, "2": 2, "4": 4, "5": 5}


def test_label_value_objects_give_each_level_its_number(con):
    entry = {
        "dimension": "grade",
        "level": "interval",
        "levels": [{"label": "low", "value": 1}, {"label": "high", "value": 3}],
    }
    rows = [("t1", "c1", "contractor", "g", "grade", "high"), ("t1", "c2", "contractor", "g", "grade", "low")]
    ingest_bytes(con, csv_rows(*rows), "g.csv", scales=parse_scales(scales_json(entry), "s.json"))
    d = dimension(con, "g", "grade")
    assert (d["levels"], d["level_values"], d["kind"]) == (["low", "high"], [1, 3], "ordinal")
    assert dict(con.execute("SELECT value, value_num FROM ratings").fetchall()) == {"high": 3, "low": 1}


GOOD = {"dimension": "d", "level": "ordinal", "levels": ["a", "b"]}
MALFORMED = [
    (b'{"scales": [', "s.json: not valid JSON (Expecting value at line 1, column 13)"),
    (b"[1, 2]", 's.json: expected a JSON object with a list "scales"'),
    (b'{"scales": {}}', 's.json: "scales" must be a list'),
    (scales_json({"level": "ordinal", "levels": ["a"]}), 's.json: scales[0]: missing required key "dimension"'),
    (scales_json(GOOD, {"dimension": "e", "levels": ["a"]}), 's.json: scales[1]: missing required key "level"'),
    (scales_json({**GOOD, "level": "likert"}), 's.json: scales[0].level: "likert" is not one of nominal, ordinal'),
    (scales_json({**GOOD, "levels": []}), "s.json: scales[0].levels: must be a non-empty list"),
    (scales_json({**GOOD, "levels": ["a", "b", "a"]}), 's.json: scales[0].levels[2]: "a" is listed twice'),
    (
        scales_json({**GOOD, "levels": [1, 1.0, 3], "level": "ratio"}),
        's.json: scales[0].levels[1]: "1" is listed twice',
    ),
    (
        scales_json({**GOOD, "level": "ratio", "levels": [-1, 0, 1]}),
        "s.json: scales[0].levels[0]: value -1 is negative; a ratio scale has a true zero",
    ),
    (
        scales_json(
            {**GOOD, "level": "interval", "levels": [{"label": "a", "value": 1}, {"label": "b", "value": "2"}]}
        ),
        's.json: scales[0].levels[1]: "value" must be a number, not "2"',
    ),
    (
        scales_json({**GOOD, "level": "interval"}),
        's.json: scales[0].levels[0]: "a" has no number; an interval scale needs a number for every level',
    ),
    (scales_json({**GOOD, "missing": ["b"]}), 's.json: scales[0].missing[0]: "b" is also a level'),
    (scales_json({**GOOD, "levels": ["a", "NA"]}), 's.json: scales[0].levels[1]: "NA" means missing'),
    (scales_json({**GOOD, "levles": []}), 's.json: scales[0]: unknown key "levles"'),
    (scales_json(GOOD, GOOD), "s.json: scales[1]: declares d (every rubric) again (first in scales[0])"),
    (scales_json({**GOOD, "levels": [3, 2, 1]}), 's.json: scales[0].levels[1]: value 2 of "2" is not above 3'),
]


@pytest.mark.parametrize(("data", "message"), MALFORMED, ids=[m[1][:60] for m in MALFORMED])
def test_a_malformed_scales_file_gives_one_message_naming_file_and_key(data, message):
    with pytest.raises(ScalesError) as e:
        parse_scales(data, "s.json")
    assert str(e.value).startswith(message), str(e.value)
    assert "\n" not in str(e.value)


def test_a_bad_scales_file_rejects_the_data_file_whole(con):
    before = snapshot(con)
    result = ingest_bytes(con, seriousness_csv(), "med.csv", scales="/nonexistent/scales.json")
    assert result.status == "rejected" and result.errors[0].startswith("scales.json: cannot be read")
    assert snapshot(con) == before


def test_a_declaration_contradicting_the_catalogue_is_refused_and_changes_nothing(con):
    ingest_bytes(con, seriousness_csv(), "med.csv")
    before = snapshot(con)
    entry = {
        "rubric": "instruction_following",
        "dimension": "rating",
        "level": "interval",
        "levels": [1, 2, 3, 4, 5, 6, 7],
    }
    with pytest.raises(ScalesError) as e:
        declare_scales(con, parse_scales(scales_json(GOOD, entry), "s.json"))
    assert str(e.value).startswith(
        "s.json: scales[1] (instruction_following/rating): contradicts the catalogue's scale: "
        "it declares level interval where it is ordinal"
    )
    assert snapshot(con) == before
    # The same refusal through ingest rejects the data file and leaves the store as it was.
    result = ingest_bytes(
        con,
        b"task_id,rater_id,dimension,value\nx,y,d,a\n",
        "x.csv",
        scales=parse_scales(scales_json(GOOD, entry), "s.json"),
    )
    assert result.status == "rejected" and "contradicts the catalogue's scale" in result.errors[0]
    assert snapshot(con) == before


def test_a_declaration_contradicting_an_earlier_declaration_is_refused_and_changes_nothing(con):
    first = {"dimension": "seriousness", "level": "ordinal", "levels": SERIOUSNESS}
    ingest_bytes(con, seriousness_csv(), "med.csv", scales=parse_scales(scales_json(first), "first.json"))
    before = snapshot(con)
    reordered = {**first, "levels": ["Not medical", "Serious", "Non-serious", "Critical"]}
    with pytest.raises(ScalesError) as e:
        declare_scales(con, parse_scales(scales_json(reordered), "second.json"))
    assert "contradicts the scale declared earlier for every rubric (from first.json)" in str(e.value)
    assert "the order Not medical < Serious < Non-serious < Critical where it is" in str(e.value)
    assert snapshot(con) == before


def test_redeclaring_the_identical_scale_is_a_no_op(con):
    scales = parse_scales(
        scales_json({"dimension": "seriousness", "level": "ordinal", "levels": SERIOUSNESS}), "s.json"
    )
    assert declare_scales(con, scales).changed == ["seriousness (every rubric)"]
    ingest_bytes(con, seriousness_csv(), "med.csv")
    before = snapshot(con)
    again = declare_scales(con, scales)
    assert (again.changed, again.unchanged) == ([], ["seriousness (every rubric)"])
    assert snapshot(con) == before


def test_declaring_over_an_inferred_scale_reindexes_the_stored_ratings(con):
    ingest_bytes(con, seriousness_csv(), "med.csv")
    assert dimension(con, "med", "seriousness")["levels"] == sorted(SERIOUSNESS)  # inferred: nominal
    entry = {"rubric": "med", "dimension": "seriousness", "level": "ordinal", "levels": SERIOUSNESS}
    result = declare_scales(con, parse_scales(scales_json(entry), "s.json"))
    assert result.ratings_reindexed == 4
    d = dimension(con, "med", "seriousness")
    assert (d["levels"], d["measure"], d["source"]) == (SERIOUSNESS, "ordinal", "declared")
    index = dict(con.execute("SELECT value, value_index FROM ratings").fetchall())
    assert index == {"Not medical": 0, "Non-serious": 1, "Serious": 2, "Critical": 3}


def test_declaring_a_scale_that_leaves_stored_ratings_off_it_is_refused(con):
    ingest_bytes(con, seriousness_csv(), "med.csv")
    before = snapshot(con)
    entry = {"rubric": "med", "dimension": "seriousness", "level": "ordinal", "levels": SERIOUSNESS[:3]}
    with pytest.raises(ScalesError) as e:
        declare_scales(con, parse_scales(scales_json(entry), "s.json"))
    assert '1 stored rating(s) are not on the declared scale, e.g. "Critical"' in str(e.value)
    assert snapshot(con) == before


def test_a_global_declaration_applies_to_a_later_unknown_rubric_and_not_to_catalogue_rubrics(con):
    entry = {"dimension": "rating", "level": "interval", "levels": [0, 5, 10]}
    declare_scales(con, parse_scales(scales_json(entry), "s.json"))
    rows = [("t1", "c1", "contractor", "later", "rating", "5"), ("t1", "c2", "contractor", "later", "rating", "7")]
    result = ingest_bytes(con, csv_rows(*rows), "later.csv")
    assert (result.rows_loaded, result.rows_quarantined) == (1, 1)
    assert "value 7 is not on the scale of later/rating (0, 5, 10)" in result.errors[0]
    d = dimension(con, "later", "rating")
    assert (d["measure"], d["levels"], d["level_values"], d["source"]) == (
        "interval",
        ["0", "5", "10"],
        [0, 5, 10],
        "declared",
    )
    catalogue = dimension(con, "instruction_following", "rating")
    assert (catalogue["source"], catalogue["measure"], catalogue["levels"]) == (
        "catalogue",
        "ordinal",
        [str(i) for i in range(1, 8)],
    )
    shown = declared_scales(con)
    assert shown[["rubric", "dimension", "scale"]].values.tolist() == [["*", "rating", "0 < 5 < 10"]]


def test_text_on_an_undeclared_numeric_dimension_is_quarantined_with_a_hint(con):
    ingest_bytes(con, csv_rows(("t1", "c1", "contractor", "p", "score", "3")), "one.csv")
    result = ingest_bytes(
        con,
        csv_rows(("t2", "c1", "contractor", "p", "score", "high"), ("t3", "c1", "contractor", "p", "score", "4")),
        "two.csv",
    )
    assert (result.rows_loaded, result.rows_quarantined) == (1, 1)
    assert "value high is text, but p/score holds numbers" in result.errors[0]
    assert "--scales PATH" in result.errors[0]
    assert dimension(con, "p", "score")["levels"] == ["3", "4"]


def test_a_first_file_mixing_numbers_and_text_makes_the_dimension_nominal(con):
    rows = [
        ("t1", "c1", "contractor", "p", "mix", "3"),
        ("t2", "c1", "contractor", "p", "mix", "x"),
        ("t3", "c1", "contractor", "p", "mix", "y"),
    ]
    ingest_bytes(con, csv_rows(*rows), "mix.csv")
    d = dimension(con, "p", "mix")
    assert (d["measure"], d["kind"]) == ("nominal", "nominal")


def test_new_numbers_extend_an_undeclared_numeric_scale(con):
    ingest_bytes(
        con,
        csv_rows(("t1", "c1", "contractor", "p", "score", "3"), ("t2", "c1", "contractor", "p", "score", "5")),
        "a.csv",
    )
    ingest_bytes(con, csv_rows(("t3", "c1", "contractor", "p", "score", "4")), "b.csv")
    d = dimension(con, "p", "score")
    assert (d["levels"], d["level_values"]) == (["3", "4", "5"], [3, 4, 5])
    assert dict(con.execute("SELECT value, value_index FROM ratings").fetchall()) == {"3": 0, "4": 1, "5": 2}


def test_a_store_with_migrations_1_and_2_is_migrated_to_declared_scales(tmp_path):
    path = tmp_path / "old.duckdb"
    old = duckdb.connect(str(path))
    old.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMP)")
    for version, statements in [m for m in store.MIGRATIONS if m[0] <= 2]:
        for sql in statements:
            old.execute(sql)
        old.execute("INSERT INTO schema_migrations VALUES (?, current_timestamp)", [version])
    old.executemany(
        "INSERT INTO dimensions VALUES (?, ?, ?, ?, ?, ?, [], '', false, false, 'inferred')",
        [
            ("pilot", "score", "score", "ordinal", ["1", "2", "4"], ["1", "2", "4"]),
            ("pilot", "tone", "tone", "nominal", ["calm", "harsh", "warm"], ["calm", "harsh", "warm"]),
        ],
    )
    old.execute(
        "INSERT INTO ingest_log VALUES (1, 'old.csv', 'h', 'canonical', NULL, 2, 2, 0, 1, 0, current_timestamp)"
    )
    old.execute(
        """INSERT INTO ratings (task_id, rater_id, role, rubric, dimension, target, value, value_index, value_num, ingest_id)
           VALUES ('t1', 'c1', 'contractor', 'pilot', 'score', '', '4', 2, 4, 1),
                  ('t1', 'c2', 'contractor', 'pilot', 'score', '', '2', 1, 2, 1)"""
    )
    old.close()
    con = store.open_store(path)
    assert store.schema_version(con) >= 3
    score, tone = dimension(con, "pilot", "score"), dimension(con, "pilot", "tone")
    assert (score["measure"], score["level_values"], score["source"]) == ("ordinal", [1, 2, 4], "inferred")
    assert (tone["measure"], tone["level_values"]) == ("nominal", [None, None, None])
    catalogue = dimension(con, "answer_comparison", "usefulness_comparison")
    assert (catalogue["measure"], catalogue["level_values"]) == ("ordinal", [None] * 5)
    assert dimension(con, "instruction_following", "hallucination")["missing"] == ["Not applicable"]
    assert con.execute("SELECT count(*) FROM scale_declarations").fetchall() == [(0,)]
    from analytics.agreement import contract_payload
    from analytics.core.filters import Filters

    payload = contract_payload(
        con, AgreementSpec(coarse=False, level=None, n_boot=0, seed=0, filters=Filters(rubric="pilot"))
    )
    assert [(d["dimension"], d["n_ratings"]) for d in payload["dimensions"]] == [("score", 2)]
    # A later file extends the migrated numeric scale.
    ingest_bytes(con, csv_rows(("t2", "c1", "contractor", "pilot", "score", "3")), "new.csv")
    assert dimension(con, "pilot", "score")["level_values"] == [1, 2, 3, 4]
    con.close()


def _files(tmp_path) -> tuple[str, str, str]:
    data = tmp_path / "med.csv"
    data.write_bytes(
        seriousness_csv() + b"t1,r1,researcher,med,seriousness,Critical\nt2,r1,researcher,med,seriousness,Non-serious\n"
    )
    good = tmp_path / "scales.json"
    good.write_bytes(scales_json({"dimension": "seriousness", "level": "ordinal", "levels": SERIOUSNESS}))
    bad = tmp_path / "bad.json"
    bad.write_bytes(scales_json({"dimension": "seriousness", "level": "ratio", "levels": [-1, 1]}))
    return str(data), str(good), str(bad)


def test_cli_ingest_with_scales_exit_codes(tmp_path, capsys):
    data, good, bad = _files(tmp_path)
    db = str(tmp_path / "cli.duckdb")
    assert main(["ingest", "--db", db, data, "--scales", bad]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bad.json: scales[0].levels[0]: value -1 is negative") and "\n" not in err
    assert not (tmp_path / "cli.duckdb").exists()  # nothing stored: the store was not even opened
    assert main(["ingest", "--db", db, data, "--scales", good, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["files"][0]["status"] == "loaded" and out["scales"]["declared"] == ["seriousness (every rubric)"]
    assert main(["ingest", "--db", db, "--scales", good]) == 0  # alone, and again: nothing changes
    con = store.open_store(db)
    assert dimension(con, "med", "seriousness")["levels"] == SERIOUSNESS
    con.close()
    conflicting = tmp_path / "other.json"
    conflicting.write_bytes(scales_json({"dimension": "seriousness", "level": "nominal", "levels": SERIOUSNESS}))
    assert main(["ingest", "--db", db, "--scales", str(conflicting)]) == 2
    assert "contradicts the scale declared earlier" in capsys.readouterr().err


def test_cli_agreement_with_scales_exit_codes(tmp_path, capsys):
    data, good, bad = _files(tmp_path)
    assert main(["agreement", data, "--scales", good, "--json", "--n-boot", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = next(d for d in out["dimensions"] if d["dimension"] == "seriousness")
    assert row["level"] == "ordinal"
    assert main(["agreement", data, "--scales", bad, "--json"]) == 2
    assert capsys.readouterr().err.startswith("bad.json: scales[0].levels[0]")
    db = tmp_path / "ro.duckdb"
    store.open_store(db).close()
    assert main(["agreement", "--db", str(db), "--scales", good]) == 2
    assert "ingest --scales PATH" in capsys.readouterr().err


def test_data_page_declares_an_uploaded_scales_file_alone_and_refuses_a_bad_one(app_store):
    from tests.conftest import app_test

    at = app_test("app_pages/data.py")
    assert not at.exception
    good = scales_json({"dimension": "seriousness", "level": "ordinal", "levels": SERIOUSNESS})
    at.file_uploader(key="upload_scales").upload("scales.json", good, "application/json")
    at.button[0].click().run()
    assert not at.exception
    assert any("declared seriousness (every rubric)" in e.value.replace("\\", "") for e in at.success)
    bad = scales_json({"dimension": "seriousness", "level": "ordinal", "levels": ["a", "a"]})
    at.file_uploader(key="upload_scales").upload("bad.json", bad, "application/json")
    at.file_uploader(key="upload_files").upload("new.csv", seriousness_csv(), "text/csv")
    at.button[0].click().run()
    errors = [e.value.replace("\\", "") for e in at.error]
    assert len(errors) == 1 and 'bad.json: scales[0].levels[1]: "a" is listed twice' in errors[0], errors
    con = store.open_store(app_store)
    assert con.execute("SELECT count(*) FROM ingest_log WHERE file_name = 'new.csv'").fetchall() == [(0,)]
    con.close()


def test_a_scales_file_nested_thousands_deep_is_one_message_not_a_recursion_error():
    """A 4 KB scales file nested 2,000 levels used to raise RecursionError out of the Data page's uploader."""
    with pytest.raises(ScalesError, match="deep.json: nested too deeply"):
        parse_scales(b"[" * 2000 + b"]" * 2000, "deep.json")
