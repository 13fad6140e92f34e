"""What silence means, from arrays (issue 50 item 9): each effect's median tasks and task-level variance are read
from the effects table's arrays once per review, equal to the per-effect frames they replaced (every review, on
every page, computed seven of them)."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

from analytics.alarms import power
from analytics.alarms import review as rv
from analytics.core.filters import Filters
from analytics.effects import EFFECTS


def spread_as_it_was(effects: pd.DataFrame, effect: str) -> tuple[float, float]:
    """The former _spread of one effect's rows (a frame per effect)."""
    rows = effects[effects["effect"] == effect] if len(effects) else effects
    if not len(rows):
        return math.nan, math.nan
    ok = rows[np.isfinite(rows["se"].astype(float)) & (rows["n_tasks"] > 0)]
    if ok.empty:
        return math.nan, math.nan
    return float(ok["n_tasks"].median()), float((ok["se"].astype(float) ** 2 * ok["n_tasks"]).median())


@pytest.mark.parametrize(
    "filters",
    [Filters(), Filters(rubric="article_likert"), Filters(date_from=dt.date(2026, 4, 10))],
    ids=["all", "one rubric", "late dates"],
)
def test_spreads_equal_the_per_effect_frames(demo, filters: Filters) -> None:
    effects = rv.team_review(demo, rv.scope(filters)).effects
    spreads = power._spreads(effects)
    for effect in EFFECTS:
        want = spread_as_it_was(effects, effect)
        got = spreads.get(effect, (math.nan, math.nan))
        assert got == want or (math.isnan(want[0]) and math.isnan(got[0])), effect
    assert set(spreads) <= set(EFFECTS) and spreads


def test_no_effects_measured_reads_as_not_measured() -> None:
    assert power._spreads(pd.DataFrame()) == {}
    row = power._effect_power("leniency", (math.nan, math.nan), 0.01)
    assert row["sentence"] == "Not measured under these filters." and math.isnan(row["effect_size"])
