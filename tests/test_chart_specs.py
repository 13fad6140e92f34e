"""Every chart the pages send is a valid Vega-Lite spec. The app skips Altair's own schema check (ui/charts.py:
0.4-0.5 s of a rerun at 1M tasks), so the check happens here, on the specs Streamlit serialised for each page on
the demo store, against the Vega-Lite JSON schema Altair ships."""

from __future__ import annotations

import json

import altair as alt
import pytest

from tests.conftest import app_test
from ui import charts

PAGES = ["overview", "agreement", "distributions", "disagreements", "feedback", "raters", "consistency", "plan", "data"]


def chart_specs(at) -> list[dict]:
    """The Vega-Lite spec of every chart on the page."""
    return [json.loads(c.proto.spec) for c in at.get("arrow_vega_lite_chart") + at.get("vega_lite_chart")]


def schema_errors(spec: dict) -> str | None:
    """Why `spec` is not a valid Vega-Lite spec (None: it is)."""
    schema = alt.vegalite.v6.schema.core.load_schema()
    error = alt.utils.schemapi.validate_jsonschema(spec, schema, raise_error=False)
    return None if error is None else str(error)[:2000]


@pytest.fixture
def from_dict_calls(monkeypatch) -> list[int]:
    """A list that grows by one each time Altair converts a dict or shorthand string through from_dict."""
    calls: list[int] = []
    original = alt.utils.schemapi._FromDict.__init__

    def count(self, *args, **kwargs):
        calls.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(alt.utils.schemapi._FromDict, "__init__", count)
    return calls


@pytest.mark.parametrize("page", PAGES)
def test_every_chart_a_page_sends_is_valid_vega_lite(app_store, page, from_dict_calls):
    """Every chart a page sends is valid Vega-Lite, and the page builds it from channel objects: Altair turns a shorthand string or a dict given to
    encode() into a channel through from_dict, which rebuilds its table of every schema class on each call (4-10
    ms a call in altair 6.3; ui.charts.when and typed channels such as alt.X("value:Q") instead)."""
    at = app_test(f"app_pages/{page}.py")
    assert not at.exception, [e.message for e in at.exception]
    specs = chart_specs(at)
    for section in ("Agreement", "Week by week", "Levels and time") if page == "feedback" else ():
        at.session_state["fb_section"] = section  # the card draws its open tab alone
        specs += chart_specs(at.run())
    assert not from_dict_calls, f"the {page} page's charts went through Altair's from_dict {len(from_dict_calls)} times"
    for spec in specs:
        assert schema_errors(spec) is None, (page, spec.get("title"), schema_errors(spec))
    if page in ("overview", "agreement", "distributions", "feedback"):
        assert specs, f"the {page} page drew no chart on the demo store"


def test_an_invalid_spec_is_caught():
    """The check itself: a mark Vega-Lite does not know fails it."""
    spec = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x="a:Q").to_dict()
    assert schema_errors(spec) is None
    assert schema_errors({**spec, "mark": {"type": "no_such_mark"}}) is not None


def test_the_app_serialises_charts_without_the_schema_check():
    """ui.charts.show hands Streamlit a chart whose to_dict skips validation unless asked, and importing ui.charts
    turned off the check as charts are built (so this invalid mark can be made at all)."""
    bad = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x="a:Q")
    bad.mark = alt.MarkDef(type="point", opacity="not a number")  # type: ignore[arg-type]
    unchecked = charts.Unchecked(bad)
    assert unchecked.to_dict()["mark"]["opacity"] == "not a number"
    with pytest.raises(alt.utils.schemapi.SchemaValidationError):
        unchecked.to_dict(validate=True)
    assert unchecked.mark is bad.mark


def test_a_quick_chart_is_built_from_channel_objects(from_dict_calls):
    """The Explore page's chart of a query result: no channel goes through Altair's from_dict either."""
    import pandas as pd

    df = pd.DataFrame({"n": [1, 2], "rubric": ["a", "b"], "day": pd.to_datetime(["2026-01-01", "2026-01-02"])})
    chart = charts.quick_chart(df, "day", "n", "rubric", "line")
    assert not from_dict_calls
    assert schema_errors(chart.to_dict()) is None


@pytest.mark.parametrize(
    "channel, then, otherwise, value_class",
    [("color", "white", "black", alt.ColorValue), ("stroke", "#e45756", None, alt.StrokeValue)]
    + [("strokeWidth", 2, 0, alt.StrokeWidthValue)],
)
def test_when_writes_the_spec_alt_condition_writes(channel, then, otherwise, value_class):
    """ui.charts.when (a conditional fixed value built without a schema check) gives the encoding alt.condition
    gives."""
    base = alt.Chart(alt.Data(values=[{"a": 1, "d": True}])).mark_rect().encode(x="a:Q")
    expected = base.encode(**{channel: alt.condition("datum.d", alt.value(then), alt.value(otherwise))})
    got = base.encode(**{channel: charts.when("datum.d", then, otherwise, value_class)})
    assert got.to_dict(validate=True)["encoding"][channel] == expected.to_dict()["encoding"][channel]


def test_layer_sets_the_shared_frame_once():
    """ui.charts.layer gives the spec alt.layer gives when the charts draw one frame, and with another chart's own
    data beside it the frame goes on the layer while that chart keeps its own."""
    import pandas as pd

    df, other = pd.DataFrame({"a": [1, 2], "b": [3, 4]}), pd.DataFrame({"x": [0.5]})

    def parts():
        base = alt.Chart(df)
        return base.mark_point().encode(x="a:Q", y="b:Q"), base.mark_line().encode(x="a:Q", y="b:Q")

    assert charts.layer(*parts()).to_dict(validate=True) == alt.layer(*parts()).to_dict()
    mixed = charts.layer(*parts(), alt.Chart(other).mark_rule().encode(x="x:Q")).to_dict(validate=True)
    assert mixed["data"] == alt.layer(*parts()).to_dict()["data"]
    assert ["data" in c for c in mixed["layer"]] == [False, False, True]
    assert mixed["layer"][2]["data"] != mixed["data"]
