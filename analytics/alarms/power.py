"""What silence means: for each alarm kind, the effect it finds in POWER (80%) of cases at the team's typical n,
at the level a test is held to when nothing else alarms (budget.steady_level: where other alarms are found the
rule loosens, so the power is at least this). Normal approximations of the tests in budget.py; bench/bench_alarms.py
checks them against simulated teams with planted effects."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pandas as pd

from analytics.alarms import budget
from analytics.consistency import rates as cons
from analytics.core import significance
from analytics.effects import EFFECTS
from analytics.effects.drift import BASELINE_WEEKS, RECENT_WEEKS
from analytics.effects.shrink import MARGIN

POWER_COLUMNS = ("kind", "effect_size", "unit", "n", "detection_rate", "sentence")
UNITS = {  # kind -> the unit effect_size is in
    "drift": "fall in the share of the other contractors agreeing, baseline minus recent weeks",
    "rule": "rate of breaking a rule above the team's",
    "leniency": "scale points above the team's mean",
    "severity": "scale points below the team's mean",
    "ties": "share of comparisons called equal above the team's",
    "position_bias": "share of decided comparisons won by the first-shown option above the team's",
    "haste": "duration ratio to the team's (below 1: faster)",
    "central_tendency": "share of ratings at inner levels above the team's",
    "halo": "spread across dimensions below the team's, as a share of the scale",
}


def power(effects: pd.DataFrame, rules: cons.Consistency, weeks: pd.DataFrame, n_tests: int) -> pd.DataFrame:
    """One row per alarm kind (POWER_COLUMNS): the effect found with 80% probability at the team's median n."""
    level = budget.steady_level(n_tests)
    rows = [_drift_power(effects, weeks, level), _rule_power(rules, level)]
    spread = _spreads(effects)
    rows += [_effect_power(e, spread.get(e, (math.nan, math.nan)), level) for e in EFFECTS if e != "drift"]
    order = {k: i for i, k in enumerate(budget.KINDS)}
    return pd.DataFrame(rows, columns=list(POWER_COLUMNS)).sort_values("kind", key=lambda s: s.map(order))


def _row(kind: str, effect_size: float, n: float, sentence: str) -> dict:
    """A power row."""
    return {
        "kind": kind,
        "effect_size": effect_size,
        "unit": UNITS[kind],
        "n": n,
        "detection_rate": significance.POWER,
        "sentence": sentence,
    }


def _spreads(effects: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """Per effect: the median number of tasks of its rows with a finite standard error and tasks, and the median
    task-level variance (se^2 * n) behind them (arrays, not a frame per effect: this runs in every review)."""
    if not len(effects):
        return {}
    kind = effects["effect"].to_numpy(dtype=object)
    se, n = effects["se"].to_numpy(dtype=float), effects["n_tasks"].to_numpy(dtype=float)
    ok = np.isfinite(se) & (n > 0)
    out = {}
    for effect in {str(k) for k in kind[ok]}:
        mine = ok & (kind == effect)
        out[effect] = float(np.median(n[mine])), float(np.median(se[mine] ** 2 * n[mine]))
    return out


def _effect_power(effect: str, spread: tuple[float, float], level: float) -> dict:
    """An effect's margin plus the difference a z-test finds 80% of the time at the median tasks (`spread`: its
    median tasks and task-level variance, _spreads)."""
    n, var = spread
    if not math.isfinite(n):
        return _row(effect, math.nan, math.nan, "Not measured under these filters.")
    size = MARGIN.get(effect, 0.0) + significance.z_power(level) * math.sqrt(var / n)
    if effect == "haste":  # tested on the log of the duration ratio
        ratio = math.exp(-size)
        return _row(effect, ratio, n, f"Finds a contractor taking {ratio:.2f} times the team's time at {n:.0f} tasks.")
    return _row(effect, size, n, f"Finds a difference of {size:.2f} from the team's at {n:.0f} tasks.")


def _drift_power(effects: pd.DataFrame, weeks: pd.DataFrame, level: float) -> dict:
    """The fall in agreement the moving-window test finds 80% of the time at the team's median tasks a week."""
    rows = effects[effects["effect"] == "drift"] if len(effects) else effects
    ok = rows[np.isfinite(rows["se"].astype(float))] if len(rows) else rows
    if ok.empty or weeks.empty:
        return _row("drift", math.nan, math.nan, "Not measured under these filters.")
    per_week = float(weeks.loc[weeks["n"] > 0, "n"].median())
    # se = sd * sqrt(1/n_base + 1/n_recent): back to sd at the median week's tasks in both windows
    sd = float((ok["se"] / np.sqrt(1 / (BASELINE_WEEKS * per_week) + 1 / (RECENT_WEEKS * per_week))).median())
    size = significance.z_power(level) * sd * math.sqrt(1 / (BASELINE_WEEKS * per_week) + 1 / (RECENT_WEEKS * per_week))
    return _row(
        "drift",
        size,
        per_week,
        f"Finds a fall of {size:.2f} in agreement with the other contractors within {RECENT_WEEKS} weeks at "
        f"{per_week:.0f} tasks a week.",
    )


def _rule_power(rules: cons.Consistency, level: float) -> dict:
    """The rate above the team's typical rate that the exact test finds 80% of the time at the median
    submissions (normal approximation of the binomial)."""
    r = rules.raters[rules.raters["p_value"].notna()] if len(rules.raters) else rules.raters
    if r.empty:
        return _row("rule", math.nan, math.nan, "Not measured under these filters.")
    n = float(r["n_checked"].median())
    p0 = float(max(r["team_rate"].median(), 0.5 / max(float(r["team_checked"].median()), 1.0)))
    za, zb = significance.z_critical(level), NormalDist().inv_cdf(significance.POWER)
    p1 = p0
    for _ in range(50):  # fixed point of (p1 - p0) sqrt(n) = za sqrt(p0 q0) + zb sqrt(p1 q1)
        p1 = min(1.0, p0 + (za * math.sqrt(p0 * (1 - p0)) + zb * math.sqrt(p1 * (1 - p1))) / math.sqrt(n))
    return _row(
        "rule",
        p1 - p0,
        n,
        f"Finds a contractor breaking a rule at {p1:.0%} where the team breaks it at {p0:.0%}, at {n:.0f} submissions.",
    )
