"""Coverage of a pair of raters' 95% intervals at small and moderate n, by simulation (issue 48 item 3).

    .venv/bin/python bench/bench_coverage.py [--runs 400] [--tasks 10,30,100] [--scenarios all] [--bootstrap]

What is measured: the intervals the report gives a group of pairs (a rater against researchers, a pair of raters),
exactly as it computes them (`pair_rows.pair_rows`, every run one group, all runs of a row in one call):
proportions by the Wilson interval at the effective number of tasks, kappa-type coefficients by the delta method on
Fisher's z, the mean difference by the delta method with the t quantile (analytics/agreement/intervals.py). The
target is 93-97% at 10, 30 and 100 tasks for every coefficient, and no interval where none holds that.
`--bootstrap` adds the task bootstrap's percentile interval (1,000 resamples; slow) for comparison.

Each run simulates one pair of raters on `tasks` tasks of two targets each (both raters label both units, so
a task's two pairs move together) and counts whether each coefficient's interval covers the population value (the
report's own coefficient function on the model's expected pair table). Scenarios (SCENARIOS): a task is easy or
hard (the chance that a rater gives the true level); a wrong label is any other level (nominal) or a neighbour
(ordinal). Per cell: coverage among runs with an interval, the share of runs with one, and the share of intervals
wholly below the truth ("low"). The Monte Carlo standard error of a coverage near 95% is sqrt(0.95 x 0.05 / runs):
1.1 points at 400 runs, 0.5 at 2,000; "-" where the scale has no such coefficient (weighted kappa, AC2 and the mean
difference of a nominal scale).
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

from analytics.agreement import pair_rows as prw  # noqa: E402
from analytics.agreement import signatures as sg  # noqa: E402
from analytics.agreement.scales import Scale, build_scale  # noqa: E402

STATS = (
    "exact_agreement",
    "cohen_kappa",
    "weighted_kappa",
    "scott_pi",
    "gwet_ac1",
    "gwet_ac2",
    "krippendorff_alpha",
    "mean_difference",
)
METHODS = {"reported": True, "bootstrap": False}  # pair_rows' `delta`: the reported intervals, or the bootstrap's


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


@dataclass(frozen=True)
class Coverage:
    """One coefficient's intervals over the runs: coverage among those shown, share shown, share wholly below."""

    covered: float
    shown: float
    low: float
    runs: int

    @property
    def error(self) -> float:
        """The Monte Carlo standard error of `covered`."""
        n = self.shown * self.runs
        return float(np.sqrt(self.covered * (1 - self.covered) / n)) if n else float("nan")


def truth(sc: Scenario) -> dict[str, float]:
    """Each coefficient of STATS on the model's expected pair table (the population value)."""
    s = scale(sc)
    values = prw.pair_compute(s)(population_table(sc)[None] * 1e7)
    defined = {k: float(np.asarray(values[k]).ravel()[0]) for k in STATS}
    if s.weights == "none":
        defined = {k: v for k, v in defined.items() if k not in ("weighted_kappa", "gwet_ac2")}
    if not s.ordered:
        defined.pop("mean_difference", None)
    return defined


def coverage(sc: Scenario, n_tasks: int, runs: int, method: str = "reported", seed: int = 7) -> dict[str, Coverage]:
    """Per coefficient, how the `method` intervals of `runs` simulated pairs on n_tasks tasks cover the truth."""
    s, want = scale(sc), truth(sc)
    rng = np.random.default_rng(seed)
    sigs = [simulate(sc, n_tasks, rng) for _ in range(runs)]
    keys = [("run", str(i)) for i in range(runs)]
    rows = prw.pair_rows(s, keys, sigs, [None] * runs, [1000] * runs, seed, "the other", STATS, delta=METHODS[method])
    out = {}
    for k, value in want.items():
        ends = np.array([[c["ci_low"], c["ci_high"]] for _, coefs in rows for c in coefs if c["statistic"] == k])
        shown = np.isfinite(ends).all(axis=1)
        lo, hi = ends[shown, 0], ends[shown, 1]
        covered = float(((lo <= value) & (value <= hi)).mean()) if shown.any() else float("nan")
        low = float((hi < value).mean()) if shown.any() else float("nan")
        out[k] = Coverage(covered, float(shown.mean()), low, runs)
    return out


def cell(c: Coverage | None) -> str:
    """A table cell: coverage, share shown (where not all) and share wholly below the truth."""
    if c is None:
        return "-"
    if not c.shown:
        return "none shown"
    shown = f", shown {c.shown:.0%}" if c.shown < 1 else ""
    return f"{c.covered:.3f} (low {c.low:.3f}{shown})"


def main() -> None:
    """Print each scenario's coverage per coefficient at each number of tasks, and their average, as Markdown."""
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=400)
    p.add_argument("--tasks", default="10,30,100")
    p.add_argument("--scenarios", default="all", help="comma-separated scenario numbers (1-4) or all")
    p.add_argument("--bootstrap", action="store_true", help="also the task bootstrap's percentile intervals (slow)")
    args = p.parse_args()
    names = list(SCENARIOS)
    if args.scenarios != "all":
        names = [names[int(i) - 1] for i in args.scenarios.split(",")]
    tasks = [int(x) for x in args.tasks.split(",")]
    methods = list(METHODS) if args.bootstrap else ["reported"]
    error = float(np.sqrt(0.95 * 0.05 / args.runs))
    print(f"{args.runs} runs per row (Monte Carlo standard error of a 95% coverage: {error:.3f}); each cell: coverage")
    print("of the 95% interval among runs with one (share of intervals wholly below the truth, share of runs with one)")
    for method in methods:
        print(f"\n{method} intervals\n")
        print("| scenario | tasks | " + " | ".join(STATS) + " | seconds |")
        print("|---|---|" + "---|" * (len(STATS) + 1))
        results: dict[tuple[str, int], dict[str, Coverage]] = {}
        for name in names:
            for n in tasks:
                t = time.perf_counter()
                results[name, n] = c = coverage(SCENARIOS[name], n, args.runs, method)
                cells = " | ".join(cell(c.get(k)) for k in STATS)
                print(f"| {name} | {n} | {cells} | {time.perf_counter() - t:.0f} |", flush=True)
        for n in tasks:
            means = []
            for k in STATS:
                got = [results[name, n][k].covered for name in names if k in results[name, n]]
                got = [g for g in got if np.isfinite(g)]
                means.append(f"{np.mean(got):.3f}" if got else "-")
            print(f"| average over the scenarios | {n} | " + " | ".join(means) + " | |")


if __name__ == "__main__":
    main()
