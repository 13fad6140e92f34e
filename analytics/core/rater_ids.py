"""Anonymous raters: a position in a list of labels, not a person (crowd labels published without worker ids).

An adapter that has labels without rater ids names each label by its position, with ANONYMOUS_PREFIX
(`anon:crowd_1`, `anon:crowd_2`, ...), because a rating row needs a rater. Figures from per-unit value counts
(percent agreement, Krippendorff's alpha, Fleiss' kappa, Gwet's AC1/AC2) and the pooled contractor-researcher
pairs do not depend on who gave a label, so they stand. Figures about one rater or one pair of raters (each
rater against researchers, rater pairs, the researcher ceiling when researchers are anonymous) would be
computed on made-up people: the report leaves those rows out and `needs_rater_ids` says so.
"""

from __future__ import annotations

import duckdb

from analytics.core.filters import Filters
from analytics.core.queries import Query, run

ANONYMOUS_PREFIX = "anon:"
# The report's figures that are about one rater or one pair of raters (the contract's keys, DESIGN.md).
NEEDS_RATER_IDS = ("raters", "rater_pairs", "ceiling")
REASON = (
    "the file gives labels without rater ids (each is named by its position, {prefix}...): figures about one "
    "rater or one pair of raters would be computed on made-up people, so they are left out; alpha, Fleiss' "
    "kappa, Gwet's AC1/AC2, percent agreement and the pooled contractor-researcher figures use only each "
    "unit's labels and stand"
)


def anonymous_id(kind: str, position: int) -> str:
    """The rater id of the `position`-th (1-based) label of an anonymous list, e.g. anon:crowd_3."""
    return f"{ANONYMOUS_PREFIX}{kind}_{position}"


def position_name(rater_id: str) -> str:
    """A position's words for people: anon:crowd_3 -> "crowd label 3"."""
    kind, _, position = rater_id.removeprefix(ANONYMOUS_PREFIX).rpartition("_")
    return f"{kind.replace('_', ' ')} label {position}" if kind and position.isdigit() else rater_id


def is_anonymous(rater_id: object) -> bool:
    """Whether a rater id names a position in a list of labels rather than a person."""
    return isinstance(rater_id, str) and rater_id.startswith(ANONYMOUS_PREFIX)


def anonymous_query(filters: Filters) -> Query:
    """Per rubric dimension and role, how many anonymous raters (positions) gave how many ratings (from the level
    counts kept at ingest, analytics/store/derived/level_counts.py)."""
    where, params = filters.where_named()
    sql = f"""SELECT rubric, dimension, role, count(DISTINCT rater_id) AS n_positions, CAST(sum(n) AS BIGINT) AS n_ratings
FROM level_counts
WHERE starts_with(rater_id, $anonymous_prefix) AND {where}
GROUP BY ALL
ORDER BY ALL"""
    return Query("anonymous_raters", sql, {**params, "anonymous_prefix": ANONYMOUS_PREFIX})


def needs_rater_ids(con: duckdb.DuckDBPyConnection, filters: Filters, queries: list | None = None) -> list[dict]:
    """One entry per rubric dimension with anonymous raters: which figures need rater ids and why."""
    df = run(con, anonymous_query(filters), queries)
    out = []
    for (rubric, dimension), g in df.groupby(["rubric", "dimension"], sort=True) if not df.empty else []:
        out.append(
            {
                "rubric": rubric,
                "dimension": dimension,
                "roles": sorted(g["role"]),
                "n_positions": int(g["n_positions"].sum()),
                "n_ratings": int(g["n_ratings"].sum()),
                "figures": list(NEEDS_RATER_IDS),
                "reason": REASON.format(prefix=ANONYMOUS_PREFIX),
            }
        )
    return out
