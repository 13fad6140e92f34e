"""bench/bench_coverage.py's simulation is the model it claims: its pair tables average to the population table
whose coefficients are the truth, and a coverage run leaves the delta method's threshold as it found it."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import bench_coverage as bc  # noqa: E402

from analytics.agreement import intervals as iv  # noqa: E402


@pytest.mark.parametrize("name", list(bc.SCENARIOS))
def test_simulated_pair_tables_average_to_the_population_table(name):
    sc = bc.SCENARIOS[name]
    table = bc.population_table(sc)
    assert table.sum() == pytest.approx(1.0) and np.allclose(table, table.T)  # two exchangeable raters
    sig = bc.simulate(sc, 200_000, np.random.default_rng(0))
    summed = sig.n_tasks @ sig.cells
    observed = summed.reshape(sc.q, sc.q) / summed.sum()
    assert np.abs(observed - table).max() < 0.004  # 400,000 pairs: a cell's standard error is under 0.001


def test_coverage_counts_both_methods_and_restores_the_threshold():
    before = iv.DELTA_MIN_TASKS
    got = bc.coverage(bc.SCENARIOS[next(iter(bc.SCENARIOS))], 60, runs=20)
    assert iv.DELTA_MIN_TASKS == before
    assert set(got) == {"delta", "bootstrap"}
    for method in got.values():
        shown = {k: v for k, v in method.items() if np.isfinite(v)}  # no weighted kappa or mean on a nominal scale
        assert set(shown) == {"exact_agreement", "cohen_kappa", "gwet_ac1", "krippendorff_alpha"}
        assert all(0.5 <= v <= 1.0 for v in shown.values())
