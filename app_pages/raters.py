"""Raters: which rater effect each contractor shows (leniency, severity, central tendency, ties, position bias,
halo, haste, drift), each shrunk toward the rest of the team with its interval; the rater model's accuracy on
every task beside agreement with researchers on the tasks they shared; and the model's consensus labels.

Every id and piece of text from the data is shown escaped or as plain text."""

from __future__ import annotations

import streamlit as st

from analytics.agreement import MIN_TASKS
from analytics.core.filters import Filters
from analytics.effects import EFFECT_HEADERS
from analytics.model import rater_model, raters
from ui import alarm_panel, identity, query_log, sidebar, state
from ui import drift_charts as rc_drift
from ui import raters_charts as rc
from ui.charts import show
from ui.progress import Report, with_progress
from ui.tables import number_columns, table
from ui.text import md_escape

identity.require("page:raters")  # the navigation hides it too; a page run directly stops here

EFFECT_TABLE = [
    "effect",
    "dimension",
    "n_tasks",
    "raw",
    "estimate",
    "estimate_ci_low",
    "estimate_ci_high",
    "team_value",
    "flagged",
    "basis",
    "evidence",
]


@query_log.loader(max_entries=8)
def load_effects(version: tuple, filters: Filters, rubric: str, _progress: Report | None = None) -> raters.EffectsView:
    """The effects of one rubric, filter and dataset version (`_progress` hears how far it is)."""
    alarms = alarm_panel.review_of(version, filters)  # the Overview's and Feedback's review of the same team
    return raters.effects_view(state.cursor(), filters, rubric, progress=_progress, alarms=alarms)


@query_log.loader(max_entries=8)
def load_model(version: tuple, filters: Filters, rubric: str, _progress: Report | None = None) -> raters.ModelView:
    """The rater model of one rubric, filter and dataset version, with accuracy beside agreement."""
    return raters.model_view(state.cursor(), filters, rubric, progress=_progress)


def fitted_here() -> set[tuple]:
    """The (dataset version, filters, rubric) whose rater model this session has fitted (or asked for)."""
    return st.session_state.setdefault("raters_fitted", set())  # type: ignore[no-any-return]


SHRUNK_AND_OWN = (
    "Own estimate: the contractor's figure from their tasks alone, with the tasks behind it. Shrunk toward the "
    "team: that figure pulled toward the rest of the team in proportion to its noise, the one flags are read on; "
    "with few tasks it sits near the team's value, which is the team's and not evidence about the contractor."
)


def asked_for_model() -> bool:
    """What the rater model is and a button to fit it; whether it was clicked on this run."""
    st.caption(
        "The rater model (Dawid-Skene with researcher labels as known truth) estimates each contractor's accuracy "
        "on all their tasks, also those no researcher saw, and a consensus label for every unit. Its fit takes "
        "longer than the rest of the page, so it runs when asked, with a progress bar, and is kept for these "
        "filters and this rubric."
    )
    return st.button("Fit the rater model", key="raters_fit_model", type="primary")


def show_model(fit: raters.ModelView, view: raters.EffectsView, rubric: str) -> None:
    """The rater model's accuracy beside agreement on one dimension, and its consensus labels."""
    beside = fit.beside
    if beside.empty:
        st.info("The rater model found nothing to fit: no unit of this rubric has ratings from two raters.")
    else:
        dims = list(dict.fromkeys(beside["dimension"]))
        first = next((i for i, d in enumerate(dims) if d in view.primary), 0)
        dimension = st.selectbox(
            "Dimension", dims, index=first, key="raters_model_dim", format_func=lambda d: view.labels.get(d, d)
        )
        if dimension in rater_model.unconverged(fit.model):
            st.warning(
                f"The rater model did not converge on this dimension within {rater_model.MAX_ITERATIONS} steps: "
                "its accuracies and consensus labels here are approximate."
            )
        if dimension in rater_model.uncalibrated(fit.model):
            st.info(f"This dimension has {rater_model.uncalibration_text()}.")
        one = beside[beside["dimension"] == dimension].assign(
            rater_name=lambda d: d["rater_id"].map(sidebar.rater_name)
        )
        show(st, rc.model_vs_agreement(one, f"{view.labels.get(dimension, dimension)}: model accuracy and agreement"))
        st.caption(
            "Model accuracy: the probability that the contractor's label is the true label, estimated on all their "
            "tasks by the rater model. Exact agreement: the share of tasks shared with a researcher where both gave "
            "the same level. Points far below the diagonal do worse on the tasks no researcher saw."
        )
        table(
            one.drop(columns=["rater_name"]),
            f"model accuracy {rubric} {dimension}",
            key="raters_dl_model",
            column_config=number_columns(one),
        )

    st.subheader("Consensus labels")
    consensus = fit.model.consensus
    st.caption(
        "The model's most probable label for every unit, with the probability it gives that label; units a "
        "researcher labelled take the researcher's label. Download it as a labelled dataset."
    )
    table(consensus, f"consensus labels {rubric}", key="raters_dl_consensus", column_config=number_columns(consensus))


filters = sidebar.current()
st.title("Raters")
st.markdown(
    "Who shows which rater effect (leniency, ties, position bias, haste, drift...) and how accurate each rater is. "
    "**Next:** pick a contractor with red cells to see each effect against the team, then give them feedback on "
    "the Feedback page."
)
st.caption(
    "Each contractor's rater effects, estimated on their tasks and pulled toward the rest of the team in proportion "
    "to their noise (empirical Bayes), so that a contractor with few tasks is not flagged on chance. An effect is "
    f"flagged only with at least {MIN_TASKS} tasks behind it and a 95% interval wholly on the bad side of the team "
    "(the team without them), beyond the smallest difference worth a conversation (a quarter of a scale step, ten "
    "points of share). The rater model estimates each rater's accuracy on every task, also those no "
    "researcher labelled, with researcher labels as known truth where they exist. The sidebar's date and rater "
    "filters apply."
)
rubric = sidebar.rubric_or_first(filters, key="raters_rubric")
if rubric is None:
    st.info("No ratings are loaded. Load files on the Data page.")
    st.stop()
version, chosen = state.version(), rubric
# After a filter change the alarm review is computed again: a progress bar when it takes long, and the work goes on
# if the user moves on (ui/progress.py).
view = with_progress(lambda report: load_effects(version, filters, chosen, report), "Estimating rater effects")

st.subheader("Who shows which effect")
if view.grid.empty:
    st.info("No contractor rated this rubric under these filters.")
else:
    flagged = view.effects[view.effects["flagged"]]
    if flagged.empty:
        st.markdown("No contractor shows an effect clearly beyond the rest of the team.")
    else:
        st.markdown(
            md_escape(
                "Flagged: "
                + "; ".join(
                    f"{sidebar.rater_name(str(r))} ({', '.join(dict.fromkeys(g['effect'].map(raters.EFFECT_TITLES)))})"
                    for r, g in flagged.groupby("rater_id", sort=True)
                )
            )
        )
    grid = view.grid.assign(rater_name=view.grid["rater_id"].map(sidebar.rater_name))
    show(st, rc.effect_grid(grid))
    if (view.grid["standing"] == raters.NOT_MEASURED).any():
        st.caption(raters.NOT_MEASURED_WHY)
    st.caption(SHRUNK_AND_OWN)
    with st.expander("What silence means: what each alarm finds at this team's n"):
        alarm_panel.show_power(view.power, "raters_alarms")
    table(
        view.effects.drop(columns=["standing"]),
        f"rater effects {rubric}",
        key="raters_dl_effects",
        column_config=number_columns(view.effects, labels=EFFECT_HEADERS),
    )

    st.subheader("One contractor's effects")
    by_flags = view.grid.groupby("rater_id")["n_flagged"].sum().sort_values(ascending=False, kind="stable")
    contractor = st.selectbox(
        "Contractor", by_flags.index.tolist(), key="raters_contractor", format_func=sidebar.rater_name
    )
    panels = raters.contractor_panels(view, contractor)
    show(st, rc.contractor_effects(panels, f"{sidebar.rater_name(contractor)}: each effect against the team"))
    st.caption(
        "Filled point: the contractor's estimate after shrinkage toward the team; bar: its 95% interval; hollow "
        "ring: their own raw estimate from their tasks alone (n beside each row); black tick: the rest of the "
        f"team. Red: flagged; grey: fewer than {MIN_TASKS} tasks behind it."
    )
    evidence = [
        f"- {md_escape(f'{r.effect_title} ({r.where}): {r.evidence}')}" for r in panels[panels["flagged"]].itertuples()
    ]
    if evidence:
        st.markdown("\n".join(evidence))
    weeks = view.weekly[view.weekly["rater_id"] == contractor]
    if len(weeks):
        show(
            st,
            rc_drift.alert_panels(
                weeks,
                view.alerts[view.alerts["rater_id"] == contractor],
                view.markers,
                {contractor: sidebar.rater_name(contractor)},
                title="Agreement with the other contractors week by week, beside the team's",
            ),
        )
    shown = panels[EFFECT_TABLE]
    table(
        shown,
        f"effects of {contractor} {rubric}",
        key="raters_dl_one",
        column_config=number_columns(shown, labels=EFFECT_HEADERS),
    )

st.subheader("Rater model: accuracy on every task")
# The fit is most of the page's work (issue #51: on demand, then cached): it runs when asked, and once asked in this
# session for these filters and rubric it shows directly (a cache hit).
key = (version, filters, chosen)
if key in fitted_here() or asked_for_model():
    fitted_here().add(key)
    # At 1M tasks the fit takes about half a minute: a progress bar, and the work goes on if the user moves on.
    fit = with_progress(lambda report: load_model(version, filters, chosen, report), "Fitting the rater model")
    show_model(fit, view, rubric)
