"""analytics.effects.haste.evidence (one grouped pass, issue 50 item 9) says for every rater what the pass per
group it replaced said: quartiles of seconds, and agreement on the faster and slower half where at least 10 tasks
were paired with researchers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analytics.effects import haste


def one_group(g: pd.DataFrame) -> str:
    """The replaced pass over one group (as it was on main before the grouped one)."""
    q1, q2, q3 = (float(g["duration_s"].quantile(q)) for q in (0.25, 0.5, 0.75))
    text = f"Seconds per submission: quartiles {q1:.0f}, {q2:.0f}, {q3:.0f} over {len(g)} tasks"
    paired = g[g["agreement"].notna()]
    if len(paired) >= 10:
        fast = paired["duration_s"] <= paired["duration_s"].median()
        a, b = paired.loc[fast, "agreement"].mean(), paired.loc[~fast, "agreement"].mean()
        text += f"; exact agreement with researchers {a:.0%} on the faster half, {b:.0%} on the slower"
    return text + "."


def durations() -> pd.DataFrame:
    """Tasks of raters in two rubrics: many paired, few paired, none paired, and every duration equal."""
    rng = np.random.default_rng(3)
    frames = []
    for rater, n, share_paired, same in (("c1", 80, 0.6, False), ("c2", 30, 0.2, False), ("c3", 12, 0.0, False)):
        for rubric in ("r1", "r2"):
            seconds = np.full(n, 60.0) if same else rng.gamma(4, 50, n).round()
            agreement = np.where(rng.random(n) < share_paired, rng.integers(0, 2, n).astype(float), np.nan)
            frames.append(
                pd.DataFrame({"rater_id": rater, "rubric": rubric, "duration_s": seconds, "agreement": agreement})
            )
    same = pd.DataFrame({"rater_id": "c4", "rubric": "r1", "duration_s": 60.0, "agreement": np.tile([1.0, 0.0], 10)})
    return pd.concat([*frames, same], ignore_index=True).assign(dimension="")


def test_the_grouped_pass_says_what_the_pass_per_group_said():
    logs = durations()
    expected = [one_group(g) for _, g in logs.groupby(["rater_id", "rubric", "dimension"], sort=True)]
    got = haste.evidence(logs)
    assert got == expected
    assert any("faster half" in t for t in got) and any("faster half" not in t for t in got)
    assert got[-1].endswith("50% on the faster half, nan% on the slower.")  # every duration equal: no slower half


def test_haste_rows_carry_the_evidence_in_their_order():
    logs = durations()
    rows = haste.haste_rows(logs)
    by_key = {k: one_group(g) for k, g in logs.groupby(["rater_id", "rubric", "dimension"], sort=True)}
    assert len(rows) == len(by_key)
    for r in rows.itertuples():
        assert r.evidence == by_key[(r.rater_id, r.rubric, r.dimension)]
