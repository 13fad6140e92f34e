"""analytics.agreement.team.team_medians_each: every rater's team median (each left out in turn) in one pass equals
team_medians called once per rater, the definition every page and report uses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analytics.agreement.team import team_medians, team_medians_each


def frame(seed: int) -> pd.DataFrame:
    """A team table with missing figures, raters without shared tasks and groups only one rater has."""
    rng = np.random.default_rng(seed)
    rows = []
    for rubric in ("r1", "r2"):
        for dim in ("d1", "d2", "d3"):
            for rater in rng.choice([f"c{i:02d}" for i in range(12)], size=int(rng.integers(1, 12)), replace=False):
                rows.append(
                    {
                        "rater_id": rater,
                        "rubric": rubric,
                        "dimension": dim,
                        "exact": float(rng.random()) if rng.random() > 0.15 else np.nan,
                        "kappa": float(rng.normal()),
                        "n_tasks": int(rng.integers(0, 4)),
                    }
                )
    return pd.DataFrame(rows)


def one_by_one(team: pd.DataFrame, stats: tuple[str, ...], raters: tuple[str, ...]) -> pd.DataFrame:
    """The loop team_medians_each replaces."""
    parts = [team_medians(team, stats, (r,)).assign(rater_id=r) for r in raters]
    parts = [p for p in parts if len(p)]
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("seed", range(6))
def test_each_equals_one_call_per_rater(seed: int) -> None:
    team = frame(seed)
    raters = (*sorted(team["rater_id"].unique()), "nobody")
    stats = ("exact", "kappa")
    got = team_medians_each(team, stats, raters)
    want = one_by_one(team, stats, raters)[["rater_id", "rubric", "dimension", *stats, "team_raters"]]
    key = ["rater_id", "rubric", "dimension"]
    got, want = got.sort_values(key).reset_index(drop=True), want.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


def test_rows_follow_the_raters_order_and_a_lone_rater_has_no_team() -> None:
    team = pd.DataFrame(
        {"rater_id": ["b", "a", "a"], "rubric": "r", "dimension": ["x", "x", "y"], "v": [1.0, 3.0, 5.0], "n_tasks": 1}
    )
    got = team_medians_each(team, ("v",), ("b", "a"))
    assert got[["rater_id", "dimension", "v", "team_raters"]].values.tolist() == [
        ["b", "x", 3.0, 1],
        ["b", "y", 5.0, 1],
        ["a", "x", 1.0, 1],
    ]
    assert team_medians_each(team.iloc[0:0], ("v",), ("a",)).empty
