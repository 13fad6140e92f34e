"""The plan's choice (docs/plan.md): tasks taken greedily by what one more researcher label of each is expected to
do, recomputed lazily (a task's value only falls as others are taken: Minoux 1978's accelerated greedy), then
labels spread over the researchers, a share of them second labels for researcher-researcher agreement.

A task's value is three numbers, compared in order:
  1. reach: how many active contractors without a usable interval (fewer than USABLE_TASKS shared tasks) it brings
     one task closer (unweighted: a recent task helping one such contractor never beats an older one helping two);
  2. the same reach times the task's weight, which orders tasks of equal reach;
  3. narrowing: the fall of the sum of its active contractors' squared expected half widths (widths.py; a square
     weighs the widest intervals most), plus COVERAGE for each dimension with fewer than USABLE_TASKS shared tasks it
     covers (a contractor who stopped rating is shown, not aimed at: a lead no longer gives them feedback);
times the task's weight (recency and disagreement: candidates.py).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from analytics.core.formatting import plus_minus
from analytics.plan import widths
from analytics.plan.needs import CEILING_TASKS, USABLE_TASKS, Needs

OVERLAP_SHARE = 0.10  # at most this share of the labels are second labels (researcher-researcher agreement)
DISAGREEING = 1 / 3  # a task whose contractors' disagreement is at least this says so in its reason
# A thin dimension's task counts as much as narrowing a contractor at p = 0.5 from USABLE_TASKS - 1 to USABLE_TASKS
# tasks: coverage of every dimension is kept, after the contractors' needs.
COVERAGE = widths.half_width(0.5, USABLE_TASKS - 1) ** 2 - widths.half_width(0.5, USABLE_TASKS) ** 2
PLAN_COLUMNS = ("priority", "task_id", "rubric", "researcher", "reason", "contractors", "expected_gain", "second_label")


@dataclass
class State:
    """The shared tasks each contractor (rater_id, rubric) and thin dimension would have with the plan so far, with
    who is active, each contractor's width model, and what one more shared task is worth to each contractor now
    (kept per contractor and refreshed only when their count changes: a task's value then costs a few lookups,
    not two Wilson intervals per contractor, which took 47 s for 50,000 labels at 100k tasks)."""

    needs: Needs
    n: dict[tuple[str, str], int] = field(init=False)
    thin: dict[tuple[str, str], int] = field(init=False)
    active: dict[tuple[str, str], bool] = field(init=False)
    models: dict[tuple[str, str], widths.WidthModel] = field(init=False)
    _narrowing: dict[tuple[str, str], float] = field(init=False)
    _gain: dict[tuple[str, str], float] = field(init=False)

    def __post_init__(self) -> None:
        """The counts, activity and models of the needs' contractors before any label of the plan."""
        rows = self.needs.contractors
        self.n = {
            (str(r), str(b)): int(n) for r, b, n in zip(rows["rater_id"], rows["rubric"], rows["n_tasks"], strict=True)
        }
        self.thin = dict(self.needs.thin)
        self.active = {
            (str(r), str(b)): bool(a) for r, b, a in zip(rows["rater_id"], rows["rubric"], rows["active"], strict=True)
        }
        self.models = {key: self.needs.model(*key) for key in self.n}
        self._narrowing, self._gain = {}, {}
        for key in self.n:
            self._refresh(key)

    def _refresh(self, key: tuple[str, str]) -> None:
        """What one more shared task is worth to the contractor at their count now."""
        m, n = self.models[key], self.n[key]
        now, then = m.at(n), m.at(n + 1)
        self._gain[key] = now - then
        self._narrowing[key] = now**2 - then**2 if self.active[key] else 0.0

    def short(self, key: tuple[str, str]) -> bool:
        """Whether an active contractor still lacks a usable interval."""
        return self.active.get(key, False) and self.n.get(key, 0) < USABLE_TASKS

    def narrowing(self, key: tuple[str, str]) -> float:
        """The fall of an active contractor's squared expected half width from one more shared task (0 for others)."""
        return self._narrowing.get(key, 0.0)

    def gain(self, key: tuple[str, str]) -> float:
        """The fall of the contractor's expected half width from one more shared task (the plan's expected_gain)."""
        return self._gain.get(key, 0.0)

    def value(
        self, contractors: Sequence[str], rubric: str, thin: Sequence[str], weight: float
    ) -> tuple[float, float, float]:
        """The task's value now (module docstring)."""
        reach, narrowing = 0, 0.0
        for c in contractors:
            key = (c, rubric)
            reach += self.short(key)
            narrowing += self._narrowing.get(key, 0.0)
        covered = sum(self.thin.get((rubric, d), USABLE_TASKS) < USABLE_TASKS for d in thin)
        return reach, reach * weight, (narrowing + COVERAGE * covered) * weight

    def take(self, contractors: Sequence[str], rubric: str, thin: Sequence[str]) -> None:
        """Count one more shared task for the task's contractors and thin dimensions."""
        for c in contractors:
            key = (c, rubric)
            if key in self.n:
                self.n[key] += 1
                self._refresh(key)
        for d in thin:
            if (rubric, d) in self.thin:
                self.thin[(rubric, d)] += 1


def reason(state: State, contractors: Sequence[str], rubric: str, thin: Sequence[str], disagreement: float) -> str:
    """Why a task is in the plan, in words, from the state before it is taken."""
    keys = [(c, rubric) for c in contractors]
    parts = []
    short = sorted((state.n[k], k[0]) for k in keys if state.short(k))
    if short:
        n, who = short[0]
        more = f" (and {len(short) - 1} more without a usable interval)" if len(short) > 1 else ""
        parts.append(f"{who} has {n} of the {USABLE_TASKS} tasks shared with researchers a usable interval needs{more}")
    thin_now = [(state.thin[(rubric, d)], d) for d in thin if state.thin.get((rubric, d), USABLE_TASKS) < USABLE_TASKS]
    if thin_now:
        n, d = min(thin_now)
        parts.append(f"dimension {d} has {n} of {USABLE_TASKS} shared tasks")
    if not parts:
        best = max((k for k in keys if state.active.get(k)), key=state.gain, default=None)
        if best is not None and best in state.models:
            now = state.models[best].at(state.n[best])
            parts.append(f"narrows {best[0]}'s interval (now {plus_minus(now)})")
        else:
            parts.append("its contractors are no longer active: a label here serves their past figures only")
    if disagreement >= DISAGREEING:
        parts.append(f"its contractors disagree ({1 - disagreement:.0%} agreement among them)")
    return "; ".join(parts)


def overlap_labels(needs: Needs, budget: int, researchers: Sequence[str]) -> dict[str, int]:
    """Second labels per rubric for researcher-researcher agreement (the JSON's `ceiling`): none without two named researchers; else what each
    rubric lacks of CEILING_TASKS tasks with two researchers, at most OVERLAP_SHARE of the budget in all (given once
    no task brings an active contractor closer to a usable interval: `choose`)."""
    if len(researchers) < 2:
        return {}
    room = math.floor(budget * OVERLAP_SHARE)
    out = {}
    for rubric in sorted(needs.primary):
        lack = max(0, CEILING_TASKS - needs.ceiling.get(rubric, 0))
        take = min(lack, room)
        if take:
            out[rubric] = take
            room -= take
    return out


def choose(needs: Needs, tasks: pd.DataFrame, budget: int, researchers: Sequence[str]) -> pd.DataFrame:
    """The plan's labels (PLAN_COLUMNS), at most `budget`, in priority order."""
    state = State(needs)
    second = overlap_labels(needs, budget, researchers)
    records = list(
        zip(
            tasks["task_id"],
            tasks["rubric"],
            tasks["contractors"],
            tasks["thin"],
            tasks["weight"],
            tasks["disagreement"],
            strict=True,
        )
    )
    heap = [(*_negated(state.value(c, r, th, w)), i) for i, (_, r, c, th, w, _) in enumerate(records)]
    heapq.heapify(heap)
    chosen: list[dict] = []
    labels = 0
    given: dict[str, int] = {}  # second labels planned so far per rubric
    while heap and labels < budget:
        i = heapq.heappop(heap)[-1]
        task_id, rubric, contractors, thin, weight, disagreement = records[i]
        key = _negated(state.value(contractors, rubric, thin, weight))
        if heap and key > heap[0][:3]:  # a stale value: another task may be worth more now
            heapq.heappush(heap, (*key, i))
            continue
        gain = sum(state.gain((c, rubric)) for c in contractors)
        words = reason(state, contractors, rubric, thin, float(disagreement))
        state.take(contractors, rubric, thin)
        chosen.append(_row(task_id, rubric, words, contractors, gain, False))
        labels += 1
        # Second labels come after every reachable contractor's usable interval (the aims' order): once the best
        # task left reaches nobody, no task does.
        if given.get(rubric, 0) < second.get(rubric, 0) and labels < budget and key[0] == 0:
            have = needs.ceiling.get(rubric, 0) + given.get(rubric, 0)
            given[rubric] = given.get(rubric, 0) + 1
            words = (
                f"second researcher, for researcher-researcher agreement: {rubric} has {have} of the {CEILING_TASKS} "
                "tasks two researchers labelled that a usable figure needs"
            )
            chosen.append(_row(task_id, rubric, words, contractors, 0.0, True))
            labels += 1
    return _assigned(pd.DataFrame(chosen, columns=list(PLAN_COLUMNS)), researchers)


def _negated(value: tuple[float, float, float]) -> tuple[float, float, float]:
    """A value as a heap key (heapq pops the smallest)."""
    return -value[0], -value[1], -value[2]


def _row(task_id: str, rubric: str, words: str, contractors: Sequence[str], gain: float, second: bool) -> dict:
    """One label of the plan (priority filled in later)."""
    return {
        "priority": 0,
        "task_id": str(task_id),
        "rubric": str(rubric),
        "researcher": None,
        "reason": words,
        "contractors": list(contractors),
        "expected_gain": round(float(gain), 6),
        "second_label": second,
    }


def _assigned(rows: pd.DataFrame, researchers: Sequence[str]) -> pd.DataFrame:
    """The labels spread over the researchers, the least loaded first (a second label to another researcher than
    the first); priorities numbered in plan order (a task's two labels share one)."""
    priority, load = 0, dict.fromkeys(researchers, 0)
    first: str | None = None
    names: list[str | None] = []
    order: list[int] = []
    for second in rows["second_label"]:
        if not second:
            priority += 1
        order.append(priority)
        if not researchers:
            names.append(None)
            continue
        pool = [r for r in researchers if not (second and r == first)]
        pick = min(pool, key=lambda r: (load[r], researchers.index(r)))
        load[pick] += 1
        names.append(pick)
        if not second:
            first = pick
    return rows.assign(priority=order, researcher=pd.Series(names, index=rows.index, dtype=object))
