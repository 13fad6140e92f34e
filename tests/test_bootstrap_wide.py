"""Wide scales (analytics/agreement/report.py): coefficients and their task-bootstrap and delta-method
intervals are computed on the levels a group uses, not on the whole scale (Snow et al. 2008's valence runs
-100..100, 201 levels). Every figure must equal the whole-scale computation to 1e-12: the expected numbers are
the same coefficients computed on dense (q x q) tables by co.pair_arrays / co.multi_rater_arrays, and the same
report with `rows.used_levels` forced to every level of the scale."""

from __future__ import annotations

import json
import math
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from analytics.agreement import AgreementSpec, contract_payload
from analytics.agreement import coefficients as co
from analytics.agreement import intervals as iv
from analytics.agreement import multi_rater as mr
from analytics.agreement import pair_rows as prw
from analytics.agreement import rows as rw
from analytics.agreement import signatures as sg
from analytics.agreement.scales import Scale
from analytics.ingest.load import ingest_file
from analytics.ingest.scales_file import declare_scales, parse_scales

TOL = 1e-12
# Resamples of the whole-report check: each resample is compared to 1e-12 however many there are; 50 give every
# interval (the dense side recomputes 101 x 101 tables per resample).
N_BOOT = 50


def _close(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=TOL, atol=TOL, equal_nan=True))


def _case(level: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Level values of a scale with gaps (non-negative for ratio), a coarse mapping, and the levels used."""
    rng = np.random.default_rng(seed)
    q = int(rng.integers(3, 15))
    values = np.sort(rng.choice(np.arange(0 if level == "ratio" else -30, 30), q, replace=False)).astype(float)
    coarse, _ = co.coarse_matrix([str(i) for i in range(q)], [str(i // 3) for i in range(q)])
    used = np.sort(rng.choice(q, int(rng.integers(1, q)), replace=False))  # some levels unused, ends included
    return values, coarse, used


@pytest.mark.parametrize("level", co.LEVELS)
@pytest.mark.parametrize("seed", range(8))
def test_pair_arrays_on_used_levels_equal_dense(level, seed):
    """Tables on their used levels give every figure of the dense tables (q, the weights' sum and the level values
    stay the scale's); marginals are the dense ones at those levels."""
    values, coarse, used = _case(level, seed)
    rng = np.random.default_rng(100 + seed)
    sub = rng.integers(0, 4, size=(6, len(used), len(used))).astype(float)
    sub[0] = 0  # a table with no pairs
    sub[1] = 0
    sub[1, 0, 0] = 3  # one level only
    dense = np.zeros((6, len(values), len(values)))
    dense[:, used[:, None], used[None, :]] = sub
    weights = co.WEIGHTS_FOR_LEVEL[level]
    want = co.pair_arrays(dense, values, level, weights, coarse)
    got = co.pair_arrays(sub, values, level, weights, coarse, used)
    assert want.keys() == got.keys()
    for key, w in want.items():
        assert _close(w[:, used] if w.ndim == 2 else w, got[key]), key


@pytest.mark.parametrize("level", co.LEVELS)
@pytest.mark.parametrize("seed", range(8))
def test_multi_rater_arrays_on_used_levels_equal_dense(level, seed):
    """Value counts on their used levels give every multi-rater figure of the dense counts, Gwet's pa/pe of alpha
    (the scale's largest distance) included."""
    values, coarse, used = _case(level, seed)
    rng = np.random.default_rng(200 + seed)
    counts = rng.integers(0, 4, size=(9, len(used))).astype(float)
    counts[0] = 0
    dense = np.zeros((9, len(values)))
    dense[:, used] = counts
    unit_weights = rng.integers(0, 3, size=(5, 9)).astype(float)
    weights = co.WEIGHTS_FOR_LEVEL[level]
    want = co.multi_rater_arrays(dense, unit_weights, values, level, weights, coarse)
    got = co.multi_rater_arrays(counts, unit_weights, values, level, weights, coarse, used)
    assert want.keys() == got.keys()
    for key, w in want.items():
        assert _close(w[:, used] if w.ndim == 2 else w, got[key]), key


def _dense(fn):
    """Run `fn` with every group computed on the whole scale (the dense path)."""
    with mock.patch.object(rw, "used_levels", lambda counts: np.arange(len(counts))):
        return fn()


def _wide_scale(level: str, coarse: bool) -> Scale:
    """A 41-level scale 0..40, optionally read in 5 coarse levels of 8 or 9 fine levels each."""
    levels = tuple(str(v) for v in range(41))
    to_coarse, coarse_levels = co.coarse_matrix(levels, [str(min(v // 8, 4)) for v in range(41)])
    if coarse:
        return Scale("r", "d", "ordinal", level, coarse_levels, to_coarse, np.eye(5), co.level_values(coarse_levels))
    return Scale("r", "d", "ordinal", level, levels, np.eye(41), to_coarse, np.arange(41.0), has_values=True)


def _sigs(seed: int, q: int = 41) -> sg.Signatures:
    """Tasks of a pair of raters who use a few neighbouring levels of a wide scale."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 30))
    cells = np.zeros((k, q * q))
    centre = int(rng.integers(5, 35))
    for i in range(k):
        for _ in range(int(rng.integers(1, 4))):
            a = centre + int(rng.integers(-4, 5))
            b = a + int(rng.integers(-2, 3))
            cells[i, a * q + b] += 1
    return sg.Signatures(cells, rng.integers(1, 5, size=k).astype(float), k)


@pytest.mark.parametrize("level", co.LEVELS)
@pytest.mark.parametrize("coarse", [False, True])
def test_pair_bootstrap_and_delta_on_used_levels_equal_dense(level, coarse):
    """Same resamples, same figures: each group's point values, bootstrap samples and percentile intervals equal
    those computed on the whole scale's tables to 1e-12; delta-method ends to 1e-8, the rounding its forward
    differences (step 1e-6 of the pairs) amplify, far inside their own truncation error (~1e-6)."""
    s = _wide_scale(level, coarse)
    keys = [(f"rater{g}", "r", "d") for g in range(6)]
    sigs = [_sigs(g) for g in range(5)] + [None]
    stats = (*rw.RATER_STATS, "scott_pi")
    run = lambda delta: prw.pair_rows(s, keys, sigs, [None] * 6, [300] * 6, 7, "ref", stats, delta=delta)  # noqa: E731
    for delta in (False, True):
        got, want = run(delta), _dense(lambda: run(delta))  # noqa: B023
        for (gb, gc), (wb, wc) in zip(got, want, strict=True):
            assert gb == wb
            g, w = pd.DataFrame(gc).drop(columns="_ci_reason"), pd.DataFrame(wc).drop(columns="_ci_reason")
            tol = 1e-8 if delta else TOL
            pd.testing.assert_frame_equal(g, w, rtol=tol, atol=tol)
        assert sum(c["ci_low"] == c["ci_low"] for _, coefs in got for c in coefs) > 20  # intervals were made
        if delta:
            assert any(c["ci_method"] == iv.FISHER_Z for _, coefs in got for c in coefs)


@pytest.mark.parametrize("level", co.LEVELS)
def test_boot_samples_on_used_levels_equal_dense_resamples(level):
    """The bootstrap samples are the coefficients of exactly iv.resample's dense resampled tables."""
    s = _wide_scale(level, False)
    keys = [(f"rater{g}", "r", "d") for g in range(4)]
    sigs = [_sigs(10 + g) for g in range(4)]
    wanted = [name for name, _ in prw.PAIR_CHECKS]
    got = prw._boot_pairs(s, keys, prw._Groups.of(s, sigs), [200] * 4, 3, wanted)
    compute = prw.pair_compute(s)
    for g, (key, sig) in enumerate(zip(keys, sigs, strict=True)):
        tables = (iv.TaskDraws(3, 200).of(sig.n_tasks, *key) @ sig.cells).reshape(-1, 41, 41)
        want = compute(tables)
        for name in wanted:
            assert _close(got[name][g], want[name]), (key, name)


def test_multi_rater_on_used_levels_equals_dense():
    """Value-count figures of a wide scale (points and intervals) equal the whole-scale computation."""
    rng = np.random.default_rng(4)
    counts = np.zeros((12, 41))
    for u in range(12):
        counts[u, rng.integers(10, 20, size=int(rng.integers(2, 6)))] += 1
    membership = rng.integers(0, 2, size=(8, 12)).astype(float)
    membership[:, 0] = 1
    from analytics.agreement.counts import TaskPatterns

    tp = TaskPatterns(counts, membership, rng.integers(1, 4, size=8).astype(float))
    for level in co.LEVELS:
        for coarse in (False, True):
            s = _wide_scale(level, coarse)
            got = mr.multi_rater_coefficients(s, tp, 5, n_boot=300, seed=2)
            want = _dense(lambda: mr.multi_rater_coefficients(s, tp, 5, n_boot=300, seed=2))  # noqa: B023
            pd.testing.assert_frame_equal(got, want, rtol=TOL, atol=TOL)
            assert got["ci_low"].notna().any()


def _numbers(x, path=""):
    """Every number in a JSON-like object, by path."""
    if isinstance(x, dict):
        return {k: v for key, val in x.items() for k, v in _numbers(val, f"{path}.{key}").items()}
    if isinstance(x, list):
        return {k: v for i, val in enumerate(x) for k, v in _numbers(val, f"{path}[{i}]").items()}
    return {path: x}


@pytest.mark.parametrize("level", [None, "nominal", "ordinal", "ratio"])
def test_report_on_a_wide_scale_equals_dense(con, tmp_path, level):
    """The agreement JSON (dimensions, raters, pooled, ceiling, rater pairs, every interval) of raters on a
    declared 0..100 scale is the same when every group is computed on the whole scale: to 1e-12, and interval ends
    to 1e-8 (pair intervals come from the delta method, whose forward differences amplify rounding: see
    test_pair_bootstrap_and_delta_on_used_levels_equal_dense)."""
    rng = np.random.default_rng(9)
    lines = ["task_id,rater_id,role,rubric,dimension,target,value"]
    for t in range(40):
        truth = int(rng.integers(10, 90))
        raters = [f"c{i}" for i in rng.choice(8, 4, replace=False)] + ["r1", "r2"]
        for r in raters:
            role = "researcher" if r.startswith("r") else "contractor"
            lines.append(f"t{t},{r},{role},wide,score,,{int(np.clip(truth + rng.integers(-6, 7), 0, 100))}")
    path = tmp_path / "wide.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    scales = {"scales": [{"dimension": "score", "level": "interval", "levels": list(range(101))}]}
    declare_scales(con, parse_scales(json.dumps(scales), "s.json"))
    assert ingest_file(con, path).status == "loaded"
    got = _numbers(contract_payload(con, AgreementSpec(level=level, n_boot=N_BOOT)))
    want = _numbers(_dense(lambda: contract_payload(con, AgreementSpec(level=level, n_boot=N_BOOT))))
    assert got.keys() == want.keys()
    intervals = 0
    for k, w in want.items():
        if isinstance(w, float) and isinstance(got[k], float):
            tol = 1e-8 if "_ci_" in k else TOL
            assert math.isclose(got[k], w, rel_tol=tol, abs_tol=tol), k
            intervals += "_ci_" in k
        elif "code_version" not in k:
            assert got[k] == w, k
    assert intervals > 100
