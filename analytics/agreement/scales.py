"""How each dimension is measured in a report: its levels in declared order, their values and the metric.

Scales are declared (the rubric catalogue, or a scales file; DESIGN.md), never guessed from what else is
loaded. The level of measurement is the declared one unless a report asks for another (`level=`):
- nominal: levels are categories; no weights, no direction;
- ordinal: the declared order; Krippendorff's ordinal metric works on ranks, kappa and AC2 use linear weights;
- interval: values; Krippendorff's interval metric, quadratic weights;
- ratio: values with a true zero; Krippendorff's ratio metric, Gwet's ratio weights; negative values refused.
Weights use each level's value where every level has one, else its position in the declared order.
Headline figures (the one rule, `headline`): on an interval or ratio scale with more than FINE_LEVELS levels the
unweighted coefficients, which count only exact matches, are not shown as headline figures. On Snow et al.'s
0-100 anger ratings Fleiss' kappa is 0.15 and Gwet's AC1 0.53 beside Gwet's AC2 of 0.81 and an interval alpha of
0.36: ratings of 71 and 72 count as a disagreement as much as 0 and 100. They stay in the data (JSON, downloads).
An ordinal (or interval, ratio) analysis of text labels nobody declared an order for is refused: the labels'
order would otherwise be alphabetical, which is no order at all.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from analytics.agreement import coefficients as co
from analytics.core.filters import Filters
from analytics.core.queries import Query, run
from analytics.core.rubrics import DEFAULT_LEVEL

DECLARE_HINT = (
    'declare its order in a scales file, e.g. {"scales": [{"dimension": "%s", "level": "ordinal", '
    '"levels": ["low", "medium", "high"]}]}, and pass it with --scales PATH (or on the Data page)'
)


FINE_LEVELS = 10
UNWEIGHTED = (  # coefficients that count exact matches only, whatever the scale's distances
    "percent_agreement",
    "exact_agreement",
    "fleiss_kappa",
    "gwet_ac1",
    "brennan_prediger",
    "cohen_kappa",
)


def fine_grained(level: str, n_levels: int) -> bool:
    """Whether a scale is interval or ratio with more than FINE_LEVELS levels (exact matches rare by design)."""
    return level in ("interval", "ratio") and n_levels > FINE_LEVELS


def headline(statistic: str, level: str, n_levels: int) -> bool:
    """Whether a coefficient is shown as a headline figure of a dimension on this scale: every one but the
    unweighted ones on a fine-grained interval or ratio scale."""
    return not (statistic in UNWEIGHTED and fine_grained(level, n_levels))


def not_headline_note(level: str, n_levels: int) -> str:
    """Why a dimension's unweighted coefficients are not shown ("" when they are)."""
    if not fine_grained(level, n_levels):
        return ""
    return (
        f"unweighted coefficients (exact matches only) are not shown on this {level} scale of {n_levels} levels, "
        "where near ratings count as disagreements; the weighted ones (Krippendorff's alpha, weighted kappa, AC2) are"
    )


class ScaleError(ValueError):
    """A level of measurement that the dimension's declared scale cannot support."""


@dataclass(frozen=True)
class Scale:
    """How one dimension is measured in this report: its levels (fine or coarse), numbers and metric."""

    rubric: str
    dimension: str
    kind: str
    level: str
    levels: tuple[str, ...]
    to_levels: np.ndarray  # (full scale x levels) 0/1: maps stored value_index to this report's levels
    to_coarse: np.ndarray  # (levels x coarse levels) 0/1, for coarse agreement
    values: np.ndarray  # each level's number (its value, else its 1-based position in the declared order)
    note: str = ""
    has_values: bool = False  # whether the numbers are the levels' own values (not positions)

    @property
    def weights(self) -> str:
        """The kappa/AC2 weights that go with the level of measurement."""
        return co.WEIGHTS_FOR_LEVEL[self.level]

    @property
    def ordered(self) -> bool:
        """Whether differences between levels have a direction (mean difference applies)."""
        return self.level != "nominal"

    @property
    def full_size(self) -> int:
        """Number of levels on the stored (fine) scale."""
        return self.to_levels.shape[0]

    @property
    def text(self) -> str:
        """The scale in words: levels joined by '<' when ordered, '|' when not."""
        return " < ".join(self.levels) if self.ordered else " | ".join(self.levels)


def scales_query(filters: Filters) -> Query:
    """The declared scale of every dimension in the filter's rubric."""
    return Query(
        "scales",
        "SELECT * FROM dimensions WHERE ($rubric IS NULL OR rubric = $rubric) ORDER BY rubric, dimension",
        {"rubric": filters.rubric},
    )


def _declared(row: pd.Series) -> tuple[str, list[float | None], str]:
    """The declared measure, the levels' values (None where a level has none) and the source of a stored row."""
    measure = row.get("measure")
    if not isinstance(measure, str) or not measure:
        measure = DEFAULT_LEVEL.get(row["kind"], "nominal")
    raw = row.get("level_values")
    if raw is None or (not isinstance(raw, list | tuple | np.ndarray)):
        raw = [_number(x) for x in row["levels"]] if row["kind"] in ("ordinal", "ranking") else []
    if isinstance(raw, np.ma.MaskedArray):  # DuckDB hands a list with NULLs to pandas as a masked array
        numbers = np.ma.filled(raw.astype(float), np.nan)
    else:
        numbers = np.array([np.nan if v is None else float(v) for v in raw], dtype=float)
    values = [None if np.isnan(v) else float(v) for v in numbers]
    if len(values) != len(row["levels"]):
        values = [None] * len(row["levels"])
    return measure, values, str(row.get("source") or "")


def _number(text: str) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def build_scale(row: pd.Series, level: str | None, coarse: bool) -> Scale:
    """The Scale of one stored dimension row under a requested level (None: the declared one)."""
    levels, coarse_of = tuple(row["levels"]), tuple(row["coarse"])
    measure, values, source = _declared(row)
    lvl = level or measure
    numeric = bool(values) and all(v is not None for v in values)
    undeclared_text = source == "inferred" and not numeric
    if lvl != "nominal" and undeclared_text:
        raise ScaleError(
            f"{row['rubric']}/{row['dimension']} has text labels ({', '.join(levels[:6])}) with no declared order, "
            f"so a {lvl} analysis is refused (it would order them alphabetically): {DECLARE_HINT % row['dimension']}"
        )
    number = np.array(values, dtype=float) if numeric else np.arange(1, len(levels) + 1, dtype=float)
    if lvl == "ratio" and (number < 0).any():
        raise ScaleError(
            f"{row['rubric']}/{row['dimension']} has negative values, so the ratio level is refused "
            "(a ratio scale has a true zero); use interval"
        )
    note = ""
    if lvl in ("interval", "ratio") and not numeric:
        note = f"{lvl} level on labels without numbers uses their positions in the declared order"
    to_coarse, coarse_levels = co.coarse_matrix(levels, coarse_of)
    if coarse:
        return Scale(
            row["rubric"],
            row["dimension"],
            row["kind"],
            lvl,
            coarse_levels,
            to_coarse,
            np.eye(len(coarse_levels)),
            co.level_values(coarse_levels),
            note,
        )
    return Scale(
        row["rubric"], row["dimension"], row["kind"], lvl, levels, np.eye(len(levels)), to_coarse, number, note, numeric
    )


def scales(
    con: duckdb.DuckDBPyConnection, filters: Filters, level: str | None, coarse: bool, queries: list | None = None
) -> dict[tuple[str, str], Scale]:
    """The Scale of every dimension in the filter's rubric (and dimensions), keyed by (rubric, dimension)."""
    out = {}
    rated: set[tuple[str, str]] | None = None
    for _, row in run(con, scales_query(filters), queries).iterrows():
        if not filters.selects(row["rubric"], row["dimension"]):
            continue
        try:
            out[(row["rubric"], row["dimension"])] = build_scale(row, level, coarse)
        except ScaleError:
            # A catalogued dimension nobody rated (a real dataset's -100..100 under --level ratio) has no
            # figures: it must not refuse the level for the dimensions that have ratings.
            rated = rated if rated is not None else _rated_dimensions(con)
            if (row["rubric"], row["dimension"]) in rated:
                raise
    return out


RATED_DIMENSIONS = Query(
    "rated_dimensions",
    "SELECT rubric, dimension FROM dimension_keys WHERE dim_key IN (SELECT DISTINCT dim_key FROM ratings)",
)


def _rated_dimensions(con: duckdb.DuckDBPyConnection) -> set[tuple[str, str]]:
    """(rubric, dimension) of every dimension with ratings."""
    rows = RATED_DIMENSIONS.rows(con)
    return {(r, d) for r, d in rows}


def scale_cells(s: Scale) -> dict:
    """The columns every report row carries about its scale."""
    return {
        "rubric": s.rubric,
        "dimension": s.dimension,
        "kind": s.kind,
        "level": s.level,
        "weights": s.weights,
        "scale": s.text,
        "n_levels": len(s.levels),
    }
