"""The wide layout (docs/formats.md, "The wide layout"): rows are items, columns are raters (#13 part 3).

Rules and bad input on small files written here; the published figures of ../shared/reference's wide files
(Krippendorff 2011, R irr's anxiety data) reproduced through --format wide, equal to the canonical layout's."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from conftest import shared_path

from analytics import agreement, store
from analytics.core.filters import Filters
from analytics.ingest import detect_format
from analytics.ingest.base import FormatOptions
from analytics.ingest.load import ingest_bytes, ingest_file
from tests.cli_helpers import run_cli

KRIPP = "krippendorff2011_CDEF_4coders_12units_missing.csv"
ANXIETY = "irr_anxiety_20subjects_3raters.csv"


def _load(tmp_path: Path, text: str, name: str = "scores.csv", **options) -> tuple:
    """A fresh store with `text` loaded as a wide file; (connection, result)."""
    path = tmp_path / name
    path.write_text(text)
    con = store.open_store(":memory:")
    return con, ingest_file(con, path, fmt="wide", options=FormatOptions(**options))


def _ratings(con) -> list[tuple]:
    return con.execute(
        "SELECT task_id, rater_id, role, dimension, value FROM ratings ORDER BY task_id, rater_id"
    ).fetchall()


@pytest.mark.parametrize("header", ["id", "ITEM", "Unit", "units", "Subject", "group", "Task_ID"])
def test_id_column_names_in_any_case(tmp_path, header):
    """A first column named as in ID_NAMES, in any case, is the item id, not a rater."""
    con, r = _load(tmp_path, f"{header},r1,r2\nq7,1,2\n")
    assert r.status == "loaded" and r.rows_loaded == 2
    assert _ratings(con) == [("q7", "r1", "contractor", "scores", "1"), ("q7", "r2", "contractor", "scores", "2")]


def test_without_an_id_column_items_are_numbered_by_row_and_every_column_is_a_rater(tmp_path):
    con, r = _load(tmp_path, "a,b\n1,2\n3,4\n")
    assert r.rows_loaded == 4
    assert [(t, rater, v) for t, rater, _, _, v in _ratings(con)] == [
        ("1", "a", "1"),
        ("1", "b", "2"),
        ("2", "a", "3"),
        ("2", "b", "4"),
    ]


def test_id_column_option_names_a_column_anywhere(tmp_path):
    con, r = _load(tmp_path, "r1,case,r2\n1,c9,2\n", id_column="Case")
    assert r.rows_loaded == 2
    assert {(t, rater) for t, rater, *_ in _ratings(con)} == {("c9", "r1"), ("c9", "r2")}


def test_id_column_option_that_names_no_column_rejects_the_file_saying_so(tmp_path):
    _, r = _load(tmp_path, "r1,r2\n1,2\n", id_column="case")
    assert r.status == "rejected"
    assert "no column case for the item id" in r.errors[0] and "r1, r2" in r.errors[0]


def test_dimension_defaults_to_the_file_stem_and_wide_dimension_names_it(tmp_path):
    con, _ = _load(tmp_path, "id,a\n1,2\n", name="fluency.csv")
    assert {d for *_, d, _ in _ratings(con)} == {"fluency"}
    con, _ = _load(tmp_path, "id,a\n1,2\n", name="other.csv", wide_dimension="coherence")
    assert {d for *_, d, _ in _ratings(con)} == {"coherence"}


def test_researchers_option_gives_those_columns_the_researcher_role(tmp_path):
    con, _ = _load(tmp_path, "id,a,gold,b\n1,2,2,3\n", researchers=("gold",))
    assert {(rater, role) for _, rater, role, *_ in _ratings(con)} == {
        ("a", "contractor"),
        ("gold", "researcher"),
        ("b", "contractor"),
    }


def test_researchers_option_naming_no_column_rejects_the_file(tmp_path):
    _, r = _load(tmp_path, "id,a,b\n1,2,3\n", researchers=("gold",))
    assert r.status == "rejected" and "researcher column(s) gold not found" in r.errors[0]


def test_empty_and_blank_cells_are_missing(tmp_path):
    con, r = _load(tmp_path, "id,a,b,c\n1,1,,2\n2,  ,3,\n")
    assert r.status == "loaded" and r.rows_loaded == 3 and r.rows_quarantined == 0
    assert [(t, rater) for t, rater, *_ in _ratings(con)] == [("1", "a"), ("1", "c"), ("2", "b")]


def test_tab_separated_and_trailing_empty_cells(tmp_path):
    con, r = _load(tmp_path, "unit\ta\tb\n1\t1\t2\t\t\n")
    assert r.rows_loaded == 2 and r.rows_quarantined == 0


def test_never_auto_detected():
    """The wide layout looks like many other tables: only --format wide chooses it."""
    assert detect_format(b"unit,coder_A,coder_B\n1,1,2\n", "k.csv") != "wide"


def test_duplicated_rater_column_is_quarantined_naming_line_and_column_the_rest_loads(tmp_path):
    """Bad input: a column named twice; which copy is the rater cannot be told, so both copies' cells are kept
    in quarantine with their line, and the other columns load (nothing is lost)."""
    con, r = _load(tmp_path, "id,a,b,a\n1,1,2,3\n2,4,5,\n")
    assert r.status == "loaded" and r.rows_loaded == 2 and r.rows_quarantined == 3
    assert r.rows_read == 5  # every non-blank cell: loaded or quarantined
    assert any("line 2, field a: column a appears 2 times in the header (columns 2, 4)" in e for e in r.errors)
    assert any("line 3, field a" in e for e in r.errors)
    kept = con.execute("SELECT line, field, raw_value FROM quarantine ORDER BY line, raw_value").fetchall()
    assert kept == [(2, "a", "1"), (2, "a", "3"), (3, "a", "4")]
    assert any("appear more than once" in n for n in r.notes)


def test_ragged_rows_are_quarantined_naming_the_line_the_rest_loads(tmp_path):
    """Bad input: a row with fewer or more cells than the header is kept whole in quarantine."""
    con, r = _load(tmp_path, "id,a,b\n1,1,2\n2,1\n3,1,2,3\n4,2,2\n")
    assert r.status == "loaded" and r.rows_loaded == 4 and r.rows_quarantined == 2
    assert any("line 3: 2 cells where the header names 3 columns" in e for e in r.errors)
    assert any("line 4: 4 cells where the header names 3 columns" in e for e in r.errors)
    assert con.execute("SELECT line, raw_value FROM quarantine ORDER BY line").fetchall() == [
        (3, "2,1"),
        (4, "3,1,2,3"),
    ]


def test_upload_takes_the_options_too(tmp_path):
    con = store.open_store(":memory:")
    r = ingest_bytes(con, b"x,a,b\n1,1,2\n", "sheet.csv", fmt="wide", options=FormatOptions(id_column="x"))
    assert r.status == "loaded" and r.rows_loaded == 2


# --- the published figures, and the same figures through the canonical layout --------------------------------


def _canonical_copy(src: Path, tmp_path: Path, researchers: set[str]) -> Path:
    """The wide reference file written as canonical long rows (an empty or blank cell is no row)."""
    out = tmp_path / "canonical" / src.name
    out.parent.mkdir(exist_ok=True)
    with open(src, newline="") as f, open(out, "w", newline="") as g:
        rows = list(csv.reader(f))
        w = csv.writer(g)
        w.writerow(["task_id", "rater_id", "role", "dimension", "value"])
        for line in rows[1:]:
            for rater, v in zip(rows[0][1:], line[1:], strict=True):
                if v.strip():
                    role = "researcher" if rater in researchers else "contractor"
                    w.writerow([line[0], rater, role, src.stem, v.strip()])
    return out


def _payload(path: Path, level: str, fmt: str, researchers: tuple[str, ...] = ()) -> dict:
    con = store.open_store(":memory:")
    r = ingest_file(con, path, fmt=fmt, options=FormatOptions(researchers=researchers))
    assert r.status == "loaded" and r.rows_quarantined == 0, r.errors
    return agreement.contract_payload(
        con, agreement.AgreementSpec(level=level, n_boot=0, filters=Filters(rubric="unspecified"))
    )


def _reference_case(case_id: str) -> dict:
    cases = json.loads(shared_path("reference", "reference_values.json").read_text())["cases"]
    return next(c for c in cases if c["id"] == case_id)


@pytest.mark.parametrize(
    "case_id, level",
    [
        ("kripp2011_C_nominal", "nominal"),
        ("kripp2011_D_ordinal", "ordinal"),
        ("kripp2011_E_interval", "interval"),
        ("kripp2011_F_ratio", "ratio"),
    ],
)
def test_krippendorff_2011_through_the_wide_layout(tmp_path, case_id, level):
    """Krippendorff (2011), Computing Krippendorff's Alpha-Reliability, sections C-F (the values in
    ../shared/reference/reference_values.json: 0.743, 0.815, 0.849, 0.797), read with --format wide; every figure
    equals the one from the same data as canonical rows."""
    case = _reference_case(case_id)
    src = shared_path("reference", KRIPP)
    wide = _payload(src, level, "wide")
    canonical = _payload(_canonical_copy(src, tmp_path, set()), level, "canonical")
    (dim,) = wide["dimensions"]
    assert dim["krippendorff_alpha"] == pytest.approx(case["expected"], abs=0.5 * 10 ** -case["published_precision"])
    assert dim["n_units"] == 11  # unit 12 has a single value (pairable-value counting)
    assert wide == canonical


def test_irr_anxiety_through_the_wide_layout_with_a_researcher_column(tmp_path):
    """irr_anxiety_kappa2_r2r3: R irr 0.84.1 kappa2(anxiety[,2:3]) unweighted = -0.006289308 (as recorded in
    ../shared/reference/reference_values.json); rater3 as the researcher (--researchers rater3), rater2's Cohen's
    kappa against it is that value. Every figure equals the canonical layout's."""
    case = _reference_case("irr_anxiety_kappa2_r2r3")
    src = shared_path("reference", ANXIETY)
    wide = _payload(src, "nominal", "wide", researchers=("rater3",))
    canonical = _payload(_canonical_copy(src, tmp_path, {"rater3"}), "nominal", "canonical")
    rater2 = next(r for r in wide["raters"] if r["rater_id"] == "rater2")
    tol = 0.5 * 10 ** -case["published_precision"]
    assert rater2["cohen_kappa"] == pytest.approx(case["expected"]["unweighted"], abs=tol)
    assert rater2["n"] == 20
    assert wide == canonical


def test_command_line_wide_options(tmp_path):
    """python -m analytics agreement FILE --format wide --researchers ... --wide-dimension ... --json."""
    src = shared_path("reference", ANXIETY)
    path = tmp_path / ANXIETY
    shutil.copy(src, path)
    out = run_cli(
        "agreement", str(path), "--format", "wide", "--researchers", "rater3",
        "--wide-dimension", "anxiety", "--level", "nominal", "--n-boot", "0", "--json", check=True,
    )  # fmt: skip
    payload = json.loads(out.stdout)
    assert {d["dimension"] for d in payload["dimensions"]} == {"anxiety"}
    assert {r["rater_id"] for r in payload["raters"]} == {"rater1", "rater2"}
