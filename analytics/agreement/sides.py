"""Who is compared with whom: every filter rule of the one pairing, as the two sides of a comparison.

A unit is (task_id, rubric, dimension, target). A pair is two ratings of the same unit by different raters:
a subject rating (the rater whose figure is computed) and a reference rating (who they are compared with).
A unit with two researcher labels gives a contractor two pairs (every label kept, no majority of two).

Filter rules (written once, here; docs/agreement.md repeats them):
- rubric and dimension restrict everything;
- dates select subject ratings by when they were submitted; reference labels count whatever their date, so
  a date range never removes the researcher labels a contractor is compared with;
- the rater filter chooses whose figures are shown; it never changes who counts as the team (pooled figures,
  team median: `team_filters`), the reference side or the researcher ceiling (`ceiling_scope`);
- the role filter is replaced by the comparison's roles (COMPARISON_ROLES);
- symmetric sets (the researcher ceiling, rater x rater pairs) count each unordered pair of raters once
  (rater_a < rater_b). The ceiling describes how hard the rubric is and spans all dates; rater x rater pairs
  take both ratings from the date range.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analytics.core.filters import Filters
from analytics.store.derived import reference_pairs as rp

# Each comparison's (subject role, reference role); None: every rater against every other, whatever the role.
COMPARISON_ROLES: dict[str, tuple[str, str] | None] = {
    "contractor_vs_researcher": ("contractor", "researcher"),
    "among_contractors": ("contractor", "contractor"),
    "researcher_vs_researcher": ("researcher", "researcher"),
    "all_raters": None,
}


@dataclass(frozen=True)
class Sides:
    """Which ratings are subjects, which are references, and whether pairs are unordered (a < b)."""

    name: str
    subject: Filters
    reference: Filters
    symmetric: bool = False


def _roles(role: str | None) -> tuple[str, ...]:
    return () if role is None else (role,)


def check_comparison(comparison: str) -> None:
    """Refuse a comparison that is none of COMPARISON_ROLES (a ValueError naming them)."""
    if comparison not in COMPARISON_ROLES:
        raise ValueError(f"comparison must be one of {', '.join(COMPARISON_ROLES)}, not {comparison!r}")


def team_filters(filters: Filters) -> Filters:
    """The filter of the team a rater is read against (pooled figures, team medians, rater pairs): the rater filter
    chooses whose figures are shown, never who counts as the team."""
    return filters.but(raters=())


def narrows_team(filters: Filters) -> bool:
    """Whether the rater filter shows only some of the team (the rows shown are then not the team's rows)."""
    return bool(filters.raters)


def shows(filters: Filters, rater_id: str) -> bool:
    """Whether the rater filter shows `rater_id`'s figures (everyone's without a rater filter)."""
    return not narrows_team(filters) or rater_id in filters.raters


def shown_rows(rows: pd.DataFrame, filters: Filters, columns: tuple[str, ...] = ("rater_id",)) -> pd.DataFrame:
    """The rows of the team's the rater filter shows: those where one of `columns` names a selected rater (a pair
    of raters is shown when either is selected); every row without a rater filter."""
    if not narrows_team(filters) or not len(rows):
        return rows
    keep = pd.Series(False, index=rows.index)
    for column in columns:
        keep |= rows[column].isin(filters.raters)
    return rows[keep].reset_index(drop=True)


def ceiling_scope(filters: Filters) -> Filters:
    """What of a filter the researcher ceiling depends on: rubric and dimensions (it spans all dates and raters,
    `ceiling_sides`), so a caller may keep one ceiling across changes of the other filters."""
    return Filters(rubric=filters.rubric, dimensions=filters.dimensions)


def comparison_sides(filters: Filters, comparison: str) -> Sides:
    """Each rater of the comparison's subject role against every rater of its reference role."""
    check_comparison(comparison)
    roles = COMPARISON_ROLES[comparison]
    subject_role, reference_role = (None, None) if roles is None else roles
    subject = filters.but(roles=_roles(subject_role))
    reference = Filters(rubric=filters.rubric, dimensions=filters.dimensions, roles=_roles(reference_role))
    return Sides(comparison, subject, reference)


def pooled_sides(filters: Filters) -> Sides:
    """Every contractor against every researcher (the team: the rater filter does not apply)."""
    sides = comparison_sides(team_filters(filters), "contractor_vs_researcher")
    return Sides("pooled", sides.subject, sides.reference)


def ceiling_sides(filters: Filters) -> Sides:
    """Every pair of researchers once, over all dates (the researcher ceiling)."""
    both = ceiling_scope(filters).but(roles=("researcher",))
    return Sides("ceiling", both, both, symmetric=True)


def rater_pair_sides(filters: Filters, comparison: str | None = None) -> Sides:
    """Every pair of raters once, whatever their roles (with `comparison`, only a rater of its subject role with
    one of its reference role), both ratings in the date range."""
    both = team_filters(filters).but(roles=())
    roles = None if comparison is None else COMPARISON_ROLES[comparison]
    if roles is None:
        return Sides("rater_pairs", both, both, symmetric=True)
    subject, reference = (both.but(roles=(role,)) for role in roles)
    return Sides("rater_pairs", subject, reference, symmetric=roles[0] == roles[1])


def reads_reference_pairs(sides: Sides) -> bool:
    """Whether `sides` are contractors against researchers (every researcher label of the filter's rubric and
    dimensions, any date): the pairs kept at ingest in reference_pairs (analytics/store/derived/reference_pairs.py)."""
    reference = Filters(rubric=sides.subject.rubric, dimensions=sides.subject.dimensions, roles=(rp.REFERENCE_ROLE,))
    return not sides.symmetric and sides.subject.roles == (rp.SUBJECT_ROLE,) and sides.reference == reference
