"""What the Raters page shows for one rubric: each contractor's rater effects against the team, the rater model's
accuracy beside agreement with researchers on shared tasks, and the model's consensus label per unit. The effects
(effects_view) come from the alarm review the other pages share; the model (model_view) is its own part, fitted
when the user asks for it (issue #51: on demand, then cached)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics import agreement
from analytics.agreement import MIN_TASKS
from analytics.alarms.review import Review, narrowed, review
from analytics.core.filters import Filters
from analytics.describe.distributions import dimensions
from analytics.effects import EFFECT_TITLES, drift, markers
from analytics.model import rater_model

# Where each part of a view starts, as a share of its time (each ends where the next starts), for its progress:
# the rater model's fit is most of the model's part.
EFFECTS_STARTS = {"effects": 0.0, "drift": 0.9}
MODEL_STARTS = {"model": 0.0, "agreement": 0.85}
NOT_MEASURED = "not measured"  # the grid's standing where a contractor has no estimate of an effect
NOT_MEASURED_WHY = (
    "Pale: not measured. An effect is estimated only from the ratings it reads; drift needs tasks in the project's "
    f"last {drift.RECENT_WEEKS} weeks and in the {drift.BASELINE_WEEKS} before them."
)
GRID_COLUMNS = ("rater_id", "effect", "effect_title", "n_measured", "n_flagged", "standing")
BESIDE_COLUMNS = (
    "rater_id",
    "dimension",
    "accuracy",
    "accuracy_ci_low",
    "accuracy_ci_high",
    "n_tasks",
    "exact_agreement",
    "exact_agreement_ci_low",
    "exact_agreement_ci_high",
    "n_shared",
)


BESIDE_STATS = ("exact_agreement",)  # the one coefficient shown beside the model's accuracy


@dataclass(frozen=True)
class EffectsView:
    """The Raters page's effects for one rubric: everything but the rater model, shown as soon as the page opens."""

    rubric: str
    labels: dict[str, str]  # dimension -> its label in the catalogue
    primary: tuple[str, ...]  # the rubric's primary dimensions
    effects: pd.DataFrame  # the effects table (analytics.effects), contractors of this rubric
    grid: pd.DataFrame  # contractor x effect (GRID_COLUMNS)
    weekly: pd.DataFrame  # every contractor's weekly agreement beside the team's (drift.contractor_weeks columns)
    alerts: pd.DataFrame  # the review's alarms of this rubric (analytics.alarms.review.ALERT_COLUMNS)
    power: pd.DataFrame  # what each alarm kind finds at the team's n (analytics.alarms.power)
    markers: pd.DataFrame  # guideline-change markers of the rubric


@dataclass(frozen=True)
class ModelView:
    """The rater model's part of the Raters page for one rubric: fitted when the user asks for it."""

    beside: pd.DataFrame  # model accuracy beside exact agreement with researchers (BESIDE_COLUMNS)
    model: rater_model.RaterModel


@dataclass(frozen=True)
class RatersView(EffectsView):
    """The Raters page's figures for one rubric: its effects and its rater model together."""

    beside: pd.DataFrame
    model: rater_model.RaterModel


def standing(flagged: bool, n_tasks: int) -> str:
    """An effect row's standing in words: flagged, small n (fewer than MIN_TASKS tasks), or within the team."""
    return "flagged" if flagged else "small n" if n_tasks < MIN_TASKS else "within the team"


def effect_grid(table: pd.DataFrame) -> pd.DataFrame:
    """Per contractor and effect: dimensions measured and flagged, and one standing (flagged on any dimension,
    else within the team when any dimension has enough tasks, else small n; not measured where the contractor
    has no estimate of an effect others have, e.g. drift over too few weeks)."""
    if table.empty:
        return pd.DataFrame(columns=list(GRID_COLUMNS))
    g = table.assign(enough=table["n_tasks"] >= MIN_TASKS).groupby(["rater_id", "effect"], sort=False)
    out = pd.DataFrame(
        {"n_measured": g.size(), "n_flagged": g["flagged"].sum().astype(int), "enough": g["enough"].any()}
    )
    every = pd.MultiIndex.from_product([table["rater_id"].unique(), table["effect"].unique()], names=out.index.names)
    out = out.reindex(every).reset_index()
    measured = out["n_measured"].notna()
    out[["n_measured", "n_flagged"]] = out[["n_measured", "n_flagged"]].fillna(0).astype(int)
    out["standing"] = [
        NOT_MEASURED if not m else "flagged" if f else "within the team" if e else "small n"
        for m, f, e in zip(measured, out["n_flagged"] > 0, out["enough"], strict=True)
    ]
    out["effect_title"] = out["effect"].map(EFFECT_TITLES).fillna(out["effect"])
    order = {e: i for i, e in enumerate(EFFECT_TITLES)}
    out = out.sort_values(["rater_id", "effect"], key=lambda s: s.map(order) if s.name == "effect" else s)
    return out[list(GRID_COLUMNS)].reset_index(drop=True)


def accuracy_beside_agreement(model: pd.DataFrame, agreeing: pd.DataFrame) -> pd.DataFrame:
    """Each contractor's model accuracy per dimension beside their exact agreement with researchers on the tasks
    they share (NaN where they share none)."""
    mine = model[model["role"] == "contractor"] if "role" in model.columns else model
    theirs = agreeing[["rater_id", "dimension", "exact_agreement", "exact_agreement_ci_low", "exact_agreement_ci_high"]]
    theirs = theirs.assign(n_shared=agreeing["n_tasks"])
    out = mine.merge(theirs, on=["rater_id", "dimension"], how="left")
    out["n_shared"] = out["n_shared"].fillna(0).astype(int)
    return out[list(BESIDE_COLUMNS)].reset_index(drop=True)


def effects_view(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    rubric: str,
    progress: Callable[[float, str], None] | None = None,
    alarms: Review | None = None,
) -> EffectsView:
    """Each contractor's effects of one rubric under the filter's dates, from the review of the filter's team, with
    their weeks of agreement; the rater filter picks whose figures are shown, never the team they are measured
    against. `progress` hears the share of the work done and what comes next; `alarms` is the review of the
    filter's team when the caller has it (analytics.alarms.review.team_review)."""
    say = progress or (lambda share, what: None)
    say(EFFECTS_STARTS["effects"], "Estimating rater effects and deciding alarms")
    # The review of the sidebar's filters, whichever rubric is shown: its alarms are those of Overview and alerts.
    alarms = review(con, filters) if alarms is None else narrowed(alarms, filters)
    table = alarms.effects[alarms.effects["rubric"] == rubric].reset_index(drop=True)
    if filters.raters:
        table = table[table["rater_id"].isin(filters.raters)].reset_index(drop=True)
    table = table.assign(
        standing=[standing(bool(f), int(n)) for f, n in zip(table["flagged"], table["n_tasks"], strict=True)]
    )
    dims = dimensions(con, rubric)
    say(EFFECTS_STARTS["drift"], "Drift week by week")
    alerts = alarms.alerts[alarms.alerts["rubric"] == rubric].reset_index(drop=True)
    everyone = table[["rater_id", "rubric"]].drop_duplicates()
    weekly = drift.contractor_weeks(con, everyone, _scoped(filters, rubric))
    return EffectsView(
        rubric,
        dict(zip(dims["dimension"], dims["label"], strict=True)),
        tuple(dims.loc[dims["is_primary"].astype(bool), "dimension"]),
        table,
        effect_grid(table),
        weekly,
        alerts,
        alarms.power,
        markers.markers(con, rubric),
    )


def _scoped(filters: Filters, rubric: str) -> Filters:
    """The filter on the team of one rubric: its dates and dimensions, every rater and role."""
    return filters.but(rubric=rubric, raters=(), roles=())


def model_view(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    rubric: str,
    n_boot: int = 1000,
    seed: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> ModelView:
    """The rater model of one rubric under the filter's dates, fitted on everyone, and each contractor's accuracy
    beside their agreement with researchers (the rater filter picks the rows). `progress` hears the share of the
    work done and what comes next, as it goes."""
    say = progress or (lambda share, what: None)
    start, end = MODEL_STARTS["model"], MODEL_STARTS["agreement"]
    say(start, "Fitting the rater model")
    model = rater_model.fit_model(
        con,
        _scoped(filters, rubric),
        seed=seed,
        progress=lambda share, what: say(start + (end - start) * share, f"Fitting the rater model: {what}"),
    )
    say(end, "Agreement with researchers")
    agreeing = agreement.rater_agreement(
        con,
        agreement.AgreementSpec(
            comparison="contractor_vs_researcher",
            n_boot=n_boot,
            seed=seed,
            filters=filters.but(rubric=rubric, roles=()),
        ),
        stats=BESIDE_STATS,
    )
    beside = accuracy_beside_agreement(model.raters, agreeing)
    if filters.raters:
        beside = beside[beside["rater_id"].isin(filters.raters)].reset_index(drop=True)
    return ModelView(beside, model)


def raters_view(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    rubric: str,
    n_boot: int = 1000,
    seed: int = 0,
    alarms: Review | None = None,
) -> RatersView:
    """Effects, model and agreement with researchers for one rubric under the filter's dates (effects_view and
    model_view together)."""
    part = effects_view(con, filters, rubric, alarms=alarms)
    fitted = model_view(con, filters, rubric, n_boot=n_boot, seed=seed)
    return RatersView(**vars(part), beside=fitted.beside, model=fitted.model)


WHOLE_RUBRIC = "whole rubric"
UNITS = {"levels": "scale levels", "share": "share", "correlation": "correlation", "agreement": "agreement"}


def contractor_panels(view: EffectsView, rater_id: str) -> pd.DataFrame:
    """One contractor's effect rows, each with its small-multiple panel (the effect and its unit), where it was
    measured (the dimension's label, or the whole rubric) and that with the tasks behind it (`where_n`, a chart's
    row label), in EFFECT_TITLES order."""
    rows = view.effects[view.effects["rater_id"] == rater_id]
    order = {e: i for i, e in enumerate(EFFECT_TITLES)}
    rows = rows.sort_values("effect", key=lambda s: s.map(order), kind="stable")
    titles = rows["effect"].map(EFFECT_TITLES).fillna(rows["effect"])
    units = rows["unit"].map(lambda u: UNITS.get(u, u))
    where = [view.labels.get(d, d) if d else WHOLE_RUBRIC for d in rows["dimension"]]
    return rows.assign(
        effect_title=titles,
        panel=[f"{t} ({u})" for t, u in zip(titles, units, strict=True)],
        where=where,
        where_n=[f"{w} (n = {int(n)} tasks)" for w, n in zip(where, rows["n_tasks"], strict=True)],
    ).reset_index(drop=True)
