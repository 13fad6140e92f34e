"""Agreement benchmark: the full agreement computation at 100k and 1M tasks, and the naive approach beside it.

    .venv/bin/python bench/bench_agreement.py --tasks 100000 1000000 --naive-tasks 100000

Data: bench/generate.py (N tasks x 8 dimensions x about 3 of 200 contractors, 10% of tasks also rated by one of
10 researchers; 1M tasks = about 25M ratings), loaded into a temporary store with ingest_file.

- engine: `agreement_report` for contractor_vs_researcher and for all_raters (every dimension, every
  coefficient, every rater, 1000-resample bootstrap intervals), one after the other in one child process;
  also with n_boot=0 (point estimates only), to show what the intervals cost.
- naive (100k tasks): what a user would write with the usual packages. The ratings fetched into pandas; per
  dimension a dense raters x units reliability matrix (pandas pivot) into `krippendorff.alpha(value_domain=)`;
  per contractor and dimension `sklearn.metrics.cohen_kappa_score` (unweighted and linear, `labels=` the full
  scale) in a pandas groupby loop against the researcher labels; a bootstrap that recomputes each resample
  from scratch. The 1000-resample bootstraps are timed on a few resamples and extrapolated (printed as such);
  one contractor's kappa gets all 1000 naive resamples, to compare its interval with the engine's.
  The naive side computes far fewer figures than the engine (alpha, kappa, weighted kappa and exact agreement
  only), so the speed-up is a lower bound.

Every measurement runs in a child process of its own, so its peak RSS (resource.getrusage ru_maxrss) is its
own; the machine is shared, so the 1-minute load average before and after is printed with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
COMPARISONS = ("contractor_vs_researcher", "all_raters")
N_BOOT = 1000
TARGET_SECONDS, TARGET_SPEEDUP, TARGET_MB = 10.0, 20.0, 4096


# --- child processes ---------------------------------------------------------------------------------------


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_ingest(db: str, parquet: str) -> dict:
    """Load the benchmark Parquet into a new store."""
    sys.path.insert(0, str(ROOT))
    from analytics import store
    from analytics.ingest.load import ingest_file

    con = store.open_store(db)
    t = time.perf_counter()
    r = ingest_file(con, parquet)
    seconds = time.perf_counter() - t
    ratings = con.execute("SELECT count(*) FROM ratings").fetchall()[0][0]
    con.close()
    return {"status": r.status, "ratings": ratings, "seconds": seconds, "peak_mb": peak_mb(), "errors": r.errors[:2]}


def child_engine(db: str, n_boot: int, dump: str | None, profile: bool, memory_limit: str | None = None) -> dict:
    """Both agreement reports on the whole store, timed one by one; optionally their values saved for checking,
    optionally under a DuckDB memory limit (a setting of this connection only)."""
    sys.path.insert(0, str(ROOT))
    from analytics import agreement, store
    from analytics.core.filters import Filters

    con = store.open_store(db, read_only=True)
    if memory_limit:
        if not re.fullmatch(r"\d+(\.\d+)?(MB|GB|MiB|GiB)", memory_limit):
            raise ValueError(f"--memory-limit must look like 3GB or 2500MB, not {memory_limit!r}")
        con.execute(f"SET memory_limit = '{memory_limit}'")  # checked above; SET takes no bound parameter
    baseline = peak_mb()
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    seconds, reports = {}, {}
    start = time.perf_counter()
    for comparison in COMPARISONS:
        t = time.perf_counter()
        reports[comparison] = agreement.agreement_report(
            con, agreement.AgreementSpec(comparison=comparison, n_boot=n_boot, filters=Filters())
        )
        seconds[comparison] = time.perf_counter() - t
    total = time.perf_counter() - start
    out = {"seconds": total, "per_comparison": seconds, "peak_mb": peak_mb(), "baseline_mb": baseline}
    out["rows"] = {c: [len(r.dimensions), len(r.raters)] for c, r in reports.items()}
    if profiler is not None:
        import io
        import pstats

        profiler.disable()
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(25)
        out["profile"] = text.getvalue()
    if dump:
        reports["all_raters"].dimensions.to_parquet(f"{dump}_dimensions.parquet")
        reports["contractor_vs_researcher"].raters.to_parquet(f"{dump}_raters.parquet")
    con.close()
    return out


def _naive_kappas(pairs, labels: list[int]):
    """Cohen's kappa, linear weighted kappa and exact agreement per (contractor, dimension), in a groupby loop."""
    import pandas as pd
    from sklearn.metrics import cohen_kappa_score

    rows = []
    for (rater, dimension), g in pairs.groupby(["rater_id", "dimension"], sort=True):
        a, b = g["value_index"].to_numpy(), g["value_index_ref"].to_numpy()
        rows.append(
            {
                "rater_id": rater,
                "dimension": dimension,
                "cohen_kappa": cohen_kappa_score(a, b, labels=labels),
                "weighted_kappa": cohen_kappa_score(a, b, labels=labels, weights="linear"),
                "exact_agreement": float((a == b).mean()),
            }
        )
    return pd.DataFrame(rows)


def _naive_kappa_boot(pairs, labels: list[int], resamples: int, seed: int = 0) -> dict:
    """Recompute both kappas of every (contractor, dimension) on `resamples` bootstrap resamples of its pairs."""
    import numpy as np
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(seed)
    groups = 0
    for _, g in pairs.groupby(["rater_id", "dimension"], sort=True):
        a, b = g["value_index"].to_numpy(), g["value_index_ref"].to_numpy()
        for _ in range(resamples):
            i = rng.integers(0, len(a), len(a))
            cohen_kappa_score(a[i], b[i], labels=labels)
            cohen_kappa_score(a[i], b[i], labels=labels, weights="linear")
        groups += 1
    return {"groups": groups}


def _one_group_interval(pairs, labels: list[int], rater: str, dimension: str, resamples: int = N_BOOT) -> list:
    """The 95% percentile interval of one contractor's kappa from `resamples` naive resamples."""
    import numpy as np
    from sklearn.metrics import cohen_kappa_score

    g = pairs[(pairs["rater_id"] == rater) & (pairs["dimension"] == dimension)]
    a, b = g["value_index"].to_numpy(), g["value_index_ref"].to_numpy()
    rng = np.random.default_rng(1)
    values = []
    for _ in range(resamples):
        i = rng.integers(0, len(a), len(a))
        values.append(cohen_kappa_score(a[i], b[i], labels=labels))
    return [float(x) for x in np.nanpercentile(values, [2.5, 97.5])]


def child_naive(db: str, kappa_resamples: int, alpha_resamples: int, dump: str) -> dict:
    """The naive computation on a store, stage by stage, with its bootstraps on a few resamples (extrapolated
    by the parent)."""
    import duckdb

    stages: dict[str, float] = {}
    t = time.perf_counter()
    con = duckdb.connect(db, read_only=True)
    df = con.execute(
        "SELECT task_id || '/' || target AS unit, rater_id, role, dimension, value_index FROM ratings"
    ).df()
    q = {d: n for d, n in con.execute("SELECT dimension, len(levels) FROM dimensions").fetchall()}
    con.close()
    stages["fetch ratings into pandas"] = time.perf_counter() - t
    return naive_on_frame(df, q, stages, kappa_resamples, alpha_resamples, dump)


def child_naive_file(parquet: str, kappa_resamples: int, alpha_resamples: int, dump: str) -> dict:
    """The naive computation on a canonical Parquet file of bench/generate.py (either shape), as a user's script
    would read it: pandas, and the level order of the generator's scales written into the script."""
    import pandas as pd

    sys.path.insert(0, str(HERE))
    from generate import COMPARISON_LEVELS, LEVELS

    stages: dict[str, float] = {}
    t = time.perf_counter()
    df = pd.read_parquet(parquet, columns=["task_id", "target", "rater_id", "role", "dimension", "value"])
    order = {level: i for scale in (LEVELS, COMPARISON_LEVELS) for i, level in enumerate(scale)}
    df["unit"] = df["task_id"] + "/" + df["target"]
    df["value_index"] = df["value"].map(order)
    df = df[["unit", "rater_id", "role", "dimension", "value_index"]]
    q = dict.fromkeys(df["dimension"].unique(), len(LEVELS))  # every scale of the generator has 5 levels
    stages["read the Parquet file into pandas"] = time.perf_counter() - t
    return naive_on_frame(df, q, stages, kappa_resamples, alpha_resamples, dump)


def naive_on_frame(df, q: dict, stages: dict, kappa_resamples: int, alpha_resamples: int, dump: str) -> dict:
    """The naive computation on ratings in pandas (unit, rater_id, role, dimension, value_index) with `q` levels
    per dimension; `stages` already holds the time to get them."""
    import krippendorff
    import numpy as np
    import pandas as pd

    t = time.perf_counter()
    matrices, alphas = {}, []
    for dimension, g in df.groupby("dimension", sort=True):
        m = g.pivot(index="rater_id", columns="unit", values="value_index").to_numpy(dtype=float)
        matrices[dimension] = m
        domain = list(range(q[dimension]))
        a = krippendorff.alpha(reliability_data=m, value_domain=domain, level_of_measurement="ordinal")
        alphas.append({"dimension": dimension, "krippendorff_alpha": a})
    stages["alpha: pivot + krippendorff per dimension"] = time.perf_counter() - t

    t = time.perf_counter()
    labels = list(range(max(q.values())))
    c, r = df[df["role"] == "contractor"], df[df["role"] == "researcher"]
    pairs = c.merge(
        r[["unit", "dimension", "rater_id", "value_index"]], on=["unit", "dimension"], suffixes=("", "_ref")
    )
    kappas = _naive_kappas(pairs, labels)
    stages["kappa: merge + sklearn loop"] = time.perf_counter() - t

    t = time.perf_counter()
    groups = _naive_kappa_boot(pairs, labels, kappa_resamples)["groups"]
    stages[f"kappa bootstrap, {kappa_resamples} resamples"] = time.perf_counter() - t

    t = time.perf_counter()
    rng = np.random.default_rng(0)
    for dimension, m in matrices.items():
        for _ in range(alpha_resamples):
            cols = rng.integers(0, m.shape[1], m.shape[1])
            krippendorff.alpha(
                reliability_data=m[:, cols], value_domain=list(range(q[dimension])), level_of_measurement="ordinal"
            )
    stages[f"alpha bootstrap, {alpha_resamples} resamples"] = time.perf_counter() - t

    first = kappas.iloc[0]
    t = time.perf_counter()
    interval = _one_group_interval(pairs, labels, first["rater_id"], first["dimension"])
    one_group_seconds = time.perf_counter() - t

    pd.DataFrame(alphas).to_parquet(f"{dump}_alpha.parquet")
    kappas.to_parquet(f"{dump}_kappa.parquet")
    return {
        "stages": stages,
        "kappa_groups": groups,
        "dimensions": len(matrices),
        "pairs": len(pairs),
        "peak_mb": peak_mb(),
        "one_group": {
            "rater_id": first["rater_id"],
            "dimension": first["dimension"],
            "interval": interval,
            "seconds": one_group_seconds,
        },
    }


STATS = ("task_value_patterns", "rater_level_counts", "pairs_by_rater", "pairs_pooled", "ranking_pairs")


def child_stat(db: str, name: str, comparison: str) -> dict:
    """One of the engine's named SQL sufficient statistics for one comparison, on its own: time, rows, memory."""
    sys.path.insert(0, str(ROOT))
    from analytics import store
    from analytics.agreement import counts, pair_plans, pairing, sides
    from analytics.core import packing
    from analytics.core.filters import Filters

    con = store.open_store(db, read_only=True)
    pair_sides = sides.comparison_sides(Filters(), comparison)
    width = packing.scale_width(con)
    query = {
        "task_value_patterns": lambda: counts.task_patterns_query(counts.dimension_filter(Filters(), None)),
        "rater_level_counts": lambda: counts.rater_level_counts_query(pair_sides.subject),
        "pairs_by_rater": lambda: pair_plans.pair_query(pair_sides, "rater", width, pairing.multi_target(con)),
        "pairs_pooled": lambda: pair_plans.pair_query(sides.pooled_sides(Filters()), "dimension", width),
        "ranking_pairs": lambda: pairing.ranking_query(pair_sides, "rater"),
    }[name]()
    baseline = peak_mb()
    t = time.perf_counter()
    df = query.df(con)
    seconds = time.perf_counter() - t
    con.close()
    return {"seconds": seconds, "rows": len(df), "peak_mb": peak_mb(), "baseline_mb": baseline}


CHILDREN = {
    "ingest": child_ingest,
    "engine": child_engine,
    "naive": child_naive,
    "naive_file": child_naive_file,
    "stat": child_stat,
}


# --- parent ------------------------------------------------------------------------------------------------


def run_child(kind: str, *args) -> dict:
    """Run one measurement in a fresh Python process; return its JSON with the load average around it."""
    before = os.getloadavg()[0]
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, json.dumps(args)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{kind} child failed:\n{out.stderr[-3000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["load"] = [before, os.getloadavg()[0]]
    return result


def load_text(r: dict) -> str:
    """The 1-minute load average before and after a measurement."""
    return f"load {r['load'][0]:.2f} -> {r['load'][1]:.2f}"


def machine() -> str:
    """Cores and memory of this machine."""
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores, {mem:.0f} GiB RAM, Python {sys.version.split()[0]}"


def compare(engine_dump: str, naive_dump: str) -> dict:
    """Largest absolute differences between the engine's and the naive values of the same coefficients."""
    import pandas as pd

    e_dims = pd.read_parquet(f"{engine_dump}_dimensions.parquet")
    e_raters = pd.read_parquet(f"{engine_dump}_raters.parquet")
    n_alpha = pd.read_parquet(f"{naive_dump}_alpha.parquet")
    n_kappa = pd.read_parquet(f"{naive_dump}_kappa.parquet")
    alpha = n_alpha.merge(e_dims, on="dimension", suffixes=("_naive", ""))
    kappa = n_kappa.merge(e_raters, on=["rater_id", "dimension"], suffixes=("_naive", ""))
    out = {"alpha": float((alpha["krippendorff_alpha_naive"] - alpha["krippendorff_alpha"]).abs().max())}
    for s in ("cohen_kappa", "weighted_kappa", "exact_agreement"):
        out[s] = float((kappa[f"{s}_naive"] - kappa[s]).abs().max())
    out["compared"] = {"dimensions": len(alpha), "contractor_dimension_groups": len(kappa)}
    return out


def ensure_data(n: int) -> Path:
    """The Parquet of n tasks, generated when missing."""
    path = HERE / "data" / f"ratings_{n}.parquet"
    if not path.exists():
        sys.path.insert(0, str(HERE))
        from generate import generate

        path = generate(n, HERE / "data")["parquet"]
    return path


def median_run(kind: str, repeat: int, *args) -> tuple[dict, list[dict]]:
    """The run with the median time of `repeat` runs, and all the runs."""
    runs = [run_child(kind, *args) for _ in range(repeat)]
    return sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2], runs


def main() -> None:
    """Build a store per size, measure the engine (and at the naive size the naive approach), print the figures."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tasks", type=int, nargs="+", default=[100_000, 1_000_000])
    p.add_argument("--naive-tasks", type=int, default=100_000, help="size for the naive comparison (0: skip)")
    p.add_argument("--repeat", type=int, default=3, help="engine runs per size (the median is reported)")
    p.add_argument("--kappa-resamples", type=int, default=3, help="naive kappa bootstrap resamples actually run")
    p.add_argument("--alpha-resamples", type=int, default=2, help="naive alpha bootstrap resamples actually run")
    p.add_argument("--profile", action="store_true", help="print a cProfile of one engine run per size")
    p.add_argument("--breakdown", action="store_true", help="time each SQL statistic alone, per comparison")
    p.add_argument("--memory-limit", help="DuckDB memory_limit for the engine runs, e.g. 3GB (default: DuckDB's)")
    p.add_argument("--store-dir", help="build the stores here and keep them for later runs (default: a temp dir)")
    args = p.parse_args()

    print(f"machine: {machine()}")
    summary = []
    for n in sorted(set(args.tasks) | ({args.naive_tasks} if args.naive_tasks else set())):
        parquet = ensure_data(n)
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(args.store_dir or d, f"bench_{n}.duckdb")
            ing = run_child("ingest", db, str(parquet))  # a kept store says already_loaded
            print(
                f"\n{n:,} tasks: {ing['ratings']:,} ratings, ingest {ing['seconds']:.1f} s "
                f"(peak {ing['peak_mb']:.0f} MB, {load_text(ing)}) status {ing['status']} {ing['errors']}"
            )
            point, _ = median_run("engine", 1, db, 0, None, False, args.memory_limit)
            print(
                f"  engine, point estimates only (n_boot=0): {point['seconds']:.2f} s "
                f"({', '.join(f'{k} {v:.2f} s' for k, v in point['per_comparison'].items())}), "
                f"peak {point['peak_mb']:.0f} MB, {load_text(point)}"
            )
            dump = os.path.join(d, "engine") if n == args.naive_tasks else None
            full, runs = median_run("engine", args.repeat, db, N_BOOT, dump, False, args.memory_limit)
            print(
                f"  engine, full with {N_BOOT}-resample intervals: median {full['seconds']:.2f} s of "
                f"{[round(r['seconds'], 2) for r in runs]} "
                f"({', '.join(f'{k} {v:.2f} s' for k, v in full['per_comparison'].items())}), "
                f"peak {max(r['peak_mb'] for r in runs):.0f} MB (after imports and open: {full['baseline_mb']:.0f} MB), "
                f"{load_text(full)}; rows (dimensions, raters) {full['rows']}"
            )
            row = {
                "tasks": n,
                "ratings": ing["ratings"],
                "full_s": full["seconds"],
                "runs": [r["seconds"] for r in runs],
                "loads": [r["load"] for r in runs],
                "point_s": point["seconds"],
                "peak_mb": max(r["peak_mb"] for r in runs),
                "per_comparison": full["per_comparison"],
            }
            if args.profile:
                prof = run_child("engine", db, N_BOOT, None, True)
                print(f"  profile of one full run ({prof['seconds']:.2f} s, {load_text(prof)}):\n{prof['profile']}")
            if args.breakdown:
                row["breakdown"] = breakdown(db)
            if n == args.naive_tasks:
                row["naive"] = naive_section(db, d, dump, full, point, args)
            summary.append(row)
    print_summary(summary)


def breakdown(db: str) -> list[dict]:
    """Each SQL sufficient statistic of each comparison in its own process: where the engine's time and memory go."""
    print("  each SQL statistic alone (own process):")
    rows = []
    for comparison in COMPARISONS:
        for name in STATS:
            if name == "value_patterns" and comparison == "contractor_vs_researcher":
                continue  # the two-sided dimension table pools confusion counts instead
            r = run_child("stat", db, name, comparison)
            print(
                f"    {comparison:25s} {name:20s} {r['seconds']:6.2f} s  {r['rows']:>9,} rows  "
                f"peak {r['peak_mb']:6.0f} MB  {load_text(r)}"
            )
            rows.append({"comparison": comparison, "statistic": name, **r})
    return rows


def naive_totals(r: dict, kappa_resamples: int, alpha_resamples: int) -> tuple[float, float, float, float]:
    """From a naive child's stages: seconds of the point estimates, of the kappa and alpha bootstraps
    extrapolated to N_BOOT resamples, and the total with intervals."""
    st = r["stages"]
    kb = st[f"kappa bootstrap, {kappa_resamples} resamples"] * N_BOOT / kappa_resamples
    ab = st[f"alpha bootstrap, {alpha_resamples} resamples"] * N_BOOT / alpha_resamples
    point = sum(v for k, v in st.items() if "bootstrap" not in k)
    return point, kb, ab, point + kb + ab


def naive_section(db: str, d: str, engine_dump: str, full: dict, engine_point: dict, args) -> dict:
    """Run and print the naive approach at this size; return its figures."""
    nd = os.path.join(d, "naive")
    r = run_child("naive", db, args.kappa_resamples, args.alpha_resamples, nd)
    st = r["stages"]
    point, kb, ab, total = naive_totals(r, args.kappa_resamples, args.alpha_resamples)
    print(
        f"  naive ({r['pairs']:,} contractor-researcher pairs, {r['kappa_groups']} contractor x dimension groups, "
        f"{r['dimensions']} dimensions), peak {r['peak_mb']:.0f} MB, {load_text(r)}:"
    )
    for k, v in st.items():
        print(f"    {k:48s} {v:8.2f} s (measured)")
    print(
        f"    kappa bootstrap, {N_BOOT} resamples {'':21s} {kb:8.0f} s (extrapolated x{N_BOOT // args.kappa_resamples})"
    )
    print(
        f"    alpha bootstrap, {N_BOOT} resamples {'':21s} {ab:8.0f} s (extrapolated x{N_BOOT // args.alpha_resamples})"
    )
    print(
        f"    naive total: point estimates {point:.1f} s, with {N_BOOT}-resample intervals {total:.0f} s "
        f"({total / 60:.0f} min)"
    )
    diff = compare(engine_dump, nd)
    print(
        f"  max |engine - naive|: alpha {diff['alpha']:.2e}, Cohen's kappa {diff['cohen_kappa']:.2e}, "
        f"weighted kappa {diff['weighted_kappa']:.2e}, exact agreement {diff['exact_agreement']:.2e} "
        f"(over {diff['compared']})"
    )
    og = r["one_group"]
    import pandas as pd

    e = pd.read_parquet(f"{engine_dump}_raters.parquet").set_index(["rater_id", "dimension"])
    e_ci = e.loc[(og["rater_id"], og["dimension"]), ["cohen_kappa_ci_low", "cohen_kappa_ci_high"]].tolist()
    print(
        f"  one group ({og['rater_id']}, {og['dimension']}) Cohen's kappa 95% interval: naive {N_BOOT} resamples "
        f"[{og['interval'][0]:.3f}, {og['interval'][1]:.3f}] in {og['seconds']:.1f} s; engine "
        f"[{e_ci[0]:.3f}, {e_ci[1]:.3f}] (different random draws of the same bootstrap)"
    )
    speedup = total / full["seconds"]
    print(
        f"  speed-up: full engine vs naive with intervals {speedup:.0f}x; point estimates only (engine n_boot=0 "
        f"{engine_point['seconds']:.2f} s vs naive {point:.1f} s) {point / engine_point['seconds']:.1f}x"
    )
    return {
        "point_s": point,
        "total_s": total,
        "peak_mb": r["peak_mb"],
        "diff": diff,
        "speedup": speedup,
        "stages": st,
        "kappa_boot_s": kb,
        "alpha_boot_s": ab,
        "load": r["load"],
        "one_group": og,
        "engine_ci": e_ci,
    }


def print_summary(summary: list[dict]) -> None:
    """One line per size against the targets, and the raw figures as JSON."""
    print("\nsummary")
    for row in summary:
        ok_time = row["full_s"] < TARGET_SECONDS
        ok_mem = row["peak_mb"] < TARGET_MB
        line = (
            f"  {row['tasks']:>9,} tasks {row['ratings']:>11,} ratings: full {row['full_s']:.2f} s "
            f"(target < {TARGET_SECONDS:.0f} s: {'met' if ok_time else 'MISSED'}), peak {row['peak_mb']:.0f} MB "
            f"(target < {TARGET_MB} MB: {'met' if ok_mem else 'MISSED'})"
        )
        if "naive" in row:
            s = row["naive"]["speedup"]
            line += f", {s:.0f}x faster than naive (target >= {TARGET_SPEEDUP:.0f}x: {'met' if s >= TARGET_SPEEDUP else 'MISSED'})"
        print(line)
    print("json: " + json.dumps(summary, default=str))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        print(json.dumps(CHILDREN[sys.argv[2]](*json.loads(sys.argv[3]))))
    else:
        main()
