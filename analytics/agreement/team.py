"""Yardsticks for reading one rater's agreement: the team median and the researcher ceiling on a dimension.

A contractor's agreement with researchers means little on its own: a dimension that researchers themselves
agree on only moderately cannot be expected to reach 0.9. The researcher ceiling is how well the typical
researcher agrees with the other researchers on the same dimension and statistic (the median researcher of
`rater_agreement(..., comparison="researcher_vs_researcher")`, each researcher pooled over their pairs with
the other researchers, exactly as a contractor is pooled over their pairs with researchers). The team median
is the median rater of the comparison being read.
"""

from __future__ import annotations

import math

import pandas as pd

YARDSTICK_COLUMNS = ("reference", "value", "raters", "basis")


def _median(raters: pd.DataFrame, rubric: str, dimension: str, statistic: str) -> tuple[float, int]:
    """Median of a statistic over the raters that have it on one dimension, and how many do."""
    if statistic not in raters.columns:
        return math.nan, 0
    rows = raters[(raters["rubric"] == rubric) & (raters["dimension"] == dimension)]
    values = rows[statistic].dropna()
    return (float(values.median()) if len(values) else math.nan), int(len(values))


def yardsticks(
    raters: pd.DataFrame,
    researcher_raters: pd.DataFrame | None,
    rubric: str,
    dimension: str,
    statistic: str,
    team: str = "Team median",
) -> pd.DataFrame:
    """The team median of `raters` and (given researcher-vs-researcher rows) the researcher ceiling, one row each
    (YARDSTICK_COLUMNS); a yardstick no rater supports is left out."""
    rows = []
    value, n = _median(raters, rubric, dimension, statistic)
    if n:
        rows.append({"reference": team, "value": value, "raters": n, "basis": f"median of {n} raters"})
    if researcher_raters is not None:
        value, n = _median(researcher_raters, rubric, dimension, statistic)
        if n:
            basis = f"median of {n} researchers, each against the other researchers"
            rows.append({"reference": "Researcher ceiling", "value": value, "raters": n, "basis": basis})
    return pd.DataFrame(rows, columns=list(YARDSTICK_COLUMNS))
