"""A labelling plan under one filter: what it aims at now (`before`), the labels it proposes, and each contractor's
expected interval once they are done (`after_expected`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics.core.filters import Filters
from analytics.core.queries import Query, recording
from analytics.plan import candidates as cd
from analytics.plan import choose as ch
from analytics.plan.needs import BEFORE_COLUMNS, Needs, needs, usable

# Labels one plan may ask for: a plan is what researchers label next, and the greedy choice's time grows faster
# than its labels (at 100k tasks: 1.9 s for 10,000 labels, 19 s for 50,000; bench/RESULTS.md).
MAX_BUDGET = 10_000


@dataclass(frozen=True)
class Plan:
    """A proposal: its labels (choose.PLAN_COLUMNS), the contractors' intervals now and expected after, how many
    tasks were candidates, and the queries behind it."""

    labels: pd.DataFrame
    before: pd.DataFrame  # needs.BEFORE_COLUMNS
    after: pd.DataFrame  # needs.BEFORE_COLUMNS, expected once the plan's labels are done
    budget: int
    researchers: tuple[str, ...]
    n_candidates: int
    queries: tuple[Query, ...]


NO_INTERVAL = 0.5  # the half width a contractor without a shared task counts as: the interval [0, 1]


@dataclass(frozen=True)
class Summary:
    """A plan's headline: active contractors without a usable interval and the widest active interval's half
    width, now and expected after (a contractor without an interval counts as NO_INTERVAL; NaN without active
    contractors)."""

    short_now: int
    short_after: int
    widest_now: float
    widest_after: float

    def short_change(self) -> int | None:
        """The expected change of the contractors without a usable interval (None: no change)."""
        return (self.short_after - self.short_now) or None

    def widest_change(self) -> float | None:
        """The expected change of the widest half width, to two decimals (None: none, or no interval)."""
        change = round(self.widest_after - self.widest_now, 2)
        return None if math.isnan(change) or change == 0 else change


def summary(plan: Plan) -> Summary:
    """The plan's headline figures (the page's metrics, the benchmark's margins)."""
    now, after = plan.before[plan.before["active"]], plan.after[plan.after["active"]]
    return Summary(
        int((~now["usable"]).sum()),
        int((~after["usable"]).sum()),
        float(now["half_width"].fillna(NO_INTERVAL).max()) if len(now) else math.nan,
        float(after["half_width"].fillna(NO_INTERVAL).max()) if len(after) else math.nan,
    )


def side_by_side(plan: Plan) -> pd.DataFrame:
    """Each contractor's row now with their shared tasks, half width and usability expected after (`_after`)."""
    keys = ["rater_id", "rubric"]
    return plan.before.merge(
        plan.after[[*keys, "n_tasks", "half_width", "usable"]], on=keys, how="left", suffixes=("", "_after")
    )


def check_budget(budget: int) -> int:
    """The budget as an int; ValueError when it is not between 1 and MAX_BUDGET labels."""
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
        raise ValueError(f"the budget is a number of labels from 1 to {MAX_BUDGET:,}, not {budget!r}")
    return budget


def propose(con: duckdb.DuckDBPyConnection, filters: Filters, budget: int, researchers: Sequence[str] = ()) -> Plan:
    """The plan of at most `budget` labels under `filters`, spread over `researchers` (docs/plan.md)."""
    budget = check_budget(budget)
    names = tuple(dict.fromkeys(str(r).strip() for r in researchers if str(r).strip()))
    with recording() as ran:
        aims = needs(con, filters)
        found = cd.candidates(con, filters, aims)
    labels = ch.choose(aims, found, budget, names)
    before = aims.contractors[list(BEFORE_COLUMNS)].reset_index(drop=True)
    return Plan(labels, before, expected(aims, labels), budget, names, len(found), tuple(ran))


def expected(aims: Needs, labels: pd.DataFrame) -> pd.DataFrame:
    """Each contractor's shared tasks and expected half width once the plan's first labels are done (a second
    label of a task adds no task)."""
    added: Counter[tuple[str, str]] = Counter()
    for contractors, rubric, second in zip(
        labels["contractors"], labels["rubric"], labels["second_label"], strict=True
    ):
        if not second:
            added.update((c, rubric) for c in contractors)
    rows = aims.contractors
    out = rows[list(BEFORE_COLUMNS)].reset_index(drop=True).copy()
    n_after, widths = [], []
    for rater, rubric, n, width in zip(
        rows["rater_id"], rows["rubric"], rows["n_tasks"], rows["half_width"], strict=True
    ):
        k = added[(rater, rubric)]
        n_after.append(int(n) + k)
        widths.append(width if k == 0 else aims.model(rater, rubric).shown_at(int(n) + k))
    out["n_tasks"] = n_after
    out["half_width"] = pd.Series(widths, dtype=float)
    out["usable"] = usable(out["half_width"], out["n_tasks"])
    return out
