"""Coverage of a pair of raters' 95% intervals: the task delta method against the task bootstrap, by simulation.

    .venv/bin/python bench/bench_coverage.py [--runs 1000] [--tasks 30,60,120,250] [--scenarios all]

Why: a pair group (a rater against researchers, a pair of raters) gets the delta method's interval from
`intervals.DELTA_MIN_TASKS` (500) tasks and 1,000 task resamples below that. At 1M tasks three quarters of the
12,015 pairs of raters have fewer than 500 shared tasks, and resampling them is most of the full agreement's
time (bench/RESULTS.md). Whether the delta method is exact enough below 500 tasks is what this measures.

Each run simulates one pair of raters on `tasks` tasks of two targets each (both raters label both units, so
a task's two pairs move together), takes each coefficient's interval by both methods exactly as the report
computes them (`report.pair_coefficients`, the delta method forced by a threshold of 0 tasks, the bootstrap by
`force_bootstrap`, 1,000 resamples, seed = run), and counts whether it covers the population value (the
report's own coefficient function on the model's expected pair table). Scenarios: a task is easy or hard (the
chance that a rater gives the true level); a wrong label is any other level (nominal) or a neighbour (ordinal).
The Monte Carlo standard error of a coverage near 95% over 1,000 runs is 0.7 points; "-" where the scale has no such coefficient (weighted kappa
and the mean difference of a nominal scale).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analytics.agreement import intervals as iv  # noqa: E402
from analytics.agreement import pair_rows as prw  # noqa: E402
from analytics.agreement import signatures as sg  # noqa: E402
from analytics.agreement.scales import Scale, build_scale  # noqa: E402

STATS = ("exact_agreement", "cohen_kappa", "weighted_kappa", "gwet_ac1", "krippendorff_alpha", "mean_difference")


@dataclass(frozen=True)
class Scenario:
    """Levels, their prevalence, (share of tasks, chance of the true level) per difficulty, and the scale kind."""

    q: int
    prevalence: tuple[float, ...]
    difficulty: tuple[tuple[float, float], ...]
    kind: str


SCENARIOS = {
    "nominal 3 levels, moderate agreement (#6's model)": Scenario(3, (0.5, 0.3, 0.2), ((0.5, 0.92), (0.5, 0.45)), "nominal"),
    "ordinal 5 levels, high agreement": Scenario(5, (0.1, 0.2, 0.3, 0.25, 0.15), ((0.7, 0.95), (0.3, 0.7)), "ordinal"),
    "nominal 3 levels, one level 88% of units": Scenario(3, (0.88, 0.08, 0.04), ((0.8, 0.95), (0.2, 0.6)), "nominal"),
    "binary, high agreement": Scenario(2, (0.8, 0.2), ((0.9, 0.98), (0.1, 0.8)), "nominal"),
}  # fmt: skip


def scale(sc: Scenario) -> Scale:
    """A declared scale of the scenario's levels and kind (as the catalogue stores one)."""
    levels = [chr(ord("a") + i) for i in range(sc.q)]
    row = pd.Series(
        {"rubric": "sim", "dimension": "d", "kind": sc.kind, "levels": levels, "coarse": levels,
         "measure": sc.kind, "level_values": [None] * sc.q, "source": "catalogue"}
    )  # fmt: skip
    return build_scale(row, None, False)


def label_given_truth(sc: Scenario, p: float) -> np.ndarray:
    """P(label | true level), q x q: the true level with chance p, else a neighbour (ordinal) or another level."""
    m = np.zeros((sc.q, sc.q))
    for t in range(sc.q):
        wrong = (
            [x for x in (t - 1, t + 1) if 0 <= x < sc.q] if sc.kind == "ordinal" else [x for x in range(sc.q) if x != t]
        )
        m[t, t] = p
        m[t, wrong] = (1 - p) / len(wrong)
    return m


def population_table(sc: Scenario) -> np.ndarray:
    """The model's expected pair table (rater a x rater b), exactly: sum over difficulty and truth."""
    prevalence = np.array(sc.prevalence)
    table = np.zeros((sc.q, sc.q))
    for share, p in sc.difficulty:
        given = label_given_truth(sc, p)
        table += share * (given.T * prevalence) @ given
    return table


def simulate(sc: Scenario, n_tasks: int, rng: np.random.Generator, targets: int = 2) -> sg.Signatures:
    """One pair of raters on n_tasks tasks of `targets` units each, as the report's task signatures."""
    hard = rng.choice(len(sc.difficulty), size=n_tasks, p=[share for share, _ in sc.difficulty])
    cells = np.zeros((n_tasks, sc.q * sc.q))
    for _ in range(targets):
        truth = rng.choice(sc.q, size=n_tasks, p=sc.prevalence)
        labels = []
        for _rater in range(2):
            label = np.empty(n_tasks, dtype=int)
            for d, (_, p) in enumerate(sc.difficulty):
                idx = np.flatnonzero(hard == d)
                cumulative = label_given_truth(sc, p)[truth[idx]].cumsum(axis=1)
                label[idx] = (rng.random(len(idx))[:, None] > cumulative).sum(axis=1)
            labels.append(label)
        np.add.at(cells, (np.arange(n_tasks), labels[0] * sc.q + labels[1]), 1)
    distinct, counts = np.unique(cells, axis=0, return_counts=True)
    return sg.Signatures(distinct, counts.astype(float), n_tasks * targets)


def coverage(sc: Scenario, n_tasks: int, runs: int) -> dict[str, dict[str, float]]:
    """Per method ("delta", "bootstrap") and coefficient, the share of runs whose interval covers the truth."""
    s = scale(sc)
    truth = {
        k: float(np.asarray(v).ravel()[0])
        for k, v in prw.pair_compute(s)(population_table(sc)[None] * 1e7).items()
        if k in STATS
    }
    hits = {m: dict.fromkeys(truth, 0) for m in ("delta", "bootstrap")}
    shown = {m: dict.fromkeys(truth, 0) for m in ("delta", "bootstrap")}
    rng = np.random.default_rng(7)
    threshold = iv.DELTA_MIN_TASKS
    try:
        iv.DELTA_MIN_TASKS = 0  # every group takes the delta method unless the bootstrap is forced
        for run in range(runs):
            sig = simulate(sc, n_tasks, rng)
            for method, force in (("delta", False), ("bootstrap", True)):
                got = prw.pair_coefficients(s, sig, n_boot=1000, seed=run, force_bootstrap=force).set_index("statistic")
                for k, value in truth.items():
                    low, high = got.loc[k, "ci_low"], got.loc[k, "ci_high"]
                    if np.isfinite(low) and np.isfinite(high):
                        shown[method][k] += 1
                        hits[method][k] += bool(low <= value <= high)
    finally:
        iv.DELTA_MIN_TASKS = threshold
    return {m: {k: hits[m][k] / shown[m][k] if shown[m][k] else float("nan") for k in truth} for m in hits}


def main() -> None:
    """Print each scenario's coverage by both methods at each number of tasks, as a Markdown table."""
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--tasks", default="30,60,120,250")
    p.add_argument("--scenarios", default="all", help="comma-separated scenario numbers (1-4) or all")
    args = p.parse_args()
    names = list(SCENARIOS)
    if args.scenarios != "all":
        names = [names[int(i) - 1] for i in args.scenarios.split(",")]
    print(f"{args.runs} runs per row; each cell: delta method / task bootstrap coverage of the 95% interval")
    print("| scenario | tasks | " + " | ".join(STATS) + " | seconds |")
    print("|---|---|" + "---|" * (len(STATS) + 1))
    for name in names:
        for n in (int(x) for x in args.tasks.split(",")):
            t = time.perf_counter()
            c = coverage(SCENARIOS[name], n, args.runs)
            cells = [
                f"{c['delta'][k]:.3f} / {c['bootstrap'][k]:.3f}" if np.isfinite(c["delta"].get(k, np.nan)) else "-"
                for k in STATS
            ]
            print(f"| {name} | {n} | " + " | ".join(cells) + f" | {time.perf_counter() - t:.0f} |", flush=True)


if __name__ == "__main__":
    main()
