"""Honest inputs and uncertainty (issue: declared scales, one pairing, task-level intervals).

Each test names the defect it guards against; every one failed on the code before the agreement package.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import math
import os
from pathlib import Path
from unittest import mock

import duckdb
import numpy as np
import pandas as pd
import pytest

from analytics import agreement, store
from analytics.agreement import coefficients as co
from analytics.agreement import counts as ct
from analytics.agreement import intervals as iv
from analytics.agreement import multi_rater as mr
from analytics.agreement import pair_plans as pp
from analytics.agreement import pair_rows as prw
from analytics.agreement import pairing as pg
from analytics.agreement import report as rp
from analytics.agreement import rows as rw
from analytics.agreement import sides as sd
from analytics.agreement import signatures as sg
from analytics.agreement import team
from analytics.agreement.scales import ScaleError, build_scale
from analytics.core import packing as pk
from analytics.core import stats
from analytics.core.filters import Filters
from analytics.ingest.load import ingest_bytes
from tests.cli_helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def canonical(rows: list[tuple], columns=("task_id", "target", "rater_id", "role", "dimension", "value")) -> bytes:
    """A canonical CSV (rubric 'study') from tuples."""
    df = pd.DataFrame(rows, columns=list(columns)).assign(rubric="study")
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    return buf.getvalue().encode()


def store_of(*files: tuple[str, bytes]):
    """An in-memory store with the given (name, canonical CSV) files loaded."""
    con = store.open_store(":memory:")
    for name, data in files:
        r = ingest_bytes(con, data, name)
        assert r.status == "loaded", r.errors
    return con


def nominal_scale(q: int):
    """A declared nominal scale of q levels (as the catalogue stores one)."""
    levels = [chr(ord("a") + i) for i in range(q)]
    row = pd.Series(
        {
            "rubric": "sim",
            "dimension": "d",
            "kind": "nominal",
            "levels": levels,
            "coarse": levels,
            "measure": "nominal",
            "level_values": [None] * q,
            "source": "catalogue",
        }
    )
    return build_scale(row, None, False)


# --- task-level intervals: coverage in simulation -------------------------------------------------------------

Q, PI = 3, np.array([0.5, 0.3, 0.2])
DIFFICULTY = ((0.5, 0.92), (0.5, 0.45))  # (share of tasks, chance a rater gives the true level): easy, hard


def _rate(truth: np.ndarray, p_right: np.ndarray, rng) -> np.ndarray:
    wrong = (truth + rng.integers(1, Q, size=truth.shape)) % Q
    return np.where(rng.random(truth.shape) < p_right, truth, wrong)


def _simulate(n_tasks: int, rng) -> np.ndarray:
    """Per task, its confusion cells: 2 targets, each rated by a contractor and two researchers."""
    p = np.where(rng.random(n_tasks) < DIFFICULTY[0][0], DIFFICULTY[0][1], DIFFICULTY[1][1])[:, None]
    truth = rng.choice(Q, size=(n_tasks, 2), p=PI)
    contractor = _rate(truth, p, rng)
    cells = np.zeros((n_tasks, Q * Q))
    for _ in range(2):  # two researcher labels per unit: two pairs
        researcher = _rate(truth, p, rng)
        for t in range(2):
            np.add.at(cells, (np.arange(n_tasks), contractor[:, t] * Q + researcher[:, t]), 1)
    return cells


def _population_table() -> np.ndarray:
    """The expected (contractor, researcher) pair table of the model, exactly."""
    table = np.zeros((Q, Q))
    for share, p in DIFFICULTY:
        given = np.full((Q, Q), (1 - p) / (Q - 1))
        np.fill_diagonal(given, p)  # P(rating | truth)
        table += share * (given.T * PI) @ given  # sum_L pi_L P(a|L) P(b|L)
    return table


def _signatures(cells: np.ndarray) -> sg.Signatures:
    distinct, counts = np.unique(cells, axis=0, return_counts=True)
    return sg.Signatures(distinct, counts.astype(float), int(len(cells) * 2))


def test_task_intervals_cover_95_percent_with_several_targets_and_two_researcher_labels():
    """Several targets per task and two researcher labels per unit: the 95% interval of Cohen's kappa and of
    exact agreement (over tasks: Fisher's z and Wilson at the effective tasks) covers the model's true value 93-97%
    of the time (resampling units as if independent covered 86-90%)."""
    truth = co.pair_arrays(_population_table(), np.arange(1, Q + 1), "nominal")
    want = {"cohen_kappa": float(truth["cohen_kappa"][0]), "exact_agreement": float(truth["agreement"][0])}
    s = nominal_scale(Q)
    rng = np.random.default_rng(2026)
    hits = {k: 0 for k in want}
    unit_hits = 0
    runs = 600
    for i in range(runs):
        sig = _signatures(_simulate(120, rng))
        got = prw.pair_coefficients(s, sig, n_boot=600, seed=i).set_index("statistic")
        for k in want:
            hits[k] += got.loc[k, "ci_low"] <= want[k] <= got.loc[k, "ci_high"]
        # the old way for comparison: pairs resampled as if independent
        table = sig.n_tasks @ sig.cells
        draws = np.random.default_rng(i).multinomial(int(table.sum()), table / table.sum(), size=600)
        k = co.pair_arrays(draws.reshape(-1, Q, Q), np.arange(1, Q + 1), "nominal")["cohen_kappa"]
        lo, hi = np.percentile(k, [2.5, 97.5])
        unit_hits += lo <= want["cohen_kappa"] <= hi
    for k, h in hits.items():
        assert 0.93 <= h / runs <= 0.97, (k, h / runs)
    assert unit_hits / runs < 0.92  # the defect this replaces: too narrow when pairs share a task


def test_task_intervals_cover_95_percent_at_500_tasks_and_match_the_bootstrap():
    """At 500 tasks the reported intervals (the delta method over tasks: Fisher's z for kappa, Wilson at the
    effective tasks for exact agreement) cover the model's true kappa and exact agreement 93-97% of the time with
    several targets per task and two researcher labels per unit, and every coefficient's ends are the task
    bootstrap's percentile interval's (2,000 resamples) within 0.015: at this size both are the normal law's."""
    truth = co.pair_arrays(_population_table(), np.arange(1, Q + 1), "nominal")
    want = {"cohen_kappa": float(truth["cohen_kappa"][0]), "exact_agreement": float(truth["agreement"][0])}
    s = nominal_scale(Q)
    rng = np.random.default_rng(11)
    hits = {k: 0 for k in want}
    runs = 600
    for i in range(runs):
        sig = _signatures(_simulate(500, rng))
        got = prw.pair_coefficients(s, sig, n_boot=1000, seed=i).set_index("statistic")
        assert got.loc["cohen_kappa", "ci_method"] == iv.FISHER_Z
        assert got.loc["exact_agreement", "ci_method"] == iv.WILSON_EFFECTIVE
        for k in want:
            hits[k] += got.loc[k, "ci_low"] <= want[k] <= got.loc[k, "ci_high"]
        if i < 5:  # every coefficient: the percentile interval of 2,000 task resamples has about the same ends
            boot = prw.pair_coefficients(s, sig, n_boot=2000, seed=i, force_bootstrap=True).set_index("statistic")
            assert set(boot.loc[got.index[~got.index.isin(iv.PROPORTIONS)], "ci_method"].dropna()) <= {iv.BOOTSTRAP, ""}
            for name in got.index[got["ci_low"].notna()]:
                assert got.loc[name, "value"] == pytest.approx(boot.loc[name, "value"]), name
                assert got.loc[name, "ci_low"] == pytest.approx(boot.loc[name, "ci_low"], abs=0.015), name
                assert got.loc[name, "ci_high"] == pytest.approx(boot.loc[name, "ci_high"], abs=0.015), name
    for k, h in hits.items():
        assert 0.93 <= h / runs <= 0.97, (k, h / runs)


def test_task_draws_of_few_tasks_per_signature_follow_the_multinomial_law_in_any_batches():
    """Groups with few tasks per signature draw the tasks themselves (iv.TASKS_PER_SIGNATURE): T tasks in every
    resample, the multinomial's mean n_i and covariance T (p_i [i = j] - p_i p_j) to Monte Carlo error, and the
    same resamples whether a caller draws them at once or in batches from one generator."""
    n = np.array([3.0, 1, 5, 2, 1, 1, 4])
    assert n.sum() <= iv.TASKS_PER_SIGNATURE * len(n)  # the task-drawing branch
    d = iv.task_draws(n, 100_000, np.random.default_rng(1))
    p = n / n.sum()
    assert (d.sum(axis=1) == n.sum()).all()
    assert np.abs(d.mean(axis=0) - n).max() < 0.03
    assert np.abs(np.cov(d.T) - n.sum() * (np.diag(p) - np.outer(p, p))).max() < 0.05
    rng = np.random.default_rng(2)
    batched = np.concatenate([iv.task_draws(n, b, rng) for b in (7, 300, 693)])
    np.testing.assert_array_equal(batched, iv.task_draws(n, 1000, np.random.default_rng(2)))


def test_shared_task_draws_follow_each_groups_multinomial_law_whatever_else_is_drawn():
    """Groups of at most iv.SHARED_MAX_TASKS tasks read draws shared per number of tasks T (iv.TaskDraws): T tasks in
    every resample, the multinomial's mean n_i and covariance T (p_i [i = j] - p_i p_j) to Monte Carlo error; a
    group's draws depend on its tasks and the seed only (not on the groups drawn before it, nor its key); larger
    groups draw from their own generator, as iv.task_draws with iv.rng_for(seed, *key)."""
    n = np.array([3.0, 1, 5, 2, 1, 1, 4, 30])
    p = n / n.sum()
    d = iv.TaskDraws(1, 100_000).of(n, "a")
    assert (d.sum(axis=1) == n.sum()).all()
    assert np.abs(d.mean(axis=0) - n).max() < 0.06
    assert np.abs(np.cov(d.T) - n.sum() * (np.diag(p) - np.outer(p, p))).max() < 0.15
    draws = iv.TaskDraws(2, 1000)
    first = draws.of(n, "a")
    draws.of(np.array([2.0, 9.0]), "b")  # another number of tasks in between
    np.testing.assert_array_equal(draws.of(n, "c"), first)
    np.testing.assert_array_equal(iv.TaskDraws(2, 1000).of(n, "d"), first)
    assert not np.array_equal(iv.TaskDraws(3, 1000).of(n, "a"), first)  # the seed changes them
    big = np.array([300.0, 250.0])
    assert big.sum() > iv.SHARED_MAX_TASKS
    want = iv.task_draws(big, 1000, iv.rng_for(2, "x", "y"))
    np.testing.assert_array_equal(iv.TaskDraws(2, 1000).of(big, "x", "y"), want)


def test_multi_rater_intervals_resample_tasks():
    """Alpha's interval resamples tasks: a dimension whose units sit two per task gets a wider interval than
    the same units one per task (the within-task correlation is kept), and the point value is the same."""
    s = nominal_scale(2)
    counts = np.array([[2, 0], [0, 2], [1, 1]], dtype=float)
    # 40 tasks, each two units with the same pattern (clustered), against 80 tasks of one unit each
    clustered = ct.TaskPatterns(counts, np.diag([2.0, 2.0, 2.0]), np.array([16.0, 16.0, 8.0]))
    spread = ct.TaskPatterns(counts, np.eye(3), np.array([32.0, 32.0, 16.0]))
    a = mr.multi_rater_coefficients(s, clustered, 2, n_boot=2000, seed=1).set_index("statistic")
    b = mr.multi_rater_coefficients(s, spread, 2, n_boot=2000, seed=1).set_index("statistic")
    alpha = "krippendorff_alpha"
    assert a.loc[alpha, "value"] == pytest.approx(b.loc[alpha, "value"])
    assert a.loc[alpha, "n_tasks"] == 40 and b.loc[alpha, "n_tasks"] == 80
    width = lambda r: r.loc[alpha, "ci_high"] - r.loc[alpha, "ci_low"]  # noqa: E731
    assert width(a) > 1.2 * width(b)


def test_store_intervals_resample_the_tasks_the_simulation_resamples():
    """The report's intervals through DuckDB equal the signature bootstrap on the same tasks (same seed)."""
    rng = np.random.default_rng(5)
    rows = []
    for t in range(40):
        for target in ("A", "B"):
            truth = rng.integers(0, 3)
            rows.append((f"t{t}", target, "c1", "contractor", "d", "abc"[truth]))
            for r in ("r1", "r2"):
                rows.append((f"t{t}", target, r, "researcher", "d", "abc"[(truth + (rng.random() < 0.3)) % 3]))
    con = store_of(("sim.csv", canonical(rows)))
    got = (
        agreement.rater_agreement(con, agreement.AgreementSpec(n_boot=300, seed=3, filters=Filters()))
        .set_index("rater_id")
        .loc["c1"]
    )
    assert got["n_tasks"] == 40 and got["n_units"] == 80 and got["n"] == 160
    scale = agreement.views.dimension_scale(con, "study", "d")
    sides = sd.comparison_sides(Filters(), "contractor_vs_researcher")
    sig = sg.pair_signatures(con, sides, "rater", lambda _k: scale.full_size)[("c1", "study", "d")]
    assert sig.tasks == 40
    direct = prw.pair_coefficients(scale, sig, 300, 3, ("c1", "study", "d")).set_index("statistic")
    assert got["cohen_kappa_ci_low"] == pytest.approx(direct.loc["cohen_kappa", "ci_low"])
    assert got["cohen_kappa_ci_high"] == pytest.approx(direct.loc["cohen_kappa", "ci_high"])


# --- small samples --------------------------------------------------------------------------------------------


def test_three_agreeing_tasks_get_a_wilson_interval_not_one_to_one():
    """Three agreeing tasks: exact agreement 1 with the Wilson interval at n = 3 tasks, never [1.00, 1.00]."""
    rows = [
        (f"t{i}", "", r, role, "d", "yes") for i in range(3) for r, role in (("c1", "contractor"), ("r1", "researcher"))
    ]
    con = store_of(("three.csv", canonical(rows)))
    row = agreement.rater_agreement(con, agreement.AgreementSpec(filters=Filters())).iloc[0]
    lo, hi = stats.wilson(1.0, 3)
    assert row["exact_agreement"] == 1.0
    assert (row["exact_agreement_ci_low"], row["exact_agreement_ci_high"]) == pytest.approx((lo, hi))
    assert row["exact_agreement_ci_low"] < 0.5 and row["small_n"]
    assert lo == pytest.approx(0.4385, abs=5e-4)  # Wilson (1927) score interval, p = 1, n = 3, z = 1.96


def test_a_constant_kappa_of_many_tasks_gets_no_interval_of_rounding_width():
    """A contractor who used one level on 600 tasks has kappa 0 on every resample: no interval, with the reason.
    The delta method's numerical gradient can give such a kappa a width of rounding size (a pair of raters at 300k
    tasks of bench/generate.py: [-7.1e-13, 7.1e-13] over 1,385 tasks), which is no interval either."""
    rounding = iv.interval_of("cohen_kappa", 0.0, -7.1e-13, 7.1e-13, 0, 1385, 1000, iv.DELTA)
    assert math.isnan(rounding.low) and "too little variation" in (rounding.reason or "")
    rng = np.random.default_rng(11)
    rows = []
    for t in range(600):
        for target in ("A", "B"):
            rows.append((f"t{t}", target, "c1", "contractor", "d", "c"))
            rows.append((f"t{t}", target, "r1", "researcher", "d", "abcde"[rng.integers(0, 5)]))
    con = store_of(("constant.csv", canonical(rows)))
    row = agreement.rater_agreement(con, agreement.AgreementSpec(filters=Filters())).set_index("rater_id").loc["c1"]
    assert row["n_tasks"] == 600 >= iv.DELTA_MIN_TASKS and abs(row["cohen_kappa"]) < 1e-12
    assert math.isnan(row["cohen_kappa_ci_low"]) and math.isnan(row["cohen_kappa_ci_high"])
    assert "too little variation for an interval" in row["notes"]


def test_undefined_resamples_are_counted_and_reported():
    """Resamples where kappa is 0/0 are left out of the task bootstrap's interval, counted, and said in the notes
    (the bootstrap of multi-rater coefficients and of `force_bootstrap`; pair groups report analytic intervals)."""
    cells = np.zeros((8, 4))
    cells[0, 0] = 1  # only one task uses a second level: most resamples have one level
    cells[1:, 3] = 1
    sig = _signatures_of(cells)
    base, coefs = prw.pair_rows(nominal_scale(2), [("c1",)], [sig], [None], [500], 0, "r1", rw.RATER_STATS, False)[0]
    kappa = next(c for c in coefs if c["statistic"] == "cohen_kappa")
    assert 0 < kappa["boot_undefined"] < 500
    row = rw.wide_row(base, coefs, rw.RATER_STATS, 500)
    assert f"{kappa['boot_undefined']} of 500 resamples undefined" in row["notes"]


def _signatures_of(cells: np.ndarray) -> sg.Signatures:
    """Signatures of per-task cells with one unit per task."""
    distinct, counts = np.unique(cells, axis=0, return_counts=True)
    return sg.Signatures(distinct, counts.astype(float), len(cells))


def test_small_n_counts_tasks_not_pairs():
    """40 units in 10 tasks (four outputs each) is a small sample: the tasks are the independent clusters."""
    rows = []
    for t in range(10):
        for o in range(4):
            rows += [
                (f"t{t}", f"o{o}", "c1", "contractor", "d", "ab"[o % 2]),
                (f"t{t}", f"o{o}", "r1", "researcher", "d", "ab"[(o + t) % 2]),
            ]
    con = store_of(("outputs.csv", canonical(rows)))
    row = agreement.rater_agreement(con, agreement.AgreementSpec(n_boot=0, filters=Filters())).iloc[0]
    assert (row["n"], row["n_units"], row["n_tasks"]) == (40, 40, 10)
    assert row["small_n"]


def test_review_order_ranks_by_the_upper_bound_with_no_cut_at_a_number_of_tasks():
    """Issue 48's example: exact agreement about 0.29 on 29 tasks was listed 9th, after six ordinary contractors,
    and the same habit on 30 tasks 2nd, because a 30-task cut decided the order. Ranked by the upper end of the
    Wilson interval (which widens smoothly as tasks fall), the two sit next to each other, both ahead of the
    ordinary contractors; a newcomer with 2 of 3 tasks agreeing ranks after them (their bound reaches 0.94)."""
    plan = {f"o{i}": (60, 42 + i) for i in range(6)} | {"c29": (29, 8), "c30": (30, 9), "n3": (3, 2)}
    rows = [(f"t{i}", "", "r1", "researcher", "d", "yes") for i in range(60)]
    for rater, (tasks, agreeing) in plan.items():
        rows += [(f"t{i}", "", rater, "contractor", "d", "yes" if i < agreeing else "no") for i in range(tasks)]
    con = store_of(("ranks.csv", canonical(rows)))
    got = agreement.rater_agreement(con, agreement.AgreementSpec(filters=Filters()))
    by = got.set_index("rater_id")
    assert by.loc["c29", "small_n"] and not by.loc["c30", "small_n"]  # the flag stays; it no longer ranks
    order = team.review_order(got, "exact_agreement")["rater_id"].tolist()
    assert abs(order.index("c29") - order.index("c30")) == 1
    assert max(order.index("c29"), order.index("c30")) < min(order.index(f"o{i}") for i in range(6))
    assert order[-1] == "n3"
    # the ranking key is the interval's upper end: nondecreasing down the list
    uppers = by.loc[order, "exact_agreement_ci_high"].to_numpy()
    assert (np.diff(uppers) >= 0).all()


def test_review_order_puts_values_without_an_interval_last():
    """A value with no interval (Cohen's kappa below MIN_INTERVAL_TASKS tasks) has nothing bounding it: after
    every rater with an interval, then by value."""
    rows = pd.DataFrame(
        {
            "rater_id": ["few", "many_low", "many_high"],
            "cohen_kappa": [-0.5, 0.2, 0.7],
            "cohen_kappa_ci_low": [math.nan, 0.1, 0.6],
            "cohen_kappa_ci_high": [math.nan, 0.3, 0.8],
            "n_tasks": [2, 80, 90],
            "small_n": [True, False, False],
        }
    )
    assert team.review_order(rows, "cohen_kappa")["rater_id"].tolist() == ["many_low", "many_high", "few"]


# --- scales and weights ---------------------------------------------------------------------------------------


def test_gapped_numeric_scale_weights_by_value():
    """On a gapped numeric scale (1, 2, 4, 5) weighted kappa uses the values (Cohen 1968 with |x_i - x_j|),
    not the positions 1..4 (the two differ)."""
    pairs = [(1, 1), (2, 1), (4, 5), (5, 5), (2, 4), (1, 2), (5, 4), (4, 4), (2, 2), (1, 4), (5, 2), (4, 2)]
    rows = []
    for i, (a, b) in enumerate(pairs):
        rows += [(f"t{i}", "", "c1", "contractor", "d", str(a)), (f"t{i}", "", "r1", "researcher", "d", str(b))]
    con = store_of(("gapped.csv", canonical(rows)))
    got = agreement.rater_agreement(con, agreement.AgreementSpec(n_boot=0, filters=Filters())).iloc[0]["weighted_kappa"]
    values = np.array([1, 2, 4, 5.0])
    t = np.zeros((4, 4))
    for a, b in pairs:
        t[list(values).index(a), list(values).index(b)] += 1
    d = np.abs(values[:, None] - values[None, :])
    by_value = 1 - (d * t).sum() / (d * np.outer(t.sum(1), t.sum(0)) / t.sum()).sum()
    by_position = co.cohen_kappa(t, "linear").value
    assert got == pytest.approx(by_value, abs=1e-12)
    assert abs(by_value - by_position) > 1e-3


def test_ratio_level_uses_ratio_weights_and_refuses_negative_values():
    """Ratio level: Gwet's ratio weights (irrCAC ratio.weights) on the values; negative values are refused."""
    values = np.array([1.0, 2.0, 4.0])
    w = co.agreement_weights(3, "ratio", values)
    # irrCAC ratio.weights: 1 - ((x_k - x_l) / (x_k + x_l))^2 / ((max - min) / (max + min))^2
    want = 1 - ((values[:, None] - values[None, :]) / (values[:, None] + values[None, :])) ** 2 / (3 / 5) ** 2
    assert w == pytest.approx(want)
    rows = [
        (f"t{i}", "", r, role, "d", str(v))
        for i, v in enumerate((-1, 0, 1, 1))
        for r, role in (("c1", "contractor"), ("r1", "researcher"))
    ]
    con = store_of(("neg.csv", canonical(rows)))
    with pytest.raises(ScaleError, match="negative values"):
        agreement.rater_agreement(con, agreement.AgreementSpec(level="ratio", n_boot=0, filters=Filters()))


def test_undeclared_text_labels_are_never_ordered_alphabetically():
    """--level ordinal on undeclared text labels ("high", "low", "medium") is refused with how to declare the
    order, instead of an alphabetical high < low < medium."""
    rows = [
        (f"t{i}", "", r, role, "seriousness", v)
        for i, v in enumerate(("high", "low", "medium", "low"))
        for r, role in (("c1", "contractor"), ("r1", "researcher"))
    ]
    con = store_of(("text.csv", canonical(rows)))
    assert (
        agreement.dimension_agreement(
            con, agreement.AgreementSpec(comparison="all_raters", n_boot=0, filters=Filters())
        ).iloc[0]["level"]
        == "nominal"
    )
    with pytest.raises(ScaleError, match="no declared order.*scales"):
        agreement.dimension_agreement(
            con, agreement.AgreementSpec(comparison="all_raters", level="ordinal", n_boot=0, filters=Filters())
        )


def test_cli_refuses_ordinal_on_undeclared_text(tmp_path):
    """The command line exits 2 with one line saying how to declare the order."""
    path = tmp_path / "text.csv"
    rows = [
        (f"t{i}", "", r, role, "seriousness", v)
        for i, v in enumerate(("high", "low", "medium"))
        for r, role in (("c1", "contractor"), ("r1", "researcher"))
    ]
    path.write_bytes(canonical(rows))
    out = run_cli("agreement", str(path), "--level", "ordinal", "--json")
    assert out.returncode == 2
    assert "no declared order" in out.stderr and "--scales" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_contractor_figure_does_not_depend_on_other_files():
    """Loading another contractor's file (with a new numeric level) leaves c1's weighted kappa unchanged."""
    base = [
        (f"t{i}", "", r, role, "score", v)
        for i, (a, b) in enumerate(((1, 1), (2, 3), (3, 3), (2, 2), (1, 3)))
        for r, role, v in (("c1", "contractor", a), ("r1", "researcher", b))
    ]
    other = [
        (f"u{i}", "", r, role, "score", v)
        for i, (a, b) in enumerate(((5, 4), (4, 5)))
        for r, role, v in (("c2", "contractor", a), ("r1", "researcher", b))
    ]
    con = store_of(("c1.csv", canonical(base)))
    before = (
        agreement.rater_agreement(con, agreement.AgreementSpec(n_boot=0, filters=Filters()))
        .set_index("rater_id")
        .loc["c1", "weighted_kappa"]
    )
    ingest_bytes(con, canonical(other), "c2.csv")
    after = (
        agreement.rater_agreement(con, agreement.AgreementSpec(n_boot=0, filters=Filters()))
        .set_index("rater_id")
        .loc["c1", "weighted_kappa"]
    )
    assert after == pytest.approx(before, abs=1e-12)


# --- one pairing, one team median, one ceiling -------------------------------------------------------------


def test_every_view_shows_the_same_ceiling_and_team_median(demo_store):
    """The researcher ceiling and the team median are one figure on the Agreement report, the Feedback card
    and the command line's JSON, under the same date filter and with one rater selected."""
    from analytics.feedback import card as feedback_card

    con = store.open_store(demo_store, read_only=True)
    f = Filters(rubric="answer_comparison", date_from=pd.Timestamp("2026-03-09").date())
    rubric, dim = "answer_comparison", "usefulness_comparison"
    report = agreement.agreement_report(con, agreement.AgreementSpec(n_boot=0, filters=f.but(raters=("c03",))))
    card = feedback_card.report_card(con, "c03", f, n_boot=0).set_index("dimension").loc[dim]
    payload = agreement.contract_payload(con, agreement.AgreementSpec(n_boot=0, filters=f))
    json_ceiling = next(r for r in payload["ceiling"] if r["dimension"] == dim)
    ceiling = report.ceiling.set_index("dimension").loc[dim]
    assert card["ceiling_exact_agreement"] == pytest.approx(ceiling["exact_agreement"])
    assert json_ceiling["exact_agreement"] == pytest.approx(ceiling["exact_agreement"])
    yard = team.yardsticks(report.team, report.ceiling, rubric, dim, "exact_agreement", ("c03",))
    yard = dict(zip(yard["reference"], yard["value"], strict=True))
    assert yard["Team median"] == pytest.approx(card["team_exact_agreement"])
    assert yard["Researcher-researcher agreement"] == pytest.approx(ceiling["exact_agreement"])
    own = report.raters.set_index("dimension").loc[dim]
    assert own["rater_id"] == "c03" and card["exact_agreement"] == pytest.approx(own["exact_agreement"])
    con.close()


def test_a_ceiling_kept_across_date_and_rater_changes_is_the_report_own(demo_store):
    """The Agreement page keeps the researcher ceiling across date and rater changes (agreement.ceiling_scope): a
    report given the ceiling computed under other dates and raters equals the report that computes its own, in the
    ceiling, every other table and the SQL it lists, with intervals on."""
    con = store.open_store(demo_store, read_only=True)
    f = Filters(rubric="answer_comparison", date_from=pd.Timestamp("2026-03-09").date(), raters=("c03",))
    other = Filters(rubric="answer_comparison", date_to=pd.Timestamp("2026-03-01").date(), raters=("c05", "r01"))
    assert agreement.ceiling_scope(f) == agreement.ceiling_scope(other) == Filters(rubric="answer_comparison")
    kept = agreement.researcher_ceiling(con, agreement.AgreementSpec(n_boot=200, seed=4, filters=other))
    own = agreement.agreement_report(con, agreement.AgreementSpec(n_boot=200, seed=4, filters=f))
    given = agreement.agreement_report(con, agreement.AgreementSpec(n_boot=200, seed=4, filters=f), ceiling=kept)
    con.close()
    assert len(own.ceiling) and own.ceiling["exact_agreement_ci_low"].notna().any()
    for name in ("ceiling", "dimensions", "raters", "team", "coefficients"):
        pd.testing.assert_frame_equal(getattr(given, name), getattr(own, name))
    assert [q.sql for q in given.queries] == [q.sql for q in own.queries]
    assert any(q.name.startswith("pairs_ceiling") for q in given.queries)


def test_json_has_pooled_ceiling_rater_pairs_with_tasks_and_a_stamp(demo_store):
    """pooled[], ceiling[], rater_pairs[] with n_units and n_tasks; min_tasks; a stamp of what was computed."""
    con = store.open_store(demo_store, read_only=True)
    # what is asserted is which keys every row carries, not the intervals' values: 10 resamples give every
    # interval column as 50 would, on every rater pair, for a third less time
    payload = agreement.contract_payload(
        con, agreement.AgreementSpec(n_boot=10, filters=Filters(rubric="answer_comparison")), pairs=True
    )
    for key in ("dimensions", "raters", "pooled", "ceiling", "rater_pairs"):
        assert payload[key] and all({"n_units", "n_tasks"} <= set(r) for r in payload[key]), key
    for key in ("pooled", "ceiling", "rater_pairs"):
        row = payload[key][0]
        for stat in ("exact_agreement", "cohen_kappa", "weighted_kappa"):
            assert {stat, f"{stat}_ci_low", f"{stat}_ci_high"} <= set(row)
    assert payload["min_tasks"] == agreement.MIN_TASKS
    stamp = payload["stamp"]
    assert stamp["dataset_version"] == store.dataset_version(con) and stamp["seed"] == 0
    assert stamp["filters"]["rubric"] == "answer_comparison" and stamp["code_version"]
    assert any(s["dimension"] == "usefulness_comparison" for s in stamp["scales"])
    pairs = {(r["rater_a"], r["rater_b"]) for r in payload["rater_pairs"]}
    assert all(a < b for a, b in pairs)
    con.close()


@pytest.mark.skipif(
    not (SHARED / "real-data" / "snow2008").exists() and os.environ.get("CI") != "true",
    reason="../shared/real-data is not beside this checkout",
)
def test_snow_rte_pooled_is_not_the_average_of_workers(tmp_path):
    """Snow et al. (2008) RTE, 164 workers against the expert gold: pooled exact agreement 0.729 (every
    worker-gold pair once), while the average of per-worker figures is 0.837 (pandas on the same TSV)."""
    tsv = pd.read_csv(SHARED / "real-data" / "snow2008" / "rte.standardized.tsv", sep="\t")
    tsv.columns = ["annotation", "worker", "item", "response", "gold"]
    workers = tsv.assign(
        task_id=tsv["item"].astype(str), rater_id=tsv["worker"], role="contractor", value=tsv["response"]
    )
    gold = tsv.drop_duplicates("item").assign(
        task_id=lambda d: d["item"].astype(str), rater_id="gold", role="researcher", value=lambda d: d["gold"]
    )
    rows = pd.concat([workers, gold])[["task_id", "rater_id", "role", "value"]].assign(
        rubric="rte", dimension="entailment"
    )
    path = tmp_path / "rte.csv"
    rows.to_csv(path, index=False)
    out = run_cli("agreement", str(path), "--json", "--n-boot", "0")
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    pooled = payload["pooled"][0]
    assert pooled["exact_agreement"] == pytest.approx(0.729125, abs=1e-9)
    assert pooled["exact_agreement"] == pytest.approx((tsv["response"] == tsv["gold"]).mean())
    per_worker = np.mean([r["exact_agreement"] for r in payload["raters"]])
    assert per_worker == pytest.approx((tsv["response"] == tsv["gold"]).groupby(tsv["worker"]).mean().mean())
    assert per_worker == pytest.approx(0.8370, abs=5e-4)
    assert pooled["n_tasks"] == 800 and not math.isnan(pooled["cohen_kappa"])


@pytest.mark.skipif(
    not (SHARED / "real-data" / "snow2008").exists() and os.environ.get("CI") != "true",
    reason="../shared/real-data is not beside this checkout",
)
def test_snow_wsd_sense_codes_declared_nominal(tmp_path):
    """Snow et al. (2008) WSD: senses coded 1, 2, 3 are categories. Undeclared numbers are values (ordinal alpha
    0.958, krippendorff 0.9.0); declared nominal with --scales the alpha is the nominal 0.937 (krippendorff)."""
    import krippendorff

    tsv = pd.read_csv(SHARED / "real-data" / "snow2008" / "wsd.standardized.tsv", sep="\t")
    tsv.columns = ["annotation", "worker", "item", "response", "gold"]
    rows = tsv.assign(task_id=tsv["item"], rater_id=tsv["worker"], role="contractor", value=tsv["response"])
    path = tmp_path / "wsd.csv"
    rows[["task_id", "rater_id", "role", "value"]].assign(rubric="wsd", dimension="sense").to_csv(path, index=False)
    scales = tmp_path / "senses.json"
    scales.write_text(json.dumps({"scales": [{"dimension": "sense", "level": "nominal", "levels": ["1", "2", "3"]}]}))
    matrix = tsv.pivot_table(index="worker", columns="item", values="response", aggfunc="first").to_numpy(float)

    def alpha(*extra: str) -> dict:
        out = run_cli("agreement", str(path), "--json", "--n-boot", "0", *extra)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)["dimensions"][0]

    undeclared, declared = alpha(), alpha("--scales", str(scales))
    want = {
        lv: krippendorff.alpha(reliability_data=matrix, level_of_measurement=lv, value_domain=[1, 2, 3])
        for lv in ("nominal", "ordinal")
    }
    assert undeclared["level"] == "ordinal" and undeclared["krippendorff_alpha"] == pytest.approx(want["ordinal"])
    assert declared["level"] == "nominal" and declared["krippendorff_alpha"] == pytest.approx(want["nominal"])
    assert want["nominal"] == pytest.approx(0.9372, abs=5e-4)


def test_gwet_ac2_weights_by_value_on_a_gapped_scale():
    """AC2 on a gapped scale uses weights on the values (Gwet 2014, ch. 3: linear weights on the category
    values), so it differs from AC2 on positions."""
    t = np.array([[3, 1, 0, 0], [1, 2, 1, 0], [0, 1, 2, 1], [0, 0, 1, 3.0]])
    values = np.array([1, 2, 4, 5.0])
    w = 1 - np.abs(values[:, None] - values[None, :]) / 4
    p = t / t.sum()
    pa = (w * p).sum()
    pi = (p.sum(0) + p.sum(1)) / 2
    pe = w.sum() / (4 * 3) * (pi * (1 - pi)).sum()
    got = co.pair_gwet_ac(t, "linear", values).value
    assert got == pytest.approx((pa - pe) / (1 - pe))
    assert abs(got - co.pair_gwet_ac(t, "linear").value) > 1e-3


def test_command_line_and_report_agree_on_every_rater_figure(demo_store):
    """The JSON's raters[] are the report's rater rows, figure for figure (pages read the same report)."""
    con = store.open_store(demo_store, read_only=True)
    f = Filters(rubric="instruction_following")
    payload = agreement.contract_payload(con, agreement.AgreementSpec(n_boot=200, seed=4, filters=f))
    report = agreement.agreement_report(con, agreement.AgreementSpec(n_boot=200, seed=4, filters=f))
    con.close()
    rows = {(r["rater_id"], r["dimension"]): r for r in payload["raters"]}
    assert len(rows) == len(report.raters)
    for r in report.raters.to_dict("records"):
        j = rows[(r["rater_id"], r["dimension"])]
        for key in ("n", "n_tasks", "exact_agreement", "cohen_kappa", "cohen_kappa_ci_low", "weighted_kappa_ci_high"):
            want = r[key]
            assert (j[key] is None and pd.isna(want)) or j[key] == pytest.approx(want), (r["rater_id"], key)


def test_packed_counts_fall_back_to_lists_when_a_level_overflows():
    """A 30-level scale packs 4 bits per level: 20 raters on one level of one unit overflow, and the figures
    come from the exact list form instead (same as with few raters and no overflow)."""
    rows = [("t1", "", f"c{i:02d}", "contractor", "score", "7") for i in range(20)]
    rows += [("t1", "", "r1", "researcher", "score", "7"), ("t2", "", "c00", "contractor", "score", "30")]
    rows += [("t2", "", "r1", "researcher", "score", "1")] + [
        (f"t{i}", "", "c01", "contractor", "score", str(i)) for i in range(3, 31)
    ]
    con = store_of(("wide.csv", canonical(rows)))
    assert pk.packing_bits(pk.scale_width(con)) == 4
    dims = agreement.dimension_agreement(
        con, agreement.AgreementSpec(comparison="all_raters", n_boot=0, filters=Filters())
    ).iloc[0]
    assert dims["n_units"] == 2 and dims["n_ratings"] == 51
    raters = agreement.rater_agreement(
        con, agreement.AgreementSpec(comparison="all_raters", n_boot=0, filters=Filters())
    ).set_index("rater_id")
    assert raters.loc["c05", "n"] == 20 and raters.loc["c05", "exact_agreement"] == 1.0  # 19 contractors + r1
    assert raters.loc["c00", "n"] == 21 and raters.loc["c00", "n_tasks"] == 2


def test_a_bigint_code_out_of_range_falls_back_to_lists(monkeypatch):
    """A BIGINT code DuckDB cannot hold (8 ratings of level 5 at bit 60: 2^63) is an overflow like a count that
    does not add up: the pooled and per-dimension figures come from the list form, equal to the unpacked ones."""
    rows = [("t1", "", f"c{i}", "contractor", "score", "5") for i in range(8)]
    rows += [("t1", "", "r1", "researcher", "score", "5"), ("t1", "", "r2", "researcher", "score", "4")]
    rows += [(f"t{i}", "", "c0", "contractor", "score", str(1 + i % 5)) for i in range(2, 40)]
    rows += [(f"t{i}", "", "r1", "researcher", "score", str(1 + i % 4)) for i in range(2, 40)]
    con = store_of(("bigint.csv", canonical(rows)))
    want = {
        c: agreement.dimension_agreement(con, agreement.AgreementSpec(comparison=c, n_boot=0, filters=Filters()))
        for c in ("contractor_vs_researcher", "all_raters")
    }
    monkeypatch.setattr(pk, "packing", lambda width: pk.Packing(15, "BIGINT"))
    with pytest.raises(duckdb.ConversionException):
        q = pp.pair_query(sd.pooled_sides(Filters()), "dimension", 5, [])
        sg.fetch(con, q)
    for comparison, frame in want.items():
        got = agreement.dimension_agreement(
            con, agreement.AgreementSpec(comparison=comparison, n_boot=0, filters=Filters())
        )
        pd.testing.assert_frame_equal(got, frame)
    assert want["contractor_vs_researcher"].iloc[0]["n_pairs"] == 8 * 2 + 38


@pytest.mark.parametrize(
    "filters",
    [
        Filters(),
        Filters(date_from=dt.date(2026, 3, 9), date_to=dt.date(2026, 3, 20)),
        Filters(rubric="preference_ranking"),
    ],
    ids=["all", "dates", "preference_ranking"],
)
@pytest.mark.parametrize("grain", ["rater", "dimension"])
def test_packed_pairs_equal_the_listed_pairs(demo_store, filters, grain):
    """The packed forms (per rater: each subject rating with its unit's packed reference counts; per
    dimension: the unit's subject, reference and both-sides counts, S x R minus B), and for contractors against
    researchers the cells kept per contractor task, give exactly the signatures of listing every pair (the same
    tasks per confusion-cell multiset), for every comparison, with dates selecting subjects only; on the demo,
    which has dimensions with several targets."""
    con = store.open_store(demo_store, read_only=True)
    width = pk.scale_width(con)
    multi = pg.multi_target(con)
    assert multi, "the demo has dimensions with several targets"
    scale_of = rp.scales(con, Filters(), None, False, [])
    q_of = lambda key: len(scale_of[key[-2:]].levels) if key[-2:] in scale_of else None  # noqa: E731
    for comparison in sd.COMPARISON_ROLES:
        sides = sd.comparison_sides(filters, comparison)
        with mock.patch.object(sd, "reads_reference_pairs", return_value=False):  # over the ratings
            packed_q = pp.pair_query(sides, grain, width, multi)
            listed_q = pp.pair_query(sides, grain, width, multi, packed=False)  # every pair listed by the self-join
        assert "<<" in packed_q.sql  # the packed form ran
        forms = [packed_q]
        if comparison == "contractor_vs_researcher":  # the kept pairs, or per rater the cells kept per task
            forms.append(pp.pair_query(sides, grain, width, multi))
            assert f"FROM {'reference_tasks' if grain == 'rater' else 'reference_pairs'}" in forms[-1].sql
        listed = sg.signatures(listed_q.df(con), grain, width, q_of)
        for form in forms:
            packed = sg.signatures(form.df(con), grain, width, q_of)
            assert packed.keys() == listed.keys() and packed, (comparison, form.sql)
            for key, sig in listed.items():
                got = packed[key]
                assert got.n_units == sig.n_units and got.tasks == sig.tasks, (comparison, key)
                q = int(math.isqrt(sig.cells.shape[1]))
                assert np.array_equal(got.table(q), sig.table(q)), (comparison, key)
                as_set = lambda s: sorted(zip(map(tuple, s.cells.tolist()), s.n_tasks.tolist(), strict=True))  # noqa: E731
                assert as_set(got) == as_set(sig), (comparison, key)
    con.close()


@pytest.mark.parametrize("n_sigs, tasks_each", [(1, 7), (3, 2), (6, 40), (70, 3)])
def test_distinct_resamples_are_the_resamples(n_sigs, tasks_each):
    """Computing each distinct resample once gives exactly the tables of resampling every time (same
    generator, same draws): one signature, few tasks (many repeats), and many signatures (no dedupe)."""
    gen = np.random.default_rng(5)
    sig = sg.Signatures(gen.integers(0, 3, size=(n_sigs, 9)).astype(float), np.full(n_sigs, float(tasks_each)), 1)
    want = iv.TaskDraws(3, 300).of(sig.n_tasks, "k") @ sig.cells
    uniq, inverse = prw._distinct_resamples(sig, iv.TaskDraws(3, 300), ["k"])
    assert np.array_equal(uniq[inverse], want)
    if n_sigs <= 3:  # few tasks: far fewer distinct resamples than resamples, each computed once
        assert len(uniq) <= 28


def test_ratio_samples_resample_tasks_with_the_delta_methods_spread():
    """Weekly agreement's resampled ratio sum(agree) / sum(pairs) over 400 tasks (each task drawn with
    replacement, task_draws): centred on the ratio, spread as the delta method's standard error
    sqrt(sum (a_t - r p_t)^2) / sum p_t (Cochran 1977, ratio estimator), to Monte Carlo error."""
    rng = np.random.default_rng(7)
    pairs = rng.integers(1, 6, 400).astype(float)
    agree = rng.binomial(pairs.astype(int), 0.7).astype(float)
    r = agree.sum() / pairs.sum()
    samples = iv.ratio_samples(agree, pairs, 4000, np.random.default_rng(8))
    se = math.sqrt(((agree - r * pairs) ** 2).sum()) / pairs.sum()
    assert samples.mean() == pytest.approx(r, abs=0.1 * se)
    assert samples.std() == pytest.approx(se, rel=0.06)
    assert iv.ratio_samples(agree[:1], pairs[:1], 100, np.random.default_rng(8)).size == 0  # one task: none
