"""Which contractor a feedback page opens on: the one to review first (DEFAULT_RULE)."""

from __future__ import annotations

import duckdb
import pandas as pd

from analytics import agreement as ag
from analytics.agreement import team as tm
from analytics.core.filters import Filters
from analytics.describe.overview import rated_rubrics
from analytics.feedback.scope import NO_FILTERS, against_researchers
from analytics.review import disagreements as dis

DEFAULT_STATISTIC = "exact_agreement"
DEFAULT_RULE = (
    "Opens on the contractor to review first: among contractors who share tasks with researchers on a rubric's "
    "primary dimension, the one whose exact agreement there has the lowest upper 95% bound (confidently lowest, not "
    "lowest by chance on few tasks: the bound widens smoothly as tasks fall, with no cut at a number of tasks). "
    "The sidebar's rater filter narrows the choice."
)


def default_contractor(
    con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS, n_boot: int = 1000, seed: int = 0
) -> str | None:
    """The contractor a feedback page opens on (DEFAULT_RULE): agreement.rater_agreement rows of each rubric's
    primary dimension in team.review_order (the upper end of the exact agreement interval, lowest first), the
    first row's contractor (the same intervals as the Agreement page's: same seed, same rows). None when no
    contractor shares a unit with a researcher under the filter (rubric, dates, raters)."""
    f = filters.but(roles=(), dimensions=())
    primary = {(r, dis.primary_dimension(con, r)) for r in rated_rubrics(con, f.but(raters=()))}
    dims = tuple(sorted({d for _, d in primary if d}))
    if not dims:
        return None
    rows = _primary_rows(ag.rater_agreement(con, against_researchers(f.but(dimensions=dims), n_boot, seed)), primary)
    if rows.empty:
        return None
    return str(tm.review_order(rows, DEFAULT_STATISTIC).iloc[0]["rater_id"])


def _primary_rows(rows: pd.DataFrame, primary: set[tuple[str, str | None]]) -> pd.DataFrame:
    """Contractors' rater_agreement rows on a rubric's primary dimension with at least one shared task."""
    keep = pd.Series([(r, d) in primary for r, d in zip(rows["rubric"], rows["dimension"], strict=True)], rows.index)
    return rows[keep & (rows["role"] == "contractor") & (rows["n_tasks"] > 0)]
