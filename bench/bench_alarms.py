"""False alarms per review on steady teams, and the power of each alarm kind on teams with planted habits.

    .venv/bin/python bench/bench_alarms.py [--teams 200] [--weeks 9,26,52] [--per-week 5,10,20] [--power-teams 200]

Why: issue #48's budget. A review is one look at every alarm the pages show (analytics/alarms/review.py): every
contractor x rule, x effect x dimension, and drift per contractor and rubric. On a steady team (40 contractors who
all behave alike) the expected number of alarms per review must be at most 0.1 (the mean over the teams) with a 95%
upper bound at most 0.15, at 9, 26 and 52 weeks of 5, 10 and 20 tasks a week.

How: each team is simulated down to what the product's SQL hands to Python, from task-level draws, and the
product's own code decides from there: drift.with_team and drift.window_rows (the moving window), the rows'
finish/share_floor, shrink.shrink_effects (the alarm z-test), rates.rater_table (Fisher's exact test on every
answer-comparison rule that flags), and budget.discovery_threshold over all p-values together.
- Drift: every task's consensus is the share of its two other contractors giving the same level, each agreeing
  with probability 0.6 (0, 1/2 or 1), `per_week` tasks a week for `weeks` weeks.
- Effects, each contractor on `weeks * per_week` tasks: leniency and severity (one shift per task from the others,
  normal with sd 0.8 scale points), central tendency (inner-level share, Bernoulli 0.55 per task), halo (spread
  across dimensions, normal mean 0.3 sd 0.1), on 8 dimensions; ties (Bernoulli 0.25) and position bias (Bernoulli
  0.5 per decided comparison) on 8 comparison dimensions; haste (log duration ratio, normal sd 0.5).
- Rules: every flagging rule of answer comparison checked on every submission, broken with probability 0.05.
Power: one planted contractor per kind in an otherwise steady team (26 weeks of 10 tasks), with the sizes in
PLANTED; the share of teams where the planted contractor is alarmed on its kind, and beside it the effect size
analytics/alarms/power.py states for 80% at the same n (its own unit).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analytics.alarms import budget  # noqa: E402
from analytics.alarms import power as pw  # noqa: E402
from analytics.consistency import catalogue, rates  # noqa: E402
from analytics.effects import drift, shrink  # noqa: E402
from analytics.effects.rows import finish, share_floor  # noqa: E402

CONTRACTORS, DIMENSIONS, AGREE = 40, 8, 0.6
RUBRIC = "answer_comparison"
NORMAL = {"leniency": (0.0, 0.8, "high"), "severity": (0.0, 0.8, "low"), "halo": (0.3, 0.1, "low")}
SHARES = {"central_tendency": (0.55, "high"), "ties": (0.25, "high"), "position_bias": (0.5, "high")}
RULE_RATE = 0.05
# kind -> the planted contractor's difference from the team, in the unit the kind measures
PLANTED = {
    "drift": 0.15,  # fall in consensus share in the last 3 weeks
    "rule": 0.10,  # rate above the team's 5%
    "leniency": 0.5,  # scale points
    "severity": 0.5,
    "ties": 0.2,  # share of comparisons called equal
    "position_bias": 0.2,  # share of decided comparisons won by the first shown
    "haste": 0.5,  # duration ratio (half the team's time)
    "central_tendency": 0.2,
    "halo": 0.12,
}


def _weekly(rng: np.random.Generator, weeks: int, per_week: int, fall: float) -> pd.DataFrame:
    """weekly_query's rows of a team; contractor 0's consensus falls by `fall` in the last RECENT_WEEKS weeks."""
    start = pd.Timestamp("2026-01-05")
    rows = []
    for c in range(CONTRACTORS):
        for w in range(weeks):
            p = AGREE - (fall if c == 0 and w >= weeks - drift.RECENT_WEEKS else 0.0)
            k = rng.multinomial(per_week, [(1 - p) ** 2, 2 * p * (1 - p), p * p])
            s1, s2 = 0.5 * k[1] + k[2], 0.25 * k[1] + k[2]
            rows.append((f"c{c:02d}", RUBRIC, start + pd.Timedelta(weeks=w), per_week, per_week, s1, s2, 0, 0.0))
    cols = ["rater_id", "rubric", "week", "n_rows", "n", "s1", "s2", "n_researchers", "s_researchers"]
    return pd.DataFrame(rows, columns=cols)


def _normal_rows(rng: np.random.Generator, n: int, mean: float, sd: float, shift: np.ndarray) -> pd.DataFrame:
    """task_means' raw and se of normal per-task values, per contractor (shift added to each)."""
    raw = mean + shift + rng.normal(0, sd / math.sqrt(n), CONTRACTORS)
    se = sd * np.sqrt(rng.chisquare(n - 1, CONTRACTORS) / (n - 1)) / math.sqrt(n)
    return pd.DataFrame({"raw": raw, "se": se, "n_tasks": n})


def _share_rows(rng: np.random.Generator, n: int, p: np.ndarray) -> pd.DataFrame:
    """share_means' raw and se of Bernoulli per-task values, per contractor."""
    k = rng.binomial(n, np.clip(np.broadcast_to(p, CONTRACTORS), 0, 1))
    raw = k / n
    se = np.sqrt(raw * (1 - raw) * n / (n - 1)) / math.sqrt(n)
    return share_floor(pd.DataFrame({"raw": raw, "se": se, "n_tasks": n}))


def _effects(rng: np.random.Generator, n: int, planted: str | None) -> pd.DataFrame:
    """The effect rows of a team before shrinkage (contractor 0 carries the planted kind's habit)."""
    ids = [f"c{c:02d}" for c in range(CONTRACTORS)]
    one = np.zeros(CONTRACTORS)
    one[0] = 1.0
    parts = []
    for d in range(DIMENSIONS):
        for effect, (mean, sd, side) in NORMAL.items():
            sign = {"severity": -1.0, "halo": -1.0}.get(effect, 1.0)
            shift = one * sign * PLANTED[effect] if planted == effect else np.zeros(CONTRACTORS)
            r = _normal_rows(rng, n, mean, sd, shift).assign(rater_id=ids, rubric=RUBRIC, dimension=f"d{d}")
            parts.append(finish(r, effect, side, "unit", "sim"))
        for effect, (p, side) in SHARES.items():
            r = _share_rows(rng, n, p + (one * PLANTED[effect] if planted == effect else 0.0))
            parts.append(finish(r.assign(rater_id=ids, rubric=RUBRIC, dimension=f"d{d}"), effect, side, "share", "sim"))
    shift = -one * math.log(1 / PLANTED["haste"]) if planted == "haste" else np.zeros(CONTRACTORS)
    r = _normal_rows(rng, n, 0.0, 0.5, shift).assign(rater_id=ids, rubric=RUBRIC, dimension="")
    parts.append(finish(r, "haste", "low", "log ratio", "sim"))
    return pd.concat(parts, ignore_index=True)


def _rule_counts(rng: np.random.Generator, n: int, planted: bool) -> tuple[pd.DataFrame, tuple]:
    """rates.counts_query's rows: every flagging answer-comparison rule checked on n submissions a contractor."""
    rules = tuple(r for r in catalogue.rules() if r.rubric == RUBRIC and r.flags)
    rows = []
    for r in rules:
        p = np.full(CONTRACTORS, RULE_RATE)
        if planted:
            p[0] += PLANTED["rule"]
        for c, v in enumerate(rng.binomial(n, p)):
            rows.append((r.rule_id, f"c{c:02d}", "contractor", n, int(v)))
    return pd.DataFrame(rows, columns=["rule_id", "rater_id", "role", "n_checked", "n_violations"]), rules


def review_once(rng: np.random.Generator, weeks: int, per_week: int, planted: str | None = None) -> dict:
    """One simulated review: the alarms of each kind and of the planted contractor, the tests, the power rows."""
    n = weeks * per_week
    weekly = drift.with_team(_weekly(rng, weeks, per_week, PLANTED["drift"] if planted == "drift" else 0.0))
    raw = pd.concat([_effects(rng, n, planted), drift.window_rows(weekly)], ignore_index=True)
    effects = shrink.shrink_effects(raw)
    counts, rules = _rule_counts(rng, n, planted == "rule")
    raters = rates.rater_table(counts, rules)
    p = np.concatenate([effects["p_value"].to_numpy(float), raters["p_value"].to_numpy(float)])
    t = budget.discovery_threshold(p)
    alarmed = pd.concat(
        [
            effects.loc[effects["p_value"].le(t), ["rater_id", "effect"]],
            raters.loc[raters["p_value"].le(t), ["rater_id"]].assign(effect="rule"),
        ]
    )
    n_tests = int(np.isfinite(p).sum())
    found = bool(((alarmed["rater_id"] == "c00") & (alarmed["effect"] == planted)).any()) if planted else False
    consistency = rates.Consistency(pd.DataFrame(), raters, pd.DataFrame(), pd.DataFrame(), ())
    stated = pw.power(effects, consistency, weekly, n_tests) if planted else None
    return {"alarms": len(alarmed), "found": found, "tests": n_tests, "power": stated}


def steady(teams: int, weeks: list[int], per_week: list[int], seed: int) -> pd.DataFrame:
    """False alarms per review over `teams` steady teams per setting."""
    out = []
    for w in weeks:
        for t in per_week:
            rng = np.random.default_rng([seed, w, t])
            alarms = np.array([review_once(rng, w, t)["alarms"] for _ in range(teams)])
            mean, se = alarms.mean(), alarms.std(ddof=1) / math.sqrt(teams)
            out.append(
                {
                    "weeks": w,
                    "tasks_per_week": t,
                    "teams": teams,
                    "false_alarms_per_review": float(mean),
                    "upper_95": float(mean + 1.96 * se),
                    "teams_with_any": float((alarms > 0).mean()),
                }
            )
            print(out[-1], flush=True)
    return pd.DataFrame(out)


def planted_power(teams: int, weeks: int, per_week: int, seed: int) -> pd.DataFrame:
    """Per kind, the share of teams where the planted contractor is alarmed on it, and the size power.py states."""
    out = []
    for kind, size in PLANTED.items():
        rng = np.random.default_rng([seed, len(kind)])
        runs = [review_once(rng, weeks, per_week, kind) for _ in range(teams)]
        stated = runs[0]["power"].set_index("kind").loc[kind]
        out.append(
            {
                "kind": kind,
                "planted": size,
                "detected": float(np.mean([r["found"] for r in runs])),
                "stated_80pct": float(stated["effect_size"]),
                "stated_unit": stated["unit"],
            }
        )
        print(out[-1], flush=True)
    return pd.DataFrame(out)


def markdown(df: pd.DataFrame) -> str:
    """A frame as a Markdown table (3 decimals)."""
    cells = [[f"{v:.3f}" if isinstance(v, float) else str(v) for v in row] for row in df.itertuples(index=False)]
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    return "\n".join(lines + ["| " + " | ".join(c) + " |" for c in cells])


def main() -> None:
    """Run and print both tables as Markdown."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--teams", type=int, default=200)
    ap.add_argument("--weeks", default="9,26,52")
    ap.add_argument("--per-week", default="5,10,20")
    ap.add_argument("--power-teams", type=int, default=200)
    ap.add_argument("--seed", type=int, default=48)
    a = ap.parse_args()
    started = time.perf_counter()
    weeks, per_week = [int(x) for x in a.weeks.split(",")], [int(x) for x in a.per_week.split(",")]
    print(markdown(steady(a.teams, weeks, per_week, a.seed)))
    print(markdown(planted_power(a.power_teams, 26, 10, a.seed)))
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
