"""Feedback: one contractor's report card against researchers, the team median and the researchers' own
agreement; the rater effects that apply to them, with evidence and advice; agreement week by week; how they use
each scale; their most severe disagreements with the researcher's explanation and the review notes; time per
submission; downloads to hand over.

Other contractors appear only as medians. Every piece of submission or note text is shown with st.text."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import partial

import pandas as pd
import streamlit as st

from analytics.agreement import MIN_TASKS
from analytics.core.filters import Filters
from analytics.feedback import events as fb_events
from analytics.feedback import followup, rater_effects, scope
from analytics.feedback import next as who_next
from analytics.feedback import report as fb_report
from analytics.feedback import team as fb_team
from analytics.feedback.export import csv as csv_export
from analytics.feedback.export import display
from analytics.feedback.export import html as html_export
from analytics.feedback.export import markdown as md_export
from ui import alarm_panel, charts, identity, prefetch, query_log, sidebar, state
from ui import feedback_charts as fc
from ui import feedback_next as fn
from ui import followup_charts as fuc
from ui import followup_panel as fup
from ui.tables import number_columns, table
from ui.text import md_escape, show_text, text_block

identity.require("page:feedback")  # the navigation hides it too; a page run directly stops here

SECTIONS = (
    "What to change",
    "Agreement",
    "Week by week",
    "Levels and time",
    "Disagreements",
    "Alarms and rules",
    fup.AFTER,  # the Overview's follow-up buttons open the card on it
)
SECTION = fup.SECTION  # the card's open tab (session state); only its section is drawn
HANDOFF = "feedback_for"  # set by other pages (Disagreements) before st.switch_page to this one
STATISTICS = {
    "exact_agreement": "Exact agreement",
    "coarse_agreement": "Coarse agreement",
    "kappa": "Kappa (weighted where the scale is ordered)",
}
CARD_TABLE = [
    "dimension_label",
    "is_primary",
    "n_tasks",
    "n",
    "exact_agreement",
    "exact_agreement_ci_low",
    "exact_agreement_ci_high",
    "coarse_agreement",
    "kappa",
    "kappa_ci_low",
    "kappa_ci_high",
    "kappa_statistic",
    "mean_difference",
    "mean_difference_ci_low",
    "mean_difference_ci_high",
    "team_exact_agreement",
    "team_coarse_agreement",
    "team_kappa",
    "team_contractors",
    "ceiling_exact_agreement",
    "ceiling_coarse_agreement",
    "ceiling_kappa",
    "small_n",
    "notes",
]


@query_log.loader(max_entries=8, show_spinner="Computing the researchers' agreement with each other...")
def load_ceiling(version: tuple, rubric: str | None) -> pd.DataFrame:
    """Researcher-researcher agreement per dimension (all dates: it does not change with the date filter)."""
    return fb_team.researcher_figures(state.cursor(), rubric)


@query_log.loader(max_entries=4)
def load_catalogue(version: tuple) -> scope.Catalogue:
    """The dimensions of every rubric in the store, read once per version for the ranking and the cards (each read
    them rubric by rubric on every filter change: a dozen queries on the demo)."""
    return scope.catalogue(state.cursor(), tuple(sidebar.options()["rubrics"]))


@query_log.loader(max_entries=8, show_spinner="Computing the team's figures...")
def load_team_parts(version: tuple, filters: Filters) -> fb_team.TeamParts:
    """Every contractor's figures but the alarms (only ever shown as medians) for one filter and version, and the
    ranking's agreement gaps from the same call."""
    return fb_team.team_parts(state.cursor(), filters, load_ceiling(version, filters.rubric), ranked=True)


def load_team(version: tuple, filters: Filters) -> fb_team.TeamFigures:
    """Every contractor's figures for one filter and version: the cached parts and the Overview's and Raters'
    review of the same team (each cached; joining them costs nothing)."""
    return fb_team.with_alarms(load_team_parts(version, filters), alarm_panel.review_of(version, filters))


@query_log.loader(max_entries=8, show_spinner="Ranking who needs feedback next...")
def load_ranking(version: tuple, filters: Filters) -> who_next.Ranking:
    """Who needs feedback next under the sidebar's rubric and dates, from the team's alarm review and the agreement
    gaps of the team's figures (computed beside the review, ui/prefetch.py); the page narrows it to the rater and
    role filters (who_next.narrowed)."""
    team = scope.team_filter(filters)
    alarms = alarm_panel.review_of(version, team)
    gaps = load_team_parts(version, team).ranked
    known = load_catalogue(version)
    return who_next.ranking(state.cursor(), filters, alarms.alerts, alarms.rules.raters, gaps=gaps, known=known)


@query_log.loader(max_entries=32, show_spinner="Computing the contractor's figures...")
def load_own(version: tuple, filters: Filters, contractor: str) -> fb_report.OwnFigures:
    """The part of one contractor's report that does not need the team's figures."""
    return fb_report.own_figures(state.cursor(), contractor, filters, known=load_catalogue(version))


@query_log.loader(max_entries=32, show_spinner="Building the feedback report...")
def load_report(version: tuple, filters: Filters, contractor: str, events: tuple) -> fb_report.FeedbackReport:
    """One contractor's report: their own figures are computed while the team's are (ui/prefetch.py); `events`
    (feedback.events.signature) keys its follow-ups, which a recorded event changes without moving the version."""
    own = partial(load_own, version, filters, contractor)  # one argument list for the prefetch and the join
    team = prefetch.alongside(partial(load_team, version, scope.team_filter(filters)), own)
    known = load_catalogue(version)
    after = fup.followups(filters.rubric)  # shared with the Overview's line
    return fb_report.feedback_report(state.cursor(), contractor, filters, team, own=own(), known=known, followups=after)


def pick_contractor(options: list[str], clicked: str | None) -> str:
    """The contractor whose card opens: a row clicked in the list, else one handed over by another page, else the
    one chosen before while the filters still list them, else the first of the list."""
    handed = st.session_state.pop(HANDOFF, None)
    if clicked in options:
        st.session_state["fb_contractor"] = clicked
    elif handed in options:
        st.session_state["fb_contractor"] = handed
    if st.session_state.get("fb_contractor") not in options:
        st.session_state["fb_contractor"] = options[0]
    return str(
        st.selectbox(
            "Contractor",
            options,
            key="fb_contractor",
            format_func=sidebar.rater_name,
            help="In the list's order, then those with too few tasks to rank; the list and this picker follow "
            "every sidebar filter.",
        )
    )


def choose(filters: Filters) -> str:
    """The "Who needs feedback next" list under every sidebar filter and the picker in its order; an empty list
    names the filter that empties it and offers to clear it."""
    st.subheader("Who needs feedback next")
    ranking = who_next.narrowed(load_ranking(state.version(), filters.but(raters=(), roles=())), filters)
    rows = who_next.with_events(ranking, fb_events.last_events(state.cursor()), fb_events.now())
    options = [*rows["rater_id"], *ranking.too_few]
    handed = st.session_state.get(HANDOFF)
    if handed and handed not in options:
        st.session_state.pop(HANDOFF)
        blame = who_next.emptied_by(state.cursor(), filters, handed)
        fn.widen_offer(f"{sidebar.rater_name(handed)} has no ratings", blame, filters, "fb_widen_handed", handed)
    if not options:
        blame = who_next.emptied_by(state.cursor(), filters)
        fn.widen_offer("No contractor has ratings", blame, filters, "fb_widen")
        st.stop()
    st.caption(md_escape(who_next.SCORE_RULE) + " Click a row, or choose below, to open a contractor's card.")
    clicked = None
    if len(rows):
        clicked = fn.show_list(rows, sidebar.rater_name)
    else:
        st.info(
            f"No contractor has the {who_next.MIN_TASKS} tasks the ranking needs under the sidebar's filters; "
            "the picker lists those with fewer. Widen the dates or the rubric in the sidebar to rank them."
        )
    if ranking.too_few:
        names = ", ".join(sidebar.rater_name(r) for r in ranking.too_few)
        st.caption(md_escape(f"Not ranked, fewer than {who_next.MIN_TASKS} tasks under these filters: {names}."))
    return pick_contractor(options, clicked)


def likely(filters: Filters, card_filters: Filters) -> list[Callable[[], object]]:
    """What the list and card will need beside the team's alarm review: the team's other figures (the ranking's
    agreement gaps among them), then the own figures of the contractor the card will likely open on (one handed
    over, else the one chosen before, as a filter change keeps them; a contractor's own); ui/prefetch.py computes
    them in another thread while the review is computed in the page's. On a first visit, the own figures of the one
    the review gives the most alarms (likely_own)."""
    version = state.version()
    team = partial(load_team_parts, version, scope.team_filter(card_filters))
    if not identity.allowed("other_raters"):  # a contractor: their own card
        mine = identity.current().rater_id
        return [partial(load_own, version, card_filters, mine), team] if mine else [team]
    who = st.session_state.get(HANDOFF) or st.session_state.get("fb_contractor")
    own = partial(load_own, version, card_filters, who) if who else partial(likely_own, version, filters, card_filters)
    # The team's first: the ranking needs them once the review is done; the card then needs the own figures.
    return [team, own]


def likely_own(version: tuple, filters: Filters, card_filters: Filters) -> None:
    """Compute the own figures of the contractor the list will likely open on, from the team's alarm review
    (who_next.likely_first; cached after the Overview, else computed by the page's thread meanwhile)."""
    alarms = alarm_panel.review_of(version, scope.team_filter(filters))
    who = who_next.likely_first(alarms.alerts, filters, fb_events.last_events(state.cursor()), fb_events.now())
    if who:
        load_own(version, card_filters, who)


def open_card(filters: Filters, card_filters: Filters, contractors: list[str]) -> fb_report.FeedbackReport:
    """The list and picker (a contractor sees their own card only), then the chosen contractor's report; an empty
    card names the filter that empties it and offers to clear it."""
    contractor = choose(filters) if identity.allowed("other_raters") else own_card(contractors)
    try:
        return load_report(state.version(), card_filters, contractor, fb_events.signature(state.cursor()))
    except ValueError:
        blame = who_next.emptied_by(state.cursor(), card_filters, contractor)
        fn.widen_offer(f"{sidebar.rater_name(contractor)} has no ratings", blame, card_filters, "fb_widen_card")
        st.stop()


def own_card(contractors: list[str]) -> str:
    """A contractor's own rater id (the roles file's): they see their card only, and no picker naming others."""
    mine = identity.current().rater_id
    if mine not in contractors:
        st.info("The store holds no ratings under your rater id yet.")
        st.stop()
    return str(mine)


def show_case(case: pd.Series, contractor: str) -> None:
    """One disagreement: heading, both ratings, question, comments, explanation and the review, as text."""
    with st.container(border=True):
        st.markdown(f"**{md_escape(display.case_heading(case))}**")
        show_text(display.case_values(case, contractor))
        for col, label in display.CASE_TEXTS:
            text_block(label, case[col])
        st.caption(md_escape(display.note_line(case)))


def show_changes(rep: fb_report.FeedbackReport, contractor: str) -> None:
    """What to change: each rater effect that applies, with evidence and advice, and every effect checked."""
    st.subheader("What to change")
    st.caption(md_escape(display.EFFECTS_EXPLAIN))
    applies = display.shown_effects(rep)
    if applies.empty:
        st.success("No rater effect shows clearly in this contractor's ratings.")
    for _, effect in applies.iterrows():
        with st.container(border=True):
            st.markdown(f"**{md_escape(display.effect_heading(effect))}**")
            st.markdown(md_escape(effect["evidence"]))
            st.markdown(f"What to do: {md_escape(effect['advice'])}")
    for line in display.effects_summary(rep):
        st.caption(md_escape(line))
    with st.expander("Every effect checked, with its figures"):
        heads = number_columns(rep.effects, labels=rater_effects.EFFECT_HEADERS)
        table(rep.effects, f"rater effects {contractor}", key="fb_dl_effects", column_config=heads)


EVERY_RUBRIC = (
    "Every rubric this contractor rated under the sidebar's filters, one after another; choose one with the sidebar's "
    "Rubric filter to see it alone."
)


def rubrics_of(frame: pd.DataFrame) -> list[str]:
    """The rubrics a section shows, in the report's order: the sidebar's one, or every rubric rated when it says all
    (the sidebar's Rubric is the one rubric control); the page says so when there are several."""
    rubrics = [str(r) for r in frame["rubric"].drop_duplicates()]
    if len(rubrics) > 1:
        st.caption(md_escape(EVERY_RUBRIC))
    return rubrics


def rubric_heading(rubrics: list[str], rubric: str) -> None:
    """The rubric's title above its chart when a section shows several."""
    if len(rubrics) > 1:
        st.markdown(f"**{md_escape(sidebar.rubric_title(rubric))}**")


def show_agreement(card: pd.DataFrame, contractor: str) -> None:
    """Agreement with researchers per dimension: the chart against the team and the card's table."""
    st.subheader("Agreement with researchers, per dimension")
    if card.empty or (card["n"] == 0).all():
        st.info("This contractor shares no unit with a researcher under these filters.")
        return
    rated = card[card["n"] > 0]
    stat = st.columns([1, 1])[0].selectbox(
        "Statistic", list(STATISTICS), key="fb_statistic", format_func=STATISTICS.__getitem__
    )
    st.caption(
        "Dot and line: this contractor's value and 95% interval (n_tasks = tasks shared with a researcher, "
        "n = rating pairs). Grey tick: team median. Orange tick: researcher-researcher agreement (a reference). "
        f"Small n (under {MIN_TASKS} tasks): read the interval."
    )
    rubrics = rubrics_of(rated)
    for rubric in rubrics:
        shown = rated[rated["rubric"] == rubric]
        shown = shown.assign(
            dimension_label=shown["dimension_label"] + shown["is_primary"].map({True: " (primary)", False: ""})
        )
        rubric_heading(rubrics, rubric)
        charts.show(st, fc.agreement_vs_team(shown, stat, STATISTICS[stat]), width="stretch")
    figures = card[card["rubric"].isin(rubrics)]
    with st.expander("The card's figures, per dimension"):
        table(
            figures[["rubric", *CARD_TABLE]],
            f"report card {contractor}",
            key="fb_dl_card",
            column_config=number_columns(figures[CARD_TABLE]),
        )


def show_weeks(rep: fb_report.FeedbackReport, contractor: str) -> None:
    """Agreement week by week against the other contractors' median, and the trend."""
    st.subheader("Agreement week by week")
    st.caption(md_escape(display.WEEKLY_EXPLAIN) + " The dashed line is the median of other contractors that week.")
    weekly = rep.weekly
    if weekly.empty:
        st.info("No week has a unit this contractor shares with a researcher.")
        return
    rubrics = rubrics_of(weekly)
    for rubric in rubrics:
        rubric_heading(rubrics, rubric)
        charts.show(st, fc.weekly_agreement(weekly[weekly["rubric"] == rubric]), width="stretch")
    week_table = weekly.assign(week=pd.to_datetime(weekly["week"]).dt.strftime("%Y-%m-%d"))
    with st.expander("Each week's figures"):
        table(
            week_table,
            f"weekly agreement {contractor}",
            key="fb_dl_weekly",
            column_config=number_columns(week_table),
        )
    if not rep.trend.empty:
        st.caption("First against second half of this contractor's weeks; change with its 95% task-bootstrap interval.")
        table(rep.trend, f"agreement trend {contractor}", key="fb_dl_trend", column_config=number_columns(rep.trend))


def show_levels_and_time(rep: fb_report.FeedbackReport, contractor: str) -> None:
    """Levels used against researchers on the same units, and time per submission."""
    st.subheader("Levels used, against researchers on the same units")
    levels = rep.levels
    if levels.empty:
        st.info("No unit shared with a researcher.")
    else:
        st.caption("contractor: this contractor; researcher: the researchers' ratings of the same units.")
        rubrics = rubrics_of(levels)
        for rubric in rubrics:
            rubric_heading(rubrics, rubric)
            charts.show(st, charts.level_distribution(levels[levels["rubric"] == rubric]), width="content")
    st.subheader("Time per submission")
    if rep.durations.empty:
        st.info("No durations were recorded for this contractor's submissions.")
    else:
        table(display.duration_rows(rep), f"time per submission {contractor}", key="fb_dl_durations")


def show_cases(rep: fb_report.FeedbackReport, contractor: str) -> None:
    """The most severe disagreements, with every noted case."""
    st.subheader("Most severe disagreements")
    st.caption(
        "On each rubric's primary dimension, most severe first, with every case a reviewer has noted. "
        "Record notes on the Disagreements page: the button below opens it on this contractor's cases."
    )
    if rep.disagreements.empty:
        st.info("No disagreement with a researcher under these filters.")
    elif identity.allowed("page:disagreements") and st.button(
        f"Review {md_escape(sidebar.rater_name(contractor))}'s disagreements", key="fb_to_disagreements", type="primary"
    ):
        st.session_state["disagreements_for"] = contractor  # read once by app_pages/disagreements.py
        st.switch_page("app_pages/disagreements.py")
    for _, case in rep.disagreements.iterrows():
        show_case(case, contractor)


def show_alarms_and_rules(rep: fb_report.FeedbackReport, contractor: str, filters: Filters) -> None:
    """The contractor's alarms (with what each kind can find) and the rubric rules they broke."""
    st.subheader("Alarms")
    st.caption(alarm_panel.BUDGET_NOTE)
    alarm_panel.show_alarms(rep.alerts, "fb_alarms", sidebar.rater_name, display.NO_ALARM)
    alarm_panel.show_power(load_team(state.version(), scope.team_filter(filters)).power, "fb_alarms")
    st.subheader("Rubric rules broken")
    st.caption(md_escape(display.FLAGGED_RULES_EXPLAIN))
    flagged = display.flagged_rule_rows(rep)  # the exports' rows and sentence: the page and the files agree
    if flagged.empty:
        st.markdown(md_escape(display.NO_FLAGGED_RULE))
    else:
        table(flagged, f"rules broken {contractor}", key="fb_dl_rules", download=rep.rules)
    if others := display.unflagged_rules_line(rep):
        st.markdown(md_escape(others))


def show_followups(rep: fb_report.FeedbackReport, contractor: str) -> None:
    """What came after each feedback the contractor was given: before and after beside the team, and the verdicts."""
    st.subheader("After feedback")
    st.caption(md_escape(followup.METHOD))
    if rep.followups.empty:
        st.info(
            "No feedback recorded for this contractor: mark the card as sent above, or load a feedback log of "
            "feedback given outside Concord on the Data page."
        )
        return
    for line in followup.last_lines(rep.followups):
        st.markdown(md_escape(line))
    name = sidebar.rater_name(contractor)
    for measure, rubric, rows in fuc.panels(rep.followups):
        st.markdown(f"**{md_escape(followup.panel_title(measure, rubric))}**")
        charts.show(st, fuc.before_after(rows, name), width="stretch")
    with st.expander("Every follow-up, with its figures"):
        shown = rep.followups.drop(columns=["sent_by"])
        table(shown, f"follow-ups {contractor}", key="fb_dl_followups", column_config=number_columns(shown))


filters = sidebar.current()
st.title("Feedback")
opts = sidebar.options()
contractors = opts["contractors"]
if not contractors:
    anonymous = any(role == "contractor" for role in opts["rater_roles"].values())
    st.info(
        "The contractor labels in the store come without rater ids (positions in a list of labels, not people), "
        "so there is nobody to report on. The Agreement page shows the figures such labels allow."
        if anonymous
        else "The store holds no contractor ratings yet. Load files on the Data page."
    )
    st.stop()

card_filters = filters.but(raters=(), roles=(), dimensions=())
rep = prefetch.alongside(partial(open_card, filters, card_filters, contractors), *likely(filters, card_filters))
contractor = rep.contractor_id

st.subheader(md_escape(f"Report card: {sidebar.rater_name(contractor)}"))
st.caption(
    md_escape(f"{display.period_text(rep)}. Covers {display.filters_text(rep)} (the sidebar's rubric and dates).")
)
with st.expander("How to read this card"):
    st.markdown(
        "The sidebar's role and rater filters choose whom the list above shows; the card is about the contractor "
        "chosen, on every dimension they rated, under the sidebar's rubric and dates. Other contractors appear only "
        "as the team median (the median of the other contractors' own figures); researcher-researcher agreement is "
        "how well researchers agree with each other, pooled over every pair of researchers on the same units, all "
        "dates: a reference for how hard the rubric is, not a bound a contractor cannot pass."
    )
stem = display.file_stem(rep)
# Each file is written when its button is clicked (Streamlit calls the function on its own thread), not on every
# rerun (bench/RESULTS.md: what the three cost a rerun).
downloads = (
    ("HTML", lambda: html_export.to_html(rep, dt.datetime.now()), "html", "text/html", "fb_dl_html"),
    ("Markdown", lambda: md_export.to_markdown(rep, dt.datetime.now()), "md", "text/markdown", "fb_dl_md"),
    ("CSV", lambda: csv_export.to_csv(rep), "csv", "text/csv", "fb_dl_csv"),
)
for column, (kind, write, suffix, mime, key) in zip(st.columns(3), downloads, strict=True):
    column.download_button(f"Download report ({kind})", write, f"{stem}.{suffix}", mime, key=key, on_click="ignore")
named = tuple(display.effect_heading(e) for _, e in display.shown_effects(rep).iterrows())
fn.mark_sent_button(contractor, f"{stem}, {display.filters_text(rep)}", named, card_filters)

st.subheader("Highlights")
st.markdown("\n".join(f"- {md_escape(h)}" for h in rep.highlights) or "No figures yet.")

# Only the open tab's section is drawn (its charts and tables built); another tab's click reruns the page, its figures
# cached: drawing all six cost every run about a second of CPU on the demo (issue 50 item 9).
tabs = st.tabs(SECTIONS, key=SECTION, on_change="rerun")
sections = (
    partial(show_changes, rep, contractor),
    partial(show_agreement, rep.card, contractor),
    partial(show_weeks, rep, contractor),
    partial(show_levels_and_time, rep, contractor),
    partial(show_cases, rep, contractor),
    partial(show_alarms_and_rules, rep, contractor, filters),
    partial(show_followups, rep, contractor),
)
for tab, section in zip(tabs, sections, strict=True):
    if tab.open:
        with tab:
            section()
