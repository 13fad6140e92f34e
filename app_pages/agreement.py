"""Agreement: per dimension and per rater, how far contractors agree with researchers (or raters of one role
with each other), with intervals, the confusion matrix, rater x rater agreement, the kappa paradox and
rankings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import pandas as pd
import streamlit as st

from analytics import agreement
from analytics.agreement import LEVELS, AgreementSpec, ScaleError, narrows_team, team, team_filters
from analytics.core.filters import Filters
from analytics.core.queries import Query
from analytics.describe import distributions, overview
from ui import agreement_view as view
from ui import charts, identity, prefetch, query_log, sidebar, state
from ui.tables import table
from ui.text import md_escape, visible

identity.require("page:agreement")  # the navigation hides it too; a page run directly stops here

DEFAULT_LEVEL = "default"
DIMENSION_WIDTH = 320  # pixels: the dimension column of the table per dimension
ALL = "all"


@query_log.loader(max_entries=12)
def load_ceiling(version: tuple, spec: AgreementSpec) -> agreement.Ceiling:
    """Researcher-researcher agreement of `spec.ceiling_spec()` (it spans all dates and raters, so it is kept across
    changes of those filters)."""
    return agreement.researcher_ceiling(state.cursor(), spec)


@query_log.loader(max_entries=12)
def load(version: tuple, spec: AgreementSpec, raters: bool = False) -> dict:
    """The agreement report of `spec` (with researcher-researcher agreement; with `raters`, every rater's rows on every
    dimension, without intervals)."""
    con = state.cursor()
    ceiling = load_ceiling(version, spec.ceiling_spec())
    # Raters' rows are computed per dimension shown (load_raters, load_team): their pairing and most of the
    # resampling, saved on a filter change for the dimensions nobody is looking at.
    report_of = agreement.rater_points_report if raters else agreement.dimension_report
    report = report_of(con, spec, ceiling=ceiling, queries=state.query_log())
    return {
        "report": report,
        "needs_rater_ids": agreement.needs_rater_ids(con, spec.filters),
    }


@query_log.loader(max_entries=12)
def load_dimensions(version: tuple, rubric: str) -> pd.DataFrame:
    """The rubric's dimensions in catalogue order (label, kind, levels, flags: distributions.dimensions)."""
    return distributions.dimensions(state.cursor(), rubric)


@query_log.loader(max_entries=32)
def load_raters(
    version: tuple, spec: AgreementSpec, dimensions: tuple[str, ...]
) -> tuple[pd.DataFrame, tuple[Query, ...]]:
    """Each rater's agreement with its intervals on some of the rubric's dimensions, and the queries that ran."""
    log = state.query_log()
    rows = agreement.rater_agreement(state.cursor(), spec.filtered(dimensions=dimensions), queries=log)
    return rows, tuple(log)


@query_log.loader(max_entries=32)
def load_team(version: tuple, spec: AgreementSpec, dimension: str) -> pd.DataFrame:
    """Every rater's point figures on one dimension, whoever the rater filter selects (the team median's rows)."""
    team = spec.but(n_boot=0, filters=team_filters(spec.filters.but(dimensions=(dimension,))))
    return agreement.rater_agreement(state.cursor(), team, queries=state.query_log())


@query_log.loader(max_entries=32)
def load_confusion(
    version: tuple, spec: AgreementSpec, rubric: str, dimension: str, rater_id: str | None
) -> pd.DataFrame:
    """One dimension's confusion matrix (all raters of the subject side, or one)."""
    return agreement.confusion_matrix(state.cursor(), spec, rubric, dimension, rater_id, state.query_log())


@query_log.loader(max_entries=32)
def load_pairwise(version: tuple, spec: AgreementSpec, rubric: str, dimension: str) -> pd.DataFrame:
    """The comparison's rater pairs' agreement on one dimension."""
    return agreement.pairwise_matrix(state.cursor(), spec, rubric, dimension, state.query_log())


@query_log.loader(max_entries=32)
def load_paradox(version: tuple, spec: AgreementSpec, rubric: str, dimension: str) -> agreement.ParadoxDiagnostic:
    """The kappa-paradox diagnostic of one dimension."""
    return agreement.paradox_diagnostic(state.cursor(), spec, rubric, dimension, queries=state.query_log())


@query_log.loader(max_entries=16)
def load_coverage(version: tuple, filters: Filters) -> tuple[int, int, int]:
    """Tasks the contractors rated, how many of them a researcher rated too, and the researchers there are: which
    comparison the page opens on (view.default_comparison)."""
    con = state.cursor()
    contractor_tasks, paired_tasks = overview.researcher_coverage(con, filters)
    researchers = 0 if paired_tasks or contractor_tasks else overview.activity(con, filters).summary.researchers
    return contractor_tasks, paired_tasks, researchers


@dataclass(frozen=True)
class Loads:
    """The page's request and one call per loader with it: the prefetch and the page's own calls below pass the
    same arguments, so the page reads what the prefetch cached."""

    version: tuple
    spec: AgreementSpec
    rubric: str

    def report(self, raters: bool = False) -> dict:
        """load's report (with `raters`, every rater's rows on every dimension)."""
        return load(self.version, self.spec, raters=raters)

    def raters(self, dimensions: tuple[str, ...]) -> tuple[pd.DataFrame, tuple[Query, ...]]:
        """load_raters on `dimensions`."""
        return load_raters(self.version, self.spec, dimensions)

    def team(self, dimension: str) -> pd.DataFrame:
        """load_team on `dimension`."""
        return load_team(self.version, self.spec, dimension)

    def confusion(self, dimension: str, who: str) -> pd.DataFrame:
        """load_confusion on `dimension` for `who` (ALL: every rater of the subject side)."""
        rater = None if who == ALL else who
        return load_confusion(self.version, self.spec, self.rubric, dimension, rater)

    def pairwise(self, dimension: str) -> pd.DataFrame:
        """load_pairwise on `dimension`."""
        return load_pairwise(self.version, self.spec, self.rubric, dimension)

    def paradox(self, dimension: str) -> agreement.ParadoxDiagnostic:
        """load_paradox on `dimension` (the exact levels: the spec's coarseness does not apply)."""
        return load_paradox(self.version, self.spec.but(coarse=False), self.rubric, dimension)

    def likely(self, dimension: str, who: str) -> list[Callable[[], object]]:
        """The calls the page makes below for `dimension` and the confusion matrix's `who`."""
        calls: list[Callable[[], object]] = [
            partial(self.raters, (dimension,)),
            partial(self.confusion, dimension, who),
        ]
        if st.session_state.get(view.PAIRS_PANEL):
            calls.append(partial(self.pairwise, dimension))
        return calls + ([partial(self.team, dimension)] if narrows_team(self.spec.filters) else [])


filters = sidebar.current()
st.title("Agreement")
st.markdown(
    "How often raters give the same unit the same level, per dimension and per rater, with 95% intervals. "
    "**Next:** read the coefficient for each dimension's scale below, then each contractor against the reference; "
    "a contractor low on a dimension is worth opening on the Disagreements and Feedback pages."
)
rubric = sidebar.rubric_or_first(filters, key="agr_rubric")
if rubric is None:
    st.info("The store holds no ratings yet. Load files on the Data page.")
    st.stop()

version = state.version()
contractor_tasks, paired_tasks, researchers = load_coverage(version, filters.but(rubric=rubric))
default, why_default = view.default_comparison(contractor_tasks, paired_tasks, researchers)
c = st.columns([2, 2, 2])
comparison = c[0].selectbox(
    "Comparison",
    list(view.COMPARISON_LABELS),
    index=list(view.COMPARISON_LABELS).index(default),
    format_func=view.COMPARISON_LABELS.__getitem__,
    key="agr_comparison",
)
if why_default and comparison == default:
    st.info(why_default)
scale = c[1].radio(
    "Scale",
    ["exact", "coarse"],
    format_func=lambda s: "Exact levels" if s == "exact" else "Coarse levels (drop the 'very')",
    horizontal=True,
    key="agr_scale",
)
level_choice = c[2].selectbox(
    "Level of measurement",
    [DEFAULT_LEVEL, *LEVELS],
    format_func=lambda v: "Default for each scale" if v == DEFAULT_LEVEL else v,
    key="agr_level",
    help="Sets Krippendorff's metric and the weights of weighted kappa and AC2 (nominal: none, ordinal: linear, "
    "interval: quadratic, ratio: Gwet's ratio weights; on the levels' values where they have numbers). The "
    "default is each dimension's declared scale.",
)
coarse, level = scale == "coarse", None if level_choice == DEFAULT_LEVEL else level_choice
subject, subjects, reference, ref_title = view.SIDES[comparison]

dims = load_dimensions(version, rubric)
# The dimension and rater shown below are most likely the ones chosen before: their loaders fill their caches while
# the report computes (the page's own calls below then read them).
guess = view.likely_dimension(st.session_state.get("agr_dimension"), dims)
who_guess = st.session_state.get("agr_confusion_rater", ALL)
spec = AgreementSpec(comparison, coarse, level, filters=filters.but(rubric=rubric))
loads = Loads(version, spec, rubric)
likely = [] if guess is None else loads.likely(guess, who_guess)
with st.spinner("Computing agreement with task-level intervals..."):
    try:
        data = prefetch.alongside(loads.report, *likely)
    except ScaleError as e:
        st.error(md_escape(str(e)))
        st.stop()
report = data["report"]
st.caption(
    f"{md_escape(sidebar.rubric_title(rubric))}: {view.COMPARISON_LABELS[comparison].lower()}, "
    f"{'coarse' if coarse else 'exact'} levels. Everything below follows the filters in the sidebar "
    "(the rater filter picks whose agreement is measured, never whose labels they are compared with)."
)
if report.dimensions.empty:
    st.info(view.empty_note(comparison, contractor_tasks, paired_tasks))
    st.stop()

labels = dict(zip(dims["dimension"], dims["label"], strict=True))
if data["needs_rater_ids"]:
    st.info(view.needs_ids_note(data["needs_rater_ids"], labels))
used: list[str] = [d for d in dims["dimension"] if d in set(report.dimensions["dimension"])]
primary = [d for d in dims.loc[dims["is_primary"], "dimension"] if d in used]

# --- per dimension -----------------------------------------------------------------------------------------
st.subheader("Agreement per dimension")
st.caption(
    "Each coefficient with its 95% interval over tasks in brackets (proportions: Wilson at the effective number of "
    "tasks; kappa-type coefficients between two raters: the delta method on Fisher's z, none below "
    f"{agreement.MIN_INTERVAL_TASKS} tasks; coefficients of three or more raters: the task bootstrap). — means "
    "undefined (the notes say why), "
    "n/a that the coefficient does not exist for the dimension's scale (e.g. weighted kappa at nominal level)."
)
small = report.dimensions[report.dimensions["small_n"]]
if not small.empty:
    st.warning(
        f"{len(small)} dimension(s) have fewer than {agreement.MIN_TASKS} tasks: "
        + ", ".join(md_escape(labels.get(d, d)) for d in small["dimension"])
        + ". Their coefficients are indicative only; read the intervals."
    )
st.caption(view.HEADLINE_NOTE)
headlines = view.headline_table(report, dims)
table(
    headlines,
    f"agreement per dimension {rubric}",
    key="dl_dimensions",
    height=36 * (len(headlines) + 1) + 4,
    download=view.dimension_data(report, dims),
    column_order=[c for c in headlines.columns if c != "dimension"],
    column_config={
        # Wide enough for the catalogue's longest labels ("Strongly-supported core information (comparison)").
        "label": st.column_config.TextColumn("dimension", pinned=True, width=DIMENSION_WIDTH),
        view.HEADLINE_COLUMN: st.column_config.TextColumn(view.HEADLINE_COLUMN, help=view.HEADLINE_NOTE),
        "notes": st.column_config.TextColumn("notes", width="large"),
    },
)
# Shown on request: the table of every coefficient is wider than the page.
if st.toggle("Every coefficient per dimension (a wider table: scroll it sideways)", key="agr_every_coefficient"):
    per_dimension = view.dimension_table(report, dims)
    table(
        per_dimension,
        f"every coefficient per dimension {rubric}",
        key="dl_dimensions_every",
        height=36 * (len(per_dimension) + 1) + 4,
        download=view.dimension_data(report, dims),
        column_order=[c for c in per_dimension.columns if c != "dimension"],
        column_config={"label": st.column_config.TextColumn("dimension", pinned=True)},
    )
# Shown on demand: a closed expander's table is still sent to the browser (16,000 rows for 200 raters).
if st.toggle("Every coefficient in long form (value, interval, n, why undefined)", key="agr_long_form"):
    with st.spinner("Computing every rater's figures on every dimension..."):
        every = loads.report(raters=True)["report"]
    table(view.coefficient_table(every), f"agreement coefficients {rubric}", key="dl_coefficients")

# --- per rater ---------------------------------------------------------------------------------------------
st.subheader(f"Each {subject.lower()} against {reference}")
c2 = st.columns(2)
dimension = c2[0].selectbox(
    "Dimension",
    used,
    index=used.index(primary[0]) if primary else 0,
    key="agr_dimension",
    format_func=lambda d: visible(labels.get(d, d)),
)
with st.spinner("Computing each rater's intervals..."):
    rated, rater_queries = loads.raters((dimension,))
stats = view.rater_statistics(rated, rubric, dimension)
if not stats:
    st.info(
        view.NO_IDS_HERE
        if dimension in view.anonymous_dimensions(data["needs_rater_ids"])
        else f"No {subject.lower()} shares a unit with {reference} on this dimension."
    )
else:
    statistic = c2[1].selectbox(
        "Statistic", stats, index=view.default_statistic(stats), key="agr_statistic", format_func=view.label
    )
    ceiling_rows = report.ceiling if comparison != "researcher_vs_researcher" else None
    # The team is every rater: the rows shown are the team's unless the rater filter narrows them.
    team_rows = loads.team(dimension) if narrows_team(filters) else rated
    yard = team.yardsticks(team_rows, ceiling_rows, rubric, dimension, statistic, filters.raters)
    points = view.interval_frame(rated, rubric, dimension, statistic)
    m = st.columns(4)
    m[0].metric(f"{subjects.capitalize()} with a value", len(points))
    for i, row in enumerate(yard.itertuples(), start=1):
        m[i].metric(str(row.reference), f"{row.value:.3f}", help=f"{view.label(statistic)}: {row.basis}")
    few = int(points["small_n"].sum())
    m[3].metric(f"Fewer than {agreement.MIN_TASKS} tasks", few)
    if few:
        st.warning(
            f"{few} {subjects} have fewer than {agreement.MIN_TASKS} tasks on this dimension: their intervals "
            "are wide (pale in the chart) and they are listed after the others; read the n before the value."
        )
    title = (
        f"{view.label(statistic).capitalize()} on {labels.get(dimension, dimension)}: "
        f"each {subject.lower()} against {reference}"
    )
    named = view.with_names(points, sidebar.rater_name, ("rater_id",))
    charts.show(st, charts.rater_intervals(named, yard, title, view.label(statistic)), width="stretch")
    st.caption(
        "Point: the rater's value; bar: its 95% interval over tasks. Dashed rules: the team median (of "
        "the other raters' own figures) and, for contractors, researcher-researcher agreement (pooled over "
        "researcher pairs on the same units, all dates): a reference for how hard the rubric is, not a bound. Raters are ordered by the upper end of their interval (lowest first: confidently "
        "low agreement on top), with fewer than the minimum tasks last. Click a column header to sort."
    )
    raters_shown = view.rater_table(rated, rubric, dimension, statistic)
    table(
        view.with_names(raters_shown, sidebar.rater_name, ("rater_id",)),
        f"{subjects} {rubric} {dimension}",
        key="dl_raters",
        download=raters_shown,
        column_config=view.column_config(raters_shown),
    )
    if st.toggle(f"Every {subject.lower()} on every dimension", key="agr_all_dimensions"):
        with st.spinner("Computing every rater's intervals on every dimension..."):
            every = loads.raters(tuple(used))[0]
        table(
            view.with_names(every, sidebar.rater_name, ("rater_id",)),
            f"{subjects} all dimensions {rubric}",
            key="dl_raters_all",
            download=every,
        )

# --- confusion matrix --------------------------------------------------------------------------------------
st.subheader("Confusion matrix")
rater_ids = sorted(rated.loc[rated["dimension"] == dimension, "rater_id"].unique())
who = st.selectbox(
    subject,
    [ALL, *rater_ids],
    format_func=lambda r: f"All {subjects}" if r == ALL else sidebar.rater_name(r),
    key="agr_confusion_rater",
)
cm = loads.confusion(dimension, who)
pairs = int(cm["n"].sum())
st.caption(
    f"{pairs:,} pairs of ({subject.lower()}, {ref_title.lower()}) ratings of the same unit on "
    f"{md_escape(labels.get(dimension, dimension))}; the outlined diagonal is exact agreement."
    + (
        " Among one role every pair is counted in both orientations, so the matrix is symmetric."
        if comparison != "contractor_vs_researcher"
        else ""
    )
)
if pairs == 0:
    st.info("No shared units for this choice.")
else:
    title = f"{labels.get(dimension, dimension)}: {subject.lower()} level vs {ref_title.lower()} level"
    charts.show(
        st,
        charts.confusion_heatmap(view.confusion_frame(cm), title, f"{subject} level", f"{ref_title} level"),
        width="content",
    )
    wide = view.confusion_wide(cm, subject, ref_title)
    table(wide, f"confusion matrix {rubric} {dimension}", key="dl_confusion")

# --- rater x rater -----------------------------------------------------------------------------------------
st.subheader("Rater x rater agreement")
# Computed only while open: its size grows with the square of the raters (DESIGN.md, `agreement --pairs`).
pairs_panel = st.expander("Each pair of raters on their shared units", key=view.PAIRS_PANEL, on_change="rerun")
if not pairs_panel.open:
    st.caption("Open to compute each pair of raters' agreement on this dimension (one row per pair).")
else:
    with pairs_panel:
        pair_stat = st.selectbox(
            "Cell value", list(view.PAIRWISE_STATS), format_func=view.label, key="agr_pair_statistic"
        )
        pm = view.pairs_for(loads.pairwise(dimension), comparison)
        if pm.empty:
            st.info(
                view.NO_IDS_HERE
                if dimension in view.anonymous_dimensions(data["needs_rater_ids"])
                else "No pair of raters shares a unit on this dimension under these filters."
            )
        else:
            n_pairs = len(pm) // 2 if comparison != "contractor_vs_researcher" else len(pm)
            if pm[pair_stat].isna().all():
                st.info(
                    f"{view.label(pair_stat).capitalize()} is undefined or does not apply for every one of the "
                    f"{n_pairs} rater pairs below (the notes of the tables above say why); choose another cell value."
                )
            else:
                st.caption(
                    f"Each pair's {view.label(pair_stat)} (colour) over the units both rated (the number in the "
                    f"cell); fewer than {agreement.MIN_TASKS} shared tasks make a single pair's figure indicative "
                    "only."
                )
                title = f"{view.label(pair_stat).capitalize()} on {labels.get(dimension, dimension)}, pair by pair"
                rows, columns = ("rater_a", "rater_b")  # the contractors (or the role's raters) as rows
                named_pairs = view.with_names(pm, sidebar.rater_name, ("rater_a", "rater_b"))
                chart = charts.pairwise_heatmap(named_pairs, pair_stat, view.label(pair_stat), title, rows, columns)
                charts.show(st, chart, width="content")
            config = view.column_config(pm, "shared pairs")
            table(
                view.with_names(pm, sidebar.rater_name, ("rater_a", "rater_b")),
                f"rater pairs {rubric} {dimension}",
                key="dl_pairs",
                download=pm,
                column_config=config,
            )

# --- kappa paradox -----------------------------------------------------------------------------------------
flagged = [d for d in used if d in set(report.dimensions.loc[report.dimensions["kappa_paradox"], "dimension"])]
if flagged:
    st.subheader("Kappa paradox")
    st.caption(
        "High agreement with a low kappa: when nearly every rating is one level, chance agreement is high and "
        "kappa collapses even though raters agree (Feinstein & Cicchetti 1990). Read Gwet's AC1 beside it. "
        "The diagnostic uses the exact levels."
    )
    pdim = st.selectbox(
        "Dimension with the paradox",
        flagged,
        index=flagged.index(dimension) if dimension in flagged else 0,
        key="agr_paradox_dimension",
        format_func=lambda d: visible(labels.get(d, d)),
    )
    diag = loads.paradox(pdim)
    m3 = st.columns(3)
    m3[0].metric("Percent agreement", f"{diag.percent_agreement:.1%}")
    m3[1].metric("Cohen's kappa", "undefined" if pd.isna(diag.kappa) else f"{diag.kappa:.3f}")
    m3[2].metric("Gwet's AC1", "undefined" if pd.isna(diag.gwet_ac1) else f"{diag.gwet_ac1:.3f}")
    st.info(md_escape(diag.sentence))
    marg = view.marginals_frame(diag, subjects.capitalize(), f"{ref_title}s")
    charts.show(st, charts.paradox_marginals(marg, f"Level shares on {labels.get(pdim, pdim)}"), width="stretch")
    share = {"share": st.column_config.NumberColumn("share of ratings", format="percent")}
    table(marg, f"marginals {rubric} {pdim}", key="dl_marginals", column_config=share)

# --- rankings ----------------------------------------------------------------------------------------------
ranking_dims = view.ranking_table(report, dims)
ranked = tuple(sorted(set(dims.loc[dims["kind"] == "ranking", "dimension"]) & set(used)))
ranking_raters = view.ranking_raters(loads.raters(ranked)[0] if ranked else rated, rubric)
if not ranking_dims.empty or not ranking_raters.empty:
    st.subheader("Rankings")
    st.caption(
        "On ranking dimensions every pair of items ranked on the same task is compared: pairwise preference "
        "agreement is the share of item pairs both sides order the same way (ties included), Kendall's tau-b "
        "the rank correlation corrected for ties."
    )
    if not ranking_dims.empty:
        table(ranking_dims, f"rankings {rubric}", key="dl_rankings", download=view.ranking_data(report, dims))
    if not ranking_raters.empty:
        table(
            view.with_names(ranking_raters, sidebar.rater_name, ("rater_id",)),
            f"rankings per rater {rubric}",
            key="dl_rankings_raters",
            download=ranking_raters,
            column_config=view.column_config(ranking_raters),
        )

# --- how ---------------------------------------------------------------------------------------------------
with st.expander("How this is computed"):
    st.markdown(view.HOW_COMPUTED)
    st.markdown(
        "The full account, with the choices made and the tests against published values, is the agreement guide "
        "in Concord's documentation; the queries behind every figure are listed at the end of the page."
    )
