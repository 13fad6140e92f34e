"""Coverage of a dimension's multi-rater intervals (alpha, Fleiss' kappa, AC1/AC2, percent agreement) by the delta
method beside the task bootstrap, at and above the number of tasks from which the report takes the delta method
(intervals.MULTI_DELTA_MIN_TASKS, issue 51).

    .venv/bin/python bench/bench_multi_coverage.py [--runs 1000] [--tasks 160,500] [--scenarios all]

Each run simulates one dimension on `tasks` tasks of two units (targets) each, every unit labelled by three
raters (bench_coverage.py's scenarios: a task is easy or hard, a wrong label another level or a neighbour), and
computes its multi-rater row exactly as the report does (`multi_rater.multi_rater_row`), once with the delta
method and once with the task bootstrap (1,000 resamples). Truth: each coefficient on the model's expected
distribution of unit patterns (every way three ratings can fall on the levels, with its probability). Per cell:
coverage among runs with an interval, and the share wholly below the truth; the Monte Carlo standard error of a
coverage near 95% is 0.7 points at 1,000 runs.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import bench_coverage as bc  # noqa: E402

from analytics.agreement import counts as ct  # noqa: E402
from analytics.agreement import multi_rater as mr  # noqa: E402

RATERS = 3  # ratings per unit
TARGETS = 2  # units per task
STATS = ("percent_agreement", "krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "gwet_ac2")


def patterns(q: int) -> np.ndarray:
    """Every unit pattern of RATERS ratings over q levels, as level counts (patterns x q)."""
    out = {tuple(np.bincount(c, minlength=q)) for c in itertools.product(range(q), repeat=RATERS)}
    return np.array(sorted(out), dtype=float)


def pattern_probabilities(sc: bc.Scenario, table: np.ndarray) -> np.ndarray:
    """The probability of each unit pattern of `table` under the scenario (difficulty, then the true level, then
    RATERS independent labels)."""
    out = np.zeros(len(table))
    for share, p in sc.difficulty:
        label = bc.label_given_truth(sc, p)
        for t, prevalence in enumerate(sc.prevalence):
            ways = [math.factorial(RATERS) / np.prod([math.factorial(int(k)) for k in row]) for row in table]
            out += share * prevalence * np.array(ways) * np.prod(label[t] ** table, axis=1)
    return out


def truth(sc: bc.Scenario) -> dict[str, float]:
    """Each coefficient on the expected pattern distribution (the population value)."""
    table = patterns(sc.q)
    tp = ct.TaskPatterns(table, np.eye(len(table)), pattern_probabilities(sc, table) * 1e7)
    row = mr.multi_rater_coefficients(bc.scale(sc), tp, RATERS, n_boot=0)
    return {r["statistic"]: float(r["value"]) for _, r in row.iterrows() if r["statistic"] in STATS and r["applies"]}


def simulate(sc: bc.Scenario, n_tasks: int, rng: np.random.Generator) -> ct.TaskPatterns:
    """One dimension on n_tasks tasks of TARGETS units, RATERS labels a unit, as the report's task patterns."""
    hard = rng.choice(len(sc.difficulty), size=n_tasks, p=[share for share, _ in sc.difficulty])
    units = []
    for _ in range(TARGETS):
        truth_level = rng.choice(sc.q, size=n_tasks, p=sc.prevalence)
        counts = np.zeros((n_tasks, sc.q))
        for _rater in range(RATERS):
            for d, (_, p) in enumerate(sc.difficulty):
                idx = np.flatnonzero(hard == d)
                cumulative = bc.label_given_truth(sc, p)[truth_level[idx]].cumsum(axis=1)
                counts[idx, (rng.random(len(idx))[:, None] > cumulative).sum(axis=1)] += 1
        units.append(counts)
    table, inverse = np.unique(np.concatenate(units), axis=0, return_inverse=True)
    membership = np.zeros((n_tasks, len(table)))
    np.add.at(membership, (np.tile(np.arange(n_tasks), TARGETS), inverse.reshape(-1)), 1)
    rows, n = np.unique(membership, axis=0, return_counts=True)
    return ct.TaskPatterns(table, rows, n.astype(float))


def coverage(
    sc: bc.Scenario, n_tasks: int, runs: int, delta: bool, seed: int = 11, n_boot: int = 1000
) -> dict[str, bc.Coverage]:
    """Per coefficient, how the delta method's (or the bootstrap's) intervals of `runs` simulated dimensions on
    n_tasks tasks cover the truth."""
    s, want = bc.scale(sc), truth(sc)
    rng = np.random.default_rng(seed)
    ends: dict[str, list] = {k: [] for k in want}
    for i in range(runs):
        tp = simulate(sc, n_tasks, rng)
        _, coefs = mr.multi_rater_row(s, tp, RATERS, int(tp.unit_weights @ tp.counts.sum(axis=1)), n_boot, i, delta)
        for c in coefs:
            if c["statistic"] in ends:
                ends[c["statistic"]].append((c["ci_low"], c["ci_high"]))
    out = {}
    for k, value in want.items():
        e = np.array(ends[k])
        shown = np.isfinite(e).all(axis=1)
        lo, hi = e[shown, 0], e[shown, 1]
        covered = float(((lo <= value) & (value <= hi)).mean()) if shown.any() else float("nan")
        below = float((hi < value).mean()) if shown.any() else float("nan")
        out[k] = bc.Coverage(covered, float(shown.mean()), below, runs)
    return out


def main() -> None:
    """Print coverage per scenario, number of tasks and method, as a Markdown table."""
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--tasks", default="160,500")
    p.add_argument("--scenarios", default="all")
    args = p.parse_args()
    names = list(bc.SCENARIOS) if args.scenarios == "all" else args.scenarios.split(",")
    print("| scenario | tasks | method | " + " | ".join(STATS) + " |")
    print("|---|---|---|" + "---|" * len(STATS))
    for name in names:
        sc = bc.SCENARIOS[name]
        for n in (int(x) for x in args.tasks.split(",")):
            for method, delta in (("delta", True), ("bootstrap", False)):
                t = time.perf_counter()
                got = coverage(sc, n, args.runs, delta)
                cells = [f"{got[k].covered:.1%}" if k in got else "-" for k in STATS]
                print(f"| {name} | {n} | {method} ({time.perf_counter() - t:.0f} s) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
