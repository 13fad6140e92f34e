"""What one agreement computation is asked for: an AgreementSpec (comparison, scale, resamples, seed, filters).

Frozen and hashable, so a page can key its cache on it; checked when made, so every entry point that takes one
(analytics/agreement/report.py, views.py, contract.py) can rely on it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from analytics.agreement.coefficients import LEVELS
from analytics.agreement.sides import ceiling_scope, check_comparison
from analytics.core.filters import Filters

DEFAULT_COMPARISON = "contractor_vs_researcher"


@dataclass(frozen=True)
class AgreementSpec:
    """One agreement computation's request: who is compared (`comparison`, sides.COMPARISON_ROLES), on which
    levels (`coarse`: the coarse mapping; `level`: the level of measurement, None for each scale's declared one),
    how many task resamples an interval takes (`n_boot`, 0: no intervals) with which `seed`, under `filters`."""

    comparison: str = DEFAULT_COMPARISON
    coarse: bool = False
    level: str | None = None
    n_boot: int = 1000
    seed: int = 0
    filters: Filters = Filters()

    def __post_init__(self) -> None:
        """Refuse a comparison, level or number of resamples no computation can run with (a ValueError)."""
        check_comparison(self.comparison)
        if self.level is not None and self.level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {self.level!r}")
        if self.n_boot < 0:
            raise ValueError(f"n_boot must be 0 (no intervals) or more, not {self.n_boot}")

    def but(self, **changes: Any) -> AgreementSpec:
        """A copy with some fields changed (e.g. `spec.but(n_boot=0)`)."""
        return replace(self, **changes)

    def ceiling_spec(self) -> AgreementSpec:
        """What of the spec the researcher ceiling depends on: levels, resamples, seed and the filter's rubric and
        dimensions (sides.ceiling_scope; not the comparison), so a page may keep one ceiling across the others."""
        return replace(self, comparison=DEFAULT_COMPARISON, filters=ceiling_scope(self.filters))

    def filtered(self, **changes: Any) -> AgreementSpec:
        """A copy whose filters have some fields changed (e.g. `spec.filtered(rubric="r")`)."""
        return replace(self, filters=self.filters.but(**changes))
