"""Chart builders: each takes a tidy DataFrame and returns an alt.Chart."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Literal

import altair as alt
import pandas as pd
from streamlit.delta_generator import DeltaGenerator

from analytics.agreement.team import CEILING, TEAM
from analytics.core.formatting import WEEK_D3, week_label
from analytics.core.rubrics import RUBRICS
from ui.sidebar import rubric_title
from ui.tables import column_label
from ui.text import visible, visible_cells

# Altair checks a chart against the Vega-Lite JSON schema as each part is built and again as Streamlit serialises
# it: 0.4-0.5 s of an Agreement rerun at 1M tasks (issue #11), every rerun, for specs this code fixes (only their
# data changes). An Altair maintainer turns it off in production too (vega/altair#3545). Off here, for the app;
# tests/test_chart_specs.py checks every spec the pages send against the schema instead.
alt.utils.schemapi.disable_debug_mode()

ROLE_COLORS = alt.Scale(domain=["contractor", "researcher"], range=["#4c78a8", "#f58518"])
LABEL_LIMIT = 400  # pixels: labels are whole names (rubric titles, file names), never cut to an id's stub
WRAP_AT = 28  # characters: a longer axis or legend label breaks into two lines at its last space before this


def wrap(limit: int = WRAP_AT) -> str:
    """A Vega label expression that breaks a label longer than `limit` characters into two lines at a space."""
    head = f"slice(datum.label, 0, {limit})"
    cut = f"lastindexof({head}, ' ')"
    return (
        f"length(datum.label) <= {limit} || {cut} < 1 ? datum.label : "
        f"[slice(datum.label, 0, {cut}), slice(datum.label, {cut} + 1)]"
    )


def wrapped_axis(**kwargs: Any) -> alt.Axis:
    """An axis whose labels are shown whole: wrapped onto two lines, up to LABEL_LIMIT pixels a line."""
    return alt.Axis(labelExpr=wrap(), labelLimit=LABEL_LIMIT, labelOverlap=False, **kwargs)


def legend(columns: int, orient: Literal["top", "bottom"] = "bottom", **kwargs: Any) -> alt.Legend:
    """A legend under (or over) the chart in `columns` columns, its labels whole (wrapped, never cut)."""
    return alt.Legend(
        orient=orient, columns=columns, labelExpr=wrap(), labelLimit=LABEL_LIMIT, titleLimit=LABEL_LIMIT, **kwargs
    )


def layer(*charts: alt.Chart) -> alt.LayerChart:
    """alt.layer of `charts`, the first chart's data frame set once on the layer (the charts drawing it inherit it;
    others keep their own). Left to itself Altair lifts a shared frame out of each chart after hashing the chart
    with the frame's text repr (3-7 ms a chart, up to seven on a Feedback rerun). The charts passed lose their own
    reference to the frame."""
    data = charts[0].data
    if not isinstance(data, pd.DataFrame):
        return alt.LayerChart(layer=list(charts))
    for c in charts:
        if c.data is data:
            c.data = alt.Undefined
    return alt.LayerChart(layer=list(charts), data=data)


def when(test: str, then: object, otherwise: object, channel: type[alt.SchemaBase] = alt.ColorValue) -> alt.SchemaBase:
    """A channel's fixed value `then` where the Vega expression `test` holds, else `otherwise`: the spec
    alt.condition writes, built as the channel's value class (`channel`: alt.ColorValue, alt.StrokeValue, ...).
    alt.condition returns a dict, which Altair validates and converts through from_dict: 7-10 ms a call against
    0.1 ms, four calls on each Agreement rerun."""
    return channel(otherwise, condition={"test": test, "value": then})


def tip(field: str, title: str | None = None, **kwargs: Any) -> alt.Tooltip:
    """A tooltip entry titled with its column's readable name (ui.tables.column_label) unless `title` says."""
    return alt.Tooltip(field, title=title or column_label(field.split(":")[0]), **kwargs)


def with_rubric_titles(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with a rubric_title column: each rubric's title from the catalogue (the sidebar's rubric_title)."""
    return df.assign(rubric_title=df["rubric"].map(rubric_title))


# Colours of rubrics (Vega's category20, whose first ten are its category10): one per rubric of the catalogue in its
# order, so a rubric keeps its colour in every chart and under every filter.
RUBRIC_PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
)  # fmt: skip


def rubric_colors(shown: pd.Series) -> alt.Scale:
    """The one colour scale of rubric titles: each rubric's colour fixed by its place in the catalogue (rubrics
    outside it after, by name), so filtering never recolours a rubric; the domain holds the rubrics `shown` only,
    so the legend lists those (all seventeen of the catalogue left no room for the chart)."""
    catalogue = [rubric_title(r) for r in RUBRICS]
    present = {str(t) for t in shown.dropna()}
    order = catalogue + sorted(present - set(catalogue))
    domain = [t for t in order if t in present]
    return alt.Scale(domain=domain, range=[RUBRIC_PALETTE[order.index(t) % len(RUBRIC_PALETTE)] for t in domain])


def rubric_color(df: pd.DataFrame, **kwargs: Any) -> alt.Color:
    """The colour channel of a frame's rubric_title column on the one rubric scale (rubric_colors)."""
    return alt.Color("rubric_title:N", title="Rubric", scale=rubric_colors(df["rubric_title"]), **kwargs)


def integer_axis(**kwargs: Any) -> alt.Axis:
    """An axis of counts: whole-number ticks only (no "0.5 rows")."""
    return alt.Axis(format="d", tickMinStep=1, **kwargs)


def week_axis(weeks: pd.Series, **kwargs: Any) -> alt.Axis:
    """A time axis ticked at the weeks themselves (their Mondays), labelled in the one week format, in UTC (the
    weeks are dates at midnight). The ticks are Vega-Lite date-times (plain milliseconds drew no label) and the
    labels a label expression (Streamlit's theme overrode the axis format)."""
    days = [pd.Timestamp(d) for d in sorted(pd.to_datetime(weeks.dropna()).unique())]
    values = [alt.DateTime(year=d.year, month=d.month, date=d.day, utc=True) for d in days]
    return alt.Axis(
        values=values,
        format=WEEK_D3,
        formatType="utc",
        labelExpr=f"utcFormat(datum.value, '{WEEK_D3}')",
        labelAngle=-40,
        labelOverlap=True,
        **kwargs,
    )


def week_x(field: str, weeks: pd.Series, title: str | None = "Week starting") -> alt.X:
    """The x channel of a weekly time series: a week time unit (UTC days: each point on its Monday) and the week
    axis."""
    return alt.X(f"{field}:T", timeUnit="utcyearmonthdate", title=title, axis=week_axis(weeks))


def volume_by_rubric(df: pd.DataFrame) -> alt.Chart:
    """Stacked bars of ratings per rubric, coloured by role."""
    return (
        alt.Chart(with_rubric_titles(df), title="Ratings per rubric")
        .mark_bar()
        .encode(
            y=alt.Y("rubric_title:N", title=None, sort="-x", axis=wrapped_axis()),
            x=alt.X("ratings:Q", title="Ratings"),
            color=alt.Color("role:N", scale=ROLE_COLORS, title="Role", legend=legend(2, orient="top")),
            tooltip=[tip("rubric_title", "rubric"), tip("role"), tip("ratings"), tip("tasks"), tip("raters")],
        )
        .properties(height=alt.Step(30))
    )


def volume_by_week(df: pd.DataFrame) -> alt.Chart:
    """Weekly ratings per rubric as stacked bars, one row of bars per role."""
    weeks = pd.to_datetime(df["week"])
    order = [week_label(w) for w in sorted(weeks.unique())]
    df = with_rubric_titles(df.assign(week=[week_label(w) for w in weeks]))
    return (
        alt.Chart(df, title="Ratings per week (weeks start on Monday)")
        .mark_bar()
        .encode(
            x=alt.X("week:O", title="Week starting", sort=order, axis=alt.Axis(labelAngle=-40)),
            y=alt.Y("sum(ratings):Q", title="Ratings", axis=integer_axis()),
            # The legend above the bars: below them it hung over the next chart's title (Streamlit fits the chart
            # to this height; a bottom legend of many rubrics outgrew it).
            color=rubric_color(df, legend=legend(2, orient="top")),
            tooltip=[tip("week"), tip("rubric_title", "rubric"), tip("role"), tip("ratings"), tip("tasks")],
        )
        .properties(height=440)
    )


def submission_status(df: pd.DataFrame) -> alt.Chart:
    """Submissions per status and rubric."""
    return (
        alt.Chart(with_rubric_titles(df), title="Submissions by status")
        .mark_bar()
        .encode(
            x=alt.X("submissions:Q", title="Submissions"),
            y=alt.Y("rubric_title:N", title=None, axis=wrapped_axis()),
            color=alt.Color(
                "status:N",
                title="Status",
                legend=legend(3, orient="top"),
                scale=alt.Scale(
                    domain=["rated", "incomplete", "skipped", "flagged", "rejected"],
                    range=["#54a24b", "#eeca3b", "#bab0ac", "#f58518", "#e45756"],
                ),
            ),
            tooltip=[tip("rubric_title", "rubric"), tip("status"), tip("submissions")],
        )
        .properties(height=alt.Step(30))
    )


def quarantine_by_field(df: pd.DataFrame) -> alt.Chart:
    """Quarantined rows per file and field."""
    return (
        alt.Chart(df.assign(field_label=df["field"].map(column_label)), title="Quarantined rows by file and field")
        .mark_bar()
        .encode(
            x=alt.X("rows:Q", title="Rows", axis=integer_axis()),
            y=alt.Y("file_name:N", title=None, axis=alt.Axis(labelLimit=LABEL_LIMIT)),
            color=alt.Color("field_label:N", title="Field", legend=legend(4)),
            tooltip=[tip("file_name"), tip("field_label", "field"), tip("rows")],
        )
        .properties(height=alt.Step(24))
    )


def level_distribution(df: pd.DataFrame, columns: int = 2) -> alt.Chart:
    """Share of each level per dimension (levels in scale order), contractors beside researchers, one panel
    per dimension, `columns` panels a row (facets cannot stretch: two fit the wide layout at laptop widths)."""
    return (
        alt.Chart(df, title="Levels used per dimension")
        .mark_bar()
        .encode(
            x=alt.X(
                "level:N",
                title=None,
                sort=alt.EncodingSortField("level_index"),
                axis=alt.Axis(labelAngle=-35, labelOverlap=False),
            ),
            xOffset=alt.XOffset("role:N"),
            y=alt.Y("share:Q", title="Share of the role's ratings", axis=alt.Axis(format="%")),
            color=alt.Color("role:N", scale=ROLE_COLORS, title="Role", legend=legend(2, orient="top")),
            facet=alt.Facet(
                "dimension_label:N",
                title=None,
                columns=columns,
                sort=alt.EncodingSortField("dimension_order", op="min"),
            ),
            tooltip=[
                tip("dimension_label", "dimension"),
                tip("level"),
                tip("coarse", "coarse level"),
                tip("role"),
                tip("n"),
                tip("share:Q", format=".1%"),
            ],
        )
        .properties(width=200, height=160)
        .resolve_scale(x="independent", xOffset="independent")  # each dimension has its own scale
    )


def rater_level_heatmap(df: pd.DataFrame, title: str) -> alt.LayerChart:
    """Rater x level heatmap of each rater's share per level, with the count in the cell."""
    base = alt.Chart(df, title=title).encode(
        x=alt.X(
            "level:N",
            title=None,
            sort=alt.EncodingSortField("level_index"),
            axis=alt.Axis(labelAngle=-35, labelOverlap=False),
        ),
        y=alt.Y(
            "rater_id:N",
            title=None,
            sort=alt.EncodingSortField("mean_level", order="descending"),
            axis=alt.Axis(labelOverlap=False),
        ),
    )
    cells = base.mark_rect().encode(
        color=alt.Color(
            "share:Q", title="Share of the rater's ratings", scale=alt.Scale(scheme="blues", domain=[0, 1])
        ),
        tooltip=[
            tip("rater_id"),
            tip("role"),
            tip("level"),
            tip("n"),
            tip("share:Q", format=".1%"),
            tip("mean_level:Q", format=".2f"),
            tip("rater_total", "rater's ratings"),
        ],
    )
    text = base.mark_text(fontSize=10).encode(
        text=alt.Text("n:Q"),
        color=when("datum.share > 0.5", "white", "black"),
    )
    return layer(cells, text).properties(height=alt.Step(18))


def position_bias(df: pd.DataFrame, title: str) -> alt.LayerChart:
    """Share of decided comparisons won by the option shown first, per rater, with Wilson 95% interval bars
    and a rule at 0.5 (no position bias)."""
    y = alt.Y("rater_id:N", title=None, sort=None)
    base = alt.Chart(df)
    color = alt.Color("role:N", scale=ROLE_COLORS, title="Role", legend=legend(2, orient="top"))
    bars = base.mark_rule(strokeWidth=2).encode(
        y=y,
        x=alt.X(
            "ci_low:Q", title="Share where the option shown first was rated better", scale=alt.Scale(domain=[0, 1])
        ),
        x2=alt.X2("ci_high:Q"),
        color=color,
    )
    points = base.mark_point(filled=True, size=60).encode(
        y=y,
        x=alt.X("share_first_better:Q"),
        color=color,
        shape=alt.Shape("pooled:N", legend=None),  # the pooled rows are labelled "All contractors" etc.
        tooltip=[
            tip("rater_id"),
            tip("role"),
            tip("n", "decided comparisons"),
            tip("first_better", "option shown first better"),
            tip("second_better", "option shown second better"),
            tip("equal", "ties"),
            tip("share_first_better:Q", "share shown first better", format=".1%"),
            tip("ci_low:Q", "95% low", format=".1%"),
            tip("ci_high:Q", "95% high", format=".1%"),
        ],
    )
    half = alt.Chart(pd.DataFrame({"x": [0.5]})).mark_rule(strokeDash=[4, 4], color="gray").encode(x=alt.X("x:Q"))
    # The title goes on the layer: Vega-Lite drops a title set on one of its layers.
    return layer(bars, points, half).properties(title=title, height=alt.Step(20))


def severity_counts(df: pd.DataFrame) -> alt.Chart:
    """Disagreement cases per severity, most severe first."""
    return (
        alt.Chart(df, title="Disagreements by severity")
        .mark_bar()
        .encode(
            x=alt.X("cases:Q", title="Cases"),
            y=alt.Y("severity:N", title=None, sort=None, axis=alt.Axis(labelLimit=220)),
            color=alt.Color("severity:N", legend=None, sort=None, scale=alt.Scale(scheme="orangered", reverse=True)),
            tooltip=[tip("severity"), tip("cases")],
        )
        .properties(height=alt.Step(24))
    )


YARDSTICK_COLORS = alt.Scale(domain=[CEILING, TEAM], range=["#f58518", "#595959"])
SAMPLE_COLORS = alt.Scale(domain=["30 tasks or more", "fewer than 30 tasks"], range=["#4c78a8", "#9ecae9"])


def rater_intervals(df: pd.DataFrame, yardsticks: pd.DataFrame, title: str, x_title: str) -> alt.LayerChart:
    """One row per rater in the frame's order (review order: analytics.agreement.team.review_order): the
    coefficient (point) with its 95% interval (bar), and the yardsticks (researcher-researcher agreement, team median) as
    labelled vertical rules."""
    order = df["rater_id"].tolist()
    y = alt.Y("rater_id:N", title=None, sort=order, axis=alt.Axis(labelOverlap=False))
    base = alt.Chart(df)
    bars = base.mark_rule(strokeWidth=2).encode(
        y=y,
        x=alt.X("ci_low:Q", title=x_title),
        x2=alt.X2("ci_high:Q"),
        color=alt.Color("sample:N", scale=SAMPLE_COLORS, legend=None),
    )
    points = base.mark_point(filled=True, size=70, opacity=1).encode(
        y=y,
        x=alt.X("value:Q"),
        color=alt.Color("sample:N", scale=SAMPLE_COLORS, title="Sample"),
        tooltip=[
            tip("rater_id"),
            alt.Tooltip("value:Q", format=".3f", title=x_title),
            alt.Tooltip("ci_low:Q", format=".3f", title="95% interval from"),
            alt.Tooltip("ci_high:Q", format=".3f", title="95% interval to"),
            alt.Tooltip("n:Q", title="pairs"),
            alt.Tooltip("n_tasks:Q", title="tasks"),
            alt.Tooltip("n_units:Q", title="units"),
        ],
    )
    rules = (
        alt.Chart(yardsticks)
        .mark_rule(strokeDash=[6, 4], strokeWidth=2)
        .encode(
            x=alt.X("value:Q"),
            color=alt.Color("reference:N", scale=YARDSTICK_COLORS, title="Yardstick"),
            tooltip=[tip("reference", "yardstick"), tip("value:Q", format=".3f"), tip("basis")],
        )
    )
    labels = [
        alt.Chart(yardsticks.iloc[[i]].assign(text=f"{row.reference} {row.value:.2f}"))
        .mark_text(align="center", dy=-4 - 14 * i, baseline="bottom", fontSize=11, fontWeight="bold")
        .encode(
            x=alt.X("value:Q"),
            y=alt.YValue(0),
            text=alt.Text("text:N"),
            color=alt.Color("reference:N", scale=YARDSTICK_COLORS, legend=None),
        )
        for i, row in enumerate(yardsticks.itertuples())
    ]
    return (
        layer(bars, points, rules, *labels)
        .resolve_scale(color="independent")
        .properties(title=alt.TitleParams(title_lines(title), offset=14 * len(yardsticks) + 8), height=alt.Step(16))
    )


def title_lines(title: str) -> str | list[str]:
    """A long title as two lines, broken after its first ": ", so that it fits the chart at a laptop window's
    width (hidden characters made visible: charts.show only sees string titles)."""
    head, sep, tail = title.partition(": ")
    return [visible(head + ":"), visible(tail)] if sep and len(title) > 60 else visible(title)


def confusion_heatmap(df: pd.DataFrame, title: str, subject: str, reference: str) -> alt.LayerChart:
    """Counts of (subject level, reference level) pairs on a levels x levels grid, the count in each cell and the
    diagonal (exact agreement) outlined."""
    levels = list(df["levels"].iloc[0]) if len(df) else []
    df = df.assign(
        subject_level=df["subject_level"].astype(str),
        reference_level=df["reference_level"].astype(str),
        diagonal=df["subject_level"].astype(str) == df["reference_level"].astype(str),
    ).drop(columns=["levels"])
    x = alt.X("reference_level:N", title=reference, sort=levels, axis=alt.Axis(labelAngle=-30, labelOverlap=False))
    y = alt.Y("subject_level:N", title=subject, sort=levels, axis=alt.Axis(labelOverlap=False))
    base = alt.Chart(df).encode(x=x, y=y)
    cells = base.mark_rect().encode(
        color=alt.Color("n:Q", title="Pairs", scale=alt.Scale(scheme="blues")),
        stroke=when("datum.diagonal", "#e45756", None, alt.StrokeValue),
        strokeWidth=when("datum.diagonal", 2, 0, alt.StrokeWidthValue),
        tooltip=[
            alt.Tooltip("subject_level:N", title=subject),
            alt.Tooltip("reference_level:N", title=reference),
            alt.Tooltip("n:Q", title="pairs"),
            alt.Tooltip("row_share:Q", format=".1%", title=f"share of the {subject.lower()} row"),
        ],
    )
    text = base.mark_text(fontSize=12).encode(
        text=alt.Text("n:Q"),
        color=when("datum.row_share > 0.5", "white", "black"),
    )
    return layer(cells, text).properties(title=title, width=alt.Step(56), height=alt.Step(36))


GRID_STEP_MIN, GRID_STEP_MAX, GRID_WIDTH = 14, 96, 560  # pixels: a cell's width at least, at most; the grid's width
GRID_ROW = 20  # pixels: a row's height, whatever the number of columns (a name a row, readable)
GRID_VALUE_FROM = 36  # pixels: cells at least this wide print the figure itself, narrower ones the shared units


NAME_THEN_ID = (
    "indexof(datum.label, ' (') > 0 ? [slice(datum.label, 0, indexof(datum.label, ' (')), "
    "slice(datum.label, indexof(datum.label, ' (') + 1)] : datum.label"
)


def grid_order(df: pd.DataFrame, axis: str, value: str) -> list[str]:
    """The raters of one axis of a rater x rater grid, by their mean figure over their pairs, highest first (ties
    and undefined figures by name)."""
    means = df.groupby(axis, sort=False)[value].mean()
    ranked = pd.DataFrame({"name": means.index.astype(str), "mean": means.to_numpy()})
    ranked = ranked.sort_values(["mean", "name"], ascending=[False, True], na_position="last")
    return ranked["name"].tolist()


def pairwise_heatmap(
    df: pd.DataFrame, value: str, value_title: str, title: str, rows: str, columns: str
) -> alt.LayerChart:
    """Rater x rater grid of one agreement figure over the units each pair shares; `rows` and `columns` name the
    rater columns (rater_a, rater_b) to draw on each axis: the many side (contractors) as rows, one readable name a
    row, and the few (researchers) as columns wide enough to print each pair's figure; both sorted by their mean
    figure, highest first. Narrow cells (many columns) print the number of shared units instead."""
    agreement = value.endswith("agreement")
    step = max(GRID_STEP_MIN, min(GRID_STEP_MAX, GRID_WIDTH // max(1, df[columns].nunique())))
    shows_value = step >= GRID_VALUE_FROM
    base = alt.Chart(df.assign(**{rows: df[rows].astype(str), columns: df[columns].astype(str)})).encode(
        x=alt.X(
            f"{columns}:N",
            title=None,
            sort=grid_order(df, columns, value),
            axis=alt.Axis(
                labelAngle=0 if shows_value else -90,
                labelOverlap=False,
                orient="top",
                labelLimit=step * 3,
                # "Ora V. (r02)" on two lines (name, id) where the column is narrow for both on one
                labelExpr=NAME_THEN_ID if shows_value else alt.Undefined,
            ),
        ),
        y=alt.Y(
            f"{rows}:N",
            title=None,
            sort=grid_order(df, rows, value),
            axis=alt.Axis(labelOverlap=False, labelLimit=LABEL_LIMIT),
        ),
    )
    cells = base.mark_rect().encode(
        color=alt.Color(
            f"{value}:Q",
            title=value_title,
            scale=alt.Scale(scheme="blues" if agreement else "redblue", domain=[0, 1] if agreement else [-1, 1]),
        ),
        tooltip=[
            alt.Tooltip(f"{rows}:N", title="rater"),
            alt.Tooltip(f"{columns}:N", title="with"),
            alt.Tooltip("n:Q", title="shared units"),
            alt.Tooltip(f"{value}:Q", format=".3f", title=value_title),
        ],
    )
    dark = f"abs(datum.{value}) > 0.6"  # `value` is one of the pairwise statistics' names, not user text
    text = base.mark_text(fontSize=11 if shows_value else 9).encode(
        text=alt.Text(f"{value}:Q", format=".2f") if shows_value else alt.Text("n:Q"),
        color=when(dark, "white", "#333333"),
    )
    return (
        layer(cells, text)
        .properties(title=title, width=alt.Step(step), height=alt.Step(GRID_ROW))
        .configure_legend(orient="bottom", direction="horizontal", gradientLength=240)
    )


def paradox_marginals(df: pd.DataFrame, title: str) -> alt.Chart:
    """Share of each level on the two sides of a comparison (the marginals behind chance agreement)."""
    levels = df["level"].drop_duplicates().tolist()
    return (
        alt.Chart(df, title=title)
        .mark_bar()
        .encode(
            y=alt.Y("level:N", title=None, sort=levels),
            yOffset=alt.YOffset("side:N"),
            x=alt.X("share:Q", title="Share of ratings", axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("side:N", title=None, legend=alt.Legend(orient="top", labelLimit=300)),
            tooltip=[tip("level"), tip("side"), tip("share:Q", format=".1%")],
        )
        .properties(height=alt.Step(14))
    )


QUICK_MARKS = ("bar", "line", "point", "area", "tick")


def quick_chart(df: pd.DataFrame, x: str, y: str | None, color: str | None, mark: str) -> alt.Chart:
    """A chart of a query result: x, y (count of rows when None), optional colour, one mark."""

    def encoding(col: str) -> str:
        kind = df[col].dtype.kind
        return f"{col}:{'Q' if kind in 'iuf' else 'T' if kind == 'M' else 'N'}"

    enc = {
        "x": alt.X(encoding(x), title=x),
        "y": alt.Y(encoding(y), title=y) if y else alt.Y("count():Q", title="rows"),
        "tooltip": [alt.Tooltip(c) for c in (x, y, color) if c],
    }
    if color:
        enc["color"] = alt.Color(encoding(color), title=color)
    if mark not in QUICK_MARKS:
        raise ValueError(f"mark must be one of {', '.join(QUICK_MARKS)}")
    return getattr(alt.Chart(df), f"mark_{mark}")().encode(**enc)


def show(where: ModuleType | DeltaGenerator, chart: alt.TopLevelMixin, width: str = "stretch") -> None:
    """Draw `chart` in `where` (st or a column) with every text cell and title of its data made visible
    (ui.text.visible: control, bidirectional and zero-width characters in ids shown as code points)."""
    where.altair_chart(Unchecked(visible_chart(chart)), width=width)  # type: ignore[call-overload]  # Unchecked stands in for the chart; width is "stretch" or "content"


class Unchecked:
    """A chart Streamlit serialises without Altair's schema check (see disable_debug_mode above): Streamlit reads
    the chart through to_dict(); anything else it asks is the chart's own."""

    def __init__(self, chart: alt.TopLevelMixin) -> None:
        self.chart = chart

    def to_dict(self, *args: Any, **kwargs: Any) -> dict:
        """The chart's Vega-Lite spec, not validated unless asked (`validate=True`)."""
        return self.chart.to_dict(*args, **{"validate": False, **kwargs})

    def __getattr__(self, name: str) -> Any:
        return getattr(self.chart, name)


def visible_chart(chart: Any) -> Any:
    """`chart` (and its layers and concatenations) with text cells and string titles passed through visible."""
    data = getattr(chart, "data", alt.Undefined)
    if isinstance(data, pd.DataFrame):
        text = [c for c in data.columns if data[c].dtype == object or isinstance(data[c].dtype, pd.StringDtype)]
        if text:
            chart.data = data.assign(**{c: visible_cells(data[c]) for c in text})
    if isinstance(getattr(chart, "title", None), str):
        chart.title = visible(chart.title)
    for part in ("layer", "hconcat", "vconcat", "concat"):
        children = getattr(chart, part, alt.Undefined)
        if isinstance(children, list):
            for child in children:
                visible_chart(child)
    spec = getattr(chart, "spec", alt.Undefined)
    if spec is not alt.Undefined and spec is not None:
        visible_chart(spec)
    return chart
