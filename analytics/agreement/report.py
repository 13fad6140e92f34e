"""Agreement reports: per dimension and per rater, every coefficient with its task-level interval, n and notes.

    agreement_report(con, AgreementSpec(comparison="contractor_vs_researcher", coarse=False, level=None,
                                         n_boot=1000, seed=0, filters=Filters())) -> AgreementReport
        .dimensions  one row per (rubric, dimension)            DIMENSION_COLUMNS
        .raters      one row per (rater_id, rubric, dimension)  RATER_COLUMNS (the raters the filter shows)
        .team        the same for every rater of the subject role, point estimates (team medians read it)
        .ceiling     researcher vs researcher per dimension     PAIR_SET_COLUMNS
        .coefficients the same numbers in long form (value, interval, its method, undefined resamples, n, reason)
        .queries     the named SQL that ran (`.sql`: {name: text})

The spec's `comparison` is one of sides.COMPARISON_ROLES: contractor_vs_researcher (each contractor against researcher
labels; per dimension all contractor-researcher pairs pooled), among_contractors, researcher_vs_researcher and
all_raters (per dimension: multi-rater coefficients from per-unit value counts). Who is paired with whom under
which filter is analytics/agreement/sides.py; the pairing's SQL analytics/agreement/pairing.py and pair_plans.py;
scales analytics/agreement/scales.py; the rows' columns analytics/agreement/rows.py; pair and multi-rater
coefficients with their task-level intervals (analytic for pairs, tasks resampled for multi-rater coefficients;
analytics/agreement/intervals.py) analytics/agreement/pair_rows.py and multi_rater.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from analytics.agreement import counts as ct
from analytics.agreement import sides as sd
from analytics.agreement.multi_rater import multi_rater_table
from analytics.agreement.pair_rows import pair_row, pair_rows
from analytics.agreement.pairing import GRAINS, ranking_query
from analytics.agreement.rows import (
    DIMENSION_COLUMNS,
    DIMENSION_STATS,
    LONG_COLUMNS,
    PAIR_SET_COLUMNS,
    PAIR_SET_STATS,
    RATER_COLUMNS,
    RATER_STATS,
    REFERENCE_NAME,
    long_rows,
    sorted_frame,
    wide_row,
)
from analytics.agreement.scales import Scale, scales
from analytics.agreement.sides import COMPARISON_ROLES, Sides
from analytics.agreement.signatures import Signatures, pair_signatures, tau_signatures
from analytics.agreement.spec import AgreementSpec
from analytics.core import rater_ids as an
from analytics.core.queries import Query, QueryLog

DEFAULT_SPEC = AgreementSpec()  # frozen, so a safe default argument


@dataclass(frozen=True)
class AgreementReport:
    """Agreement per dimension and per rater for one comparison, the ceiling, and the SQL behind it."""

    spec: AgreementSpec
    dimensions: pd.DataFrame
    raters: pd.DataFrame
    team: pd.DataFrame
    ceiling: pd.DataFrame
    coefficients: pd.DataFrame
    queries: tuple[Query, ...]

    @property
    def comparison(self) -> str:
        """The spec's comparison."""
        return self.spec.comparison

    @property
    def sql(self) -> dict[str, str]:
        """The SQL that ran, by name."""
        return {q.name: q.sql for q in self.queries}


@dataclass(frozen=True)
class Ceiling:
    """The researcher ceiling per dimension (ceiling_table) and the queries that made it."""

    table: pd.DataFrame
    queries: tuple[Query, ...]


@dataclass(frozen=True)
class PairSet:
    """The signatures of one pairing at one grain, with the queries that made them."""

    sigs: dict[tuple, Signatures]
    taus: dict[tuple, tuple[np.ndarray, np.ndarray]]


def pair_set(
    con: duckdb.DuckDBPyConnection,
    sides: Sides,
    grain: str,
    scale_of: dict[tuple[str, str], Scale],
    queries: list,
    summed: bool = False,
) -> PairSet:
    """Run the pairing and ranking queries of `sides` at `grain` and decode their signatures (`summed`: no
    interval will resample them, pair_signatures)."""
    scale_key = lambda key: key[-2:]  # noqa: E731  (every grain ends with rubric, dimension)
    q_of = lambda key: scale_of[scale_key(key)].full_size if scale_key(key) in scale_of else None  # noqa: E731
    sigs = pair_signatures(con, sides, grain, q_of, queries, summed=summed)
    if not any(s.kind == "ranking" for s in scale_of.values()):
        return PairSet(sigs, {})  # no ranking among the scales: no item pairs to order, the query is not run
    q_ranks = ranking_query(sides, grain)
    queries.append(q_ranks)
    return PairSet(sigs, tau_signatures(q_ranks.df(con), grain))


def _rater_table(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec,
    scale_of: dict[tuple[str, str], Scale],
    queries: list,
    boot_raters: tuple[str, ...] | None = None,
    long: bool = True,
    stats: tuple[str, ...] = RATER_STATS,
    boot_dimensions: frozenset[tuple[str, str]] | None = None,
) -> tuple[list[dict], list[dict]]:
    """Rows of every subject rater (RATER_COLUMNS) and, with `long`, their coefficients in long form; intervals
    only for `boot_raters` (None: everyone) on `boot_dimensions` ((rubric, dimension) pairs, None: every one);
    coefficients not in `stats` left empty (NaN, no notes)."""
    comparison, n_boot, seed = spec.comparison, spec.n_boot, spec.seed
    sides = sd.comparison_sides(spec.filters, comparison)
    no_interval = n_boot == 0 or (boot_raters is not None and not boot_raters) or boot_dimensions == frozenset()
    ps = pair_set(con, sides, "rater", scale_of, queries, summed=no_interval)
    subjects = ct.rater_level_counts(con, sides.subject, queries)
    roles = subjects.groupby("rater_id")["role"].agg(lambda r: ",".join(sorted(set(r)))).to_dict()
    named = zip(*(subjects[c].tolist() for c in ("rater_id", "rubric", "dimension")), strict=True)
    keys = set(ps.sigs) | {k for k in named if k[1:] in scale_of}
    keys = {k for k in keys if not an.is_anonymous(k[0])}  # a position in a list of labels is nobody's figure
    by_scale: dict[tuple, list[tuple]] = {}
    for key in sorted(keys):
        by_scale.setdefault(key[1:], []).append(key)
    rows, longs = [], []
    for scale_key, group in sorted(by_scale.items()):
        boots = [
            n_boot
            if (boot_raters is None or k[0] in boot_raters) and (boot_dimensions is None or k[1:] in boot_dimensions)
            else 0
            for k in group
        ]
        results = pair_rows(
            scale_of[scale_key],
            group,
            [ps.sigs.get(k) for k in group],
            [ps.taus.get(k) for k in group],
            boots,
            seed,
            REFERENCE_NAME[comparison],
            stats,
        )
        for key, b, (base, coefs) in zip(group, boots, results, strict=True):
            rows.append(wide_row({"rater_id": key[0], "role": roles.get(key[0], ""), **base}, coefs, stats, b))
            if long:
                longs += long_rows(coefs, "rater", key[1], key[2], key[0])
    return rows, longs


def _pooled_table(
    con: duckdb.DuckDBPyConnection, spec: AgreementSpec, scale_of: dict[tuple[str, str], Scale], queries: list
) -> tuple[list[dict], list[dict]]:
    """Per dimension, every contractor-researcher pair on a shared unit counted once (DIMENSION_COLUMNS)."""
    n_boot, seed = spec.n_boot, spec.seed
    sides = sd.pooled_sides(spec.filters)
    ps = pair_set(con, sides, "dimension", scale_of, queries)
    subjects = ct.rater_level_counts(con, sides.subject, queries)
    ratings = subjects.groupby(["rubric", "dimension"])["n"].sum()
    raters = subjects.groupby(["rubric", "dimension"])["rater_id"].nunique()
    rows, long = [], []
    for key, sig in sorted(ps.sigs.items()):
        base, coefs = pair_row(
            scale_of[key], key, sig, ps.taus.get(key), n_boot, seed, REFERENCE_NAME["pooled"], DIMENSION_STATS
        )
        n_pairs = base.pop("n")
        base.pop("n_item_pairs")
        base.update(
            n_units_rated=math.nan,
            n_raters=int(raters.get(key, 0)),
            n_ratings=int(ratings.get(key, 0)),
            n_pairs=n_pairs,
            fleiss_kappa_name="Scott's pi",
        )
        rows.append(wide_row(base, coefs, DIMENSION_STATS, n_boot))
        long += long_rows(coefs, "dimension", key[0], key[1], None)
    return rows, long


def pair_set_table(
    con: duckdb.DuckDBPyConnection,
    sides: Sides,
    grain: str,
    scale_of: dict,
    n_boot: int,
    seed: int,
    queries: list,
    stats: tuple[str, ...] = PAIR_SET_STATS,
) -> pd.DataFrame:
    """One row per group of a pairing (PAIR_SET_COLUMNS, plus the grain's rater columns); coefficients not in
    `stats` (some of PAIR_SET_STATS, the ones a caller shows) are left empty, without their notes; without
    intervals (`n_boot` 0) the pairing may come summed (pair_set)."""
    ps = pair_set(con, sides, grain, scale_of, queries, summed=n_boot == 0)
    rater_at = [i for i, k in enumerate(GRAINS[grain]) if k.startswith("rater")]
    by_scale: dict[tuple, list[tuple]] = {}
    for key in sorted(ps.sigs):
        if any(an.is_anonymous(key[i]) for i in rater_at):
            continue  # a pair with an anonymous rater (a position, not a person) has no figure of its own
        by_scale.setdefault(key[-2:], []).append(key)
    rows = []
    for scale_key, group in sorted(by_scale.items()):
        sigs = [ps.sigs[k] for k in group]
        results = pair_rows(
            scale_of[scale_key],
            group,
            sigs,
            [None] * len(group),
            [n_boot] * len(group),
            seed,
            REFERENCE_NAME[sides.name],
            stats,
        )
        for key, (base, coefs) in zip(group, results, strict=True):
            base.pop("n_item_pairs")
            base.pop("kappa_paradox")
            names = dict(zip(GRAINS[grain], key, strict=True))
            rater_cols = {k: v for k, v in names.items() if k.startswith("rater")}
            rows.append({**rater_cols, **wide_row(base, coefs, stats, n_boot)})
    lead = [k for k in GRAINS[grain] if k.startswith("rater")]
    return sorted_frame(rows, (*lead, *PAIR_SET_COLUMNS), ["rubric", "dimension", *lead])


def _pair_set_table(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec,
    sides: Sides,
    grain: str,
    scale_of: dict[tuple[str, str], Scale],
    queries: list,
) -> pd.DataFrame:
    """pair_set_table of `sides` with the spec's resamples and seed."""
    return pair_set_table(con, sides, grain, scale_of, spec.n_boot, spec.seed, queries)


def _dimension_rows(
    con: duckdb.DuckDBPyConnection, spec: AgreementSpec, scale_of: dict[tuple[str, str], Scale], queries: list
) -> tuple[pd.DataFrame, list[dict]]:
    """The dimension rows of `spec`'s comparison (pooled pairs between two roles, else multi-rater figures) and
    their coefficients in long form."""
    roles = COMPARISON_ROLES[spec.comparison]
    if roles is not None and roles[0] != roles[1]:
        rows, long = _pooled_table(con, spec, scale_of, queries)
    else:
        rows, long = multi_rater_table(con, spec.filters, spec.comparison, scale_of, spec.n_boot, spec.seed, queries)
    return sorted_frame(rows, DIMENSION_COLUMNS, ["rubric", "dimension"]), long


def _scales(con: duckdb.DuckDBPyConnection, spec: AgreementSpec, queries: list) -> dict[tuple[str, str], Scale]:
    """The scales of the dimensions `spec`'s filter selects, at its level and coarseness."""
    return scales(con, spec.filters, spec.level, spec.coarse, queries)


def dimension_agreement(
    con: duckdb.DuckDBPyConnection, spec: AgreementSpec = DEFAULT_SPEC, queries: list | None = None
) -> pd.DataFrame:
    """Agreement per rubric dimension (DIMENSION_COLUMNS) for one comparison (the rater filter does not apply)."""
    queries = QueryLog() if queries is None else queries
    return _dimension_rows(con, spec, _scales(con, spec, queries), queries)[0]


def rater_agreement(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec = DEFAULT_SPEC,
    *,
    queries: list | None = None,
    stats: tuple[str, ...] = RATER_STATS,
    interval_dimensions: frozenset[tuple[str, str]] | None = None,
) -> pd.DataFrame:
    """Agreement of each rater the filter selects with the comparison's reference side, per dimension; only the
    coefficients in `stats` (some of RATER_STATS, those a caller reads: each costs its intervals), the others NaN;
    intervals (with spec.n_boot) only on `interval_dimensions`, (rubric, dimension) pairs, when given."""
    queries = QueryLog() if queries is None else queries
    scales = _scales(con, spec, queries)
    rows, _ = _rater_table(con, spec, scales, queries, long=False, stats=stats, boot_dimensions=interval_dimensions)
    return sorted_frame(rows, RATER_COLUMNS, ["rubric", "dimension", "rater_id"])


def ceiling_table(
    con: duckdb.DuckDBPyConnection, spec: AgreementSpec = DEFAULT_SPEC, *, queries: list | None = None
) -> pd.DataFrame:
    """The researcher ceiling per dimension: every pair of researchers on a shared unit once, all dates (the
    spec's comparison does not apply)."""
    queries = QueryLog() if queries is None else queries
    return _pair_set_table(con, spec, sd.ceiling_sides(spec.filters), "dimension", _scales(con, spec, queries), queries)


def rater_pairs_table(
    con: duckdb.DuckDBPyConnection, spec: AgreementSpec = DEFAULT_SPEC, queries: list | None = None
) -> pd.DataFrame:
    """Each pair of raters (rater_a < rater_b) per dimension on their shared units; with a rater filter, the
    pairs that include a selected rater (the spec's comparison does not apply)."""
    queries = QueryLog() if queries is None else queries
    sides = sd.rater_pair_sides(spec.filters)
    out = _pair_set_table(con, spec, sides, "rater_pair", _scales(con, spec, queries), queries)
    return sd.shown_rows(out, spec.filters, ("rater_a", "rater_b"))


def pooled_table(
    con: duckdb.DuckDBPyConnection, spec: AgreementSpec = DEFAULT_SPEC, queries: list | None = None
) -> pd.DataFrame:
    """All contractors against researchers per dimension, every pair on a shared unit counted once
    (PAIR_SET_COLUMNS; the same pairs as the contractor_vs_researcher dimension table; the spec's comparison does
    not apply)."""
    queries = QueryLog() if queries is None else queries
    sides = sd.pooled_sides(spec.filters)
    return _pair_set_table(con, spec, sides, "dimension", _scales(con, spec, queries), queries)


def researcher_ceiling(con: duckdb.DuckDBPyConnection, spec: AgreementSpec = DEFAULT_SPEC) -> Ceiling:
    """ceiling_table under the spec's ceiling_spec, with the queries that ran (for the reports' `ceiling`)."""
    queries: list[Query] = QueryLog()
    table = ceiling_table(con, spec.ceiling_spec(), queries=queries)
    return Ceiling(table, tuple(queries))


def _report(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec,
    rater_rows: bool,
    rater_intervals: bool,
    ceiling: Ceiling | None,
    queries: QueryLog | None,
) -> AgreementReport:
    """The report of `spec`: with `rater_rows`, every rater's rows (with intervals for the raters the filter
    shows when `rater_intervals`, else point estimates); `ceiling`, researcher_ceiling's under the same spec, is
    used as it is, its queries listed with the report's; `queries`, the QueryLog to run in (a page's, handed the
    results that depend on the data only: QueryLog.know)."""
    queries = QueryLog() if queries is None else queries
    filters = spec.filters
    scale_of = _scales(con, spec, queries)
    dims, dlong = _dimension_rows(con, spec, scale_of, queries)
    boot_raters = (filters.raters or None) if rater_intervals else ()
    team_spec = spec.but(filters=sd.team_filters(filters))
    team_rows, rlong = _rater_table(con, team_spec, scale_of, queries, boot_raters) if rater_rows else ([], [])
    team = sorted_frame(team_rows, RATER_COLUMNS, ["rubric", "dimension", "rater_id"])
    raters = sd.shown_rows(team, filters)
    rlong = [r for r in rlong if sd.shows(filters, r["rater_id"])]
    if ceiling is None:  # in this report's log: the queries it shares with the tables above run once
        ceiling_rows = _pair_set_table(con, spec, sd.ceiling_sides(filters), "dimension", scale_of, queries)
    else:
        ceiling_rows = ceiling.table
        queries += [q for q in ceiling.queries if q not in queries]
    coefficients = pd.DataFrame(dlong + rlong, columns=list(LONG_COLUMNS))
    return AgreementReport(spec, dims, raters, team, ceiling_rows, coefficients, tuple(queries))


def agreement_report(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec = DEFAULT_SPEC,
    ceiling: Ceiling | None = None,
    queries: QueryLog | None = None,
) -> AgreementReport:
    """Per-dimension and per-rater agreement for one comparison, the team's rows, the researcher ceiling, with
    intervals, notes and the SQL that ran. `ceiling`, researcher_ceiling's under the same spec, is used as it is
    (a page keeps it across date and rater changes, which do not move it); its queries are listed with the
    report's. `queries`: the QueryLog to run in (a page's, handed the results that depend on the data only)."""
    return _report(con, spec, True, True, ceiling, queries)


def rater_points_report(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec = DEFAULT_SPEC,
    ceiling: Ceiling | None = None,
    queries: QueryLog | None = None,
) -> AgreementReport:
    """agreement_report with the raters' rows as point estimates (no rater intervals): a page asks
    rater_agreement for the intervals of the dimension it shows (the same figures, resampled per rater)."""
    return _report(con, spec, True, False, ceiling, queries)


def dimension_report(
    con: duckdb.DuckDBPyConnection,
    spec: AgreementSpec = DEFAULT_SPEC,
    ceiling: Ceiling | None = None,
    queries: QueryLog | None = None,
) -> AgreementReport:
    """agreement_report without rater rows (raters, team and their coefficients are empty): a page that shows
    one dimension's raters asks rater_agreement for them (the rows of every dimension are costly)."""
    return _report(con, spec, False, False, ceiling, queries)
