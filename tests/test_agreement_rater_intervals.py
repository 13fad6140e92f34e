"""The Agreement page computes raters' intervals only for the dimension it shows (agreement_report without
rater_intervals, then rater_agreement on that dimension): the figures must be the command line's exactly."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analytics import agreement
from analytics.core.filters import Filters

DIMENSION = "usefulness_comparison"


@pytest.mark.parametrize("comparison", list(agreement.COMPARISON_ROLES))
@pytest.mark.parametrize("raters", [(), ("c26", "c14", "r01")])
def test_per_dimension_intervals_equal_the_full_report(demo, comparison, raters):
    """Per-rater rows of one dimension, resampled alone, equal the full report's rows (a group's draws depend on
    its own tasks and the seed only: intervals.TaskDraws, shared per number of tasks, or rng_for per rater and
    dimension); the point-estimate report keeps every value."""
    f = Filters(rubric="answer_comparison", raters=raters)
    full = agreement.agreement_report(demo, agreement.AgreementSpec(comparison=comparison, filters=f))
    points = agreement.rater_points_report(demo, agreement.AgreementSpec(comparison=comparison, filters=f))
    one = agreement.rater_agreement(
        demo, agreement.AgreementSpec(comparison=comparison, filters=f.but(dimensions=(DIMENSION,)))
    )
    expected = full.raters[full.raters["dimension"] == DIMENSION].reset_index(drop=True)
    assert len(expected) > 0
    pd.testing.assert_frame_equal(one.reset_index(drop=True), expected, check_dtype=False)
    values = [c for c in agreement.RATER_STATS if c in full.raters.columns]
    pd.testing.assert_frame_equal(points.raters[values], full.raters[values], check_dtype=False)
    assert points.raters[[f"{values[0]}_ci_low"]].isna().all().all()
    pd.testing.assert_frame_equal(points.dimensions, full.dimensions, check_dtype=False)
    assert not math.isnan(float(expected[f"{values[0]}_ci_low"].dropna().iloc[0]))
