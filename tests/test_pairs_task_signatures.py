"""Task signatures of the one pairing query (analytics/agreement/pairs.py): tasks of one, two, three and four units
(a task's one or two items are grouped by min and max, more as a sorted list) give, at every grain, packed or not,
exactly the confusion counts and tasks of the pairs formed one by one in Python."""

from __future__ import annotations

import io
import itertools
from collections import Counter, defaultdict
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from analytics import store
from analytics.agreement import pairs as pr
from analytics.filters import Filters
from analytics.ingest.load import ingest_bytes

LEVELS = ["1", "2", "3"]
TARGETS = ["1", "2", "3", "4"]


def _rows(seed: int) -> list[tuple]:
    """Ratings of a dimension with up to four targets per task (task t has 1 + t % 4), by contractors and researchers
    who each skip some tasks, and of a one-target dimension."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(24):
        for rater, role in (
            ("c1", "contractor"),
            ("c2", "contractor"),
            ("c3", "contractor"),
            ("r1", "researcher"),
            ("r2", "researcher"),
        ):
            if rng.random() < 0.25:
                continue
            day = f"2026-03-{1 + t % 20:02d}"
            rows.append((f"t{t}", "", rater, role, "overall", str(rng.choice(LEVELS)), day))
            for target in TARGETS[: 1 + t % 4]:
                rows.append((f"t{t}", target, rater, role, "quality", str(rng.choice(LEVELS)), day))
    return rows


def _store(seed: int):
    """An in-memory store of `_rows(seed)` on rubric 'study'."""
    cols = ["task_id", "target", "rater_id", "role", "dimension", "value", "submitted_at"]
    buf = io.StringIO()
    pd.DataFrame(_rows(seed), columns=cols).assign(rubric="study").to_csv(buf, index=False)
    con = store.open_store(":memory:")
    assert ingest_bytes(con, buf.getvalue().encode(), "study.csv").status == "loaded"
    return con


def _by_hand(rows: list[tuple], comparison: str, grain: str) -> dict[tuple, tuple[Counter, int, int]]:
    """Per group: a Counter of (task, subject level, reference level) pairs, the tasks and the units with a pair."""
    units = defaultdict(list)
    for task, target, rater, role, dim, value, _ in rows:
        units[(task, dim, target)].append((rater, role, LEVELS.index(value)))
    out: dict[tuple, list] = defaultdict(lambda: [Counter(), set(), set()])
    for (task, dim, target), ratings in units.items():
        for (ra, role_a, a), (rb, role_b, b) in itertools.permutations(ratings, 2):
            if comparison == "contractor_vs_researcher" and (role_a, role_b) != ("contractor", "researcher"):
                continue
            if comparison == "rater_pairs" and not ra < rb:  # each pair of raters once
                continue
            key = {"rater": (ra, "study", dim), "dimension": ("study", dim), "rater_pair": (ra, rb, "study", dim)}[
                grain
            ]
            out[key][0][(task, a, b)] += 1
            out[key][1].add(task)
            out[key][2].add((task, target))
    return {k: (c, len(t), len(u)) for k, (c, t, u) in out.items()}


@pytest.mark.parametrize("seed", [1])
@pytest.mark.parametrize("comparison", ["contractor_vs_researcher", "all_raters", "rater_pairs"])
@pytest.mark.parametrize("grain", ["rater", "dimension", "rater_pair"])
@pytest.mark.parametrize("packed", [True, False])
def test_signatures_equal_pairs_formed_by_hand(seed, comparison, grain, packed):
    con = _store(seed)
    width, multi = pr.scale_width(con), pr.multi_target(con)
    sides = (
        pr.rater_pair_sides(Filters()) if comparison == "rater_pairs" else pr.comparison_sides(Filters(), comparison)
    )
    q = len(LEVELS)
    got = pr.signatures(pr.pair_query(sides, grain, width, multi, packed).df(con), grain, width, lambda _k: q)
    with mock.patch.object(pr, "_reads_reference_pairs", return_value=False):  # the same, paired from the ratings
        direct = pr.pair_query(sides, grain, width, multi, packed)
    assert pr.signatures(direct.df(con), grain, width, lambda _k: q).keys() == got.keys()
    want = _by_hand(_rows(seed), comparison, grain)
    assert got.keys() == want.keys()
    assert any(n_units > n_tasks for _, n_tasks, n_units in want.values())  # tasks of several units are there
    for key, (pairs, n_tasks, n_units) in want.items():
        table = np.zeros((q, q))
        for (_, a, b), n in pairs.items():
            table[a, b] += n
        assert got[key].tasks == n_tasks and got[key].n_units == n_units, key
        assert np.array_equal(got[key].table(q), table), key
        # each task's own cells: the signatures hold the tasks' vectors, not only their sum
        per_task = Counter()
        for (task, a, b), n in pairs.items():
            per_task[task, a * q + b] += n
        vectors = Counter()
        for task in {t for t, _ in per_task}:
            vectors[tuple(per_task[task, c] for c in range(q * q))] += 1
        have = Counter(
            {tuple(int(x) for x in cells): int(n) for cells, n in zip(got[key].cells, got[key].n_tasks, strict=True)}
        )
        assert have == vectors, key
