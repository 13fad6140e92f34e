"""tau_signatures decodes a ranking query's rows with one sort and slices (issue 50 item 9): the same groups, in
the same order, with the same arrays as the per-group decode it replaced (a pandas groupby over the keys)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analytics.agreement import pairing as pg
from analytics.agreement.signatures import tau_signatures


def by_groupby(df: pd.DataFrame, grain: str) -> dict[tuple, tuple[np.ndarray, np.ndarray]]:
    """The former decode: iterate a sorted groupby, a frame per group."""
    keys = list(pg.GRAINS[grain])
    out = {}
    for key, g in df.groupby(keys, sort=True) if not df.empty else []:
        key = key if isinstance(key, tuple) else (key,)
        out[key] = (g[list(pg.TAU_COLUMNS)].to_numpy(float), g["n_tasks"].to_numpy(float))
    return out


def ranking_rows(grain: str, n: int, seed: int, nulls: bool = False) -> pd.DataFrame:
    """Rows shaped like ranking_query's: the grain's keys, the five item-pair counts and n_tasks, unsorted."""
    rng = np.random.default_rng(seed)
    keys = {
        "rater_a": rng.choice(["c01", "c02", "r1", "c10"], n).astype(object),
        "rater_b": rng.choice(["r1", "r2"], n).astype(object),
        "rubric": rng.choice(["pairwise", "ranking"], n).astype(object),
        "dimension": rng.choice(["overall", "order"], n).astype(object),
    }
    if nulls:
        keys["rater_a"][rng.random(n) < 0.2] = None
    df = pd.DataFrame({k: keys[k] for k in pg.GRAINS[grain]})
    for col in pg.TAU_COLUMNS:
        df[col] = rng.integers(0, 5, n)
    df["n_tasks"] = rng.integers(1, 9, n)
    return df


@pytest.mark.parametrize("grain", sorted(pg.GRAINS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_groups_order_and_arrays_as_groupby(grain: str, seed: int) -> None:
    df = ranking_rows(grain, 300, seed, nulls=seed == 2 and grain != "dimension")
    want, got = by_groupby(df, grain), tau_signatures(df, grain)
    assert list(got) == list(want)  # same keys in the same (sorted) order
    for key, (sigs, n_tasks) in want.items():
        np.testing.assert_array_equal(got[key][0], sigs)
        np.testing.assert_array_equal(got[key][1], n_tasks)
        assert got[key][0].dtype == sigs.dtype and got[key][1].dtype == n_tasks.dtype


def test_empty_and_all_null_keys() -> None:
    assert tau_signatures(ranking_rows("rater", 0, 0), "rater") == {}
    df = ranking_rows("rater", 5, 0).assign(rater_a=None)
    assert tau_signatures(df, "rater") == by_groupby(df, "rater") == {}
