"""The rater x rater matrix of one comparison (pairwise_matrix(comparison=...): a pairing of that comparison's two
roles only) equals the matrix of every rater pair cut to the comparison (ui.agreement_view.pairs_for), on the demo:
each comparison, dimensions of one, two and four targets, with and without dates and a rater filter."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable

import pandas as pd
import pytest

from analytics import agreement
from analytics.core.filters import Filters
from ui.agreement_view import COMPARISON_LABELS, pairs_for

COLUMNS = ["n", "n_tasks", "percent_agreement", "coarse_agreement", "cohen_kappa", "weighted_kappa", "small_n"]


def _dimensions(con) -> list[tuple[str, str, int]]:
    """Per rubric, its dimension with the most targets and its primary one, with their number of targets."""
    rows = con.execute(
        """SELECT rubric, dimension, count(DISTINCT target) AS targets, any_value(d.is_primary) AS is_primary
           FROM ratings JOIN dimensions d USING (rubric, dimension) WHERE value_index IS NOT NULL GROUP BY ALL"""
    ).df()
    out = set()
    for _, g in rows.groupby("rubric"):
        out.add(tuple(g.sort_values("targets").iloc[-1][["rubric", "dimension", "targets"]]))
        out |= {tuple(r) for r in g[g["is_primary"]][["rubric", "dimension", "targets"]].itertuples(index=False)}
    return sorted(out)


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["rater_a", "rater_b"]).reset_index(drop=True)[["rater_a", "rater_b", *COLUMNS]]


@pytest.fixture(scope="module")
def every_pair(demo) -> Callable[[str, str, Filters], pd.DataFrame]:
    """The matrix of every rater pair of a dimension under filters, computed once for all the comparisons."""

    @functools.cache
    def matrix(rubric: str, dimension: str, filters: Filters) -> pd.DataFrame:
        spec = agreement.AgreementSpec(comparison="all_raters", filters=filters)
        return agreement.pairwise_matrix(demo, spec, rubric, dimension)

    return matrix


@pytest.mark.parametrize("comparison", list(COMPARISON_LABELS))
def test_a_comparisons_matrix_is_every_pairs_matrix_cut_to_it(demo, every_pair, comparison):
    dims = _dimensions(demo)
    assert {t for *_, t in dims} >= {1, 2, 4}, dims  # one, two and four targets (instruction following's outputs)
    first, last = demo.execute("SELECT min(submitted_at)::DATE, max(submitted_at)::DATE FROM ratings").fetchone()
    middle = first + dt.timedelta(days=(last - first).days // 2)
    compared = 0
    for rubric, dimension, _ in dims:
        for f in (Filters(), Filters(date_from=middle), Filters(raters=("c03", "r01"), date_to=middle)):
            every = pairs_for(every_pair(rubric, dimension, f), comparison)
            got = pairs_for(
                agreement.pairwise_matrix(
                    demo, agreement.AgreementSpec(comparison=comparison, filters=f), rubric, dimension
                ),
                comparison,
            )
            pd.testing.assert_frame_equal(_sorted(got), _sorted(every), check_dtype=False, atol=1e-12)
            compared += len(got)
    assert compared > 0
