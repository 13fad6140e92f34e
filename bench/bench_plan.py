"""The labelling plan against random labels of the same number, on a simulated labelling project (issue 52 item 4).

    .venv/bin/python bench/bench_plan.py [--seeds 5] [--tasks 4000] [--budget 150] [--json PATH]

What is measured: whether researcher labels placed by the plan (analytics.plan.propose) narrow the contractors'
intervals more than as many labels on tasks drawn at random. Per seed a project is simulated and loaded into an
in-memory store as one canonical CSV (analytics.ingest.load.ingest_file); the plan of `budget` labels for
researchers r1 and r2 is computed on it; then two copies of the project are loaded, each into a fresh store:
  plan    with the plan's labels added (each by the researcher the plan names; a second label by the other one),
  random  with `budget` labels by r1 on tasks drawn uniformly at random from the plan's candidates (tasks
          contractors rated and no researcher labelled: analytics.plan.candidates).
Each store is measured as the dashboard measures it (analytics.plan.needs: each contractor's 95% interval of exact
agreement with researchers on the rubric's primary dimension, who is active, whose interval is usable): the widest
half width among active contractors (a contractor without any shared task counts 0.5, the whole range, as
analytics.plan.widths does) and the number of active contractors without a usable interval (fewer than
needs.USABLE_TASKS shared tasks). The margins (issue 52): the widest interval among active contractors at least
MIN_NARROWER narrower with the plan than with random, and the plan leaving no active contractor without a usable
interval where random leaves some (nor more than random anywhere); checked in every seed, exit 1 if one fails.
The table also gives the widest half width the plan itself expects (Plan.after: analytics.plan.widths' model).

The simulated project (simulate, ROSTER): rubric answer_comparison, its primary dimension usefulness_comparison
(five ordered levels from the catalogue, target "comparison"), `tasks` tasks dated uniformly over DAYS days. Each
task has a true level (TRUTH_SHARES) and is rated by two or three contractors (half each) among those working
that day, drawn with chance in proportion to their volume weight. Contractors (ROSTER): heavy, regular and light
raters over the whole project, two who left six weeks before its end (inactive: needs.ACTIVE_DAYS), and three
newcomers who joined in the last two weeks; each gives the true level with their accuracy (uniform in
ACCURACY), else a neighbouring level. At 4,000 tasks a heavy rater rates some 1,450-1,500 of them, a regular one
600-700, a light one 170-250, a newcomer 70-100 (enough for the 30 shared tasks of a usable interval to be within
a plan's reach: a contractor with fewer tasks than that cannot be helped by any plan). Researchers r1 and r2 have labelled RESEARCHER_SHARE of the tasks at random
(each by one of them, DOUBLE_SHARE of those by both: researcher-researcher agreement), each giving the true level with
chance RESEARCHER_ACCURACY, else a neighbour; a researcher's label of a task is drawn once per seed, so the plan's
and random's copies get the same label wherever they label the same task.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analytics import store  # noqa: E402
from analytics.core.filters import Filters  # noqa: E402
from analytics.core.rubrics import get_rubric  # noqa: E402
from analytics.ingest.load import ingest_file  # noqa: E402
from analytics.plan import candidates as cd  # noqa: E402
from analytics.plan.needs import needs  # noqa: E402
from analytics.plan.propose import Plan, propose  # noqa: E402

RUBRIC = "answer_comparison"
DIMENSION = "usefulness_comparison"
RESEARCHERS = ("r1", "r2")
DAYS = 84  # twelve weeks
START = dt.datetime(2026, 1, 5, 8, 0)
TRUTH_SHARES = (0.10, 0.25, 0.30, 0.25, 0.10)  # of the five levels, "A much better" first
ACCURACY = (0.5, 0.9)  # a contractor's chance of giving the true level, uniform in this range
RESEARCHER_ACCURACY = 0.95
RESEARCHER_SHARE = 0.05  # tasks researchers labelled at random before the plan
DOUBLE_SHARE = 0.10  # of those, labelled by both researchers
MIN_NARROWER = 0.30  # the plan's widest active interval at least this much narrower than random's
NO_INTERVAL = 0.5  # the half width a contractor without any shared task counts at (widths.WidthModel.at(0))


@dataclass(frozen=True)
class Kind:
    """A kind of contractor: how many, their volume weight (a chance of being drawn for a task in proportion to it),
    and the days of the project they rated (from, to; a newcomer starts up to a week after first_day)."""

    name: str
    count: int
    weight: float
    first_day: int
    last_day: int


ROSTER = (
    Kind("heavy", 3, 8.0, 0, DAYS),
    Kind("regular", 6, 3.0, 0, DAYS),
    Kind("light", 4, 1.0, 0, DAYS),
    Kind("left", 2, 3.0, 0, DAYS - 42),
    Kind("new", 3, 4.0, DAYS - 14, DAYS),
)


@dataclass(frozen=True)
class Contractor:
    """One simulated contractor."""

    rater_id: str
    kind: str
    accuracy: float
    weight: float
    first_day: float
    last_day: float


@dataclass(frozen=True)
class Project:
    """A simulated project: its tasks (task_id, at, truth), the contractors' ratings and the researchers' labels
    (canonical rows), each researcher's label of every task (level indices, one column per researcher)."""

    tasks: pd.DataFrame
    contractors: tuple[Contractor, ...]
    rows: pd.DataFrame
    researcher_levels: np.ndarray
    end: dt.datetime


def levels() -> tuple[str, ...]:
    """The primary dimension's levels as the catalogue declares them."""
    rubric = get_rubric(RUBRIC)
    assert rubric is not None and rubric.primary == DIMENSION
    (dim,) = (d for d in rubric.dimensions if d.name == DIMENSION)
    assert dim.targets == ("comparison",)
    return tuple(dim.levels)


def labelled(truth: np.ndarray, accuracy: np.ndarray | float, rng: np.random.Generator) -> np.ndarray:
    """Labels of the true levels: the true level with chance `accuracy`, else a neighbouring level."""
    q = len(TRUTH_SHARES)
    right = rng.random(len(truth)) < accuracy
    step = np.where(rng.random(len(truth)) < 0.5, -1, 1)
    step = np.where(truth + step < 0, 1, np.where(truth + step >= q, -1, step))
    return np.where(right, truth, truth + step)


def roster(rng: np.random.Generator, kinds: tuple[Kind, ...] = ROSTER) -> tuple[Contractor, ...]:
    """The contractors of one project (a newcomer's first day drawn in the first week of their fortnight)."""
    out = []
    for kind in kinds:
        for i in range(kind.count):
            first = kind.first_day + (rng.uniform(0, 7) if kind.first_day > 0 else 0.0)
            out.append(
                Contractor(
                    f"{kind.name}{i + 1:02d}",
                    kind.name,
                    float(rng.uniform(*ACCURACY)),
                    kind.weight,
                    first,
                    kind.last_day,
                )
            )
    return tuple(out)


def rating_rows(task_ids: np.ndarray, raters: list[str], role: str, values: np.ndarray, at: pd.Series) -> pd.DataFrame:
    """Canonical rows of the primary dimension."""
    names = levels()
    return pd.DataFrame(
        {
            "task_id": task_ids,
            "rater_id": raters,
            "role": role,
            "rubric": RUBRIC,
            "dimension": DIMENSION,
            "target": "comparison",
            "value": [names[v] for v in values],
            "submitted_at": pd.to_datetime(at).dt.strftime("%Y-%m-%dT%H:%M:%S"),
        }
    )


def simulate(n_tasks: int, seed: int, kinds: tuple[Kind, ...] = ROSTER) -> Project:
    """One project of `n_tasks` tasks (module docstring)."""
    rng = np.random.default_rng(seed)
    people = roster(rng, kinds)
    day = np.sort(rng.uniform(0, DAYS, n_tasks))
    truth = rng.choice(len(TRUTH_SHARES), size=n_tasks, p=TRUTH_SHARES)
    task_ids = np.array([f"t{seed}-{i:05d}" for i in range(n_tasks)])
    at = pd.Series(pd.Timestamp(START) + pd.to_timedelta(day, unit="D"))
    weight = np.array([c.weight for c in people])
    first = np.array([c.first_day for c in people])
    last = np.array([c.last_day for c in people])
    accuracy = np.array([c.accuracy for c in people])
    who: list[int] = []
    which: list[int] = []
    for t in range(n_tasks):
        working = np.flatnonzero((first <= day[t]) & (day[t] < last))
        k = min(len(working), 2 + int(rng.random() < 0.5))
        p = weight[working] / weight[working].sum()
        for c in rng.choice(working, size=k, replace=False, p=p):
            who.append(int(c))
            which.append(t)
    rated = np.array(which)
    raters = np.array(who)
    minutes = pd.to_timedelta(rng.uniform(1, 240, len(rated)), unit="min")
    contractor = rating_rows(
        task_ids[rated],
        [people[c].rater_id for c in raters],
        "contractor",
        labelled(truth[rated], accuracy[raters], rng),
        at.iloc[rated].reset_index(drop=True) + minutes,
    )
    researcher_levels = np.column_stack([labelled(truth, RESEARCHER_ACCURACY, rng) for _ in RESEARCHERS])
    picked = rng.choice(n_tasks, size=round(n_tasks * RESEARCHER_SHARE), replace=False)
    both = rng.random(len(picked)) < DOUBLE_SHARE
    first_researcher = rng.integers(0, len(RESEARCHERS), len(picked))
    pairs = [(int(t), int(r)) for t, r in zip(picked, first_researcher, strict=True)]
    pairs += [(int(t), 1 - int(r)) for t, r, b in zip(picked, first_researcher, both, strict=True) if b]
    rt = np.array([t for t, _ in pairs], dtype=int)
    rr = np.array([r for _, r in pairs], dtype=int)
    researcher = rating_rows(
        task_ids[rt],
        [RESEARCHERS[r] for r in rr],
        "researcher",
        researcher_levels[rt, rr],
        at.iloc[rt].reset_index(drop=True) + pd.Timedelta(days=1),
    )
    tasks = pd.DataFrame({"task_id": task_ids, "at": at, "truth": truth})
    rows = pd.concat([contractor, researcher], ignore_index=True)
    end = (START + dt.timedelta(days=DAYS)).replace(microsecond=0)
    return Project(tasks, people, rows, researcher_levels, end)


def added_labels(project: Project, labels: list[tuple[str, str]]) -> pd.DataFrame:
    """Canonical rows of researcher labels (task_id, researcher) given after the project, each the researcher's
    label of the task."""
    index = {t: i for i, t in enumerate(project.tasks["task_id"])}
    rt = np.array([index[t] for t, _ in labels], dtype=int)
    rr = np.array([RESEARCHERS.index(r) for _, r in labels], dtype=int)
    at = pd.Series([project.end + dt.timedelta(days=1, minutes=i) for i in range(len(labels))])
    task_ids = project.tasks["task_id"].to_numpy()[rt]
    return rating_rows(task_ids, [r for _, r in labels], "researcher", project.researcher_levels[rt, rr], at)


def load(rows: pd.DataFrame, folder: Path, name: str) -> duckdb.DuckDBPyConnection:
    """A fresh in-memory store holding `rows`, loaded as one canonical CSV; RuntimeError when anything is
    quarantined."""
    path = folder / f"{name}.csv"
    rows.to_csv(path, index=False)
    con = store.open_store(":memory:")
    result = ingest_file(con, path)
    if result.status != "loaded" or result.rows_quarantined or result.rows_loaded != len(rows):
        con.close()
        raise RuntimeError(f"{name}: {result.status}, {result.rows_loaded:,} of {len(rows):,} rows, {result.errors}")
    return con


@dataclass(frozen=True)
class Measure:
    """The intervals of one store: the widest half width among active contractors (NO_INTERVAL without a shared
    task), the active contractors without a usable interval, and how many are active."""

    widest: float
    unusable: int
    active: int
    short: tuple[str, ...]


def measure(con: duckdb.DuckDBPyConnection) -> Measure:
    """The store's intervals as the dashboard computes them (needs.needs)."""
    rows = needs(con, Filters()).contractors
    rows = rows[rows["rubric"] == RUBRIC]
    active = rows[rows["active"].astype(bool)]
    width = active["half_width"].astype(float).fillna(NO_INTERVAL)
    short = active.loc[~active["usable"].astype(bool), "rater_id"]
    return Measure(float(width.max()), len(short), len(active), tuple(sorted(map(str, short))))


def expected_widest(plan: Plan) -> float:
    """The widest half width among active contractors the plan expects once its labels are done."""
    after = plan.after[plan.after["active"].astype(bool) & (plan.after["rubric"] == RUBRIC)]
    return float(after["half_width"].astype(float).fillna(NO_INTERVAL).max())


def plan_labels(plan: Plan) -> list[tuple[str, str]]:
    """The plan's labels as (task_id, researcher)."""
    return [(str(t), str(r)) for t, r in zip(plan.labels["task_id"], plan.labels["researcher"], strict=True)]


def random_labels(con: duckdb.DuckDBPyConnection, budget: int, seed: int) -> tuple[list[tuple[str, str]], int]:
    """`budget` labels by r1 on candidate tasks drawn uniformly at random, and how many candidates there were."""
    filters = Filters()
    found = cd.candidates(con, filters, needs(con, filters))
    ids = sorted(set(found["task_id"].astype(str)))
    rng = np.random.default_rng([seed, 52])
    drawn = rng.choice(len(ids), size=min(budget, len(ids)), replace=False)
    return [(ids[i], RESEARCHERS[0]) for i in sorted(drawn)], len(ids)


@dataclass(frozen=True)
class SeedResult:
    """One seed's figures."""

    seed: int
    tasks: int
    ratings: int
    candidates: int
    labels: int
    second_labels: int
    before: Measure
    plan: Measure
    random: Measure
    expected: float  # the widest active half width the plan expects (Plan.after)
    seconds: float

    @property
    def narrower(self) -> float:
        """How much narrower the plan's widest active interval is than random's (a share of random's)."""
        return 1 - self.plan.widest / self.random.widest

    @property
    def margins(self) -> dict[str, bool]:
        """The issue's margins in this seed."""
        usable = self.plan.unusable <= self.random.unusable and (self.random.unusable == 0 or self.plan.unusable == 0)
        return {"narrower": self.narrower >= MIN_NARROWER, "usable": usable}


def run_seed(seed: int, n_tasks: int, budget: int, folder: Path) -> SeedResult:
    """Simulate, plan, label both ways and measure (module docstring)."""
    started = time.perf_counter()
    project = simulate(n_tasks, seed)
    base = load(project.rows, folder, f"seed{seed}-base")
    try:
        before = measure(base)
        plan = propose(base, Filters(), budget, RESEARCHERS)
        chosen = plan_labels(plan)
        drawn, n_candidates = random_labels(base, len(chosen), seed)
    finally:
        base.close()
    after = {}
    for name, labels in (("plan", chosen), ("random", drawn)):
        rows = pd.concat([project.rows, added_labels(project, labels)], ignore_index=True)
        con = load(rows, folder, f"seed{seed}-{name}")
        try:
            after[name] = measure(con)
        finally:
            con.close()
    return SeedResult(
        seed,
        n_tasks,
        int((project.rows["role"] == "contractor").sum()),
        n_candidates,
        len(chosen),
        int(plan.labels["second_label"].sum()),
        before,
        after["plan"],
        after["random"],
        expected_widest(plan),
        time.perf_counter() - started,
    )


def table(results: list[SeedResult]) -> str:
    """The per-seed table (Markdown)."""
    head = (
        "| seed | candidates | labels (second) | widest before | widest plan (expected) | widest random | narrower "
        "| unusable before | unusable plan | unusable random | s |"
    )
    lines = [head, "|" + "---|" * 11]
    for r in results:
        lines.append(
            f"| {r.seed} | {r.candidates:,} | {r.labels} ({r.second_labels}) | {r.before.widest:.3f} "
            f"| {r.plan.widest:.3f} ({r.expected:.3f}) | {r.random.widest:.3f} | {r.narrower:.0%} | {r.before.unusable} of "
            f"{r.before.active} | {r.plan.unusable} | {r.random.unusable} | {r.seconds:.1f} |"
        )
    return "\n".join(lines)


def summary(results: list[SeedResult]) -> str:
    """Means over the seeds and the margins' verdict."""
    plan_w = np.mean([r.plan.widest for r in results])
    random_w = np.mean([r.random.widest for r in results])
    held = {k: sum(r.margins[k] for r in results) for k in ("narrower", "usable")}
    n = len(results)
    return (
        f"mean widest active half width: plan {plan_w:.3f}, random {random_w:.3f} ({1 - plan_w / random_w:.0%} "
        f"narrower); mean active contractors without a usable interval: plan "
        f"{np.mean([r.plan.unusable for r in results]):.1f}, random {np.mean([r.random.unusable for r in results]):.1f}\n"
        f"margins: widest at least {MIN_NARROWER:.0%} narrower in {held['narrower']} of {n} seeds; "
        f"no active contractor without a usable interval where random leaves some in {held['usable']} of {n} seeds"
    )


def figures(results: list[SeedResult], args: argparse.Namespace) -> dict:
    """The figures as JSON-ready data."""
    return {
        "settings": {"seeds": args.seeds, "tasks": args.tasks, "budget": args.budget},
        "machine": {"machine": platform.machine(), "python": platform.python_version()},
        "seeds": [
            {
                **{k: v for k, v in asdict(r).items() if k not in ("before", "plan", "random")},
                **{arm: asdict(getattr(r, arm)) for arm in ("before", "plan", "random")},
                "narrower": r.narrower,
                "margins": r.margins,
            }
            for r in results
        ],
        "held": all(all(r.margins.values()) for r in results),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the seeds, print the table and summary; 1 when a margin fails."""
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--tasks", type=int, default=4000, help="tasks in the simulated project")
    p.add_argument("--budget", type=int, default=150, help="labels the plan proposes (and random draws)")
    p.add_argument("--json", type=Path, default=None, metavar="PATH", help="write the figures here")
    p.add_argument("--verbose", action="store_true", help="name the contractors left without a usable interval")
    args = p.parse_args(argv)
    print(f"{platform.machine()}, Python {platform.python_version()}; {args.tasks:,} tasks, budget {args.budget}")
    results = []
    with tempfile.TemporaryDirectory(prefix="bench_plan_") as tmp:
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            r = run_seed(seed, args.tasks, args.budget, Path(tmp))
            results.append(r)
            if args.verbose:
                print(f"seed {seed}: short before {r.before.short}, plan {r.plan.short}, random {r.random.short}")
    print(table(results))
    print(summary(results))
    if args.json:
        args.json.write_text(json.dumps(figures(results, args), indent=2) + "\n")
    return 0 if all(all(r.margins.values()) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
