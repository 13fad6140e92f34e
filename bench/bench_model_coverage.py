"""Coverage of the rater model's 95% accuracy intervals against expert gold on Snow et al. (2008) RTE and temp.

    nice -n 10 .venv/bin/python bench/bench_model_coverage.py [--seeds 40] [--share 0.2]

Per seed, a random fifth of the items (numpy default_rng(seed)) gives its gold as researcher labels; the model is
fitted (analytics.model.rater_model.fit_labels, nominal scale) and each worker's accuracy and interval computed
from every label they gave, three ways: as Concord does now (analytics.model.calibration.rater_accuracy: calibrated
posteriors, effective n), with the effective n but the fit's posteriors (what Concord does when fewer than
calibration.MIN_CALIBRATION_UNITS units are anchored), and as it did before (the fit's posteriors, a Wilson
interval over the worker's tasks).
Every Snow item has gold, so each worker's real record is known: K correct of their n labels.

What the interval is for: a worker's accuracy, the chance that they label a task of this kind correctly (the
propensity p behind their record), not the share of these particular labels (the given fifth would then be known
without error, and a researcher-labelled contractor's interval would shrink to a point whatever their n). The
record K/n is itself a noisy measure of p: a worker with 20 of 20 right does not have p = 1, and a 95% interval
for p should exclude 1 then. So three measures, per interval, averaged over workers and seeds:
- `covers p` (the one the band is judged on): the probability that the interval contains p given the worker's
  whole gold record, p ~ Beta(a + K, b + n - K) with a, b the workers' beta-binomial maximum-likelihood prior (an
  empirical Bayes estimate of how p varies among the workers). Averaged over workers this estimates the coverage
  of p: the interval depends only on what the model saw, a part of what the gold record holds, so the mean of
  P(p in interval | record) is P(p in interval). It is the coverage expected given the noise of the record.
- `covers p (Jeffreys)`: the same with the Beta(1/2, 1/2) prior instead, as a check of how much the prior weighs.
- `contains K/n` (the issue's measure): the share of workers whose record K/n lies inside the interval. It counts
  every worker with all labels right whose interval stops short of 1 as a miss.
- `contains held-out` : the share whose accuracy on their held-out items lies inside (noisier still: fewer items).
The Monte Carlo error is the standard deviation over seeds divided by the square root of their number.
"""

from __future__ import annotations

import argparse
import platform
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import optimize, stats

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from analytics.core.stats import wilson_interval  # noqa: E402
from analytics.model import calibration  # noqa: E402
from analytics.model import rater_model as rm  # noqa: E402

SNOW = ROOT.parent / "shared" / "real-data" / "snow2008"
MEASURES = ("covers p", "covers p (Jeffreys)", "contains K/n", "contains held-out")
METHODS = ("calibrated, effective n", "effective n, not calibrated", "before: Wilson over tasks")


@dataclass(frozen=True)
class Snow:
    """One Snow 2008 task: each label's item, worker and level index, the number of levels, each item's gold."""

    units: np.ndarray
    raters: np.ndarray
    labels: np.ndarray
    q: int
    gold: np.ndarray


def snow(path: Path) -> Snow:
    """A Snow 2008 TSV (`orig_id`, `!amt_worker_ids`, `response`, `gold`) as indices."""
    df = pd.read_csv(path, sep="\t")
    units, ids = pd.factorize(df["orig_id"])
    raters, _ = pd.factorize(df["!amt_worker_ids"])
    labels, levels = pd.factorize(df["response"], sort=True)
    gold = df.groupby("orig_id")["gold"].first().loc[ids].map(list(levels).index).to_numpy()
    return Snow(units, raters, labels, len(levels), gold)


def beta_prior(correct: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    """The beta-binomial maximum-likelihood Beta(a, b) of the workers' accuracies from their records."""

    def loss(t: np.ndarray) -> float:
        """Negative log likelihood at a, b = exp(t)."""
        return -float(stats.betabinom.logpmf(correct, n, np.exp(t[0]), np.exp(t[1])).sum())

    t = optimize.minimize(loss, np.zeros(2), method="Nelder-Mead").x
    return float(np.exp(t[0])), float(np.exp(t[1]))


def intervals(data: Snow, given: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per method, each worker's interval when the items `given` give their gold."""
    truth = np.where(given, data.gold, -1)
    fit = rm.fit_labels(data.units, data.raters, data.labels, data.q, ordinal=False, truth=truth)
    k = int(data.raters.max()) + 1
    n = np.bincount(data.raters, minlength=k)  # one label per item and worker: tasks = labels
    _, low, high, _ = calibration.rater_accuracy(
        fit.posterior, fit.confusion, fit.prior, data.units, data.raters, data.labels, truth, n
    )
    right = fit.posterior[data.units, data.labels]
    correct = np.bincount(data.raters, right, k)
    spread = np.bincount(data.raters, right * (1 - right), k)
    return {
        METHODS[0]: (low, high),
        METHODS[1]: calibration.accuracy_bounds(correct, spread, n, n),  # as with fewer than 20 anchored units
        METHODS[2]: wilson_interval(correct, n),
    }


def coverage(data: Snow, seed: int, share: float = 0.2) -> pd.DataFrame:
    """Per method and worker, the four measures (MEASURES) for one seed's draw of the items that give gold."""
    given = np.random.default_rng(seed).random(len(data.gold)) < share
    k = int(data.raters.max()) + 1
    right = data.labels == data.gold[data.units]
    held = ~given[data.units]
    n, correct = np.bincount(data.raters, minlength=k), np.bincount(data.raters, right, k)
    m = np.bincount(data.raters, held, k)
    with np.errstate(invalid="ignore"):
        held_share = np.bincount(data.raters, right & held, k) / m
    a, b = beta_prior(correct, n)
    rows = []
    for method, (low, high) in intervals(data, given).items():

        def inside(posterior: stats.rv_continuous, lo: np.ndarray = low, hi: np.ndarray = high) -> np.ndarray:
            """Each worker's posterior probability that p lies in their interval."""
            return np.asarray(posterior.cdf(hi) - posterior.cdf(lo))

        rows.append(
            pd.DataFrame(
                {
                    "method": method,
                    "seed": seed,
                    "n": n,
                    "covers p": inside(stats.beta(a + correct, b + n - correct)),
                    "covers p (Jeffreys)": inside(stats.beta(0.5 + correct, 0.5 + n - correct)),
                    "contains K/n": (low <= correct / n) & (correct / n <= high),
                    "contains held-out": np.where(m > 0, (low <= held_share) & (held_share <= high), np.nan),
                    "width": high - low,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per method: each measure's mean over workers and seeds and its Monte Carlo error (sd over seeds / sqrt)."""
    per_seed = runs.groupby(["method", "seed"])[[*MEASURES, "width"]].mean()
    g = per_seed.groupby(level="method", sort=False)
    return g.mean().join(g.std().div(np.sqrt(g.size()), axis=0).add_suffix(" error"))


def main() -> None:
    """Print the coverage table (Markdown) of each method on RTE and temp, also by worker size."""
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", type=int, default=40)
    p.add_argument("--share", type=float, default=0.2, help="share of the items that give their gold")
    args = p.parse_args()
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, 2 cores; {args.seeds} seeds")
    print("| task | workers | method | " + " | ".join(MEASURES) + " | mean width |")
    print("|---|---|---|" + "---|" * (len(MEASURES) + 1))
    for task in ("rte", "temp"):
        data = snow(SNOW / f"{task}.standardized.tsv")
        runs = pd.concat([coverage(data, s, args.share) for s in range(args.seeds)], ignore_index=True)
        size = np.where(runs["n"] <= 20, "n <= 20", "n > 20")
        for who, part in [("all", runs), *runs.groupby(size)]:
            workers = part.loc[part["seed"] == 0].shape[0] // len(METHODS)
            for method, r in summary(part).iterrows():
                cells = " | ".join(f"{r[m]:.3f} ± {r[m + ' error']:.3f}" for m in MEASURES)
                print(f"| {task} | {who} ({workers}) | {method} | {cells} | {r['width']:.3f} |")


if __name__ == "__main__":
    main()
