"""Views on one dimension: its confusion matrix, the kappa-paradox diagnostic and the rater x rater matrix.

All read the one pairing (analytics/agreement/sides.py, signatures.py), so their counts are the report's.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd

from analytics.agreement import coefficients as co
from analytics.agreement import counts as ct
from analytics.agreement import sides as sd
from analytics.agreement.coefficients import ParadoxDiagnostic
from analytics.agreement.report import pair_set_table
from analytics.agreement.rows import MIN_TASKS
from analytics.agreement.scales import Scale, scales
from analytics.agreement.signatures import pair_signatures
from analytics.agreement.spec import AgreementSpec
from analytics.core.filters import Filters


def dimension_scale(
    con: duckdb.DuckDBPyConnection,
    rubric: str,
    dimension: str,
    level: str | None = None,
    coarse: bool = False,
    queries: list | None = None,
) -> Scale:
    """The Scale of one dimension (ValueError when the store has no such dimension)."""
    found = scales(con, Filters(rubric=rubric), level, coarse, queries)
    if (rubric, dimension) not in found:
        raise ValueError(f"rubric {rubric!r} has no dimension {dimension!r} in the store")
    return found[(rubric, dimension)]


def confusion_table(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec,
    rubric: str,
    dimension: str,
    rater_id: str | None = None,
    queries: list | None = None,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """The (subject x reference) count matrix of one dimension under the spec's comparison, over the filter's
    raters (or one), and its levels (the queries that ran are logged in `queries`; no resample is drawn)."""
    s = dimension_scale(con, rubric, dimension, "nominal", spec.coarse, queries)
    f = spec.filters.but(rubric=rubric, dimensions=(dimension,))
    if rater_id is not None:
        f = f.but(raters=(rater_id,))
    sides = sd.comparison_sides(f, spec.comparison)
    sigs = pair_signatures(con, sides, "dimension", lambda _k: s.full_size, queries, summed=True)
    sig = sigs.get((rubric, dimension))
    table = sig.table(s.full_size) if sig is not None else np.zeros((s.full_size,) * 2)
    return s.to_levels.T @ table @ s.to_levels, s.levels


def confusion_matrix(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec,
    rubric: str,
    dimension: str,
    rater_id: str | None = None,
    queries: list | None = None,
) -> pd.DataFrame:
    """Long frame subject_level, reference_level, n over the full scale (levels as ordered categoricals).

    Among raters of one role every ordered pair of raters appears (the matrix is symmetric).
    """
    table, levels = confusion_table(con, spec, rubric, dimension, rater_id, queries)
    cat = pd.CategoricalDtype(list(levels), ordered=True)
    q = len(levels)
    return pd.DataFrame(
        {
            "subject_level": pd.Categorical(np.repeat(levels, q), dtype=cat),
            "reference_level": pd.Categorical(np.tile(levels, q), dtype=cat),
            "n": table.ravel().astype(int),
        }
    )


def paradox_diagnostic(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec,
    rubric: str,
    dimension: str,
    rater_id: str | None = None,
    queries: list | None = None,
) -> ParadoxDiagnostic:
    """The kappa-paradox diagnostic (marginals, AC1 and one sentence) of one dimension's confusion matrix, on the
    exact levels whatever the spec's coarseness."""
    table, levels = confusion_table(con, spec.but(coarse=False), rubric, dimension, rater_id, queries)
    return co.kappa_paradox(table, levels)


PAIRWISE_STATS = ("exact_agreement", "coarse_agreement", "cohen_kappa", "weighted_kappa")
PAIRWISE_COLUMNS = ["rater_a", "rater_b", "role_a", "role_b", "n", "n_tasks", "percent_agreement", "coarse_agreement"]
PAIRWISE_COLUMNS += ["cohen_kappa", "weighted_kappa", "small_n"]


def pairwise_matrix(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec,
    rubric: str,
    dimension: str,
    queries: list | None = None,
) -> pd.DataFrame:
    """Every pair of raters on one dimension (both orientations): shared pairs and tasks, agreement, kappas.

    The same pairs as the command line's rater_pairs[] (the rater filter keeps pairs with a selected rater) under
    the all_raters comparison; under another, only its pairs (a rater of one role with one of the other),
    computed on those roles' ratings."""
    queries = [] if queries is None else queries
    filters = spec.filters
    s = dimension_scale(con, rubric, dimension, spec.level, spec.coarse, queries)
    f = filters.but(rubric=rubric, dimensions=(dimension,))
    # only the coefficients the matrix shows: the others' rows and notes cost time for nothing
    pairs = pair_set_table(
        con,
        sd.rater_pair_sides(f, spec.comparison),
        "rater_pair",
        {(rubric, dimension): s},
        0,
        0,
        queries,
        PAIRWISE_STATS,
    )
    pairs = sd.shown_rows(pairs, filters, ("rater_a", "rater_b"))
    if pairs.empty:
        return pd.DataFrame(columns=PAIRWISE_COLUMNS)
    levels = ct.rater_level_counts(con, sd.team_filters(f).but(roles=()), queries)
    role = levels.groupby("rater_id")["role"].agg(lambda r: ",".join(sorted(set(r)))).to_dict()
    out = pairs.assign(
        role_a=pairs["rater_a"].map(role),
        role_b=pairs["rater_b"].map(role),
        percent_agreement=pairs["exact_agreement"],
    )
    out["small_n"] = out["n_tasks"] < MIN_TASKS
    flipped = out.rename(columns={"rater_a": "rater_b", "rater_b": "rater_a", "role_a": "role_b", "role_b": "role_a"})
    return pd.concat([out, flipped[out.columns]], ignore_index=True)[PAIRWISE_COLUMNS].reset_index(drop=True)
