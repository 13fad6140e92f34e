"""Properties of the agreement engine on random data, computed through the SQL path from a store.

Cross-checks: krippendorff.alpha on the dense matrix (value_domain = the full scale), sklearn's
cohen_kappa_score (labels = the full scale; linear and quadratic weights), statsmodels' fleiss_kappa and
scipy's kendalltau (tau-b). Plus the undefined cases (reported as NaN with a reason, never a crash or a 0),
the bootstrap's determinism, and the comparison rules (several researcher labels, filters).
"""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from analytics import agreement, store
from analytics.agreement import counts
from analytics.core.filters import Filters
from analytics.store import keys
from analytics.store.derived import refresh

RUBRIC, DIM = "prop", "score"
# AGREEMENT_EXAMPLES=500 for a deeper search; the default keeps the file well under 30 s.
PROPS = settings(
    max_examples=int(os.environ.get("AGREEMENT_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
_STORE: list = []


def _con():
    """One in-memory store for the module (hypothesis examples reuse it; each load replaces the data)."""
    if not _STORE:
        _STORE.append(store.open_store(":memory:"))
    return _STORE[0]


# The tables kept beside the ratings (analytics/store/derived/refresh.py), emptied with them.
KEPT_TABLES = (
    "reference_pairs",
    "level_counts",
    "reference_tasks",
    "contractor_tasks",
    "contractor_rubric_tasks",
    "rater_tasks",
)


def load(rows: list[tuple], q: int, kind: str = "ordinal", coarse: list[str] | None = None):
    """Replace the store's ratings with rows (task_id, target, rater_id, role, level index) on a 1..q scale."""
    con = _con()
    levels = [str(i + 1) for i in range(q)]
    con.execute("DELETE FROM ratings")
    for table in KEPT_TABLES:
        con.execute(f"DELETE FROM {table}")
    con.execute("DELETE FROM dimensions WHERE rubric = ?", [RUBRIC])
    con.execute(
        "INSERT INTO dimensions (rubric, dimension, label, kind, levels, coarse, targets, dim_group, is_primary, "
        "is_comparison, source) VALUES (?, ?, ?, ?, ?, ?, [], '', false, false, 'inferred')",
        [RUBRIC, DIM, DIM, kind, levels, coarse or levels],
    )
    df = pd.DataFrame(rows, columns=["task_id", "target", "rater_id", "role", "value_index"])
    df["value"] = (df["value_index"] + 1).astype(str)
    con.register("new_rows", df)
    keys.insert_ratings(
        con,
        """(SELECT task_id, rater_id, role, $rubric AS rubric, $dimension AS dimension, target, value, value_index,
                   value_index + 1 AS value_num, NULL::TIMESTAMP AS submitted_at, NULL::DOUBLE AS duration_s,
                   NULL AS comment, NULL AS submission_id, 1 AS ingest_id FROM new_rows)""",
        {"rubric": RUBRIC, "dimension": DIM},
    )
    refresh.after_load(con, 1)
    con.unregister("new_rows")
    return con


@hs.composite
def matrices(draw, min_raters=2, max_raters=5, max_units=18, missing=True):
    """A units x raters matrix of level indexes (None = missing) on a scale of q levels."""
    q = draw(hs.integers(2, 6))
    n_raters = draw(hs.integers(min_raters, max_raters))
    n_units = draw(hs.integers(1, max_units))
    cell = hs.one_of(hs.none(), hs.integers(0, q - 1)) if missing else hs.integers(0, q - 1)
    row = hs.lists(cell, min_size=n_raters, max_size=n_raters)
    return q, draw(hs.lists(row, min_size=n_units, max_size=n_units))


def _rows(matrix, roles=None) -> list[tuple]:
    roles = roles or {}
    return [
        (f"t{u}", "", f"r{j}", roles.get(j, "contractor"), v)
        for u, line in enumerate(matrix)
        for j, v in enumerate(line)
        if v is not None
    ]


def _dimension(con, level=None, comparison="all_raters", **kw) -> dict:
    df = agreement.dimension_agreement(con, agreement.AgreementSpec(comparison, level=level, n_boot=0, **kw))
    return df.iloc[0].to_dict() if len(df) else {}


def _same_or_both_undefined(got: float, want: float, notes: str) -> None:
    if want is None or not np.isfinite(want):
        assert math.isnan(got), f"expected undefined, got {got}"
        assert notes, "an undefined coefficient needs a reason"
    else:
        assert got == pytest.approx(want, abs=1e-9)


# --- cross-checks with the reference implementations ------------------------------------------------------


@PROPS
@given(matrices(), hs.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_alpha_matches_krippendorff_package(data, level):
    """Krippendorff's alpha from SQL value counts = krippendorff.alpha on the dense matrix, full value domain."""
    krippendorff = pytest.importorskip("krippendorff")
    q, matrix = data
    rows = _rows(matrix)
    if not rows:
        return
    got = _dimension(load(rows, q), level)
    dense = np.array([[np.nan if v is None else v + 1 for v in line] for line in matrix], dtype=float).T
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = krippendorff.alpha(dense, value_domain=list(range(1, q + 1)), level_of_measurement=level)
        except (ValueError, ZeroDivisionError):
            want = None
    _same_or_both_undefined(got["krippendorff_alpha"], want, got["notes"])


@PROPS
@given(matrices(min_raters=2, max_raters=2, max_units=25), hs.sampled_from(["nominal", "ordinal", "interval"]))
def test_cohen_kappa_matches_sklearn(data, level):
    """Contractor vs researcher kappa from SQL confusion counts = sklearn with labels = the full scale."""
    sk = pytest.importorskip("sklearn.metrics")
    q, matrix = data
    rows = _rows(matrix, roles={1: "researcher"})
    if not any(r[2] == "r0" for r in rows):
        return
    con = load(rows, q)
    got = (
        agreement.rater_agreement(con, agreement.AgreementSpec(level=level, n_boot=0, filters=Filters()))
        .set_index("rater_id")
        .loc["r0"]
    )
    pairs = [(line[0], line[1]) for line in matrix if line[0] is not None and line[1] is not None]
    assert got["n"] == len(pairs)
    weights = {"nominal": None, "ordinal": "linear", "interval": "quadratic"}[level]
    column = "cohen_kappa" if weights is None else "weighted_kappa"
    want = None
    if pairs:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            y1, y2 = zip(*pairs, strict=True)
            want = sk.cohen_kappa_score(y1, y2, labels=list(range(q)), weights=weights)
    _same_or_both_undefined(got[column], want, got["notes"])
    if pairs:
        assert got["exact_agreement"] == pytest.approx(np.mean([a == b for a, b in pairs]))
        if level == "nominal":
            assert math.isnan(got["mean_difference"]) and "mean difference" not in got["notes"]
        else:
            assert got["mean_difference"] == pytest.approx(np.mean([a - b for a, b in pairs]))


@PROPS
@given(matrices(min_raters=2, max_raters=6, missing=False))
def test_fleiss_kappa_matches_statsmodels(data):
    """Fleiss' kappa from SQL value counts = statsmodels fleiss_kappa on complete data."""
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    q, matrix = data
    got = _dimension(load(_rows(matrix), q), "nominal")
    table = np.array([[line.count(k) for k in range(q)] for line in matrix])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = inter_rater.fleiss_kappa(table, method="fleiss")
    _same_or_both_undefined(got["fleiss_kappa"], want, got["notes"])
    assert got["percent_agreement"] == pytest.approx(
        np.mean([sum(c * (c - 1) for c in row) / (len(matrix[0]) * (len(matrix[0]) - 1)) for row in table])
    )


@hs.composite
def rankings(draw):
    """Several tasks, each with 2-6 ranked outputs, ranked by one contractor and one researcher (ties allowed)."""
    tasks = []
    for _ in range(draw(hs.integers(1, 4))):
        k = draw(hs.integers(2, 6))
        rank = hs.lists(hs.integers(0, k - 1), min_size=k, max_size=k)
        tasks.append((draw(rank), draw(rank)))
    return tasks


@PROPS
@given(rankings())
def test_kendall_tau_b_matches_scipy_and_pair_counts(tasks):
    """Tau-b of a ranking dimension: scipy's kendalltau for one task; pooled item pairs inside tasks for many."""
    stats = pytest.importorskip("scipy.stats")
    rows = []
    for t, (c, r) in enumerate(tasks):
        rows += [(f"t{t}", f"o{i}", "c", "contractor", v) for i, v in enumerate(c)]
        rows += [(f"t{t}", f"o{i}", "r", "researcher", v) for i, v in enumerate(r)]
    con = load(rows, 6, kind="ranking")
    got = agreement.rater_agreement(con, agreement.AgreementSpec(n_boot=0, filters=Filters())).iloc[0]
    sign = np.sign
    conc = disc = ts = tr = tb = 0
    for c, r in tasks:
        for i in range(len(c)):
            for j in range(i + 1, len(c)):
                a, b = sign(c[i] - c[j]), sign(r[i] - r[j])
                conc += a * b > 0
                disc += a * b < 0
                ts += a == 0 and b != 0
                tr += a != 0 and b == 0
                tb += a == 0 and b == 0
    want = (
        (conc - disc) / math.sqrt((conc + disc + tr) * (conc + disc + ts))
        if (conc + disc + tr) and (conc + disc + ts)
        else None
    )
    _same_or_both_undefined(got["kendall_tau_b"], want, got["notes"])
    assert got["preference_agreement"] == pytest.approx((conc + tb) / (conc + disc + ts + tr + tb))
    if len(tasks) == 1 and want is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert got["kendall_tau_b"] == pytest.approx(stats.kendalltau(*tasks[0], variant="b").statistic)


@PROPS
@given(matrices(min_raters=2, max_raters=4))
def test_coarse_agreement_is_agreement_after_mapping(data):
    """Coarse agreement = percent agreement after mapping each level to its coarse level (catalogue mapping)."""
    q, matrix = data
    coarse = ["low" if i < q / 2 else "high" for i in range(q)]
    got = _dimension(load(_rows(matrix), q, coarse=coarse), "ordinal")
    if not got:
        return
    mapped = [[None if v is None else coarse[v] for v in line] for line in matrix]
    shares = []
    for line in mapped:
        vals = [v for v in line if v is not None]
        if len(vals) >= 2:
            agree = sum(a == b for i, a in enumerate(vals) for j, b in enumerate(vals) if i != j)
            shares.append(agree / (len(vals) * (len(vals) - 1)))
    if shares:
        assert got["coarse_agreement"] == pytest.approx(np.mean(shares))
    else:
        assert math.isnan(got["coarse_agreement"]) and got["notes"]
    on_coarse = _dimension(_con(), "ordinal", coarse=True)
    assert on_coarse["scale"] == ("low < high" if coarse[0] == "low" else "high")
    assert on_coarse["percent_agreement"] == pytest.approx(got["coarse_agreement"], nan_ok=True)


# --- undefined cases --------------------------------------------------------------------------------------


def test_one_rater_is_undefined_with_a_reason():
    """One rater: every multi-rater coefficient is NaN, the reason says so, nothing crashes."""
    got = _dimension(load([(f"t{u}", "", "only", "contractor", u % 3) for u in range(10)], 3))
    for key in ("percent_agreement", "krippendorff_alpha", "fleiss_kappa", "gwet_ac1"):
        assert math.isnan(got[key])
    assert "only one rater" in got["notes"]
    assert got["n_raters"] == 1 and got["n_units"] == 0


def test_everyone_using_one_level_is_undefined_not_zero():
    """A single level used by everyone: alpha and Fleiss' kappa are 0/0, reported as undefined with why."""
    got = _dimension(load([(f"t{u}", "", f"r{j}", "contractor", 2) for u in range(40) for j in range(3)], 5))
    assert got["percent_agreement"] == pytest.approx(1.0)
    assert math.isnan(got["krippendorff_alpha"]) and math.isnan(got["fleiss_kappa"])
    assert "alpha is 0/0" in got["notes"] and "kappa is 0/0" in got["notes"]
    assert got["gwet_ac1"] == pytest.approx(1.0)  # AC1 is defined here: that is its point


def test_contractor_without_overlap_is_listed_as_undefined():
    """A contractor who shares no unit with a researcher gets a row with n = 0 and a reason, not a 0 kappa."""
    rows = [("t1", "", "c1", "contractor", 0), ("t1", "", "r1", "researcher", 0), ("t2", "", "c2", "contractor", 1)]
    rows += [("t3", "", "c1", "contractor", 1), ("t3", "", "r1", "researcher", 1)]
    raters = agreement.rater_agreement(load(rows, 3), agreement.AgreementSpec(n_boot=100, filters=Filters())).set_index(
        "rater_id"
    )
    c2 = raters.loc["c2"]
    assert c2["n"] == 0 and math.isnan(c2["cohen_kappa"]) and math.isnan(c2["exact_agreement"])
    assert "no unit shared with a researcher" in c2["notes"]
    assert raters.loc["c1", "cohen_kappa"] == pytest.approx(1.0)
    assert raters.loc["c1", "small_n"]


def test_cohen_zero_over_zero():
    """Both sides always chose the same single level: kappa is 0/0 (undefined), exact agreement is 1."""
    rows = [(f"t{u}", "", who, role, 1) for u in range(5) for who, role in (("c", "contractor"), ("r", "researcher"))]
    got = agreement.rater_agreement(load(rows, 3), agreement.AgreementSpec(n_boot=0, filters=Filters())).iloc[0]
    assert got["exact_agreement"] == pytest.approx(1.0)
    assert math.isnan(got["cohen_kappa"]) and "kappa is 0/0" in got["notes"]


def test_empty_store_gives_empty_tables():
    """No ratings at all: empty frames with their columns, no exception."""
    con = load([], 3)
    report = agreement.agreement_report(con, agreement.AgreementSpec(n_boot=10, filters=Filters()))
    assert report.dimensions.empty and list(report.dimensions.columns) == list(agreement.DIMENSION_COLUMNS)
    assert report.raters.empty and list(report.raters.columns) == list(agreement.RATER_COLUMNS)
    assert agreement.pairwise_matrix(
        con, agreement.AgreementSpec(comparison="all_raters", filters=Filters()), RUBRIC, DIM
    ).empty


def test_tau_b_undefined_when_one_side_ties_everything():
    """A researcher who ties every output: tau-b is 0/0, reported with its reason."""
    rows = [("t", f"o{i}", "c", "contractor", i) for i in range(3)]
    rows += [("t", f"o{i}", "r", "researcher", 0) for i in range(3)]
    got = agreement.rater_agreement(
        load(rows, 3, kind="ranking"), agreement.AgreementSpec(n_boot=0, filters=Filters())
    ).iloc[0]
    assert math.isnan(got["kendall_tau_b"]) and "ties every pair" in got["notes"]
    assert got["preference_agreement"] == pytest.approx(0.0)


# --- comparison rules, bootstrap, matrices ------------------------------------------------------------------


def _cvr_rows(n_units: int, seed: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(n_units):
        truth = int(rng.integers(0, 5))
        rows.append((f"t{u}", "", "r1", "researcher", truth))
        for c in ("c1", "c2"):
            rows.append((f"t{u}", "", c, "contractor", int(np.clip(truth + rng.integers(-1, 2), 0, 4))))
    return rows


def test_intervals_are_seeded_where_resampled_and_narrow_with_more_units():
    """A rater's interval is analytic (the delta method over tasks): the same whatever the seed. The multi-rater
    bootstrap's is seeded: same seed, same interval; a different seed moves it a little. Four times the units, a
    narrower one."""
    con = load(_cvr_rows(60, 1), 5)
    spec = lambda seed, comparison="contractor_vs_researcher": agreement.AgreementSpec(  # noqa: E731
        comparison=comparison, n_boot=1000, seed=seed, filters=Filters()
    )
    a = agreement.rater_agreement(con, spec(3)).set_index("rater_id")
    c = agreement.rater_agreement(con, spec(4)).set_index("rater_id")
    assert a.loc["c1", "cohen_kappa_ci_low"] == c.loc["c1", "cohen_kappa_ci_low"]
    assert a.loc["c1", "cohen_kappa_ci_low"] < a.loc["c1", "cohen_kappa"] < a.loc["c1", "cohen_kappa_ci_high"]
    dims = [agreement.dimension_agreement(con, spec(seed, "all_raters")).iloc[0] for seed in (3, 3, 4)]
    alpha = [d["krippendorff_alpha_ci_low"] for d in dims]
    assert alpha[0] == alpha[1] != alpha[2]
    assert dims[0]["krippendorff_alpha_ci_low"] < dims[0]["krippendorff_alpha"] < dims[0]["krippendorff_alpha_ci_high"]
    wide = a.loc["c1", "cohen_kappa_ci_high"] - a.loc["c1", "cohen_kappa_ci_low"]
    con = load(_cvr_rows(240, 1), 5)
    big = agreement.rater_agreement(con, spec(3)).set_index("rater_id")
    assert big.loc["c1", "cohen_kappa_ci_high"] - big.loc["c1", "cohen_kappa_ci_low"] < wide
    assert not big.loc["c1", "small_n"]


def test_each_researcher_label_is_a_separate_pair():
    """Two researcher labels on a unit: two pairs for the contractor (n counts pairs, n_units units)."""
    rows = [("t1", "", "c1", "contractor", 0), ("t1", "", "r1", "researcher", 0), ("t1", "", "r2", "researcher", 1)]
    rows += [("t2", "", "c1", "contractor", 1), ("t2", "", "r1", "researcher", 1)]
    got = agreement.rater_agreement(load(rows, 2), agreement.AgreementSpec(n_boot=0, filters=Filters())).iloc[0]
    assert got["n"] == 3 and got["n_units"] == 2
    assert got["exact_agreement"] == pytest.approx(2 / 3)


def test_rater_filter_keeps_the_researcher_labels():
    """Choosing one contractor restricts the subject side only: its row is the same as without the filter."""
    con = load(_cvr_rows(50, 2), 5)
    every = agreement.rater_agreement(con, agreement.AgreementSpec(n_boot=200, filters=Filters())).set_index("rater_id")
    one = agreement.rater_agreement(
        con, agreement.AgreementSpec(n_boot=200, filters=Filters(raters=("c1",)))
    ).set_index("rater_id")
    assert list(one.index) == ["c1"]
    pd.testing.assert_series_equal(one.loc["c1"], every.loc["c1"])


def test_among_contractors_ignores_researchers():
    """Among contractors: researcher labels take no part; per rater, each contractor against the others."""
    con = load(_cvr_rows(50, 5), 5)
    dims = agreement.dimension_agreement(
        con, agreement.AgreementSpec(comparison="among_contractors", n_boot=0, filters=Filters())
    ).iloc[0]
    assert dims["n_raters"] == 2 and dims["n_ratings"] == 100
    raters = agreement.rater_agreement(
        con, agreement.AgreementSpec(comparison="among_contractors", n_boot=0, filters=Filters())
    )
    assert set(raters["rater_id"]) == {"c1", "c2"}
    assert raters["exact_agreement"].iloc[0] == pytest.approx(raters["exact_agreement"].iloc[1])
    assert raters["cohen_kappa"].iloc[0] == pytest.approx(raters["cohen_kappa"].iloc[1])


def test_confusion_and_pairwise_matrices():
    """The confusion matrix covers the full scale; the pairwise matrix has both orientations of each pair."""
    con = load(_cvr_rows(50, 7) + [("t0", "", "c3", "contractor", 0)], 5)
    cm = agreement.confusion_matrix(con, agreement.AgreementSpec(filters=Filters()), RUBRIC, DIM, rater_id="c1")
    assert len(cm) == 25 and cm["n"].sum() == 50
    assert list(cm["subject_level"].cat.categories) == ["1", "2", "3", "4", "5"]
    pw = agreement.pairwise_matrix(
        con, agreement.AgreementSpec(comparison="all_raters", filters=Filters()), RUBRIC, DIM
    )
    ab = pw[(pw.rater_a == "c1") & (pw.rater_b == "r1")].iloc[0]
    ba = pw[(pw.rater_a == "r1") & (pw.rater_b == "c1")].iloc[0]
    assert ab["n"] == ba["n"] == 50 and ab["cohen_kappa"] == pytest.approx(ba["cohen_kappa"])
    raters = agreement.rater_agreement(con, agreement.AgreementSpec(n_boot=0, filters=Filters())).set_index("rater_id")
    assert ab["cohen_kappa"] == pytest.approx(raters.loc["c1", "cohen_kappa"])
    assert pw[pw.rater_a == "c3"]["small_n"].all()


def test_kappa_paradox_diagnostic():
    """High agreement with skewed marginals: kappa is low, the diagnostic gives the marginals, AC1 and why."""
    rows = []
    for u in range(100):
        c, r = (4, 4) if u < 90 else ((4, 3) if u < 95 else (3, 4))
        rows += [(f"t{u}", "", "c1", "contractor", c), (f"t{u}", "", "r1", "researcher", r)]
    con = load(rows, 5)
    d = agreement.paradox_diagnostic(con, agreement.AgreementSpec(filters=Filters()), RUBRIC, DIM)
    assert d.is_paradox and d.percent_agreement == pytest.approx(0.9) and d.kappa < 0.4
    assert d.gwet_ac1 > 0.8 and "'5'" in d.sentence
    assert d.subject_marginals[4] == pytest.approx(0.95)
    assert agreement.rater_agreement(con, agreement.AgreementSpec(n_boot=0, filters=Filters())).iloc[0]["kappa_paradox"]


def test_report_exposes_its_sql():
    """The report carries the named SQL it ran, with bound parameters (no values formatted in)."""
    report = agreement.agreement_report(
        load(_cvr_rows(5, 0), 5), agreement.AgreementSpec(n_boot=0, filters=Filters(raters=("c1",)))
    )
    assert {
        "pairs_contractor_vs_researcher_by_rater_summed",  # no interval: the raters' cells summed in SQL
        "pairs_pooled_by_dimension",
        "pairs_ceiling_by_dimension",
    } <= set(report.sql)
    sql = report.sql["pairs_contractor_vs_researcher_by_rater_summed"]
    assert "GROUP BY" in sql and "c1" not in sql
    among = agreement.agreement_report(
        load(_cvr_rows(5, 0), 5), agreement.AgreementSpec(comparison="among_contractors", n_boot=0, filters=Filters())
    ).sql
    assert "GROUP BY" in among["task_value_patterns"]
    assert set(report.coefficients.columns) == set(agreement.LONG_COLUMNS)
    nominal = agreement.agreement_report(
        _con(), agreement.AgreementSpec(level="nominal", n_boot=0, filters=Filters())
    ).coefficients
    na = nominal[nominal["statistic"] == "weighted_kappa"]
    assert not na["applies"].any() and na["reason"].str.startswith("not applicable").all()


def test_bad_arguments_raise_clear_errors():
    """An unknown comparison or level is a ValueError naming the choices."""
    con = load(_cvr_rows(3, 0), 5)
    with pytest.raises(ValueError, match="comparison must be one of"):
        agreement.agreement_report(con, agreement.AgreementSpec(comparison="everyone", filters=Filters()))
    with pytest.raises(ValueError, match="level must be one of"):
        agreement.agreement_report(con, agreement.AgreementSpec(level="cardinal", filters=Filters()))
    with pytest.raises(ValueError, match="has no dimension"):
        agreement.confusion_matrix(con, agreement.AgreementSpec(filters=Filters()), RUBRIC, "nope")


def test_value_patterns_hold_any_number_of_ratings_per_level():
    """70 raters on one level of a 10-level scale: per-unit counts are exact (no packing limit)."""
    rows = [("t1", "", f"r{j}", "contractor", 0) for j in range(70)] + [("t1", "", "x", "contractor", 9)]
    rows += [("t2", "", "r0", "contractor", 3), ("t2", "", "r1", "contractor", 3)]
    con = load(rows, 10)
    (tp,) = counts.task_patterns_for(con, Filters(), lambda _k: 10).values()
    got = {tuple(int(x) for x in c): int(n) for c, n in zip(tp.counts, tp.unit_weights, strict=True)}
    assert got == {(70, 0, 0, 0, 0, 0, 0, 0, 0, 1): 1, (0, 0, 0, 2, 0, 0, 0, 0, 0, 0): 1}


@pytest.mark.parametrize("comparison", ["contractor_vs_researcher", "among_contractors"])
def test_units_and_tasks_are_counted_apart(comparison):
    """Targets A and B of one task are two units of one task, for both shapes of the shared-units query."""
    other = ("r1", "researcher") if comparison == "contractor_vs_researcher" else ("c2", "contractor")
    rows = [("t1", t, "c1", "contractor", 0) for t in ("A", "B")] + [("t1", t, *other, 1) for t in ("A", "B")]
    rows += [("t2", "A", "c1", "contractor", 0), ("t3", "A", *other, 0)]
    raters = agreement.rater_agreement(
        load(rows, 2), agreement.AgreementSpec(comparison=comparison, n_boot=0, filters=Filters())
    ).set_index("rater_id")
    assert raters.loc["c1", ["n", "n_units", "n_tasks"]].tolist() == [2, 2, 1]
