"""Yardsticks for reading one rater's agreement: the team median and researcher-researcher agreement.

One definition each, used by the Agreement page, the Feedback report, its exports and the command line:
- team median: per dimension and statistic, the median over the other raters of the subject role (never the
  one being viewed) of their own figure, among raters with at least one shared task. The team is every rater
  of the role under the rubric, dimension and date filters; the rater filter never changes it.
- researcher-researcher agreement: researcher against researcher on the same units, pooled over every pair of
  researchers on a shared unit (each counted once), over all dates (report.ceiling_table; the contract's key
  `ceiling`, a name kept for the command line). A reference for how hard the rubric is, not a bound: a contractor
  who agrees with researchers more often than researchers agree with each other exceeds it.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

YARDSTICK_COLUMNS = ("reference", "value", "ci_low", "ci_high", "raters", "n_tasks", "basis")
TEAM = "Team median"
CEILING = "Researcher-researcher agreement"


def team_medians(
    team: pd.DataFrame,
    statistics: tuple[str, ...],
    viewed: tuple[str, ...] = (),
    count: str = "team_raters",
    by: tuple[str, ...] = ("rubric", "dimension"),
    size: str = "n_tasks",
) -> pd.DataFrame:
    """Per group of `by` (a dimension; the Feedback report's weeks too), the median of each statistic over raters
    with shared tasks (`size` above 0), the viewed left out, and how many raters that is (`count`)."""
    cols = list(by)
    keep = team[(team[size] > 0) & ~team["rater_id"].isin(viewed)] if len(team) else team
    if keep.empty:
        return pd.DataFrame(columns=[*cols, *statistics, count])
    med = keep.groupby(cols)[list(statistics)].median()
    med[count] = keep.groupby(cols)["rater_id"].nunique()
    return med.reset_index()


def team_medians_each(
    team: pd.DataFrame,
    statistics: tuple[str, ...],
    raters: tuple[str, ...],
    count: str = "team_raters",
    by: tuple[str, ...] = ("rubric", "dimension"),
    size: str = "n_tasks",
) -> pd.DataFrame:
    """team_medians with each of `raters` left out in turn, in one pass (the rows of every rater, `rater_id` first):
    the same figures as calling it once per rater, for a report of every contractor."""
    cols = list(by)
    keep = team[team[size] > 0] if len(team) else team
    wanted = np.asarray(raters, dtype=object)
    if keep.empty or not len(wanted):
        return pd.DataFrame(columns=["rater_id", *cols, *statistics, count])
    ids_all = keep["rater_id"].to_numpy(dtype=object)
    values_all = keep[list(statistics)].to_numpy(dtype=float)
    who, where, medians, counts = [], [], [], []
    for key, at in sorted(keep.groupby(cols, sort=True).indices.items()):
        ids = ids_all[at]
        others = ids[None, :] != wanted[:, None]  # raters x rows: which rows each rater's team keeps
        n = others.sum(axis=1) if len(set(ids)) == len(ids) else np.array([len(set(ids[row])) for row in others])
        rows = n > 0
        if not rows.any():
            continue
        masked = np.where(others[rows][:, :, None], values_all[at][None, :, :], np.nan)  # raters x rows x stats
        with warnings.catch_warnings():  # a statistic nobody has is nan, as pandas' median gives
            warnings.simplefilter("ignore", RuntimeWarning)
            medians.append(np.nanmedian(masked, axis=1))
        who.append(wanted[rows])
        where.extend([key if isinstance(key, tuple) else (key,)] * int(rows.sum()))
        counts.append(n[rows])
    if not who:
        return pd.DataFrame(columns=["rater_id", *cols, *statistics, count])
    stacked = np.concatenate(medians)
    joined = pd.DataFrame(
        {
            "rater_id": np.concatenate(who),
            **{c: [k[i] for k in where] for i, c in enumerate(cols)},
            **{stat: stacked[:, i] for i, stat in enumerate(statistics)},
            count: np.concatenate(counts),
        }
    )
    order = {r: i for i, r in enumerate(raters)}
    joined = joined.sort_values("rater_id", key=lambda c: c.map(order), kind="stable")
    return joined.reset_index(drop=True)


def team_median(
    team: pd.DataFrame, rubric: str, dimension: str, statistic: str, viewed: tuple[str, ...] = ()
) -> tuple[float, int]:
    """The team median of one statistic on one dimension and how many raters it is over."""
    if statistic not in team.columns:
        return math.nan, 0
    med = team_medians(team[(team["rubric"] == rubric) & (team["dimension"] == dimension)], (statistic,), viewed)
    if med.empty or pd.isna(med[statistic].iloc[0]):
        return math.nan, 0
    return float(med[statistic].iloc[0]), int(med["team_raters"].iloc[0])


def ceiling_value(ceiling: pd.DataFrame, rubric: str, dimension: str, statistic: str) -> pd.Series | None:
    """The ceiling row's statistic, interval and n for one dimension (None when researchers share no unit)."""
    if ceiling is None or ceiling.empty or statistic not in ceiling.columns:
        return None
    rows = ceiling[(ceiling["rubric"] == rubric) & (ceiling["dimension"] == dimension)]
    if rows.empty or pd.isna(rows[statistic].iloc[0]):
        return None
    r = rows.iloc[0]
    return pd.Series(
        {
            "value": float(r[statistic]),
            "ci_low": float(r[f"{statistic}_ci_low"]),
            "ci_high": float(r[f"{statistic}_ci_high"]),
            "n_tasks": int(r["n_tasks"]),
            "n": int(r["n"]),
        }
    )


def yardsticks(
    team: pd.DataFrame,
    ceiling: pd.DataFrame | None,
    rubric: str,
    dimension: str,
    statistic: str,
    viewed: tuple[str, ...] = (),
    team_label: str = TEAM,
) -> pd.DataFrame:
    """The team median and researcher-researcher agreement of one dimension and statistic (YARDSTICK_COLUMNS); a
    yardstick nothing supports is left out."""
    rows = []
    value, n = team_median(team, rubric, dimension, statistic, viewed)
    if n:
        others = " other" if viewed else ""
        rows.append(
            {
                "reference": team_label,
                "value": value,
                "ci_low": math.nan,
                "ci_high": math.nan,
                "raters": n,
                "n_tasks": math.nan,
                "basis": f"median of {n}{others} raters' own figures",
            }
        )
    c = ceiling_value(ceiling, rubric, dimension, statistic) if ceiling is not None else None
    if c is not None:
        rows.append(
            {
                "reference": CEILING,
                "value": c["value"],
                "ci_low": c["ci_low"],
                "ci_high": c["ci_high"],
                "raters": math.nan,
                "n_tasks": c["n_tasks"],
                "basis": f"pooled over researcher pairs on the same units, {int(c['n'])} pairs over {int(c['n_tasks'])} "
                "tasks; a reference, not a bound",
            }
        )
    return pd.DataFrame(rows, columns=list(YARDSTICK_COLUMNS))


def review_order(rows: pd.DataFrame, statistic: str) -> pd.DataFrame:
    """Rows in the order a reviewer reads them: the upper end of the statistic's 95% interval, lowest first
    (confidently low agreement on top), then the value, then the id. The interval widens smoothly as tasks fall, so
    a rater with few tasks ranks by what their tasks can show (0 of 3 agreeing can be at most 0.56) and one more
    task moves a rater a little, never past a cut (issue 48). A value without an interval (none holds its coverage
    at that n, or none was asked for) ranks after those with one: nothing bounds it."""
    if rows.empty:
        return rows
    high = f"{statistic}_ci_high"
    upper = rows[high] if high in rows else pd.Series(math.nan, index=rows.index)
    key = pd.DataFrame({"upper": upper.fillna(math.inf), "value": rows[statistic], "id": rows["rater_id"]})
    order = key.sort_values(["upper", "value", "id"], na_position="last").index
    return rows.loc[order]
