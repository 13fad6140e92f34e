"""A dimension's multi-rater intervals by the delta method from intervals.MULTI_DELTA_MIN_TASKS tasks (issue 51):
the report switches at that number, the delta method's standard error is the task bootstrap's within Monte Carlo
error on a real store's dimension, and a quick seeded coverage run of bench/bench_multi_coverage.py lands near 95%
for both methods (its 2,000-run figures at 160 and 500 tasks are in bench/RESULTS.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import bench_coverage as bc  # noqa: E402
import bench_multi_coverage as bmc  # noqa: E402

from analytics.agreement import intervals as iv  # noqa: E402
from analytics.agreement import multi_rater as mr  # noqa: E402

SCENARIO = bc.SCENARIOS["ordinal 5 levels, high agreement"]


def _methods(n_tasks: int) -> set[str]:
    tp = bmc.simulate(SCENARIO, n_tasks, np.random.default_rng(5))
    _, coefs = mr.multi_rater_row(bc.scale(SCENARIO), tp, 3, 100, 1000, 0)
    return {c["ci_method"] for c in coefs if np.isfinite(c["ci_low"])}


def test_the_report_takes_the_delta_method_from_the_threshold():
    below, at = _methods(iv.MULTI_DELTA_MIN_TASKS - 1), _methods(iv.MULTI_DELTA_MIN_TASKS)
    assert iv.BOOTSTRAP in below and iv.FISHER_Z not in below
    assert iv.FISHER_Z in at and iv.BOOTSTRAP not in at
    assert iv.WILSON_EFFECTIVE in below & at  # percent agreement: Wilson at the effective tasks either way


def test_the_delta_methods_spread_is_the_bootstraps_on_the_demo(demo):
    """On the demo's dimensions with enough tasks, every delta interval's width is within 15% of the 4,000-resample
    bootstrap's (Fisher's z and percentiles differ in shape, not in spread)."""
    from analytics.agreement import counts as ct
    from analytics.agreement.scales import scales
    from analytics.core.filters import Filters

    f = Filters()
    found = scales(demo, f, None, False, [])
    patterns = ct.task_patterns_for(demo, f, lambda k: found[k].full_size if k in found else None)
    checked = 0
    for key, tp in patterns.items():
        if tp.tasks < 2 * iv.MULTI_DELTA_MIN_TASKS:
            continue
        rows = {}
        for delta in (True, False):
            _, coefs = mr.multi_rater_row(found[key], tp, 3, 100, 4000, 1, delta)
            rows[delta] = {c["statistic"]: c["ci_high"] - c["ci_low"] for c in coefs if np.isfinite(c["ci_low"])}
        for name in ("krippendorff_alpha", "fleiss_kappa", "gwet_ac1"):
            if name in rows[True] and name in rows[False]:
                assert rows[True][name] == pytest.approx(rows[False][name], rel=0.15), (key, name)
                checked += 1
    assert checked >= 6


@pytest.mark.parametrize("delta", [True, False], ids=["delta", "bootstrap"])
def test_a_quick_seeded_coverage_run_lands_near_95_percent(delta):
    """300 simulated dimensions on 160 tasks: every coefficient's interval is shown and covers the truth 91-99% of
    the time (the Monte Carlo standard error at 300 runs is 1.3 points)."""
    got = bmc.coverage(SCENARIO, iv.MULTI_DELTA_MIN_TASKS, runs=300, delta=delta, n_boot=400 if not delta else 1000)
    assert set(got) == {"percent_agreement", "krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "gwet_ac2"}
    for name, c in got.items():
        assert c.shown == 1.0 and 0.91 <= c.covered <= 0.99, (name, c)


def test_the_truth_is_the_coefficient_of_many_simulated_tasks():
    """The population values are those of 100,000 simulated tasks, to 0.01."""
    want = bmc.truth(SCENARIO)
    tp = bmc.simulate(SCENARIO, 100_000, np.random.default_rng(0))
    big = mr.multi_rater_coefficients(bc.scale(SCENARIO), tp, 3, n_boot=0).set_index("statistic")["value"]
    for name, value in want.items():
        assert big[name] == pytest.approx(value, abs=0.01), name
