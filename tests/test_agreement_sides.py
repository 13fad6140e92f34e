"""The filter rules of the pairing, each kept once (analytics/agreement/sides.py), and the comparison roles, defined
once and read by the Agreement page's labels and its rater x rater matrix."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics import agreement
from analytics.agreement import sides as sd
from analytics.core.filters import Filters
from ui import agreement_view as view

SELECTED = Filters(rubric="r", dimensions=("d",), raters=("c1",), roles=("contractor",), date_from="2025-01-01")


def test_the_team_ignores_the_rater_filter_and_nothing_else():
    assert sd.team_filters(SELECTED) == SELECTED.but(raters=())
    assert sd.team_filters(Filters()) == Filters()
    assert sd.narrows_team(SELECTED) and not sd.narrows_team(SELECTED.but(raters=()))


def test_the_pooled_and_rater_pair_sides_read_the_team():
    assert sd.pooled_sides(SELECTED) == sd.pooled_sides(SELECTED.but(raters=()))
    for comparison in (None, "among_contractors", "contractor_vs_researcher"):
        assert sd.rater_pair_sides(SELECTED, comparison) == sd.rater_pair_sides(SELECTED.but(raters=()), comparison)
    assert sd.pooled_sides(SELECTED).subject.raters == ()


def test_the_ceiling_spans_all_dates_and_raters():
    scope = sd.ceiling_scope(SELECTED)
    assert scope == Filters(rubric="r", dimensions=("d",))
    assert sd.ceiling_sides(SELECTED) == sd.ceiling_sides(scope)


def test_the_rows_shown_are_the_selected_raters_and_pairs_with_one():
    team = pd.DataFrame({"rater_id": ["c1", "c2", "c3"], "x": [1, 2, 3]})
    pairs = pd.DataFrame({"rater_a": ["c1", "c2", "c2"], "rater_b": ["c2", "c3", "c1"]})
    assert sd.shown_rows(team, Filters()) is team
    assert sd.shown_rows(team, Filters(raters=("c2",)))["rater_id"].tolist() == ["c2"]
    shown = sd.shown_rows(pairs, Filters(raters=("c1",)), ("rater_a", "rater_b"))
    assert shown.values.tolist() == [["c1", "c2"], ["c2", "c1"]] and shown.index.tolist() == [0, 1]
    assert sd.shows(Filters(), "anyone") and sd.shows(Filters(raters=("c1",)), "c1")
    assert not sd.shows(Filters(raters=("c1",)), "c2")


def test_an_unknown_comparison_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="comparison must be one of contractor_vs_researcher, among_contractors"):
        sd.comparison_sides(Filters(), "contractors")


def test_the_comparison_roles_are_defined_once():
    assert agreement.COMPARISON_ROLES is sd.COMPARISON_ROLES
    assert set(view.COMPARISON_LABELS) <= set(sd.COMPARISON_ROLES)
    assert set(view.SIDES) == set(view.COMPARISON_LABELS)
    for comparison, roles in sd.COMPARISON_ROLES.items():
        sides = sd.comparison_sides(Filters(), comparison)
        assert (sides.subject.roles, sides.reference.roles) == (
            ((), ()) if roles is None else tuple((r,) for r in roles)
        )


@pytest.mark.parametrize("comparison", list(view.COMPARISON_LABELS))
def test_the_matrix_keeps_the_pairs_of_the_comparisons_roles(comparison):
    roles = ("contractor", "researcher")
    pm = pd.DataFrame([(a, b, f"{a}-{b}") for a in roles for b in roles], columns=["role_a", "role_b", "pair"])
    subject, reference = sd.COMPARISON_ROLES[comparison] or ("", "")
    assert view.pairs_for(pm, comparison)["pair"].tolist() == [f"{subject}-{reference}"]
