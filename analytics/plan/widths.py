"""The half width of a contractor's exact-agreement interval as shared tasks grow: the Wilson score interval at the
effective number of tasks (analytics/agreement/intervals.py), with the contractor's design effect held fixed."""

from __future__ import annotations

import math
from dataclasses import dataclass

from analytics.core.stats import wilson


def half_width(p: float, n_eff: float) -> float:
    """Half the width of the Wilson interval of a proportion p over n_eff effective tasks (NaN without tasks)."""
    lo, hi = wilson(p, n_eff)
    return (hi - lo) / 2


def effective_tasks(p: float, width: float) -> float:
    """The effective number of tasks at which the Wilson interval of p has half width `width` (bisection on its
    logarithm: the half width falls as n grows, at any p); NaN when p or the width is not a number."""
    if math.isnan(p) or math.isnan(width) or width <= 0:
        return math.nan
    lo, hi = math.log(0.01), math.log(1e9)
    for _ in range(80):
        mid = (lo + hi) / 2
        if half_width(p, math.exp(mid)) > width:
            lo = mid
        else:
            hi = mid
    return math.exp((lo + hi) / 2)


@dataclass(frozen=True)
class WidthModel:
    """One contractor's interval as a function of shared tasks: agreement p, effective tasks per shared task
    (`ratio`, n_eff / n_tasks: units per task and their correlation), and the tasks shared now."""

    p: float
    ratio: float
    n_tasks: int

    def at(self, n_tasks: float) -> float:
        """The expected half width at `n_tasks` shared tasks (0.5, the whole range, without one)."""
        return half_width(self.p, self.ratio * n_tasks) if n_tasks > 0 else 0.5

    def shown_at(self, n_tasks: int) -> float | None:
        """The half width the dashboard would show at `n_tasks` shared tasks: None without a shared task (a
        proportion's Wilson interval exists at any n: analytics/agreement/intervals.py)."""
        return self.at(n_tasks) if n_tasks > 0 else None


def fitted(p: float, width: float, n_tasks: int) -> float:
    """The ratio n_eff / n_tasks of an interval observed at n_tasks tasks (NaN where it cannot be read)."""
    n_eff = effective_tasks(p, width)
    return n_eff / n_tasks if n_tasks > 0 and not math.isnan(n_eff) else math.nan
