"""Agreement between raters: per dimension, per rater, confusion matrices and rater x rater matrices.

Public API (pages, the CLI, the benchmark and notebooks call only these):

    agreement_report(con, filters, comparison="contractor_vs_researcher", coarse=False, level=None,
                     n_boot=1000, seed=0) -> AgreementReport
        .dimensions  one row per (rubric, dimension)         DIMENSION_COLUMNS
        .raters      one row per (rater_id, rubric, dimension) RATER_COLUMNS
        .coefficients the same numbers in long form: scope, rubric, dimension, rater_id, statistic, value,
                     ci_low, ci_high, n, reason (why a value is undefined), applies (False: does not
                     exist for this scale, e.g. weighted kappa on a nominal one; no note in the wide tables)
        .sql         the SQL that produced the statistics ({name: sql text}, for a "how it is computed" view)
    dimension_agreement(...) / rater_agreement(...)   the two tables on their own (same arguments)
    confusion_matrix(con, filters, rubric, dimension, comparison=..., rater_id=None, coarse=False)
        long frame subject_level x reference_level -> n over the full scale (zero cells included)
    pairwise_matrix(con, filters, rubric, dimension, coarse=False, level=None)
        long frame rater_a x rater_b (both orientations) -> n, percent_agreement, cohen_kappa, weighted_kappa
    paradox_diagnostic(con, filters, rubric, dimension, comparison=..., rater_id=None) -> ParadoxDiagnostic
    sql_text(filters, comparison) -> {name: sql}
    contract_payload(con, filters, level, coarse, n_boot, seed) -> dict   the CLI's JSON object
    COMPARISONS, MIN_UNITS, DIMENSION_COLUMNS, RATER_COLUMNS, LONG_COLUMNS
    re-exported coefficient functions on raw statistics (for notebooks and tests): cohen_kappa(table, weights),
    krippendorff_alpha(counts, level, values), fleiss_kappa, gwet_ac, percent_agreement, brennan_prediger,
    conger_kappa, gwet_ac_se, pair_gwet_ac, kendall_tau_b, kappa_paradox -> Coefficient / ParadoxDiagnostic

Example (a page):

    report = agreement_report(con, filters, comparison="contractor_vs_researcher", coarse=False)
    report.dimensions[["dimension", "n_units", "cohen_kappa", "cohen_kappa_ci_low", "cohen_kappa_ci_high"]]
    confusion_matrix(con, filters, "answer_comparison", "usefulness_comparison", rater_id="c03")

`comparison` is one of
    "contractor_vs_researcher"  each contractor against researcher labels on the units both rated
    "among_contractors"         contractors among themselves (per rater: against every other contractor)
    "researcher_vs_researcher"  researchers among themselves
    "all_raters"                every rater, whatever the role (the CLI's `dimensions`)
For the two-sided comparison the dimension table pools every (contractor, researcher) pair of the dimension;
for the others it holds the multi-rater coefficients from per-unit value counts. Columns that do not apply
to a comparison are NaN (see docs/agreement.md for which apply).

`level` (nominal|ordinal|interval|ratio, None = the default for the scale's kind, rubrics.DEFAULT_LEVEL)
sets Krippendorff's metric and the weights of weighted kappa and AC2 (ordinal: linear, interval and ratio:
quadratic, nominal: none). `coarse=True` computes everything on the catalogue's coarse scale.

Every coefficient carries its n; an undefined one is NaN with a reason in `notes` (a coefficient that does not
exist for the scale, such as weighted kappa on a nominal one, is NaN without a note); fewer than MIN_UNITS
units sets `small_n`. Intervals are 95% percentile intervals of a seeded multinomial bootstrap: over the
confusion cells for pair coefficients, over distinct per-unit value-count patterns for multi-rater ones
(both resample units with replacement, docs/agreement.md). The statistics come from
analytics.agreement_stats (SQL); the coefficients from analytics.agreement_coefficients (numpy).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import NamedTuple

import duckdb
import numpy as np
import pandas as pd

from analytics import agreement_coefficients as co
from analytics import agreement_stats as st
from analytics.agreement_coefficients import (  # noqa: F401  (re-exported for callers)
    Coefficient,
    ParadoxDiagnostic,
    brennan_prediger,
    cohen_kappa,
    conger_kappa,
    fleiss_kappa,
    gwet_ac,
    gwet_ac_se,
    kappa_paradox,
    kendall_tau_b,
    krippendorff_alpha,
    pair_gwet_ac,
    percent_agreement,
)
from analytics.filters import Filters
from analytics.rubrics import DEFAULT_LEVEL

COMPARISONS: dict[str, tuple[str, str] | None] = {
    "contractor_vs_researcher": ("contractor", "researcher"),
    "among_contractors": ("contractor", "contractor"),
    "researcher_vs_researcher": ("researcher", "researcher"),
    "all_raters": None,
}
NO_FILTER = Filters()  # frozen, so a safe default argument
REFERENCE_NAME = {
    "contractor_vs_researcher": "a researcher",
    "among_contractors": "another contractor",
    "researcher_vs_researcher": "another researcher",
    "all_raters": "another rater",
}
MIN_UNITS = 30  # below this many units a coefficient is flagged small_n: indicative, read its interval

LABELS = {
    "percent_agreement": "percent agreement",
    "exact_agreement": "exact agreement",
    "coarse_agreement": "coarse agreement",
    "krippendorff_alpha": "Krippendorff's alpha",
    "fleiss_kappa": "Fleiss' kappa",
    "gwet_ac1": "Gwet's AC1",
    "gwet_ac2": "Gwet's AC2",
    "brennan_prediger": "Brennan-Prediger kappa",
    "cohen_kappa": "Cohen's kappa",
    "weighted_kappa": "weighted kappa",
    "mean_difference": "mean difference",
    "kendall_tau_b": "Kendall's tau-b",
    "preference_agreement": "pairwise preference agreement",
}
DIMENSION_STATS = (
    "percent_agreement",
    "coarse_agreement",
    "krippendorff_alpha",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "brennan_prediger",
    "cohen_kappa",
    "weighted_kappa",
    "mean_difference",
    "kendall_tau_b",
    "preference_agreement",
)
RATER_STATS = (
    "exact_agreement",
    "coarse_agreement",
    "cohen_kappa",
    "weighted_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "krippendorff_alpha",
    "mean_difference",
    "kendall_tau_b",
    "preference_agreement",
)
SCALE_COLUMNS = ("rubric", "dimension", "kind", "level", "weights", "scale")
DIMENSION_COLUMNS = (
    *SCALE_COLUMNS,
    "n_units",
    "n_units_rated",
    "n_raters",
    "n_ratings",
    "n_pairs",
    *[c for s in DIMENSION_STATS for c in (s, f"{s}_ci_low", f"{s}_ci_high")],
    "small_n",
    "kappa_paradox",
    "notes",
)
RATER_COLUMNS = (
    "rater_id",
    "role",
    *SCALE_COLUMNS,
    "n",
    "n_units",
    "n_tasks",
    "n_item_pairs",
    *[c for s in RATER_STATS for c in (s, f"{s}_ci_low", f"{s}_ci_high")],
    "small_n",
    "kappa_paradox",
    "notes",
)


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
    values: np.ndarray
    note: str = ""

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


@dataclass(frozen=True)
class AgreementReport:
    """Agreement per dimension and per rater for one comparison, with the SQL behind it."""

    comparison: str
    coarse: bool
    level: str | None
    n_boot: int
    seed: int
    dimensions: pd.DataFrame
    raters: pd.DataFrame
    coefficients: pd.DataFrame
    sql: dict[str, str]


# --- scales ------------------------------------------------------------------------------------------------


def _check_args(comparison: str, level: str | None, n_boot: int) -> None:
    if comparison not in COMPARISONS:
        raise ValueError(f"comparison must be one of {', '.join(COMPARISONS)}, not {comparison!r}")
    if level is not None and level not in co.LEVELS:
        raise ValueError(f"level must be one of {', '.join(co.LEVELS)}, not {level!r}")
    if n_boot < 0:
        raise ValueError(f"n_boot must be 0 (no intervals) or more, not {n_boot}")


def _scale(row, level: str | None, coarse: bool) -> Scale:
    levels, coarse_of = tuple(row.levels), tuple(row.coarse)
    kind = row.kind
    lvl = level or DEFAULT_LEVEL.get(kind, "nominal")
    note = ""
    if level and level != "nominal" and kind not in ("ordinal", "ranking"):
        note = f"{level} level on a {kind} scale uses the catalogue's level order"
    to_coarse, coarse_levels = co.coarse_matrix(levels, coarse_of)
    if coarse:
        return Scale(
            row.rubric,
            row.dimension,
            kind,
            lvl,
            coarse_levels,
            to_coarse,
            np.eye(len(coarse_levels)),
            co.level_values(coarse_levels),
            note,
        )
    return Scale(
        row.rubric, row.dimension, kind, lvl, levels, np.eye(len(levels)), to_coarse, co.level_values(levels), note
    )


def _scales(con: duckdb.DuckDBPyConnection, filters: Filters, level: str | None, coarse: bool) -> dict:
    return {(r.rubric, r.dimension): _scale(r, level, coarse) for r in st.scales(con, filters).itertuples()}


def _scale_cells(s: Scale) -> dict:
    return {
        "rubric": s.rubric,
        "dimension": s.dimension,
        "kind": s.kind,
        "level": s.level,
        "weights": s.weights,
        "scale": " < ".join(s.levels) if s.ordered else " | ".join(s.levels),
    }


def _rng(seed: int, *key: str) -> np.random.Generator:
    """A generator seeded by the report seed and the row's key, so a row's interval does not depend on others."""
    return np.random.default_rng([seed, zlib.crc32("\x1f".join(key).encode())])


# --- building rows of coefficients -------------------------------------------------------------------------


def _coef(name: str, value: float, n: int, lo: float, hi: float, reason: str | None, applies: bool = True) -> dict:
    """One coefficient in long form; `applies=False` marks one that does not exist for this scale (no note)."""
    if math.isnan(value):
        lo = hi = math.nan
    return {
        "statistic": name,
        "value": value,
        "ci_low": float(lo),
        "ci_high": float(hi),
        "n": n,
        "reason": reason,
        "applies": applies,
    }


def _wide(base: dict, coefs: list[dict], stats: tuple[str, ...]) -> dict:
    row = dict(base)
    note = row.pop("_note", "")
    for s in stats:
        row[s] = row[f"{s}_ci_low"] = row[f"{s}_ci_high"] = math.nan
    notes = [note] if note else []
    for c in coefs:
        row[c["statistic"]], row[f"{c['statistic']}_ci_low"], row[f"{c['statistic']}_ci_high"] = (
            c["value"],
            c["ci_low"],
            c["ci_high"],
        )
        if c["reason"] and c["applies"]:
            notes.append(f"{LABELS.get(c['statistic'], c['statistic'])}: {c['reason']}")
    row["notes"] = "; ".join(dict.fromkeys(notes))
    return row


def _one_level(marginals: np.ndarray, levels: tuple[str, ...]) -> str:
    used = np.flatnonzero(marginals > co.EPS)
    return f"'{levels[used[0]]}'" if len(used) == 1 else "one level"


def _boot(n_boot: int, width: int, draw, compute) -> dict[str, np.ndarray]:
    """Concatenate `compute(draw(batch))` over batches of resamples (bounded memory)."""
    parts: list[dict] = [compute(draw(b)) for b in co.chunks(n_boot, width)] if n_boot else []
    if not parts:
        return {}
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0] if np.ndim(parts[0][k]) == 1}


def _paradox(pa: float, kappa: float) -> bool:
    return bool(pa >= co.PARADOX_AGREEMENT and (math.isnan(kappa) or kappa < co.PARADOX_KAPPA))


# --- multi-rater coefficients from value-count patterns ----------------------------------------------------


def _pattern_counts(group: pd.DataFrame, s: Scale) -> tuple[np.ndarray, np.ndarray]:
    counts = np.array(group["counts"].tolist(), dtype=float).reshape(len(group), s.full_size)
    return counts @ s.to_levels, group["n_units"].to_numpy(dtype=float)


def _multi_rater_row(s: Scale, counts, w, n_raters: int, n_ratings: int, n_boot: int, seed: int) -> tuple[dict, list]:
    def compute(weights: np.ndarray) -> dict:
        a = co.multi_rater_arrays(counts, weights, s.values, s.level, s.weights, s.to_coarse)
        a["gwet_ac1"], a["gwet_ac2"] = a["gwet_ac"], a["weighted_gwet_ac"]
        return a

    point = compute(w[None])
    rng = _rng(seed, s.rubric, s.dimension)
    boot = _boot(n_boot, max(len(w), s.values.size**2), lambda b: co.resample_cells(w, b, rng), compute)
    n_units = int(round(point["units_pairable"][0]))
    one = _one_level(point["marginals"][0], s.levels)
    common = None
    if n_raters < 2:
        common = "only one rater"
    elif n_units == 0:
        common = "no unit has ratings from two or more raters"
    coefs = []
    for name, why in (
        ("percent_agreement", None),
        ("coarse_agreement", None),
        ("krippendorff_alpha", f"every pairable value is {one}: expected disagreement is 0, alpha is 0/0"),
        ("fleiss_kappa", f"every rating is {one}: chance agreement is 1, kappa is 0/0"),
        ("gwet_ac1", "the scale has a single level"),
        ("gwet_ac2", "the scale has a single level"),
        ("brennan_prediger", "the scale has a single level"),
    ):
        value = float(point[name][0])
        reason = common or (why if math.isnan(value) else None)
        applies = not (name == "gwet_ac2" and s.weights == "none")
        if not applies:
            value, reason = math.nan, "not applicable: nominal level, AC2 with no weights is AC1"
        lo, hi = co.interval(boot[name]) if name in boot else (math.nan, math.nan)
        coefs.append(_coef(name, value, n_units, lo, hi, reason, applies))
    base = {
        **_scale_cells(s),
        "n_units": n_units,
        "n_units_rated": int(round(point["units"][0])),
        "n_raters": n_raters,
        "n_ratings": n_ratings,
        "n_pairs": math.nan,
        "small_n": n_units < MIN_UNITS,
        "kappa_paradox": _paradox(float(point["percent_agreement"][0]), float(point["fleiss_kappa"][0])),
        "_note": s.note,
    }
    return base, coefs


def _multi_rater_table(con, filters: Filters, comparison: str, scales: dict, n_boot: int, seed: int, frames=None):
    roles = COMPARISONS[comparison]
    f = st.role_filter(filters, None if roles is None else (roles[0],))
    patterns = frames.patterns if frames is not None and frames.patterns is not None else st.value_patterns(con, f)
    level_counts = frames.level_counts if frames is not None else st.rater_level_counts(con, f)
    totals = level_counts.groupby(["rubric", "dimension"]).agg(n_raters=("rater_id", "nunique"), n_ratings=("n", "sum"))
    rows, long = [], []
    for (rubric, dimension), group in patterns.groupby(["rubric", "dimension"], sort=True):
        s = scales.get((rubric, dimension))
        if s is None:
            continue
        counts, w = _pattern_counts(group, s)
        t = totals.loc[(rubric, dimension)]
        base, coefs = _multi_rater_row(s, counts, w, int(t["n_raters"]), int(t["n_ratings"]), n_boot, seed)
        rows.append(_wide(base, coefs, DIMENSION_STATS))
        long += [{"scope": "dimension", "rubric": rubric, "dimension": dimension, "rater_id": None, **c} for c in coefs]
    return rows, long


# --- pair coefficients from confusion counts ---------------------------------------------------------------


def _tables(df: pd.DataFrame, keys: list[str], q_of) -> dict[tuple, np.ndarray]:
    """One (full scale x full scale) confusion table per key from long confusion counts."""
    out: dict[tuple, np.ndarray] = {}
    for key, g in df.groupby(keys, sort=True):
        q = q_of(key)
        if q is None:
            continue
        t = np.zeros((q, q))
        i, j = g["subject_index"].to_numpy(int), g["reference_index"].to_numpy(int)
        ok = (i < q) & (j < q)
        np.add.at(t, (i[ok], j[ok]), g["n"].to_numpy(float)[ok])
        out[key] = t
    return out


PAIR_CHECKS = (
    ("exact_agreement", None),
    ("percent_agreement", None),
    ("coarse_agreement", None),
    ("cohen_kappa", "both sides used {one} only: chance agreement is 1, kappa is 0/0"),
    ("weighted_kappa", "both sides used {one} only: chance agreement is 1, kappa is 0/0"),
    ("gwet_ac1", "the scale has a single level"),
    ("gwet_ac2", "the scale has a single level"),
    ("krippendorff_alpha", "every value is {one}: expected disagreement is 0, alpha is 0/0"),
    ("fleiss_kappa", "every value is {one}: chance agreement is 1, Scott's pi is 0/0"),
    ("brennan_prediger", "the scale has a single level"),
    ("mean_difference", None),
)


def _pair_compute(s: Scale):
    """The function from (batch x q x q) tables to every pair coefficient, named as in the report."""

    def compute(tables: np.ndarray) -> dict:
        a = co.pair_arrays(tables, s.values, s.level, s.weights, s.to_coarse)
        a["exact_agreement"] = a["percent_agreement"] = a["agreement"]
        a["weighted_kappa"], a["gwet_ac1"], a["gwet_ac2"] = (
            a["weighted_cohen_kappa"],
            a["gwet_ac"],
            a["weighted_gwet_ac"],
        )
        a["fleiss_kappa"] = a["scott_pi"]
        return a

    return compute


def _group_boot(
    tables: np.ndarray, keys: list[tuple], n_boot: int, seed: int, compute, names=None
) -> dict[str, np.ndarray]:
    """(groups x n_boot) bootstrap samples of every coefficient (or of `names`): each group's cells resampled
    with its own seed."""
    if not n_boot or not len(tables):
        return {}
    cells = tables[0].size
    per_block = max(1, co.BOOT_BUDGET // (n_boot * cells))
    parts: dict[str, list] = {}
    for start in range(0, len(tables), per_block):
        block = tables[start : start + per_block]
        draws = np.stack(
            [co.resample_cells(t, n_boot, _rng(seed, *k)) for t, k in zip(block, keys[start:], strict=False)]
        )
        a = compute(draws.reshape((-1, *tables.shape[1:])))
        for name, v in a.items():
            if np.ndim(v) == 1 and (names is None or name in names):
                parts.setdefault(name, []).append(v.reshape(len(block), n_boot))
    return {name: np.concatenate(v) for name, v in parts.items()}


def _scatter(bounds: tuple[np.ndarray, np.ndarray], rows: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Interval bounds of some groups placed at their rows among `size` groups (NaN elsewhere)."""
    out = (np.full(size, np.nan), np.full(size, np.nan))
    out[0][rows], out[1][rows] = bounds
    return out


def _pair_rows(
    s: Scale, keys: list[tuple], tables: list[np.ndarray], taus: list, n_boot: int, seed: int, reference: str
) -> list[tuple[dict, list]]:
    """Base cells and coefficients for confusion tables sharing one scale (vectorised over the tables)."""
    t = np.einsum("ki,gkl,lj->gij", s.to_levels, np.stack(tables), s.to_levels)
    compute = _pair_compute(s)
    point = compute(t)
    # A group without pairs has no interval (every resample is empty): resample only the others. Each group
    # draws from its own seeded generator, so leaving some out does not change the others' draws.
    used = np.flatnonzero(t.sum(axis=(1, 2)) > 0)
    boot = _group_boot(t[used], [keys[g] for g in used], n_boot, seed, compute, {name for name, _ in PAIR_CHECKS})
    bounds = {name: _scatter(co.intervals(v), used, len(keys)) for name, v in boot.items()}
    out = []
    for g, key in enumerate(keys):
        n = int(round(t[g].sum()))
        one = _one_level(t[g].sum(axis=0) + t[g].sum(axis=1), s.levels)
        no_pairs = f"no unit shared with {reference}" if n == 0 else None
        coefs = []
        for name, why in PAIR_CHECKS:
            value = float(point[name][g])
            reason = no_pairs or (why.format(one=one) if why and math.isnan(value) else None)
            applies = True
            if name in ("weighted_kappa", "gwet_ac2") and s.weights == "none":
                value, reason, applies = math.nan, "not applicable: nominal level, no weights", False
            if name == "mean_difference" and not s.ordered:
                value, reason, applies = math.nan, "not applicable: nominal levels have no direction", False
            lo, hi = (bounds[name][0][g], bounds[name][1][g]) if name in bounds else (math.nan, math.nan)
            coefs.append(_coef(name, value, n, lo, hi, reason, applies))
        n_item_pairs = 0
        if taus[g] is not None:
            n_item_pairs, tau_coefs = _tau_coefs(np.asarray(taus[g], dtype=float), n_boot, seed, key)
            coefs += tau_coefs
        base = {
            **_scale_cells(s),
            "n": n,
            "n_item_pairs": n_item_pairs,
            "small_n": n < MIN_UNITS,
            "kappa_paradox": _paradox(float(point["agreement"][g]), float(point["cohen_kappa"][g])),
            "_note": s.note,
        }
        out.append((base, coefs))
    return out


def _tau_coefs(pairs: np.ndarray, n_boot: int, seed: int, key: tuple) -> tuple[int, list]:
    """Kendall's tau-b and preference agreement of item-pair counts, with intervals over resampled pairs."""
    n = int(pairs.sum())
    point = co.tau_arrays(pairs)
    boot = _group_boot(pairs[None], [("tau", *key)], n_boot, seed, co.tau_arrays)
    tau = co.kendall_tau_b(*pairs)
    pref = float(point["preference_agreement"][0])
    coefs = []
    for name, value, sample, reason in (
        ("kendall_tau_b", tau.value, "tau_b", tau.reason),
        ("preference_agreement", pref, "preference_agreement", None if n else "no item pairs to compare"),
    ):
        lo, hi = co.intervals(boot[sample]) if sample in boot else ((math.nan,), (math.nan,))
        coefs.append(_coef(name, value, n, float(lo[0]), float(hi[0]), reason))
    return n, coefs


def _sides(comparison: str) -> tuple[str | None, str | None]:
    roles = COMPARISONS[comparison]
    return (None, None) if roles is None else roles


class PairFrames(NamedTuple):
    """The statistics a report's tables share (fetched once per report)."""

    confusion: pd.DataFrame
    shared: pd.DataFrame
    ranks: pd.DataFrame
    patterns: pd.DataFrame | None  # value patterns among raters of one role (None: fetch them on their own)
    level_counts: pd.DataFrame  # rater_level_counts of the subject side


def _pair_frames(con, filters: Filters, comparison: str, dimension_units: bool = True) -> PairFrames:
    """Confusion counts, shared units (per rater; per dimension too when the sides differ and
    `dimension_units`), ranking pairs and, among raters of one role, the value patterns (else None)."""
    subject, reference = _sides(comparison)
    pairs = st.unit_pairs(con, filters, subject, reference, dimension_units and subject != reference)
    if pairs is not None:
        confusion, shared, patterns = pairs
    else:
        confusion = st.pair_confusion(con, filters, subject, reference)
        shared = st.shared_units(con, filters, subject, reference)
        patterns = None  # value patterns (multi-rater coefficients) computed on their own
    ranks = st.ranking_pairs(con, filters, subject, reference)
    level_counts = st.rater_level_counts(con, st.role_filter(filters, None if subject is None else (subject,)))
    return PairFrames(confusion, shared, ranks, patterns, level_counts)


TAU_COLUMNS = ["concordant", "discordant", "tied_subject", "tied_reference", "tied_both"]


def _rater_table(con, filters: Filters, comparison: str, scales: dict, n_boot: int, seed: int, frames=None):
    frames = frames or _pair_frames(con, filters, comparison, dimension_units=False)
    confusion, shared, ranks = frames.confusion, frames.shared, frames.ranks
    q_of = lambda key: scales[key[1:]].full_size if key[1:] in scales else None  # noqa: E731
    tables = _tables(confusion, ["rater_id", "rubric", "dimension"], q_of)
    per_rater = shared[shared["rater_id"].notna()].set_index(["rater_id", "rubric", "dimension"])
    tau = ranks.set_index(["rater_id", "rubric", "dimension"])
    subject, _ = _sides(comparison)
    subjects = frames.level_counts
    roles = subjects.groupby("rater_id")["role"].agg(lambda r: ",".join(sorted(set(r)))).to_dict()
    for key in subjects[["rater_id", "rubric", "dimension"]].drop_duplicates().itertuples(index=False, name=None):
        if key not in tables and key[1:] in scales:  # rated, but no unit shared with the reference side
            tables[key] = np.zeros((scales[key[1:]].full_size,) * 2)
    info = {
        k: (int(u), int(t)) for k, u, t in zip(per_rater.index, per_rater["n_units"], per_rater["n_tasks"], strict=True)
    }
    tau_of = {k: row for k, row in zip(tau.index, tau[TAU_COLUMNS].to_numpy(), strict=True)}
    by_scale: dict[tuple, list[tuple]] = {}
    for key in sorted(tables):
        by_scale.setdefault(key[1:], []).append(key)
    rows, long = [], []
    for scale_key, keys in sorted(by_scale.items()):
        results = _pair_rows(
            scales[scale_key],
            keys,
            [tables[k] for k in keys],
            [tau_of.get(k) for k in keys],
            n_boot,
            seed,
            REFERENCE_NAME[comparison],
        )
        for key, (base, coefs) in zip(keys, results, strict=True):
            n_units, n_tasks = info.get(key, (0, 0))
            base = {"rater_id": key[0], "role": roles.get(key[0], ""), **base, "n_units": n_units, "n_tasks": n_tasks}
            coefs = [c for c in coefs if c["statistic"] in RATER_STATS]
            rows.append(_wide(base, coefs, RATER_STATS))
            long += [{"scope": "rater", "rubric": key[1], "dimension": key[2], "rater_id": key[0], **c} for c in coefs]
    return rows, long


def _pooled_dimension_table(con, filters: Filters, comparison: str, scales: dict, n_boot: int, seed: int, frames):
    confusion, shared, ranks = frames.confusion, frames.shared, frames.ranks
    q_of = lambda key: scales[key].full_size if key in scales else None  # noqa: E731
    tables = _tables(confusion, ["rubric", "dimension"], q_of)
    per_dim = shared[shared["rater_id"].isna()].set_index(["rubric", "dimension"])["n_units"]
    ratings = shared[shared["rater_id"].notna()].groupby(["rubric", "dimension"])["n_units"].sum()
    raters = confusion.groupby(["rubric", "dimension"])["rater_id"].nunique()
    tau = ranks.groupby(["rubric", "dimension"])[TAU_COLUMNS].sum()
    rows, long = [], []
    for key, table in tables.items():
        s = scales[key]
        tau_counts = tau.loc[key].to_numpy() if key in tau.index else None
        ((base, coefs),) = _pair_rows(
            s, [("pooled", *key)], [table], [tau_counts], n_boot, seed, REFERENCE_NAME[comparison]
        )
        n_pairs = base.pop("n")
        base.pop("n_item_pairs")
        base.update(
            n_units=int(per_dim.get(key, 0)),
            n_units_rated=math.nan,
            n_raters=int(raters.get(key, 0)),
            n_ratings=int(ratings.get(key, 0)),
            n_pairs=n_pairs,
        )
        base["small_n"] = base["n_units"] < MIN_UNITS
        coefs = [c for c in coefs if c["statistic"] in DIMENSION_STATS]
        rows.append(_wide(base, coefs, DIMENSION_STATS))
        long += [{"scope": "dimension", "rubric": key[0], "dimension": key[1], "rater_id": None, **c} for c in coefs]
    return rows, long


# --- public entry points -----------------------------------------------------------------------------------


def _frame(rows: list[dict], columns: tuple[str, ...], sort: list[str]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=list(columns))
    return df.sort_values(sort, kind="stable").reset_index(drop=True) if len(df) else df


LONG_COLUMNS = (
    "scope",
    "rubric",
    "dimension",
    "rater_id",
    "statistic",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "reason",
    "applies",
)


def dimension_agreement(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTER,
    comparison: str = "contractor_vs_researcher",
    coarse: bool = False,
    level: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Agreement per rubric dimension (DIMENSION_COLUMNS) for one comparison."""
    return _dimension_rows(con, filters, comparison, coarse, level, n_boot, seed)[0]


def _dimension_rows(con, filters, comparison, coarse, level, n_boot, seed, frames=None):
    _check_args(comparison, level, n_boot)
    scales = _scales(con, filters, level, coarse)
    if COMPARISONS[comparison] is not None and COMPARISONS[comparison][0] != COMPARISONS[comparison][1]:
        frames = frames or _pair_frames(con, filters, comparison)
        rows, long = _pooled_dimension_table(con, filters, comparison, scales, n_boot, seed, frames)
    else:
        rows, long = _multi_rater_table(con, filters, comparison, scales, n_boot, seed, frames)
    return _frame(rows, DIMENSION_COLUMNS, ["rubric", "dimension"]), long


def rater_agreement(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTER,
    comparison: str = "contractor_vs_researcher",
    coarse: bool = False,
    level: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Agreement of each rater with the comparison's reference side, per dimension (RATER_COLUMNS)."""
    return _rater_rows(con, filters, comparison, coarse, level, n_boot, seed)[0]


def _rater_rows(con, filters, comparison, coarse, level, n_boot, seed, frames=None):
    _check_args(comparison, level, n_boot)
    scales = _scales(con, filters, level, coarse)
    rows, long = _rater_table(con, filters, comparison, scales, n_boot, seed, frames)
    return _frame(rows, RATER_COLUMNS, ["rubric", "dimension", "rater_id"]), long


def agreement_report(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTER,
    comparison: str = "contractor_vs_researcher",
    coarse: bool = False,
    level: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> AgreementReport:
    """Per-dimension and per-rater agreement for one comparison, with intervals, notes and the SQL used."""
    _check_args(comparison, level, n_boot)
    frames = _pair_frames(con, filters, comparison)
    dims, dlong = _dimension_rows(con, filters, comparison, coarse, level, n_boot, seed, frames)
    raters, rlong = _rater_rows(con, filters, comparison, coarse, level, n_boot, seed, frames)
    coefficients = pd.DataFrame(dlong + rlong, columns=list(LONG_COLUMNS))
    return AgreementReport(
        comparison, coarse, level, n_boot, seed, dims, raters, coefficients, sql_text(filters, comparison)
    )


def _pair_scale(con, filters: Filters, rubric: str, dimension: str, level: str | None, coarse: bool) -> Scale:
    scales = _scales(con, Filters(rubric=rubric), level, coarse)
    if (rubric, dimension) not in scales:
        raise ValueError(f"rubric {rubric!r} has no dimension {dimension!r} in the store")
    return scales[(rubric, dimension)]


def confusion_table(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    rubric: str,
    dimension: str,
    comparison: str = "contractor_vs_researcher",
    rater_id: str | None = None,
    coarse: bool = False,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """The (subject x reference) count matrix of one dimension over the full scale, and its levels."""
    _check_args(comparison, None, 0)
    s = _pair_scale(con, filters, rubric, dimension, None, coarse)
    f = filters.but(rubric=rubric, dimensions=(dimension,))
    if rater_id is not None:
        f = f.but(raters=(rater_id,))
    subject, reference = _sides(comparison)
    df = st.pair_confusion(con, f, subject, reference)
    table = _tables(df.assign(k=0), ["k"], lambda _k: s.full_size).get((0,), np.zeros((s.full_size,) * 2))
    return s.to_levels.T @ table @ s.to_levels, s.levels


def confusion_matrix(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    rubric: str,
    dimension: str,
    comparison: str = "contractor_vs_researcher",
    rater_id: str | None = None,
    coarse: bool = False,
) -> pd.DataFrame:
    """Long frame subject_level, reference_level, n over the full scale (levels as ordered categoricals).

    Among raters of one role every ordered pair of raters appears (the matrix is symmetric).
    """
    table, levels = confusion_table(con, filters, rubric, dimension, comparison, rater_id, coarse)
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
    filters: Filters,
    rubric: str,
    dimension: str,
    comparison: str = "contractor_vs_researcher",
    rater_id: str | None = None,
) -> ParadoxDiagnostic:
    """The kappa-paradox diagnostic (marginals, AC1 and one sentence) of one dimension's confusion matrix."""
    table, levels = confusion_table(con, filters, rubric, dimension, comparison, rater_id)
    return co.kappa_paradox(table, levels)


def pairwise_matrix(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    rubric: str,
    dimension: str,
    coarse: bool = False,
    level: str | None = None,
) -> pd.DataFrame:
    """Every pair of raters on one dimension (both orientations): n shared units, agreement and kappas."""
    _check_args("all_raters", level, 0)
    s = _pair_scale(con, filters, rubric, dimension, level, coarse)
    df = st.rater_pair_confusion(con, filters, rubric, dimension)
    columns = ["rater_a", "rater_b", "role_a", "role_b", "n", "percent_agreement", "coarse_agreement"]
    columns += ["cohen_kappa", "weighted_kappa", "small_n"]
    if df.empty:
        return pd.DataFrame(columns=columns)
    pairs = df[["rater_a", "rater_b", "role_a", "role_b"]].drop_duplicates(["rater_a", "rater_b"])
    pairs = pairs.reset_index(drop=True)
    pid = df.merge(pairs.reset_index(), on=["rater_a", "rater_b"], suffixes=("", "_p"))["index"].to_numpy()
    q = s.full_size
    t = np.zeros((len(pairs), q, q))
    np.add.at(t, (pid, df["index_a"].to_numpy(int), df["index_b"].to_numpy(int)), df["n"].to_numpy(float))
    t = np.einsum("ki,pkl,lj->pij", s.to_levels, t, s.to_levels)
    a = co.pair_arrays(t, s.values, s.level, s.weights, s.to_coarse)
    out = pairs.assign(
        n=t.sum(axis=(1, 2)).astype(int),
        percent_agreement=a["agreement"],
        coarse_agreement=a["coarse_agreement"],
        cohen_kappa=a["cohen_kappa"],
        weighted_kappa=a["weighted_cohen_kappa"] if s.weights != "none" else np.nan,
    )
    out["small_n"] = out["n"] < MIN_UNITS
    flipped = out.rename(columns={"rater_a": "rater_b", "rater_b": "rater_a", "role_a": "role_b", "role_b": "role_a"})
    return pd.concat([out, flipped[out.columns]], ignore_index=True)[columns]


def sql_text(filters: Filters = NO_FILTER, comparison: str = "contractor_vs_researcher") -> dict[str, str]:
    """The SQL behind a report for this filter and comparison ({name: text with ? parameters})."""
    _check_args(comparison, None, 0)
    subject, reference = _sides(comparison)
    s_where, _ = st.role_filter(filters, None if subject is None else (subject,)).where()
    r_where, _ = st.reference_filter(filters, reference).where()
    out = {"scales": st.scales_sql()}
    same = subject == reference
    if same:
        out["value_patterns"] = st.value_patterns_sql(
            st.role_filter(filters, None if subject is None else (subject,)).where("r")[0]
        )
    out["rater_level_counts"] = st.rater_level_counts_sql(s_where)
    # Confusion counts and shared units come from per-unit level counts (no self-join); the self-join and
    # `shared_units` remain the fallback when a unit holds more ratings of one level than the packing can, and
    # give the number of tasks on dimensions with several targets.
    out["pair_confusion"] = st.unit_level_counts_sql(s_where, r_where, not same)
    out["shared_units"] = st.shared_units_sql(s_where, r_where, same)
    out["ranking_pairs"] = st.ranking_pairs_sql(s_where, r_where)
    return out


# --- the command line's JSON (DESIGN.md contract) ----------------------------------------------------------

# Statistics that do not apply to multi-rater value counts (they need a subject and a reference side).
PAIR_ONLY = ("n_pairs", "cohen_kappa", "weighted_kappa", "mean_difference", "kendall_tau_b", "preference_agreement")
CONTRACT_CI = "cohen_kappa"  # the raters[] entry's `ci95` is the interval of Cohen's kappa


def _plain(v):
    """A JSON-ready Python value: NaN -> None, numpy scalars -> Python numbers."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _records(df: pd.DataFrame, drop: tuple[str, ...] = ()) -> list[dict]:
    cols = [c for c in df.columns if not any(c == d or c.startswith(f"{d}_ci_") for d in drop)]
    return [{c: _plain(v) for c, v in zip(cols, row, strict=True)} for row in df[cols].itertuples(index=False)]


def contract_payload(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTER,
    level: str | None = None,
    coarse: bool = False,
    n_boot: int = 1000,
    seed: int = 0,
) -> dict:
    """The `agreement --json` object: dimensions[] among all raters, raters[] contractors vs researchers."""
    dims = dimension_agreement(con, filters, "all_raters", coarse, level, n_boot, seed)
    raters = rater_agreement(con, filters, "contractor_vs_researcher", coarse, level, n_boot, seed)
    rater_rows = _records(raters)
    for row in rater_rows:
        row["ci95"] = [row[f"{CONTRACT_CI}_ci_low"], row[f"{CONTRACT_CI}_ci_high"]]
        row["ci95_of"] = CONTRACT_CI
    return {
        "comparison": {"dimensions": "all_raters", "raters": "contractor_vs_researcher"},
        "level": level or "default for each scale kind",
        "coarse": coarse,
        "n_boot": n_boot,
        "seed": seed,
        "min_units": MIN_UNITS,
        "dimensions": _records(dims, drop=PAIR_ONLY),
        "raters": rater_rows,
    }


def _fmt(v, ci: tuple | None = None) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        text = f"{v:.3f}"
        if ci and ci[0] is not None:
            text += f" [{ci[0]:.2f}, {ci[1]:.2f}]"
        return text
    return str(v)


def contract_text(payload: dict) -> str:
    """The readable table the command line prints without --json."""
    lines = ["Agreement among all raters, per dimension"]
    dcols = ("rubric", "dimension", "level", "n_units", "n_raters", "percent_agreement", "krippendorff_alpha")
    dcols += ("fleiss_kappa", "gwet_ac1")
    lines += _text_table(payload["dimensions"], dcols, ("krippendorff_alpha",))
    lines += ["", "Each contractor against researcher labels"]
    rcols = ("rater_id", "rubric", "dimension", "n", "exact_agreement", "coarse_agreement", "cohen_kappa")
    rcols += ("weighted_kappa", "mean_difference")
    lines += _text_table(payload["raters"], rcols, ("cohen_kappa",)) if payload["raters"] else ["  (no shared units)"]
    return "\n".join(lines)


def _text_table(rows: list[dict], cols: tuple[str, ...], with_ci: tuple[str, ...]) -> list[str]:
    cells = [
        [_fmt(r[c], (r.get(f"{c}_ci_low"), r.get(f"{c}_ci_high")) if c in with_ci else None) for c in cols]
        for r in rows
    ]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(cols)]
    out = ["  " + "  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))]
    out += ["  " + "  ".join(x.ljust(w) for x, w in zip(row, widths, strict=True)) for row in cells]
    out += [
        f"  note: {r['rubric']}/{r['dimension']}{' ' + r['rater_id'] if 'rater_id' in r else ''}: {r['notes']}"
        for r in rows
        if r.get("notes")
    ]
    out += [f"  small n (< {MIN_UNITS} units): read the interval" for _ in [0] if any(r.get("small_n") for r in rows)]
    return out
