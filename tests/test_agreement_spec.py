"""One request object for an agreement computation (analytics/agreement/spec.py): checked when made, hashable
(the Agreement page's cache key)."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.agreement.spec import AgreementSpec
from analytics.core.filters import Filters


def test_a_spec_is_a_cache_key():
    one = AgreementSpec("among_contractors", coarse=True, n_boot=0, filters=Filters(rubric="r", raters=("c1",)))
    same = AgreementSpec("among_contractors", coarse=True, n_boot=0, filters=Filters(rubric="r", raters=("c1",)))
    assert one == same and hash(one) == hash(same) and {one: 1}[same] == 1
    assert one.but(seed=1) != one and one.filtered(rubric="s").filters == Filters(rubric="s", raters=("c1",))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"comparison": "contractors"}, "comparison must be one of contractor_vs_researcher, among_contractors"),
        ({"level": "loud"}, "level must be one of nominal"),
        ({"n_boot": -1}, "n_boot must be 0"),
    ],
)
def test_a_spec_no_computation_can_run_is_refused_when_made(fields, message):
    with pytest.raises(ValueError, match=message):
        AgreementSpec(**fields)


def test_the_ceiling_spec_drops_the_comparison_dates_and_raters():
    spec = AgreementSpec("among_contractors", level="ordinal", n_boot=5, seed=2, filters=Filters(rubric="r"))
    wide = spec.filtered(raters=("c1",), date_from=pd.Timestamp("2026-01-01").date())
    assert wide.ceiling_spec() == spec.ceiling_spec()
    assert spec.ceiling_spec() == AgreementSpec(level="ordinal", n_boot=5, seed=2, filters=Filters(rubric="r"))
