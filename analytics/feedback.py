"""A contractor's feedback report: how they agree with researchers, against the team and the researchers' own
agreement, week by week, how they use each scale, their most severe disagreements, and their time per task.

Other contractors only ever appear as a median ("team median": the median of every *other* contractor's own
figure, never a single other contractor's value), so a report can be handed to the contractor it describes.
The researcher ceiling and the team median are analytics.agreement.team's (one definition for every page and
export): the ceiling is researcher pairs on the same units over all dates (a contractor cannot be expected to
agree with researchers more than researchers agree with each other; seeds/000 puts researcher-researcher coarse
agreement on usefulness at about 80%).

Agreement per dimension comes from analytics.agreement; disagreements from analytics.disagreements; the
weekly, level and duration figures are GROUP BY queries below. Pairs are (contractor rating, researcher rating)
on a unit both rated, as in analytics.agreement.pairs: a unit with two researcher labels gives two pairs.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Any, cast

import duckdb
import numpy as np
import pandas as pd

from analytics import agreement as ag
from analytics.agreement import intervals as iv
from analytics.agreement import pairs as pr
from analytics.agreement import team as tm
from analytics.consistency import rates as cons
from analytics.core import rubrics
from analytics.core.concurrent import side_by_side
from analytics.core.filters import Filters
from analytics.core.formatting import is_missing
from analytics.core.queries import Query, QueryLog
from analytics.describe import distributions as dist
from analytics.describe.distributions import dimensions
from analytics.describe.overview import rated_rubrics
from analytics.effects import EFFECT_TITLES
from analytics.effects import estimate_effects as rater_effect_table
from analytics.effects.drift import drift_alerts
from analytics.review import disagreements as dis
from analytics.store import people
from analytics.store.derived import rater_tasks
from analytics.store.stamp import stamp

NO_FILTERS = Filters()
MAX_CASES = 10  # most severe disagreements listed (every case with a review note is listed as well)
CARD_STATS = ("exact_agreement", "coarse_agreement", "kappa", "mean_difference")
KAPPA_NAMES = {"none": "Cohen's kappa", "linear": "weighted kappa (linear)", "quadratic": "weighted kappa (quadratic)"}

CARD_COLUMNS = (
    "rubric",
    "dimension",
    "dimension_label",
    "is_primary",
    "level",
    "n",
    "n_units",
    "n_tasks",
    *[c for s in CARD_STATS for c in (s, f"{s}_ci_low", f"{s}_ci_high")],
    "kappa_statistic",
    *[f"team_{s}" for s in CARD_STATS],
    "team_contractors",
    *[f"ceiling_{s}" for s in CARD_STATS[:3]],
    "ceiling_tasks",
    "small_n",
    "notes",
)
WEEK_COLUMNS = (
    "rubric",
    "week",
    "n_pairs",
    "n_tasks",
    "exact_agreement",
    "ci_low",
    "ci_high",
    "coarse_agreement",
    "team_exact_agreement",
    "team_contractors",
    "small_n",
)
CASE_COLUMNS = (
    "rank",
    "rubric",
    "task_id",
    "dimension",
    "target",
    "severity",
    "steps",
    "contractor_id",
    "contractor_value",
    "researcher_id",
    "researcher_value",
    "submitted_at",
    "prompt",
    "contractor_comment",
    "researcher_explanation",
    "status",
    "note",
    "reviewer",
    "note_updated_at",
)


@dataclass(frozen=True)
class TeamFigures:
    """Everyone's figures for one filter, computed once and shared by every contractor's report.

    Holds other contractors' individual figures, so it is never shown: reports take medians from it."""

    filters: Filters
    contractors: pd.DataFrame  # rater_agreement rows of every contractor (no intervals)
    researchers: pd.DataFrame  # the researcher ceiling per dimension (agreement.ceiling_table, all dates)
    weekly: pd.DataFrame  # rater_id, rubric, week, n_pairs, agree
    durations: pd.DataFrame  # rater_id, rubric, median_s
    positions: pd.DataFrame  # distributions.position_bias rows of every rubric (with `rubric`), raters and roles
    rules: cons.Consistency  # the rubric rules' rates of every contractor and their violations
    effects: pd.DataFrame  # analytics.effects.estimate_effects: every contractor's effects, shrunk, with flags
    alerts: pd.DataFrame  # analytics.effects.drift.drift_alerts of every contractor


@dataclass(frozen=True)
class FeedbackReport:
    """One contractor's report card; every table names this contractor only (others are medians)."""

    contractor_id: str
    filters: Filters
    rubrics: tuple[str, ...]
    first_rating: dt.datetime | None
    last_rating: dt.datetime | None
    n_ratings: int
    card: pd.DataFrame  # CARD_COLUMNS, one row per rubric dimension the contractor rated
    weekly: pd.DataFrame  # WEEK_COLUMNS, one row per rubric and week with pairs
    trend: pd.DataFrame  # per rubric: agreement in the first and second half of the contractor's weeks
    levels: pd.DataFrame  # per dimension, level and side (contractor / researchers) on shared units
    disagreements: pd.DataFrame  # CASE_COLUMNS, most severe first
    effects: pd.DataFrame  # EFFECT_COLUMNS: each rater effect checked per rubric, those shown first
    durations: pd.DataFrame  # per rubric: submissions, median seconds, team median, ratio
    highlights: tuple[str, ...]  # a few plain sentences a lead can start the conversation with
    rules: pd.DataFrame  # RULE_COLUMNS: the rubric rules this contractor broke (analytics/consistency)
    alerts: pd.DataFrame  # drift alerts of this contractor (analytics.effects.drift.ALERT_COLUMNS)
    stamp: dict  # what the figures were computed on (analytics.stamp)
    name: str = ""  # how the contractor is named to people ("Dana K. (c13)" with a rater directory, else the id)


def subject_filter(filters: Filters, contractor: str) -> Filters:
    """The filter restricted to one contractor (rubric and dates kept; roles and other raters dropped)."""
    return filters.but(raters=(contractor,), roles=(), dimensions=())


def team_filter(filters: Filters) -> Filters:
    """The filter over every rater (rubric and dates kept)."""
    return filters.but(raters=(), roles=(), dimensions=())


# --- team figures ------------------------------------------------------------------------------------------


def researcher_figures(con: duckdb.DuckDBPyConnection, rubric: str | None = None) -> pd.DataFrame:
    """The researcher ceiling per dimension (analytics.agreement.team): researcher pairs on the same units over
    all dates, so a page can keep it while the dates change."""
    return _with_kappa(ag.ceiling_table(con, Filters(rubric=rubric), n_boot=0))


def team_figures(
    con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS, researchers: pd.DataFrame | None = None
) -> TeamFigures:
    """Every contractor's figures under the filter and the ceiling (no intervals: only medians are shown).

    Pass `researchers` (researcher_figures of the filter's rubric) to reuse them."""
    f = team_filter(filters)

    def effects(c: duckdb.DuckDBPyConnection) -> tuple[pd.DataFrame, pd.DataFrame]:
        log = QueryLog()  # drift's weekly query runs once for the effects and the alerts
        return rater_effect_table(c, f, log), drift_alerts(c, f, queries=log)

    def rest(c: duckdb.DuckDBPyConnection) -> dict:
        return {
            "researchers": researcher_figures(c, f.rubric) if researchers is None else researchers,
            "weekly": _weekly_by_contractor(c, f),
            "durations": _durations(c, f)[["rater_id", "rubric", "median_s"]],
            "positions": _positions(c, f),
            "rules": cons.consistency(c, f),
        }

    # at 1M tasks, one after the other: about 0.7, 0.3 and 0.3 s (the effects were 1.2 s before the kept days)
    contractors, (effect_rows, alerts), others = side_by_side(
        con, lambda c: ag.rater_agreement(c, f, "contractor_vs_researcher", n_boot=0), effects, rest
    )
    return TeamFigures(
        filters=f,
        contractors=_with_kappa(contractors[contractors["role"] == "contractor"]),
        effects=effect_rows,
        alerts=alerts,
        **others,
    )


def _positions(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """distributions.position_bias of every rubric under the filter, with a `rubric` column."""
    frames = [dist.position_bias(con, r, filters).assign(rubric=r) for r in rated_rubrics(con, filters)]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["rubric", "rater_id", "dimension"])


def _with_kappa(rows: pd.DataFrame) -> pd.DataFrame:
    """Rater rows with `kappa`: weighted kappa where the scale has weights, else Cohen's kappa."""
    weighted = rows["weights"] != "none"
    out = rows.copy()
    for suffix in ("", "_ci_low", "_ci_high"):
        out[f"kappa{suffix}"] = np.where(weighted, rows[f"weighted_kappa{suffix}"], rows[f"cohen_kappa{suffix}"])
    out["kappa_statistic"] = rows["weights"].map(KAPPA_NAMES).fillna("Cohen's kappa")
    return out


# --- which contractor to open on ----------------------------------------------------------------------------

DEFAULT_STATISTIC = "exact_agreement"
DEFAULT_RULE = (
    "Opens on the contractor to review first: among contractors with at least {min_tasks} tasks shared with "
    "researchers on a rubric's primary dimension, the one whose exact agreement there has the lowest upper 95% "
    "bound (confidently lowest, not lowest by chance on few tasks); when nobody has that many tasks, the one with "
    "the most. The sidebar's rater filter narrows the choice."
)


def default_contractor(
    con: duckdb.DuckDBPyConnection, filters: Filters = NO_FILTERS, n_boot: int = 1000, seed: int = 0
) -> str | None:
    """The contractor a feedback page opens on (DEFAULT_RULE): agreement.rater_agreement rows of each rubric's
    primary dimension in team.review_order (MIN_TASKS shared tasks first, then the upper end of the exact
    agreement interval, lowest first); the first row's contractor if it has MIN_TASKS tasks, else the
    contractor with the most primary-dimension tasks (summed over rubrics). None when no contractor shares a
    unit with a researcher under the filter (rubric, dates, raters). Intervals are computed only for
    contractors with MIN_TASKS tasks (the same intervals as the Agreement page's: same seed, same rows)."""
    f = filters.but(roles=(), dimensions=())
    primary = {(r, dis.primary_dimension(con, r)) for r in rated_rubrics(con, f.but(raters=()))}
    dims = tuple(sorted({d for _, d in primary if d}))
    if not dims:
        return None
    f = f.but(dimensions=dims)
    counts = _primary_rows(ag.rater_agreement(con, f, "contractor_vs_researcher", n_boot=0), primary)
    if counts.empty:
        return None
    enough = counts[counts["n_tasks"] >= ag.MIN_TASKS]
    if enough.empty:
        return str(counts.groupby("rater_id")["n_tasks"].sum().sort_index().idxmax())
    raters = tuple(sorted(set(enough["rater_id"])))
    rows = ag.rater_agreement(con, f.but(raters=raters), "contractor_vs_researcher", n_boot=n_boot, seed=seed)
    rows = _primary_rows(rows, primary)
    rows = rows[rows["n_tasks"] >= ag.MIN_TASKS]
    return str(tm.review_order(rows, DEFAULT_STATISTIC, ag.MIN_TASKS).iloc[0]["rater_id"])


def _primary_rows(rows: pd.DataFrame, primary: set[tuple[str, str | None]]) -> pd.DataFrame:
    """Contractors' rater_agreement rows on a rubric's primary dimension with at least one shared task."""
    keep = pd.Series([(r, d) in primary for r, d in zip(rows["rubric"], rows["dimension"], strict=True)], rows.index)
    return rows[keep & (rows["role"] == "contractor") & (rows["n_tasks"] > 0)]


# --- the report card ---------------------------------------------------------------------------------------


def report_card(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    filters: Filters = NO_FILTERS,
    team: TeamFigures | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per rubric dimension the contractor rated: exact, coarse agreement, kappa and mean difference with
    researchers (95% intervals, n), beside the team median and the researcher ceiling (CARD_COLUMNS)."""
    own = _own_agreement(con, contractor, filters, n_boot, seed)
    return _card(con, own, contractor, team or team_figures(con, filters)) if len(own) else _card_of_nothing()


def _own_agreement(
    con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters, n_boot: int, seed: int
) -> pd.DataFrame:
    """The contractor's rater_agreement rows with researchers (with intervals), kappa named per scale."""
    own = ag.rater_agreement(
        con, subject_filter(filters, contractor), "contractor_vs_researcher", n_boot=n_boot, seed=seed
    )
    return _with_kappa(own[own["rater_id"] == contractor])


def _card_of_nothing() -> pd.DataFrame:
    """The report card of a contractor without agreement rows."""
    return pd.DataFrame(columns=list(CARD_COLUMNS))


def _card(con: duckdb.DuckDBPyConnection, own: pd.DataFrame, contractor: str, team: TeamFigures) -> pd.DataFrame:
    """report_card from the contractor's agreement rows (_own_agreement) and the team's figures."""
    if own.empty:
        return _card_of_nothing()
    med = tm.team_medians(team.contractors, CARD_STATS, (contractor,), "team_contractors")
    med = med.rename(columns={s: f"team_{s}" for s in CARD_STATS})
    ceiling = team.researchers[["rubric", "dimension", *CARD_STATS[:3], "n_tasks"]]
    ceiling = ceiling.rename(columns={**{s: f"ceiling_{s}" for s in CARD_STATS[:3]}, "n_tasks": "ceiling_tasks"})
    card = own.merge(med, on=["rubric", "dimension"], how="left").merge(ceiling, on=["rubric", "dimension"], how="left")
    card = card.merge(_dimension_info(con, tuple(card["rubric"].unique())), on=["rubric", "dimension"], how="left")
    card["dimension_label"] = card["dimension_label"].fillna(card["dimension"])
    card["is_primary"] = card["is_primary"].fillna(False).astype(bool)
    for c in ("team_contractors", "ceiling_tasks"):
        card[c] = card[c].fillna(0).astype(int)
    card = card.sort_values(["rubric", "is_primary", "dimension_order"], ascending=[True, False, True])
    return card[list(CARD_COLUMNS)].reset_index(drop=True)


def _dimension_info(con: duckdb.DuckDBPyConnection, rubric_names: tuple[str, ...]) -> pd.DataFrame:
    """Label, primary flag and catalogue order of every dimension of the given rubrics."""
    frames = []
    for r in rubric_names:
        d = dimensions(con, r)
        frames.append(
            d.assign(rubric=r, dimension_label=d["label"])[
                ["rubric", "dimension", "dimension_label", "is_primary", "dimension_order"]
            ]
        )
    if not frames:
        return pd.DataFrame(columns=["rubric", "dimension", "dimension_label", "is_primary", "dimension_order"])
    return pd.concat(frames, ignore_index=True)


# --- agreement week by week ----------------------------------------------------------------------------------


def weekly_pairs_query(sides: pr.Sides, by_task: bool) -> Query:
    """Pairs of the one pairing per rater, rubric and week of the subject's rating (and task, `by_task`): how
    many, how many agree exactly and how many on the coarse scale."""
    head, params = pr.pair_ctes(sides, carry=("submitted_at",), named=False)
    task_key, task_id, tasks = (", task_key", ", task_id", " JOIN task_keys USING (task_key)") if by_task else ("",) * 3
    # Pairs are counted per rater, dimension, week and confusion cell (on the integer keys), then each cell's
    # coarse agreement is read from its dimension's scale and the counts are named and summed per rubric. Only
    # submitted_at is carried: contractors against researchers then read the pairs kept at ingest
    # (pairs.KEPT_CARRY). Joining every pair to its scale's coarse levels copied a list per pair: 0.21-0.23 s at 1M
    # tasks, against 0.10-0.12 s for this.
    sql = f"""{head}, cells AS (
    SELECT key_a, dim_key, CAST(date_trunc('week', submitted_at_a) AS DATE) AS week{task_key}, index_a, index_b,
           count(*) AS n
    FROM pairs
    WHERE submitted_at_a IS NOT NULL
    GROUP BY ALL
), grouped AS (
    SELECT key_a, dim_key, week{task_key}, sum(n) AS n_pairs, sum(n) FILTER (WHERE index_a = index_b) AS agree,
           sum(n) FILTER (WHERE d.coarse[index_a + 1] = d.coarse[index_b + 1]) AS coarse_agree
    FROM cells JOIN (SELECT dim_key, coarse FROM dimension_keys JOIN dimensions USING (rubric, dimension)) d
         USING (dim_key)
    GROUP BY ALL
)
SELECT k.rater_id, rubric, week{task_id}, CAST(sum(n_pairs) AS BIGINT) AS n_pairs,
       CAST(coalesce(sum(agree), 0) AS BIGINT) AS agree, CAST(coalesce(sum(coarse_agree), 0) AS BIGINT) AS coarse_agree
FROM grouped JOIN dimension_keys USING (dim_key) JOIN (SELECT rater_key AS key_a, rater_id FROM rater_keys) k
     USING (key_a){tasks}
GROUP BY ALL
ORDER BY ALL"""
    return Query("weekly_pairs_by_task" if by_task else "weekly_pairs", sql, params)


def _weekly_by_contractor(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Per contractor, rubric and week (Monday): pairs with a researcher and how many agreed exactly."""
    sides = pr.comparison_sides(team_filter(filters), "contractor_vs_researcher")
    return weekly_pairs_query(sides, by_task=False).df(con)


def _weekly_by_task(con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters) -> pd.DataFrame:
    """One contractor's pairs per rubric, week and task (the task is the unit the bootstrap resamples)."""
    sides = pr.comparison_sides(subject_filter(filters, contractor), "contractor_vs_researcher")
    return weekly_pairs_query(sides, by_task=True).df(con).drop(columns="rater_id")


def weekly_agreement(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    filters: Filters = NO_FILTERS,
    team: TeamFigures | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per rubric and week: the contractor's exact agreement with researchers over every dimension, its 95%
    task-bootstrap interval, coarse agreement, and the median of other contractors' weekly agreement."""
    team = team or team_figures(con, filters)
    return _with_team_weeks(_own_weeks(_weekly_by_task(con, contractor, filters), n_boot, seed), contractor, team)


def _own_weeks(by_task: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """weekly_agreement's rows from the contractor's per-task pair counts, without the team's columns (they need
    no team figures, so the Feedback page computes them alongside the team's: OwnFigures)."""
    rows = []
    for i, ((rubric, week), g) in enumerate(by_task.groupby(["rubric", "week"], sort=True)):
        agree, pairs = g["agree"].to_numpy(float), g["n_pairs"].to_numpy(float)
        value = agree.sum() / pairs.sum()
        samples = iv.ratio_samples(agree, pairs, n_boot, np.random.default_rng([seed, i]))
        ci = iv.interval("exact_agreement", value, samples, len(g), ag.MIN_TASKS, n_boot)
        rows.append(
            {
                "rubric": rubric,
                "week": pd.Timestamp(cast(dt.date, week)),  # pandas-stubs types groupby keys as Hashable
                "n_pairs": int(pairs.sum()),
                "n_tasks": len(g),
                "exact_agreement": value,
                "ci_low": ci.low,
                "ci_high": ci.high,
                "coarse_agreement": g["coarse_agree"].sum() / pairs.sum(),
                "small_n": len(g) < ag.MIN_TASKS,
            }
        )
    return pd.DataFrame(rows)


def _with_team_weeks(weeks: pd.DataFrame, contractor: str, team: TeamFigures) -> pd.DataFrame:
    """The contractor's weekly rows (`_own_weeks`) with the median of the other contractors' weekly agreement."""
    if weeks.empty:
        return pd.DataFrame(columns=list(WEEK_COLUMNS))
    rates = team.weekly.assign(team_exact_agreement=team.weekly["agree"] / team.weekly["n_pairs"])
    med = tm.team_medians(
        rates, ("team_exact_agreement",), (contractor,), "team_contractors", by=("rubric", "week"), size="n_pairs"
    )
    med["week"] = pd.to_datetime(med["week"])
    out = weeks.merge(med, on=["rubric", "week"], how="left")
    out["team_contractors"] = out["team_contractors"].fillna(0).astype(int)
    return out[list(WEEK_COLUMNS)]


TREND_COLUMNS = (
    "rubric",
    "weeks",
    "early_weeks",
    "late_weeks",
    "early_tasks",
    "late_tasks",
    "early",
    "late",
    "change",
    "change_ci_low",
    "change_ci_high",
)


def agreement_trend(
    con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters = NO_FILTERS, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Per rubric: pooled exact agreement in the first and the second half of the contractor's weeks with a
    researcher, and the change (late minus early) with its 95% task-bootstrap interval."""
    return _trend(_weekly_by_task(con, contractor, filters), n_boot, seed)


def _trend(by_task: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """agreement_trend from the contractor's per-task pair counts."""
    rows = []
    for i, (rubric, g) in enumerate(by_task.groupby("rubric", sort=True)):
        weeks = sorted(g["week"].unique())
        if len(weeks) < 2:
            continue
        half = len(weeks) // 2  # an odd middle week is left out
        early, late = g[g["week"].isin(weeks[:half])], g[g["week"].isin(weeks[len(weeks) - half :])]
        e = early["agree"].sum() / early["n_pairs"].sum()
        lt = late["agree"].sum() / late["n_pairs"].sum()
        rng = np.random.default_rng([seed, 1_000 + i])
        be = iv.ratio_samples(early["agree"].to_numpy(float), early["n_pairs"].to_numpy(float), n_boot, rng)
        bl = iv.ratio_samples(late["agree"].to_numpy(float), late["n_pairs"].to_numpy(float), n_boot, rng)
        n_early, n_late = early["task_id"].nunique(), late["task_id"].nunique()
        change = bl - be if be.size and bl.size else np.empty(0)
        lo, hi, _ = iv.difference_interval(e, n_early, lt, n_late, change, ag.MIN_TASKS) if n_boot else (math.nan,) * 3
        rows.append(
            {
                "rubric": rubric,
                "weeks": len(weeks),
                "early_weeks": f"{pd.Timestamp(weeks[0]):%Y-%m-%d} to {pd.Timestamp(weeks[half - 1]):%Y-%m-%d}",
                "late_weeks": f"{pd.Timestamp(weeks[len(weeks) - half]):%Y-%m-%d} to {pd.Timestamp(weeks[-1]):%Y-%m-%d}",
                "early_tasks": int(n_early),
                "late_tasks": int(n_late),
                "early": float(e),
                "late": float(lt),
                "change": float(lt - e),
                "change_ci_low": lo,
                "change_ci_high": hi,
            }
        )
    return pd.DataFrame(rows, columns=list(TREND_COLUMNS))


# --- levels against researchers ----------------------------------------------------------------------------


def levels_vs_researchers(
    con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters = NO_FILTERS
) -> pd.DataFrame:
    """Per dimension, every level in scale order with the contractor's and the researchers' counts and shares,
    over the pairs on units both rated (side is "contractor" or "researcher")."""
    sides = pr.comparison_sides(subject_filter(filters, contractor), "contractor_vs_researcher")
    head, params = pr.pair_ctes(sides, named=False)
    df = con.execute(
        f"""{head},
                 cells AS MATERIALIZED (SELECT dim_key, index_a, index_b, count(*) AS n FROM pairs GROUP BY ALL),
                 counts AS (SELECT dim_key, 'contractor' AS role, index_a AS level_index, sum(n) AS n
                            FROM cells GROUP BY ALL
                            UNION ALL
                            SELECT dim_key, 'researcher', index_b, sum(n) FROM cells GROUP BY ALL),
                 lv AS (SELECT k.dim_key, d.rubric, d.dimension, coalesce(d.label, d.dimension) AS dimension_label,
                               unnest(d.levels) AS level, unnest(d.coarse) AS coarse,
                               generate_subscripts(d.levels, 1) - 1 AS level_index
                        FROM dimensions d JOIN dimension_keys k USING (rubric, dimension)
                        WHERE k.dim_key IN (SELECT dim_key FROM cells)),
                 grid AS (SELECT lv.*, role FROM lv CROSS JOIN (VALUES ('contractor'), ('researcher')) AS t(role))
            SELECT g.rubric, g.dimension, g.dimension_label, g.level_index, g.level, g.coarse, g.role,
                   CAST(coalesce(c.n, 0) AS BIGINT) AS n,
                   coalesce(c.n, 0) / sum(coalesce(c.n, 0)) OVER (PARTITION BY g.rubric, g.dimension, g.role) AS share
            FROM grid g LEFT JOIN counts c USING (dim_key, role, level_index)
            ORDER BY g.rubric, g.dimension, g.role, g.level_index""",
        params,
    ).df()
    if df.empty:
        return df.assign(is_primary=pd.Series(dtype=bool), dimension_order=pd.Series(dtype=int))
    info = _dimension_info(con, tuple(df["rubric"].unique()))[["rubric", "dimension", "is_primary", "dimension_order"]]
    df = df.merge(info, on=["rubric", "dimension"], how="left")
    df["is_primary"] = df["is_primary"].fillna(False).astype(bool)
    return df.sort_values(
        ["rubric", "is_primary", "dimension_order", "dimension", "role", "level_index"],
        ascending=[True, False, True, True, True, True],
        ignore_index=True,
    )


# --- disagreements -------------------------------------------------------------------------------------------


def severe_cases(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    filters: Filters = NO_FILTERS,
    rubric_names: tuple[str, ...] = (),
    limit: int = MAX_CASES,
) -> pd.DataFrame:
    """The contractor's most severe disagreements on each rubric's primary dimension (every rubric together,
    most severe first), plus every case a reviewer has noted, with the task question, the contractor's comment
    and the researcher's explanation (CASE_COLUMNS)."""
    frames = [
        dis.disagreements(con, r, team_filter(filters), contractors=(contractor,)).assign(rubric=r)
        for r in rubric_names or _rated_rubrics(con, contractor, filters)
    ]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=list(CASE_COLUMNS))
    cases = pd.concat(frames, ignore_index=True)
    cases["severity_rank"] = cases["severity"].map({s: i for i, s in enumerate(dis.SEVERITIES)})
    cases = cases.sort_values(
        ["severity_rank", "steps", "submitted_at", "rubric", "task_id", "target", "researcher_id"],
        ascending=[True, False, False, True, True, True, True],
        na_position="last",
    ).reset_index(drop=True)
    noted = cases["note"].notna() | (cases["status"] != dis.NO_NOTE)
    cases = cases[(cases.index < limit) | noted].reset_index(drop=True)
    cases["rank"] = range(1, len(cases) + 1)
    texts = _case_texts(con, cases, contractor)
    cases = cases.merge(texts, on=["rubric", "task_id", "dimension", "researcher_id"], how="left")
    return cases[list(CASE_COLUMNS)]


def _rated_rubrics(con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters) -> tuple[str, ...]:
    """The rubrics the contractor has ratings in, under the filter."""
    return tuple(rated_rubrics(con, subject_filter(filters, contractor)))


CASE_TEXTS = Query(
    "case_texts",
    """WITH k AS (SELECT unnest($rubric) AS rubric, unnest($task_id) AS task_id, unnest($dimension) AS dimension,
                         unnest($researcher_id) AS researcher_id),
            sub AS (SELECT s.task_id, s.rubric, s.rater_id,
                           concat_ws(chr(10), s.explanation, s.justification, s.comment) AS text
                    FROM submissions s JOIN (SELECT DISTINCT task_id, rubric FROM k) USING (task_id, rubric)),
            rc AS (SELECT r.task_id, r.rubric, r.dimension, r.rater_id,
                          string_agg(r.comment, chr(10) ORDER BY r.target) AS text
                   FROM ratings r JOIN (SELECT DISTINCT task_id, rubric, dimension FROM k)
                        USING (task_id, rubric, dimension)
                   WHERE r.comment IS NOT NULL GROUP BY ALL)
       SELECT k.rubric, k.task_id, k.dimension, k.researcher_id, t.prompt,
              nullif(concat_ws(chr(10), cs.text, cr.text), '') AS contractor_comment,
              nullif(concat_ws(chr(10), xs.text, xr.text), '') AS researcher_explanation
       FROM k
       LEFT JOIN tasks t USING (task_id, rubric)
       LEFT JOIN sub xs ON xs.task_id = k.task_id AND xs.rubric = k.rubric AND xs.rater_id = k.researcher_id
       LEFT JOIN rc xr ON xr.task_id = k.task_id AND xr.rubric = k.rubric AND xr.dimension = k.dimension
                      AND xr.rater_id = k.researcher_id
       LEFT JOIN sub cs ON cs.task_id = k.task_id AND cs.rubric = k.rubric AND cs.rater_id = $contractor
       LEFT JOIN rc cr ON cr.task_id = k.task_id AND cr.rubric = k.rubric AND cr.dimension = k.dimension
                      AND cr.rater_id = $contractor""",
)


def _case_texts(con: duckdb.DuckDBPyConnection, cases: pd.DataFrame, contractor: str) -> pd.DataFrame:
    """For each case: the task's question, the contractor's comments and the researcher's explanation
    (submission explanation, justification and comment, and their comment on the rated dimension)."""
    keys = cases[["rubric", "task_id", "dimension", "researcher_id"]].drop_duplicates()
    columns = {c: keys[c].astype(str).tolist() for c in keys.columns}
    return CASE_TEXTS.bind(**columns, contractor=contractor).df(con)


# --- time per submission -------------------------------------------------------------------------------------


def _durations(con: duckdb.DuckDBPyConnection, filters: Filters) -> pd.DataFrame:
    """Per contractor and rubric: submissions with a duration and their median and quartiles in seconds.

    A submission's duration comes from the submissions table, or for rating-only formats (canonical files)
    from its ratings (one duration per task and rater)."""
    where, params = filters.where_named()
    return Query(
        "contractor_durations",
        f"""WITH s AS (SELECT rater_id, rubric, duration_s FROM submissions
                       WHERE role = 'contractor' AND duration_s IS NOT NULL AND {where}
                       UNION ALL
                       SELECT rater_id, rubric, duration_s
                       FROM (SELECT rater_key, rubric, max(duration_s) AS duration_s FROM ratings
                             WHERE role = 'contractor' AND submission_id IS NULL AND duration_s IS NOT NULL AND {where}
                             GROUP BY task_key, rubric, rater_key)
                       JOIN rater_keys USING (rater_key))
            SELECT rater_id, rubric, count(*) AS submissions, median(duration_s) AS median_s,
                   quantile_cont(duration_s, 0.25) AS q1_s, quantile_cont(duration_s, 0.75) AS q3_s
            FROM s GROUP BY ALL ORDER BY ALL""",
        params,
    ).df(con)


def durations(
    con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters = NO_FILTERS, team: TeamFigures | None = None
) -> pd.DataFrame:
    """Per rubric: the contractor's submissions, median (and quartiles of) seconds per submission, the median
    of other contractors' medians, and the ratio of the two (below 1 = faster than the team)."""
    own = _own_durations(con, contractor, filters)
    return _durations_vs_team(own, contractor, team or team_figures(con, filters)) if len(own) else _times_of_nothing()


DURATION_COLUMNS = ["rubric", "submissions", "median_s", "q1_s", "q3_s", "team_median_s", "team_contractors", "ratio"]


def _own_durations(con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters) -> pd.DataFrame:
    """The contractor's _durations rows (per rubric) under the filter."""
    own = _durations(con, subject_filter(filters, contractor))
    return own[own["rater_id"] == contractor]


def _times_of_nothing() -> pd.DataFrame:
    """The durations table of a contractor without timed submissions."""
    return pd.DataFrame(columns=DURATION_COLUMNS)


def _durations_vs_team(own: pd.DataFrame, contractor: str, team: TeamFigures) -> pd.DataFrame:
    """durations from the contractor's rows (_own_durations) and the team's."""
    if own.empty:
        return _times_of_nothing()
    others = team.durations[team.durations["rater_id"] != contractor]
    med = others.groupby("rubric").agg(team_median_s=("median_s", "median"), team_contractors=("rater_id", "nunique"))
    out = own.merge(med.reset_index(), on="rubric", how="left")
    out["team_contractors"] = out["team_contractors"].fillna(0).astype(int)
    out["ratio"] = out["median_s"] / out["team_median_s"]
    return out[DURATION_COLUMNS].reset_index(drop=True)


# --- rater effects -------------------------------------------------------------------------------------------

EFFECTS = {  # effect -> title, in the order a report lists them
    "position_bias": "Position bias",
    "leniency_or_severity": "Leniency or severity",
    "ties": "Ties",
    "central_tendency": "Central tendency",
    "halo": "Halo",
    "haste": "Haste",
    "drift": "Drift",
}
# Which rows of the effects table (analytics.effects) decide each report effect: a report tells a contractor of an
# effect exactly when that table flags them on it in the rubric (its one flag rule: enough tasks, and the shrunk
# estimate's interval beyond the rest of the team by the effect's margin).
TABLE_EFFECTS = {
    "position_bias": ("position_bias",),
    "leniency_or_severity": ("leniency", "severity"),
    "ties": ("ties",),
    "central_tendency": ("central_tendency",),
    "halo": ("halo",),
    "haste": ("haste",),
    "drift": ("drift",),
}
SHOWN, NOT_SHOWN, TOO_FEW, NOT_MEASURED = "shown", "not shown", "too few", "not measured"
STATUS_ORDER = (SHOWN, NOT_SHOWN, TOO_FEW, NOT_MEASURED)
# A report tells a contractor about an effect only with at least MIN_TASKS of the counted things (the small-n
# rule of analytics.agreement.team.review_order) and when the whole 95% interval lies clear of "no effect" by a
# margin: 10 points of share (position bias), a quarter of a scale step (leniency, severity); drift needs a fall
# of 10 points whose interval is below zero. A tendency too small to change a rating is not worth a
# conversation, however many tasks show it.
SHARE_MARGIN = 0.10
STEP_MARGIN = 0.25
# Ties: how often careful raters say "Equally good" varies more (the demo's careful c28: 44% against the
# researchers' 34%), so a tie habit must clear the reference by 20 points.
TIE_MARGIN = 0.20
HASTE_SHARE = 0.5  # haste: three quarters of the submissions took less than half the team's median time
ADVICE = {
    "position_bias": "Read both answers in full before choosing, and ask yourself whether you would choose the same "
    "if they were shown the other way round.",
    "leniency": "Keep the upper levels for answers that fully earn them: compare the answer with the rubric's "
    "description of a level before choosing it.",
    "severity": "Give the upper levels when an answer meets the rubric's description of them: note what the answer "
    "does well before looking for faults.",
    "ties": "Choose {tie} only when neither option is better on anything the rubric names; when one is even "
    "slightly better, say which.",
    "haste": "Take the time to read the whole question, both answers and their sources before rating.",
    "drift": "Re-read the rubric and the researchers' explanations of your recent disagreements (listed below): "
    "your recent ratings agree with researchers less than your early ones.",
    "central_tendency": "Use the whole scale: when an answer clearly earns an end level (the best or the worst), give "
    "it rather than a level in the middle.",
    "halo": "Rate each dimension on its own: read the rubric's description of that dimension before choosing, "
    "instead of carrying over your overall impression of the answer.",
}
EFFECT_COLUMNS = (
    "effect",
    "title",
    "rubric",
    "dimension",
    "dimension_label",
    "status",
    "value",
    "ci_low",
    "ci_high",
    "reference",
    "n",
    "n_of",
    "evidence",
    "advice",
)


def rater_effects(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    team: TeamFigures,
    rubric_names: tuple[str, ...],
    card: pd.DataFrame,
    trend: pd.DataFrame,
    times: pd.DataFrame,
) -> pd.DataFrame:
    """Each rater effect (EFFECTS) checked on each rubric where it can be measured. Whether it applies (SHOWN)
    is the effects table's flag (TABLE_EFFECTS); the evidence speaks to the contractor in the report's own terms:
    position bias and ties (distributions.position_bias), leniency or severity, central tendency and halo (the
    effects table), haste (time per submission) and drift (the early/late trend)."""
    mine = team.effects[team.effects["rater_id"] == contractor] if len(team.effects) else team.effects
    rows: list[dict] = []
    for rubric in rubric_names:
        dims = dimensions(con, rubric)
        rows += _position_effects(contractor, team.positions, rubric, dims)
        for effect in ("leniency_or_severity", "central_tendency", "halo"):
            rows += _table_effect(mine, rubric, effect, dims)
    rows += _haste_effects(times, card)
    rows += _drift_effects(trend)
    rows = [_decided(r, mine) for r in rows]
    out = pd.DataFrame(rows, columns=list(EFFECT_COLUMNS))
    if out.empty:
        return out
    key = pd.DataFrame(
        {
            "status": out["status"].map({s: i for i, s in enumerate(STATUS_ORDER)}),
            "effect": out["effect"].map({e: i for i, e in enumerate(EFFECTS)}),
            "rubric": out["rubric"],
        }
    )
    return out.loc[key.sort_values(["status", "effect", "rubric"], kind="stable").index].reset_index(drop=True)


def _decided(row: dict, mine: pd.DataFrame) -> dict:
    """A judged effect row (shown or not shown) with its status set by the effects table's flag for the
    contractor on that effect in that rubric; rows with too few or nothing measured stay as they are."""
    if row["status"] not in (SHOWN, NOT_SHOWN):
        return row
    table = mine[mine["effect"].isin(TABLE_EFFECTS[row["effect"]]) & (mine["rubric"] == row["rubric"])]
    shown = bool(table["flagged"].any()) if len(table) else False
    advice = row["advice"] or (ADVICE.get(row["effect"], "") if shown else "")
    return row | {"status": SHOWN if shown else NOT_SHOWN, "advice": advice if shown else ""}


def _table_effect(mine: pd.DataFrame, rubric: str, effect: str, dims: pd.DataFrame) -> list[dict]:
    """One report row of an effect read straight from the effects table: the flagged dimension furthest from
    the team (or, none flagged, the furthest of those with enough tasks), with its evidence."""
    rows = mine[mine["effect"].isin(TABLE_EFFECTS[effect]) & (mine["rubric"] == rubric)]
    if rows.empty:
        return []
    labels = dict(zip(dims["dimension"], dims["label"], strict=True))
    enough = rows[rows["n_tasks"] >= ag.MIN_TASKS]
    if enough.empty:
        most = int(rows["n_tasks"].max())
        return [
            _effect(
                effect,
                rubric,
                TOO_FEW,
                f"At most {_count(most, 'task')} on a dimension, fewer than {ag.MIN_TASKS}.",
                n=most,
                n_of="tasks",
            )
        ]
    flagged = enough[enough["flagged"]]
    pool = flagged if len(flagged) else enough
    top = pool.loc[(pool["estimate"] - pool["team_value"]).abs().idxmax()]  # type: ignore[call-overload]
    name = EFFECT_TITLES.get(str(top["effect"]), EFFECTS[effect])
    where = labels.get(top["dimension"], top["dimension"]) if top["dimension"] else "the whole rubric"
    listed = "; ".join(
        f"{labels.get(d, d) if d else 'the whole rubric'} ({e:+.2f} against the team's {t:+.2f})"
        for d, e, t in zip(flagged["dimension"], flagged["estimate"], flagged["team_value"], strict=True)
    )
    evidence = (
        f"{name} on {len(flagged)} of {len(enough)} dimension(s) with at least {ag.MIN_TASKS} tasks: {listed}. "
        f"{top['evidence']}"
        if len(flagged)
        else f"Within the team on every dimension with at least {ag.MIN_TASKS} tasks; the furthest is {where}: "
        f"{top['evidence']}"
    )
    return [
        _effect(
            effect,
            rubric,
            SHOWN if len(flagged) else NOT_SHOWN,
            evidence,
            title=name,
            advice=ADVICE.get(str(top["effect"]), ADVICE.get(effect, "")),
            dimension=top["dimension"] or None,
            dimension_label=where,
            value=top["estimate"],
            ci_low=top["estimate_ci_low"],
            ci_high=top["estimate_ci_high"],
            reference=top["team_value"],
            n=int(top["n_tasks"]),
            n_of="tasks",
        )
    ]


def _effect(effect: str, rubric: str, status: str, evidence: str, **values: Any) -> dict:
    """One EFFECT_COLUMNS row (advice only where the effect is shown)."""
    advice = values.pop("advice", "")
    return {
        "effect": effect,
        "title": values.pop("title", EFFECTS[effect]),
        "rubric": rubric,
        "dimension": None,
        "dimension_label": None,
        "value": math.nan,
        "ci_low": math.nan,
        "ci_high": math.nan,
        "reference": math.nan,
        "n": 0,
        "n_of": "",
        **values,
        "status": status,
        "evidence": evidence,
        "advice": advice if status == SHOWN else "",
    }


def _position_effects(contractor: str, positions: pd.DataFrame, rubric: str, dims: pd.DataFrame) -> list[dict]:
    """Position bias and ties on the rubric's primary comparison dimension (else the comparison dimension the
    contractor rated most), from distributions.position_bias rows of every rater."""
    comparison = dims[dims["is_comparison"].astype(bool)]
    if comparison.empty:
        return []
    g = positions[positions["rubric"] == rubric] if len(positions) else positions
    mine = g[(g["rater_id"] == contractor) & ~g["pooled"].astype(bool)] if len(g) else g
    if mine.empty:
        return [_effect("position_bias", rubric, NOT_MEASURED, dist.NO_SHOWN_FIRST)]
    primary = comparison.loc[comparison["is_primary"].astype(bool), "dimension"]
    at_primary = mine[mine["dimension"].isin(primary)]
    r = (at_primary if not at_primary.empty else mine.sort_values("n_rated", ascending=False, kind="stable")).iloc[0]
    dim = comparison[comparison["dimension"] == r["dimension"]].iloc[0]
    label, where = str(dim["label"]), {"dimension": r["dimension"], "dimension_label": str(dim["label"])}
    researchers = g[g["pooled"].astype(bool) & (g["role"] == "researcher") & (g["dimension"] == r["dimension"])]
    return [_position_bias(r, researchers, rubric, label, where), _ties(r, g, researchers, dim, rubric, where)]


def _position_bias(r: pd.Series, researchers: pd.DataFrame, rubric: str, label: str, where: dict) -> dict:
    """Position bias: the share of decided comparisons won by the option shown first, against one half."""
    n, share, lo, hi = int(r["n"]), r["share_first_better"], r["ci_low"], r["ci_high"]
    values = dict(where, value=share, ci_low=lo, ci_high=hi, reference=0.5, n=n, n_of="decided comparisons")
    if n < ag.MIN_TASKS:
        return _effect(
            "position_bias",
            rubric,
            TOO_FEW,
            f"{label}: {n} decided comparisons, fewer than "
            f"{ag.MIN_TASKS}; too few to tell a preference for a position from chance.",
            **values,
        )
    first = share >= 0.5
    won, w_lo, w_hi = (share, lo, hi) if first else (1 - share, 1 - hi, 1 - lo)
    res = ""
    if not researchers.empty and researchers["n"].iloc[0] > 0:
        rs = float(researchers["share_first_better"].iloc[0])
        res = f" Researchers' first-shown option won {rs:.0%} of theirs."
    evidence = (
        f"{label}: the option shown {'first' if first else 'second'} won {won:.0%} of your {n} decided comparisons "
        f"(95% interval {w_lo:.0%} to {w_hi:.0%}); without a preference for a position it would be about 50%.{res}"
    )
    shown = lo > 0.5 + SHARE_MARGIN or hi < 0.5 - SHARE_MARGIN
    return _effect(
        "position_bias", rubric, SHOWN if shown else NOT_SHOWN, evidence, advice=ADVICE["position_bias"], **values
    )


def _ties(r: pd.Series, g: pd.DataFrame, researchers: pd.DataFrame, dim: pd.Series, rubric: str, where: dict) -> dict:
    """Ties: the share of comparisons rated at the scale's middle ("Equally good"), against the researchers'
    share (the team median of other contractors' when no researcher has one)."""
    levels = list(dim["levels"])
    tie = f'"{levels[len(levels) // 2]}"' if len(levels) % 2 else "a tie"
    n, equal = int(r["n_rated"]), int(r["equal"])
    share = equal / n if n else math.nan
    lo, hi = (float(x[0]) for x in dist.wilson_interval(np.array([equal]), np.array([n])))
    if not researchers.empty and researchers["n_rated"].iloc[0] > 0:
        ref = float(researchers["equal"].iloc[0] / researchers["n_rated"].iloc[0])
        who = "researchers"
    else:
        others = g[(g["role"] == "contractor") & ~g["pooled"].astype(bool) & (g["dimension"] == r["dimension"])]
        others = others[(others["rater_id"] != r["rater_id"]) & (others["n_rated"] > 0)]
        ref = float((others["equal"] / others["n_rated"]).median()) if not others.empty else math.nan
        who = "the team median"
    values = dict(where, value=share, ci_low=lo, ci_high=hi, reference=ref, n=n, n_of="comparisons")
    label = where["dimension_label"]
    if n < ag.MIN_TASKS:
        return _effect("ties", rubric, TOO_FEW, f"{label}: {n} comparisons, fewer than {ag.MIN_TASKS}.", **values)
    evidence = f"{label}: you chose {tie} on {share:.0%} of your {n} comparisons (95% interval {lo:.0%} to {hi:.0%})"
    evidence += f"; {who}: {ref:.0%}." if not math.isnan(ref) else "."
    shown = not math.isnan(ref) and lo > ref + TIE_MARGIN
    return _effect(
        "ties", rubric, SHOWN if shown else NOT_SHOWN, evidence, advice=ADVICE["ties"].format(tie=tie), **values
    )


def _count(n: int, word: str) -> str:
    """ "1 task", "2 tasks"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _haste_effects(times: pd.DataFrame, card: pd.DataFrame) -> list[dict]:
    """Haste per rubric: three quarters of the submissions faster than half the team's median time."""
    rows = []
    for _, d in times.iterrows():
        if is_missing(d["team_median_s"]):
            continue
        n = int(d["submissions"])
        values = dict(value=d["ratio"], reference=1.0, n=n, n_of="submissions")
        if n < ag.MIN_TASKS:
            rows.append(
                _effect(
                    "haste",
                    d["rubric"],
                    TOO_FEW,
                    f"{n} submissions with a duration, fewer than {ag.MIN_TASKS}.",
                    **values,
                )
            )
            continue
        evidence = (
            f"Your median time per submission is {d['median_s']:.0f} s (middle half {d['q1_s']:.0f} to "
            f"{d['q3_s']:.0f} s) over {n} submissions; the team median is {d['team_median_s']:.0f} s."
        )
        primary = card[(card["rubric"] == d["rubric"]) & card["is_primary"] & (card["n"] > 0)]
        if not primary.empty and not is_missing(primary["team_exact_agreement"].iloc[0]):
            p = primary.iloc[0]
            evidence += (
                f" Your exact agreement with researchers on {p['dimension_label']} is {p['exact_agreement']:.2f} "
                f"({int(p['n_tasks'])} tasks) against a team median of {p['team_exact_agreement']:.2f}."
            )
        shown = d["q3_s"] < HASTE_SHARE * d["team_median_s"]
        rows.append(
            _effect("haste", d["rubric"], SHOWN if shown else NOT_SHOWN, evidence, advice=ADVICE["haste"], **values)
        )
    return rows


def _drift_effects(trend: pd.DataFrame) -> list[dict]:
    """Drift per rubric: exact agreement in the second half of the contractor's weeks below the first half's
    (the 95% interval of the change below zero), over at least MIN_TASKS tasks."""
    rows = []
    for _, t in trend.iterrows():
        n = int(t["early_tasks"] + t["late_tasks"])
        values = dict(value=t["change"], ci_low=t["change_ci_low"], ci_high=t["change_ci_high"], reference=0.0)
        values |= dict(n=n, n_of="tasks")
        evidence = (
            f"Exact agreement with researchers went from {t['early']:.2f} ({t['early_weeks']}, "
            f"{_count(int(t['early_tasks']), 'task')}) to {t['late']:.2f} ({t['late_weeks']}, "
            f"{_count(int(t['late_tasks']), 'task')})"
        )
        if n < ag.MIN_TASKS:
            rows.append(
                _effect("drift", t["rubric"], TOO_FEW, f"{evidence}: {n} tasks, fewer than {ag.MIN_TASKS}.", **values)
            )
        elif is_missing(t["change_ci_high"]):
            rows.append(_effect("drift", t["rubric"], NOT_MEASURED, f"{evidence}; no interval was computed.", **values))
        else:
            shown = t["change_ci_high"] < 0 and t["change"] <= -SHARE_MARGIN
            evidence += f"; the 95% interval of the change is {t['change_ci_low']:+.2f} to {t['change_ci_high']:+.2f}."
            rows.append(
                _effect("drift", t["rubric"], SHOWN if shown else NOT_SHOWN, evidence, advice=ADVICE["drift"], **values)
            )
    return rows


# --- the whole report ----------------------------------------------------------------------------------------


def span_query(contractor: str, filters: Filters) -> Query:
    """The contractor's number of ratings and first and last rating time under the filter, from the rater tasks
    kept at ingest (analytics/store/derived/rater_tasks.py; the ratings when those cannot answer the filter): at 1M tasks
    0.02 s against 0.11 s over the ratings."""
    f = subject_filter(filters, contractor)
    where, params = f.where_named()
    table, n = ("rater_tasks", "sum(n_ratings)") if rater_tasks.answers(f) else ("ratings", "count(*)")
    sql = f"""SELECT CAST(coalesce({n}, 0) AS BIGINT), min(submitted_at), max(submitted_at)
FROM {table} WHERE role = 'contractor' AND {where}"""
    return Query("contractor_span", sql, params)


@dataclass(frozen=True)
class OwnFigures:
    """The part of one contractor's report that does not need the team's figures, so that its queries can run
    while the team's do: the Feedback page runs them side by side (bench/RESULTS.md, session 24)."""

    contractor: str
    filters: Filters
    n_boot: int
    seed: int
    max_cases: int
    n_ratings: int
    first_rating: dt.datetime | None
    last_rating: dt.datetime | None
    rubrics: tuple[str, ...]
    agreement: pd.DataFrame  # _own_agreement: rater_agreement rows with intervals
    weeks: pd.DataFrame  # _own_weeks: exact agreement per rubric and week, with intervals
    trend: pd.DataFrame  # _trend
    stamp: dict  # what the figures were computed on (analytics/store/stamp.py)
    durations: pd.DataFrame  # _own_durations: per rubric
    levels: pd.DataFrame  # levels_vs_researchers
    disagreements: pd.DataFrame  # severe_cases

    def made_for(self) -> tuple:
        """What the figures were computed for: contractor, filter, n_boot, seed and max_cases."""
        return self.contractor, self.filters, self.n_boot, self.seed, self.max_cases


def own_figures(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    filters: Filters = NO_FILTERS,
    n_boot: int = 1000,
    seed: int = 0,
    max_cases: int = MAX_CASES,
) -> OwnFigures:
    """The contractor's own figures under the filter (rubric and dates; other raters are ignored); ValueError
    when there is no contractor or they have no ratings under the filter."""
    if not contractor:
        raise ValueError("feedback_report needs a contractor id")
    n, first, last = span_query(contractor, filters).rows(con)[0]
    if n == 0:
        raise ValueError(f"contractor {contractor!r} has no ratings under these filters")
    rated = _rated_rubrics(con, contractor, filters)
    by_task = _weekly_by_task(con, contractor, filters)
    return OwnFigures(
        contractor=contractor,
        filters=filters,
        n_boot=n_boot,
        seed=seed,
        max_cases=max_cases,
        n_ratings=int(n),
        first_rating=first,
        last_rating=last,
        rubrics=rated,
        agreement=_own_agreement(con, contractor, filters, n_boot, seed),
        weeks=_own_weeks(by_task, n_boot, seed),
        trend=_trend(by_task, n_boot, seed),
        stamp=stamp(con, filters, None, False, n_boot, seed),
        durations=_own_durations(con, contractor, filters),
        levels=levels_vs_researchers(con, contractor, filters),
        disagreements=severe_cases(con, contractor, filters, rated, max_cases),
    )


def feedback_report(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    filters: Filters = NO_FILTERS,
    team: TeamFigures | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    max_cases: int = MAX_CASES,
    own: OwnFigures | None = None,
) -> FeedbackReport:
    """The contractor's whole feedback report under the filter (rubric and dates; other raters are ignored).

    Pass `team` (from team_figures with the same filter) to reuse it across contractors, and `own` (own_figures
    with the same contractor, filter, n_boot, seed and max_cases) when it was computed beforehand."""
    own = own or own_figures(con, contractor, filters, n_boot, seed, max_cases)
    if own.made_for() != (contractor, filters, n_boot, seed, max_cases):
        raise ValueError("feedback_report: `own` was computed for another contractor, filter, bootstrap or limit")
    team = team or team_figures(con, filters)
    card = _card(con, own.agreement, contractor, team)
    weekly = _with_team_weeks(own.weeks, contractor, team)
    trend = own.trend
    times = _durations_vs_team(own.durations, contractor, team)
    return FeedbackReport(
        contractor_id=contractor,
        filters=filters,
        rubrics=own.rubrics,
        first_rating=own.first_rating,
        last_rating=own.last_rating,
        n_ratings=own.n_ratings,
        card=card,
        weekly=weekly,
        trend=trend,
        levels=own.levels,
        disagreements=own.disagreements,
        effects=rater_effects(con, contractor, team, own.rubrics, card, trend, times),
        durations=times,
        highlights=highlights(card, trend, times),
        rules=broken_rules(contractor, team),
        alerts=team.alerts[team.alerts["rater_id"] == contractor].reset_index(drop=True),
        stamp=own.stamp,
        name=people.who(contractor, people.display_names(con)),
    )


RULE_COLUMNS = [*cons.RULE_COLUMNS, "rate", "rate_ci_low", "rate_ci_high", "team_rate", "flagged", "examples"]
RULE_EXAMPLES = 3  # violations quoted per rule


def broken_rules(contractor: str, team: TeamFigures) -> pd.DataFrame:
    """The rubric rules the contractor broke (flagged ones first), each with its words, the contractor's rate and
    the rest of the team's, and a few of the tasks where it happened."""
    rows = team.rules.raters[(team.rules.raters["rater_id"] == contractor) & (team.rules.raters["n_violations"] > 0)]
    if rows.empty:
        return pd.DataFrame(columns=RULE_COLUMNS)
    words = team.rules.rules.set_index("rule_id")
    seen = team.rules.violations[team.rules.violations["rater_id"] == contractor]
    examples = {
        rule: "; ".join(f"task {t}: {d}" for t, d in zip(g["task_id"], g["detail"], strict=True))
        for rule, g in seen.groupby("rule_id")
        for g in [g.head(RULE_EXAMPLES)]
    }
    out = rows.assign(
        rubric=rows["rule_id"].map(words["rubric"]),
        description=rows["rule_id"].map(words["description"]),
        examples=rows["rule_id"].map(examples).fillna(""),
    )
    return out.sort_values(["flagged", "rate"], ascending=False)[RULE_COLUMNS].reset_index(drop=True)


def rubric_title(name: str) -> str:
    """A rubric's title from the catalogue (its name when uncatalogued)."""
    r = rubrics.get_rubric(name)
    return r.title if r else name


def _num(x: float, digits: int = 2) -> str:
    """A number for a sentence ("n/a" when undefined)."""
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def highlights(card: pd.DataFrame, trend: pd.DataFrame, times: pd.DataFrame) -> tuple[str, ...]:
    """Plain sentences: agreement on each primary dimension against team and ceiling, scale shifts and falls in
    weekly agreement whose 95% interval excludes zero, and time per submission against the team."""
    out = []
    for _, r in card[card["is_primary"]].iterrows():
        where = f"{rubric_title(r['rubric'])}, {r['dimension_label']}"
        if r["n"] == 0:
            out.append(f"{where}: no unit shared with a researcher yet.")
            continue
        out.append(
            f"{where}: exact agreement with researchers {_num(r['exact_agreement'])} (95% interval "
            f"{_num(r['exact_agreement_ci_low'])} to {_num(r['exact_agreement_ci_high'])}, "
            f"{int(r['n_tasks'])} tasks, {int(r['n'])} pairs); "
            f"team median {_num(r['team_exact_agreement'])}; researchers with each other "
            f"{_num(r['ceiling_exact_agreement'])}."
        )
    shifted = card[(card["mean_difference_ci_low"] > 0) | (card["mean_difference_ci_high"] < 0)]
    for rubric, g in shifted.groupby("rubric", sort=True):
        later = int((g["mean_difference"] > 0).sum())
        top = g.loc[g["mean_difference"].abs().idxmax()]  # type: ignore[call-overload]  # pandas-stubs: idxmax is Hashable
        out.append(
            f"{rubric_title(str(rubric))}: on {len(g)} dimension(s) your ratings differ from researchers' on the same "
            f"units in one direction (95% interval of the mean difference excludes 0): {later} later on the "
            f"scale, {len(g) - later} earlier; the largest is {top['dimension_label']} "
            f"({top['mean_difference']:+.2f} levels)."
        )
    for _, t in trend[trend["change_ci_high"] < 0].iterrows():
        out.append(
            f"{rubric_title(t['rubric'])}: exact agreement fell from {_num(t['early'])} ({t['early_weeks']}) to "
            f"{_num(t['late'])} ({t['late_weeks']}); the 95% interval of the change, {_num(t['change_ci_low'])} "
            f"to {_num(t['change_ci_high'])}, is below zero."
        )
    for _, d in times.iterrows():
        if not math.isnan(d["ratio"]):
            out.append(
                f"{rubric_title(d['rubric'])}: median {d['median_s']:.0f} s per submission over {int(d['submissions'])} "
                f"submissions; team median {d['team_median_s']:.0f} s ({d['ratio']:.2f} times the team's)."
            )
    return tuple(out)
