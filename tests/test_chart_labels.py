"""Charts show names people read, whole (#12 part 5): rubric titles from the catalogue, readable field and tooltip
titles (ui.tables.column_label), labels and legends with room to be shown uncut. Checked on the chart builders'
Vega-Lite specs (chart.to_dict()) for the demo store's data; the browser screenshots show how they render."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import pandas as pd
import pytest

from analytics.core.filters import Filters
from analytics.core.rubrics import RUBRICS
from analytics.describe import distributions, overview
from ui import charts
from ui import feedback_charts as fc

CHANNELS = ("x", "y", "color", "shape", "facet", "row", "column")


@pytest.fixture(scope="module")
def demo(demo_store) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to the session's demo store."""
    con = duckdb.connect(str(demo_store), read_only=True)
    yield con
    con.close()


def encodings(spec: dict) -> Iterator[dict]:
    """Every encoding block of a spec, its layers, facets and concatenations included."""
    if isinstance(spec, dict):
        if isinstance(spec.get("encoding"), dict):
            yield spec["encoding"]
        for v in spec.values():
            yield from encodings(v)
    elif isinstance(spec, list):
        for v in spec:
            yield from encodings(v)


def shown_values(chart, spec: dict) -> set[str]:
    """The text values of every nominal field a chart draws on an axis, legend or facet header."""
    frames = [chart.data] + [getattr(layer, "data", None) for layer in getattr(chart, "layer", [])]
    data = pd.concat([f for f in frames if isinstance(f, pd.DataFrame)], ignore_index=True)
    out: set[str] = set()
    for enc in encodings(spec):
        for channel in CHANNELS:
            field = enc.get(channel, {}).get("field") if isinstance(enc.get(channel), dict) else None
            if field in data.columns and enc[channel].get("type") in ("nominal", "ordinal"):
                out |= {v for v in data[field].dropna() if isinstance(v, str)}
    return out


def tooltip_titles(spec: dict) -> list[str]:
    """The title of every tooltip entry (a missing title would show the raw field name)."""
    titles = []
    for enc in encodings(spec):
        tips = enc.get("tooltip", [])
        for t in tips if isinstance(tips, list) else [tips]:
            titles.append(str(t.get("title", t.get("field"))) if isinstance(t, dict) else str(t))
    return titles


def overview_charts(con: duckdb.DuckDBPyConnection) -> dict:
    """The Overview's three charts on the whole demo."""
    return {
        "by rubric": charts.volume_by_rubric(overview.volume_by_rubric(con, Filters())),
        "by week": charts.volume_by_week(overview.volume_by_week(con, Filters())),
        "status": charts.submission_status(overview.submission_status(con, Filters())),
    }


def test_overview_charts_name_rubrics_by_their_catalogue_titles(demo):
    rubrics = overview.filter_options(demo)["rubrics"]  # the demo's rubrics, each in the catalogue
    assert len(rubrics) >= 4 and set(rubrics) <= set(RUBRICS)
    for name, chart in overview_charts(demo).items():
        spec = chart.to_dict()
        shown = shown_values(chart, spec)
        assert {RUBRICS[r].title for r in rubrics} <= shown, name
        assert not set(rubrics) & shown, name


def test_rubric_labels_are_wrapped_and_never_cut(demo):
    for name, chart in overview_charts(demo).items():
        spec = chart.to_dict()
        rubric_channels = [
            enc[c] for enc in encodings(spec) for c in ("y", "color") if enc.get(c, {}).get("field") == "rubric_title"
        ]
        assert rubric_channels, name
        for channel in rubric_channels:
            guide = channel.get("axis") or channel.get("legend")
            assert guide["labelLimit"] >= charts.LABEL_LIMIT, name  # the Vega-Lite default (180 px) cut titles
            assert guide["labelExpr"] == charts.wrap(), name


def test_overview_legends_sit_above_or_below_the_bars(demo):
    """A legend on the right takes the width the rubric titles and bars need at narrower layouts."""
    for name, chart in overview_charts(demo).items():
        legends = [enc["color"]["legend"] for enc in encodings(chart.to_dict()) if "color" in enc]
        assert legends and all(leg["orient"] in ("top", "bottom") for leg in legends), name


def test_quarantine_chart_shows_readable_fields_and_whole_file_names(demo):
    by_field = overview.quarantine_by_reason(demo)
    assert not by_field.empty  # the demo's deliberate error file
    chart = charts.quarantine_by_field(by_field)
    spec = chart.to_dict()
    shown = shown_values(chart, spec)
    assert "duration (s)" in shown and "duration_s" not in shown  # ui.tables.COLUMN_LABELS
    assert "rater" in shown and "rater_id" not in shown
    y = spec["encoding"]["y"]
    assert y["field"] == "file_name" and y["axis"]["labelLimit"] >= charts.LABEL_LIMIT
    assert spec["encoding"]["color"]["legend"]["columns"] >= 2


def test_distribution_charts_have_readable_tooltips_and_no_raw_legend(demo):
    rubric = "answer_comparison"
    levels = distributions.level_distribution(demo, rubric)
    bias = distributions.position_bias(demo, rubric)
    heat = distributions.rater_levels(demo, rubric, RUBRICS[rubric].primary)
    built = {
        "levels": charts.level_distribution(levels),
        "bias": charts.position_bias(bias[bias["dimension"] == RUBRICS[rubric].primary], "Usefulness"),
        "raters": charts.rater_level_heatmap(heat, "Usefulness"),
    }
    for name, chart in built.items():
        spec = chart.to_dict()
        titles = tooltip_titles(spec)
        assert titles, name
        assert not [t for t in titles if "_" in t], (name, titles)
    assert built["bias"].to_dict()["title"] == "Usefulness"  # on the layer, where Vega-Lite shows it
    levels_spec = built["levels"].to_dict()
    assert levels_spec["encoding"]["color"]["legend"]["orient"] == "top"  # a right legend overflowed the column
    assert levels_spec["encoding"]["facet"]["field"] == "dimension_label"
    # Pooled rows are named "All contractors" on the axis: no true/false "Pooled" legend.
    shapes = [enc["shape"] for enc in encodings(built["bias"].to_dict()) if "shape" in enc]
    assert shapes and all(s["legend"] is None for s in shapes)


def test_feedback_chart_tooltips_and_legend_are_readable():
    card = pd.DataFrame(
        {
            "dimension_label": ["Usefulness overall (comparison)", "Strongly-supported side information"],
            "exact_agreement": [0.5, 0.7],
            "exact_agreement_ci_low": [0.4, 0.6],
            "exact_agreement_ci_high": [0.6, 0.8],
            "n": [40, 50],
            "n_tasks": [35, 40],
            "team_exact_agreement": [0.55, 0.65],
            "team_contractors": [39, 39],
        }
    )
    weekly = pd.DataFrame(
        {
            "week": ["2026-03-02", "2026-03-09"],
            "exact_agreement": [0.5, 0.6],
            "ci_low": [0.4, 0.5],
            "ci_high": [0.6, 0.7],
            "team_exact_agreement": [0.55, 0.56],
            "n_tasks": [10, 12],
            "n_pairs": [30, 36],
        }
    )
    for chart in (fc.agreement_vs_team(card, "exact_agreement", "Exact agreement"), fc.weekly_agreement(weekly)):
        titles = tooltip_titles(chart.to_dict())
        assert titles and not [t for t in titles if "_" in t], titles
    spec = fc.agreement_vs_team(card, "exact_agreement", "Exact agreement").to_dict()
    axes = [enc["y"]["axis"] for enc in encodings(spec) if "axis" in enc.get("y", {})]
    assert axes and all(a["labelLimit"] >= charts.LABEL_LIMIT for a in axes)


def test_long_chart_titles_break_after_the_colon_instead_of_being_cut():
    title = "Weighted kappa on Usefulness overall (comparison): each contractor against researchers"
    assert charts.title_lines(title) == [
        "Weighted kappa on Usefulness overall (comparison):",
        "each contractor against researchers",
    ]
    assert charts.title_lines("Exact agreement on Coherence: short") == "Exact agreement on Coherence: short"
