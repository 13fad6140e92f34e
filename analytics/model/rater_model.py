"""The rater model: every contractor's accuracy and bias on all their tasks, also those no researcher labelled,
and a consensus label per unit with its confidence.

A Dawid & Skene (1979, "Maximum likelihood estimation of observer error-rates using the EM algorithm", JRSS C
28:20-28) model per (rubric, dimension): each unit has one true level; each rater labels it through their own
confusion matrix pi_r[true, label]. Two changes make it fit rating data with few tasks per rater:
- each rater's confusion matrix is shrunk toward the pooled one of all raters (a Dirichlet prior of PRIOR_WEIGHT
  pseudo-labels per true level), and on ordered scales the pooled matrix is itself smoothed with a discretised
  normal band around the diagonal (a near miss is likelier than a far one: the ordinal part);
- units a researcher labelled are anchored: their true level is the researchers' (the median level when several
  labelled it), so researcher labels are known truth and the model learns each contractor's errors from them
  first, then extends to the units no researcher saw.
EM starts from the majority vote and stops when no unit's posterior moves by more than TOLERANCE in a step;
SQUAREM steps between EM steps take it there in fewer steps (`_squarem`).
"""

from __future__ import annotations

import contextvars
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd
from scipy import sparse
from threadpoolctl import threadpool_limits

from analytics.agreement.contract import records
from analytics.agreement.counts import rater_level_counts
from analytics.core.filters import NO_FILTERS, Filters
from analytics.core.queries import Query
from analytics.core.rater_ids import is_anonymous
from analytics.model import calibration
from analytics.store import keys

PRIOR_WEIGHT = 4.0  # pseudo-labels per true level pulling a rater's confusion row toward the pooled one
BAND_SD = 1.0  # levels: spread of the ordinal smoothing of the pooled confusion
BAND_WEIGHT = 1.0  # pseudo-labels per true level of that smoothing
MAX_ITERATIONS, TOLERANCE = 100, 1e-4
FIT_THREADS = 2  # dimensions fitted at once (each holds its dimension's ratings in memory)
RATER_COLUMNS = (
    "rater_id",
    "rubric",
    "dimension",
    "accuracy",
    "accuracy_ci_low",
    "accuracy_ci_high",
    "n_tasks",
    "role",
    "bias",
    "n_labels",
    "n_anchored",
    "converged",  # the dimension's fit stopped by TOLERANCE, not after MAX_ITERATIONS steps
    "temperature",  # the dimension's calibration of the accuracies (analytics/model/calibration), NaN: not calibrated
)
CONSENSUS_COLUMNS = ("task_id", "rubric", "dimension", "target", "label", "confidence", "anchored", "n_ratings")
CONSENSUS_TEXT = ("task_id", "rubric", "dimension", "target", "label")


@dataclass(frozen=True)
class Fit:
    """One fitted model: posteriors per unit, confusion per rater, the class prior, and iterations used."""

    posterior: np.ndarray  # units x levels
    confusion: np.ndarray  # raters x true level x label
    prior: np.ndarray  # levels
    iterations: int  # E-steps
    converged: bool  # stopped by TOLERANCE, not by MAX_ITERATIONS


@dataclass(frozen=True)
class RaterModel:
    """Per rater and dimension accuracy (RATER_COLUMNS) and per unit consensus (CONSENSUS_COLUMNS)."""

    raters: pd.DataFrame
    consensus: pd.DataFrame


def majority_vote(units: np.ndarray, labels: np.ndarray, n_units: int, n_levels: int) -> np.ndarray:
    """Per unit, the most frequent label (the lowest level among ties)."""
    counts = np.zeros((n_units, n_levels))
    np.add.at(counts, (units, labels), 1.0)
    return counts.argmax(axis=1)


def _pooled_prior(counts: np.ndarray, ordinal: bool) -> np.ndarray:
    """The pooled confusion rows (true x label, each summing to 1) with the ordinal band or a flat floor."""
    q = counts.shape[0]
    k = np.arange(q)
    band = np.exp(-((k[None, :] - k[:, None]) ** 2) / (2 * BAND_SD**2)) if ordinal else np.ones((q, q))
    band /= band.sum(axis=1, keepdims=True)
    rows = counts + BAND_WEIGHT * band
    return rows / rows.sum(axis=1, keepdims=True)


def fit_labels(
    units: np.ndarray,
    raters: np.ndarray,
    labels: np.ndarray,
    n_levels: int,
    ordinal: bool = True,
    truth: np.ndarray | None = None,
    accelerate: bool = True,
) -> Fit:
    """Fit the model to labels (one entry per rating: unit index, rater index, level index); `truth` gives each
    unit's known level or -1 (anchored units keep it). `accelerate`: SQUAREM steps between EM steps (else plain
    EM)."""
    n_units, n_raters, q = int(units.max()) + 1, int(raters.max()) + 1, n_levels
    anchored = np.zeros(n_units, dtype=bool) if truth is None else truth >= 0
    # Each rating as a 1 at (its unit, its rater's label r * q + l): a unit's log likelihood sums its ratings'
    # terms (ratings @ log confusion) and a rater's expected counts sum their units' posteriors (ratings.T @
    # posterior). Sparse products in place of per-level bincounts of gathered columns (bench/RESULTS.md, session 27).
    ratings = sparse.csr_matrix((np.ones(len(units)), (units, raters * q + labels)), shape=(n_units, n_raters * q))
    counts = ratings @ np.tile(np.eye(q), (n_raters, 1))  # units x level: labels per level
    post = (counts + 1e-3) / (counts + 1e-3).sum(axis=1, keepdims=True)
    if anchored.any():
        post[anchored] = np.eye(q)[truth[anchored]]  # type: ignore[index]
    # Anchored units keep their level: their part of the raters' expected counts and of the prior is summed once,
    # and only the free units' posteriors are updated.
    free, fixed = np.flatnonzero(~anchored), np.flatnonzero(anchored)
    rated = ratings[free]
    fixed_post = post[fixed]
    em = _Em(rated, rated.T.tocsr(), ratings[fixed].T @ fixed_post, fixed_post.sum(axis=0), n_units, q, ordinal)
    current, conf, prior, it, converged = (_squarem if accelerate else _plain)(em, post[free])
    post[free] = current
    return Fit(post, conf, prior, it, converged)


@dataclass(frozen=True)
class _Em:
    """One fit's EM steps over the free units (anchored units' part summed once)."""

    rated: sparse.csr_matrix  # free units x (rater, label) cells
    by_cell: sparse.csr_matrix  # its transpose
    fixed_cells: np.ndarray  # cells x true level: the anchored units' expected counts
    fixed_total: np.ndarray  # true level: the anchored units' part of the prior
    n_units: int
    q: int
    ordinal: bool

    def m_step(self, current: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Confusion matrices (rater x true x label) and class prior from the free units' posteriors."""
        q = self.q
        expected = (self.fixed_cells + self.by_cell @ current).reshape(-1, q, q).transpose(0, 2, 1)
        pooled = _pooled_prior(expected.sum(axis=0), self.ordinal)
        conf = expected + PRIOR_WEIGHT * pooled[None, :, :]
        conf /= conf.sum(axis=2, keepdims=True)
        prior = (self.fixed_total + np.ones(len(current)) @ current + 1.0) / (self.n_units + q)
        return conf, prior

    def e_step(self, conf: np.ndarray, prior: np.ndarray) -> np.ndarray:
        """The free units' posteriors under the confusion matrices and prior."""
        q = self.q
        log_post = np.log(prior)[None, :] + self.rated @ np.log(conf).transpose(0, 2, 1).reshape(-1, q)
        new = np.exp(log_post - _row_max(log_post)[:, None])
        new /= (new @ np.ones(q))[:, None]  # row sums as a product: numpy's reductions over q columns are slower
        return new


Steps = tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]  # posteriors, confusion, prior, E-steps, converged


def _moved(new: np.ndarray, old: np.ndarray) -> float:
    """The largest change of any posterior (0 without free units)."""
    return float(np.abs(new - old).max()) if len(new) else 0.0


def _plain(em: _Em, current: np.ndarray) -> Steps:
    """Plain EM from the free units' posteriors `current`, until no posterior moves by TOLERANCE."""
    conf, prior = np.zeros((0, em.q, em.q)), np.full(em.q, 1.0 / em.q)
    for it in range(1, MAX_ITERATIONS + 1):
        conf, prior = em.m_step(current)
        new = em.e_step(conf, prior)
        moved = _moved(new, current)
        current = new
        if moved < TOLERANCE:
            return current, conf, prior, it, True
    return current, conf, prior, MAX_ITERATIONS, False


def _squarem(em: _Em, current: np.ndarray) -> Steps:
    """EM accelerated by SQUAREM (Varadhan & Roland 2008, "Simple and globally convergent methods for accelerating
    the convergence of any EM algorithm", Scand. J. Stat. 35:335-353; scheme SqS3): after two EM steps, a step
    along their extrapolation in the parameters (log confusion rows and log prior), its length capped and the cap
    grown fourfold when reached (their SQUAREM package's defaults); an extrapolation that gives no finite
    posteriors is replaced by the second EM step, with the cap reset. The stopping rule is plain EM's, checked on
    the plain steps. Where plain EM crawls (few labels per rater, no anchored units) it stops after MAX_ITERATIONS
    far from the fixed point it is heading for; this gets nearer in fewer steps (bench/RESULTS.md, session 29)."""
    it, cap, conf, prior = 0, 1.0, np.zeros((0, em.q, em.q)), np.full(em.q, 1.0 / em.q)
    while it < MAX_ITERATIONS:
        t0 = em.m_step(current)
        p1 = em.e_step(*t0)
        it, moved = it + 1, _moved(p1, current)
        if moved < TOLERANCE or it >= MAX_ITERATIONS:
            return p1, *t0, it, moved < TOLERANCE
        t1 = em.m_step(p1)
        p2 = em.e_step(*t1)
        it, moved = it + 1, _moved(p2, p1)
        if moved < TOLERANCE or it >= MAX_ITERATIONS:
            return p2, *t1, it, moved < TOLERANCE
        t2 = em.m_step(p2)
        logs = [(np.log(c), np.log(p)) for c, p in (t0, t1, t2)]
        r = [b - a for a, b in zip(logs[0], logs[1], strict=True)]
        v = [c - 2 * b + a for a, b, c in zip(logs[0], logs[1], logs[2], strict=True)]
        rr, vv = (sum(float((x * x).sum()) for x in d) for d in (r, v))
        alpha = min(max(math.sqrt(rr / vv) if vv > 0 else 1.0, 1.0), cap)
        if alpha == cap:
            cap *= 4
        lc, lp = (a + 2 * alpha * x + alpha**2 * y for a, x, y in zip(logs[0], r, v, strict=True))
        conf, prior = _softmax(lc, axis=2), _softmax(lp, axis=0)
        extrapolated = em.e_step(conf, prior)
        it += 1
        if not np.isfinite(extrapolated).all():
            conf, prior = t2
            extrapolated, cap = em.e_step(conf, prior), 1.0
        current = extrapolated
    return current, conf, prior, it, False


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """exp(x) normalised to sum to 1 along `axis`."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _row_max(x: np.ndarray) -> np.ndarray:
    """Each row's largest value, column by column (a reduction over a few columns is slow in numpy)."""
    out = x[:, 0].copy()
    for k in range(1, x.shape[1]):
        np.maximum(out, x[:, k], out=out)
    return out


def model_query(filters: Filters) -> Query:
    """Every rating with a level under the filter (one dimension's, as fit_model asks): its unit's and rater's
    integer keys, whether a researcher gave it, and its level, in the order of task, target and rater ids (a unit's
    ratings together). Keys, not ids: ids as text make the fit much slower."""
    where, params = filters.where_named()
    return Query(
        "rater_model_labels",
        f"""SELECT task_key, target_key, rater_key, role = 'researcher' AS researcher, value_index
FROM ratings
WHERE {where} AND value_index IS NOT NULL
ORDER BY task_id, target, rater_id""",
        params,
    )


UNIT_KEYS = ("task_key", "target_key", "rater_key")  # the key columns a fit names (analytics/store/keys.py)


def anchors(g: pd.DataFrame, unit: np.ndarray, n_units: int) -> np.ndarray:
    """Each unit's researcher level (the median of the researchers' levels, lower middle on an even count), or -1."""
    truth = np.full(n_units, -1)
    res = g["researcher"].to_numpy()
    if res.any():
        levels = pd.Series(g["value_index"].to_numpy()[res]).groupby(unit[res]).median()
        truth[levels.index.to_numpy()] = np.floor(levels.to_numpy()).astype(int)
    return truth


def unit_rows(g: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each rating's unit index (units numbered in the query's order) and each unit's first rating."""
    task, target = g["task_key"].to_numpy(), g["target_key"].to_numpy()
    starts = np.r_[True, (task[1:] != task[:-1]) | (target[1:] != target[:-1])] if len(g) else np.zeros(0, bool)
    return np.cumsum(starts) - 1, np.flatnonzero(starts)


def _raters(g: pd.DataFrame, names: keys.KeyIds) -> tuple[np.ndarray, list[str]]:
    """Each rating's rater index, raters numbered in the order of their ids, and those ids."""
    inverse, rater_keys = pd.factorize(g["rater_key"].to_numpy())  # hashed: numpy's unique sorts all the ratings
    ids = np.asarray(names.of("rater_key", rater_keys), dtype=str)
    order = np.argsort(ids, kind="stable")
    rank = np.empty(len(rater_keys), dtype=np.int64)
    rank[order] = np.arange(len(rater_keys))
    return rank[inverse], [str(i) for i in ids[order]]


def _dimension(
    g: pd.DataFrame, names: keys.KeyIds, rubric: str, dimension: str, q: int, ordinal: bool
) -> tuple[list[dict], pd.DataFrame]:
    """Rater rows and consensus rows of one (rubric, dimension) from its ratings `g` (model_query) on q levels."""
    unit, first = unit_rows(g)
    rater, rater_ids = _raters(g, names)
    labels = g["value_index"].to_numpy(dtype=int)
    researcher = g["researcher"].to_numpy()
    truth = anchors(g, unit, len(first))
    # Researchers' labels are the truth where they rated; they are not also observations of it.
    observe = ~researcher
    fit = fit_labels(unit[observe], rater[observe], labels[observe], q, ordinal, truth)
    consensus = pd.DataFrame(
        {
            "task_id": names.of("task_key", g["task_key"].to_numpy()[first]),
            "rubric": rubric,
            "dimension": dimension,
            "target": names.of("target_key", g["target_key"].to_numpy()[first]),
            "label": fit.posterior.argmax(axis=1),
            "confidence": fit.posterior.max(axis=1),
            "anchored": truth >= 0,
            "n_ratings": np.bincount(unit, minlength=len(first)),
        }
    )
    # Per rater over their observed labels, in one pass each: labels, the expected signed distance label - true
    # level, and labels on anchored units.
    who, post = rater[observe], fit.posterior[unit[observe]]
    given = labels[observe]
    n_labels = np.bincount(who, minlength=len(rater_ids))
    bias = np.bincount(who, given - post @ np.arange(q), len(rater_ids))
    n_anchored = np.bincount(who, truth[unit[observe]] >= 0, len(rater_ids))
    # A rater's role is that of their first rating here; their tasks are their distinct task keys (hashed, not
    # sorted: numpy's unique over every rating is slow).
    first_rating = pd.Series(rater).drop_duplicates()
    roles = np.empty(len(rater_ids), dtype=object)
    roles[first_rating.to_numpy()] = np.where(researcher[first_rating.index.to_numpy()], "researcher", "contractor")
    task = g["task_key"].to_numpy().astype(np.int64)
    span = int(task.max()) + 1
    tasks = np.bincount(pd.unique(rater * span + task) // span, minlength=len(rater_ids))
    # The expected share correct under calibrated posteriors, with a Wilson interval whose n counts the rater's
    # tasks (labels of one task are not independent) and the uncertainty of the truth (analytics/model/calibration).
    accuracy, low, high, temperature = calibration.rater_accuracy(
        fit.posterior, fit.confusion, fit.prior, unit[observe], who, given, truth, tasks
    )
    rows = []
    for r, rid in enumerate(rater_ids):
        if not n_labels[r] or is_anonymous(rid):
            continue
        n, n_tasks = int(n_labels[r]), int(tasks[r])
        rows.append(
            {
                "rater_id": rid,
                "rubric": rubric,
                "dimension": dimension,
                "accuracy": float(accuracy[r]),
                "accuracy_ci_low": float(low[r]),
                "accuracy_ci_high": float(high[r]),
                "n_tasks": n_tasks,
                "role": str(roles[r]),
                "bias": float(bias[r]) / n,
                "n_labels": n,
                "n_anchored": int(n_anchored[r]),
                "converged": fit.converged,
                "temperature": temperature,
            }
        )
    return rows, consensus


def _progress_by_ratings(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    chosen: list[tuple],
    progress: Callable[[float, str], None] | None,
) -> Callable[[tuple], None]:
    """What fit_model calls after each dimension: tells `progress` the share of the ratings fitted so far and how
    many of the dimensions with ratings are done (a fit's time grows with its ratings; dimensions without any take
    none), counted from the level counts kept at ingest."""
    if progress is None:
        return lambda scale: None
    counts = rater_level_counts(con, filters, []).groupby(["rubric", "dimension"])["n"].sum()
    weights = {(s[0], s[1]): int(counts.get((s[0], s[1]), 0)) for s in chosen}
    rated = [key for key, weight in weights.items() if weight]
    done = np.cumsum([weights[key] for key in rated]) / max(sum(weights.values()), 1)
    steps = {key: (i, float(share)) for i, (key, share) in enumerate(zip(rated, done, strict=True), 1)}

    def report(scale: tuple) -> None:
        """Tell `progress` that this dimension is fitted, if it had ratings."""
        if (key := (scale[0], scale[1])) in steps:
            i, share = steps[key]
            progress(share, f"{i} of {len(rated)} dimensions done ({key[0]} / {key[1]})")

    return report


SCALES = Query(
    "model_scales",
    "SELECT rubric, dimension, levels, measure FROM dimensions WHERE len(levels) >= 2 ORDER BY rubric, dimension",
)


def fit_model(
    con: duckdb.DuckDBPyConnection,
    filters: Filters = NO_FILTERS,
    seed: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> RaterModel:
    """The model fitted to each (rubric, dimension) under the filter; consensus labels are level names; `progress`
    hears, after each dimension with ratings, the share of the ratings fitted and how many such dimensions are done.
    (`seed` is kept for the command line's contract; EM is deterministic.)"""
    del seed
    scales = SCALES.rows(con)
    chosen = [scale for scale in scales if filters.selects(scale[0], scale[1])]
    names = keys.KeyIds.read(con, UNIT_KEYS)
    report = _progress_by_ratings(con, filters, chosen, progress)

    def fit(scale: tuple) -> tuple[list[dict], pd.DataFrame | None]:
        """One dimension's rater rows and consensus rows (level names), on a cursor of its own."""
        rubric, dimension, levels, measure = scale
        with con.cursor() as cursor:
            g = model_query(filters.but(rubric=rubric, dimensions=(dimension,))).df(cursor)
        if g.empty or g["researcher"].all():
            return [], None
        rows, consensus = _dimension(g, names, rubric, dimension, len(levels), measure != "nominal")
        return rows, consensus.assign(label=np.asarray(levels, dtype=object)[consensus["label"].to_numpy()])

    rater_rows: list[dict] = []
    parts = []
    # One dimension's ratings at a time per thread: all of them at once do not fit in memory on a large store.
    # FIT_THREADS dimensions are fitted side by side (EM's sparse products and element-wise updates release the
    # GIL), each with a one-threaded BLAS: two fits each calling a multi-threaded OpenBLAS slow each other down.
    # Each fit is its own: the rows are the same however many run at once, collected in the dimensions' order.
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(FIT_THREADS, "rater-model") as pool:
        contexts = [contextvars.copy_context() for _ in chosen]  # each fit's queries count as run by the caller
        fitted = pool.map(lambda scale, context: context.run(fit, scale), chosen, contexts)
        for scale, (rows, consensus) in zip(chosen, fitted, strict=True):
            rater_rows += rows
            if consensus is not None:
                parts.append(consensus)
            report(scale)
    consensus = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(CONSENSUS_COLUMNS))
    # Ids and names as categories: the Raters page's cache unpickles its view on every rerun.
    consensus = consensus.astype(dict.fromkeys(CONSENSUS_TEXT, "category"))
    for column in ("task_id", "target"):  # categories over every id of their key table (keys.KeyIds)
        consensus[column] = consensus[column].cat.remove_unused_categories()
    raters = pd.DataFrame(rater_rows, columns=list(RATER_COLUMNS))
    return RaterModel(raters, consensus[list(CONSENSUS_COLUMNS)])


def contract_payload(model: RaterModel) -> dict:
    """The `model --json` object: {"raters": [...], "consensus": [...]}, the contract's keys first."""
    return {"raters": records(model.raters), "consensus": records(model.consensus)}


def model_text(payload: dict, shown: int = 3) -> str:
    """Per dimension, the contractors the model finds least accurate, for a terminal."""
    raters = pd.DataFrame(payload["raters"])
    if raters.empty:
        return "No dimension has contractor ratings to model."
    lines = [f"{len(payload['consensus'])} units labelled by the model. Least accurate contractors per dimension:"]
    for (rubric, dimension), g in raters.groupby(["rubric", "dimension"], sort=True):
        low = g.sort_values("accuracy").head(shown)
        who = ", ".join(
            f"{r.rater_id} {r.accuracy:.2f} [{r.accuracy_ci_low:.2f}, {r.accuracy_ci_high:.2f}]"
            for r in low.itertuples()
        )
        stopped = "" if g["converged"].all() else f" (not converged after {MAX_ITERATIONS} steps: approximate)"
        lines.append(f"  {rubric}/{dimension}: {who}{stopped}{_uncalibrated_note(g)}")
    return "\n".join(lines)


def uncalibration_text() -> str:
    """Why a dimension's accuracy intervals are not calibrated, and the coverage they were measured to have."""
    return (
        f"fewer than {calibration.MIN_CALIBRATION_UNITS} researcher-labelled units with contractor labels, so its "
        f"accuracy intervals are not calibrated: such intervals covered {calibration.UNCALIBRATED_COVERAGE} of "
        "workers' accuracies on Snow 2008 gold, not 95%"
    )


def _uncalibrated_note(g: pd.DataFrame) -> str:
    """The text's note on a dimension whose rows (`g`) have no temperature, else nothing."""
    return f" ({uncalibration_text()})" if g["temperature"].isna().all() else ""


def uncalibrated(model: RaterModel) -> list[str]:
    """The dimensions whose accuracy intervals are not calibrated (too few researcher-labelled units)."""
    r = model.raters
    return sorted(set(r.loc[r["temperature"].isna(), "dimension"]))


def unconverged(model: RaterModel) -> list[str]:
    """The dimensions whose fit stopped after MAX_ITERATIONS steps without converging."""
    r = model.raters
    return sorted(set(r.loc[~r["converged"].astype(bool), "dimension"]))


def accuracy_against(labels: np.ndarray, gold: np.ndarray) -> float:
    """The share of units whose label equals the gold label (units with gold only: gold >= 0)."""
    keep = gold >= 0
    return float((labels[keep] == gold[keep]).mean()) if keep.any() else math.nan
