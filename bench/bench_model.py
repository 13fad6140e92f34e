"""The rater model against majority vote and crowd-kit's Dawid-Skene: accuracy against gold on the units whose
gold was hidden, with the share of gold given to each method.

    .venv/bin/python bench/bench_model.py [--crowdkit-python /work/ckenv/bin/python] [--seeds 5]

The coverage of the accuracy intervals against the same gold: bench/bench_model_coverage.py.

Data:
- Snow et al. 2008 RTE and temp (../shared/real-data/snow2008): 10 workers per item, expert gold for every item.
  A fifth of the items (a seed's random draw) give their gold as researcher labels; the other four fifths are
  scored. Also with no gold at all (0%).
- the demo (analytics.demo, seed 7): answer comparison's usefulness comparison, scored against the simulator's
  true comparison (truth.json "latent") on the units no researcher labelled; the researchers' labels are the gold
  given (their share is printed).

crowd-kit is not a dependency of Concord: it runs in a separate environment (`python3 -m venv /work/ckenv &&
/work/ckenv/bin/pip install crowd-kit`), called through a subprocess with CSV files, only when --crowdkit-python is
given. Its DawidSkene.fit_predict takes the given gold as `true_labels`.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from analytics.model import rater_model as rm  # noqa: E402
from analytics.store import keys  # noqa: E402

SNOW = ROOT.parent / "shared" / "real-data" / "snow2008"
CROWDKIT = """
import sys, pandas as pd
from crowdkit.aggregation import DawidSkene
data = pd.read_csv(sys.argv[1])
gold = pd.read_csv(sys.argv[2]).set_index("task")["label"]
out = DawidSkene(n_iter=100).fit_predict(data, true_labels=gold if len(gold) else None)
out.rename("label").rename_axis("task").reset_index().to_csv(sys.argv[3], index=False)
"""


def crowdkit_labels(python: str, units, raters, labels, truth) -> np.ndarray:
    """crowd-kit's Dawid-Skene labels per unit (given gold where truth >= 0), through its own environment."""
    with tempfile.TemporaryDirectory() as d:
        data = pd.DataFrame({"worker": raters, "task": units, "label": labels})
        data.to_csv(f"{d}/data.csv", index=False)
        known = np.flatnonzero(truth >= 0)
        pd.DataFrame({"task": known, "label": truth[known]}).to_csv(f"{d}/gold.csv", index=False)
        Path(f"{d}/run.py").write_text(CROWDKIT)
        subprocess.run([python, f"{d}/run.py", f"{d}/data.csv", f"{d}/gold.csv", f"{d}/out.csv"], check=True)
        out = pd.read_csv(f"{d}/out.csv").set_index("task")["label"]
    return out.reindex(range(int(units.max()) + 1)).fillna(-1).astype(int).to_numpy()


def score(units, raters, labels, q, gold, given, ordinal, python) -> dict:
    """Accuracy on the units whose gold was not given, for each method."""
    truth = np.where(given, gold, -1)
    hidden = ~given & (gold >= 0)
    t = time.perf_counter()
    fit = rm.fit_labels(units, raters, labels, q, ordinal=ordinal, truth=truth)
    seconds = time.perf_counter() - t
    out = {
        "majority vote": rm.accuracy_against(rm.majority_vote(units, labels, len(gold), q)[hidden], gold[hidden]),
        "Concord model": rm.accuracy_against(fit.posterior.argmax(axis=1)[hidden], gold[hidden]),
        "model seconds": seconds,
    }
    if python:
        out["crowd-kit Dawid-Skene"] = rm.accuracy_against(
            crowdkit_labels(python, units, raters, labels, truth)[hidden], gold[hidden]
        )
    return out


def snow(task: str, share: float, seeds: int, python: str | None) -> dict:
    """Mean accuracies over seeds on one Snow 2008 task with `share` of the gold given."""
    df = pd.read_csv(SNOW / f"{task}.standardized.tsv", sep="\t")
    units, ids = pd.factorize(df["orig_id"])
    raters, _ = pd.factorize(df["!amt_worker_ids"])
    labels, levels = pd.factorize(df["response"], sort=True)
    gold = df.groupby("orig_id")["gold"].first().loc[ids].map(list(levels).index).to_numpy()
    runs = [
        score(
            units, raters, labels, len(levels), gold, np.random.default_rng(s).random(len(ids)) < share, False, python
        )
        for s in range(seeds)
    ]
    return {k: float(np.mean([r[k] for r in runs])) for k in runs[0]}


def demo(python: str | None) -> tuple[dict, float]:
    """Accuracies on the demo's primary comparison against the simulator's truth, and the share of gold given."""
    from analytics import store
    from analytics.cli.first_run import demo_plan
    from analytics.core.filters import Filters
    from analytics.ingest.load import ingest_file
    from demo import write_demo

    with tempfile.TemporaryDirectory() as d:
        write_demo(Path(d) / "inputs", seed=7)
        con = store.open_store(Path(d) / "demo.duckdb")
        for f in demo_plan(out=Path(d) / "inputs"):
            ingest_file(con, f.path, undated_at=f.undated_at)
        latent = json.loads((Path(d) / "inputs" / "truth.json").read_text())["latent"]["answer_comparison"]
        dim = "usefulness_comparison"
        df = rm.model_query(Filters(rubric="answer_comparison", dimensions=(dim,))).df(con)
        names = keys.KeyIds.read(con, rm.UNIT_KEYS)
        levels = list(con.execute("SELECT levels FROM dimensions WHERE dimension = ?", [dim]).fetchall()[0][0])
        con.close()
    units, first = rm.unit_rows(df)
    tasks = np.asarray(names.of("task_key", df["task_key"].to_numpy()[first]), dtype=object)
    raters, _ = pd.factorize(df["rater_key"])
    gold = np.array([levels.index(latent[t][dim]) if t in latent else -1 for t in tasks])
    # The researchers' labels are what the model is given (not the simulator's truth); scored on the rest.
    obs = ~df["researcher"].to_numpy()
    truth = rm.anchors(df, units, len(tasks))
    hidden = (truth < 0) & (gold >= 0)
    fit = rm.fit_labels(units[obs], raters[obs], df["value_index"].to_numpy()[obs], 5, ordinal=True, truth=truth)
    out = {
        "majority vote": rm.accuracy_against(
            rm.majority_vote(units[obs], df["value_index"].to_numpy()[obs], len(tasks), 5)[hidden], gold[hidden]
        ),
        "Concord model": rm.accuracy_against(fit.posterior.argmax(axis=1)[hidden], gold[hidden]),
    }
    if python:
        labels = crowdkit_labels(python, units[obs], raters[obs], df["value_index"].to_numpy()[obs], truth)
        out["crowd-kit Dawid-Skene"] = rm.accuracy_against(labels[hidden], gold[hidden])
    return out, float((truth >= 0).mean())


def main() -> None:
    """Print every comparison as Markdown table rows."""
    p = argparse.ArgumentParser()
    p.add_argument("--crowdkit-python", default=None, help="python of an environment with crowd-kit installed")
    p.add_argument("--seeds", type=int, default=5)
    args = p.parse_args()
    print(f"machine: {platform.machine()}, {platform.python_version()}, 2 cores; seeds {args.seeds}")
    print("| data | gold given | majority vote | Concord model | crowd-kit Dawid-Skene |")
    print("|---|---|---|---|---|")
    for task in ("rte", "temp"):
        for share in (0.0, 0.2):
            r = snow(task, share, args.seeds, args.crowdkit_python)
            ck = f"{r['crowd-kit Dawid-Skene']:.3f}" if "crowd-kit Dawid-Skene" in r else "not run"
            print(f"| Snow 2008 {task} | {share:.0%} | {r['majority vote']:.3f} | {r['Concord model']:.3f} | {ck} |")
    r, given = demo(args.crowdkit_python)
    ck = f"{r['crowd-kit Dawid-Skene']:.3f}" if "crowd-kit Dawid-Skene" in r else "not run"
    print(f"| demo usefulness comparison | {given:.0%} | {r['majority vote']:.3f} | {r['Concord model']:.3f} | {ck} |")


if __name__ == "__main__":
    main()
