"""The hypergeometric upper tail behind Fisher's exact test (rubric-rule alarms) equals scipy.stats.hypergeom.sf to the
last bit without importing scipy.stats (issue 50 item 9: about 0.7 s of every command's start), and the command line
and the engine no longer import it."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from analytics.core import significance
from tests.conftest import ROOT


def grid(seed: int, size: int = 4000) -> tuple[np.ndarray, ...]:
    """Valid counts of every shape the rules meet: tiny teams, large ones, k around and outside the support."""
    rng = np.random.default_rng(seed)
    total = rng.integers(1, 6000, size)
    total[: size // 4] = rng.integers(1, 12, size // 4)
    good = rng.integers(0, total + 1)
    draws = rng.integers(0, total + 1)
    k = rng.integers(-2, np.minimum(good, draws) + 2)
    return k, total, good, draws


@pytest.mark.parametrize("seed", range(4))
def test_equal_to_scipy_stats_to_the_last_bit(seed):
    k, total, good, draws = grid(seed)
    np.testing.assert_array_equal(
        significance.hypergeom_sf(k, total, good, draws), stats.hypergeom.sf(k, total, good, draws)
    )


def test_fisher_p_value_is_the_tail_of_its_rate():
    # 23 of 23 against a team's 11 of 100: credible; 2 of 2 against 11 of 100: not (the docstring's cases).
    assert significance.fisher_p_value(23, 23, 11, 100) == stats.hypergeom.sf(22, 123, 34, 23) < 1e-10
    assert significance.fisher_p_value(2, 2, 11, 100) == stats.hypergeom.sf(1, 102, 13, 2) > 0.01
    assert np.isnan(significance.fisher_p_value(1, 0, 3, 10))


def test_the_command_line_and_the_engine_do_not_import_scipy_stats():
    code = "import sys, analytics.cli.main, analytics.feedback, analytics.alarms.review; print('scipy.stats' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False", done.stderr[-2000:]
