"""rater_agreement's `stats` (issue 50 item 9: the Raters page asks only for exact agreement beside its model):
the coefficients asked for are those of the whole table, to the last bit; the others are left empty."""

from __future__ import annotations

import math

import pandas as pd

from analytics import agreement as ag
from analytics.core.filters import Filters
from analytics.model.raters import BESIDE_STATS, raters_view


def test_the_coefficients_asked_for_equal_the_whole_tables(demo):
    spec = ag.AgreementSpec(comparison="contractor_vs_researcher", filters=Filters(rubric="answer_comparison"))
    full = ag.rater_agreement(demo, spec)
    some = ag.rater_agreement(demo, spec, stats=BESIDE_STATS)
    shown = ["rater_id", "dimension", "n", "n_tasks", *[f"exact_agreement{s}" for s in ("", "_ci_low", "_ci_high")]]
    assert len(full) > 100 and list(some.columns) == list(full.columns)
    pd.testing.assert_frame_equal(some[shown], full[shown], check_exact=True)
    assert full["exact_agreement_ci_low"].notna().any()
    assert some["cohen_kappa"].isna().all() and full["cohen_kappa"].notna().any()


def test_the_raters_view_shows_the_whole_tables_exact_agreement(demo):
    view = raters_view(demo, Filters(), "article_likert")
    spec = ag.AgreementSpec(comparison="contractor_vs_researcher", filters=Filters(rubric="article_likert"))
    full = ag.rater_agreement(demo, spec).set_index(["rater_id", "dimension"])
    shared = view.beside[view.beside["n_shared"] > 0]
    assert len(shared) > 0
    for r in shared.itertuples():
        row = full.loc[(r.rater_id, r.dimension)]
        assert (r.exact_agreement, r.n_shared) == (row["exact_agreement"], row["n_tasks"])
        low, expected = r.exact_agreement_ci_low, row["exact_agreement_ci_low"]
        assert low == expected or (math.isnan(low) and math.isnan(expected))
