"""Agreement reports: per dimension and per rater, every coefficient with its task-level interval, n and notes.

    agreement_report(con, filters, comparison="contractor_vs_researcher", coarse=False, level=None,
                     n_boot=1000, seed=0) -> AgreementReport
        .dimensions  one row per (rubric, dimension)            DIMENSION_COLUMNS
        .raters      one row per (rater_id, rubric, dimension)  RATER_COLUMNS (the raters the filter shows)
        .team        the same for every rater of the subject role, point estimates (team medians read it)
        .ceiling     researcher vs researcher per dimension     PAIR_SET_COLUMNS
        .coefficients the same numbers in long form (value, interval, its method, undefined resamples, n, reason)
        .queries     the named SQL that ran (`.sql`: {name: text})

`comparison` is one of pairs.COMPARISONS: contractor_vs_researcher (each contractor against researcher labels;
per dimension all contractor-researcher pairs pooled), among_contractors, researcher_vs_researcher and
all_raters (per dimension: multi-rater coefficients from per-unit value counts). Who is paired with whom under
which filter is analytics/agreement/pairs.py; scales analytics/agreement/scales.py; intervals (tasks resampled)
analytics/agreement/intervals.py; coefficients analytics/agreement/coefficients.py.

Every row carries n_units and n_tasks; fewer than MIN_TASKS tasks sets small_n. A coefficient that is
undefined is NaN with a reason in `notes`; one that does not exist for the scale (weighted kappa at nominal
level) is NaN without a note (`applies` False in long form).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, cast

import duckdb
import numpy as np
import pandas as pd

from analytics.agreement import coefficients as co
from analytics.agreement import counts as ct
from analytics.agreement import intervals as iv
from analytics.agreement import pairs as pr
from analytics.agreement.scales import Scale, scale_cells, scales
from analytics.core import rater_ids as an
from analytics.core.filters import Filters
from analytics.core.queries import Query, QueryLog

COMPARISONS = pr.COMPARISONS
NO_FILTER = Filters()  # frozen, so a safe default argument
REFERENCE_NAME = {
    "contractor_vs_researcher": "a researcher",
    "among_contractors": "another contractor",
    "researcher_vs_researcher": "another researcher",
    "all_raters": "another rater",
    "pooled": "a researcher",
    "ceiling": "another researcher",
    "rater_pairs": "the other rater",
}
# Below this many tasks (the independent clusters) a figure is flagged small_n, and ranked views never put it
# first: indicative only, read its interval.
MIN_TASKS = 30
MIN_UNITS = MIN_TASKS  # the earlier name, kept for callers

LABELS = {
    "percent_agreement": "percent agreement",
    "exact_agreement": "exact agreement",
    "coarse_agreement": "coarse agreement",
    "krippendorff_alpha": "Krippendorff's alpha",
    "fleiss_kappa": "Fleiss' kappa",
    "scott_pi": "Scott's pi",
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
PAIR_SET_STATS = (
    "exact_agreement",
    "coarse_agreement",
    "cohen_kappa",
    "weighted_kappa",
    "scott_pi",
    "gwet_ac1",
    "gwet_ac2",
    "krippendorff_alpha",
    "mean_difference",
)
SCALE_COLUMNS = ("rubric", "dimension", "kind", "level", "weights", "scale")
DIMENSION_COLUMNS = (
    *SCALE_COLUMNS,
    "n_units",
    "n_units_rated",
    "n_tasks",
    "n_raters",
    "n_ratings",
    "n_pairs",
    *[c for s in DIMENSION_STATS for c in (s, f"{s}_ci_low", f"{s}_ci_high")],
    "fleiss_kappa_name",
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
PAIR_SET_COLUMNS = (
    *SCALE_COLUMNS,
    "n",
    "n_units",
    "n_tasks",
    *[c for s in PAIR_SET_STATS for c in (s, f"{s}_ci_low", f"{s}_ci_high")],
    "small_n",
    "notes",
)
LONG_COLUMNS = (
    "scope",
    "rubric",
    "dimension",
    "rater_id",
    "statistic",
    "value",
    "ci_low",
    "ci_high",
    "ci_method",
    "boot_undefined",
    "n",
    "n_tasks",
    "reason",
    "applies",
)


@dataclass(frozen=True)
class AgreementReport:
    """Agreement per dimension and per rater for one comparison, the ceiling, and the SQL behind it."""

    comparison: str
    coarse: bool
    level: str | None
    n_boot: int
    seed: int
    dimensions: pd.DataFrame
    raters: pd.DataFrame
    team: pd.DataFrame
    ceiling: pd.DataFrame
    coefficients: pd.DataFrame
    queries: tuple[Query, ...]

    @property
    def sql(self) -> dict[str, str]:
        """The SQL that ran, by name."""
        return {q.name: q.sql for q in self.queries}


@dataclass(frozen=True)
class Ceiling:
    """The researcher ceiling per dimension (ceiling_table) and the queries that made it."""

    table: pd.DataFrame
    queries: tuple[Query, ...]


def ceiling_scope(filters: Filters) -> Filters:
    """What of a filter the researcher ceiling depends on: rubric and dimensions (it spans all dates and raters,
    pairs.ceiling_sides), so a caller may keep one ceiling across changes of the other filters."""
    return Filters(rubric=filters.rubric, dimensions=filters.dimensions)


def researcher_ceiling(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTER,
    coarse: bool = False,
    level: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> Ceiling:
    """ceiling_table under `ceiling_scope(filters)`, with the queries that ran (for agreement_report's `ceiling`)."""
    queries: list[Query] = QueryLog()
    table = ceiling_table(con, ceiling_scope(filters), coarse, level, n_boot, seed, queries)
    return Ceiling(table, tuple(queries))


def _check_args(comparison: str, level: str | None, n_boot: int) -> None:
    if comparison not in COMPARISONS:
        raise ValueError(f"comparison must be one of {', '.join(COMPARISONS)}, not {comparison!r}")
    if level is not None and level not in co.LEVELS:
        raise ValueError(f"level must be one of {', '.join(co.LEVELS)}, not {level!r}")
    if n_boot < 0:
        raise ValueError(f"n_boot must be 0 (no intervals) or more, not {n_boot}")


# --- rows of coefficients ------------------------------------------------------------------------------------


def _coef(
    name: str, value: float, n: int, n_tasks: int, ci: iv.Interval, reason: str | None, applies: bool = True
) -> dict:
    """One coefficient in long form; `applies=False` marks one that does not exist for this scale (no note)."""
    if math.isnan(value):
        ci = iv.NO_INTERVAL
    return {
        "statistic": name,
        "value": value,
        "ci_low": float(ci.low),
        "ci_high": float(ci.high),
        "ci_method": ci.method,
        "boot_undefined": ci.undefined,
        "n": n,
        "n_tasks": n_tasks,
        "reason": reason,
        "applies": applies,
        "_ci_reason": ci.reason,
    }


def _wide(base: dict, coefs: list[dict], stats: tuple[str, ...], n_boot: int) -> dict:
    row = dict(base)
    note = row.pop("_note", "")
    for s in stats:
        row[s] = row[f"{s}_ci_low"] = row[f"{s}_ci_high"] = math.nan
    notes = [note] if note else []
    for c in coefs:
        if c["statistic"] not in stats:
            continue
        name = c["statistic"]
        row[name], row[f"{name}_ci_low"], row[f"{name}_ci_high"] = c["value"], c["ci_low"], c["ci_high"]
        label = LABELS.get(name, name)
        if c["reason"] and c["applies"]:
            notes.append(f"{label}: {c['reason']}")
        elif c["applies"] and c["boot_undefined"]:
            notes.append(f"{label}: {c['boot_undefined']} of {n_boot} resamples undefined (left out of the interval)")
        if c["applies"] and c.get("_ci_reason"):
            notes.append(f"{label}: no interval, {c['_ci_reason']}")
    row["notes"] = "; ".join(dict.fromkeys(notes))
    return row


def _long(coefs: list[dict], scope: str, rubric: str, dimension: str, rater_id: str | None) -> list[dict]:
    """Coefficients as rows of the long `coefficients` frame (internal `_` keys left out)."""
    return [
        {"scope": scope, "rubric": rubric, "dimension": dimension, "rater_id": rater_id}
        | {k: v for k, v in c.items() if not k.startswith("_")}
        for c in coefs
    ]


def _one_level(marginals: np.ndarray, levels: tuple[str, ...]) -> str:
    """The one level used ('A better'), quoted, where the level counts use exactly one; else "one level"."""
    return _one_levels(np.asarray(marginals)[None, :], levels)[0]


def _one_levels(marginals: np.ndarray, levels: tuple[str, ...]) -> list[str]:
    """`_one_level` of each row of (groups x levels) level counts."""
    used = marginals > co.EPS
    single, first = used.sum(axis=1) == 1, used.argmax(axis=1)
    return [f"'{levels[f]}'" if one else "one level" for one, f in zip(single.tolist(), first.tolist(), strict=True)]


def _paradox(pa: float, kappa: float) -> bool:
    return bool(pa >= co.PARADOX_AGREEMENT and (math.isnan(kappa) or kappa < co.PARADOX_KAPPA))


# --- multi-rater coefficients from per-task value-count patterns --------------------------------------------

MULTI_CHECKS = (
    ("percent_agreement", None),
    ("coarse_agreement", None),
    ("krippendorff_alpha", "every pairable value is {one}: expected disagreement is 0, alpha is 0/0"),
    ("fleiss_kappa", "every rating is {one}: chance agreement is 1, kappa is 0/0"),
    ("gwet_ac1", "the scale has a single level"),
    ("gwet_ac2", "the scale has a single level"),
    ("brennan_prediger", "the scale has a single level"),
)


def _multi_compute(s: Scale, counts: np.ndarray, levels: np.ndarray) -> Callable[[np.ndarray], dict[str, np.ndarray]]:
    """The function from (batch x patterns) unit weights to every multi-rater coefficient of `counts`, the
    patterns' counts on `levels` of the scale."""

    def compute(weights: np.ndarray) -> dict[str, np.ndarray]:
        a = co.multi_rater_arrays(counts, weights, s.values, s.level, s.weights, s.to_coarse, levels)
        a["gwet_ac1"], a["gwet_ac2"] = a["gwet_ac"], a["weighted_gwet_ac"]
        return a

    return compute


def _multi_rater_row(
    s: Scale, tp: ct.TaskPatterns, n_raters: int, n_ratings: int, n_boot: int, seed: int
) -> tuple[dict, list]:
    counts = tp.counts @ s.to_levels
    used = _used_levels(counts.sum(axis=0))
    compute = _multi_compute(s, counts[:, used], used)
    point = compute(tp.unit_weights[None])
    m = tp.counts.sum(axis=1)
    pairable = m >= 2
    n_tasks = int(tp.n_tasks[(tp.membership[:, pairable] > 0).any(axis=1)].sum()) if pairable.any() else 0
    boot: dict[str, list] = {}
    if n_boot and n_tasks:
        rng = iv.rng_for(seed, s.rubric, s.dimension)
        for b in iv.chunks(n_boot, max(counts.shape[0], used.size**2) * 4):
            a = compute(iv.task_draws(tp.n_tasks, b, rng) @ tp.membership)
            for name, _ in MULTI_CHECKS:
                boot.setdefault(name, []).append(a[name])
    n_units = int(round(point["units_pairable"][0]))
    one = _one_level(point["marginals"][0], tuple(s.levels[i] for i in used))
    common = "only one rater" if n_raters < 2 else None
    if common is None and n_units == 0:
        common = "no unit has ratings from two or more raters"
    coefs = []
    for name, why in MULTI_CHECKS:
        value = float(point[name][0])
        reason = common or (why.format(one=one) if why and math.isnan(value) else None)
        applies = not (name == "gwet_ac2" and s.weights == "none")
        if not applies:
            value, reason = math.nan, "not applicable: nominal level, AC2 with no weights is AC1"
        samples = np.concatenate(boot[name]) if name in boot else None
        ci = iv.interval(name, value, samples, n_tasks, MIN_TASKS, n_boot)
        coefs.append(_coef(name, value, n_units, n_tasks, ci, reason, applies))
    two_only = bool(pairable.any()) and bool((m[pairable] == 2).all())
    base = {
        **scale_cells(s),
        "n_units": n_units,
        "n_units_rated": int(round(point["units"][0])),
        "n_tasks": n_tasks,
        "n_raters": n_raters,
        "n_ratings": n_ratings,
        "n_pairs": math.nan,
        # Fleiss' kappa with exactly two ratings per unit is Scott's pi (Fleiss 1971; Gwet 2014, ch. 2).
        "fleiss_kappa_name": "Scott's pi" if two_only else "Fleiss' kappa",
        "small_n": n_tasks < MIN_TASKS,
        "kappa_paradox": _paradox(float(point["percent_agreement"][0]), float(point["fleiss_kappa"][0])),
        "_note": s.note,
    }
    return base, coefs


def _multi_rater_table(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    comparison: str,
    scale_of: dict[tuple[str, str], Scale],
    n_boot: int,
    seed: int,
    queries: list,
) -> tuple[list[dict], list[dict]]:
    roles = COMPARISONS[comparison]
    f = ct.dimension_filter(filters, None if roles is None else roles[0])
    q_of = lambda key: scale_of[key].full_size if key in scale_of else None  # noqa: E731
    patterns = ct.task_patterns_for(con, f, q_of, queries)
    level_counts = ct.rater_level_counts(con, f, queries)
    totals = level_counts.groupby(["rubric", "dimension"]).agg(n_raters=("rater_id", "nunique"), n_ratings=("n", "sum"))
    rows, long = [], []
    for key, tp in sorted(patterns.items()):
        t = cast(pd.Series, totals.loc[key])  # a row: key is a whole (rubric, dimension) index key
        base, coefs = _multi_rater_row(scale_of[key], tp, int(t["n_raters"]), int(t["n_ratings"]), n_boot, seed)
        rows.append(_wide(base, coefs, DIMENSION_STATS, n_boot))
        long += _long(coefs, "dimension", key[0], key[1], None)
    return rows, long


# --- pair coefficients from per-task confusion signatures -------------------------------------------------

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
    ("scott_pi", "every value is {one}: chance agreement is 1, Scott's pi is 0/0"),
    ("brennan_prediger", "the scale has a single level"),
    ("mean_difference", None),
)


# Where a coefficient's values lie (a normal interval is clipped to it); the others are at most 1.
RANGES = {name: (0.0, 1.0) for name in iv.PROPORTIONS} | {"mean_difference": (-np.inf, np.inf)}


class PairCompute(Protocol):
    """What `pair_compute` returns: (batch x k x k) tables on `levels` of the scale (default all) to every pair
    coefficient."""

    def __call__(self, tables: np.ndarray, levels: np.ndarray | None = None) -> dict[str, np.ndarray]: ...


def pair_compute(s: Scale) -> PairCompute:
    """The function from (batch x k x k) tables on `levels` of the scale (default all) to every pair
    coefficient, named as in the report."""

    def compute(tables: np.ndarray, levels: np.ndarray | None = None) -> dict[str, np.ndarray]:
        a = co.pair_arrays(tables, s.values, s.level, s.weights, s.to_coarse, levels)
        a["exact_agreement"] = a["percent_agreement"] = a["agreement"]
        a["weighted_kappa"], a["gwet_ac1"], a["gwet_ac2"] = (
            a["weighted_cohen_kappa"],
            a["gwet_ac"],
            a["weighted_gwet_ac"],
        )
        a["fleiss_kappa"] = a["scott_pi"]  # two raters: Fleiss' kappa is Scott's pi
        return a

    return compute


def _level_map(s: Scale) -> Callable[[np.ndarray], np.ndarray]:
    """The map of (batch x full*full) cells to (batch x levels x levels) tables of this report's levels (whether
    the levels are exact is checked once per scale, not per group)."""
    q = s.full_size
    if s.to_levels.shape == (q, q) and np.array_equal(s.to_levels, np.eye(q)):
        return lambda cells: cells.reshape(-1, q, q)  # exact levels: nothing to map
    return lambda cells: s.to_levels.T @ cells.reshape(-1, q, q) @ s.to_levels


def _used_levels(counts: np.ndarray) -> np.ndarray:
    """The levels with a count in `counts` (one per level of the scale), level 0 when none has: coefficients
    are computed on these alone."""
    used = np.flatnonzero(counts)
    return used if len(used) else np.arange(1)


def _on(tables: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """(batch x q x q) tables restricted to `levels`, flattened to (batch x k*k)."""
    if len(levels) == tables.shape[1]:  # every level (levels are distinct and in order)
        return tables.reshape(len(tables), -1)
    return tables[:, levels][:, :, levels].reshape(len(tables), -1)


def _blocks(groups: list[int], levels: list[np.ndarray], q: int, width: int) -> list[tuple[list[int], np.ndarray]]:
    """`groups` in consecutive blocks computed at once on the levels they use together (of q), each block's
    (groups x width x k x k) arrays within the bootstrap budget."""
    out: list[tuple[list[int], np.ndarray]] = []
    block: list[int] = []
    union = np.zeros(0, dtype=np.int64)
    for g in groups:
        grown = union if len(union) == q else np.union1d(union, levels[g])
        if block and (len(block) + 1) * width * len(grown) ** 2 * 8 > iv.BOOT_BUDGET:
            out.append((block, union))
            block, grown = [], levels[g]
        block.append(g)
        union = grown
    return [*out, (block, union)] if block else out


def _pair_row(
    s: Scale,
    key: tuple,
    sig: pr.Signatures | None,
    tau: tuple[np.ndarray, np.ndarray] | None,
    n_boot: int,
    seed: int,
    reference: str,
    stats: tuple,
) -> tuple[dict, list]:
    """Base cells and coefficients of one group of pairs (a rater, a dimension, a pair of raters)."""
    return _pair_rows(s, [key], [sig], [tau], [n_boot], seed, reference, stats)[0]


@dataclass(frozen=True)
class _Groups:
    """Groups of pairs as tables of this report's levels: per group its signatures' tables (signatures x q x
    q), their task counts and the levels they use. Coefficients are computed on the used levels only (wide
    scales such as -100..100 have 201 levels, a group a few dozen); pair_arrays keeps them the scale's."""

    sigs: list
    tables: list[np.ndarray]
    n_tasks: list[np.ndarray]
    levels: list[np.ndarray]

    @classmethod
    def of(cls, s: Scale, sigs: list) -> _Groups:
        """The groups of `sigs` (None: a group with no pairs) on the levels of `s`."""
        q, to_levels = len(s.levels), _level_map(s)
        tables = [to_levels(sig.cells) if sig is not None else np.zeros((1, q, q)) for sig in sigs]
        n_tasks = [sig.n_tasks if sig is not None else np.zeros(1) for sig in sigs]
        return cls(sigs, tables, n_tasks, [_used_levels(co.both_sides(t.sum(axis=0))) for t in tables])


def _points(s: Scale, gs: _Groups) -> tuple[dict, np.ndarray]:
    """Every pair coefficient of each group's summed table, and each group's level counts (both sides)."""
    compute, n = pair_compute(s), len(gs.tables)
    point: dict[str, np.ndarray] = {}
    marginals = np.zeros((n, len(s.levels)))
    for idx, lv in _blocks(list(range(n)), gs.levels, len(s.levels), 1):
        totals = np.stack([gs.n_tasks[g] @ _on(gs.tables[g], lv) for g in idx]).reshape(-1, len(lv), len(lv))
        for name, v in compute(totals, lv).items():
            if v.ndim == 1:
                point.setdefault(name, np.full(n, np.nan))[idx] = v
        marginals[np.array(idx)[:, None], lv] = totals.sum(axis=1) + totals.sum(axis=2)
    return point, marginals


def _boot_pairs(s: Scale, keys: list, gs: _Groups, boots: list[int], seed: int, wanted: list[str]) -> dict:
    """(groups x n_boot) task-bootstrap samples of the `wanted` coefficients; groups are resampled each with
    its own generator and computed in blocks (one vectorised call per block, bounded memory)."""
    n_boot = max(boots, default=0)
    used = [g for g, sig in enumerate(gs.sigs) if sig is not None and sig.tasks and boots[g]]
    out = {name: np.full((len(gs.sigs), n_boot), np.nan) for name in wanted}
    if not used or not n_boot:
        return out
    compute, draws = pair_compute(s), iv.TaskDraws(seed, n_boot)
    used.sort(key=lambda g: gs.sigs[g].tasks)  # groups of one number of tasks read the same shared draws in turn
    for idx, lv in _blocks(used, gs.levels, len(s.levels), n_boot):
        tables, which, offset = [], [], 0
        for g in idx:
            uniq, inverse = _distinct_resamples(gs.sigs[g], draws, [str(k) for k in keys[g]], _on(gs.tables[g], lv))
            tables.append(uniq)
            which.append(inverse + offset)
            offset += len(uniq)
        a = compute(np.concatenate(tables).reshape(-1, len(lv), len(lv)), lv)
        rows = np.concatenate(which)
        for name in wanted:
            out[name][idx] = a[name][rows].reshape(len(idx), n_boot)
    return out


def _distinct_resamples(
    sig: pr.Signatures, task_draws: iv.TaskDraws, key: list[str], cells: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A group's resampled sums of `cells` (default its confusion cells; one row per signature) as (distinct
    sums, index of each resample's sum): the resamples of `task_draws` for the group (`key`), with each distinct
    one computed once. A group of few tasks has few distinct resamples (most pairs of raters share a handful of
    tasks), and a group of one signature has one."""
    cells = sig.cells if cells is None else cells
    n_boot = task_draws.n_boot
    if len(sig.n_tasks) == 1:  # every resample draws all tasks from the one signature
        return sig.n_tasks[0] * cells[:1], np.zeros(n_boot, dtype=np.int64)
    draws = task_draws.of(sig.n_tasks, *key)
    radix = sig.tasks + 1  # each resample's task counts as one integer in base tasks + 1, when that fits
    k = len(sig.n_tasks)
    # Distinct resamples possible: multisets of T tasks over k signatures, C(T + k - 1, k - 1). Where that is
    # far above n_boot, almost every resample differs and looking for repeats costs more than it saves.
    log_outcomes = math.lgamma(sig.tasks + k) - math.lgamma(k) - math.lgamma(sig.tasks + 1)
    if k * math.log2(radix) >= 62 or log_outcomes > math.log(4 * n_boot):
        return draws @ cells, np.arange(n_boot)
    codes = draws.astype(np.int64) @ (radix ** np.arange(len(sig.n_tasks), dtype=np.int64))
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return draws[first] @ cells, inverse


def _delta_pairs(s: Scale, gs: _Groups, groups: list[int], wanted: list[str]) -> dict:
    """Per coefficient in `wanted`, the delta method's (low, high) of each of `groups` (NaN elsewhere)."""
    out = {name: (np.full(len(gs.sigs), np.nan), np.full(len(gs.sigs), np.nan)) for name in wanted}
    compute = pair_compute(s)
    for idx, lv in _blocks(groups, gs.levels, len(s.levels), 1):
        normal = iv.delta_bounds(
            lambda tables, lv=lv: compute(tables, lv),  # type: ignore[misc]  # mypy infers no lambda with a default
            [_on(gs.tables[g], lv) for g in idx],
            [gs.n_tasks[g] for g in idx],
            (len(lv), len(lv)),
            wanted,
        )
        for name, (lo, hi) in normal.items():
            out[name][0][idx], out[name][1][idx] = lo, hi
    return out


def _pair_rows(
    s: Scale,
    keys: list,
    sigs: list,
    taus: list,
    boots: list[int],
    seed: int,
    reference: str,
    stats: tuple,
    delta: bool = True,
) -> list[tuple[dict, list]]:
    """Base cells and coefficients of groups of pairs sharing one scale (vectorised over the groups); with
    `delta`, groups of DELTA_MIN_TASKS or more get the delta method's interval."""
    if any(b and sig is not None and sig.summed for b, sig in zip(boots, sigs, strict=True)):
        raise ValueError("an interval needs the tasks apart: pair this group without `summed`")
    gs = _Groups.of(s, sigs)
    point, marginals = _points(s, gs)
    wanted = [name for name, _ in PAIR_CHECKS if name in stats]
    # Groups of many tasks get the delta method's interval, the others task-bootstrap percentiles.
    delta_groups = [
        g for g, sig in enumerate(sigs) if delta and boots[g] and sig is not None and sig.tasks >= iv.DELTA_MIN_TASKS
    ]
    by_delta = set(delta_groups)
    resampled = [0 if g in by_delta else b for g, b in enumerate(boots)]
    boot = _boot_pairs(s, keys, gs, resampled, seed, wanted)
    bounds = {name: iv.percentiles(v) for name, v in boot.items()}
    if delta_groups:
        for name, (lo, hi) in _delta_pairs(s, gs, delta_groups, wanted).items():
            low, high = (np.clip(x[delta_groups], *RANGES.get(name, (-np.inf, 1.0))) for x in (lo, hi))
            bounds[name][0][delta_groups], bounds[name][1][delta_groups], bounds[name][2][delta_groups] = low, high, 0
    out = []
    # Python lists read per group: indexing numpy arrays element by element cost a third of this loop.
    values = {name: v.tolist() for name, v in point.items()}
    ends = {name: tuple(b.tolist() for b in bs) for name, bs in bounds.items()}
    ones = _one_levels(marginals, s.levels)
    for g, (key, sig, tau, n_boot) in enumerate(zip(keys, sigs, taus, boots, strict=True)):
        n = int(round(values["n"][g]))
        n_tasks = sig.tasks if sig is not None else 0
        one = ones[g]
        no_pairs = f"no unit shared with {reference}" if n == 0 else None
        coefs = []
        for name, why in PAIR_CHECKS:
            if name not in stats:
                continue
            value = float(values[name][g])
            reason = no_pairs or (why.format(one=one) if why and math.isnan(value) else None)
            applies = True
            if name in ("weighted_kappa", "gwet_ac2") and s.weights == "none":
                value, reason, applies = math.nan, "not applicable: nominal level, no weights", False
            if name == "mean_difference" and not s.ordered:
                value, reason, applies = math.nan, "not applicable: nominal levels have no direction", False
            lo, hi, undefined = (b[g] for b in ends[name])
            method = iv.DELTA if g in by_delta else iv.BOOTSTRAP
            ci = iv.interval_of(name, value, float(lo), float(hi), int(undefined), n_tasks, MIN_TASKS, n_boot, method)
            coefs.append(_coef(name, value, n, n_tasks, ci, reason, applies))
        n_item_pairs = 0
        if tau is not None:
            n_item_pairs, tau_coefs = _tau_coefs(tau, n_boot, seed, key)
            coefs += [c for c in tau_coefs if c["statistic"] in stats]
        base = {
            **scale_cells(s),
            "n": n,
            "n_units": sig.n_units if sig is not None else 0,
            "n_tasks": n_tasks,
            "n_item_pairs": n_item_pairs,
            "small_n": n_tasks < MIN_TASKS,
            "kappa_paradox": _paradox(float(point["agreement"][g]), float(point["cohen_kappa"][g])),
            "_note": s.note,
        }
        out.append((base, coefs))
    return out


def _tau_coefs(tau: tuple[np.ndarray, np.ndarray], n_boot: int, seed: int, key: tuple) -> tuple[int, list]:
    """Kendall's tau-b and preference agreement of item-pair counts, with intervals over resampled tasks."""
    sigs, n_tasks = tau
    pairs = n_tasks @ sigs
    n, tasks = int(pairs.sum()), int(n_tasks.sum())
    point = co.tau_arrays(pairs)
    boot = {}
    if n_boot and tasks:
        boot = co.tau_arrays(iv.resample(sigs, n_tasks, n_boot, iv.rng_for(seed, "tau", *[str(k) for k in key])))
    tau_b = co.kendall_tau_b(*pairs)
    pref = float(point["preference_agreement"][0])
    coefs = []
    for name, value, sample, reason in (
        ("kendall_tau_b", tau_b.value, "tau_b", tau_b.reason),
        ("preference_agreement", pref, "preference_agreement", None if n else "no item pairs to compare"),
    ):
        ci = iv.interval(name, value, boot.get(sample), tasks, MIN_TASKS, n_boot)
        coefs.append(_coef(name, value, n, tasks, ci, reason))
    return n, coefs


@dataclass(frozen=True)
class PairSet:
    """The signatures of one pairing at one grain, with the queries that made them."""

    sigs: dict[tuple, pr.Signatures]
    taus: dict[tuple, tuple[np.ndarray, np.ndarray]]


def pair_set(
    con: duckdb.DuckDBPyConnection,
    sides: pr.Sides,
    grain: str,
    scale_of: dict[tuple[str, str], Scale],
    queries: list,
    summed: bool = False,
) -> PairSet:
    """Run the pairing and ranking queries of `sides` at `grain` and decode their signatures (`summed`: no
    interval will resample them, pr.pair_signatures)."""
    scale_key = lambda key: key[-2:]  # noqa: E731  (every grain ends with rubric, dimension)
    q_of = lambda key: scale_of[scale_key(key)].full_size if scale_key(key) in scale_of else None  # noqa: E731
    sigs = pr.pair_signatures(con, sides, grain, q_of, queries, summed=summed)
    if not any(s.kind == "ranking" for s in scale_of.values()):
        return PairSet(sigs, {})  # no ranking among the scales: no item pairs to order, the query is not run
    q_ranks = pr.ranking_query(sides, grain)
    queries.append(q_ranks)
    return PairSet(sigs, pr.tau_signatures(q_ranks.df(con), grain))


def _rater_table(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    comparison: str,
    scale_of: dict[tuple[str, str], Scale],
    n_boot: int,
    seed: int,
    queries: list,
    boot_raters: tuple[str, ...] | None = None,
    long: bool = True,
) -> tuple[list[dict], list[dict]]:
    """Rows of every subject rater (RATER_COLUMNS) and, with `long`, their coefficients in long form; intervals
    only for `boot_raters` (None: everyone)."""
    sides = pr.comparison_sides(filters, comparison)
    no_interval = n_boot == 0 or (boot_raters is not None and not boot_raters)
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
        boots = [n_boot if boot_raters is None or k[0] in boot_raters else 0 for k in group]
        results = _pair_rows(
            scale_of[scale_key],
            group,
            [ps.sigs.get(k) for k in group],
            [ps.taus.get(k) for k in group],
            boots,
            seed,
            REFERENCE_NAME[comparison],
            RATER_STATS,
        )
        for key, b, (base, coefs) in zip(group, boots, results, strict=True):
            rows.append(_wide({"rater_id": key[0], "role": roles.get(key[0], ""), **base}, coefs, RATER_STATS, b))
            if long:
                longs += _long(coefs, "rater", key[1], key[2], key[0])
    return rows, longs


def _pooled_table(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    scale_of: dict[tuple[str, str], Scale],
    n_boot: int,
    seed: int,
    queries: list,
) -> tuple[list[dict], list[dict]]:
    """Per dimension, every contractor-researcher pair on a shared unit counted once (DIMENSION_COLUMNS)."""
    sides = pr.pooled_sides(filters)
    ps = pair_set(con, sides, "dimension", scale_of, queries)
    subjects = ct.rater_level_counts(con, sides.subject, queries)
    ratings = subjects.groupby(["rubric", "dimension"])["n"].sum()
    raters = subjects.groupby(["rubric", "dimension"])["rater_id"].nunique()
    rows, long = [], []
    for key, sig in sorted(ps.sigs.items()):
        base, coefs = _pair_row(
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
        rows.append(_wide(base, coefs, DIMENSION_STATS, n_boot))
        long += _long(coefs, "dimension", key[0], key[1], None)
    return rows, long


def pair_set_table(
    con: duckdb.DuckDBPyConnection,
    sides: pr.Sides,
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
    rater_at = [i for i, k in enumerate(pr.GRAINS[grain]) if k.startswith("rater")]
    by_scale: dict[tuple, list[tuple]] = {}
    for key in sorted(ps.sigs):
        if any(an.is_anonymous(key[i]) for i in rater_at):
            continue  # a pair with an anonymous rater (a position, not a person) has no figure of its own
        by_scale.setdefault(key[-2:], []).append(key)
    rows = []
    for scale_key, group in sorted(by_scale.items()):
        sigs = [ps.sigs[k] for k in group]
        results = _pair_rows(
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
            names = dict(zip(pr.GRAINS[grain], key, strict=True))
            rater_cols = {k: v for k, v in names.items() if k.startswith("rater")}
            rows.append({**rater_cols, **_wide(base, coefs, stats, n_boot)})
    lead = [k for k in pr.GRAINS[grain] if k.startswith("rater")]
    return _frame(rows, (*lead, *PAIR_SET_COLUMNS), ["rubric", "dimension", *lead])


def _frame(rows: list[dict], columns: tuple[str, ...], sort: list[str]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=list(columns))
    return df.sort_values(sort, kind="stable").reset_index(drop=True) if len(df) else df


# --- public entry points -----------------------------------------------------------------------------------


def _dimension_rows(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    comparison: str,
    scale_of: dict[tuple[str, str], Scale],
    n_boot: int,
    seed: int,
    queries: list,
) -> tuple[pd.DataFrame, list[dict]]:
    roles = COMPARISONS[comparison]
    if roles is not None and roles[0] != roles[1]:
        rows, long = _pooled_table(con, filters, scale_of, n_boot, seed, queries)
    else:
        rows, long = _multi_rater_table(con, filters, comparison, scale_of, n_boot, seed, queries)
    return _frame(rows, DIMENSION_COLUMNS, ["rubric", "dimension"]), long


def dimension_agreement(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTER,
    comparison: str = "contractor_vs_researcher",
    coarse: bool = False,
    level: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    queries: list | None = None,
) -> pd.DataFrame:
    """Agreement per rubric dimension (DIMENSION_COLUMNS) for one comparison (the rater filter does not apply)."""
    _check_args(comparison, level, n_boot)
    queries = QueryLog() if queries is None else queries
    scale_of = scales(con, filters, level, coarse, queries)
    return _dimension_rows(con, filters, comparison, scale_of, n_boot, seed, queries)[0]


def rater_agreement(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTER,
    comparison: str = "contractor_vs_researcher",
    coarse: bool = False,
    level: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    queries: list | None = None,
) -> pd.DataFrame:
    """Agreement of each rater the filter selects with the comparison's reference side, per dimension."""
    _check_args(comparison, level, n_boot)
    queries = QueryLog() if queries is None else queries
    scale_of = scales(con, filters, level, coarse, queries)
    rows, _ = _rater_table(con, filters, comparison, scale_of, n_boot, seed, queries, long=False)
    return _frame(rows, RATER_COLUMNS, ["rubric", "dimension", "rater_id"])


def ceiling_table(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTER,
    coarse: bool = False,
    level: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    queries: list | None = None,
) -> pd.DataFrame:
    """The researcher ceiling per dimension: every pair of researchers on a shared unit once, all dates."""
    queries = QueryLog() if queries is None else queries
    scale_of = scales(con, filters, level, coarse, queries)
    return pair_set_table(con, pr.ceiling_sides(filters), "dimension", scale_of, n_boot, seed, queries)


def rater_pairs_table(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTER,
    coarse: bool = False,
    level: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    queries: list | None = None,
) -> pd.DataFrame:
    """Each pair of raters (rater_a < rater_b) per dimension on their shared units; with a rater filter, the
    pairs that include a selected rater."""
    queries = QueryLog() if queries is None else queries
    scale_of = scales(con, filters, level, coarse, queries)
    out = pair_set_table(con, pr.rater_pair_sides(filters), "rater_pair", scale_of, n_boot, seed, queries)
    if filters.raters and len(out):
        out = out[out["rater_a"].isin(filters.raters) | out["rater_b"].isin(filters.raters)].reset_index(drop=True)
    return out


def pooled_table(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTER,
    coarse: bool = False,
    level: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    queries: list | None = None,
) -> pd.DataFrame:
    """All contractors against researchers per dimension, every pair on a shared unit counted once
    (PAIR_SET_COLUMNS; the same pairs as the contractor_vs_researcher dimension table)."""
    queries = QueryLog() if queries is None else queries
    scale_of = scales(con, filters, level, coarse, queries)
    return pair_set_table(con, pr.pooled_sides(filters), "dimension", scale_of, n_boot, seed, queries)


def agreement_report(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTER,
    comparison: str = "contractor_vs_researcher",
    coarse: bool = False,
    level: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    rater_intervals: bool = True,
    ceiling: Ceiling | None = None,
    queries: QueryLog | None = None,
    rater_rows: bool = True,
) -> AgreementReport:
    """Per-dimension and per-rater agreement for one comparison, the team's rows, the researcher ceiling, with
    intervals, notes and the SQL that ran. Without `rater_intervals` the raters' rows are point estimates (a page
    asks rater_agreement for the intervals of the dimension it shows: the same figures, resampled per rater).
    `ceiling`, researcher_ceiling's under the same filter, scales, n_boot and seed, is used as it is (a page keeps
    it across date and rater changes, which do not move it); its queries are listed with the report's. `queries`:
    the QueryLog to run in (a page's, handed the results that depend on the data only: QueryLog.know). Without
    `rater_rows` the report holds no rater rows (raters, team and their coefficients are empty): a page that
    shows one dimension's raters asks rater_agreement for them (the rows of every dimension were a third of the
    report at 1M tasks)."""
    _check_args(comparison, level, n_boot)
    queries = QueryLog() if queries is None else queries
    scale_of = scales(con, filters, level, coarse, queries)
    dims, dlong = _dimension_rows(con, filters, comparison, scale_of, n_boot, seed, queries)
    boot_raters = (filters.raters or None) if rater_intervals else ()
    team_rows, rlong = (
        _rater_table(con, filters.but(raters=()), comparison, scale_of, n_boot, seed, queries, boot_raters)
        if rater_rows
        else ([], [])
    )
    team = _frame(team_rows, RATER_COLUMNS, ["rubric", "dimension", "rater_id"])
    raters = team[team["rater_id"].isin(filters.raters)].reset_index(drop=True) if filters.raters else team
    rlong = [r for r in rlong if not filters.raters or r["rater_id"] in filters.raters]
    if ceiling is None:  # in this report's log: the queries it shares with the tables above run once
        ceiling_rows = pair_set_table(con, pr.ceiling_sides(filters), "dimension", scale_of, n_boot, seed, queries)
    else:
        ceiling_rows = ceiling.table
        queries += [q for q in ceiling.queries if q not in queries]
    coefficients = pd.DataFrame(dlong + rlong, columns=list(LONG_COLUMNS))
    return AgreementReport(
        comparison, coarse, level, n_boot, seed, dims, raters, team, ceiling_rows, coefficients, tuple(queries)
    )


def pair_coefficients(
    s: Scale,
    sig: pr.Signatures,
    n_boot: int = 1000,
    seed: int = 0,
    key: tuple = ("group",),
    force_bootstrap: bool = False,
) -> pd.DataFrame:
    """Every pair coefficient of one group's task signatures in long form (for notebooks and simulations);
    `force_bootstrap` resamples even where the delta method would be used."""
    stats = (*RATER_STATS, "scott_pi")
    if force_bootstrap:
        _, coefs = _pair_rows(s, [key], [sig], [None], [n_boot], seed, "the reference", stats, delta=False)[0]
    else:
        _, coefs = _pair_row(s, key, sig, None, n_boot, seed, "the reference", stats)
    return pd.DataFrame([{k: v for k, v in c.items() if not k.startswith("_")} for c in coefs])


def multi_rater_coefficients(
    s: Scale, tp: ct.TaskPatterns, n_raters: int, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Every multi-rater coefficient of one dimension's task patterns in long form (notebooks, simulations)."""
    _, coefs = _multi_rater_row(s, tp, n_raters, int(tp.unit_weights @ tp.counts.sum(axis=1)), n_boot, seed)
    return pd.DataFrame([{k: v for k, v in c.items() if not k.startswith("_")} for c in coefs])
