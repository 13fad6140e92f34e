"""Every published agreement value in ../shared/reference reproduced to its published precision.

Each test names its case id (reference_values.json / gwet_reference_values.json) and source. Where the data
are raw ratings, the value is computed through the whole path: canonical CSV -> ingest into a store ->
SQL sufficient statistics -> coefficient. Tables of counts are checked on the numpy functions directly
(and, for the Cohen tables, through the store as well).
"""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from conftest import shared_path

from analytics import agreement, store
from analytics.agreement import coefficients as co
from analytics.agreement import counts
from analytics.agreement import rows as rw
from analytics.core.filters import Filters
from analytics.ingest.load import ingest_file

COLS = ["task_id", "rater_id", "role", "rubric", "dimension", "value"]


def _cases() -> dict[str, dict]:
    data = json.loads(shared_path("reference", "reference_values.json").read_text())
    return {c["id"]: c for c in data["cases"]}


def _gwet() -> dict:
    return json.loads(shared_path("reference", "gwet_reference_values.json").read_text())["cac.raw4raters"]


def _tol(precision: int) -> float:
    """Half a unit in the last published digit."""
    return 0.5 * 10.0**-precision + 1e-12  # a true value exactly half-way rounds either way


def _digits(x: float) -> int:
    text = repr(float(x))
    return len(text.split(".")[1]) if "." in text else 0


def _rows(name: str) -> tuple[list[str], list[list[str]]]:
    with open(shared_path("reference", name), newline="") as f:
        r = csv.reader(f)
        head = next(r)
        return head, [line for line in r if line]


def _units_by_raters(name: str, raters: list[str] | None = None, roles: dict | None = None) -> list[list]:
    """Canonical rows from a units x raters CSV (an empty or blank cell is missing)."""
    head, lines = _rows(name)
    rows = []
    for line in lines:
        for rater, v in zip(head[1:], line[1:], strict=True):
            if v.strip() and (raters is None or rater in raters):
                role = (roles or {}).get(rater, "contractor")
                rows.append([line[0], rater, role, "reference", "score", v.strip()])
    return rows


def _table(name: str) -> np.ndarray:
    """A contingency table CSV: rater 1's labels down the first column, rater 2's across the header."""
    _, lines = _rows(name)
    return np.array([[float(x) for x in line[1:]] for line in lines])


def _table_pairs(table: np.ndarray) -> list[list]:
    """Canonical rows with one contractor x researcher pair per counted cell (levels 1..q)."""
    rows, t = [], 0
    for i, row in enumerate(table):
        for j, n in enumerate(row):
            for _ in range(int(n)):
                t += 1
                rows.append([f"u{t}", "contractor_1", "contractor", "reference", "category", i + 1])
                rows.append([f"u{t}", "researcher_1", "researcher", "reference", "category", j + 1])
    return rows


@pytest.fixture
def load(tmp_path):
    """Ingest canonical rows into a fresh in-memory store through the real loader; returns the connection."""
    cons = []

    def _load(rows: list[list]):
        path = tmp_path / f"ratings{len(cons)}.csv"
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(COLS)
            w.writerows(rows)
        con = store.open_store(":memory:")
        result = ingest_file(con, path)
        assert result.status == "loaded" and result.rows_quarantined == 0, result.errors
        cons.append(con)
        return con

    yield _load
    for c in cons:
        c.close()


def _dim(con, level: str | None = None, **kw) -> dict:
    df = agreement.dimension_agreement(con, agreement.AgreementSpec("all_raters", level=level, n_boot=0, **kw))
    assert len(df) == 1
    return df.iloc[0].to_dict()


def _rater(con, rater: str, level: str | None = None) -> dict:
    df = agreement.rater_agreement(
        con, agreement.AgreementSpec(comparison="contractor_vs_researcher", level=level, n_boot=0, filters=Filters())
    )
    return df[df["rater_id"] == rater].iloc[0].to_dict()


def _counts(name: str, levels: list[str]) -> np.ndarray:
    head, lines = _rows(name)
    return np.array([[sum(v.strip() == lvl for v in line[1:]) for lvl in levels] for line in lines], dtype=float)


# --- Krippendorff's alpha -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case_id, level",
    [
        ("kripp2011_A_binary", "nominal"),
        ("kripp2011_B_nominal_2coders", None),  # letters: the store infers a nominal scale
        ("kripp2011_C_nominal", "nominal"),
        ("kripp2011_D_ordinal", "ordinal"),
        ("kripp2011_E_interval", "interval"),
        ("kripp2011_F_ratio", "ratio"),
        ("wikipedia_kripp_nominal", "nominal"),
        ("wikipedia_kripp_interval", "interval"),
    ],
)
def test_krippendorff_alpha_through_the_store(load, case_id, level):
    """Krippendorff (2011) sections A-F and Wikipedia's worked example, computed from SQL value counts."""
    case = _cases()[case_id]
    con = load(_units_by_raters(case["file"]))
    got = _dim(con, level)
    assert got["level"] == case["level"]
    assert got["krippendorff_alpha"] == pytest.approx(case["expected"], abs=_tol(case["published_precision"]))
    assert got["krippendorff_alpha"] == pytest.approx(case["crosscheck"]["krippendorff==0.9.0"], abs=1e-6)


def test_kripp2011_C_pairable_values_and_unit_12_excluded(load):
    """kripp2011_C notes (Krippendorff 2011 section C): unit 12 has one value and is excluded; n = 40 values."""
    case = _cases()["kripp2011_C_nominal"]
    con = load(_units_by_raters(case["file"]))
    got = _dim(con, "nominal")
    assert got["n_units"] == 11 and got["n_units_rated"] == 12
    a = co.krippendorff_alpha(_counts(case["file"], ["1", "2", "3", "4", "5"]), "nominal")
    assert a.components["pairable_values"] == pytest.approx(40)


def test_kripp2011_C_observed_disagreement_in_gwet_parametrisation():
    """kripp2011_C_observed_disagreement, irrCAC 1.0 vignette: krippen.alpha.raw -> pa 0.805, pe 0.24."""
    case = _cases()["kripp2011_C_observed_disagreement"]
    a = co.krippendorff_alpha(_counts(case["file"], ["1", "2", "3", "4", "5"]), "nominal")
    assert a.pa == pytest.approx(case["expected"]["pa"], abs=_tol(3))
    assert a.pe == pytest.approx(case["expected"]["pe"], abs=_tol(2))
    assert a.value == pytest.approx(case["expected"]["alpha"], abs=_tol(5))


def test_alpha_from_value_counts_matches_the_krippendorff_package_on_the_published_data():
    """Cross-check of every level on Krippendorff (2011) C-F with krippendorff.alpha(value_counts=...)."""
    krippendorff = pytest.importorskip("krippendorff")
    counts = _counts(_cases()["kripp2011_C_nominal"]["file"], ["1", "2", "3", "4", "5"])
    for level in co.LEVELS:
        want = krippendorff.alpha(value_counts=counts, value_domain=[1, 2, 3, 4, 5], level_of_measurement=level)
        assert co.krippendorff_alpha(counts, level).value == pytest.approx(want, abs=1e-12)


# --- Fleiss' kappa ------------------------------------------------------------------------------------------


def test_fleiss_wikipedia_components():
    """fleiss_wikipedia: Wikipedia 'Fleiss' kappa' worked example; statsmodels test_fleiss_kappa (kappa 0.210)."""
    case = _cases()["fleiss_wikipedia"]
    counts = _table(case["file"])
    k = co.fleiss_kappa(counts)
    tol = _tol(case["published_precision"])
    assert k.value == pytest.approx(case["expected"], abs=tol)
    comp = case["expected_components"]
    assert co.unit_agreement(counts) == pytest.approx(comp["P_i"], abs=tol)
    assert k.pa == pytest.approx(comp["P_bar"], abs=tol)
    assert k.pe == pytest.approx(comp["P_e_bar"], abs=tol)
    assert k.marginals == pytest.approx(comp["p_j"], abs=tol)


def test_fleiss_wikipedia_through_the_store(load):
    """fleiss_wikipedia: the same counts as 14 exchangeable raters per subject, through the SQL path."""
    case = _cases()["fleiss_wikipedia"]
    rows = []
    for subject, row in enumerate(_table(case["file"]), start=1):
        raters = iter(range(14))
        for level, n in enumerate(row, start=1):
            rows += [
                [f"s{subject}", f"r{next(raters)}", "contractor", "reference", "score", level] for _ in range(int(n))
            ]
    got = _dim(load(rows), "nominal")
    assert got["fleiss_kappa"] == pytest.approx(case["expected"], abs=_tol(case["published_precision"]))
    assert got["fleiss_kappa"] == pytest.approx(case["crosscheck"]["statsmodels==0.15.0"], abs=1e-6)


def test_fleiss1971_diagnoses_through_the_store(load):
    """fleiss1971_diagnoses: Fleiss (1971) kappa 0.430; R irr kappam.fleiss(diagnoses) = 0.4302445."""
    case = _cases()["fleiss1971_diagnoses"]
    con = load(_units_by_raters(case["file"]))
    got = _dim(con, "nominal")
    assert got["fleiss_kappa"] == pytest.approx(case["expected"], abs=_tol(case["published_precision"]))
    patterns = counts.task_patterns_for(con, Filters(), lambda _k: 5)
    (tp,) = patterns.values()
    totals = tp.unit_weights @ tp.counts
    assert totals.tolist() == case["expected_other"]["category_totals"]


@pytest.mark.parametrize("case_id", [f"randolph_online_calc_{i}" for i in range(5)])
def test_randolph_fixed_and_free_marginal(case_id):
    """Randolph's online kappa calculator, as recorded in statsmodels test_fleis_randolph (7 raters)."""
    case = _cases()[case_id]
    counts = np.array(case["inline_table"], dtype=float)
    want, tol = case["expected"], _tol(case["published_precision"])
    assert co.percent_agreement(counts).value == pytest.approx(want["overall_agreement"], abs=tol)
    assert co.brennan_prediger(counts).value == pytest.approx(want["randolph_free_marginal"], abs=tol)
    fleiss = co.fleiss_kappa(counts)
    if want["fleiss_fixed_marginal"] is None:
        # randolph_online_calc_4: everyone chose the same category, Fleiss' kappa is 0/0 (statsmodels: nan)
        assert math.isnan(fleiss.value) and not fleiss.defined
        assert "0/0" in fleiss.reason
    else:
        assert fleiss.value == pytest.approx(want["fleiss_fixed_marginal"], abs=tol)


def test_randolph_4_undefined_through_the_store(load):
    """randolph_online_calc_4 through the report: Fleiss' kappa undefined with a reason, never 0, no crash."""
    rows = [[f"s{s}", f"r{r}", "contractor", "reference", "score", "yes"] for s in range(2) for r in range(7)]
    got = _dim(load(rows), "nominal")
    assert math.isnan(got["fleiss_kappa"]) and math.isnan(got["krippendorff_alpha"])
    assert got["percent_agreement"] == pytest.approx(1.0)
    assert "Fleiss' kappa: every rating is 'yes'" in got["notes"]


# --- Cohen's kappa --------------------------------------------------------------------------------------------


def test_irr_anxiety_rank_coded(load):
    """irr_anxiety_kappa2_r2r3: R irr 0.84.1 kappa2(anxiety[,2:3]) via statsmodels test_cohens_kappa_irr.

    Raters 2 and 3 never use category 5, so irr's weights follow the ranks of the observed levels. Concord
    weights undeclared numbers by their values (DESIGN.md), so the store's weighted kappas are Cohen's (1968)
    formula with disagreement |x_i - x_j| on the values 1, 2, 3, 4, 6; irr's rank-coded figures are reproduced
    from the table with positions as values.
    """
    case = _cases()["irr_anxiety_kappa2_r2r3"]
    tol = _tol(case["published_precision"])
    want = case["expected"]
    con = load(_units_by_raters(case["file"], ["rater2", "rater3"], {"rater3": "researcher"}))
    assert _rater(con, "rater2", "nominal")["cohen_kappa"] == pytest.approx(want["unweighted"], abs=tol)
    head, lines = _rows(case["file"])
    observed = ["1", "2", "3", "4", "6"]
    t = np.zeros((5, 5))
    for line in lines:
        t[observed.index(line[2]), observed.index(line[3])] += 1
    values = np.array([1, 2, 3, 4, 6.0])
    expected = np.outer(t.sum(axis=1), t.sum(axis=0)) / t.sum()
    for level, power in (("ordinal", 1), ("interval", 2)):
        d = np.abs(values[:, None] - values[None, :]) ** power  # Cohen (1968): 1 - sum(d*o) / sum(d*e)
        by_value = 1 - (d * t).sum() / (d * expected).sum()
        assert _rater(con, "rater2", level)["weighted_kappa"] == pytest.approx(by_value, abs=1e-12)
        assert co.cohen_kappa(t, "linear" if power == 1 else "quadratic", values).value == pytest.approx(by_value)
    # irr's rank-coded figures: the observed levels at positions 1..5
    assert co.cohen_kappa(t).value == pytest.approx(want["unweighted"], abs=tol)
    assert co.cohen_kappa(t, "linear").value == pytest.approx(want["linear('equal')"], abs=tol)
    assert co.cohen_kappa(t, "quadratic").value == pytest.approx(want["quadratic('squared')"], abs=tol)


def test_irr_anxiety_rank_coded_through_a_declared_scale(tmp_path):
    """irr_anxiety_kappa2_r2r3: declaring the observed levels with their ranks as values (6 -> 5) reproduces
    R irr 0.84.1 kappa2's linear ('equal') and quadratic ('squared') figures through the store."""
    from analytics.ingest.scales_file import parse_scales

    case = _cases()["irr_anxiety_kappa2_r2r3"]
    tol, want = _tol(case["published_precision"]), case["expected"]
    path = tmp_path / "anxiety.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLS)
        w.writerows(_units_by_raters(case["file"], ["rater2", "rater3"], {"rater3": "researcher"}))
    levels = [{"label": str(x), "value": i + 1} for i, x in enumerate((1, 2, 3, 4, 6))]
    declared = {"scales": [{"dimension": "score", "level": "ordinal", "levels": levels}]}
    con = store.open_store(":memory:")
    assert ingest_file(con, path, scales=parse_scales(json.dumps(declared), "ranks.json")).status == "loaded"
    assert _rater(con, "rater2", "ordinal")["weighted_kappa"] == pytest.approx(want["linear('equal')"], abs=tol)
    assert _rater(con, "rater2", "interval")["weighted_kappa"] == pytest.approx(want["quadratic('squared')"], abs=tol)


def test_irr_anxiety_trap_full_scale_differs(load):
    """irr_anxiety_kappa2_r2r3 notes (trap): on the full 1-6 scale the weighted kappa is not irr's value.

    Rater 1 uses level 5, so the store's scale is 1..6; rater 2 vs rater 3 then weights by the full scale,
    as sklearn.metrics.cohen_kappa_score(labels=[1..6]) does.
    """
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    case = _cases()["irr_anxiety_kappa2_r2r3"]
    con = load(_units_by_raters(case["file"], None, {"rater3": "researcher"}))
    got = _rater(con, "rater2", "ordinal")
    assert got["scale"] == "1 < 2 < 3 < 4 < 5 < 6"
    _, lines = _rows(case["file"])
    y2, y3 = [int(line[2]) for line in lines], [int(line[3]) for line in lines]
    full = sklearn_metrics.cohen_kappa_score(y2, y3, labels=[1, 2, 3, 4, 5, 6], weights="linear")
    assert got["weighted_kappa"] == pytest.approx(full, abs=1e-9)
    assert abs(got["weighted_kappa"] - case["expected"]["linear('equal')"]) > 0.01
    assert got["cohen_kappa"] == pytest.approx(case["expected"]["unweighted"], abs=_tol(7))  # unweighted: unchanged


@pytest.mark.parametrize(
    "case_id, weights, level",
    [
        ("sas_3x3_unweighted", "none", "nominal"),
        ("sas_3x3_weighted_linear", "linear", "ordinal"),
        ("artstein_poesio_2x2", "none", "nominal"),
        ("wikipedia_cohen_2x2", "none", "nominal"),
    ],
)
def test_cohen_kappa_tables(load, case_id, weights, level):
    """SAS PROC FREQ (statsmodels TestUnweightedCohens/TestWeightedCohens), Artstein & Poesio (2008) Table 1,
    Wikipedia 'Cohen's kappa' (50 proposals): from the table and through the store."""
    case = _cases()[case_id]
    table, tol = _table(case["file"]), _tol(case["published_precision"])
    k = co.cohen_kappa(table, weights)
    assert k.value == pytest.approx(case["expected"], abs=tol)
    got = _rater(load(_table_pairs(table)), "contractor_1", level)
    column = "cohen_kappa" if weights == "none" else "weighted_kappa"
    assert got[column] == pytest.approx(case["expected"], abs=tol)
    assert got["n"] == int(table.sum())
    if "expected_components" in case:
        assert k.pa == pytest.approx(case["expected_components"]["p_o"], abs=tol)
        assert k.pe == pytest.approx(case["expected_components"]["p_e"], abs=tol)


def test_sas_exact_agreement_is_13_of_19(load):
    """sas_3x3 (SAS PROC FREQ table): 13 of 19 pairs on the diagonal; the first level is never used by rater 2."""
    table = _table(_cases()["sas_3x3_unweighted"]["file"])
    got = _rater(load(_table_pairs(table)), "contractor_1")
    assert got["exact_agreement"] == pytest.approx(13 / 19)


def _vectors(case: dict) -> tuple[list[int], list[int]]:
    """The inline vectors of a case: "[0]*46+[1]*44+[2]*10" style run lengths."""
    out = []
    for key in ("y1", "y2"):
        vec = []
        for part in case["inline_vectors"][key].split("+"):
            value, times = part.split("*")
            vec += [int(value.strip("[]"))] * int(times)
        out.append(vec)
    return out[0], out[1]


def _confusion(y1: list[int], y2: list[int], q: int) -> np.ndarray:
    t = np.zeros((q, q))
    np.add.at(t, (np.array(y1), np.array(y2)), 1)
    return t


def test_artstein_poesio_table4_marginals():
    """artstein_poesio_table4_marginals: scikit-learn test_cohen_kappa (Artstein & Poesio Table 4), 0.8013."""
    case = _cases()["artstein_poesio_table4_marginals"]
    t = _confusion(*_vectors(case), 3)
    assert co.cohen_kappa(t).value == pytest.approx(case["expected"], abs=_tol(case["published_precision"]))


@pytest.mark.parametrize("weights", ["none", "linear", "quadratic"])
def test_sklearn_weighting_example(weights):
    """sklearn_weighting_example: scikit-learn 1.9.1 test_cohen_kappa, none 0.9315 / linear 0.9412 / quadratic 0.9541."""
    case = _cases()["sklearn_weighting_example"]
    t = _confusion(*_vectors(case), 3)
    want = case["expected"][weights]
    assert co.cohen_kappa(t, weights).value == pytest.approx(want, abs=_tol(case["published_precision"]))


# --- Gwet's irrCAC on cac.raw4raters --------------------------------------------------------------------------

GWET_LEVELS = ["1", "2", "3", "4", "5"]


def _gwet_counts() -> tuple[np.ndarray, np.ndarray]:
    head, lines = _rows("irrcac/cac.raw4raters.csv")
    counts = np.array([[sum(v.strip() == lvl for v in line[1:]) for lvl in GWET_LEVELS] for line in lines], float)
    raters = np.array(
        [[sum(line[1 + g].strip() == lvl for line in lines) for lvl in GWET_LEVELS] for g in range(len(head) - 1)],
        float,
    )
    return counts, raters


@pytest.mark.parametrize("weights", ["unweighted", "quadratic"])
def test_gwet_irrcac_raw4raters_every_published_value(weights):
    """gwet_reference_values.json: Gwet, irrCAC R package 1.0 vignette 'overview', cac.raw4raters.

    Includes Fleiss' kappa generalised to unequal numbers of ratings per unit, Conger's kappa,
    Brennan-Prediger, Krippendorff in Gwet's pa/pe parametrisation and the standard error of AC1.
    """
    want = _gwet()[weights]
    counts, rater_counts = _gwet_counts()
    w = "none" if weights == "unweighted" else "quadratic"
    level = "nominal" if weights == "unweighted" else "interval"
    ac = co.gwet_ac(counts, w)
    fleiss = co.fleiss_kappa(counts, w)
    conger = co.conger_kappa(counts, rater_counts, w)
    alpha = co.krippendorff_alpha(counts, level)
    got = {
        "percent_agreement": co.percent_agreement(counts, w).value,
        "gwet_ac1": ac.value,
        "gwet_ac2": ac.value,
        "gwet_pe": ac.pe,
        "fleiss_kappa": fleiss.value,
        "fleiss_pe": fleiss.pe,
        "krippendorff_alpha": alpha.value,
        "kripp_pa": alpha.pa,
        "kripp_pe": alpha.pe,
        "conger_kappa": conger.value,
        "conger_pe": conger.pe,
        "brennan_prediger": co.brennan_prediger(counts, w).value,
        "gwet_ac1_se": co.gwet_ac_se(counts, w),
    }
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=_tol(_digits(value))), key


def test_gwet_irrcac_raw4raters_through_the_store(load):
    """gwet_reference_values.json (irrCAC 1.0, cac.raw4raters): the report's dimension row from SQL counts."""
    want = _gwet()
    rows = _units_by_raters("irrcac/cac.raw4raters.csv")
    con = load(rows)
    nominal, interval = _dim(con, "nominal"), _dim(con, "interval")
    for key in ("percent_agreement", "gwet_ac1", "fleiss_kappa", "krippendorff_alpha", "brennan_prediger"):
        value = want["unweighted"][key]
        assert nominal[key] == pytest.approx(value, abs=_tol(_digits(value))), key
    assert interval["gwet_ac2"] == pytest.approx(want["quadratic"]["gwet_ac2"], abs=_tol(3))
    assert interval["krippendorff_alpha"] == pytest.approx(want["quadratic"]["krippendorff_alpha"], abs=_tol(5))
    assert nominal["n_raters"] == 4 and nominal["n_ratings"] == len(rows)


def test_one_level_names_the_level_a_group_used():
    """The reason of an undefined kappa names the one level used, per group of pairs ('yes'), else says "one level"
    (no level, or several: the reason is then about something else)."""
    counts = np.array([[0, 4, 0], [0, 0, 0], [2, 1, 0], [0, 0, 1e-15]])
    assert rw.one_levels(counts, ("no", "yes", "maybe")) == ["'yes'", "one level", "one level", "one level"]
    assert [rw.one_level(row, ("no", "yes", "maybe")) for row in counts] == rw.one_levels(
        counts, ("no", "yes", "maybe")
    )
