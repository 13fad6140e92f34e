"""Rater effects per contractor: leniency, severity, central tendency, ties, position bias, halo, haste and
drift, each estimated on the contractor's tasks with a task-clustered standard error, shrunk toward the rest of
the team and flagged by one rule (shrink.py). docs/effects.md says how each is measured."""

from __future__ import annotations

import duckdb
import pandas as pd

from analytics.core.filters import NO_FILTERS, Filters
from analytics.describe.overview import rated_rubrics
from analytics.effects import choices, drift, haste, levels, shrink
from analytics.effects.rows import EFFECT_COLUMNS as EFFECT_COLUMNS

EFFECT_TITLES = {  # effect -> how pages and reports name it, in the order they list them
    "leniency": "Leniency",
    "severity": "Severity",
    "central_tendency": "Central tendency",
    "ties": "Ties",
    "position_bias": "Position bias",
    "halo": "Halo",
    "haste": "Haste",
    "drift": "Drift",
}
EFFECTS = tuple(EFFECT_TITLES)
EFFECT_HEADERS = {  # effects-table column -> a table's header: which figure is the contractor's own, which is shrunk
    "n_tasks": "tasks behind it",
    "raw": "own estimate (their tasks alone)",
    "raw_ci_low": "own estimate 95% low",
    "raw_ci_high": "own estimate 95% high",
    "estimate": "shrunk toward the team",
    "estimate_ci_low": "shrunk 95% low",
    "estimate_ci_high": "shrunk 95% high",
    "team_value": "team (without them)",
}


def raw_effects(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTERS,
    queries: list | None = None,
    positions: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Every effect's raw rows (before shrinkage) for the contractors under the filter (`queries`: a QueryLog
    shared with drift's other figures runs their weekly query once; `positions`: choices.position_table of the
    filter when read beforehand)."""
    rubrics = rated_rubrics(con, Filters(rubric=filters.rubric))
    researchers = levels.researcher_shift_query(filters).df(con)
    kept_levels = levels.kept_levels_query(filters).df(con)
    by_team, central = levels.consensus_stats(kept_levels), levels.central_stats(kept_levels)
    halo = levels.halo_query(filters).df(con)
    counts = choices.comparison_counts(con, filters, rubrics, positions)
    ranked = choices.ranking_ties_query(filters).df(con)
    parts = [
        levels.shift_rows(researchers, by_team) if len(researchers) or len(by_team) else None,
        levels.central_rows(central) if len(central) else None,
        levels.halo_rows(halo) if len(halo) else None,
        choices.tie_rows(counts) if len(counts) else None,
        choices.ranking_tie_rows(ranked) if len(ranked) else None,
        choices.position_rows(counts) if len(counts) else None,
        drift.drift_rows(con, filters, queries),
    ]
    kept = [p for p in parts if p is not None and len(p)]
    return pd.concat(kept, ignore_index=True) if kept else pd.DataFrame(columns=list(EFFECT_COLUMNS))


def estimate_effects(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTERS,
    queries: list | None = None,
    positions: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The effects table (EFFECT_COLUMNS): every contractor's effects, shrunk toward the team, with flags
    (`positions`: choices.position_table of the filter when read beforehand)."""
    raw = raw_effects(con, filters, queries, positions)
    hasty = haste.haste_rows(haste.durations(con, filters))
    parts = [shrink.shrink_effects(raw)] if len(raw) else []
    if len(hasty):
        parts.append(haste.as_ratio(shrink.shrink_effects(hasty)))
    if not parts:
        return pd.DataFrame(columns=list(EFFECT_COLUMNS))
    out = pd.concat(parts, ignore_index=True)
    order = {e: i for i, e in enumerate(EFFECTS)}
    out = out.sort_values(
        ["rubric", "effect", "dimension", "rater_id"], key=lambda s: s.map(order) if s.name == "effect" else s
    )
    return out.reindex(columns=list(EFFECT_COLUMNS)).reset_index(drop=True)
