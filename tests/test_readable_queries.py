"""Every optimised plan of the pairing and of the multi-rater task patterns carries a readable query beside it (the
page's SQL panel shows both, ui/query_log.py); here both run on the demo and give the same figures: the readable
pairing (analytics/agreement/pair_plans.readable_pair_query) decodes to the plan's very task signatures, or to its
summed tables, and the value lists (analytics/agreement/counts.task_patterns_query without packing) hold the packed
patterns' tasks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analytics.agreement import counts as ct
from analytics.agreement import sides as sd
from analytics.agreement import signatures as sg
from analytics.core.filters import Filters
from analytics.core.queries import Query
from tests.signatures import assert_same_signatures
from tests.test_pairs_task_signatures import _tasks_of
from tests.test_reference_pairs import _q_of

# Every sides and grain the pages pair at: each comparison per rater and per dimension, pairs of raters (all, and
# contractors with researchers), the pooled researchers and the researcher ceiling.
SIDES = {
    **{
        f"{c} by {g}": (lambda f, c=c: sd.comparison_sides(f, c), g)
        for c in sd.COMPARISON_ROLES
        for g in ("rater", "dimension")
    },
    "rater pairs": (sd.rater_pair_sides, "rater_pair"),
    "contractor-researcher rater pairs": (lambda f: sd.rater_pair_sides(f, "contractor_vs_researcher"), "rater_pair"),
    "pooled researchers by dimension": (sd.pooled_sides, "dimension"),
    "researcher ceiling by dimension": (sd.ceiling_sides, "dimension"),
}


@pytest.mark.parametrize("case", list(SIDES))
def test_the_readable_pairing_gives_the_plans_figures(demo, case):
    """Per task (what intervals resample) and summed in SQL (point estimates): one readable query, both plans."""
    make, grain = SIDES[case]
    sides, q_of = make(Filters()), _q_of(demo)
    readable = None
    for summed in (False, True):
        log: list = []
        got = sg.pair_signatures(demo, sides, grain, q_of, log, summed=summed)
        plan = log[-1]
        assert isinstance(plan.readable, Query) and plan.readable.sql != plan.sql
        assert "$bits" not in plan.readable.sql and "by_list" not in plan.readable.sql  # no codec, no task lists
        if readable is None:
            readable = sg.signatures(plan.readable.df(demo), grain, plan.readable.params["width"], q_of)
        assert got and got.keys() == readable.keys()
        if not any(sig.summed for sig in got.values()):
            assert_same_signatures(got, readable)
        for key, sig in readable.items():  # summed or not: the same tables, tasks and units
            q = math.isqrt(sig.cells.shape[1])
            assert np.array_equal(got[key].table(q), sig.table(q)), (summed, key)
            assert (got[key].tasks, got[key].n_units) == (sig.tasks, sig.n_units), (summed, key)


@pytest.mark.parametrize("role", [None, "contractor"])
def test_the_value_lists_give_the_packed_task_patterns(demo, role):
    q_of, log = _q_of(demo), []
    packed = ct.task_patterns_for(demo, ct.dimension_filter(Filters(), role), q_of, log)
    plan = log[-1]
    assert "$bits" in plan.sql or "bits" in plan.params
    assert plan.readable is not None and "bits" not in plan.readable.params
    listed = ct.task_patterns(plan.readable.df(demo), q_of)
    assert packed and _tasks_of(packed) == _tasks_of(listed)
