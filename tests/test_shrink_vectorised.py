"""shrink_effects computes every row's shrunk estimate and alarm test on arrays (issue 50 item 9: the row-by-row
loop was about a quarter of the alarm review's cpu on the demo); each row equals shrink_one and alarm_z, the
one-row definitions, on the demo's effects and on random groups with missing figures and zero errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analytics import store
from analytics.core import significance
from analytics.core.filters import NO_FILTERS
from analytics.effects import haste, raw_effects, shrink


def row_by_row(rows: pd.DataFrame) -> pd.DataFrame:
    """The loop shrink_effects replaced: shrink_one and alarm_z on each row of each group."""
    out = rows.reset_index(drop=True).copy()
    values: dict[str, list] = {c: [math.nan] * len(out) for c in shrink.OUTPUT_COLUMNS}
    values["flagged"] = [False] * len(out)
    for (_, _, effect), group in out.groupby(list(shrink.GROUP), sort=False, dropna=False):
        margin = shrink.MARGIN.get(str(effect), 0.0)
        raw = group["raw"].to_numpy(dtype=float)
        se = np.where(group["se"].to_numpy(dtype=float) == 0.0, shrink.SE_FLOOR, group["se"].to_numpy(dtype=float))
        n_tasks = group["n_tasks"].to_numpy(dtype=int)
        variance = shrink.task_variance(se, n_tasks)
        rest, var_rest = shrink.rest_of_team(raw, n_tasks, variance)
        tau2 = shrink.bayes_modal_tau2(raw, se)
        mus, var_mus = shrink.team_means_without_each(raw, se, tau2)
        for pos, i in enumerate(group.index):
            mu = float(mus[pos])
            e, lo, hi = shrink.shrink_one(float(raw[pos]), float(se[pos]), mu, float(var_mus[pos]), tau2)
            values["estimate"][i], values["estimate_ci_low"][i], values["estimate_ci_high"][i] = e, lo, hi
            values["team_value"][i], values["team_pooled"][i] = mu, rest[pos]
            tested = max(float(se[pos]), math.sqrt(variance / n_tasks[pos]) if n_tasks[pos] > 0 else math.nan)
            z = shrink.alarm_z(
                float(raw[pos]), tested, float(rest[pos]), float(var_rest[pos]), group["bad_side"].iloc[pos], margin
            )
            values["z"][i], values["p_value"][i] = z, significance.z_p_value(z)
    for c in shrink.OUTPUT_COLUMNS:
        out[c] = values[c]
    out["flagged"] = out["flagged"].astype(bool)
    return out


def random_rows(seed: int) -> pd.DataFrame:
    """Groups of every size down to one, with missing estimates and errors, zero errors and zero tasks."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(8):
        for i in range(int(rng.integers(1, 15))):
            rows.append(
                {
                    "rater_id": f"c{i:02d}",
                    "rubric": "r",
                    "dimension": f"d{g % 3}",
                    "effect": ("leniency", "ties", "haste", "drift")[g % 4],
                    "raw": float(rng.normal()) if rng.random() > 0.1 else math.nan,
                    "se": float(rng.choice([0.0, math.nan, abs(rng.normal(0.2, 0.1))], p=[0.1, 0.1, 0.8])),
                    "n_tasks": int(rng.integers(0, 60)),
                    "bad_side": ("high", "low")[int(rng.integers(0, 2))],
                }
            )
    return pd.DataFrame(rows)


def close(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Equal to the last few bits (numpy's square and Python's pow may round the last bit apart)."""
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_arrays_equal_the_one_row_definitions_on_random_groups(seed):
    rows = random_rows(seed)
    close(shrink.shrink_effects(rows), row_by_row(rows))


def test_arrays_equal_the_one_row_definitions_on_the_demo(demo_store):
    con = store.open_store(demo_store, read_only=True)
    try:
        raw, hasty = raw_effects(con, NO_FILTERS), haste.haste_rows(haste.durations(con, NO_FILTERS))
    finally:
        con.close()
    assert len(raw) > 500 and len(hasty) > 20
    for rows in (raw, hasty):
        got, want = shrink.shrink_effects(rows), row_by_row(rows)
        close(got, want)
        assert got["p_value"].notna().sum() > 0.5 * len(got)


def test_an_unknown_bad_side_is_refused():
    rows = random_rows(0).assign(bad_side="sideways")
    with pytest.raises(ValueError, match="bad_side"):
        shrink.shrink_effects(rows)
