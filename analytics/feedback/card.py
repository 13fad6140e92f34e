"""A contractor's report card: per rubric dimension they rated, their agreement with researchers (exact, coarse,
kappa and mean difference, with 95% intervals and n) beside the team median and researcher-researcher agreement."""

from __future__ import annotations

from collections.abc import Mapping

import duckdb
import pandas as pd

from analytics import agreement as ag
from analytics.agreement import team as tm
from analytics.core.filters import Filters
from analytics.feedback.scope import (
    NO_FILTERS,
    Catalogue,
    against_researchers,
    dimension_info,
    subject_filter,
)
from analytics.feedback.team import TeamFigures, team_figures, with_kappa

CARD_STATS = ("exact_agreement", "coarse_agreement", "kappa", "mean_difference")
CARD_COLUMNS = (
    "rubric",
    "dimension",
    "dimension_label",
    "is_primary",
    "level",
    "n_levels",
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


def report_card(
    con: duckdb.DuckDBPyConnection,
    contractor: str,
    filters: Filters = NO_FILTERS,
    team: TeamFigures | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per rubric dimension the contractor rated: exact, coarse agreement, kappa and mean difference with
    researchers (95% intervals, n), beside the team median and researcher-researcher agreement (CARD_COLUMNS)."""
    own = own_agreement(con, contractor, filters, n_boot, seed)
    return card_vs_team(con, own, contractor, team or team_figures(con, filters)) if len(own) else card_of_nothing()


def own_agreement(
    con: duckdb.DuckDBPyConnection, contractor: str, filters: Filters, n_boot: int, seed: int
) -> pd.DataFrame:
    """The contractor's rater_agreement rows with researchers (with intervals), kappa named per scale."""
    own = ag.rater_agreement(con, against_researchers(subject_filter(filters, contractor), n_boot, seed))
    return with_kappa(own[own["rater_id"] == contractor])


def every_own_agreement(
    con: duckdb.DuckDBPyConnection, contractors: tuple[str, ...], filters: Filters, n_boot: int, seed: int
) -> dict[str, pd.DataFrame]:
    """own_agreement of each of `contractors` from one rater_agreement call: each rater's figures and intervals
    come from their own pairs alone, so these are own_agreement's rows (intervals equal to 1e-9: the delta
    method's probes are taken on the levels of a block of raters, equal to 1e-8)."""
    spec = against_researchers(subject_filter(filters, "").but(raters=contractors), n_boot, seed)
    every = with_kappa(ag.rater_agreement(con, spec))
    by_rater = {str(c): rows.reset_index(drop=True) for c, rows in every.groupby("rater_id", sort=False)}
    return {c: by_rater.get(c, every.iloc[:0]) for c in contractors}


def card_of_nothing() -> pd.DataFrame:
    """The report card of a contractor without agreement rows."""
    return pd.DataFrame(columns=list(CARD_COLUMNS))


def card_vs_team(
    con: duckdb.DuckDBPyConnection,
    own: pd.DataFrame,
    contractor: str,
    team: TeamFigures,
    known: Catalogue | None = None,
) -> pd.DataFrame:
    """report_card from the contractor's agreement rows (own_agreement) and the team's figures (`known`: the
    rubrics' dimensions when read beforehand, scope.catalogue)."""
    if own.empty:
        return card_of_nothing()
    med = tm.team_medians(team.contractors, CARD_STATS, (contractor,), "team_contractors")
    return _with_team(con, own, med, ["rubric", "dimension"], team, known)


def every_card_vs_team(
    con: duckdb.DuckDBPyConnection,
    agreement: Mapping[str, pd.DataFrame],
    team: TeamFigures,
    known: Catalogue | None = None,
) -> dict[str, pd.DataFrame]:
    """card_vs_team of each contractor of `agreement` (their own_agreement rows, every_own_agreement's) at once:
    the team medians that leave each one out in one pass (agreement.team.team_medians_each), the team's figures
    joined to every contractor's rows together and put in order by contractor first."""
    who = tuple(agreement)
    frames = [rows for rows in agreement.values() if len(rows)]
    if not frames:
        return {c: card_of_nothing() for c in who}
    med = tm.team_medians_each(team.contractors, CARD_STATS, who, "team_contractors")
    every = _with_team(con, pd.concat(frames, ignore_index=True), med, ["rater_id", "rubric", "dimension"], team, known)
    ids = every["rater_id"].to_numpy(dtype=object)
    cuts = [0, *(i for i in range(1, len(ids)) if ids[i] != ids[i - 1]), len(ids)]  # rows are sorted by rater
    shown = every[list(CARD_COLUMNS)]
    cards = {str(ids[a]): shown.iloc[a:b].reset_index(drop=True) for a, b in zip(cuts, cuts[1:], strict=False)}
    return {c: cards[c] if c in cards else card_of_nothing() for c in who}


def _with_team(
    con: duckdb.DuckDBPyConnection,
    own: pd.DataFrame,
    med: pd.DataFrame,
    keys: list[str],
    team: TeamFigures,
    known: Catalogue | None,
) -> pd.DataFrame:
    """Agreement rows beside the team medians `med` (joined on `keys`), the ceiling and the dimensions' labels,
    primary dimension first (CARD_COLUMNS; `rater_id` too, first in the order, when it is one of the keys)."""
    med = med.rename(columns={s: f"team_{s}" for s in CARD_STATS})
    ceiling = team.researchers[["rubric", "dimension", *CARD_STATS[:3], "n_tasks"]]
    ceiling = ceiling.rename(columns={**{s: f"ceiling_{s}" for s in CARD_STATS[:3]}, "n_tasks": "ceiling_tasks"})
    card = own.merge(med, on=keys, how="left").merge(ceiling, on=["rubric", "dimension"], how="left")
    card = card.merge(
        dimension_info(con, tuple(card["rubric"].unique()), known), on=["rubric", "dimension"], how="left"
    )
    card["dimension_label"] = card["dimension_label"].fillna(card["dimension"])
    card["is_primary"] = card["is_primary"].fillna(False).astype(bool)
    for c in ("team_contractors", "ceiling_tasks"):
        card[c] = card[c].fillna(0).astype(int)
    first = keys[:-2]
    card = card.sort_values(
        [*first, "rubric", "is_primary", "dimension_order"], ascending=[*(True for _ in first), True, False, True]
    )
    return card[[*first, *CARD_COLUMNS]].reset_index(drop=True)
