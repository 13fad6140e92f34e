"""The charts a lead reads on a review (#50 part 8), checked on the builders' Vega-Lite specs (chart.to_dict()) for
the demo store's data: weeks on a week time unit and printed one way, shares never below 0%, no legend hanging
over the next chart's title, no repeated axis titles in small multiples, one colour per rubric whatever the
filter, a legend on the Consistency rules chart, whole-number ticks on counts, a readable rater x rater grid."""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest

from analytics import agreement
from analytics.alarms.review import review
from analytics.consistency import rates
from analytics.core.filters import Filters
from analytics.core.formatting import WEEK_D3, WEEK_MOMENT, week_label
from analytics.core.rubrics import RUBRICS
from analytics.describe import overview
from analytics.effects import drift, markers
from ui import agreement_view as view
from ui import alarm_panel, charts
from ui import consistency_charts as cc
from ui import drift_charts as dc
from ui.tables import dates, number_columns

WHOLE, ONE = Filters(), Filters(rubric="preference_ranking")


def encodings(spec: object) -> Iterator[dict]:
    """Every encoding block of a spec, its layers, facets and concatenations included."""
    if isinstance(spec, dict):
        if isinstance(spec.get("encoding"), dict):
            yield spec["encoding"]
        for v in spec.values():
            yield from encodings(v)
    elif isinstance(spec, list):
        for v in spec:
            yield from encodings(v)


@pytest.fixture(scope="module")
def found(demo):
    """The review of the whole demo (its alarms), computed once for the module."""
    return review(demo, WHOLE)


def mondays(weeks: pd.Series) -> list[dict]:
    """The weeks' Mondays as Vega-Lite UTC date-times."""
    days = [pd.Timestamp(w) for w in sorted(pd.to_datetime(weeks).unique())]
    return [{"year": d.year, "month": d.month, "date": d.day, "utc": True} for d in days]


def rubric_colours(chart) -> dict[str, str]:
    """Each rubric title's colour on a chart's rubric colour channel(s), read from the scale's domain and range."""
    out: dict[str, str] = {}
    for enc in encodings(chart.to_dict()):
        color = enc.get("color", {})
        if color.get("field") == "rubric_title":
            scale = color["scale"]
            out |= dict(zip(scale["domain"], scale["range"], strict=True))
    assert out, "no rubric colour channel"
    return out


def test_the_weekly_rule_share_is_on_weeks_and_never_below_zero(demo):
    weekly = rates.weekly_share(demo, WHOLE)
    spec = cc.weekly_share(weekly).to_dict()
    xs = [enc["x"] for enc in encodings(spec) if "x" in enc]
    assert xs and all(x["timeUnit"] == "utcyearmonthdate" for x in xs)  # a point on each Monday, not on days
    axis = xs[0]["axis"]
    assert axis["values"] == mondays(weekly["week"])  # ticked at the weeks, not every day or every other
    assert axis["format"] == WEEK_D3 and axis["formatType"] == "utc" and WEEK_D3 in axis["labelExpr"]
    ys = [enc["y"] for enc in encodings(spec) if "y" in enc and "scale" in enc["y"]]
    assert ys and all(y["scale"]["domainMin"] == 0 and y["scale"]["clamp"] is True for y in ys)


def test_the_rule_share_title_is_clear_of_the_chart_above(demo):
    """The chart above it on the Overview (ratings per week) holds its legend above its bars, so nothing hangs
    below them over the next title; the rule share's own legend sits between its title and its lines."""
    above = charts.volume_by_week(overview.volume_by_week(demo, WHOLE)).to_dict()
    assert above["encoding"]["color"]["legend"]["orient"] == "top"
    spec = cc.weekly_share(rates.weekly_share(demo, WHOLE)).to_dict()
    assert spec["title"]["offset"] > 0
    assert {enc["color"]["legend"]["orient"] for enc in encodings(spec) if "color" in enc} == {"top"}


def test_drift_small_multiples_repeat_no_axis_title(demo, found):
    drifting = found.alerts[found.alerts["kind"] == "drift"]
    assert len(drifting)  # the demo plants drift
    weekly = drift.contractor_weeks(demo, drifting, WHOLE)
    spec = dc.alert_panels(weekly, found.alerts, markers.markers(demo, None), {}).to_dict()
    assert "facet" in spec
    titled = [(c, enc[c].get("title")) for enc in encodings(spec) for c in ("x", "y") if c in enc]
    assert titled and all(title is None for _, title in titled), titled
    assert "agreement with the other contractors" in spec["title"]["subtitle"].lower()  # said once, above
    xs = [enc["x"] for enc in encodings(spec) if "x" in enc]
    assert all(x["timeUnit"] == "utcyearmonthdate" and x["axis"]["format"] == WEEK_D3 for x in xs)


def test_a_rubric_keeps_its_colour_under_every_filter_and_on_every_chart(demo):
    whole = rubric_colours(charts.volume_by_week(overview.volume_by_week(demo, WHOLE)))
    one = rubric_colours(charts.volume_by_week(overview.volume_by_week(demo, ONE)))
    share = rubric_colours(cc.weekly_share(rates.weekly_share(demo, ONE)))
    rules = rubric_colours(cc.rule_rates(rates.consistency(demo, WHOLE).rules))
    title = RUBRICS["preference_ranking"].title
    assert whole[title] == one[title] == share[title] == rules[title]
    assert list(one) == [title] and len(whole) >= 4  # the legend lists the rubrics shown, not the catalogue
    assert len(set(whole.values())) == len(whole)  # one colour per rubric
    for t, colour in whole.items():  # every rubric the same colour on each chart that shows it
        assert rules.get(t, colour) == colour and share.get(t, colour) == colour


def test_the_consistency_rules_chart_has_a_legend(demo):
    spec = cc.rule_rates(rates.consistency(demo, WHOLE).rules).to_dict()
    colours = [enc["color"] for enc in encodings(spec) if "color" in enc]
    assert len(colours) == 2  # the interval bars and the points
    # Each layer carries the legend: one layer's legend=None hid the merged legend of the rubrics.
    assert all(isinstance(c.get("legend"), dict) and c["title"] == "Rubric" for c in colours)


def test_the_consistency_rules_chart_names_rules_in_words(demo):
    rules = rates.consistency(demo, WHOLE).rules
    chart = cc.rule_rates(rules)
    ys = [enc["y"] for enc in encodings(chart.to_dict()) if "y" in enc]
    assert {y["field"] for y in ys} == {"rule"}
    shown = set(chart.data["rule"])
    assert not shown & set(rules["rule_id"])  # words, not ids
    assert all(len(r) <= cc.RULE_WORDS or r.endswith(")") for r in shown)


def test_the_quarantine_chart_counts_rows_in_whole_numbers(demo):
    spec = charts.quarantine_by_field(overview.quarantine_by_reason(demo)).to_dict()
    axis = spec["encoding"]["x"]["axis"]
    assert axis["format"] == "d" and axis["tickMinStep"] == 1


def test_weeks_print_one_way_in_charts_and_tables(demo):
    assert week_label(pd.Timestamp("2026-03-30")) == "30 Mar 2026" == week_label("2026-03-30")
    by_week = overview.volume_by_week(demo, WHOLE)
    chart = charts.volume_by_week(by_week)
    assert set(chart.data["week"]) == {week_label(w) for w in by_week["week"]}
    assert chart.to_dict()["encoding"]["x"]["sort"] == [week_label(w) for w in sorted(by_week["week"].unique())]
    times = pd.to_datetime(by_week["week"]) + pd.Timedelta(hours=18, minutes=22)
    config = dates(pd.DataFrame({"week": pd.to_datetime(by_week["week"]), "at": times}), {})
    assert config["week"]["type_config"]["format"] == WEEK_MOMENT and config["week"]["label"] == "week"
    assert "at" not in config  # a time of day is kept


def test_alarm_table_headers_are_words_not_column_names(found):
    config = number_columns(found.alerts)
    assert config["team_value"]["label"] == "team (without them)"
    assert config["p_value"]["label"] == "p-value"
    assert all(c["label"] and "_" not in c["label"] for c in config.values())


def test_the_rater_grid_has_a_readable_row_per_contractor(demo):
    pm = agreement.pairwise_matrix(
        demo,
        agreement.AgreementSpec(comparison="all_raters", filters=Filters(rubric="answer_comparison")),
        "answer_comparison",
        "usefulness",
    )
    pairs = view.pairs_for(pm, "contractor_vs_researcher")
    assert pairs["rater_a"].nunique() > 3 * pairs["rater_b"].nunique()  # many contractors, few researchers
    spec = charts.pairwise_heatmap(pairs, "cohen_kappa", "Cohen's kappa", "t", "rater_a", "rater_b").to_dict()
    enc = spec["layer"][0]["encoding"]
    assert enc["y"]["field"] == "rater_a" and enc["x"]["field"] == "rater_b"  # contractors down, researchers across
    assert enc["x"]["axis"]["labelExpr"] == charts.NAME_THEN_ID  # "Ora V." over "(r02)": wide names never overlap
    assert spec["width"]["step"] >= charts.GRID_VALUE_FROM and spec["height"]["step"] == charts.GRID_ROW
    means = pairs.groupby("rater_a")["cohen_kappa"].mean().sort_values(ascending=False)
    assert enc["y"]["sort"][: len(means.dropna())] == means.dropna().index.tolist()  # sorted, highest first
    text = spec["layer"][1]["encoding"]["text"]
    assert text["field"] == "cohen_kappa" and text["format"] == ".2f"  # the figure itself in each cell


@pytest.mark.parametrize("columns", [3, 60])
def test_a_wide_rater_grid_prints_shared_units_in_narrow_cells(columns):
    pairs = pd.DataFrame(
        {
            "rater_a": [f"a{i}" for i in range(columns)],
            "rater_b": [f"b{i}" for i in range(columns)],
            "percent_agreement": [0.5] * columns,
            "n": [10] * columns,
        }
    )
    spec = charts.pairwise_heatmap(pairs, "percent_agreement", "agreement", "t", "rater_a", "rater_b").to_dict()
    field = spec["layer"][1]["encoding"]["text"]["field"]
    assert field == ("percent_agreement" if spec["width"]["step"] >= charts.GRID_VALUE_FROM else "n")
    assert charts.GRID_STEP_MIN <= spec["width"]["step"] <= charts.GRID_STEP_MAX


def test_alarms_read_in_words_not_ids(found):
    """An alarm's line names the rubric by its title and the dimension or rule by its label or words."""
    alerts = found.alerts
    rule = alerts[alerts["kind"] == "rule"].iloc[0]
    effect = alerts[(alerts["kind"] != "rule") & (alerts["dimension"] != "")].iloc[0]
    for a in (rule, effect):
        line = alarm_panel._label(a, str)
        assert RUBRICS[a["rubric"]].title in line and f"({a['rubric']}" not in line
        assert a["dimension"] not in line  # "core_comparison", "ac_comparison_follows_absolute": ids
    assert RUBRICS[effect["rubric"]].dimension(effect["dimension"]).label in alarm_panel._label(effect, str)
